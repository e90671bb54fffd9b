#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_verbs: events that end a connection or a connection request, and
# network namespaces (guest 0 serves, guest 1 connects, with
# kofi_sample_rping).
#
# 1. Namespaces: the sample loaded from a process in a fresh network
#    namespace (unshare -n) finds no route to the peer there, nor the
#    guest's address to listen on: fi_getinfo() fails with ENODATA on both
#    sides; from the initial namespace the same two connect.
# 2. A request withdrawn by its peer: the server holds the connection
#    request (hold_ms) while the client gives up (timeout_ms) and closes
#    its endpoint; rdma_cm tells the request, and fi_endpoint() with it
#    answers ECONNABORTED.
# 3. QP events, where the provider has its test hook (builds with the
#    KUnit suites: the debug kernel): while pings run, guest 0 delivers
#    COMM_EST and SQ_DRAINED to its endpoint's QP (the pings go on), then
#    QP_FATAL: the server's pings fail and its EQ says EIO, the client's
#    connection ends, everything unloads.
. ./lib.sh

M=/kofi/modules
HOOK=/sys/module/kofi_ib_verbs/parameters/test_qp_event

# in_netns ARGS...: the sample, loaded from a fresh network namespace,
# must fail with ENODATA; the module is unloaded from this one.
in_netns() {
	unshare -n insmod $M/kofi_sample_rping.ko timeout_ms=5000 "$@" || return 1
	rp_is -61
	n_rc=$?
	rmmod kofi_sample_rping
	return $n_rc
}
# The client is still in its module init, pinging (since the round began).
pings_running() { [ -d /sys/module/kofi_sample_rping ] && ! new_dmesg | grep -q 'kofi_sample_rping: client'; }
server_start() {
	port=$1
	shift
	insmod $M/kofi_sample_rping.ko server=1 addr="$KOFI_SELF" port="$port" "$@" \
		> /tmp/s.out 2>&1 &
	server_pid=$!
	check "server listens on $port" wait_for 30 listening "$port"
}
# event NAME: deliver QP event NAME to this guest's endpoints.
event() { echo "$1" > $HOOK; }

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ib_verbs" insmod $M/kofi_ib_verbs.ko
hold=$(scaled 4000 8000)
check "network namespaces: unshare -n" unshare -n true
give_up=$(scaled 2000 4000)

if [ "$KOFI_HOST" = 0 ]; then
	check_output "fresh namespace: the server finds no address to listen on (ENODATA)" \
		'result -61' in_netns server=1 addr="$KOFI_SELF" port=7400
	server_start 7401 count=2
	barrier netns
	wait "$server_pid"
	check "initial namespace: server, 2 pings" rp_is 0
	rmmod kofi_sample_rping

	from=$(dmesg | wc -l)
	server_start 7402 hold_ms="$hold"
	barrier withdrawn
	wait "$server_pid"
	check_output "withdrawn request: fi_endpoint() answers ECONNABORTED" \
		'result -103' rp_is -103
	check_output "withdrawn request: the server logged it" \
		'endpoint for the connection request: -103' new_dmesg
	rmmod kofi_sample_rping
	barrier withdrawn-done

	if [ -e $HOOK ]; then
		from=$(dmesg | wc -l)
		server_start 7403 count=0 size=4096
		barrier qp-start
		barrier qp-running
		check "COMM_EST delivered to the server's QP" event COMM_EST
		check "SQ_DRAINED delivered (ignored)" event SQ_DRAINED
		sleep 1
		check "pings go on after COMM_EST and SQ_DRAINED" kill -0 "$server_pid"
		check "QP_FATAL delivered under traffic" event QP_FATAL
		wait "$server_pid"
		check_output "QP_FATAL: the server's pings end with EIO from its EQ" \
			'result -5' rp_is -5
		check_output "QP_FATAL: the server logged the EQ error" \
			'connection error 5 ' new_dmesg
		check_output "QP_FATAL: the provider ended the connection" \
			'QP [0-9]+ failed: .*event 1.*the connection ends' new_dmesg
		check "rmmod kofi_sample_rping (server)" rmmod kofi_sample_rping
		check_output "no endpoint left for the hook" 'No such file' \
			sh -c "echo QP_FATAL 2>&1 > $HOOK; true"
	else
		say "no test hook in this build (QP events: debug kernel only)"
	fi
	barrier qp-done
else
	check_output "fresh namespace: the client finds no route to the peer (ENODATA)" \
		'result -61' in_netns addr="$KOFI_PEER" port=7401 count=2
	barrier netns
	check "initial namespace: client, 2 validated pings" \
		sh -c "insmod $M/kofi_sample_rping.ko addr=$KOFI_PEER port=7401 count=2 validate=1 && \
		       [ \$(cat /sys/module/kofi_sample_rping/parameters/result) = 0 ]"
	rmmod kofi_sample_rping

	barrier withdrawn
	check_output "withdrawn request: the client gives up (ETIMEDOUT)" 'result -110' \
		sh -c "insmod $M/kofi_sample_rping.ko addr=$KOFI_PEER port=7402 timeout_ms=$give_up && \
		       cat /sys/module/kofi_sample_rping/parameters/result | sed 's/^/result /'"
	rmmod kofi_sample_rping
	barrier withdrawn-done

	if [ -e $HOOK ]; then
		barrier qp-start
		from=$(dmesg | wc -l)
		insmod $M/kofi_sample_rping.ko addr="$KOFI_PEER" port=7403 count=0 size=4096 \
			> /tmp/c.out 2>&1 &
		pid=$!
		sleep 3
		check "client pings are running" pings_running
		barrier qp-running
		wait "$pid"
		# The peer's QP failed: its disconnect, a flush, a timeout, or
		# a post refused on the ended connection.
		check_output "QP_FATAL on the peer: the client's connection ended with an error" \
			'result -' rp_is -104 -125 -110 -107 -5
		check "rmmod kofi_sample_rping (client)" rmmod kofi_sample_rping
	fi
	barrier qp-done
fi
check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
