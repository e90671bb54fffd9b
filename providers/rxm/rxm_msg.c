// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: the data calls - messages and tagged messages - and the receive
 * path.
 *
 * A send is one eager packet: the 64-byte header, then the payload (the
 * caller's vector, or its copy for FI_INJECT), handed to the core in one
 * fi_sendmsg() on the peer's connection; it completes when the core's
 * send does.  A packet arrives in a bounce buffer of its connection and
 * goes to the first posted receive that takes it (kofi.ko's receive
 * matching: tags, directed receives, multi-receive buffers); the payload
 * is copied out and the buffer posted again.  A packet no receive takes
 * waits in its bounce buffer as an unexpected message, which holds the
 * buffer: a peer that sends faster than the ULP receives is held back by
 * its connection (the core's flow control), nothing is dropped.
 *
 * Completions are written with no rxm lock held, in the context the core
 * completes in (ksocket: socket callbacks or its work; ib_verbs: softirq)
 * or in the data call that found a waiting message.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "rxm.h"

struct kmem_cache *rxm_tx_cache;

/* ---- sends ---- */

/**
 * rxm_tx_free() - free a send entry
 * @ep: its endpoint
 * @tx: the entry
 *
 * Context: any context.
 */
void rxm_tx_free(struct rxm_ep *ep, struct rxm_tx *tx)
{
	kmem_cache_free(rxm_tx_cache, tx);
	atomic_dec(&ep->tx_out);
}

/**
 * rxm_tx_done() - the core completed a packet's send
 * @cq: the core CQ
 * @cqe: &rxm_tx.cqe
 * @comp: the core's completion
 *
 * Context: the core's completion context.
 */
void rxm_tx_done(struct fid_cq *cq, struct fi_cqe *cqe,
		 const struct fi_cq_err_entry *comp)
{
	struct rxm_tx *tx = container_of(cqe, struct rxm_tx, cqe);
	struct rxm_ep *ep = tx->ep;
	void *context = tx->context;
	u64 flags = tx->flags;
	size_t len = tx->len;
	bool inject = tx->inject;
	struct fid_cq *ucq;

	if (tx->rndv) {
		rxm_rndv_sent(tx, comp->err);
		return;
	}
	/* the entry is free again before the ULP may post from its done() */
	rxm_tx_free(ep, tx);
	if (inject)
		return;
	ucq = kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL);
	if (comp->err)
		kofi_cq_write_err(ucq, context, flags, comp->err,
				  comp->prov_errno, 0, 0);
	else
		kofi_cq_write(ucq, context, flags, len, NULL, 0);
}

/* FI_INJECT: the payload copied into the entry. */
static int rxm_tx_inject(struct rxm_tx *tx)
{
	struct iov_iter it;

	if (tx->vec.len > RXM_INJECT_SIZE)
		return -EMSGSIZE;
	kofi_vec_iter(&tx->vec, ITER_SOURCE, false, &it);
	if (copy_from_iter(tx->buf, tx->vec.len, &it) != tx->vec.len)
		return -EFAULT;
	tx->vec.type = FI_IOV_KVEC;
	tx->vec.count = 2;
	tx->vec.kv[1].iov_base = tx->buf;
	tx->vec.kv[1].iov_len = tx->vec.len;
	tx->inject = true;
	return 0;
}

static ssize_t rxm_send(struct rxm_ep *ep, const struct fi_msg_tagged *s,
			u64 flags, u8 op)
{
	struct fi_msg cm = { .addr = FI_ADDR_UNSPEC };
	struct rxm_conn *conn;
	struct rxm_tx *tx;
	int ret;

	if (s->iov_count > ep->info->tx_attr->iov_limit)
		return -EINVAL;
	conn = rxm_conn_get(ep, s->addr, &ret);
	if (!conn)
		return ret;
	ret = -EAGAIN;
	if (atomic_inc_return(&ep->tx_out) > ep->info->tx_attr->size)
		goto err_out;
	tx = kmem_cache_alloc(rxm_tx_cache, GFP_ATOMIC);
	if (!tx)
		goto err_out;
	tx->cqe.done = rxm_tx_done;
	tx->ep = ep;
	tx->context = s->context;
	tx->flags = FI_SEND | (op == RXM_OP_TAGGED ? FI_TAGGED : FI_MSG);
	tx->inject = false;
	tx->rndv = false;
	ret = kofi_vec_set(&tx->vec, s->iov_type, s->msg_iov, s->iov_count, 1);
	if (ret)
		goto err_tx;
	tx->len = tx->vec.len;
	if (flags & FI_INJECT) {
		ret = rxm_tx_inject(tx);
		if (ret)
			goto err_tx;
	}
	rxm_hdr_fill(&tx->hdr, RXM_EAGER, op, lower_32_bits(conn->peer_id),
		     0, tx->len,
		     (flags & FI_REMOTE_CQ_DATA) ? RXM_FLAG_CQ_DATA : 0,
		     (flags & FI_REMOTE_CQ_DATA) ? s->data : 0, s->tag);
	kofi_vec_hdr(&tx->vec, &tx->hdr, sizeof(tx->hdr));
	if (tx->len > RXM_EAGER_LIMIT) {
		ret = rxm_rndv_send(ep, conn, tx);
		if (ret)
			goto err_tx;
		return 0;	/* the work releases the connection */
	}
	cm.iov_type = tx->vec.type;
	if (tx->vec.type == FI_IOV_BVEC)
		cm.msg_bvec = tx->vec.bv;
	else
		cm.msg_iov = tx->vec.kv;
	cm.iov_count = tx->vec.count;
	cm.context = &tx->cqe;
	/*
	 * The core's send completion over its reliable connection is
	 * transmit complete (as libfabric's rxm has it); delivery complete
	 * is the core's acknowledgment.
	 */
	ret = fi_sendmsg(conn->core, &cm, FI_COMPLETION |
			 (flags & FI_DELIVERY_COMPLETE));
	if (ret)
		goto err_tx;
	rxm_conn_put(conn);
	return 0;
err_tx:
	kmem_cache_free(rxm_tx_cache, tx);
err_out:
	atomic_dec(&ep->tx_out);
	rxm_conn_put(conn);
	return ret;
}

static ssize_t rxm_sendmsg(struct fid_ep *fep, const struct fi_msg *msg,
			   u64 flags)
{
	struct fi_msg_tagged t;

	kofi_msg_to_tagged(msg, &t);
	return rxm_send(container_of(fep, struct rxm_ep, ep), &t, flags,
			RXM_OP_MSG);
}

static ssize_t rxm_tsendmsg(struct fid_ep *fep,
			    const struct fi_msg_tagged *msg, u64 flags)
{
	return rxm_send(container_of(fep, struct rxm_ep, ep), msg, flags,
			RXM_OP_TAGGED);
}

/* ---- receives ---- */

/**
 * rxm_buf_alloc() - a bounce buffer for a connection
 * @conn: the connection
 *
 * Context: process context, may sleep.
 * Return: the buffer, or NULL.
 */
struct rxm_buf *rxm_buf_alloc(struct rxm_conn *conn)
{
	struct rxm_buf *buf = kzalloc(sizeof(*buf), GFP_KERNEL);

	if (!buf)
		return NULL;
	buf->pkt = alloc_pages_exact(RXM_BUF_SIZE, GFP_KERNEL);
	if (!buf->pkt) {
		kfree(buf);
		return NULL;
	}
	buf->cqe.done = rxm_buf_done;
	buf->conn = conn;
	return buf;
}

/**
 * rxm_buf_free() - free a bounce buffer
 * @buf: the buffer, not posted
 *
 * Context: any context.
 */
void rxm_buf_free(struct rxm_buf *buf)
{
	free_pages_exact(buf->pkt, RXM_BUF_SIZE);
	kfree(buf);
}

/**
 * rxm_buf_post() - post a bounce buffer on its connection's core endpoint
 * @conn: the connection
 * @buf: the buffer
 *
 * Context: any context; does not sleep.
 * Return: 0 or the core's error.
 */
int rxm_buf_post(struct rxm_conn *conn, struct rxm_buf *buf)
{
	struct kvec kv = { .iov_base = buf->pkt, .iov_len = RXM_BUF_SIZE };
	struct fi_msg cm = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &kv,
		.iov_count = 1,
		.addr = FI_ADDR_UNSPEC,
		.context = &buf->cqe,
	};

	return fi_recvmsg(conn->core, &cm, FI_COMPLETION);
}

