// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: connection management over rdma_cm.
 *
 * Every rdma_cm identifier of the provider has one event handler,
 * ibv_cm_handler(), whose context is the struct fid of a passive endpoint,
 * a connection request or an endpoint (told apart by the fid's class).
 * Every event is handled (an endpoint's in ibv_ep_event()):
 *
 *   ADDR_RESOLVED, ROUTE_RESOLVED   next step of fi_connect()
 *   ADDR_ERROR, ROUTE_ERROR,        EQ error (the status, ENETUNREACH ...)
 *   UNREACHABLE                     EQ error EHOSTUNREACH / ETIMEDOUT
 *   REJECTED                        EQ error ECONNREFUSED with the peer's
 *                                   reject data as err_data
 *   CONNECT_REQUEST                 FI_CONNREQ on the listener's EQ
 *   ESTABLISHED                     FI_CONNECTED (with the accept data)
 *   CONNECT_ERROR                   EQ error ECONNRESET
 *   DISCONNECTED, ADDR_CHANGE       FI_SHUTDOWN once connected, else error
 *   DEVICE_REMOVAL                  EQ error ENODEV, resources freed
 *   TIMEWAIT_EXIT                   nothing to report
 *
 * A listener reports CONNECT_REQUEST (FI_CONNREQ) and DEVICE_REMOVAL (EQ
 * error ENODEV) and ignores the rest.  A connection request not yet
 * accepted or rejected (ibv_connreq_event()), and a passive endpoint that
 * took one but has not called fi_accept() (ibv_ep_req_event()), become
 * void on the events of ibv_connreq_errno(): fi_endpoint() or fi_accept()
 * answers -ENODEV (device removal) or -ECONNABORTED (the peer gave up, the
 * address changed).  Documentation/ib_verbs.rst has the table.
 *
 * Identifiers are created in the network namespace of the endpoint's or
 * passive endpoint's creator (ibv_cm_create_id()).
 *
 * Connection data uses libfabric's verbs format: one size byte, then the
 * user's data (at most 55 bytes), so libfabric peers interoperate.  With
 * FI_OPT_CM_DATA_RAW (on the endpoint, or on the passive endpoint for the
 * requests it gets and the endpoints accepting them) the user's data is
 * the private data itself, and events carry every byte rdma_cm delivered,
 * so peers with a format of their own (librdmacm's rsockets) interoperate.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include "ibv.h"

/* Protects ibv_connreq.cm_id against the handler and the user. */
static DEFINE_MUTEX(ibv_connreq_lock);

static size_t ibv_sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	       sizeof(struct sockaddr_in);
}

/**
 * ibv_cm_create_id() - a new rdma_cm identifier for RC connections
 * @net: the network namespace it resolves addresses and listens in (the
 *	creator's of the endpoint or passive endpoint)
 * @context: the struct fid of the pep, connreq or endpoint it belongs to
 *
 * Context: process context, may sleep.
 * Return: the identifier or an ERR_PTR().
 */
struct rdma_cm_id *ibv_cm_create_id(struct net *net, void *context)
{
	return rdma_create_id(net, ibv_cm_handler, context, RDMA_PS_TCP,
			      IB_QPT_RC);
}

/* ---- connection requests ---- */

/**
 * ibv_connreq_free() - free a connection request whose id is gone or taken
 * @cr: the request
 *
 * Context: any context.
 */
void ibv_connreq_free(struct ibv_connreq *cr)
{
	kfree(cr);
}

/**
 * ibv_connreq_take() - take the identifier of a connection request
 * @cr: the request
 * @ibdev: the device the caller's domain is on
 * @id: the identifier
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if the request is on another device; -ENODEV if its
 * device went away; -ECONNABORTED if the peer withdrew it (see
 * ibv_connreq_event()).
 */
int ibv_connreq_take(struct ibv_connreq *cr, struct ib_device *ibdev,
		     struct rdma_cm_id **id)
{
	int ret = 0;

	mutex_lock(&ibv_connreq_lock);
	if (!cr->cm_id)
		ret = cr->err ? cr->err : -ENODEV;
	else if (cr->cm_id->device != ibdev)
		ret = -EINVAL;
	else
		*id = cr->cm_id;
	if (!ret)
		cr->cm_id = NULL;
	mutex_unlock(&ibv_connreq_lock);
	return ret;
}

/* Reject (with @buf/@len private data) and free a request. */
static void ibv_connreq_reject(struct ibv_connreq *cr, const void *buf,
			       u8 len)
{
	struct rdma_cm_id *id;

	mutex_lock(&ibv_connreq_lock);
	id = cr->cm_id;
	cr->cm_id = NULL;
	mutex_unlock(&ibv_connreq_lock);
	if (id) {
		rdma_reject(id, buf, len, IB_CM_REJ_CONSUMER_DEFINED);
		rdma_destroy_id(id);
	}
	ibv_connreq_free(cr);
}

static int ibv_connreq_close(struct fid *fid)
{
	ibv_connreq_reject(container_of(fid, struct ibv_connreq, fid), NULL,
			   0);
	return 0;
}

static const struct fi_ops ibv_connreq_fi_ops = {
	.close = ibv_connreq_close,
};

/**
 * ibv_is_connreq() - is @fid a connection request of this provider?
 * @fid: a fi_info handle
 *
 * Context: any context.
 * Return: true if @fid is a connection request made by ib_verbs.
 */
bool ibv_is_connreq(const struct fid *fid)
{
	return fid->fclass == FI_CLASS_CONNREQ && fid->ops == &ibv_connreq_fi_ops;
}

/*
 * An event on a request that is in the EQ (or in the user's hands), not
 * yet accepted or rejected.  One that ends it (ibv_connreq_errno(): the
 * device went away, the peer gave up, the address changed) voids it: its
 * identifier is destroyed by rdma_cm (which rejects the request if the
 * peer still waits), and fi_endpoint() with it answers the errno
 * (-ENODEV, -ECONNABORTED); fi_reject() or closing it frees it as usual.
 * If an endpoint has just taken the identifier, the endpoint keeps it and
 * finds the errno in @cr->err (ibv_endpoint() reads it with the
 * identifier's handler lock held, before it frees @cr).
 * Context: rdma_cm handler (process context, the handler mutex held);
 * sleeps (ibv_connreq_lock).
 */
static int ibv_connreq_event(struct ibv_connreq *cr, struct rdma_cm_id *id,
			     struct rdma_cm_event *ev)
{
	int err = ibv_connreq_errno(ev->event);
	int destroy = 0;

	if (!err) {
		pr_debug("connection request: %s ignored\n",
			 rdma_event_msg(ev->event));
		return 0;
	}
	mutex_lock(&ibv_connreq_lock);
	if (cr->cm_id == id) {
		cr->cm_id = NULL;	/* rdma_cm destroys it */
		destroy = 1;
	}
	if (!cr->err)
		cr->err = err;
	mutex_unlock(&ibv_connreq_lock);
	pr_debug("connection request void: %s\n", rdma_event_msg(ev->event));
	return destroy;
}

/* ---- passive endpoints ---- */

/*
 * Offer a request to the listener's EQ.  0: the EQ has it, and with it
 * @cr and @info (the user may take or free them at once); -EAGAIN: the
 * EQ is full; another negative errno: it cannot be reported (no memory,
 * or it was voided while held, ibv_connreq_event()).
 * Context: process context; sleeps (ibv_connreq_lock).
 */
static int ibv_connreq_offer(struct ibv_pep *pep, struct ibv_connreq *cr,
			     struct fi_info *info, const void *data,
			     size_t len)
{
	int ret;

	mutex_lock(&ibv_connreq_lock);
	if (cr->cm_id)
		ret = kofi_eq_offer_cm(kofi_pep_eq(&pep->pep), FI_CONNREQ,
				       &pep->pep.fid, info, data, len);
	else
		ret = cr->err ? cr->err : -ENODEV;
	mutex_unlock(&ibv_connreq_lock);
	return ret;
}

/* Reject and free a held request that never reached the EQ. */
static void ibv_connreq_drop(struct ibv_connreq *cr)
{
	cr->info->handle = NULL;
	fi_freeinfo(cr->info);
	kfree(cr->data);
	ibv_connreq_reject(cr, NULL, 0);
}

/*
 * Keep a request the full EQ did not take, after those held before it,
 * with a copy of its data; ibv_pep_held_work() offers it again.
 * Context: process context, @pep->mutex held.
 * Return: 0, or -ENOMEM (the caller still owns @cr and @info).
 */
static int ibv_connreq_hold(struct ibv_pep *pep, struct ibv_connreq *cr,
			    struct fi_info *info, const void *data,
			    size_t len)
{
	if (len) {
		cr->data = kmemdup(data, len, GFP_KERNEL);
		if (!cr->data)
			return -ENOMEM;
	}
	cr->len = len;
	cr->info = info;
	cr->deadline = jiffies +
		       msecs_to_jiffies(READ_ONCE(ibv_connreq_timeout_ms));
	if (list_empty(&pep->held))
		schedule_delayed_work(&pep->held_work,
				      msecs_to_jiffies(IBV_CONNREQ_RETRY_MS));
	list_add_tail(&cr->node, &pep->held);
	return 0;
}

static bool ibv_connreq_expired(const struct ibv_connreq *cr)
{
	return READ_ONCE(ibv_connreq_timeout_ms) &&
	       time_after_eq(jiffies, cr->deadline);
}

/*
 * Offer the held requests again, oldest first, until the EQ is full.  One
 * the peer withdrew (or whose device went) is dropped; one still not
 * taken connreq_timeout_ms after it came is rejected.  Their identifiers
 * are destroyed after @pep->mutex is released: a request's rdma_cm
 * handler takes it (ibv_pep_connreq()).
 * Context: workqueue (system_wq); sleeps.
 */
static void ibv_pep_held_work(struct work_struct *work)
{
	struct ibv_pep *pep = container_of(to_delayed_work(work),
					   struct ibv_pep, held_work);
	struct ibv_connreq *cr, *tmp;
	LIST_HEAD(drop);
	void *data;
	int ret;

	mutex_lock(&pep->mutex);
	while ((cr = list_first_entry_or_null(&pep->held, struct ibv_connreq,
					      node))) {
		list_del_init(&cr->node);
		data = cr->data;
		ret = ibv_connreq_offer(pep, cr, cr->info, data, cr->len);
		if (!ret) {
			/* @cr is the user's now: touch nothing of it. */
			kfree(data);
			continue;
		}
		if (ret == -EAGAIN && !ibv_connreq_expired(cr)) {
			list_add(&cr->node, &pep->held);
			break;
		}
		pr_debug("held connection request dropped: %d\n", ret);
		list_add_tail(&cr->node, &drop);
	}
	if (!list_empty(&pep->held))
		schedule_delayed_work(&pep->held_work,
				      msecs_to_jiffies(IBV_CONNREQ_RETRY_MS));
	mutex_unlock(&pep->mutex);
	list_for_each_entry_safe(cr, tmp, &drop, node)
		ibv_connreq_drop(cr);
}

/*
 * A new request: FI_CONNREQ on the listener's EQ, or held while the EQ is
 * full (requests reach the EQ in the order they came).  Returns 1 to have
 * rdma_cm destroy @id (the request is rejected).
 * Context: rdma_cm handler of @id (process context); sleeps.
 */
static int ibv_pep_connreq(struct ibv_pep *pep, struct rdma_cm_id *id,
			   struct rdma_cm_event *ev)
{
	struct ibv_connreq *cr;
	struct fi_info *info;
	const void *data;
	size_t len;
	int ret;

	cr = kzalloc(sizeof(*cr), GFP_KERNEL);
	if (!cr)
		goto reject;
	info = ibv_info_for_id(pep->info, id);
	if (!info) {
		kfree(cr);
		goto reject;
	}
	cr->cm_id = id;
	cr->initiator_depth = ev->param.conn.initiator_depth;
	cr->responder_resources = ev->param.conn.responder_resources;
	cr->cm_raw = READ_ONCE(pep->cm_raw);
	INIT_LIST_HEAD(&cr->node);
	kofi_fid_init(&cr->fid, FI_CLASS_CONNREQ, &ibv_connreq_fi_ops, NULL);
	info->handle = &cr->fid;
	id->context = &cr->fid;
	data = ibv_cm_data_get(ev->param.conn.private_data,
			       ev->param.conn.private_data_len, cr->cm_raw,
			       FI_CM_DATA_MAX, &len);
	mutex_lock(&pep->mutex);
	ret = list_empty(&pep->held) ?
	      ibv_connreq_offer(pep, cr, info, data, len) : -EAGAIN;
	if (ret == -EAGAIN)
		ret = ibv_connreq_hold(pep, cr, info, data, len);
	mutex_unlock(&pep->mutex);
	if (ret) {
		id->context = &pep->pep.fid;
		fi_freeinfo(info);
		kfree(cr);
		goto reject;
	}
	return 0;
reject:
	rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	return 1;	/* rdma_cm destroys the new identifier */
}

/*
 * The listener's events.  CONNECT_REQUEST comes on the new identifier,
 * DEVICE_REMOVAL on the listener's own (bound to the device's address);
 * ADDR_CHANGE (a bonding failover under a listener bound to an address)
 * leaves it listening.  Nothing else comes to a listener.
 * Context: rdma_cm handler (process context); may sleep.
 */
static int ibv_pep_event(struct ibv_pep *pep, struct rdma_cm_id *id,
			 struct rdma_cm_event *ev)
{
	bool mine;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return ibv_pep_connreq(pep, id, ev);
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		mutex_lock(&pep->mutex);
		mine = pep->cm_id == id;
		if (mine) {
			pep->cm_id = NULL;
			pep->listening = false;
		}
		mutex_unlock(&pep->mutex);
		if (mine && kofi_pep_eq(&pep->pep))
			kofi_eq_write_err(kofi_pep_eq(&pep->pep), &pep->pep.fid,
					  pep->pep.fid.context, ENODEV, 0,
					  NULL, 0);
		return mine;
	default:
		pr_debug("listener: %s ignored\n", rdma_event_msg(ev->event));
		return 0;
	}
}

static int ibv_pep_listen(struct fid_pep *fpep)
{
	struct ibv_pep *pep = container_of(fpep, struct ibv_pep, pep);
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct sockaddr *src = pep->info->src_addr ? pep->info->src_addr :
			       (struct sockaddr *)&any;
	struct rdma_cm_id *id;
	int ret;

	mutex_lock(&pep->mutex);
	if (pep->listening || !kofi_pep_eq(&pep->pep)) {
		ret = -EINVAL;
		goto out;
	}
	id = ibv_cm_create_id(pep->net, &pep->pep.fid);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto out;
	}
	ret = rdma_bind_addr(id, src);
	if (!ret)
		ret = rdma_listen(id, pep->backlog);
	if (ret) {
		mutex_unlock(&pep->mutex);
		rdma_destroy_id(id);
		return ret;
	}
	pep->cm_id = id;
	pep->listening = true;
out:
	mutex_unlock(&pep->mutex);
	return ret;
}

