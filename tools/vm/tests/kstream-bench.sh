#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, kstream part (two guests, soft-RoCE): kstream's stream
# throughput and 64-byte latency on the socket-like calls against
#  - raw RMA writes on the same core provider (kofi_sample_bandwidth
#    op=write for one-way 64 KiB bandwidth, kofi_sample_pingpong op=write
#    for the 64-byte half round trip), over ib_verbs and over ksocket;
#  - userspace rsockets (librdmacm's rstream) in the same VMs: the same
#    echoed exchange (-S 64k -C 100) and 64-byte latency (-S 64 -C 1).
# The throughput runs set the stream buffers (bufsize: SO_SNDBUF and
# SO_RCVBUF; the ring is twice the value): with the 32 KiB default one
# ring's worth per credit round trip bounds the rate, not the engine.
# Over ksocket they are 2 MiB, so that the stream's 4 MiB ring holds what
# the raw writes keep in flight (64 x 64 KiB); over ib_verbs, where a
# buffer must fit rxe's 2 MiB registration, 512 KiB (as for the echo).
# Each one-way run moves BW_ITERS x 100 x 64 KiB (50 MiB by default): a
# shorter one is within reach of a single stall of the emulator.  A round
# measures the raw writes first and the stream second, the next round the
# other way round, so that a drift over the run does not favour either.
# Guest 1 prints "measure NAME METRIC VALUE UNIT" per measurement and
# "ratio A/B METRIC VALUEx (...)" per comparison: the median over ROUNDS
# rounds of the per-round A/B, its range, which way is better (lower for
# latency, higher for bandwidth) and, for stream bandwidth against raw
# writes, its target, met or not; tools/bench.sh shows the ratio lines.
# Timing is reported, never checked: the checks only say that every run
# completed.
. ./lib.sh
. ./ksocket-lib.sh
. ./kstream-lib.sh

BW_ITERS=${BW_ITERS:-8}
ECHO_ITERS=${ECHO_ITERS:-2}
LAT_ITERS=${LAT_ITERS:-500}
RS_PORT=7549
BUFSIZE=${BUFSIZE:-524288}
KS_BUFSIZE=${KS_BUFSIZE:-2097152}
ROUNDS=${ROUNDS:-11}

# kb NAME METRIC VALUE UNIT: one measurement (guest 1), kept for ratios.
kb() {
	[ -n "$3" ] || { say "measure $1 $2: no value"; return; }
	say "measure $1 $2 $3 $4"
	echo "$1 $2 $3" >> /tmp/kbench
}

# kb_ratio A B METRIC TARGET LOWER: the median over the rounds of A/B
# (the k-th value of A with the k-th of B: each round measures both), and
# its range; LOWER=1 when smaller is better (times), 0 when larger is
# (rates); TARGET "-" for a comparison without one (only stream bandwidth
# against raw writes has a target).  One disturbed round on a shared
# emulated host moves a mean a long way, a median hardly.
kb_ratio() {
	awk -v a="$1" -v b="$2" -v m="$3" -v t="$4" -v lower="$5" '
	$2 == m && $1 == a { va[++na] = $3 }
	$2 == m && $1 == b { vb[++nb] = $3 }
	END {
		n = 0
		for (i = 1; i <= na && i <= nb; i++) {
			if (va[i] <= 0 || vb[i] <= 0)
				continue
			r[++n] = va[i] / vb[i]
		}
		if (!n) { print "ratio " a "/" b " " m " n/a"; exit }
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && r[j - 1] > r[j]; j--) {
				x = r[j]; r[j] = r[j - 1]; r[j - 1] = x
			}
		med = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
		printf "ratio %s/%s %s %.2fx (median of %d, %.2f-%.2fx; %s is better",
			a, b, m, med, n, r[1], r[n], lower ? "lower" : "higher"
		if (t != "-")
			printf ", target %s %.2fx: %s", lower ? "<=" : ">=", t,
				(lower ? med <= t + 0 : med >= t + 0) ? "met" : "not met"
		printf ")\n"
	}' /tmp/kbench
}

# MB/s from the usec/xfer column of an rstream-format row (bytes moved
# per microsecond; Gb/sec has too few digits at emulated speeds).
xfer_mb() { awk -v s="$1" -v u="$2" 'BEGIN { if (u > 0) printf "%.2f", s / u }'; }

