# SPDX-License-Identifier: GPL-2.0
# make demo, ib_verbs part (sourced by demo.sh with kofi and the providers
# loaded): over soft-RoCE (rxe0) across the two guests, the rping sample
# kOFI to kOFI, the pingpong sample with prov=ib_verbs (messages and RMA
# writes) and the bandwidth sample (messages, RMA writes), data verified,
# their result rows shown.  Guest 0 serves, guest 1 connects.  (Barrier
# names are plain words: lib.sh passes them through sh -c.)

IBV_M=/kofi/modules

ibv_result() {
	r=$(cat "/sys/module/$1/parameters/result") && echo "result $r" &&
		[ "$r" = 0 ]
}

# ibv_pair NAME MODULE PORT SERVER-ARGS -- CLIENT-ARGS: run sample MODULE
# on both guests, one check each; say the client's result lines.
ibv_pair() {
	ibv_name=$1 ibv_mod=$2 ibv_port=$3
	shift 3
	ibv_sargs=
	while [ "$1" != -- ]; do ibv_sargs="$ibv_sargs $1"; shift; done
	shift
	ibv_from=$(dmesg | wc -l)
	if [ "$KOFI_HOST" = 0 ]; then
		insmod "$IBV_M/$ibv_mod.ko" port="$ibv_port" $ibv_sargs \
			> /tmp/ibv_server.out 2>&1 &
		ibv_pid=$!
		wait_for 20 listening "$ibv_port" ||
			fail "$ibv_name: server is not listening"
		barrier "ibv-$ibv_port"
		wait "$ibv_pid"
		check "$ibv_name: server" ibv_result "$ibv_mod"
	else
		barrier "ibv-$ibv_port"
		check "$ibv_name: client" sh -c "insmod $IBV_M/$ibv_mod.ko port=$ibv_port $* &&
			[ \$(cat /sys/module/$ibv_mod/parameters/result) = 0 ]"
		dmesg | tail -n +"$((ibv_from + 1))" | grep "$ibv_mod:" |
			sed 's/^\[[^]]*\] //' | while IFS= read -r l; do say "$l"; done
	fi
	rmmod "$ibv_mod" 2> /dev/null
	barrier "ibv-$ibv_port-done"
}

say_cmd rdma link show
ibv_pair "ib_verbs rping (kOFI to kOFI, 64 KiB, validated)" kofi_sample_rping 7501 \
	server=1 addr="$KOFI_SELF" count=10 size=65536 -- \
	addr="$KOFI_PEER" count=10 size=65536
ibv_pair "ib_verbs pingpong (msg)" kofi_sample_pingpong 7502 \
	prov=ib_verbs role=server addr="$KOFI_SELF" op=msg sizes=64,4096,65536 iters=20 -- \
	prov=ib_verbs role=client addr="$KOFI_PEER" op=msg sizes=64,4096,65536 iters=20
ibv_pair "ib_verbs pingpong (RMA write)" kofi_sample_pingpong 7503 \
	prov=ib_verbs role=server addr="$KOFI_SELF" op=write sizes=64,65536 iters=20 -- \
	prov=ib_verbs role=client addr="$KOFI_PEER" op=write sizes=64,65536 iters=20
ibv_pair "ib_verbs bandwidth (msg)" kofi_sample_bandwidth 7504 \
	prov=ib_verbs role=server addr="$KOFI_SELF" op=msg sizes=4096,65536 iters=200 -- \
	prov=ib_verbs role=client addr="$KOFI_PEER" op=msg sizes=4096,65536 iters=200
ibv_pair "ib_verbs bandwidth (RMA write)" kofi_sample_bandwidth 7505 \
	prov=ib_verbs role=server addr="$KOFI_SELF" op=write sizes=65536 iters=200 -- \
	prov=ib_verbs role=client addr="$KOFI_PEER" op=write sizes=65536 iters=200
