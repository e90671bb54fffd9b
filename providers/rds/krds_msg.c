// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI rds provider: the data calls - messages and tagged messages - and
 * the progress work.
 *
 * The data calls only queue: RDS's sendmsg and recvmsg may sleep.  The
 * endpoint's work (process context, krds_wq) hands queued sends to the
 * socket in order and receives into posted buffers; it runs when the
 * socket's wait queue is woken (a message arrived, send space was freed),
 * when a call queued something, and, while the socket refuses a send for
 * back-pressure (EAGAIN: send space; ENOBUFS: the destination port is
 * congested), again after KRDS_RETRY_MS.  A refused send stays at the head
 * of the queue: nothing is lost, and the caller sees -EAGAIN once the
 * queue (tx_attr->size) is full.  A send completes when the socket has
 * taken the message.  Completions are written with no lock held.
 *
 * Receives go through kofi.ko's receive matching: one queue for messages
 * and, on a header endpoint (FI_TAGGED or FI_REMOTE_CQ_DATA,
 * krds_proto.h, which sends the header in front of every payload), one
 * for tagged messages.  The work peeks at the head message of the socket
 * (MSG_PEEK: its source, length and header), finds the first posted
 * receive that takes it - with FI_DIRECTED_RECV only a receive of any
 * source or of the message's - and receives it straight into that
 * receive's buffer.  A message no receive takes is received into a buffer
 * of its own and waits as unexpected, where a receive posted later (or
 * FI_PEEK) finds it - but on an FI_MSG-only endpoint with no receive
 * posted it stays in the socket, where RDS's congestion control holds the
 * sender back.  Once KRDS_UX_MAX messages wait on a queue, or
 * KRDS_UX_BYTES bytes on both, the head message stays in the socket (and
 * the messages behind it with it) until receives take waiting ones.  A
 * message without a valid header is dropped and counted.  An RMA frame
 * (an endpoint with FI_RMA) goes to krds_rma_rx(), and the work sends the
 * answers to peers' RMA requests before the endpoint's own sends.
 *
 * A multi-receive buffer (FI_MULTI_RECV) takes message after message, each
 * where the previous one ended; only the work places messages in one (it
 * posts the buffer itself), so they complete in order, the last, which
 * leaves less than FI_OPT_MIN_MULTI_RECV, with FI_MULTI_RECV.  fi_cancel()
 * of a buffer the work is filling leaves its completion to the work, and so
 * does fi_av_remove() of the source a receive is directed to
 * (krds_av_removed()), which cancels the receive.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <net/ipv6.h>
#include "krds.h"

/**
 * krds_req_get() - a free request of an enabled endpoint
 * @ep: the endpoint
 * @free: &krds_ep.tx_free or &krds_ep.rx_free
 *
 * Context: any context; does not sleep.
 * Return: the request, off the list; NULL if none is free or the endpoint
 * is not enabled.
 */
struct krds_req *krds_req_get(struct krds_ep *ep, struct list_head *free)
{
	struct krds_req *req = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (ep->state == KRDS_EP_ENABLED)
		req = list_first_entry_or_null(free, struct krds_req, node);
	if (req)
		list_del_init(&req->node);
	spin_unlock_irqrestore(&ep->lock, flags);
	return req;
}

/**
 * krds_req_put() - give back a request that was not posted
 * @ep: the endpoint
 * @req: the request
 * @free: the list krds_req_get() took it from
 *
 * Context: any context; does not sleep.
 */
void krds_req_put(struct krds_ep *ep, struct krds_req *req,
		  struct list_head *free)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	list_add(&req->node, free);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/* Queue @req on @queue as an outstanding operation. */
static void krds_req_queue(struct krds_ep *ep, struct krds_req *req,
			   struct list_head *queue)
{
	unsigned long flags;

	kofi_oplist_add(&ep->ops, &req->op);
	spin_lock_irqsave(&ep->lock, flags);
	list_add_tail(&req->node, queue);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/**
 * krds_req_post() - post a request
 * @ep: the endpoint
 * @req: the request, filled in
 * @queue: &krds_ep.tx_queue or &krds_ep.rx_multi
 *
 * Queue @req on @queue as an outstanding operation and run the work.
 *
 * Context: any context; does not sleep.
 */
void krds_req_post(struct krds_ep *ep, struct krds_req *req,
		   struct list_head *queue)
{
	krds_req_queue(ep, req, queue);
	krds_ep_kick(ep);
}

/**
 * krds_req_done() - complete a request
 * @ep: the endpoint
 * @req: the request
 * @free: its free list
 * @c: the completion; the request's context and flags are added
 *
 * Complete @req and free it - but a multi-receive buffer only with its
 * last message (FI_MULTI_RECV in @c->flags).  The request goes back to its
 * free list before the completion is written, so that a callback CQ's
 * done() may post again at once.  A request close flushed already is left
 * alone.
 *
 * Context: any context; does not sleep.
 */
void krds_req_done(struct krds_ep *ep, struct krds_req *req,
		   struct list_head *free, const struct kofi_comp *c)
{
	struct kofi_op op = req->op;
	struct kofi_comp out;

	if (!(req->me.flags & FI_MULTI_RECV) || (c->flags & FI_MULTI_RECV)) {
		if (!kofi_oplist_del(&ep->ops, &req->op))
			return;
		krds_req_put(ep, req, free);
	}
	if (!op.cq)
		return;
	out = *c;
	out.op_context = op.context;
	out.flags |= op.flags;
	if (!(op.flags & FI_RECV))
		out.src = FI_ADDR_NOTAVAIL;
	kofi_cq_write_comp(op.cq, &out);
}

/**
 * krds_req_fail() - complete a request that failed
 * @ep: the endpoint
 * @req: the request
 * @free: its free list
 * @err: the positive errno of its error entry
 *
 * Context: any context; does not sleep.
 */
void krds_req_fail(struct krds_ep *ep, struct krds_req *req,
		   struct list_head *free, int err)
{
	struct kofi_comp c = { .err = err };

