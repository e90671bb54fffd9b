# SPDX-License-Identifier: GPL-2.0
# Shared settings for the kOFI tools.  Source it; do not run it.

KOFI_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KOFI_CACHE=${KOFI_CACHE:-$HOME/.cache/kofi}
# Kernel series the project is built and tested on.  "debug" is the
# sanitizer kernel built from linux-source-6.12 by tools/debug-kernel.sh.
KOFI_SERIES="6.1 6.12"
KOFI_SRC_SERIES=6.12
KOFI_JOBS=${KOFI_JOBS:-$(nproc)}

kofi_log() { printf '[kofi] %s\n' "$*" >&2; }
kofi_die() { printf '[kofi] error: %s\n' "$*" >&2; exit 1; }

# kofi_kdir SERIES: the kernel build directory for SERIES (6.1, 6.12, debug).
kofi_kdir() { readlink -f "$KOFI_CACHE/kdir-$1"; }
# kofi_kver SERIES: the kernel release (uname -r) of SERIES.
kofi_kver() { cat "$KOFI_CACHE/kver-$1"; }
# kofi_kroot SERIES: directory holding boot/ and lib/modules/ of SERIES.
kofi_kroot() { readlink -f "$KOFI_CACHE/kroot-$1"; }
# Kernel source tree used for kunit.py and the debug kernel.
kofi_ksrc() { echo "$KOFI_CACHE/src/linux-source-$KOFI_SRC_SERIES"; }

# kofi_sync_tree DEST: copy the project's kernel sources to DEST so that
# kbuild rebuilds only what changed: a file whose content differs is
# written anew (its time now, newer than any object built from the old
# one), an unchanged file is left alone.  Comparing content, not times,
# also holds when DEST was last filled from another checkout.
kofi_sync_tree() {
	mkdir -p "$1"
	rsync -rl --checksum --delete \
		--exclude=.git --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude='*.symvers' \
		--exclude=modules.order --exclude=/build --exclude=/tools \
		--exclude=/Documentation \
		"$KOFI_TOP/" "$1/"
}

# kofi_lock NAME: hold an exclusive lock for the rest of the calling
# script, so that two runs never share a build directory at once.
kofi_lock() {
	mkdir -p "$KOFI_CACHE/locks"
	exec {KOFI_LOCK_FD}> "$KOFI_CACHE/locks/$1"
	flock -n "$KOFI_LOCK_FD" ||
		{ kofi_log "waiting for another run holding $1"; flock "$KOFI_LOCK_FD"; }
}

# Options that select every kOFI module in an out-of-tree build.
KOFI_MODULE_OPTS="CONFIG_KOFI=m CONFIG_KOFI_KSOCKET=m CONFIG_KOFI_RDS=m CONFIG_KOFI_IB_VERBS=m CONFIG_KOFI_KSTREAM=m CONFIG_KOFI_RXM=m CONFIG_KOFI_SAMPLES=m"
