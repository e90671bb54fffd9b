#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_verbs connection management between two kOFI hosts (guest 0 serves,
# guest 1 connects), with kofi_sample_rping: connection data both ways in
# libfabric's verbs format, a reject with data (ECONNREFUSED carrying the
# data), a request that comes to a listener whose EQ is full (held, then
# accepted once the EQ has room; rejected after connreq_timeout_ms if it
# has none by then), a port nobody listens on (ECONNREFUSED), an address nobody has
# (resolution fails), and connection data too long for the format.
# Then raw connection data (FI_OPT_CM_DATA_RAW) with kofi_sample_cmraw:
# 40 bytes each way arriving as all of rdma_cm's padded private data (56
# bytes of REQ, 196 of REP, 148 of REJ), zero-length receives consumed by
# fi_writedata() with their immediate data; on the same endpoints, the
# rules of the retry options (FI_OPT_RETRY_COUNT, FI_OPT_ACK_TIMEOUT:
# module defaults, range, set before connecting or accepting, EISCONN
# after, none on a passive endpoint).  Last, a connection over IPv6
# (fi_getinfo() of the peer's IPv6 address takes the IPv6 route).
. ./lib.sh

M=/kofi/modules
# client EXPECTED... -- ARGS...: run the client, check its result, unload.
client() {
	c_want=
	while [ "$1" != -- ]; do c_want="$c_want $1"; shift; done
	shift
	insmod $M/kofi_sample_rping.ko addr="$KOFI_PEER" timeout_ms=15000 "$@" &&
		rp_is $c_want
	c_rc=$?
	rmmod kofi_sample_rping 2> /dev/null
	return $c_rc
}
# server_start PORT ARGS...: the sample server in the background.
server_start() {
	port=$1
	shift
	insmod $M/kofi_sample_rping.ko server=1 addr="$KOFI_SELF" port="$port" "$@" \
		> /tmp/s.out 2>&1 &
	server_pid=$!
	check "server listens on $port" wait_for 30 listening "$port"
}
# retry_defaults: the endpoint retry options the module parameters give.
retry_defaults() {
	echo "retry_count $(cat /sys/module/kofi_ib_verbs/parameters/retry_count)" \
		"ack_timeout $(cat /sys/module/kofi_ib_verbs/parameters/ack_timeout)"
}
# cr_is RESULT: kofi_sample_cmraw finished with RESULT.
cr_is() {
	r=$(cat /sys/module/kofi_sample_cmraw/parameters/result) || return 1
	echo "result $r"
	[ "$r" = "$1" ]
}
# raw_client ARGS...: the raw sample's client; it must succeed.
raw_client() {
	insmod $M/kofi_sample_cmraw.ko addr="$KOFI_PEER" "$@" && cr_is 0
}
server_done() {
	wait "$server_pid"
	rp_is "$@"
	s_rc=$?
	rmmod kofi_sample_rping 2> /dev/null
	return $s_rc
}

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ib_verbs" insmod $M/kofi_ib_verbs.ko

