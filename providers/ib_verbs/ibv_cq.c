// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: work requests and their completions.
 *
 * Each endpoint has one ib_cq (ib_alloc_cq(), IB_POLL_SOFTIRQ) for its
 * send and receive queues; every work request carries an ib_cqe whose done
 * callback writes the completion into the kOFI CQ the user bound (the
 * core's shared CQ), in softirq context.
 *
 * Credits: an endpoint owns exactly as many send requests as its send
 * queue has slots for user operations, and as many receive requests as its
 * receive queue has slots; taking a request takes a credit, its completion
 * returns it.  A post without a free request returns -EAGAIN, so the
 * queues are never overrun.  Keepalive probes and memory registration
 * have their own, separately reserved, send queue slots.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/rcupdate.h>
#include "ibv.h"

/**
 * ibv_req_pop() - take a request from a free list (and a credit)
 * @list: the free list
 * @c: the credits of the queue it posts to
 *
 * Context: any context but hardirq; the caller holds the lock of both.
 * Return: the request, reset and busy, or NULL if the queue is full.
 */
struct ibv_req *ibv_req_pop(struct ibv_req **list, struct ibv_credit *c)
{
	struct ibv_req *req = *list;

	if (!req || !ibv_credit_take(c, 1))
		return NULL;
	*list = req->next;
	req->next = NULL;
	req->busy = true;
	req->nmap = 0;
	req->cq = NULL;
	req->context = NULL;
	req->buf = NULL;
	req->len = 0;
	req->flags = 0;
	return req;
}

/**
 * ibv_req_push() - give a request back to its free list (and its credit)
 * @list: the free list
 * @c: the credits of the queue it posted to
 * @req: the request
 *
 * Context: any context but hardirq; the caller holds the lock of both.
 */
void ibv_req_push(struct ibv_req **list, struct ibv_credit *c,
		  struct ibv_req *req)
{
	WARN_ON_ONCE(!ibv_credit_put(c, 1));
	req->busy = false;
	req->next = *list;
	*list = req;
}

/**
 * ibv_req_get() - take a free request (and so a queue credit)
 * @ep: the endpoint
 * @tx: a send queue request (else a receive queue one)
 *
 * Context: any context but hardirq; the caller holds @ep->lock.
 * Return: the request, or NULL if the queue is full.
 */
struct ibv_req *ibv_req_get(struct ibv_ep *ep, bool tx)
{
	lockdep_assert_held(&ep->lock);
	return ibv_req_pop(tx ? &ep->tx_free : &ep->rx_free,
			   tx ? &ep->sq : &ep->rq);
}

/**
 * ibv_req_put() - return a request (and its credit)
 * @ep: the endpoint
 * @req: the request
 * @tx: it is a send queue request
 *
 * Context: any context but hardirq; the caller holds @ep->lock.
 */
void ibv_req_put(struct ibv_ep *ep, struct ibv_req *req, bool tx)
{
	lockdep_assert_held(&ep->lock);
	ibv_req_push(tx ? &ep->tx_free : &ep->rx_free, tx ? &ep->sq : &ep->rq,
		     req);
}

/**
 * ibv_req_unmap() - undo the DMA mappings the provider made for a request
 * @dom: the domain of the request's endpoint or shared receive context
 * @req: the request
 *
 * Context: any context.
 */
void ibv_req_unmap(struct ibv_domain *dom, struct ibv_req *req)
{
	struct ib_device *ibdev = dom->dev->ibdev;
	unsigned int i;

	for (i = 0; i < req->nmap; i++)
		ib_dma_unmap_page(ibdev, req->map[i].addr, req->map[i].len,
				  req->dir);
	req->nmap = 0;
}

/**
 * ibv_ep_conn_lost() - the endpoint's connection is dead
 * @ep: the endpoint
 * @err: the error to report (negative errno)
 *
 * A work request failed on a connected QP (the QP is now in the error
 * state): the peer stopped answering (retries exhausted: ETIMEDOUT), the
 * local port failed, or a registration timed out.  Posting stops, and the
 * EQ gets an error entry, once (none if a failed QP, ibv_ep_qp_failed(),
 * reported the end first).  Callers write it before the failed
 * operation's error completion, so a ULP that reads the EQ on an error
 * completion finds it there.
 *
 * Context: softirq or process context; does not sleep.
 */
void ibv_ep_conn_lost(struct ibv_ep *ep, int err)
{
	bool report;

	spin_lock_bh(&ep->lock);
	report = ep->can_send && !ep->eq_ended;
	ep->can_send = false;
	if (report)
		ep->eq_ended = true;
	spin_unlock_bh(&ep->lock);
	if (report && kofi_ep_eq(&ep->ep))
		kofi_eq_write_err(kofi_ep_eq(&ep->ep), &ep->ep.fid, ep->ep.fid.context,
				  err, 0, NULL, 0);
}

/**
 * ibv_ep_qp_failed() - report that the endpoint's QP failed
 * @ep: the endpoint; ibv_qp_event() set @ep->qp_event
 *
 * An asynchronous event said the QP is unusable (QP_FATAL, QP_REQ_ERR,
 * QP_ACCESS_ERR): posting stops and the EQ gets an error entry (EIO,
 * prov_errno the event), once, unless the endpoint's end is reported
 * already or its QP is gone.  Called by the endpoint's QP work before it
 * flushes the QP, and by the completion of every operation flushed once
 * the event came, before that operation's error completion: the EQ entry
 * comes first, whichever runs first.
 *
 * Context: softirq or process context; does not sleep.
 */
void ibv_ep_qp_failed(struct ibv_ep *ep)
{
	int event = atomic_read(&ep->qp_event);
	bool report;

	spin_lock_bh(&ep->lock);
	report = ep->can_recv && !ep->eq_ended;
	ep->can_send = false;
	if (report)
		ep->eq_ended = true;
	spin_unlock_bh(&ep->lock);
	if (report && kofi_ep_eq(&ep->ep))
		kofi_eq_write_err(kofi_ep_eq(&ep->ep), &ep->ep.fid,
				  ep->ep.fid.context, ibv_qp_errno(event), event,
				  NULL, 0);
}

/*
 * A failed completion: the EQ entry that explains it, if any, first.
 * Context: softirq; does not sleep.
 */
static void ibv_ep_wc_failed(struct ibv_ep *ep, int err)
{
	if (err != -ECANCELED)
		ibv_ep_conn_lost(ep, err);
	else if (atomic_read(&ep->qp_event))
		ibv_ep_qp_failed(ep);
}

/**
 * ibv_tx_done() - completion of a send, RMA or keepalive work request
 * @cq: the ib_cq
 * @wc: the work completion
 *
 * Context: softirq.
 */
void ibv_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibv_req *req = container_of(wc->wr_cqe, struct ibv_req, cqe);
	struct ibv_ep *ep = req->ep;
	struct fid_cq *ucq = req->cq;
	void *context = req->context;
	u64 flags = req->flags;
	size_t len = req->len;
	bool keepalive = req == &ep->reqs[ep->nreqs - 1];
	int err = ibv_wc_errno(wc->status);

	if (req->sink_mr)
		ibv_sink_put(ep, req, !err);
	ibv_req_unmap(ep->dom, req);
	spin_lock_bh(&ep->lock);
	if (keepalive)
		ep->ka_pending = false;
	else
		ibv_req_put(ep, req, true);
	if (!err) {
		ep->may_probe = true;
		ep->heard = jiffies;
	}
	if (!ucq && err && err != -ECANCELED && !keepalive)
		/* failed inject: still reported */
		ucq = kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL);
	spin_unlock_bh(&ep->lock);

	if (!err) {
		if (ucq)
			kofi_cq_write(ucq, context, flags, len, NULL, 0);
		return;
	}
	/* The EQ entry first: a reader woken by the completion finds it. */
	ibv_ep_wc_failed(ep, err);
	if (ucq)
		kofi_cq_write_err(ucq, context, flags, err, wc->status, 0, 0);
}

