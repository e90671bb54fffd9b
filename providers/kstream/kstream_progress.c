// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: progress - the core completions, receive credits and ring
 * updates, control messages, keepalive and stream errors.
 *
 * Every message is an RMA write with 32 bits of remote CQ data (rsockets'
 * write with immediate), each consuming one of the zero-length receives
 * posted on the core endpoint; over a core without remote CQ data
 * (iWARP) an RMA write of its bytes, if any, then a 4-byte send of its
 * value, each consuming a receive posted with a 4-byte buffer
 * (enum kstream_msg_mode, kstream_core_write()).  The functions marked "lock held" run under
 * kstream_ep.lock and never sleep.
 *
 * The core CQs are callback CQs: each operation posted on the core
 * endpoint is a struct kstream_req, taken from the free list of its kind
 * and completed by the done() of its kind.  done() runs in the core's
 * completion context (softirq, a work item, or a data call that posted
 * with the endpoint lock dropped): it records the completion in the
 * request, adds it to the endpoint's lock-free list of completed requests
 * of its kind and signals the progress.  The progress (the work, or a
 * waiting caller) takes the lists under poll_mutex, receives first, and
 * handles each completion under the endpoint lock.
 */
#include <linux/llist.h>
#include <linux/slab.h>
#include "kstream.h"

/* Completed requests taken per hold of the endpoint lock. */
#define KSTREAM_TAKE_BATCH	8

/**
 * kstream_wake() - tell waiters that readiness may have changed
 * @kep: the endpoint
 *
 * Context: any context; the endpoint lock must not be held.
 */
void kstream_wake(struct kstream_ep *kep)
{
	void (*notify)(void *arg);
	void *arg;

	wake_up_all(&kep->wq);
	spin_lock_bh(&kep->lock);
	notify = kep->notify;
	arg = kep->notify_arg;
	spin_unlock_bh(&kep->lock);
	if (notify)
		notify(arg);
}

/* The states each state may be entered from (enum kstream_state). */
static const u8 kstream_state_from[] = {
	[KSTREAM_IDLE] = BIT(KSTREAM_CLOSING),
	[KSTREAM_ENABLED] = BIT(KSTREAM_IDLE) | BIT(KSTREAM_CONNECTING),
	[KSTREAM_CONNECTING] = BIT(KSTREAM_ENABLED),
	[KSTREAM_CONNECTED] = BIT(KSTREAM_CONNECTING),
	[KSTREAM_DOWN] = BIT(KSTREAM_ENABLED) | BIT(KSTREAM_CONNECTING) |
			 BIT(KSTREAM_CONNECTED) | BIT(KSTREAM_DOWN),
	[KSTREAM_CLOSING] = BIT(KSTREAM_IDLE) | BIT(KSTREAM_ENABLED) |
			    BIT(KSTREAM_CONNECTING) | BIT(KSTREAM_CONNECTED) |
			    BIT(KSTREAM_DOWN),
};

/**
 * kstream_set_state() - move an endpoint to another state
 * @kep: the endpoint (lock held)
 * @state: the new state
 *
 * Only the transitions documented at enum kstream_state are made; any
 * other leaves the state as it is: an event that comes too late for it
 * (the connection's end while the endpoint closes, FI_CONNECTED after
 * a failure) changes nothing.
 *
 * Context: any context, endpoint lock held.
 * Return: true if the endpoint is in @state now, false if refused.
 */
bool kstream_set_state(struct kstream_ep *kep, enum kstream_state state)
{
	lockdep_assert_held(&kep->lock);
	if (WARN_ON_ONCE(state >= ARRAY_SIZE(kstream_state_from)) ||
	    !(kstream_state_from[state] & BIT(kep->state)))
		return false;
	WRITE_ONCE(kep->state, state);
	return true;
}

/**
 * kstream_set_peer_state() - note how far the peer ended the stream
 * @kep: the endpoint (lock held)
 * @peer: the new state of the peer
 *
 * Only forward, as documented at enum kstream_peer; any other change is
 * refused.
 *
 * Context: any context, endpoint lock held.
 * Return: true if the peer's state is @peer now, false if refused.
 */
bool kstream_set_peer_state(struct kstream_ep *kep, enum kstream_peer peer)
{
	lockdep_assert_held(&kep->lock);
	if (peer <= kep->peer_state || peer > KSTREAM_PEER_LOST ||
	    (peer == KSTREAM_PEER_LOST && kep->peer_state != KSTREAM_PEER_GONE))
		return false;
	WRITE_ONCE(kep->peer_state, peer);
	return true;
}

/**
 * kstream_fail() - end the stream with an error (lock held)
 * @kep: the endpoint
 * @err: positive errno
 *
 * The progress work then reports it on the EQ and ends the core
 * connection.  The first error wins.
 *
 * Context: any context, endpoint lock held.
 */
void kstream_fail(struct kstream_ep *kep, int err)
{
	if (kep->err || kep->state == KSTREAM_CLOSING)
		return;
	kep->err = err;
	kep->err_report = true;
	if (kep->state == KSTREAM_CONNECTED || kep->state == KSTREAM_CONNECTING)
		kstream_set_state(kep, KSTREAM_DOWN);
	queue_work(kstream_wq, &kep->work);
}

