// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI rds provider: module, registration, fi_getinfo(), fabric and
 * domain objects.
 *
 * rds runs FI_EP_RDM endpoints on kernel AF_RDS sockets, IPv4 or IPv6,
 * over one of RDS's transports: TCP or InfiniBand (rds_rdma, on any RDMA
 * device).  An info's address format is FI_SOCKADDR_IN6 when the hints
 * ask for it (an IPv6 node or source address does), else FI_SOCKADDR_IN;
 * IPv6 is offered over TCP only.
 * Each transport is a domain, named "tcp" or "ib"; fi_getinfo() returns
 * the default transport's info first (module parameter "transport") and
 * the InfiniBand info only when an RDS/IB socket can be made (and bound to
 * the source address, when there is one).  Each transport has three
 * infos: the FI_MSG-only one, whose messages are the bare payload, the one
 * with FI_TAGGED and FI_REMOTE_CQ_DATA, whose messages have the header of
 * krds_proto.h, and the one that adds FI_RMA (carried in messages,
 * krds_rma.c) with memory regions of the domain.  See
 * Documentation/rds.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/rds.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "krds.h"

struct workqueue_struct *krds_wq;

static char *transport = "tcp";
module_param(transport, charp, 0444);
MODULE_PARM_DESC(transport,
		 "RDS transport of a domain whose info names none: tcp (default) or ib");

unsigned int krds_rma_timeout_ms = 30000;
module_param_named(rma_timeout_ms, krds_rma_timeout_ms, uint, 0644);
MODULE_PARM_DESC(rma_timeout_ms,
		 "How long an RMA operation waits for its answer before it fails with ETIMEDOUT, in ms (default 30000; 0: for ever)");

/* The default transport: "transport", parsed at load. */
static int krds_default_transport;

static const char * const krds_transport_names[] = {
	[RDS_TRANS_IB] = "ib",
	[RDS_TRANS_TCP] = "tcp",
};

/**
 * krds_transport_parse() - the RDS transport a domain name names
 * @name: "tcp" or "ib" (any case), or NULL for the default transport
 *
 * Context: any context.
 * Return: RDS_TRANS_TCP or RDS_TRANS_IB; -EINVAL for another name.
 */
int krds_transport_parse(const char *name)
{
	if (!name)
		return krds_default_transport;
	if (!strcasecmp(name, krds_transport_names[RDS_TRANS_TCP]))
		return RDS_TRANS_TCP;
	if (!strcasecmp(name, krds_transport_names[RDS_TRANS_IB]))
		return RDS_TRANS_IB;
	return -EINVAL;
}

#define KRDS_CAPS	(FI_MSG | FI_SEND | FI_RECV | FI_SOURCE | \
			 FI_DIRECTED_RECV | FI_MULTI_RECV | FI_REMOTE_COMM)
/* What only receives have. */
#define KRDS_RX_CAPS	(FI_RECV | FI_SOURCE | FI_DIRECTED_RECV | \
			 FI_MULTI_RECV)

/* What the header adds (krds_proto.h). */
#define KRDS_HDR_CAPS	(FI_TAGGED | FI_REMOTE_CQ_DATA)
/* What RMA in messages adds (krds_rma.c), and what only targets have. */
#define KRDS_RMA_CAPS	(FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | \
			 FI_REMOTE_WRITE)
#define KRDS_RMA_RX_CAPS	(FI_REMOTE_READ | FI_REMOTE_WRITE)

/* The infos of a transport, in the order fi_getinfo() gives them. */
enum krds_kind {
	KRDS_BARE,	/* FI_MSG only: the bare payload */
	KRDS_HDR,	/* the header: tagged, remote CQ data */
	KRDS_RMA,	/* the header and RMA */
	KRDS_KINDS,
};

/*
 * A fresh info describing what rds offers over @trans, as @kind says, for
 * addresses of @fmt; NULL if no memory.
 */
