// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI rds provider: module, registration, fi_getinfo(), fabric and
 * domain objects.
 *
 * rds runs FI_EP_RDM endpoints on kernel AF_RDS sockets over RDS's TCP
 * transport, IPv4.  See Documentation/rds.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "krds.h"

struct workqueue_struct *krds_wq;

#define KRDS_CAPS	(FI_MSG | FI_SEND | FI_RECV | FI_SOURCE | \
			 FI_REMOTE_COMM)

/**
 * krds_info_alloc() - a fresh info describing what rds offers
 *
 * Context: process context, may sleep.
 * Return: the info, or NULL.
 */
struct fi_info *krds_info_alloc(void)
{
	struct fi_info *info = fi_allocinfo(GFP_KERNEL);

	if (!info)
		return NULL;
	info->caps = KRDS_CAPS;
	info->addr_format = FI_SOCKADDR_IN;
	info->tx_attr->caps = KRDS_CAPS & ~(FI_RECV | FI_SOURCE);
	info->tx_attr->inject_size = KRDS_INJECT_SIZE;
	info->tx_attr->size = KRDS_TX_SIZE;
	info->tx_attr->iov_limit = KRDS_IOV_LIMIT;
	info->rx_attr->caps = KRDS_CAPS & ~FI_SEND;
	info->rx_attr->size = KRDS_RX_SIZE;
	info->rx_attr->iov_limit = KRDS_IOV_LIMIT;
	info->ep_attr->type = FI_EP_RDM;
	info->ep_attr->max_msg_size = KRDS_MAX_MSG_SIZE;
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;
	info->domain_attr->threading = FI_THREAD_SAFE;
	info->domain_attr->control_progress = FI_PROGRESS_AUTO;
	info->domain_attr->data_progress = FI_PROGRESS_AUTO;
	info->domain_attr->cq_cnt = 256;
	info->domain_attr->ep_cnt = 4096;
	info->domain_attr->name = kstrdup(KRDS_PROV_NAME, GFP_KERNEL);
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

static int krds_getinfo(u32 version, const struct fi_info *hints, u64 flags,
			struct fi_info **info)
{
	if (hints->addr_format != FI_FORMAT_UNSPEC &&
	    hints->addr_format != FI_SOCKADDR &&
	    hints->addr_format != FI_SOCKADDR_IN)
		return -ENODATA;
	*info = krds_info_alloc();
	return *info ? 0 : -ENOMEM;
}

/* ---- domain ---- */

static int krds_domain_close(struct fid *fid)
{
	kfree(container_of(fid, struct fid_domain, fid));
	return 0;
}

static int krds_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
			struct fid_av **av, void *context)
{
	return kofi_av_open_generic(domain, attr, FI_SOCKADDR_IN, av, context);
}

static const struct fi_ops krds_domain_fi_ops = {
	.close = krds_domain_close,
};

static const struct fi_ops_domain krds_domain_ops = {
	.av_open = krds_av_open,
	.cq_open = kofi_cq_open_generic,
	.endpoint = krds_ep_open,
};

static int krds_domain_open(struct fid_fabric *fabric, struct fi_info *info,
			    struct fid_domain **domain, void *context)
{
	struct fid_domain *dom;

	if (info->domain_attr && info->domain_attr->name &&
	    strcmp(info->domain_attr->name, KRDS_PROV_NAME))
		return -EINVAL;
	if (info->addr_format != FI_FORMAT_UNSPEC &&
	    info->addr_format != FI_SOCKADDR_IN)
		return -EINVAL;
	dom = kzalloc(sizeof(*dom), GFP_KERNEL);
	if (!dom)
		return -ENOMEM;
	kofi_fid_init(&dom->fid, FI_CLASS_DOMAIN, &krds_domain_fi_ops, context);
	dom->ops = &krds_domain_ops;
	*domain = dom;
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
