#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two-guest harness check: the virtual link carries IPv4 and IPv6, each
# guest has an active rxe device on it, and RDMA traffic crosses it
# (rping with data verification, guest 0 serving, guest 1 connecting).
. ./lib.sh

check "eth0 is up" wait_for 60 sh -c 'ip link show eth0 | grep -q LOWER_UP'
check "ping IPv4 peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "ping IPv6 peer" wait_for 180 ping -6 -c 1 -W 1 "$KOFI_PEER6"
check_output "rxe0 is ACTIVE on eth0" 'rxe0.*ACTIVE.*eth0' rdma link show
check_output "ibv_devices lists rxe0" 'rxe0' ibv_devices

if [ "$KOFI_HOST" = 0 ]; then
	check_output "rping server, 10 verified iterations" 'server DISCONNECT|cq completion' \
		timeout 120 rping -s -a "$KOFI_SELF" -p 7174 -C 10 -V -v
else
	check "rping client, 10 verified iterations" \
		wait_for 60 rping -c -a "$KOFI_PEER" -p 7174 -C 10 -V -S 64
fi
finish
