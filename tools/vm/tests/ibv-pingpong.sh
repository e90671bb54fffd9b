#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The pingpong sample over ib_verbs across the two-guest link (guest 0
# serving, guest 1 connecting): messages, RMA writes with remote CQ data
# and RMA reads, every transfer verified; then the raw-verbs baseline
# sample's pingpong and bandwidth exchanges, verified too.  (The 64 KiB
# read once failed after its first 4 KiB on 6.1: the sample's server wrote
# the data to be read after the sync that lets the client read, and the
# previous size's data, the same pattern, made the first 4 KiB look
# right.)
. ./lib.sh

M=/kofi/modules
# Each guest's address for the sample: guest 0's own, guest 1's peer's.
server=$KOFI_SELF
[ "$KOFI_HOST" = 0 ] || server=$KOFI_PEER

[ -e $M/kofi_sample_pingpong.ko ] || { fail "no kofi_sample_pingpong module"; finish; }
check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ib_verbs" insmod $M/kofi_ib_verbs.ko

# Fewer round trips on the sanitizer kernel; the same sizes and modes.
N=$(scaled 50 10)
pp "ib_verbs msg" 7471 prov=ib_verbs addr="$server" op=msg \
	sizes=64,4096,65536 iters=$N
pp "ib_verbs write" 7472 prov=ib_verbs addr="$server" op=write \
	sizes=64,4096,65536 iters=$N
pp "ib_verbs read" 7473 prov=ib_verbs addr="$server" op=read \
	sizes=64,4096,65536 iters=$N
# The raw-verbs baseline of make bench (samples/kofi_sample_verbs.c, no
# kOFI): the same message exchanges, every message verified.
pair kofi_sample_verbs "verbs pingpong" 7474 addr="$server" \
	mode=pingpong sizes=64,4096,65536 iters=$N
pair kofi_sample_verbs "verbs bandwidth" 7475 addr="$server" \
	mode=bandwidth sizes=4096,65536 iters=$((N * 4))

check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
