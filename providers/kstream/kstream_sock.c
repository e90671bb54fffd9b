// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: the socket-like calls - creating, binding, listening,
 * accepting, connecting, shutting down and releasing a kstream socket.
 *
 * These are the in-kernel counterparts of rsocket(), rbind(), rlisten(),
 * raccept(), rconnect(), rshutdown() and rclose() (rsocket(7)); the
 * errors are those of Linux's TCP sockets.  Everything is built from
 * fi_getinfo() with an FI_EP_SOCK_STREAM hint, the EQ for connection
 * events and the endpoint's FI_GETWAIT queue for data readiness.
 */
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <kofi/fabric.h>
#include <kofi/fi_cm.h>
#include <kofi/fi_domain.h>
#include <kofi/fi_endpoint.h>
#include <kofi/fi_eq.h>
#include <kofi/fi_errno.h>
#include "kstream.h"
#include "kstream_sock.h"

/* An EQ entry with the largest connection data. */
union ksk_cm_entry {
	struct fi_eq_cm_entry e;
	u8 raw[sizeof(struct fi_eq_cm_entry) + FI_CM_DATA_MAX];
};

/**
 * ksk_intr_errno() - the error of a wait ended by a signal
 * @timeo: the wait's timeout
 *
 * As sock_intr_errno(): a wait without timeout is restarted.
 *
 * Context: any context.
 * Return: -ERESTARTSYS or -EINTR.
 */
long ksk_intr_errno(long timeo)
{
	return timeo == MAX_SCHEDULE_TIMEOUT ? -ERESTARTSYS : -EINTR;
}

static void ksk_close_fid(struct fid *fid)
{
	int ret = fi_close(fid);

	if (ret)
		pr_warn("kstream: closing object of class %u: %d\n",
			fid->fclass, ret);
}

static void ksk_fabric_free(struct kref *ref)
{
	struct ksk_fabric *fab = container_of(ref, struct ksk_fabric, ref);

	ksk_close_fid(&fab->fabric->fid);
	kfree(fab);
}

static void ksk_fabric_put(struct ksk_fabric *fab)
{
	if (fab)
		kref_put(&fab->ref, ksk_fabric_free);
}

static int ksk_fabric_open(struct kstream_sock *ks, struct fi_info *info)
{
	struct ksk_fabric *fab;
	int ret;

	fab = kzalloc(sizeof(*fab), GFP_KERNEL);
	if (!fab)
		return -ENOMEM;
	kref_init(&fab->ref);
	ret = fi_fabric(info->fabric_attr, &fab->fabric, NULL);
	if (ret) {
		kfree(fab);
		return ret;
	}
	ks->fab = fab;
	return 0;
}

/* EQ handler: process context or softirq, must not sleep. */
static void ksk_eq_handler(struct fid_eq *eq, void *context)
{
	struct kstream_sock *ks = context;

	wake_up_all(&ks->wq);
}

/* Entry on the endpoint's wait queue: called with that queue's lock held. */
static int ksk_fwd_wake(struct wait_queue_entry *wqe, unsigned int mode,
			int sync, void *key)
{
	struct kstream_sock *ks = container_of(wqe, struct kstream_sock, fwd);

	wake_up_all(&ks->wq);
	return 0;
}

static int ksk_eq_open(struct kstream_sock *ks, size_t size)
{
	struct fi_eq_attr attr = {
		.size = size,
		.event_handler = ksk_eq_handler,
	};

	return fi_eq_open(ks->fab->fabric, &attr, &ks->eq, ks);
}

