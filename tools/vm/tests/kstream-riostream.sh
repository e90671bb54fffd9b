#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kstream's direct placement against librdmacm's rsockets over soft-RoCE:
# Debian's riostream (rdmacm-utils) in both roles against the
# kofi_sample_stream_io sample, which does riostream's exchange with
# kstream_iomap()/kstream_iowrite(): each side maps its buffer at iomap
# offset 0 and the other writes into it, spinning on the last byte.
# Verified with riostream's -T v pattern on both sides.  Guest 0 serves,
# guest 1 connects.  With KOFI_SIW=1 (ibv-siw-riostream.sh) over
# soft-iWARP, both sides in their iWARP mode.
. ./lib.sh
. ./kstream-lib.sh
. ./siw-lib.sh

KT_IO=kofi_sample_stream_io
SIZE=4096 COUNT=10 ITERS=10
RIO_ARGS="-S $SIZE -C $COUNT -I $ITERS -T v"
KT_ARGS="prov=ib_verbs size=$SIZE count=$COUNT iters=$ITERS verify=1"

# rio_row FILE: riostream printed its result row.
rio_row() { cat "$1"; grep -q -E '^custom +4k +10 +10 ' "$1"; }

rio_server_ok() { wait "$rio_pid" && rio_row /tmp/riostream.out; }
kt_io_ok() { result_ok $KT_IO; }
kt_io_server_ok() { wait "$kt_server_pid"; result_ok $KT_IO; }

# rio_client PORT: riostream connects to guest 0 and prints its row.
rio_client() {
	# shellcheck disable=SC2086
	limited 180 riostream -s "$KOFI_PEER" -p "$1" $RIO_ARGS \
		> /tmp/riostream-c.out 2>&1 && rio_row /tmp/riostream-c.out
}

# riostream_vs_kstream NAME PORT: riostream serves, the sample connects.
riostream_vs_kstream() {
	_n=$1 _port=$2
	if [ "$KOFI_HOST" = 0 ]; then
		# shellcheck disable=SC2086
		limited 180 riostream -b "$KOFI_SELF" -p "$_port" $RIO_ARGS \
			> /tmp/riostream.out 2>&1 &
		rio_pid=$!
		wait_for 30 listening "$_port" ||
			fail "$_n: riostream is not listening"
		barrier "$_n"
		check "$_n: riostream server" rio_server_ok
		say_cmd cat /tmp/riostream.out
	else
		barrier "$_n"
		_from=$(dmesg | wc -l)
		# shellcheck disable=SC2086
		insmod "$KT_M/$KT_IO.ko" addr="$KOFI_PEER" port="$_port" \
			$KT_ARGS > /tmp/kt_io.out 2>&1
		check "$_n: kstream client" kt_io_ok
		kt_rows "$_from" $KT_IO
		kt_show
		rmmod $KT_IO 2> /dev/null
	fi
	barrier "$_n: done"
}

# kstream_vs_riostream NAME PORT: the sample serves, riostream connects.
kstream_vs_riostream() {
	_n=$1 _port=$2
	if [ "$KOFI_HOST" = 0 ]; then
		_from=$(dmesg | wc -l)
		# shellcheck disable=SC2086
		insmod "$KT_M/$KT_IO.ko" server=1 addr="$KOFI_SELF" \
			port="$_port" $KT_ARGS > /tmp/kt_io.out 2>&1 &
		kt_server_pid=$!
		wait_for 60 listening "$_port" ||
			fail "$_n: the sample is not listening"
		barrier "$_n"
		check "$_n: kstream server" kt_io_server_ok
		kt_rows "$_from" $KT_IO
		kt_show
		rmmod $KT_IO 2> /dev/null
	else
		barrier "$_n"
		check "$_n: riostream client" rio_client "$_port"
		say_cmd cat /tmp/riostream-c.out
	fi
	barrier "$_n: done"
}

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
if [ "${KOFI_SIW:-0}" = 1 ]; then
	siw_up
else
	check_output "rxe0 is ACTIVE" 'rxe0.*ACTIVE' rdma link show
fi
check "riostream is installed" command -v riostream
kt_load ib_verbs

riostream_vs_kstream "riostream server" 7531
kstream_vs_riostream "riostream client" 7532

kt_unload ib_verbs
[ "${KOFI_SIW:-0}" = 1 ] && siw_down
finish
