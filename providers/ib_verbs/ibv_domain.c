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
#include <rdma/ib_cache.h>
#include "ibv.h"

/* Bring the registration QP to RTS, connected to itself. */
static int ibv_regqp_connect(struct ibv_domain *dom, struct ib_qp *qp)
{
	struct ib_device *ibdev = dom->dev->ibdev;
	const struct ib_gid_attr *sgid = NULL;
	union ib_gid dgid;
	struct ib_qp_attr qa = {};
	struct ib_port_attr pattr;
	int ret;

	qa.qp_state = IB_QPS_INIT;
	qa.port_num = dom->port;
	ret = ib_modify_qp(qp, &qa, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IB_QPS_RTR;
	qa.path_mtu = IB_MTU_1024;
	qa.dest_qp_num = qp->qp_num;
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = 12;
	qa.ah_attr.type = rdma_ah_find_type(ibdev, dom->port);
	rdma_ah_set_port_num(&qa.ah_attr, dom->port);
	if (rdma_protocol_roce(ibdev, dom->port)) {
		/* GID 0 is the port's default, link-local, GID. */
		sgid = rdma_get_gid_attr(ibdev, dom->port, 0);
		if (IS_ERR(sgid))
			return PTR_ERR(sgid);
		dgid = sgid->gid;
		rdma_ah_set_grh(&qa.ah_attr, &dgid, 0, sgid->index, 1, 0);
	} else {
		ret = ib_query_port(ibdev, dom->port, &pattr);
		if (ret)
			return ret;
		rdma_ah_set_dlid(&qa.ah_attr, pattr.lid);
	}
	ret = ib_modify_qp(qp, &qa, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (sgid)
		rdma_put_gid_attr(sgid);
	if (ret)
		return ret;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IB_QPS_RTS;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 1;
	return ib_modify_qp(qp, &qa, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

static void ibv_regqp_destroy(struct ibv_domain *dom)
{
	if (dom->loop)
		ibv_loop_destroy(dom);
	else if (dom->reg_qp)
		ib_destroy_qp(dom->reg_qp);
	if (dom->reg_cq)
		ibv_cq_free(dom->reg_cq);
	dom->reg_qp = NULL;
	dom->reg_cq = NULL;
	kfree(dom->reg_req);
	dom->reg_req = NULL;
}

/*
 * The registration QP: IB_WR_REG_MR and IB_WR_LOCAL_INV are executed by
 * the local HCA without sending anything, but only on a QP in RTS.  An
 * iWARP QP reaches RTS only through a connection: there the domain
 * connects to itself through rdma_cm (ibv_loop.c).
 * Context: process context, sleeps; the device's lock held.
 */
static void ibv_regqp_create(struct ibv_domain *dom)
{
	struct ib_device *ibdev = dom->dev->ibdev;
	struct ib_qp_init_attr ia = {
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret;

	if (!dom->iwarp && !rdma_protocol_ib(ibdev, dom->port) &&
	    !rdma_protocol_roce(ibdev, dom->port))
		return;
	dom->reg_req = kzalloc(sizeof(*dom->reg_req), GFP_KERNEL);
	if (!dom->reg_req)
		return;
	dom->reg_req->cqe.done = ibv_internal_done;
	dom->reg_cq = ib_alloc_cq_any(ibdev, dom, 16, IB_POLL_SOFTIRQ);
	if (IS_ERR(dom->reg_cq)) {
		ret = PTR_ERR(dom->reg_cq);
		dom->reg_cq = NULL;
		goto err;
	}
	ia.send_cq = dom->reg_cq;
	ia.recv_cq = dom->reg_cq;
	if (dom->iwarp) {
		ret = ibv_loop_create(dom, &ia);
		if (!ret)
			return;
		goto err;
	}
	dom->reg_qp = ib_create_qp(dom->pd, &ia);
	if (IS_ERR(dom->reg_qp)) {
		ret = PTR_ERR(dom->reg_qp);
		dom->reg_qp = NULL;
		goto err;
	}
	ret = ibv_regqp_connect(dom, dom->reg_qp);
	if (!ret)
		return;
err:
	pr_debug("%s: no registration QP (%d)\n", dom->dev->name, ret);
	ibv_regqp_destroy(dom);
}

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
	if (!dom->removed)
		ibv_regqp_destroy(dom);
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
 * ENODEV on its EQ), then every shared receive context (its SRQ, which
 * the endpoints' QPs no longer use) and MR of the domain, and frees its
 * PD.  Called by the
 * ib_client remove callback with the device's lock held.
 *
 * Context: process context, may sleep.
 */
void ibv_domain_kill(struct ibv_domain *dom)
{
	struct ibv_srx *srx;
	struct ibv_ep *ep;
	struct ibv_mr *mr;

	mutex_lock(&dom->lock);
	dom->removed = true;
	list_for_each_entry(ep, &dom->eps, dom_node)
		ibv_ep_kill(ep, ENODEV);
	list_for_each_entry(srx, &dom->srxs, dom_node)
		ibv_srx_kill(srx);
	mutex_lock(&dom->mr_lock);
	list_for_each_entry(mr, &dom->mrs, dom_node)
		ibv_mr_kill(mr);
	mutex_unlock(&dom->mr_lock);
	ibv_regqp_destroy(dom);
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
	.srx_ctx = ibv_srx_open,
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
	init_completion(&dom->reg_done);
	INIT_LIST_HEAD(&dom->eps);
	INIT_LIST_HEAD(&dom->srxs);
	INIT_LIST_HEAD(&dom->mrs);

	mutex_lock(&dev->lock);
	if (dev->removed) {
		ret = -ENODEV;
		goto err_unlock;
	}
	dom->attr = dev->ibdev->attrs;
	dom->caps = ibv_caps(dev->ibdev, port);
	dom->iwarp = rdma_protocol_iwarp(dev->ibdev, port);
	dom->nudge = dev->ibdev->ops.driver_id == RDMA_DRIVER_SIW;
	dom->pd = ib_alloc_pd(dev->ibdev, 0);
	if (IS_ERR(dom->pd)) {
		ret = PTR_ERR(dom->pd);
		goto err_unlock;
	}
	ibv_regqp_create(dom);
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
