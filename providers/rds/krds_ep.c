// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI rds provider: endpoints - lifetime, bindings, the AF_RDS socket.
 *
 * fi_enable() creates the endpoint's AF_RDS socket in the creator's
 * network namespace, selects its domain's RDS transport (TCP or IB),
 * sizes its buffers for 1 MiB messages and binds it to the info's source
 * address (a concrete IPv4 or IPv6 address, as the domain's address format
 * says; port 0 picks one, fi_getname() tells which).  The
 * endpoint hooks the socket's wait queue, which RDS wakes when a message
 * arrives and when acknowledged sends free send space: the hook hands the
 * endpoint's progress (krds_msg.c) to the thread waiting in fi_cq_sread()
 * on its receive CQ, or else on its transmit CQ, if there is one, else
 * queues its progress work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/rds.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <kofi/util.h>
#include "krds.h"

/*
 * The socket was woken: its progress goes to a thread waiting on the
 * receive CQ, else on the transmit CQ (a sender waiting for its sends'
 * completions while RDS holds them back), else to the work.
 */
static int krds_ep_wake(struct wait_queue_entry *wait, unsigned int mode,
			int sync, void *key)
{
	struct krds_ep *ep = container_of(wait, struct krds_ep, wait);
	struct fid_cq *rx = kofi_ep_cq(&ep->ep, FI_RECV, NULL);
	struct fid_cq *tx = kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL);

	if (!kofi_cq_progress_kick(rx, &ep->rx_cqp) &&
	    (tx == rx || !kofi_cq_progress_kick(tx, &ep->tx_cqp)))
		krds_ep_kick(ep);
	return 0;
}

static void krds_ep_rx_cq_run(struct kofi_cq_progress *p)
{
	krds_ep_progress(container_of(p, struct krds_ep, rx_cqp));
}

static void krds_ep_tx_cq_run(struct kofi_cq_progress *p)
{
	krds_ep_progress(container_of(p, struct krds_ep, tx_cqp));
}

static void krds_ep_rx_cq_defer(struct kofi_cq_progress *p)
{
	krds_ep_kick(container_of(p, struct krds_ep, rx_cqp));
}

static void krds_ep_tx_cq_defer(struct kofi_cq_progress *p)
{
	krds_ep_kick(container_of(p, struct krds_ep, tx_cqp));
}

/**
 * krds_ep_kick() - run the endpoint's progress work now
 * @ep: the endpoint
 *
 * Context: any context.
 */
void krds_ep_kick(struct krds_ep *ep)
{
	mod_delayed_work(krds_wq, &ep->work, 0);
}

/**
 * krds_sock_create() - an AF_RDS socket over one transport
 * @net: the network namespace of the socket
 * @transport: RDS_TRANS_TCP or RDS_TRANS_IB
 * @src: bind to this IPv4 or IPv6 address (port 0: any free port); NULL:
 *	leave unbound
 * @sockp: the socket
 *
 * Selects the transport (RDS loads its module if need be) before the
 * bind, as RDS requires, and sizes the buffers for 1 MiB messages.
 *
 * Context: process context, may sleep.
 * Return: 0; -ENOPROTOOPT if the transport's module cannot be loaded or
 * the transport cannot use @src's address (RDS/IB: no RDMA device has
 * it); -EPROTOTYPE for RDS/IB outside the initial namespace; another
 * errno of the socket calls.
 */
int krds_sock_create(struct net *net, int transport,
		     const union kofi_sockaddr *src, struct socket **sockp)
{
	struct socket *sock;
	struct sock *sk;
	int ret;

	ret = sock_create_kern(net, AF_RDS, SOCK_SEQPACKET, 0, &sock);
	if (ret)
		return ret;
	sk = sock->sk;
	ret = sock->ops->setsockopt(sock, SOL_RDS, SO_RDS_TRANSPORT,
				    KERNEL_SOCKPTR(&transport),
				    sizeof(transport));
	if (ret)
		goto err;
	lock_sock(sk);
	sk->sk_userlocks |= SOCK_SNDBUF_LOCK | SOCK_RCVBUF_LOCK;
	WRITE_ONCE(sk->sk_sndbuf, KRDS_SNDBUF);
	WRITE_ONCE(sk->sk_rcvbuf, KRDS_RCVBUF);
	release_sock(sk);
	if (src) {
		ret = kernel_bind(sock, (struct sockaddr *)&src->sa,
				  kofi_sockaddr_len(&src->sa, sizeof(*src)));
		if (ret)
			goto err;
	}
	*sockp = sock;
	return 0;
err:
	sock_release(sock);
	return ret;
}

