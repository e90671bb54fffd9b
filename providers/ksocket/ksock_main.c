// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ksocket provider: module, registration, fi_getinfo(), fabric and
 * domain objects.
 *
 * ksocket runs FI_EP_MSG endpoints over kernel TCP sockets, IPv4 and IPv6,
 * speaking the wire protocol of libfabric's tcp provider (ksock_proto.h).
 * See Documentation/ksocket.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "ksock.h"

struct workqueue_struct *ksock_wq;
struct kmem_cache *ksock_req_cache;

#define KSOCK_CAPS	(FI_MSG | FI_RMA | FI_SEND | FI_RECV | FI_READ | \
			 FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE |	\
			 FI_REMOTE_CQ_DATA | FI_LOCAL_COMM | FI_REMOTE_COMM)

/**
 * ksock_info_alloc() - a fresh info describing what ksocket offers
 * @addr_format: FI_SOCKADDR_IN or FI_SOCKADDR_IN6
 *
 * Context: process context, may sleep.
 * Return: the info, or NULL.
 */
struct fi_info *ksock_info_alloc(u32 addr_format)
{
	struct fi_info *info = fi_allocinfo(GFP_KERNEL);

	if (!info)
		return NULL;
	info->caps = KSOCK_CAPS;
	info->addr_format = addr_format;
	info->tx_attr->caps = KSOCK_CAPS;
	info->tx_attr->inject_size = KSOCK_INJECT_SIZE;
	info->tx_attr->size = KSOCK_TX_SIZE;
	info->tx_attr->iov_limit = KSOCK_IOV_LIMIT;
	info->tx_attr->rma_iov_limit = KSOCK_RMA_IOV_MAX;
	info->rx_attr->caps = KSOCK_CAPS;
	info->rx_attr->size = KSOCK_RX_SIZE;
	info->rx_attr->iov_limit = KSOCK_IOV_LIMIT;
	info->ep_attr->type = FI_EP_MSG;
	info->ep_attr->protocol_version = KSOCK_PROTO_VERSION;
	info->ep_attr->max_msg_size = KSOCK_MAX_MSG_SIZE;
	info->ep_attr->max_cm_data_size = KSOCK_CM_DATA_MAX;
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;
	info->domain_attr->threading = FI_THREAD_SAFE;
	info->domain_attr->control_progress = FI_PROGRESS_AUTO;
	info->domain_attr->data_progress = FI_PROGRESS_AUTO;
	info->domain_attr->resource_mgmt = FI_RM_ENABLED;
	info->domain_attr->mr_mode = FI_MR_PROV_KEY;
	info->domain_attr->mr_key_size = sizeof(u64);
	info->domain_attr->cq_data_size = sizeof(u64);
	info->domain_attr->cq_cnt = 256;
	info->domain_attr->ep_cnt = 4096;
	info->domain_attr->mr_cnt = 65536;
	info->domain_attr->mr_iov_limit = KOFI_SW_MR_IOV_LIMIT;
	info->domain_attr->name = kstrdup(KSOCK_PROV_NAME, GFP_KERNEL);
	info->fabric_attr->name = kstrdup(KSOCK_PROV_NAME, GFP_KERNEL);
	info->fabric_attr->prov_name = kstrdup(KSOCK_PROV_NAME, GFP_KERNEL);
	info->fabric_attr->prov_version = KSOCK_PROV_VERSION;
	if (!info->domain_attr->name || !info->fabric_attr->name ||
	    !info->fabric_attr->prov_name) {
		fi_freeinfo(info);
		return NULL;
	}
	return info;
}

/* FI_EP_MSG infos first, then FI_EP_RDM ones, IPv4 before IPv6. */
static int ksock_getinfo(u32 version, const struct fi_info *hints, u64 flags,
			 struct fi_info **info)
{
	static const u32 formats[] = { FI_SOCKADDR_IN, FI_SOCKADDR_IN6 };
	struct fi_info *head = NULL, **tail = &head, *cur;
	unsigned int i;

	for (i = 0; i < 2 * ARRAY_SIZE(formats); i++) {
		u32 format = formats[i % ARRAY_SIZE(formats)];
		bool rdm = i >= ARRAY_SIZE(formats);

		if (hints->addr_format != FI_FORMAT_UNSPEC &&
		    hints->addr_format != FI_SOCKADDR &&
		    hints->addr_format != format)
			continue;
		if (hints->ep_attr->type != FI_EP_UNSPEC &&
		    hints->ep_attr->type != (rdm ? FI_EP_RDM : FI_EP_MSG))
			continue;
		cur = rdm ? ksock_rdm_info_alloc(format) :
			    ksock_info_alloc(format);
		if (!cur) {
			fi_freeinfo(head);
			return -ENOMEM;
		}
		*tail = cur;
		tail = &cur->next;
	}
	*info = head;
	return head ? 0 : -ENODATA;
}

