#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# The rxm utility provider over ksocket ("ksocket;rxm") between the two
# guests: kernel to kernel (rxm-lib.sh rxm_kernel, and rxm_ipv6 over the
# guests' IPv6 addresses), and Debian's
# fi_pingpong -p tcp -e rdm (libfabric's ofi_rxm over its tcp provider)
# against the kernel, both roles, untagged and tagged (-m tagged: up to
# 16 KiB tcp tagged frames without rxm's header, segments up to 128 KiB
# (64 KiB in the size list), rendezvous above; on the
# debug kernel -m tagged only: the kernel-to-kernel part runs both modes
# there, and userspace starts slowly under the sanitizers); and RMA
# against libfabric's tcp;ofi_rxm (rxm-lib.sh rxm_rma_peer).
. ./lib.sh
CORE=ksocket
FIPROV=tcp
FIPP_ENV="FI_TCP_IFACE=$KOFI_DEV"
FIPP_MODES=$(scaled "msg tagged" tagged)
. ./rxm-lib.sh

rxm_load
rxm_kernel 7611
rxm_ipv6 7619
rxm_fipp
rxm_rma_peer 7651
rxm_unload
finish
