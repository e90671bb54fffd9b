#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kstream-riostream.sh over soft-iWARP (siw0 in place of rxe0): rsockets and kstream
# in their iWARP mode.
KOFI_SIW=1 exec ./kstream-riostream.sh