	krds_req_done(ep, req, free, &c);
}

/* ---- sends ---- */

/**
 * krds_req_inject() - FI_INJECT: copy the payload into the request
 * @req: a send request whose vector is set; it sends the copy
 *
 * Context: any context; does not sleep.
 * Return: 0; -EMSGSIZE above KRDS_INJECT_SIZE; -EFAULT.
 */
int krds_req_inject(struct krds_req *req)
{
	struct kofi_vec *v = &req->vec;
	struct iov_iter it;

	if (v->len > KRDS_INJECT_SIZE)
		return -EMSGSIZE;
	kofi_vec_iter(v, ITER_SOURCE, false, &it);
	if (copy_from_iter(req->inject, v->len, &it) != v->len)
		return -EFAULT;
	v->type = FI_IOV_KVEC;
	v->count = v->first + 1;
	v->kv[v->first].iov_base = req->inject;
	v->kv[v->first].iov_len = v->len;
	return 0;
}

/**
 * krds_req_dest() - set a send request's destination
 * @ep: the endpoint
 * @req: the request
 * @addr: the destination's handle in the endpoint's AV
 *
 * Context: any context; does not sleep.
 * Return: 0; -EINVAL for an unknown handle or an address of another
 * family than the endpoint's.
 */
int krds_req_dest(struct krds_ep *ep, struct krds_req *req, fi_addr_t addr)
{
	struct sockaddr_storage ss;
	int ret;

	ret = kofi_av_lookup_addr(kofi_ep_av(&ep->ep), addr, &ss);
	if (ret < 0)
		return ret;
	if (ss.ss_family != ep->family || ret > sizeof(req->dest))
		return -EINVAL;
	memcpy(&req->dest, &ss, ret);
	req->cancelled = false;
	return 0;
}

/* Describe the send @t (@op: FI_MSG or FI_TAGGED) in @req. */
static int krds_req_send(struct krds_ep *ep, struct krds_req *req,
			 const struct fi_msg_tagged *t, u64 flags, u64 op)
{
	int ret;

	ret = krds_req_dest(ep, req, t->addr);
	if (ret)
		return ret;
	ret = kofi_vec_set(&req->vec, t->iov_type, t->msg_iov, t->iov_count,
			   ep->hdr);
	if (!ret && (flags & FI_INJECT))
		ret = krds_req_inject(req);
	if (ret)
		return ret;
	if (req->vec.len > ep->max_msg)
		return -EMSGSIZE;
	if (ep->hdr) {
		krds_hdr_fill(&req->hdr, op == FI_TAGGED, t->tag,
			      flags & FI_REMOTE_CQ_DATA, t->data);
		kofi_vec_hdr(&req->vec, &req->hdr, sizeof(req->hdr));
	}
	req->op.cq = (flags & FI_INJECT) ? NULL :
		     kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL);
	req->op.context = t->context;
	req->op.flags = FI_SEND | op;
	return 0;
}

static void krds_tx_direct(struct krds_ep *ep, struct krds_req *req);

static ssize_t krds_send(struct krds_ep *ep, const struct fi_msg_tagged *t,
			 u64 flags, u64 op)
{
	struct krds_req *req;
	int ret;

	if (flags & FI_DELIVERY_COMPLETE)
		return -FI_ENOSYS;
	/* remote CQ data travels in the header */
	if ((flags & FI_REMOTE_CQ_DATA) && !ep->hdr)
		return -FI_ENOSYS;
	req = krds_req_get(ep, &ep->tx_free);
	if (!req)
		return ep->state == KRDS_EP_ENABLED ? -EAGAIN : -EINVAL;
	ret = krds_req_send(ep, req, t, flags, op);
	if (ret) {
		krds_req_put(ep, req, &ep->tx_free);
		return ret;
	}
	if (READ_ONCE(ep->may_sleep) || (flags & FI_MAY_SLEEP))
		krds_tx_direct(ep, req);
	else
		krds_req_post(ep, req, &ep->tx_queue);
	return 0;
}

static ssize_t krds_sendmsg(struct fid_ep *fep, const struct fi_msg *msg,
			    u64 flags)
{
	struct fi_msg_tagged t;

	kofi_msg_to_tagged(msg, &t);
	return krds_send(container_of(fep, struct krds_ep, ep), &t, flags,
			 FI_MSG);
}

static ssize_t krds_tsendmsg(struct fid_ep *fep,
			     const struct fi_msg_tagged *msg, u64 flags)
{
	return krds_send(container_of(fep, struct krds_ep, ep), msg, flags,
			 FI_TAGGED);
}

/* ---- receives ---- */

/* The receive queue of @req: by its kind, FI_MSG or FI_TAGGED. */
static struct kofi_match_queue *krds_rxq(struct krds_ep *ep,
					 const struct krds_req *req)
{
	return (req->op.flags & FI_TAGGED) ? &ep->tagq : &ep->msgq;
}

/* Take a free receive request and fill it; NULL with *@err set. */
static struct krds_req *krds_rx_get(struct krds_ep *ep,
				    const struct fi_msg_tagged *r, u64 flags,
				    u64 op, int *err)
{
	struct krds_req *req;

	/* a multi-receive buffer is one kvec: completions point into it */
	if ((flags & FI_MULTI_RECV) &&
	    (r->iov_type != FI_IOV_KVEC || r->iov_count != 1)) {
		*err = -EINVAL;
		return NULL;
	}
	req = krds_req_get(ep, &ep->rx_free);
	if (!req) {
		*err = ep->state == KRDS_EP_ENABLED ? -EAGAIN : -EINVAL;
		return NULL;
	}
	*err = kofi_vec_set(&req->vec, r->iov_type, r->msg_iov, r->iov_count,
			    ep->hdr);
	if (*err) {
		krds_req_put(ep, req, &ep->rx_free);
		return NULL;
	}
	if (ep->hdr)
		kofi_vec_hdr(&req->vec, &req->hdr, sizeof(req->hdr));
	memset(&req->me, 0, sizeof(req->me));
	req->me.addr = ep->msgq.directed ? r->addr : FI_ADDR_UNSPEC;
	req->me.tag = r->tag;
	req->me.ignore = r->ignore;
	req->me.context = r->context;
	req->me.len = req->vec.len;
	req->me.flags = flags & FI_MULTI_RECV;
	req->busy = false;
	req->cancelled = false;
	req->op.cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);
	req->op.context = r->context;
	req->op.flags = FI_RECV | op;
	return req;
}

