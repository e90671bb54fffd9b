#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run kOFI's KUnit suites as modules (kernels with KUnit: the debug
# kernel), so that they run with kmemleak, DEBUG_OBJECTS and the modules
# loaded the way users load them.  One check per suite, from KUnit's own
# "# suite: pass:P fail:F skip:S total:T" line; skipped tests fail it.
. ./lib.sh

check "insmod kofi" insmod /kofi/modules/kofi.ko
n=0
for t in /kofi/modules/*_test.ko /kofi/modules/*kunit*.ko; do
	[ -e "$t" ] || continue
	n=$((n + 1))
	name=$(basename "$t" .ko)
	seen=$(dmesg | wc -l)
	check "insmod $name" insmod "$t"
	dmesg | tail -n +$((seen + 1)) | sed 's/^\[[^]]*\] *//' > "/tmp/$name.ktap"
	grep -E '^ *not ok' "/tmp/$name.ktap" > "/tmp/$name.failed"
	while read -r l; do say "$name: $l"; done < "/tmp/$name.failed"
	grep -E '^ *# [a-z0-9_]+: pass:' "/tmp/$name.ktap" |
		grep -v '# Totals:' > "/tmp/$name.suites"
	[ -s "/tmp/$name.suites" ] || fail "$name: no KUnit results in dmesg"
	while read -r _ suite counts; do
		case "$counts" in
		*"fail:0 skip:0 "*) pass "kunit ${suite%:} ($counts)" ;;
		*) fail "kunit ${suite%:}: $counts" ;;
		esac
	done < "/tmp/$name.suites"
	check "rmmod $name" rmmod "$name"
done
[ $n -gt 0 ] || fail "no KUnit test modules for this kernel"
check "rmmod kofi" rmmod kofi
finish
