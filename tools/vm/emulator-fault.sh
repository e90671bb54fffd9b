#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Did the emulator, not the guest kernel, break this run?  QEMU's TCG
# (Debian's 7.2) now and then loads a guest CPU's EFLAGS with bits that no
# x86 CPU sets (bits 22-31, reserved and always 0 on hardware) and some it
# should not (TF, DF); the guest then takes debug traps or copies
# backwards and oopses.  Such a report shows the impossible bits in its
# register dump ("RSP: ...  EFLAGS: 81ff0a02").
#
# usage: tools/vm/emulator-fault.sh LOG...
# Prints the first such register line; exit 0 if one was found, 1 if not.

set -uo pipefail
# Bits 22-31 set: the first two hex digits not 0, or the third 4 or more.
grep -a -H -m1 -E \
	'EFLAGS: ([1-9a-f][0-9a-f]{7}|0[1-9a-f][0-9a-f]{6}|00[4-9a-f][0-9a-f]{5})( |$)' \
	"$@" | head -n1 | grep .
