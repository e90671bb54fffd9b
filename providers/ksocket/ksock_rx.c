// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ksocket provider: the receive engine.
 *
 * It runs wherever the socket's lock is held: in the socket's data-ready
 * callback (softirq, under bh_lock_sock(), or process context when
 * release_sock() replays the backlog), and under lock_sock() in the
 * endpoint's work or in a data call that posts a receive the engine waits
 * for.  It takes the received bytes straight from the socket's queue with
 * tcp_read_sock() and never sleeps.
 *
 * It reads one frame at a time: the 16-byte base header, then the rest of
 * the header (hdr_size), which it checks in full before acting on it; then
 * the payload, copied once, straight into its destination (the posted
 * receive, the registered region of an RMA write, the buffer of a read).
 * A message waits for a posted receive: until one is posted the engine
 * stops reading and TCP pushes back on the sender; posting it resumes the
 * engine (ksock_rx_resume()).
 *
 * A tagged message (op 0 with KSOCK_FLAG_TAGGED and a tag after the CQ
 * data, as libfabric's tcp sends them for its rxm) is taken only on an
 * endpoint whose owner set FI_OPT_TAGGED_RX: once its header is read the
 * engine asks the owner's claim() where the payload goes - a vector of
 * the owner's (read there with the endpoint's spare receive request), the
 * next posted receive, or nowhere yet: the engine then stops as for a
 * missing receive, until the owner's FI_TAGGED_RX_RETRY.  Over libfabric's
 * net wire (the owner's FI_TAGGED_RX_OP) a tagged message is op 1 instead,
 * and with FI_TAGGED_RX_MSG the owner claims untagged messages too.  An
 * owner with a header of its own (fi_tagged_rx.hdr_len) claims untagged
 * messages once that many bytes of their payload are read ahead; if it
 * sends one to the next posted receive, those bytes go there first.
 *
 * Anything malformed - wrong version, unknown op, a hdr_size that does not
 * match the header's contents, too many rma_iovs, a size smaller than the
 * header or larger than the largest message, an ACK or read response
 * nobody waits for, an RMA request the key table refuses - ends the
 * connection: an EQ error entry (EPROTO, EIO for an unknown op, or the key
 * table's ENOKEY / EACCES / ERANGE), FI_SHUTDOWN, and every outstanding
 * operation completes with ECANCELED.  Nothing of a refused RMA write is
 * written.  End of stream in the middle of a frame is ECONNRESET; at a
 * frame boundary it is an orderly FI_SHUTDOWN.  The engine stops at once
 * and records the end (ksock_ep_fail()); the endpoint's work reports it.
 */
#include <net/tcp.h>
#include "ksock.h"

/* Why a frame was refused, reported as the EQ entry's prov_errno. */
enum ksock_rx_err {
	KSOCK_RXE_VERSION = 1,
	KSOCK_RXE_OP,
	KSOCK_RXE_HDR_SIZE,
	KSOCK_RXE_RMA_CNT,
	KSOCK_RXE_SIZE,
	KSOCK_RXE_FLAGS,
	KSOCK_RXE_ACK,
	KSOCK_RXE_READ_RSP,
	KSOCK_RXE_RMA,
	KSOCK_RXE_CLAIM,
};

/* The connection ended: read nothing more, let the work report it. */
static void ksock_rx_end(struct ksock_ep *ep, int err, int why)
{
	ep->rx.state = KSOCK_RX_END;
	ep->rx.stopped = true;
	ksock_ep_fail(ep, err, why);
}

static int ksock_rx_bad(struct ksock_ep *ep, int err, enum ksock_rx_err why)
{
	pr_debug("ksocket: malformed frame (%d), connection ended\n", why);
	ksock_rx_end(ep, err, why);
	return -1;
}

static bool ksock_rx_is_ack(const struct ksock_base_hdr *hdr)
{
	return hdr->op == KSOCK_OP_MSG && hdr->op_data == KSOCK_OP_DATA_ACK;
}

/*
 * Over the net wire (FI_TAGGED_RX_OP) a tagged message is op 1, without
 * KSOCK_FLAG_TAGGED: the engine reads it as the tagged op 0 it knows.
 */
static void ksock_rx_net_tagged(struct ksock_ep *ep)
{
	struct ksock_base_hdr *hdr = &ep->rx.hdr.base;
	u16 flags = ksock_from_wire16(ep->bswap, hdr->flags);

	if (hdr->op != KSOCK_OP_TAGGED || !(ep->trx.flags & FI_TAGGED_RX_OP) ||
	    (flags & KSOCK_FLAG_TAGGED) || hdr->op_data)
		return;
	hdr->op = KSOCK_OP_MSG;
	hdr->flags = ksock_to_wire16(ep->bswap, flags | KSOCK_FLAG_TAGGED);
}

/* Check the base header; on success *@need is the full header size. */
static int ksock_rx_check_base(struct ksock_ep *ep, u32 *need)
{
	const struct ksock_base_hdr *hdr = &ep->rx.hdr.base;
	u16 flags;
	u64 size = ksock_from_wire64(ep->bswap, hdr->size);
	bool tagged;
	size_t expect;

	if (hdr->version != KSOCK_PROTO_VERSION)
		return ksock_rx_bad(ep, EPROTO, KSOCK_RXE_VERSION);
	ksock_rx_net_tagged(ep);
	flags = ksock_from_wire16(ep->bswap, hdr->flags);
	tagged = flags & KSOCK_FLAG_TAGGED;
	if (hdr->op > KSOCK_OP_MAX)
		return ksock_rx_bad(ep, EIO, KSOCK_RXE_OP);
	/*
	 * A message carries no RMA segments: after an RMA, libfabric's tcp
	 * leaves the count of its last one in its message headers, which
	 * their hdr_size does not count.
	 */
	if (hdr->op == KSOCK_OP_MSG)
		ep->rx.hdr.base.rma_iov_cnt = 0;
	/* op 1 only over the net wire (above); tagged op 0 for an owner */
	if (hdr->op == KSOCK_OP_TAGGED ||
	    (tagged && (hdr->op != KSOCK_OP_MSG || ksock_rx_is_ack(hdr) ||
			!ep->trx.claim)))
		return ksock_rx_bad(ep, EPROTO, KSOCK_RXE_OP);
	if (hdr->rma_iov_cnt > KSOCK_RMA_IOV_MAX)
		return ksock_rx_bad(ep, EPROTO, KSOCK_RXE_RMA_CNT);
	if (flags & ~(KSOCK_FLAG_CQ_DATA | KSOCK_FLAG_DELIVERY_COMPLETE |
		      KSOCK_FLAG_COMMIT_COMPLETE | KSOCK_FLAG_TAGGED))
		return ksock_rx_bad(ep, EPROTO, KSOCK_RXE_FLAGS);

	if (ksock_rx_is_ack(hdr) || hdr->op == KSOCK_OP_READ_RSP) {
		expect = sizeof(*hdr);
	} else {
		expect = sizeof(*hdr) +
			 hdr->rma_iov_cnt * sizeof(struct ksock_rma_iov);
		if (flags & KSOCK_FLAG_CQ_DATA)
			expect += sizeof(u64);
		if (tagged)
			expect += sizeof(u64);
	}
	if (hdr->hdr_size != expect || hdr->hdr_size > KSOCK_HDR_MAX)
		return ksock_rx_bad(ep, EPROTO, KSOCK_RXE_HDR_SIZE);

	switch (hdr->op) {
	case KSOCK_OP_WRITE:
	case KSOCK_OP_READ_REQ:
		if (!hdr->rma_iov_cnt)
			return ksock_rx_bad(ep, EPROTO, KSOCK_RXE_RMA_CNT);
		break;
	}
	if (size < hdr->hdr_size ||
	    size - hdr->hdr_size > KSOCK_MAX_MSG_SIZE ||
	    (ksock_rx_is_ack(hdr) && size != hdr->hdr_size) ||
	    (hdr->op == KSOCK_OP_READ_REQ && size != hdr->hdr_size))
		return ksock_rx_bad(ep, EPROTO, KSOCK_RXE_SIZE);
	*need = hdr->hdr_size;
	return 0;
}

/* Next u64 of the header, wire order; advances @p. */
static u64 ksock_get64(const u8 **p)
{
	u64 v;

	memcpy(&v, *p, sizeof(v));
	*p += sizeof(v);
	return v;
}

/* Decode the optional header parts into ep->rx (host order). */
static void ksock_rx_decode(struct ksock_ep *ep)
{
	struct ksock_rx *rx = &ep->rx;
	const u8 *p = rx->hdr.raw + sizeof(rx->hdr.base);
	u16 flags = ksock_from_wire16(ep->bswap, rx->hdr.base.flags);
	unsigned int i;

	rx->cq_data = 0;
	rx->tag = 0;
	if (ksock_rx_is_ack(&rx->hdr.base) ||
	    rx->hdr.base.op == KSOCK_OP_READ_RSP)
		return;
	if (flags & KSOCK_FLAG_CQ_DATA)
		rx->cq_data = ksock_from_wire64(ep->bswap, ksock_get64(&p));
	if (flags & KSOCK_FLAG_TAGGED)
		rx->tag = ksock_from_wire64(ep->bswap, ksock_get64(&p));
	for (i = 0; i < rx->hdr.base.rma_iov_cnt; i++) {
		rx->rma[i].addr = ksock_from_wire64(ep->bswap,
						    ksock_get64(&p));
		rx->rma[i].len = ksock_from_wire64(ep->bswap,
						   ksock_get64(&p));
		rx->rma[i].key = ksock_from_wire64(ep->bswap,
						   ksock_get64(&p));
	}
}

static u16 ksock_rx_flags(struct ksock_ep *ep)
{
	return ksock_from_wire16(ep->bswap, ep->rx.hdr.base.flags);
}

static u64 ksock_rx_payload(struct ksock_ep *ep)
{
	return ksock_from_wire64(ep->bswap, ep->rx.hdr.base.size) -
	       ep->rx.hdr.base.hdr_size;
}

static void ksock_rx_next(struct ksock_ep *ep)
{
	struct ksock_rx *rx = &ep->rx;

	rx->state = KSOCK_RX_HDR;
	rx->got = 0;
	rx->need = sizeof(struct ksock_base_hdr);
	rx->req = NULL;
	rx->nseg = 0;
	rx->seg = 0;
	rx->left = 0;
	rx->discard = 0;
	rx->done = 0;
	rx->peeked = 0;
	rx->skipped = 0;
	rx->ack = false;
}

static void ksock_rx_queue_ack(struct ksock_ep *ep)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	ep->acks++;
	ksock_ep_kick(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
}

static void ksock_rx_put_keys(struct ksock_rx *rx)
{
	unsigned int i;

	for (i = 0; i < KSOCK_RMA_IOV_MAX; i++) {
		if (rx->ke[i])
			kofi_key_entry_put(rx->ke[i]);
		rx->ke[i] = NULL;
	}
}

/* Pop the head of a wait list (ack_wait, read_wait). */
static struct ksock_req *ksock_rx_pop(struct ksock_ep *ep,
				      struct list_head *list)
{
	struct ksock_req *req;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	req = list_first_entry_or_null(list, struct ksock_req, node);
	if (req)
		list_del_init(&req->node);
	spin_unlock_irqrestore(&ep->lock, flags);
	return req;
}

/* A frame's header is complete: decide what to do with it. */
static int ksock_rx_start(struct ksock_ep *ep)
{
	struct ksock_rx *rx = &ep->rx;
	struct ksock_base_hdr *hdr = &rx->hdr.base;
	struct ksock_req *req;
	u64 payload = ksock_rx_payload(ep);
	u64 total = 0;
	int ret;

	ksock_rx_decode(ep);
	ksock_dbg("ep %p rx op %u op_data %u flags %x size %llu\n", ep,
		  hdr->op, hdr->op_data, ksock_rx_flags(ep), payload);
	rx->ack = !!(ksock_rx_flags(ep) & (KSOCK_FLAG_DELIVERY_COMPLETE |
					   KSOCK_FLAG_COMMIT_COMPLETE));
	if (ksock_rx_is_ack(hdr)) {
		req = ksock_rx_pop(ep, &ep->ack_wait);
		if (!req)
			return ksock_rx_bad(ep, EPROTO, KSOCK_RXE_ACK);
		ksock_req_answered(ep, req);
		ksock_rx_next(ep);
		return 0;
	}
	switch (hdr->op) {
	case KSOCK_OP_MSG:
		rx->left = payload;
		if ((ksock_rx_flags(ep) & KSOCK_FLAG_TAGGED) ||
		    (ep->trx.flags & FI_TAGGED_RX_MSG))
			rx->state = KSOCK_RX_CLAIM;
		else if (ep->trx.hdr_len && payload >= ep->trx.hdr_len)
			rx->state = KSOCK_RX_PEEK;
		else
			rx->state = KSOCK_RX_WAIT;
		return 0;
	case KSOCK_OP_WRITE:
		ret = ksock_rma_target(ep, rx->rma, hdr->rma_iov_cnt,
				       FI_REMOTE_WRITE, rx->ke, rx->iter,
				       ITER_DEST, &total);
		if (ret)
			return ksock_rx_bad(ep, -ret, KSOCK_RXE_RMA);
		if (total != payload)
			return ksock_rx_bad(ep, EPROTO, KSOCK_RXE_SIZE);
		rx->nseg = hdr->rma_iov_cnt;
		rx->left = payload;
		if (ksock_rx_flags(ep) & KSOCK_FLAG_CQ_DATA)
			rx->state = KSOCK_RX_WAIT;
		else
			rx->state = KSOCK_RX_DATA;
		return 0;
	case KSOCK_OP_READ_REQ:
		ret = ksock_rma_target(ep, rx->rma, hdr->rma_iov_cnt,
				       FI_REMOTE_READ, rx->ke, rx->iter,
				       ITER_SOURCE, &total);
		if (ret)
			return ksock_rx_bad(ep, -ret, KSOCK_RXE_RMA);
		if (total > KSOCK_MAX_MSG_SIZE)
			return ksock_rx_bad(ep, EPROTO, KSOCK_RXE_SIZE);
		rx->nseg = hdr->rma_iov_cnt;
		rx->left = total;
		rx->state = KSOCK_RX_WAIT;
		return 0;
	case KSOCK_OP_READ_RSP:
		req = ksock_rx_pop(ep, &ep->read_wait);
		if (!req)
			return ksock_rx_bad(ep, EPROTO, KSOCK_RXE_READ_RSP);
		rx->req = req;
		if (payload != req->len)
			return ksock_rx_bad(ep, EPROTO, KSOCK_RXE_SIZE);
		rx->iter[0] = req->iter[0];
		iov_iter_truncate(&rx->iter[0], payload);
		rx->nseg = 1;
		rx->left = payload;
		rx->state = KSOCK_RX_DATA;
		return 0;
	default:
		return ksock_rx_bad(ep, EIO, KSOCK_RXE_OP);
	}
}

/* Answer a read request: hand the checked regions to a response. */
static void ksock_rx_respond(struct ksock_ep *ep, struct ksock_req *rsp)
{
	struct ksock_rx *rx = &ep->rx;
	struct ksock_base_hdr *hdr = (struct ksock_base_hdr *)rsp->hdr;
	unsigned long flags;
	unsigned int i;

	*hdr = rx->hdr.base;
	hdr->op = KSOCK_OP_READ_RSP;
	hdr->flags = 0;
	hdr->rma_iov_cnt = 0;
	hdr->hdr_size = sizeof(*hdr);
	hdr->size = ksock_to_wire64(ep->bswap, sizeof(*hdr) + rx->left);
	rsp->hdr_len = sizeof(*hdr);
	rsp->hdr_sent = 0;
	rsp->len = rx->left;
	rsp->nseg = rx->nseg;
	rsp->seg = 0;
	for (i = 0; i < rx->nseg; i++) {
		rsp->iter[i] = rx->iter[i];
		rsp->ke[i] = rx->ke[i];
		rx->ke[i] = NULL;
	}
	spin_lock_irqsave(&ep->lock, flags);
	list_add_tail(&rsp->node, &ep->tx_queue);
	ksock_ep_kick(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/*
 * Read the message of the frame into @req; drop what does not fit.  The
 * bytes read ahead go first, unless the owner took them.
 */
static void ksock_rx_fill(struct ksock_ep *ep, struct ksock_req *req)
{
	struct ksock_rx *rx = &ep->rx;
	size_t room = req->len;

	rx->iter[0] = req->iter[0];
	if (rx->peeked > rx->skipped) {
		rx->done = copy_to_iter(rx->peek, min_t(size_t, rx->peeked,
							room), &rx->iter[0]);
		room -= rx->done;
	}
	if (rx->left > room) {
		rx->discard = rx->left - room;
		rx->left = room;
	}
	/* Never read past this frame: the next one may already be queued. */
	iov_iter_truncate(&rx->iter[0], rx->left);
	rx->nseg = 1;
	rx->state = KSOCK_RX_DATA;
}

/* Take what a waiting frame needs; false if it must wait longer. */
static bool ksock_rx_take(struct ksock_ep *ep)
{
	struct ksock_rx *rx = &ep->rx;
	struct ksock_req *req;
	struct list_head *from;
	unsigned long flags;
	bool read = rx->hdr.base.op == KSOCK_OP_READ_REQ;

	spin_lock_irqsave(&ep->lock, flags);
	if (read) {
		/*
		 * None at hand: a response sent (ksock_req_put()), or the
		 * work that allocates one (ksock_req_get()), resumes us.
		 */
		req = ksock_req_get(ep, &ep->rsp_pool);
	} else {
		from = &ep->rx_queue;
		req = list_first_entry_or_null(from, struct ksock_req, node);
		if (req)
			list_del_init(&req->node);
	}
	ep->rx_waiting = !req;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!req) {
		ksock_dbg("ep %p rx waits\n", ep);
		return false;
	}

	if (read) {
		ksock_rx_respond(ep, req);
		ksock_rx_next(ep);
		return true;
	}
	rx->req = req;
	if (rx->hdr.base.op == KSOCK_OP_WRITE) {
		/* Remote CQ data of a write consumes a receive. */
		req->op.flags = FI_RMA | FI_REMOTE_WRITE;
		req->len = 0;
		rx->state = KSOCK_RX_DATA;
		return true;
	}
	ksock_rx_fill(ep, req);
	return true;
}

/*
 * A claim() answer other than "here": FI_TAGGED_RX_POSTED (the next
 * posted receive takes the message), -EAGAIN (hold until a retry), or an
 * error that ends the connection.  Returns 0 to go on, -1 to stop.
 */
static int ksock_rx_claim_other(struct ksock_ep *ep, int ret)
{
	struct ksock_rx *rx = &ep->rx;

	if (ret == FI_TAGGED_RX_POSTED) {
		rx->state = KSOCK_RX_WAIT;
		return 0;
	}
	if (ret == -EAGAIN) {
		ksock_dbg("ep %p rx held by its owner\n", ep);
		rx->stopped = true;
		return -1;
	}
	pr_debug("ksocket: tagged message refused (%d), connection ended\n",
		 ret);
	ksock_rx_end(ep, ret < 0 ? -ret : EPROTO, KSOCK_RXE_CLAIM);
	return -1;
}

/* claim() gave @d: read the message there, with @req of trx_pool. */
static int ksock_rx_claimed(struct ksock_ep *ep, struct ksock_req *req,
			    const struct fi_tagged_dest *d)
{
	unsigned long flags;
	int ret;

	ret = ksock_req_iter(req, ITER_DEST, d->iov_type, d->msg_iov,
			     d->iov_count);
	if (ret) {
		ksock_req_put(ep, req);
		ksock_rx_end(ep, -ret, KSOCK_RXE_CLAIM);
		return -1;
	}
	req->user = true;
	req->signal = true;
	req->op.cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);
	req->op.context = d->context;
	req->op.flags = FI_RECV | FI_MSG;	/* FI_TAGGED: ksock_rx_done() */
	spin_lock_irqsave(&ep->lock, flags);
	kofi_oplist_add(&ep->ops, &req->op);
	spin_unlock_irqrestore(&ep->lock, flags);
	ep->rx.req = req;
	/* what follows the owner's header, read ahead, goes there */
	ep->rx.skipped = ep->rx.peeked;
	ksock_rx_fill(ep, req);
	return 0;
}

/*
 * A tagged message's header is read: ask the owner where it goes.  The
 * request the message would be read with is taken first, so that a
 * claimed message always has one: one message is claimed at a time, so
 * the pool's one request is free, unless it could not be allocated; then
 * the engine stops until the endpoint's work has allocated it and runs
 * the engine again.  The engine counts as held while claim() runs, so
 * that a retry made then is not lost.  Returns 0 to go on, -1 to stop.
 */
static int ksock_rx_claim(struct ksock_ep *ep)
{
	struct ksock_rx *rx = &ep->rx;
	bool tagged = ksock_rx_flags(ep) & KSOCK_FLAG_TAGGED;
	struct fi_tagged_frame f = {
		.tag = rx->tag,
		.data = rx->cq_data,
		.flags = tagged ? FI_TAGGED : FI_MSG,
		.len = rx->left + rx->peeked,
		.hdr = rx->peeked ? rx->peek : NULL,
	};
	struct fi_tagged_dest d = {};
	struct ksock_req *req;
	unsigned long flags;
	bool full;
	int ret;

	if (ksock_rx_flags(ep) & KSOCK_FLAG_CQ_DATA)
		f.flags |= FI_REMOTE_CQ_DATA;
	spin_lock_irqsave(&ep->lock, flags);
	req = ksock_req_get(ep, &ep->trx_pool);
	full = !req && ep->trx_pool.count >= ep->trx_pool.max;
	if (req)
		ep->rx_held = true;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (WARN_ON_ONCE(full)) {
		ksock_rx_end(ep, EIO, KSOCK_RXE_CLAIM);
		return -1;
	}
	if (!req) {
		ksock_dbg("ep %p rx waits for memory\n", ep);
		rx->stopped = true;
		return -1;
	}
	ret = ep->trx.claim(&ep->ep, &f, &d);
	if (ret != -EAGAIN) {
		spin_lock_irqsave(&ep->lock, flags);
		ep->rx_held = false;
		spin_unlock_irqrestore(&ep->lock, flags);
	}
	if (ret) {
		ksock_req_put(ep, req);
		return ksock_rx_claim_other(ep, ret);
	}
	return ksock_rx_claimed(ep, req, &d);
}

/* The payload of a frame is in place (and the excess discarded). */
static void ksock_rx_done(struct ksock_ep *ep)
{
	struct ksock_rx *rx = &ep->rx;
	struct ksock_req *req = rx->req;
	u16 flags = ksock_rx_flags(ep);
	u64 olen;

	ksock_rx_put_keys(rx);
	if (rx->ack)
		ksock_rx_queue_ack(ep);
	if (req) {
		if (flags & KSOCK_FLAG_CQ_DATA) {
			req->rx_flags = FI_REMOTE_CQ_DATA;
			req->data = rx->cq_data;
		}
		if (flags & KSOCK_FLAG_TAGGED) {
			req->op.flags = (req->op.flags & ~FI_MSG) | FI_TAGGED;
			req->tag = rx->tag;
		}
		if (rx->hdr.base.op == KSOCK_OP_MSG) {
			/* what was read and dropped */
			olen = ksock_rx_payload(ep) - rx->skipped - rx->done;
			if (olen) {
				ksock_req_fail(ep, req, EMSGSIZE, rx->done,
					       olen);
				req = NULL;
			} else {
				req->len = rx->done;
			}
		}
		if (req && rx->hdr.base.op == KSOCK_OP_READ_RSP)
			ksock_req_answered(ep, req);
		else if (req)
			ksock_req_complete(ep, req);
	}
	ksock_rx_next(ep);
}

/*
 * Consume what the engine can of the @len bytes at @off in @skb (@skb may
 * be NULL with @len 0: advance what needs no bytes).  Returns the bytes
 * consumed; sets rx.stopped when the engine cannot go on before something
 * else happens (a receive or read response slot is posted, or the
 * connection ended).
 */
static size_t ksock_rx_consume(struct ksock_ep *ep, const struct sk_buff *skb,
			       unsigned int off, size_t len)
{
	struct ksock_rx *rx = &ep->rx;
	struct iov_iter *it;
	size_t used = 0, n;
	u32 need;

	for (;;) {
		switch (rx->state) {
		case KSOCK_RX_WAIT:
			if (!ksock_rx_take(ep)) {
				rx->stopped = true;
				return used;
			}
			continue;
		case KSOCK_RX_PEEK:
			if (used == len)
				return used;
			n = min_t(size_t, len - used,
				  ep->trx.hdr_len - rx->peeked);
			if (skb_copy_bits(skb, off + used,
					  rx->peek + rx->peeked, n)) {
				ksock_rx_end(ep, EIO, 0);
				return used;
			}
			used += n;
			rx->peeked += n;
			if (rx->peeked < ep->trx.hdr_len)
				continue;
			rx->left -= rx->peeked;
			rx->state = KSOCK_RX_CLAIM;
			continue;
		case KSOCK_RX_CLAIM:
			if (ksock_rx_claim(ep))
				return used;
			continue;
		case KSOCK_RX_HDR:
			if (used == len)
				return used;
			n = min_t(size_t, len - used, rx->need - rx->got);
			if (skb_copy_bits(skb, off + used, rx->hdr.raw + rx->got,
					  n)) {
				ksock_rx_end(ep, EIO, 0);
				return used;
			}
			used += n;
			rx->got += n;
			if (rx->got < rx->need)
				continue;
			if (rx->need == sizeof(struct ksock_base_hdr)) {
				if (ksock_rx_check_base(ep, &need))
					return used;
				if (need > rx->need) {
					rx->need = need;
					continue;
				}
			}
			if (ksock_rx_start(ep))
				return used;
			continue;
		case KSOCK_RX_DATA:
			if (!rx->left) {
				if (rx->discard)
					rx->state = KSOCK_RX_DISCARD;
				else
					ksock_rx_done(ep);
				continue;
			}
			if (used == len)
				return used;
			while (rx->seg < rx->nseg &&
			       !iov_iter_count(&rx->iter[rx->seg]))
				rx->seg++;
			if (WARN_ON_ONCE(rx->seg >= rx->nseg)) {
				ksock_rx_bad(ep, EPROTO, KSOCK_RXE_SIZE);
				return used;
			}
			it = &rx->iter[rx->seg];
			n = min_t(u64, len - used, rx->left);
			n = min(n, iov_iter_count(it));
			if (skb_copy_datagram_iter(skb, off + used, it, n)) {
				ksock_rx_end(ep, EIO, 0);
				return used;
			}
			used += n;
			rx->left -= n;
			rx->done += n;
			continue;
		case KSOCK_RX_DISCARD:
			if (!rx->discard) {
				ksock_rx_done(ep);
				continue;
			}
			if (used == len)
				return used;
			n = min_t(u64, len - used, rx->discard);
			used += n;
			rx->discard -= n;
			continue;
		default:
			rx->stopped = true;
			return used;
		}
	}
}

/* tcp_read_sock() actor: feed the engine; stop when it stops. */
static int ksock_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			  unsigned int off, size_t len)
{
	struct ksock_ep *ep = desc->arg.data;
	size_t used;

	used = ksock_rx_consume(ep, skb, off, len);
	if (ep->rx.stopped)
		desc->count = 0;
	else
		desc->count -= min(desc->count, used);
	return used;
}

/**
 * ksock_rx_run() - read and act on what the peer sent
 * @ep: the endpoint, its socket locked by the caller: bh_lock_sock() in
 *	the data-ready callback, or lock_sock()
 * @budget: bytes it may still move; decreased
 *
 * Does nothing unless the endpoint is connected.  Records the end of the
 * connection (end of stream, socket error, malformed frame) with
 * ksock_ep_fail().
 *
 * Context: any context holding the socket's lock; does not sleep.
 * Return: > 0 if it moved data or completed a frame, 0 if nothing could be
 * done (no data, or a frame waits for a receive), < 0 if the connection
 * ended.
 */
int ksock_rx_run(struct ksock_ep *ep, size_t *budget)
{
	struct ksock_rx *rx = &ep->rx;
	struct sock *sk = ep->sock->sk;
	read_descriptor_t desc = { .arg.data = ep, .count = *budget };
	enum ksock_rx_state before = rx->state;
	unsigned long flags;
	bool connected;
	int copied = 0;
	int err;

	spin_lock_irqsave(&ep->lock, flags);
	connected = ep->state == KSOCK_EP_CONNECTED;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (rx->state == KSOCK_RX_END)
		return -1;
	if (!connected || !*budget)
		return 0;

	WRITE_ONCE(ep->rx_task, current);
	rx->stopped = false;
	ksock_rx_consume(ep, NULL, 0, 0);
	if (!rx->stopped)
		copied = tcp_read_sock(sk, &desc, ksock_rx_actor);
	WRITE_ONCE(ep->rx_task, NULL);
	if (copied > 0)
		*budget -= min_t(size_t, *budget, copied);
	if (rx->state == KSOCK_RX_END)
		return -1;
	err = READ_ONCE(sk->sk_err) ? sock_error(sk) : 0;
	if (err) {
		ksock_rx_end(ep, -err, 0);
		return -1;
	}
	if (!rx->stopped && desc.count &&
	    (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) &&
	    skb_queue_empty_lockless(&sk->sk_receive_queue)) {
		/* End of stream: orderly only at a frame boundary. */
		ksock_rx_end(ep, rx->state == KSOCK_RX_HDR && !rx->got ?
			     0 : ECONNRESET, 0);
		return -1;
	}
	return copied > 0 || rx->state != before;
}

/**
 * ksock_rx_ready() - the socket has data: run the receive engine
 * @ep: the endpoint, its socket locked (the data-ready callback)
 *
 * Before the connection is established, and when the callback's budget
 * runs out, the endpoint's work takes over.
 *
 * Context: softirq, or process context in release_sock(); does not sleep.
 */
void ksock_rx_ready(struct ksock_ep *ep)
{
	size_t budget = KSOCK_DIRECT_BUDGET;
	unsigned long flags;
	bool connected;

	spin_lock_irqsave(&ep->lock, flags);
	connected = ep->state == KSOCK_EP_CONNECTED;
	if (!connected)
		ksock_ep_kick(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (connected && ksock_rx_run(ep, &budget) >= 0 && !budget)
		ksock_ep_kick_unlocked(ep);
}

/**
 * ksock_rx_resume() - a receive the engine waited for was posted
 * @ep: the endpoint
 * @flags: the receive's flags (FI_MAY_SLEEP counts)
 *
 * Runs the engine at once when the caller may sleep (it locks the
 * socket), else schedules the endpoint's work.
 *
 * Context: any context; sleeps only when ksock_ep_can_direct().
 */
void ksock_rx_resume(struct ksock_ep *ep, u64 flags)
{
	size_t budget = KSOCK_DIRECT_BUDGET;
	struct sock *sk = ep->sock->sk;
	int ret;

	if (!ksock_ep_can_direct(ep, flags)) {
		ksock_ep_kick_unlocked(ep);
		return;
	}
	lock_sock(sk);
	ret = ksock_rx_run(ep, &budget);
	release_sock(sk);
	if (ret >= 0 && !budget)
		ksock_ep_kick_unlocked(ep);
}

/**
 * ksock_rx_reset() - drop the receive engine's frame at the end
 * @ep: the endpoint, its socket locked (or never connected)
 *
 * Region references are dropped.  The receive or read being filled, if
 * any, is returned for the caller to complete with ECANCELED once it has
 * unlocked the socket.
 *
 * Context: process context; does not sleep.
 * Return: that request, or NULL.
 */
struct ksock_req *ksock_rx_reset(struct ksock_ep *ep)
{
	struct ksock_rx *rx = &ep->rx;
	struct ksock_req *req = rx->req;

	ksock_rx_put_keys(rx);
	rx->req = NULL;
	ksock_rx_next(ep);
	return req;
}
