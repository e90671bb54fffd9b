// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: module, module parameters, registration, fi_getinfo(), fabric and
 * domain objects.
 *
 * rxm's infos ("ksocket;rxm", "ib_verbs;rxm") are the FI_EP_MSG (IPv4 or IPv6)
 * infos of ksocket and ib_verbs with FI_MSG and FI_RMA, turned into
 * FI_EP_RDM infos, with remote CQ data where the core has it (ib_verbs
 * on an iWARP device has none: RMA writes would not carry it).  Over
 * ib_verbs, which registers memory by its pages, messages are at most
 * 4 MiB (less on iWARP: the core's largest read) and remote CQ data of
 * RMA writes is 4 bytes (rxm_proto.h).  Its fabric and
 * domain are the utility objects of <kofi/util.h>, which own the core's;
 * the domain adds the shared address vector and CQ.
 *
 * The module registers a second provider, "net" ("ksocket;net"): the same
 * endpoints over ksocket speaking libfabric's net wire instead of rxm's
 * (rxm_proto.h), for peers running libfabric's net provider (and its
 * successor, tcp's own RDM).  Messages are as large as ksocket's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "rxm.h"

struct workqueue_struct *rxm_wq;

unsigned int rxm_conn_rx_bufs = 4;
module_param_named(conn_rx_bufs, rxm_conn_rx_bufs, uint, 0644);
MODULE_PARM_DESC(conn_rx_bufs,
		 "bounce buffers of 16448 bytes a peer connection may post: one at first (ten over ib_verbs with credit flow control, and at least ten), one more for each message waiting unexpected (1..128, default 4)");

unsigned int rxm_connect_timeout_ms = 10000;
module_param_named(connect_timeout_ms, rxm_connect_timeout_ms, uint, 0644);
MODULE_PARM_DESC(connect_timeout_ms,
		 "a connection to a peer not up within this many ms fails with ETIMEDOUT, for endpoints opened later (0 = never; at most 86400000; default 10000; fi_setopt(FI_OPT_CONNECT_TIMEOUT_MS) per endpoint)");

unsigned int rxm_sar_limit = RXM_MAX_SEGMENTS * RXM_EAGER_LIMIT;
module_param_named(sar_limit, rxm_sar_limit, uint, 0644);
MODULE_PARM_DESC(sar_limit,
		 "over ksocket, messages above 16384 bytes and up to this size go as segments of 16384 bytes, larger ones by rendezvous (at most and default 131072; 16384 or less: rendezvous for all, as libfabric's rxm sends over tcp)");

unsigned long rxm_big_unexp_bytes = 4 << 20;
module_param_named(big_unexp_bytes, rxm_big_unexp_bytes, ulong, 0644);
MODULE_PARM_DESC(big_unexp_bytes,
		 "bytes of unexpected messages above 16384 bytes that arrive whole (net; tagged over tcp) an endpoint keeps in buffers of their own; beyond, such a message waits on its connection for a receive (endpoints opened later; default 4194304)");

#define RXM_NET_PROV_NAME	"net"
#define RXM_NET_CORE		"ksocket;" RXM_NET_PROV_NAME

/* The core providers rxm runs over, as prov_name entries. */
#define RXM_CORE_KSOCKET	"ksocket;" RXM_PROV_NAME
#define RXM_CORE_IB_VERBS	"ib_verbs;" RXM_PROV_NAME
#define RXM_CORE_NAMES		RXM_CORE_KSOCKET "," RXM_CORE_IB_VERBS

/* Does a prov_name hint name one of rxm's layerings? */
static bool rxm_names_core(const char *spec)
{
	return spec && (strstr(spec, RXM_CORE_KSOCKET) ||
			strstr(spec, RXM_CORE_IB_VERBS));
}

/*
 * Hints for the core query: the FI_EP_MSG endpoints of ksocket and
 * ib_verbs, or of the one the user named ("ib_verbs;rxm": the core query
 * matches "core;rxm" against the user's prov_name).
 */
static void rxm_core_hints_common(struct fi_info *h)
{
	/* remote CQ data of RMA writes is the core's (not on iWARP) */
	h->caps = FI_MSG | FI_RMA | (h->caps & FI_REMOTE_CQ_DATA);
	/* out of memory: ask for what no core has, so that nothing is found */
	if (!h->fabric_attr->prov_name)
		h->caps = ~0ULL;
	/* IPv4 or IPv6 as the user asks, else as the core finds */
	if (h->addr_format != FI_SOCKADDR_IN6)
		h->addr_format = h->addr_format == FI_SOCKADDR_IN ?
				 FI_SOCKADDR_IN : FI_FORMAT_UNSPEC;
	h->ep_attr->type = FI_EP_MSG;
	/* a peer's address is the AV's business, not the core query's */
	kfree(h->dest_addr);
	h->dest_addr = NULL;
	h->dest_addrlen = 0;
}

static void rxm_core_hints(struct fi_info *h)
{
	char *name = NULL;

	if (!rxm_names_core(h->fabric_attr->prov_name)) {
		name = kstrdup(RXM_CORE_NAMES, GFP_KERNEL);
		kfree(h->fabric_attr->prov_name);
		h->fabric_attr->prov_name = name;
	}
	rxm_core_hints_common(h);
}

/* net runs over ksocket only: its tagged messages are tcp's op 1. */
static void rxm_net_core_hints(struct fi_info *h)
{
	kfree(h->fabric_attr->prov_name);
	h->fabric_attr->prov_name = kstrdup(RXM_NET_CORE, GFP_KERNEL);
	rxm_core_hints_common(h);
}

/* The rxm info over a core FI_EP_MSG info; NULL if out of memory. */
static struct fi_info *rxm_info_from_core(const struct fi_info *core)
{
	struct fi_info *info = fi_dupinfo(core, GFP_KERNEL);

	if (!info)
		return NULL;
	info->handle = NULL;
	info->caps = RXM_CAPS | (core->caps & FI_REMOTE_CQ_DATA);
	if (core->caps & FI_RMA)
		info->caps |= RXM_RMA_CAPS;
	info->mode = 0;
	kfree(info->dest_addr);
	info->dest_addr = NULL;
	info->dest_addrlen = 0;
	memset(info->tx_attr, 0, sizeof(*info->tx_attr));
	info->tx_attr->caps = info->caps & ~(FI_RECV | FI_DIRECTED_RECV |
					     FI_MULTI_RECV | FI_SOURCE |
					     FI_REMOTE_READ | FI_REMOTE_WRITE);
	info->tx_attr->inject_size = RXM_INJECT_SIZE;
	info->tx_attr->size = RXM_TX_SIZE;
	/* one entry of the core's goes to the header */
	info->tx_attr->iov_limit = clamp_t(size_t, core->tx_attr->iov_limit,
					   2, RXM_IOV_LIMIT + 1) - 1;
	memset(info->rx_attr, 0, sizeof(*info->rx_attr));
	info->rx_attr->caps = info->caps & ~(FI_SEND | FI_READ | FI_WRITE);
	info->rx_attr->size = RXM_RX_SIZE;
	info->rx_attr->iov_limit = RXM_IOV_LIMIT;
	memset(info->ep_attr, 0, sizeof(*info->ep_attr));
	info->ep_attr->type = FI_EP_RDM;
	info->ep_attr->protocol_version = RXM_CTRL_VERSION;
	/* above the eager limit by rendezvous, which reads with the core's RMA */
	info->ep_attr->max_msg_size =
		rxm_max_msg_size(core->ep_attr->max_msg_size,
				 core->caps & FI_RMA,
				 core->domain_attr->mr_mode & FI_MR_ALLOCATED);
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;
	info->domain_attr->threading = FI_THREAD_SAFE;
	info->domain_attr->control_progress = FI_PROGRESS_AUTO;
	info->domain_attr->data_progress = FI_PROGRESS_AUTO;
	info->domain_attr->resource_mgmt = FI_RM_ENABLED;
	info->domain_attr->cq_data_size = !(core->caps & FI_REMOTE_CQ_DATA) ?
		0 : rxm_cq_data_size(core->domain_attr->cq_data_size,
				     core->caps & FI_RMA);
	/* the domain's regions are the core's (kofi_util_domain_mr()) */
	if (core->caps & FI_RMA) {
		info->tx_attr->rma_iov_limit = core->tx_attr->rma_iov_limit;
	} else {
		info->domain_attr->mr_mode = 0;
		info->domain_attr->mr_key_size = 0;
		info->domain_attr->mr_cnt = 0;
		info->domain_attr->mr_iov_limit = 0;
	}
	info->domain_attr->caps = FI_LOCAL_COMM | FI_REMOTE_COMM;
	info->domain_attr->mode = 0;
	return info;
}

/*
 * The net info over a ksocket info: rxm's, with messages as large as the
 * core's (no rendezvous, no header) and the core's remote CQ data.
 */
static struct fi_info *rxm_net_info_from_core(const struct fi_info *core)
{
	struct fi_info *info = rxm_info_from_core(core);

	if (!info)
		return NULL;
	info->ep_attr->protocol_version = RXM_NET_CM_VERSION;
	info->ep_attr->max_msg_size = core->ep_attr->max_msg_size;
	info->domain_attr->cq_data_size = (core->caps & FI_REMOTE_CQ_DATA) ?
					  core->domain_attr->cq_data_size : 0;
	return info;
}

/* What rxm and net answer: reliable datagrams over the cores they name. */
static int rxm_getinfo_util(const struct kofi_util_prov *util,
			    bool (*names_core)(const char *spec),
			    u32 version, const struct fi_info *hints,
			    u64 flags, struct fi_info **info)
{
	const char *spec = hints->fabric_attr->prov_name;

	/*
	 * Reliable datagrams for who asks for them: FI_EP_RDM, or any type
	 * with the provider named in prov_name.
	 */
	if (hints->ep_attr->type == FI_EP_UNSPEC) {
		if (!spec || !strstr(spec, util->prov->name))
			return -ENODATA;
	} else if (hints->ep_attr->type != FI_EP_RDM) {
		return -ENODATA;
	}
	if (hints->caps & ~(RXM_CAPS | RXM_RMA_CAPS | FI_REMOTE_CQ_DATA))
		return -ENODATA;
	/* a core named must be one it runs over */
	if (spec && strchr(spec, ';') && !names_core(spec))
		return -ENODATA;
	if (hints->addr_format != FI_FORMAT_UNSPEC &&
	    hints->addr_format != FI_SOCKADDR &&
	    hints->addr_format != FI_SOCKADDR_IN &&
	    hints->addr_format != FI_SOCKADDR_IN6)
		return -ENODATA;
	return kofi_util_getinfo(util, version, hints, flags, info);
}

static int rxm_getinfo(u32 version, const struct fi_info *hints, u64 flags,
		       struct fi_info **info)
{
	return rxm_getinfo_util(&rxm_util, rxm_names_core, version, hints,
				flags, info);
}

static bool rxm_net_names_core(const char *spec)
{
	return spec && strstr(spec, RXM_NET_CORE);
}

static int rxm_net_getinfo(u32 version, const struct fi_info *hints,
			   u64 flags, struct fi_info **info)
{
	return rxm_getinfo_util(&rxm_net_util, rxm_net_names_core, version,
				hints, flags, info);
}

/* ---- domain and fabric: the utility objects ---- */

/* An AV of the domain's address format: peers of one family. */
static int rxm_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		       struct fid_av **av, void *context)
{
	struct kofi_util_domain *dom = container_of(domain,
						    struct kofi_util_domain,
						    domain);

	return kofi_av_open_generic(domain, attr, dom->addr_format, av,
				    context);
}

