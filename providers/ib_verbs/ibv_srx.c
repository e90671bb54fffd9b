// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: shared receive contexts (fi_srx_context()).
 *
 * A context is a shared receive queue (SRQ) on the domain's protection
 * domain.  An endpoint bound to it creates its QP with the SRQ and no
 * receive queue of its own (ibv_ep_setup_qp()); a message arriving on any
 * such QP takes the oldest receive posted to the SRQ.  The completion
 * comes on that endpoint's ib_cq, which is sized for every receive of the
 * context, and names the QP, so the endpoint: it goes to the endpoint's
 * FI_RECV CQ with the receive's context (ibv_srx_rx_done()).  A sender
 * that finds the SRQ empty is held back by receiver-not-ready retries, as
 * with an empty receive queue.
 *
 * The context's requests (one per receive it may hold) are its own, under
 * its spinlock.  Its SRQ is destroyed when it is closed, which the core
 * allows only once no endpoint is bound (so no QP uses it), or when the
 * device goes away, after the domain's endpoints released their QPs;
 * receives still posted then are dropped without completions and their
 * buffers unmapped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include "ibv.h"

static struct ibv_srx *ibv_srx(struct fid_ep *fep)
{
	return container_of(fep, struct ibv_srx, ep);
}

/* Take a free request (and its credit).  @srx->lock held. */
static struct ibv_req *ibv_srx_req_get(struct ibv_srx *srx)
{
	lockdep_assert_held(&srx->lock);
	return ibv_req_pop(&srx->free, &srx->rq);
}

/* Give a request (and its credit) back.  @srx->lock held. */
static void ibv_srx_req_put(struct ibv_srx *srx, struct ibv_req *req)
{
	lockdep_assert_held(&srx->lock);
	ibv_req_push(&srx->free, &srx->rq, req);
}

/**
 * ibv_srx_rx_done() - completion of a receive posted to a shared context
 * @cq: the ib_cq of the endpoint whose QP took the receive
 * @wc: the work completion; @wc->qp is that QP
 *
 * Context: softirq.
 */
void ibv_srx_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibv_req *req = container_of(wc->wr_cqe, struct ibv_req, cqe);
	struct ibv_ep *ep = wc->qp->qp_context;
	struct ibv_srx *srx = ep->srx;
	void *context = req->context;
	u64 flags = req->flags;
	void *buf = req->buf;

	ibv_req_unmap(srx->dom, req);
	spin_lock_bh(&srx->lock);
	ibv_srx_req_put(srx, req);
	spin_unlock_bh(&srx->lock);
	if (wc->status == IB_WC_SUCCESS) {
		spin_lock_bh(&ep->lock);
		ibv_ep_heard_locked(ep);
		spin_unlock_bh(&ep->lock);
	}
	ibv_rx_complete(ep, kofi_ep_cq(&ep->ep, FI_RECV, NULL), context, flags,
			buf, wc);
}

static ssize_t ibv_srx_recvmsg(struct fid_ep *fep, const struct fi_msg *msg,
			       u64 flags)
{
	struct ibv_srx *srx = ibv_srx(fep);
	struct ib_sge sge[IBV_MAX_SGE];
	struct ib_recv_wr wr;
	struct ibv_req *req;
	int ret;

	if (flags & FI_MULTI_RECV)
		return -EOPNOTSUPP;
	if (msg->iov_count > srx->iov_limit ||
	    (!msg->msg_iov && msg->iov_count))
		return -EINVAL;
	spin_lock_bh(&srx->lock);
	req = srx->srq ? ibv_srx_req_get(srx) : NULL;
	ret = srx->srq ? -EAGAIN : -ENODEV;
	spin_unlock_bh(&srx->lock);
	if (!req)
		return ret;

	ret = ibv_rx_prepare(srx->dom, req, &wr, sge, msg->iov_type,
			     msg->msg_iov, msg->iov_count, msg->desc,
			     msg->context);
	if (ret)
		goto err_put;
	spin_lock_bh(&srx->lock);
	ret = srx->srq ? ib_post_srq_recv(srx->srq, &wr, NULL) : -ENODEV;
	spin_unlock_bh(&srx->lock);
	if (!ret)
		return 0;
	ibv_req_unmap(srx->dom, req);
err_put:
	spin_lock_bh(&srx->lock);
	ibv_srx_req_put(srx, req);
	spin_unlock_bh(&srx->lock);
	return ret;
}

static const struct fi_ops_msg ibv_srx_msg_ops = {
	.recvmsg = ibv_srx_recvmsg,
};

/**
 * ibv_srx_kill() - destroy the context's SRQ, once
 * @srx: the context; no QP uses its SRQ any more
 *
 * Receives still posted are dropped and their buffers unmapped; posting
 * answers -ENODEV from now on.  Called when the context closes, and by
 * ibv_domain_kill() when the device goes away, after the domain's
 * endpoints released their QPs.
 *
 * Context: process context, may sleep; the domain's lock held.
 */
