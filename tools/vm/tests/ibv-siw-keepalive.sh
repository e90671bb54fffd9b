#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ibv-keepalive.sh over soft-iWARP (siw0 in place of rxe0).
KOFI_SIW=1 exec ./ibv-keepalive.sh
