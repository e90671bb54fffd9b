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
#   vm         every test of tools/vm/tests.list on 6.1, 6.12 and debug
# Ends with one line "N passed, N failed"; exits non-zero on any failure.
#
# usage: tools/check.sh

set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$KOFI_TOP"

passed=0 failed=0
results=()
start=$(date +%s)

# record NAME PASSED FAILED: count a stage's result; its duration is the
# time since step_start.
record() {
	passed=$((passed + $2))
	failed=$((failed + $3))
	results+=("$(printf '%-36s %4d passed, %d failed  %5ds' "$1" "$2" "$3" \
		     $(($(date +%s) - step_start)))")
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

summary() {
	local r
	echo
	echo "=== summary ($(( ($(date +%s) - start) / 60 )) min)"
	for r in "${results[@]}"; do echo "  $r"; done
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

for s in $KOFI_SERIES $debug; do
	while read -r guests test kernels; do
		case $guests in ''|'#'*) continue ;; esac
		[ -z "$kernels" ] || [[ " $kernels " == *" $s "* ]] || continue
		counted "vm $s $test" tools/vm/run.sh -q -k "$s" -n "$guests" "$test"
	done < tools/vm/tests.list
done

summary
