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

tcp_lat() { ks_bench_lat tcp kofi_sample_tcp 7480 $to mode=pingpong; }
kofi_lat() {
	ks_bench_lat ksocket kofi_sample_pingpong 7481 \
		$to op=msg verify=0
}
tcp_bw() { ks_bench_bw tcp kofi_sample_tcp 7482 $to mode=bandwidth; }
kofi_bw() {
	ks_bench_bw ksocket kofi_sample_bandwidth 7483 \
		$to op=msg verify=0
}
ks_bench_rounds tcp_lat kofi_lat tcp_bw kofi_bw

check "rmmod kofi_ksocket" rmmod kofi_ksocket
check "rmmod kofi" rmmod kofi
finish
