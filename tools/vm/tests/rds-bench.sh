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
# next so that drift hits them alike (ks_bench_rounds).  Guest 1 prints
# "bench PROVIDER METRIC VALUE UNIT" lines, which tools/bench.sh turns
# into ratios against "rds-raw".  Timing is reported, never checked: the
# checks only say that every run completed.
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

raw_lat() { ks_bench_lat rds-raw kofi_sample_rdsraw 7591 $to mode=pingpong; }
rds_lat() { ks_bench_lat rds kofi_sample_pingpong 7592 $to $RDS; }
rxm_lat() { ks_bench_lat "ksocket;rxm" kofi_sample_pingpong 7593 $to $RXM; }
raw_bw() { ks_bench_bw rds-raw kofi_sample_rdsraw 7594 $to mode=bandwidth; }
rds_bw() { ks_bench_bw rds kofi_sample_bandwidth 7595 $to $RDS; }
rxm_bw() { ks_bench_bw "ksocket;rxm" kofi_sample_bandwidth 7596 $to $RXM; }
ks_bench_rounds raw_lat rds_lat rxm_lat raw_bw rds_bw rxm_bw

check "rmmod kofi_rxm" rmmod kofi_rxm
check "rmmod kofi_ksocket" rmmod kofi_ksocket
rds_unload
finish
