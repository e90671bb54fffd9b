// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: receiving segmented messages.
 *
 * libfabric's rxm over verbs sends a message larger than the eager limit
 * and at most its SAR limit (128 KiB by default) as segments: packets of
 * type RXM_SEGMENT, each with the message's size, its own seg_size and
 * seg_no, and one msg_id; bits 0-1 of ctrl_data say first, middle or
 * last.  A connection delivers them in order.
 *
 * The first segment is matched like an eager message of the whole size.
 * Taken at once by a receive, every segment is copied into it as it
 * arrives; the receive completes when the last one is in.  Not taken, the
 * first segment waits as an unexpected message and the segments after it
 * wait with it, each in its bounce buffer (the connection posts more, up
 * to rdm_conn_rx_bufs); a receive that takes it later copies what arrived and
 * goes on as above.  FI_PEEK reports the whole size; FI_DISCARD drops the
 * segments that arrived and those still to come.
 *
 * Over ksocket a segment whose message a receive has taken (or takes, for
 * a first segment) is read straight into its place there: ksocket reads
 * rxm's header ahead and asks rxm_sar_claim(); every other segment comes
 * through a bounce buffer as above.
 *
 * A connection that ends before the last segment arrived ends the
 * message: the receive that has (or later takes) it completes with
 * ECONNRESET.  A segment that does not follow on from the one before it
 * (unknown msg_id, a number out of order, sizes that do not add up) is
 * malformed and ends the connection.
 *
 * Locking: a message's state is under the endpoint's lock; payload is
 * copied without it (each segment to its own place in the receive).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include "rxm.h"

static u8 rxm_seg_pos(const struct rxm_hdr *hdr)
{
	return le64_to_cpu(hdr->ctrl_data) & RXM_SEG_POS_MASK;
}

static size_t rxm_seg_len(const struct rxm_buf *buf)
{
	return buf->len - sizeof(struct rxm_hdr);
}

/* @conn's message @msg_id whose segments are still to come.  Lock held. */
static struct rxm_sar *rxm_sar_find_locked(struct rxm_conn *conn, u64 msg_id)
{
	struct rxm_sar *sar;

	list_for_each_entry(sar, &conn->sars, node)
		if (sar->msg_id == msg_id)
			return sar;
	return NULL;
}

/* The state of the message whose first segment is @hdr (@len bytes). */
static struct rxm_sar *rxm_sar_new(const struct rxm_hdr *hdr, size_t len)
{
	struct rxm_sar *sar = kzalloc(sizeof(*sar), GFP_ATOMIC);

	if (!sar)
		return NULL;
	INIT_LIST_HEAD(&sar->segs);
	sar->msg_id = le64_to_cpu(hdr->msg_id);
	sar->next_seg = 1;
	sar->got = len;
	sar->size = le64_to_cpu(hdr->size);
	sar->hdr = *hdr;
	return sar;
}

/* Segment @hdr (@len bytes, first by its position) can start a message. */
static bool rxm_sar_starts(const struct rxm_hdr *hdr, size_t len)
{
	return !le32_to_cpu(hdr->seg_no) && le64_to_cpu(hdr->size) > len;
}

/* Segment @hdr (@len bytes, not the first) follows on in @sar.  Locked. */
static bool rxm_sar_follows(const struct rxm_sar *sar,
			    const struct rxm_hdr *hdr, size_t len)
{
	if (rxm_seg_pos(hdr) == RXM_SEG_FIRST ||
	    le32_to_cpu(hdr->seg_no) != sar->next_seg ||
	    le64_to_cpu(hdr->size) != sar->size)
		return false;
	if (rxm_seg_pos(hdr) == RXM_SEG_LAST)
		return sar->got + len == sar->size;
	return sar->got + len < sar->size;
}

/* Segment @hdr (@len bytes) arrived in order: account for it.  Locked. */
static size_t rxm_sar_arrived_locked(struct rxm_sar *sar,
				     const struct rxm_hdr *hdr, size_t len)
{
	size_t off = sar->got;

	sar->got += len;
	sar->next_seg++;
	if (rxm_seg_pos(hdr) == RXM_SEG_LAST)
		list_del_init(&sar->node);
	return off;
}

/**
 * rxm_sar_first() - the first segment of a message arrived
 * @conn: its connection
 * @buf: the segment (header checked)
 *
 * Sets up the message's state; the caller then matches @buf as a
 * message of the whole size.
 *
 * Context: the core's completion context; does not sleep.
 * Return: 0; -EPROTO for a first segment that is not one (a number other
 * than 0, a message no larger than it, a msg_id still in use), -ENOMEM.
 */
