// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: large unexpected messages the core places.
 *
 * Over the net wire every message, and over rxm's wire a tagged frame of
 * the core (libfabric's tcp), arrives whole: ksocket asks rxm_trx_claim()
 * where it goes before it reads a byte of its payload.  One no receive
 * takes and up to the eager limit goes to a bounce buffer; a larger one
 * goes to memory of its own, as libfabric's rxm over tcp keeps it: the
 * claim answers -EAGAIN (the connection waits), the endpoint's work
 * allocates a buffer of the message's size (kvmalloc(), which may sleep)
 * and asks the core to claim again, and the claim then places the
 * message in it - or in a receive posted meanwhile.  The buffer, an
 * rxm_buf with @big set, waits on the match queue as any unexpected
 * message does (FI_PEEK, FI_CLAIM and FI_DISCARD see it) and is freed
 * when a receive has taken it.
 *
 * An endpoint keeps at most rdm_big_unexp_bytes (module parameter) in such
 * buffers; a message that would pass it, or whose buffer could not be
 * allocated, holds its connection until a receive is posted
 * (rxm_trx_retry()), which holds the peer back through TCP.
 *
 * Locking: a connection's prepared buffer and its request for one are
 * under the endpoint's lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "rxm.h"

/* Buffers to free in process context (kvfree() may sleep). */
static LLIST_HEAD(rxm_big_dead);

static void rxm_big_reap(struct work_struct *work)
{
	struct llist_node *n = llist_del_all(&rxm_big_dead);
	struct rxm_buf *buf, *next;

	llist_for_each_entry_safe(buf, next, n, dead) {
		kvfree(buf->pkt);
		kfree(buf);
	}
}

static DECLARE_WORK(rxm_big_reap_work, rxm_big_reap);

/**
 * rxm_big_free() - free a large message's buffer
 * @buf: the buffer, on no list
 *
 * The memory goes back in rxm_wq (flushed when the module goes).
 *
 * Context: any context.
 */
void rxm_big_free(struct rxm_buf *buf)
{
	atomic_long_sub(buf->cap, &buf->ep->big_bytes);
	if (llist_add(&buf->dead, &rxm_big_dead))
		queue_work(rxm_wq, &rxm_big_reap_work);
}

/* A buffer for @cap bytes of payload (@cap already counted); may sleep. */
static struct rxm_buf *rxm_big_alloc(struct rxm_conn *conn, size_t cap)
{
	struct rxm_buf *buf = kzalloc(sizeof(*buf), GFP_KERNEL);

	if (!buf)
		return NULL;
	buf->pkt = kvmalloc(cap, GFP_KERNEL);
	if (!buf->pkt) {
		kfree(buf);
		return NULL;
	}
	rxm_buf_init(buf, conn->ep, conn);
	buf->copy = true;
	buf->big = true;
	buf->cap = cap;
	return buf;
}

/* No memory to wait in: the message waits on its connection.  Locked. */
static void rxm_big_hold_locked(struct rxm_conn *conn)
{
	if (!conn->trx_held) {
		conn->trx_held = true;
		conn->ep->trx_held++;
	}
}

/**
 * rxm_big_claim_locked() - a large message no receive takes
 * @conn: its connection
 * @len: its payload bytes, above the eager limit
 * @d: filled in if it goes to the connection's prepared buffer
 * @drop: set to a prepared buffer too small for it, for the caller to
 *	free with rxm_big_free() once the lock is dropped
 *
 * Context: the core's receive context, ep->lock held.
 * Return: 0 (@d filled in: the buffer waits on &rxm_conn.copies until
 * the core completes it), or -EAGAIN (the connection waits: for the
 * work's buffer, or for a receive).
 */
int rxm_big_claim_locked(struct rxm_conn *conn, size_t len,
			 struct fi_tagged_dest *d, struct rxm_buf **drop)
{
	struct rxm_ep *ep = conn->ep;
	struct rxm_buf *buf = conn->big;

	if (buf && buf->cap < len) {
		*drop = buf;
		conn->big = NULL;
		buf = NULL;
	}
	if (buf) {
		conn->big = NULL;
		list_add_tail(&buf->node, &conn->copies);
		conn->trx.dst.type = FI_IOV_KVEC;
		conn->trx.dst.kv[0].iov_base = buf->pkt;
		conn->trx.dst.kv[0].iov_len = len;
		d->iov_type = FI_IOV_KVEC;
		d->msg_iov = conn->trx.dst.kv;
		d->iov_count = 1;
		d->context = &buf->cqe;
		return 0;
	}
	if (conn->big_want)
		return -EAGAIN;
	if ((unsigned long)atomic_long_add_return(len, &ep->big_bytes) >
	    ep->big_max) {
		atomic_long_sub(len, &ep->big_bytes);
		rxm_big_hold_locked(conn);
		return -EAGAIN;
	}
	conn->big_want = len;
	queue_work(rxm_wq, &conn->big_work);
	return -EAGAIN;
}

/**
 * rxm_big_work() - allocate the buffer a connection's message waits for
 * @work: &rxm_conn.big_work
 *
 * Context: process context (rxm_wq).
 */
void rxm_big_work(struct work_struct *work)
{
	struct rxm_conn *conn = container_of(work, struct rxm_conn, big_work);
	struct rxm_ep *ep = conn->ep;
	struct rxm_buf *buf;
	unsigned long flags;
	size_t len;

	spin_lock_irqsave(&ep->lock, flags);
	len = conn->big_want;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!len)
		return;
	buf = rxm_big_alloc(conn, len);
	spin_lock_irqsave(&ep->lock, flags);
	conn->big_want = 0;
	if (buf)
		conn->big = buf;
	else
		rxm_big_hold_locked(conn);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!buf) {
		atomic_long_sub(len, &ep->big_bytes);
		return;
	}
	if (rxm_conn_hold(conn)) {
		fi_control(&conn->core->fid, FI_TAGGED_RX_RETRY, NULL);
		rxm_conn_put(conn);
	}
}

/**
 * rxm_big_conn_gone() - a connection's core is closed
 * @conn: the connection: no claim runs any more
 *
 * Context: process context.
 */
void rxm_big_conn_gone(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	struct rxm_buf *buf;
	unsigned long flags;

	cancel_work_sync(&conn->big_work);
	spin_lock_irqsave(&ep->lock, flags);
	buf = conn->big;
	conn->big = NULL;
	if (conn->big_want)
		atomic_long_sub(conn->big_want, &ep->big_bytes);
	conn->big_want = 0;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (buf)
		rxm_big_free(buf);
}
