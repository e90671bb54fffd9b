#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Documentation checks on the kernel sources: scripts/kernel-doc -Wall
# must be quiet on every header and C file, and every symbol exported with
# EXPORT_SYMBOL*() must have a kernel-doc comment ("/**" ... "name() -").
# Prints one line per finding and "kernel-doc: N passed, N failed".
#
# usage: tools/kerneldoc.sh

set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$KOFI_TOP"

kd=$(kofi_ksrc)/scripts/kernel-doc
[ -f "$kd" ] || kofi_die "no scripts/kernel-doc: run tools/setup.sh"
mapfile -t files < <(git ls-files 'include/*.h' 'kofi/*.[ch]' 'providers/*.[ch]' \
			   'samples/*.[ch]')
passed=0 failed=0

out=$(perl "$kd" -none -Wall "${files[@]}" 2>&1)
if [ -n "$out" ]; then
	echo "$out"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi

# Every exported symbol documented somewhere in the tree.
for sym in $(grep -h -o 'EXPORT_SYMBOL[A-Z_]*([a-z0-9_]*)' "${files[@]}" |
	     sed 's/.*(\(.*\))/\1/' | sort -u); do
	if grep -q -E "^ \* (struct )?$sym(\(\))? -" "${files[@]}"; then
		passed=$((passed + 1))
	else
		echo "  undocumented export: $sym"
		failed=$((failed + 1))
	fi
done
echo "kernel-doc: $passed passed, $failed failed"
[ $failed -eq 0 ]
