#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The rxm utility provider over one core provider (CORE), between the two
# guests, every transfer verified.  The caller (rxm-ksocket.sh,
# rxm-ibv.sh, net-ksocket.sh) sets CORE, UTIL (rxm, or net for the net
# wire's "ksocket;net"; default rxm; none for the core's own FI_EP_RDM,
# without kofi_rxm.ko),
# FIPROV (fi_pingpong's -p), FIPP_ENV (its environment) and FIPP_MODES
# (the -m modes fi_pingpong runs in against the kernel).
#
# rxm_kernel PORT: kernel to kernel, ports PORT to PORT+7: the pingpong
# over FI_MSG and FI_TAGGED with the sizes on both sides of rxm's edges
# (inject 256 B, eager 16 KiB, rendezvous above, to 1 MiB) and the
# bandwidth sample, untagged and tagged; RMA on the RDM endpoints: the
# pingpong's writes with remote CQ data and reads, the bandwidth sample's
# writes and reads.  (rds-rdm runs the fi_pingpong protocol
# kernel to kernel; here the real fi_pingpong is the peer.)
# rxm_ipv6 PORT: kernel to kernel over IPv6, ports PORT and PORT+1.
# rxm_rma_peer PORT: RMA against libfabric's rxm over FIPROV's core:
# tools/rxm/rma-peer (built against Debian's libfabric) and the kernel
# pingpong (ep_type=rdm) run the same schedule - fi_writedata() with
# remote CQ data into the peer's buffer and back, fi_read() of the
# peer's buffer - both roles, data verified; ports PORT to PORT+3.
# rxm_fipp: Debian's fi_pingpong -e rdm against the kernel pingpong in
# fi_pingpong mode, both roles, for each mode of FIPP_MODES, with
# fi_pingpong's default sizes, 64 B to 1 MiB (above 16 KiB: rendezvous;
# libfabric's rxm over verbs sends 64 KiB as segments).

M=/kofi/modules
if [ "$UTIL" = none ]; then
	RXM="prov=$CORE ep_type=rdm verify=1"
else
	RXM="prov=$CORE;${UTIL:-rxm} ep_type=rdm verify=1"
fi
FIPP_SIZES=64,256,1024,4096,65536,1048576
# Both sides of each edge: inject, eager, rendezvous.
RXM_SIZES=0,1,255,256,257,4096,16383,16384,16385,65536,1048576
FIPP_ITERS=$(scaled 10 1)

if [ "$KOFI_HOST" = 0 ]; then
	peer="" peer6="addr=$KOFI_SELF6"
else
	peer="addr=$KOFI_PEER" peer6="addr=$KOFI_PEER6"
fi

rxm_load() {
	check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
	check "insmod kofi" insmod $M/kofi.ko
	check "insmod kofi_$CORE" insmod "$M/kofi_$CORE.ko"
	[ "$UTIL" = none ] || check "insmod kofi_rxm" insmod $M/kofi_rxm.ko
}

rxm_unload() {
	[ "$UTIL" = none ] || check "rmmod kofi_rxm" rmmod kofi_rxm
	check "rmmod kofi_$CORE" rmmod "kofi_$CORE"
	check "rmmod kofi" rmmod kofi
}

rxm_kernel() {
	pp "pingpong msg" "$1" $peer $RXM sizes=$RXM_SIZES \
		iters=$(scaled 4 1)
	pp "pingpong tagged" "$(($1 + 1))" $peer $RXM mode=tagged \
		sizes=$RXM_SIZES iters=$(scaled 4 1)
	pair kofi_sample_bandwidth "bandwidth msg" "$(($1 + 2))" $peer $RXM \
		sizes=1,4096,16384 iters=$(scaled 256 64)
	pair kofi_sample_bandwidth "bandwidth tagged" "$(($1 + 3))" $peer \
		$RXM mode=tagged sizes=1,4096,16384 iters=$(scaled 256 64)
	pp "pingpong RMA write with CQ data" "$(($1 + 4))" $peer $RXM \
		op=write sizes=1,4096,65536,1048576 iters=$(scaled 4 2)
	pp "RMA read" "$(($1 + 5))" $peer $RXM op=read \
		sizes=1,4096,65536,1048576 iters=$(scaled 4 2)
	pair kofi_sample_bandwidth "bandwidth RMA write" "$(($1 + 6))" $peer \
		$RXM op=write sizes=1,4096,65536 iters=$(scaled 64 16)
	pair kofi_sample_bandwidth "bandwidth RMA read" "$(($1 + 7))" $peer \
		$RXM op=read sizes=1,4096,65536 iters=$(scaled 64 16)
}

# rxm_ipv6 PORT: kernel to kernel over the guests' IPv6 addresses
# (FI_SOCKADDR_IN6 endpoints), ports PORT and PORT+1: the pingpong,
# untagged and tagged, eager and rendezvous sizes.
rxm_ipv6() {
	check "IPv6 address usable" wait_for 30 ping -6 -c 1 -W 1 "$KOFI_PEER6"
	pp "pingpong msg, IPv6" "$1" $peer6 $RXM sizes=0,256,16385,1048576 \
		iters=$(scaled 4 1)
	pp "pingpong tagged, IPv6" "$(($1 + 1))" $peer6 $RXM mode=tagged \
		sizes=0,256,16385,1048576 iters=$(scaled 4 1)
}

