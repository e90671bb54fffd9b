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
		case $m in kofi_sample_*|*_test|*kunit*) continue ;; esac
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

# barrier_send NAME: tell guest 0 that guest 1 reached barrier NAME.
barrier_send() { echo "$1" | nc "$KOFI_PEER" 7199; }

# barrier NAME: in a two-guest run, return once both guests reached the
# barrier NAME (guest 0 listens, guest 1 connects); fails after 300 s.
barrier() {
	[ "$KOFI_HOSTS" -gt 1 ] || return 0
	if [ "$KOFI_HOST" = 0 ]; then
		got=$(timeout 300 nc -l -p 7199 < /dev/null)
		[ "$got" = "$1" ] || { fail "barrier $1: got '$got'"; return 1; }
	else
		wait_for 300 barrier_send "$1" ||
			{ fail "barrier $1: peer never listened"; return 1; }
	fi
}

# finish: wait for the peer (so that neither guest leaves while the other
# still talks to it) and exit with the result of the checks.
finish() {
	barrier finish
	exit $KOFI_FAILED
}

# say TEXT...: a line for the person watching (shown by tools/vm/run.sh).
say() { echo "KOFI-SAY: $*"; }
# say_cmd COMMAND...: run COMMAND and show its output.
say_cmd() { "$@" 2>&1 | while IFS= read -r l; do say "$l"; done; }
