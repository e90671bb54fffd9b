#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What an idle ib_verbs;rxm connection costs (mem-lib.sh, as
# rxm-mem1000 measures ksocket's): 100 endpoints of guest 1 each send one
# 64-byte message to the one endpoint of guest 0 over soft-RoCE, which
# holds the 100 connections idle; free memory lost per connection.  The
# endpoint's connections share its bounce buffers (rdm_srx_bufs), so a
# connection costs its core endpoint: a QP without a receive queue and
# with a send queue of 32, its CQ (room for the shared buffers too), its
# requests and its rdma_cm identifier.  The bound checked is 128 KiB: the
# 64 KiB of ksocket's connections is not reached over ib_verbs
# (Documentation/rxm.rst).
. ./lib.sh
. ./mem-lib.sh

N=100
CAP=131072
MEM_TCP=0

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ib_verbs" insmod $M/kofi_ib_verbs.ko
check "insmod kofi_rxm" insmod $M/kofi_rxm.ko

mem_run "ib_verbs;rxm" 18501 18511

check "rmmod kofi_rxm" rmmod kofi_rxm
check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
