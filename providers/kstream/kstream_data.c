// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: the data calls - stream semantics on fi_send/fi_recv and their
 * v/msg forms, FI_PEEK, readiness (kstream_ep_poll()).
 *
 * A send copies what fits into the send buffer and writes it into the
 * peer's receive ring at once (rsockets' rsend()); a receive copies out of
 * the receive ring (rrecv()).  Both return the byte count (partial counts
 * allowed), -EAGAIN when nothing fits or nothing has arrived, 0 at the end
 * of the stream, a negative errno after an error.  No completions are
 * written: kstream has no CQs.  Every call takes only the endpoint's
 * spinlock (a bottom-half lock: the core providers' data paths take
 * bottom-half locks too) and never sleeps: any context but hard interrupts
 * and interrupts disabled.
 */
#include <linux/bvec.h>
#include <linux/scatterlist.h>
#include <linux/uio.h>
#include "kstream.h"

/* A user vector, walked by the copies. */
struct kstream_vec {
	enum fi_iov_type type;
	struct iov_iter it;
	struct scatterlist *sg;
	unsigned int nents;
	size_t skip;
	size_t len;
};

static int kstream_vec_init(struct kstream_vec *v, unsigned int dir,
			    enum fi_iov_type type, const void *vec,
			    size_t count)
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

static void kstream_tx_state(struct kstream_ep *kep, struct kstream_tx_state *s)
{
	s->olen = kep->tx_olen;
	s->sbuf_avail = kep->sbuf_avail;
	s->sqe_avail = kep->sqe_avail;
	s->credits = (u16)(kep->sseq_comp - kep->sseq_no);
	s->target = kep->target[kep->target_sge].length;
	s->target_next = kep->target[kep->target_sge ^ 1].length;
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
	if (kep->err)
		return -kep->err;
	if (kep->wr_shut || kep->tx_lost)
		return -EPIPE;
	if (kep->peer_gone)
		return -ECONNRESET;
	if (kep->state == KSTREAM_DOWN)
		return -EPIPE;
	if (kep->state != KSTREAM_CONNECTED)
		return -ENOTCONN;
	return 0;
}

/**
 * kstream_post_sbuf() - write the next @x bytes of the send buffer
 * @kep: the endpoint (lock held)
 * @x: bytes, already copied to the send buffer at sbuf_off
 * @addr: remote address
 * @key: remote key
 * @imm: the immediate
 * @ctx: transmit context; its completion gives the bytes and slot back
 * @with_imm: false for a plain write (kstream_ep_iowrite())
 *
 * Takes a data send slot and @x bytes of the send buffer.
 *
 * Context: any context, endpoint lock held.
 * Return: 0 or the core's error.
 */
int kstream_post_sbuf(struct kstream_ep *kep, u32 x, u64 addr, u64 key,
		      u32 imm, unsigned long ctx, bool with_imm)
{
	u32 first = min(x, kep->sbuf_size - kep->sbuf_off);
	void *desc[2] = { fi_mr_desc(kep->smr), fi_mr_desc(kep->smr) };
	struct kvec iov[2] = {
		{ .iov_base = kep->sbuf + kep->sbuf_off, .iov_len = first },
		{ .iov_base = kep->sbuf, .iov_len = x - first },
	};
	int ret;

	ret = kstream_post_write(kep, iov, desc, x > first ? 2 : 1, addr, key,
				 imm, ctx, with_imm);
	if (ret)
		return ret;
	kep->sbuf_off += x;
	if (kep->sbuf_off >= kep->sbuf_size)
		kep->sbuf_off -= kep->sbuf_size;
	kep->sbuf_avail -= x;
	kep->sqe_avail--;
	return 0;
}

