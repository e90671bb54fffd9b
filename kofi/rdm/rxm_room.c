// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: operations waiting for room in their connection's core.
 *
 * An operation rxm posts on its own - a rendezvous read, a read-done
 * answer, a credit grant, a rendezvous request the endpoint's work posts
 * - that the core answers -EAGAIN (its send queue full; on iWARP its read
 * sinks taken) waits on the endpoint's room_wait and is posted again a
 * jiffy later by the delayed work room_retry, until its connection ends.
 * While anything of a connection waits, the ULP's sends and RMA to that
 * peer answer -EAGAIN (rxm_conn_get()), so that what waits goes first.
 *
 * room_wait and the connections' counts of waiting operations are under
 * the endpoint's lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "rxm.h"

/**
 * rxm_room_wait() - have an operation wait for room in its core
 * @r: the operation's waiting entry, @r->conn, @r->post and @r->gone set
 *
 * Context: any context; does not sleep.
 */
void rxm_room_wait(struct rxm_room *r)
{
	struct rxm_ep *ep = r->conn->ep;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	list_add_tail(&r->node, &ep->room_wait);
	r->conn->nwait++;
	spin_unlock_irqrestore(&ep->lock, flags);
	queue_delayed_work(rxm_wq, &ep->room_retry, 1);
}

/**
 * rxm_room_retry() - post again what waited for room
 * @work: &rxm_ep.room_retry.work
 *
 * The operations of connections still up are posted again in the order
 * they came (each waits again if the core is still full); those of a
 * connection going down are left to rxm_room_conn_gone().
 *
 * Context: process context (rxm_wq).
 */
void rxm_room_retry(struct work_struct *work)
{
	struct rxm_ep *ep = container_of(to_delayed_work(work), struct rxm_ep,
					 room_retry);
	struct rxm_room *r, *next;
	unsigned long flags;
	LIST_HEAD(go);

	spin_lock_irqsave(&ep->lock, flags);
	list_for_each_entry_safe(r, next, &ep->room_wait, node)
		if (rxm_conn_hold_locked(r->conn))
			list_move_tail(&r->node, &go);
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(r, next, &go, node) {
		struct rxm_conn *conn = r->conn;

		list_del_init(&r->node);
		r->post(r);
		spin_lock_irqsave(&ep->lock, flags);
		conn->nwait--;
		spin_unlock_irqrestore(&ep->lock, flags);
		rxm_conn_put(conn);
	}
}

/**
 * rxm_room_conn_gone() - end what waited for room on a closed connection
 * @conn: the connection, its core closed
 *
 * Context: process context (the CM work, or fi_close()).
 */
void rxm_room_conn_gone(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	struct rxm_room *r, *next;
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&ep->lock, flags);
	list_for_each_entry_safe(r, next, &ep->room_wait, node)
		if (r->conn == conn)
			list_move_tail(&r->node, &gone);
	conn->nwait = 0;
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(r, next, &gone, node) {
		list_del_init(&r->node);
		r->gone(r);
	}
}