/* Closes everything the socket has opened; it is then KSK_NEW. */
static void ksk_teardown(struct kstream_sock *ks)
{
	struct fi_info *connreq;
	unsigned long flags;

	if (ks->epwq) {
		remove_wait_queue(ks->epwq, &ks->fwd);
		ks->epwq = NULL;
	}
	if (ks->ep)
		ksk_close_fid(&ks->ep->fid);
	spin_lock_irqsave(&ks->cm_lock, flags);
	connreq = ks->connreq;
	ks->connreq = NULL;
	ks->state = KSK_NEW;
	spin_unlock_irqrestore(&ks->cm_lock, flags);
	if (connreq) {
		fi_reject(ks->pep, connreq->handle, NULL, 0);
		fi_freeinfo(connreq);
	}
	if (ks->pep)
		ksk_close_fid(&ks->pep->fid);
	if (ks->eq)
		ksk_close_fid(&ks->eq->fid);
	if (ks->domain)
		ksk_close_fid(&ks->domain->fid);
	ksk_fabric_put(ks->fab);
	fi_freeinfo(ks->info);
	ks->ep = NULL;
	ks->pep = NULL;
	ks->eq = NULL;
	ks->domain = NULL;
	ks->fab = NULL;
	ks->info = NULL;
	ks->shut = 0;
}

static void ksk_set_state(struct kstream_sock *ks, enum ksk_state state)
{
	unsigned long flags;

	spin_lock_irqsave(&ks->cm_lock, flags);
	ks->state = state;
	spin_unlock_irqrestore(&ks->cm_lock, flags);
}

/* An EQ error entry: cm_lock held. */
static void ksk_eq_error(struct kstream_sock *ks, int err)
{
	if (!err)
		err = ECONNRESET;
	switch (ks->state) {
	case KSK_LISTEN:
		/* a lost or failed request: nothing to accept */
		pr_debug("kstream: listener event error %d\n", err);
		break;
	case KSK_CONNECTING:
		ks->state = KSK_CLOSED;
		fallthrough;
	default:
		ks->err = -err;
		break;
	}
}

/* One EQ event: cm_lock held. */
static void ksk_eq_event(struct kstream_sock *ks, u32 event,
			 union ksk_cm_entry *u)
{
	switch (event) {
	case FI_CONNREQ:
		if (ks->state == KSK_LISTEN && !ks->connreq)
			ks->connreq = u->e.info;
		else
			fi_freeinfo(u->e.info);	/* cannot happen */
		break;
	case FI_CONNECTED:
		if (ks->state == KSK_CONNECTING)
			ks->state = KSK_CONNECTED;
		break;
	case FI_SHUTDOWN:
		if (ks->state == KSK_CONNECTING) {
			ks->state = KSK_CLOSED;
			ks->err = -ECONNRESET;
		}
		/* connected: the stream itself reports the end */
		break;
	default:
		break;
	}
}

/**
 * ksk_progress() - read the socket's EQ and update its state
 * @ks: the socket
 *
 * A listener reads until it holds one connection request; a connecting
 * socket until FI_CONNECTED or an error; a connected one collects errors.
 *
 * Context: any context; does not sleep.
 * Return: the state afterwards.
 */
enum ksk_state ksk_progress(struct kstream_sock *ks)
{
	union ksk_cm_entry u;
	struct fi_eq_err_entry err;
	enum ksk_state state;
	unsigned long flags;
	u32 event;
	ssize_t ret;

	spin_lock_irqsave(&ks->cm_lock, flags);
	while (ks->eq && (ks->state == KSK_CONNECTING ||
			  ks->state == KSK_CONNECTED ||
			  (ks->state == KSK_LISTEN && !ks->connreq))) {
		ret = fi_eq_read(ks->eq, &event, &u, sizeof(u), 0);
		if (ret == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (fi_eq_readerr(ks->eq, &err, 0) <= 0)
				break;
			ksk_eq_error(ks, err.err);
			continue;
		}
		if (ret < 0)
			break;
		ksk_eq_event(ks, event, &u);
	}
	state = ks->state;
	spin_unlock_irqrestore(&ks->cm_lock, flags);
	return state;
}

/**
 * ksk_take_err() - read and clear the pending error
 * @ks: the socket
 *
 * Context: any context.
 * Return: the pending error (negative errno) or 0.
 */
