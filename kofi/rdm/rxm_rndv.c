// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: rendezvous - messages above the eager limit.
 *
 * The sender registers each entry of its kvec array with the core domain
 * for remote reads (registration sleeps: in its endpoint's work, or in
 * the caller's context if that may sleep, rxm_sleep_flag()) and sends a
 * rendezvous request: the header with the message's size and tag,
 * and up to four {address, length, key} of the registrations.  The
 * receiver matches the request like an eager message; the receive it
 * goes to reads the message with the core's RMA read straight into the
 * receive's buffer, then answers with an RXM_RNDV_RD_DONE header echoing
 * the request's msg_id.  That answer completes the send (and its
 * registrations are closed); a connection that ends first completes it
 * with the reason it ended (EPROTO after a malformed packet, ECANCELED
 * when the peer left the address vector, the core's error), ECONNRESET
 * if none is known.
 *
 * Over a core that registers memory by its pages (FI_MR_ALLOCATED:
 * ib_verbs, whose RDMA devices reach only registered memory) a send's
 * kvec entries must be memory with pages - the linear map or vmalloc
 * space (kofi_vec_pageable()) - or the send answers -EFAULT, and the
 * receiver registers each kvec entry it reads into as well, in the work:
 * an RDMA READ of a vmalloc'd buffer unregistered would take one SGE per
 * page.  The core's RMA takes rma_iov_limit remote segments at once
 * (ib_verbs: one): a request with more is read with one read per segment.
 *
 * A sent request is found again by its msg_id in the endpoint's
 * rendezvous table, never by anything the peer sends but that index; an
 * answer for an id the table does not hold for that connection is
 * malformed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include "rxm.h"

/* A rendezvous send lost one of its two pending events. */
static void rxm_rndv_put(struct rxm_tx *tx)
{
	struct rxm_ep *ep = tx->ep;
	unsigned long flags;

	if (!atomic_dec_and_test(&tx->pending))
		return;
	spin_lock_irqsave(&ep->lock, flags);
	list_add_tail(&tx->node, &ep->tx_list);
	spin_unlock_irqrestore(&ep->lock, flags);
	queue_work(rxm_wq, &ep->tx_work);
}

/* Take @tx out of the table if it is there for @conn.  Lock held. */
static bool rxm_rndv_take_locked(struct rxm_ep *ep, struct rxm_tx *tx,
				 struct rxm_conn *conn)
{
	if (!tx || tx->conn != conn || xa_load(&ep->rndv, tx->id) != tx)
		return false;
	xa_erase(&ep->rndv, tx->id);
	return true;
}

static void rxm_rndv_post(struct rxm_ep *ep, struct rxm_tx *tx);

/* The largest registration of a rendezvous (rxm_proto.h). */
static size_t rxm_reg_chunk(const struct rxm_ep *ep)
{
	return ep->reg_pages ? RXM_REG_CHUNK : SIZE_MAX;
}

/**
 * rxm_rndv_send() - send a message above the eager limit
 * @ep: the endpoint
 * @conn: the connection, held: released once the request is posted
 * @tx: the send, its header filled in as for an eager packet
 * @sleep: FI_MAY_SLEEP if the caller may sleep (rxm_sleep_flag()): the
 *	buffers are registered and the request posted here; else 0: in the
 *	endpoint's work
 *
 * Context: any context; does not sleep unless @sleep says so.
 * Return: 0 (the request is posted, or the work posts it; a failure
 * then completes the send with an error); -EMSGSIZE if the core has no
 * RMA, the message is larger than max_msg_size, or not a kvec array;
 * -EFAULT over a core that registers pages for an entry that is neither
 * in the linear map nor in vmalloc space; -EAGAIN if no msg_id is free.
 */
int rxm_rndv_send(struct rxm_ep *ep, struct rxm_conn *conn, struct rxm_tx *tx,
		  u64 sleep)
{
	unsigned long flags;
	u32 id;
	int ret;

	if (!ep->rndv_ok || tx->len > ep->info->ep_attr->max_msg_size ||
	    tx->vec.type != FI_IOV_KVEC ||
	    rxm_rndv_pieces(&tx->vec.kv[1], tx->vec.count - 1,
			    rxm_reg_chunk(ep)) > RXM_RNDV_IOV_MAX)
		return -EMSGSIZE;
	if (ep->reg_pages && !kofi_vec_pageable(&tx->vec))
		return -EFAULT;
	tx->rndv = true;
	tx->conn = conn;
	tx->err = 0;
	tx->posted = false;
	atomic_set(&tx->pending, 2);
	memset(tx->mr, 0, sizeof(tx->mr));
	/* the table is only changed under the endpoint's lock */
	spin_lock_irqsave(&ep->lock, flags);
	ret = xa_alloc(&ep->rndv, &id, tx, xa_limit_32b, GFP_ATOMIC);
	if (!ret) {
		tx->id = id;
		tx->hdr.type = RXM_RNDV_REQ;
		tx->hdr.msg_id = cpu_to_le64(id);
		if (!sleep)
			list_add_tail(&tx->node, &ep->tx_list);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (ret)
		return -EAGAIN;
	if (sleep)
		rxm_rndv_post(ep, tx);
	else
		queue_work(rxm_wq, &ep->tx_work);
	return 0;
}

/**
 * rxm_rndv_sent() - the core completed a rendezvous request's send
 * @tx: the send
 * @err: the core's error (positive errno), or 0
 *
 * Context: the core's completion context.
 */
void rxm_rndv_sent(struct rxm_tx *tx, int err)
{
	struct rxm_ep *ep = tx->ep;
	unsigned long flags;
	bool taken;

	if (err) {
		/* no answer will come */
		spin_lock_irqsave(&ep->lock, flags);
		if (!tx->err)
			tx->err = err;
		taken = rxm_rndv_take_locked(ep, tx, tx->conn);
		spin_unlock_irqrestore(&ep->lock, flags);
		if (taken)
			rxm_rndv_put(tx);
	}
	rxm_rndv_put(tx);
}

/**
 * rxm_rndv_answered() - an RXM_RNDV_RD_DONE arrived
 * @conn: the connection it came on
 * @msg_id: the msg_id it echoes
 *
 * Context: the core's completion context.
 * Return: 0, or -EPROTO if no request of ours on @conn has @msg_id.
 */
int rxm_rndv_answered(struct rxm_conn *conn, u64 msg_id)
{
	struct rxm_ep *ep = conn->ep;
	struct rxm_tx *tx = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (msg_id <= U32_MAX)
		tx = xa_load(&ep->rndv, msg_id);
	if (!rxm_rndv_take_locked(ep, tx, conn))
		tx = NULL;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!tx)
		return -EPROTO;
	rxm_rndv_put(tx);
	return 0;
}

/**
 * rxm_rndv_conn_gone() - fail the rendezvous sends waiting on a connection
 * @conn: the connection, its core endpoint closed
 *
 * Context: process context (the CM work, or fi_close()).
 */
void rxm_rndv_conn_gone(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	struct rxm_tx *tx, *next;
	unsigned long flags, idx;
	LIST_HEAD(gone);

	spin_lock_irqsave(&ep->lock, flags);
	xa_for_each(&ep->rndv, idx, tx) {
		if (!rxm_rndv_take_locked(ep, tx, conn))
			continue;
		if (!tx->err)
			tx->err = conn->err ? conn->err : ECONNRESET;
		list_add_tail(&tx->node, &gone);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(tx, next, &gone, node) {
		list_del_init(&tx->node);
		rxm_rndv_put(tx);
	}
}

/*
 * Register @tx's entries and post its request; releases its connection.
 * Context: process context, no lock held (the endpoint's work, or a data
 * call that may sleep): the core may send in this context.
 */
static void rxm_rndv_post(struct rxm_ep *ep, struct rxm_tx *tx)
{
	struct rxm_rndv *r = (struct rxm_rndv *)tx->buf;
	struct rxm_conn *conn = tx->conn;
	struct kofi_vec pieces = tx->vec;
	unsigned int i, n = 0;
	int ret;

	BUILD_BUG_ON(sizeof(*r) > sizeof(tx->buf));
	BUILD_BUG_ON(RXM_IOV_LIMIT > RXM_RNDV_IOV_MAX);
	BUILD_BUG_ON(ARRAY_SIZE(tx->mr) < RXM_RNDV_IOV_MAX);
	memset(r, 0, sizeof(*r));
	tx->posted = true;
	/* the entries after the header, in pieces (rxm_rndv_send() counted) */
	pieces.first = 1;
	ret = rxm_vec_chunk(&pieces, rxm_reg_chunk(ep));
	for (i = 0; i < pieces.count && !ret; i++) {
		struct fi_mr_attr attr = {
			.iov_type = FI_IOV_KVEC,
			.mr_iov = &pieces.kv[i],
			.iov_count = 1,
			.access = FI_REMOTE_READ,
			.requested_key = ((u64)tx->id << 3) | n,
		};

		ret = fi_mr_regattr(ep->under.domain, &attr, 0, &tx->mr[n]);
		if (ret) {
			tx->mr[n] = NULL;
			break;
		}
		r->iov[n].addr = cpu_to_le64(ep->virt_addr ?
				(u64)(uintptr_t)pieces.kv[i].iov_base : 0);
		r->iov[n].len = cpu_to_le64(pieces.kv[i].iov_len);
		r->iov[n].key = cpu_to_le64(fi_mr_key(tx->mr[n]));
		n++;
	}
	r->count = n;
	/* posted (then @tx may be complete and freed already), or waiting */
	if (!ret)
		ret = rxm_pkt_post(conn, tx, FI_MAY_SLEEP);
	if (ret)
		rxm_rndv_unposted(tx, -ret);
	rxm_conn_put(conn);
}

/**
 * rxm_rndv_unposted() - a rendezvous request could not be posted
 * @tx: the send, its connection not freed yet
 * @err: why (positive errno)
 *
 * Neither the request's completion nor an answer will come: the credit
 * rxm_send() took for the request is given back and the send completes
 * with @err.
 *
 * Context: process context.
 */
void rxm_rndv_unposted(struct rxm_tx *tx, int err)
{
	struct rxm_ep *ep = tx->ep;
	unsigned long flags;
	bool taken;

	rxm_credit_untake(tx->conn);
	spin_lock_irqsave(&ep->lock, flags);
	tx->err = err;
	taken = rxm_rndv_take_locked(ep, tx, tx->conn);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (taken)
		rxm_rndv_put(tx);
	rxm_rndv_put(tx);
}

/* Close @tx's registrations and complete it. */
static void rxm_rndv_finish(struct rxm_ep *ep, struct rxm_tx *tx)
{
	struct fid_cq *cq = kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL);
	void *context = tx->context;
	u64 flags = tx->flags;
	size_t len = tx->len;
	int err = tx->err;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tx->mr); i++)
		kofi_util_close_core(tx->mr[i] ? &tx->mr[i]->fid : NULL);
	rxm_tx_free(ep, tx);
	if (err)
		kofi_cq_write_err(cq, context, flags, err, 0, 0, 0);
	else
		kofi_cq_write(cq, context, flags, len, NULL, 0);
}