/*
 * An unexpected message was taken (or dropped): it no longer counts
 * towards the bound, and the work frees it (kvfree() may sleep).
 */
static void krds_ux_release(struct krds_ep *ep, struct krds_ux *ux)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	ep->ux_bytes -= ux->d.len;
	list_add_tail(&ux->me.node, &ep->ux_dead);
	spin_unlock_irqrestore(&ep->lock, flags);
	krds_ep_kick(ep);
}

/* Room for the message @msg in the receive @req taking it. */
static size_t krds_rx_room(const struct krds_req *req,
			   const struct kofi_match_entry *msg)
{
	if (!(req->me.flags & FI_MULTI_RECV))
		return req->vec.len;
	return req->vec.len - msg->offset;
}

/*
 * The completion of the receive @req that took the message @d (@msg: its
 * matching entry).
 */
static void krds_comp_fill(struct kofi_comp *c, const struct krds_req *req,
			   const struct krds_msg_desc *d,
			   const struct kofi_match_entry *msg)
{
	const struct kofi_vec *v = &req->vec;
	size_t olen = krds_rx_truncated(d->len, krds_rx_room(req, msg));

	*c = (struct kofi_comp){
		.flags = (d->flags & FI_REMOTE_CQ_DATA) |
			 (msg->flags & FI_MULTI_RECV),
		.len = d->len - olen,
		.data = d->data,
		.tag = d->tag,
		.src = msg->addr,
		.olen = olen,
		.err = olen ? EMSGSIZE : 0,
	};
	if (req->me.flags & FI_MULTI_RECV)
		c->buf = (u8 *)v->kv[v->first].iov_base + msg->offset;
}

/*
 * An iterator over where the message @msg goes in the receive @req, the
 * header entry in front if @hdr; @kv: room for two kvecs.
 */
static void krds_rx_iter(const struct krds_req *req,
			 const struct kofi_match_entry *msg, bool hdr,
			 struct kvec *kv, struct iov_iter *it)
{
	const struct kofi_vec *v = &req->vec;
	unsigned int n = 0;

	if (!(req->me.flags & FI_MULTI_RECV)) {
		kofi_vec_iter(v, ITER_DEST, hdr, it);
		return;
	}
	if (hdr && v->first)
		kv[n++] = v->kv[0];
	kv[n].iov_base = (u8 *)v->kv[v->first].iov_base + msg->offset;
	kv[n].iov_len = krds_rx_room(req, msg);
	iov_iter_kvec(it, ITER_DEST, kv, n + 1,
		      (hdr ? v->hdr_len : 0) + kv[n].iov_len);
}

/* Is @req used up once the message @msg is in it? */
static bool krds_rx_released(const struct krds_req *req,
			     const struct kofi_match_entry *msg)
{
	return !(req->me.flags & FI_MULTI_RECV) || (msg->flags & FI_MULTI_RECV);
}

/* fi_cancel() of @req, or the work done with @req that it cancelled. */
static void krds_rx_cancelled(struct krds_ep *ep, struct krds_req *req)
{
	struct kofi_comp c = {
		.err = ECANCELED,
		.flags = req->me.flags & FI_MULTI_RECV,
	};

	krds_req_done(ep, req, &ep->rx_free, &c);
}

/*
 * A message is in the multi-receive buffer @req, which stays posted: it
 * may take the next one, or complete the fi_cancel() that found it busy.
 */
static void krds_rx_idle(struct krds_ep *ep, struct krds_req *req)
{
	unsigned long flags;
	bool cancelled;

	spin_lock_irqsave(&ep->lock, flags);
	req->busy = false;
	cancelled = req->cancelled;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (cancelled)
		krds_rx_cancelled(ep, req);
}

/*
 * Copy the unexpected message @ux into @req, complete @req (a
 * multi-receive buffer only with its last message), free @ux.
 * Return: true if @req was used up.
 */
static bool krds_ux_deliver(struct krds_ep *ep, struct krds_req *req,
			    struct krds_ux *ux)
{
	bool released = krds_rx_released(req, &ux->me);
	struct kofi_comp c;
	struct iov_iter it;
	struct kvec kv[2];

	krds_comp_fill(&c, req, &ux->d, &ux->me);
	krds_rx_iter(req, &ux->me, false, kv, &it);
	if (c.len && copy_to_iter(ux->buf, c.len, &it) != c.len)
		c.err = EFAULT;
	krds_ux_release(ep, ux);
	krds_req_done(ep, req, &ep->rx_free, &c);
	return released;
}

/* Post @req on @q, moving the unexpected messages it takes to @taken. */
static void krds_rx_post_locked(struct krds_ep *ep, struct kofi_match_queue *q,
				struct krds_req *req, struct list_head *taken)
{
	lockdep_assert_held(&ep->lock);
	kofi_match_post(q, &req->me, taken);
	req->busy = !list_empty(taken);
}

/* Deliver the unexpected messages @req took when posted, in order. */
static void krds_rx_deliver_taken(struct krds_ep *ep, struct krds_req *req,
				  struct list_head *taken)
{
	struct kofi_match_entry *me, *next;
	bool released = true;

	list_for_each_entry_safe(me, next, taken, node) {
		list_del_init(&me->node);
		released = krds_ux_deliver(ep, req,
					   container_of(me, struct krds_ux, me));
	}
	if (!released)
		krds_rx_idle(ep, req);
}

