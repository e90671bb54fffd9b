#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# ksocket across the two-guest link: the pingpong sample (guest 0 serving,
# guest 1 connecting) over IPv4 and IPv6, with messages, RMA writes and RMA
# reads, every transfer verified; the sample sets FI_OPT_DATA_MAY_SLEEP
# (its data calls do the socket I/O) except with defer_io=1 (every
# transfer goes through the endpoint's work), and both modes run; then both
# modules unload cleanly.
. ./lib.sh

M=/kofi/modules

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "IPv6 link to the peer" wait_for 180 ping -6 -c 1 -W 1 "$KOFI_PEER6"
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ksocket" insmod $M/kofi_ksocket.ko
check_output "ksocket is registered" ksocket cat /sys/kernel/debug/kofi/providers

# Fewer round trips on the sanitizer kernel, the same sizes and modes.
N=$(scaled 50 10)

if [ "$KOFI_HOST" = 0 ]; then
	peer4="" peer6="addr=::"
else
	peer4="addr=$KOFI_PEER" peer6="addr=$KOFI_PEER6"
fi

pp "IPv4 msg pingpong" 7471 $peer4 op=msg sizes=0,1,64,4096,65536,1048576 iters=$N
pp "IPv6 msg pingpong" 7472 $peer6 op=msg sizes=64,65536 iters=$N
pp "IPv4 RMA write pingpong" 7473 $peer4 op=write sizes=64,4096,65536 iters=$N
pp "IPv4 RMA read" 7474 $peer4 op=read sizes=64,4096,65536 iters=$N
pp "IPv4 msg pingpong, I/O in the work" 7476 $peer4 op=msg \
	sizes=0,1,64,4096,65536 iters=$N defer_io=1
pp "IPv4 1 MiB pingpong, I/O in the work" 7479 $peer4 op=msg \
	sizes=1048576 iters=$(scaled 50 2) defer_io=1
pp "IPv6 RMA write pingpong, I/O in the work" 7477 $peer6 op=write \
	sizes=64,4096,65536 iters=$N defer_io=1
pp "IPv4 RMA read, I/O in the work" 7478 $peer4 op=read \
	sizes=64,4096,65536 iters=$N defer_io=1
# A 16 MiB message takes tens of seconds on the sanitizer kernel under TCG:
# there 8 MiB (twice TCP's largest send buffer) stands for it, and a wait
# limit of 30 s is too tight (a limit, not a measurement).
pp "large messages (16 MiB; 8 MiB on the debug kernel)" 7475 $peer4 op=msg \
	sizes=$(scaled 16777216 8388608) iters=$(scaled 2 1) timeout_ms=180000

check "rmmod kofi_ksocket" rmmod kofi_ksocket
check "rmmod kofi" rmmod kofi
finish
