#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, ksocket part (two guests): 64-byte pingpong latency and
# 64 KiB streaming bandwidth over ksocket and over the raw kernel TCP
# baseline (kofi_sample_tcp), in the same run.  Guest 1 prints one line per
# measurement, "bench PROVIDER METRIC VALUE UNIT", that tools/bench.sh turns
# into ratios against the "tcp" baseline.  Timing is reported, never
# checked: the checks only say that every run completed.
. ./lib.sh
. ./ksocket-lib.sh

LAT_ITERS=${LAT_ITERS:-500}
BW_ITERS=${BW_ITERS:-1000}
ROUNDS=${ROUNDS:-11}

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $KS_M/kofi.ko
check "insmod kofi_ksocket" insmod $KS_M/kofi_ksocket.ko
[ "$KOFI_HOST" = 0 ] && to="" || to="addr=$KOFI_PEER"

tcp_lat() {
	ks_pair "tcp lat $round" kofi_sample_tcp 7480 $to mode=pingpong \
		sizes=64 iters=$LAT_ITERS
	[ "$KOFI_HOST" = 1 ] && say "bench tcp lat64 $(ks_column 64 7) usec"
}
kofi_lat() {
	ks_pair "ksocket lat $round" kofi_sample_pingpong 7481 $to op=msg \
		sizes=64 iters=$LAT_ITERS verify=0
	[ "$KOFI_HOST" = 1 ] && say "bench ksocket lat64 $(ks_column 64 7) usec"
}
tcp_bw() {
	ks_pair "tcp bw $round" kofi_sample_tcp 7482 $to mode=bandwidth \
		sizes=65536 iters=$BW_ITERS
	[ "$KOFI_HOST" = 1 ] && say "bench tcp bw64k $(ks_column 65536 6) MB/s"
}
kofi_bw() {
	ks_pair "ksocket bw $round" kofi_sample_bandwidth 7483 $to op=msg \
		sizes=65536 iters=$BW_ITERS verify=0
	[ "$KOFI_HOST" = 1 ] && say "bench ksocket bw64k $(ks_column 65536 6) MB/s"
}

# ROUNDS rounds, each measuring ksocket next to the baseline, the order
# alternating, so that drift in the VMs hits both alike; tools/bench.sh
# takes the median of the per-round ratios.
round=1
while [ $round -le $ROUNDS ]; do
	if [ $((round % 2)) = 1 ]; then
		tcp_lat; kofi_lat; tcp_bw; kofi_bw
	else
		kofi_lat; tcp_lat; kofi_bw; tcp_bw
	fi
	round=$((round + 1))
done

check "rmmod kofi_ksocket" rmmod kofi_ksocket
check "rmmod kofi" rmmod kofi
finish