static void rxm_rd_work(struct rxm_rd *rd);

/**
 * rxm_tx_work() - post new rendezvous requests, complete answered ones;
 *	register and post rendezvous reads, complete them
 * @work: &rxm_ep.tx_work
 *
 * Context: process context (rxm_wq); sleeps.
 */
void rxm_tx_work(struct work_struct *work)
{
	struct rxm_ep *ep = container_of(work, struct rxm_ep, tx_work);
	struct rxm_tx *tx;
	struct rxm_rd *rd;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ep->lock, flags);
		tx = list_first_entry_or_null(&ep->tx_list, struct rxm_tx,
					      node);
		if (tx)
			list_del_init(&tx->node);
		rd = tx ? NULL : list_first_entry_or_null(&ep->rd_list,
							  struct rxm_rd, node);
		if (rd)
			list_del_init(&rd->node);
		spin_unlock_irqrestore(&ep->lock, flags);
		if (rd) {
			rxm_rd_work(rd);
			continue;
		}
		if (!tx)
			return;
		if (tx->posted)
			rxm_rndv_finish(ep, tx);
		else
			rxm_rndv_post(ep, tx);
	}
}

/* ---- the receiver's side ---- */

/**
 * rxm_rndv_ack() - tell a sender its message is read (or dropped)
 * @ep: the endpoint
 * @conn: the connection the request came on
 * @msg_id: the request's msg_id
 *
 * With credit flow control the answer may wait on @conn for the peer's
 * next grant (rxm_ctrl_send()).
 *
 * Context: any context; does not sleep.
 */