int rxm_sar_first(struct rxm_conn *conn, struct rxm_buf *buf)
{
	const struct rxm_hdr *hdr = rxm_buf_hdr(buf);
	u64 msg_id = le64_to_cpu(hdr->msg_id);
	struct rxm_ep *ep = conn->ep;
	struct rxm_sar *sar;
	unsigned long flags;
	bool dup;

	if (!rxm_sar_starts(hdr, rxm_seg_len(buf)))
		return -EPROTO;
	sar = rxm_sar_new(hdr, rxm_seg_len(buf));
	if (!sar)
		return -ENOMEM;
	buf->sar = sar;
	buf->seg_off = 0;
	spin_lock_irqsave(&ep->lock, flags);
	dup = rxm_sar_find_locked(conn, msg_id);
	if (!dup)
		list_add_tail(&sar->node, &conn->sars);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (dup) {
		buf->sar = NULL;
		kfree(sar);
		return -EPROTO;
	}
	return 0;
}

/*
 * Bytes of a segment of @len at @off of @sar's message that fit in its
 * receive; those past the receive's room are cut off, counted as placed
 * all the same.  @sar->rx set.
 */
static size_t rxm_sar_fits(const struct rxm_sar *sar, size_t off, size_t len)
{
	size_t room = rxm_rx_room(sar->rx, &sar->me);

	return off < room ? min(len, room - off) : 0;
}

/* Copy segment @buf into @sar's receive; the bytes it accounts for. */
static size_t rxm_sar_copy(struct rxm_sar *sar, const struct rxm_buf *buf)
{
	size_t len = rxm_seg_len(buf);
	size_t n = rxm_sar_fits(sar, buf->seg_off, len);
	struct iov_iter it;

	if (n) {
		kofi_vec_iter(&sar->rx->vec, ITER_DEST, false, &it);
		iov_iter_advance(&it, sar->me.offset + buf->seg_off);
		/* the room is within the receive's vector */
		WARN_ON_ONCE(copy_to_iter(rxm_buf_payload(buf), n, &it) != n);
	}
	return len;
}

/* Complete @sar's receive and free @sar: it is on no list any more. */
static void rxm_sar_end(struct rxm_ep *ep, struct rxm_sar *sar)
{
	struct rxm_rx *rx = sar->rx;
	struct kofi_comp c, cancel;
	int err = sar->err;
	bool end;

	rxm_comp_fill(rx, &sar->me, &sar->hdr, rxm_rx_room(rx, &sar->me), &c);
	end = rxm_rx_placed(ep, rx, &cancel);
	kfree(sar);
	if (err)
		kofi_cq_write_err(kofi_ep_cq(&ep->ep, FI_RECV, NULL), c.op_context,
				  c.flags, err, 0, 0, 0);
	else
		rxm_comp_write(ep, &c);
	if (end)
		rxm_rx_cancel_write(ep, &cancel);
}

/* @n more bytes of @sar are in its receive: complete it when all are. */
static void rxm_sar_placed(struct rxm_ep *ep, struct rxm_sar *sar, size_t n)
{
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&ep->lock, flags);
	sar->placed += n;
	done = sar->placed == sar->size;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (done)
		rxm_sar_end(ep, sar);
}

/**
 * rxm_sar_next() - a segment after the first arrived
 * @conn: its connection
 * @buf: the segment (header checked)
 *
 * Copies it into the receive that took its message, or has it wait with
 * the first segment; a dropped message's segment goes back at once.
 *
 * Context: the core's completion context; does not sleep.
 * Return: 0, or -EPROTO for a segment that does not follow on.
 */
