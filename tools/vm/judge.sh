#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Judge one test in one guest's console log.  A guest that runs several
# tests in one boot (tools/vm/init) prints each test's output between
# "KOFI-TEST-BEGIN TEST" and "KOFI-TEST-END TEST rc=N", with the clean-up
# that follows the script (its kmemleak scan, the kernel log since it
# began) inside; only that section counts for TEST: its checks, its exit
# status, and its kernel reports (tools/scan-splats.sh), so that a report
# is never blamed on another test of the same boot.
#
# The test passes when its section ends with rc=0, holds at least one
# KOFI-PASS line (none with -b), no KOFI-FAIL line and no kernel report.
#
# usage: tools/vm/judge.sh [-q] [-b] [-t TAG] LOG TEST SECTION
#   LOG      the console log (CR LF line ends are read as LF)
#   SECTION  where TEST's section is written (the per-test log)
#   -t TAG   name of the guest in the lines printed (default "guest")
#   -q       print only failures
#   -b       the guest was a bystander (host 1 while host 0 ran a
#            one-guest test alone): no check is expected of it
# Prints each check and a last line "TEST: N passed, N failed".  Exits 0
# if TEST passed, 1 if it failed, 2 if its section never began in LOG
# (SECTION is then empty and nothing is counted), 3 if it began but did
# not end (counted as a failure).

set -uo pipefail
quiet=0 tag=guest bystander=0
while getopts qbt: opt; do
	case $opt in
	q) quiet=1 ;;
	b) bystander=1 ;;
	t) tag=$OPTARG ;;
	*) exit 64 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || { echo "usage: $0 [-q] [-b] [-t TAG] LOG TEST SECTION" >&2; exit 64; }
log=$1 test=$2 out=$3

awk -v t="$test" '
{ sub(/\r$/, "") }
$0 == "KOFI-TEST-BEGIN " t { on = 1 }
on { print }
on && index($0, "KOFI-TEST-END " t " rc=") == 1 { exit }
' "$log" > "$out"
[ -s "$out" ] || exit 2

p=$(grep -a -c '^KOFI-PASS: ' "$out")
f=$(grep -a -c '^KOFI-FAIL: ' "$out")
if [ $quiet -eq 0 ]; then
	grep -a -E '^KOFI-(PASS|FAIL|SAY): ' "$out" |
		sed -e "s/^KOFI-SAY: /  $tag| /" \
		    -e "s/^KOFI-\([A-Z]*\): /  \1 $tag: /"
else
	grep -a -E '^KOFI-FAIL: ' "$out" | sed "s/^KOFI-FAIL: /  FAIL $tag: /"
fi
status=0
end=$(grep -a "^KOFI-TEST-END $test rc=" "$out" | tail -n1)
if [ -z "$end" ]; then
	echo "  FAIL $tag: the test did not end (log: $out)"
	f=$((f + 1))
	status=3
elif [ "$end" != "KOFI-TEST-END $test rc=0" ]; then
	echo "  FAIL $tag: script did not finish cleanly (${end#KOFI-TEST-END }; log: $out)"
	f=$((f + 1))
elif [ "$p" -eq 0 ] && [ $bystander -eq 0 ]; then
	echo "  FAIL $tag: no check passed (log: $out)"
	f=$((f + 1))
fi
if ! "$(dirname "$0")/../scan-splats.sh" "$out"; then
	echo "  FAIL $tag: kernel reports in the test's console section"
	f=$((f + 1))
fi
echo "$test: $p passed, $f failed"
[ $status -ne 0 ] && exit $status
[ "$f" -eq 0 ]
