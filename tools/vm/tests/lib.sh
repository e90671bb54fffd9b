# SPDX-License-Identifier: GPL-2.0
# Helpers for guest test scripts; source it.  Each check prints one line
# that tools/vm/run.sh counts: KOFI-PASS: NAME or KOFI-FAIL: NAME: WHY.

KOFI_FAILED=0

pass() { echo "KOFI-PASS: $*"; }
fail() { echo "KOFI-FAIL: $*"; KOFI_FAILED=1; }

# check NAME COMMAND...: run COMMAND, pass if it exits 0.
check() {
	name=$1
	shift
	if "$@" > /tmp/check.out 2>&1; then
		pass "$name"
	else
		fail "$name: $(tail -n 5 /tmp/check.out | tr '\n' ' ')"
	fi
}

# check_output NAME PATTERN COMMAND...: pass if COMMAND exits 0 and its
# output matches the extended regular expression PATTERN.
check_output() {
	name=$1 pattern=$2
	shift 2
	if "$@" > /tmp/check.out 2>&1 && grep -q -E "$pattern" /tmp/check.out; then
		pass "$name"
	else
		fail "$name: $(tail -n 5 /tmp/check.out | tr '\n' ' ')"
	fi
}

# The project's modules in load order: the core first, then providers.
# Samples and test modules are loaded by the tests that use them.
kofi_modules() {
	echo kofi
	for m in /kofi/modules/kofi_*.ko; do
		[ -e "$m" ] || continue
		m=$(basename "$m" .ko)
		case $m in kofi_sample_*|*_test) continue ;; esac
		echo "$m"
	done
}

module_loaded() { grep -q "^$1 " /proc/modules; }
module_unloaded() { ! grep -q "^$1 " /proc/modules; }

# wait_for SECONDS COMMAND...: retry COMMAND once a second until it succeeds.
wait_for() {
	n=$1
	shift
	while [ "$n" -gt 0 ]; do
		"$@" > /dev/null 2>&1 && return 0
		sleep 1
		n=$((n - 1))
	done
	return 1
}

finish() { exit $KOFI_FAILED; }