/**
 * krds_sock_cancel_to() - drop what an RDS socket holds for one address
 * @sock: the endpoint's socket
 * @dest: the destination
 *
 * RDS drops the messages the socket sent to @dest that are not yet
 * acknowledged (RDS_CANCEL_SENT_TO), which gives their send space back,
 * and wakes the socket.
 *
 * Context: any context but hard interrupt; does not sleep.
 */
void krds_sock_cancel_to(struct socket *sock, const union kofi_sockaddr *dest)
{
	union kofi_sockaddr a = *dest;
	int ret;

	ret = sock->ops->setsockopt(sock, SOL_RDS, RDS_CANCEL_SENT_TO,
				    KERNEL_SOCKPTR(&a),
				    kofi_sockaddr_len(&a.sa, sizeof(a)));
	if (ret)
		pr_debug("RDS_CANCEL_SENT_TO %pISpc: %d\n", &a.sa, ret);
}

static int krds_ep_enable(struct fid_ep *fep)
{
	struct krds_ep *ep = container_of(fep, struct krds_ep, ep);
	size_t ntx = KRDS_TX_SIZE, nrx = KRDS_RX_SIZE, i;
	const struct sockaddr *sa = ep->info->src_addr;
	union kofi_sockaddr src = {};
	struct krds_req *pool;
	size_t len;
	unsigned long flags;
	int ret;

	if (ep->state != KRDS_EP_IDLE)
		return 0;
	if (!kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL) ||
	    !kofi_ep_cq(&ep->ep, FI_RECV, NULL) || !kofi_ep_av(&ep->ep))
		return -EINVAL;
	len = kofi_sockaddr_len(sa, ep->info->src_addrlen);
	if (!len || sa->sa_family != ep->family)
		return -EINVAL;
	memcpy(&src, sa, len);
	if (ep->info->tx_attr->size)
		ntx = min_t(size_t, ep->info->tx_attr->size, KRDS_QUEUE_MAX);
	if (ep->info->rx_attr->size)
		nrx = min_t(size_t, ep->info->rx_attr->size, KRDS_QUEUE_MAX);
	pool = kvcalloc(ntx + nrx, sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	ret = krds_sock_create(ep->net, ep->transport, &src, &ep->sock);
	if (ret)
		goto err_pool;
	ret = kofi_av_watch_add(kofi_ep_av(&ep->ep), &ep->av_watch);
	if (ret)
		goto err_sock;
	spin_lock_irqsave(&ep->lock, flags);
	ep->pool = pool;
	ep->ntx = ntx;
	for (i = 0; i < ntx; i++)
		list_add_tail(&pool[i].node, &ep->tx_free);
	for (; i < ntx + nrx; i++)
		list_add_tail(&pool[i].node, &ep->rx_free);
	ep->state = KRDS_EP_ENABLED;
	spin_unlock_irqrestore(&ep->lock, flags);
	add_wait_queue(sk_sleep(ep->sock->sk), &ep->wait);
	krds_ep_kick(ep);
	return 0;
err_sock:
	sock_release(ep->sock);
	ep->sock = NULL;
err_pool:
	kvfree(pool);
	return ret;
}

static void krds_ep_free(struct krds_ep *ep)
{
	if (ep->sock)
		sock_release(ep->sock);
	kvfree(ep->pool);
	put_net(ep->net);
	fi_freeinfo(ep->info);
	kfree(ep);
}

/*
 * A multi-receive buffer still posted at close is released: its ECANCELED
 * entry carries FI_MULTI_RECV, as after fi_cancel().  The work is stopped
 * and no call posts any more.
 */
static void krds_ep_release_multi(struct krds_ep *ep)
{
	struct krds_req *req;
	unsigned long flags;
	struct kofi_op *op;

	spin_lock_irqsave(&ep->ops.lock, flags);
	list_for_each_entry(op, &ep->ops.ops, node) {
		req = container_of(op, struct krds_req, op);
		if ((op->flags & FI_RECV) && (req->me.flags & FI_MULTI_RECV))
			op->flags |= FI_MULTI_RECV;
	}
	spin_unlock_irqrestore(&ep->ops.lock, flags);
}