static int ibv_pep_reject(struct fid_pep *fpep, struct fid *handle,
			  const void *param, size_t paramlen)
{
	struct ibv_connreq *cr = container_of(handle, struct ibv_connreq, fid);
	u8 buf[IBV_CM_RAW_REJ_MAX];
	int len;

	if (!ibv_is_connreq(handle))
		return -EINVAL;
	len = ibv_cm_data_build(buf, param, paramlen, cr->cm_raw,
				IBV_CM_RAW_REJ_MAX);
	if (len < 0) {
		ibv_connreq_reject(cr, NULL, 0);
		return len;
	}
	ibv_connreq_reject(cr, buf, len);
	return 0;
}

static int ibv_getname_id(struct rdma_cm_id *id, const void *fallback,
			  void *addr, size_t *addrlen)
{
	const struct sockaddr *sa = fallback;
	size_t len;

	if (id)
		sa = (const struct sockaddr *)&id->route.addr.src_addr;
	if (!sa || !sa->sa_family)
		return -EADDRNOTAVAIL;
	len = ibv_sa_len(sa);
	if (*addrlen < len) {
		*addrlen = len;
		return -EMSGSIZE;
	}
	memcpy(addr, sa, len);
	*addrlen = len;
	return 0;
}

static int ibv_pep_getname(struct fid *fid, void *addr, size_t *addrlen)
{
	struct ibv_pep *pep = container_of(fid, struct ibv_pep, pep.fid);
	int ret;

	mutex_lock(&pep->mutex);
	ret = ibv_getname_id(pep->cm_id, pep->info->src_addr, addr, addrlen);
	mutex_unlock(&pep->mutex);
	return ret;
}

