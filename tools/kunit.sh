#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kOFI KUnit suites with the kernel's kunit.py over linux-source
# with kOFI overlaid in tree (tools/kernel-overlay.sh) and built in,
# lockdep on (kunit/.kunitconfig; KASAN, UBSAN and kmemleak are the debug
# kernel's, where the suites run as modules).  The build directory is
# cached, so a second run rebuilds only what changed.  The rds provider's
# RMA timeout is 3 s (kernel command line), which its suite waits out.
#
# Prints kunit.py's summary and a last line "kunit: N passed, N failed".
# Exit status 0 only if every test passed, none was skipped or crashed
# and the console log holds no kernel report (tools/scan-splats.sh).
#
# usage: tools/kunit.sh [extra kunit.py run arguments]

set -uo pipefail
. "$(dirname "$0")/lib.sh"

src=$(kofi_ksrc)
build=$KOFI_CACHE/kunit-$KOFI_SRC_SERIES
out=$KOFI_CACHE/logs
mkdir -p "$out"
[ -e "$src/.done" ] || kofi_die "no kernel source: run tools/setup.sh"
kofi_lock kunit
"$KOFI_TOP/tools/kernel-overlay.sh" "$src" || exit 1

kofi_log "kunit.py run (build dir $build)"
(cd "$src" && python3 tools/testing/kunit/kunit.py run \
	--arch=x86_64 --kunitconfig="$KOFI_TOP/kunit/.kunitconfig" \
	--build_dir="$build" --jobs="$KOFI_JOBS" --timeout=1200 \
	--qemu_args="-smp 2 -cpu Nehalem" --kernel_args=mitigations=off \
	--kernel_args=kofi_rds.rma_timeout_ms=3000 \
	--json="$out/kunit.json" "$@") 2>&1 | tee "$out/kunit.out"
rc=${PIPESTATUS[0]}

summary=$(grep -a 'Testing complete\.' "$out/kunit.out" | tail -n1)
count() { echo "$summary" | grep -o "$1: [0-9]*" | grep -o '[0-9]*$' || echo 0; }
passed=$(count passed)
failed=$(( $(count failed) + $(count crashed) + $(count errors) ))
skipped=$(count skipped)

if [ -z "$summary" ]; then
	kofi_log "kunit.py did not complete (exit $rc)"
	failed=$((failed + 1))
fi
if [ "$skipped" -gt 0 ]; then
	kofi_log "$skipped test(s) skipped: counted as failed"
	failed=$((failed + skipped))
fi
if ! "$KOFI_TOP/tools/scan-splats.sh" "$build/test.log"; then
	failed=$((failed + 1))
fi
[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1

echo "kunit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