static int krds_ep_close(struct fid *fid)
{
	struct krds_ep *ep = container_of(fid, struct krds_ep, ep.fid);
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	ep->state = KRDS_EP_CLOSING;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (ep->sock) {
		kofi_av_watch_del(kofi_ep_av(&ep->ep), &ep->av_watch);
		remove_wait_queue(sk_sleep(ep->sock->sk), &ep->wait);
		kofi_cq_progress_stop(kofi_ep_cq(&ep->ep, FI_RECV, NULL),
				      &ep->rx_cqp);
		kofi_cq_progress_stop(kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL),
				      &ep->tx_cqp);
	}
	cancel_delayed_work_sync(&ep->work);
	krds_ep_release_multi(ep);
	kofi_oplist_flush(&ep->ops, ECANCELED, NULL, NULL);
	krds_ux_free_all(ep);
	krds_answers_free(ep);
	krds_ep_free(ep);
	return 0;
}

static int krds_ep_getname(struct fid *fid, void *addr, size_t *addrlen)
{
	struct krds_ep *ep = container_of(fid, struct krds_ep, ep.fid);
	struct sockaddr_storage ss = {};
	size_t have = *addrlen;
	int ret;

	if (!ep->sock)
		return -EINVAL;
	ret = kernel_getsockname(ep->sock, (struct sockaddr *)&ss);
	if (ret < 0)
		return ret;
	*addrlen = ret;
	if (have < ret)
		return -EMSGSIZE;
	memcpy(addr, &ss, ret);
	return 0;
}

static const struct kofi_util_opt krds_opt_tab[] = {
	KOFI_UTIL_OPT(FI_OPT_MIN_MULTI_RECV, 1, KRDS_MAX_MSG_SIZE,
		      struct kofi_match_queue, min_multi_recv),
};

/*
 * fi_setopt()/fi_getopt() of FI_OPT_DATA_MAY_SLEEP: every data call may
 * sleep, so a send goes to the socket in the caller's context when
 * nothing waits before it (krds_send()).  Fixed once the endpoint is
 * enabled (-EBUSY), as on every provider that uses it.
 */
static int krds_ep_may_sleep_opt(struct krds_ep *ep, const void *in,
				 void *out, size_t *optlen)
{
	unsigned long flags;
	int ret = 0;

	if (*optlen < sizeof(size_t))
		return -EINVAL;
	if (out) {
		*(size_t *)out = READ_ONCE(ep->may_sleep);
		*optlen = sizeof(size_t);
		return 0;
	}
	spin_lock_irqsave(&ep->lock, flags);
	if (ep->state != KRDS_EP_IDLE)
		ret = -EBUSY;
	else
		WRITE_ONCE(ep->may_sleep, !!*(const size_t *)in);
	spin_unlock_irqrestore(&ep->lock, flags);
	return ret;
}

/*
 * fi_setopt() (@in the value) or fi_getopt() (@out room for it) of
 * FI_OPT_DATA_MAY_SLEEP, or of FI_OPT_MIN_MULTI_RECV, which the
 * endpoint's receive queues keep and check at each message a
 * multi-receive buffer takes.
 */
static int krds_ep_opt(struct fid *fid, int level, int optname,
		       const void *in, void *out, size_t *optlen)
{
	struct krds_ep *ep = container_of(fid, struct krds_ep, ep.fid);
	unsigned long flags;
	int ret;

	if (level == FI_OPT_ENDPOINT && optname == FI_OPT_DATA_MAY_SLEEP)
		return krds_ep_may_sleep_opt(ep, in, out, optlen);
	spin_lock_irqsave(&ep->lock, flags);
	if (in)
		ret = kofi_util_setopt(krds_opt_tab, ARRAY_SIZE(krds_opt_tab),
				       &ep->msgq, level, optname, in, *optlen);
	else
		ret = kofi_util_getopt(krds_opt_tab, ARRAY_SIZE(krds_opt_tab),
				       &ep->msgq, level, optname, out, optlen);
	ep->tagq.min_multi_recv = ep->msgq.min_multi_recv;
	spin_unlock_irqrestore(&ep->lock, flags);
	return ret;
}

static int krds_ep_setopt(struct fid *fid, int level, int optname,
			  const void *optval, size_t optlen)
{
	return krds_ep_opt(fid, level, optname, optval, NULL, &optlen);
}

static int krds_ep_getopt(struct fid *fid, int level, int optname,
			  void *optval, size_t *optlen)
{
	return krds_ep_opt(fid, level, optname, NULL, optval, optlen);
}

static const struct fi_ops krds_ep_fi_ops = {
	.close = krds_ep_close,
};

static const struct fi_ops_ep krds_ep_ops = {
	.cancel = krds_cancel,
	.getopt = krds_ep_getopt,
	.setopt = krds_ep_setopt,
	.enable = krds_ep_enable,
};

static const struct fi_ops_cm krds_ep_cm_ops = {
	.getname = krds_ep_getname,
};

