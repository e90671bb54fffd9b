#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# What an idle RDM connection costs, measured with 1000 of them in one
# guest, over ksocket;rxm and then over ksocket's own FI_EP_RDM, with the
# reliable-datagram sample's fan-in (kofi_sample_rds prov=... hold=1,
# Documentation/rxm.rst).
#
# Guest 1 opens 1000 endpoints (role=fanin-send, ports 18511..19510),
# each sending one 64-byte message to the one endpoint of guest 0
# (role=fanin-recv, port 18501; 20501 and 20511.. for ksocket's own),
# which thus holds 1000 connections, and
# takes the messages in one multi-receive buffer, so that none waits as
# unexpected.  With hold=1 the sample allocates what it needs before the
# measurement starts, and everything stays open until it is unloaded.
#
# Each guest reads /proc/meminfo, once the caches are dropped, at two
# points: guest 0 with its endpoint open and idle, and again holding the
# 1000 connections idle (every message received, the receiver's empty
# answers sent a second before); guest 1 before it opens its endpoints,
# and again with the 1000 endpoints and their connections idle.  What
# free memory lost in between, divided by 1000, is the cost of a
# connection (guest 0) and of an endpoint with its listener and
# connection (guest 1).  The first must be at most 64 KiB.  The second snapshot waits out
# ksocket's idle timer (KSOCK_IDLE_MS, 0.5 s, to twice that after the
# last send), after which an idle socket no longer keeps the page
# fragment of up to 32 KiB TCP copies sent data into.  Both costs are
# shown, with the share of slab and vmalloc memory.  Each guest also
# checks that it holds exactly the 1000 TCP connections.
. ./lib.sh
. ./mem-lib.sh

N=1000
# An idle connection's bound, in bytes
CAP=65536
MEM_TCP=1

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ksocket" insmod $M/kofi_ksocket.ko
check "insmod kofi_rxm" insmod $M/kofi_rxm.ko

mem_run "ksocket;rxm" 18501 18511
mem_run ksocket 20501 20511

check "rmmod kofi_rxm" rmmod kofi_rxm
check "rmmod kofi_ksocket" rmmod kofi_ksocket
check "rmmod kofi" rmmod kofi
finish