/**
 * rxm_buf_recycle() - a bounce buffer is free again
 * @buf: the buffer
 *
 * Posts it again, or frees it if its connection is gone.
 *
 * Context: any context; does not sleep.
 */
void rxm_buf_recycle(struct rxm_buf *buf)
{
	struct rxm_conn *conn = buf->conn;

	if (!conn) {
		rxm_buf_free(buf);
		return;
	}
	if (!rxm_conn_hold(conn))
		return;
	if (rxm_buf_post(conn, buf))
		rxm_conn_fail(conn);
	rxm_conn_put(conn);
}

/* Copy @msg's payload into @rx and describe the completion. */
/**
 * rxm_comp_fill() - the completion of a receive that took a message
 * @rx: the receive
 * @buf: the message (its packet's header, its source, its place in @rx)
 * @len: bytes of it that are (or will be) in @rx; the rest is cut off
 * @c: filled in
 *
 * Context: any context.
 */
void rxm_comp_fill(const struct rxm_rx *rx, const struct rxm_buf *buf,
		   size_t len, struct rxm_comp *c)
{
	const struct rxm_hdr *hdr = (const void *)buf->pkt;

	c->context = rx->me.context;
	c->flags = rx->flags | (buf->me.flags & FI_MULTI_RECV);
	c->len = len;
	c->olen = buf->me.len - len;
	c->buf = NULL;
	if ((rx->me.flags & FI_MULTI_RECV) && rx->vec.type == FI_IOV_KVEC)
		c->buf = (u8 *)rx->vec.kv[0].iov_base + buf->me.offset;
	c->data = 0;
	if (le32_to_cpu(hdr->flags) & RXM_FLAG_CQ_DATA) {
		c->flags |= FI_REMOTE_CQ_DATA;
		c->data = le64_to_cpu(hdr->data);
	}
	c->tag = le64_to_cpu(hdr->tag);
	c->src = buf->me.addr;
}