static int ibv_pep_bind(struct fid *fid, struct fid *bfid, u64 flags)
{
	struct ibv_pep *pep = container_of(fid, struct ibv_pep, pep.fid);
	int ret;

	mutex_lock(&pep->mutex);
	ret = pep->listening ? -EINVAL : 0;
	mutex_unlock(&pep->mutex);
	return ret;
}

static int ibv_pep_control(struct fid *fid, int command, void *arg)
{
	struct ibv_pep *pep = container_of(fid, struct ibv_pep, pep.fid);

	if (command != FI_BACKLOG)
		return -FI_ENOSYS;
	if (!arg || *(int *)arg <= 0)
		return -EINVAL;
	mutex_lock(&pep->mutex);
	pep->backlog = *(int *)arg;
	mutex_unlock(&pep->mutex);
	return 0;
}

static int ibv_pep_close(struct fid *fid)
{
	struct ibv_pep *pep = container_of(fid, struct ibv_pep, pep.fid);
	struct ibv_connreq *cr, *tmp;
	struct rdma_cm_id *id;

	mutex_lock(&pep->mutex);
	id = pep->cm_id;
	pep->cm_id = NULL;
	pep->listening = false;
	mutex_unlock(&pep->mutex);
	/* No request comes once the listener is destroyed. */
	if (id)
		rdma_destroy_id(id);
	cancel_delayed_work_sync(&pep->held_work);
	list_for_each_entry_safe(cr, tmp, &pep->held, node) {
		list_del(&cr->node);
		ibv_connreq_drop(cr);
	}
	fi_freeinfo(pep->info);
	put_net(pep->net);
	kfree(pep);
	return 0;
}

