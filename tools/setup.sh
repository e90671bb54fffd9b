#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what kOFI's build and tests need, fetch Debian's kernels and
# linux-source, and build from it the kernel modules the VM tests load
# that Debian's kernels lack (tools/extra-modules.sh: siw for 6.12).
# Idempotent; everything downloaded or built is cached under ~/.cache/kofi.
# Never installs a kernel into /boot and never loads a module into the
# running kernel: the kernels fetched here only ever boot inside QEMU.

set -euo pipefail
. "$(dirname "$0")/lib.sh"

PACKAGES="build-essential gcc-12 bc bison flex libelf-dev libssl-dev dwarves
	python3 rsync cpio xz-utils zstd kmod sparse
	qemu-system-x86 busybox-static iproute2
	rdma-core ibverbs-utils ibverbs-providers rdmacm-utils libfabric-bin libfabric-dev
	perftest"

install_packages() {
	local missing=() p

	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	kofi_log "installing: ${missing[*]}"
	[ "$(id -u)" = 0 ] || kofi_die "need root to install ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
}

# dep_of PKG REGEX: the first dependency of PKG whose name matches REGEX.
dep_of() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *|\?Depends: //p' | grep -E "$2" | head -n1
}

resolve() {
	local meta_img=$1 img hdr

	img=$(dep_of "$meta_img" '^linux-image-[0-9]')
	if [ -z "$img" ]; then
		apt-get update -qq
		img=$(dep_of "$meta_img" '^linux-image-[0-9]')
	fi
	[ -n "$img" ] || kofi_die "cannot resolve $meta_img through apt"
	echo "${img#linux-image-}"
}

fetch_debs() {
	local dir=$1; shift
	local p missing=()

	mkdir -p "$dir"
	for p in "$@"; do
		ls "$dir/${p}_"*.deb >/dev/null 2>&1 || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	kofi_log "downloading ${missing[*]}"
	(cd "$dir" && apt-get download -qq "${missing[@]}" 2>/dev/null) ||
		(apt-get update -qq && cd "$dir" &&
		 apt-get download -qq "${missing[@]}")
}

# setup_kernel SERIES META-IMAGE-PACKAGE
setup_kernel() {
	local series=$1 kver root hdr common kbuild deb

	kver=$(resolve "$2")
	root=$KOFI_CACHE/root-$kver
	if [ ! -e "$root/.done" ]; then
		hdr=linux-headers-$kver
		common=$(dep_of "$hdr" '^linux-headers-.*-common')
		kbuild=$(dep_of "$hdr" '^linux-kbuild-')
		[ -n "$common" ] && [ -n "$kbuild" ] ||
			kofi_die "cannot resolve the headers of $kver"
		fetch_debs "$KOFI_CACHE/debs" "linux-image-$kver" "$hdr" \
			"$common" "$kbuild"
		rm -rf "$root"
		mkdir -p "$root"
		for deb in "linux-image-$kver" "$hdr" "$common" "$kbuild"; do
			dpkg-deb -x "$KOFI_CACHE/debs/${deb}_"*.deb "$root"
		done
		# The arch headers include the common ones by absolute path.
		sed -i "s|^include /usr/src/|include $root/usr/src/|" \
			"$root/usr/src/linux-headers-$kver/Makefile"
		# Module dependency lists for the initramfs builder.
		depmod -b "$root" "$kver"
		touch "$root/.done"
	fi
	ln -sfn "$root/usr/src/linux-headers-$kver" "$KOFI_CACHE/kdir-$series"
	ln -sfn "$root" "$KOFI_CACHE/kroot-$series"
	echo "$kver" > "$KOFI_CACHE/kver-$series"
	kofi_log "kernel $series: $kver"
}

setup_source() {
	local src ver

	src=$(kofi_ksrc)
	[ -e "$src/.done" ] && return 0
	ver=$(apt-cache policy "linux-source-$KOFI_SRC_SERIES" |
		sed -n 's/^ *Candidate: //p')
	fetch_debs "$KOFI_CACHE/debs" "linux-source-$KOFI_SRC_SERIES"
	kofi_log "unpacking linux-source-$KOFI_SRC_SERIES $ver"
	rm -rf "$src" "$KOFI_CACHE/src/pkg"
	mkdir -p "$KOFI_CACHE/src"
	dpkg-deb -x "$KOFI_CACHE/debs/linux-source-${KOFI_SRC_SERIES}_"*.deb \
		"$KOFI_CACHE/src/pkg"
	tar -C "$KOFI_CACHE/src" -xf \
		"$KOFI_CACHE/src/pkg/usr/src/linux-source-$KOFI_SRC_SERIES.tar.xz"
	rm -rf "$KOFI_CACHE/src/pkg"
	touch "$src/.done"
}

mkdir -p "$KOFI_CACHE"
install_packages
setup_kernel 6.1 linux-image-amd64
setup_kernel 6.12 linux-image-6.12-amd64
setup_source
for s in $KOFI_SERIES; do
	"$KOFI_TOP/tools/extra-modules.sh" "$s" > /dev/null
done
