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
BW_ITERS=${BW_ITERS:-2000}

# ib_listening PORT: an rdma_cm identifier listens on PORT.
ib_listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -q -E "LISTEN.*(src-port |:)$1( |\$)"
}

# ib_pair NAME MODULE PORT SERVER-ARGS -- CLIENT-ARGS: as ks_pair (in
# ksocket-lib.sh), the server found by its rdma_cm listener; the client's
# result rows are left in /tmp/ks_rows for ks_column.
ib_pair() {
	ks_name=$1 ks_mod=$2 ks_port=$3
	shift 3
	sargs=
	while [ "$1" != "--" ]; do sargs="$sargs $1"; shift; done
	shift
	ks_from=$(dmesg | wc -l)
	if [ "$KOFI_HOST" = 0 ]; then
		# shellcheck disable=SC2086
		insmod "$KS_M/$ks_mod.ko" role=server port="$ks_port" $sargs \
			> /tmp/ks_server.out 2>&1 &
		ks_server_pid=$!
		wait_for 60 ib_listening "$ks_port" ||
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

[ "$KOFI_HOST" = 0 ] && srv=$KOFI_SELF || srv=$KOFI_PEER
check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check_output "rxe0 is ACTIVE" 'rxe0.*ACTIVE' rdma link show
check "insmod kofi" insmod $KS_M/kofi.ko
check "insmod kofi_ib_verbs" insmod $KS_M/kofi_ib_verbs.ko

LAT="sizes=64 iters=$LAT_ITERS verify=0"
BW="sizes=65536 iters=$BW_ITERS verify=0"
verbs_lat() {
	ib_pair "verbs lat $round" kofi_sample_verbs 7490 addr="$srv" \
		mode=pingpong $LAT -- addr="$srv" mode=pingpong $LAT
	[ "$KOFI_HOST" = 1 ] && say "bench verbs lat64 $(ks_column 64 7) usec"
}
kofi_lat() {
	ib_pair "ib_verbs lat $round" kofi_sample_pingpong 7491 prov=ib_verbs \
		addr="$srv" op=msg $LAT -- prov=ib_verbs addr="$srv" op=msg $LAT
	[ "$KOFI_HOST" = 1 ] && say "bench ib_verbs lat64 $(ks_column 64 7) usec"
}
verbs_bw() {
	ib_pair "verbs bw $round" kofi_sample_verbs 7492 addr="$srv" \
		mode=bandwidth $BW -- addr="$srv" mode=bandwidth $BW
	[ "$KOFI_HOST" = 1 ] && say "bench verbs bw64k $(ks_column 65536 6) MB/s"
}
kofi_bw() {
	ib_pair "ib_verbs bw $round" kofi_sample_bandwidth 7493 prov=ib_verbs \
		addr="$srv" op=msg $BW -- prov=ib_verbs addr="$srv" op=msg $BW
	[ "$KOFI_HOST" = 1 ] && say "bench ib_verbs bw64k $(ks_column 65536 6) MB/s"
}
# Two rounds, alternating, so that drift in the VMs hits both alike; the
# second round runs kOFI first, so that neither always comes second.
round=1
verbs_lat; kofi_lat; verbs_bw; kofi_bw
round=2
kofi_lat; verbs_lat; kofi_bw; verbs_bw
# Receiver-not-ready NAKs (a send that found no receive posted) cost the
# sender the peer's RNR timer each (min_rnr_timer, both samples alike).
say "rxe0: $(rdma statistic show link rxe0/1 2>&1 |
	grep -o -E '(rcvd|send)_rnr_err [0-9]+' | tr '\n' ' ')"

check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
