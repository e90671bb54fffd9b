#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-test of the harness's kernel report scanner: a clean boot log must
# pass tools/scan-splats.sh, and each log holding one kind of report
# (WARNING, KASAN, UBSAN, lockdep, kmemleak, hung task) must fail it.
# tools/vm/emulator-fault.sh must find the emulator's faults in the tcg-*
# logs (impossible EFLAGS; an int3 trap where the code holds no int3) and
# in no other log (int3.log: an int3 trap at a real int3).
# tools/vm/judge.sh must judge each test of a boot that ran several
# (sections.console) on its own console section only: a report in one
# test's section fails that test and no other, nor does one printed
# while booting; a leak in its kmemleak scan, a failed check or exit
# status fail it; a test that began and did not end, or never began, is
# told apart; a bystander's section (judge.sh -b: host 1 waiting while
# host 0 runs a one-guest test) passes with no check, and still fails on
# a report, and without -b a section with no check fails.
# Prints one line per case and "selftest: N passed, N failed".

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scan=$here/../scan-splats.sh
emu=$here/../vm/emulator-fault.sh
judge=$here/../vm/judge.sh
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect TOOL NAME RC WANT: count one case.
expect() {
	if [ "$3" -eq "$4" ]; then
		echo "  PASS $1 $2 (exit $3)"
		passed=$((passed + 1))
	else
		echo "  FAIL $1 $2: exit $3, expected $4"
		failed=$((failed + 1))
	fi
}

for log in "$here"/*.log; do
	name=$(basename "$log" .log)
	cp "$log" "$tmp/$name.log"
	"$scan" "$tmp/$name.log" > /dev/null
	rc=$?
	if [ "$name" = clean ]; then want=0; else want=1; fi
	expect scan-splats "$name" $rc $want
	"$emu" "$log" > /dev/null
	rc=$?
	case $name in tcg-*) want=0 ;; *) want=1 ;; esac
	expect emulator-fault "$name" $rc $want
done
cp "$here/sections.console" "$tmp/"
for c in "alpha 0 2 0" "bravo 1 2 1" "charlie 0 1 0" "leaky 1 1 1" \
	 "failing 1 1 2" "hung 3 1 1" "absent 2" "waiting 1 0 1" \
	 "waiting 0 0 0 -b" "waitwarn 1 0 1 -b"; do
	read -r name want p f opt <<< "$c"
	# shellcheck disable=SC2086
	out=$("$judge" -q ${opt:-} "$tmp/sections.console" "$name" "$tmp/$name.section")
	expect judge "$name${opt:+ $opt}" $? "$want"
	[ -n "${p:-}" ] || continue
	# Its own counts: the checks of its section, plus one for each way
	# it failed.
	counts=$(echo "$out" | tail -n1)
	if [ "$counts" = "$name: $p passed, $f failed" ]; then
		expect judge "$name${opt:+ $opt} counts" 0 0
	else
		echo "  FAIL judge $name${opt:+ $opt} counts: '$counts'"
		failed=$((failed + 1))
	fi
done
echo "selftest: $passed passed, $failed failed"
[ $failed -eq 0 ]
