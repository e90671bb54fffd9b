// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: the socket-like data calls - kstream_sendmsg(),
 * kstream_recvmsg(), kstream_poll(), kstream_wait() and direct placement.
 *
 * They mirror rsend()/rsendmsg(), rrecv()/rrecvmsg(), rpoll() and
 * riomap()/riounmap()/riowrite() of rsocket(7) on top of the stream
 * semantics of fi_sendmsg()/fi_recvmsg() on an FI_EP_SOCK_STREAM endpoint
 * (a byte count, -EAGAIN, 0 at the end of the stream).  Blocking calls
 * sleep on the socket's wait queue, woken through the endpoint's
 * FI_GETWAIT queue.
 */
#include <linux/bvec.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/uio.h>
#include <kofi/fi_endpoint.h>
#include "kstream_sock.h"

/**
 * struct ksk_vec - a fi_msg over the first segments of an iov_iter
 * @msg: the message handed to fi_sendmsg()/fi_recvmsg()
 * @kv: its kvecs (ITER_KVEC)
 * @bv: its bio_vecs (ITER_BVEC)
 */
struct ksk_vec {
	struct fi_msg msg;
	union {
		struct kvec kv[KSK_MAX_SEGS];
		struct bio_vec bv[KSK_MAX_SEGS];
	};
};

/* Describe up to @max segments of @it in @v; the iterator is not moved. */
static int ksk_iter_msg(const struct iov_iter *it, size_t max,
			struct ksk_vec *v)
{
	size_t left = iov_iter_count(it), off = it->iov_offset, n = 0, i;

	memset(&v->msg, 0, sizeof(v->msg));
	max = clamp_t(size_t, max, 1, KSK_MAX_SEGS);
	if (iov_iter_is_kvec(it)) {
		for (i = 0; i < it->nr_segs && left && n < max; i++, off = 0) {
			size_t len = min(it->kvec[i].iov_len - off, left);

			if (!len)
				continue;
			v->kv[n].iov_base = it->kvec[i].iov_base + off;
			v->kv[n++].iov_len = len;
			left -= len;
		}
		v->msg.iov_type = FI_IOV_KVEC;
		v->msg.msg_iov = v->kv;
	} else if (iov_iter_is_bvec(it)) {
		for (i = 0; i < it->nr_segs && left && n < max; i++, off = 0) {
			const struct bio_vec *b = &it->bvec[i];
			size_t len = min_t(size_t, b->bv_len - off, left);
			size_t start = b->bv_offset + off;

			if (!len)
				continue;
			v->bv[n].bv_page = nth_page(b->bv_page,
						    start >> PAGE_SHIFT);
			v->bv[n].bv_offset = offset_in_page(start);
			v->bv[n++].bv_len = len;
			left -= len;
		}
		v->msg.iov_type = FI_IOV_BVEC;
		v->msg.msg_bvec = v->bv;
	} else {
		return -EOPNOTSUPP;
	}
	v->msg.iov_count = n;
	v->msg.addr = FI_ADDR_UNSPEC;
	return 0;
}

static size_t ksk_iov_limit(size_t limit)
{
	return limit ? limit : 1;
}

/**
 * kstream_poll() - readiness of a socket, as rpoll() for one rsocket
 * @ks: the socket
 *
 * Connected: the endpoint's kstream_ep_poll() mask.  Connecting: 0 until
 * connected.  Listening: EPOLLIN when kstream_accept() has a request.
 * Failed: EPOLLERR | EPOLLHUP.  New or bound: EPOLLOUT | EPOLLHUP, as an
 * unconnected TCP socket.  EPOLLERR is added while SO_ERROR has an error.
 *
 * Context: any context; does not sleep.
 * Return: the EPOLL* mask, 0 for a NULL @ks.
 */
__poll_t kstream_poll(struct kstream_sock *ks)
{
	__poll_t mask;

	if (!ks)
		return 0;
	switch (ksk_progress(ks)) {
	case KSK_LISTEN:
		mask = READ_ONCE(ks->connreq) ? EPOLLIN | EPOLLRDNORM : 0;
		break;
	case KSK_CONNECTING:
		mask = 0;
		break;
	case KSK_CONNECTED:
		mask = kstream_ep_poll(ks->ep);
		if (ks->shut & KSK_SHUT_RD)
			mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
		if (ks->shut & KSK_SHUT_WR)
			mask |= EPOLLOUT | EPOLLWRNORM;
		break;
	case KSK_CLOSED:
		mask = EPOLLERR | EPOLLHUP;
		break;
	default:
		mask = EPOLLOUT | EPOLLWRNORM | EPOLLHUP;
		break;
	}
	if (READ_ONCE(ks->err))
		mask |= EPOLLERR;
	return mask;
}
EXPORT_SYMBOL_GPL(kstream_poll);