/**
 * kstream_after_disconnect() - absorb a failure after the peer's DISCONNECT
 * @kep: the endpoint (lock held)
 *
 * Once the peer ended the stream in order, the core connection going away
 * (error completions of writes still in flight, an error on the core EQ)
 * is the consequence, not a stream error: the writes are taken as
 * cancelled, the reader still gets the data that arrived and then end of
 * stream, the writer -EPIPE.
 *
 * Context: any context, endpoint lock held.
 * Return: true if the failure was absorbed, false if it is a stream error.
 */
bool kstream_after_disconnect(struct kstream_ep *kep)
{
	if (!kstream_peer_gone(kep->peer_state) || kep->err)
		return false;
	kstream_set_peer_state(kep, KSTREAM_PEER_LOST);
	return true;
}

/**
 * kstream_core_write() - post a write of the stream on a core endpoint
 * @core: the core endpoint
 * @mode: the stream's enum kstream_msg_mode
 * @iov: local source, or NULL for a zero-length write
 * @desc: descriptors of @iov
 * @cnt: entries of @iov
 * @addr: remote address
 * @key: remote key
 * @imm: the message (the immediate, or the value the send carries)
 * @req: the request the write completes to
 * @with_imm: the write is a message; false for a plain write (keepalive,
 *	iowrite)
 * @flags: FI_MAY_SLEEP when the caller may sleep (it holds no lock, and
 *	its own caller promised that it may sleep), else 0
 *
 * The operations are those of kstream_post_ops(): an RMA write with the
 * message as remote CQ data, or (KSTREAM_MSG_SEND) the RMA write of the
 * bytes, completing to @req->wcqe, then the KSTREAM_MSG_SIZE-byte send of
 * the message from @req->msg, completing to @req: one completion of @req
 * either way.  A send the core refuses after the write was taken leaves
 * that write at the peer unannounced: the caller gives the request back
 * (its completion does nothing) and may write the same bytes again.
 *
 * Context: any context; sleeps only as the core's data calls do (ksocket's
 * may wait briefly for their socket with FI_MAY_SLEEP).
 * Return: 0 or the core's error.
 */
int kstream_core_write(struct fid_ep *core, enum kstream_msg_mode mode,
		       struct kvec *iov, void **desc, size_t cnt, u64 addr,
		       u64 key, u32 imm, struct kstream_req *req, bool with_imm,
		       u64 flags)
{
	struct fi_rma_iov rma = { .addr = addr, .key = key };
	struct fi_msg_rma msg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = iov,
		.desc = cnt ? desc : NULL,
		.iov_count = cnt,
		.addr = FI_ADDR_UNSPEC,
		.rma_iov = &rma,
		.rma_iov_count = 1,
		.context = &req->cqe,
		.data = imm,
	};
	struct kvec siov = { .iov_base = req->msg, .iov_len = KSTREAM_MSG_SIZE };
	struct fi_msg smsg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &siov,
		.iov_count = 1,
		.addr = FI_ADDR_UNSPEC,
		.context = &req->cqe,
	};
	u64 sleep = flags & FI_MAY_SLEEP;
	size_t i;
	u32 ops;
	int ret;

	for (i = 0; i < cnt; i++)
		rma.len += iov[i].iov_len;
	ops = kstream_post_ops(mode, with_imm, rma.len);
	if (ops & KSTREAM_POST_WRITE) {
		if (ops & KSTREAM_POST_SEND)
			msg.context = &req->wcqe;
		ret = fi_writemsg(core, &msg, FI_COMPLETION | sleep |
				  (ops & KSTREAM_POST_IMM ?
				   FI_REMOTE_CQ_DATA : 0));
		if (ret)
			return ret;
	}
	if (!(ops & KSTREAM_POST_SEND))
		return 0;
	kstream_msg_put(imm, req->msg);
	return fi_sendmsg(core, &smsg, FI_COMPLETION | sleep);
}

/**
 * kstream_tx_posted() - account a write the core took
 * @kep: the endpoint (lock held)
 *
 * Context: any context, endpoint lock held.
 */
void kstream_tx_posted(struct kstream_ep *kep)
{
	kep->tx_out++;
	kep->tx_sent_since = true;
}

/* Take a request off a free list (lock held); NULL if it is empty. */
static struct kstream_req *kstream_req_get(struct kstream_req **free)
{
	struct kstream_req *req = *free;

	if (req)
		*free = req->next;
	return req;
}

/* Put a request back on its free list (lock held). */
static void kstream_req_put(struct kstream_req **free,
			    struct kstream_req *req)
{
	req->next = *free;
	*free = req;
}

/*
 * Post an RMA write to the peer that completes to @req, taken from @free
 * (lock held); on failure @req goes back.
 */
static int kstream_post_req(struct kstream_ep *kep, struct kstream_req **free,
			    struct kstream_req *req, struct kvec *iov,
			    void **desc, size_t cnt, u64 addr, u64 key,
			    u32 imm, bool with_imm)
{
	int ret;

	if (!req)
		return -EAGAIN;
	if (!kep->core_ep || kep->state == KSTREAM_CLOSING) {
		kstream_req_put(free, req);
		return -ENOTCONN;
	}
	ret = kstream_core_write(kep->core_ep, kep->mode, iov, desc, cnt, addr,
				 key, imm, req, with_imm, 0);
	if (ret) {
		kstream_req_put(free, req);
		return ret;
	}
	kstream_tx_posted(kep);
	return 0;
}

/**
 * kstream_data_req() - take a data write request
 * @kep: the endpoint (lock held)
 * @len: bytes of the send buffer the write carries
 *
 * There is one per data send slot (kstream_ep.sqe_avail).
 *
 * Context: any context, endpoint lock held.
 * Return: the request, or NULL if every data slot is in use.
 */
