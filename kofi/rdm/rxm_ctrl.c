// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: control packets (read-done answers, credit grants) and credit flow
 * control over a core without flow control of its own.
 *
 * Over ib_verbs a send that finds no receive posted at the peer is
 * retried by the device (InfiniBand, RoCE) or ends the connection
 * (iWARP).  rxm's CM data says RXM_FLOW_CTRL_ON there, as libfabric's rxm
 * over verbs does; when the peer says so too, every packet that consumes
 * one of the peer's receives takes a credit first (rxm_credit.h has the
 * rules): a send of the ULP without one answers -EAGAIN, a read-done
 * answer waits on its connection for the peer's next grant.  Grants go
 * out as bounce buffers are posted again.  Over ksocket (TCP has its own
 * flow control) rxm says RXM_FLOW_CTRL_OFF and nothing here holds a
 * packet back.
 *
 * A control packet or a rendezvous request the core has no room for
 * (-EAGAIN: its send queue is full of the ULP's operations, reads and
 * other control packets) waits for room (rxm_room.c).
 *
 * The credit state is under the endpoint's lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include "rxm.h"

/**
 * rxm_ctrl_alloc() - a control packet to a peer
 * @ep: the endpoint
 * @conn: the connection it goes on
 * @type: RXM_RNDV_RD_DONE or RXM_CREDIT
 * @msg_id: the header's msg_id
 * @ctrl_data: the header's ctrl_data
 *
 * Context: any context; does not sleep.
 * Return: the packet's send entry (no completion for the ULP), or NULL
 * without memory.
 */
struct rxm_tx *rxm_ctrl_alloc(struct rxm_ep *ep, struct rxm_conn *conn,
			      u8 type, u64 msg_id, u64 ctrl_data)
{
	struct rxm_tx *tx = kmem_cache_alloc(rxm_tx_cache, GFP_ATOMIC);

	if (!tx)
		return NULL;
	atomic_inc(&ep->tx_out);
	tx->cqe.done = rxm_tx_done;
	tx->ep = ep;
	tx->conn = conn;
	tx->inject = true;
	tx->rndv = false;
	INIT_LIST_HEAD(&tx->node);
	rxm_hdr_fill(&tx->hdr, type, RXM_OP_MSG, lower_32_bits(conn->peer_id),
		     msg_id, 0, 0, 0, 0);
	tx->hdr.ctrl_data = cpu_to_le64(ctrl_data);
	tx->vec.type = FI_IOV_KVEC;
	tx->vec.count = 1;
	tx->vec.kv[0].iov_base = &tx->hdr;
	tx->vec.kv[0].iov_len = sizeof(tx->hdr);
	return tx;
}

/* Post @tx, its header and a rendezvous request's body, on @conn's core. */
static int rxm_pkt_post_core(struct rxm_conn *conn, struct rxm_tx *tx,
			     u64 sleep)
{
	struct kvec kv[2] = {
		{ .iov_base = &tx->hdr, .iov_len = sizeof(tx->hdr) },
		{ .iov_base = tx->buf, .iov_len = sizeof(struct rxm_rndv) },
	};
	struct fi_msg cm = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = kv,
		.iov_count = tx->rndv ? 2 : 1,
		.addr = FI_ADDR_UNSPEC,
		.context = &tx->cqe,
	};

	BUILD_BUG_ON(sizeof(struct rxm_rndv) > sizeof(tx->buf));
	return fi_sendmsg(conn->core, &cm, FI_COMPLETION | sleep);
}

static void rxm_pkt_repost(struct rxm_room *r);
static void rxm_pkt_gone(struct rxm_room *r);

/* Have @tx wait for room in @conn's core. */
static void rxm_pkt_wait(struct rxm_conn *conn, struct rxm_tx *tx)
{
	tx->room.conn = conn;
	tx->room.post = rxm_pkt_repost;
	tx->room.gone = rxm_pkt_gone;
	rxm_room_wait(&tx->room);
}

/**
 * rxm_pkt_post() - post a control packet or a rendezvous request
 * @conn: the connection, held
 * @tx: the packet: its header in @tx->hdr, a rendezvous request's body
 *	in @tx->buf
 * @sleep: FI_MAY_SLEEP if the caller may sleep, else 0
 *
 * A packet the core has no room for, or that would pass operations
 * waiting for room, waits for room (rxm_room_wait()).
 *
 * Context: any context; does not sleep unless @sleep says so.
 * Return: 0 (posted, or waiting), or the core's error.
 */
int rxm_pkt_post(struct rxm_conn *conn, struct rxm_tx *tx, u64 sleep)
{
	int ret = -EAGAIN;

	if (!READ_ONCE(conn->nwait))
		ret = rxm_pkt_post_core(conn, tx, sleep);
	if (ret != -EAGAIN)
		return ret;
	rxm_pkt_wait(conn, tx);
	return 0;
}

/*
 * Post control packet @tx on @conn's core.  One that cannot go is freed
 * and ends the connection: the peer would wait for it forever.
 */
