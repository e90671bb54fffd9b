#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# Faults of the rds provider over RDS/TCP across the two-guest link.
#
# The peer vanishes: guest 1's endpoint exchanges messages with guest 0's
# endpoint, which then closes (its module is unloaded, so its RDS port is
# unbound, while guest 0 and its RDS connection to guest 1 stay up).
# guest 1 sends to that port again: the send completes normally - no
# error completion: RDS takes the message, guest 0 acknowledges and drops
# it (its counter recv_drop_no_sock grows) - and the sample's wait for
# the echo ends with -EAGAIN once its timeout passes.  Another endpoint of
# guest 0 then exchanges messages with guest 1 as before.
#
# rds_tcp: while guest 0's endpoint is open, rmmod rds_tcp is refused
# there (each bound RDS socket holds a reference to its transport's
# module).  Once every endpoint is closed, rds_tcp and kofi_rds are
# unreferenced and rds_tcp unloads on both guests; a new endpoint's
# fi_enable() then fails with -ENOPROTOOPT (the guests' kernels load no
# module on demand).
#
# A host goes away and comes back: with rds_tcp loaded again and no RDS
# connection between the guests, guest 1 takes its link down for 5 s
# while guest 0 sends to it.  The send completes (RDS took it) and RDS/TCP
# connects once guest 1 is back: the message arrives, its echo comes
# back, both verified.
. ./lib.sh
. ./rds-lib.sh

# A short exchange: one 4 KiB message each way, no burst.
SHORT="sizes=4096 iters=1 burst=0"

# drops: RDS's count of this host's messages dropped for want of a
# socket bound to their port.
drops() { rds_counter recv_drop_no_sock; }

# dropped: more messages were dropped than $drops_before.
dropped() {
	n=$(drops) && echo "recv_drop_no_sock $drops_before -> $n" &&
		[ "$n" -gt "$drops_before" ]
}

# logged PATTERN: the kernel log since line $from matches PATTERN.
logged() { dmesg | tail -n +"$((from + 1))" | grep -q -E "$1"; }

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
rds_load rds_tcp

# 1. The peer's endpoint vanishes.
if [ "$KOFI_HOST" = 0 ]; then
	check "endpoint bound" sample_echo port=18401 peer_port=18402 $SHORT
	check "rmmod rds_tcp refused while an endpoint uses it" \
		refused_rmmod rds_tcp
	barrier "exchange"
	check "exchanged with guest 1, verified" echo_done
	unload_sample
	drops_before=$(drops)
	check "drop counter readable" test -n "$drops_before"
	barrier "vanished"
	barrier "sent to the vanished endpoint"
	check "RDS dropped the message to the unbound port" dropped
	check "new endpoint bound" sample_echo port=18403 peer_port=18402 \
		$SHORT
	barrier "other endpoint"
	check "the new endpoint exchanged with guest 1, verified" echo_done
else
	barrier "exchange"
	check "exchanged with guest 0, verified" sample_send port=18402 \
		peer_port=18401 $SHORT
	unload_sample
	barrier "vanished"
	from=$(dmesg | wc -l)
	insmod $M/kofi_sample_rds.ko role=send addr="$KOFI_SELF" \
		peer="$KOFI_PEER" port=18402 peer_port=18401 $SHORT \
		timeout_ms=1000
	check "send to the vanished endpoint completed, no echo (-EAGAIN)" \
		result_is kofi_sample_rds -11
	check "no error completion, the echo's wait timed out" \
		logged 'message 0: receive failed: -11'
	check "everything closed: kofi_rds unreferenced" \
		unreferenced kofi_rds
	unload_sample
	barrier "sent to the vanished endpoint"
	barrier "other endpoint"
	check "exchanged with guest 0's new endpoint, verified" sample_send \
		port=18402 peer_port=18403 $SHORT
fi
unload_sample
barrier "faults: done"

# 2. rds_tcp once no endpoint uses it.
check "rds_tcp unreferenced once the endpoint closed" unreferenced rds_tcp
check "kofi_rds unreferenced" unreferenced kofi_rds
check "rmmod rds_tcp while idle" rmmod rds_tcp
check_output "rds still registered" rds cat /sys/kernel/debug/kofi/providers
insmod $M/kofi_sample_rds.ko role=echo addr="$KOFI_SELF" peer="$KOFI_PEER" \
	port=18421 peer_port=18421 $SHORT timeout_ms=1000
check "fi_enable without rds_tcp: -ENOPROTOOPT" \
	result_is kofi_sample_rds -92
unload_sample
check "insmod rds_tcp again" insmod "$K/rds_tcp.ko"

# 3. A host goes away and comes back.
if [ "$KOFI_HOST" = 1 ]; then
	check "endpoint bound" sample_echo port=18432 peer_port=18431 $SHORT \
		timeout_ms=60000
	barrier "away"
	ip link set "$KOFI_DEV" down
	sleep 5
	ip link set "$KOFI_DEV" up
	ip -6 addr add "$KOFI_SELF6/64" dev "$KOFI_DEV" 2> /dev/null
	check "link back up" wait_for 60 ping -c 1 -W 1 "$KOFI_PEER"
	check "what came while away arrived once back, echoed, verified" \
		echo_done
else
	barrier "away"
	sleep 1
	check "sent while guest 1 was away; echoed once back, verified" \
		sample_send port=18431 peer_port=18432 $SHORT timeout_ms=60000
fi
unload_sample
barrier "away: done"

rds_unload
finish