static int ibv_pep_getopt(struct fid *fid, int level, int optname,
			  void *optval, size_t *optlen)
{
	struct ibv_pep *pep = container_of(fid, struct ibv_pep, pep.fid);
	bool raw = READ_ONCE(pep->cm_raw);
	size_t val;

	if (level != FI_OPT_ENDPOINT)
		return -ENOPROTOOPT;
	switch (optname) {
	case FI_OPT_CM_DATA_SIZE:
		/* What fi_reject() may send. */
		val = raw ? IBV_CM_RAW_REJ_MAX : IBV_CM_DATA_MAX;
		break;
	case FI_OPT_CM_DATA_RAW:
		val = raw;
		break;
	default:
		return -ENOPROTOOPT;
	}
	if (*optlen < sizeof(size_t))
		return -EINVAL;
	*(size_t *)optval = val;
	*optlen = sizeof(size_t);
	return 0;
}

static int ibv_pep_setopt(struct fid *fid, int level, int optname,
			  const void *optval, size_t optlen)
{
	struct ibv_pep *pep = container_of(fid, struct ibv_pep, pep.fid);

	if (level != FI_OPT_ENDPOINT || optname != FI_OPT_CM_DATA_RAW)
		return -ENOPROTOOPT;
	if (optlen != sizeof(size_t))
		return -EINVAL;
	/* Requests arriving from now on take the new setting. */
	WRITE_ONCE(pep->cm_raw, !!*(const size_t *)optval);
	return 0;
}

