// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: progress - the core completions, receive credits and ring
 * updates, control messages, keepalive and stream errors.
 *
 * Every message is an RMA write with 32 bits of remote CQ data (rsockets'
 * write with immediate), each consuming one of the zero-length receives
 * posted on the core endpoint.  The functions marked "lock held" run under
 * kstream_ep.lock and never sleep.
 */
#include <linux/slab.h>
#include "kstream.h"

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
	if (kep->err || kep->closing)
		return;
	kep->err = err;
	kep->err_report = true;
	if (kep->state == KSTREAM_CONNECTED || kep->state == KSTREAM_CONNECTING)
		kep->state = KSTREAM_DOWN;
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
	if (!kep->peer_gone || kep->err)
		return false;
	kep->tx_lost = true;
	return true;
}

/**
 * kstream_core_write() - post an RMA write on a core endpoint
 * @core: the core endpoint
 * @iov: local source, or NULL for a zero-length write
 * @desc: descriptors of @iov
 * @cnt: entries of @iov
 * @addr: remote address
 * @key: remote key
 * @imm: the immediate (remote CQ data)
 * @ctx: transmit context (kind | value << 2)
 * @with_imm: false for a plain write (keepalive, iowrite)
 *
 * Context: any context; sleeps only as the core's data calls do (ksocket's
 * may wait briefly for their socket when the context may sleep).
 * Return: 0 or the core's error.
 */
int kstream_core_write(struct fid_ep *core, struct kvec *iov, void **desc,
		       size_t cnt, u64 addr, u64 key, u32 imm,
		       unsigned long ctx, bool with_imm)
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
		.context = (void *)ctx,
		.data = imm,
	};
	size_t i;

	for (i = 0; i < cnt; i++)
		rma.len += iov[i].iov_len;
	return fi_writemsg(core, &msg, FI_COMPLETION |
			   (with_imm ? FI_REMOTE_CQ_DATA : 0));
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

/**
 * kstream_post_write() - post an RMA write to the peer (lock held)
 * @kep: the endpoint
 * @iov: local source, or NULL for a zero-length write
 * @desc: descriptors of @iov
 * @cnt: entries of @iov
 * @addr: remote address
 * @key: remote key
 * @imm: the immediate (remote CQ data)
 * @ctx: transmit context (kind | value << 2)
 * @with_imm: false for a plain write (keepalive)
 *
 * Context: any context, endpoint lock held.
 * Return: 0 or the core's error.
 */
int kstream_post_write(struct kstream_ep *kep, struct kvec *iov,
		       void **desc, size_t cnt, u64 addr, u64 key,
		       u32 imm, unsigned long ctx, bool with_imm)
{
	int ret;

	if (!kep->core_ep || kep->closing)
		return -ENOTCONN;
	ret = kstream_core_write(kep->core_ep, iov, desc, cnt, addr, key, imm,
				 ctx, with_imm);
	if (!ret)
		kstream_tx_posted(kep);
	return ret;
}

static bool kstream_ctrl_avail(struct kstream_ep *kep)
{
	return kep->ctrl_seqno != kep->ctrl_max_seqno;
}

/**
 * kstream_tx_waiter() - note that something waits for a transmit completion
 * @kep: the endpoint
 *
 * Sets KSTREAM_TX_WAITERS, which makes the transmit CQ handler wake the
 * waiters and see to the CQs (kstream_tx_cq_handler()).  A completion
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
	/* Pairs with kstream_tx_cq_handler(). */
	smp_mb__after_atomic();
	if (atomic_read(&kep->kicks) != atomic_read(&kep->drained))
		queue_work(kstream_wq, &kep->work);
}