/* Write @x bytes of the send buffer at sbuf_off to the peer (lock held). */
static int kstream_tx_write(struct kstream_ep *kep, u32 x)
{
	struct kstream_sge *t = &kep->target[kep->target_sge];
	int ret;

	ret = kstream_post_sbuf(kep, x, t->addr, kep->data_key_hi | t->key,
				kstream_msg(KSTREAM_OP_DATA, x),
				(unsigned long)x << 2 | KSTREAM_TX_DATA, true);
	if (ret)
		return ret;
	kep->sseq_no++;
	t->addr += x;
	t->length -= x;
	if (!t->length)
		kep->target_sge ^= 1;
	return 0;
}

static ssize_t kstream_send_vec(struct kstream_ep *kep, struct kstream_vec *v,
				u64 flags)
{
	struct kstream_tx_state s;
	u32 olen, x, first;
	size_t done = 0;
	ssize_t ret;
	int err;

	spin_lock_bh(&kep->lock);
	ret = kstream_tx_check(kep);
	if (ret || !v->len)
		goto out;
	/* As rsend(): mappings announced before the data that follows. */
	if (kep->iomap_pending && !(flags & FI_PEEK))
		kstream_iomap_flush(kep);
	kstream_tx_state(kep, &s);
	if (flags & FI_PEEK) {
		done = kstream_tx_plan(&s, v->len);
		ret = done ? done : -EAGAIN;
		goto out;
	}
	olen = s.olen;
	while (done < v->len) {
		x = kstream_tx_chunk(&s, v->len - done, &olen);
		if (!x)
			break;
		first = min(x, kep->sbuf_size - kep->sbuf_off);
		kstream_vec_get(v, kep->sbuf + kep->sbuf_off, first);
		if (x > first)
			kstream_vec_get(v, kep->sbuf, x - first);
		err = kstream_tx_write(kep, x);
		if (err) {
			kstream_vec_unget(v, x);
			/* -ENOTCONN: the core's EQ event is on its way. */
			if (err != -EAGAIN && err != -ENOTCONN)
				kstream_fail(kep, -err);
			break;
		}
		done += x;
	}
	kep->tx_olen = olen;
	ret = done ? done : -EAGAIN;
	if (!done && kep->err)
		ret = -kep->err;
out:
	spin_unlock_bh(&kep->lock);
	return ret;
}

/* Copy @n ring bytes from @off into the vector (lock held). */
static void kstream_rx_copy(struct kstream_ep *kep, struct kstream_vec *v,
			    u32 off, u32 n)
{
	u32 first = min(n, kep->rbuf_size - off);

	kstream_vec_put(v, kep->rbuf + off, first);
	if (n > first)
		kstream_vec_put(v, kep->rbuf, n - first);
}

static ssize_t kstream_recv_vec(struct kstream_ep *kep, struct kstream_vec *v,
				u64 flags)
{
	bool peek = flags & FI_PEEK;
	u32 idx, off, left, n, m;
	size_t done = 0;
	ssize_t ret;

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
		ret = kep->rd_eof || kep->state == KSTREAM_DOWN ? 0 : -EAGAIN;
		goto out;
	}
	left = min_t(size_t, v->len, kep->rbuf_data);
	idx = kep->rmsg_head;
	off = kep->rbuf_off;
	while (left) {
		m = kep->rmsg[idx];
		n = min(left, m);
		kstream_rx_copy(kep, v, off, n);
		off += n;
		if (off >= kep->rbuf_size)
			off -= kep->rbuf_size;
		left -= n;
		done += n;
		if (peek) {
			idx = (idx + 1) % kep->rmsg_size;
			continue;
		}
		kep->rmsg[idx] -= n;
		kep->rbuf_avail += n;
		kep->rbuf_data -= n;
		if (!kep->rmsg[idx]) {
			kep->rseq_no++;
			kep->rmsg_count--;
			idx = (idx + 1) % kep->rmsg_size;
		}
	}
	if (!peek) {
		kep->rmsg_head = idx;
		kep->rbuf_off = off;
		kstream_update_credits(kep);
	}
	ret = done;
out:
	spin_unlock_bh(&kep->lock);
	return ret;
}

