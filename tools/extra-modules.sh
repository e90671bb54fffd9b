#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernel's own modules that the VM tests load and a Debian
# kernel is built without, out of tree from linux-source of the same
# series against that kernel's build directory: today soft-iWARP
# (siw.ko) for 6.12, whose Debian build has no CONFIG_RDMA_SIW.  The
# modules are kept in ~/.cache/kofi/extra-KVER and built only when
# missing there; tools/vm/mkinitramfs.sh puts them, with the kernel's
# modules they depend on, in the guests' /lib/modules/KVER.  Nothing is
# written into the shared source tree: the module's sources are copied
# into a build directory of their own.
#
# usage: tools/extra-modules.sh SERIES    (6.1, 6.12 or debug)
# Prints the directory holding SERIES's extra modules (it exists); it
# holds none where there is nothing to build (6.1: no linux-source;
# debug: siw is one of its modules).

set -euo pipefail
. "$(dirname "$0")/lib.sh"

series=${1:?usage: $0 SERIES}
kver=$(kofi_kver "$series")
out=$KOFI_CACHE/extra-$kver

# Module NAME, its directory in the kernel source and the option that
# selects it, per series.
extra_modules() {
	case $1 in
	"$KOFI_SRC_SERIES") echo "siw drivers/infiniband/sw/siw CONFIG_RDMA_SIW" ;;
	esac
}

# build_module NAME DIR OPTION: build NAME.ko from DIR of the source into
# $out, its debug information stripped as in Debian's own modules.
build_module() {
	local name=$1 dir=$2 opt=$3 src kdir srcver kernver build log

	src=$(kofi_ksrc)
	kdir=$(kofi_kdir "$series")
	[ -e "$src/.done" ] || kofi_die "no kernel source: run tools/setup.sh"
	[ -d "$kdir" ] || kofi_die "no kernel build dir for $series: run tools/setup.sh"
	srcver=$(make -s -C "$src" kernelversion)
	kernver=$(make -s -C "$kdir" kernelversion)
	[ "$srcver" = "$kernver" ] ||
		kofi_log "$name.ko: source $srcver, kernel $kernver" \
			"(modversions check the interfaces at load)"
	build=$KOFI_CACHE/build/extra-$kver-$name
	log=$KOFI_CACHE/logs/extra-$kver-$name.log
	rm -rf "$build"
	mkdir -p "$build" "$out" "$(dirname "$log")"
	cp "$src/$dir"/*.[ch] "$src/$dir/Makefile" "$build/"
	kofi_log "building $name.ko $srcver for $kver"
	if ! make -C "$kdir" M="$build" "$opt=m" -j"$KOFI_JOBS" modules \
		> "$log" 2>&1; then
		tail -n 40 "$log" >&2
		kofi_die "building $name.ko for $kver failed (log: $log)"
	fi
	strip --strip-debug -o "$out/$name.ko.new" "$build/$name.ko"
	mv "$out/$name.ko.new" "$out/$name.ko"
	rm -rf "$build"
}

kofi_lock "extra-$kver"
mkdir -p "$out"
extra_modules "$series" | while read -r name dir opt; do
	[ -s "$out/$name.ko" ] || build_module "$name" "$dir" "$opt"
done
echo "$out"
