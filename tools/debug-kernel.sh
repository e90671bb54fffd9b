#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel: linux-source with tools/debug.config (modules,
# rxe built in, KASAN, lockdep, UBSAN, kmemleak) in a cached build
# directory, so that kOFI's modules can be built against it and booted
# in the same VM harness as Debian's kernels (series "debug").
# Incremental: a second run rebuilds only what changed.
#
# usage: tools/debug-kernel.sh

set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$(kofi_ksrc)
build=$KOFI_CACHE/debug-$KOFI_SRC_SERIES
root=$KOFI_CACHE/root-debug
frag=$KOFI_TOP/tools/debug.config
[ -e "$src/.done" ] || kofi_die "no kernel source: run tools/setup.sh"
kofi_lock debug-kernel
mkdir -p "$build"

# Reconfigure only when the fragment changed.
if ! cmp -s "$frag" "$build/kofi-debug.config"; then
	cp "$frag" "$build/.config"
	make -C "$src" O="$build" ARCH=x86_64 olddefconfig > /dev/null
	bad=0
	while read -r line; do
		case $line in
		CONFIG_*) grep -qxF "$line" "$build/.config" ||
				{ kofi_log "not set by olddefconfig: $line"; bad=1; } ;;
		"# CONFIG_"*) opt=${line#\# }; opt=${opt%% *}
			! grep -q "^$opt=" "$build/.config" ||
				{ kofi_log "still set: $opt"; bad=1; } ;;
		esac
	done < "$frag"
	[ $bad -eq 0 ] || kofi_die "tools/debug.config does not apply"
	cp "$frag" "$build/kofi-debug.config"
fi

kofi_log "building the debug kernel in $build"
make -C "$src" O="$build" ARCH=x86_64 -j"$KOFI_JOBS" bzImage modules \
	> "$KOFI_CACHE/logs/debug-kernel.log" 2>&1 ||
	{ tail -n 40 "$KOFI_CACHE/logs/debug-kernel.log"; kofi_die "debug kernel build failed"; }
kver=$(make -s -C "$src" O="$build" ARCH=x86_64 kernelrelease)

rm -rf "$root.new"
mkdir -p "$root.new/boot"
cp "$build/arch/x86/boot/bzImage" "$root.new/boot/vmlinuz-$kver"
make -C "$src" O="$build" ARCH=x86_64 INSTALL_MOD_PATH="$root.new" \
	modules_install > /dev/null
touch "$root.new/.done"
rm -rf "$root"
mv "$root.new" "$root"
ln -sfn "$build" "$KOFI_CACHE/kdir-debug"
ln -sfn "$root" "$KOFI_CACHE/kroot-debug"
echo "$kver" > "$KOFI_CACHE/kver-debug"
kofi_log "debug kernel $kver ready"