struct kstream_req *kstream_data_req(struct kstream_ep *kep, u32 len)
{
	struct kstream_req *req = kstream_req_get(&kep->data_free);

	if (req)
		req->len = len;
	return req;
}

/**
 * kstream_post_data() - post a data write to the peer (lock held)
 * @kep: the endpoint
 * @iov: local source: bytes of the send buffer
 * @desc: descriptors of @iov
 * @cnt: entries of @iov
 * @addr: remote address
 * @key: remote key
 * @imm: the immediate (remote CQ data)
 * @len: bytes at @iov; its completion gives them and the send slot back
 * @with_imm: false for a plain write (iowrite)
 *
 * Context: any context, endpoint lock held.
 * Return: 0; -EAGAIN without a free data slot; -ENOTCONN; the core's error.
 */
int kstream_post_data(struct kstream_ep *kep, struct kvec *iov,
		      void **desc, size_t cnt, u64 addr, u64 key, u32 imm,
		      u32 len, bool with_imm)
{
	return kstream_post_req(kep, &kep->data_free,
				kstream_data_req(kep, len), iov, desc, cnt,
				addr, key, imm, with_imm);
}

/*
 * Post a control write to the peer (lock held): a ring update, credits, a
 * control message or a keepalive; its completion gives the control slot
 * back.
 */
static int kstream_post_ctrl(struct kstream_ep *kep, struct kvec *iov,
			     void **desc, size_t cnt, u64 addr, u64 key,
			     u32 imm, bool with_imm)
{
	return kstream_post_req(kep, &kep->ctrl_free,
				kstream_req_get(&kep->ctrl_free), iov, desc,
				cnt, addr, key, imm, with_imm);
}

static bool kstream_ctrl_avail(struct kstream_ep *kep)
{
	return kep->ctrl_seqno != kep->ctrl_max_seqno;
}

/**
 * kstream_tx_waiter() - note that something waits for a transmit completion
 * @kep: the endpoint
 *
 * Sets KSTREAM_TX_WAITERS, which makes the next transmit done() wake the
 * waiters and see to the completions (kstream_tx_kick()).  A completion
 * signalled before the bit was set and not drained yet (kstream_ep.kicks
 * past kstream_ep.drained) is handed to the progress work here: the bit
 * is set before the counts are read, the handler counts before it reads
 * the bit, so one of the two sees the other.
 *
 * Context: any context.
 */
void kstream_tx_waiter(struct kstream_ep *kep)
{
	set_bit(KSTREAM_TX_WAITERS, &kep->waiters);
	/* Pairs with kstream_tx_kick(). */
	smp_mb__after_atomic();
	if (atomic_read(&kep->kicks) != atomic_read(&kep->drained))
		queue_work(kstream_wq, &kep->work);
}

/*
 * Half the ring or half the credits were consumed (lock held); before the
 * peer was heard, only the connecting side's one credits-only message
 * (kstream_ep.peer_heard).
 */
static bool kstream_update_due(struct kstream_ep *kep)
{
	if (!kep->peer_heard)
		return kstream_may_send(kep) && !kep->hello_sent;
	return kep->rbuf_avail >= kep->rbuf_size / 2 ||
	       (s16)(kep->rseq_no - kep->rseq_comp) >= 0;
}

/*
 * Note what is left waiting for a transmit completion (lock held): a
 * control message, a ring update due without a free control slot, bytes
 * queued without a free send slot, a mapping announcement.
 */
static void kstream_tx_note(struct kstream_ep *kep)
{
	if (kep->ctrl_pending >= 0 || kep->iomap_pending ||
	    (kstream_sbuf_queued(kep) && !kep->sqe_avail) ||
	    (kstream_update_due(kep) && !kstream_ctrl_avail(kep)))
		kstream_tx_waiter(kep);
}

/**
 * kstream_send_ctrl() - send a CTRL message (lock held)
 * @kep: the endpoint
 * @ctrl: KSTREAM_CTRL_DISCONNECT or KSTREAM_CTRL_SHUTDOWN
 *
 * Without a free control slot the message is sent by the progress work as
 * soon as one frees; while a send copies its data, when that send is done;
 * while bytes are queued in the send buffer, once they are written; on
 * the accepting side in iWARP mode before the peer's first message, once
 * it came (kstream_may_send()).
 *
 * Context: any context, endpoint lock held.
 * Return: 0 if posted; -EAGAIN if deferred; the core's error.
 */
int kstream_send_ctrl(struct kstream_ep *kep, u32 ctrl)
{
	int ret;

	/*
	 * The data goes first: kstream_tx_end() or the progress sends it; on
	 * the accepting side in iWARP mode, the peer's first message too.
	 */
	if (!kstream_ctrl_avail(kep) || kep->tx_busy ||
	    kstream_sbuf_queued(kep) || !kstream_may_send(kep)) {
		kep->ctrl_pending = ctrl;
		kstream_tx_waiter(kep);
		return -EAGAIN;
	}
	ret = kstream_post_ctrl(kep, NULL, NULL, 0, kep->remote_sgl.addr,
				kep->remote_sgl_key,
				kstream_msg(KSTREAM_OP_CTRL, ctrl), true);
	if (!ret) {
		kep->ctrl_seqno++;
		kep->ctrl_pending = -1;
	}
	return ret;
}

