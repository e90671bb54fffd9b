#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kstream against librdmacm's rsockets over soft-RoCE: Debian's rstream
# (rdmacm-utils) as server with the kstream throughput sample as client,
# and the kstream echo sample as server with rstream as client, each with
# rstream's verification (-T v: one continuous byte counter per
# direction, checked on both sides) and in blocking mode (-T b), and with
# 512 KiB buffers, where kstream's writes grow past rsockets' 64 KiB.
# Guest 0 serves, guest 1 connects.  With KOFI_SIW=1 (ibv-siw-rstream.sh)
# over soft-iWARP, both sides in their iWARP mode, and with 256 KiB
# buffers: a kstream buffer (twice the size) must fit siw's 256-page
# registrations.
. ./lib.sh
. ./kstream-lib.sh
. ./siw-lib.sh

SIZE=65536 COUNT=$(scaled 20 8) ITERS=2
RS_ARGS="-S $SIZE -C $COUNT -I $ITERS"

# Extra arguments of the kstream throughput client (rstream_vs_kstream).
KT_XARGS=

# rs_row FILE: rstream printed its result row.
rs_row() { cat "$1"; grep -q -E "^custom +64k +$COUNT +2 " "$1"; }

# rs_server_ok: the rstream server finished well and printed its row.
rs_server_ok() { wait "$rs_pid" && rs_row /tmp/rstream.out; }

# rs_client FILE ARGS...: rstream as client, its row in FILE.
rs_client() {
	_rs_out=$1
	shift
	limited 180 rstream "$@" > "$_rs_out" 2>&1 && rs_row "$_rs_out"
}

# rstream_vs_kstream NAME PORT OPTS...: rstream serves with OPTS, the
# kstream client connects.
rstream_vs_kstream() {
	_n=$1 _port=$2
	shift 2
	if [ "$KOFI_HOST" = 0 ]; then
		# shellcheck disable=SC2086
		limited 180 rstream -b "$KOFI_SELF" -p "$_port" $RS_ARGS "$@" \
			> /tmp/rstream.out 2>&1 &
		rs_pid=$!
		wait_for 30 listening "$_port" ||
			fail "$_n: rstream server is not listening"
		barrier "$_n"
		check "$_n: rstream server" rs_server_ok
		say_cmd cat /tmp/rstream.out
	else
		barrier "$_n"
		_from=$(dmesg | wc -l)
		# shellcheck disable=SC2086
		check "$_n: kstream client" kt_tput_ok prov=ib_verbs \
			addr="$KOFI_PEER" port="$_port" sizes=$SIZE \
			count=$COUNT iters=$ITERS $KT_XARGS
		kt_rows "$_from" $KT_TPUT
		kt_show
		rmmod $KT_TPUT 2> /dev/null
	fi
	barrier "$_n: done"
}

# kstream_vs_rstream NAME PORT VERIFY OPTS...: the kstream echo server
# (verify=VERIFY), rstream connects with OPTS.
kstream_vs_rstream() {
	_n=$1 _port=$2 _v=$3
	shift 3
	if [ "$KOFI_HOST" = 0 ]; then
		_from=$(dmesg | wc -l)
		insmod "$KT_M/$KT_ECHO.ko" prov=ib_verbs addr="$KOFI_SELF" \
			port="$_port" verify="$_v" > /tmp/kt_server.out 2>&1 &
		kt_server_pid=$!
		wait_for 60 listening "$_port" ||
			fail "$_n: echo server is not listening"
		barrier "$_n"
		check "$_n: kstream echo server" kt_echo_ok
		kt_rows "$_from" $KT_ECHO
		kt_show
		rmmod $KT_ECHO 2> /dev/null
	else
		barrier "$_n"
		# shellcheck disable=SC2086
		check "$_n: rstream client" rs_client /tmp/rstream-c.out \
			-s "$KOFI_PEER" -p "$_port" $RS_ARGS "$@"
		say_cmd cat /tmp/rstream-c.out
	fi
	barrier "$_n: done"
}

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
if [ "${KOFI_SIW:-0}" = 1 ]; then
	siw_up
else
	check_output "rxe0 is ACTIVE" 'rxe0.*ACTIVE' rdma link show
fi
check "rstream is installed" command -v rstream
kt_load ib_verbs

rstream_vs_kstream "rstream server -T v" 7521 -T v
rstream_vs_kstream "rstream server -T b" 7522 -T v -T b
# 512 KiB buffers on both sides (1 MiB rings): the client's sends beyond
# the 1 MiB the server's ring takes wait in its send buffer and go as
# writes larger than rsockets' 64 KiB when the server hands a half back.
big=524288
[ "${KOFI_SIW:-0}" = 1 ] && big=262144
KT_XARGS="bufsize=$big"
rstream_vs_kstream "rstream server -T v, $((big / 1024)) KiB buffers" 7525 -T v \
	-B $big
KT_XARGS=
kstream_vs_rstream "rstream client -T v" 7523 1 -T v
kstream_vs_rstream "rstream client -T b" 7524 1 -T v -T b

kt_unload ib_verbs
[ "${KOFI_SIW:-0}" = 1 ] && siw_down
finish