/*
 * Post @req on @q: the unexpected messages that wait for it are delivered
 * at once; otherwise, if the work held a message back in the socket, it
 * may now take it.  A message that arrives later wakes the socket.
 */
static void krds_rx_post(struct krds_ep *ep, struct kofi_match_queue *q,
			 struct krds_req *req)
{
	unsigned long flags;
	bool held;
	LIST_HEAD(taken);

	spin_lock_irqsave(&ep->lock, flags);
	krds_rx_post_locked(ep, q, req, &taken);
	held = ep->rx_held;
	ep->rx_held = false;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (held)
		krds_ep_kick(ep);
	if (!list_empty(&taken))
		krds_rx_deliver_taken(ep, req, &taken);
}

static ssize_t krds_recv(struct krds_ep *ep, const struct fi_msg_tagged *r,
			 u64 flags, u64 op)
{
	struct krds_req *req;
	int ret;

	req = krds_rx_get(ep, r, flags, op, &ret);
	if (!req)
		return ret;
	/* the work posts a multi-receive buffer: it alone fills one */
	if (flags & FI_MULTI_RECV) {
		krds_req_post(ep, req, &ep->rx_multi);
		return 0;
	}
	kofi_oplist_add(&ep->ops, &req->op);
	krds_rx_post(ep, krds_rxq(ep, req), req);
	return 0;
}

static ssize_t krds_recvmsg(struct fid_ep *fep, const struct fi_msg *msg,
			    u64 flags)
{
	struct fi_msg_tagged t;

	if (flags & FI_PEEK)
		return -FI_ENOSYS;
	kofi_msg_to_tagged(msg, &t);
	return krds_recv(container_of(fep, struct krds_ep, ep), &t, flags,
			 FI_MSG);
}

/* A message dropped by FI_DISCARD: its completion, with its tag. */
static void krds_ux_discard(struct krds_ep *ep, struct krds_ux *ux,
			    void *context)
{
	struct fid_cq *cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);
	fi_addr_t src = ux->me.addr;
	u64 tag = ux->d.tag;

	krds_ux_release(ep, ux);
	kofi_cq_write_tagged(cq, context, FI_RECV | FI_TAGGED, 0, NULL, 0, tag,
			     src);
}

/* fi_trecvmsg() with FI_PEEK: report (and claim or drop) a message. */
static ssize_t krds_peek(struct krds_ep *ep, const struct fi_msg_tagged *r,
			 u64 flags)
{
	struct fid_cq *cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);
	struct kofi_match_entry want = {
		.addr = ep->tagq.directed ? r->addr : FI_ADDR_UNSPEC,
		.tag = r->tag,
		.ignore = r->ignore,
		.context = r->context,
	};
	struct kofi_match_entry *me;
	struct krds_ux *ux = NULL;
	struct kofi_comp c = {};
	unsigned long irq;

	spin_lock_irqsave(&ep->lock, irq);
	me = kofi_match_peek(&ep->tagq, &want, flags);
	if (me) {
		ux = container_of(me, struct krds_ux, me);
		c.len = ux->d.len;
		c.tag = ux->d.tag;
		c.data = ux->d.data;
		c.flags = ux->d.flags;
		c.src = me->addr;
	}
	spin_unlock_irqrestore(&ep->lock, irq);
	if (!ux)
		return kofi_match_peek_write(cq, r->context, NULL);
	if (flags & FI_DISCARD) {
		krds_ux_discard(ep, ux, r->context);
		return 0;
	}
	return kofi_match_peek_write(cq, r->context, &c);
}

/* The message FI_PEEK | FI_CLAIM claimed for @context; NULL if none. */
static struct krds_ux *krds_claimed(struct krds_ep *ep, void *context)
{
	struct kofi_match_entry *me;
	unsigned long irq;

	spin_lock_irqsave(&ep->lock, irq);
	me = kofi_match_claim(&ep->tagq, context);
	spin_unlock_irqrestore(&ep->lock, irq);
	return me ? container_of(me, struct krds_ux, me) : NULL;
}

/* fi_trecvmsg() with FI_CLAIM: receive (or drop) the claimed message. */
static ssize_t krds_claim(struct krds_ep *ep, const struct fi_msg_tagged *r,
			  u64 flags)
{
	struct krds_req *req;
	struct krds_ux *ux;
	int ret;

	if (flags & FI_DISCARD) {
		ux = krds_claimed(ep, r->context);
		if (!ux)
			return -ENOMSG;
		krds_ux_discard(ep, ux, r->context);
		return 0;
	}
	req = krds_rx_get(ep, r, 0, FI_TAGGED, &ret);
	if (!req)
		return ret;
	ux = krds_claimed(ep, r->context);
	if (!ux) {
		krds_req_put(ep, req, &ep->rx_free);
		return -ENOMSG;
	}
	kofi_oplist_add(&ep->ops, &req->op);
	krds_ux_deliver(ep, req, ux);
	return 0;
}

static ssize_t krds_trecvmsg(struct fid_ep *fep,
			     const struct fi_msg_tagged *msg, u64 flags)
{
	struct krds_ep *ep = container_of(fep, struct krds_ep, ep);

	if (READ_ONCE(ep->state) != KRDS_EP_ENABLED)
		return -EINVAL;
	if (flags & FI_PEEK)
		return krds_peek(ep, msg, flags);
	if (flags & FI_CLAIM)
		return krds_claim(ep, msg, flags);
	return krds_recv(ep, msg, flags, FI_TAGGED);
}

/* Take the posted receive of @context off its queue; NULL if none. */
static struct krds_req *krds_rx_find(struct krds_ep *ep, void *context)
{
	struct kofi_match_entry *me;
	struct krds_req *req;

	me = kofi_match_cancel(&ep->msgq, context);
	if (!me)
		me = kofi_match_cancel(&ep->tagq, context);
	if (me)
		return container_of(me, struct krds_req, me);
	/* a multi-receive buffer the work has not posted yet */
	list_for_each_entry(req, &ep->rx_multi, node) {
		if (req->op.context != context)
			continue;
		list_del_init(&req->node);
		return req;
	}
	return NULL;
}