static const struct fi_ops_domain rxm_domain_ops = {
	.av_open = rxm_av_open,
	.cq_open = kofi_cq_open_generic,
	.endpoint = rxm_ep_open,
};

static int rxm_domain_open(struct fid_fabric *fabric, struct fi_info *info,
			   struct fid_domain **domain, void *context)
{
	int ret;

	ret = kofi_util_domain_open(fabric, info, &rxm_domain_ops, domain,
				    context);
	/*
	 * RMA on RDM endpoints is the core's, with the core's regions; every
	 * core rxm runs over has FI_RMA (rxm_core_hints()).
	 */
	if (!ret)
		kofi_util_domain_mr(container_of(*domain,
						 struct kofi_util_domain,
						 domain));
	return ret;
}

static const struct fi_ops_fabric rxm_fabric_ops = {
	.domain = rxm_domain_open,
	.eq_open = kofi_eq_open_generic,
};

static int rxm_fabric_open(struct fi_fabric_attr *attr,
			   struct fid_fabric **fabric, void *context)
{
	return kofi_util_fabric_open(&rxm_util, attr, &rxm_fabric_ops, fabric,
				     context);
}

static int rxm_net_fabric_open(struct fi_fabric_attr *attr,
			       struct fid_fabric **fabric, void *context)
{
	return kofi_util_fabric_open(&rxm_net_util, attr, &rxm_fabric_ops,
				     fabric, context);
}

