#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The ib_verbs part of make demo on its own: kofi and kofi_ib_verbs
# loaded on both guests, then demo-ib_verbs.sh.
. ./lib.sh

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod /kofi/modules/kofi.ko
check "insmod kofi_ib_verbs" insmod /kofi/modules/kofi_ib_verbs.ko
. ./demo-ib_verbs.sh
check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