static ssize_t kstream_ep_recv(struct fid_ep *ep, void *buf, size_t len,
			       void *desc, fi_addr_t src_addr, void *context)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct kstream_vec v;
	int ret;

	ret = kstream_vec_init(&v, ITER_DEST, FI_IOV_KVEC, &kv, 1);
	if (ret)
		return ret;
	return kstream_recv_vec(kstream_ep(ep), &v, 0);
}

static ssize_t kstream_ep_recvv(struct fid_ep *ep, const struct kvec *iov,
				void **desc, size_t count, fi_addr_t src_addr,
				void *context)
{
	struct kstream_vec v;
	int ret;

	ret = kstream_vec_init(&v, ITER_DEST, FI_IOV_KVEC, iov, count);
	if (ret)
		return ret;
	return kstream_recv_vec(kstream_ep(ep), &v, 0);
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

static ssize_t kstream_ep_send(struct fid_ep *ep, const void *buf,
			       size_t len, void *desc, fi_addr_t dest_addr, void *context)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct kstream_vec v;
	int ret;

	ret = kstream_vec_init(&v, ITER_SOURCE, FI_IOV_KVEC, &kv, 1);
	if (ret)
		return ret;
	return kstream_send_vec(kstream_ep(ep), &v, 0);
}

static ssize_t kstream_ep_sendv(struct fid_ep *ep, const struct kvec *iov,
				void **desc, size_t count, fi_addr_t dest_addr,
				void *context)
{
	struct kstream_vec v;
	int ret;

	ret = kstream_vec_init(&v, ITER_SOURCE, FI_IOV_KVEC, iov, count);
	if (ret)
		return ret;
	return kstream_send_vec(kstream_ep(ep), &v, 0);
}

static ssize_t kstream_ep_sendmsg(struct fid_ep *ep,
				  const struct fi_msg *msg, u64 flags)
{
	struct kstream_vec v;
	int ret;

	ret = kstream_vec_init(&v, ITER_SOURCE, msg->iov_type, msg->msg_iov,
			       msg->iov_count);
	if (ret)
		return ret;
	return kstream_send_vec(kstream_ep(ep), &v, flags);
}

const struct fi_ops_msg kstream_msg_ops = {
	.recv = kstream_ep_recv,
	.recvv = kstream_ep_recvv,
	.recvmsg = kstream_ep_recvmsg,
	.send = kstream_ep_send,
	.sendv = kstream_ep_sendv,
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
	struct kstream_tx_state s;
	enum kstream_state state = READ_ONCE(kep->state);
	bool rd_eof = READ_ONCE(kep->rd_eof);
	bool rd_shut = READ_ONCE(kep->rd_shut);
	int err = READ_ONCE(kep->err);
	__poll_t mask = 0;
	u32 ts;

	if (err)
		mask |= EPOLLERR;
	if (state < KSTREAM_CONNECTED)
		return mask;
	if (READ_ONCE(kep->rbuf_data) || rd_eof || rd_shut || err)
		mask |= EPOLLIN | EPOLLRDNORM;
	if (rd_eof)
		mask |= EPOLLRDHUP;
	if (state == KSTREAM_CONNECTED && !err && !READ_ONCE(kep->wr_shut) &&
	    !READ_ONCE(kep->peer_gone)) {
		ts = READ_ONCE(kep->target_sge) & 1;
		s.olen = READ_ONCE(kep->tx_olen);
		s.sbuf_avail = READ_ONCE(kep->sbuf_avail);
		s.sqe_avail = READ_ONCE(kep->sqe_avail);
		s.credits = (u16)(READ_ONCE(kep->sseq_comp) -
				  READ_ONCE(kep->sseq_no));
		s.target = READ_ONCE(kep->target[ts].length);
		s.target_next = READ_ONCE(kep->target[ts ^ 1].length);
		if (kstream_tx_plan(&s, 1))
			mask |= EPOLLOUT | EPOLLWRNORM;
	}
	if ((rd_eof || rd_shut) &&
	    (READ_ONCE(kep->wr_shut) || READ_ONCE(kep->peer_gone) ||
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