int ksk_take_err(struct kstream_sock *ks)
{
	unsigned long flags;
	int err;

	spin_lock_irqsave(&ks->cm_lock, flags);
	err = ks->err;
	ks->err = 0;
	spin_unlock_irqrestore(&ks->cm_lock, flags);
	return err;
}

static bool ksk_settled(struct kstream_sock *ks, __poll_t unused)
{
	return ksk_progress(ks) != KSK_CONNECTING;
}

/**
 * ksk_wait_connected() - wait until a connecting socket is connected
 * @ks: the socket
 * @timeo: jiffies to wait at most (0: do not wait), updated
 *
 * Context: process context; sleeps unless *@timeo is 0.
 * Return: 0 when connected; -EAGAIN while still connecting when the time
 * is up; the connection's error if it failed; -ENOTCONN if the socket
 * never started connecting; -ERESTARTSYS or -EINTR on a signal.
 */
int ksk_wait_connected(struct kstream_sock *ks, long *timeo)
{
	enum ksk_state state = ksk_progress(ks);
	long w;
	int err;

	if (state == KSK_CONNECTING) {
		if (!*timeo)
			return -EAGAIN;
		w = ksk_wait_until(ks, ksk_settled, 0, *timeo);
		if (w < 0)
			return w;
		if (!w) {
			*timeo = 0;
			return -EAGAIN;
		}
		*timeo = w;
		state = ksk_progress(ks);
	}
	switch (state) {
	case KSK_CONNECTED:
		return 0;
	case KSK_CLOSED:
		err = ksk_take_err(ks);
		return err ? err : -ECONNRESET;
	default:
		return -ENOTCONN;
	}
}

static int ksk_check_addr(struct kstream_sock *ks,
			  const struct sockaddr *addr, int addrlen)
{
	int need = ks->family == AF_INET ? sizeof(struct sockaddr_in) :
					   sizeof(struct sockaddr_in6);

	if (!addr || addrlen < need)
		return -EINVAL;
	if (addr->sa_family != ks->family)
		return -EAFNOSUPPORT;
	return 0;
}

/* fi_getinfo() for @addr (numeric), as local address if @source. */
static int ksk_getinfo(struct kstream_sock *ks, const struct sockaddr *addr,
		       bool source, struct fi_info **info)
{
	char node[INET6_ADDRSTRLEN + 1], service[8];
	struct fi_info *hints;
	bool any;
	u16 port;
	int ret;

	if (ks->family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)addr;

		snprintf(node, sizeof(node), "%pI4", &sin->sin_addr);
		port = ntohs(sin->sin_port);
		any = sin->sin_addr.s_addr == htonl(INADDR_ANY);
	} else {
		const struct sockaddr_in6 *sin6 = (const void *)addr;

		snprintf(node, sizeof(node), "%pI6c", &sin6->sin6_addr);
		port = ntohs(sin6->sin6_port);
		any = ipv6_addr_any(&sin6->sin6_addr);
	}
	snprintf(service, sizeof(service), "%u", port);

	hints = fi_allocinfo(GFP_KERNEL);
	if (!hints)
		return -ENOMEM;
	hints->caps = FI_MSG;
	hints->ep_attr->type = FI_EP_SOCK_STREAM;
	hints->addr_format = ks->family == AF_INET ? FI_SOCKADDR_IN :
						     FI_SOCKADDR_IN6;
	ret = -ENOMEM;
	if (ks->prov) {
		hints->fabric_attr->prov_name = kstrdup(ks->prov, GFP_KERNEL);
		if (!hints->fabric_attr->prov_name)
			goto out;
	}
	if (!source && ks->info && ks->info->src_addr) {
		hints->src_addr = kmemdup(ks->info->src_addr,
					  ks->info->src_addrlen, GFP_KERNEL);
		if (!hints->src_addr)
			goto out;
		hints->src_addrlen = ks->info->src_addrlen;
	}
	/* a wildcard local address: no node, as fi_getinfo() expects it */
	ret = fi_getinfo(fi_version(), source && any ? NULL : node, service,
			 source ? FI_SOURCE : 0, hints, info);
	if (ret == -ENODATA)
		ret = source ? -EADDRNOTAVAIL : -ENETUNREACH;
