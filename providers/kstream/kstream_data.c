// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: the data calls - stream semantics on fi_send/fi_recv and their
 * v/msg forms, FI_PEEK, readiness (kstream_ep_poll()).
 *
 * A send copies what fits into the send buffer and writes it into the
 * peer's receive ring at once where the ring has room (rsockets' rsend());
 * bytes the ring has no room for yet stay queued in the send buffer and go
 * as soon as the peer gives room back, in as few writes as the ring allows
 * (kstream_tx_push()).  A receive copies out of the receive ring
 * (rrecv()).  Both return the byte count (partial counts allowed), -EAGAIN
 * when nothing fits or nothing has arrived, 0 at the end of the stream, a
 * negative errno after an error.  No completions are written: kstream has
 * no CQs.  Every call takes only the endpoint's spinlock (a bottom-half
 * lock: the core providers' data paths take bottom-half locks too): any
 * context but hard interrupts and interrupts disabled.  A send whose bytes
 * are the only ones to write posts its write with the lock dropped
 * (kstream_tx_write_prep()); when the send's caller promised that it may
 * sleep (FI_MAY_SLEEP in the send's flags, or FI_OPT_DATA_MAY_SLEEP on the
 * endpoint) that write carries FI_MAY_SLEEP, so that a core provider that
 * can (ksocket) sends it from the caller's context, which may then wait
 * briefly for the core's socket.  Every other write to the peer is posted
 * with the lock held, or from the progress, and may come from any
 * context: it carries no such promise.
 *
 * The copies between the caller's buffers and the rings run with that
 * lock dropped (by the calls themselves: no helper drops a lock its
 * caller holds): a copy can be long, and the progress (core completions,
 * credits) must not spin on the lock meanwhile with bottom halves off.
 * While a send copies, tx_busy keeps the send side to it: other sends,
 * iowrite, mapping announcements and control messages (which must follow
 * the data) wait, and what the copy was planned on can only grow in the
 * meantime; the progress may write queued bytes meanwhile, which are
 * before the copy's.  Iowrite, mapping announcements and control messages
 * also wait for the queue to empty.  While a receive copies, rx_busy
 * keeps the ring's unread bytes to it.  A call that finds its direction
 * busy returns -EAGAIN, as when nothing fits or nothing has arrived, and
 * readiness says so; waiters are woken when it frees.
 */
#include <linux/bvec.h>
#include <linux/scatterlist.h>
#include <linux/uio.h>
#include "kstream.h"

/**
 * kstream_vec_init() - wrap a caller's vector for the copies
 * @v: the wrapper
 * @dir: ITER_SOURCE (send) or ITER_DEST (receive)
 * @type: FI_IOV_KVEC, FI_IOV_BVEC or FI_IOV_SG
 * @vec: the vector
 * @count: its entries, at most KSTREAM_IOV_LIMIT
 *
 * Context: any context.
 * Return: 0, or -EINVAL for a bad vector; @v->len is at most INT_MAX.
 */
int kstream_vec_init(struct kstream_vec *v, unsigned int dir,
		     enum fi_iov_type type, const void *vec, size_t count)
{
	const struct kvec *kv = vec;
	const struct bio_vec *bv = vec;
	struct scatterlist *sg;
	size_t i;

