#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# kstream over ksocket across the two-guest link, on the socket-like
# calls: the stream echo server (guest 0) and the throughput client
# (guest 1) over IPv4 and IPv6, echoed and one-way, with small buffers
# (many ring wrap-arounds and credit updates) and large transfers; every
# byte checked on both sides against rstream's pattern.  Then the modules
# unload cleanly.
. ./lib.sh
. ./kstream-lib.sh

P="prov=ksocket"

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "IPv6 link to the peer" wait_for 180 ping -6 -c 1 -W 1 "$KOFI_PEER6"
kt_load ksocket

kt_pair "IPv4 echo" 7501 "$P connections=3" \
	"$P sizes=1,64,65536 count=$(scaled 20 8) iters=2"
[ "$KOFI_HOST" = 1 ] && check "IPv4 echo: three rows" [ "$(kt_rowcount '[0-9.kmg]+_bw')" = 3 ] && kt_show

kt_pair "IPv6 echo" 7502 "$P ipv6=1" \
	"$P addr6 sizes=4096 count=20 iters=2"
[ "$KOFI_HOST" = 1 ] && check "IPv6 echo: one row" [ "$(kt_rowcount 4k_bw)" = 1 ] && kt_show

kt_pair "one-way 1 MiB" 7503 "$P echo=0" \
	"$P oneway=1 sizes=1048576 count=4 iters=$(scaled 2 1)"
[ "$KOFI_HOST" = 1 ] && check "one-way: one row" [ "$(kt_rowcount 1m_oneway)" = 1 ] && kt_show

kt_pair "small buffers" 7504 "$P bufsize=2048 connections=2" \
	"$P bufsize=2048 sizes=3000,65536 count=10 iters=2"
[ "$KOFI_HOST" = 0 ] && check "small buffers: echo server verified" \
	grep -q "bytes echoed, verified" /tmp/kt_rows

kt_unload ksocket
finish