/* Half the ring or half the credits were consumed (lock held). */
static bool kstream_update_due(struct kstream_ep *kep)
{
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
	    (kep->sbuf_queued && !kep->sqe_avail) ||
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
 * while bytes are queued in the send buffer, once they are written.
 *
 * Context: any context, endpoint lock held.
 * Return: 0 if posted; -EAGAIN if deferred; the core's error.
 */
int kstream_send_ctrl(struct kstream_ep *kep, u32 ctrl)
{
	int ret;

	/* The data goes first: kstream_tx_end() or the progress sends it. */
	if (!kstream_ctrl_avail(kep) || kep->tx_busy || kep->sbuf_queued) {
		kep->ctrl_pending = ctrl;
		kstream_tx_waiter(kep);
		return -EAGAIN;
	}
	ret = kstream_post_write(kep, NULL, NULL, 0, kep->remote_sgl.addr,
				 kep->remote_sgl_key,
				 kstream_msg(KSTREAM_OP_CTRL, ctrl),
				 ctrl << 2 | KSTREAM_TX_CTRL, true);
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

/* rsockets' rs_send_credits(): a ring half and/or credits (lock held). */
static int kstream_send_credits(struct kstream_ep *kep)
{
	u32 half = kep->rbuf_size / 2;
	u32 imm = kstream_msg(KSTREAM_OP_SGL, (u16)(kep->rseq_no +
						    kep->rq_size));
	struct kstream_sge *slot;
	struct kvec iov;
	void *desc;
	int ret;

	if (kep->rbuf_avail >= half) {
		slot = (struct kstream_sge *)(kep->sbuf + kep->sbuf_size) +
		       kep->ctrl_seqno % KSTREAM_CTRL_SLOTS;
		slot->addr = kstream_rbuf_addr(kep, kep->rbuf_free_off);
		slot->key = lower_32_bits(fi_mr_key(kep->rmr));
		slot->length = half;
		if (kep->swap_sgl)
			kstream_sge_swap(slot);
		iov.iov_base = slot;
		iov.iov_len = sizeof(*slot);
		desc = fi_mr_desc(kep->smr);
		ret = kstream_post_write(kep, &iov, &desc, 1,
					 kep->remote_sgl.addr + kep->remote_sge *
					 sizeof(struct kstream_sge),
					 kep->remote_sgl_key, imm,
					 KSTREAM_TX_CTRL, true);
		if (ret)
			return ret;
		kep->rbuf_avail -= half;
		kep->rbuf_adv += half;
		kep->rbuf_free_off += half;
		if (kep->rbuf_free_off >= kep->rbuf_size)
			kep->rbuf_free_off = 0;
		if (++kep->remote_sge == KSTREAM_SGL_SIZE)
			kep->remote_sge = 0;
	} else {
		ret = kstream_post_write(kep, NULL, NULL, 0,
					 kep->remote_sgl.addr,
					 kep->remote_sgl_key, imm,
					 KSTREAM_TX_CTRL, true);
		if (ret)
			return ret;
	}
	kep->ctrl_seqno++;
	kep->rseq_comp = kep->rseq_no + kep->rq_size / 2;
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
	       (kep->ctrl_pending < 0 || kep->sbuf_queued || kep->tx_busy) &&
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
 * kstream_post_recvs() - post the zero-length receives still missing
 * @kep: the endpoint
 *
 * Context: any context; takes the endpoint lock.
 */
void kstream_post_recvs(struct kstream_ep *kep)
{
	struct fi_msg msg = { .iov_type = FI_IOV_KVEC, .addr = FI_ADDR_UNSPEC };
	int ret = 0;

	spin_lock_bh(&kep->lock);
	while (kep->core_ep && !kep->closing && kep->rx_posted < kep->rq_size) {
		ret = fi_recvmsg(kep->core_ep, &msg, FI_COMPLETION);
		if (ret)
			break;
		kep->rx_posted++;
	}
	/* -ENOTCONN: the core connection is down, its EQ event tells why. */
	if (ret && ret != -EAGAIN && ret != -ENOTCONN &&
	    kep->state == KSTREAM_CONNECTED)
		kstream_fail(kep, -ret);
	spin_unlock_bh(&kep->lock);
}

/**
 * kstream_tx_done() - a transmit completion, or a write that was not posted
 * @kep: the endpoint (lock held)
 * @ctx: its transmit context (kind | value << 2)
 * @err: its error (positive errno), 0 for none
 *
 * Gives the send slot and the send buffer's bytes (data) or the control
 * slot back.
 *
 * Context: any context, endpoint lock held.
 */
void kstream_tx_done(struct kstream_ep *kep, unsigned long ctx, int err)
{
	if (kep->tx_out)
		kep->tx_out--;
	switch (ctx & 3) {
	case KSTREAM_TX_DATA:
		kep->sqe_avail++;
		kep->sbuf_avail += ctx >> 2;
		break;
	default:
		kep->ctrl_max_seqno++;
		break;
	}
	/* Judged by kstream_progress_poll(), after the receive CQ. */
	if (err && err != ECANCELED && !kep->tx_err)
		kep->tx_err = err;
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

/* A message from the peer (lock held). */
static void kstream_rx_msg(struct kstream_ep *kep, u64 flags, u32 msg)
{
	u32 data = kstream_msg_data(msg);

	if (!(flags & FI_REMOTE_CQ_DATA) ||
	    !kstream_msg_valid(msg, kep->iomap_size)) {
		kstream_fail(kep, EPROTO);
		return;
	}
	switch (kstream_msg_op(msg)) {
	case KSTREAM_OP_DATA:
		if (data > kep->rbuf_adv || kep->rd_eof ||
		    kep->rmsg_count >= kep->rmsg_size) {
			kstream_fail(kep, EPROTO);
			return;
		}
		kep->rbuf_adv -= data;
		if (!data) {
			kep->rseq_no++;
			return;
		}
		kep->rmsg[(kep->rmsg_head + kep->rmsg_count) % kep->rmsg_size] =
			data;
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
		if (data == KSTREAM_CTRL_DISCONNECT) {
			kep->rd_eof = true;
			kep->peer_gone = true;
		} else if (data == KSTREAM_CTRL_SHUTDOWN) {
			kep->rd_eof = true;
		}
		return;
	default:
		kstream_fail(kep, EPROTO);
	}
}

static bool kstream_poll_cq(struct kstream_ep *kep, struct fid_cq *cq,
			    bool tx)
{
	struct fi_cq_data_entry e[8];
	struct fi_cq_err_entry err;
	bool any = false;
	ssize_t n, i;

	for (;;) {
		n = fi_cq_read(cq, e, ARRAY_SIZE(e));
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (fi_cq_readerr(cq, &err, 0) != 1)
				break;
			spin_lock_bh(&kep->lock);
			if (tx) {
				kstream_tx_done(kep, (unsigned long)
						err.op_context, err.err);
			} else {
				if (kep->rx_posted)
					kep->rx_posted--;
				if (err.err != ECANCELED && !kep->rd_eof)
					kstream_fail(kep, err.err ? err.err :
						     EIO);
			}
			spin_unlock_bh(&kep->lock);
			any = true;
			continue;
		}
		if (n <= 0)
			break;
		spin_lock_bh(&kep->lock);
		for (i = 0; i < n; i++) {
			if (tx) {
				kstream_tx_done(kep, (unsigned long)
						e[i].op_context, 0);
			} else {
				if (kep->rx_posted)
					kep->rx_posted--;
				kstream_rx_msg(kep, e[i].flags, (u32)e[i].data);
			}
		}
		spin_unlock_bh(&kep->lock);
		any = true;
	}
	return any;
}

/*
 * Drain both core CQs (receives first), repost receives, send what is due
 * (poll_mutex held).
 */
static void kstream_progress_poll_locked(struct kstream_ep *kep)
{
	int kicks = atomic_read(&kep->kicks);
	bool rx;
	int err;

	/* The completions signalled so far are read below. */
	smp_rmb();
	/* A DISCONNECT received goes before the failures it explains. */
	rx = kstream_poll_cq(kep, kep->rx_cq, false);
	kstream_poll_cq(kep, kep->tx_cq, true);
	atomic_set(&kep->drained, kicks);
	spin_lock_bh(&kep->lock);
	err = kep->tx_err;
	spin_unlock_bh(&kep->lock);
	if (err) {
		/*
		 * The core may have completed the DISCONNECT's receive after
		 * the receive CQ was read and before the failed write: look
		 * again before calling it a stream error.
		 */
		rx |= kstream_poll_cq(kep, kep->rx_cq, false);
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
 * kstream_ep_progress() - drain the core CQs from a waiting caller
 * @kep: the endpoint
 *
 * Unless another context is draining them (it then wakes the waiters when
 * done), or the stream is not connected or closing.
 *
 * Context: process context, the task running (the core provider may
 * wait briefly for its socket); no lock of the stream held.
 * Return: true if it drained them: every completion signalled (kicks)
 * before the call has been taken.
 */
bool kstream_ep_progress(struct kstream_ep *kep)
{
	bool go;

	if (!mutex_trylock(&kep->poll_mutex))
		return false;
	spin_lock_bh(&kep->lock);
	go = kep->state == KSTREAM_CONNECTED && !kep->closing && kep->core_ep;
	spin_unlock_bh(&kep->lock);
	if (go)
		kstream_progress_poll_locked(kep);
	mutex_unlock(&kep->poll_mutex);
	return go;
}

/**
 * kstream_connected() - the connection is up: start the stream
 * @kep: the endpoint
 *
 * Context: process context (the progress work).
 */
void kstream_connected(struct kstream_ep *kep)
{
	size_t ka;

	spin_lock_bh(&kep->lock);
	if (kep->state == KSTREAM_CONNECTING)
		kep->state = KSTREAM_CONNECTED;
	ka = kep->opts.keepalive;
	spin_unlock_bh(&kep->lock);
	kstream_post_recvs(kep);
	spin_lock_bh(&kep->lock);
	kstream_update_credits(kep);
	if (ka && !kep->closing)
		queue_delayed_work(kstream_wq, &kep->keepalive, ka * HZ);
	spin_unlock_bh(&kep->lock);
}

/**
 * kstream_progress_work() - the progress of one endpoint
 * @work: kstream_ep.work
 *
 * Kicked by the core CQs and EQ and by stream errors.
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
	stop = kep->closing || !kep->core_ep;
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
		kofi_eq_write_err(kep->eq, &kep->ep.fid, kep->ep.fid.context,
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
 * through its completion if the peer is gone.
 *
 * Context: workqueue (process context).
 */
void kstream_keepalive_work(struct work_struct *work)
{
	struct kstream_ep *kep = container_of(to_delayed_work(work),
					      struct kstream_ep, keepalive);
	int ret;

	spin_lock_bh(&kep->lock);
	if (kep->state != KSTREAM_CONNECTED || kep->closing) {
		spin_unlock_bh(&kep->lock);
		return;
	}
	if (!kep->tx_sent_since && kstream_ctrl_avail(kep)) {
		ret = kstream_post_write(kep, NULL, NULL, 0,
					 kep->remote_sgl.addr,
					 kep->remote_sgl_key,
					 kstream_msg(KSTREAM_OP_CTRL,
						     KSTREAM_CTRL_KEEPALIVE),
					 KSTREAM_TX_KEEPALIVE, false);
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