/**
 * krds_cancel() - fi_cancel() of a posted receive
 * @fid: the endpoint
 * @context: the receive's context
 *
 * The receive completes with an ECANCELED error entry (with FI_MULTI_RECV
 * for a multi-receive buffer) and takes no message from then on; a
 * multi-receive buffer the work is placing a message in completes once
 * that message's completion is written.  A receive that took its message
 * already is not cancelled.
 *
 * Context: any context; does not sleep.
 * Return: 0; -ENOENT if no posted receive has @context.
 */
ssize_t krds_cancel(struct fid *fid, void *context)
{
	struct krds_ep *ep = container_of(fid, struct krds_ep, ep.fid);
	struct krds_req *req;
	unsigned long flags;
	bool busy = false;

	spin_lock_irqsave(&ep->lock, flags);
	req = ep->state == KRDS_EP_ENABLED ? krds_rx_find(ep, context) : NULL;
	if (req && req->busy) {
		req->cancelled = true;
		busy = true;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!req)
		return -ENOENT;
	if (!busy)
		krds_rx_cancelled(ep, req);
	return 0;
}

/*
 * End the sends to @dest: those queued and the RMA operations waiting for
 * its answer complete with ECANCELED, the one the work is handing to the
 * socket once it is done with it, and RDS drops what it holds.
 */
static void krds_tx_cancel_to(struct krds_ep *ep,
			      const union kofi_sockaddr *dest)
{
	struct krds_req *req, *tmp;
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&ep->lock, flags);
	list_for_each_entry_safe(req, tmp, &ep->tx_queue, node) {
		if (kofi_sockaddr_equal(&req->dest, dest))
			list_move_tail(&req->node, &gone);
	}
	if (ep->tx_busy && kofi_sockaddr_equal(&ep->tx_busy->dest, dest))
		ep->tx_busy->cancelled = true;
	krds_rma_cancel_to(ep, dest, &gone);
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(req, tmp, &gone, node) {
		list_del_init(&req->node);
		krds_req_fail(ep, req, &ep->tx_free, ECANCELED);
	}
	krds_sock_cancel_to(ep->sock, dest);
}

/**
 * krds_av_removed() - a source left the endpoint's address vector
 * @watch: &krds_ep.av_watch
 * @fi_addr: the source's fi_addr_t, no longer in the AV
 * @addr: its address
 *
 * The sends to @addr that the socket has not taken, and the RMA operations
 * waiting for its answer, complete with ECANCELED, and RDS drops those it
 * holds unacknowledged
 * (krds_sock_cancel_to()): a peer host that went away no longer holds
 * the socket's send space, and the endpoint's sends to other peers go on.
 * Sends to it that RDS took completed already.
 *
 * The receives directed to @fi_addr complete with ECANCELED, as after
 * fi_cancel() (a multi-receive buffer the work is placing a message in
 * once that message's completion is written), so that none takes the
 * messages of an address inserted later under the same handle.  Messages
 * from @fi_addr that wait as unexpected stay, their source now
 * FI_ADDR_NOTAVAIL.
 *
 * Context: process context (fi_av_remove()), the AV's mutex held; does
 * not sleep.
 */
