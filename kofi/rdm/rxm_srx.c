// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDM engine: bounce buffers shared by every connection of an endpoint.
 *
 * Over a core whose domain has shared receive contexts (ib_verbs: an
 * SRQ) an endpoint opens one when it is enabled and binds every
 * connection's core endpoint to it, so that an idle connection holds no
 * bounce buffer of its own.  The endpoint posts rdm_srx_bufs buffers at
 * first and one more (up to RXM_SRX_MAX) each time a message waits as
 * unexpected in one, or a packet leaves fewer than RXM_SRX_LOW posted (a
 * burst the completions have not caught up with); the pool never
 * shrinks.  Its connections go without credits: the CM data
 * says flow control "off" (libfabric's rxm then sends none either), and a
 * peer that finds no receive posted is held back by receiver-not-ready
 * retries.
 *
 * A packet names its connection by our id in its header (conn_id, which
 * libfabric's rxm sets as kOFI's does): rxm_srx_conn() finds and holds
 * it.  A packet that names no live connection is dropped.  A buffer keeps
 * its connection while its message waits; a connection that closes
 * detaches from every buffer (rxm_srx_conn_gone_locked()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include "rxm.h"

/*
 * Wait for the posts in flight to the shared context.  The endpoint's
 * lock is not held.
 */
static void rxm_srx_quiesce(struct rxm_ep *ep)
{
	wait_var_event(&ep->srx_users, !atomic_read(&ep->srx_users));
}

/* A new buffer of the endpoint's pool, on it; NULL without memory. */
static struct rxm_buf *rxm_srx_buf_new(struct rxm_ep *ep, gfp_t gfp)
{
	struct rxm_buf *buf = rxm_buf_alloc_ep(ep, gfp);
	unsigned long flags;
	bool room;

	if (!buf)
		return NULL;
	buf->shared = true;
	spin_lock_irqsave(&ep->lock, flags);
	room = ep->srx && ep->nsbufs < ep->maxsbufs;
	if (room)
		ep->sbufs[ep->nsbufs++] = buf;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (room)
		return buf;
	rxm_buf_free(buf);
	return NULL;
}

/**
 * rxm_srx_post() - post a buffer of the pool to the shared context
 * @ep: the endpoint
 * @buf: the buffer, free
 *
 * A buffer that cannot be posted (the context is closing, or the core
 * failed) is left on the pool, which the close frees.
 *
 * Context: any context; does not sleep.
 */
void rxm_srx_post(struct rxm_ep *ep, struct rxm_buf *buf)
{
	struct fid_ep *srx;
	unsigned long flags;
	ssize_t ret;

	spin_lock_irqsave(&ep->lock, flags);
	srx = ep->srx;
	if (srx)
		atomic_inc(&ep->srx_users);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!srx)
		return;
	ret = rxm_buf_recv(srx, buf);
	if (!ret)
		atomic_inc(&ep->sposted);
	else
		pr_warn_ratelimited("shared bounce buffer not posted: %zd\n",
				    ret);
	if (atomic_dec_and_test(&ep->srx_users))
		wake_up_var(&ep->srx_users);
}

/**
 * rxm_srx_grow() - a buffer of the pool holds a message that waits
 * @ep: the endpoint
 *
 * Posts one more buffer, up to RXM_SRX_MAX; without memory the pool
 * does not grow, and peers wait for a buffer to be posted again.
 *
 * Context: any context; does not sleep.
 */
void rxm_srx_grow(struct rxm_ep *ep)
{
	struct rxm_buf *buf;

	if (READ_ONCE(ep->nsbufs) >= ep->maxsbufs)
		return;
	buf = rxm_srx_buf_new(ep, GFP_ATOMIC);
	if (buf)
		rxm_srx_post(ep, buf);
}

/**
 * rxm_srx_taken() - the core completed a buffer of the pool
 * @ep: the endpoint
 *
 * Context: the core's completion context; does not sleep.
 */
void rxm_srx_taken(struct rxm_ep *ep)
{
	if (atomic_dec_return(&ep->sposted) < RXM_SRX_LOW)
		rxm_srx_grow(ep);
}

/**
 * rxm_srx_conn() - the connection a packet in a buffer of the pool names
 * @buf: the buffer, completed by the core
 * @comp: the core's completion
 *
 * Context: the core's completion context; does not sleep.
 * Return: the connection, held (rxm_conn_put() it), with @buf->conn set;
 * NULL if the completion failed or names no live connection: @buf is
 * then posted again.
 */
struct rxm_conn *rxm_srx_conn(struct rxm_buf *buf,
			      const struct fi_cq_err_entry *comp)
{
	const struct rxm_hdr *hdr = (const void *)buf->pkt;
	struct rxm_ep *ep = buf->ep;
	struct rxm_conn *conn = NULL;
	unsigned long flags;

	/* a packet larger than a buffer: its connection cannot be told */
	if (comp->err || comp->len < sizeof(*hdr)) {
		if (comp->err != ECANCELED)
			pr_debug("shared bounce buffer: error %d, %zu bytes\n",
				 comp->err, comp->len);
		rxm_buf_recycle(buf);
		return NULL;
	}
	spin_lock_irqsave(&ep->lock, flags);
	conn = xa_load(&ep->conn_ids, lower_32_bits(le64_to_cpu(hdr->conn_id)));
	if (conn && !rxm_conn_hold_locked(conn))
		conn = NULL;
	buf->conn = conn;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!conn) {
		pr_debug("packet for no connection (id %llu)\n",
			 le64_to_cpu(hdr->conn_id));
		rxm_buf_recycle(buf);
	}
	return conn;
}

