#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The rxm utility provider over ib_verbs on soft-iWARP ("ib_verbs;rxm",
# siw0 in place of rxe0), kernel to kernel, data verified.  iWARP has no
# receiver-not-ready retry: a send that finds no receive posted ends its
# connection, so everything here relies on rxm's credits - the pingpong
# untagged and tagged from 0 B to the largest message (rxm's on iWARP:
# ib_verbs' largest read, 1020 KiB), the bandwidth sample (64 sends in
# flight, eager and rendezvous; and with more reads than the core takes
# at once), and RMA reads and writes (no remote CQ data on iWARP).
. ./lib.sh
CORE=ib_verbs
. ./rxm-lib.sh
. ./siw-lib.sh

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
siw_up
rxm_load
S=0,1,256,257,16384,16385,65536,1044480
pp "pingpong msg over siw" 7641 $peer $RXM sizes=$S iters=$(scaled 4 2)
pp "pingpong tagged over siw" 7642 $peer $RXM mode=tagged sizes=$S \
	iters=$(scaled 4 2)
pair kofi_sample_bandwidth "bandwidth msg over siw" 7643 $peer $RXM \
	sizes=1,16384,65536 iters=$(scaled 256 64)
pair kofi_sample_bandwidth "bandwidth tagged over siw" 7644 $peer $RXM \
	mode=tagged sizes=1,16384,65536 iters=$(scaled 256 64)
# One read sink per endpoint (ib_verbs read_sinks=1 on both guests):
# a receiver's second rendezvous read in flight finds no room (-EAGAIN
# from the core) and goes a little later; nothing fails.
check "ib_verbs read_sinks=1" \
	sh -c 'echo 1 > /sys/module/kofi_ib_verbs/parameters/read_sinks'
pair kofi_sample_bandwidth "bandwidth msg over siw, one read sink" 7647 \
	$peer $RXM sizes=65536 iters=$(scaled 64 32)
check "ib_verbs read_sinks=16" \
	sh -c 'echo 16 > /sys/module/kofi_ib_verbs/parameters/read_sinks'
pp "RMA read over siw" 7645 $peer $RXM op=read sizes=1,4096,65536 \
	iters=$(scaled 4 2)
pair kofi_sample_bandwidth "bandwidth RMA write over siw" 7646 $peer $RXM \
	op=write sizes=1,4096,65536 iters=$(scaled 64 16)
rxm_unload
siw_down
finish