out:
	fi_freeinfo(hints);
	return ret;
}

/* A new unbound, blocking socket; nothing opened. */
static struct kstream_sock *ksk_alloc(int family)
{
	struct kstream_sock *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->family = family;
	mutex_init(&s->lock);
	spin_lock_init(&s->cm_lock);
	init_waitqueue_head(&s->wq);
	init_waitqueue_func_entry(&s->fwd, ksk_fwd_wake);
	s->state = KSK_NEW;
	s->opts.rcvtimeo = MAX_SCHEDULE_TIMEOUT;
	s->opts.sndtimeo = MAX_SCHEDULE_TIMEOUT;
	return s;
}

/**
 * kstream_sock_create() - create a kstream socket, as rsocket()
 * @family: AF_INET or AF_INET6
 * @prov: core provider ("ksocket", "ib_verbs"), or NULL for the best one
 *	that serves the addresses used later
 * @ks: the new socket
 *
 * The socket is unbound and blocking; nothing is opened on a provider
 * until kstream_bind(), kstream_listen() or kstream_connect().
 *
 * Context: process context; may sleep.
 * Return: 0; -EAFNOSUPPORT for another family; -EINVAL for a bad @prov or
 * a NULL @ks; -ENODATA if no such kstream provider is registered;
 * -ENOMEM.
 */
int kstream_sock_create(int family, const char *prov, struct kstream_sock **ks)
{
	struct fi_info *hints, *info = NULL;
	struct kstream_sock *s;
	int ret;

	if (!ks)
		return -EINVAL;
	*ks = NULL;
	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	if (prov && (!*prov || strchr(prov, ';') || strlen(prov) > 64))
		return -EINVAL;
	s = ksk_alloc(family);
	if (!s)
		return -ENOMEM;
	ret = -ENOMEM;
	if (prov) {
		s->prov = kasprintf(GFP_KERNEL, "%s;kstream", prov);
		if (!s->prov)
			goto err;
	}
	/* is there such a provider at all? */
	hints = fi_allocinfo(GFP_KERNEL);
	if (!hints)
		goto err;
	hints->caps = FI_MSG;
	hints->ep_attr->type = FI_EP_SOCK_STREAM;
	hints->addr_format = family == AF_INET ? FI_SOCKADDR_IN :
						 FI_SOCKADDR_IN6;
	if (s->prov) {
		hints->fabric_attr->prov_name = kstrdup(s->prov, GFP_KERNEL);
		if (!hints->fabric_attr->prov_name) {
			fi_freeinfo(hints);
			goto err;
		}
	}
	ret = fi_getinfo(fi_version(), NULL, NULL, 0, hints, &info);
	fi_freeinfo(hints);
	fi_freeinfo(info);
	if (ret)
		goto err;
	*ks = s;
	return 0;
err:
	kstream_release(s);
	return ret;
}
EXPORT_SYMBOL_GPL(kstream_sock_create);

static int ksk_bind_locked(struct kstream_sock *ks,
			   const struct sockaddr *addr)
{
	int ret;

	ret = ksk_getinfo(ks, addr, true, &ks->info);
	if (ret)
		return ret;
	ks->state = KSK_BOUND;
	return 0;
}

/**
 * kstream_bind() - give a socket its local address, as rbind()
 * @ks: an unbound socket
 * @addr: a struct sockaddr_in or sockaddr_in6 of the socket's family
 *	(port 0: chosen at listen or connect time)
 * @addrlen: its size
 *
 * The address must be one a kstream provider serves (for ib_verbs, that
 * of an RDMA device).
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL if already bound or @addrlen is short; -EAFNOSUPPORT
 * for another family; -EADDRNOTAVAIL if no provider serves @addr.
 */
