#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build every kOFI module out of tree for one kernel, in a cached copy of
# the tree (~/.cache/kofi/build/SERIES) so that several kernels can be
# built from one checkout.  On a kernel with KUnit built in, the KUnit
# suites are built as modules too.  Every build uses W=1, so that a
# checking build and the VM harness's build share their objects (a
# changed compiler command line rebuilds every file); with -W any
# compiler warning fails it; with -C it also runs sparse (C=2) and any
# sparse report fails it.
#
# usage: tools/build.sh [-W] [-C] SERIES     (6.1, 6.12 or debug)
# The modules end up under ~/.cache/kofi/build/SERIES.

set -uo pipefail
. "$(dirname "$0")/lib.sh"

strict=0 sparse=0
while getopts WC opt; do
	case $opt in
	W) strict=1 ;;
	C) sparse=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
series=${1:?usage: $0 [-W] [-C] SERIES}
kdir=$(kofi_kdir "$series")
[ -d "$kdir" ] || kofi_die "no kernel build dir for $series: run tools/setup.sh"

dest=$KOFI_CACHE/build/$series
kofi_lock "build-$series"
kofi_sync_tree "$dest"
log=$KOFI_CACHE/logs/build-$series.log
mkdir -p "$(dirname "$log")"

opts=($KOFI_MODULE_OPTS)
# A kernel with KUnit (the debug kernel) also gets the test suites as
# modules, run in the guest by tools/vm/tests/kunit-modules.sh.
grep -q '^CONFIG_KUNIT=y' "$kdir/.config" && opts+=(CONFIG_KOFI_KUNIT_TEST=m)
opts+=(W=1)
# The project's own headers first: the debug kernel's source tree may
# hold another checkout's copy of them (tools/kernel-overlay.sh), which
# the kernel's include path would otherwise find before the module's.
opts+=("NOSTDINC_FLAGS=-nostdinc -I$dest/include")
# C=2 checks every file, not only those being recompiled.
[ $sparse -eq 1 ] && opts+=(C=2)
make -C "$kdir" M="$dest" "${opts[@]}" -j"$KOFI_JOBS" modules > "$log" 2>&1
rc=$?
grep -E 'warning:|error:' "$log" | grep -v '^Skipping BTF' > "$log.diag"
if [ $rc -ne 0 ]; then
	tail -n 40 "$log" >&2
	kofi_log "build for $series failed (log: $log)"
	exit 1
fi
if [ $strict -eq 1 ] && [ -s "$log.diag" ]; then
	cat "$log.diag" >&2
	kofi_log "build for $series has warnings (log: $log)"
	exit 1
fi
find "$dest" -name '*.ko' | sort
