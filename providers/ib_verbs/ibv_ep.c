// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: active endpoints.
 *
 * An endpoint is an rdma_cm identifier with an RC QP and an ib_cq.  The
 * QP is created by fi_enable() (on the device the source address, or the
 * connection request, belongs to), so receives may be posted before the
 * connection is made.  Closing the endpoint disconnects it, drains the QP
 * (outstanding operations complete with ECANCELED) and frees everything.
 *
 * Asynchronous events of the QP (ibv_qp_event()): COMM_EST goes to
 * rdma_notify(); QP_FATAL, QP_REQ_ERR and QP_ACCESS_ERR end the
 * connection: the EQ gets an error entry EIO (prov_errno: the event), the
 * connection is disconnected and the QP moved to the error state, so
 * that every operation outstanding completes with ECANCELED after that
 * entry; the endpoint can then only be closed.  Other events are ignored.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include "ibv.h"

/**
 * ibv_qp_stop() - move a QP to the error state
 * @qp: the QP
 *
 * Everything posted on it completes flushed (IB_WC_WR_FLUSH_ERR) and
 * nothing posted later takes effect.
 *
 * Context: process context; may sleep (the device's modify_qp).
 * Return: 0 or the error of ib_modify_qp().
 */
int ibv_qp_stop(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

/*
 * The QP failed (ibv_qp_event()): report it, end the connection and flush
 * what is posted.  Nothing is freed here; closing the endpoint does that.
 * Context: workqueue (system_wq); sleeps (takes @ep->mutex).
 */
static void ibv_ep_qp_work(struct work_struct *work)
{
	struct ibv_ep *ep = container_of(work, struct ibv_ep, qp_work);
	int event = atomic_read(&ep->qp_event);
	int ret;

	mutex_lock(&ep->mutex);
	if (ep->state == IBV_EP_DEAD || !ep->qp)
		goto out;
	pr_info_ratelimited("QP %u failed: %s (event %d), the connection ends\n",
			    ep->qp->qp_num, ib_event_msg(event), event);
	/* The EQ entry before the flush: see ibv_ep_qp_failed(). */
	ibv_ep_qp_failed(ep);
	if (ep->state == IBV_EP_CONNECTED || ep->state == IBV_EP_CONNECTING) {
		ibv_ep_stop(ep);
		ep->shutdown_reported = true;
		rdma_disconnect(ep->cm_id);
	}
	ret = ibv_qp_stop(ep->qp);
	if (ret)
		pr_debug("QP %u to the error state: %d\n", ep->qp->qp_num,
			 ret);
out:
	mutex_unlock(&ep->mutex);
}

/*
 * An asynchronous event of the endpoint's QP.  Context: any, hardirq
 * included (the device driver's); does not sleep, takes no lock that is
 * not irq-safe.  The QP, and so @ep and its cm_id, exist as long as
 * events can come.
 */
static void ibv_qp_event(struct ib_event *event, void *context)
{
	struct ibv_ep *ep = context;
	struct rdma_cm_id *id;
	int ret;

	switch (ibv_qp_action(event->event)) {
	case IBV_QP_NOTIFY:
		/* A message came before the RTU: let the IB CM establish. */
		id = READ_ONCE(ep->cm_id);
		ret = id ? rdma_notify(id, event->event) : -ENOTCONN;
		pr_debug("QP event %s: rdma_notify() %d\n",
			 ib_event_msg(event->event), ret);
		break;
	case IBV_QP_FAIL:
		/* The first one counts; the work runs once for it. */
		if (!atomic_cmpxchg(&ep->qp_event, 0, event->event))
			queue_work(system_wq, &ep->qp_work);
		break;
	case IBV_QP_IGNORE:
		pr_debug("QP event %s ignored\n", ib_event_msg(event->event));
		break;
	}
}

#ifdef KOFI_IBV_TEST_HOOK
/**
 * ibv_ep_test_qp_event() - deliver a synthesized QP event (test builds)
 * @ep: the endpoint
 * @event: the event
 *
 * Calls the QP's event handler, as a device driver would, with
 * interrupts off.  Only in builds with the KUnit suites
 * (CONFIG_KOFI_KUNIT_TEST), for the VM tests: soft-RoCE raises none of
 * the events that fail a QP.
 *
 * Context: process context; @ep->mutex held.
 * Return: true if @ep has a QP and got the event.
 */
bool ibv_ep_test_qp_event(struct ibv_ep *ep, enum ib_event_type event)
{
	struct ib_event ev = { .event = event };
	unsigned long flags;

	lockdep_assert_held(&ep->mutex);
	if (!ep->qp || ep->state == IBV_EP_DEAD)
		return false;
	ev.device = ep->qp->device;
	ev.element.qp = ep->qp;
	local_irq_save(flags);
	ep->qp->event_handler(&ev, ep->qp->qp_context);
	local_irq_restore(flags);
	return true;
}
#endif

/**
 * ibv_ep_setup_qp() - create the endpoint's CQ, QP and requests
 * @ep: the endpoint, with @ep->cm_id bound to the domain's device
 *
 * Context: process context, may sleep; @ep->mutex held.
 * Return: 0 or a negative errno (nothing left allocated).
 */
int ibv_ep_setup_qp(struct ibv_ep *ep)
{
	struct ibv_domain *dom = ep->dom;
	const struct ib_device_attr *a = &dom->attr;
	struct fid_ep *srx = kofi_ep_srx(&ep->ep);
	struct ib_qp_init_attr ia = {};
	u32 sq, rq, i, n, nsink;
	int ret;

	sq = ep->info->tx_attr->size ? ep->info->tx_attr->size : ibv_tx_size;
	rq = ep->info->rx_attr->size ? ep->info->rx_attr->size : ibv_rx_size;
	if (srx) {
		ep->srx = container_of(srx, struct ibv_srx, ep);
		spin_lock_bh(&ep->srx->lock);
		ia.srq = ep->srx->srq;
		spin_unlock_bh(&ep->srx->lock);
		if (!ia.srq)
			return -ENODEV;
	}
	/*
	 * Send queue slots beyond the user's: memory registration and
	 * keepalive, and on iWARP a LOCAL_INV and a REG_MR per READ sink MR.
	 */
	nsink = dom->iwarp ? clamp(READ_ONCE(ibv_read_sinks), 1U,
				   (u32)IBV_SINK_MRS) : 0;
	sq = clamp_t(u32, sq, 1, a->max_qp_wr - 2 - 2 * nsink);
	nsink = min(nsink, sq);
	rq = ia.srq ? 0 : clamp_t(u32, rq, 1, a->max_qp_wr);
	ep->max_sge = min_t(u32, IBV_MAX_SGE, a->max_send_sge);
	ep->max_sge_rd = min_t(u32, ep->max_sge, a->max_sge_rd);
	if (!ep->max_sge_rd)
		ep->max_sge_rd = 1;

	/* with a shared receive context, room for all of its receives */
	ep->cq = ib_alloc_cq_any(ep->cm_id->device, ep,
				 sq + 2 + 2 * nsink +
				 (ia.srq ? ep->srx->rq.size : rq),
				 IB_POLL_SOFTIRQ);
	if (IS_ERR(ep->cq)) {
		ret = PTR_ERR(ep->cq);
		ep->cq = NULL;
		return ret;
	}
	ia.event_handler = ibv_qp_event;
	ia.qp_context = ep;
	ia.send_cq = ep->cq;
	ia.recv_cq = ep->cq;
	ia.cap.max_send_wr = sq + 2 + 2 * nsink;
	ia.cap.max_recv_wr = rq;
	ia.cap.max_send_sge = ep->max_sge;
	ia.cap.max_recv_sge = min_t(u32, IBV_MAX_SGE, a->max_recv_sge);
	ia.cap.max_inline_data = ep->inline_size;
	ia.sq_sig_type = IB_SIGNAL_ALL_WR;
	ia.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(ep->cm_id, dom->pd, &ia);
	if (ret)
		goto err_cq;
	ep->qp = ep->cm_id->qp;
	if (nsink) {
		ret = ibv_sink_init(ep, nsink);
		if (ret)
			goto err_qp;
	}

	n = sq + rq + 2;
	ep->reqs = kcalloc(n, sizeof(*ep->reqs), GFP_KERNEL);
	if (!ep->reqs) {
		ret = -ENOMEM;
		goto err_sink;
	}
	ep->nreqs = n;
	ibv_credit_init(&ep->sq, sq);
	ibv_credit_init(&ep->rq, rq);
	ep->tx_free = NULL;
	ep->rx_free = NULL;
	for (i = 0; i < n; i++) {
		struct ibv_req *req = &ep->reqs[i];

		req->ep = ep;
		if (i < sq) {
			req->cqe.done = ibv_tx_done;
			req->next = ep->tx_free;
			ep->tx_free = req;
		} else if (i < sq + rq) {
			req->cqe.done = ibv_rx_done;
			req->next = ep->rx_free;
			ep->rx_free = req;
		} else if (i == n - 2) {
			req->cqe.done = ibv_internal_done;	/* MR */
		} else {
			req->cqe.done = ibv_tx_done;		/* keepalive */
		}
	}
	return 0;

err_sink:
	ibv_sink_fini(ep);
err_qp:
	rdma_destroy_qp(ep->cm_id);
	ep->qp = NULL;
err_cq:
	ib_free_cq(ep->cq);
	ep->cq = NULL;
	return ret;
}

/* Complete every request still outstanding (the CQ is gone) in error. */
static void ibv_ep_flush_reqs(struct ibv_ep *ep)
{
	struct ibv_req *req;
	struct fid_cq *ucq;
	void *context;
	u64 flags;
	u32 i;
	bool tx;

	for (i = 0; i + 2 < ep->nreqs; i++) {
		req = &ep->reqs[i];
		if (!req->busy)
			continue;
		tx = i < ep->sq.size;
		ucq = req->cq;
		context = req->context;
		flags = req->flags;
		ibv_req_unmap(ep->dom, req);
		spin_lock_bh(&ep->lock);
		ibv_req_put(ep, req, tx);
		spin_unlock_bh(&ep->lock);
		if (ucq)
			kofi_cq_write_err(ucq, context, flags, ECANCELED, 0, 0,
					  0);
	}
}

/**
 * ibv_ep_release() - free the endpoint's device resources
 * @ep: the endpoint
 *
 * Stops posting, rejects an unaccepted request or disconnects, drains and
 * destroys the QP (outstanding operations complete with ECANCELED), frees
 * the CQ and detaches the rdma_cm identifier, which the caller destroys
 * after dropping @ep->mutex (or, from the identifier's own event handler,
 * has rdma_cm destroy by returning non-zero).
 *
 * Context: process context, may sleep; @ep->mutex held.
 * Return: the detached identifier, or NULL.
 */
struct rdma_cm_id *ibv_ep_release(struct ibv_ep *ep)
{
	struct rdma_cm_id *id;

	lockdep_assert_held(&ep->mutex);
	spin_lock_bh(&ep->lock);
	ep->can_send = false;
	ep->can_recv = false;
	spin_unlock_bh(&ep->lock);
	cancel_delayed_work_sync(&ep->keepalive);
	cancel_delayed_work_sync(&ep->nudge);
	if (ep->state == IBV_EP_IDLE) {
		/* fi_enable() may wait for its address resolution. */
		ep->addr_status = -ENODEV;
		complete(&ep->addr_done);
	}

	if (ep->cm_id && ep->passive && ep->state == IBV_EP_ENABLED)
		rdma_reject(ep->cm_id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	if (ep->cm_id && (ep->state == IBV_EP_CONNECTED ||
			  ep->state == IBV_EP_CONNECTING))
		rdma_disconnect(ep->cm_id);
	if (ep->qp) {
		/*
		 * Drained even if it never connected: rdma_cm moves a QP to
		 * the error state on a reject or a failed connection, which
		 * flushes posted receives through the CQ.
		 */
		ib_drain_qp(ep->qp);
		ibv_sink_fini(ep);
		/* A timed-out registration may still stop it: see ibv_mr.c. */
		mutex_lock(&ep->dom->mr_lock);
		ep->qp = NULL;
		mutex_unlock(&ep->dom->mr_lock);
		rdma_destroy_qp(ep->cm_id);
	}
	if (ep->cq) {
		ibv_cq_free(ep->cq);
		ep->cq = NULL;
	}
	ibv_ep_flush_reqs(ep);
	id = ep->cm_id;
	ep->cm_id = NULL;
	ep->state = IBV_EP_DEAD;
	return id;
}

/**
 * ibv_ep_kill() - the endpoint's device is going away
 * @ep: the endpoint
 * @err: error to report on its EQ (ENODEV)
 *
 * Context: process context, may sleep; called with the domain's lock held.
 */
void ibv_ep_kill(struct ibv_ep *ep, int err)
{
	struct rdma_cm_id *id;
	bool report;

	mutex_lock(&ep->mutex);
	if (ep->state == IBV_EP_DEAD) {
		mutex_unlock(&ep->mutex);
		return;
	}
	report = kofi_ep_eq(&ep->ep) && ep->state != IBV_EP_IDLE &&
		 !ep->shutdown_reported;
	ep->shutdown_reported = true;
	id = ibv_ep_release(ep);
	mutex_unlock(&ep->mutex);
	if (id)
		rdma_destroy_id(id);
	if (report)
		kofi_eq_write_err(kofi_ep_eq(&ep->ep), &ep->ep.fid, ep->ep.fid.context, err,
				  0, NULL, 0);
}

/**
 * ibv_ep_set_connected() - the connection is established
 * @ep: the endpoint
 *
 * Context: process context (rdma_cm callback); @ep->mutex held.
 */
void ibv_ep_set_connected(struct ibv_ep *ep)
{
	lockdep_assert_held(&ep->mutex);
	ep->state = IBV_EP_CONNECTED;
	spin_lock_bh(&ep->lock);
	ep->can_send = true;
	ep->may_probe = !ep->passive || !ep->dom->iwarp;
	ep->rx_heard = false;
	ep->heard = jiffies;
	ep->nudge_ms = ep->dom->nudge ? IBV_NUDGE_FIRST_MS : 0;
	spin_unlock_bh(&ep->lock);
	if (ep->keepalive_ms)
		schedule_delayed_work(&ep->keepalive,
				      msecs_to_jiffies(ep->keepalive_ms));
	if (ep->nudge_ms)
		schedule_delayed_work(&ep->nudge,
				      msecs_to_jiffies(IBV_NUDGE_FIRST_MS));
}

/**
 * ibv_ep_stop() - the connection ended: no more sends
 * @ep: the endpoint
 *
 * Context: process context; @ep->mutex held.
 */
void ibv_ep_stop(struct ibv_ep *ep)
{
	lockdep_assert_held(&ep->mutex);
	ep->state = IBV_EP_SHUTDOWN;
	spin_lock_bh(&ep->lock);
	ep->can_send = false;
	spin_unlock_bh(&ep->lock);
	cancel_delayed_work(&ep->keepalive);
	cancel_delayed_work(&ep->nudge);
}

/**
 * ibv_ep_set_ended() - the end of the connection is (being) reported
 * @ep: the endpoint
 *
 * For the connection manager's reports (FI_SHUTDOWN, connection errors):
 * a QP that fails later reports nothing more.
 *
 * Context: process context; @ep->mutex held.
 */
void ibv_ep_set_ended(struct ibv_ep *ep)
{
	lockdep_assert_held(&ep->mutex);
	spin_lock_bh(&ep->lock);
	ep->eq_ended = true;
	spin_unlock_bh(&ep->lock);
}

/*
 * Post the keepalive probe.  On InfiniBand and RoCE a zero-length RDMA
 * write: it needs no remote key (IB spec C9-88) and the peer's HCA
 * acknowledges it, so a lost peer fails it after the transport retries.
 * On iWARP a write completes once TCP has taken it, so the probe is a
 * zero-length RDMA READ, which completes only with the peer's response.
 * A @nudge (ibv_ep_nudge_work(), siw only) is a zero-length RDMA write
 * on iWARP too: siw takes one without looking at its STag.
 * Context: any; @ep->lock held.
 */
static void ibv_ep_probe(struct ibv_ep *ep, bool nudge)
{
	struct ibv_req *req = &ep->reqs[ep->nreqs - 1];
	struct ib_sge sge = { .lkey = ep->dom->pd->local_dma_lkey };
	struct ib_rdma_wr wr = {};

	req->cq = NULL;
	req->nmap = 0;
	wr.wr.wr_cqe = &req->cqe;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	if (ep->dom->iwarp && !nudge) {
		wr.wr.opcode = IB_WR_RDMA_READ;
		wr.wr.sg_list = &sge;
		wr.wr.num_sge = 1;
	} else {
		wr.wr.opcode = IB_WR_RDMA_WRITE;
	}
	if (!ib_post_send(ep->qp, &wr.wr, NULL)) {
		ep->ka_pending = true;
		ep->ka_posted = jiffies;
	}
}

/*
 * On iWARP nothing but the probe's response tells that the peer is
 * there: IBV_KEEPALIVE_IWARP_PROBES intervals after the probe went out
 * and after the last work request completed, the peer is given up.
 * Context: any; @ep->lock held.
 */
static bool ibv_ep_probe_lost(struct ibv_ep *ep, unsigned int ms)
{
	unsigned long since;

	if (!ep->dom->iwarp || !ep->ka_pending)
		return false;
	since = time_after(ep->heard, ep->ka_posted) ? ep->heard :
						       ep->ka_posted;
	return time_after_eq(jiffies, since + IBV_KEEPALIVE_IWARP_PROBES *
					      msecs_to_jiffies(ms));
}

/**
 * ibv_ep_keepalive_work() - probe the peer
 * @work: the endpoint's keepalive work
 *
 * Every interval a probe goes out unless one is outstanding (see
 * ibv_ep_probe()).  If the peer is gone, an InfiniBand or RoCE probe
 * fails with IB_WC_RETRY_EXC_ERR after the transport retries and the
 * endpoint reports ETIMEDOUT on its EQ; an iWARP probe stays unanswered,
 * and after IBV_KEEPALIVE_IWARP_PROBES intervals without a response or
 * any other completion the QP is moved to the error state and the
 * endpoint reports ETIMEDOUT the same way.  On iWARP the connecting side
 * must send first (MPA): a passive endpoint probes only once a message
 * came in or the user sent one.
 *
 * Context: workqueue.  The QP exists while the work runs:
 * ibv_ep_release() cancels the work before it destroys the QP.
 */
void ibv_ep_keepalive_work(struct work_struct *work)
{
	struct ibv_ep *ep = container_of(to_delayed_work(work), struct ibv_ep,
					 keepalive);
	unsigned int ms = READ_ONCE(ep->keepalive_ms);
	bool again, lost;

	spin_lock_bh(&ep->lock);
	again = ep->can_send && ms;
	lost = again && ibv_ep_probe_lost(ep, ms);
	if (again && !ep->ka_pending && ep->may_probe)
		ibv_ep_probe(ep, false);
	spin_unlock_bh(&ep->lock);
	if (lost) {
		pr_info_ratelimited("QP %u: no answer to keepalive probes for %u ms, the connection ends\n",
				    ep->qp->qp_num,
				    IBV_KEEPALIVE_IWARP_PROBES * ms);
		/* The EQ entry first; the flush then ends what is posted. */
		ibv_ep_conn_lost(ep, -ETIMEDOUT);
		ibv_qp_stop(ep->qp);
		return;
	}
	if (again)
		schedule_delayed_work(&ep->keepalive, msecs_to_jiffies(ms));
}

/**
 * ibv_ep_nudge_work() - an early probe of an endpoint on siw
 * @work: the endpoint's nudge work
 *
 * siw's accepting side sends its MPA reply before it hands the socket's
 * data-ready callback to the QP; data of the connecting side that comes
 * in between stays in the socket, unread, until more data comes.  A
 * ULP whose connecting side sends one message and waits for the answer
 * would wait for ever.  So at the times IBV_NUDGE_FIRST_MS sets out
 * (0.1 s, 0.5 s and 2.1 s after the connection is established) an
 * endpoint on siw sends a probe through the keepalive probe's request,
 * unless a probe is outstanding:
 *
 * - the connecting side, as long as nothing has come in, a zero-length
 *   RDMA write, which consumes no receive of the peer and completes once
 *   TCP has taken it; its arrival makes the peer's siw read the socket,
 *   a message stuck there included (once the peer has answered, a ULP
 *   that waits for an answer is past the window);
 * - the accepting side, as long as nothing has come in and its user has
 *   sent nothing, the iWARP keepalive probe (a zero-length RDMA READ):
 *   the peer's response makes its own siw read the socket.  This is the
 *   only case where kOFI speaks first on the accepting side of an iWARP
 *   connection; siw does not enforce the order (ib_verbs.rst).
 *
 * No probe goes out, and none is planned, once its side's condition no
 * longer holds (it never holds again on the connection): a probe in
 * flight while the peer closes the connection is best avoided.
 *
 * Context: workqueue.  The QP exists while the work runs, as for
 * ibv_ep_keepalive_work().
 */
void ibv_ep_nudge_work(struct work_struct *work)
{
	struct ibv_ep *ep = container_of(to_delayed_work(work), struct ibv_ep,
					 nudge);
	unsigned int ms = 0;
	bool want;

	spin_lock_bh(&ep->lock);
	want = ep->can_send && (ep->passive ? !ep->may_probe : !ep->rx_heard);
	if (want && !ep->ka_pending)
		ibv_ep_probe(ep, !ep->passive);
	if (want && ep->nudge_ms < IBV_NUDGE_LAST_MS)
		ms = 4 * ep->nudge_ms;
	ep->nudge_ms = ms;
	spin_unlock_bh(&ep->lock);
	if (ms)
		schedule_delayed_work(&ep->nudge, msecs_to_jiffies(ms));
}

static int ibv_ep_enable(struct fid_ep *fep)
{
	struct ibv_ep *ep = container_of(fep, struct ibv_ep, ep);
	struct ibv_domain *dom = ep->dom;
	struct sockaddr *src = ep->info->src_addr;
	struct sockaddr *dst = ep->info->dest_addr;
	struct rdma_cm_id *id = NULL;
	int ret;

	if (!kofi_ep_eq(&ep->ep) || !kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL) ||
	    !kofi_ep_cq(&ep->ep, FI_RECV, NULL))
		return -EINVAL;
	ep->inline_size = min_t(u32, ep->info->tx_attr->inject_size,
				ibv_dev_max_inline(dom->dev));

	mutex_lock(&ep->mutex);
	if (ep->state != IBV_EP_IDLE) {
		ret = ep->state == IBV_EP_DEAD ? -ENODEV : -EINVAL;
		goto out;
	}
	if (!ep->passive) {
		id = ibv_cm_create_id(ep->net, &ep->ep.fid);
		if (IS_ERR(id)) {
			ret = PTR_ERR(id);
			id = NULL;
			goto out;
		}
		ep->cm_id = id;
		if (src) {
			ret = rdma_bind_addr(id, src);
			if (ret)
				goto err_id;
		}
		if (!id->device && dst) {
			/* The device is the one the route leaves through. */
			reinit_completion(&ep->addr_done);
			ep->addr_status = -ETIMEDOUT;
			ret = rdma_resolve_addr(id, src, dst, ibv_cm_timeout_ms);
			if (ret)
				goto err_id;
			mutex_unlock(&ep->mutex);
			wait_for_completion(&ep->addr_done);
			mutex_lock(&ep->mutex);
			if (ep->state == IBV_EP_DEAD) {
				/* Device removal released the identifier. */
				ret = -ENODEV;
				id = NULL;
				goto out;
			}
			ret = ep->addr_status;
			if (ret)
				goto err_id;
			ep->addr_resolved = true;
		}
		ret = -EADDRNOTAVAIL;
		if (!id->device)
			goto err_id;
	}
	ret = -EINVAL;
	if (ep->cm_id->device != dom->dev->ibdev ||
	    (ep->cm_id->port_num && ep->cm_id->port_num != dom->port))
		goto err_id;
	ret = ibv_ep_setup_qp(ep);
	if (ret)
		goto err_id;
	ep->state = IBV_EP_ENABLED;
	spin_lock_bh(&ep->lock);
	ep->can_recv = true;
	spin_unlock_bh(&ep->lock);
	mutex_unlock(&ep->mutex);
	return 0;

err_id:
	if (!ep->passive)
		ep->cm_id = NULL;
	else
		id = NULL;
out:
	mutex_unlock(&ep->mutex);
	if (id)
		rdma_destroy_id(id);
	return ret;
}

static int ibv_ep_bind(struct fid *fid, struct fid *bfid, u64 flags)
{
	struct ibv_ep *ep = container_of(fid, struct ibv_ep, ep.fid);
	int ret;

	/* An endpoint past IDLE takes nothing more, enabled or not. */
	mutex_lock(&ep->mutex);
	ret = ep->state != IBV_EP_IDLE ? -EINVAL : 0;
	mutex_unlock(&ep->mutex);
	return ret;
}

static int ibv_ep_close(struct fid *fid)
{
	struct ibv_ep *ep = container_of(fid, struct ibv_ep, ep.fid);
	struct rdma_cm_id *id = NULL;

	mutex_lock(&ep->mutex);
	if (ep->state != IBV_EP_DEAD)
		id = ibv_ep_release(ep);
	mutex_unlock(&ep->mutex);
	if (id)
		rdma_destroy_id(id);
	mutex_lock(&ep->dom->lock);
	list_del(&ep->dom_node);
	mutex_unlock(&ep->dom->lock);
	cancel_delayed_work_sync(&ep->keepalive);
	cancel_delayed_work_sync(&ep->nudge);
	/* The QP is gone: no event queues the work again. */
	cancel_work_sync(&ep->qp_work);
	kfree(ep->reqs);
	fi_freeinfo(ep->info);
	put_net(ep->net);
	kfree(ep);
	return 0;
}

static int ibv_ep_getopt(struct fid *fid, int level, int optname,
			 void *optval, size_t *optlen)
{
	struct ibv_ep *ep = container_of(fid, struct ibv_ep, ep.fid);
	size_t val;

	if (level != FI_OPT_ENDPOINT)
		return -ENOPROTOOPT;
	mutex_lock(&ep->mutex);
	switch (optname) {
	case FI_OPT_CM_DATA_SIZE:
		/* What fi_connect() (fi_accept() if passive) may send. */
		if (!ep->cm_raw)
			val = IBV_CM_DATA_MAX;
		else
			val = ep->passive ? IBV_CM_RAW_REP_MAX :
			      IBV_CM_RAW_REQ_MAX;
		break;
	case FI_OPT_CM_DATA_RAW:
		val = ep->cm_raw;
		break;
	case FI_OPT_KEEPALIVE_MS:
		val = ep->keepalive_ms;
		break;
	case FI_OPT_RETRY_COUNT:
		val = ep->retry_count;
		break;
	case FI_OPT_ACK_TIMEOUT:
		val = ep->ack_timeout;
		break;
	default:
		mutex_unlock(&ep->mutex);
		return -ENOPROTOOPT;
	}
	mutex_unlock(&ep->mutex);
	if (*optlen < sizeof(size_t))
		return -EINVAL;
	*(size_t *)optval = val;
	*optlen = sizeof(size_t);
	return 0;
}

/* A new keepalive interval; takes effect at once on a connection. */
static int ibv_ep_set_keepalive(struct ibv_ep *ep, size_t ms)
{
	lockdep_assert_held(&ep->mutex);
	if (ms > IBV_KEEPALIVE_MAX_MS)
		return -EINVAL;
	WRITE_ONCE(ep->keepalive_ms, ms);
	if (ep->state != IBV_EP_CONNECTED)
		return 0;
	if (ms)
		mod_delayed_work(system_wq, &ep->keepalive,
				 msecs_to_jiffies(ms));
	else
		cancel_delayed_work(&ep->keepalive);
	return 0;
}

/*
 * An option the connection is made with: settable until fi_connect() or
 * fi_accept() (the connection data's format, the retry parameters).
 */
static int ibv_ep_set_conn_opt(struct ibv_ep *ep, int optname, size_t val)
{
	lockdep_assert_held(&ep->mutex);
	if ((optname == FI_OPT_RETRY_COUNT && val > IBV_RETRY_COUNT_MAX) ||
	    (optname == FI_OPT_ACK_TIMEOUT && val > IBV_ACK_TIMEOUT_MAX))
		return -EINVAL;
	if (ep->state != IBV_EP_IDLE && ep->state != IBV_EP_ENABLED)
		return -EISCONN;
	if (optname == FI_OPT_CM_DATA_RAW)
		ep->cm_raw = !!val;
	else if (optname == FI_OPT_RETRY_COUNT)
		ep->retry_count = val;
	else
		ep->ack_timeout = val;
	return 0;
}

static int ibv_ep_setopt(struct fid *fid, int level, int optname,
			 const void *optval, size_t optlen)
{
	struct ibv_ep *ep = container_of(fid, struct ibv_ep, ep.fid);
	size_t val;
	int ret;

	if (level != FI_OPT_ENDPOINT)
		return -ENOPROTOOPT;
	switch (optname) {
	case FI_OPT_CM_DATA_RAW:
	case FI_OPT_KEEPALIVE_MS:
	case FI_OPT_RETRY_COUNT:
	case FI_OPT_ACK_TIMEOUT:
		break;
	default:
		return -ENOPROTOOPT;
	}
	if (optlen != sizeof(size_t))
		return -EINVAL;
	val = *(const size_t *)optval;
	mutex_lock(&ep->mutex);
	if (optname == FI_OPT_KEEPALIVE_MS)
		ret = ibv_ep_set_keepalive(ep, val);
	else
		ret = ibv_ep_set_conn_opt(ep, optname, val);
	mutex_unlock(&ep->mutex);
	return ret;
}

static const struct fi_ops ibv_ep_fi_ops = {
	.close = ibv_ep_close,
	.bind = ibv_ep_bind,
};

static const struct fi_ops_ep ibv_ep_ops = {
	.getopt = ibv_ep_getopt,
	.setopt = ibv_ep_setopt,
	.enable = ibv_ep_enable,
};

/**
 * ibv_endpoint() - the domain's endpoint operation
 * @domain: the domain
 * @info: the endpoint's info; with a handle, the connection request to
 *	accept (it is consumed on success)
 * @fep: the new endpoint
 * @context: user context
 *
 * The endpoint lives in the network namespace of the calling task: its
 * rdma_cm identifier is created there by fi_enable() (an endpoint opened
 * from a connection request has the listener's).
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a bad info or a request on another device;
 * -ENODEV if the device is gone (or the request's device went away);
 * -ECONNABORTED if the peer withdrew the request; -ENOMEM.
 */
int ibv_endpoint(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **fep, void *context)
{
	struct ibv_domain *dom = container_of(domain, struct ibv_domain,
					      domain);
	struct ibv_connreq *cr = NULL;
	struct rdma_cm_id *id = NULL;
	struct ibv_ep *ep;
	int ret;

	if (info->ep_attr && info->ep_attr->type != FI_EP_MSG &&
	    info->ep_attr->type != FI_EP_UNSPEC)
		return -EINVAL;
	if (info->handle) {
		if (info->handle->fclass != FI_CLASS_CONNREQ)
			return -EINVAL;
		if (!ibv_is_connreq(info->handle))
			return -EINVAL;
		cr = container_of(info->handle, struct ibv_connreq, fid);
	}
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return -ENOMEM;
	ep->info = fi_dupinfo(info, GFP_KERNEL);
	if (!ep->info) {
		kfree(ep);
		return -ENOMEM;
	}
	ep->info->handle = NULL;
	ep->dom = dom;
	ep->net = get_net(ibv_current_net());
	mutex_init(&ep->mutex);
	spin_lock_init(&ep->lock);
	init_completion(&ep->reg_done);
	init_completion(&ep->addr_done);
	INIT_DELAYED_WORK(&ep->keepalive, ibv_ep_keepalive_work);
	INIT_DELAYED_WORK(&ep->nudge, ibv_ep_nudge_work);
	INIT_WORK(&ep->qp_work, ibv_ep_qp_work);
	atomic_set(&ep->qp_event, 0);
	ep->keepalive_ms = min(ibv_keepalive_ms, IBV_KEEPALIVE_MAX_MS);
	ep->retry_count = min(ibv_retry_count, IBV_RETRY_COUNT_MAX);
	ep->ack_timeout = min(ibv_ack_timeout, IBV_ACK_TIMEOUT_MAX);
	ep->state = IBV_EP_IDLE;
	/* Before the cm_id's context becomes the endpoint. */
	kofi_fid_init(&ep->ep.fid, FI_CLASS_EP, &ibv_ep_fi_ops, context);
	ep->ep.ops = &ibv_ep_ops;
	ep->ep.cm = &ibv_ep_cm_ops;
	ep->ep.msg = &ibv_msg_ops;
	ep->ep.rma = &ibv_rma_ops;

	mutex_lock(&dom->lock);
	if (dom->removed) {
		ret = -ENODEV;
		goto err_unlock;
	}
	if (cr) {
		ret = ibv_connreq_take(cr, dom->dev->ibdev, &id);
		if (ret)
			goto err_unlock;
		ep->cm_id = id;
		ep->passive = true;
		ep->peer_rd_atomic = cr->initiator_depth;
		ep->peer_rd_resp = cr->responder_resources;
		ep->cm_raw = cr->cm_raw;
		rdma_lock_handler(id);
		/*
		 * Set by the request's handler if it ended the request after
		 * the identifier was taken (under this lock: stable here).
		 */
		ep->req_err = READ_ONCE(cr->err);
		id->context = &ep->ep.fid;
		rdma_unlock_handler(id);
		ibv_connreq_free(cr);
	}
	list_add_tail(&ep->dom_node, &dom->eps);
	mutex_unlock(&dom->lock);
	*fep = &ep->ep;
	return 0;

err_unlock:
	mutex_unlock(&dom->lock);
	put_net(ep->net);
	fi_freeinfo(ep->info);
	kfree(ep);
	return ret;
}
