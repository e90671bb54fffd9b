#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_verbs: the RDMA device goes away while traffic runs.  Guest 1 runs
# rping-protocol pings (kofi_sample_rping, no count) against guest 0's
# kOFI server; guest 0 deletes its rxe0 mid-traffic.  The removal must
# return, the server must learn ENODEV from its EQ, the client must see
# its connection end, and every module must unload.  Then rxe0 comes back
# and a new connection works over it.  Last, rxe0 goes away while guest
# 0's server holds a connection request it has not accepted (hold_ms):
# the request's identifier is destroyed with the device, the server's
# late attempt to accept it fails with ENODEV, nothing leaks; rxe0 comes
# back for the tests that follow.  With KOFI_SIW=1 (ibv-siw-remove.sh)
# the device is siw0, soft-iWARP, and rxe0 comes back at the end.
. ./lib.sh
. ./siw-lib.sh

M=/kofi/modules
dev=rxe0 type=rxe
[ "${KOFI_SIW:-0}" = 1 ] && dev=siw0 type=siw

# held_since LINE: the server has held a request since kernel log line LINE.
held_since() { dmesg | tail -n +"$(($1 + 1))" | grep -q 'connection request held'; }
# The sample is still in its module init, pinging.
pings_running() { [ -d /sys/module/kofi_sample_rping ] && ! dmesg | grep -q 'kofi_sample_rping: client'; }

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
[ "$dev" = siw0 ] && siw_up
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ib_verbs" insmod $M/kofi_ib_verbs.ko

if [ "$KOFI_HOST" = 0 ]; then
	insmod $M/kofi_sample_rping.ko server=1 addr="$KOFI_SELF" port=7180 count=0 size=4096 \
		> /tmp/s.out 2>&1 &
	pid=$!
	check "server listens" wait_for 30 listening 7180
	barrier start
	barrier running
	sleep 2
	check "rdma link delete $dev returns while traffic runs" timeout 60 rdma link delete $dev
	check_output "the provider dropped $dev" "device $dev removed" dmesg
	wait "$pid"
	check_output "server: EQ error ENODEV" 'result -19' rp_is -19
	check_output "server logged the device loss" 'connection error 19' dmesg
	check "rmmod kofi_sample_rping (server)" rmmod kofi_sample_rping
	check "rdma link add $dev again" rdma link add $dev type $type netdev "$KOFI_DEV"
	check_output "$dev is ACTIVE again" "$dev.*ACTIVE" rdma link show
	insmod $M/kofi_sample_rping.ko server=1 addr="$KOFI_SELF" port=7181 count=5 \
		> /tmp/s.out 2>&1 &
	pid=$!
	check "server listens on the new $dev" wait_for 30 listening 7181
	barrier again
	wait "$pid"
	check "server: 5 pings over the new $dev" rp_is 0
	rmmod kofi_sample_rping

	from=$(dmesg | wc -l)
	insmod $M/kofi_sample_rping.ko server=1 addr="$KOFI_SELF" port=7182 \
		hold_ms="$(scaled 5000 10000)" > /tmp/s.out 2>&1 &
	pid=$!
	check "server listens on 7182" wait_for 30 listening 7182
	barrier pending
	check "server holds the connection request" wait_for 30 held_since "$from"
	check "rdma link delete $dev returns with a request pending" timeout 60 rdma link delete $dev
	wait "$pid"
	check_output "held request: accepting it fails with ENODEV" 'result -19' rp_is -19
	check "rmmod kofi_sample_rping (held request)" rmmod kofi_sample_rping
	check "rdma link add $dev once more" rdma link add $dev type $type netdev "$KOFI_DEV"
	check_output "$dev is ACTIVE once more" "$dev.*ACTIVE" rdma link show
	barrier pending-done
else
	barrier start
	insmod $M/kofi_sample_rping.ko addr="$KOFI_PEER" port=7180 count=0 size=4096 \
		> /tmp/c.out 2>&1 &
	pid=$!
	sleep 3
	check "client pings are running" pings_running
	barrier running
	wait "$pid"
	# The peer's device vanished: a disconnect, a flush, a timeout, or a
	# post refused because the endpoint already knew it was disconnected.
	check_output "client: connection ended with an error" 'result -' rp_is -104 -125 -110 -19 -107
	check_output "client logged how the connection ended" \
		'connection (shut down|error)|completion error' dmesg
	check "rmmod kofi_sample_rping (client)" rmmod kofi_sample_rping
	barrier again
	check "client: 5 validated pings over the new $dev" \
		sh -c "insmod $M/kofi_sample_rping.ko addr=$KOFI_PEER port=7181 count=5 && \
		       [ \$(cat /sys/module/kofi_sample_rping/parameters/result) = 0 ]"
	rmmod kofi_sample_rping

	barrier pending
	# Rejected by the destroyed request, or no answer at all.
	check_output "client: its request to the vanishing device fails" 'result -' \
		sh -c "insmod $M/kofi_sample_rping.ko addr=$KOFI_PEER port=7182 timeout_ms=$(scaled 8000 15000) && \
		       cat /sys/module/kofi_sample_rping/parameters/result | sed 's/^/result /'"
	rmmod kofi_sample_rping
	barrier pending-done
fi
check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
[ "$dev" = siw0 ] && siw_down
finish
