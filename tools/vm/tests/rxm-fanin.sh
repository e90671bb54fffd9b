#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# rxm's connections under load, over ksocket;rxm, with the reliable-
# datagram sample (kofi_sample_rds prov=ksocket;rxm); net-fanin.sh runs
# the same over ksocket;net (FPROV, its ports PB higher), where the
# 64 KiB messages come whole and wait on their connections for the
# receives, and a request lost in a crossing connect is rejected
# without a reason.
#
# Fan-in: 64 endpoints on guest 1 (role=fanin-send tagged=1) send 4
# tagged messages each - 64 KiB, so by rendezvous - all at once to one
# endpoint on guest 0 (role=fanin-recv tagged=1), which takes them with
# tagged receives for any tag, sixteen posted at a time, and checks every
# message's length, data, tag (its sender's index) and source.  Each
# sender opens its own connection with its first send and retries while
# rxm answers -EAGAIN; the rendezvous requests wait as unexpected
# messages until a receive takes them.  The receiver then sends each
# sender an empty message over the connection that sender opened.
#
# Crossing connects: six endpoint pairs, one endpoint of each on each
# guest on the same port (role=exchange); pair after pair, both sides
# send each message first and then receive the other's, so both open
# the pair's connection at the same moment: the first pair right after
# a barrier, each later one when guest 0 (the lower address) has sent
# an empty message over the pair before.  Every message (1 B, 16 KiB:
# rxm's eager limit, and 64 KiB: rendezvous) arrives with its data and
# source verified, and each pair ends with exactly one connection: on
# each guest, one established TCP connection from or to the pair's
# port, while the endpoints are still open.  Where the kernel has
# dynamic debug, the requests rxm rejected as "already connected" and
# those it accepted in place of its own are shown (how many pairs met
# at once varies with timing, so it is not checked).
. ./lib.sh
. ./rds-lib.sh

FPROV=${FPROV:-ksocket;rxm}
PB=${PB:-0}
FANIN="prov=$FPROV tagged=1 eps=64 burst=4 burst_size=65536"
FANIN="$FANIN rx_depth=16 timeout_ms=240000"
XPORT=$((18481 + PB))
XPAIRS=6
XCHG="prov=$FPROV eps=$XPAIRS sizes=1,16384,65536"
XCHG="$XCHG iters=$(scaled 2 1) timeout_ms=60000"
DDC=/sys/kernel/debug/dynamic_debug/control

# pair_conns PORT N: each of the N pairs (port PORT + e on both guests)
# has exactly one established (01) TCP connection here: to the peer's
# port or from the peer to ours.
pair_conns() {
	_e=0
	while [ "$_e" -lt "$2" ]; do
		_h=$(printf '%04X' $(($1 + _e)))
		_a="[0-9A-F]+:[0-9A-F]{4}"
		_n=$(grep -c -E "^ *[0-9]+: ([0-9A-F]+:$_h $_a|$_a [0-9A-F]+:$_h) 01 " \
			/proc/net/tcp)
		echo "pair $_e: $_n established"
		[ "$_n" = 1 ] || return 1
		_e=$((_e + 1))
	done
}
# one_conn_per_pair: so, once the connections given up have closed.
one_conn_per_pair() {
	wait_for 10 pair_conns $XPORT $XPAIRS || pair_conns $XPORT $XPAIRS
}
# requests WHAT: how many requests from the peer rxm logged as WHAT.
requests() { new_dmesg | grep -c "kofi_rxm: request from .*): $1\$"; }

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ksocket" insmod $M/kofi_ksocket.ko
check "insmod kofi_rxm" insmod $M/kofi_rxm.ko
[ -w "$DDC" ] && echo "module kofi_rxm func rxm_connreq +p" > "$DDC"

if [ "$KOFI_HOST" = 0 ]; then
	check "receiving endpoint bound" sample_start fanin-recv \
		port=$((18401 + PB)) peer_port=$((18411 + PB)) $FANIN
	barrier "fan-in"
	check "every tagged message of the 64 senders arrived, verified" \
		echo_done
else
	barrier "fan-in"
	check "64 endpoints sent, the receiver confirmed" sample_run \
		fanin-send port=$((18411 + PB)) peer_port=$((18401 + PB)) \
		$FANIN
fi
unload_sample
barrier "fan-in: done"

barrier "crossing connects"
check "$XPAIRS pairs: both sides sent first, every message verified" \
	sample_run exchange port=$XPORT peer_port=$XPORT $XCHG
check "one connection per pair" one_conn_per_pair
[ -w "$DDC" ] && say "requests from the peer: $(requests accepted) accepted," \
	"$(requests 'accepted, ours gives way') in place of ours," \
	"$(requests rejected) rejected as already connected"
barrier "crossing connects: counted"
unload_sample
barrier "crossing connects: done"

check "rmmod kofi_rxm" rmmod kofi_rxm
check "rmmod kofi_ksocket" rmmod kofi_ksocket
check "rmmod kofi" rmmod kofi
finish
