// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: module parameters, registration, fabric.
 *
 * kofi_ib_verbs.ko serves FI_EP_MSG endpoints over RC queue pairs of any
 * RDMA device the kernel drives (InfiniBand, RoCE, iWARP, soft-RoCE),
 * with ib_core for the data path and rdma_cm for connections.  See
 * Documentation/ib_verbs.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include "ibv.h"

char *ibv_iface;
module_param_named(iface, ibv_iface, charp, 0644);
MODULE_PARM_DESC(iface,
		 "Network interface whose RDMA device and address fi_getinfo() offers when no address is given (default: the first active device)");

unsigned int ibv_inline_size = 256;
module_param_named(inline_size, ibv_inline_size, uint, 0644);
MODULE_PARM_DESC(inline_size,
		 "Inline send bytes requested per QP, capped by the device; reported as tx_attr.inject_size (default 256)");

unsigned int ibv_tx_size = 384;
module_param_named(tx_size, ibv_tx_size, uint, 0644);
MODULE_PARM_DESC(tx_size, "Send queue depth (default 384, capped by the device)");

unsigned int ibv_rx_size = 384;
module_param_named(rx_size, ibv_rx_size, uint, 0644);
MODULE_PARM_DESC(rx_size, "Receive queue depth (default 384, capped by the device)");

unsigned int ibv_iov_limit = 4;
module_param_named(iov_limit, ibv_iov_limit, uint, 0644);
MODULE_PARM_DESC(iov_limit, "SGEs per work request (default 4, at most 16, capped by the device)");

unsigned int ibv_cm_timeout_ms = 2000;
module_param_named(cm_timeout_ms, ibv_cm_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cm_timeout_ms, "Address and route resolution timeout in ms (default 2000)");

unsigned int ibv_connreq_timeout_ms = 10000;
module_param_named(connreq_timeout_ms, ibv_connreq_timeout_ms, uint, 0644);
MODULE_PARM_DESC(connreq_timeout_ms,
		 "a listener rejects a connection request its full EQ has not taken within this many ms (0 = never; default 10000)");

unsigned int ibv_retry_count = 7;
module_param_named(retry_count, ibv_retry_count, uint, 0644);
MODULE_PARM_DESC(retry_count,
		 "Transport retries before a send fails (0-7, default 7; fi_setopt(FI_OPT_RETRY_COUNT) per endpoint)");

unsigned int ibv_rnr_retry = 7;
module_param_named(rnr_retry, ibv_rnr_retry, uint, 0644);
MODULE_PARM_DESC(rnr_retry, "Receiver-not-ready retries (0-7, 7 = forever; default 7)");

unsigned int ibv_ack_timeout;
module_param_named(ack_timeout, ibv_ack_timeout, uint, 0644);
MODULE_PARM_DESC(ack_timeout,
		 "Local ACK timeout exponent: 4.096 us * 2^n per retry (1-31, 0 = rdma_cm default; fi_setopt(FI_OPT_ACK_TIMEOUT) per endpoint)");

unsigned int ibv_min_rnr_timer = 12;
module_param_named(min_rnr_timer, ibv_min_rnr_timer, uint, 0644);
MODULE_PARM_DESC(min_rnr_timer,
		 "Receiver-not-ready NAK timer a connection's QP asks of its peer, IBTA encoding (0-31: 12 = 0.64 ms, default; 0 = 655 ms, rdma_cm's default)");

unsigned int ibv_read_sinks = IBV_SINK_MRS;
module_param_named(read_sinks, ibv_read_sinks, uint, 0644);
MODULE_PARM_DESC(read_sinks,
		 "RDMA READs an endpoint on an iWARP device has in flight at most, for endpoints opened later (1-16, default 16): each holds a sink MR; fi_read() answers -EAGAIN beyond");

unsigned int ibv_keepalive_ms;
module_param_named(keepalive_ms, ibv_keepalive_ms, uint, 0644);
MODULE_PARM_DESC(keepalive_ms,
		 "Keepalive interval of connected endpoints in ms: a zero-length RDMA write probes the peer (0 = off, default; fi_setopt(FI_OPT_KEEPALIVE_MS) per endpoint)");

static int ibv_fabric_close(struct fid *fid)
{
	kfree(container_of(fid, struct ibv_fabric, fabric.fid));
	return 0;
}

static const struct fi_ops ibv_fabric_fi_ops = {
	.close = ibv_fabric_close,
};

static const struct fi_ops_fabric ibv_fabric_ops = {
	.domain = ibv_domain_open,
	.passive_ep = ibv_passive_ep,
	.eq_open = kofi_eq_open_generic,
};

static int ibv_fabric_open(struct fi_fabric_attr *attr,
			   struct fid_fabric **fabric, void *context)
{
	struct ibv_fabric *fab;

	if (attr->name && strcmp(attr->name, IBV_FABRIC_NAME))
		return -ENODATA;
	fab = kzalloc(sizeof(*fab), GFP_KERNEL);
	if (!fab)
		return -ENOMEM;
	kofi_fid_init(&fab->fabric.fid, FI_CLASS_FABRIC, &ibv_fabric_fi_ops,
		      context);
	fab->fabric.ops = &ibv_fabric_ops;
	*fabric = &fab->fabric;
	return 0;
}

static struct kofi_provider ibv_provider = {
	.name = IBV_PROV_NAME,
	.version = IBV_VERSION,
	.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
	.owner = THIS_MODULE,
	.priority = KOFI_PRIO_HW_RDMA,
	.getinfo = ibv_getinfo,
	.fabric = ibv_fabric_open,
};

static int __init ibv_init(void)
{
	int ret;

	ibv_iov_limit = clamp(ibv_iov_limit, 1U, (unsigned int)IBV_MAX_SGE);
	ret = ibv_device_init();
	if (ret)
		return ret;
	ret = kofi_provider_register(&ibv_provider);
	if (ret) {
		ibv_device_exit();
		return ret;
	}
	return 0;
}

static void __exit ibv_exit(void)
{
	kofi_provider_deregister(&ibv_provider);
	ibv_device_exit();
}

module_init(ibv_init);
module_exit(ibv_exit);

MODULE_DESCRIPTION("kOFI ib_verbs provider: RC queue pairs over ib_core and rdma_cm");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_KOFI_PROV(IBV_PROV_NAME);
