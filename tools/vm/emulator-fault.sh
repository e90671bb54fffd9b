#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Did the emulator, not the guest kernel, break this run?  Two faults of
# QEMU's TCG (Debian's 7.2) are recognised:
#
# - It now and then loads a guest CPU's EFLAGS with bits that no x86 CPU
#   sets (bits 22-31, reserved and always 0 on hardware) and some it
#   should not (TF, DF); the guest then takes debug traps or copies
#   backwards and oopses.  Such a report shows the impossible bits in its
#   register dump ("RSP: ...  EFLAGS: 81ff0a02").
# - A virtual CPU now and then executes a breakpoint that the kernel's
#   live code patching (static keys, text_poke_bp()) had already removed
#   and synchronised every CPU past: the kernel finds no patch under way
#   and reports "Oops: int3", while the code dump shows that the byte
#   before the trapping address (the breakpoint's) is no longer 0xcc.
#
# usage: tools/vm/emulator-fault.sh LOG...
# Prints the first such line; exit 0 if one was found, 1 if not.

set -uo pipefail
# Bits 22-31 set: the first two hex digits not 0, or the third 4 or more.
grep -a -H -m1 -E \
	'EFLAGS: ([1-9a-f][0-9a-f]{7}|0[1-9a-f][0-9a-f]{6}|00[4-9a-f][0-9a-f]{5})( |$)' \
	"$@" | head -n1 | grep . && exit 0
# "Oops: int3", then its code dump: the byte before "<..>" is not cc.
awk '
/Oops: int3/ { int3 = 1; next }
int3 && /Code: / {
	int3 = 0
	for (i = 2; i <= NF; i++)
		if ($i ~ /^<[0-9a-f][0-9a-f]>$/ && $(i - 1) != "cc" &&
		    $(i - 1) ~ /^[0-9a-f][0-9a-f]$/) {
			print FILENAME ": int3 trap where no int3 is: " $0
			found = 1
			exit
		}
}
END { exit !found }' "$@"