static bool ksk_ready(struct kstream_sock *ks, __poll_t events)
{
	return kstream_poll(ks) & (events | EPOLLERR | EPOLLHUP);
}

/**
 * kstream_wait() - wait until a socket is ready
 * @ks: the socket
 * @events: EPOLLIN, EPOLLOUT ... (EPOLLERR and EPOLLHUP always count)
 * @timeout: jiffies at most; 0 only looks; MAX_SCHEDULE_TIMEOUT waits
 *	without limit
 *
 * The kernel's counterpart of rpoll() on one rsocket with a timeout.
 *
 * Context: process context; sleeps (interruptibly) unless @timeout is 0.
 * Return: the ready events of kstream_poll() (> 0); 0 when @timeout
 * passed first; -ERESTARTSYS or -EINTR on a signal; -EINVAL for a NULL
 * @ks, no @events or a negative @timeout.
 */
int kstream_wait(struct kstream_sock *ks, __poll_t events, long timeout)
{
	__poll_t want = events | EPOLLERR | EPOLLHUP;
	long w;

	if (!ks || !events || timeout < 0)
		return -EINVAL;
	if (timeout) {
		w = ksk_wait_until(ks, ksk_ready, events, timeout);
		if (w < 0)
			return w;
	}
	return (__force int)(kstream_poll(ks) & want);
}
EXPORT_SYMBOL_GPL(kstream_wait);

/* Wait for @events; 0 when ready, -EAGAIN when out of time, or < 0. */
static int ksk_wait_io(struct kstream_sock *ks, __poll_t events, long *timeo)
{
	long w;

	if (!*timeo)
		return -EAGAIN;
	w = ksk_wait_until(ks, ksk_ready, events, *timeo);
	if (w < 0)
		return w;
	if (!w) {
		*timeo = 0;
		return -EAGAIN;
	}
	*timeo = w;
	/* ready at once, yet the call said -EAGAIN: do not hog the CPU */
	cond_resched();
	return 0;
}

/* Connected for data?  Waits for a connection under way. */
static int ksk_io_ready(struct kstream_sock *ks, long *timeo, int notconn)
{
	enum ksk_state state = ksk_progress(ks);

	if (state == KSK_CONNECTED)
		return 0;
	if (state == KSK_CONNECTING)
		return ksk_wait_connected(ks, timeo);
	if (state == KSK_CLOSED) {
		int err = ksk_take_err(ks);

		return err ? err : notconn;
	}
	return notconn;
}

#define KSK_SEND_FLAGS	(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_MORE | MSG_EOR)

/**
 * kstream_sendmsg() - send bytes, as rsendmsg()
 * @ks: a connected socket
 * @msg: msg_iter (ITER_KVEC or ITER_BVEC of kernel memory) holds the
 *	bytes and is advanced by what was sent; msg_flags may hold
 *	MSG_DONTWAIT, and MSG_NOSIGNAL, MSG_MORE, MSG_EOR (no effect);
 *	msg_name is ignored
 *
 * Blocking (the default): returns once every byte is queued, or earlier
 * with the count so far when interrupted, out of SO_SNDTIMEO or failed.
 * Nonblocking (MSG_DONTWAIT or kstream_set_nonblock()): queues what fits.
 * A connection still being set up is waited for (blocking) first.  The
 * bytes are handed to the endpoint with FI_MAY_SLEEP: over ksocket the
 * write that carries them is sent from here.
 *
 * Context: process context; sleeps (nonblocking: only briefly, for memory
 * and the core's socket).
 * Return: bytes queued (> 0, or 0 for an empty @msg); -EAGAIN when
 * nothing fits (nonblocking, or SO_SNDTIMEO); -EPIPE when not connected
 * or shut down for writing; -EOPNOTSUPP for other flags or a user-memory
 * iterator; the stream's error (-ECONNRESET ...); -ERESTARTSYS or -EINTR
 * on a signal before anything was sent; -EINVAL for NULL arguments.
 */