# rstream_pair NAME ARGS...: rstream server on guest 0, client on guest 1;
# the client's output in /tmp/rs.out.
rstream_pair() {
	_n=$1
	shift
	if [ "$KOFI_HOST" = 0 ]; then
		timeout 300 rstream -b "$KOFI_SELF" -p $RS_PORT "$@" \
			> /tmp/rs-s.out 2>&1 &
		_rs=$!
		wait_for 30 listening $RS_PORT ||
			fail "$_n: rstream server is not listening"
		barrier "$_n"
		check "$_n: rstream server" wait "$_rs"
	else
		barrier "$_n"
		check "$_n: rstream client" timeout 300 sh -c \
			"rstream -s $KOFI_PEER -p $RS_PORT $* > /tmp/rs.out 2>&1"
	fi
	barrier "$_n: done"
}

rs_col() { awk -v n="$1" '$1 == "custom" { v = $n } END { print v }' /tmp/rs.out; }

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
for m in $(kofi_modules); do
	check "insmod $m" insmod "$KT_M/$m.ko"
done
[ "$KOFI_HOST" = 0 ] && to="" || to="addr=$KOFI_PEER"
: > /tmp/kbench

# raw_bw, stream_bw, raw_lat, stream_lat: one measurement over $p.
raw_bw() {
	ks_pair "$p write bw $round" kofi_sample_bandwidth 7541 $to \
		prov=$p op=write sizes=65536 iters=$((BW_ITERS * 100)) verify=0
	[ "$KOFI_HOST" = 1 ] && kb "$p-write" bw64k "$(ks_column 65536 6)" MB/s
}

stream_bw() {
	[ $p = ksocket ] && _b=$KS_BUFSIZE || _b=$BUFSIZE
	kt_pair "$p kstream bw $round" 7542 "prov=$p $srv echo=0 verify=0 bufsize=$_b" \
		"prov=$p oneway=1 sizes=65536 count=100 iters=$BW_ITERS verify=0 bufsize=$_b"
	[ "$KOFI_HOST" = 1 ] && kb "$p-kstream" bw64k \
		"$(xfer_mb 65536 "$(kt_column 64k_oneway 9)")" MB/s
}

raw_lat() {
	ks_pair "$p write lat $round" kofi_sample_pingpong 7543 $to \
		prov=$p op=write sizes=64 iters=$LAT_ITERS verify=0
	[ "$KOFI_HOST" = 1 ] && kb "$p-write" lat64 "$(ks_column 64 7)" usec
}

stream_lat() {
	kt_pair "$p kstream lat $round" 7544 "prov=$p $srv verify=0" \
		"prov=$p sizes=64 count=1 iters=$LAT_ITERS verify=0"
	[ "$KOFI_HOST" = 1 ] && kb "$p-kstream" lat64 "$(kt_column 64_bw 9)" usec
}

round=1
while [ $round -le $ROUNDS ]; do
	for p in ib_verbs ksocket; do
		[ $p = ib_verbs ] && srv="addr=$KOFI_SELF" || srv=""
		[ "$KOFI_HOST" = 0 ] && to="$srv"
		if [ $((round % 2)) = 1 ]; then
			raw_bw
			stream_bw
			raw_lat
			stream_lat
		else
			stream_bw
			raw_bw
			stream_lat
			raw_lat
		fi
	done
	kt_pair "kstream echo bw $round" 7545 "prov=ib_verbs addr=$KOFI_SELF verify=0 bufsize=$BUFSIZE" \
		"prov=ib_verbs sizes=65536 count=100 iters=$ECHO_ITERS verify=0 bufsize=$BUFSIZE"
	[ "$KOFI_HOST" = 1 ] && kb ib_verbs-kstream echo64k \
		"$(xfer_mb 65536 "$(kt_column 64k_bw 9)")" MB/s
	rstream_pair "rstream bw $round" -S 65536 -C 100 -I $ECHO_ITERS
	[ "$KOFI_HOST" = 1 ] && kb rstream echo64k "$(xfer_mb 65536 "$(rs_col 8)")" MB/s
	rstream_pair "rstream lat $round" -S 64 -C 1 -I $LAT_ITERS
	[ "$KOFI_HOST" = 1 ] && kb rstream lat64 "$(rs_col 8)" usec
	round=$((round + 1))
done

if [ "$KOFI_HOST" = 1 ]; then
	for p in ib_verbs ksocket; do
		say "$(kb_ratio $p-kstream $p-write bw64k 0.90 0)"
		say "$(kb_ratio $p-kstream $p-write lat64 - 1)"
	done
	say "$(kb_ratio ib_verbs-kstream rstream echo64k - 0)"
	say "$(kb_ratio ib_verbs-kstream rstream lat64 - 1)"
fi

for m in $(kofi_modules | sed -n '1!G;h;$p'); do
	check "rmmod $m" rmmod "$m"
done
finish