/* ---- domain ---- */

static int ksock_domain_close(struct fid *fid)
{
	struct kofi_sw_domain *dom = container_of(fid, struct kofi_sw_domain,
						  domain.fid);

	kofi_sw_domain_fini(dom);
	kfree(dom);
	return 0;
}

static const struct fi_ops ksock_domain_fi_ops = {
	.close = ksock_domain_close,
};

/* fi_endpoint(): FI_EP_RDM endpoints are the RDM engine's. */
static int ksock_endpoint(struct fid_domain *domain, struct fi_info *info,
			  struct fid_ep **ep, void *context)
{
	if (info->ep_attr && info->ep_attr->type == FI_EP_RDM)
		return ksock_rdm_open(domain, info, ep, context);
	return ksock_ep_open(domain, info, ep, context);
}

/* Address vectors, for FI_EP_RDM endpoints: of the domain's format. */
static const struct fi_ops_domain ksock_domain_ops = {
	.cq_open = kofi_cq_open_generic,
	.endpoint = ksock_endpoint,
	.av_open = kofi_sw_domain_av_open,
};

static int ksock_domain_open(struct fid_fabric *fabric, struct fi_info *info,
			     struct fid_domain **domain, void *context)
{
	struct kofi_sw_domain *dom;
	int ret;

	if (info->domain_attr && info->domain_attr->name &&
	    strcmp(info->domain_attr->name, KSOCK_PROV_NAME))
		return -EINVAL;
	dom = kzalloc(sizeof(*dom), GFP_KERNEL);
	if (!dom)
		return -ENOMEM;
	ret = kofi_sw_domain_init(dom, fabric, info, &ksock_domain_fi_ops,
				  &ksock_domain_ops, context);
	if (ret) {
		kfree(dom);
		return ret;
	}
	*domain = &dom->domain;
	return 0;
}

/* ---- fabric ---- */

static int ksock_fabric_close(struct fid *fid)
{
	kfree(container_of(fid, struct ksock_fabric, fabric.fid));
	return 0;
}

static const struct fi_ops ksock_fabric_fi_ops = {
	.close = ksock_fabric_close,
};

static const struct fi_ops_fabric ksock_fabric_ops = {
	.domain = ksock_domain_open,
	.passive_ep = ksock_pep_open,
	.eq_open = kofi_eq_open_generic,
};

static int ksock_fabric_open(struct fi_fabric_attr *attr,
			     struct fid_fabric **fabric, void *context)
{
	struct ksock_fabric *fab;

	fab = kzalloc(sizeof(*fab), GFP_KERNEL);
	if (!fab)
		return -ENOMEM;
	kofi_fid_init(&fab->fabric.fid, FI_CLASS_FABRIC, &ksock_fabric_fi_ops,
		      context);
	fab->fabric.ops = &ksock_fabric_ops;
	*fabric = &fab->fabric;
	return 0;
}

struct kofi_provider ksock_prov = {
	.name = KSOCK_PROV_NAME,
	.version = KSOCK_PROV_VERSION,
	.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
	.owner = THIS_MODULE,
	.priority = KOFI_PRIO_SOFTWARE,
	.getinfo = ksock_getinfo,
	.fabric = ksock_fabric_open,
};

static int __init ksock_init(void)
{
	int ret;

	ksock_proto_checks();
	/* endpoints' requests, allocated as their queues grow */
	ksock_req_cache = kmem_cache_create("kofi_ksock_req",
					    sizeof(struct ksock_req),
					    __alignof__(struct ksock_req), 0,
					    NULL);
	if (!ksock_req_cache)
		return -ENOMEM;
	ksock_wq = alloc_workqueue("kofi_ksocket", WQ_HIGHPRI, 0);
	if (!ksock_wq) {
		ret = -ENOMEM;
		goto err_cache;
	}
	ret = kofi_provider_register(&ksock_prov);
	if (ret)
		goto err_wq;
	return 0;
err_wq:
	destroy_workqueue(ksock_wq);
err_cache:
	kmem_cache_destroy(ksock_req_cache);
	return ret;
}

static void __exit ksock_exit(void)
{
	kofi_provider_deregister(&ksock_prov);
	destroy_workqueue(ksock_wq);
	kmem_cache_destroy(ksock_req_cache);
}

module_init(ksock_init);
module_exit(ksock_exit);

MODULE_DESCRIPTION("kOFI ksocket provider: FI_EP_MSG over kernel TCP sockets");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_KOFI_PROV(KSOCK_PROV_NAME);
