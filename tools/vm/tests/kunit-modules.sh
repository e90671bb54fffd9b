#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run kOFI's KUnit suites as modules (kernels with KUnit: the debug
# kernel), so that they run with kmemleak, DEBUG_OBJECTS and the modules
# loaded the way users load them: the core's, and every provider's with
# its provider loaded.  One check per suite (lib.sh kunit_module).  The
# rds suite runs over RDS/TCP on loopback: the kernel's rds and rds_tcp
# are loaded first (and stay, as after the rds tests), and kofi_rds with
# a 3 s RMA timeout, which the suite waits out once (as tools/kunit.sh
# sets it on the kernel command line).
. ./lib.sh

K=/lib/modules/$(uname -r)
for m in rds rds_tcp; do
	[ -e "$K/$m.ko" ] || continue
	module_loaded $m || check "insmod $m" insmod "$K/$m.ko"
done
mods=$(kofi_modules)
for m in $mods; do
	args=
	[ "$m" = kofi_rds ] && args=rma_timeout_ms=3000
	check "insmod $m" insmod "/kofi/modules/$m.ko" $args
done
n=0
for t in /kofi/modules/*_test.ko /kofi/modules/*kunit*.ko; do
	[ -e "$t" ] || continue
	n=$((n + 1))
	kunit_module "$t"
done
[ $n -gt 0 ] || fail "no KUnit test modules for this kernel"
for m in $(echo "$mods" | sed -n '1!G;h;$p'); do
	check "rmmod $m" rmmod "$m"
done
finish
