// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI RDM engine: module parameters, workqueue and send-entry cache.
 *
 * The parameters are kofi.ko's (rdm_*): they apply to the RDM endpoints
 * of every provider that runs the engine (rxm, net, ksocket).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include "../kofi_core.h"
#include "rxm.h"

struct workqueue_struct *rxm_wq;

unsigned int rxm_conn_rx_bufs = 4;
module_param_named(rdm_conn_rx_bufs, rxm_conn_rx_bufs, uint, 0644);
MODULE_PARM_DESC(rdm_conn_rx_bufs,
		 "RDM endpoints: bounce buffers of 16448 bytes a peer connection may post: one at first (ten over ib_verbs with credit flow control, and at least ten), one more for each message waiting unexpected (1..128, default 4)");

unsigned int rxm_srx_bufs = 16;
module_param_named(rdm_srx_bufs, rxm_srx_bufs, uint, 0644);
MODULE_PARM_DESC(rdm_srx_bufs,
		 "RDM endpoints over a core with shared receive contexts (ib_verbs): bounce buffers of 16448 bytes all the endpoint's connections share, posted at first; one more for each message waiting unexpected or when fewer than 8 are posted, up to 64 (0: none shared, each connection has its own and credits; endpoints opened later; default 16)");

unsigned int rxm_connect_timeout_ms = 10000;
module_param_named(rdm_connect_timeout_ms, rxm_connect_timeout_ms, uint,
		   0644);
MODULE_PARM_DESC(rdm_connect_timeout_ms,
		 "RDM endpoints: a connection to a peer not up within this many ms fails with ETIMEDOUT, for endpoints opened later (0 = never; at most 86400000; default 10000; fi_setopt(FI_OPT_CONNECT_TIMEOUT_MS) per endpoint)");

unsigned int rxm_sar_limit = RXM_MAX_SEGMENTS * RXM_EAGER_LIMIT;
module_param_named(rdm_sar_limit, rxm_sar_limit, uint, 0644);
MODULE_PARM_DESC(rdm_sar_limit,
		 "RDM endpoints on rxm's wire over ksocket: messages above 16384 bytes and up to this size go as segments of 16384 bytes, larger ones by rendezvous (at most and default 131072; 16384 or less: rendezvous for all, as libfabric's rxm sends over tcp)");

unsigned long rxm_big_unexp_bytes = 4 << 20;
module_param_named(rdm_big_unexp_bytes, rxm_big_unexp_bytes, ulong, 0644);
MODULE_PARM_DESC(rdm_big_unexp_bytes,
		 "RDM endpoints: bytes of unexpected messages above 16384 bytes that arrive whole (net; tagged over tcp) an endpoint keeps in buffers of their own; beyond, such a message waits on its connection for a receive (endpoints opened later; default 4194304)");

/**
 * kofi_rdm_init() - set up the RDM engine
 *
 * Context: module init, process context.
 * Return: 0, -EINVAL for an rdm_conn_rx_bufs out of range, or -ENOMEM.
 */
int kofi_rdm_init(void)
{
	if (!rxm_conn_rx_bufs || rxm_conn_rx_bufs > 128)
		return -EINVAL;
	/* an injected payload is copied in with copy_from_iter() */
	rxm_tx_cache = kmem_cache_create_usercopy("kofi_rdm_tx",
						  sizeof(struct rxm_tx),
						  __alignof__(struct rxm_tx), 0,
						  offsetof(struct rxm_tx, buf),
						  sizeof_field(struct rxm_tx, buf),
						  NULL);
	if (!rxm_tx_cache)
		return -ENOMEM;
	rxm_wq = alloc_workqueue("kofi_rdm", WQ_MEM_RECLAIM, 0);
	if (!rxm_wq) {
		kmem_cache_destroy(rxm_tx_cache);
		return -ENOMEM;
	}
	return 0;
}

/**
 * kofi_rdm_exit() - tear the RDM engine down: no endpoint is left
 *
 * Context: module exit, process context.
 */
void kofi_rdm_exit(void)
{
	destroy_workqueue(rxm_wq);
	kmem_cache_destroy(rxm_tx_cache);
}
