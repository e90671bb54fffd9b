# SPDX-License-Identifier: GPL-2.0
# make demo, kstream part (sourced by demo.sh with kofi and the providers
# loaded): the stream echo server and throughput client on kstream's
# socket-like calls, over ksocket and over ib_verbs (soft-RoCE) across the
# two guests, every byte verified with rstream's pattern; then librdmacm's
# rstream against the kstream echo server.  The rows are rstream's format.
. ./kstream-lib.sh

if ! module_loaded kofi_kstream; then
	say "kofi_kstream is not built: no kstream part"
else
	kt_pair "kstream over ksocket" 7531 "prov=ksocket connections=2" \
		"prov=ksocket sizes=64,65536 count=20 iters=2"
	[ "$KOFI_HOST" = 1 ] && kt_show
	kt_pair "kstream over ib_verbs" 7532 \
		"prov=ib_verbs addr=$KOFI_SELF connections=2" \
		"prov=ib_verbs sizes=64,65536 count=20 iters=2"
	[ "$KOFI_HOST" = 1 ] && kt_show
	if [ "$KOFI_HOST" = 0 ]; then
		insmod "$KT_M/$KT_ECHO.ko" prov=ib_verbs addr="$KOFI_SELF" \
			port=7533 > /tmp/kt_server.out 2>&1 &
		kt_server_pid=$!
		wait_for 60 listening 7533 ||
			fail "kstream echo for rstream: not listening"
		barrier "kstream echo for rstream"
		check "kstream echo server: rstream's data verified" kt_echo_ok
		rmmod $KT_ECHO 2> /dev/null
	else
		barrier "kstream echo for rstream"
		check "rstream -T v client against the kstream echo server" \
			timeout 180 sh -c "rstream -s $KOFI_PEER -p 7533 -S 65536 -C 20 -I 2 -T v > /tmp/rs-demo.out 2>&1"
		say_cmd cat /tmp/rs-demo.out
	fi
	barrier "kstream echo for rstream: done"
fi
