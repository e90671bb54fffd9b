// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: sending segmented messages.
 *
 * Over a core that paces its sends itself (ksocket: TCP), a message
 * larger than the eager limit and at most rxm_sar_limit goes as segments
 * (rxm_sar.c has the format): packets of RXM_SEGMENT, each with the
 * message's size, one msg_id, its own number, seg_size and position, and
 * at most the eager limit of payload straight from the caller's vector.
 * No round trip: the receiver copies each segment into the receive that
 * took the first one.  libfabric's rxm takes segments over tcp too (into
 * its bounce buffers), although it sends rendezvous there itself.  Over
 * ib_verbs, whose connections count credits per packet, rendezvous stays.
 *
 * The segments are posted in order, in the sender's call.  The first one
 * refused by the core fails the call (nothing went); a later one the core
 * has no room for waits for room (rxm_room.c) with the rest behind it;
 * any other failure ends the connection (the peer would wait for the
 * message's end forever).  The send completes when every posted
 * segment's core send has, with the first error among them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/slab.h>
#include "rxm.h"

/**
 * struct rxm_seg - one segment in flight
 * @hdr: its header (first: 64-byte aligned in the allocation)
 * @cqe: its core send's context
 * @segs: the message
 */
struct rxm_seg {
	struct rxm_hdr hdr;
	struct fi_cqe cqe;
	struct rxm_segs *segs;
} __aligned(64);

/**
 * struct rxm_segs - a segmented send
 * @tx: the ULP's send
 * @count: segments
 * @next: the first segment not posted yet
 * @pending: segments in flight, and one while posting goes on
 * @err: the first error (positive errno)
 * @flags: FI_DELIVERY_COMPLETE if the ULP asked for it
 * @seg: the segments
 */
struct rxm_segs {
	struct rxm_tx *tx;
	u64 flags;
	unsigned int count;
	unsigned int next;
	atomic_t pending;
	int err;
	struct rxm_seg seg[] __aligned(64);
};

/**
 * rxm_sar_sends() - does a message go as segments?
 * @ep: the endpoint
 * @conn: the connection it goes on
 * @len: its payload bytes
 *
 * Context: any context.
 * Return: true if rxm_sar_send() sends it.
 */
bool rxm_sar_sends(const struct rxm_ep *ep, const struct rxm_conn *conn,
		   size_t len)
{
	return !ep->net && !ep->flow_ctrl && !READ_ONCE(conn->fc) &&
	       len > RXM_EAGER_LIMIT && len <= READ_ONCE(rxm_sar_limit) &&
	       len <= RXM_MAX_SEGMENTS * RXM_EAGER_LIMIT;
}

/* The send completes: its segments are done and none is to be posted. */
static void rxm_segs_put(struct rxm_segs *segs)
{
	struct rxm_tx *tx = segs->tx;
	struct rxm_ep *ep = tx->ep;
	void *context = tx->context;
	u64 flags = tx->flags;
	size_t len = tx->len;
	int err = segs->err;
	struct fid_cq *cq;

	if (!atomic_dec_and_test(&segs->pending))
		return;
	kfree(segs);
	/* the entry is free again before the ULP may post from its done() */
	rxm_tx_free(ep, tx);
	cq = kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL);
	if (err)
		kofi_cq_write_err(cq, context, flags, err, 0, 0, 0);
	else
		kofi_cq_write(cq, context, flags, len, NULL, 0);
}

/* A segment's core send completed. */
static void rxm_seg_done(struct fid_cq *cq, struct fi_cqe *cqe,
			 const struct fi_cq_err_entry *comp)
{
	struct rxm_seg *seg = container_of(cqe, struct rxm_seg, cqe);
	struct rxm_segs *segs = seg->segs;

	if (comp->err)
		cmpxchg(&segs->err, 0, comp->err);
	rxm_segs_put(segs);
}

/* Post segment @i of @segs on @conn's core. */
static int rxm_seg_post(struct rxm_conn *conn, struct rxm_segs *segs,
			unsigned int i, u64 sleep)
{
	struct rxm_tx *tx = segs->tx;
	struct rxm_seg *seg = &segs->seg[i];
	struct kofi_vec pay = tx->vec, part, v;
	struct fi_msg cm = {
		.addr = FI_ADDR_UNSPEC,
		.context = &seg->cqe,
	};
	int ret;

	pay.first = 1;
	rxm_vec_slice(&pay, (size_t)i * RXM_EAGER_LIMIT, RXM_EAGER_LIMIT,
		      &part);
	v.type = part.type;
	v.first = 1;
	v.count = part.count + 1;
	v.len = part.len;
	if (part.type == FI_IOV_BVEC)
		memcpy(&v.bv[1], part.bv, part.count * sizeof(part.bv[0]));
	else
		memcpy(&v.kv[1], part.kv, part.count * sizeof(part.kv[0]));
	kofi_vec_hdr(&v, &seg->hdr, sizeof(seg->hdr));
	cm.iov_type = v.type;
	cm.iov_count = v.count;
	if (v.type == FI_IOV_BVEC)
		cm.msg_bvec = v.bv;
	else
		cm.msg_iov = v.kv;
	atomic_inc(&segs->pending);
	ret = fi_sendmsg(conn->core, &cm, FI_COMPLETION | sleep | segs->flags);
	if (ret)
		atomic_dec(&segs->pending);
	return ret;
}

