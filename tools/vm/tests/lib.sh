# SPDX-License-Identifier: GPL-2.0
# Helpers for guest test scripts; source it.  Each check prints one line
# that tools/vm/run.sh counts: KOFI-PASS: NAME or KOFI-FAIL: NAME: WHY.

KOFI_FAILED=0

pass() { echo "KOFI-PASS: $*"; }
fail() { echo "KOFI-FAIL: $*"; KOFI_FAILED=1; }

# Helpers keep their variables in a _kofi_ namespace: busybox sh has no
# "local", and a test's own variables must survive a call.

# scaled N S: print N, or S on the sanitizer (debug) kernel, which runs
# several times slower under TCG.  For iteration counts only: every size,
# operation and mode a test covers runs on every kernel.
scaled() {
	if [ "$KOFI_SANITIZED" = 1 ]; then echo "$2"; else echo "$1"; fi
}

# check NAME COMMAND...: run COMMAND, pass if it exits 0.
check() {
	_kofi_name=$1
	shift
	if "$@" > /tmp/check.out 2>&1; then
		pass "$_kofi_name"
	else
		fail "$_kofi_name: $(tail -n 5 /tmp/check.out | tr '\n' ' ')"
	fi
}

# check_output NAME PATTERN COMMAND...: pass if COMMAND exits 0 and its
# output matches the extended regular expression PATTERN.
check_output() {
	_kofi_name=$1 _kofi_pattern=$2
	shift 2
	if "$@" > /tmp/check.out 2>&1 &&
	   grep -q -E "$_kofi_pattern" /tmp/check.out; then
		pass "$_kofi_name"
	else
		fail "$_kofi_name: $(tail -n 5 /tmp/check.out | tr '\n' ' ')"
	fi
}

# kunit_module FILE.ko: load a KUnit test module, one check per suite
# from KUnit's "# suite: pass:P fail:F skip:S total:T" line (a failed or
# skipped test fails it; failed tests are shown), then unload it.
kunit_module() {
	_kofi_mod=$(basename "$1" .ko)
	_kofi_seen=$(dmesg | wc -l)
	check "insmod $_kofi_mod" insmod "$1"
	dmesg | tail -n +$((_kofi_seen + 1)) | sed 's/^\[[^]]*\] *//' \
		> "/tmp/$_kofi_mod.ktap"
	grep -E '^ *not ok' "/tmp/$_kofi_mod.ktap" > "/tmp/$_kofi_mod.failed"
	while read -r _kofi_l; do
		say "$_kofi_mod: $_kofi_l"
	done < "/tmp/$_kofi_mod.failed"
	grep -E '^ *# [a-z0-9_]+: pass:' "/tmp/$_kofi_mod.ktap" |
		grep -v '# Totals:' > "/tmp/$_kofi_mod.suites"
	[ -s "/tmp/$_kofi_mod.suites" ] ||
		fail "$_kofi_mod: no KUnit results in dmesg"
	while read -r _ _kofi_suite _kofi_counts; do
		case "$_kofi_counts" in
		*"fail:0 skip:0 "*) pass "kunit ${_kofi_suite%:} ($_kofi_counts)" ;;
		*) fail "kunit ${_kofi_suite%:}: $_kofi_counts" ;;
		esac
	done < "/tmp/$_kofi_mod.suites"
	check "rmmod $_kofi_mod" rmmod "$_kofi_mod"
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

# wait_for SECONDS COMMAND...: retry COMMAND every 0.2 s until it
# succeeds; give up when SECONDS have passed.
wait_for() {
	read -r _kofi_up _ < /proc/uptime
	_kofi_end=$((${_kofi_up%.*} + $1))
	shift
	until "$@" > /dev/null 2>&1; do
		read -r _kofi_up _ < /proc/uptime
		[ "${_kofi_up%.*}" -lt "$_kofi_end" ] || return 1
		sleep 0.2
	done
}

# limited SECONDS COMMAND...: run COMMAND (a program, not a function) and
# end it with SIGTERM if it still runs after SECONDS, as timeout(1) does
# (status 124 then); before ending it, print to stderr where each of its
# threads is: state, CPU ticks (user, system), kernel wait channel and
# stack.  A userspace peer that hangs so says whether it spins, sleeps or
# is stuck in the kernel, and where.
limited() {
	_kofi_lim=$1
	shift
	"$@" &
	_kofi_pid=$!
	rm -f "/tmp/limited.$_kofi_pid"
	(
		sleep "$_kofi_lim"
		kill -0 "$_kofi_pid" || exit 0
		for _kofi_t in /proc/"$_kofi_pid"/task/*; do
			echo "limited: $(cat "$_kofi_t/comm") ${_kofi_t##*/}:" \
				"$(grep '^State' "$_kofi_t/status")," \
				"ticks $(cut -d ' ' -f 14,15 "$_kofi_t/stat")," \
				"wchan $(cat "$_kofi_t/wchan")"
			sed 's/^/limited:   /' "$_kofi_t/stack"
		done > "/tmp/limited.$_kofi_pid"
		kill "$_kofi_pid"
	) < /dev/null > /dev/null 2>&1 &
	_kofi_wd=$!
	wait "$_kofi_pid"
	_kofi_rc=$?
	kill "$_kofi_wd" 2> /dev/null
	if [ -e "/tmp/limited.$_kofi_pid" ]; then
		echo "limited: $1 still ran after $_kofi_lim s, ended" >&2
		cat "/tmp/limited.$_kofi_pid" >&2
		rm -f "/tmp/limited.$_kofi_pid"
		return 124
	fi
	return $_kofi_rc
}

