# SPDX-License-Identifier: GPL-2.0
# Helpers for the ksocket VM tests, the ksocket demo part and the ksocket
# benchmark; source after lib.sh.  Guest 0 serves, guest 1 connects.

KS_M=/kofi/modules

ks_server_ok() { wait "$ks_server_pid" && result_ok "$ks_mod"; }
ks_client_ok() { insmod "$KS_M/$ks_mod.ko" "$@" && result_ok "$ks_mod"; }

# ks_pair NAME MODULE PORT ARGS...: run sample MODULE with ARGS on both
# guests (role and port added), one check per guest; NAME is also a
# barrier name, so no shell special characters.  The client's result
# lines (logged by the module) are left in /tmp/ks_rows.
ks_pair() {
	ks_name=$1 ks_mod=$2 ks_port=$3
	shift 3
	ks_from=$(dmesg | wc -l)
	if [ "$KOFI_HOST" = 0 ]; then
		insmod "$KS_M/$ks_mod.ko" role=server port="$ks_port" "$@" \
			> /tmp/ks_server.out 2>&1 &
		ks_server_pid=$!
		wait_for 60 listening "$ks_port" ||
			fail "$ks_name: server is not listening"
		barrier "$ks_name"
		check "$ks_name: server" ks_server_ok
	else
		barrier "$ks_name"
		check "$ks_name: client" ks_client_ok role=client \
			port="$ks_port" "$@"
	fi
	dmesg | tail -n +"$((ks_from + 1))" | grep "$ks_mod:" |
		sed 's/^\[[^]]*\] //' > /tmp/ks_rows
	rmmod "$ks_mod" 2> /dev/null
	barrier "$ks_name: done"
}

# ks_show: say the result lines of the last ks_pair.
ks_show() { while IFS= read -r l; do say "$l"; done < /tmp/ks_rows; }

# ks_column SIZE N: field N of the result row for SIZE (the first field is
# the module name), from the last ks_pair.
ks_column() {
	awk -v s="$1" -v n="$2" '$2 == s && $NF ~ /^[0-9.]+$/ { v = $n } END { print v }' /tmp/ks_rows
}

# The benchmark parts (*-bench.sh), which set LAT_ITERS, BW_ITERS and
# ROUNDS.  ks_bench NAME METRIC SIZE ITERS FIELD UNIT MODULE PORT ARGS...:
# one run of sample MODULE between the guests with SIZE and ITERS; guest
# 1 says "bench NAME METRIC VALUE UNIT", VALUE field FIELD of SIZE's row.
# ks_bench_lat NAME MODULE PORT ARGS...: the 64-byte pingpong, LAT_ITERS
# round trips, usec (half a round trip); ks_bench_bw NAME MODULE PORT
# ARGS...: 64 KiB one-way bandwidth, BW_ITERS messages, MB/s.
ks_bench() {
	ks_bn=$1 ks_bm=$2 ks_bs=$3 ks_bi=$4 ks_bf=$5 ks_bu=$6
	shift 6
	ks_pair "$(echo "$ks_bn" | tr ';' -) $ks_bm $round" "$@" \
		sizes="$ks_bs" iters="$ks_bi"
	[ "$KOFI_HOST" = 1 ] || return 0
	say "bench $ks_bn $ks_bm $(ks_column "$ks_bs" "$ks_bf") $ks_bu"
}
ks_bench_lat() {
	ks_bl=$1
	shift
	ks_bench "$ks_bl" lat64 64 "$LAT_ITERS" 7 usec "$@"
}
ks_bench_bw() {
	ks_bl=$1
	shift
	ks_bench "$ks_bl" bw64k 65536 "$BW_ITERS" 6 MB/s "$@"
}

# ks_bench_rounds RUN...: ROUNDS rounds of the RUNs (shell functions),
# in this order in odd rounds and in the reverse in even ones, so that
# drift in the VMs hits them alike; tools/bench.sh takes the median of
# the per-round ratios.
ks_bench_rounds() {
	ks_rev=
	for ks_r in "$@"; do
		ks_rev="$ks_r $ks_rev"
	done
	round=1
	while [ "$round" -le "$ROUNDS" ]; do
		if [ $((round % 2)) = 1 ]; then
			ks_runs="$*"
		else
			ks_runs=$ks_rev
		fi
		for ks_r in $ks_runs; do
			"$ks_r"
		done
		round=$((round + 1))
	done
}
