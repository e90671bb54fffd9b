#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The rxm utility provider over ib_verbs ("ib_verbs;rxm") between the two
# guests' soft-RoCE devices: kernel to kernel (rxm-lib.sh rxm_kernel:
# eager messages, rendezvous by RDMA READ from registered buffers, tagged
# and untagged, RMA, remote CQ data; rendezvous from vmalloc'd and from
# kmalloc'd buffers; rxm_ipv6 over the guests' IPv6 addresses), and Debian's
# fi_pingpong -p "verbs;ofi_rxm" -e rdm (libfabric's ofi_rxm over its
# verbs provider) against the kernel, both roles, untagged and tagged,
# with fi_pingpong's default sizes: libfabric sends 64 KiB as segments
# (its rxm over verbs does so from 16 KiB to 128 KiB), the kernel by
# rendezvous, as both do 1 MiB; and 4 MiB both ways, above the 1 MiB a
# device registration takes at once (libfabric registers its 4 MiB
# buffer as one region, the kernel in pieces of 1 MiB on both sides; on
# 6.1 and 6.12); RMA against libfabric's verbs;ofi_rxm (rxm-lib.sh
# rxm_rma_peer).  First with the endpoints' shared bounce buffers (the
# default: flow control off, receiver-not-ready retries), then with each
# connection's own and credits.  FI_UNIVERSE_SIZE=16: libfabric's rxm
# sizes its verbs CQ for that many peers (default 256: a CQ soft-RoCE
# refuses, fi_enable() fails with EINVAL).
. ./lib.sh
CORE=ib_verbs
FIPROV="verbs;ofi_rxm"
FIPP_ENV="FI_VERBS_IFACE=$KOFI_DEV FI_UNIVERSE_SIZE=16"
# fi_pingpong's two modes split between Debian's kernels: msg on 6.1,
# tagged on 6.12; none on the sanitizer kernel, where the kernel-to-kernel
# runs cover the same code.
case $(uname -r) in
6.1.*) FIPP_MODES=msg ;;
*) FIPP_MODES=$(scaled tagged "") ;;
esac
. ./rxm-lib.sh

check_output "rxe0 is ACTIVE" 'rxe0.*ACTIVE' rdma link show
rxm_load
# 4 MiB: the largest message, four 1 MiB registrations on each side.
RXM_SIZES=$RXM_SIZES,4194304
rxm_kernel 7621
# The samples' buffer is kvzalloc'd, twice the largest size: 2 MiB
# above (vmalloc'd), 128 KiB here, which kmalloc gives at boot.
pp "pingpong rendezvous, small buffer" 7629 $peer $RXM \
	sizes=16385,65536 iters=$(scaled 4 1)
rxm_ipv6 7630
# So far each endpoint's connections shared its bounce buffers (the
# default): rxm said flow control "off", and libfabric's rxm does
# without credits then too.
pair kofi_sample_bandwidth "bandwidth tagged, shared buffers" 7640 $peer \
	$RXM mode=tagged sizes=1,16384,65536 iters=$(scaled 256 64)
rxm_fipp
# Credits: from here on each connection has bounce buffers of its own
# (kofi rdm_srx_bufs=0) and no receiver-not-ready retries (ib_verbs
# rnr_retry=0 on both guests, for connections opened later), so a send
# that found no receive posted would end its connection.  rxm's credits
# keep each side's packets within the receives the other posted: bursts
# of eager messages (the bandwidth sample keeps 64 in flight),
# rendezvous, and fi_pingpong below (libfabric's rxm over verbs uses
# credits too).
check "kofi rdm_srx_bufs=0" \
	sh -c 'echo 0 > /sys/module/kofi/parameters/rdm_srx_bufs'
check "ib_verbs rnr_retry=0" \
	sh -c 'echo 0 > /sys/module/kofi_ib_verbs/parameters/rnr_retry'
pair kofi_sample_bandwidth "bandwidth msg, no RNR retry" 7632 $peer $RXM \
	sizes=1,4096,16384 iters=$(scaled 256 64)
pair kofi_sample_bandwidth "bandwidth tagged, no RNR retry" 7633 $peer \
	$RXM mode=tagged sizes=1,16384,65536 iters=$(scaled 256 64)
pp "pingpong msg, no RNR retry" 7634 $peer $RXM sizes=$RXM_SIZES \
	iters=$(scaled 4 1)
rxm_fipp
rxm_rma_peer 7651
# Two iterations: fi_pingpong over userspace rxe takes seconds for each.
if [ -n "$FIPP_MODES" ]; then
	fipp_iters=$FIPP_ITERS
	FIPP_XARGS="-S 4194304" FIPP_KSIZES=4194304 FIPP_ROW=4m FIPP_ITERS=2
	rxm_fipp_one msg
	FIPP_XARGS= FIPP_KSIZES= FIPP_ROW= FIPP_ITERS=$fipp_iters
fi
# A send queue of two (ib_verbs tx_size=2 on both guests, for endpoints
# opened later): the ULP's sends, rendezvous requests, the receiver's
# RDMA READs, read-done answers and credit grants compete for two
# slots.  A control packet or rendezvous request the core has no room
# for waits and goes a jiffy later; the ULP's sends to that peer answer
# -EAGAIN meanwhile.  Nothing fails.
check "ib_verbs tx_size=2" \
	sh -c 'echo 2 > /sys/module/kofi_ib_verbs/parameters/tx_size'
pair kofi_sample_bandwidth "bandwidth msg, send queue of 2" 7635 $peer \
	$RXM sizes=1,16384,65536 iters=$(scaled 64 32)
pair kofi_sample_bandwidth "bandwidth tagged, send queue of 2" 7636 $peer \
	$RXM mode=tagged sizes=65536 iters=$(scaled 64 32)
check "ib_verbs tx_size=384" \
	sh -c 'echo 384 > /sys/module/kofi_ib_verbs/parameters/tx_size'
check "ib_verbs rnr_retry=7" \
	sh -c 'echo 7 > /sys/module/kofi_ib_verbs/parameters/rnr_retry'
check "kofi rdm_srx_bufs=16" \
	sh -c 'echo 16 > /sys/module/kofi/parameters/rdm_srx_bufs'
rxm_unload
finish
