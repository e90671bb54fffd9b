// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: socket options of the socket-like calls, as rsetsockopt() and
 * rgetsockopt() (rsocket(7)).
 *
 * Buffer and queue sizes become fi_setopt(FI_OPT_ENDPOINT, ...) on the
 * endpoint before it is enabled, so they are stored and applied when the
 * socket connects or accepts; accepted sockets inherit the listener's.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/tcp.h>
#include <linux/time64.h>
#include <net/sock.h>
#include <kofi/fi_endpoint.h>
#include "kstream.h"
#include "kstream_sock.h"

static int ksk_setopt(struct fid *fid, int name, size_t val)
{
	return fi_setopt(fid, FI_OPT_ENDPOINT, name, &val, sizeof(val));
}

/**
 * ksk_apply_opts() - hand the stored options to a new endpoint
 * @ks: the socket
 * @fid: its endpoint, before fi_enable()
 *
 * Context: process context; may sleep.
 * Return: 0 or the provider's error.
 */
int ksk_apply_opts(struct kstream_sock *ks, struct fid *fid)
{
	const struct ksk_opts *o = &ks->opts;
	int ret = 0;

	if (o->rcvbuf)
		ret = ksk_setopt(fid, FI_OPT_RECV_BUF_SIZE, o->rcvbuf);
	if (!ret && o->sndbuf)
		ret = ksk_setopt(fid, FI_OPT_SEND_BUF_SIZE, o->sndbuf);
	if (!ret && o->sqsize)
		ret = ksk_setopt(fid, FI_OPT_TX_SIZE, o->sqsize);
	if (!ret && o->rqsize)
		ret = ksk_setopt(fid, FI_OPT_RX_SIZE, o->rqsize);
	if (!ret && o->has_inline)
		ret = ksk_setopt(fid, FI_OPT_KSTREAM_INLINE, o->inline_size);
	if (!ret && o->has_iomap)
		ret = ksk_setopt(fid, FI_OPT_KSTREAM_IOMAPSIZE, o->iomapsize);
	if (!ret && o->keepalive)
		ret = ksk_setopt(fid, FI_OPT_KSTREAM_KEEPALIVE,
				 KSK_KEEPALIVE_SECS);
	return ret;
}

static int ksk_get_int(sockptr_t optval, unsigned int optlen, int *val)
{
	if (optlen < sizeof(int))
		return -EINVAL;
	return copy_from_sockptr(val, optval, sizeof(int)) ? -EFAULT : 0;
}

/* SO_RCVTIMEO/SO_SNDTIMEO in either timeval layout, to jiffies. */
static int ksk_get_timeo(sockptr_t optval, unsigned int optlen, bool old,
			 long *timeo)
{
	struct __kernel_sock_timeval tv;

	if (old) {
		struct __kernel_old_timeval otv;

		if (optlen < sizeof(otv))
			return -EINVAL;
		if (copy_from_sockptr(&otv, optval, sizeof(otv)))
			return -EFAULT;
		tv.tv_sec = otv.tv_sec;
		tv.tv_usec = otv.tv_usec;
	} else {
		if (optlen < sizeof(tv))
			return -EINVAL;
		if (copy_from_sockptr(&tv, optval, sizeof(tv)))
			return -EFAULT;
	}
	if (tv.tv_usec < 0 || tv.tv_usec >= USEC_PER_SEC)
		return -EDOM;
	if (tv.tv_sec < 0 ||
	    (!tv.tv_sec && !tv.tv_usec) ||
	    tv.tv_sec >= MAX_SCHEDULE_TIMEOUT / HZ - 1) {
		*timeo = MAX_SCHEDULE_TIMEOUT;
		return 0;
	}
	*timeo = tv.tv_sec * HZ +
		 DIV_ROUND_UP((unsigned long)tv.tv_usec, USEC_PER_SEC / HZ);
	return 0;
}

static int ksk_set_sol_socket(struct kstream_sock *ks, int optname,
			      sockptr_t optval, unsigned int optlen)
{
	struct linger lg;
	int val, ret;

	switch (optname) {
	case SO_RCVBUF:
	case SO_SNDBUF:
		ret = ksk_get_int(optval, optlen, &val);
		if (ret)
			return ret;
		if (val <= 0 || val > INT_MAX / 2)
			return -EINVAL;
		/* as Linux and rsockets: the buffer is twice the value */
		if (optname == SO_RCVBUF)
			ks->opts.rcvbuf = 2 * (size_t)val;
		else
			ks->opts.sndbuf = 2 * (size_t)val;
		return 0;
	case SO_KEEPALIVE:
		ret = ksk_get_int(optval, optlen, &val);
		if (ret)
			return ret;
		ks->opts.keepalive = !!val;
		if (ks->ep)
			return ksk_setopt(&ks->ep->fid, FI_OPT_KSTREAM_KEEPALIVE,
					  val ? KSK_KEEPALIVE_SECS : 0);
		return 0;
	case SO_LINGER:
		if (optlen < sizeof(lg))
			return -EINVAL;
		if (copy_from_sockptr(&lg, optval, sizeof(lg)))
			return -EFAULT;
		ks->opts.linger = lg;
		return 0;
	case SO_RCVTIMEO_OLD:
	case SO_RCVTIMEO_NEW:
		return ksk_get_timeo(optval, optlen,
				     optname == SO_RCVTIMEO_OLD,
				     &ks->opts.rcvtimeo);
	case SO_SNDTIMEO_OLD:
	case SO_SNDTIMEO_NEW:
		return ksk_get_timeo(optval, optlen,
				     optname == SO_SNDTIMEO_OLD,
				     &ks->opts.sndtimeo);
	default:
		return -ENOPROTOOPT;
	}
}

