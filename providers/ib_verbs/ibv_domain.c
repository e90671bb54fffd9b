// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: domains.
 *
 * A domain is one port of one RDMA device with a protection domain.  It
 * is allocated without IB_PD_UNSAFE_GLOBAL_RKEY: remote access is only
 * ever granted through FRWR memory regions (ibv_mr.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/string.h>
#include "ibv.h"

static int ibv_domain_close(struct fid *fid)
{
	struct ibv_domain *dom = container_of(fid, struct ibv_domain,
					      domain.fid);
	struct ibv_dev *dev = dom->dev;

	mutex_lock(&dev->lock);
	list_del(&dom->dev_node);
	mutex_unlock(&dev->lock);
	/* No endpoint or MR is left: the core refuses to close before. */
	mutex_lock(&dom->lock);
	if (dom->pd)
		ib_dealloc_pd(dom->pd);
	dom->pd = NULL;
	mutex_unlock(&dom->lock);
	ibv_dev_put(dev);
	kfree(dom);
	return 0;
}

/**
 * ibv_domain_kill() - the domain's device is going away
 * @dom: the domain
 *
 * Kills every endpoint (disconnect, flush, free the QP and CQ, report
 * ENODEV on its EQ) and MR of the domain and frees its PD.  Called by the
 * ib_client remove callback with the device's lock held.
 *
 * Context: process context, may sleep.
 */
void ibv_domain_kill(struct ibv_domain *dom)
{
	struct ibv_ep *ep;
	struct ibv_mr *mr;

	mutex_lock(&dom->lock);
	dom->removed = true;
	list_for_each_entry(ep, &dom->eps, dom_node)
		ibv_ep_kill(ep, ENODEV);
	mutex_lock(&dom->mr_lock);
	list_for_each_entry(mr, &dom->mrs, dom_node)
		ibv_mr_kill(mr);
	mutex_unlock(&dom->mr_lock);
	if (dom->pd)
		ib_dealloc_pd(dom->pd);
	dom->pd = NULL;
	mutex_unlock(&dom->lock);
}

static const struct fi_ops ibv_domain_fi_ops = {
	.close = ibv_domain_close,
};

static const struct fi_ops_domain ibv_domain_ops = {
	.cq_open = kofi_cq_open_generic,
	.endpoint = ibv_endpoint,
};

/* Split "dev" or "dev:port" into a device name and a port. */
static int ibv_parse_domain_name(const char *name, char *dev, size_t len,
				 u32 *port)
{
	const char *colon = strrchr(name, ':');

	*port = 0;
	if (!colon) {
		if (strscpy(dev, name, len) < 0)
			return -EINVAL;
		return 0;
	}
	if (colon - name >= len || kstrtou32(colon + 1, 10, port) || !*port)
		return -EINVAL;
	memcpy(dev, name, colon - name);
	dev[colon - name] = '\0';
	return 0;
}

/**
 * ibv_domain_open() - the fabric's domain operation
 * @fabric: the fabric
 * @info: an info of the provider; domain_attr->name names the device
 * @domain: the new domain
 * @context: user context
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a missing or malformed name; -ENODEV if the
 * device does not exist (any more); -ENOMEM; the error of ib_alloc_pd().
 */
int ibv_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **domain, void *context)
{
	char name[IB_DEVICE_NAME_MAX];
	struct ibv_domain *dom;
	struct ibv_dev *dev;
	u32 port;
	int ret;

	if (!info->domain_attr || !info->domain_attr->name)
		return -EINVAL;
	ret = ibv_parse_domain_name(info->domain_attr->name, name,
				    sizeof(name), &port);
	if (ret)
		return ret;
	dev = ibv_dev_get_by_name(name);
	if (!dev)
		return -ENODEV;
	ret = -EINVAL;
	if (!port)
		port = rdma_start_port(dev->ibdev);
	if (port < rdma_start_port(dev->ibdev) ||
	    port > rdma_end_port(dev->ibdev))
		goto err_put;
	ret = -ENOMEM;
	dom = kzalloc(sizeof(*dom), GFP_KERNEL);
	if (!dom)
		goto err_put;
	dom->dev = dev;
	dom->port = port;
	mutex_init(&dom->lock);
	mutex_init(&dom->mr_lock);
	INIT_LIST_HEAD(&dom->eps);
	INIT_LIST_HEAD(&dom->mrs);

	mutex_lock(&dev->lock);
	if (dev->removed) {
		ret = -ENODEV;
		goto err_unlock;
	}
	dom->attr = dev->ibdev->attrs;
	dom->pd = ib_alloc_pd(dev->ibdev, 0);
	if (IS_ERR(dom->pd)) {
		ret = PTR_ERR(dom->pd);
		goto err_unlock;
	}
	list_add_tail(&dom->dev_node, &dev->domains);
	mutex_unlock(&dev->lock);

	kofi_fid_init(&dom->domain.fid, FI_CLASS_DOMAIN, &ibv_domain_fi_ops,
		      context);
	dom->domain.ops = &ibv_domain_ops;
	dom->domain.mr = &ibv_mr_ops;
	*domain = &dom->domain;
	return 0;

err_unlock:
	mutex_unlock(&dev->lock);
	kfree(dom);
err_put:
	ibv_dev_put(dev);
	return ret;
}