static void rxm_ctrl_post(struct rxm_conn *conn, struct rxm_tx *tx)
{
	int ret = -ECONNRESET;

	if (rxm_conn_hold(conn)) {
		ret = rxm_pkt_post(conn, tx, 0);
		rxm_conn_put(conn);
	}
	if (ret) {
		rxm_tx_free(tx->ep, tx);
		rxm_conn_fail(conn);
	}
}

/* @tx, of @conn, could not be posted: @err (positive errno). */
static void rxm_pkt_failed(struct rxm_conn *conn, struct rxm_tx *tx, int err)
{
	if (tx->rndv) {
		rxm_rndv_unposted(tx, err);
		return;
	}
	rxm_tx_free(tx->ep, tx);
	rxm_conn_fail(conn);
}

/* The room's post of a waiting packet: its connection is held. */
static void rxm_pkt_repost(struct rxm_room *r)
{
	struct rxm_tx *tx = container_of(r, struct rxm_tx, room);
	int ret = rxm_pkt_post_core(r->conn, tx, FI_MAY_SLEEP);

	if (ret == -EAGAIN)
		rxm_pkt_wait(r->conn, tx);
	else if (ret)
		rxm_pkt_failed(r->conn, tx, -ret);
}

/*
 * The connection of a waiting packet closed: a control packet is freed,
 * a rendezvous send completes with the connection's error.
 */
static void rxm_pkt_gone(struct rxm_room *r)
{
	struct rxm_tx *tx = container_of(r, struct rxm_tx, room);

	if (tx->rndv)
		rxm_rndv_unposted(tx, r->conn->err ? r->conn->err :
				  ECONNRESET);
	else
		rxm_tx_free(tx->ep, tx);
}

/*
 * Take a credit for a packet that consumes a receive of the peer's;
 * packets waiting for credits go first.  Lock held.
 */
static bool rxm_credit_take_locked(struct rxm_conn *conn)
{
	return list_empty(&conn->ctrl_wait) &&
	       rxm_credits_take(&conn->cr, false);
}

/**
 * rxm_ctrl_send() - send a control packet that consumes a receive
 * @conn: the connection
 * @tx: the packet, of rxm_ctrl_alloc()
 *
 * Without a credit the packet waits on @conn for the peer's next grant.
 * A packet that cannot be posted ends the connection: the peer would wait
 * for it forever.
 *
 * Context: any context; does not sleep.
 */
void rxm_ctrl_send(struct rxm_conn *conn, struct rxm_tx *tx)
{
	struct rxm_ep *ep = conn->ep;
	unsigned long flags;
	bool go;

	spin_lock_irqsave(&ep->lock, flags);
	go = rxm_credit_take_locked(conn);
	if (!go)
		list_add_tail(&tx->node, &conn->ctrl_wait);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (go)
		rxm_ctrl_post(conn, tx);
}

/**
 * rxm_credit_take() - take a credit for a packet of the ULP's
 * @conn: the connection, held
 *
 * Context: any context; does not sleep.
 * Return: 0, or -EAGAIN while the peer has granted none (then the ULP
 * tries again once a grant came, as after any -EAGAIN).
 */
int rxm_credit_take(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	unsigned long flags;
	bool ok;

	if (!READ_ONCE(conn->fc))
		return 0;
	spin_lock_irqsave(&ep->lock, flags);
	ok = rxm_credit_take_locked(conn);
	spin_unlock_irqrestore(&ep->lock, flags);
	return ok ? 0 : -EAGAIN;
}

/**
 * rxm_credit_untake() - give back a credit a packet did not use
 * @conn: the connection
 *
 * Context: any context; does not sleep.
 */