static struct fi_info *krds_info_alloc(int trans, enum krds_kind kind,
				       u32 fmt)
{
	struct fi_info *info = fi_allocinfo(GFP_KERNEL);
	bool hdr = kind != KRDS_BARE;
	u64 caps = KRDS_CAPS | (hdr ? KRDS_HDR_CAPS : 0) |
		   (kind == KRDS_RMA ? KRDS_RMA_CAPS : 0);

	if (!info)
		return NULL;
	info->caps = caps;
	info->addr_format = fmt;
	info->tx_attr->caps = caps & ~(KRDS_RX_CAPS | KRDS_RMA_RX_CAPS);
	info->tx_attr->inject_size = KRDS_INJECT_SIZE;
	info->tx_attr->size = KRDS_TX_SIZE;
	info->tx_attr->iov_limit = KRDS_IOV_LIMIT;
	info->rx_attr->caps = caps & ~(FI_SEND | FI_READ | FI_WRITE);
	info->rx_attr->size = KRDS_RX_SIZE;
	info->rx_attr->iov_limit = KRDS_IOV_LIMIT;
	info->ep_attr->type = FI_EP_RDM;
	info->ep_attr->max_msg_size = hdr ? KRDS_MAX_HDR_MSG_SIZE :
					    KRDS_MAX_MSG_SIZE;
	if (kind == KRDS_RMA) {
		info->ep_attr->max_msg_size = KRDS_MAX_RMA_SIZE;
		info->tx_attr->rma_iov_limit = 1;
		info->domain_attr->mr_mode = FI_MR_PROV_KEY;
		info->domain_attr->mr_key_size = sizeof(u64);
		info->domain_attr->mr_iov_limit = KOFI_SW_MR_IOV_LIMIT;
	}
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;
	info->domain_attr->threading = FI_THREAD_SAFE;
	info->domain_attr->control_progress = FI_PROGRESS_AUTO;
	info->domain_attr->data_progress = FI_PROGRESS_AUTO;
	info->domain_attr->cq_data_size = hdr ? sizeof(u64) : 0;
	info->domain_attr->cq_cnt = 256;
	info->domain_attr->ep_cnt = 4096;
	info->domain_attr->name = kstrdup(krds_transport_names[trans],
					  GFP_KERNEL);
	info->fabric_attr->name = kstrdup(KRDS_PROV_NAME, GFP_KERNEL);
	info->fabric_attr->prov_name = kstrdup(KRDS_PROV_NAME, GFP_KERNEL);
	info->fabric_attr->prov_version = KRDS_PROV_VERSION;
	if (!info->domain_attr->name || !info->fabric_attr->name ||
	    !info->fabric_attr->prov_name) {
		fi_freeinfo(info);
		return NULL;
	}
	return info;
}

/*
 * Can an RDS socket over @trans be made in the caller's namespace - and
 * bound to @src's address, if given?  The socket option loads the
 * transport's module if need be.  TCP is taken as usable: what stops it
 * stops every RDS socket, and fi_enable() says so.
 */
static bool krds_transport_usable(int trans, const struct fi_info *hints)
{
	size_t len = kofi_sockaddr_len(hints->src_addr, hints->src_addrlen);
	union kofi_sockaddr any = {};
	struct socket *sock;

	if (trans == RDS_TRANS_TCP)
		return true;
	if (len) {
		/* any port: the one asked for may be taken already */
		memcpy(&any, hints->src_addr, len);
		kofi_sockaddr_set_port(&any, 0);
	}
	if (krds_sock_create(current->nsproxy->net_ns, trans,
			     len ? &any : NULL, &sock))
		return false;
	sock_release(sock);
	return true;
}

static int krds_getinfo(u32 version, const struct fi_info *hints, u64 flags,
			struct fi_info **info)
{
	const char *want = hints->domain_attr ? hints->domain_attr->name : NULL;
	int order[] = { krds_default_transport,
			krds_default_transport == RDS_TRANS_TCP ?
			RDS_TRANS_IB : RDS_TRANS_TCP };
	struct fi_info *head = NULL, **tail = &head;
	const struct sockaddr *src = hints->src_addr;
	u32 fmt = FI_SOCKADDR_IN;
	unsigned int i, kind;

