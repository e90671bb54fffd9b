#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, ib_verbs part (two guests, rxe): 64-byte pingpong latency and
# 64 KiB one-way send bandwidth (window 64) of kOFI over ib_verbs
# (kofi_sample_pingpong, kofi_sample_bandwidth) and of the raw-verbs
# baseline (kofi_sample_verbs: the same exchanges on ib_core and rdma_cm),
# in the same run.  Guest 1 prints one line per measurement, "bench
# PROVIDER METRIC VALUE UNIT", that tools/bench.sh turns into ratios
# against the "verbs" baseline.  Timing is reported, never checked: the
# checks only say that every run completed.  Where the kernel has
# soft-iWARP (siw.ko: 6.12 and the debug kernel), the rounds run again
# with siw0 in place of rxe0, as "ib_verbs-siw" against "verbs-siw";
# there both bandwidth samples run with credits=1 (the server grants the
# client its sends: a send ahead of the receiver's posted receives would
# end an iWARP connection, which has no receiver-not-ready retry) and 8
# receive slots rather than 16 (kOFI's sample registers its buffer,
# twice the slots, as one region, and siw takes at most 1 MiB).
. ./lib.sh
. ./ksocket-lib.sh
. ./siw-lib.sh

LAT_ITERS=${LAT_ITERS:-1000}
BW_ITERS=${BW_ITERS:-1000}
ROUNDS=${ROUNDS:-11}

[ "$KOFI_HOST" = 0 ] && srv=$KOFI_SELF || srv=$KOFI_PEER
check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check_output "rxe0 is ACTIVE" 'rxe0.*ACTIVE' rdma link show
check "insmod kofi" insmod $KS_M/kofi.ko
check "insmod kofi_ib_verbs" insmod $KS_M/kofi_ib_verbs.ko

verbs_lat() {
	ks_bench_lat verbs kofi_sample_verbs 7490 \
		addr="$srv" mode=pingpong verify=0
}
kofi_lat() {
	ks_bench_lat ib_verbs kofi_sample_pingpong 7491 \
		prov=ib_verbs addr="$srv" op=msg verify=0
}
verbs_bw() {
	ks_bench_bw verbs kofi_sample_verbs 7492 \
		addr="$srv" mode=bandwidth verify=0
}
kofi_bw() {
	ks_bench_bw ib_verbs kofi_sample_bandwidth 7493 \
		prov=ib_verbs addr="$srv" op=msg verify=0
}
ks_bench_rounds verbs_lat kofi_lat verbs_bw kofi_bw
# Receiver-not-ready NAKs (a send that found no receive posted) cost the
# sender the peer's RNR timer each (min_rnr_timer, both samples alike).
say "rxe0: $(rdma statistic show link rxe0/1 2>&1 |
	grep -o -E '(rcvd|send)_rnr_err [0-9]+' | tr '\n' ' ')"

siw_verbs_lat() {
	ks_bench_lat verbs-siw kofi_sample_verbs 7494 \
		addr="$srv" mode=pingpong verify=0
}
siw_kofi_lat() {
	ks_bench_lat ib_verbs-siw kofi_sample_pingpong 7495 \
		prov=ib_verbs addr="$srv" op=msg verify=0
}
siw_verbs_bw() {
	ks_bench_bw verbs-siw kofi_sample_verbs 7496 \
		addr="$srv" mode=bandwidth credits=1 rx_slots=8 verify=0
}
siw_kofi_bw() {
	ks_bench_bw ib_verbs-siw kofi_sample_bandwidth 7497 \
		prov=ib_verbs addr="$srv" op=msg credits=1 rx_slots=8 verify=0
}
if [ -e "$SIW_K/siw.ko" ]; then
	check "rmmod kofi_ib_verbs (for siw)" rmmod kofi_ib_verbs
	siw_up
	check "insmod kofi_ib_verbs (siw)" insmod $KS_M/kofi_ib_verbs.ko
	barrier "siw0 up"
	ks_bench_rounds siw_verbs_lat siw_kofi_lat siw_verbs_bw siw_kofi_bw
fi

check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
[ -e "$SIW_K/siw.ko" ] && siw_down
finish
