#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The pingpong and bandwidth samples over FI_EP_RDM endpoints of the rds
# provider (ep_type=rdm), kernel to kernel across the two-guest link over
# RDS/TCP, every transfer verified: the samples' own exchange (names
# over a TCP control connection, then their sync messages over the
# fabric) with sizes from 0 B to RDS's largest message, 1 MiB, and the
# pingpong speaking fi_pingpong's "-e rdm" protocol (fipp=1) on both
# sides with fi_pingpong's whole "-S all" list of sizes.  Sizes below the
# info's inject_size (256 B) go by fi_inject.  mode=tagged is refused
# with fi_getinfo()'s -ENODATA on both sides (rds has no FI_TAGGED).
# Then the modules unload.
. ./lib.sh
. ./rds-lib.sh

# A few seconds of transfers: a 1 MiB message takes ~25 ms each way
# over RDS/TCP under TCG, far longer on the sanitizer kernel.
RDM="prov=rds ep_type=rdm verify=1"

# refused PORT ARGS...: the pingpong sample with ARGS fails with
# -ENODATA on both guests (the server accepts the control connection
# first, then both look for an info).
refused_served() { wait "$_kofi_pid" && refused_result; }
refused_client() {
	insmod $M/kofi_sample_pingpong.ko "$@" && refused_result
}
refused_result() {
	r=$(result_of kofi_sample_pingpong) && echo "result $r" && [ "$r" = -61 ]
}
refused() {
	_kofi_port=$1
	shift
	if [ "$KOFI_HOST" = 0 ]; then
		insmod $M/kofi_sample_pingpong.ko role=server \
			port="$_kofi_port" "$@" > /tmp/refused.out 2>&1 &
		_kofi_pid=$!
		wait_for 60 listening "$_kofi_port" ||
			fail "tagged: server is not listening"
		barrier "tagged"
		check "mode=tagged over rds: server gets -ENODATA" \
			refused_served
	else
		barrier "tagged"
		check "mode=tagged over rds: client gets -ENODATA" \
			refused_client role=client port="$_kofi_port" "$@"
	fi
	rmmod kofi_sample_pingpong 2> /dev/null
	barrier "tagged: done"
}

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
rds_load rds_tcp

if [ "$KOFI_HOST" = 0 ]; then
	peer=""
else
	peer="addr=$KOFI_PEER"
fi

pp "rdm pingpong" 7571 $peer $RDM \
	sizes=0,1,64,255,256,4096,65536,1048576 iters=$(scaled 8 2)
pair kofi_sample_bandwidth "rdm bandwidth" 7572 $peer $RDM \
	sizes=1,4096,65536,1048576 iters=$(scaled 16 4)
pp "rdm pingpong, fi_pingpong protocol, -S all" 7573 $peer $RDM fipp=1 \
	ctrl_port=7573 sizes=all iters=$(scaled 2 1)
refused 7574 $peer $RDM mode=tagged

rds_unload
finish