static const struct fi_ops ibv_pep_fi_ops = {
	.close = ibv_pep_close,
	.bind = ibv_pep_bind,
	.control = ibv_pep_control,
};

static const struct fi_ops_ep ibv_pep_ops = {
	.getopt = ibv_pep_getopt,
	.setopt = ibv_pep_setopt,
};

static const struct fi_ops_cm ibv_pep_cm_ops = {
	.getname = ibv_pep_getname,
	.listen = ibv_pep_listen,
	.reject = ibv_pep_reject,
};

/**
 * ibv_passive_ep() - the fabric's passive_ep operation
 * @fabric: the fabric
 * @info: the listener's info; src_addr is the address to listen on (the
 *	wildcard address if NULL)
 * @fpep: the new passive endpoint
 * @context: user context
 *
 * The passive endpoint listens in the network namespace of the calling
 * task.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a non-MSG info; -ENOMEM.
 */
int ibv_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
		   struct fid_pep **fpep, void *context)
{
	struct ibv_pep *pep;

	if (info->ep_attr && info->ep_attr->type != FI_EP_MSG &&
	    info->ep_attr->type != FI_EP_UNSPEC)
		return -EINVAL;
	pep = kzalloc(sizeof(*pep), GFP_KERNEL);
	if (!pep)
		return -ENOMEM;
	pep->info = fi_dupinfo(info, GFP_KERNEL);
	if (!pep->info) {
		kfree(pep);
		return -ENOMEM;
	}
	pep->info->handle = NULL;
	pep->net = get_net(ibv_current_net());
	mutex_init(&pep->mutex);
	INIT_LIST_HEAD(&pep->held);
	INIT_DELAYED_WORK(&pep->held_work, ibv_pep_held_work);
	pep->backlog = 128;
	kofi_fid_init(&pep->pep.fid, FI_CLASS_PEP, &ibv_pep_fi_ops, context);
	pep->pep.ops = &ibv_pep_ops;
	pep->pep.cm = &ibv_pep_cm_ops;
	*fpep = &pep->pep;
	return 0;
}

/* ---- active endpoints ---- */

/*
 * The connection parameters of connect and accept, the receiver-not-ready
 * NAK timer of the endpoint's QP (applied when rdma_cm moves it to RTR;
 * rdma_cm's own default, 0, makes a sender that finds no receive posted
 * wait 655 ms) and its local ACK timeout, if the endpoint has one
 * (applied when rdma_cm moves it to RTS, on either side).
 */
static void ibv_conn_param(struct ibv_ep *ep, struct rdma_cm_id *id,
			   struct rdma_conn_param *p)
{
	const struct ib_device_attr *a = &ep->dom->attr;

	rdma_set_min_rnr_timer(id, min(ibv_min_rnr_timer, 31U));
	if (ep->ack_timeout)
		rdma_set_ack_timeout(id, ep->ack_timeout);
	memset(p, 0, sizeof(*p));
	p->private_data = ep->conn_data;
	p->private_data_len = ep->conn_len;
	p->flow_control = 1;
	p->retry_count = ep->retry_count;
	p->rnr_retry_count = min(ibv_rnr_retry, 7U);
	if (ep->passive) {
		p->responder_resources = min_t(u32, ep->peer_rd_atomic,
					       a->max_qp_rd_atom);
		p->initiator_depth = min_t(u32, ep->peer_rd_resp,
					   a->max_qp_init_rd_atom);
	} else {
		p->responder_resources = min_t(u32, 0xff, a->max_qp_rd_atom);
		p->initiator_depth = min_t(u32, 0xff, a->max_qp_init_rd_atom);
	}
}

/* What ibv_ep_event() writes to the endpoint's EQ once it let go of it. */
enum ibv_ep_report_kind {
	IBV_EP_REPORT_NONE,
	IBV_EP_REPORT_CONNECTED,	/* FI_CONNECTED with @data */
	IBV_EP_REPORT_SHUTDOWN,		/* FI_SHUTDOWN */
	IBV_EP_REPORT_ERROR,		/* error entry @err with @data */
};

struct ibv_ep_report {
	enum ibv_ep_report_kind kind;
	int err;
	const void *data;
	size_t len;
};

/*
 * The connection ended or could not be made: report it as @kind, unless
 * its end was reported already.  Returns whether it is reported.
 */
static bool ibv_ep_end(struct ibv_ep *ep, struct ibv_ep_report *r,
		       enum ibv_ep_report_kind kind, int err)
{
	if (ep->shutdown_reported)
		return false;
	ep->shutdown_reported = true;
	ibv_ep_set_ended(ep);
	r->kind = kind;
	r->err = err;
	return true;
}

/* Report error @err once; a connection being set up stops. */
static void ibv_ep_fail(struct ibv_ep *ep, struct ibv_ep_report *r, int err)
{
	if (ibv_ep_end(ep, r, IBV_EP_REPORT_ERROR, err) &&
	    ep->state == IBV_EP_CONNECTING)
		ibv_ep_stop(ep);
}