static void rxm_segs_repost(struct rxm_room *r);
static void rxm_segs_gone(struct rxm_room *r);

/*
 * Post @segs's segments from segs->next on.  Return: 0 (all posted, or
 * the rest waits for room, or the connection ends), or the core's error
 * if it refused the first segment (nothing is posted).
 */
static int rxm_segs_post(struct rxm_conn *conn, struct rxm_segs *segs,
			 u64 sleep)
{
	struct rxm_tx *tx = segs->tx;
	int ret = 0;

	for (; segs->next < segs->count; segs->next++) {
		ret = rxm_seg_post(conn, segs, segs->next, sleep);
		if (ret)
			break;
	}
	if (!ret) {
		rxm_segs_put(segs);
		return 0;
	}
	if (!segs->next)
		return ret;
	if (ret == -EAGAIN) {
		tx->room.conn = conn;
		tx->room.post = rxm_segs_repost;
		tx->room.gone = rxm_segs_gone;
		rxm_room_wait(&tx->room);
		return 0;
	}
	cmpxchg(&segs->err, 0, -ret);
	rxm_conn_fail_err(conn, -ret);
	rxm_segs_put(segs);
	return 0;
}

/* Room came: post the rest.  Process context, the connection held. */
static void rxm_segs_repost(struct rxm_room *r)
{
	struct rxm_tx *tx = container_of(r, struct rxm_tx, room);

	rxm_segs_post(r->conn, tx->segs, FI_MAY_SLEEP);
}

/* The connection ended while the rest waited. */
static void rxm_segs_gone(struct rxm_room *r)
{
	struct rxm_tx *tx = container_of(r, struct rxm_tx, room);
	struct rxm_segs *segs = tx->segs;

	cmpxchg(&segs->err, 0, r->conn->err ? r->conn->err : ECONNRESET);
	rxm_segs_put(segs);
}

/**
 * rxm_sar_send() - send a message as segments
 * @ep: the endpoint
 * @conn: the connection, held by the caller
 * @tx: the send, its header filled in as for an eager packet and its
 *	vector with the header entry in front; rxm_sar_sends() said yes
 * @flags: the call's flags: FI_DELIVERY_COMPLETE, and FI_MAY_SLEEP if the
 *	caller may sleep (rxm_sleep_flag())
 *
 * Context: any context; does not sleep unless @flags says so.
 * Return: 0 (the send is the segments' now: it completes once they are
 * done, also with an error), -ENOMEM, or the core's error for the first
 * segment (then nothing went and @tx is still the caller's).
 */
int rxm_sar_send(struct rxm_ep *ep, struct rxm_conn *conn, struct rxm_tx *tx,
		 u64 flags)
{
	unsigned int i, n = DIV_ROUND_UP(tx->len, RXM_EAGER_LIMIT);
	u64 msg_id = atomic64_inc_return(&ep->sar_msg_id);
	struct rxm_segs *segs;
	int ret;

	/* a power-of-two size is aligned to it: no header crosses a page */
	segs = kzalloc(roundup_pow_of_two(struct_size(segs, seg, n)),
		       GFP_ATOMIC);
	if (!segs)
		return -ENOMEM;
	segs->tx = tx;
	segs->flags = flags & FI_DELIVERY_COMPLETE;
	segs->count = n;
	atomic_set(&segs->pending, 1);
	for (i = 0; i < n; i++) {
		struct rxm_seg *seg = &segs->seg[i];
		size_t off = (size_t)i * RXM_EAGER_LIMIT;
		u8 pos = !i ? RXM_SEG_FIRST : i == n - 1 ? RXM_SEG_LAST :
			 RXM_SEG_MIDDLE;

		seg->hdr = tx->hdr;
		seg->hdr.type = RXM_SEGMENT;
		seg->hdr.msg_id = cpu_to_le64(msg_id);
		seg->hdr.seg_size = cpu_to_le16(min_t(size_t, tx->len - off,
						      RXM_EAGER_LIMIT));
		seg->hdr.seg_no = cpu_to_le32(i);
		seg->hdr.ctrl_data = cpu_to_le64(pos);
		seg->cqe.done = rxm_seg_done;
		seg->segs = segs;
	}
	tx->segs = segs;
	ret = rxm_segs_post(conn, segs, flags & FI_MAY_SLEEP);
	if (ret) {
		tx->segs = NULL;
		kfree(segs);
	}
	return ret;
}