/**
 * ibv_rx_complete() - report a receive's completion
 * @ep: the endpoint the message arrived on
 * @ucq: the CQ to report on, or NULL
 * @context: the receive's context
 * @flags: its completion flags
 * @buf: its first buffer, or NULL
 * @wc: the work completion
 *
 * A receive consumed by the peer's fi_writedata() completes with
 * FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA.  The caller has marked
 * @ep as having heard from its peer if @wc succeeded
 * (ibv_ep_heard_locked()).
 *
 * Context: softirq.
 */
void ibv_rx_complete(struct ibv_ep *ep, struct fid_cq *ucq, void *context,
		     u64 flags, void *buf, const struct ib_wc *wc)
{
	int err = ibv_wc_errno(wc->status);
	u64 data = 0;

	if (!ucq)
		return;
	if (err) {
		ibv_ep_wc_failed(ep, err);
		kofi_cq_write_err(ucq, context, flags, err, wc->status, 0, 0);
		return;
	}
	if (wc->wc_flags & IB_WC_WITH_IMM) {
		flags |= FI_REMOTE_CQ_DATA;
		data = be32_to_cpu(wc->ex.imm_data);
	}
	if (wc->opcode == IB_WC_RECV_RDMA_WITH_IMM) {
		flags = FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA;
		buf = NULL;
	}
	kofi_cq_write(ucq, context, flags, wc->byte_len, buf, data);
}

/**
 * ibv_rx_done() - completion of a receive work request of an endpoint
 * @cq: the ib_cq
 * @wc: the work completion
 *
 * Context: softirq.
 */
void ibv_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibv_req *req = container_of(wc->wr_cqe, struct ibv_req, cqe);
	struct ibv_ep *ep = req->ep;
	struct fid_cq *ucq = req->cq;
	void *context = req->context;
	u64 flags = req->flags;
	void *buf = req->buf;

	ibv_req_unmap(ep->dom, req);
	spin_lock_bh(&ep->lock);
	ibv_req_put(ep, req, false);
	if (wc->status == IB_WC_SUCCESS)
		ibv_ep_heard_locked(ep);
	spin_unlock_bh(&ep->lock);
	ibv_rx_complete(ep, ucq, context, flags, buf, wc);
}

/**
 * ibv_internal_done() - completion of a memory registration work request
 * @cq: the ib_cq
 * @wc: the work completion
 *
 * Context: softirq.
 */
void ibv_internal_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibv_req *req = container_of(wc->wr_cqe, struct ibv_req, cqe);

	req->status = wc->status;
	complete(req->done);
}

/**
 * ibv_cq_free() - free an IB_POLL_SOFTIRQ CQ once its QPs are gone
 * @cq: the CQ; every QP that used it is drained (or never completed a
 *	work request) and destroyed
 *
 * ib_poll_handler() gives the poll back (irq_poll_complete()) before it
 * re-arms the CQ with ib_req_notify_cq(), so ib_free_cq(), which takes
 * the poll in irq_poll_disable(), can free the CQ while the last poll
 * still re-arms it.  That poll runs in softirq context, an RCU read-side
 * section, so a grace period outlasts it; with the QPs drained and
 * destroyed no completion can schedule another poll.
 *
 * Context: process context, sleeps.
 */
void ibv_cq_free(struct ib_cq *cq)
{
	synchronize_rcu();
	ib_free_cq(cq);
}
