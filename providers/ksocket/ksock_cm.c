// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ksocket provider: connection management.
 *
 * Passive side: fi_listen() opens a listening TCP socket; its work accepts
 * connections and reads each one's connection request (control header and
 * connection data) without blocking; a connection whose request is not
 * complete within connreq_timeout_ms of its TCP handshake is dropped.  A
 * complete request becomes an FI_CONNREQ event whose info->handle is a
 * struct ksock_creq; fi_endpoint() with that info takes the socket over,
 * fi_accept() answers with a connection response, fi_reject() with a nack
 * carrying the reject data.
 *
 * Active side: fi_connect() starts a non-blocking TCP connect; the
 * endpoint's work sends the connection request once the socket is
 * established and reads the answer: FI_CONNECTED with the peer's data, or
 * an EQ error entry (ECONNREFUSED with the reject data for a nack;
 * ETIMEDOUT if it is not connected within the endpoint's
 * FI_OPT_CONNECT_TIMEOUT_MS, whose default is connect_timeout_ms).
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/swab.h>
#include <linux/nsproxy.h>
#include <net/net_namespace.h>
#include <net/tcp_states.h>
#include "ksock.h"

static const struct fi_ops ksock_creq_fi_ops;

static unsigned int ksock_connreq_timeout_ms = 10000;
module_param_named(connreq_timeout_ms, ksock_connreq_timeout_ms, uint, 0644);
MODULE_PARM_DESC(connreq_timeout_ms,
		 "a listener drops an accepted TCP connection whose connection request is not complete, or not taken by the listener's full EQ, within this many ms (0 = never; default 10000)");

unsigned int ksock_connect_timeout_ms = 10000;
module_param_named(connect_timeout_ms, ksock_connect_timeout_ms, uint, 0644);
MODULE_PARM_DESC(connect_timeout_ms,
		 "fi_connect() of endpoints opened later fails with ETIMEDOUT if the TCP handshake and the peer's answer take longer than this many ms (0 = never; at most 86400000; default 10000; fi_setopt(FI_OPT_CONNECT_TIMEOUT_MS) per endpoint)");

/* Build a control message in @buf; returns its length. */
static size_t ksock_ctrl_build(u8 *buf, u8 type, const void *data,
			       size_t len)
{
	struct ksock_ctrl_hdr *hdr = (struct ksock_ctrl_hdr *)buf;

	memset(hdr, 0, sizeof(*hdr));
	hdr->version = KSOCK_CTRL_VERSION;
	hdr->type = type;
	hdr->seg_size = cpu_to_be16(len);
	hdr->conn_data = 1;
	if (len)
		memcpy(buf + sizeof(*hdr), data, len);
	return sizeof(*hdr) + len;
}

/*
 * Check a received control header; sets *@bswap from the byte order probe.
 * libfabric's reject carries no probe (conn_data 0): a nack's data is the
 * rejecter's, in no byte order of tcp's.  Returns 0 or a negative errno.
 */
static int ksock_ctrl_check(const struct ksock_ctrl_hdr *hdr, bool *bswap)
{
	if (hdr->version != KSOCK_CTRL_VERSION)
		return -ENOPROTOOPT;
	if (be16_to_cpu(hdr->seg_size) > KSOCK_CM_DATA_MAX)
		return -EPROTO;
	if (hdr->type == KSOCK_CTRL_NACK && !hdr->conn_data)
		return 0;
	if (hdr->conn_data == 1)
		*bswap = false;
	else if (hdr->conn_data == swab64(1))
		*bswap = true;
	else
		return -EPROTO;
	return 0;
}

/* Send a whole small buffer on a fresh socket. */
static int ksock_send_all(struct socket *sock, const void *buf, size_t len)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_iter it;
	int ret;

	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	ret = ksock_sock_send(sock, &it, false);
	if (ret < 0)
		return ret;
	return iov_iter_count(&it) ? -ENOBUFS : 0;
}