void rxm_rndv_ack(struct rxm_ep *ep, struct rxm_conn *conn, u64 msg_id)
{
	struct rxm_tx *tx;

	tx = rxm_ctrl_alloc(ep, conn, RXM_RNDV_RD_DONE, msg_id, 0);
	if (tx)
		rxm_ctrl_send(conn, tx);
	else	/* the sender would wait forever: end the connection */
		rxm_conn_fail(conn);
}

/* Queue @rd for the work. */
static void rxm_rd_queue(struct rxm_rd *rd)
{
	struct rxm_ep *ep = rd->ep;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	list_add_tail(&rd->node, &ep->rd_list);
	spin_unlock_irqrestore(&ep->lock, flags);
	queue_work(rxm_wq, &ep->tx_work);
}

/*
 * Complete the receive and free @rd; its registrations, if any, are
 * closed first (process context then).
 */
static void rxm_rd_complete(struct rxm_rd *rd)
{
	struct rxm_ep *ep = rd->ep;
	struct kofi_comp cancel;
	unsigned int i;
	bool end;

	for (i = 0; i < rd->nmr; i++)
		kofi_util_close_core(rd->mr[i] ? &rd->mr[i]->fid : NULL);
	end = rxm_rx_placed(ep, rd->rx, &cancel);
	if (rd->err)
		kofi_cq_write_err(kofi_ep_cq(&ep->ep, FI_RECV, NULL),
				  rd->c.op_context, rd->c.flags, rd->err, 0, 0, 0);
	else
		rxm_comp_write(ep, &rd->c);
	if (end)
		rxm_rx_cancel_write(ep, &cancel);
	kfree(rd);
}

