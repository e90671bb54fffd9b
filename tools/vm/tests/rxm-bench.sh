#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, rxm part (two guests): reliable datagrams over ksocket
# ("ksocket;rxm", FI_EP_RDM) against connected FI_EP_MSG endpoints of
# ksocket itself, in the same run: 64-byte pingpong latency and 64 KiB
# one-way bandwidth (four segments for rxm) with the pingpong and bandwidth
# samples, and the same for ksocket's own FI_EP_RDM ("ksocket-rdm": the
# net wire, no header, no rendezvous); and the kernel's RDM 64-byte latency against userspace
# libfabric, Debian's fi_pingpong -p tcp -e rdm (tcp;ofi_rxm), between
# the same guests.  A round measures every pair, the order alternating
# from round to round so that drift hits both sides alike.  Guest 1
# prints "bench PROVIDER METRIC VALUE UNIT" lines: "ksocket;rxm" and
# "ksocket-rdm" against the baseline "ksocket-msg", and "kofi-rdm" (the kernel's RDM latency)
# against "user-rdm" (fi_pingpong's); tools/bench.sh turns them into
# ratios.  Timing is reported, never checked: the checks only say that
# every run completed.
. ./lib.sh
. ./ksocket-lib.sh

LAT_ITERS=${LAT_ITERS:-500}
BW_ITERS=${BW_ITERS:-1000}
ROUNDS=${ROUNDS:-11}
RDM="prov=ksocket;rxm ep_type=rdm verify=0"
NET="prov=ksocket ep_type=rdm verify=0"

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $KS_M/kofi.ko
check "insmod kofi_ksocket" insmod $KS_M/kofi_ksocket.ko
check "insmod kofi_rxm" insmod $KS_M/kofi_rxm.ko
[ "$KOFI_HOST" = 0 ] && to="" || to="addr=$KOFI_PEER"

msg_lat() {
	ks_bench_lat ksocket-msg kofi_sample_pingpong 7621 \
		$to op=msg verify=0
}
rdm_lat() {
	ks_bench_lat "ksocket;rxm" kofi_sample_pingpong 7622 $to $RDM
	[ "$KOFI_HOST" = 1 ] || return 0
	say "bench kofi-rdm lat64 $(ks_column 64 7) usec"
}
msg_bw() {
	ks_bench_bw ksocket-msg kofi_sample_bandwidth 7623 \
		$to op=msg verify=0
}
rdm_bw() { ks_bench_bw "ksocket;rxm" kofi_sample_bandwidth 7624 $to $RDM; }
net_lat() { ks_bench_lat ksocket-rdm kofi_sample_pingpong 7625 $to $NET; }
net_bw() { ks_bench_bw ksocket-rdm kofi_sample_bandwidth 7626 $to $NET; }
# fi_pingpong's row for 64 bytes: bytes #sent #ack total time MB/sec
# usec/xfer Mxfers/sec (usec/xfer is half a round trip, as the sample's).
user_lat() {
	if [ "$KOFI_HOST" = 0 ]; then
		limited 120 env FI_TCP_IFACE="$KOFI_DEV" fi_pingpong -p tcp \
			-e rdm -S 64 -I $LAT_ITERS > /tmp/fipp.out 2>&1 &
		fipp_pid=$!
		wait_for 30 listening 47592 ||
			fail "user lat $round: fi_pingpong is not listening"
		barrier "user lat $round"
		check "user lat $round: fi_pingpong server" wait "$fipp_pid"
	else
		barrier "user lat $round"
		check "user lat $round: fi_pingpong client" limited 120 \
			sh -c "FI_TCP_IFACE=$KOFI_DEV fi_pingpong -p tcp -e rdm -S 64 -I $LAT_ITERS $KOFI_PEER > /tmp/fipp.out 2>&1"
		say "bench user-rdm lat64 $(awk '$1 == 64 { print $7 }' /tmp/fipp.out) usec"
	fi
	barrier "user lat $round: done"
}

ks_bench_rounds msg_lat rdm_lat net_lat user_lat msg_bw rdm_bw net_bw

check "rmmod kofi_rxm" rmmod kofi_rxm
check "rmmod kofi_ksocket" rmmod kofi_ksocket
check "rmmod kofi" rmmod kofi
finish
