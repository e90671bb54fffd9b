#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The core's module lifetime on a real module kernel: debugfs
# kofi/providers lists the registered providers and the references on
# their modules; an open fabric holds one, so a provider with an open
# fabric cannot be unloaded (nor the core under it); once the fabric is
# closed both unload.  The fabric is held by the
# pingpong sample serving on loopback over ksocket with nobody connecting,
# until its wait times out (the sample reports that in its result
# parameter; its insmod returns 0 either way).
. ./lib.sh

M=/kofi/modules
P=/sys/kernel/debug/kofi/providers

# provider_row NAME: the debugfs row of provider NAME.
provider_row() { grep "^$1 " $P; }
# module_refs NAME N: the module of provider NAME has N references.
module_refs() { provider_row "$1" | awk -v n="$2" '{ exit !($6 == n) }'; }

check "insmod kofi" insmod $M/kofi.ko
check_output "debugfs kofi/providers has its header" '^# name version api priority type module_refs state' cat $P
check "no provider listed before any registers" sh -c "[ \$(grep -vc '^#' $P) = 0 ]"
check "insmod kofi_ksocket" insmod $M/kofi_ksocket.ko
check_output "ksocket listed as an active core provider" \
	'^ksocket [0-9]+\.[0-9]+ 1\.[0-9]+ [0-9]+ core 0 active$' provider_row ksocket
check "kofi_ksocket has no reference" module_refs ksocket 0

insmod $M/kofi_sample_pingpong.ko prov=ksocket role=server addr=127.0.0.1 \
	port=7480 timeout_ms=15000 > /tmp/pp.out 2>&1 &
pp=$!
check "the sample listens on its ksocket fabric" wait_for 60 listening 7480
check "the open fabric holds kofi_ksocket" module_refs ksocket 1
check "rmmod kofi_ksocket refused while its fabric is open" sh -c '! rmmod kofi_ksocket'
check "kofi_ksocket still loaded" module_loaded kofi_ksocket
check "rmmod kofi refused while a provider is registered" sh -c '! rmmod kofi'

# The server gives up when nobody connects, closes its fabric and
# reports the error in its result parameter.
wait $pp
r=$(cat /sys/module/kofi_sample_pingpong/parameters/result)
if [ -n "$r" ] && [ "$r" -lt 0 ]; then
	pass "the sample's wait for a client timed out (result $r)"
else
	fail "the sample's wait for a client: result '$r', expected an error"
fi
check "ksocket fabric closed" module_refs ksocket 0
check "rmmod kofi_sample_pingpong" rmmod kofi_sample_pingpong
check "rmmod kofi_ksocket" rmmod kofi_ksocket
if provider_row ksocket; then
	fail "ksocket still listed after rmmod"
else
	pass "ksocket no longer listed"
fi
check "rmmod kofi" rmmod kofi
check "kofi unloaded" module_unloaded kofi
finish