/*
 * The reads ended: answer the sender (on @rd->conn, which the core's
 * completion or the poster keeps alive), then complete the receive - in
 * the work if registrations are to be closed.
 */
static void rxm_rd_end(struct rxm_rd *rd)
{
	if (!rd->err)
		rxm_rndv_ack(rd->ep, rd->conn, rd->msg_id);
	if (rd->nmr) {
		rd->posted = true;
		rxm_rd_queue(rd);
		return;
	}
	rxm_rd_complete(rd);
}

/* Keep the first error of @rd. */
static void rxm_rd_error(struct rxm_rd *rd, int err)
{
	if (err)
		cmpxchg(&rd->err, 0, err);
}

/* One read (or the posting) of @rd ended. */
static void rxm_rd_put(struct rxm_rd *rd)
{
	if (atomic_dec_and_test(&rd->pending))
		rxm_rd_end(rd);
}

/* The read ended before any was posted, with @err (0: nothing to read). */
static void rxm_rd_finish(struct rxm_rd *rd, int err)
{
	rxm_rd_error(rd, err);
	rxm_rd_end(rd);
}

static void rxm_rd_done(struct fid_cq *cq, struct fi_cqe *cqe,
			const struct fi_cq_err_entry *comp)
{
	struct rxm_rd *rd = container_of(cqe, struct rxm_rd, cqe);

	rxm_rd_error(rd, comp->err);
	rxm_rd_put(rd);
}

