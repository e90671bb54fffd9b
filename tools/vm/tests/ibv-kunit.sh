#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The ib_verbs KUnit suites as modules (kernels with KUnit: the debug
# kernel): one check per suite from KUnit's "# suite: pass:P fail:F
# skip:S total:T" line; a failed or skipped test fails it.  (Not
# "name": lib.sh's check() sets that variable.)
. ./lib.sh

n=0
for t in /kofi/modules/ib_verbs_*_test.ko; do
	[ -e "$t" ] || continue
	n=$((n + 1))
	mod=$(basename "$t" .ko)
	seen=$(dmesg | wc -l)
	check "insmod $mod" insmod "$t"
	dmesg | tail -n +$((seen + 1)) | sed 's/^\[[^]]*\] *//' > "/tmp/$mod.ktap"
	grep -E '^ *not ok' "/tmp/$mod.ktap" | while read -r l; do say "$mod: $l"; done
	grep -E '^ *# [a-z0-9_]+: pass:' "/tmp/$mod.ktap" | grep -v '# Totals:' > "/tmp/$mod.suites"
	[ -s "/tmp/$mod.suites" ] || fail "$mod: no KUnit results in dmesg"
	while read -r _ suite counts; do
		case "$counts" in
		*"fail:0 skip:0 "*) pass "kunit ${suite%:} ($counts)" ;;
		*) fail "kunit ${suite%:}: $counts" ;;
		esac
	done < "/tmp/$mod.suites"
	check "rmmod $mod" rmmod "$mod"
done
[ $n -gt 0 ] || fail "no ib_verbs KUnit modules (this kernel has no KUnit)"
finish