/**
 * rxm_srx_conn_gone_locked() - a connection closes: detach its buffers
 * @conn: the connection, its core endpoint closed
 *
 * The messages waiting in buffers of the pool stay with the match queue
 * and are no connection's any more.
 *
 * Context: the endpoint's lock held.
 */
void rxm_srx_conn_gone_locked(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	unsigned int i;

	for (i = 0; i < ep->nsbufs; i++)
		if (ep->sbufs[i] && ep->sbufs[i]->conn == conn)
			ep->sbufs[i]->conn = NULL;
}

/**
 * rxm_srx_open() - open the endpoint's shared receive context, if any
 * @ep: the endpoint, being enabled
 *
 * Over a core domain without shared receive contexts, or with
 * rdm_srx_bufs 0, or a core with flow control of its own (ksocket: its
 * connections cost little), the endpoint has none.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno (the caller closes what is open).
 */
int rxm_srx_open(struct rxm_ep *ep)
{
	unsigned int i, first = min_t(unsigned int, READ_ONCE(rxm_srx_bufs),
				      RXM_SRX_MAX);
	struct fi_rx_attr attr = { .size = RXM_SRX_MAX, .iov_limit = 1 };
	struct rxm_buf *buf;
	int ret;

	if (!first || !ep->flow_ctrl || ep->net ||
	    !ep->core_info->domain_attr->max_ep_srx_ctx)
		return 0;
	ep->sbufs = kcalloc(RXM_SRX_MAX, sizeof(*ep->sbufs), GFP_KERNEL);
	if (!ep->sbufs)
		return -ENOMEM;
	ret = fi_srx_context(ep->under.domain, &attr, &ep->srx, ep);
	if (ret) {
		ep->srx = NULL;
		kfree(ep->sbufs);
		ep->sbufs = NULL;
		return ret;
	}
	ep->maxsbufs = min_t(unsigned int, attr.size, RXM_SRX_MAX);
	for (i = 0; i < first; i++) {
		buf = rxm_srx_buf_new(ep, GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
		rxm_srx_post(ep, buf);
	}
	return 0;
}

/**
 * rxm_srx_close() - close the shared receive context and free the pool
 * @ep: the endpoint, every connection closed
 *
 * The buffers whose messages still wait are left to the match queues
 * (rxm_rx_flush() frees them); the others are freed.
 *
 * Context: process context, may sleep.
 */
void rxm_srx_close(struct rxm_ep *ep)
{
	struct fid_ep *srx;
	unsigned long flags;
	unsigned int i;

	if (!ep->sbufs)
		return;
	spin_lock_irqsave(&ep->lock, flags);
	srx = ep->srx;
	ep->srx = NULL;
	spin_unlock_irqrestore(&ep->lock, flags);
	rxm_srx_quiesce(ep);
	/* its receives are dropped, their buffers no longer the core's */
	kofi_util_close_core(srx ? &srx->fid : NULL);
	spin_lock_irqsave(&ep->lock, flags);
	for (i = 0; i < ep->nsbufs; i++) {
		if (!ep->sbufs[i]->held)
			rxm_buf_free(ep->sbufs[i]);
		else
			ep->sbufs[i]->shared = false;
	}
	ep->nsbufs = 0;
	spin_unlock_irqrestore(&ep->lock, flags);
	kfree(ep->sbufs);
	ep->sbufs = NULL;
}
