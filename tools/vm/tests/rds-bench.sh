#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, rds part (two guests, RDS over TCP): 64-byte pingpong
# latency and 64 KiB one-way bandwidth over the rds provider ("rds",
# FI_EP_RDM, with the pingpong and bandwidth samples, ep_type=rdm) and
# over the raw kernel RDS baseline ("rds-raw", kofi_sample_rdsraw: one
# AF_RDS socket on each side, blocking calls, no kOFI), in the same run;
# and the same over kOFI's other reliable datagrams, "ksocket;rxm", on
# the same link, against the same baseline, so that the two can be
# weighed against each other.  Each side of every run finds its peer over
# a TCP control connection; 64-byte sends of the samples are injected.
# A round measures all three, the order reversed from one round to the
# next so that drift hits them alike.  Guest 1 prints "bench PROVIDER
# METRIC VALUE UNIT" lines, which tools/bench.sh turns into ratios
# against "rds-raw".  Timing is reported, never checked: the checks only
# say that every run completed.
. ./lib.sh
. ./ksocket-lib.sh
. ./rds-lib.sh

LAT_ITERS=${LAT_ITERS:-500}
BW_ITERS=${BW_ITERS:-1000}
ROUNDS=${ROUNDS:-9}
RDS="prov=rds ep_type=rdm verify=0"
RXM="prov=ksocket;rxm ep_type=rdm verify=0"

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
rds_load rds_tcp
check "insmod kofi_ksocket" insmod $KS_M/kofi_ksocket.ko
check "insmod kofi_rxm" insmod $KS_M/kofi_rxm.ko
[ "$KOFI_HOST" = 0 ] && to="" || to="addr=$KOFI_PEER"

raw_lat() {
	ks_pair "raw lat $round" kofi_sample_rdsraw 7591 $to mode=pingpong \
		sizes=64 iters=$LAT_ITERS
	[ "$KOFI_HOST" = 1 ] && say "bench rds-raw lat64 $(ks_column 64 7) usec"
}
rds_lat() {
	ks_pair "rds lat $round" kofi_sample_pingpong 7592 $to $RDS \
		sizes=64 iters=$LAT_ITERS
	[ "$KOFI_HOST" = 1 ] && say "bench rds lat64 $(ks_column 64 7) usec"
}
rxm_lat() {
	ks_pair "rxm lat $round" kofi_sample_pingpong 7593 $to $RXM \
		sizes=64 iters=$LAT_ITERS
	[ "$KOFI_HOST" = 1 ] && say "bench ksocket;rxm lat64 $(ks_column 64 7) usec"
}
raw_bw() {
	ks_pair "raw bw $round" kofi_sample_rdsraw 7594 $to mode=bandwidth \
		sizes=65536 iters=$BW_ITERS
	[ "$KOFI_HOST" = 1 ] && say "bench rds-raw bw64k $(ks_column 65536 6) MB/s"
}
rds_bw() {
	ks_pair "rds bw $round" kofi_sample_bandwidth 7595 $to $RDS \
		sizes=65536 iters=$BW_ITERS
	[ "$KOFI_HOST" = 1 ] && say "bench rds bw64k $(ks_column 65536 6) MB/s"
}
rxm_bw() {
	ks_pair "rxm bw $round" kofi_sample_bandwidth 7596 $to $RXM \
		sizes=65536 iters=$BW_ITERS
	[ "$KOFI_HOST" = 1 ] && say "bench ksocket;rxm bw64k $(ks_column 65536 6) MB/s"
}

round=1
while [ $round -le $ROUNDS ]; do
	if [ $((round % 2)) = 1 ]; then
		raw_lat; rds_lat; rxm_lat; raw_bw; rds_bw; rxm_bw
	else
		rxm_lat; rds_lat; raw_lat; rxm_bw; rds_bw; raw_bw
	fi
	round=$((round + 1))
done

check "rmmod kofi_rxm" rmmod kofi_rxm
check "rmmod kofi_ksocket" rmmod kofi_ksocket
rds_unload
finish
