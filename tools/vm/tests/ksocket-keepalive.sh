#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# ksocket: a peer that vanishes is reported within the configured time.
# Guest 0 loads kofi_ksocket with keepalive_ms=1000, guest 1 with 60000;
# guest 1's pingpong client asks for 1000 ms with
# fi_setopt(FI_OPT_KEEPALIVE_MS) (only the endpoint's setting can report
# the loss in time), runs against guest 0's server, then both idle; guest
# 0's link goes down.  TCP keepalive gives
# the peer up after 3 unanswered probes 1 s apart (TCP_USER_TIMEOUT 4 s):
# the client's endpoint reports ETIMEDOUT on its EQ about 6 s into its
# idle time (the link went down 2 s into it).  Checked: 4-12 s, slack for
# a loaded host; the module's 60 s setting could not report it before
# the link is back up, 14 s into the idle time.
. ./lib.sh

M=/kofi/modules
PORT=7491

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
if [ "$KOFI_HOST" = 0 ]; then
	ka=1000
else
	ka=60000
fi
check "insmod kofi_ksocket keepalive_ms=$ka" \
	insmod $M/kofi_ksocket.ko keepalive_ms=$ka
check_output "keepalive parameter" "^$ka\$" \
	cat /sys/module/kofi_ksocket/parameters/keepalive_ms

from=$(dmesg | wc -l)
if [ "$KOFI_HOST" = 0 ]; then
	insmod $M/kofi_sample_pingpong.ko role=server port=$PORT op=msg \
		sizes=64 iters=10 linger_ms=60000 > /tmp/s.out 2>&1 &
	pid=$!
	check "server listens on $PORT" wait_for 30 listening $PORT
	barrier start
	barrier idle
	# The client's connection has been idle for 2 s; now the peer vanishes.
	sleep 2
	ip link set "$KOFI_DEV" down
	sleep 12
	ip link set "$KOFI_DEV" up
	wait "$pid"
	# Its own keepalive gives the client up (ETIMEDOUT, or an unreachable
	# network while its link is down).
	check_output "server: connection ended with an error" \
		'^-(110|101|113)$' result_of kofi_sample_pingpong
	rmmod kofi_sample_pingpong
	check "link back up" wait_for 60 ping -c 1 -W 1 "$KOFI_PEER"
	barrier done
else
	barrier start
	insmod $M/kofi_sample_pingpong.ko role=client addr="$KOFI_PEER" \
		port=$PORT op=msg sizes=64 iters=10 linger_ms=60000 \
		keepalive_ms=1000 > /tmp/c.out 2>&1 &
	pid=$!
	check "client ran and idles" \
		wait_for 60 sh -c "dmesg | tail -n +$((from + 1)) | grep -q 'idling up to'"
	barrier idle
	wait "$pid"
	check_output "client: endpoint keepalive set by fi_setopt" \
		'endpoint keepalive 1000 ms' new_dmesg
	check_output "client: peer lost, ETIMEDOUT" '^-110$' \
		result_of kofi_sample_pingpong
	check_output "client: reported 4-12 s into the idle time" 'ended after' \
		idle_within 4000 12000
	rmmod kofi_sample_pingpong
	check "link back up" wait_for 60 ping -c 1 -W 1 "$KOFI_PEER"
	barrier done
fi
check "rmmod kofi_ksocket" rmmod kofi_ksocket
check "rmmod kofi" rmmod kofi
finish
