#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, ib_verbs part (two guests, rxe): 64-byte pingpong latency and
# 64 KiB one-way send bandwidth (window 64) of kOFI over ib_verbs
# (kofi_sample_pingpong, kofi_sample_bandwidth) and of the raw-verbs
# baseline (kofi_sample_verbs: the same exchanges on ib_core and rdma_cm),
# in the same run.  Guest 1 prints one line per measurement, "bench
# PROVIDER METRIC VALUE UNIT", that tools/bench.sh turns into ratios
# against the "verbs" baseline.  Timing is reported, never checked: the
# checks only say that every run completed.
. ./lib.sh
. ./ksocket-lib.sh

LAT_ITERS=${LAT_ITERS:-1000}
BW_ITERS=${BW_ITERS:-1000}
ROUNDS=${ROUNDS:-11}

[ "$KOFI_HOST" = 0 ] && srv=$KOFI_SELF || srv=$KOFI_PEER
check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check_output "rxe0 is ACTIVE" 'rxe0.*ACTIVE' rdma link show
check "insmod kofi" insmod $KS_M/kofi.ko
check "insmod kofi_ib_verbs" insmod $KS_M/kofi_ib_verbs.ko

LAT="sizes=64 iters=$LAT_ITERS verify=0"
BW="sizes=65536 iters=$BW_ITERS verify=0"
verbs_lat() {
	ks_pair "verbs lat $round" kofi_sample_verbs 7490 addr="$srv" \
		mode=pingpong $LAT
	[ "$KOFI_HOST" = 1 ] && say "bench verbs lat64 $(ks_column 64 7) usec"
}
kofi_lat() {
	ks_pair "ib_verbs lat $round" kofi_sample_pingpong 7491 prov=ib_verbs \
		addr="$srv" op=msg $LAT
	[ "$KOFI_HOST" = 1 ] && say "bench ib_verbs lat64 $(ks_column 64 7) usec"
}
verbs_bw() {
	ks_pair "verbs bw $round" kofi_sample_verbs 7492 addr="$srv" \
		mode=bandwidth $BW
	[ "$KOFI_HOST" = 1 ] && say "bench verbs bw64k $(ks_column 65536 6) MB/s"
}
kofi_bw() {
	ks_pair "ib_verbs bw $round" kofi_sample_bandwidth 7493 prov=ib_verbs \
		addr="$srv" op=msg $BW
	[ "$KOFI_HOST" = 1 ] && say "bench ib_verbs bw64k $(ks_column 65536 6) MB/s"
}
# ROUNDS rounds, each measuring kOFI next to the baseline, the order
# alternating, so that drift in the VMs hits both alike; tools/bench.sh
# takes the median of the per-round ratios.
round=1
while [ $round -le $ROUNDS ]; do
	if [ $((round % 2)) = 1 ]; then
		verbs_lat; kofi_lat; verbs_bw; kofi_bw
	else
		kofi_lat; verbs_lat; kofi_bw; verbs_bw
	fi
	round=$((round + 1))
done
# Receiver-not-ready NAKs (a send that found no receive posted) cost the
# sender the peer's RNR timer each (min_rnr_timer, both samples alike).
say "rxe0: $(rdma statistic show link rxe0/1 2>&1 |
	grep -o -E '(rcvd|send)_rnr_err [0-9]+' | tr '\n' ' ')"

check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
