#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load and unload every kOFI module twice, in dependency order.
. ./lib.sh

mods=$(kofi_modules)
rev=$(echo "$mods" | sed -n '1!G;h;$p')
for round in 1 2; do
	for m in $mods; do
		check "round $round: insmod $m" insmod "/kofi/modules/$m.ko"
		check "round $round: $m in /proc/modules" module_loaded "$m"
	done
	check "round $round: debugfs kofi directory" test -d /sys/kernel/debug/kofi
	for m in $rev; do
		check "round $round: rmmod $m" rmmod "$m"
		check "round $round: $m unloaded" module_unloaded "$m"
	done
done
finish