void rxm_credit_untake(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	unsigned long flags;

	if (!READ_ONCE(conn->fc))
		return;
	spin_lock_irqsave(&ep->lock, flags);
	rxm_credits_untake(&conn->cr);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/*
 * What @conn should grant now, if anything: @data as for
 * rxm_credits_grant(); its credit is taken.  A grant that finds no
 * credit waits for the peer's next one.  Lock held.
 */
static int rxm_credit_grant_locked(struct rxm_conn *conn, bool data)
{
	int n;

	n = rxm_credits_grant(&conn->cr, conn->nbufs,
			      data || conn->grant_pending);
	if (!n)
		return 0;
	if (!rxm_credits_take(&conn->cr, true)) {
		rxm_credits_ungrant(&conn->cr, n);
		conn->grant_pending = true;
		return 0;
	}
	conn->grant_pending = false;
	return n;
}

/* Send a grant of @n credits (none for 0); a grant lost ends @conn. */
static void rxm_credit_send_grant(struct rxm_conn *conn, int n)
{
	struct rxm_tx *tx;

	if (!n)
		return;
	tx = rxm_ctrl_alloc(conn->ep, conn, RXM_CREDIT, 0, n);
	if (tx)
		rxm_ctrl_post(conn, tx);
	else
		rxm_conn_fail(conn);
}

/**
 * rxm_credit_posted() - a bounce buffer of a connection was posted
 * @conn: the connection, held (or its CM work's)
 * @data: the buffer did not hold a grant (rxm_credits_grant())
 *
 * Grants the peer what it is due.
 *
 * Context: any context; does not sleep.
 */
void rxm_credit_posted(struct rxm_conn *conn, bool data)
{
	struct rxm_ep *ep = conn->ep;
	unsigned long flags;
	int n;

	if (!READ_ONCE(conn->fc))
		return;
	spin_lock_irqsave(&ep->lock, flags);
	rxm_credits_posted(&conn->cr);
	n = rxm_credit_grant_locked(conn, data);
	spin_unlock_irqrestore(&ep->lock, flags);
	rxm_credit_send_grant(conn, n);
}

/**
 * rxm_credit_arrived() - a packet of the peer consumed a bounce buffer
 * @conn: the connection
 *
 * A peer that is out of credits for data gets one more buffer posted for
 * it (up to rdm_conn_rx_bufs): the connection's queue grows under load.
 *
 * Context: the core's completion context; does not sleep.
 */
void rxm_credit_arrived(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	unsigned long flags;
	bool short_of;
	int n;

	if (!READ_ONCE(conn->fc))
		return;
	spin_lock_irqsave(&ep->lock, flags);
	short_of = rxm_credits_arrived(&conn->cr);
	/* the accepting side's first grant, once the peer spoke */
	n = conn->grant_pending ? rxm_credit_grant_locked(conn, true) : 0;
	spin_unlock_irqrestore(&ep->lock, flags);
	rxm_credit_send_grant(conn, n);
	if (short_of)
		rxm_buf_grow(conn);
}

/**
 * rxm_credit_granted() - the peer's grant arrived
 * @conn: the connection
 * @buf: the bounce buffer it is in, posted again here
 *
 * Sends the control packets that waited for credits, then a grant of our
 * own if one waited.
 *
 * Context: the core's completion context; does not sleep.
 * Return: 0, or -EPROTO for a grant on a connection without flow control.
 */
int rxm_credit_granted(struct rxm_conn *conn, struct rxm_buf *buf)
{
	const struct rxm_hdr *hdr = (const struct rxm_hdr *)buf->pkt;
	struct rxm_ep *ep = conn->ep;
	struct rxm_tx *tx, *next;
	unsigned long flags;
	LIST_HEAD(go);
	int n;

	if (!READ_ONCE(conn->fc))
		return -EPROTO;
	spin_lock_irqsave(&ep->lock, flags);
	rxm_credits_add(&conn->cr, le64_to_cpu(hdr->ctrl_data));
	list_for_each_entry_safe(tx, next, &conn->ctrl_wait, node) {
		if (!rxm_credits_take(&conn->cr, false))
			break;
		list_move_tail(&tx->node, &go);
	}
	n = conn->grant_pending ? rxm_credit_grant_locked(conn, true) : 0;
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(tx, next, &go, node) {
		list_del_init(&tx->node);
		rxm_ctrl_post(conn, tx);
	}
	rxm_credit_send_grant(conn, n);
	buf->grant = true;
	rxm_buf_recycle(buf);
	return 0;
}

/**
 * rxm_credit_enable() - a connection is up: turn flow control on if both
 *	sides want it
 * @conn: the connection (its CM work)
 * @peer: the peer's enum rxm_flow_ctrl from its CM data
 * @accepted: we accepted the peer's request
 *
 * Grants the peer the buffers posted so far, less the one that backs the
 * credit it assumes.  The accepting side grants only once the connecting
 * side's first packet (its own grant) came: on iWARP the connecting side
 * sends first (MPA), and an accepting side without a grant of its own has
 * no credit for data either.
 *
 * Context: process context (the CM work); does not sleep.
 */
void rxm_credit_enable(struct rxm_conn *conn, u8 peer, bool accepted)
{
	struct rxm_ep *ep = conn->ep;
	unsigned long flags;
	int n;

	/* a peer that says nothing (legacy) does as we do */
	if (!conn->fc || (peer != RXM_FLOW_CTRL_ON &&
			  peer != RXM_FLOW_CTRL_LEGACY)) {
		WRITE_ONCE(conn->fc, false);
		return;
	}
	spin_lock_irqsave(&ep->lock, flags);
	rxm_credits_enable(&conn->cr);
	/* a packet of the peer's came already: it spoke first */
	if (accepted && conn->cr.lent == 1) {
		conn->grant_pending = true;
		n = 0;
	} else {
		n = rxm_credit_grant_locked(conn, true);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	rxm_credit_send_grant(conn, n);
}

/**
 * rxm_credit_conn_gone() - free the control packets a closed connection
 *	held back
 * @conn: the connection, its core closed
 *
 * Context: any context.
 */
void rxm_credit_conn_gone(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	struct rxm_tx *tx, *next;
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&ep->lock, flags);
	list_splice_init(&conn->ctrl_wait, &gone);
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(tx, next, &gone, node)
		rxm_tx_free(ep, tx);
}