/**
 * krds_ep_open() - fi_endpoint() of rds
 * @domain: the domain
 * @info: the endpoint's info: FI_EP_RDM, src_addr the local IPv4 or IPv6
 *	address, as the domain's address format says (needed by
 *	fi_enable()); a domain name, if any, the domain's transport
 * @fep: the new endpoint
 * @context: user context
 *
 * The endpoint's socket lives in the network namespace of the caller and
 * runs over the domain's transport.  An info with FI_TAGGED,
 * FI_REMOTE_CQ_DATA or FI_RMA makes a header endpoint (krds_proto.h);
 * FI_TAGGED gives it the tagged calls, FI_RMA the RMA calls (and makes it
 * take its peers' RMA requests as FI_REMOTE_READ and FI_REMOTE_WRITE
 * say).  With FI_DIRECTED_RECV a receive's source
 * address counts, and fi_av_remove() of that address cancels the receive.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for another endpoint type or an info naming another
 * transport or address format than the domain's; -ENOMEM.
 */
int krds_ep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **fep, void *context)
{
	struct krds_domain *dom = container_of(domain, struct krds_domain,
					       sw.domain);
	bool directed = info->caps & FI_DIRECTED_RECV;
	struct krds_ep *ep;

	if (info->ep_attr && info->ep_attr->type != FI_EP_RDM &&
	    info->ep_attr->type != FI_EP_UNSPEC)
		return -EINVAL;
	if (info->domain_attr && info->domain_attr->name &&
	    krds_transport_parse(info->domain_attr->name) != dom->transport)
		return -EINVAL;
	if (info->addr_format != FI_FORMAT_UNSPEC &&
	    info->addr_format != dom->sw.addr_format)
		return -EINVAL;
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return -ENOMEM;
	ep->info = fi_dupinfo(info, GFP_KERNEL);
	if (!ep->info) {
		kfree(ep);
		return -ENOMEM;
	}
	ep->net = get_net(current->nsproxy->net_ns);
	ep->transport = dom->transport;
	ep->family = dom->sw.addr_format == FI_SOCKADDR_IN6 ? AF_INET6 :
							       AF_INET;
	spin_lock_init(&ep->lock);
	INIT_LIST_HEAD(&ep->tx_queue);
	INIT_LIST_HEAD(&ep->rx_multi);
	INIT_LIST_HEAD(&ep->tx_free);
	INIT_LIST_HEAD(&ep->rx_free);
	kofi_oplist_init(&ep->ops);
	ep->hdr = info->caps & (FI_TAGGED | FI_REMOTE_CQ_DATA | FI_RMA);
	if (info->caps & FI_RMA)
		ep->max_msg = KRDS_MAX_RMA_SIZE;
	else
		ep->max_msg = ep->hdr ? KRDS_MAX_HDR_MSG_SIZE :
					KRDS_MAX_MSG_SIZE;
	ep->dom = dom;
	if (info->caps & FI_RMA)
		ep->rma_access = info->caps & (FI_REMOTE_READ | FI_REMOTE_WRITE);
	INIT_LIST_HEAD(&ep->rma_wait);
	INIT_LIST_HEAD(&ep->answers);
	kofi_match_init(&ep->msgq, false, directed, KRDS_UX_MAX,
			KRDS_MIN_MULTI_RECV);
	kofi_match_init(&ep->tagq, true, directed, KRDS_UX_MAX,
			KRDS_MIN_MULTI_RECV);
	INIT_LIST_HEAD(&ep->ux_dead);
	INIT_DELAYED_WORK(&ep->work, krds_ep_work);
	mutex_init(&ep->tx_mutex);
	init_waitqueue_func_entry(&ep->wait, krds_ep_wake);
	kofi_cq_progress_init(&ep->rx_cqp, krds_ep_rx_cq_run,
			      krds_ep_rx_cq_defer);
	kofi_cq_progress_init(&ep->tx_cqp, krds_ep_tx_cq_run,
			      krds_ep_tx_cq_defer);
	INIT_LIST_HEAD(&ep->av_watch.node);
	ep->av_watch.removed = krds_av_removed;
	kofi_fid_init(&ep->ep.fid, FI_CLASS_EP, &krds_ep_fi_ops, context);
	ep->ep.ops = &krds_ep_ops;
	ep->ep.cm = &krds_ep_cm_ops;
	ep->ep.msg = &krds_msg_ops;
	if (info->caps & FI_TAGGED)
		ep->ep.tagged = &krds_tagged_ops;
	if (info->caps & FI_RMA)
		ep->ep.rma = &krds_rma_ops;
	*fep = &ep->ep;
	return 0;
}