	if (count > KSTREAM_IOV_LIMIT)
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	v->type = type;
	switch (type) {
	case FI_IOV_KVEC:
		for (i = 0; i < count; i++) {
			if (!kv[i].iov_base && kv[i].iov_len)
				return -EINVAL;
			v->len += kv[i].iov_len;
		}
		iov_iter_kvec(&v->it, dir, kv, count, v->len);
		break;
	case FI_IOV_BVEC:
		for (i = 0; i < count; i++)
			v->len += bv[i].bv_len;
		iov_iter_bvec(&v->it, dir, bv, count, v->len);
		break;
	case FI_IOV_SG:
		v->sg = (struct scatterlist *)vec;
		v->nents = count;
		for (sg = v->sg, i = 0; sg && i < count; sg = sg_next(sg), i++)
			v->len += sg->length;
		if (i < count)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (v->len > INT_MAX)
		v->len = INT_MAX;
	return 0;
}

/* Copy @len bytes from the vector to @dst. */
static void kstream_vec_get(struct kstream_vec *v, void *dst, size_t len)
{
	if (v->type == FI_IOV_SG) {
		sg_pcopy_to_buffer(v->sg, v->nents, dst, len, v->skip);
		v->skip += len;
	} else if (copy_from_iter(dst, len, &v->it) != len) {
		WARN_ON_ONCE(1);
	}
}

/* Undo the last kstream_vec_get() of @len bytes. */
static void kstream_vec_unget(struct kstream_vec *v, size_t len)
{
	if (v->type == FI_IOV_SG)
		v->skip -= len;
	else
		iov_iter_revert(&v->it, len);
}

/* Copy @len bytes from @src into the vector. */
static void kstream_vec_put(struct kstream_vec *v, const void *src,
			    size_t len)
{
	if (v->type == FI_IOV_SG) {
		sg_pcopy_from_buffer(v->sg, v->nents, src, len, v->skip);
		v->skip += len;
	} else if (copy_to_iter(src, len, &v->it) != len) {
		WARN_ON_ONCE(1);
	}
}

/*
 * Copy @n bytes between the vector and @ring (@size bytes) at @off,
 * wrapping at its end; into the ring if @in.  Called with the endpoint
 * lock dropped, by the holder of the direction (tx_busy or rx_busy).
 */
static void kstream_ring_copy(struct kstream_vec *v, u8 *ring, u32 size,
			      u32 off, u32 n, bool in)
{
	u32 first = min(n, size - off);

	if (in) {
		kstream_vec_get(v, ring + off, first);
		if (n > first)
			kstream_vec_get(v, ring, n - first);
	} else {
		kstream_vec_put(v, ring + off, first);
		if (n > first)
			kstream_vec_put(v, ring, n - first);
	}
}

/**
 * kstream_sbuf_copy() - copy the next @x bytes of a send into the buffer
 * @kep: the endpoint (lock not held, kep->tx_busy claimed by the caller)
 * @v: the source, advanced by @x
 * @x: bytes, as planned by kstream_tx_chunk()
 *
 * The bytes go to the send buffer at sbuf_tail, after the queued ones, an
 * end that only the holder of tx_busy moves (the progress writing queued
 * bytes moves sbuf_head).  The caller drops the endpoint lock around the
 * copy, checks the stream again once it holds the lock again, then
 * queues the bytes (kstream_sbuf_queue()) or gives them back
 * (kstream_tx_undo()).
 *
 * Context: any context but hard interrupts, endpoint lock not held.
 */
void kstream_sbuf_copy(struct kstream_ep *kep, struct kstream_vec *v, u32 x)
{
	kstream_ring_copy(v, kep->sbuf, kep->sbuf_size, kep->sbuf_tail.count,
			  x, true);
}

/**
 * kstream_sbuf_queue() - queue the @x bytes copied at the send buffer's tail
 * @kep: the endpoint (lock held, kep->tx_busy claimed by the caller or
 *	clear)
 * @x: bytes, taken out of sbuf_avail
 *
 * Context: any context, endpoint lock held.
 */
void kstream_sbuf_queue(struct kstream_ep *kep, u32 x)
{
	kstream_curs_add(kep->sbuf_size, &kep->sbuf_tail, x);
}

/**
 * kstream_tx_undo() - a write copied by kstream_sbuf_copy() did not go
 * @kep: the endpoint (lock held)
 * @v: its source, given its @x bytes back
 * @x: bytes
 * @err: why: the stream's state (kstream_tx_check()) or the core's error
 *
 * An error of the core other than a full queue or a connection going
 * down (its EQ event is on its way) fails the stream.
 *
 * Context: any context, endpoint lock held.
 * Return: @err to report, or 0 when the caller is just to try again later.
 */
int kstream_tx_undo(struct kstream_ep *kep, struct kstream_vec *v, u32 x,
		    int err)
{
	kstream_vec_unget(v, x);
	if (err == -EAGAIN || err == -ENOTCONN)
		return 0;
	if (!kstream_tx_check(kep))
		kstream_fail(kep, -err);
	return err;
}

/**
 * kstream_busy_claim() - take a direction of the stream for a copy
 * @kep: the endpoint (lock held)
 * @busy: &kep->tx_busy or &kep->rx_busy
 *
 * Context: any context, endpoint lock held.
 * Return: true if taken; false if another call has it (it wakes the
 * waiters when done).
 */
bool kstream_busy_claim(struct kstream_ep *kep, bool *busy)
{
	if (*busy) {
		set_bit(KSTREAM_BUSY_WAITERS, &kep->waiters);
		return false;
	}
	WRITE_ONCE(*busy, true);
	return true;
}

/*
 * Give a direction back (lock held).  True if a call or a poll found it
 * busy: the caller then calls kstream_wake() once it has dropped the lock.
 */
static bool kstream_busy_end(struct kstream_ep *kep, bool *busy)
{
	WRITE_ONCE(*busy, false);
	/* Pairs with kstream_busy_now(): one of us sees the other. */
	smp_mb();
	return test_bit(KSTREAM_BUSY_WAITERS, &kep->waiters) &&
	       test_and_clear_bit(KSTREAM_BUSY_WAITERS, &kep->waiters);
}

/* Lockless: is a direction busy?  If so, its end wakes the poller. */
static bool kstream_busy_now(struct kstream_ep *kep, const bool *busy)
{
	if (!READ_ONCE(*busy))
		return false;
	set_bit(KSTREAM_BUSY_WAITERS, &kep->waiters);
	/* Pairs with kstream_busy_end(): the bit is seen, or busy is clear. */
	smp_mb__after_atomic();
	return READ_ONCE(*busy);
}

static void kstream_tx_state(struct kstream_ep *kep, struct kstream_tx_state *s)
{
	s->olen = kep->tx_olen;
	s->sbuf_avail = kep->sbuf_avail;
	s->sqe_avail = kep->sqe_avail;
	/* No data write before the peer was heard (kstream_ep.peer_heard). */
	s->credits = kep->peer_heard ? (u16)(kep->sseq_comp - kep->sseq_no) : 0;
	s->target = kep->target[kep->target_sge].length;
	s->target_next = kep->target[kep->target_sge ^ 1].length;
}

/*
 * Why nothing more can be written to the peer, a local SHUT_WR aside: the
 * stream's error, -EPIPE, -ECONNRESET or -ENOTCONN; 0 if it can (lock held).
 */
static int kstream_tx_down(struct kstream_ep *kep)
{
	if (kep->err)
		return -kep->err;
	if (kep->peer_state == KSTREAM_PEER_LOST)
		return -EPIPE;
	if (kep->peer_state == KSTREAM_PEER_GONE)
		return -ECONNRESET;
	if (kep->state == KSTREAM_DOWN)
		return -EPIPE;
	if (kep->state != KSTREAM_CONNECTED)
		return -ENOTCONN;
	return 0;
}

/**
 * kstream_tx_check() - why a send cannot go at all
 * @kep: the endpoint (lock held)
 *
 * Context: any context, endpoint lock held.
 * Return: 0 if it may; the stream's error, -EPIPE, -ECONNRESET or
 * -ENOTCONN.
 */
int kstream_tx_check(struct kstream_ep *kep)
{
	if (!kep->err && kep->wr_shut)
		return -EPIPE;
	return kstream_tx_down(kep);
}

/* The @x bytes of the send buffer at sbuf_head: two pieces if they wrap. */
static size_t kstream_sbuf_iov(struct kstream_ep *kep, u32 x,
			       struct kvec *iov, void **desc)
{
	u32 off = kep->sbuf_head.count;
	u32 first = min(x, kep->sbuf_size - off);