int kstream_bind(struct kstream_sock *ks, const struct sockaddr *addr,
		 int addrlen)
{
	int ret;

	if (!ks)
		return -EINVAL;
	ret = ksk_check_addr(ks, addr, addrlen);
	if (ret)
		return ret;
	mutex_lock(&ks->lock);
	ret = ks->state == KSK_NEW ? ksk_bind_locked(ks, addr) : -EINVAL;
	mutex_unlock(&ks->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kstream_bind);

static int ksk_listen_locked(struct kstream_sock *ks, int backlog)
{
	struct sockaddr_storage any = { .ss_family = ks->family };
	int ret;

	if (ks->state == KSK_NEW) {
		ret = ksk_bind_locked(ks, (struct sockaddr *)&any);
		if (ret)
			return ret;
	}
	ret = ksk_fabric_open(ks, ks->info);
	if (!ret)
		ret = ksk_eq_open(ks, clamp(backlog, 16, FI_EQ_MAX_SIZE));
	if (!ret)
		ret = fi_passive_ep(ks->fab->fabric, ks->info, &ks->pep, ks);
	if (!ret)
		ret = fi_pep_bind(ks->pep, &ks->eq->fid, 0);
	if (!ret)
		ret = fi_listen(ks->pep);
	if (ret) {
		ksk_teardown(ks);
		return ret;
	}
	ksk_set_state(ks, KSK_LISTEN);
	return 0;
}

/**
 * kstream_listen() - listen for connections, as rlisten()
 * @ks: a new or bound socket (an unbound one listens on the wildcard
 *	address, on a port the provider chooses: see kstream_getname())
 * @backlog: connection requests queued before accept (at least 16, at
 *	most FI_EQ_MAX_SIZE; the provider rejects the ones beyond)
 *
 * Context: process context; may sleep.
 * Return: 0 (also when already listening); -EINVAL when connecting or
 * connected; the provider's error (-EADDRINUSE ...).  On an error the
 * socket is unbound again.
 */
int kstream_listen(struct kstream_sock *ks, int backlog)
{
	int ret;

	if (!ks)
		return -EINVAL;
	mutex_lock(&ks->lock);
	switch (ks->state) {
	case KSK_NEW:
	case KSK_BOUND:
		ret = ksk_listen_locked(ks, backlog);
		break;
	case KSK_LISTEN:
		ret = 0;
		break;
	default:
		ret = -EINVAL;
		break;
	}
	mutex_unlock(&ks->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kstream_listen);

/* Opens our EQ, domain and endpoint for @info (taken over) and enables it. */
static int ksk_open_ep(struct kstream_sock *ks, struct fi_info *info)
{
	int ret;

	ks->info = info;
	ret = ksk_eq_open(ks, 0);
	if (!ret)
		ret = fi_domain(ks->fab->fabric, info, &ks->domain, NULL);
	if (!ret)
		ret = fi_endpoint(ks->domain, info, &ks->ep, ks);
	if (!ret)
		ret = fi_ep_bind(ks->ep, &ks->eq->fid, 0);
	if (!ret)
		ret = ksk_apply_opts(ks, &ks->ep->fid);
	if (!ret)
		ret = fi_enable(ks->ep);
	if (!ret)
		ret = fi_control(&ks->ep->fid, FI_GETWAIT, &ks->epwq);
	if (ret)
		return ret;
	if (!ks->epwq)
		return -EOPNOTSUPP;
	add_wait_queue(ks->epwq, &ks->fwd);
	return 0;
}

/* A new socket for @connreq (taken over), with the listener's settings. */
static int ksk_accept_one(struct kstream_sock *ks, struct fi_info *connreq,
			  struct kstream_sock **newks)
{
	struct kstream_sock *n;
	int ret;

	n = ksk_alloc(ks->family);
	if (!n) {
		fi_reject(ks->pep, connreq->handle, NULL, 0);
		fi_freeinfo(connreq);
		return -ENOMEM;
	}
	n->opts = ks->opts;
	n->nonblock = ks->nonblock;
	kref_get(&ks->fab->ref);
	n->fab = ks->fab;
	ret = ksk_open_ep(n, connreq);
	if (!ret) {
		ksk_set_state(n, KSK_CONNECTING);
		ret = fi_accept(n->ep, NULL, 0);
	}
	if (ret) {
		/* once fi_endpoint() took the request, closing it refuses */
		if (!n->ep)
			fi_reject(ks->pep, connreq->handle, NULL, 0);
		kstream_release(n);
		return ret;
	}
	*newks = n;
	return 0;
}

static struct fi_info *ksk_take_connreq(struct kstream_sock *ks)
{
	struct fi_info *info;
	unsigned long flags;

	ksk_progress(ks);
	spin_lock_irqsave(&ks->cm_lock, flags);
	info = ks->connreq;
	ks->connreq = NULL;
	spin_unlock_irqrestore(&ks->cm_lock, flags);
	return info;
}

static bool ksk_has_connreq(struct kstream_sock *ks, __poll_t unused)
{
	ksk_progress(ks);
	return READ_ONCE(ks->connreq);
}

/**
 * kstream_accept() - take a connection from a listener, as raccept()
 * @ks: a listening socket
 * @newks: the connected socket (inherits @ks's options and blocking mode)
 * @flags: O_NONBLOCK: do not wait for a request, and return the new
 *	socket while its connection is still being set up (its calls then
 *	wait for it, or return -EAGAIN if nonblocking; kstream_poll() shows
 *	EPOLLOUT once it is up)
 *
 * Without O_NONBLOCK (and with kstream_set_nonblock() off) it waits for a
 * request, interruptibly and at most SO_RCVTIMEO, then for the connection
 * to be established; a request whose connection fails is skipped.
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL if @ks is not listening or @flags has other bits;
 * -EAGAIN when nothing is waiting (nonblocking) or SO_RCVTIMEO passed;
 * -ERESTARTSYS or -EINTR on a signal; -ENOMEM or a provider's error.
 */
int kstream_accept(struct kstream_sock *ks, struct kstream_sock **newks,
		   int flags)
{
	bool nonblock = flags & O_NONBLOCK;
	struct fi_info *connreq;
	struct kstream_sock *n;
	long timeo, w;
	int ret;

	if (!ks || !newks || (flags & ~O_NONBLOCK))
		return -EINVAL;
	*newks = NULL;
	nonblock |= READ_ONCE(ks->nonblock);
	timeo = nonblock ? 0 : ks->opts.rcvtimeo;
	mutex_lock(&ks->lock);
	for (;;) {
		if (ks->state != KSK_LISTEN) {
			ret = -EINVAL;
			break;
		}
		connreq = ksk_take_connreq(ks);
		if (!connreq) {
			ret = -EAGAIN;
			if (!timeo)
				break;
			w = ksk_wait_until(ks, ksk_has_connreq, 0, timeo);
			if (w < 0) {
				ret = w;
				break;
			}
			if (!w)
				break;
			timeo = w;
			continue;
		}
		ret = ksk_accept_one(ks, connreq, &n);
		if (ret)
			break;
		if (nonblock) {
			*newks = n;
			break;
		}
		ret = ksk_wait_connected(n, &timeo);
		if (!ret) {
			*newks = n;
			break;
		}
		kstream_release(n);
		if (ret == -EAGAIN || ret == -ERESTARTSYS || ret == -EINTR)
			break;
		/* that connection failed: wait for the next one */
	}
	mutex_unlock(&ks->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kstream_accept);

static int ksk_connect_start(struct kstream_sock *ks,
			     const struct sockaddr *addr)
{
	struct fi_info *info;
	int ret;

	ret = ksk_getinfo(ks, addr, false, &info);
	if (ret)
		return ret;
	fi_freeinfo(ks->info);
	ks->info = NULL;
	ret = ksk_fabric_open(ks, info);
	if (ret) {
		fi_freeinfo(info);
		return ret;
	}
	ret = ksk_open_ep(ks, info);
	if (!ret) {
		ksk_set_state(ks, KSK_CONNECTING);
		ret = fi_connect(ks->ep, info->dest_addr, NULL, 0);
	}
	if (ret)
		ksk_teardown(ks);
	return ret;
}

/**
 * kstream_connect() - connect to a listener, as rconnect()
 * @ks: a new or bound socket (a failed connection may be retried)
 * @addr: the peer, a struct sockaddr_in or sockaddr_in6 of the family
 * @addrlen: its size
 * @flags: O_NONBLOCK: return -EINPROGRESS at once; kstream_poll() then
 *	shows EPOLLOUT once connected or EPOLLERR once failed (SO_ERROR
 *	says why)
 *
 * Without O_NONBLOCK (and with kstream_set_nonblock() off) it waits,
 * interruptibly and at most SO_SNDTIMEO, for the connection.
 *
 * Context: process context; may sleep.
 * Return: 0 once connected; -EINPROGRESS (nonblocking, or SO_SNDTIMEO
 * passed); -EALREADY if a nonblocking connect is under way; -EISCONN if
 * connected or listening; -EINVAL for a short @addrlen or other @flags;
 * -EAFNOSUPPORT for another family; -ECONNREFUSED, -ETIMEDOUT,
 * -ENETUNREACH ... from the provider; -ERESTARTSYS or -EINTR on a signal
 * (the connection goes on).
 */
int kstream_connect(struct kstream_sock *ks, const struct sockaddr *addr,
		    int addrlen, int flags)
{
	bool nonblock = flags & O_NONBLOCK;
	long timeo;
	int ret;

	if (!ks || (flags & ~O_NONBLOCK))
		return -EINVAL;
	nonblock |= READ_ONCE(ks->nonblock);
	mutex_lock(&ks->lock);
	switch (ksk_progress(ks)) {
	case KSK_CONNECTED:
	case KSK_LISTEN:
		ret = -EISCONN;
		goto out;
	case KSK_CONNECTING:
		if (nonblock) {
			ret = -EALREADY;
			goto out;
		}
		break;
	case KSK_CLOSED:
		ksk_teardown(ks);
		fallthrough;
	default:
		ret = ksk_check_addr(ks, addr, addrlen);
		if (!ret)
			ret = ksk_connect_start(ks, addr);
		if (ret)
			goto out;
		if (nonblock) {
			ret = -EINPROGRESS;
			goto out;
		}
		break;
	}
	timeo = ks->opts.sndtimeo;
	ret = ksk_wait_connected(ks, &timeo);
	if (ret == -EAGAIN)
		ret = -EINPROGRESS;
out:
	mutex_unlock(&ks->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kstream_connect);

/**
 * kstream_shutdown() - shut down one or both directions, as rshutdown()
 * @ks: a connected socket
 * @how: SHUT_RD, SHUT_WR or SHUT_RDWR
 *
 * SHUT_WR sends the end of the stream after the queued data (rsockets'
 * SHUTDOWN message): the peer reads 0 once it has read everything.
 * SHUT_RDWR sends rsockets' DISCONNECT.  SHUT_RD is local: later receives
 * return 0.  The socket stays until kstream_release().
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL for a bad @how; -ENOTCONN if not connected.
 */
int kstream_shutdown(struct kstream_sock *ks, int how)
{
	int ret;

	if (!ks || how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	mutex_lock(&ks->lock);
	if (ksk_progress(ks) != KSK_CONNECTED) {
		ret = -ENOTCONN;
		goto out;
	}
	ret = kstream_ep_shutdown(ks->ep, how);
	if (!ret)
		ks->shut |= how == SHUT_RD ? KSK_SHUT_RD :
			    how == SHUT_WR ? KSK_SHUT_WR : KSK_SHUT_BOTH;
	wake_up_all(&ks->wq);
out:
	mutex_unlock(&ks->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kstream_shutdown);

/**
 * kstream_release() - close a socket, as rclose()
 * @ks: the socket, or NULL
 *
 * A connected socket is shut down in both directions first (rsockets'
 * DISCONNECT); a listener rejects the requests it has not accepted.
 * Sockets accepted from a listener stay usable after it is released.
 * No other call on @ks may run or follow.
 *
 * Context: process context; may sleep.
 */
void kstream_release(struct kstream_sock *ks)
{
	if (!ks)
		return;
	if (ks->ep && ksk_progress(ks) == KSK_CONNECTED &&
	    (ks->shut & KSK_SHUT_BOTH) != KSK_SHUT_BOTH)
		kstream_ep_shutdown(ks->ep, SHUT_RDWR);
	ksk_teardown(ks);
	mutex_destroy(&ks->lock);
	kfree(ks->prov);
	kfree(ks);
}
EXPORT_SYMBOL_GPL(kstream_release);

/**
 * kstream_getname() - local or peer address, as rgetsockname()/rgetpeername()
 * @ks: the socket
 * @addr: room for a struct sockaddr_storage
 * @peer: non-zero for the peer's address
 *
 * An unbound socket's local address is the wildcard address, port 0.
 *
 * Context: process context; does not sleep.
 * Return: the address length; -ENOTCONN for @peer when not connected;
 * -EINVAL for a NULL argument; a provider's error.
 */
int kstream_getname(struct kstream_sock *ks, struct sockaddr *addr, int peer)
{
	size_t len = sizeof(struct sockaddr_storage);
	enum ksk_state state;
	int ret;

	if (!ks || !addr)
		return -EINVAL;
	memset(addr, 0, len);
	state = ksk_progress(ks);
	if (peer) {
		if (state != KSK_CONNECTED)
			return -ENOTCONN;
		ret = fi_getpeer(ks->ep, addr, &len);
	} else if (ks->ep) {
		ret = fi_getname(&ks->ep->fid, addr, &len);
	} else if (ks->pep) {
		ret = fi_getname(&ks->pep->fid, addr, &len);
	} else if (ks->info && ks->info->src_addr &&
		   ks->info->src_addrlen <= len) {
		len = ks->info->src_addrlen;
		memcpy(addr, ks->info->src_addr, len);
		ret = 0;
	} else {
		addr->sa_family = ks->family;
		len = ks->family == AF_INET ? sizeof(struct sockaddr_in) :
					      sizeof(struct sockaddr_in6);
		ret = 0;
	}
	return ret ? ret : (int)len;
}
EXPORT_SYMBOL_GPL(kstream_getname);

/**
 * kstream_set_nonblock() - nonblocking mode, as fcntl(O_NONBLOCK) on an rsocket
 * @ks: the socket
 * @nonblock: true: no call waits (-EAGAIN, -EINPROGRESS instead)
 *
 * Context: any context.
 * Return: 0, or -EINVAL for a NULL @ks.
 */
int kstream_set_nonblock(struct kstream_sock *ks, bool nonblock)
{
	if (!ks)
		return -EINVAL;
	WRITE_ONCE(ks->nonblock, nonblock);
	return 0;
}
EXPORT_SYMBOL_GPL(kstream_set_nonblock);

/**
 * kstream_sock_ep() - the socket's FI_EP_SOCK_STREAM endpoint
 * @ks: the socket
 *
 * For the fi_* calls (fi_getopt(), fi_control()) on a connected socket;
 * the endpoint belongs to the socket and goes away with it.
 *
 * Context: any context.
 * Return: the endpoint, or NULL before kstream_connect()/kstream_accept().
 */
struct fid_ep *kstream_sock_ep(struct kstream_sock *ks)
{
	return ks ? ks->ep : NULL;
}
EXPORT_SYMBOL_GPL(kstream_sock_ep);