	if (hints->addr_format == FI_SOCKADDR_IN6 ||
	    (kofi_sockaddr_len(src, hints->src_addrlen) &&
	     src->sa_family == AF_INET6))
		fmt = FI_SOCKADDR_IN6;
	if (hints->addr_format != FI_FORMAT_UNSPEC &&
	    hints->addr_format != FI_SOCKADDR &&
	    hints->addr_format != fmt)
		return -ENODATA;
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		if (want && krds_transport_parse(want) != order[i])
			continue;
		if (!krds_transport_usable(order[i], hints))
			continue;
		for (kind = KRDS_BARE; kind < KRDS_KINDS; kind++) {
			*tail = krds_info_alloc(order[i], kind, fmt);
			if (!*tail) {
				fi_freeinfo(head);
				return -ENOMEM;
			}
			tail = &(*tail)->next;
		}
	}
	*info = head;
	return head ? 0 : -ENODATA;
}

/* ---- domain ---- */

static int krds_domain_close(struct fid *fid)
{
	struct krds_domain *dom = container_of(fid, struct krds_domain,
					       sw.domain.fid);

	kofi_sw_domain_fini(&dom->sw);
	kfree(dom);
	return 0;
}

static const struct fi_ops krds_domain_fi_ops = {
	.close = krds_domain_close,
};

static const struct fi_ops_domain krds_domain_ops = {
	.av_open = kofi_sw_domain_av_open,
	.cq_open = kofi_cq_open_generic,
	.endpoint = krds_ep_open,
};

static int krds_domain_open(struct fid_fabric *fabric, struct fi_info *info,
			    struct fid_domain **domain, void *context)
{
	struct krds_domain *dom;
	int trans, ret;

	trans = krds_transport_parse(info->domain_attr ?
				     info->domain_attr->name : NULL);
	if (trans < 0)
		return trans;
	if (info->addr_format != FI_FORMAT_UNSPEC &&
	    info->addr_format != FI_SOCKADDR_IN &&
	    info->addr_format != FI_SOCKADDR_IN6)
		return -EINVAL;
	dom = kzalloc(sizeof(*dom), GFP_KERNEL);
	if (!dom)
		return -ENOMEM;
	ret = kofi_sw_domain_init(&dom->sw, fabric, info, &krds_domain_fi_ops,
				  &krds_domain_ops, context);
	if (ret) {
		kfree(dom);
		return ret;
	}
	dom->transport = trans;
	*domain = &dom->sw.domain;
	return 0;
}

/* ---- fabric ---- */

static int krds_fabric_close(struct fid *fid)
{
	kfree(container_of(fid, struct fid_fabric, fid));
	return 0;
}

static const struct fi_ops krds_fabric_fi_ops = {
	.close = krds_fabric_close,
};

static const struct fi_ops_fabric krds_fabric_ops = {
	.domain = krds_domain_open,
	.eq_open = kofi_eq_open_generic,
};

static int krds_fabric_open(struct fi_fabric_attr *attr,
			    struct fid_fabric **fabric, void *context)
{
	struct fid_fabric *fab;

	fab = kzalloc(sizeof(*fab), GFP_KERNEL);
	if (!fab)
		return -ENOMEM;
	kofi_fid_init(&fab->fid, FI_CLASS_FABRIC, &krds_fabric_fi_ops, context);
	fab->ops = &krds_fabric_ops;
	*fabric = fab;
	return 0;
}

static struct kofi_provider krds_prov = {
	.name = KRDS_PROV_NAME,
	.version = KRDS_PROV_VERSION,
	.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
	.owner = THIS_MODULE,
	.priority = KOFI_PRIO_SOFTWARE,
	.getinfo = krds_getinfo,
	.fabric = krds_fabric_open,
};

static int __init krds_init(void)
{
	int ret;

	ret = transport ? krds_transport_parse(transport) : -EINVAL;
	if (ret < 0) {
		pr_err("transport=%s: tcp or ib\n", transport);
		return ret;
	}
	krds_default_transport = ret;
	krds_wq = alloc_workqueue("kofi_rds", 0, 0);
	if (!krds_wq)
		return -ENOMEM;
	ret = kofi_provider_register(&krds_prov);
	if (ret) {
		destroy_workqueue(krds_wq);
		return ret;
	}
	return 0;
}

static void __exit krds_exit(void)
{
	kofi_provider_deregister(&krds_prov);
	destroy_workqueue(krds_wq);
}

module_init(krds_init);
module_exit(krds_exit);

MODULE_DESCRIPTION("kOFI rds provider: FI_EP_RDM over kernel RDS sockets");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_KOFI_PROV(KRDS_PROV_NAME);
