#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_verbs: a peer that vanishes is reported within the configured time.
# Both guests load kofi_ib_verbs with keepalive_ms=500 and short transport
# retries; guest 1's client pings guest 0's server, then idles; guest 0's
# link goes down.  The client's keepalive probe fails and its endpoint
# reports ETIMEDOUT on its EQ within 5 s of the loss.  On guest 1 the
# provider's default is 60 s and the client's endpoint asks for 500 ms
# with fi_setopt(FI_OPT_KEEPALIVE_MS): only the endpoint's setting can
# report the loss in time.  (A second round after the link flap could
# not connect on 6.1 - the REQ went unanswered for 30 s; one round it is.)
# With KOFI_SIW=1 (ibv-siw-keepalive.sh) it runs over soft-iWARP, where
# the probes are zero-length RDMA READs that the peer must answer.
. ./lib.sh
. ./siw-lib.sh

M=/kofi/modules

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
[ "${KOFI_SIW:-0}" = 1 ] && siw_up
check "insmod kofi" insmod $M/kofi.ko
if [ "$KOFI_HOST" = 0 ]; then
	check "insmod kofi_ib_verbs keepalive_ms=500" \
		insmod $M/kofi_ib_verbs.ko keepalive_ms=500 ack_timeout=14 retry_count=3
	check_output "keepalive parameter" '^500$' cat /sys/module/kofi_ib_verbs/parameters/keepalive_ms
else
	check "insmod kofi_ib_verbs keepalive_ms=60000" \
		insmod $M/kofi_ib_verbs.ko keepalive_ms=60000 ack_timeout=14 retry_count=3
	check_output "keepalive parameter" '^60000$' cat /sys/module/kofi_ib_verbs/parameters/keepalive_ms
fi

# round PORT CLIENT-ARGS...: the server on guest 0 loses its link while
# the client on guest 1 idles; the client must report ETIMEDOUT in time.
round() {
	r_port=$1
	shift
	from=$(dmesg | wc -l)
	if [ "$KOFI_HOST" = 0 ]; then
		insmod $M/kofi_sample_rping.ko server=1 addr="$KOFI_SELF" port=$r_port \
			count=3 timeout_ms=60000 > /tmp/s.out 2>&1 &
		pid=$!
		check "server listens on $r_port" wait_for 30 listening $r_port
		barrier start-$r_port
		barrier idle-$r_port
		# The client's connection has been idle for 2 s; now the peer vanishes.
		sleep 2
		ip link set "$KOFI_DEV" down
		sleep 12
		ip link set "$KOFI_DEV" up
		wait "$pid"
		# Its own probes fail (retries exhausted: ETIMEDOUT, or the port is
		# down: EIO), or - where rxe holds packets while its port is down
		# (6.12) - the client's disconnect arrives once the link is back.
		check_output "server $r_port: connection ended (ETIMEDOUT, EIO or the peer's disconnect)" \
			'^(-110|-5|0)$' rp_result
		check_output "server $r_port: logged how" \
			'connection error (110|5)|DISCONNECT EVENT' new_dmesg
		rmmod kofi_sample_rping
		check "link back up" wait_for 60 ping -c 1 -W 1 "$KOFI_PEER"
		barrier done-$r_port
	else
		barrier start-$r_port
		insmod $M/kofi_sample_rping.ko addr="$KOFI_PEER" port=$r_port count=3 \
			linger_ms=60000 "$@" > /tmp/c.out 2>&1 &
		pid=$!
		check "client $r_port pinged and idles" \
			wait_for 60 sh -c "dmesg | tail -n +$((from + 1)) | grep -q 'pings done, idling'"
		barrier idle-$r_port
		wait "$pid"
		check_output "client $r_port: peer lost, ETIMEDOUT" '^-110$' rp_result
		# Up while the peer was there (2 s), reported within 5 s of its loss.
		check_output "client $r_port: reported 2-7 s into the idle time" 'ended after' \
			idle_within 2000 7000
		rmmod kofi_sample_rping
		check "link back up" wait_for 60 ping -c 1 -W 1 "$KOFI_PEER"
		barrier done-$r_port
	fi
}

round 7182 keepalive_ms=500
[ "$KOFI_HOST" = 1 ] &&
	check_output "client: endpoint keepalive set by fi_setopt" 'endpoint keepalive 500 ms' new_dmesg
check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
[ "${KOFI_SIW:-0}" = 1 ] && siw_down
finish