static struct kofi_provider rxm_prov = {
	.name = RXM_PROV_NAME,
	.version = RXM_PROV_VERSION,
	.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
	.owner = THIS_MODULE,
	.priority = KOFI_PRIO_UTIL,
	.flags = KOFI_PROV_UTIL,
	.getinfo = rxm_getinfo,
	.fabric = rxm_fabric_open,
};

struct kofi_util_prov rxm_util = {
	.prov = &rxm_prov,
	.core_hints = rxm_core_hints,
	.info = rxm_info_from_core,
};

static struct kofi_provider rxm_net_prov = {
	.name = RXM_NET_PROV_NAME,
	.version = RXM_PROV_VERSION,
	.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
	.owner = THIS_MODULE,
	.priority = KOFI_PRIO_UTIL,
	.flags = KOFI_PROV_UTIL,
	.getinfo = rxm_net_getinfo,
	.fabric = rxm_net_fabric_open,
};

struct kofi_util_prov rxm_net_util = {
	.prov = &rxm_net_prov,
	.core_hints = rxm_net_core_hints,
	.info = rxm_net_info_from_core,
};

static int __init rxm_init(void)
{
	int ret;

	if (!rxm_conn_rx_bufs || rxm_conn_rx_bufs > 128)
		return -EINVAL;
	/* an injected payload is copied in with copy_from_iter() */
	rxm_tx_cache = kmem_cache_create_usercopy("kofi_rxm_tx",
						  sizeof(struct rxm_tx),
						  __alignof__(struct rxm_tx), 0,
						  offsetof(struct rxm_tx, buf),
						  sizeof_field(struct rxm_tx, buf),
						  NULL);
	if (!rxm_tx_cache)
		return -ENOMEM;
	rxm_wq = alloc_workqueue("kofi_rxm", WQ_MEM_RECLAIM, 0);
	if (!rxm_wq) {
		ret = -ENOMEM;
		goto err_cache;
	}
	rxm_util.wq = rxm_wq;
	rxm_net_util.wq = rxm_wq;
	ret = kofi_provider_register(&rxm_prov);
	if (ret)
		goto err_wq;
	ret = kofi_provider_register(&rxm_net_prov);
	if (ret)
		goto err_rxm;
	return 0;
err_rxm:
	kofi_provider_deregister(&rxm_prov);
err_wq:
	destroy_workqueue(rxm_wq);
err_cache:
	kmem_cache_destroy(rxm_tx_cache);
	return ret;
}

static void __exit rxm_exit(void)
{
	kofi_provider_deregister(&rxm_net_prov);
	kofi_provider_deregister(&rxm_prov);
	destroy_workqueue(rxm_wq);
	kmem_cache_destroy(rxm_tx_cache);
}

module_init(rxm_init);
module_exit(rxm_exit);

MODULE_DESCRIPTION("kOFI rxm provider: reliable datagrams over connected endpoints (libfabric ofi_rxm)");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_KOFI_PROV(RXM_PROV_NAME);
MODULE_ALIAS_KOFI_PROV(RXM_NET_PROV_NAME);
