#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run kOFI's KUnit suites as modules (kernels with KUnit: the debug
# kernel), so that they run with kmemleak, DEBUG_OBJECTS and the modules
# loaded the way users load them.  One check per suite, from KUnit's own
# "# suite: pass:P fail:F skip:S total:T" line; skipped tests fail it.
. ./lib.sh

check "insmod kofi" insmod /kofi/modules/kofi.ko
# Provider suites (e.g. ksocket's loopback tests) need their provider.
providers=$(kofi_modules | tail -n +2)
for m in $providers; do
	check "insmod $m" insmod "/kofi/modules/$m.ko"
done
n=0
for t in /kofi/modules/*_test.ko /kofi/modules/*kunit*.ko; do
	[ -e "$t" ] || continue
	n=$((n + 1))
	name=$(basename "$t" .ko)
	mod=$name
	seen=$(dmesg | wc -l)
	check "insmod $name" insmod "$t"
	name=$mod
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
for m in $(echo $providers | tr ' ' '\n' | sed -n '1!G;h;$p'); do
	check "rmmod $m" rmmod "$m"
done
check "rmmod kofi" rmmod kofi
finish