if [ "$KOFI_HOST" = 0 ]; then
	server_start 7190 count=2 cm_data=srv-hello
	barrier data
	check "server: 2 pings" server_done 0
	check_output "server: got the client's connection data" \
		"connection request data 'cli-hello'" dmesg

	server_start 7191 reject=1 cm_data=go-away
	barrier reject
	check "server: rejected the request" server_done 0
	check_output "server: logged the rejection" 'connection request rejected' dmesg

	server_start 7193 count=2 eq_full_ms=3000
	barrier eq-full
	check "server: the request waited out the full EQ, then 2 pings" server_done 0
	check_output "server: the EQ was full when the request came" \
		"EQ full: emptied in 3000 ms" dmesg

	echo 1000 > /sys/module/kofi_ib_verbs/parameters/connreq_timeout_ms
	server_start 7194 eq_full_ms=3000 timeout_ms=2000
	barrier eq-full-timeout
	check "server: a request held past connreq_timeout_ms never reaches the EQ" \
		server_done -110
	echo 10000 > /sys/module/kofi_ib_verbs/parameters/connreq_timeout_ms
	barrier refused

	barrier raw-start
	insmod $M/kofi_sample_cmraw.ko server=1 addr="$KOFI_SELF" port=7300 > /tmp/r.out 2>&1 &
	raw_pid=$!
	check "raw server listens" wait_for 30 listening 7300
	barrier raw-listening
	wait "$raw_pid"
	check "raw server: request data, 3 writedata into zero-length receives" cr_is 0
	check_output "raw server: the request's 56 bytes" "cm data: 56 bytes" dmesg
	check_output "raw server: writes with data" "3 writes with data received" dmesg
	check_output "raw server: retry options start as the module's, 5 and 18 set before fi_accept()" \
		"retry options: default $(retry_defaults)" dmesg
	check_output "raw server: retry options kept and fixed once connected" \
		"retry options when connected: retry_count 5 ack_timeout 18, fixed" dmesg
	rmmod kofi_sample_cmraw 2> /dev/null

	insmod $M/kofi_sample_cmraw.ko server=1 reject=1 addr="$KOFI_SELF" port=7301 > /tmp/r.out 2>&1 &
	raw_pid=$!
	check "raw server (reject) listens" wait_for 30 listening 7301
	barrier raw-reject
	wait "$raw_pid"
	check "raw server: rejected with raw data" cr_is 0
	rmmod kofi_sample_cmraw 2> /dev/null

	check "IPv6 address usable" wait_for 30 ping -6 -c 1 -W 1 "$KOFI_PEER6"
	server_start 7192 count=2 addr="$KOFI_SELF6"
	barrier ipv6
	check "server over IPv6: 2 pings" server_done 0
	check_output "server over IPv6: listened on its IPv6 address" \
		"listening on \[$KOFI_SELF6\]:7192" dmesg
else
	barrier data
	check "client: 2 pings with connection data" client 0 -- port=7190 count=2 cm_data=cli-hello
	check_output "client: got the server's accept data" "connected, data 'srv-hello'" dmesg

	barrier reject
	check "client: rejected, ECONNREFUSED" client -111 -- port=7191 cm_data=hi
	check_output "client: got the reject data" \
		"connection error 111 .*, data 'go-away'" dmesg

	barrier eq-full
	check "client: accepted once the server's EQ had room, 2 pings" \
		client 0 -- port=7193 count=2
	barrier eq-full-timeout
	check "client: rejected after the server's connreq_timeout_ms, ECONNREFUSED" \
		client -111 -- port=7194

	barrier refused
	check "client: no listener, ECONNREFUSED" client -111 -- port=7199
	check "client: unreachable address fails to resolve" \
		sh -c "insmod $M/kofi_sample_rping.ko addr=192.0.2.99 timeout_ms=15000 &&
		       r=\$(cat /sys/module/kofi_sample_rping/parameters/result) &&
		       rmmod kofi_sample_rping && echo \$r && case \$r in -110|-113|-101|-99) ;; *) false ;; esac"
	check "client: 56 bytes of connection data are refused (EINVAL)" client -22 -- \
		port=7190 cm_data=12345678901234567890123456789012345678901234567890123456

	barrier raw-start
	barrier raw-listening
	check "raw client: accept data, 3 writedata" raw_client port=7300
	check_output "raw client: the accept's 196 bytes" "cm data: 196 bytes" dmesg
	check_output "raw client: retry options start as the module's, 6 and 19 set before fi_connect()" \
		"retry options: default $(retry_defaults)" dmesg
	check_output "raw client: retry options kept and fixed once connected" \
		"retry options when connected: retry_count 6 ack_timeout 19, fixed" dmesg
	rmmod kofi_sample_cmraw 2> /dev/null
	barrier raw-reject
	check "raw client: ECONNREFUSED with the reject's raw data" \
		raw_client port=7301 reject=1
	check_output "raw client: the reject's 148 bytes" "cm data: 148 bytes" dmesg
	rmmod kofi_sample_cmraw 2> /dev/null

	check "IPv6 address usable" wait_for 30 ping -6 -c 1 -W 1 "$KOFI_PEER6"
	barrier ipv6
	check "client over IPv6: 2 pings" client 0 -- port=7192 count=2 addr="$KOFI_PEER6"
fi
check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