void krds_av_removed(struct kofi_av_watch *watch, fi_addr_t fi_addr,
		     const struct sockaddr *addr)
{
	struct krds_ep *ep = container_of(watch, struct krds_ep, av_watch);
	size_t len = kofi_sockaddr_len(addr, sizeof(union kofi_sockaddr));
	struct kofi_match_entry *me, *next;
	union kofi_sockaddr dest = {};
	struct krds_req *req, *tmp;
	unsigned long flags;
	LIST_HEAD(gone);

	if (len && addr->sa_family == ep->family) {
		memcpy(&dest, addr, len);
		krds_tx_cancel_to(ep, &dest);
	}
	spin_lock_irqsave(&ep->lock, flags);
	kofi_match_forget(&ep->msgq, fi_addr, &gone);
	kofi_match_forget(&ep->tagq, fi_addr, &gone);
	/* multi-receive buffers the work has not posted yet */
	list_for_each_entry_safe(req, tmp, &ep->rx_multi, node) {
		if (fi_addr == FI_ADDR_UNSPEC || req->me.addr != fi_addr)
			continue;
		list_del_init(&req->node);
		list_add_tail(&req->me.node, &gone);
	}
	list_for_each_entry_safe(me, next, &gone, node) {
		req = container_of(me, struct krds_req, me);
		if (!req->busy)
			continue;
		list_del_init(&me->node);
		req->cancelled = true;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(me, next, &gone, node) {
		list_del_init(&me->node);
		krds_rx_cancelled(ep, container_of(me, struct krds_req, me));
	}
}

const struct fi_ops_msg krds_msg_ops = {
	.recvmsg = krds_recvmsg,
	.sendmsg = krds_sendmsg,
};

const struct fi_ops_tagged krds_tagged_ops = {
	.trecvmsg = krds_trecvmsg,
	.tsendmsg = krds_tsendmsg,
};

/* ---- progress ---- */

/* The send the work hands to the socket: fi_av_remove() may cancel it. */
static struct krds_req *krds_tx_take(struct krds_ep *ep)
{
	struct krds_req *req;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	req = list_first_entry_or_null(&ep->tx_queue, struct krds_req, node);
	if (req)
		list_del_init(&req->node);
	ep->tx_busy = req;
	spin_unlock_irqrestore(&ep->lock, flags);
	return req;
}

/*
 * The socket answered @ret to @req, the work's send.  Return: true if
 * @req waits at the head of the queue for send space; false if it is
 * done: taken (an RMA operation then waits for its answer; or dropped
 * again, its destination removed meanwhile) or failed.
 */
static bool krds_tx_sent(struct krds_ep *ep, struct krds_req *req, int ret)
{
	bool cancelled, again = ret == -EAGAIN || ret == -ENOBUFS;
	struct kofi_comp c = { .len = req->vec.len };
	unsigned long flags;
	bool waiting;

	spin_lock_irqsave(&ep->lock, flags);
	ep->tx_busy = NULL;
	cancelled = req->cancelled;
	if (again && !cancelled)
		list_add(&req->node, &ep->tx_queue);
	/* an RMA operation completes with its answer */
	waiting = !cancelled && ret >= 0 && (req->op.flags & FI_RMA);
	if (waiting)
		krds_rma_wait_locked(ep, req);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (waiting)
		return false;
	if (cancelled) {
		if (ret >= 0)
			krds_sock_cancel_to(ep->sock, &req->dest);
		krds_req_fail(ep, req, &ep->tx_free, ECANCELED);
		return false;
	}
	if (again)
		return true;
	if (ret < 0)
		krds_req_fail(ep, req, &ep->tx_free, -ret);
	else
		krds_req_done(ep, req, &ep->tx_free, &c);
	return false;
}

/* Hand queued sends to the socket.  Return: true if back-pressure
 * stopped it with sends left.
 */
static bool krds_tx_progress(struct krds_ep *ep)
{
	struct krds_req *req;
	int ret;

	while ((req = krds_tx_take(ep))) {
		struct msghdr msg = {
			.msg_name = &req->dest,
			.msg_namelen = kofi_sockaddr_len(&req->dest.sa,
						     sizeof(req->dest)),
			/* RDS refuses any other flag (EOPNOTSUPP) */
			.msg_flags = MSG_DONTWAIT,
		};

		kofi_vec_iter(&req->vec, ITER_SOURCE, true, &msg.msg_iter);
		/* a read sends its frame; the buffer is for the answer */
		if (req->op.flags & FI_READ)
			iov_iter_truncate(&msg.msg_iter, req->vec.hdr_len);
		ret = sock_sendmsg(ep->sock, &msg);
		if (krds_tx_sent(ep, req, ret))
			return true;
	}
	return false;
}

/*
 * Post the send @req of a caller that may sleep, and hand it to the
 * socket in the caller's context when the work is not at the socket and
 * no answer waits (answers go first): a pingpong's message then leaves
 * without waiting for the work to run.  Anything left (back-pressure, or
 * the work busy) is the work's.
 *
 * Context: process context; sleeps in the socket call.
 */
static void krds_tx_direct(struct krds_ep *ep, struct krds_req *req)
{
	bool left = true;

	krds_req_queue(ep, req, &ep->tx_queue);
	if (mutex_trylock(&ep->tx_mutex)) {
		if (READ_ONCE(ep->state) == KRDS_EP_ENABLED &&
		    list_empty(&ep->answers))
			left = krds_tx_progress(ep);
		mutex_unlock(&ep->tx_mutex);
	}
	if (left)
		krds_ep_kick(ep);
}

/* The AV handle of a message's sender (FI_ADDR_NOTAVAIL if none). */
static fi_addr_t krds_src(struct krds_ep *ep, struct sockaddr_storage *ss,
			  int namelen)
{
	fi_addr_t src = FI_ADDR_NOTAVAIL;

	kofi_av_lookup_fi_addr(kofi_ep_av(&ep->ep), (struct sockaddr *)ss,
			       namelen, &src);
	return src;
}

/**
 * krds_rx_discard() - receive (and so drop) the head message
 * @ep: the endpoint
 *
 * Context: the endpoint's work.
 */
void krds_rx_discard(struct krds_ep *ep)
{
	struct msghdr msg = {};

	iov_iter_kvec(&msg.msg_iter, ITER_DEST, NULL, 0, 0);
	sock_recvmsg(ep->sock, &msg, MSG_DONTWAIT);
}

/*
 * Drop the head message, of @len bytes from @ss, whose header is not
 * valid (@err).
 */
static void krds_rx_drop(struct krds_ep *ep, struct sockaddr_storage *ss,
			 int len, int err)
{
	krds_rx_discard(ep);
	ep->bad_msgs++;
	pr_warn_ratelimited("%pISpc: %d-byte message without a valid header dropped (%d; %lu so far)\n",
			    ss, len, err, ep->bad_msgs);
}

/*
 * Peek at the head message: its source, length and header (and RMA
 * header).  Return: 0; -EAGAIN if no message waits; -EBADMSG if one
 * without a valid header was dropped.
 */
static int krds_rx_peek(struct krds_ep *ep, struct krds_arrival *a)
{
	struct sockaddr_storage ss = {};
	struct kvec kv = {
		.iov_base = &a->f,
		.iov_len = ep->hdr ? sizeof(a->f) : 0,
	};
	struct msghdr msg = {
		.msg_name = &ss,
		.msg_namelen = sizeof(ss),
	};
	int total, ret;

	iov_iter_kvec(&msg.msg_iter, ITER_DEST, &kv, 1, kv.iov_len);
	/* MSG_TRUNC: the whole message's length */
	total = sock_recvmsg(ep->sock, &msg,
			     MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC);
	if (total < 0) {
		if (total != -EAGAIN && total != -EINTR)
			pr_warn_ratelimited("receive: %d\n", total);
		return -EAGAIN;
	}
	if (ep->hdr) {
		ret = krds_hdr_parse(&a->f.hdr,
				     min_t(size_t, total, sizeof(a->f.hdr)),
				     total, &a->d);
		if (!ret && (a->d.flags & FI_RMA))
			ret = krds_rma_parse(&a->f,
					     min_t(size_t, total, sizeof(a->f)),
					     &a->d, &a->rd);
		if (ret) {
			krds_rx_drop(ep, &ss, total, ret);
			return -EBADMSG;
		}
	} else {
		a->d = (struct krds_msg_desc){ .flags = FI_MSG, .len = total };
	}
	memset(&a->src, 0, sizeof(a->src));
	memcpy(&a->src, &ss, min_t(size_t, msg.msg_namelen, sizeof(a->src)));
	memset(&a->me, 0, sizeof(a->me));
	a->me.addr = krds_src(ep, &ss, msg.msg_namelen);
	a->me.tag = a->d.tag;
	a->me.len = a->d.len;
	a->q = (a->d.flags & FI_TAGGED) ? &ep->tagq : &ep->msgq;
	return 0;
}

/*
 * Receive the head message (@a) straight into the receive @req that took
 * it.  Return: true if @req was used up.
 */
static bool krds_rx_direct(struct krds_ep *ep, struct krds_req *req,
			   const struct krds_arrival *a)
{
	bool released = krds_rx_released(req, &a->me);
	struct msghdr msg = {};
	struct kofi_comp c;
	struct kvec kv[2];
	int ret;

	krds_comp_fill(&c, req, &a->d, &a->me);
	krds_rx_iter(req, &a->me, true, kv, &msg.msg_iter);
	ret = sock_recvmsg(ep->sock, &msg, MSG_DONTWAIT | MSG_TRUNC);
	if (ret < 0)
		c = (struct kofi_comp){
			.err = -ret,
			.flags = a->me.flags & FI_MULTI_RECV,
		};
	krds_req_done(ep, req, &ep->rx_free, &c);
	return released;
}

/* Free an unexpected message that no receive took yet or ever. */
static void krds_ux_free(struct krds_ux *ux)
{
	kvfree(ux->buf);
	kfree(ux);
}

/*
 * Receive the head message (@a) into a buffer of its own, for the first
 * receive posted since that takes it, or to wait as unexpected; its bytes
 * are counted in ux_bytes already.  Return: 0; -ENOMEM (the message stays
 * in the socket).
 */
static int krds_rx_unexpected(struct krds_ep *ep, struct krds_arrival *a)
{
	size_t hlen = ep->hdr ? sizeof(struct krds_hdr) : 0;
	struct kofi_match_entry *me;
	struct krds_hdr hdr;
	struct kvec kv[2] = {
		{ .iov_base = &hdr, .iov_len = hlen },
	};
	struct msghdr msg = {};
	struct krds_req *req;
	struct krds_ux *ux;
	unsigned long flags;
	int ret;

	ux = kzalloc(sizeof(*ux), GFP_KERNEL);
	if (!ux)
		return -ENOMEM;
	if (a->d.len) {
		ux->buf = kvmalloc(a->d.len, GFP_KERNEL);
		if (!ux->buf) {
			kfree(ux);
			return -ENOMEM;
		}
	}
	kv[1].iov_base = ux->buf;
	kv[1].iov_len = a->d.len;
	iov_iter_kvec(&msg.msg_iter, ITER_DEST, kv, 2, hlen + a->d.len);
	ret = sock_recvmsg(ep->sock, &msg, MSG_DONTWAIT | MSG_TRUNC);
	ux->d = a->d;
	ux->me = a->me;
	spin_lock_irqsave(&ep->lock, flags);
	/* only this work takes messages in: the one peeked at is there */
	me = ret == hlen + a->d.len ? kofi_match_arrive(a->q, &ux->me) :
	     ERR_PTR(-EIO);
	if (IS_ERR(me))
		ep->ux_bytes -= a->d.len;
	req = IS_ERR_OR_NULL(me) ? NULL : container_of(me, struct krds_req, me);
	if (req)
		req->busy = true;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (IS_ERR(me)) {
		pr_warn_ratelimited("receive of a %zu-byte message: %d\n",
				    hlen + a->d.len, ret);
		krds_ux_free(ux);
	} else if (req && !krds_ux_deliver(ep, req, ux)) {
		krds_rx_idle(ep, req);
	}
	return 0;
}

/*
 * Take the head message (@a) in: into the first posted receive that takes
 * it, else as unexpected if it may wait - on an FI_MSG-only endpoint only
 * while a receive is posted.  Return: 0; -EAGAIN if it stays in the socket
 * for now; -ENOMEM.
 */
static int krds_rx_take(struct krds_ep *ep, struct krds_arrival *a)
{
	struct kofi_match_entry *me;
	struct krds_req *req = NULL;
	unsigned long flags;
	bool room = false;

	spin_lock_irqsave(&ep->lock, flags);
	me = kofi_match_find(a->q, &a->me);
	if (me) {
		req = container_of(me, struct krds_req, me);
		req->busy = true;
	} else if (ep->hdr || !list_empty(&a->q->posted)) {
		room = krds_ux_room(a->q->nr_unexpected, a->q->max_unexpected,
				    ep->ux_bytes, KRDS_UX_BYTES, a->d.len);
		if (room)
			ep->ux_bytes += a->d.len;
	}
	/* held back: the next receive posted runs the work again */
	if (!me && !room)
		ep->rx_held = true;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (req) {
		if (!krds_rx_direct(ep, req, a))
			krds_rx_idle(ep, req);
		return 0;
	}
	if (!room)
		return -EAGAIN;
	return krds_rx_unexpected(ep, a);
}

/*
 * Does a message wait in the socket?  RDS's poll says so (for a moment
 * after a congestion map update it says so without one); cheaper than a
 * receive that finds none.
 */
static bool krds_rx_waiting(struct krds_ep *ep)
{
	return ep->sock->ops->poll(NULL, ep->sock, NULL) & EPOLLIN;
}

/*
 * On a bare endpoint whose first posted receive takes any message (no
 * source named, not a multi-receive buffer, nothing unexpected waits),
 * the head message goes straight into that receive, with no look at it
 * first.  The receive stays posted, busy, during the socket call: an
 * fi_cancel() meanwhile takes it off the queue and leaves it to this
 * function, which completes it with its message if one came, else with
 * ECANCELED.  Return: 0 if a message was taken; -ENOENT if the head
 * receive is not such a one; -EAGAIN if no message waited.
 */
static int krds_rx_head(struct krds_ep *ep)
{
	struct krds_msg_desc d = { .flags = FI_MSG };
	struct sockaddr_storage ss = {};
	struct msghdr msg = {
		.msg_name = &ss,
		.msg_namelen = sizeof(ss),
	};
	struct kofi_match_entry m = {}, *me;
	struct krds_req *req = NULL;
	struct kofi_comp c;
	unsigned long flags;
	struct kvec kv[2];
	bool cancelled;
	int ret;

	if (ep->hdr)
		return -ENOENT;
	spin_lock_irqsave(&ep->lock, flags);
	me = list_first_entry_or_null(&ep->msgq.posted,
				      struct kofi_match_entry, node);
	if (me && !(me->flags & FI_MULTI_RECV) && !ep->msgq.nr_unexpected &&
	    (!ep->msgq.directed || me->addr == FI_ADDR_UNSPEC)) {
		req = container_of(me, struct krds_req, me);
		req->busy = true;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!req)
		return -ENOENT;
	krds_rx_iter(req, &m, true, kv, &msg.msg_iter);
	ret = sock_recvmsg(ep->sock, &msg, MSG_DONTWAIT | MSG_TRUNC);
	spin_lock_irqsave(&ep->lock, flags);
	req->busy = false;
	cancelled = req->cancelled;
	if (ret >= 0)
		list_del_init(&req->me.node);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (ret < 0) {
		if (cancelled)
			krds_rx_cancelled(ep, req);
		return -EAGAIN;
	}
	d.len = ret;
	m.addr = krds_src(ep, &ss, msg.msg_namelen);
	m.len = ret;
	krds_comp_fill(&c, req, &d, &m);
	krds_req_done(ep, req, &ep->rx_free, &c);
	return 0;
}

/*
 * Post the multi-receive buffers queued since the work last ran (each
 * taken off the list and posted under one hold of the lock, so that
 * fi_cancel() finds it in one place or the other).
 */
static void krds_rx_multi_progress(struct krds_ep *ep)
{
	struct krds_req *req;
	unsigned long flags;
	LIST_HEAD(taken);

	for (;;) {
		spin_lock_irqsave(&ep->lock, flags);
		req = list_first_entry_or_null(&ep->rx_multi, struct krds_req,
					       node);
		if (req) {
			list_del_init(&req->node);
			krds_rx_post_locked(ep, krds_rxq(ep, req), req, &taken);
		}
		spin_unlock_irqrestore(&ep->lock, flags);
		if (!req)
			return;
		krds_rx_deliver_taken(ep, req, &taken);
	}
}

/*
 * Take waiting messages in.  Return: true if out of memory, or out of room
 * for answers to RMA requests, with messages left (the work tries again
 * later).
 */
static bool krds_rx_progress(struct krds_ep *ep)
{
	struct krds_arrival a;
	unsigned long flags;
	int ret;

	krds_rx_multi_progress(ep);
	for (;;) {
		if (!krds_rx_waiting(ep))
			return false;
		ret = krds_rx_head(ep);
		if (!ret)
			continue;
		if (ret == -EAGAIN)
			return false;
		ret = krds_rx_peek(ep, &a);
		if (ret == -EBADMSG)
			continue;
		if (ret)
			return false;
		if (a.d.flags & FI_RMA) {
			ret = krds_rma_rx(ep, &a);
			if (ret)
				return true;
			continue;
		}
		ret = krds_rx_take(ep, &a);
		if (ret == -ENOMEM) {
			spin_lock_irqsave(&ep->lock, flags);
			ep->ux_bytes -= a.d.len;
			spin_unlock_irqrestore(&ep->lock, flags);
			return true;
		}
		if (ret)
			return false;
	}
}

/* Free the unexpected messages receives took. */
static void krds_ux_reap(struct krds_ep *ep)
{
	struct kofi_match_entry *me, *next;
	unsigned long flags;
	LIST_HEAD(dead);

	spin_lock_irqsave(&ep->lock, flags);
	list_splice_init(&ep->ux_dead, &dead);
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(me, next, &dead, node)
		krds_ux_free(container_of(me, struct krds_ux, me));
}

static void krds_ux_free_queue(struct kofi_match_queue *q)
{
	struct kofi_match_entry *me, *next;

	list_for_each_entry_safe(me, next, &q->unexpected, node) {
		list_del(&me->node);
		krds_ux_free(container_of(me, struct krds_ux, me));
	}
	q->nr_unexpected = 0;
}

/**
 * krds_ux_free_all() - free every unexpected message of a closing endpoint
 * @ep: the endpoint, its work stopped and its operations flushed
 *
 * Context: process context (fi_close()).
 */
void krds_ux_free_all(struct krds_ep *ep)
{
	krds_ux_reap(ep);
	krds_ux_free_queue(&ep->msgq);
	krds_ux_free_queue(&ep->tagq);
	ep->ux_bytes = 0;
}

/**
 * krds_ep_progress() - the endpoint's progress: answers to RMA requests,
 *	sends, receives, overdue RMA operations
 * @ep: the endpoint
 *
 * Run by its work, or by a thread waiting in fi_cq_sread() on one of its
 * CQs (krds_ep.c).
 *
 * Context: process context; sleeps in the socket calls.
 */
void krds_ep_progress(struct krds_ep *ep)
{
	bool again;

	if (READ_ONCE(ep->state) != KRDS_EP_ENABLED)
		return;
	krds_ux_reap(ep);
	mutex_lock(&ep->tx_mutex);
	again = krds_answers_progress(ep);
	again |= krds_tx_progress(ep);
	again |= krds_rx_progress(ep);
	/* the answers to the requests just taken in */
	again |= krds_answers_progress(ep);
	mutex_unlock(&ep->tx_mutex);
	if (again)
		queue_delayed_work(krds_wq, &ep->work,
				   msecs_to_jiffies(KRDS_RETRY_MS));
	krds_rma_expire(ep);
}

/**
 * krds_ep_work() - the endpoint's progress work
 * @work: &krds_ep.work
 *
 * Context: process context (krds_wq); sleeps in the socket calls.
 */
void krds_ep_work(struct work_struct *work)
{
	krds_ep_progress(container_of(to_delayed_work(work), struct krds_ep,
				      work));
}
