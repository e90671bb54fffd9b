#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scan a kernel log for reports that make any run a failure: BUG, WARNING,
# Oops, KASAN, UBSAN, lockdep, refcount, kmemleak, panics and hung tasks.
# Prints each report with the lines that follow it and exits 1 if there
# was one, 0 if the log is clean.
#
# usage: tools/scan-splats.sh LOGFILE

set -u
log=${1:?usage: $0 LOGFILE}

pattern='BUG:|WARNING:|Oops|general protection fault|KASAN:|UBSAN:'
pattern+='|possible circular locking|possible recursive locking'
pattern+='|inconsistent lock state|lock held when returning'
pattern+='|suspicious RCU usage|refcount_t:|unreferenced object 0x'
pattern+='|Kernel panic|kernel BUG|blocked for more than|stack-protector'
pattern+='|list_add corruption|list_del corruption|ODEBUG:'
pattern+='|detected stalls? on CPU|self-detected stall|kthread starved'
pattern+='|soft lockup|hard LOCKUP|NETDEV WATCHDOG'

if grep -a -n -E -A 30 "$pattern" "$log" > "$log.splats"; then
	echo "kernel reports found in $log:"
	head -n 200 "$log.splats"
	exit 1
fi
rm -f "$log.splats"
exit 0
