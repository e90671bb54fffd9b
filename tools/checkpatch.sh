#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's checkpatch.pl --strict over every C source and header
# of the project.  Exits non-zero if it reports anything.
#
# usage: tools/checkpatch.sh [FILE...]

set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$KOFI_TOP"

cp=$(kofi_ksrc)/scripts/checkpatch.pl
[ -f "$cp" ] || kofi_die "no checkpatch.pl: run tools/setup.sh"
if [ $# -eq 0 ]; then
	mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null ||
			     find . -name '*.[ch]' -not -path './build/*')
else
	files=("$@")
fi
[ ${#files[@]} -gt 0 ] || kofi_die "no files to check"
# Only reports are shown, not the per-file "total: 0 errors" lines.
# In KOFI_JOBS parallel runs of checkpatch.pl, each over a share of the files.
printf '%s\0' "${files[@]}" |
	xargs -0 -P "$KOFI_JOBS" -n $(((${#files[@]} + KOFI_JOBS - 1) / KOFI_JOBS)) \
		perl "$cp" --strict --no-tree --quiet --show-types --terse -f |
	grep -v '^total: 0 errors, 0 warnings, 0 checks'
rc=${PIPESTATUS[1]}
[ $rc -eq 0 ] && kofi_log "checkpatch --strict: ${#files[@]} files clean"
exit $rc