/* The address resolution of fi_enable() ended. */
static void ibv_ep_enable_resolved(struct ibv_ep *ep,
				   struct rdma_cm_event *ev)
{
	if (ev->event != RDMA_CM_EVENT_ADDR_RESOLVED &&
	    ev->event != RDMA_CM_EVENT_ADDR_ERROR)
		return;
	ep->addr_status = ev->event == RDMA_CM_EVENT_ADDR_RESOLVED ? 0 :
			  ibv_cm_errno(ev->event, ev->status);
	complete(&ep->addr_done);
}

/* fi_connect(): the address is resolved, resolve the route. */
static void ibv_ep_addr_resolved(struct ibv_ep *ep, struct rdma_cm_id *id,
				 struct ibv_ep_report *r)
{
	int ret;

	if (ep->state != IBV_EP_CONNECTING)
		return;
	ep->addr_resolved = true;
	ret = rdma_resolve_route(id, ibv_cm_timeout_ms);
	if (ret)
		ibv_ep_fail(ep, r, ret);
}

/* fi_connect(): the route is resolved, send the connection request. */
static void ibv_ep_route_resolved(struct ibv_ep *ep, struct rdma_cm_id *id,
				  struct ibv_ep_report *r)
{
	struct rdma_conn_param param;
	int ret;

	if (ep->state != IBV_EP_CONNECTING)
		return;
	ibv_conn_param(ep, id, &param);
	ret = rdma_connect_locked(id, &param);
	if (ret)
		ibv_ep_fail(ep, r, ret);
}

/* Connected: register the pending MRs, report FI_CONNECTED. */
static void ibv_ep_established(struct ibv_ep *ep, struct rdma_cm_event *ev,
			       struct ibv_ep_report *r)
{
	if (ep->state != IBV_EP_CONNECTING)
		return;
	ibv_ep_set_connected(ep);
	/* A registration that timed out ended the connection (EQ error). */
	if (ibv_mr_register_pending(ep) == -ETIMEDOUT)
		return;
	if (!ep->passive)
		r->data = ibv_cm_data_get(ev->param.conn.private_data,
					  ev->param.conn.private_data_len,
					  ep->cm_raw, FI_CM_DATA_MAX, &r->len);
	r->kind = IBV_EP_REPORT_CONNECTED;
}

/* An established connection ended: FI_SHUTDOWN. */
static void ibv_ep_disconnected(struct ibv_ep *ep, struct rdma_cm_id *id,
				struct ibv_ep_report *r)
{
	ibv_ep_stop(ep);
	rdma_disconnect(id);
	ibv_ep_end(ep, r, IBV_EP_REPORT_SHUTDOWN, 0);
}

/* A connection being set up failed: an error entry, with reject data. */
static void ibv_ep_connect_error(struct ibv_ep *ep, struct rdma_cm_id *id,
				 struct rdma_cm_event *ev,
				 struct ibv_ep_report *r)
{
	const void *data;
	u8 rlen = 0;

	if (ep->state != IBV_EP_CONNECTING && ep->state != IBV_EP_CONNECTED)
		return;
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		data = rdma_consumer_reject_data(id, ev, &rlen);
		r->data = ibv_cm_data_get(data, data ? rlen : 0, ep->cm_raw,
					  FI_ERR_DATA_MAX, &r->len);
	}
	ibv_ep_stop(ep);
	ibv_ep_end(ep, r, IBV_EP_REPORT_ERROR,
		   ibv_cm_errno(ev->event, ev->status));
}

/* The device went away: free the resources; true to destroy @id. */
static bool ibv_ep_removed(struct ibv_ep *ep, struct rdma_cm_id *id,
			   struct ibv_ep_report *r)
{
	bool destroy = ibv_ep_release(ep) == id;

	ibv_ep_fail(ep, r, -ENODEV);
	return destroy;
}

/*
 * An event on the request of a passive endpoint not yet accepted (IDLE or
 * ENABLED): one that ends the request (ibv_connreq_errno()) is kept for
 * fi_accept() to answer, without an EQ entry, as nothing was asked of the
 * endpoint yet; device removal frees an IDLE endpoint's resources here
 * (*@destroy: rdma_cm destroys @id), an ENABLED one's as for any endpoint
 * (returns false: handled by the caller).  Returns true if handled.
 * Context: rdma_cm handler, @ep->mutex held; may sleep (the release).
 */
static bool ibv_ep_req_event(struct ibv_ep *ep, struct rdma_cm_id *id,
			     struct rdma_cm_event *ev, bool *destroy)
{
	int err = ibv_connreq_errno(ev->event);

	if (err && !ep->req_err)
		ep->req_err = err;
	if (ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL)
		return true;
	if (ep->state != IBV_EP_IDLE)
		return false;
	*destroy = ibv_ep_release(ep) == id;
	return true;
}

