// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ksocket provider: the transmit engine.
 *
 * It sends, in order, the requests of the endpoint's tx_queue (messages,
 * RMA writes, read requests, responses to the peer's reads), every ACK
 * owed going out before the next request, using non-blocking socket
 * calls: when the socket's send buffer is full it stops and the socket's
 * write-space callback schedules the endpoint's work again.
 *
 * It runs under the endpoint's tx_mutex: in the work, or straight from a
 * data call whose ULP promised it may sleep (FI_OPT_DATA_MAY_SLEEP on the
 * endpoint, or FI_MAY_SLEEP in the call's flags) when nothing else is
 * being sent (ksock_tx_direct()), which spares the message a trip through
 * the workqueue.  The header of a request whose payload is a kvec vector
 * goes to the socket in the same call as the payload (one sendmsg, one
 * segment for a small message); otherwise the header is sent with
 * MSG_MORE, as is every piece of a request but its last.
 *
 * A request whose last byte is in the socket completes at once (transmit
 * completion in the sense of "handed to the transport"), unless it asked
 * for FI_TRANSMIT_COMPLETE or FI_DELIVERY_COMPLETE: then it waits on
 * ack_wait for the peer's ACK.  Read requests wait on read_wait for their
 * response.
 */
#include "ksock.h"

/**
 * ksock_tx_wire_flags() - the header flags a send or write asks for
 * @flags: the call's flags: FI_REMOTE_CQ_DATA, FI_TRANSMIT_COMPLETE and
 *	FI_DELIVERY_COMPLETE count
 *
 * Either completion level asks the peer for an ACK: ksocket's transmit
 * completion only says that the data is in the socket.
 *
 * Context: any context.
 * Return: KSOCK_FLAG_* for ksock_tx_build_hdr().
 */
u16 ksock_tx_wire_flags(u64 flags)
{
	u16 wire = 0;

	if (flags & FI_REMOTE_CQ_DATA)
		wire |= KSOCK_FLAG_CQ_DATA;
	if (flags & (FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE))
		wire |= KSOCK_FLAG_DELIVERY_COMPLETE;
	return wire;
}

/**
 * ksock_tx_build_hdr() - encode a request's header
 * @ep: the endpoint (byte order)
 * @req: the request: kind, len, data and tag set
 * @op: KSOCK_OP_MSG, KSOCK_OP_WRITE or KSOCK_OP_READ_REQ
 * @flags: KSOCK_FLAG_* of the header (KSOCK_FLAG_TAGGED: a message with
 *	req->tag)
 * @rma: remote segments, or NULL
 * @rma_cnt: their number, at most KSOCK_RMA_IOV_MAX
 *
 * Context: any context.
 */
void ksock_tx_build_hdr(struct ksock_ep *ep, struct ksock_req *req, u8 op,
			u16 flags, const struct fi_rma_iov *rma,
			size_t rma_cnt)
{
	struct ksock_base_hdr *hdr = (struct ksock_base_hdr *)req->hdr;
	u64 *p = (u64 *)(req->hdr + sizeof(*hdr));
	bool bswap = ep->bswap;
	bool tagged = flags & KSOCK_FLAG_TAGGED;
	size_t i, hlen;
	u64 size;

	hlen = sizeof(*hdr) + rma_cnt * sizeof(struct ksock_rma_iov);
	if (flags & KSOCK_FLAG_CQ_DATA)
		hlen += sizeof(u64);
	if (tagged)
		hlen += sizeof(u64);
	size = hlen + (op == KSOCK_OP_READ_REQ ? 0 : req->len);

	/* the net wire's tagged message: op 1 (FI_TAGGED_RX_OP) */
	if (tagged && (ep->trx.flags & FI_TAGGED_RX_OP)) {
		op = KSOCK_OP_TAGGED;
		flags &= ~KSOCK_FLAG_TAGGED;
	}
	hdr->version = KSOCK_PROTO_VERSION;
	hdr->op = op;
	hdr->flags = ksock_to_wire16(bswap, flags);
	hdr->op_data = 0;
	hdr->rma_iov_cnt = rma_cnt;
	hdr->hdr_size = hlen;
	hdr->reserved = 0;
	hdr->size = ksock_to_wire64(bswap, size);
	if (flags & KSOCK_FLAG_CQ_DATA)
		*p++ = ksock_to_wire64(bswap, req->data);
	if (tagged)
		*p++ = ksock_to_wire64(bswap, req->tag);
	for (i = 0; i < rma_cnt; i++) {
		*p++ = ksock_to_wire64(bswap, rma[i].addr);
		*p++ = ksock_to_wire64(bswap, rma[i].len);
		*p++ = ksock_to_wire64(bswap, rma[i].key);
	}
	req->hdr_len = hlen;
	req->hdr_sent = 0;
	req->seg = 0;

	/* A kvec payload (vec.kv[1..]) gets the header in front: kv[0]. */
	if (op != KSOCK_OP_READ_REQ && req->nseg == 1 &&
	    iov_iter_is_kvec(&req->iter[0]) &&
	    req->iter[0].kvec == &req->vec.kv[1]) {
		req->vec.kv[0].iov_base = req->hdr;
		req->vec.kv[0].iov_len = hlen;
		iov_iter_kvec(&req->iter[0], ITER_SOURCE, req->vec.kv,
			      req->iter[0].nr_segs + 1, hlen + req->len);
		req->hdr_sent = hlen;
	}
}

/* (Re)start the idle timer: it fires KSOCK_IDLE_MS from now. */
static void ksock_tx_idle_arm(struct ksock_ep *ep)
{
	mod_timer(&ep->idle_timer, jiffies + msecs_to_jiffies(KSOCK_IDLE_MS));
}

/**
 * ksock_tx_note_sent() - the endpoint's socket just sent
 * @ep: the endpoint, connected
 *
 * Arms the idle timer if it is not running, else marks it to look again:
 * on a busy connection the cost is a test of two bits.
 *
 * Context: any context.
 */
void ksock_tx_note_sent(struct ksock_ep *ep)
{
	if (test_bit(KSOCK_IDLE_ARMED, &ep->idle)) {
		if (!test_bit(KSOCK_IDLE_SENT, &ep->idle))
			set_bit(KSOCK_IDLE_SENT, &ep->idle);
		return;
	}
	if (!test_and_set_bit(KSOCK_IDLE_ARMED, &ep->idle))
		ksock_tx_idle_arm(ep);
}

/**
 * ksock_tx_idle_timer() - KSOCK_IDLE_MS since the idle timer was armed
 * @t: &ksock_ep.idle_timer
 *
 * Context: softirq (timer).
 */
void ksock_tx_idle_timer(struct timer_list *t)
{
	struct ksock_ep *ep = from_timer(ep, t, idle_timer);
	unsigned long flags;

	set_bit(KSOCK_IDLE_CHECK, &ep->idle);
	spin_lock_irqsave(&ep->lock, flags);
	ksock_ep_kick(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/**
 * ksock_tx_idle() - the idle timer fired: drop the page fragment if idle
 * @ep: the endpoint, connected
 *
 * If the socket sent since the timer was armed, the timer runs again;
 * otherwise the socket gives its page fragment back
 * (ksock_sock_drop_frag()) and the next send arms the timer anew.  A
 * send racing the drop only makes it take a new fragment.
 *
 * Context: the endpoint's work; sleeps (socket lock).
 */
void ksock_tx_idle(struct ksock_ep *ep)
{
	unsigned long flags;

	if (!test_and_clear_bit(KSOCK_IDLE_CHECK, &ep->idle))
		return;
	if (test_and_clear_bit(KSOCK_IDLE_SENT, &ep->idle)) {
		/* Under the lock: fi_close() stops the timer after CLOSING. */
		spin_lock_irqsave(&ep->lock, flags);
		if (ep->state == KSOCK_EP_CONNECTED)
			ksock_tx_idle_arm(ep);
		spin_unlock_irqrestore(&ep->lock, flags);
		return;
	}
	clear_bit(KSOCK_IDLE_ARMED, &ep->idle);
	ksock_sock_drop_frag(ep->sock->sk);
}

/* Send from an iterator, noting it for the idle timer. */
static int ksock_tx_send(struct ksock_ep *ep, struct iov_iter *it, bool more)
{
	int ret = ksock_sock_send(ep->sock, it, more);

	if (ret > 0)
		ksock_tx_note_sent(ep);
	return ret;
}

/* Send from a buffer; returns bytes sent or a negative errno. */
static int ksock_tx_buf(struct ksock_ep *ep, const void *buf, size_t len,
			bool more)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	return ksock_tx_send(ep, &it, more);
}

/* Payload bytes of @req still to send after the current segment. */
static bool ksock_tx_more_after(struct ksock_req *req, unsigned int seg)
{
	for (seg++; seg < req->nseg; seg++)
		if (iov_iter_count(&req->iter[seg]))
			return true;
	return false;
}

/*
 * Start @req with its header and a kvec payload in one sendmsg(): the
 * payload's vector sits right behind the header's slot, req->vec.kv[0]
 * (ksock_req_iter()), so a small message takes one pass through TCP and
 * one round of the socket's lock.  Returns bytes sent or a negative errno.
 */
static int ksock_tx_first(struct ksock_ep *ep, struct ksock_req *req,
			  size_t *budget)
{
	struct iov_iter *pl = &req->iter[0];
	size_t hlen = req->hdr_len;
	struct iov_iter it;
	int ret;

	req->vec.kv[0].iov_base = req->hdr;
	req->vec.kv[0].iov_len = hlen;
	iov_iter_kvec(&it, ITER_SOURCE, req->vec.kv, pl->nr_segs + 1,
		      hlen + iov_iter_count(pl));
	ret = ksock_tx_send(ep, &it, ksock_tx_more_after(req, 0));
	if (ret <= 0)
		return ret;
	req->hdr_sent = min_t(size_t, ret, hlen);
	if (ret > hlen) {
		iov_iter_advance(pl, ret - hlen);
		*budget -= min_t(size_t, *budget, ret - hlen);
	}
	return ret;
}

/*
 * Push @req; 1 when all of it is in the socket, 0 if blocked or out of
 * budget, < 0 error.
 */
static int ksock_tx_req(struct ksock_ep *ep, struct ksock_req *req,
			size_t *budget)
{
	bool payload = req->kind != KSOCK_REQ_READ;
	struct iov_iter *it;
	int ret;

	if (!req->hdr_sent && payload && req->len && req->nseg &&
	    iov_iter_is_kvec(&req->iter[0]) &&
	    req->iter[0].kvec == &req->vec.kv[1]) {
		ret = ksock_tx_first(ep, req, budget);
		if (ret < 0)
			return ret == -EAGAIN ? 0 : ret;
	}
	while (req->hdr_sent < req->hdr_len) {
		ret = ksock_tx_buf(ep, req->hdr + req->hdr_sent,
				   req->hdr_len - req->hdr_sent,
				   payload && req->len);
		if (ret < 0)
			return ret == -EAGAIN ? 0 : ret;
		req->hdr_sent += ret;
	}
	if (!payload)
		return 1;
	while (req->seg < req->nseg) {
		it = &req->iter[req->seg];
		if (!iov_iter_count(it)) {
			req->seg++;
			continue;
		}
		ret = ksock_tx_send(ep, it, ksock_tx_more_after(req, req->seg));
		if (ret < 0)
			return ret == -EAGAIN ? 0 : ret;
		*budget -= min_t(size_t, *budget, ret);
		if (!*budget && iov_iter_count(it))
			return 0;
	}
	return 1;
}

/* A request is entirely in the socket. */
static void ksock_tx_sent(struct ksock_ep *ep, struct ksock_req *req)
{
	unsigned long flags;

	bool answered;

	ksock_dbg("ep %p tx kind %u len %zu sent\n", ep, req->kind, req->len);
	if (req->kind == KSOCK_REQ_READ_RSP) {
		ksock_req_put(ep, req);
		return;
	}
	if (req->kind == KSOCK_REQ_READ || req->need_ack) {
		/* on its wait list already (ksock_tx_pop()) */
		spin_lock_irqsave(&ep->lock, flags);
		req->in_tx = false;
		answered = req->answered;
		spin_unlock_irqrestore(&ep->lock, flags);
		if (answered)
			ksock_req_complete(ep, req);
		return;
	}
	ksock_req_complete(ep, req);
}

/*
 * Next request to send, or NULL.  One the peer answers (read request, or
 * waiting for an ACK) goes on its wait list now, before its last byte can
 * reach the peer: the answer may be received before the engine is done.
 */
static struct ksock_req *ksock_tx_pop(struct ksock_ep *ep)
{
	struct ksock_req *req;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	req = list_first_entry_or_null(&ep->tx_queue, struct ksock_req, node);
	if (req) {
		list_del_init(&req->node);
		if (req->kind == KSOCK_REQ_READ) {
			list_add_tail(&req->node, &ep->read_wait);
			req->in_tx = true;
		} else if (req->kind != KSOCK_REQ_READ_RSP && req->need_ack) {
			list_add_tail(&req->node, &ep->ack_wait);
			req->in_tx = true;
		}
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	return req;
}

/*
 * Send the pending ACKs, every one: the engine may have nothing else to
 * send, and nothing else may schedule it again.  1 all sent or none,
 * 0 blocked, < 0 error.
 */
static int ksock_tx_ack(struct ksock_ep *ep)
{
	unsigned long flags;
	int ret;

	for (;;) {
		if (ep->ack_sent >= sizeof(ep->ack_hdr)) {
			spin_lock_irqsave(&ep->lock, flags);
			if (!ep->acks) {
				spin_unlock_irqrestore(&ep->lock, flags);
				return 1;
			}
			ep->acks--;
			spin_unlock_irqrestore(&ep->lock, flags);
			memset(&ep->ack_hdr, 0, sizeof(ep->ack_hdr));
			ep->ack_hdr.version = KSOCK_PROTO_VERSION;
			ep->ack_hdr.op = KSOCK_OP_MSG;
			ep->ack_hdr.op_data = KSOCK_OP_DATA_ACK;
			ep->ack_hdr.hdr_size = sizeof(ep->ack_hdr);
			ep->ack_hdr.size = ksock_to_wire64(ep->bswap,
							   sizeof(ep->ack_hdr));
			ep->ack_sent = 0;
		}
		while (ep->ack_sent < sizeof(ep->ack_hdr)) {
			ret = ksock_tx_buf(ep,
					   (u8 *)&ep->ack_hdr + ep->ack_sent,
					   sizeof(ep->ack_hdr) - ep->ack_sent,
					   false);
			if (ret < 0)
				return ret == -EAGAIN ? 0 : ret;
			ep->ack_sent += ret;
		}
	}
}

/* The send buffer is full: the write-space callback takes over. */
static void ksock_tx_set_blocked(struct ksock_ep *ep, bool blocked)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	ep->tx_blocked = blocked;
	spin_unlock_irqrestore(&ep->lock, flags);
}

/**
 * ksock_tx_flush_acks() - send the ACKs still owed, before the socket goes
 * @ep: the endpoint, its connection ending in order (fi_shutdown(),
 *	fi_close(), the peer's end of stream)
 *
 * A message or write that asked for delivery completion completes at the
 * receiver once it is placed; its ACK waits for the transmit engine.  When
 * the receiver shuts down or closes right after, the ACK must still go
 * ahead of the FIN, or the sender's operation fails although its data
 * arrived - as TCP's close still sends what was queued.  Best effort: not
 * in the middle of a frame, and only as far as the socket's send buffer
 * takes it without waiting.
 *
 * Context: process context: the endpoint's work, or its caller with the
 * work stopped; ep->tx_mutex not held (taken here).
 */
void ksock_tx_flush_acks(struct ksock_ep *ep)
{
	unsigned long flags;
	bool more = true;

	mutex_lock(&ep->tx_mutex);
	while (!ep->tx_cur && more && ksock_tx_ack(ep) > 0) {
		spin_lock_irqsave(&ep->lock, flags);
		more = ep->acks;
		spin_unlock_irqrestore(&ep->lock, flags);
	}
	mutex_unlock(&ep->tx_mutex);
}

/**
 * ksock_tx_progress() - send what can be sent
 * @ep: a connected endpoint
 * @budget: bytes it may still move; decreased
 *
 * Called with ep->tx_mutex held.  A socket error is recorded with
 * ksock_ep_fail().
 *
 * Context: process context (the endpoint's work or a data call, see
 * ksock_tx_direct()); does not sleep beyond the socket's lock.
 * Return: > 0 if something was sent, 0 if nothing could be, < 0 if the
 * connection ended.
 */
int ksock_tx_progress(struct ksock_ep *ep, size_t *budget)
{
	struct ksock_req *req;
	int progress = 0;
	int ret;

	lockdep_assert_held(&ep->tx_mutex);
	ksock_tx_set_blocked(ep, false);
	while (*budget) {
		if (!ep->tx_cur) {
			ret = ksock_tx_ack(ep);
			if (ret <= 0)
				goto out;
			req = ksock_tx_pop(ep);
			if (!req)
				break;
			ep->tx_cur = req;
		}
		req = ep->tx_cur;
		ret = ksock_tx_req(ep, req, budget);
		if (ret <= 0)
			goto out;
		ep->tx_cur = NULL;
		ksock_tx_sent(ep, req);
		progress = 1;
	}
	return progress;
out:
	if (ret < 0) {
		ksock_ep_fail(ep, -ret, 0);
		return ret;
	}
	if (*budget)
		ksock_tx_set_blocked(ep, true);
	return progress;
}

/**
 * ksock_tx_direct() - send a request just queued, from the caller
 * @ep: the endpoint, connected
 * @flags: the data call's flags (FI_MAY_SLEEP counts)
 *
 * When the caller may sleep (ksock_ep_can_direct()) and nobody else holds
 * the transmit engine, the request goes to the socket now, and completes
 * now unless it waits for an ACK; otherwise the endpoint's work sends it.
 *
 * Context: any context, without ep->lock; sleeps (briefly, for the
 * socket's lock) only when ksock_ep_can_direct().
 */
void ksock_tx_direct(struct ksock_ep *ep, u64 flags)
{
	size_t budget = KSOCK_DIRECT_BUDGET;

	if (!ksock_ep_can_direct(ep, flags) || !mutex_trylock(&ep->tx_mutex)) {
		ksock_ep_kick_unlocked(ep);
		return;
	}
	ksock_tx_progress(ep, &budget);
	mutex_unlock(&ep->tx_mutex);
	if (!budget)
		ksock_ep_kick_unlocked(ep);
}

/**
 * ksock_tx_writable() - the socket's send buffer has room again
 * @ep: the endpoint
 *
 * Context: any context (the write-space callback).
 */
void ksock_tx_writable(struct ksock_ep *ep)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	ep->tx_blocked = false;
	ksock_ep_kick(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
}