int rxm_sar_next(struct rxm_conn *conn, struct rxm_buf *buf)
{
	const struct rxm_hdr *hdr = rxm_buf_hdr(buf);
	bool last = rxm_seg_pos(hdr) == RXM_SEG_LAST;
	size_t len = rxm_seg_len(buf);
	struct rxm_ep *ep = conn->ep;
	struct rxm_sar *sar;
	unsigned long flags;
	bool drop;

	spin_lock_irqsave(&ep->lock, flags);
	sar = rxm_sar_find_locked(conn, le64_to_cpu(hdr->msg_id));
	if (!sar || !rxm_sar_follows(sar, hdr, len)) {
		spin_unlock_irqrestore(&ep->lock, flags);
		return -EPROTO;
	}
	buf->sar = sar;
	buf->seg_off = rxm_sar_arrived_locked(sar, hdr, len);
	drop = sar->discard;
	if (!drop && !sar->rx) {
		buf->held = true;
		list_add_tail(&buf->node, &sar->segs);
		spin_unlock_irqrestore(&ep->lock, flags);
		rxm_buf_grow(conn);
		return 0;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (drop) {
		rxm_buf_recycle(buf);
		if (last)
			kfree(sar);
		return 0;
	}
	len = rxm_sar_copy(sar, buf);
	rxm_buf_recycle(buf);
	rxm_sar_placed(ep, sar, len);
	return 0;
}

/*
 * Segment @len bytes at @off of @sar's message goes straight to its place
 * in @sar's receive (cut to the receive's room): @d, with the connection's
 * rxm_trx accounting for it.  Lock held.
 */
static void rxm_sar_dest_locked(struct rxm_conn *conn, struct rxm_sar *sar,
				size_t off, size_t len,
				struct fi_tagged_dest *d)
{
	struct rxm_trx *t = &conn->trx;

	t->sar = sar;
	t->seg_len = len;
	rxm_vec_slice(&sar->rx->vec, sar->me.offset + off,
		      rxm_sar_fits(sar, off, len), &t->dst);
	rxm_trx_dest(t, d);
}

/**
 * rxm_sar_claim() - the core read a segment's header ahead
 * @conn: its connection
 * @hdr: the segment's header (rxm_hdr_check() passed)
 * @len: its payload
 * @d: where the core is to put the payload
 *
 * A first segment that a posted receive takes, or a later one whose
 * message a receive has taken, goes straight there; its completion comes
 * to rxm_sar_claimed().  Any other goes to a bounce buffer
 * (rxm_sar_first(), rxm_sar_next()), which also finds what is malformed.
 *
 * Context: the core's receive context; does not sleep.
 * Return: 0 with @d filled in, or FI_TAGGED_RX_POSTED.
 */
int rxm_sar_claim(struct rxm_conn *conn, const struct rxm_hdr *hdr,
		  size_t len, struct fi_tagged_dest *d)
{
	struct rxm_ep *ep = conn->ep;
	struct kofi_match_entry msg = {
		.addr = READ_ONCE(conn->fi_addr),
		.tag = le64_to_cpu(hdr->tag),
		.len = le64_to_cpu(hdr->size),
	};
	u64 msg_id = le64_to_cpu(hdr->msg_id);
	struct rxm_sar *sar, *new = NULL;
	struct kofi_match_entry *me;
	unsigned long flags;
	int ret = FI_TAGGED_RX_POSTED;

	if (rxm_seg_pos(hdr) == RXM_SEG_FIRST) {
		if (!rxm_sar_starts(hdr, len))
			return ret;
		new = rxm_sar_new(hdr, len);
		if (!new)
			return ret;
	}
	spin_lock_irqsave(&ep->lock, flags);
	sar = rxm_sar_find_locked(conn, msg_id);
	if (new) {
		me = sar ? NULL :
		     kofi_match_find(hdr->op == RXM_OP_TAGGED ? &ep->tagq :
				     &ep->msgq, &msg);
		if (me) {
			sar = new;
			new = NULL;
			sar->rx = container_of(me, struct rxm_rx, me);
			sar->me = msg;
			rxm_rx_busy_locked(sar->rx, &msg);
			list_add_tail(&sar->node, &conn->sars);
			rxm_sar_dest_locked(conn, sar, 0, len, d);
			ret = 0;
		}
	} else if (sar && sar->rx && !sar->discard &&
		   rxm_sar_follows(sar, hdr, len)) {
		rxm_sar_dest_locked(conn, sar,
				    rxm_sar_arrived_locked(sar, hdr, len), len,
				    d);
		ret = 0;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	kfree(new);
	return ret;
}

/**
 * rxm_sar_claimed() - the core placed a segment rxm_sar_claim() claimed
 * @ep: the endpoint
 * @sar: the segment's message
 * @len: the segment's payload
 * @err: 0 (or EMSGSIZE: cut to the receive), or why it was not placed
 *	(its connection ended): the message ends with ECONNRESET
 *
 * Context: the core's completion context; no rxm lock held.
 */
void rxm_sar_claimed(struct rxm_ep *ep, struct rxm_sar *sar, size_t len,
		     int err)
{
	unsigned long flags;

	if (err && err != EMSGSIZE) {
		spin_lock_irqsave(&ep->lock, flags);
		sar->err = ECONNRESET;
		spin_unlock_irqrestore(&ep->lock, flags);
	}
	rxm_sar_placed(ep, sar, len);
}

/*
 * Recycle the segments @segs taken off @sar, copying each into @sar's
 * receive first if @copy; the bytes copied (or cut off).
 */
static size_t rxm_sar_drain(struct rxm_sar *sar, struct list_head *segs,
			    bool copy)
{
	struct rxm_buf *buf, *next;
	size_t n = 0;

	list_for_each_entry_safe(buf, next, segs, node) {
		list_del_init(&buf->node);
		if (copy)
			n += rxm_sar_copy(sar, buf);
		rxm_buf_recycle(buf);
	}
	return n;
}

/**
 * rxm_sar_deliver() - a receive took a segmented message
 * @ep: the endpoint
 * @rx: the receive
 * @first: the message's first segment, its match entry filled in
 *
 * Copies the segments that arrived; the rest go straight to @rx.
 *
 * Context: any context; no rxm lock held.
 */
void rxm_sar_deliver(struct rxm_ep *ep, struct rxm_rx *rx,
		     struct rxm_buf *first)
{
	struct rxm_sar *sar = first->sar;
	unsigned long flags;
	LIST_HEAD(segs);
	size_t n;

	spin_lock_irqsave(&ep->lock, flags);
	sar->me = first->me;
	sar->rx = rx;
	list_splice_init(&sar->segs, &segs);
	spin_unlock_irqrestore(&ep->lock, flags);
	n = rxm_sar_copy(sar, first);
	rxm_buf_recycle(first);
	n += rxm_sar_drain(sar, &segs, true);
	rxm_sar_placed(ep, sar, n);
}

/**
 * rxm_sar_discard() - FI_DISCARD took a segmented message
 * @ep: the endpoint
 * @first: its first segment (the caller recycles it)
 *
 * Drops the segments that arrived; those still to come are dropped as
 * they arrive.
 *
 * Context: any context; no rxm lock held.
 */
void rxm_sar_discard(struct rxm_ep *ep, struct rxm_buf *first)
{
	struct rxm_sar *sar = first->sar;
	unsigned long flags;
	LIST_HEAD(segs);
	bool arrived;

	spin_lock_irqsave(&ep->lock, flags);
	sar->discard = true;
	list_splice_init(&sar->segs, &segs);
	/* off its connection's list: nothing more comes */
	arrived = list_empty(&sar->node);
	spin_unlock_irqrestore(&ep->lock, flags);
	rxm_sar_drain(sar, &segs, false);
	if (arrived)
		kfree(sar);
}

/**
 * rxm_sar_free() - free a segmented message nobody took
 * @first: its first segment, off every queue (freed too)
 *
 * For an endpoint that closes: every connection is closed, the segments
 * are no connection's any more.
 *
 * Context: any context.
 */
void rxm_sar_free(struct rxm_buf *first)
{
	struct rxm_sar *sar = first->sar;
	struct rxm_buf *buf, *next;

	list_for_each_entry_safe(buf, next, &sar->segs, node) {
		list_del_init(&buf->node);
		rxm_buf_free(buf);
	}
	kfree(sar);
	rxm_buf_free(first);
}

/**
 * rxm_sar_conn_gone_locked() - a connection closes
 * @conn: the connection, its core endpoint closed
 * @ended: messages whose receives are to complete now (rxm_sar_ended())
 *
 * Its messages whose last segment never came are cut to what arrived and
 * end with ECONNRESET: now if their receive has all of it, else once it
 * does (a message nobody took yet waits on: the receive that takes it
 * gets the error).  A dropped one is freed.
 *
 * Context: the endpoint's lock held.
 */
void rxm_sar_conn_gone_locked(struct rxm_conn *conn, struct list_head *ended)
{
	struct rxm_sar *sar, *next;

	list_for_each_entry_safe(sar, next, &conn->sars, node) {
		list_del_init(&sar->node);
		if (sar->discard) {
			kfree(sar);
			continue;
		}
		sar->err = ECONNRESET;
		sar->size = sar->got;
		if (sar->rx && sar->placed == sar->size)
			list_add_tail(&sar->node, ended);
	}
}

/**
 * rxm_sar_ended() - complete what rxm_sar_conn_gone_locked() ended
 * @ep: the endpoint
 * @ended: the messages
 *
 * Context: any context; no rxm lock held.
 */
void rxm_sar_ended(struct rxm_ep *ep, struct list_head *ended)
{
	struct rxm_sar *sar, *next;

	list_for_each_entry_safe(sar, next, ended, node) {
		list_del_init(&sar->node);
		rxm_sar_end(ep, sar);
	}
}