/**
 * rxm_rx_room() - bytes of a message that fit in the receive taking it
 * @rx: the receive
 * @buf: the message
 *
 * Context: any context.
 * Return: at most the message's length.
 */
size_t rxm_rx_room(const struct rxm_rx *rx, const struct rxm_buf *buf)
{
	size_t off = buf->me.offset;

	return min(buf->me.len, rx->vec.len > off ? rx->vec.len - off : 0);
}

/* Copy @buf's eager payload into @rx and describe the completion. */
static void rxm_copy(struct rxm_rx *rx, struct rxm_buf *buf,
		     struct rxm_comp *c)
{
	struct iov_iter it;
	size_t n;

	kofi_vec_iter(&rx->vec, ITER_DEST, false, &it);
	iov_iter_advance(&it, buf->me.offset);
	n = copy_to_iter(buf->pkt + sizeof(struct rxm_hdr),
			 rxm_rx_room(rx, buf), &it);
	rxm_comp_fill(rx, buf, n, c);
}

/**
 * rxm_comp_write() - write a receive's completion
 * @ep: the endpoint
 * @c: the completion: an EMSGSIZE error entry if bytes were cut off
 *
 * Context: any context; no rxm lock held.
 */
void rxm_comp_write(struct rxm_ep *ep, const struct rxm_comp *c)
{
	struct fid_cq *cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);

	if (c->olen)
		kofi_cq_write_err(cq, c->context, c->flags, EMSGSIZE, 0,
				  c->len, c->olen);
	else
		kofi_cq_write_tagged(cq, c->context, c->flags, c->len, c->buf,
				     c->data, c->tag, c->src);
}

/**
 * rxm_rx_released() - is a receive used up once a message is in it?
 * @rx: the receive
 * @buf: the message
 *
 * Context: any context.
 * Return: true for a plain receive, or the multi-receive buffer's last.
 */
bool rxm_rx_released(const struct rxm_rx *rx, const struct rxm_buf *buf)
{
	return !(rx->me.flags & FI_MULTI_RECV) ||
	       (buf->me.flags & FI_MULTI_RECV);
}

/**
 * rxm_rx_free() - a receive entry is free again
 * @ep: its endpoint
 * @rx: the entry
 *
 * Context: any context.
 */
void rxm_rx_free(struct rxm_ep *ep, struct rxm_rx *rx)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	list_add(&rx->node, &ep->rx_free);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/* Deliver @buf's message into @rx, complete it, recycle @buf. */
static void rxm_deliver(struct rxm_ep *ep, struct rxm_rx *rx,
			struct rxm_buf *buf)
{
	struct rxm_comp c;

	if (((const struct rxm_hdr *)buf->pkt)->type == RXM_RNDV_REQ) {
		rxm_rndv_read(ep, rx, buf);
		return;
	}
	rxm_copy(rx, buf, &c);
	if (rxm_rx_released(rx, buf))
		rxm_rx_free(ep, rx);
	rxm_buf_recycle(buf);
	rxm_comp_write(ep, &c);
}