	iov[0].iov_base = kep->sbuf + off;
	iov[0].iov_len = first;
	iov[1].iov_base = kep->sbuf;
	iov[1].iov_len = x - first;
	desc[0] = fi_mr_desc(kep->smr);
	desc[1] = desc[0];
	return x > first ? 2 : 1;
}

/* The @x bytes at sbuf_head went in a write, which took a send slot. */
static void kstream_sbuf_sent(struct kstream_ep *kep, u32 x)
{
	kstream_curs_add(kep->sbuf_size, &kep->sbuf_head, x);
	kep->sqe_avail--;
}

/* Write the @x queued bytes at sbuf_head (lock held); 0 or the core's error. */
static int kstream_post_head(struct kstream_ep *kep, u32 x, u64 addr,
			     u64 key, u32 imm, bool with_imm)
{
	struct kvec iov[2];
	void *desc[2];
	size_t cnt = kstream_sbuf_iov(kep, x, iov, desc);
	int ret;

	ret = kstream_post_data(kep, iov, desc, cnt, addr, key, imm, x,
				with_imm);
	if (ret)
		return ret;
	kstream_sbuf_sent(kep, x);
	return 0;
}

/**
 * kstream_post_sbuf() - write @x bytes just copied into the send buffer
 * @kep: the endpoint (lock held, no bytes queued)
 * @x: bytes, copied to the send buffer at sbuf_tail
 * @addr: remote address
 * @key: remote key
 * @imm: the immediate
 * @with_imm: false for a plain write (kstream_ep_iowrite())
 *
 * Takes a data send slot; the caller has taken the @x bytes out of
 * sbuf_avail.  The write's completion gives the bytes and the slot back.
 * On failure the bytes are not queued.
 *
 * Context: any context, endpoint lock held.
 * Return: 0 or the core's error.
 */
int kstream_post_sbuf(struct kstream_ep *kep, u32 x, u64 addr, u64 key,
		      u32 imm, bool with_imm)
{
	struct kstream_curs tail = kep->sbuf_tail;
	int ret;

	kstream_sbuf_queue(kep, x);
	ret = kstream_post_head(kep, x, addr, key, imm, with_imm);
	if (ret)
		kep->sbuf_tail = tail;
	return ret;
}

/* A data write of @x bytes went to the current target entry (lock held). */
static void kstream_tx_target_used(struct kstream_ep *kep, u32 x)
{
	struct kstream_sge *t = &kep->target[kep->target_sge];

	kep->sseq_no++;
	t->addr += x;
	t->length -= x;
	if (!t->length)
		kep->target_sge ^= 1;
}

/* Write @x queued bytes of the send buffer to the peer (lock held). */
static int kstream_tx_write(struct kstream_ep *kep, u32 x)
{
	struct kstream_sge *t = &kep->target[kep->target_sge];
	int ret;

	ret = kstream_post_head(kep, x, t->addr, kep->data_key_hi | t->key,
				kstream_msg(KSTREAM_OP_DATA, x), true);
	if (ret)
		return ret;
	kstream_tx_target_used(kep, x);
	return 0;
}

/**
 * struct kstream_tx_wr - a data write to post with the endpoint lock dropped
 * @core: the core endpoint
 * @mode: the stream's enum kstream_msg_mode
 * @req: its request
 * @iov: the bytes of the send buffer
 * @desc: their descriptors
 * @cnt: entries of @iov
 * @addr: remote address
 * @key: remote key
 * @imm: the immediate
 */
struct kstream_tx_wr {
	struct fid_ep *core;
	enum kstream_msg_mode mode;
	struct kstream_req *req;
	struct kvec iov[2];
	void *desc[2];
	size_t cnt;
	u64 addr;
	u64 key;
	u32 imm;
};

/**
 * kstream_tx_write_prep() - account a send's write, to post it unlocked
 * @kep: the endpoint (lock held, tx_busy claimed by the caller, no bytes
 *	queued but the @x)
 * @x: bytes just queued at the send buffer's tail, taken out of
 *	sbuf_avail; one write takes them (kstream_tx_write_size())
 * @w: the write, for the caller to post with kstream_core_write() once it
 *	dropped the lock, then to give to kstream_tx_write_fini()
 *
 * The write is accounted as posted, then the caller posts it with the lock
 * dropped, so that a core provider that sends from the caller's context
 * when that context may sleep (ksocket, told by FI_MAY_SLEEP) does so,
 * instead of handing every write of the stream to its work.  The writes
 * stay in order: while the caller holds tx_busy no other data of the
 * stream can be posted (other sends, iowrite, mapping announcements and
 * control messages wait for it, and no other bytes are queued for the
 * progress to write); ring updates, credits and keepalives may go
 * meanwhile, as they may overtake data anyway.  The core endpoint stays:
 * it is closed only by fi_close(), which must not race with the
 * endpoint's data calls.
 *
 * Context: any context, endpoint lock held.
 */
static void kstream_tx_write_prep(struct kstream_ep *kep, u32 x,
				  struct kstream_tx_wr *w)
{
	struct kstream_sge *t = &kep->target[kep->target_sge];

