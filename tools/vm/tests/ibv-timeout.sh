#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_verbs: FI_OPT_RETRY_COUNT and FI_OPT_ACK_TIMEOUT bound how long a send
# to a peer that stopped answering takes to fail.  Both guests load
# kofi_ib_verbs with its defaults (retry_count 7, rdma_cm's ACK timeout).
# Guest 1's pingpong client connects to guest 0's server and pauses before
# its first message; meanwhile guest 0 points its ARP entry for guest 1 at
# a MAC address nobody has, so guest 1's packets still arrive but nothing
# comes back, until PAUSE + 1 s later (PAUSE: 1.5 s, 3 s on the debug
# kernel).  Round 1, the defaults: the first send outlives at least 1 s
# of silence and the run completes.  Round 2, the client's endpoint set to
# retry_count 1 and ack_timeout 14 (67 ms): the first send fails with an
# ETIMEDOUT completion within 1 s, while the peer is still silent, and the
# EQ reports the lost connection.
. ./lib.sh

M=/kofi/modules
PP=kofi_sample_pingpong
PAUSE=$(scaled 1500 3000)
BOGUS=02:00:00:00:00:01

# first_ms: the client's first transfer after the pause, in ms (its log).
first_ms() { new_dmesg | sed -n 's/.*first iteration after the pause [a-z ]* \([0-9]*\) ms.*/\1/p' | tail -n1; }
first_between() {
	t=$(first_ms)
	echo "first iteration: ${t:-?} ms"
	[ -n "$t" ] && [ "$t" -ge "$1" ] && [ "$t" -le "$2" ]
}

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ib_verbs, default retry parameters" insmod $M/kofi_ib_verbs.ko

# round PORT CLIENT-ARGS...: the peer goes silent during the client's pause.
round() {
	r_port=$1
	shift
	from=$(dmesg | wc -l)
	if [ "$KOFI_HOST" = 0 ]; then
		insmod $M/$PP.ko prov=ib_verbs role=server port=$r_port sizes=64 \
			iters=3 timeout_ms=20000 > /tmp/s.out 2>&1 &
		pid=$!
		check "server listens on $r_port" wait_for 30 listening $r_port
		barrier listen-$r_port
		barrier paused-$r_port
		check "$r_port: ARP entry of the peer to nowhere" arp -s "$KOFI_PEER" $BOGUS
		if [ $# = 0 ]; then
			usleep $(((PAUSE + 1000) * 1000))
			arp -d "$KOFI_PEER"
			wait "$pid"
			check_output "server $r_port: run completed" '^result 0$' result_ok $PP
		else
			# The client's disconnect arrives and ends the server's run.
			wait "$pid"
			arp -d "$KOFI_PEER"
			say "server $r_port: $(new_dmesg | grep -E 'completion error|failed' | head -n 2 | tr '\n' ' ')"
		fi
		rmmod $PP
	else
		barrier listen-$r_port
		insmod $M/$PP.ko prov=ib_verbs role=client addr="$KOFI_PEER" port=$r_port \
			sizes=64 iters=3 pause_ms=$PAUSE "$@" > /tmp/c.out 2>&1 &
		pid=$!
		check "client $r_port connected and pauses" \
			wait_for 30 sh -c "dmesg | tail -n +$((from + 1)) | grep -q 'pausing'"
		barrier paused-$r_port
		wait "$pid"
		say "client $r_port: $(new_dmesg | grep -E 'endpoint retry|first iteration' | tr '\n' ' ')"
		if [ $# = 0 ]; then
			check_output "client $r_port: default send outlived >= 1 s of silence, run completed" \
				'^result 0$' result_ok $PP
			check_output "client $r_port: first iteration took 1-30 s" 'first iteration' \
				first_between 1000 30000
		else
			check_output "client $r_port: endpoint options read back" \
				'endpoint retry_count 1 ack_timeout 14' new_dmesg
			check_output "client $r_port: send failed with ETIMEDOUT" '^-110$' result_of $PP
			check_output "client $r_port: an error completion" 'completion error 110' new_dmesg
			check_output "client $r_port: the EQ reports the connection lost" 'EQ error 110' new_dmesg
			check_output "client $r_port: failed within 1 s" 'first iteration' \
				first_between 0 1000
		fi
		rmmod $PP
		check "$r_port: peer answers again" wait_for 30 ping -c 1 -W 1 "$KOFI_PEER"
	fi
	barrier done-$r_port
}

round 7191
round 7192 retry_count=1 ack_timeout=14
check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
