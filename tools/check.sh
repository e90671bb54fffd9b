#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kOFI's whole test run (make check):
#   setup      packages, Debian kernels, linux-source (tools/setup.sh)
#   selftest   the kernel report scanner flags every kind of report
#   build      every module against Debian's 6.1 and 6.12 headers, W=1
#              and sparse: any warning fails
#   checkpatch scripts/checkpatch.pl --strict over the project's C files
#   kernel-doc scripts/kernel-doc -Wall quiet; every export documented
#   kunit      the KUnit suites under kunit.py with the sanitizers
#   debug      the sanitizer kernel (tools/debug-kernel.sh)
#   vm         every test of tools/vm/tests.list on 6.1, 6.12 and debug,
#              a group of tests per boot, each test its own stage
# Ends with one line "N passed, N failed"; exits non-zero on any failure.
#
# usage: tools/check.sh

set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$KOFI_TOP"

passed=0 failed=0
results=()
start=$(date +%s)

# record NAME PASSED FAILED [SECONDS]: count a stage's result; its
# duration is SECONDS, by default the time since step_start.
record() {
	passed=$((passed + $2))
	failed=$((failed + $3))
	results+=("$(printf '%-36s %4d passed, %d failed  %5ds' "$1" "$2" "$3" \
		     "${4:-$(($(date +%s) - step_start))}")")
}
# step NAME COMMAND...: a step that is one test.
step() {
	local name=$1
	shift
	echo "=== $name"
	step_start=$(date +%s)
	if "$@"; then record "$name" 1 0; else record "$name" 0 1; fi
}
# counted NAME COMMAND...: a step whose last line is "...: N passed, N failed".
counted() {
	local name=$1 out p f
	shift
	echo "=== $name"
	step_start=$(date +%s)
	out=$(mktemp)
	"$@" 2>&1 | tee "$out"
	local rc=${PIPESTATUS[0]}
	p=$(tail -n1 "$out" | sed -n 's/.* \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	f=$(tail -n1 "$out" | sed -n 's/.* \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	rm -f "$out"
	p=${p:-0} f=${f:-1}
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	record "$name" "$p" "$f"
}

# vm_group SERIES GROUP TEST...: the tests of a group of
# tools/vm/tests.list, run in one boot of the guests (more where one
# fails); each test is a stage of its own with its own counts and time,
# and what belongs to no test (booting, a boot's own failures) is the
# stage "vm SERIES GROUP: boots".
vm_group() {
	local s=$1 g=$2 out rc t line p f secs tp=0 tf=0 tsecs=0 total
	shift 2
	echo "=== vm $s $g: $*"
	step_start=$(date +%s)
	out=$(mktemp)
	tools/vm/run.sh -q -k "$s" -g "$g" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	for t in "$@"; do
		line=$(sed -n "s/^vm $s $t: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\)s$/\1 \2 \3/p" \
		       "$out" | tail -n1)
		[ -n "$line" ] || line="0 1 0"
		read -r p f secs <<< "$line"
		record "vm $s $t" "$p" "$f" "$secs"
		tp=$((tp + p)) tf=$((tf + f)) tsecs=$((tsecs + secs))
	done
	total=$(sed -n "s/^vm $s $g: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p" "$out" | tail -n1)
	rm -f "$out"
	read -r p f <<< "${total:-$tp $tf}"
	p=$((p - tp)) f=$((f - tf))
	[ "$p" -lt 0 ] && p=0
	[ "$f" -lt 0 ] && f=0
	[ "$rc" -ne 0 ] && [ $((tf + f)) -eq 0 ] && f=1
	secs=$(($(date +%s) - step_start - tsecs))
	record "vm $s $g: boots" "$p" "$f" $((secs < 0 ? 0 : secs))
}

# summary: every stage, then the failed ones again (a log's tail names
# them), then the one line of counts.
summary() {
	local r
	echo
	echo "=== summary ($(( ($(date +%s) - start) / 60 )) min)"
	for r in "${results[@]}"; do echo "  $r"; done
	for r in "${results[@]}"; do
		case $r in
		*" 0 failed "*) ;;
		*) echo "FAILED: $r" ;;
		esac
	done
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

if ! step "setup" tools/setup.sh; then
	summary
	exit 1
fi

counted "harness self-test" tools/selftest/run.sh
for s in $KOFI_SERIES; do
	step "build $s (W=1, sparse)" tools/build.sh -W -C "$s"
done
step "checkpatch --strict" tools/checkpatch.sh
counted "kernel-doc" tools/kerneldoc.sh
counted "kunit" tools/kunit.sh
debug=debug
if ! step "debug kernel" tools/debug-kernel.sh; then
	debug=
fi
# the KUnit suites are built as modules only for the debug kernel
[ -n "$debug" ] && step "build debug (W=1, sparse)" tools/build.sh -W -C debug

for s in $KOFI_SERIES $debug; do
	groups=$(tools/vm/run.sh -k "$s" -l) || { step "vm $s: tools/vm/tests.list" false; continue; }
	while read -r group _ tests; do
		# shellcheck disable=SC2086
		vm_group "$s" "$group" $tests
	done <<< "$groups"
done

summary
