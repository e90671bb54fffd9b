#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# ksocket: a listener drops a TCP connection whose kOFI connection request
# never comes.  Guest 0 loads kofi_ksocket with connreq_timeout_ms=3000 and
# serves the pingpong sample; guest 1 opens a TCP connection to it with nc
# and sends nothing.  The connection is up on guest 0 once guest 1 sees it
# established, gone within the limit plus slack, and nc on guest 1 sees the
# listener's end; then the listener still accepts a real kOFI connection
# (pingpong, data verified).
. ./lib.sh

M=/kofi/modules
PORT=7481

# established PORT: an established TCP connection whose local port is PORT.
established() {
	_h=$(printf '%04X' "$1")
	grep -q "^ *[0-9]*: [0-9A-F]*:$_h [0-9A-F]*:[0-9A-F]* 01 " /proc/net/tcp
}

# to_peer PORT: an established TCP connection to the peer's PORT.
to_peer() {
	_h=$(printf '%04X' "$1")
	grep -q "^ *[0-9]*: [0-9A-F]*:[0-9A-F]* [0-9A-F]*:$_h 01 " /proc/net/tcp
}

server_ok() { wait "$server_pid" && result_ok kofi_sample_pingpong; }
client_ok() { insmod $M/kofi_sample_pingpong.ko "$@" && result_ok kofi_sample_pingpong; }

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
if [ "$KOFI_HOST" = 0 ]; then
	check "insmod kofi_ksocket connreq_timeout_ms=3000" \
		insmod $M/kofi_ksocket.ko connreq_timeout_ms=3000
	check_output "limit parameter" '^3000$' \
		cat /sys/module/kofi_ksocket/parameters/connreq_timeout_ms
	insmod $M/kofi_sample_pingpong.ko role=server port=$PORT op=msg \
		sizes=64,65536 iters=20 timeout_ms=60000 > /tmp/server.out 2>&1 &
	server_pid=$!
	check "server listens" wait_for 30 listening $PORT
	barrier listening
	barrier half-open
	check "the silent connection is up" established $PORT
	start=$(date +%s)
	check "the silent connection is dropped within 3 s + slack" \
		wait_for 8 sh -c "! grep -q ':$(printf '%04X' $PORT) [0-9A-F]*:[0-9A-F]* 01 ' /proc/net/tcp"
	say "dropped after about $(($(date +%s) - start)) s of the check"
	barrier dropped
	barrier kofi
	check "server: a kOFI connection afterwards" server_ok
else
	check "insmod kofi_ksocket" insmod $M/kofi_ksocket.ko
	barrier listening
	# nc's stdin stays open and silent: it sends nothing.
	sleep 60 | nc "$KOFI_PEER" $PORT > /tmp/nc.out 2>&1 &
	check "TCP connection to the listener" wait_for 30 to_peer $PORT
	barrier half-open
	check "the listener ended the silent connection" \
		wait_for 15 sh -c "! grep -q ' [0-9A-F]*:$(printf '%04X' $PORT) 01 ' /proc/net/tcp"
	barrier dropped
	barrier kofi
	check "client: a kOFI connection afterwards" client_ok role=client \
		addr="$KOFI_PEER" port=$PORT op=msg sizes=64,65536 iters=20
fi
rmmod kofi_sample_pingpong 2> /dev/null
barrier done
check "rmmod kofi_ksocket" rmmod kofi_ksocket
check "rmmod kofi" rmmod kofi
finish
