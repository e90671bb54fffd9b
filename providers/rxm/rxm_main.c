// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: module, registration, fi_getinfo(), fabric and domain objects.
 *
 * rxm's infos ("ksocket;rxm", "ib_verbs;rxm") are the FI_EP_MSG (IPv4 or IPv6)
 * infos of ksocket and ib_verbs with FI_MSG and FI_RMA, turned into
 * FI_EP_RDM infos by kofi.ko's RDM engine (<kofi/rdm.h>), with remote CQ
 * data where the core has it (ib_verbs on an iWARP device has none: RMA
 * writes would not carry it).  Its fabric and domain are the utility
 * objects of <kofi/util.h>, which own the core's; the domain adds the
 * shared address vector and CQ; its endpoints are the engine's.
 *
 * The module registers a second provider, "net" ("ksocket;net"): the same
 * endpoints over ksocket speaking libfabric's net wire instead of rxm's,
 * for peers running libfabric's net provider (and its
 * successor, tcp's own RDM).  Messages are as large as ksocket's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kofi/rdm.h>
#include <kofi/util.h>

#define RXM_PROV_NAME		"rxm"
#define RXM_PROV_VERSION	FI_VERSION(0, 1)

static struct workqueue_struct *rxm_wq;
static struct kofi_util_prov rxm_util;
static struct kofi_util_prov rxm_net_util;
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

/* The infos over a core info: the RDM engine's, for each wire. */
static struct fi_info *rxm_info_rxm(const struct fi_info *core)
{
	return kofi_rdm_info(core, KOFI_RDM_WIRE_RXM);
}

static struct fi_info *rxm_info_net(const struct fi_info *core)
{
	return kofi_rdm_info(core, KOFI_RDM_WIRE_NET);
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
	if (hints->caps & ~(KOFI_RDM_CAPS | KOFI_RDM_RMA_CAPS |
			    FI_REMOTE_CQ_DATA))
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

/*
 * fi_endpoint(): the RDM engine's endpoint over the core domain, with the
 * core info the user's info came from.
 */
static int rxm_ep_open(struct fid_domain *domain, struct fi_info *info,
		       struct fid_ep **ep, void *context)
{
	struct kofi_util_domain *dom = container_of(domain,
						    struct kofi_util_domain,
						    domain);
	struct kofi_rdm_core under = {
		.domain = dom->core,
		.fabric = dom->fab->core,
		.mr_mode = dom->core_attr.mr_mode,
		.wire = dom->fab->util == &rxm_net_util ? KOFI_RDM_WIRE_NET :
			KOFI_RDM_WIRE_RXM,
	};
	struct fi_info *core_info;
	int ret;

	if (!info->ep_attr || info->ep_attr->type != FI_EP_RDM || info->handle)
		return -EINVAL;
	ret = kofi_util_core_info(dom->fab->util, info, &core_info);
	if (ret)
		return ret;
	return kofi_rdm_ep_open(&under, info, core_info, ep, context);
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

static struct kofi_util_prov rxm_util = {
	.prov = &rxm_prov,
	.core_hints = rxm_core_hints,
	.info = rxm_info_rxm,
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

static struct kofi_util_prov rxm_net_util = {
	.prov = &rxm_net_prov,
	.core_hints = rxm_net_core_hints,
	.info = rxm_info_net,
};

static int __init rxm_init(void)
{
	int ret;

	/* the utility machinery's work (no passive endpoints of rxm's) */
	rxm_wq = alloc_workqueue("kofi_rxm", WQ_MEM_RECLAIM, 0);
	if (!rxm_wq)
		return -ENOMEM;
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
	return ret;
}

static void __exit rxm_exit(void)
{
	kofi_provider_deregister(&rxm_net_prov);
	kofi_provider_deregister(&rxm_prov);
	destroy_workqueue(rxm_wq);
}

module_init(rxm_init);
module_exit(rxm_exit);

MODULE_DESCRIPTION("kOFI rxm provider: reliable datagrams over connected endpoints (libfabric ofi_rxm)");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_KOFI_PROV(RXM_PROV_NAME);
MODULE_ALIAS_KOFI_PROV(RXM_NET_PROV_NAME);