static void rxm_rd_repost(struct rxm_room *r);
static void rxm_rd_gone(struct rxm_room *r);

/*
 * Post @rd's reads on its connection, which the caller holds: all its
 * segments in one, or one per segment over a core that takes fewer at
 * once.  Reads the core has no room for (-EAGAIN) wait for room and are
 * posted a jiffy later (rxm_room_wait()); a read the core refuses
 * otherwise ends the connection: the sender would wait for an answer
 * that does not come.
 */
static void rxm_rd_post(struct rxm_rd *rd)
{
	unsigned int per = rxm_rd_per_read(rd->nrma, rd->ep->rma_iov_limit);
	struct kofi_vec piece;
	unsigned int i, j, first;
	size_t len;
	int ret = 0;

	if (!rd->next)
		atomic_set(&rd->pending, 1);
	for (i = rd->next; i < rd->nrma; i += per) {
		struct fi_msg_rma msg = {
			.addr = FI_ADDR_UNSPEC,
			.rma_iov = &rd->rma[i],
			.rma_iov_count = per,
			.context = &rd->cqe,
		};

		for (j = i, len = 0; j < i + per; j++)
			len += rd->rma[j].len;
		if (!len)
			continue;
		first = rxm_vec_slice(&rd->local, rd->off, len, &piece);
		msg.iov_type = piece.type;
		if (piece.type == FI_IOV_BVEC)
			msg.msg_bvec = piece.bv;
		else
			msg.msg_iov = piece.kv;
		msg.iov_count = piece.count;
		msg.desc = rd->nmr ? &rd->desc[first] : NULL;
		atomic_inc(&rd->pending);
		ret = fi_readmsg(rd->conn->core, &msg, FI_COMPLETION);
		if (ret) {
			atomic_dec(&rd->pending);
			break;
		}
		rd->off += len;
	}
	if (ret == -EAGAIN) {
		/* the core is full: the rest a little later, posting held */
		rd->next = i;
		rd->room.conn = rd->conn;
		rd->room.post = rxm_rd_repost;
		rd->room.gone = rxm_rd_gone;
		rxm_room_wait(&rd->room);
		return;
	}
	if (ret) {
		rxm_conn_fail(rd->conn);
		rxm_rd_error(rd, -ret);
	}
	rxm_rd_put(rd);
}

/* The room's post of a waiting read: its connection is held. */
static void rxm_rd_repost(struct rxm_room *r)
{
	rxm_rd_post(container_of(r, struct rxm_rd, room));
}

/* The connection of a waiting read closed. */
static void rxm_rd_gone(struct rxm_room *r)
{
	struct rxm_rd *rd = container_of(r, struct rxm_rd, room);

	rxm_rd_error(rd, ECONNRESET);
	rxm_rd_put(rd);
}

/* Register @rd's kvec entries with the core domain, for the reads. */
static int rxm_rd_register(struct rxm_rd *rd)
{
	struct rxm_ep *ep = rd->ep;
	unsigned int i;
	int ret;

	for (i = 0; i < rd->local.count; i++, rd->nmr = i) {
		struct fi_mr_attr attr = {
			.iov_type = FI_IOV_KVEC,
			.mr_iov = &rd->local.kv[i],
			.iov_count = 1,
			.access = FI_READ,
		};

		rd->mr[i] = NULL;
		if (!rd->local.kv[i].iov_len)
			continue;
		if (!kofi_kvec_pageable(rd->local.kv[i].iov_base,
					rd->local.kv[i].iov_len))
			return -EFAULT;
		ret = fi_mr_regattr(ep->under.domain, &attr, 0, &rd->mr[i]);
		if (ret) {
			rd->mr[i] = NULL;
			return ret;
		}
		rd->desc[i] = fi_mr_desc(rd->mr[i]);
	}
	return 0;
}

