#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-test of the harness's kernel report scanner: a clean boot log must
# pass tools/scan-splats.sh, and each log holding one kind of report
# (WARNING, KASAN, UBSAN, lockdep, kmemleak, hung task) must fail it.
# tools/vm/emulator-fault.sh must find the emulator's impossible EFLAGS in
# tcg-eflags.log and in no other log.
# Prints one line per case and "selftest: N passed, N failed".

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scan=$here/../scan-splats.sh
emu=$here/../vm/emulator-fault.sh
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for log in "$here"/*.log; do
	name=$(basename "$log" .log)
	cp "$log" "$tmp/$name.log"
	"$scan" "$tmp/$name.log" > /dev/null
	rc=$?
	if [ "$name" = clean ]; then want=0; else want=1; fi
	if [ $rc -eq $want ]; then
		echo "  PASS scan-splats $name (exit $rc)"
		passed=$((passed + 1))
	else
		echo "  FAIL scan-splats $name: exit $rc, expected $want"
		failed=$((failed + 1))
	fi
done
for log in "$here"/*.log; do
	name=$(basename "$log" .log)
	"$emu" "$log" > /dev/null
	rc=$?
	if [ "$name" = tcg-eflags ]; then want=0; else want=1; fi
	if [ $rc -eq $want ]; then
		echo "  PASS emulator-fault $name (exit $rc)"
		passed=$((passed + 1))
	else
		echo "  FAIL emulator-fault $name: exit $rc, expected $want"
		failed=$((failed + 1))
	fi
done
echo "selftest: $passed passed, $failed failed"
[ $failed -eq 0 ]