static u64 kstream_rbuf_addr(struct kstream_ep *kep, u32 off)
{
	if (kep->virt)
		return (u64)(uintptr_t)(kep->rbuf + off);
	return off;
}

/*
 * rsockets' rs_send_credits(): a ring half and/or credits (lock held); only
 * credits before the peer was heard (kstream_ep.peer_heard).
 */
static int kstream_send_credits(struct kstream_ep *kep)
{
	u32 half = kep->rbuf_size / 2;
	u32 imm = kstream_msg(KSTREAM_OP_SGL, (u16)(kep->rseq_no +
						    kep->rq_size));
	struct kstream_sge *slot;
	struct kvec iov;
	void *desc;
	int ret;

	if (kep->rbuf_avail >= half && kep->peer_heard) {
		slot = (struct kstream_sge *)(kep->sbuf + kep->sbuf_size) +
		       kep->ctrl_seqno % KSTREAM_CTRL_SLOTS;
		slot->addr = kstream_rbuf_addr(kep, kep->rbuf_free_off.count);
		slot->key = lower_32_bits(fi_mr_key(kep->rmr));
		slot->length = half;
		if (kep->swap_sgl)
			kstream_sge_swap(slot);
		iov.iov_base = slot;
		iov.iov_len = sizeof(*slot);
		desc = fi_mr_desc(kep->smr);
		ret = kstream_post_ctrl(kep, &iov, &desc, 1,
					kep->remote_sgl.addr + kep->remote_sge *
					sizeof(struct kstream_sge),
					kep->remote_sgl_key, imm, true);
		if (ret)
			return ret;
		kep->rbuf_avail -= half;
		kep->rbuf_adv += half;
		kstream_curs_add(kep->rbuf_size, &kep->rbuf_free_off, half);
		if (++kep->remote_sge == KSTREAM_SGL_SIZE)
			kep->remote_sge = 0;
	} else {
		/* the KUnit suites' hook: a hello the peer never reads */
		if (!kep->peer_heard && kstream_test_hello_lost())
			goto sent;
		ret = kstream_post_ctrl(kep, NULL, NULL, 0,
					kep->remote_sgl.addr,
					kep->remote_sgl_key, imm, true);
		if (ret)
			return ret;
	}
	kep->ctrl_seqno++;
sent:
	kep->rseq_comp = kep->rseq_no + kep->rq_size / 2;
	kep->hello_sent = true;
	return 0;
}

/**
 * kstream_update_credits() - give the peer ring space and credits when due
 * @kep: the endpoint (lock held)
 *
 * As rsockets: when half the ring or half the credits were consumed and a
 * control slot is free.  A control message waiting for a slot goes
 * first; one waiting for data (queued, or a send still copying) does not
 * hold the updates back: the peer may need them to make the room that
 * data waits for, and the message cannot go before the data.  What is then
 * left waiting for a transmit completion is noted (kstream_tx_waiter()).
 *
 * Context: any context, endpoint lock held.
 */
void kstream_update_credits(struct kstream_ep *kep)
{
	int ret;

	if (kep->state != KSTREAM_CONNECTED || kep->err)
		return;
	if (kep->ctrl_pending >= 0 && kstream_ctrl_avail(kep)) {
		ret = kstream_send_ctrl(kep, kep->ctrl_pending);
		if (ret && ret != -EAGAIN && ret != -ENOTCONN)
			kstream_fail(kep, -ret);
	}
	while (kstream_ctrl_avail(kep) &&
	       (kep->ctrl_pending < 0 || kstream_sbuf_queued(kep) ||
		kep->tx_busy) &&
	       kstream_update_due(kep)) {
		ret = kstream_send_credits(kep);
		if (ret) {
			if (ret != -EAGAIN && ret != -ENOTCONN)
				kstream_fail(kep, -ret);
			break;
		}
	}
	kstream_tx_note(kep);
}

/**
 * kstream_post_recvs() - post the receives still missing
 * @kep: the endpoint
 *
 * Zero-length receives for writes with immediate; in KSTREAM_MSG_SEND
 * mode each with its KSTREAM_MSG_SIZE-byte buffer.
 *
 * Context: any context; takes the endpoint lock.
 */
void kstream_post_recvs(struct kstream_ep *kep)
{
	struct fi_msg msg = { .iov_type = FI_IOV_KVEC, .addr = FI_ADDR_UNSPEC };
	struct kstream_req *req;
	struct kvec iov;
	int ret = 0;

	spin_lock_bh(&kep->lock);
	while (kep->core_ep && kep->state != KSTREAM_CLOSING &&
	       kep->rx_posted < kep->rq_size) {
		req = kstream_req_get(&kep->rx_free);
		if (!req)
			break;
		msg.context = &req->cqe;
		if (kep->mode == KSTREAM_MSG_SEND) {
			/*
			 * No descriptor: the MR may be registered only as
			 * the connection comes up (kstream_ep.peer_heard).
			 */
			iov.iov_base = req->slot;
			iov.iov_len = KSTREAM_MSG_SIZE;
			msg.msg_iov = &iov;
			msg.iov_count = 1;
		}
		ret = fi_recvmsg(kep->core_ep, &msg, FI_COMPLETION);
		if (ret) {
			kstream_req_put(&kep->rx_free, req);
			break;
		}
		kep->rx_posted++;
	}
	/* -ENOTCONN: the core connection is down, its EQ event tells why. */
	if (ret && ret != -EAGAIN && ret != -ENOTCONN &&
	    kep->state == KSTREAM_CONNECTED)
		kstream_fail(kep, -ret);
	spin_unlock_bh(&kep->lock);
}