void ibv_srx_kill(struct ibv_srx *srx)
{
	struct ib_srq *srq;
	u32 i;

	lockdep_assert_held(&srx->dom->lock);
	spin_lock_bh(&srx->lock);
	srq = srx->srq;
	srx->srq = NULL;
	spin_unlock_bh(&srx->lock);
	if (!srq)
		return;
	/* as ib_destroy_srq(), whose return type differs across kernels */
	WARN_ON_ONCE(ib_destroy_srq_user(srq, NULL));
	for (i = 0; i < srx->rq.size; i++) {
		if (!srx->reqs[i].busy)
			continue;
		ibv_req_unmap(srx->dom, &srx->reqs[i]);
		srx->reqs[i].busy = false;
	}
}

static int ibv_srx_close(struct fid *fid)
{
	struct ibv_srx *srx = ibv_srx(container_of(fid, struct fid_ep, fid));
	struct ibv_domain *dom = srx->dom;

	/* the core closes a context only once no endpoint holds it */
	mutex_lock(&dom->lock);
	list_del(&srx->dom_node);
	ibv_srx_kill(srx);
	mutex_unlock(&dom->lock);
	kfree(srx->reqs);
	kfree(srx);
	return 0;
}

static const struct fi_ops ibv_srx_fi_ops = {
	.close = ibv_srx_close,
};

static void ibv_srq_event(struct ib_event *event, void *context)
{
	pr_warn_ratelimited("shared receive queue event %s\n",
			    ib_event_msg(event->event));
}

/**
 * ibv_srx_open() - the domain's srx_ctx operation (fi_srx_context())
 * @domain: the domain
 * @attr: @attr->size receives (0: the module's rx_size), at most the
 *	device's max_srq_wr; @attr->iov_limit entries each (0: the most the
 *	device allows, up to 16); both written back
 * @rx_ep: the new context
 * @context: user context
 *
 * Context: process context, may sleep.
 * Return: 0; -EOPNOTSUPP if the device has no SRQs or speaks iWARP;
 * -EINVAL for a size or
 * iov_limit above the device's; -ENODEV once the device is gone;
 * -ENOMEM; the error of ib_create_srq() (e.g. -ENOMEM when the device has
 * no more SRQs).
 */
int ibv_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		 struct fid_ep **rx_ep, void *context)
{
	struct ibv_domain *dom = container_of(domain, struct ibv_domain,
					      domain);
	const struct ib_device_attr *a = &dom->attr;
	u32 size, sge, max_sge = min_t(u32, IBV_MAX_SGE, a->max_srq_sge);
	struct ib_srq_init_attr ia = {};
	struct ibv_srx *srx;
	struct ib_srq *srq;
	int ret;
	u32 i;

	if (dom->iwarp || !a->max_srq || !a->max_srq_wr || !max_sge)
		return -EOPNOTSUPP;
	size = attr->size ? attr->size : min_t(u32, ibv_rx_size,
					       a->max_srq_wr);
	sge = attr->iov_limit ? attr->iov_limit : max_sge;
	if (!size || attr->size > a->max_srq_wr || sge > max_sge)
		return -EINVAL;

	srx = kzalloc(sizeof(*srx), GFP_KERNEL);
	if (!srx)
		return -ENOMEM;
	srx->reqs = kcalloc(size, sizeof(*srx->reqs), GFP_KERNEL);
	if (!srx->reqs) {
		kfree(srx);
		return -ENOMEM;
	}
	srx->dom = dom;
	spin_lock_init(&srx->lock);
	ibv_credit_init(&srx->rq, size);
	srx->iov_limit = sge;
	for (i = 0; i < size; i++) {
		srx->reqs[i].cqe.done = ibv_srx_rx_done;
		srx->reqs[i].next = srx->free;
		srx->free = &srx->reqs[i];
	}

	ia.event_handler = ibv_srq_event;
	ia.srq_context = srx;
	ia.srq_type = IB_SRQT_BASIC;
	ia.attr.max_wr = size;
	ia.attr.max_sge = sge;
	mutex_lock(&dom->lock);
	ret = -ENODEV;
	if (dom->removed || !dom->pd)
		goto err_unlock;
	srq = ib_create_srq(dom->pd, &ia);
	if (IS_ERR(srq)) {
		ret = PTR_ERR(srq);
		goto err_unlock;
	}
	srx->srq = srq;
	list_add_tail(&srx->dom_node, &dom->srxs);
	mutex_unlock(&dom->lock);

	attr->size = size;
	attr->iov_limit = sge;
	kofi_fid_init(&srx->ep.fid, FI_CLASS_SRX_CTX, &ibv_srx_fi_ops,
		      context);
	srx->ep.msg = &ibv_srx_msg_ops;
	*rx_ep = &srx->ep;
	return 0;

err_unlock:
	mutex_unlock(&dom->lock);
	kfree(srx->reqs);
	kfree(srx);
	return ret;
}
