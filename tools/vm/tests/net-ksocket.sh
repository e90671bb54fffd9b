#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# ksocket's own reliable datagrams (FI_EP_RDM of provider "ksocket", on
# libfabric's net wire; kofi_rxm.ko not loaded) between the two guests:
# kernel to kernel (rxm-lib.sh
# rxm_kernel: untagged and tagged messages of 0 B to 1 MiB - no
# rendezvous, every message one tcp message - the bandwidth sample, RMA
# writes with remote CQ data and reads; rxm_ipv6 over the guests' IPv6
# addresses), Debian's fi_pingpong -p net -e rdm (libfabric's net
# provider) against the kernel, both roles, untagged and tagged (-m
# tagged: tcp op 1 with the tag), and RMA against libfabric's net
# (rxm-lib.sh rxm_rma_peer).
. ./lib.sh
CORE=ksocket
UTIL=none
FIPROV=net
FIPP_ENV="FI_NET_IFACE=$KOFI_DEV"
FIPP_MODES=$(scaled "msg tagged" tagged)
. ./rxm-lib.sh

rxm_load
rxm_kernel 7711
rxm_ipv6 7719
rxm_fipp
rxm_rma_peer 7751
rxm_unload
finish
