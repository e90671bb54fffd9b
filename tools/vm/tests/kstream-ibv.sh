#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kstream over ib_verbs (soft-RoCE) across the two-guest link, on the
# socket-like calls: the stream echo server (guest 0) and the throughput
# client (guest 1), echoed and one-way, with small buffers and large
# transfers; every byte checked on both sides against rstream's pattern.
# Fewer transfers on the sanitizer kernel.  Then the modules unload
# cleanly.
. ./lib.sh
. ./kstream-lib.sh

P="prov=ib_verbs"

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check_output "rxe0 is ACTIVE" 'rxe0.*ACTIVE' rdma link show
kt_load ib_verbs

kt_pair "IPv4 echo" 7511 "$P addr=$KOFI_SELF connections=3" \
	"$P sizes=1,64,65536 count=$(scaled 20 8) iters=2"
[ "$KOFI_HOST" = 1 ] && check "IPv4 echo: three rows" [ "$(kt_rowcount '[0-9.kmg]+_bw')" = 3 ] && kt_show

# Both addresses past duplicate address detection (a tentative one
# cannot be bound: -EADDRNOTAVAIL).
check "IPv6 address usable" wait_for 30 ping -6 -c 1 -W 1 "$KOFI_PEER6"
kt_pair "IPv6 echo" 7512 "$P addr=$KOFI_SELF6" \
	"$P addr6 sizes=4096 count=20 iters=2"
[ "$KOFI_HOST" = 1 ] && check "IPv6 echo: one row" [ "$(kt_rowcount 4k_bw)" = 1 ] && kt_show

kt_pair "one-way 1 MiB" 7513 "$P addr=$KOFI_SELF echo=0" \
	"$P oneway=1 sizes=1048576 count=4 iters=$(scaled 2 1)"
[ "$KOFI_HOST" = 1 ] && check "one-way: one row" [ "$(kt_rowcount 1m_oneway)" = 1 ] && kt_show

kt_pair "small buffers" 7514 "$P addr=$KOFI_SELF bufsize=2048 connections=2" \
	"$P bufsize=2048 sizes=3000,65536 count=10 iters=2"
[ "$KOFI_HOST" = 0 ] && check "small buffers: echo server verified" \
	grep -q "bytes echoed, verified" /tmp/kt_rows

kt_unload ib_verbs
finish
