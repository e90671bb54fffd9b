#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# The rds provider across the two-guest link over RDS/TCP: the rds sample
# (samples/kofi_sample_rds.c) exchanges verified messages of 0 B to 1 MiB
# and a back-to-back burst with the userspace AF_RDS peer rds-peer in both
# directions (the sample echoing, then sending), then with the sample on
# the other guest; every message's length, data and source are checked.
# When the sample sends, rds-peer shrinks its receive buffer for the
# burst (256 KiB: 4 messages of 64 KiB congest its port) and waits before
# it until RDS marked its port congested, and a second more; the sample
# pauses half a second after the burst's first 8 messages, so that RDS's
# congestion update has reached its host before the other 40 go: RDS's
# congestion control then refuses the provider's sends (its counter
# cong_send_error grows), and still every message arrives.  rds-peer
# takes the burst's messages 100 ms apart, so that its port is never
# congested and free again within milliseconds: RDS/TCP sends each
# congestion update on whichever of its 8 paths transmits next, and two
# updates close together can arrive in the wrong order and leave the
# sender with a stale "congested" (Documentation/rds.rst, Limitations).
# Then a bare sender to a header endpoint: rds-peer's message to the
# sample with tagged=1 is dropped, counted and logged, and no echo comes.
# Then the modules unload cleanly.  The sanitizer kernel sends each size
# twice instead of four times.
. ./lib.sh
. ./rds-lib.sh

I=$(scaled 4 2)

# cong_errors: RDS's count of this host's sends refused for congestion.
cong_errors() { rds_counter cong_send_error; }

# congested: more sends were refused for congestion than $cong_before.
congested() {
	n=$(cong_errors) && echo "cong_send_error $cong_before -> $n" &&
		[ "$n" -gt "$cong_before" ]
}

# sent_congested ARGS...: sample_send ARGS...; on failure, say how many
# sends RDS refused for congestion in all.
sent_congested() {
	sample_send "$@" || { echo "cong_send_error $(cong_errors)"; return 1; }
}

# logged PATTERN: the kernel log since line $from matches PATTERN.
logged() { dmesg | tail -n +"$((from + 1))" | grep -q -E "$1"; }
# no_echo ARGS...: rds-peer with ARGS fails (its echo never came).
no_echo() { ! limited 60 rds-peer "$@"; }

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
rds_load rds_tcp

# 1. rds-peer sends, the sample echoes (guest 0).
if [ "$KOFI_HOST" = 0 ]; then
	check "sample endpoint bound" sample_echo port=18001 \
		peer_port=18002 iters=$I
	barrier "user to kernel"
	check "sample echoed rds-peer's messages, all verified" echo_done
	unload_sample
else
	barrier "user to kernel"
	check "rds-peer sent, echoes verified" limited 600 rds-peer -r send -i "$I" \
		-b "$KOFI_SELF:18002" -p "$KOFI_PEER:18001"
fi
barrier "user to kernel: done"

# 2. The sample sends (guest 1), rds-peer echoes.
if [ "$KOFI_HOST" = 0 ]; then
	limited 600 rds-peer -r echo -i "$I" \
		-b "$KOFI_SELF:18011" -p "$KOFI_PEER:18012" -n 48 \
		-R 262144 -d 30000 -g 100 \
		> /tmp/rds-peer.out 2>&1 &
	echo_pid=$!
	check "rds-peer bound" wait_for 60 grep -q 'rds-peer: echo' \
		/tmp/rds-peer.out
	barrier "kernel to user"
	check "rds-peer echoed the sample's messages, all verified" peer_done
	say_cmd cat /tmp/rds-peer.out
else
	barrier "kernel to user"
	cong_before=$(cong_errors)
	check "congestion counter readable" test -n "$cong_before"
	check "sample sent to rds-peer, echoes verified" sent_congested \
		port=18012 peer_port=18011 iters=$I burst=48 burst_pause_ms=500
	check "RDS refused sends for congestion, none lost" congested
	unload_sample
fi
barrier "kernel to user: done"

# 3. Sample to sample.
if [ "$KOFI_HOST" = 0 ]; then
	check "sample endpoint bound" sample_echo port=18021 \
		peer_port=18022 iters=$I
	barrier "kernel to kernel"
	check "sample echoed the other sample's messages, all verified" \
		echo_done
else
	barrier "kernel to kernel"
	check "sample sent to the other sample, echoes verified" sample_send \
		port=18022 peer_port=18021 iters=$I
fi
unload_sample
barrier "kernel to kernel: done"

# 4. A bare sender (rds-peer) to a header endpoint (the sample with
# tagged=1): its message is dropped, counted and logged, no receive is
# used up; the echo never comes.
if [ "$KOFI_HOST" = 0 ]; then
	from=$(dmesg | wc -l)
	check "header endpoint bound" sample_echo port=18031 \
		peer_port=18032 tagged=1 iters=1 burst=0 timeout_ms=10000
	barrier "bare to header"
	wait "$echo_pid"
	check "header endpoint: nothing received (-EAGAIN)" \
		result_is kofi_sample_rds -11
	check "the bare message was dropped and logged" \
		logged 'message without a valid header dropped'
else
	barrier "bare to header"
	check "rds-peer's bare message to a header endpoint: no echo" \
		no_echo -r send -s 64 -i 1 -n 0 -t 3 \
		-b "$KOFI_SELF:18032" -p "$KOFI_PEER:18031"
fi
unload_sample
barrier "bare to header: done"

rds_unload
finish