/**
 * rxm_buf_done() - a bounce buffer received a packet
 * @cq: the core CQ
 * @cqe: &rxm_buf.cqe
 * @comp: the core's completion
 *
 * Context: the core's completion context; does not sleep.
 */
void rxm_buf_done(struct fid_cq *cq, struct fi_cqe *cqe,
		  const struct fi_cq_err_entry *comp)
{
	struct rxm_buf *buf = container_of(cqe, struct rxm_buf, cqe);
	const struct rxm_hdr *hdr = (const void *)buf->pkt;
	struct rxm_conn *conn = buf->conn;
	struct rxm_ep *ep = conn->ep;
	struct kofi_match_queue *q;
	struct kofi_match_entry *me;
	unsigned long flags;

	/* flushed, or the connection failed: the CM work closes it */
	if (comp->err)
		return;
	buf->len = comp->len;
	if (rxm_hdr_check(buf->pkt, buf->len))
		goto bad;
	switch (hdr->type) {
	case RXM_EAGER:
		break;
	case RXM_RNDV_REQ:
		if (!ep->rndv_ok || rxm_rndv_check(buf->pkt, buf->len) ||
		    le64_to_cpu(hdr->size) > ep->info->ep_attr->max_msg_size)
			goto bad;
		break;
	case RXM_RNDV_RD_DONE:
		if (rxm_rndv_answered(conn, le64_to_cpu(hdr->msg_id)))
			goto bad;
		rxm_buf_recycle(buf);
		return;
	default:
		goto bad;
	}
	q = hdr->op == RXM_OP_TAGGED ? &ep->tagq : &ep->msgq;
	memset(&buf->me, 0, sizeof(buf->me));
	buf->me.addr = conn->fi_addr;
	buf->me.tag = le64_to_cpu(hdr->tag);
	buf->me.len = hdr->type == RXM_EAGER ? buf->len - sizeof(*hdr) :
		      le64_to_cpu(hdr->size);
	spin_lock_irqsave(&ep->lock, flags);
	me = kofi_match_arrive(q, &buf->me);
	if (IS_ERR_OR_NULL(me)) {
		buf->held = true;	/* waits as unexpected */
		spin_unlock_irqrestore(&ep->lock, flags);
		return;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	rxm_deliver(ep, container_of(me, struct rxm_rx, me), buf);
	return;
bad:
	pr_debug("malformed packet (type %u, %zu bytes) from %pISpc\n",
		 hdr->type, buf->len, &conn->peer);
	rxm_conn_fail(conn);
}

/* Take a free receive entry and fill it; NULL with *@err set. */
static struct rxm_rx *rxm_rx_get(struct rxm_ep *ep, const struct fi_msg_tagged *r,
				 u64 flags, u64 op, int *err)
{
	struct rxm_rx *rx;
	unsigned long irq;

	spin_lock_irqsave(&ep->lock, irq);
	rx = list_first_entry_or_null(&ep->rx_free, struct rxm_rx, node);
	if (rx && ep->state == RXM_EP_ENABLED)
		list_del_init(&rx->node);
	else
		rx = NULL;
	*err = ep->state == RXM_EP_ENABLED ? -EAGAIN : -EINVAL;
	spin_unlock_irqrestore(&ep->lock, irq);
	if (!rx)
		return NULL;
	*err = r->iov_count > RXM_IOV_LIMIT ? -EINVAL :
	       kofi_vec_set(&rx->vec, r->iov_type, r->msg_iov, r->iov_count,
			    0);
	if (!*err && (flags & FI_MULTI_RECV) &&
	    (rx->vec.type != FI_IOV_KVEC || rx->vec.count != 1))
		*err = -EINVAL;
	if (*err) {
		rxm_rx_free(ep, rx);
		return NULL;
	}
	memset(&rx->me, 0, sizeof(rx->me));
	rx->me.addr = ep->msgq.directed ? r->addr : FI_ADDR_UNSPEC;
	rx->me.tag = r->tag;
	rx->me.ignore = r->ignore;
	rx->me.context = r->context;
	rx->me.len = rx->vec.len;
	rx->me.flags = flags & FI_MULTI_RECV;
	rx->flags = FI_RECV | op;
	return rx;
}

/* Post @rx on @q and deliver what waited for it. */
static void rxm_rx_post(struct rxm_ep *ep, struct kofi_match_queue *q,
			struct rxm_rx *rx)
{
	struct kofi_match_entry *me, *next;
	unsigned long flags;
	LIST_HEAD(taken);

	spin_lock_irqsave(&ep->lock, flags);
	kofi_match_post(q, &rx->me, &taken);
	list_for_each_entry(me, &taken, node)
		container_of(me, struct rxm_buf, me)->held = false;
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(me, next, &taken, node) {
		list_del_init(&me->node);
		rxm_deliver(ep, rx, container_of(me, struct rxm_buf, me));
	}
}

static ssize_t rxm_recv(struct rxm_ep *ep, struct kofi_match_queue *q,
			const struct fi_msg_tagged *r, u64 flags, u64 op)
{
	struct rxm_rx *rx;
	int ret;

	rx = rxm_rx_get(ep, r, flags, op, &ret);
	if (!rx)
		return ret;
	rxm_rx_post(ep, q, rx);
	return 0;
}

static ssize_t rxm_recvmsg(struct fid_ep *fep, const struct fi_msg *msg,
			   u64 flags)
{
	struct rxm_ep *ep = container_of(fep, struct rxm_ep, ep);
	struct fi_msg_tagged t;

	if (flags & FI_PEEK)
		return -FI_ENOSYS;
	kofi_msg_to_tagged(msg, &t);
	return rxm_recv(ep, &ep->msgq, &t, flags, FI_MSG);
}

/* A message taken by FI_PEEK | FI_DISCARD or FI_CLAIM | FI_DISCARD. */
static void rxm_discard(struct rxm_ep *ep, struct rxm_buf *buf,
			void *context)
{
	const struct rxm_hdr *hdr = (const void *)buf->pkt;
	struct fid_cq *cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);
	u64 tag = le64_to_cpu(hdr->tag);
	fi_addr_t src = buf->me.addr;

	/* a rendezvous sender is told its message went */
	if (hdr->type == RXM_RNDV_REQ && buf->conn)
		rxm_rndv_ack(ep, buf->conn, le64_to_cpu(hdr->msg_id));
	rxm_buf_recycle(buf);
	kofi_cq_write_tagged(cq, context, FI_RECV | FI_TAGGED, 0, NULL, 0, tag,
			     src);
}