/*
 * Take one off a count of requests at the core for a completion (lock
 * held).  A completion with none counted is a bug of the accounting: it
 * warns and ends the stream with EIO rather than wrapping the count.
 */
static void kstream_count_done(struct kstream_ep *kep, u32 *count)
{
	if (WARN_ON_ONCE(!*count)) {
		kstream_fail(kep, EIO);
		return;
	}
	(*count)--;
}

/* A transmit completion: the write is no longer out (lock held). */
static void kstream_tx_done(struct kstream_ep *kep, int err)
{
	kstream_count_done(kep, &kep->tx_out);
	/* Judged by kstream_progress_poll(), after the receives. */
	if (err && err != ECANCELED && !kep->tx_err)
		kep->tx_err = err;
}

/**
 * kstream_data_req_done() - a data write completed, or was not posted
 * @kep: the endpoint (lock held)
 * @req: its request; err 0 for a write that was not posted
 *
 * Gives the send slot, the send buffer's bytes and the request back.
 *
 * Context: any context, endpoint lock held.
 */
void kstream_data_req_done(struct kstream_ep *kep, struct kstream_req *req)
{
	kstream_tx_done(kep, req->err);
	kep->sqe_avail++;
	kep->sbuf_avail += req->len;
	kstream_req_put(&kep->data_free, req);
}

/* A control write completed: the control slot is free again (lock held). */
static void kstream_ctrl_req_done(struct kstream_ep *kep,
				  struct kstream_req *req)
{
	kstream_tx_done(kep, req->err);
	kep->ctrl_max_seqno++;
	kstream_req_put(&kep->ctrl_free, req);
}

/* Take a ring update the peer wrote into our target SGL (lock held). */
static int kstream_take_sge(struct kstream_ep *kep)
{
	struct kstream_sge *t = &kep->tsgl[kep->next_update];
	struct kstream_sge s;

	s.addr = READ_ONCE(t->addr);
	s.key = READ_ONCE(t->key);
	s.length = READ_ONCE(t->length);
	if (!s.length)
		return 0;	/* credits only */
	if (!kstream_sge_valid(&s, INT_MAX) ||
	    kep->target[kep->next_update].length)
		return -EPROTO;
	kep->target[kep->next_update] = s;
	memset(t, 0, sizeof(*t));
	kep->next_update ^= 1;
	return 0;
}

/*
 * The message a receive brought (lock held): the immediate, or in
 * KSTREAM_MSG_SEND mode the value of a KSTREAM_MSG_SIZE-byte send, as
 * rsockets reads either.  -EPROTO for anything else.
 */
static int kstream_rx_value(struct kstream_ep *kep, struct kstream_req *req,
			    u32 *msg)
{
	if (req->flags & FI_REMOTE_CQ_DATA) {
		*msg = req->data;
		return 0;
	}
	if (kep->mode != KSTREAM_MSG_SEND || !(req->flags & FI_RECV) ||
	    req->len != KSTREAM_MSG_SIZE)
		return -EPROTO;
	*msg = kstream_msg_get(req->slot, kep->peer_net);
	return 0;
}

/* A message from the peer (lock held). */
static void kstream_rx_msg(struct kstream_ep *kep, struct kstream_req *req)
{
	struct kstream_curs tail;
	u32 msg, data;

	if (kstream_rx_value(kep, req, &msg) ||
	    !kstream_msg_valid(msg, kep->iomap_size)) {
		kstream_fail(kep, EPROTO);
		return;
	}
	kep->peer_heard = true;
	data = kstream_msg_data(msg);
	switch (kstream_msg_op(msg)) {
	case KSTREAM_OP_DATA:
		if (data > kep->rbuf_adv || kstream_peer_eof(kep->peer_state) ||
		    kep->rmsg_count >= kep->rmsg_size) {
			kstream_fail(kep, EPROTO);
			return;
		}
		kep->rbuf_adv -= data;
		if (!data) {
			kep->rseq_no++;
			return;
		}
		tail = kstream_curs_next(kep->rmsg_size, &kep->rmsg_head,
					 kep->rmsg_count);
		kep->rmsg[tail.count] = data;
		kep->rmsg_count++;
		kep->rbuf_data += data;
		return;
	case KSTREAM_OP_SGL:
		if (!kstream_credits_ok(kep->sseq_no, kep->sseq_comp,
					(u16)data) || kstream_take_sge(kep)) {
			kstream_fail(kep, EPROTO);
			return;
		}
		kep->sseq_comp = data;
		return;
	case KSTREAM_OP_IOMAP_SGL:
		/* The peer spent a credit on it: count it as consumed. */
		if (kstream_iomap_rx(kep, data)) {
			kstream_fail(kep, EPROTO);
			return;
		}
		kep->rseq_no++;
		return;
	case KSTREAM_OP_CTRL:
		/* A SHUTDOWN after the DISCONNECT changes nothing. */
		if (data == KSTREAM_CTRL_DISCONNECT)
			kstream_set_peer_state(kep, KSTREAM_PEER_GONE);
		else if (data == KSTREAM_CTRL_SHUTDOWN)
			kstream_set_peer_state(kep, KSTREAM_PEER_SHUT);
		return;
	default:
		kstream_fail(kep, EPROTO);
	}
}