int kstream_sendmsg(struct kstream_sock *ks, struct msghdr *msg)
{
	struct ksk_vec *v;
	size_t copied = 0, limit;
	long timeo;
	ssize_t n;
	int err = 0;

	if (!ks || !msg)
		return -EINVAL;
	if (msg->msg_flags & ~KSK_SEND_FLAGS)
		return -EOPNOTSUPP;
	timeo = (READ_ONCE(ks->nonblock) || (msg->msg_flags & MSG_DONTWAIT)) ?
		0 : ks->opts.sndtimeo;
	err = ksk_io_ready(ks, &timeo, -EPIPE);
	if (err)
		return err;
	if (ks->shut & KSK_SHUT_WR)
		return -EPIPE;
	if (!msg_data_left(msg))
		return 0;
	v = kmalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	limit = ksk_iov_limit(ks->info->tx_attr->iov_limit);
	while (msg_data_left(msg)) {
		err = ksk_iter_msg(&msg->msg_iter, limit, v);
		if (err)
			break;
		/* process context (see above): the core may send from here */
		n = fi_sendmsg(ks->ep, &v->msg, FI_MAY_SLEEP);
		if (n > 0) {
			iov_iter_advance(&msg->msg_iter, n);
			copied += n;
			continue;
		}
		if (n == 0)
			n = -EAGAIN;
		if (n != -EAGAIN) {
			err = n;
			break;
		}
		err = ksk_wait_io(ks, EPOLLOUT, &timeo);
		if (err)
			break;
	}
	kfree(v);
	return copied ? (int)min_t(size_t, copied, INT_MAX) : err;
}
EXPORT_SYMBOL_GPL(kstream_sendmsg);

#define KSK_RECV_FLAGS	(MSG_DONTWAIT | MSG_PEEK | MSG_WAITALL | \
			 MSG_NOSIGNAL | MSG_CMSG_CLOEXEC)

/**
 * kstream_recvmsg() - receive bytes, as rrecvmsg()
 * @ks: a connected socket
 * @msg: msg_iter (ITER_KVEC or ITER_BVEC of kernel memory) receives the
 *	bytes and is advanced by what was received; msg_name is not filled
 * @flags: MSG_DONTWAIT, MSG_PEEK (the bytes stay in the stream),
 *	MSG_WAITALL (wait for the whole of @msg unless the stream ends)
 *
 * Blocking (the default): waits for at least one byte, interruptibly and
 * at most SO_RCVTIMEO.  Nonblocking (MSG_DONTWAIT or
 * kstream_set_nonblock()): -EAGAIN when nothing has arrived.
 *
 * Context: process context; sleeps unless nonblocking.
 * Return: bytes received (> 0); 0 at the end of the stream (the peer shut
 * down its side, or SHUT_RD here) or for an empty @msg; -EAGAIN;
 * -ENOTCONN when not connected; -EINVAL for MSG_OOB or NULL arguments;
 * -EOPNOTSUPP for other flags or a user-memory iterator; the stream's
 * error; -ERESTARTSYS or -EINTR on a signal before any byte arrived.
 */
int kstream_recvmsg(struct kstream_sock *ks, struct msghdr *msg, int flags)
{
	u64 fiflags = flags & MSG_PEEK ? FI_PEEK : 0;
	struct ksk_vec *v;
	size_t copied = 0, limit;
	long timeo;
	ssize_t n;
	int err = 0;

	if (!ks || !msg || (flags & MSG_OOB))
		return -EINVAL;
	if (flags & ~KSK_RECV_FLAGS)
		return -EOPNOTSUPP;
	timeo = (READ_ONCE(ks->nonblock) || (flags & MSG_DONTWAIT)) ?
		0 : ks->opts.rcvtimeo;
	err = ksk_io_ready(ks, &timeo, -ENOTCONN);
	if (err)
		return err;
	if ((ks->shut & KSK_SHUT_RD) || !msg_data_left(msg))
		return 0;
	v = kmalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	limit = ksk_iov_limit(ks->info->rx_attr->iov_limit);
	while (msg_data_left(msg)) {
		err = ksk_iter_msg(&msg->msg_iter, limit, v);
		if (err)
			break;
		n = fi_recvmsg(ks->ep, &v->msg, fiflags);
		if (n > 0) {
			iov_iter_advance(&msg->msg_iter, n);
			copied += n;
			if ((flags & (MSG_WAITALL | MSG_PEEK)) != MSG_WAITALL)
				break;
			continue;
		}
		if (n == 0)
			break;		/* end of stream */
		if (n != -EAGAIN) {
			err = n;
			break;
		}
		if (copied && !(flags & MSG_WAITALL))
			break;
		err = ksk_wait_io(ks, EPOLLIN | EPOLLRDHUP, &timeo);
		if (err)
			break;
	}
	kfree(v);
	if (copied)
		return (int)min_t(size_t, copied, INT_MAX);
	return err;
}
EXPORT_SYMBOL_GPL(kstream_recvmsg);

