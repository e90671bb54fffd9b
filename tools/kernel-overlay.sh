#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Overlay kOFI into a kernel source tree as drivers/kofi, so that it builds
# in tree (kunit.py, the debug kernel).  Idempotent: the project's kernel
# sources are synchronised into drivers/kofi with their timestamps, the
# public headers are linked as include/kofi, and drivers/Kconfig and
# drivers/Makefile are hooked once.
#
# usage: tools/kernel-overlay.sh KERNEL_SOURCE_DIR

set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=${1:?usage: $0 KERNEL_SOURCE_DIR}
[ -f "$src/drivers/Kconfig" ] || kofi_die "$src is not a kernel source tree"

kofi_sync_tree "$src/drivers/kofi"
ln -sfn ../drivers/kofi/include/kofi "$src/include/kofi"

if ! grep -q 'drivers/kofi/Kconfig' "$src/drivers/Kconfig"; then
	# Insert before the closing endmenu of the drivers menu.
	sed -i '$ s|^endmenu$|source "drivers/kofi/Kconfig"\n\nendmenu|' \
		"$src/drivers/Kconfig"
	grep -q 'drivers/kofi/Kconfig' "$src/drivers/Kconfig" ||
		kofi_die "could not hook drivers/Kconfig"
fi
grep -q 'CONFIG_KOFI' "$src/drivers/Makefile" ||
	echo 'obj-$(CONFIG_KOFI)		+= kofi/' >> "$src/drivers/Makefile"