static int ksk_set_sol_rdma(struct kstream_sock *ks, int optname,
			    sockptr_t optval, unsigned int optlen)
{
	int val, ret;

	ret = ksk_get_int(optval, optlen, &val);
	if (ret)
		return ret;
	if (ks->ep || ks->pep)
		return -EINVAL;	/* as rsockets: only before connecting */
	if (val < 0)
		return -EINVAL;
	switch (optname) {
	case KSTREAM_SQSIZE:
		if (!val)
			return -EINVAL;
		ks->opts.sqsize = val;
		return 0;
	case KSTREAM_RQSIZE:
		if (!val)
			return -EINVAL;
		ks->opts.rqsize = val;
		return 0;
	case KSTREAM_INLINE:
		ks->opts.inline_size = val;
		ks->opts.has_inline = true;
		return 0;
	case KSTREAM_IOMAPSIZE:
		ks->opts.iomapsize = val;
		ks->opts.has_iomap = true;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

/**
 * kstream_setsockopt() - set a socket option, as rsetsockopt()
 * @ks: the socket
 * @level: SOL_SOCKET, IPPROTO_TCP or KSTREAM_SOL_RDMA
 * @optname: SOL_SOCKET: SO_RCVBUF, SO_SNDBUF (int; the buffer becomes
 *	twice the value, as Linux and rsockets), SO_KEEPALIVE (int),
 *	SO_LINGER (struct linger; stored and reported only, as rsockets),
 *	SO_RCVTIMEO, SO_SNDTIMEO (old or new timeval); IPPROTO_TCP:
 *	TCP_NODELAY (int; kstream never delays, stored and reported);
 *	KSTREAM_SOL_RDMA: KSTREAM_SQSIZE, KSTREAM_RQSIZE, KSTREAM_INLINE,
 *	KSTREAM_IOMAPSIZE (int, before connecting or listening)
 * @optval: the value (kernel or user memory)
 * @optlen: its size
 *
 * Buffer sizes apply to endpoints created afterwards (connect, and
 * accept on a listener); a connected socket keeps its buffers.
 *
 * Context: process context; may sleep.
 * Return: 0; -ENOPROTOOPT for an unknown level or option; -EINVAL for a
 * short @optlen or a bad value (or a KSTREAM_SOL_RDMA option once
 * connecting or listening); -EDOM for a bad timeval; -EFAULT.
 */
int kstream_setsockopt(struct kstream_sock *ks, int level, int optname,
		       sockptr_t optval, unsigned int optlen)
{
	int val, ret;

	if (!ks || sockptr_is_null(optval))
		return -EINVAL;
	mutex_lock(&ks->lock);
	switch (level) {
	case SOL_SOCKET:
		ret = ksk_set_sol_socket(ks, optname, optval, optlen);
		break;
	case IPPROTO_TCP:
		ret = optname == TCP_NODELAY ?
		      ksk_get_int(optval, optlen, &val) : -ENOPROTOOPT;
		if (!ret)
			ks->opts.nodelay = !!val;
		break;
	case KSTREAM_SOL_RDMA:
		ret = ksk_set_sol_rdma(ks, optname, optval, optlen);
		break;
	default:
		ret = -ENOPROTOOPT;
		break;
	}
	mutex_unlock(&ks->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kstream_setsockopt);

/* The endpoint's value of a size option, or @stored before there is one. */
static int ksk_size_opt(struct kstream_sock *ks, int name, size_t stored)
{
	size_t val = stored, len = sizeof(val);

	if (ks->ep && fi_getopt(&ks->ep->fid, FI_OPT_ENDPOINT, name, &val,
				&len))
		val = stored;
	return (int)min_t(size_t, val, INT_MAX);
}

static int ksk_put_timeo(long timeo, int optname, void *optval, int *optlen)
{
	bool old = optname == SO_RCVTIMEO_OLD || optname == SO_SNDTIMEO_OLD;
	struct __kernel_sock_timeval tv = {};

	if (timeo != MAX_SCHEDULE_TIMEOUT) {
		tv.tv_sec = timeo / HZ;
		tv.tv_usec = (timeo % HZ) * (USEC_PER_SEC / HZ);
	}
	if (old) {
		struct __kernel_old_timeval otv = {
			.tv_sec = tv.tv_sec,
			.tv_usec = tv.tv_usec,
		};

		if (*optlen < sizeof(otv))
			return -EINVAL;
		memcpy(optval, &otv, sizeof(otv));
		*optlen = sizeof(otv);
		return 0;
	}
	if (*optlen < sizeof(tv))
		return -EINVAL;
	memcpy(optval, &tv, sizeof(tv));
	*optlen = sizeof(tv);
	return 0;
}

/* One int option's value, or -ENOPROTOOPT. */
static int ksk_int_opt(struct kstream_sock *ks, int level, int optname,
		       int *val)
{
	const struct ksk_opts *o = &ks->opts;

	if (level == SOL_SOCKET) {
		switch (optname) {
		case SO_RCVBUF:
			*val = ksk_size_opt(ks, FI_OPT_RECV_BUF_SIZE, o->rcvbuf);
			return 0;
		case SO_SNDBUF:
			*val = ksk_size_opt(ks, FI_OPT_SEND_BUF_SIZE, o->sndbuf);
			return 0;
		case SO_KEEPALIVE:
			*val = o->keepalive;
			return 0;
		case SO_ERROR:
			*val = ksk_take_err(ks);
			if (!*val && ks->ep)
				*val = min(kstream_ep_error(ks->ep), 0);
			*val = -*val;
			return 0;
		}
	} else if (level == IPPROTO_TCP && optname == TCP_NODELAY) {
		*val = o->nodelay;
		return 0;
	} else if (level == KSTREAM_SOL_RDMA) {
		switch (optname) {
		case KSTREAM_SQSIZE:
			*val = ksk_size_opt(ks, FI_OPT_TX_SIZE, o->sqsize);
			return 0;
		case KSTREAM_RQSIZE:
			*val = ksk_size_opt(ks, FI_OPT_RX_SIZE, o->rqsize);
			return 0;
		case KSTREAM_INLINE:
			*val = ksk_size_opt(ks, FI_OPT_KSTREAM_INLINE,
					    o->inline_size);
			return 0;
		case KSTREAM_IOMAPSIZE:
			*val = ksk_size_opt(ks, FI_OPT_KSTREAM_IOMAPSIZE,
					    o->iomapsize);
			return 0;
		}
	}
	return -ENOPROTOOPT;
}

/**
 * kstream_getsockopt() - read a socket option, as rgetsockopt()
 * @ks: the socket
 * @level: SOL_SOCKET, IPPROTO_TCP or KSTREAM_SOL_RDMA
 * @optname: the options of kstream_setsockopt() and SO_ERROR (the
 *	pending error as a positive errno, then cleared)
 * @optval: kernel buffer for the value
 * @optlen: in: its size; out: the value's size
 *
 * SO_RCVBUF and SO_SNDBUF give the endpoint's buffer once connected,
 * before that the stored value (0: the provider's default, see
 * Documentation/kstream.rst).
 *
 * Context: process context; may sleep.
 * Return: 0; -ENOPROTOOPT for an unknown level or option; -EINVAL for a
 * short buffer or NULL arguments.
 */
int kstream_getsockopt(struct kstream_sock *ks, int level, int optname,
		       void *optval, int *optlen)
{
	int val, ret;

	if (!ks || !optval || !optlen || *optlen < 0)
		return -EINVAL;
	mutex_lock(&ks->lock);
	if (level == SOL_SOCKET && optname == SO_LINGER) {
		ret = -EINVAL;
		if (*optlen >= (int)sizeof(struct linger)) {
			memcpy(optval, &ks->opts.linger,
			       sizeof(struct linger));
			*optlen = sizeof(struct linger);
			ret = 0;
		}
	} else if (level == SOL_SOCKET &&
		   (optname == SO_RCVTIMEO_OLD || optname == SO_RCVTIMEO_NEW)) {
		ret = ksk_put_timeo(ks->opts.rcvtimeo, optname, optval, optlen);
	} else if (level == SOL_SOCKET &&
		   (optname == SO_SNDTIMEO_OLD || optname == SO_SNDTIMEO_NEW)) {
		ret = ksk_put_timeo(ks->opts.sndtimeo, optname, optval, optlen);
	} else {
		ret = ksk_int_opt(ks, level, optname, &val);
		if (!ret && *optlen < (int)sizeof(int))
			ret = -EINVAL;
		if (!ret) {
			memcpy(optval, &val, sizeof(int));
			*optlen = sizeof(int);
		}
	}
	mutex_unlock(&ks->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kstream_getsockopt);