static int ksock_copy_addr(const struct sockaddr *sa, int salen, void *addr,
			   size_t *addrlen)
{
	size_t have = *addrlen;

	*addrlen = salen;
	if (have < salen)
		return -EMSGSIZE;
	memcpy(addr, sa, salen);
	return 0;
}

static int ksock_sock_name(struct socket *sock, bool peer, void *addr,
			   size_t *addrlen)
{
	struct sockaddr_storage ss = {};
	int ret;

	ret = peer ? kernel_getpeername(sock, (struct sockaddr *)&ss) :
		     kernel_getsockname(sock, (struct sockaddr *)&ss);
	if (ret < 0)
		return ret;
	return ksock_copy_addr((struct sockaddr *)&ss, ret, addr, addrlen);
}

/* ---- connection requests ---- */

static void ksock_creq_free(struct ksock_creq *creq)
{
	if (creq->sock)
		sock_release(creq->sock);
	kfree(creq);
}

static int ksock_creq_close(struct fid *fid)
{
	ksock_creq_free(container_of(fid, struct ksock_creq, fid));
	return 0;
}

static const struct fi_ops ksock_creq_fi_ops = {
	.close = ksock_creq_close,
};

static struct ksock_creq *ksock_creq_of(struct fid *handle)
{
	if (!handle || handle->fclass != FI_CLASS_CONNREQ ||
	    handle->ops != &ksock_creq_fi_ops)
		return NULL;
	return container_of(handle, struct ksock_creq, fid);
}