	/* A data send slot is free (kstream_tx_write_size()): a request too. */
	w->req = kstream_data_req(kep, x);
	w->core = kep->core_ep;
	w->mode = kep->mode;
	w->addr = t->addr;
	w->key = kep->data_key_hi | t->key;
	w->imm = kstream_msg(KSTREAM_OP_DATA, x);
	w->cnt = kstream_sbuf_iov(kep, x, w->iov, w->desc);
	kstream_sbuf_sent(kep, x);
	kstream_tx_posted(kep);
	kstream_tx_target_used(kep, x);
}

/**
 * kstream_tx_write_fini() - the post of a kstream_tx_write_prep() write
 * @kep: the endpoint (lock held)
 * @w: the write
 * @ret: what kstream_core_write() returned
 *
 * A post that failed gives the slot and the bytes back; an error other
 * than the connection going down (its EQ event follows) fails the stream.
 *
 * Context: any context, endpoint lock held.
 */
static void kstream_tx_write_fini(struct kstream_ep *kep,
				  struct kstream_tx_wr *w, int ret)
{
	if (!ret)
		return;
	w->req->err = 0;
	kstream_data_req_done(kep, w->req);
	if (ret != -ENOTCONN)
		kstream_fail(kep, -ret);
}

/**
 * kstream_tx_push() - write the queued bytes of the send buffer
 * @kep: the endpoint (lock held)
 *
 * As many writes as send slots, credits and the peer's ring allow
 * (kstream_tx_write_size()).  Once the stream can no longer send (an
 * error, the peer's DISCONNECT), the queued bytes are dropped: nothing
 * will take them.  Not stopped by a local SHUT_WR: the bytes sent before
 * it still go, then the SHUTDOWN.
 *
 * Context: any context, endpoint lock held.
 */
void kstream_tx_push(struct kstream_ep *kep)
{
	struct kstream_tx_state s;
	u32 x;
	int err;

	while (kstream_sbuf_queued(kep)) {
		if (kstream_tx_down(kep)) {
			kep->sbuf_avail += kstream_sbuf_queued(kep);
			kep->sbuf_head = kep->sbuf_tail;
			return;
		}
		kstream_tx_state(kep, &s);
		x = kstream_tx_write_size(&s, kstream_sbuf_queued(kep));
		if (!x)
			return;
		err = kstream_tx_write(kep, x);
		if (err) {
			if (err != -EAGAIN && err != -ENOTCONN)
				kstream_fail(kep, -err);
			return;
		}
	}
}

/**
 * kstream_tx_end() - a send or iowrite is done with the send buffer
 * @kep: the endpoint (lock held, tx_busy claimed)
 *
 * Sends what waited for it: mapping announcements and a control message.
 *
 * Context: any context, endpoint lock held.
 * Return: true if waiters are to be woken (kstream_wake() after unlocking).
 */
bool kstream_tx_end(struct kstream_ep *kep)
{
	bool wake = kstream_busy_end(kep, &kep->tx_busy);

	if (kep->iomap_pending && !kstream_tx_check(kep))
		kstream_iomap_flush(kep);
	kstream_update_credits(kep);
	return wake;
}

static ssize_t kstream_send_vec(struct kstream_ep *kep, struct kstream_vec *v,
				u64 flags)
{
	struct kstream_tx_state s;
	struct kstream_tx_wr w;
	bool wake = false;
	size_t done = 0;
	u64 sleep;
	ssize_t ret;
	u32 olen, x;
	int err;

	spin_lock_bh(&kep->lock);
	/* The caller's promise, for the write it posts with the lock dropped. */
	sleep = (flags & FI_MAY_SLEEP) || kep->opts.may_sleep ?
		FI_MAY_SLEEP : 0;
	ret = kstream_tx_check(kep);
	if (ret || !v->len)
		goto out;
	if (flags & FI_PEEK) {
		kstream_tx_state(kep, &s);
		done = kstream_busy_now(kep, &kep->tx_busy) ? 0 :
		       kstream_tx_plan(&s, v->len);
		ret = done ? done : -EAGAIN;
		goto out;
	}
	/* As rsend(): mappings announced before the data that follows. */
	if (kep->iomap_pending)
		kstream_iomap_flush(kep);
	if (!kstream_busy_claim(kep, &kep->tx_busy)) {
		ret = -EAGAIN;
		goto out;
	}
	olen = kep->tx_olen;
	while (done < v->len) {
		/* Completions may have freed more while the lock was dropped. */
		kstream_tx_state(kep, &s);
		x = kstream_tx_chunk(&s, v->len - done, &olen);
		if (!x) {
			/* as TCP's SOCK_NOSPACE: room is waited for */
			kstream_tx_waiter(kep);
			break;
		}
		spin_unlock_bh(&kep->lock);
		kstream_sbuf_copy(kep, v, x);
		spin_lock_bh(&kep->lock);
		err = kstream_tx_check(kep);
		if (err) {
			err = kstream_tx_undo(kep, v, x, err);
			if (!done)
				ret = err;
			break;
		}
		kep->sbuf_avail -= x;
		kstream_sbuf_queue(kep, x);
		kstream_tx_state(kep, &s);
		if (kstream_sbuf_queued(kep) == x && kep->core_ep &&
		    kstream_tx_write_size(&s, x) == x) {
			/* The only bytes to write: post from this context. */
			kstream_tx_write_prep(kep, x, &w);
			spin_unlock_bh(&kep->lock);
			err = kstream_core_write(w.core, w.mode, w.iov, w.desc,
						 w.cnt, w.addr, w.key, w.imm,
						 w.req, true, sleep);
			spin_lock_bh(&kep->lock);
			kstream_tx_write_fini(kep, &w, err);
		} else {
			kstream_tx_push(kep);
		}
		done += x;
	}
	kep->tx_olen = olen;
	wake = kstream_tx_end(kep);
	if (done)
		ret = done;
	else if (!ret)
		ret = kep->err ? -kep->err : -EAGAIN;
out:
	spin_unlock_bh(&kep->lock);
	if (wake)
		kstream_wake(kep);
	return ret;
}

/* @n bytes at the head of the ring were read: give them back (lock held). */
static void kstream_rx_consume(struct kstream_ep *kep, u32 n)
{
	u32 *len, m;

	kstream_curs_add(kep->rbuf_size, &kep->rbuf_off, n);
	kep->rbuf_avail += n;
	kep->rbuf_data -= n;
	while (n) {
		len = &kep->rmsg[kep->rmsg_head.count];
		m = min(n, *len);
		*len -= m;
		n -= m;
		if (!*len) {
			kep->rseq_no++;
			kep->rmsg_count--;
			kstream_curs_add(kep->rmsg_size, &kep->rmsg_head, 1);
		}
	}
	kstream_update_credits(kep);
}

static ssize_t kstream_recv_vec(struct kstream_ep *kep, struct kstream_vec *v,
				u64 flags)
{
	bool wake = false;
	ssize_t ret;
	u32 n, off;

	spin_lock_bh(&kep->lock);
	if (kep->err) {
		ret = -kep->err;
		goto out;
	}
	if (kep->state < KSTREAM_CONNECTED) {
		ret = -ENOTCONN;
		goto out;
	}
	if (kep->rd_shut || !v->len) {
		ret = 0;
		goto out;
	}
	if (!kep->rbuf_data) {
		ret = kstream_peer_eof(kep->peer_state) ||
		      kep->state == KSTREAM_DOWN ? 0 : -EAGAIN;
		goto out;
	}
	if (!kstream_busy_claim(kep, &kep->rx_busy)) {
		ret = -EAGAIN;
		goto out;
	}
	/* The bytes stay put: the peer gets their room only once consumed. */
	n = min_t(size_t, v->len, kep->rbuf_data);
	off = kep->rbuf_off.count;
	spin_unlock_bh(&kep->lock);
	kstream_ring_copy(v, kep->rbuf, kep->rbuf_size, off, n, false);
	spin_lock_bh(&kep->lock);
	if (!(flags & FI_PEEK))
		kstream_rx_consume(kep, n);
	wake = kstream_busy_end(kep, &kep->rx_busy);
	ret = n;
out:
	spin_unlock_bh(&kep->lock);
	if (wake)
		kstream_wake(kep);
	return ret;
}

static ssize_t kstream_ep_recvmsg(struct fid_ep *ep,
				  const struct fi_msg *msg, u64 flags)
{
	struct kstream_vec v;
	int ret;

	ret = kstream_vec_init(&v, ITER_DEST, msg->iov_type, msg->msg_iov,
			       msg->iov_count);
	if (ret)
		return ret;
	return kstream_recv_vec(kstream_ep(ep), &v, flags);
}

static ssize_t kstream_ep_sendmsg(struct fid_ep *ep,
				  const struct fi_msg *msg, u64 flags)
{
	struct kstream_vec v;
	int ret;

	/* a stream has no inject (a send may take part) and no CQ data */
	if (flags & (FI_INJECT | FI_REMOTE_CQ_DATA))
		return -FI_ENOSYS;
	ret = kstream_vec_init(&v, ITER_SOURCE, msg->iov_type, msg->msg_iov,
			       msg->iov_count);
	if (ret)
		return ret;
	return kstream_send_vec(kstream_ep(ep), &v, flags);
}

const struct fi_ops_msg kstream_msg_ops = {
	.recvmsg = kstream_ep_recvmsg,
	.sendmsg = kstream_ep_sendmsg,
};

/**
 * kstream_poll_snapshot() - readiness of a stream
 * @kep: the endpoint
 *
 * A snapshot: it reads the stream state without the lock (so that it
 * works with interrupts disabled); a waiter re-checks after every wake-up.
 *
 * Context: any context.
 * Return: the EPOLL* mask of kstream_ep_poll().
 */
__poll_t kstream_poll_snapshot(struct kstream_ep *kep)
{
	struct kstream_tx_state s = {};
	enum kstream_state state = READ_ONCE(kep->state);
	enum kstream_peer peer = READ_ONCE(kep->peer_state);
	bool rd_eof = kstream_peer_eof(peer);
	bool rd_shut = READ_ONCE(kep->rd_shut);
	int err = READ_ONCE(kep->err);
	__poll_t mask = 0;

	if (err)
		mask |= EPOLLERR;
	if (state < KSTREAM_CONNECTED)
		return mask;
	/* As kstream_recv_vec() decides: error, end, or data not busy. */
	if (err || rd_shut ||
	    (READ_ONCE(kep->rbuf_data) ? !kstream_busy_now(kep, &kep->rx_busy) :
	     rd_eof))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (rd_eof)
		mask |= EPOLLRDHUP;
	if (state == KSTREAM_CONNECTED && !err && !READ_ONCE(kep->wr_shut) &&
	    !kstream_peer_gone(peer)) {
		s.olen = READ_ONCE(kep->tx_olen);
		s.sbuf_avail = READ_ONCE(kep->sbuf_avail);
		/* As tcp_poll() sets SOCK_NOSPACE: room comes back by completions. */
		if (!kstream_tx_plan(&s, 1))
			kstream_tx_waiter(kep);
		else if (!kstream_busy_now(kep, &kep->tx_busy))
			mask |= EPOLLOUT | EPOLLWRNORM;
	}
	if ((rd_eof || rd_shut) &&
	    (READ_ONCE(kep->wr_shut) || kstream_peer_gone(peer) ||
	     state == KSTREAM_DOWN))
		mask |= EPOLLHUP;
	return mask;
}

/**
 * kstream_ep_poll() - readiness of a kstream endpoint
 * @ep: an FI_EP_SOCK_STREAM endpoint
 *
 * EPOLLIN: data can be received (or the peer shut down its side:
 * EPOLLRDHUP); EPOLLOUT: a send would accept bytes; EPOLLERR: the stream
 * has failed; EPOLLHUP: both directions are shut.  The wait queue that
 * fi_control(&ep->fid, FI_GETWAIT, &wq) hands out is woken on every change.
 *
 * Context: any context, also with interrupts disabled; takes no lock.
 * Return: the EPOLL* mask, 0 if @ep is not a kstream endpoint.
 */
__poll_t kstream_ep_poll(struct fid_ep *ep)
{
	if (!kstream_is_ep(ep))
		return 0;
	return kstream_poll_snapshot(kstream_ep(ep));
}
EXPORT_SYMBOL_GPL(kstream_ep_poll);