# fipp_ok: fi_pingpong's output has every size's row, up to 1 MiB, and
# no data verification error; with FIPP_XARGS="-S SIZE" (one size, the
# kernel's sizes=FIPP_KSIZES), the row FIPP_ROW only.
FIPP_XARGS= FIPP_KSIZES= FIPP_ROW=
fipp_ok() {
	! grep -q 'Error at iteration' /tmp/fipp.out || return 1
	if [ -n "$FIPP_ROW" ]; then
		grep -q "^$FIPP_ROW " /tmp/fipp.out
	else
		grep -q '^64 ' /tmp/fipp.out && grep -q '^1m ' /tmp/fipp.out
	fi
}
fipp_wait() { wait "$fipp_pid" && fipp_ok; }
fipp_client() {
	# shellcheck disable=SC2086
	limited 240 env $FIPP_ENV fi_pingpong -p "$FIPROV" -e rdm \
		-I $FIPP_ITERS -c $FIPP_XARGS "$@" > /tmp/fipp.out 2>&1 && fipp_ok
}
kernel_client() {
	insmod $M/kofi_sample_pingpong.ko $RXM fipp=1 role=client \
		addr="$KOFI_PEER" "$@" iters=$FIPP_ITERS &&
		result_ok kofi_sample_pingpong
}
kernel_server_wait() { wait "$server_pid" && result_ok kofi_sample_pingpong; }

# rxm_fipp_one MODE: both roles.
rxm_fipp_one() {
	_n="fi_pingpong -p $FIPROV -e rdm -m $1${FIPP_XARGS:+ $FIPP_XARGS}"
	_ks=${FIPP_KSIZES:-$FIPP_SIZES}
	# 1. fi_pingpong serves, the kernel connects.
	if [ "$KOFI_HOST" = 0 ]; then
		# shellcheck disable=SC2086
		limited 240 env $FIPP_ENV fi_pingpong -p "$FIPROV" -e rdm \
			-I $FIPP_ITERS -c -m "$1" $FIPP_XARGS > /tmp/fipp.out 2>&1 &
		fipp_pid=$!
		wait_for 30 listening 47592 ||
			fail "$_n server: not listening"
		barrier "$_n server up"
		check "$_n server vs kernel client" fipp_wait
		say_cmd cat /tmp/fipp.out
	else
		barrier "$_n server up"
		check "kernel client vs $_n server" kernel_client \
			mode="$1" sizes="$_ks"
		rmmod kofi_sample_pingpong
	fi
	barrier "$_n: part 1 done"
	# 2. The kernel serves, fi_pingpong connects.
	if [ "$KOFI_HOST" = 0 ]; then
		check "$_n: port free" wait_for 60 cm_port_free 47592
		insmod $M/kofi_sample_pingpong.ko $RXM fipp=1 role=server \
			addr="$KOFI_SELF" mode="$1" sizes="$_ks" \
			iters=$FIPP_ITERS > /tmp/server.out 2>&1 &
		server_pid=$!
		wait_for 30 listening 47592 ||
			fail "$_n kernel server: not listening"
		barrier "$_n kernel server up"
		check "kernel server vs $_n client" kernel_server_wait
		rmmod kofi_sample_pingpong
	else
		barrier "$_n kernel server up"
		check "$_n client vs kernel server" fipp_client -m "$1" \
			"$KOFI_PEER"
		say_cmd cat /tmp/fipp.out
	fi
	barrier "$_n: part 2 done"
}

RMA_SIZES=1,4096,65536,1048576
RMA_ITERS=$(scaled 4 2)
case $FIPROV in
*";ofi_rxm" | net) RMA_PROV=$FIPROV ;;
*) RMA_PROV="$FIPROV;ofi_rxm" ;;
esac
rma_peer() {
	# shellcheck disable=SC2086
	limited 240 env $FIPP_ENV rma-peer -p "$RMA_PROV" -S $RMA_SIZES \
		-I $RMA_ITERS "$@"
}
rma_peer_wait() { wait "$rma_pid"; }
kernel_rma() {
	insmod $M/kofi_sample_pingpong.ko $RXM sizes=$RMA_SIZES \
		iters=$RMA_ITERS "$@" && result_ok kofi_sample_pingpong
}

# rxm_rma_peer_one OP PORT: rma-peer serves on PORT, then the kernel on
# PORT+1.
rxm_rma_peer_one() {
	_n="rma-peer -p $RMA_PROV -o $1"
	if [ "$KOFI_HOST" = 0 ]; then
		rma_peer -s -P "$2" -o "$1" > /tmp/rma.out 2>&1 &
		rma_pid=$!
		wait_for 30 listening "$2" || fail "$_n server: not listening"
		barrier "$_n server up"
		check "$_n server vs kernel client" rma_peer_wait
		say_cmd cat /tmp/rma.out
	else
		barrier "$_n server up"
		check "kernel client vs $_n server" kernel_rma role=client \
			addr="$KOFI_PEER" port="$2" op="$1"
		rmmod kofi_sample_pingpong
	fi
	barrier "$_n: part 1 done"
	if [ "$KOFI_HOST" = 0 ]; then
		kernel_rma role=server port="$(($2 + 1))" op="$1" \
			> /tmp/server.out 2>&1 &
		server_pid=$!
		wait_for 30 listening "$(($2 + 1))" ||
			fail "$_n kernel server: not listening"
		barrier "$_n kernel server up"
		check "kernel server vs $_n client" wait "$server_pid"
		rmmod kofi_sample_pingpong
	else
		barrier "$_n kernel server up"
		check "$_n client vs kernel server" rma_peer -c "$KOFI_PEER" \
			-P "$(($2 + 1))" -o "$1"
		say_cmd cat /tmp/check.out
	fi
	barrier "$_n: part 2 done"
}

rxm_rma_peer() {
	rxm_rma_peer_one write "$1"
	rxm_rma_peer_one read "$(($1 + 2))"
}

rxm_fipp() {
	for _m in $FIPP_MODES; do
		rxm_fipp_one "$_m"
	done
}