/*
 * The work's part of a read over a core that registers pages: register
 * and post, the connection held by rxm_rndv_read(); or, posted, close the
 * registrations and complete.
 */
static void rxm_rd_work(struct rxm_rd *rd)
{
	struct rxm_conn *conn = rd->conn;
	int ret;

	if (rd->posted) {
		rxm_rd_complete(rd);
		return;
	}
	rd->posted = true;
	/* pieces a device maps with one page list each */
	ret = rxm_vec_chunk(&rd->local, RXM_REG_CHUNK);
	if (!ret)
		ret = rxm_rd_register(rd);
	if (!ret) {
		rxm_rd_post(rd);
	} else {
		pr_debug("registering a rendezvous read from %pISpc: %d\n",
			 &conn->peer, ret);
		rxm_conn_fail(conn);
		rxm_rd_finish(rd, -ret);
	}
	rxm_conn_put(conn);
}

/**
 * rxm_rndv_read() - a receive took a rendezvous request: read the message
 * @ep: the endpoint
 * @rx: the receive
 * @buf: the bounce buffer holding the request (checked), recycled here
 *
 * Context: any context; does not sleep.
 */
void rxm_rndv_read(struct rxm_ep *ep, struct rxm_rx *rx, struct rxm_buf *buf)
{
	const struct rxm_hdr *hdr = (const void *)buf->pkt;
	const struct rxm_rndv *r = (const void *)(hdr + 1);
	struct rxm_conn *conn = buf->conn;
	struct rxm_rd *rd;
	unsigned int i;
	size_t left;

	rd = kzalloc(sizeof(*rd), GFP_ATOMIC);
	if (!rd) {
		void *context = rx->me.context;
		u64 flags = rx->flags;
		struct kofi_comp cancel;
		bool end;

		end = rxm_rx_placed(ep, rx, &cancel);
		kofi_cq_write_err(kofi_ep_cq(&ep->ep, FI_RECV, NULL), context,
				  flags, ENOMEM, 0, 0, 0);
		if (end)
			rxm_rx_cancel_write(ep, &cancel);
		if (conn)
			rxm_conn_fail(conn);
		rxm_buf_recycle(buf);
		return;
	}
	rd->cqe.done = rxm_rd_done;
	rd->ep = ep;
	rd->conn = conn;
	rd->rx = rx;
	rd->msg_id = le64_to_cpu(hdr->msg_id);
	rxm_comp_fill(rx, &buf->me, hdr, rxm_rx_room(rx, &buf->me), &rd->c);
	for (i = 0, left = rd->c.len; i < r->count && left; i++) {
		rd->rma[i].addr = le64_to_cpu(r->iov[i].addr);
		rd->rma[i].len = min_t(u64, le64_to_cpu(r->iov[i].len), left);
		rd->rma[i].key = le64_to_cpu(r->iov[i].key);
		left -= rd->rma[i].len;
	}
	rd->nrma = i;
	rxm_vec_slice(&rx->vec, buf->me.offset, rd->c.len, &rd->local);
	rxm_buf_recycle(buf);
	if (!conn) {
		rxm_rd_finish(rd, ECONNRESET);
		return;
	}
	if (!rd->c.len) {
		rxm_rd_finish(rd, 0);
		return;
	}
	if (!rxm_conn_hold(conn)) {
		rxm_conn_fail(conn);
		rxm_rd_finish(rd, ECONNRESET);
		return;
	}
	/* registration sleeps: the work registers, posts and lets go */
	if (ep->reg_pages && rd->local.type == FI_IOV_KVEC) {
		rxm_rd_queue(rd);
		return;
	}
	rxm_rd_post(rd);
	rxm_conn_put(conn);
}