/* fi_trecvmsg() with FI_PEEK: report (and claim or drop) a message. */
static ssize_t rxm_peek(struct rxm_ep *ep, const struct fi_msg_tagged *r,
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
	struct rxm_buf *buf = NULL;
	struct rxm_comp c = {};
	unsigned long irq;

	spin_lock_irqsave(&ep->lock, irq);
	me = kofi_match_peek(&ep->tagq, &want, flags);
	if (me) {
		const struct rxm_hdr *hdr;

		buf = container_of(me, struct rxm_buf, me);
		hdr = (const void *)buf->pkt;
		c.len = me->len;
		c.tag = le64_to_cpu(hdr->tag);
		c.src = me->addr;
		if (le32_to_cpu(hdr->flags) & RXM_FLAG_CQ_DATA) {
			c.flags = FI_REMOTE_CQ_DATA;
			c.data = le64_to_cpu(hdr->data);
		}
		if (flags & FI_DISCARD)
			buf->held = false;
	}
	spin_unlock_irqrestore(&ep->lock, irq);
	if (!me)
		return kofi_cq_write_err(cq, r->context, FI_RECV | FI_TAGGED,
					 ENOMSG, 0, 0, 0) == -EOVERFLOW ?
		       -EAGAIN : 0;
	if (flags & FI_DISCARD) {
		rxm_discard(ep, buf, r->context);
		return 0;
	}
	kofi_cq_write_tagged(cq, r->context, FI_RECV | FI_TAGGED | c.flags,
			     c.len, NULL, c.data, c.tag, c.src);
	return 0;
}

