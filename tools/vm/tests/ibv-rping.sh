#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_verbs over rxe, rping's protocol: the kofi_sample_rping module against
# librdmacm's rping in both roles, and against itself, every ping
# validated.  With two guests, guest 0 serves and guest 1 connects across
# the link; with one guest, both sides run on it over rxe's loopback.
. ./lib.sh

M=/kofi/modules
if [ "$KOFI_HOSTS" -gt 1 ]; then
	server=$KOFI_SELF client=$KOFI_PEER
	[ "$KOFI_HOST" = 0 ] || server=$KOFI_PEER
else
	server=$KOFI_SELF
fi
is_server() { [ "$KOFI_HOSTS" = 1 ] || [ "$KOFI_HOST" = 0 ]; }
is_client() { [ "$KOFI_HOSTS" = 1 ] || [ "$KOFI_HOST" = 1 ]; }

# rp_ok: the sample module ran and reports success; then unload it.
rp_ok() {
	r=$(cat /sys/module/kofi_sample_rping/parameters/result) || return 1
	rmmod kofi_sample_rping
	echo "result $r"
	[ "$r" = 0 ]
}

# rp ARGS...: run the sample with ARGS (insmod returns when it is over).
rp() { insmod $M/kofi_sample_rping.ko "$@" && rp_ok; }

# pings_ok FILE COUNT: rping's server log shows COUNT pings with rping data.
pings_ok() {
	n=$(grep -c '^server ping data: rdma-ping-[0-9]*: [A-Za-z]' "$1")
	echo "$n pings"
	[ "$n" = "$2" ] && grep -q 'server DISCONNECT EVENT' "$1"
}

[ "$KOFI_HOSTS" = 1 ] ||
	check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check_output "rxe0 is ACTIVE" 'rxe0.*ACTIVE' rdma link show
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ib_verbs" insmod $M/kofi_ib_verbs.ko
check_output "ib_verbs is registered" ib_verbs cat /sys/kernel/debug/kofi/providers

# 1. rping server, kOFI client.
if is_server; then
	rping -s -a "$server" -p 7174 -C 10 -V -v > /tmp/rping-s.out 2>&1 &
	rping_pid=$!
	wait_for 30 listening 7174 || fail "rping server is not listening"
fi
barrier "rping-server"
if is_client; then
	check "kOFI client -> rping -s: 10 validated pings" \
		rp addr="$server" port=7174 count=10 size=64 verbose=1
fi
if is_server; then
	wait "$rping_pid"
	check_output "rping -s served 10 pings from kOFI" '10 pings' pings_ok /tmp/rping-s.out 10
fi
barrier "rping-server done"

# 2. kOFI server, rping client.
if is_server; then
	insmod $M/kofi_sample_rping.ko server=1 addr="$server" port=7175 count=10 size=128 \
		verbose=1 > /tmp/kofi-s.out 2>&1 &
	kofi_pid=$!
	check "kOFI server listens" wait_for 30 listening 7175
fi
barrier "kofi-server"
if is_client; then
	check_output "rping -c -V -> kOFI server: 10 validated pings" 'ping data: rdma-ping-9' \
		limited 120 rping -c -a "$server" -p 7175 -C 10 -S 128 -V -v
fi
if is_server; then
	wait "$kofi_pid"
	check "kOFI server served 10 pings from rping" rp_ok
fi
barrier "kofi-server done"

# 3. kOFI on both sides, larger pings (two guests: one module per guest).
if [ "$KOFI_HOSTS" -gt 1 ] && is_server; then
	insmod $M/kofi_sample_rping.ko server=1 addr="$server" port=7176 count=20 size=65536 \
		> /tmp/kofi-s.out 2>&1 &
	kofi_pid=$!
	check "kOFI server listens again" wait_for 30 listening 7176
fi
barrier "kofi-kofi"
if [ "$KOFI_HOSTS" -gt 1 ] && is_client; then
	check "kOFI client -> kOFI server: 20 validated 64 KiB pings" \
		rp addr="$server" port=7176 count=20 size=65536
fi
if [ "$KOFI_HOSTS" -gt 1 ] && is_server; then
	wait "$kofi_pid"
	check "kOFI server served 20 pings" rp_ok
fi
barrier "kofi-kofi done"

check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
