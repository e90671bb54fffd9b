#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: two hosts on a virtual link, each with soft-RoCE; kOFI and
# every provider loaded; then every demo part (demo-*.sh: one per
# provider, each running the sample ULPs over it) with its results.
. ./lib.sh

say "host $KOFI_HOST: Linux $(uname -r), $KOFI_DEV $KOFI_SELF / $KOFI_SELF6"
check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
say_cmd rdma link show
for m in $(kofi_modules); do
	check "insmod $m" insmod "/kofi/modules/$m.ko"
done
if [ -r /sys/kernel/debug/kofi/providers ]; then
	say "registered kOFI providers:"
	say_cmd cat /sys/kernel/debug/kofi/providers
fi

parts=0
for part in ./demo-*.sh; do
	[ -e "$part" ] || continue
	parts=$((parts + 1))
	say "--- ${part#./demo-}"
	. "$part"
done
[ $parts -gt 0 ] || say "no provider demo parts yet"

for m in $(kofi_modules | sed -n '1!G;h;$p'); do
	check "rmmod $m" rmmod "$m"
done
finish
