#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_verbs shared receive contexts (kofi_sample_srx, guest 0 serving,
# guest 1 connecting): the server's connections all take their messages
# from one context holding fewer receives than messages in flight, each
# completing on its own endpoint's CQ; every message is checked (its
# connection, its order, its bytes) and its receive posted again.  The
# sample also checks the refusals: a send on the context, a receive on a
# bound endpoint, closing the context while an endpoint holds it.  Last,
# guest 0's rxe0 goes away while its connections take messages from the
# context: the server's EQ tells it (ENODEV, or first a disconnect), it
# keeps its objects open until the device is gone (linger_ms), when a
# receive posted to the context answers ENODEV, then closes its
# endpoints and the context (whose SRQ went with the device),
# everything unloads, and rxe0 comes back for the tests that follow.
. ./lib.sh

M=/kofi/modules
server=$KOFI_SELF
[ "$KOFI_HOST" = 0 ] || server=$KOFI_PEER

[ -e $M/kofi_sample_srx.ko ] || { fail "no kofi_sample_srx module"; finish; }
check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ib_verbs" insmod $M/kofi_ib_verbs.ko

N=$(scaled 200 40)
# four connections, eight receives, one message on each connection in turn
pair kofi_sample_srx "srx 4 connections" 7481 addr="$server" conns=4 \
	depth=8 count="$N" size=1024
# more connections than receives: senders wait for receives posted again
pair kofi_sample_srx "srx 16 connections, 4 receives" 7482 \
	addr="$server" conns=16 depth=4 count="$((N / 4))" size=8192

# srx_is RESULT...: the sample finished with one of the results.
srx_is() {
	_r=$(result_of kofi_sample_srx) || return 1
	echo "result $_r"
	for _w in "$@"; do [ "$_r" = "$_w" ] && return 0; done
	return 1
}
# The server has its connections and takes messages.
srx_serving() { dmesg | tail -n +"$((from + 1))" | grep -q 'kofi_sample_srx: server: 2 connections'; }

from=$(dmesg | wc -l)
if [ "$KOFI_HOST" = 0 ]; then
	insmod $M/kofi_sample_srx.ko role=server addr="$server" port=7483 \
		conns=2 depth=4 count=100000000 linger_ms="$(scaled 3000 6000)" \
		> /tmp/s.out 2>&1 &
	pid=$!
	check "removal: server listens" wait_for 30 listening 7483
	barrier remove-start
	check "removal: the server's connections take messages" \
		wait_for 60 srx_serving
	barrier remove-running
	sleep 1
	check "rdma link delete rxe0 returns while messages arrive" \
		timeout 60 rdma link delete rxe0
	wait "$pid"
	check_output "removal: the server's EQ says ENODEV or a disconnect" \
		'result -' srx_is -19 -104
	check_output "removal: the server logged it" \
		'connection error 19|EQ event 3 before' dmesg
	check_output "removal: the context answers ENODEV once the device is gone" \
		'posted to the context now: -19' dmesg
	check "rmmod kofi_sample_srx (server)" rmmod kofi_sample_srx
	check "rdma link add rxe0 again" rdma link add rxe0 type rxe netdev "$KOFI_DEV"
	check_output "rxe0 is ACTIVE again" "rxe0.*ACTIVE" rdma link show
	barrier remove-done
else
	barrier remove-start
	insmod $M/kofi_sample_srx.ko role=client addr="$server" port=7483 \
		conns=2 count=100000000 > /tmp/c.out 2>&1 &
	pid=$!
	barrier remove-running
	wait "$pid"
	check_output "removal: the client's connections end with an error" \
		'result -' srx_is -104 -125 -110 -19 -107 -5
	check "rmmod kofi_sample_srx (client)" rmmod kofi_sample_srx
	barrier remove-done
fi

check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
