#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the base initramfs for one kernel: busybox, the guest init, the
# kernel's own network and RDMA modules (virtio_net, ib_core, rdma_cm,
# ib_uverbs, rdma_ucm, rdma_rxe and their dependencies, crc32_generic
# first), the rdma tool, and the userspace peers kOFI interoperates with
# (rping, rstream, riostream, fi_pingpong, fi_info, perftest) with their
# libraries, and the project's own userspace peers built here (rds-peer,
# tools/rds; rma-peer, tools/rxm, against libfabric).  Modules the tests
# load themselves (RDS: rds, rds_tcp, rds_rdma; siw) are carried in
# /lib/modules/KVER but not loaded at boot, with the kernel's own modules
# built by tools/extra-modules.sh where Debian's build lacks one (siw on
# 6.12).  The project's own modules and test scripts are added per run by
# tools/vm/run.sh as a second cpio archive.
#
# usage: tools/vm/mkinitramfs.sh SERIES   (6.1, 6.12 or debug)
# Prints the path of the archive.

set -euo pipefail
. "$(dirname "$0")/../lib.sh"

series=${1:?usage: $0 SERIES}
kver=$(kofi_kver "$series")
kroot=$(kofi_kroot "$series")

# Kernel modules the guest loads at boot, in this order.
MODULES="crc32_generic crc32c_generic virtio_pci virtio_net dummy
	ib_core ib_uverbs rdma_cm rdma_ucm rdma_rxe"
# Kernel modules carried but loaded by the tests that need them (siw:
# the debug kernel's own; built for 6.12, see below; none on 6.1).
TEST_MODULES="rds_tcp rds_rdma siw"
# Userspace programs copied with their libraries.
PROGRAMS="rdma ibv_devices ibv_devinfo rping rstream riostream ucmatose
	fi_info fi_pingpong ib_write_bw ib_send_lat ib_read_bw ib_send_bw"

peers="$(dirname "$0")/../rds/rds-peer.c"
rma_peer="$(dirname "$0")/../rxm/rma-peer.c"
# The kernel's modules that Debian's build of it lacks, built from
# linux-source (only when missing from the cache).
extra=$("$(dirname "$0")/../extra-modules.sh" "$series") || exit 1
extras=$(find "$extra/" -maxdepth 1 -name '*.ko' | sort)
# Checkouts of the tree share the cache: an archive is named after what
# it is built from, so that one checkout never uses another's.  One
# unused for a day is removed.
# shellcheck disable=SC2086
key=$(cat "$0" "$peers" "$rma_peer" "$(dirname "$0")/init" "$KOFI_CACHE/kver-$series" \
	$extras | sha1sum | cut -c 1-16)
mkdir -p "$KOFI_CACHE/initramfs"
find "$KOFI_CACHE/initramfs" -type f -mmin +1440 -delete
out=$KOFI_CACHE/initramfs/$series-$key.cpio
inputs="$kroot/.done"
if [ -s "$out" ]; then
	stale=0
	for f in $inputs; do [ "$f" -nt "$out" ] && stale=1; done
	[ $stale -eq 0 ] && { touch "$out"; echo "$out"; exit 0; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,sbin,etc/kofi,proc,sys,dev,tmp,run,root,kofi} \
	"$work/lib/modules/$kver" "$work/usr/bin" "$work/usr/sbin"
cp /bin/busybox "$work/bin/busybox"
cp "$(dirname "$0")/init" "$work/init"
chmod 755 "$work/init"

# Modules: resolve dependencies with the kernel's own modules.dep, keep
# the first occurrence, decompress where Debian ships .ko.xz.
: > "$work/etc/kofi/modules"
# copy_modules LIST: LIST's modules with their dependencies, each once,
# as "NAME ARGS" lines in the order to load them.
copy_modules() {
	local m kind path args name
	for m in $1; do
		modprobe -d "$kroot" -S "$kver" --show-depends "$m" 2>/dev/null || true
	done | awk '!seen[$2]++' | while read -r kind path args; do
		[ "$kind" = insmod ] || continue
		name=$(basename "$path")
		case "$name" in
		*.ko.xz)  xz -dc "$path" > "$work/lib/modules/$kver/${name%.xz}" ;;
		*.ko.zst) zstd -qdc "$path" > "$work/lib/modules/$kver/${name%.zst}" ;;
		*)        cp "$path" "$work/lib/modules/$kver/$name" ;;
		esac
		name=${name%.xz}; name=${name%.zst}
		echo "$name $args"
	done
}
copy_modules "$MODULES" > "$work/etc/kofi/modules"
copy_modules "$TEST_MODULES" > /dev/null
# The extra modules, after the kernel's modules they depend on.
for ko in $extras; do
	copy_modules "$(modinfo -F depends "$ko" | tr , ' ')" > /dev/null
	cp "$ko" "$work/lib/modules/$kver/"
done

add_file() {
	[ -e "$work$1" ] && return 0
	mkdir -p "$work$(dirname "$1")"
	cp -L "$1" "$work$1"
}
add_libs() {
	local lib
	for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
		add_file "$lib"
	done
}
for p in $PROGRAMS; do
	path=$(command -v "$p") || kofi_die "$p not found: run tools/setup.sh"
	add_file "$path"
	add_libs "$path"
done
# The project's own peers, built for the host's C library.
cc -O2 -Wall -o "$work/usr/bin/rds-peer" "$peers"
add_libs "$work/usr/bin/rds-peer"
cc -O2 -Wall -o "$work/usr/bin/rma-peer" "$rma_peer" -lfabric
add_libs "$work/usr/bin/rma-peer"
# Userspace verbs: the rxe and siw providers are loaded by libibverbs at
# run time.
multiarch=/usr/lib/x86_64-linux-gnu
for f in $multiarch/libibverbs/librxe-rdmav*.so /etc/libibverbs.d/rxe.driver \
	 $multiarch/libibverbs/libsiw-rdmav*.so /etc/libibverbs.d/siw.driver \
	 $multiarch/libgcc_s.so.1 /lib/x86_64-linux-gnu/libgcc_s.so.1; do
	[ -e "$f" ] || continue
	add_file "$f"
	case "$f" in *.so*) add_libs "$f" ;; esac
done
echo "root:x:0:0:root:/root:/bin/sh" > "$work/etc/passwd"
echo "root:x:0:" > "$work/etc/group"
printf '127.0.0.1 localhost\n::1 localhost\n' > "$work/etc/hosts"

(cd "$work" && find . | cpio -o -H newc --quiet) > "$out.$$"
mv "$out.$$" "$out"
echo "$out"