static void ksock_creq_wake(struct sock *sk)
{
	struct ksock_pep *pep;

	read_lock_bh(&sk->sk_callback_lock);
	pep = sk->sk_user_data;
	if (pep)
		mod_delayed_work(ksock_wq, &pep->work, 0);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void ksock_creq_attach(struct ksock_pep *pep, struct ksock_creq *creq)
{
	struct sock *sk = creq->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	creq->saved_data_ready = sk->sk_data_ready;
	creq->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = pep;
	sk->sk_data_ready = ksock_creq_wake;
	sk->sk_state_change = ksock_creq_wake;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void ksock_creq_detach(struct ksock_creq *creq)
{
	struct sock *sk = creq->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_data_ready == ksock_creq_wake) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = creq->saved_data_ready;
		sk->sk_state_change = creq->saved_state_change;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Report a complete request: 0; -EAGAIN while the EQ is full (the caller
 * keeps @creq and offers it again); else the caller frees @creq.
 */
static int ksock_creq_deliver(struct ksock_pep *pep, struct ksock_creq *creq)
{
	struct sockaddr_storage src = {}, dst = {};
	size_t len, srclen, dstlen;
	struct fi_info *info;
	int ret;

	ret = kernel_getsockname(creq->sock, (struct sockaddr *)&src);
	if (ret < 0)
		return ret;
	srclen = ret;
	ret = kernel_getpeername(creq->sock, (struct sockaddr *)&dst);
	if (ret < 0)
		return ret;
	dstlen = ret;
	info = fi_dupinfo(pep->info, GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	kfree(info->src_addr);
	kfree(info->dest_addr);
	info->src_addr = kmemdup(&src, srclen, GFP_KERNEL);
	info->dest_addr = kmemdup(&dst, dstlen, GFP_KERNEL);
	info->src_addrlen = srclen;
	info->dest_addrlen = dstlen;
	ret = -ENOMEM;
	if (!info->src_addr || !info->dest_addr)
		goto err;
	info->addr_format = info->src_addrlen == sizeof(struct sockaddr_in) ?
			    FI_SOCKADDR_IN : FI_SOCKADDR_IN6;
	info->handle = &creq->fid;
	len = be16_to_cpu(creq->buf.ctrl.seg_size);
	ret = kofi_eq_offer_cm(kofi_pep_eq(&pep->pep), FI_CONNREQ,
			       &pep->pep.fid, info,
			       creq->buf.raw + sizeof(creq->buf.ctrl), len);
	if (ret)
		goto err;
	return 0;
err:
	info->handle = NULL;
	fi_freeinfo(info);
	return ret;
}

/* Read what has arrived of a request: 1 complete, 0 more to come, < 0 bad. */
static int ksock_creq_read(struct ksock_creq *creq)
{
	size_t need = sizeof(creq->buf.ctrl);
	int ret;

	for (;;) {
		if (creq->got >= sizeof(creq->buf.ctrl)) {
			ret = ksock_ctrl_check(&creq->buf.ctrl, &creq->bswap);
			if (ret)
				return ret;
			if (creq->buf.ctrl.type != KSOCK_CTRL_CONNREQ)
				return -EPROTO;
			need = sizeof(creq->buf.ctrl) +
			       be16_to_cpu(creq->buf.ctrl.seg_size);
		}
		if (creq->got == need)
			return 1;
		ret = ksock_sock_recv_buf(creq->sock, creq->buf.raw + creq->got,
					  need - creq->got);
		if (ret == -EAGAIN)
			return 0;
		if (ret <= 0)
			return ret ? ret : -ECONNRESET;
		creq->got += ret;
	}
}

/* ---- passive endpoints ---- */

static void ksock_pep_data_ready(struct sock *sk)
{
	ksock_creq_wake(sk);
}

static void ksock_pep_accept(struct ksock_pep *pep)
{
	struct ksock_creq *creq;
	struct socket *sock;
	unsigned long flags;

	for (;;) {
		if (kernel_accept(pep->sock, &sock, O_NONBLOCK))
			return;
		creq = kzalloc(sizeof(*creq), GFP_KERNEL);
		if (!creq) {
			sock_release(sock);
			continue;
		}
		kofi_fid_init(&creq->fid, FI_CLASS_CONNREQ, &ksock_creq_fi_ops,
			      NULL);
		creq->sock = sock;
		creq->deadline = jiffies +
			msecs_to_jiffies(READ_ONCE(ksock_connreq_timeout_ms));
		ksock_creq_attach(pep, creq);
		spin_lock_irqsave(&pep->lock, flags);
		list_add_tail(&creq->node, &pep->creqs);
		spin_unlock_irqrestore(&pep->lock, flags);
	}
}

/*
 * A request still incomplete at its deadline: 0 if there is time left
 * (*@next is then the earliest deadline seen), -ETIMEDOUT if not.
 */
static int ksock_creq_expired(struct ksock_creq *creq, unsigned long *next,
			      bool *waiting)
{
	if (!READ_ONCE(ksock_connreq_timeout_ms))
		return 0;
	if (time_after_eq(jiffies, creq->deadline))
		return -ETIMEDOUT;
	if (!*waiting || time_before(creq->deadline, *next))
		*next = creq->deadline;
	*waiting = true;
	return 0;
}

/*
 * A complete request the full EQ could not take: 0 to offer it again
 * within KSOCK_CREQ_RETRY_MS (*@next is then the earliest time to come
 * back), -ETIMEDOUT once its deadline has passed.
 */
static int ksock_creq_hold(struct ksock_creq *creq, unsigned long *next,
			   bool *waiting)
{
	unsigned long retry = jiffies + msecs_to_jiffies(KSOCK_CREQ_RETRY_MS);

	creq->complete = true;
	if (READ_ONCE(ksock_connreq_timeout_ms) &&
	    time_after_eq(jiffies, creq->deadline))
		return -ETIMEDOUT;
	if (!*waiting || time_before(retry, *next))
		*next = retry;
	*waiting = true;
	return 0;
}

static void ksock_pep_work(struct work_struct *work)
{
	struct ksock_pep *pep = container_of(to_delayed_work(work),
					     struct ksock_pep, work);
	struct ksock_creq *creq, *tmp;
	bool waiting = false;
	unsigned long flags, next = 0;
	LIST_HEAD(held);
	int ret;

	spin_lock_irqsave(&pep->lock, flags);
	if (pep->closing) {
		spin_unlock_irqrestore(&pep->lock, flags);
		return;
	}
	spin_unlock_irqrestore(&pep->lock, flags);
	ksock_pep_accept(pep);
	/* Only this work removes requests; pep close stops it first. */
	list_for_each_entry_safe(creq, tmp, &pep->creqs, node) {
		ret = creq->complete ? 1 : ksock_creq_read(creq);
		if (!ret)
			ret = ksock_creq_expired(creq, &next, &waiting);
		if (!ret)
			continue;
		spin_lock_irqsave(&pep->lock, flags);
		list_del_init(&creq->node);
		spin_unlock_irqrestore(&pep->lock, flags);
		ksock_creq_detach(creq);
		if (ret > 0) {
			ret = ksock_creq_deliver(pep, creq);
			if (!ret)
				continue;	/* the user's now */
			if (ret == -EAGAIN &&
			    !ksock_creq_hold(creq, &next, &waiting)) {
				list_add_tail(&creq->node, &held);
				continue;
			}
		}
		pr_debug("ksocket: connection request dropped: %d\n", ret);
		ksock_creq_free(creq);
	}
	/* Offered again, in their order, when the work comes back. */
	spin_lock_irqsave(&pep->lock, flags);
	list_splice(&held, &pep->creqs);
	spin_unlock_irqrestore(&pep->lock, flags);
	/* Come back at the first deadline (a wake-up may come first). */
	if (waiting)
		queue_delayed_work(ksock_wq, &pep->work,
				   time_after(next, jiffies) ? next - jiffies : 0);
}

static int ksock_pep_listen(struct fid_pep *fpep)
{
	struct ksock_pep *pep = container_of(fpep, struct ksock_pep, pep);
	struct sockaddr_storage ss = {};
	struct sockaddr *sa = (struct sockaddr *)&ss;
	struct sock *sk;
	int len, ret;

	if (pep->sock)
		return -EINVAL;
	if (!kofi_pep_eq(&pep->pep))
		return -EINVAL;
	if (pep->info->src_addr) {
		if (pep->info->src_addrlen > sizeof(ss))
			return -EINVAL;
		memcpy(&ss, pep->info->src_addr, pep->info->src_addrlen);
	} else {
		ss.ss_family = pep->info->addr_format == FI_SOCKADDR_IN6 ?
			       AF_INET6 : AF_INET;
	}
	len = ksock_sockaddr_len(sa);
	if (len < 0)
		return len;
	ret = ksock_sock_create(pep->net, sa->sa_family, &pep->sock);
	if (ret)
		return ret;
	sk = pep->sock->sk;
	sock_set_reuseaddr(sk);
	ret = kernel_bind(pep->sock, sa, len);
	if (ret)
		goto err;
	write_lock_bh(&sk->sk_callback_lock);
	pep->saved_data_ready = sk->sk_data_ready;
	sk->sk_user_data = pep;
	sk->sk_data_ready = ksock_pep_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	ret = kernel_listen(pep->sock, pep->backlog);
	if (ret)
		goto err_cb;
	return 0;
err_cb:
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = pep->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_delayed_work_sync(&pep->work);
err:
	sock_release(pep->sock);
	pep->sock = NULL;
	return ret;
}

static int ksock_pep_close(struct fid *fid)
{
	struct ksock_pep *pep = container_of(fid, struct ksock_pep, pep.fid);
	struct ksock_creq *creq, *tmp;
	unsigned long flags;
	struct sock *sk;

	spin_lock_irqsave(&pep->lock, flags);
	pep->closing = true;
	spin_unlock_irqrestore(&pep->lock, flags);
	if (pep->sock) {
		sk = pep->sock->sk;
		write_lock_bh(&sk->sk_callback_lock);
		sk->sk_user_data = NULL;
		sk->sk_data_ready = pep->saved_data_ready;
		write_unlock_bh(&sk->sk_callback_lock);
	}
	/* Once this returns the work sees @closing and does nothing. */
	cancel_delayed_work_sync(&pep->work);
	list_for_each_entry(creq, &pep->creqs, node)
		ksock_creq_detach(creq);
	cancel_delayed_work_sync(&pep->work);
	list_for_each_entry_safe(creq, tmp, &pep->creqs, node) {
		list_del(&creq->node);
		ksock_creq_free(creq);
	}
	if (pep->sock)
		sock_release(pep->sock);
	put_net(pep->net);
	fi_freeinfo(pep->info);
	kfree(pep);
	return 0;
}

static int ksock_pep_control(struct fid *fid, int command, void *arg)
{
	struct ksock_pep *pep = container_of(fid, struct ksock_pep, pep.fid);
	int backlog;

	if (command != FI_BACKLOG)
		return -FI_ENOSYS;
	if (!arg)
		return -EINVAL;
	backlog = *(int *)arg;
	if (backlog <= 0)
		return -EINVAL;
	pep->backlog = backlog;
	return 0;
}

static int ksock_pep_getopt(struct fid *fid, int level, int optname,
			    void *optval, size_t *optlen)
{
	if (level != FI_OPT_ENDPOINT || optname != FI_OPT_CM_DATA_SIZE)
		return -ENOPROTOOPT;
	if (*optlen < sizeof(size_t))
		return -EINVAL;
	*(size_t *)optval = KSOCK_CM_DATA_MAX;
	*optlen = sizeof(size_t);
	return 0;
}

static int ksock_getname(struct fid *fid, void *addr, size_t *addrlen)
{
	struct ksock_pep *pep;
	struct ksock_ep *ep;
	struct socket *sock;
	struct fi_info *info;

	if (fid->fclass == FI_CLASS_PEP) {
		pep = container_of(fid, struct ksock_pep, pep.fid);
		sock = pep->sock;
		info = pep->info;
	} else {
		ep = container_of(fid, struct ksock_ep, ep.fid);
		sock = ep->sock;
		info = ep->info;
	}
	if (sock)
		return ksock_sock_name(sock, false, addr, addrlen);
	if (!info->src_addr)
		return -ENOTCONN;
	return ksock_copy_addr(info->src_addr, info->src_addrlen, addr,
			       addrlen);
}

static int ksock_reject(struct fid_pep *fpep, struct fid *handle,
			const void *param, size_t paramlen)
{
	struct ksock_creq *creq = ksock_creq_of(handle);
	u8 buf[sizeof(struct ksock_ctrl_hdr) + KSOCK_CM_DATA_MAX];
	size_t len;
	int ret;

	if (!creq)
		return -EINVAL;
	if (paramlen > KSOCK_CM_DATA_MAX) {
		ret = -EINVAL;
		goto out;
	}
	len = ksock_ctrl_build(buf, KSOCK_CTRL_NACK, param, paramlen);
	ret = ksock_send_all(creq->sock, buf, len);
	kernel_sock_shutdown(creq->sock, SHUT_WR);
out:
	ksock_creq_free(creq);
	return ret;
}

static const struct fi_ops ksock_pep_fi_ops = {
	.close = ksock_pep_close,
	.control = ksock_pep_control,
};

static const struct fi_ops_ep ksock_pep_ops = {
	.getopt = ksock_pep_getopt,
};

static const struct fi_ops_cm ksock_pep_cm_ops = {
	.getname = ksock_getname,
	.listen = ksock_pep_listen,
	.reject = ksock_reject,
};

/**
 * ksock_pep_open() - fi_passive_ep() of ksocket
 * @fabric: the fabric
 * @info: the listener's info; src_addr (or the IPv4 wildcard, port 0) is
 *	where fi_listen() listens
 * @fpep: the new passive endpoint
 * @context: user context
 *
 * The listening socket lives in the network namespace of the caller.
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int ksock_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		   struct fid_pep **fpep, void *context)
{
	struct ksock_pep *pep;

	pep = kzalloc(sizeof(*pep), GFP_KERNEL);
	if (!pep)
		return -ENOMEM;
	pep->info = fi_dupinfo(info, GFP_KERNEL);
	if (!pep->info) {
		kfree(pep);
		return -ENOMEM;
	}
	pep->info->handle = NULL;
	pep->net = get_net(current->nsproxy->net_ns);
	pep->backlog = KSOCK_BACKLOG;
	spin_lock_init(&pep->lock);
	INIT_LIST_HEAD(&pep->creqs);
	INIT_DELAYED_WORK(&pep->work, ksock_pep_work);
	kofi_fid_init(&pep->pep.fid, FI_CLASS_PEP, &ksock_pep_fi_ops, context);
	pep->pep.ops = &ksock_pep_ops;
	pep->pep.cm = &ksock_pep_cm_ops;
	*fpep = &pep->pep;
	return 0;
}

/* ---- active endpoints ---- */

/**
 * ksock_ep_adopt() - give a new endpoint the connection of a request
 * @ep: the endpoint being opened
 * @handle: info->handle of an FI_CONNREQ event; consumed on success
 *
 * Context: process context.
 * Return: 0, or -EINVAL if @handle is not a ksocket connection request.
 */
int ksock_ep_adopt(struct ksock_ep *ep, struct fid *handle)
{
	struct ksock_creq *creq = ksock_creq_of(handle);

	if (!creq)
		return -EINVAL;
	ep->sock = creq->sock;
	ep->bswap = creq->bswap;
	ep->state = KSOCK_EP_ACCEPTING;
	creq->sock = NULL;
	ksock_creq_free(creq);
	ksock_ep_sock_attach(ep);
	return 0;
}

/* Arm the bound of a new attempt, if it has one.  ep->lock held. */
static void ksock_connect_arm(struct ksock_ep *ep)
{
	u32 ms = ep->connect_timeout_ms;

	ep->connect_bounded = ms;
	if (!ms)
		return;
	ep->connect_deadline = jiffies + msecs_to_jiffies(ms);
	mod_timer(&ep->connect_timer, ep->connect_deadline);
}

/* Is the attempt past its deadline? */
static bool ksock_connect_expired(struct ksock_ep *ep)
{
	unsigned long flags;
	bool expired;

	spin_lock_irqsave(&ep->lock, flags);
	expired = ep->connect_bounded &&
		  time_after_eq(jiffies, ep->connect_deadline);
	spin_unlock_irqrestore(&ep->lock, flags);
	return expired;
}

/**
 * ksock_connect_timer() - an attempt reached its deadline
 * @t: &ksock_ep.connect_timer
 *
 * Schedules the endpoint's work, which ends the attempt if it is not
 * connected yet.
 *
 * Context: timer (softirq).
 */
void ksock_connect_timer(struct timer_list *t)
{
	struct ksock_ep *ep = from_timer(ep, t, connect_timer);

	ksock_ep_kick_unlocked(ep);
}

static int ksock_connect(struct fid_ep *fep, const void *addr,
			 const void *param, size_t paramlen)
{
	struct ksock_ep *ep = ksock_ep(fep);
	const struct sockaddr *dst = addr;
	const struct sockaddr *src;
	struct socket *sock;
	unsigned long flags;
	int len, ret;

	if (!ep->enabled || paramlen > KSOCK_CM_DATA_MAX)
		return -EINVAL;
	if (ep->state != KSOCK_EP_IDLE)
		return ep->state == KSOCK_EP_CONNECTED ? -EISCONN : -EINVAL;
	if (!dst)
		dst = ep->info->dest_addr;
	if (!dst)
		return -EINVAL;
	len = ksock_sockaddr_len(dst);
	if (len < 0)
		return len;
	ret = ksock_sock_create(ep->net, dst->sa_family, &sock);
	if (ret)
		return ret;
	src = ep->info->src_addr;
	if (src && src->sa_family == dst->sa_family) {
		ret = kernel_bind(sock, (struct sockaddr *)src,
				  ksock_sockaddr_len(src));
		if (ret)
			goto err;
	}
	ep->cm_len = ksock_ctrl_build(ep->cm, KSOCK_CTRL_CONNREQ, param,
				      paramlen);
	ep->cm_sent = 0;
	ep->sock = sock;
	spin_lock_irqsave(&ep->lock, flags);
	ep->state = KSOCK_EP_CONNECTING;
	ksock_connect_arm(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
	ksock_ep_sock_attach(ep);
	ret = kernel_connect(sock, (struct sockaddr *)dst, len, O_NONBLOCK);
	if (ret && ret != -EINPROGRESS) {
		ksock_ep_sock_detach(ep);
		spin_lock_irqsave(&ep->lock, flags);
		ep->connect_bounded = false;
		spin_unlock_irqrestore(&ep->lock, flags);
		del_timer_sync(&ep->connect_timer);
		cancel_work_sync(&ep->io_work);
		spin_lock_irqsave(&ep->lock, flags);
		ep->state = KSOCK_EP_IDLE;
		spin_unlock_irqrestore(&ep->lock, flags);
		ep->sock = NULL;
		goto err;
	}
	spin_lock_irqsave(&ep->lock, flags);
	ksock_ep_kick(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
	return 0;
err:
	sock_release(sock);
	return ret;
}

/* Client: read the server's answer.  1 connected, 0 waiting, -1 down. */
static int ksock_cm_read_answer(struct ksock_ep *ep)
{
	struct ksock_rx *rx = &ep->rx;
	struct ksock_ctrl_hdr *hdr = &rx->hdr.ctrl;
	size_t need = sizeof(*hdr), dlen = 0;
	u8 data[KSOCK_CM_DATA_MAX];
	int ret;

	for (;;) {
		if (rx->got >= sizeof(*hdr)) {
			ret = ksock_ctrl_check(hdr, &ep->bswap);
			if (ret) {
				ksock_ep_down(ep, -ret, 0, NULL, 0);
				return -1;
			}
			dlen = be16_to_cpu(hdr->seg_size);
			need = sizeof(*hdr) + dlen;
		}
		if (rx->got == need)
			break;
		ret = ksock_sock_recv_buf(ep->sock, rx->hdr.raw + rx->got,
					  need - rx->got);
		if (ret == -EAGAIN)
			return 0;
		if (ret <= 0) {
			ksock_ep_down(ep, ret ? -ret : ECONNREFUSED, 0, NULL,
				      0);
			return -1;
		}
		rx->got += ret;
	}
	switch (hdr->type) {
	case KSOCK_CTRL_CONNRESP:
		/*
		 * Once connected, the receive engine may run at once (the
		 * data-ready callback) and reuse rx->hdr for the peer's first
		 * frame: the event gets a copy of the connection data.
		 */
		memcpy(data, rx->hdr.raw + sizeof(*hdr), dlen);
		ksock_ep_connected(ep, data, dlen);
		return 1;
	case KSOCK_CTRL_NACK:
		ksock_ep_down(ep, ECONNREFUSED, 0, rx->hdr.raw + sizeof(*hdr),
			      dlen);
		return -1;
	default:
		ksock_ep_down(ep, EPROTO, 0, NULL, 0);
		return -1;
	}
}

/**
 * ksock_cm_progress() - the active side of connection setup
 * @ep: an endpoint in KSOCK_EP_CONNECTING or KSOCK_EP_REQ_SENT
 *
 * Context: the endpoint's work.
 * Return: 1 once connected, 0 while waiting, -1 if the attempt failed
 * (reported on the EQ).
 */
int ksock_cm_progress(struct ksock_ep *ep)
{
	struct sock *sk = ep->sock->sk;
	struct kvec kv;
	struct iov_iter it;
	unsigned long flags;
	int ret;

	if (ksock_connect_expired(ep)) {
		ksock_ep_down(ep, ETIMEDOUT, 0, NULL, 0);
		return -1;
	}
	if (ep->state == KSOCK_EP_CONNECTING) {
		ret = sock_error(sk);
		if (ret) {
			ksock_ep_down(ep, -ret, 0, NULL, 0);
			return -1;
		}
		switch (READ_ONCE(sk->sk_state)) {
		case TCP_SYN_SENT:
			return 0;
		case TCP_ESTABLISHED:
		case TCP_CLOSE_WAIT:
			break;
		default:
			ksock_ep_down(ep, ECONNREFUSED, 0, NULL, 0);
			return -1;
		}
		spin_lock_irqsave(&ep->lock, flags);
		if (ep->state == KSOCK_EP_CONNECTING)
			ep->state = KSOCK_EP_REQ_SENT;
		spin_unlock_irqrestore(&ep->lock, flags);
		ep->rx.state = KSOCK_RX_CTRL;
		ep->rx.got = 0;
	}
	if (ep->cm_sent < ep->cm_len) {
		kv.iov_base = ep->cm + ep->cm_sent;
		kv.iov_len = ep->cm_len - ep->cm_sent;
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, kv.iov_len);
		ret = ksock_sock_send(ep->sock, &it, false);
		if (ret == -EAGAIN)
			return 0;
		if (ret < 0) {
			ksock_ep_down(ep, -ret, 0, NULL, 0);
			return -1;
		}
		ep->cm_sent += ret;
		if (ep->cm_sent < ep->cm_len)
			return 0;
	}
	return ksock_cm_read_answer(ep);
}

static int ksock_accept(struct fid_ep *fep, const void *param,
			size_t paramlen)
{
	struct ksock_ep *ep = ksock_ep(fep);
	u8 buf[sizeof(struct ksock_ctrl_hdr) + KSOCK_CM_DATA_MAX];
	size_t len;
	int ret;

	if (!ep->enabled || paramlen > KSOCK_CM_DATA_MAX ||
	    ep->state != KSOCK_EP_ACCEPTING)
		return -EINVAL;
	len = ksock_ctrl_build(buf, KSOCK_CTRL_CONNRESP, param, paramlen);
	ret = ksock_send_all(ep->sock, buf, len);
	if (ret)
		return ret;
	ksock_ep_connected(ep, NULL, 0);
	return 0;
}

static int ksock_shutdown(struct fid_ep *fep, u64 flags)
{
	struct ksock_ep *ep = ksock_ep(fep);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&ep->lock, irqflags);
	switch (ep->state) {
	case KSOCK_EP_IDLE:
		ret = -ENOTCONN;
		break;
	case KSOCK_EP_DOWN:
		break;
	default:
		ep->shutdown_req = true;
		ksock_ep_kick(ep);
		break;
	}
	spin_unlock_irqrestore(&ep->lock, irqflags);
	if (!ret)
		flush_work(&ep->io_work);
	return ret;
}

static int ksock_getpeer(struct fid_ep *fep, void *addr, size_t *addrlen)
{
	struct ksock_ep *ep = ksock_ep(fep);

	if (!ep->sock || ep->state == KSOCK_EP_CONNECTING)
		return -ENOTCONN;
	return ksock_sock_name(ep->sock, true, addr, addrlen);
}

const struct fi_ops_cm ksock_ep_cm_ops = {
	.getname = ksock_getname,
	.getpeer = ksock_getpeer,
	.connect = ksock_connect,
	.accept = ksock_accept,
	.shutdown = ksock_shutdown,
};