/* Write what ibv_ep_event() decided; the EQ stays bound while @ep exists. */
static void ibv_ep_report(struct ibv_ep *ep, const struct ibv_ep_report *r,
			  int status)
{
	switch (r->kind) {
	case IBV_EP_REPORT_CONNECTED:
		kofi_eq_write_cm(kofi_ep_eq(&ep->ep), FI_CONNECTED, &ep->ep.fid, NULL,
				 r->data, r->len);
		break;
	case IBV_EP_REPORT_SHUTDOWN:
		kofi_eq_write_cm(kofi_ep_eq(&ep->ep), FI_SHUTDOWN, &ep->ep.fid, NULL, NULL,
				 0);
		break;
	case IBV_EP_REPORT_ERROR:
		kofi_eq_write_err(kofi_ep_eq(&ep->ep), &ep->ep.fid, ep->ep.fid.context,
				  r->err, status, r->data, r->len);
		break;
	case IBV_EP_REPORT_NONE:
		break;
	}
}

static int ibv_ep_event(struct ibv_ep *ep, struct rdma_cm_id *id,
			struct rdma_cm_event *ev)
{
	struct ibv_ep_report r = { .kind = IBV_EP_REPORT_NONE };
	bool destroy = false;

	mutex_lock(&ep->mutex);
	if (ep->cm_id != id || ep->state == IBV_EP_DEAD)
		goto out;
	if (ep->passive && ep->state <= IBV_EP_ENABLED) {
		/* The request of a passive endpoint not yet accepted. */
		if (ibv_ep_req_event(ep, id, ev, &destroy))
			goto out;
	} else if (ep->state == IBV_EP_IDLE) {
		ibv_ep_enable_resolved(ep, ev);
		goto out;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ibv_ep_addr_resolved(ep, id, &r);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ibv_ep_route_resolved(ep, id, &r);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		ibv_ep_established(ep, ev, &r);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		if (ep->state == IBV_EP_CONNECTED)
			ibv_ep_disconnected(ep, id, &r);
		else
			ibv_ep_connect_error(ep, id, ev, &r);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		destroy = ibv_ep_removed(ep, id, &r);
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:	/* listeners only */
	case RDMA_CM_EVENT_CONNECT_RESPONSE:	/* not with a QP */
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:	/* the QP may be reused */
	default:
		break;
	}
out:
	mutex_unlock(&ep->mutex);
	ibv_ep_report(ep, &r, ev->status);
	return destroy;
}

/**
 * ibv_cm_handler() - the rdma_cm event handler of every identifier
 * @id: the identifier
 * @ev: the event
 *
 * Context: process context (rdma_cm work), with the identifier's handler
 * mutex held.
 * Return: non-zero to have rdma_cm destroy @id.
 */
int ibv_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct fid *fid = id->context;

	pr_debug("cm event %s (%d) status %d\n", rdma_event_msg(ev->event),
		 ev->event, ev->status);
	switch (fid->fclass) {
	case FI_CLASS_PEP:
		return ibv_pep_event(container_of(fid, struct ibv_pep, pep.fid),
				     id, ev);
	case FI_CLASS_CONNREQ:
		return ibv_connreq_event(container_of(fid, struct ibv_connreq,
						      fid), id, ev);
	case FI_CLASS_EP:
		return ibv_ep_event(container_of(fid, struct ibv_ep, ep.fid),
				    id, ev);
	default:
		WARN_ONCE(1, "kofi_ib_verbs: cm_id with bad context\n");
		return 0;
	}
}

static int ibv_ep_connect(struct fid_ep *fep, const void *addr,
			  const void *param, size_t paramlen)
{
	struct ibv_ep *ep = container_of(fep, struct ibv_ep, ep);
	const struct sockaddr *dst = addr ? addr : ep->info->dest_addr;
	struct sockaddr *cur;
	int ret;

	if (!dst || (dst->sa_family != AF_INET && dst->sa_family != AF_INET6))
		return -EINVAL;
	mutex_lock(&ep->mutex);
	if (ep->state != IBV_EP_ENABLED || ep->passive) {
		ret = ep->state == IBV_EP_DEAD ? -ENODEV :
		      ep->state >= IBV_EP_CONNECTING ? -EISCONN : -EINVAL;
		goto out;
	}
	ret = -EIO;
	if (atomic_read(&ep->qp_event))		/* the QP failed */
		goto out;
	ret = ibv_cm_data_build(ep->conn_data, param, paramlen, ep->cm_raw,
				IBV_CM_RAW_REQ_MAX);
	if (ret < 0)
		goto out;
	ep->conn_len = ret;
	if (ep->addr_resolved) {
		/* fi_enable() resolved the info's destination already. */
		cur = (struct sockaddr *)&ep->cm_id->route.addr.dst_addr;
		ret = -EINVAL;
		if (memcmp(cur, dst, ibv_sa_len(dst)))
			goto out;
		ep->state = IBV_EP_CONNECTING;
		ret = rdma_resolve_route(ep->cm_id, ibv_cm_timeout_ms);
	} else {
		ep->state = IBV_EP_CONNECTING;
		ret = rdma_resolve_addr(ep->cm_id, NULL, (struct sockaddr *)dst,
					ibv_cm_timeout_ms);
	}
	if (ret)
		ep->state = IBV_EP_ENABLED;
out:
	mutex_unlock(&ep->mutex);
	return ret;
}