/* A receive completed: the peer's message, or its error (lock held). */
static void kstream_rx_req_done(struct kstream_ep *kep, struct kstream_req *req)
{
	kstream_count_done(kep, &kep->rx_posted);
	if (!req->err)
		kstream_rx_msg(kep, req);
	else if (req->err != ECANCELED && !kstream_peer_eof(kep->peer_state))
		kstream_fail(kep, req->err);
	kstream_req_put(&kep->rx_free, req);
}

/*
 * Take the requests completed on @done, oldest first, until it stays
 * empty, KSTREAM_TAKE_BATCH of them per hold of the endpoint lock, each
 * with @take (poll_mutex held).  True if there were any.
 */
static bool kstream_take(struct kstream_ep *kep, struct llist_head *done,
			 void (*take)(struct kstream_ep *kep,
				      struct kstream_req *req))
{
	struct llist_node *first;
	struct kstream_req *req;
	bool any = false;
	int n;

	while ((first = llist_del_all(done))) {
		first = llist_reverse_order(first);
		any = true;
		while (first) {
			spin_lock_bh(&kep->lock);
			for (n = 0; first && n < KSTREAM_TAKE_BATCH; n++) {
				req = llist_entry(first, struct kstream_req,
						  node);
				first = first->next;
				take(kep, req);
			}
			spin_unlock_bh(&kep->lock);
		}
	}
	return any;
}

/* The completed receives (poll_mutex held); true if there were any. */
static bool kstream_take_rx(struct kstream_ep *kep)
{
	return kstream_take(kep, &kep->rx_done, kstream_rx_req_done);
}

/* The completed writes (poll_mutex held). */
static void kstream_take_tx(struct kstream_ep *kep)
{
	kstream_take(kep, &kep->data_done, kstream_data_req_done);
	kstream_take(kep, &kep->ctrl_done, kstream_ctrl_req_done);
}

/*
 * Count a completion signal of the core (after the completion it signals);
 * true if a caller waits for the stream in ksk_wait_until() and takes the
 * completions itself.
 */
static bool kstream_cq_kick(struct kstream_ep *kep)
{
	/* The completion is on its list before a drain can see this kick. */
	smp_mb__before_atomic();
	atomic_inc(&kep->kicks);
	/* Pairs with a waiter leaving: it sees this kick, or this sees it gone. */
	smp_mb__after_atomic();
	return atomic_read(&kep->pollers);
}

static void kstream_rx_kick(struct kstream_ep *kep)
{
	if (!kstream_cq_kick(kep))
		queue_work(kstream_wq, &kep->work);
	wake_up_all(&kep->wq);
}

/*
 * A transmit completion gives back send buffer room, a send slot or a
 * control slot, which matter only to what waits for one: it wakes the
 * waiters, and queues the work unless a waiter takes the completions
 * itself, only if something noted that it waits (KSTREAM_TX_WAITERS,
 * kstream_tx_waiter(): a writer, a control message or ring update without
 * a slot, queued bytes, a mapping announcement, a close).  Otherwise the
 * completion waits on its list for the next drain, as TCP's write space
 * callback wakes only a writer that found no room (SOCK_NOSPACE).  This
 * spares a reader a wake-up per ring update it sends, and a writer that is
 * not short of room a run of the work per write.
 */
static void kstream_tx_kick(struct kstream_ep *kep)
{
	bool pollers = kstream_cq_kick(kep);

	/* The kick is ordered before the bit: see kstream_tx_waiter(). */
	if (!test_and_clear_bit(KSTREAM_TX_WAITERS, &kep->waiters))
		return;
	if (!pollers)
		queue_work(kstream_wq, &kep->work);
	wake_up_all(&kep->wq);
}

/* Keep what the progress needs of a completion, then list its request. */
static struct kstream_req *kstream_req_completed(struct fi_cqe *cqe,
						 const struct fi_cq_err_entry *comp)
{
	struct kstream_req *req = container_of(cqe, struct kstream_req, cqe);

	req->err = comp->err;
	req->flags = comp->flags;
	req->data = (u32)comp->data;
	return req;
}

/*
 * The done() of each kind: in the core's completion context, which must
 * not sleep; no lock of the stream is taken.
 */
static void kstream_recv_done(struct fid_cq *cq, struct fi_cqe *cqe,
			      const struct fi_cq_err_entry *comp)
{
	struct kstream_req *req = kstream_req_completed(cqe, comp);
	struct kstream_ep *kep = req->kep;

	req->len = comp->len;
	llist_add(&req->node, &kep->rx_done);
	kstream_rx_kick(kep);
}

static void kstream_data_done(struct fid_cq *cq, struct fi_cqe *cqe,
			      const struct fi_cq_err_entry *comp)
{
	struct kstream_req *req = kstream_req_completed(cqe, comp);
	struct kstream_ep *kep = req->kep;

	llist_add(&req->node, &kep->data_done);
	kstream_tx_kick(kep);
}

static void kstream_ctrl_done(struct fid_cq *cq, struct fi_cqe *cqe,
			      const struct fi_cq_err_entry *comp)
{
	struct kstream_req *req = kstream_req_completed(cqe, comp);
	struct kstream_ep *kep = req->kep;

	llist_add(&req->node, &kep->ctrl_done);
	kstream_tx_kick(kep);
}

/*
 * The completion of the RMA write before a message's send (KSTREAM_MSG_SEND
 * mode): the send after it completes the request, and fails if the write
 * failed, so there is nothing to do; the request may already be reused.
 */
static void kstream_write_done(struct fid_cq *cq, struct fi_cqe *cqe,
			       const struct fi_cq_err_entry *comp)
{
}