/* fi_trecvmsg() with FI_CLAIM: receive (or drop) the claimed message. */
static ssize_t rxm_claim(struct rxm_ep *ep, const struct fi_msg_tagged *r,
			 u64 flags)
{
	struct kofi_match_entry *me;
	struct rxm_buf *buf;
	struct rxm_rx *rx;
	unsigned long irq;
	int ret;

	if (flags & FI_DISCARD) {
		spin_lock_irqsave(&ep->lock, irq);
		me = kofi_match_claim(&ep->tagq, r->context);
		if (me)
			container_of(me, struct rxm_buf, me)->held = false;
		spin_unlock_irqrestore(&ep->lock, irq);
		if (!me)
			return -ENOMSG;
		rxm_discard(ep, container_of(me, struct rxm_buf, me),
			    r->context);
		return 0;
	}
	rx = rxm_rx_get(ep, r, 0, FI_TAGGED, &ret);
	if (!rx)
		return ret;
	spin_lock_irqsave(&ep->lock, irq);
	me = kofi_match_claim(&ep->tagq, r->context);
	if (me)
		container_of(me, struct rxm_buf, me)->held = false;
	spin_unlock_irqrestore(&ep->lock, irq);
	if (!me) {
		rxm_rx_free(ep, rx);
		return -ENOMSG;
	}
	buf = container_of(me, struct rxm_buf, me);
	buf->me.offset = 0;
	rxm_deliver(ep, rx, buf);
	return 0;
}

static ssize_t rxm_trecvmsg(struct fid_ep *fep,
			    const struct fi_msg_tagged *msg, u64 flags)
{
	struct rxm_ep *ep = container_of(fep, struct rxm_ep, ep);

	if (READ_ONCE(ep->state) != RXM_EP_ENABLED)
		return -EINVAL;
	if (flags & FI_PEEK)
		return rxm_peek(ep, msg, flags);
	if (flags & FI_CLAIM)
		return rxm_claim(ep, msg, flags);
	return rxm_recv(ep, &ep->tagq, msg, flags, FI_TAGGED);
}

const struct fi_ops_msg rxm_msg_ops = {
	.recvmsg = rxm_recvmsg,
	.sendmsg = rxm_sendmsg,
};

const struct fi_ops_tagged rxm_tagged_ops = {
	.trecvmsg = rxm_trecvmsg,
	.tsendmsg = rxm_tsendmsg,
};

/**
 * rxm_cancel() - fi_cancel() of a posted receive
 * @fid: the endpoint
 * @context: the receive's context
 *
 * Context: any context; does not sleep.
 * Return: 0 (the receive completes with ECANCELED); -ENOENT if no posted
 * receive has @context.
 */
ssize_t rxm_cancel(struct fid *fid, void *context)
{
	struct rxm_ep *ep = container_of(fid, struct rxm_ep, ep.fid);
	struct kofi_match_entry *me;
	struct rxm_rx *rx;
	unsigned long irq;
	u64 flags;

	spin_lock_irqsave(&ep->lock, irq);
	me = kofi_match_cancel(&ep->msgq, context);
	if (!me)
		me = kofi_match_cancel(&ep->tagq, context);
	spin_unlock_irqrestore(&ep->lock, irq);
	if (!me)
		return -ENOENT;
	rx = container_of(me, struct rxm_rx, me);
	flags = rx->flags | (rx->me.flags & FI_MULTI_RECV);
	rxm_rx_free(ep, rx);
	kofi_cq_write_err(kofi_ep_cq(&ep->ep, FI_RECV, NULL), context, flags,
			  ECANCELED, 0, 0, 0);
	return 0;
}

/* Complete every receive on @q with ECANCELED; free what waits on it. */
static void rxm_q_flush(struct rxm_ep *ep, struct kofi_match_queue *q)
{
	struct kofi_match_entry *me;

	while (!list_empty(&q->posted)) {
		struct rxm_rx *rx;

		me = list_first_entry(&q->posted, struct kofi_match_entry,
				      node);
		list_del_init(&me->node);
		rx = container_of(me, struct rxm_rx, me);
		kofi_cq_write_err(kofi_ep_cq(&ep->ep, FI_RECV, NULL),
				  rx->me.context, rx->flags, ECANCELED, 0, 0,
				  0);
	}
	while (!list_empty(&q->unexpected)) {
		me = list_first_entry(&q->unexpected, struct kofi_match_entry,
				      node);
		list_del_init(&me->node);
		q->nr_unexpected--;
		rxm_buf_free(container_of(me, struct rxm_buf, me));
	}
}

/**
 * rxm_rx_flush() - end what a closing endpoint still holds
 * @ep: the endpoint, every connection closed
 *
 * Posted receives complete with ECANCELED; waiting messages are dropped.
 *
 * Context: process context (fi_close()).
 */
void rxm_rx_flush(struct rxm_ep *ep)
{
	rxm_q_flush(ep, &ep->msgq);
	rxm_q_flush(ep, &ep->tagq);
}
