#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# The rds provider across the two-guest link over RDS/TCP: the rds sample
# (samples/kofi_sample_rds.c) exchanges verified messages of 0 B to 1 MiB
# and a back-to-back burst with the userspace AF_RDS peer rds-peer in both
# directions (the sample echoing, then sending), then with the sample on
# the other guest; every message's length, data and source are checked.
# When the sample sends, rds-peer has a small receive buffer and sleeps
# before a burst larger than RDS lets a socket have unacknowledged: once
# acknowledgements free send space, RDS's congestion control refuses the
# provider's sends (its counter cong_send_error grows), and still every
# message arrives.
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
		-b "$KOFI_SELF:18011" -p "$KOFI_PEER:18012" -n 48 -R 262144 -d 3000 \
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
	check "sample sent to rds-peer, echoes verified" sample_send \
		port=18012 peer_port=18011 iters=$I burst=48
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

rds_unload
finish