/* Put @n requests from @req on, of kind @done, on the free list @free. */
static struct kstream_req *
kstream_reqs_kind(struct kstream_ep *kep, struct kstream_req *req, u32 n,
		  void (*done)(struct fid_cq *cq, struct fi_cqe *cqe,
			       const struct fi_cq_err_entry *comp),
		  struct kstream_req **free)
{
	*free = NULL;
	for (; n; n--, req++) {
		req->cqe.done = done;
		req->wcqe.done = kstream_write_done;
		req->kep = kep;
		kstream_req_put(free, req);
	}
	return req;
}

/**
 * kstream_reqs_init() - allocate the requests of an endpoint being enabled
 * @kep: the endpoint, sq_size, rq_size, mode and rbuf set, not live yet
 *
 * One data write request per data send slot, one control write request per
 * control slot, one receive request per receive; in KSTREAM_MSG_SEND mode
 * each receive request gets its buffer after the receive ring.
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int kstream_reqs_init(struct kstream_ep *kep)
{
	struct kstream_req *req;
	u32 i;

	kep->reqs = kvcalloc(kep->sq_size + kep->rq_size, sizeof(*kep->reqs),
			     GFP_KERNEL);
	if (!kep->reqs)
		return -ENOMEM;
	req = kstream_reqs_kind(kep, kep->reqs,
				kep->sq_size - KSTREAM_CTRL_SLOTS,
				kstream_data_done, &kep->data_free);
	req = kstream_reqs_kind(kep, req, KSTREAM_CTRL_SLOTS,
				kstream_ctrl_done, &kep->ctrl_free);
	kstream_reqs_kind(kep, req, kep->rq_size, kstream_recv_done,
			  &kep->rx_free);
	/* KSTREAM_MSG_SEND: each receive's buffer, after the ring */
	if (kep->mode == KSTREAM_MSG_SEND)
		for (i = 0; i < kep->rq_size; i++)
			req[i].slot = kep->rbuf + kep->rbuf_size +
				      i * KSTREAM_MSG_SIZE;
	init_llist_head(&kep->rx_done);
	init_llist_head(&kep->data_done);
	init_llist_head(&kep->ctrl_done);
	return 0;
}

/**
 * kstream_reqs_release() - free the requests
 * @kep: the endpoint, its core endpoint closed (nothing can complete) and
 *	its progress stopped
 *
 * Context: process context.
 */
void kstream_reqs_release(struct kstream_ep *kep)
{
	init_llist_head(&kep->rx_done);
	init_llist_head(&kep->data_done);
	init_llist_head(&kep->ctrl_done);
	kep->data_free = NULL;
	kep->ctrl_free = NULL;
	kep->rx_free = NULL;
	kvfree(kep->reqs);
	kep->reqs = NULL;
}

/*
 * Take the core's completions (receives first), repost receives, send
 * what is due (poll_mutex held).
 */
static void kstream_progress_poll_locked(struct kstream_ep *kep)
{
	int kicks = atomic_read(&kep->kicks);
	bool rx;
	int err;

	/* The completions signalled so far are taken below. */
	smp_rmb();
	/* A DISCONNECT received goes before the failures it explains. */
	rx = kstream_take_rx(kep);
	kstream_take_tx(kep);
	atomic_set(&kep->drained, kicks);
	spin_lock_bh(&kep->lock);
	err = kep->tx_err;
	spin_unlock_bh(&kep->lock);
	if (err) {
		/*
		 * The core may have completed the DISCONNECT's receive after
		 * the receives were taken and before the failed write: look
		 * again before calling it a stream error.
		 */
		rx |= kstream_take_rx(kep);
		spin_lock_bh(&kep->lock);
		kep->tx_err = 0;
		if (!kstream_after_disconnect(kep))
			kstream_fail(kep, err);
		spin_unlock_bh(&kep->lock);
	}
	if (rx)
		kstream_post_recvs(kep);
	spin_lock_bh(&kep->lock);
	kstream_tx_push(kep);
	kstream_update_credits(kep);
	if (kep->iomap_pending && !kstream_tx_check(kep))
		kstream_iomap_flush(kep);
	spin_unlock_bh(&kep->lock);
}

static void kstream_progress_poll(struct kstream_ep *kep)
{
	mutex_lock(&kep->poll_mutex);
	kstream_progress_poll_locked(kep);
	mutex_unlock(&kep->poll_mutex);
}

/**
 * kstream_ep_progress() - take the core's completions from a waiting caller
 * @kep: the endpoint
 *
 * Unless another context is taking them (it then wakes the waiters when
 * done), or the stream is not connected or closing.
 *
 * Context: process context, the task running (the core provider may
 * wait briefly for its socket); no lock of the stream held.
 * Return: true if it took them: every completion signalled (kicks) before
 * the call has been taken.
 */
bool kstream_ep_progress(struct kstream_ep *kep)
{
	bool go;

	if (!mutex_trylock(&kep->poll_mutex))
		return false;
	spin_lock_bh(&kep->lock);
	go = kep->state == KSTREAM_CONNECTED && kep->core_ep;
	spin_unlock_bh(&kep->lock);
	if (go)
		kstream_progress_poll_locked(kep);
	mutex_unlock(&kep->poll_mutex);
	return go;
}

/*
 * The connecting side in KSTREAM_MSG_SEND mode has sent its hello and not
 * yet heard the peer (lock held): the hello is repeated (@hello_sent).
 */