/**
 * kstream_iomap() - offer a buffer for direct placement, as riomap()
 * @ks: a connected socket
 * @buf: kernel buffer the peer may write into; it must stay until
 *	kstream_iounmap() or kstream_release()
 * @len: its size (at most 4 GiB - 1)
 * @prot: PROT_WRITE
 * @flags: 0
 * @offset: the offset the peer uses for @buf's first byte, or -1 to have
 *	one chosen (page-aligned, after every current mapping; riomap()
 *	uses the address, which is no valid off_t for kernel memory)
 *
 * The peer must have offered iomap slots (its KSTREAM_IOMAPSIZE, or
 * RDMA_IOMAPSIZE for rsockets).  As riomap(), the peer can rely on the
 * mapping once it received data sent after this call.
 *
 * Context: process context; may sleep.
 * Return: the offset (>= 0), or a negative errno: -EINVAL for bad
 * arguments or an overlapping offset range; -ENOTCONN when not
 * connected; -ENOSPC when the peer offers no free slot; -ENOMEM; the core
 * provider's registration error.
 */
off_t kstream_iomap(struct kstream_sock *ks, void *buf, size_t len,
		    int prot, int flags, off_t offset)
{
	if (!ks || !buf || !len || flags)
		return -EINVAL;
	if (ksk_progress(ks) != KSK_CONNECTED)
		return -ENOTCONN;
	return kstream_ep_iomap(ks->ep, buf, len, prot, offset);
}
EXPORT_SYMBOL_GPL(kstream_iomap);

/**
 * kstream_iounmap() - withdraw a buffer offered by kstream_iomap(), as riounmap()
 * @ks: the socket
 * @buf: the buffer
 * @len: its size, as mapped
 *
 * The peer is not told; its writes into the buffer fail from now on.
 *
 * Context: process context; may sleep.
 * Return: 0, or -EINVAL for a buffer that is not mapped (or bad
 * arguments); -ENOTCONN for a socket without a stream.
 */
int kstream_iounmap(struct kstream_sock *ks, void *buf, size_t len)
{
	if (!ks || !buf)
		return -EINVAL;
	if (!ks->ep)
		return -ENOTCONN;
	return kstream_ep_iounmap(ks->ep, buf, len);
}
EXPORT_SYMBOL_GPL(kstream_iounmap);

static bool ksk_iowritable(struct kstream_sock *ks, __poll_t unused)
{
	return kstream_ep_iowritable(ks->ep) ||
	       (kstream_poll(ks) & (EPOLLERR | EPOLLHUP));
}

/**
 * kstream_iowrite() - write into the peer's mapped buffer, as riowrite()
 * @ks: a connected socket
 * @buf: bytes to write (kernel memory)
 * @count: how many
 * @offset: the peer's iomap offset
 * @flags: 0 or MSG_DONTWAIT
 *
 * The bytes land in the buffer the peer mapped at @offset, without the
 * peer being told, before any data sent on the stream afterwards.
 * Blocking (the default): returns once every byte is written, or earlier
 * with the count so far when interrupted, out of SO_SNDTIMEO, failed or
 * past the end of the peer's mappings.
 *
 * Context: process context; sleeps unless nonblocking.
 * Return: bytes written (> 0, or 0 for no @count); -EAGAIN when nothing
 * could go (nonblocking, or SO_SNDTIMEO); -EINVAL for an @offset no peer
 * mapping holds or bad arguments; -EOPNOTSUPP for other @flags; -EPIPE
 * when not connected or shut down for writing; the stream's error;
 * -ERESTARTSYS or -EINTR on a signal before anything was written.
 */
ssize_t kstream_iowrite(struct kstream_sock *ks, const void *buf,
			size_t count, off_t offset, int flags)
{
	size_t done = 0;
	long timeo, w;
	ssize_t n = 0;
	int err;

	if (!ks || (!buf && count) || offset < 0)
		return -EINVAL;
	if (flags & ~MSG_DONTWAIT)
		return -EOPNOTSUPP;
	timeo = (READ_ONCE(ks->nonblock) || (flags & MSG_DONTWAIT)) ?
		0 : ks->opts.sndtimeo;
	err = ksk_io_ready(ks, &timeo, -EPIPE);
	if (err)
		return err;
	if (ks->shut & KSK_SHUT_WR)
		return -EPIPE;
	count = min_t(size_t, count, INT_MAX);
	while (done < count) {
		n = kstream_ep_iowrite(ks->ep, buf + done, count - done,
				       offset + done);
		if (n > 0) {
			done += n;
			continue;
		}
		if (n != -EAGAIN || !timeo)
			break;
		w = ksk_wait_until(ks, ksk_iowritable, 0, timeo);
		if (w <= 0) {
			n = w ? w : -EAGAIN;
			break;
		}
		timeo = w;
		cond_resched();
	}
	return done ? (ssize_t)done : n;
}
EXPORT_SYMBOL_GPL(kstream_iowrite);
