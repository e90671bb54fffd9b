#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, rxm over ib_verbs (two guests, rxe): reliable datagrams
# ("ib_verbs;rxm", FI_EP_RDM) against connected FI_EP_MSG endpoints of
# ib_verbs itself, in the same run: 64-byte pingpong latency (an eager
# message) and 64 KiB one-way bandwidth (rendezvous by RMA read for rxm)
# with the pingpong and bandwidth samples.  A round measures every pair,
# the order alternating from round to round so that drift hits both
# sides alike.  Guest 1 prints "bench PROVIDER METRIC VALUE UNIT" lines,
# "ib_verbs;rxm" against the baseline "ib_verbs-msg"; tools/bench.sh
# turns them into ratios.  Timing is reported, never checked: the checks
# only say that every run completed.
. ./lib.sh
. ./ksocket-lib.sh

LAT_ITERS=${LAT_ITERS:-500}
BW_ITERS=${BW_ITERS:-1000}
ROUNDS=${ROUNDS:-7}

# The RDM server needs no address; ib_verbs' listener binds its own.
if [ "$KOFI_HOST" = 0 ]; then
	to="" srv=$KOFI_SELF
else
	to="addr=$KOFI_PEER" srv=$KOFI_PEER
fi
RDM="prov=ib_verbs;rxm ep_type=rdm $to verify=0"
MSG="prov=ib_verbs addr=$srv op=msg verify=0"

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check_output "rxe0 is ACTIVE" 'rxe0.*ACTIVE' rdma link show
check "insmod kofi" insmod $KS_M/kofi.ko
check "insmod kofi_ib_verbs" insmod $KS_M/kofi_ib_verbs.ko
check "insmod kofi_rxm" insmod $KS_M/kofi_rxm.ko

msg_lat() { ks_bench_lat ib_verbs-msg kofi_sample_pingpong 7631 $MSG; }
rdm_lat() { ks_bench_lat "ib_verbs;rxm" kofi_sample_pingpong 7632 $RDM; }
msg_bw() { ks_bench_bw ib_verbs-msg kofi_sample_bandwidth 7633 $MSG; }
rdm_bw() { ks_bench_bw "ib_verbs;rxm" kofi_sample_bandwidth 7634 $RDM; }
ks_bench_rounds msg_lat rdm_lat msg_bw rdm_bw

check "rmmod kofi_rxm" rmmod kofi_rxm
check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