static bool kstream_hello_pending(const struct kstream_ep *kep)
{
	return kep->mode == KSTREAM_MSG_SEND && kep->active &&
	       !kep->peer_heard;
}

/*
 * Send the hello again (lock held) and schedule the next repeat; the
 * peer takes a repeated hello as any credits-only message.
 */
static void kstream_hello_again(struct kstream_ep *kep)
{
	if (kstream_ctrl_avail(kep)) {
		kep->hello_sent = false;
		kstream_update_credits(kep);
	}
	queue_delayed_work(kstream_wq, &kep->keepalive, kep->hello_again);
	kep->hello_again = min_t(unsigned long, 2 * kep->hello_again,
				 KSTREAM_HELLO_AGAIN_MAX);
}

/**
 * kstream_connected() - the connection is up: start the stream
 * @kep: the endpoint
 *
 * Context: process context (the progress work).
 */
void kstream_connected(struct kstream_ep *kep)
{
	unsigned long delay;
	size_t ka;

	spin_lock_bh(&kep->lock);
	kstream_set_state(kep, KSTREAM_CONNECTED);
	ka = kep->opts.keepalive;
	spin_unlock_bh(&kep->lock);
	kstream_post_recvs(kep);
	spin_lock_bh(&kep->lock);
	kstream_update_credits(kep);
	/* the keepalive work repeats the hello first (kstream_ep.hello_sent) */
	delay = kstream_hello_pending(kep) ? kep->hello_again : ka * HZ;
	if (delay && kep->state != KSTREAM_CLOSING)
		queue_delayed_work(kstream_wq, &kep->keepalive, delay);
	spin_unlock_bh(&kep->lock);
}

/**
 * kstream_progress_work() - the progress of one endpoint
 * @work: kstream_ep.work
 *
 * Kicked by the core's completions (done()) and EQ and by stream errors.
 *
 * Context: workqueue (process context).
 */
void kstream_progress_work(struct work_struct *work)
{
	struct kstream_ep *kep = container_of(work, struct kstream_ep, work);
	struct {
		struct fi_eq_cm_entry e;
		u8 data[FI_CM_DATA_MAX];
	} ent;
	struct fi_eq_err_entry eqerr;
	bool report, stop;
	u32 event;
	ssize_t n;
	int err;

	spin_lock_bh(&kep->lock);
	stop = kep->state == KSTREAM_CLOSING || !kep->core_ep;
	spin_unlock_bh(&kep->lock);
	if (stop)
		return;

	kstream_progress_poll(kep);
	for (;;) {
		n = fi_eq_read(kep->core_eq, &event, &ent, sizeof(ent), 0);
		if (n == -FI_EAVAIL) {
			memset(&eqerr, 0, sizeof(eqerr));
			if (fi_eq_readerr(kep->core_eq, &eqerr, 0) < 0)
				break;
			kstream_progress_poll(kep);
			kstream_cm_error(kep, eqerr.err ? eqerr.err : EIO);
			continue;
		}
		if (n < 0)
			break;
		/* What the core completed before the event comes first. */
		kstream_progress_poll(kep);
		kstream_cm_event(kep, event, ent.data,
				 n - (ssize_t)sizeof(ent.e));
	}

	spin_lock_bh(&kep->lock);
	report = kep->err_report;
	kep->err_report = false;
	err = kep->err;
	spin_unlock_bh(&kep->lock);
	if (report) {
		kofi_eq_write_err(kofi_ep_eq(&kep->ep), &kep->ep.fid, kep->ep.fid.context,
				  err, 0, NULL, 0);
		fi_shutdown(kep->core_ep, 0);
	}
	kstream_wake(kep);
}

/**
 * kstream_keepalive_work() - send a keepalive when nothing was sent
 * @work: kstream_ep.keepalive
 *
 * A zero-length plain RDMA write, as rsockets sends; it fails the stream
 * through its completion if the peer is gone.  Until the peer is heard,
 * the connecting side in KSTREAM_MSG_SEND mode sends its hello again
 * instead (kstream_ep.hello_sent).
 *
 * Context: workqueue (process context).
 */
void kstream_keepalive_work(struct work_struct *work)
{
	struct kstream_ep *kep = container_of(to_delayed_work(work),
					      struct kstream_ep, keepalive);
	int ret;

	spin_lock_bh(&kep->lock);
	if (kep->state != KSTREAM_CONNECTED) {
		spin_unlock_bh(&kep->lock);
		return;
	}
	if (kstream_hello_pending(kep)) {
		kstream_hello_again(kep);
		spin_unlock_bh(&kep->lock);
		return;
	}
	if (!kep->opts.keepalive) {
		spin_unlock_bh(&kep->lock);
		return;
	}
	if (!kep->tx_sent_since && kstream_ctrl_avail(kep) && kep->peer_heard) {
		ret = kstream_post_ctrl(kep, NULL, NULL, 0,
					kep->remote_sgl.addr,
					kep->remote_sgl_key,
					kstream_msg(KSTREAM_OP_CTRL,
						    KSTREAM_CTRL_KEEPALIVE),
					false);
		if (!ret)
			kep->ctrl_seqno++;
		else if (ret != -EAGAIN && ret != -ENOTCONN)
			kstream_fail(kep, -ret);
	}
	kep->tx_sent_since = false;
	queue_delayed_work(kstream_wq, &kep->keepalive,
			   kep->opts.keepalive * HZ);
	spin_unlock_bh(&kep->lock);
}
