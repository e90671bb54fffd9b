#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# Fan-in over RDS/TCP: eight endpoints of the rds sample on guest 1
# (role=fanin-send) send 24 messages of 64 KiB each, all at once, to one
# endpoint on guest 0 (role=fanin-recv), which checks every message's
# length and data against its sender's messages not received yet (and
# logs how many overtook an earlier one: RDS/TCP may reorder while its
# connection is set up).  The receiver stops receiving for a
# second after the first message: the senders meet RDS's back-pressure,
# the provider answers -EAGAIN once their queues are full, they retry,
# and still every message arrives.  Then the modules unload.
. ./lib.sh
. ./rds-lib.sh

# Each wait may take long: the senders' last one, for the receiver's
# final message, lasts while it drains everything (minutes on the debug
# kernel).
FANIN="eps=8 burst=24 burst_size=65536 timeout_ms=240000"

# eagain_seen: the senders met -EAGAIN.
eagain_seen() {
	n=$(cat /sys/module/kofi_sample_rds/parameters/eagain) &&
		echo "eagain $n" && [ "$n" -gt 0 ]
}

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
rds_load rds_tcp

if [ "$KOFI_HOST" = 0 ]; then
	check "receiving endpoint bound" sample_start fanin-recv \
		port=18201 peer_port=18211 stall_ms=1000 $FANIN
	barrier "fan-in"
	check "every message of the eight senders arrived, verified" \
		echo_done
	say "$(dmesg | tail -n +"$((from + 1))" |
		grep -o 'kofi_sample_rds: .* overtook .*')"
else
	barrier "fan-in"
	check "eight endpoints sent, the receiver confirmed" sample_run \
		fanin-send port=18211 peer_port=18201 $FANIN
	check "the senders met -EAGAIN and retried" eagain_seen
fi
unload_sample
barrier "fan-in: done"

rds_unload
finish