# listening PORT: something listens on PORT: a TCP socket (IPv4 or IPv6)
# or an rdma_cm identifier, the kernel's or a process's.
listening() {
	_kofi_h=$(printf '%04X' "$1")
	grep -q ":$_kofi_h [0-9A-F:]* 0A " /proc/net/tcp /proc/net/tcp6 ||
		rdma resource show cm_id 2> /dev/null |
		grep -q "state LISTEN .* src-addr [^ ]*:$1 "
}

# cm_port_free PORT: no RDMA CM identifier of this guest is bound to PORT.
# A program that served on it may still be taking its connections down
# after it ended (over siw on the debug kernel this was seen to outlast
# its exit), and rdma_cm refuses the port meanwhile (EADDRINUSE).
cm_port_free() {
	! rdma resource show cm_id 2> /dev/null |
		grep -q "src-addr [^ ]*:$1 "
}

# A sample module reports its outcome, 0 or a negative errno, in its
# parameter "result".
# (Shell builtins read it: on the debug kernel under TCG every program
# started costs ~0.1 s.)
# result_of MODULE: print the result MODULE reports.
result_of() {
	read -r _kofi_res < "/sys/module/$1/parameters/result" &&
		echo "$_kofi_res"
}
# result_ok MODULE: MODULE reports success (it stays loaded).
result_ok() {
	read -r _kofi_r < "/sys/module/$1/parameters/result" &&
		echo "result $_kofi_r" && [ "$_kofi_r" = 0 ]
}

# rp_result: the result the rping sample reports.
rp_result() { result_of kofi_sample_rping; }
# rp_is RESULT...: the rping sample finished with one of the results.
rp_is() {
	_kofi_r=$(rp_result) || return 1
	echo "result $_kofi_r"
	for _kofi_want in "$@"; do
		[ "$_kofi_r" = "$_kofi_want" ] && return 0
	done
	return 1
}

# rows FROM PATTERN: show the kernel log lines after line FROM that match
# PATTERN (a sample's rows of results), without their time stamps.
rows() {
	dmesg | awk -v from="$1" -v pat="$2" '
	NR > from && $0 ~ pat { sub(/^\[[^]]*\] /, ""); print "KOFI-SAY: " $0 }'
}

# pair MODULE NAME PORT ARGS...: one run of the two-sided sample MODULE
# (role=server or role=client, port=) with ARGS (each guest passes its
# own addr=, if any): guest 0 serves on PORT, guest 1 connects to it;
# each checks its side's result and unloads the sample, and guest 1
# shows its rows.  A side that fails shows its sample's last errors.
# NAME names the checks and the barriers.
pair() {
	_kofi_mod=$1 _kofi_pair=$2 _kofi_port=$3
	shift 3
	_kofi_from=$(dmesg | wc -l)
	if [ "$KOFI_HOST" = 0 ]; then
		insmod "/kofi/modules/$_kofi_mod.ko" role=server \
			port="$_kofi_port" "$@" > "/tmp/$_kofi_mod.out" 2>&1 &
		_kofi_pid=$!
		wait_for 60 listening "$_kofi_port" ||
			fail "$_kofi_pair: server is not listening"
		barrier "$_kofi_pair"
		check "$_kofi_pair: server" pair_served
	else
		barrier "$_kofi_pair"
		check "$_kofi_pair: client" pair_client role=client \
			port="$_kofi_port" "$@"
		rows "$_kofi_from" "$_kofi_mod:"
	fi
	rmmod "$_kofi_mod" 2> /dev/null
	barrier "$_kofi_pair: done"
}
pair_served() {
	wait "$_kofi_pid" && result_ok "$_kofi_mod" || pair_said
}
pair_client() {
	insmod "/kofi/modules/$_kofi_mod.ko" "$@" && result_ok "$_kofi_mod" ||
		pair_said
}
# pair_said: the sample's last kernel log lines since the pair began;
# fails.
pair_said() {
	dmesg | tail -n +"$((_kofi_from + 1))" | grep "$_kofi_mod:" | tail -n 3
	return 1
}
# pp NAME PORT ARGS...: one run of the pingpong sample (see pair).
pp() { pair kofi_sample_pingpong "$@"; }

# barrier NAME [SECONDS]: in a two-guest run, return once both guests
# reached the barrier NAME; fails after SECONDS (default 300).  Each
# guest sends NAME to the other over the boot's control channel (fds 8
# and 9, set up by tools/vm/init) and reads the other's: no process is
# started.
barrier() {
	[ "$KOFI_HOSTS" -gt 1 ] || return 0
	echo "$1" >&8 || { fail "barrier $1: no control channel"; return 1; }
	if ! read -r -t "${2:-300}" _kofi_got <&9; then
		fail "barrier $1: the peer never came"
		return 1
	fi
	[ "$_kofi_got" = "$1" ] ||
		{ fail "barrier $1: the peer was at '$_kofi_got'"; return 1; }
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

# Keepalive tests: set "from=$(dmesg | wc -l)" when a round starts.
# new_dmesg: the kernel log since the current round started.
from=0
new_dmesg() { dmesg | tail -n +"$((from + 1))"; }
# idle_ms: how long the client's idle connection lasted (from its log).
idle_ms() { new_dmesg | sed -n 's/.*connection error 110 .* after \([0-9]*\) ms idle.*/\1/p' | tail -n1; }
# idle_within MIN MAX: the connection ended MIN to MAX ms into its idle time.
idle_within() {
	t=$(idle_ms)
	echo "ended after ${t:-?} ms"
	[ -n "$t" ] && [ "$t" -ge "$1" ] && [ "$t" -le "$2" ]
}
