#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fi_getinfo() loads the provider modules its prov_name hint names: with
# only kofi.ko loaded, a sample asking for "ksocket" gets kofi_ksocket
# loaded by its alias kofi-prov-ksocket; a layered "ksocket;kstream" name
# loads kofi_kstream too, and "ksocket;net" kofi_rxm (which registers
# net beside rxm); an exclusion "^ib_verbs" loads nothing.
#
# The guest's modules are not installed for modprobe: this test installs
# kOFI's beside the kernel's in /lib/modules, indexes them with depmod and
# points the kernel's request_module() at busybox's modprobe - and puts
# all of it back at its end, so that the tests after it in the boot find
# no module loaded on demand (rds-ib counts on that).
. ./lib.sh

M=/kofi/modules
K=/lib/modules/$(uname -r)

# pingpong PROV PORT: run the pingpong sample as a server on loopback that
# nobody connects to, asking fi_getinfo() for provider PROV (for MSG
# endpoints: a module is loaded before the infos are matched); it gives
# up after 2 s (its insmod returns 0 either way).
pingpong() {
	insmod $M/kofi_sample_pingpong.ko prov="$1" role=server \
		addr=127.0.0.1 port="$2" timeout_ms=2000 &&
		rmmod kofi_sample_pingpong
}

mkdir -p "$K/kofi"
cp $M/kofi*.ko "$K/kofi/"
check "depmod" depmod
check_output "kofi_ksocket declares alias kofi-prov-ksocket" \
	'^alias:[[:space:]]*kofi-prov-ksocket$' modinfo kofi_ksocket
check_output "modules.alias has kofi-prov-ksocket" \
	'^alias kofi-prov-ksocket kofi_ksocket$' cat "$K/modules.alias"
read -r modprobe_was < /proc/sys/kernel/modprobe
echo /bin/modprobe > /proc/sys/kernel/modprobe

check "insmod kofi" insmod $M/kofi.ko
check "kofi_ksocket not loaded yet" module_unloaded kofi_ksocket

pingpong ^ib_verbs,ksocket 7482
check "an exclusion list loads no provider" module_unloaded kofi_ksocket

pingpong ksocket 7482
check "fi_getinfo(prov_name ksocket) loaded kofi_ksocket" \
	module_loaded kofi_ksocket
check_output "ksocket registered" '^ksocket ' \
	cat /sys/kernel/debug/kofi/providers
check "kofi_kstream not loaded" module_unloaded kofi_kstream

pingpong "ksocket;kstream" 7483
check "fi_getinfo(prov_name ksocket;kstream) loaded kofi_kstream" \
	module_loaded kofi_kstream

check "kofi_rxm not loaded" module_unloaded kofi_rxm
pingpong "ksocket;net" 7484
check "fi_getinfo(prov_name ksocket;net) loaded kofi_rxm" \
	module_loaded kofi_rxm
check_output "net registered" '^net ' cat /sys/kernel/debug/kofi/providers

check "rmmod kofi_rxm" rmmod kofi_rxm
check "rmmod kofi_kstream" rmmod kofi_kstream
check "rmmod kofi_ksocket" rmmod kofi_ksocket
check "rmmod kofi" rmmod kofi

echo "$modprobe_was" > /proc/sys/kernel/modprobe
rm -rf "$K/kofi"
check "depmod without kOFI's modules" depmod
finish
