// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: connections, one per peer, and the connection management work.
 *
 * The first send to an fi_addr with no connection creates one in
 * RXM_CONN_IDLE and answers -EAGAIN; the endpoint's CM work (process
 * context) opens a core endpoint for it, posts its bounce buffers and
 * connects with rxm's request as CM data.  Sends answer -EAGAIN until
 * the core says FI_CONNECTED.  The passive side finds the requester's
 * fi_addr from the request's source IP and the listening port in its CM
 * data; a peer not in the AV is accepted too (its messages carry
 * FI_ADDR_NOTAVAIL until the ULP, having inserted it, sends to it: the
 * connection is then the peer's, rxm_conn_adopt_locked()).
 *
 * Simultaneous connects are resolved by the names, as libfabric's rxm
 * does: the side whose peer has the lower name rejects the peer's request
 * with "already connected" and keeps its own; the other drops its own and
 * accepts (kofi_sockaddr_cmp(), libfabric's order of addresses).
 *
 * An endpoint of the net wire does all of this with net's 8-byte CM data
 * instead of rxm's (rxm_wire.c, the endpoint's struct rxm_wire); net's
 * reject says no reason, and a rejected request of ours waits for the
 * peer's as if it said "already connected".
 *
 * Each connection has its own core EQ, closed with its core endpoint, so
 * that no event of a closed connection is ever read.  A connection that
 * fails (a core error, a shutdown, a malformed packet) goes to
 * RXM_CONN_DOWN; the work closes it once no data call uses it: the core
 * completes what was in flight on it with errors, and other peers carry
 * on.  The next send to that peer connects again - except after an
 * attempt of ours that failed (refused, timed out, answered with bad CM
 * data): that connection stays in the table, closed, as RXM_CONN_FAILED,
 * and the next send to the peer answers the attempt's error instead; the
 * one after that connects again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/wait_bit.h>
#include "rxm.h"

/* A core CM event with its data. */
struct rxm_cm_event {
	struct fi_eq_cm_entry e;
	u8 data[FI_CM_DATA_MAX];
};

static struct rxm_conn *rxm_conn_alloc(struct rxm_ep *ep, gfp_t gfp)
{
	struct rxm_conn *conn = kzalloc(sizeof(*conn), gfp);

	if (!conn)
		return NULL;
	conn->ep = ep;
	conn->fi_addr = FI_ADDR_NOTAVAIL;
	conn->state = RXM_CONN_IDLE;
	atomic_set(&conn->users, 0);
	INIT_LIST_HEAD(&conn->copies);
	INIT_LIST_HEAD(&conn->sars);
	INIT_LIST_HEAD(&conn->ctrl_wait);
	conn->peer_fc = RXM_FLOW_CTRL_ON;
	INIT_WORK(&conn->big_work, rxm_big_work);
	rxm_trx_init(conn);
	return conn;
}

/*
 * Put a new @conn on the endpoint's list under an id of its own (the
 * conn_id of the packets the peer sends us).  Lock held.
 */
static int rxm_conn_list_locked(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	int ret;

	ret = xa_alloc_cyclic(&ep->conn_ids, &conn->id, conn, xa_limit_31b,
			      &ep->next_id, GFP_ATOMIC);
	if (ret < 0)
		return ret;
	list_add_tail(&conn->node, &ep->conns);
	return 0;
}

/* Take @conn off the endpoint's list, and its id.  Lock held. */
static void rxm_conn_unlist_locked(struct rxm_conn *conn)
{
	xa_erase(&conn->ep->conn_ids, conn->id);
	list_del(&conn->node);
}

/* Queue the CM work of a live endpoint.  Lock held. */
static void rxm_ep_kick_locked(struct rxm_ep *ep)
{
	if (ep->state == RXM_EP_ENABLED)
		queue_work(rxm_wq, &ep->cm_work);
}

/* Take @conn out of the endpoint's table.  Lock held. */
static void rxm_conn_unkey_locked(struct rxm_conn *conn)
{
	if (conn->keyed) {
		xa_erase(&conn->ep->table, conn->fi_addr);
		conn->keyed = false;
	}
}

/*
 * Mark @conn down for @err (positive errno, 0 if not known) and take it
 * out of the table - unless it is an attempt of ours that failed with an
 * error, which the next send to the peer answers (rxm_conn_get()).  Lock
 * held.
 */
static void rxm_conn_down_locked(struct rxm_conn *conn, int err)
{
	enum rxm_conn_state prev = conn->state;

	if (prev == RXM_CONN_DOWN)
		return;
	if (!conn->err)
		conn->err = err;
	if (!err || (prev != RXM_CONN_IDLE && prev != RXM_CONN_CONNECTING))
		rxm_conn_unkey_locked(conn);
	conn->state = RXM_CONN_DOWN;
	rxm_ep_kick_locked(conn->ep);
}

/*
 * A connection the peer at @sin opened before it was in the AV (accepted
 * with FI_ADDR_NOTAVAIL) becomes its connection under @addr once the ULP
 * sends to it, as libfabric's peers are found by address: else a second
 * connection would be opened, which the peer refuses as a duplicate.
 * ep->lock held.
 */
static struct rxm_conn *rxm_conn_adopt_locked(struct rxm_ep *ep,
					      fi_addr_t addr,
					      const union kofi_sockaddr *sin)
{
	struct rxm_conn *c;

	list_for_each_entry(c, &ep->conns, node) {
		if (c->keyed || c->fi_addr != FI_ADDR_NOTAVAIL ||
		    (c->state != RXM_CONN_ACCEPTING &&
		     c->state != RXM_CONN_CONNECTED) ||
		    !kofi_sockaddr_equal(&c->peer, sin))
			continue;
		if (xa_err(xa_store(&ep->table, addr, c, GFP_ATOMIC)))
			return NULL;
		c->keyed = true;
		WRITE_ONCE(c->fi_addr, addr);
		return c;
	}
	return NULL;
}

/**
 * rxm_conn_get() - the connection a send to @addr goes on
 * @ep: the endpoint
 * @addr: the destination
 * @err: on NULL, -EINVAL for an address the AV does not hold (never
 *	inserted, or removed) or an endpoint not enabled;
 *	-EAGAIN while the connection is being opened (the first send to a
 *	peer opens it), or while operations wait for room in its core
 *	(rxm_room_wait()); the error of our last attempt to connect to the
 *	peer if it failed (-ETIMEDOUT, -ECONNREFUSED, -EPROTO ...), once;
 *	-ETIMEDOUT, once, when our attempt lost a simultaneous connect and
 *	the peer's own request did not come within FI_OPT_CONNECT_TIMEOUT_MS;
 *	-ENOMEM
 *
 * Context: any context; does not sleep.
 * Return: the connection, held (rxm_conn_put()), or NULL.
 */
struct rxm_conn *rxm_conn_get(struct rxm_ep *ep, fi_addr_t addr, int *err)
{
	struct sockaddr_storage ss;
	union kofi_sockaddr *sin = (union kofi_sockaddr *)&ss;
	struct rxm_conn *conn;
	unsigned long flags;

	if (kofi_av_lookup_addr(kofi_ep_av(&ep->ep), addr, &ss) < 0) {
		*err = -EINVAL;
		return NULL;
	}
	spin_lock_irqsave(&ep->lock, flags);
	/* the AV's format is the domain's, the endpoint's name the core's */
	if (ep->state != RXM_EP_ENABLED ||
	    ss.ss_family != ep->name.sa.sa_family) {
		*err = -EINVAL;
		conn = NULL;
		goto out;
	}
	conn = xa_load(&ep->table, addr);
	/* the AV slot was removed and reused for another peer */
	if (conn && !kofi_sockaddr_equal(&conn->peer, sin)) {
		rxm_conn_unkey_locked(conn);
		rxm_conn_down_locked(conn, 0);
		conn = NULL;
	}
	if (!conn)
		conn = rxm_conn_adopt_locked(ep, addr, sin);
	if (!conn) {
		*err = -ENOMEM;
		conn = rxm_conn_alloc(ep, GFP_ATOMIC);
		if (!conn)
			goto out;
		conn->fi_addr = addr;
		conn->peer = *sin;
		if (rxm_conn_list_locked(conn)) {
			kfree(conn);
			conn = NULL;
			goto out;
		}
		if (xa_err(xa_store(&ep->table, addr, conn, GFP_ATOMIC))) {
			rxm_conn_unlist_locked(conn);
			kfree(conn);
			conn = NULL;
			goto out;
		}
		conn->keyed = true;
		rxm_ep_kick_locked(ep);
		*err = -EAGAIN;
		conn = NULL;
	} else if (conn->state == RXM_CONN_DOWN ||
		   conn->state == RXM_CONN_FAILED) {
		/* our attempt failed: its error, once */
		*err = conn->err ? -conn->err : -EAGAIN;
		rxm_conn_unkey_locked(conn);
		rxm_conn_down_locked(conn, 0);
		conn = NULL;
	} else if (conn->state == RXM_CONN_WAITING && conn->deadline &&
		   time_after(jiffies, conn->deadline)) {
		/* lost a simultaneous connect, and the peer never came */
		*err = -ETIMEDOUT;
		rxm_conn_unkey_locked(conn);
		rxm_conn_down_locked(conn, 0);
		conn = NULL;
	} else if (conn->state != RXM_CONN_CONNECTED || conn->nwait) {
		*err = -EAGAIN;
		conn = NULL;
	} else {
		atomic_inc(&conn->users);
	}
out:
	spin_unlock_irqrestore(&ep->lock, flags);
	return conn;
}

/**
 * rxm_conn_hold() - hold a connection that is up, for a repost
 * @conn: the connection
 *
 * Context: any context; does not sleep.
 * Return: true if @conn is connected (then rxm_conn_put() it).
 */
bool rxm_conn_hold(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	unsigned long flags;
	bool up;

	spin_lock_irqsave(&ep->lock, flags);
	up = rxm_conn_hold_locked(conn);
	spin_unlock_irqrestore(&ep->lock, flags);
	return up;
}

/**
 * rxm_conn_hold_locked() - rxm_conn_hold() with the endpoint's lock held
 * @conn: the connection
 *
 * Context: the endpoint's lock held.
 * Return: true if @conn is connected (then rxm_conn_put() it).
 */
bool rxm_conn_hold_locked(struct rxm_conn *conn)
{
	bool up = conn->state == RXM_CONN_CONNECTED ||
		  conn->state == RXM_CONN_CONNECTING ||
		  conn->state == RXM_CONN_ACCEPTING;

	if (up)
		atomic_inc(&conn->users);
	return up;
}

/**
 * rxm_conn_put() - release what rxm_conn_get() or rxm_conn_hold() held
 * @conn: the connection
 *
 * Context: any context.
 */
void rxm_conn_put(struct rxm_conn *conn)
{
	if (atomic_dec_and_test(&conn->users))
		wake_up_var(&conn->users);
}

/**
 * rxm_conn_fail_err() - end a connection for a reason
 * @conn: the connection
 * @err: why (positive errno: EPROTO for a malformed packet, the core's
 *	error ...), 0 if not known; the first reason given is kept, and the
 *	rendezvous sends still waiting on @conn complete with it
 *
 * The CM work (or fi_close()) closes it once no data call uses it.
 *
 * Context: any context; does not sleep.
 */
void rxm_conn_fail_err(struct rxm_conn *conn, int err)
{
	struct rxm_ep *ep = conn->ep;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	rxm_conn_down_locked(conn, err);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/**
 * rxm_conn_fail() - end a connection
 * @conn: the connection: it failed (the core's error, a repost that
 *	failed) or its endpoint closes
 *
 * rxm_conn_fail_err() with no reason known.
 *
 * Context: any context; does not sleep.
 */
void rxm_conn_fail(struct rxm_conn *conn)
{
	rxm_conn_fail_err(conn, 0);
}

/*
 * Bounce buffers a connection with credit flow control posts at once: its
 * first grant covers a libfabric peer's largest segmented message (8
 * segments) and a control packet; libfabric's rxm, short of credits in
 * the middle of such a message, has been seen to crash later on.
 */
#define RXM_CONN_CREDIT_BUFS	(RXM_MAX_SEGMENTS + 2)

/*
 * Post the first bounce buffers of a new core endpoint: one, or
 * RXM_CONN_CREDIT_BUFS with credit flow control, which it is set up for
 * here; more come as messages wait unexpected in them, or as a peer runs
 * out of credits (rxm_buf_grow()), up to rdm_conn_rx_bufs.
 */
static int rxm_conn_bufs(struct rxm_conn *conn)
{
	unsigned int i, first = 1, n = clamp(READ_ONCE(rxm_conn_rx_bufs), 1U,
					     128U);
	bool fc = conn->ep->flow_ctrl && conn->peer_fc != RXM_FLOW_CTRL_OFF;
	int ret;

	BUILD_BUG_ON(RXM_CONN_CREDIT_BUFS < RXM_CREDIT_MIN_BUFS);
	/* the endpoint's shared buffers take its packets, without credits */
	if (conn->ep->shared_rx) {
		rxm_credits_init(&conn->cr);
		conn->grant_pending = false;
		WRITE_ONCE(conn->fc, false);
		return 0;
	}
	if (fc) {
		first = RXM_CONN_CREDIT_BUFS;
		n = max(n, first);
	}
	conn->bufs = kcalloc(n, sizeof(*conn->bufs), GFP_KERNEL);
	if (!conn->bufs)
		return -ENOMEM;
	conn->maxbufs = n;
	rxm_credits_init(&conn->cr);
	conn->grant_pending = false;
	WRITE_ONCE(conn->fc, fc);
	for (i = 0; i < first; i++) {
		conn->bufs[i] = rxm_buf_alloc(conn, GFP_KERNEL);
		if (!conn->bufs[i])
			return -ENOMEM;
		conn->nbufs = i + 1;
		ret = rxm_buf_post(conn, conn->bufs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* @conn's tagged message no longer waits for a receive.  Lock held. */
static void rxm_conn_unhold_locked(struct rxm_conn *conn)
{
	if (conn->trx_held) {
		conn->trx_held = false;
		conn->ep->trx_held--;
	}
}

/*
 * Close @conn's core endpoint and EQ.  The core completes what was in
 * flight with errors; bounce buffers whose messages wait as unexpected
 * (or are being delivered), and copies of rendezvous requests, are left
 * to the match queues and their receives, the others freed; segmented
 * messages whose last segment never came end (rxm_sar.c).
 */
static void rxm_conn_close_core(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	struct rxm_buf *buf, *next;
	unsigned long flags;
	LIST_HEAD(ended);
	unsigned int i;

	/* no retry picks it while it closes */
	spin_lock_irqsave(&ep->lock, flags);
	rxm_conn_unhold_locked(conn);
	spin_unlock_irqrestore(&ep->lock, flags);
	wait_var_event(&conn->users, !atomic_read(&conn->users));
	kofi_util_close_core(conn->core ? &conn->core->fid : NULL);
	conn->core = NULL;
	/* a completion the core was running as it closed */
	wait_var_event(&conn->users, !atomic_read(&conn->users));
	kofi_util_close_core(conn->eq ? &conn->eq->fid : NULL);
	conn->eq = NULL;
	rxm_big_conn_gone(conn);
	spin_lock_irqsave(&ep->lock, flags);
	rxm_conn_unhold_locked(conn);
	rxm_sar_conn_gone_locked(conn, &ended);
	rxm_srx_conn_gone_locked(conn);
	for (i = 0; i < conn->nbufs; i++) {
		if (conn->bufs[i]->held)
			conn->bufs[i]->conn = NULL;
		else
			rxm_buf_free(conn->bufs[i]);
	}
	list_for_each_entry_safe(buf, next, &conn->copies, node) {
		list_del_init(&buf->node);
		buf->conn = NULL;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	rxm_sar_ended(ep, &ended);
	rxm_credit_conn_gone(conn);
	rxm_room_conn_gone(conn);
	kfree(conn->bufs);
	conn->bufs = NULL;
	conn->nbufs = 0;
}

/*
 * Have the core hand us the tagged messages it carries (FI_OPT_TAGGED_RX);
 * a core without it gets tagged messages with rxm's header.
 */
static int rxm_conn_tagged_rx(struct rxm_conn *conn)
{
	const struct rxm_wire *wire = conn->ep->wire;
	int ret;

	ret = fi_setopt(&conn->core->fid, FI_OPT_ENDPOINT, FI_OPT_TAGGED_RX,
			wire->trx, sizeof(*wire->trx));
	conn->raw_tagged = !ret;
	if (wire->trx_needed)
		return ret;
	return ret == -ENOPROTOOPT || ret == -FI_ENOSYS ? 0 : ret;
}

/* Open @conn's core endpoint from @info (a request's, or our own). */
static int rxm_conn_open_core(struct rxm_conn *conn, struct fi_info *info)
{
	struct rxm_ep *ep = conn->ep;
	int ret;

	ret = kofi_util_core_eq_open(ep->under.fabric, 8, &ep->progress,
				     &conn->eq);
	if (ret)
		return ret;
	/* a segmented send is up to RXM_MAX_SEGMENTS core sends */
	if (!ep->flow_ctrl && !ep->net)
		info->tx_attr->size = RXM_CORE_TX_SIZE;
	/*
	 * Over a core whose queues are fixed when the connection opens
	 * (ib_verbs), a small send queue: what it has no room for waits
	 * (rxm_room.c), and an idle connection costs little.
	 */
	if (ep->shared_rx)
		info->tx_attr->size = min_t(size_t, info->tx_attr->size,
					    RXM_SRX_CORE_TX);
	ret = fi_endpoint(ep->under.domain, info, &conn->core, conn);
	if (ret) {
		conn->core = NULL;
		return ret;
	}
	ret = fi_ep_bind(conn->core, &conn->eq->fid, 0);
	if (!ret)
		ret = fi_ep_bind(conn->core, &ep->core_cq->fid,
				 FI_TRANSMIT | FI_RECV);
	if (!ret && ep->shared_rx)
		ret = fi_ep_bind(conn->core, &ep->srx->fid, 0);
	if (!ret)
		ret = rxm_conn_tagged_rx(conn);
	if (!ret)
		ret = fi_enable(conn->core);
	if (!ret)
		ret = rxm_conn_bufs(conn);
	return ret;
}

static void rxm_conn_set_state(struct rxm_conn *conn,
			       enum rxm_conn_state state)
{
	struct rxm_ep *ep = conn->ep;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (conn->state != RXM_CONN_DOWN && conn->state != RXM_CONN_FAILED)
		conn->state = state;
	spin_unlock_irqrestore(&ep->lock, flags);
}

/*
 * Bound our attempt by the endpoint's FI_OPT_CONNECT_TIMEOUT_MS; a core
 * without the option bounds its attempts its own way.
 */
static void rxm_conn_timeout(struct rxm_conn *conn)
{
	size_t ms = READ_ONCE(conn->ep->connect_timeout_ms);

	fi_setopt(&conn->core->fid, FI_OPT_ENDPOINT, FI_OPT_CONNECT_TIMEOUT_MS,
		  &ms, sizeof(ms));
}

/* RXM_CONN_IDLE: connect to the peer, from our address, any port. */
static void rxm_conn_connect(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	size_t len = kofi_sockaddr_len(&ep->name.sa, sizeof(ep->name));
	u8 cm[RXM_WIRE_CM_MAX];
	struct fi_info *info;
	size_t cmlen;
	int ret = -ENOMEM;

	info = fi_dupinfo(ep->core_info, GFP_KERNEL);
	if (!info)
		goto fail;
	kfree(info->src_addr);
	kfree(info->dest_addr);
	info->dest_addr = kmemdup(&conn->peer, len, GFP_KERNEL);
	info->src_addr = kmemdup(&ep->name, len, GFP_KERNEL);
	info->dest_addrlen = info->dest_addr ? len : 0;
	info->src_addrlen = info->src_addr ? len : 0;
	if (!info->src_addr || !info->dest_addr)
		goto fail;
	kofi_sockaddr_set_port(info->src_addr, 0);
	conn->peer_fc = RXM_FLOW_CTRL_ON;	/* until its accept says */
	ret = rxm_conn_open_core(conn, info);
	if (ret)
		goto fail;
	rxm_conn_timeout(conn);
	rxm_conn_set_state(conn, RXM_CONN_CONNECTING);
	cmlen = ep->wire->req(conn, cm);
	ret = fi_connect(conn->core, &conn->peer, cm, cmlen);
	if (ret)
		goto fail;
	fi_freeinfo(info);
	return;
fail:
	fi_freeinfo(info);
	pr_debug("connecting to %pISpc failed: %d\n", &conn->peer, ret);
	rxm_conn_fail_err(conn, -ret);
}

/*
 * Wait for the peer's own request, within the endpoint's
 * FI_OPT_CONNECT_TIMEOUT_MS: a send after that ends the wait
 * (rxm_conn_get()).
 */
static void rxm_conn_wait(struct rxm_conn *conn)
{
	size_t ms = READ_ONCE(conn->ep->connect_timeout_ms);
	struct rxm_ep *ep = conn->ep;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (conn->state != RXM_CONN_DOWN && conn->state != RXM_CONN_FAILED) {
		conn->state = RXM_CONN_WAITING;
		conn->deadline = ms ? (jiffies + msecs_to_jiffies(ms)) | 1 : 0;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
}

/*
 * Did the peer reject our request as the loser of a simultaneous connect?
 * rxm says so; net's reject carries its CM data and no reason (its peer
 * rejects for nothing else once it listens and has memory).
 */
static bool rxm_conn_rejected_already(struct rxm_conn *conn,
				      const struct fi_eq_err_entry *err)
{
	if (err->err != ECONNREFUSED || !err->err_data)
		return false;
	return conn->ep->wire->already(err->err_data, err->err_data_size);
}

/* Our request came back rejected: lost a simultaneous connect or not. */
static void rxm_conn_rejected(struct rxm_conn *conn,
			      const struct fi_eq_err_entry *err)
{
	if (rxm_conn_rejected_already(conn, err)) {
		/* the peer's own request will come: wait for it */
		rxm_conn_close_core(conn);
		rxm_conn_wait(conn);
		return;
	}
	rxm_conn_fail_err(conn, err->err ? err->err : ECONNREFUSED);
}

/* Read @conn's core events. */
static void rxm_conn_events(struct rxm_conn *conn)
{
	struct rxm_cm_event ev;
	struct fi_eq_err_entry err;
	u8 err_data[FI_CM_DATA_MAX];
	bool accepted;
	u32 event;
	ssize_t n;

	while (conn->eq) {
		n = fi_eq_read(conn->eq, &event, &ev, sizeof(ev), 0);
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			err.err_data = err_data;
			err.err_data_size = sizeof(err_data);
			if (fi_eq_readerr(conn->eq, &err, 0) < 0)
				break;
			pr_debug("connection with %pISpc: error %d\n",
				 &conn->peer, err.err);
			if (conn->state == RXM_CONN_CONNECTING)
				rxm_conn_rejected(conn, &err);
			else
				rxm_conn_fail_err(conn, err.err);
			continue;
		}
		if (n < 0)
			break;
		pr_debug("connection with %pISpc: event %u\n", &conn->peer,
			 event);
		switch (event) {
		case FI_CONNECTED:
			accepted = conn->state != RXM_CONN_CONNECTING;
			if (!accepted &&
			    (n < (ssize_t)sizeof(ev.e) ||
			     conn->ep->wire->accepted(conn, ev.data,
						      n - sizeof(ev.e)))) {
				rxm_conn_fail_err(conn, EPROTO);
				break;
			}
			rxm_credit_enable(conn, conn->peer_fc, accepted);
			rxm_conn_set_state(conn, RXM_CONN_CONNECTED);
			break;
		case FI_SHUTDOWN:
		default:
			rxm_conn_fail(conn);
			break;
		}
	}
}

static void rxm_reject(struct rxm_ep *ep, struct fi_info *info, u8 reason)
{
	u8 cm[RXM_WIRE_CM_MAX];
	size_t len = ep->wire->reject(ep, reason, cm);

	fi_reject(ep->pep, info->handle, cm, len);
}

/* Accept @conn's request (its core endpoint open). */
static int rxm_accept(struct rxm_conn *conn, u16 port)
{
	u8 cm[RXM_WIRE_CM_MAX];
	size_t len = conn->ep->wire->accept(conn, port, cm);

	return fi_accept(conn->core, cm, len);
}

/*
 * Which connection a request from @peer goes to: NULL to reject it as
 * "already connected", else an existing connection of ours that gives
 * way, or a new one.
 */
static struct rxm_conn *rxm_connreq_conn(struct rxm_ep *ep, fi_addr_t fi_addr,
					 const union kofi_sockaddr *peer,
					 bool *takeover)
{
	struct rxm_conn *conn = NULL, *fresh;
	unsigned long flags;

	*takeover = false;
	fresh = rxm_conn_alloc(ep, GFP_KERNEL);
	if (!fresh)
		return ERR_PTR(-ENOMEM);
	spin_lock_irqsave(&ep->lock, flags);
	if (fi_addr != FI_ADDR_NOTAVAIL)
		conn = xa_load(&ep->table, fi_addr);
	/* the AV slot was removed and reused for another peer */
	if (conn && !kofi_sockaddr_equal(&conn->peer, peer)) {
		rxm_conn_unkey_locked(conn);
		rxm_conn_down_locked(conn, 0);
		conn = NULL;
	}
	if (conn) {
		/*
		 * A simultaneous connect: the side whose peer has the lower
		 * name (libfabric's address order) rejects the peer's request
		 * as "already connected" and keeps its own connection; the
		 * other drops its own and accepts.
		 */
		int cmp = kofi_sockaddr_cmp(peer, &ep->name);

		switch (conn->state) {
		case RXM_CONN_CONNECTING:
			if (cmp < 0) {
				conn = NULL;	/* keep ours, reject theirs */
				break;
			}
			if (cmp == 0) {		/* we connect to ourselves */
				conn = fresh;
				break;
			}
			fallthrough;
		case RXM_CONN_IDLE:
		case RXM_CONN_WAITING:
		case RXM_CONN_FAILED:
			*takeover = true;
			conn->state = RXM_CONN_ACCEPTING;
			conn->err = 0;
			break;
		default:	/* a second connection from the peer */
			conn = fresh;
			break;
		}
	} else {
		conn = fresh;
		if (fi_addr != FI_ADDR_NOTAVAIL &&
		    !xa_err(xa_store(&ep->table, fi_addr, conn, GFP_ATOMIC)))
			conn->keyed = true;
	}
	if (conn == fresh) {
		conn->fi_addr = fi_addr;
		conn->peer = *peer;
		conn->state = RXM_CONN_ACCEPTING;
		if (rxm_conn_list_locked(conn)) {
			rxm_conn_unkey_locked(conn);
			spin_unlock_irqrestore(&ep->lock, flags);
			kfree(fresh);
			return ERR_PTR(-ENOMEM);
		}
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (conn != fresh)
		kfree(fresh);
	return conn;
}

/* FI_CONNREQ on the passive endpoint. */
static void rxm_connreq(struct rxm_ep *ep, struct rxm_cm_event *ev,
			size_t datalen)
{
	struct fi_info *info = ev->e.info;
	union kofi_sockaddr peer = {};
	struct rxm_wire_peer wp = {};
	struct rxm_conn *conn;
	fi_addr_t fi_addr;
	size_t len;
	bool takeover;
	int ret;

	len = kofi_sockaddr_len(info->dest_addr, info->dest_addrlen);
	if (ep->wire->request(ev->data, datalen, &wp) ||
	    !len ||
	    info->dest_addrlen != len ||
	    ((struct sockaddr *)info->dest_addr)->sa_family !=
	    ep->name.sa.sa_family) {
		rxm_reject(ep, info, RXM_REJECT_REFUSED);
		goto out;
	}
	/* the peer: where the request came from, at its listening port */
	memcpy(&peer, info->dest_addr, len);
	if (len == sizeof(peer.in))
		memset(peer.in.sin_zero, 0, sizeof(peer.in.sin_zero));
	else
		peer.in6.sin6_flowinfo = 0;
	kofi_sockaddr_set_port(&peer, wp.port);
	if (kofi_av_lookup_fi_addr(kofi_ep_av(&ep->ep), &peer.sa, len,
				   &fi_addr) < 0)
		fi_addr = FI_ADDR_NOTAVAIL;
	conn = rxm_connreq_conn(ep, fi_addr, &peer, &takeover);
	pr_debug("request from %pISpc (fi_addr %lld): %s\n", &peer,
		 (long long)fi_addr, IS_ERR_OR_NULL(conn) ? "rejected" :
		 takeover ? "accepted, ours gives way" : "accepted");
	if (IS_ERR_OR_NULL(conn)) {
		rxm_reject(ep, info, conn ? RXM_REJECT_UNSPEC :
			   RXM_REJECT_ALREADY);
		goto out;
	}
	if (takeover)	/* our own request, if any, gives way */
		rxm_conn_close_core(conn);
	conn->peer_id = wp.id;
	conn->peer_fc = wp.fc;
	ret = rxm_conn_open_core(conn, info);
	if (ret) {
		if (!conn->core)
			rxm_reject(ep, info, RXM_REJECT_UNSPEC);
		rxm_conn_fail(conn);
		goto out;
	}
	ret = rxm_accept(conn, wp.port);
	if (ret)
		rxm_conn_fail(conn);
out:
	fi_freeinfo(info);
}

/* Read the passive endpoint's events: connection requests. */
static void rxm_pep_events(struct rxm_ep *ep)
{
	struct rxm_cm_event ev;
	struct fi_eq_err_entry err;
	u32 event;
	ssize_t n;

	for (;;) {
		n = fi_eq_read(ep->core_eq, &event, &ev, sizeof(ev), 0);
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (fi_eq_readerr(ep->core_eq, &err, 0) < 0)
				break;
			continue;
		}
		if (n < 0)
			break;
		if (event == FI_CONNREQ && n >= (ssize_t)sizeof(ev.e))
			rxm_connreq(ep, &ev, n - sizeof(ev.e));
		else if (event == FI_CONNREQ)
			fi_freeinfo(ev.e.info);
	}
}

/*
 * Close a connection the work found down, and free it - unless it is a
 * failed attempt whose error waits for the next send (still in the
 * table): that one is kept, closed, as RXM_CONN_FAILED.
 */
static void rxm_conn_reap(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	unsigned long flags;

	rxm_conn_close_core(conn);
	rxm_rndv_conn_gone(conn);
	spin_lock_irqsave(&ep->lock, flags);
	if (conn->keyed && conn->state == RXM_CONN_DOWN &&
	    ep->state == RXM_EP_ENABLED) {
		conn->state = RXM_CONN_FAILED;
		spin_unlock_irqrestore(&ep->lock, flags);
		return;
	}
	rxm_conn_unkey_locked(conn);
	rxm_conn_unlist_locked(conn);
	spin_unlock_irqrestore(&ep->lock, flags);
	kfree(conn);
}

/* The connection after @conn on the list, or NULL.  The work only
 * removes connections, so @conn stays valid while it runs.
 */
static struct rxm_conn *rxm_conn_next(struct rxm_ep *ep,
				      struct rxm_conn *conn)
{
	struct list_head *pos;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	pos = conn ? conn->node.next : ep->conns.next;
	spin_unlock_irqrestore(&ep->lock, flags);
	return pos == &ep->conns ? NULL :
	       list_entry(pos, struct rxm_conn, node);
}

/**
 * rxm_cm_work() - the endpoint's connection management
 * @work: &rxm_ep.cm_work
 *
 * Accepts or rejects connection requests, opens the connections sends
 * asked for, reads each connection's core events and closes the
 * connections that went down.
 *
 * Context: process context (rxm_wq); sleeps.
 */
void rxm_cm_work(struct work_struct *work)
{
	struct rxm_ep *ep = container_of(work, struct rxm_ep, cm_work);
	struct rxm_conn *conn, *next;

	if (READ_ONCE(ep->state) != RXM_EP_ENABLED)
		return;
	rxm_pep_events(ep);
	for (conn = rxm_conn_next(ep, NULL); conn; conn = next) {
		if (READ_ONCE(conn->state) == RXM_CONN_IDLE)
			rxm_conn_connect(conn);
		rxm_conn_events(conn);
		next = rxm_conn_next(ep, conn);
		if (READ_ONCE(conn->state) == RXM_CONN_DOWN)
			rxm_conn_reap(conn);
	}
}

/**
 * rxm_conn_close_all() - close every connection of a closing endpoint
 * @ep: the endpoint, its CM work stopped
 *
 * Context: process context, may sleep.
 */
void rxm_conn_close_all(struct rxm_ep *ep)
{
	struct rxm_conn *conn, *next;

	for (conn = rxm_conn_next(ep, NULL); conn; conn = next) {
		rxm_conn_fail(conn);
		next = rxm_conn_next(ep, conn);
		rxm_conn_reap(conn);
	}
}

/* Complete the receives taken off the match queues with ECANCELED. */
static void rxm_rx_cancel_all(struct rxm_ep *ep, struct list_head *rxs)
{
	struct kofi_match_entry *me, *next;

	list_for_each_entry_safe(me, next, rxs, node) {
		list_del_init(&me->node);
		rxm_rx_cancelled(ep, container_of(me, struct rxm_rx, me));
	}
}

/**
 * rxm_av_removed() - a peer left the endpoint's address vector
 * @watch: &rxm_ep.av_watch
 * @fi_addr: the peer's fi_addr_t, no longer in the AV
 * @addr: the peer's address (unused: its connections know @fi_addr)
 *
 * Ends every connection with the peer: what was in flight on them
 * completes with errors (a rendezvous send waiting for its answer with
 * ECANCELED).  Receives directed to the peer complete with ECANCELED;
 * messages from it that wait as unexpected stay, their source now
 * FI_ADDR_NOTAVAIL.  Sends to @fi_addr answer -EINVAL from now on.
 *
 * Context: process context (fi_av_remove()), the AV's mutex held; does
 * not sleep.
 */
void rxm_av_removed(struct kofi_av_watch *watch, fi_addr_t fi_addr,
		    const struct sockaddr *addr)
{
	struct rxm_ep *ep = container_of(watch, struct rxm_ep, av_watch);
	struct rxm_conn *conn;
	unsigned long flags;
	LIST_HEAD(rxs);

	spin_lock_irqsave(&ep->lock, flags);
	list_for_each_entry(conn, &ep->conns, node) {
		if (conn->fi_addr != fi_addr)
			continue;
		rxm_conn_unkey_locked(conn);
		WRITE_ONCE(conn->fi_addr, FI_ADDR_NOTAVAIL);
		rxm_conn_down_locked(conn, ECANCELED);
	}
	kofi_match_forget(&ep->msgq, fi_addr, &rxs);
	kofi_match_forget(&ep->tagq, fi_addr, &rxs);
	spin_unlock_irqrestore(&ep->lock, flags);
	rxm_rx_cancel_all(ep, &rxs);
}