/*
 * iWARP: once rdma_accept() returns, the QP is in RTS and the peer may
 * write into the regions it was told of as soon as it has the reply,
 * which can be before the ESTABLISHED event is handled here: the domain's
 * pending regions are registered now, posting allowed for that alone
 * (ibv_ep_established() registers any left).  A registration that timed
 * out ended the connection (EQ error): the event then changes nothing.
 * @ep->mutex held.
 */
static void ibv_ep_accept_register(struct ibv_ep *ep)
{
	spin_lock_bh(&ep->lock);
	ep->can_send = true;
	spin_unlock_bh(&ep->lock);
	if (ibv_mr_register_pending(ep) == -ETIMEDOUT) {
		ibv_ep_stop(ep);
		return;
	}
	spin_lock_bh(&ep->lock);
	ep->can_send = false;
	spin_unlock_bh(&ep->lock);
}

static int ibv_ep_accept(struct fid_ep *fep, const void *param,
			 size_t paramlen)
{
	struct ibv_ep *ep = container_of(fep, struct ibv_ep, ep);
	struct ibv_domain *dom = ep->dom;
	struct rdma_conn_param cp;
	struct rdma_cm_id *id;
	int ret;

	/* The domain lock keeps device removal from freeing the id. */
	mutex_lock(&dom->lock);
	id = ep->cm_id;
	if (dom->removed || !id) {
		mutex_unlock(&dom->lock);
		return -ENODEV;
	}
	rdma_lock_handler(id);
	mutex_lock(&ep->mutex);
	if (!ep->passive || ep->state != IBV_EP_ENABLED || ep->cm_id != id) {
		ret = -EINVAL;
		goto out;
	}
	/* The peer withdrew the request, or the QP failed. */
	ret = ep->req_err;
	if (!ret && atomic_read(&ep->qp_event))
		ret = -EIO;
	if (ret)
		goto out;
	ret = ibv_cm_data_build(ep->conn_data, param, paramlen, ep->cm_raw,
				IBV_CM_RAW_REP_MAX);
	if (ret < 0)
		goto out;
	ep->conn_len = ret;
	ibv_conn_param(ep, id, &cp);
	ep->state = IBV_EP_CONNECTING;
	ret = rdma_accept(id, &cp);
	if (ret)
		ep->state = IBV_EP_ENABLED;
	else if (dom->iwarp)
		ibv_ep_accept_register(ep);
out:
	mutex_unlock(&ep->mutex);
	rdma_unlock_handler(id);
	mutex_unlock(&dom->lock);
	return ret;
}

static int ibv_ep_shutdown(struct fid_ep *fep, u64 flags)
{
	struct ibv_ep *ep = container_of(fep, struct ibv_ep, ep);
	bool report;

	mutex_lock(&ep->mutex);
	if (ep->state != IBV_EP_CONNECTED && ep->state != IBV_EP_CONNECTING) {
		mutex_unlock(&ep->mutex);
		return -ENOTCONN;
	}
	ibv_ep_stop(ep);
	rdma_disconnect(ep->cm_id);
	report = !ep->shutdown_reported;
	ep->shutdown_reported = true;
	if (report)
		ibv_ep_set_ended(ep);
	mutex_unlock(&ep->mutex);
	if (report)
		kofi_eq_write_cm(kofi_ep_eq(&ep->ep), FI_SHUTDOWN, &ep->ep.fid, NULL, NULL,
				 0);
	return 0;
}

static int ibv_ep_getname(struct fid *fid, void *addr, size_t *addrlen)
{
	struct ibv_ep *ep = container_of(fid, struct ibv_ep, ep.fid);
	int ret;

	mutex_lock(&ep->mutex);
	ret = ibv_getname_id(ep->cm_id, ep->info->src_addr, addr, addrlen);
	mutex_unlock(&ep->mutex);
	return ret;
}

static int ibv_ep_getpeer(struct fid_ep *fep, void *addr, size_t *addrlen)
{
	struct ibv_ep *ep = container_of(fep, struct ibv_ep, ep);
	const struct sockaddr *sa;
	size_t len;
	int ret = 0;

	mutex_lock(&ep->mutex);
	if (!ep->cm_id || ep->state < IBV_EP_CONNECTING) {
		ret = -ENOTCONN;
		goto out;
	}
	sa = (const struct sockaddr *)&ep->cm_id->route.addr.dst_addr;
	len = ibv_sa_len(sa);
	if (*addrlen < len) {
		*addrlen = len;
		ret = -EMSGSIZE;
		goto out;
	}
	memcpy(addr, sa, len);
	*addrlen = len;
out:
	mutex_unlock(&ep->mutex);
	return ret;
}

const struct fi_ops_cm ibv_ep_cm_ops = {
	.getname = ibv_ep_getname,
	.getpeer = ibv_ep_getpeer,
	.connect = ibv_ep_connect,
	.accept = ibv_ep_accept,
	.shutdown = ibv_ep_shutdown,
};
