// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ksocket provider: active endpoints - lifetime, bindings, options,
 * request pools, the I/O work and the end of a connection.
 *
 * An endpoint allocates its requests as it needs them, up to tx_size
 * transmit requests, rx_size receive requests, KSOCK_RSP_SIZE read
 * responses and the request of a claimed tagged message, and keeps those
 * it freed for reuse until it is closed: an idle endpoint holds none, its
 * queues grow under load.  A data call that finds its queue full returns
 * -EAGAIN, as does one whose request could not be allocated (the work
 * then allocates one, where it may sleep).
 *
 * Every user operation is recorded on the endpoint's kofi_oplist, so that
 * when the connection ends (peer close, error, fi_shutdown()) or the
 * endpoint is closed, whatever is outstanding completes with an ECANCELED
 * error entry.
 */
#include <linux/slab.h>
#include <linux/nsproxy.h>
#include <net/net_namespace.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include "ksock.h"

bool ksock_debug;
module_param_named(debug, ksock_debug, bool, 0644);
MODULE_PARM_DESC(debug, "log the end of every connection and why (default 0)");

static int ksock_keepalive_param_set(const char *val,
				     const struct kernel_param *kp)
{
	unsigned int ms;
	int ret = kstrtouint(val, 0, &ms);

	if (ret)
		return ret;
	if (ms > KSOCK_KEEPALIVE_MAX_MS)
		return -EINVAL;
	*(unsigned int *)kp->arg = ms;
	return 0;
}

static const struct kernel_param_ops ksock_keepalive_param_ops = {
	.set = ksock_keepalive_param_set,
	.get = param_get_uint,
};

unsigned int ksock_keepalive_ms;
module_param_cb(keepalive_ms, &ksock_keepalive_param_ops, &ksock_keepalive_ms,
		0644);
MODULE_PARM_DESC(keepalive_ms,
		 "TCP keepalive interval of endpoints opened later in ms, rounded up to seconds; the peer is given up after 3 unanswered probes or unacknowledged data for 4 intervals (0 = off, default; fi_setopt(FI_OPT_KEEPALIVE_MS) per endpoint)");

/**
 * ksock_ep_kick() - schedule the endpoint's I/O work
 * @ep: the endpoint; ep->lock held
 *
 * Context: any context.
 */
void ksock_ep_kick(struct ksock_ep *ep)
{
	lockdep_assert_held(&ep->lock);
	if (ep->state != KSOCK_EP_CLOSING)
		queue_work(ksock_wq, &ep->io_work);
}

/**
 * ksock_ep_kick_unlocked() - schedule the endpoint's I/O work
 * @ep: the endpoint; ep->lock not held
 *
 * Context: any context.
 */
void ksock_ep_kick_unlocked(struct ksock_ep *ep)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	ksock_ep_kick(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/**
 * ksock_ep_can_direct() - may this data call do socket I/O itself?
 * @ep: the endpoint
 * @flags: the call's flags
 *
 * The rule is the ULP's, stated once: a data call that its ULP promised
 * is made from a context that may sleep - every call on an endpoint whose
 * ULP set FI_OPT_DATA_MAY_SLEEP, or one call with FI_MAY_SLEEP in @flags
 * - sends, or resumes the receive engine, itself, which can wait briefly
 * for the socket's lock; any other call leaves the I/O to the endpoint's
 * work, whatever the kernel's configuration.  The promise is not taken
 * blindly where checking is cheap: a call from an interrupt, with
 * interrupts disabled, or from a completion handler the receive engine
 * runs with the socket locked (ep->rx_task) leaves the I/O to the work
 * as well.
 *
 * Context: any context.
 * Return: true if the caller may lock the socket.
 */
bool ksock_ep_can_direct(struct ksock_ep *ep, u64 flags)
{
	return (READ_ONCE(ep->may_sleep) || (flags & FI_MAY_SLEEP)) &&
	       in_task() && !irqs_disabled() &&
	       READ_ONCE(ep->rx_task) != current;
}

/**
 * ksock_ep_fail() - an engine saw the connection end
 * @ep: the endpoint
 * @err: as ksock_ep_down()'s (0 for an orderly end of stream)
 * @prov_errno: as ksock_ep_down()'s
 *
 * Records the first failure and schedules the work, which ends the
 * connection with ksock_ep_down().
 *
 * Context: any context; does not sleep.
 */
void ksock_ep_fail(struct ksock_ep *ep, int err, int prov_errno)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (!ep->fail_pending) {
		ep->fail_pending = true;
		ep->fail_err = err;
		ep->fail_why = prov_errno;
	}
	ksock_ep_kick(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/**
 * ksock_req_get() - take a free request
 * @ep: the endpoint; ep->lock held
 * @pool: the pool (tx_pool, rx_pool, trx_pool, rsp_pool)
 *
 * Takes a request from the pool's free list, or allocates one if the pool
 * holds fewer than its size.  If that allocation fails the endpoint's
 * work allocates a request for the pool (ksock_ep_grow()), so that the
 * caller's next try finds one.
 *
 * Context: any context; does not sleep.
 * Return: a request zeroed up to its vector, of the pool's kind; NULL if
 * the pool is full or no memory was at hand.
 */
struct ksock_req *ksock_req_get(struct ksock_ep *ep, struct ksock_pool *pool)
{
	struct ksock_req *req;

	lockdep_assert_held(&ep->lock);
	req = list_first_entry_or_null(&pool->free, struct ksock_req, node);
	if (req) {
		list_del(&req->node);
		memset(req, 0, offsetof(struct ksock_req, vec));
	} else {
		if (pool->count >= pool->max)
			return NULL;
		req = kmem_cache_zalloc(ksock_req_cache,
					GFP_ATOMIC | __GFP_NOWARN);
		if (!req) {
			pool->grow = true;
			ksock_ep_kick(ep);
			return NULL;
		}
		pool->count++;
	}
	INIT_LIST_HEAD(&req->op.node);
	INIT_LIST_HEAD(&req->node);
	/* Remember which pool the request belongs to. */
	req->kind = pool->kind;
	return req;
}

/* The pool a request belongs to, from its kind. */
static struct ksock_pool *ksock_req_pool(struct ksock_ep *ep,
					 struct ksock_req *req)
{
	switch (req->kind) {
	case KSOCK_REQ_RECV:
		return &ep->rx_pool;
	case KSOCK_REQ_TRECV:
		return &ep->trx_pool;
	case KSOCK_REQ_READ_RSP:
		return &ep->rsp_pool;
	default:
		return &ep->tx_pool;
	}
}

/**
 * ksock_req_unget() - give back a request that was not used
 * @ep: the endpoint; ep->lock held since ksock_req_get() gave @req
 * @req: the request, on no list, holding no region
 *
 * Context: any context.
 */
void ksock_req_unget(struct ksock_ep *ep, struct ksock_req *req)
{
	lockdep_assert_held(&ep->lock);
	list_add(&req->node, &ksock_req_pool(ep, req)->free);
}

/**
 * ksock_req_release_keys() - drop the region references of a request
 * @req: the request
 *
 * Context: any context.
 */
void ksock_req_release_keys(struct ksock_req *req)
{
	unsigned int i;

	for (i = 0; i < KSOCK_RMA_IOV_MAX; i++) {
		if (req->ke[i])
			kofi_key_entry_put(req->ke[i]);
		req->ke[i] = NULL;
	}
}

/**
 * ksock_req_put() - return a request to its pool
 * @ep: the endpoint
 * @req: the request, on no list
 *
 * The request goes on its pool's free list, for reuse; it is freed with
 * the endpoint.
 *
 * Context: any context; takes ep->lock.
 */
void ksock_req_put(struct ksock_ep *ep, struct ksock_req *req)
{
	unsigned long flags;

	ksock_req_release_keys(req);
	spin_lock_irqsave(&ep->lock, flags);
	list_add(&req->node, &ksock_req_pool(ep, req)->free);
	/* The receive engine may wait for a free read response. */
	if (req->kind == KSOCK_REQ_READ_RSP &&
	    ep->state == KSOCK_EP_CONNECTED)
		ksock_ep_kick(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/**
 * ksock_req_complete() - complete a request successfully and free it
 * @ep: the endpoint
 * @req: the request, on no queue
 *
 * Context: any context; does not sleep (the CQ's comp_handler runs in it).
 */
void ksock_req_complete(struct ksock_ep *ep, struct ksock_req *req)
{
	bool rx = req->kind == KSOCK_REQ_RECV || req->kind == KSOCK_REQ_TRECV;
	size_t len = rx ? req->len : 0;

	/*
	 * A flush took the operation and completed it in error; the request
	 * is still ours to put back (the endpoint is down: no call takes it
	 * again before it is freed).
	 */
	if (req->user && !kofi_oplist_del(&ep->ops, &req->op))
		goto put;
	if (req->signal && req->op.cq)
		kofi_cq_write_tagged(req->op.cq, req->op.context,
				     req->op.flags | req->rx_flags, len, NULL,
				     req->data, req->tag, FI_ADDR_NOTAVAIL);
put:
	ksock_req_put(ep, req);
}

/**
 * ksock_req_answered() - the peer answered a request (ACK, read response)
 * @ep: the endpoint
 * @req: the request, taken off ack_wait or read_wait
 *
 * A request goes on its wait list before its last byte is sent, so the
 * answer may come while the transmit engine still holds it; then the
 * engine completes it when it lets go (ksock_tx.c), else this does.
 *
 * Context: any context; does not sleep.
 */
void ksock_req_answered(struct ksock_ep *ep, struct ksock_req *req)
{
	unsigned long flags;
	bool later;

	spin_lock_irqsave(&ep->lock, flags);
	later = req->in_tx;
	if (later)
		req->answered = true;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!later)
		ksock_req_complete(ep, req);
}

/**
 * ksock_req_fail() - complete a request in error and free it
 * @ep: the endpoint
 * @req: the request, on no queue
 * @err: positive errno (EMSGSIZE, ECANCELED ...)
 * @len: bytes transferred
 * @olen: bytes that did not fit
 *
 * Context: any context; does not sleep (the CQ's comp_handler runs in it).
 */
void ksock_req_fail(struct ksock_ep *ep, struct ksock_req *req, int err,
		    size_t len, size_t olen)
{
	/* As in ksock_req_complete(), a flush may have completed it. */
	if (req->user && !kofi_oplist_del(&ep->ops, &req->op))
		goto put;
	if (req->op.cq)
		kofi_cq_write_err(req->op.cq, req->op.context,
				  req->op.flags | req->rx_flags, err, 0, len,
				  olen);
put:
	ksock_req_put(ep, req);
}

/**
 * ksock_req_iter() - copy a user vector into a request and iterate it
 * @req: the request
 * @dir: ITER_SOURCE (send) or ITER_DEST (receive)
 * @type: FI_IOV_KVEC, FI_IOV_BVEC or FI_IOV_SG
 * @vec: the vector
 * @count: its entries, at most KSOCK_IOV_LIMIT
 *
 * Sets req->iter[0], req->nseg and req->len.
 *
 * Context: any context.
 * Return: 0; -EINVAL for too many entries; -EMSGSIZE above the largest
 * message.
 */
int ksock_req_iter(struct ksock_req *req, unsigned int dir,
		   enum fi_iov_type type, const void *vec, size_t count)
{
	struct scatterlist *sg;
	size_t i, len = 0;

	if (count > KSOCK_IOV_LIMIT)
		return -EINVAL;
	switch (type) {
	case FI_IOV_KVEC:
		/* kv[0] is left for the header of a send */
		for (i = 0; i < count; i++) {
			req->vec.kv[i + 1] = ((const struct kvec *)vec)[i];
			len += req->vec.kv[i + 1].iov_len;
		}
		iov_iter_kvec(&req->iter[0], dir, &req->vec.kv[1], count, len);
		break;
	case FI_IOV_BVEC:
		for (i = 0; i < count; i++) {
			req->vec.bv[i] = ((const struct bio_vec *)vec)[i];
			len += req->vec.bv[i].bv_len;
		}
		iov_iter_bvec(&req->iter[0], dir, req->vec.bv, count, len);
		break;
	case FI_IOV_SG:
		sg = (struct scatterlist *)vec;
		for (i = 0; i < count && sg; i++, sg = sg_next(sg)) {
			req->vec.bv[i].bv_page = sg_page(sg);
			req->vec.bv[i].bv_offset = sg->offset;
			req->vec.bv[i].bv_len = sg->length;
			len += sg->length;
		}
		if (i != count)
			return -EINVAL;
		iov_iter_bvec(&req->iter[0], dir, req->vec.bv, count, len);
		break;
	default:
		return -EINVAL;
	}
	if (len > KSOCK_MAX_MSG_SIZE)
		return -EMSGSIZE;
	req->nseg = 1;
	req->len = len;
	return 0;
}

/**
 * ksock_req_inject() - copy an injected operation's payload into a request
 * @req: the request
 * @type: the vector's type; injection takes FI_IOV_KVEC only
 * @vec: the vector: none or one kvec of at most KSOCK_INJECT_SIZE bytes
 * @count: its entries
 *
 * The payload is copied into req->inject, so the caller's buffer is free
 * again on return.  Sets req->iter[0], req->nseg and req->len.
 *
 * Context: any context.
 * Return: 0; -EINVAL for another vector type; -EMSGSIZE for more than one
 * entry or more than KSOCK_INJECT_SIZE bytes.
 */
int ksock_req_inject(struct ksock_req *req, enum fi_iov_type type,
		     const void *vec, size_t count)
{
	const struct kvec *kv = vec;

	if (type != FI_IOV_KVEC)
		return -EINVAL;
	if (count > 1 || (count && kv[0].iov_len > KSOCK_INJECT_SIZE))
		return -EMSGSIZE;
	req->len = count ? kv[0].iov_len : 0;
	if (req->len)
		memcpy(req->inject, kv[0].iov_base, req->len);
	req->vec.kv[1].iov_base = req->inject;
	req->vec.kv[1].iov_len = req->len;
	iov_iter_kvec(&req->iter[0], ITER_SOURCE, &req->vec.kv[1], 1,
		      req->len);
	req->nseg = 1;
	return 0;
}

/**
 * ksock_ep_postable() - may the endpoint take new operations
 * @ep: the endpoint, ep->lock held
 *
 * Context: any context.
 * Return: 0; -EINVAL before fi_enable(); -ENOTCONN once the connection is
 * down or the endpoint closing.
 */
int ksock_ep_postable(struct ksock_ep *ep)
{
	lockdep_assert_held(&ep->lock);
	if (!ep->enabled)
		return -EINVAL;
	if (ep->state == KSOCK_EP_DOWN || ep->state == KSOCK_EP_CLOSING)
		return -ENOTCONN;
	return 0;
}

/**
 * ksock_post_tx() - queue a transmit request built by a data call
 * @ep: the endpoint
 * @req: the request, taken from ep->tx_pool with ep->lock held
 *
 * Called with ep->lock held (irqsave by the caller).  When the endpoint
 * is connected and the queue was empty, the caller should call
 * ksock_tx_direct() once it has dropped the lock; other requests wait
 * for the engine already busy with the queue (or for the connection).
 *
 * Context: any context.
 * Return: true if the caller should call ksock_tx_direct().
 */
bool ksock_post_tx(struct ksock_ep *ep, struct ksock_req *req)
{
	lockdep_assert_held(&ep->lock);
	if (req->user)
		kofi_oplist_add(&ep->ops, &req->op);
	list_add_tail(&req->node, &ep->tx_queue);
	if (ep->state != KSOCK_EP_CONNECTED || ep->tx_blocked)
		return false;
	if (list_is_singular(&ep->tx_queue))
		return true;
	ksock_ep_kick(ep);
	return false;
}

/* Free every request of the endpoint's queues, completing user ones. */
static void ksock_ep_flush(struct ksock_ep *ep)
{
	struct ksock_req *req, *tmp;
	unsigned long flags;
	LIST_HEAD(all);

	mutex_lock(&ep->tx_mutex);
	spin_lock_irqsave(&ep->lock, flags);
	list_splice_init(&ep->tx_queue, &all);
	list_splice_init(&ep->ack_wait, &all);
	list_splice_init(&ep->read_wait, &all);
	list_splice_init(&ep->rx_queue, &all);
	ep->acks = 0;
	ep->ack_sent = sizeof(ep->ack_hdr);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (ep->tx_cur) {
		/* unless it is already there, from ack_wait or read_wait */
		if (list_empty(&ep->tx_cur->node))
			list_add(&ep->tx_cur->node, &all);
		ep->tx_cur = NULL;
	}
	mutex_unlock(&ep->tx_mutex);
	if (ep->sock) {
		lock_sock(ep->sock->sk);
		req = ksock_rx_reset(ep);
		release_sock(ep->sock->sk);
	} else {
		req = ksock_rx_reset(ep);
	}
	if (req)
		list_add(&req->node, &all);

	list_for_each_entry_safe(req, tmp, &all, node) {
		list_del_init(&req->node);
		if (req->user)
			ksock_req_fail(ep, req, ECANCELED, 0, 0);
		else
			ksock_req_put(ep, req);
	}
	/* Anything left on the list is in no queue: the receive engine's. */
	kofi_oplist_flush(&ep->ops, ECANCELED, NULL, NULL);
}

/**
 * ksock_ep_down() - end the connection
 * @ep: the endpoint
 * @err: 0 for an orderly end (FI_SHUTDOWN), or a positive errno: before the
 *	connection was established an EQ error entry with it is the outcome
 *	of fi_connect(); afterwards an error entry followed by FI_SHUTDOWN
 * @prov_errno: provider error of the error entry
 * @data: error data of the error entry (a reject's data), or NULL
 * @datalen: bytes at @data
 *
 * Outstanding operations complete with ECANCELED.
 *
 * Context: the endpoint's work (or with it stopped), process context,
 * neither ep->tx_mutex nor the socket's lock held; sleeps.
 */
void ksock_ep_down(struct ksock_ep *ep, int err, int prov_errno,
		   const void *data, size_t datalen)
{
	enum ksock_ep_state prev;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	prev = ep->state;
	if (prev == KSOCK_EP_DOWN || prev == KSOCK_EP_CLOSING) {
		spin_unlock_irqrestore(&ep->lock, flags);
		return;
	}
	ep->state = KSOCK_EP_DOWN;
	spin_unlock_irqrestore(&ep->lock, flags);
	ksock_dbg("ep %p down from state %d: err %d prov_errno %d\n", ep,
		  prev, err, prov_errno);

	if (ep->sock) {
		if (!err && prev == KSOCK_EP_CONNECTED)
			ksock_tx_flush_acks(ep);
		kernel_sock_shutdown(ep->sock, SHUT_RDWR);
	}
	ksock_ep_flush(ep);
	if (!kofi_ep_eq(&ep->ep))
		return;
	if (prev == KSOCK_EP_CONNECTING || prev == KSOCK_EP_REQ_SENT) {
		kofi_eq_write_err(kofi_ep_eq(&ep->ep), &ep->ep.fid, ep->ep.fid.context,
				  err ? err : ECONNREFUSED, prov_errno, data,
				  datalen);
		return;
	}
	if (err)
		kofi_eq_write_err(kofi_ep_eq(&ep->ep), &ep->ep.fid, ep->ep.fid.context,
				  err, prov_errno, NULL, 0);
	kofi_eq_write_cm(kofi_ep_eq(&ep->ep), FI_SHUTDOWN, &ep->ep.fid, NULL, NULL, 0);
}

/**
 * ksock_ep_connected() - the connection is established
 * @ep: the endpoint
 * @data: the peer's connection data; not the receive engine's buffers,
 *	which the data-ready callback may fill as soon as the state changes
 * @datalen: its length
 *
 * Context: process context.
 */
void ksock_ep_connected(struct ksock_ep *ep, const void *data,
			size_t datalen)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (ep->state == KSOCK_EP_CLOSING || ep->state == KSOCK_EP_DOWN) {
		spin_unlock_irqrestore(&ep->lock, flags);
		return;
	}
	ksock_dbg("ep %p connected from state %d\n", ep, ep->state);
	ep->state = KSOCK_EP_CONNECTED;
	ep->connect_bounded = false;
	del_timer(&ep->connect_timer);
	ep->rx.state = KSOCK_RX_HDR;
	ep->rx.got = 0;
	ep->rx.need = sizeof(struct ksock_base_hdr);
	/* The handshake's sends took a page fragment. */
	ksock_tx_note_sent(ep);
	ksock_ep_kick(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (kofi_ep_eq(&ep->ep))
		kofi_eq_write_cm(kofi_ep_eq(&ep->ep), FI_CONNECTED, &ep->ep.fid, NULL, data,
				 datalen);
}

/* Run the receive engine under the socket's lock. */
static int ksock_ep_work_rx(struct ksock_ep *ep, size_t *budget)
{
	struct sock *sk = ep->sock->sk;
	int ret;

	lock_sock(sk);
	ret = ksock_rx_run(ep, budget);
	release_sock(sk);
	return ret;
}

/* Run the transmit engine. */
static int ksock_ep_work_tx(struct ksock_ep *ep, size_t *budget)
{
	int ret;

	mutex_lock(&ep->tx_mutex);
	ret = ksock_tx_progress(ep, budget);
	mutex_unlock(&ep->tx_mutex);
	return ret;
}

/* An engine recorded the end of the connection: report it. */
static bool ksock_ep_work_failed(struct ksock_ep *ep)
{
	unsigned long flags;
	bool failed;
	int err, why;

	spin_lock_irqsave(&ep->lock, flags);
	failed = ep->fail_pending;
	err = ep->fail_err;
	why = ep->fail_why;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (failed)
		ksock_ep_down(ep, err, why, NULL, 0);
	return failed;
}

/*
 * Allocate a request for each pool whose atomic allocation failed
 * (ksock_req_get()): a data call's next try, or the receive engine run
 * next, finds it.  Without even that memory the connection ends.
 */
static void ksock_ep_grow(struct ksock_ep *ep)
{
	struct ksock_pool *pools[] = {
		&ep->tx_pool, &ep->rx_pool, &ep->trx_pool, &ep->rsp_pool,
	};
	struct ksock_req *req;
	unsigned long flags;
	unsigned int i;
	bool grow;

	for (i = 0; i < ARRAY_SIZE(pools); i++) {
		spin_lock_irqsave(&ep->lock, flags);
		grow = pools[i]->grow;
		pools[i]->grow = false;
		spin_unlock_irqrestore(&ep->lock, flags);
		if (!grow)
			continue;
		req = kmem_cache_zalloc(ksock_req_cache, GFP_KERNEL);
		if (!req) {
			ksock_ep_fail(ep, ENOMEM, 0);
			return;
		}
		spin_lock_irqsave(&ep->lock, flags);
		if (pools[i]->count < pools[i]->max) {
			list_add(&req->node, &pools[i]->free);
			pools[i]->count++;
			req = NULL;
		}
		spin_unlock_irqrestore(&ep->lock, flags);
		if (req)
			kmem_cache_free(ksock_req_cache, req);
	}
}

static void ksock_ep_work(struct work_struct *work)
{
	struct ksock_ep *ep = container_of(work, struct ksock_ep, io_work);
	size_t budget = KSOCK_WORK_BUDGET;
	enum ksock_ep_state state;
	unsigned long flags;
	bool shutdown, keepalive;
	int ret, rx, tx;

	spin_lock_irqsave(&ep->lock, flags);
	state = ep->state;
	shutdown = ep->shutdown_req;
	keepalive = ep->keepalive_set && ep->sock &&
		    state >= KSOCK_EP_CONNECTING && state <= KSOCK_EP_CONNECTED;
	if (keepalive)
		ep->keepalive_set = false;
	spin_unlock_irqrestore(&ep->lock, flags);

	if (keepalive)
		ksock_sock_keepalive(ep->sock->sk, READ_ONCE(ep->keepalive_ms));
	ksock_ep_grow(ep);
	if (shutdown) {
		ksock_ep_down(ep, 0, 0, NULL, 0);
		return;
	}
	if (state == KSOCK_EP_CONNECTING || state == KSOCK_EP_REQ_SENT) {
		ret = ksock_cm_progress(ep);
		if (ret <= 0)
			return;
		state = KSOCK_EP_CONNECTED;
	}
	if (state != KSOCK_EP_CONNECTED || ksock_ep_work_failed(ep))
		return;
	ksock_tx_idle(ep);

	do {
		rx = ksock_ep_work_rx(ep, &budget);
		tx = rx < 0 ? -1 : ksock_ep_work_tx(ep, &budget);
		if (ksock_ep_work_failed(ep))
			return;
	} while ((rx > 0 || tx > 0) && budget);

	if (!budget)
		ksock_ep_kick_unlocked(ep);
}

/* ---- the object ---- */

/* Free the requests of a pool: all of them are on its free list. */
static void ksock_pool_free(struct ksock_pool *pool)
{
	struct ksock_req *req, *tmp;

	list_for_each_entry_safe(req, tmp, &pool->free, node) {
		list_del(&req->node);
		kmem_cache_free(ksock_req_cache, req);
		pool->count--;
	}
	WARN_ON_ONCE(pool->count);
}

static void ksock_pool_init(struct ksock_pool *pool, u8 kind,
			    unsigned int max)
{
	INIT_LIST_HEAD(&pool->free);
	pool->kind = kind;
	pool->max = max;
}

static void ksock_ep_free(struct ksock_ep *ep)
{
	mutex_destroy(&ep->tx_mutex);
	if (ep->sock)
		sock_release(ep->sock);
	ksock_pool_free(&ep->tx_pool);
	ksock_pool_free(&ep->rx_pool);
	ksock_pool_free(&ep->trx_pool);
	ksock_pool_free(&ep->rsp_pool);
	put_net(ep->net);
	fi_freeinfo(ep->info);
	kfree(ep);
}

static int ksock_ep_close(struct fid *fid)
{
	struct ksock_ep *ep = container_of(fid, struct ksock_ep, ep.fid);
	enum ksock_ep_state prev;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	prev = ep->state;
	ep->state = KSOCK_EP_CLOSING;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (ep->sock)
		ksock_ep_sock_detach(ep);
	del_timer_sync(&ep->connect_timer);
	cancel_work_sync(&ep->io_work);
	if (prev == KSOCK_EP_CONNECTED)
		ksock_tx_flush_acks(ep);
	/* Nothing sends any more, so nothing arms it. */
	del_timer_sync(&ep->idle_timer);
	ksock_ep_flush(ep);
	ksock_ep_free(ep);
	return 0;
}

static int ksock_ep_enable(struct fid_ep *fep)
{
	struct ksock_ep *ep = container_of(fep, struct ksock_ep, ep);
	unsigned int ntx = KSOCK_TX_SIZE, nrx = KSOCK_RX_SIZE;
	unsigned long flags;

	if (ep->enabled)
		return 0;
	if (!kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL) ||
	    !kofi_ep_cq(&ep->ep, FI_RECV, NULL) || !kofi_ep_eq(&ep->ep))
		return -EINVAL;
	if (ep->info->tx_attr->size)
		ntx = min_t(size_t, ep->info->tx_attr->size, 65536);
	if (ep->info->rx_attr->size)
		nrx = min_t(size_t, ep->info->rx_attr->size, 65536);
	/* The queues are empty: requests are allocated as they are used. */
	spin_lock_irqsave(&ep->lock, flags);
	ep->tx_pool.max = ntx;
	ep->rx_pool.max = nrx;
	ep->enabled = true;
	spin_unlock_irqrestore(&ep->lock, flags);
	return 0;
}

static ssize_t ksock_ep_cancel(struct fid *fid, void *context)
{
	struct ksock_ep *ep = container_of(fid, struct ksock_ep, ep.fid);
	struct ksock_req *req, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	list_for_each_entry(req, &ep->rx_queue, node) {
		if (req->op.context == context) {
			list_del_init(&req->node);
			found = req;
			break;
		}
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!found)
		return -ENOENT;
	ksock_req_fail(ep, found, ECANCELED, 0, 0);
	return 0;
}

static int ksock_ep_getopt(struct fid *fid, int level, int optname,
			   void *optval, size_t *optlen)
{
	struct ksock_ep *ep = container_of(fid, struct ksock_ep, ep.fid);
	size_t val;

	if (level != FI_OPT_ENDPOINT)
		return -ENOPROTOOPT;
	switch (optname) {
	case FI_OPT_CM_DATA_SIZE:
		val = KSOCK_CM_DATA_MAX;
		break;
	case FI_OPT_TX_SIZE:
		val = ep->info->tx_attr->size;
		break;
	case FI_OPT_RX_SIZE:
		val = ep->info->rx_attr->size;
		break;
	case FI_OPT_DATA_MAY_SLEEP:
		val = READ_ONCE(ep->may_sleep);
		break;
	case FI_OPT_KEEPALIVE_MS:
		val = READ_ONCE(ep->keepalive_ms);
		break;
	case FI_OPT_CONNECT_TIMEOUT_MS:
		val = READ_ONCE(ep->connect_timeout_ms);
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

/* FI_OPT_DATA_MAY_SLEEP: fixed once the endpoint is enabled. */
static int ksock_ep_set_may_sleep(struct ksock_ep *ep, size_t val)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&ep->lock, flags);
	if (ep->enabled)
		ret = -EBUSY;
	else
		WRITE_ONCE(ep->may_sleep, !!val);
	spin_unlock_irqrestore(&ep->lock, flags);
	return ret;
}

/* FI_OPT_TAGGED_RX: fixed once the endpoint is enabled. */
static int ksock_ep_set_tagged_rx(struct ksock_ep *ep, const void *optval,
				  size_t optlen)
{
	const struct fi_tagged_rx *trx = optval;
	unsigned long flags;
	int ret = 0;

	if (optlen != sizeof(*trx) || !trx->claim ||
	    (trx->flags & ~(FI_TAGGED_RX_MSG | FI_TAGGED_RX_OP)) ||
	    trx->hdr_len > FI_TAGGED_RX_HDR_MAX ||
	    (trx->hdr_len && (trx->flags & FI_TAGGED_RX_MSG)))
		return -EINVAL;
	spin_lock_irqsave(&ep->lock, flags);
	if (ep->enabled)
		ret = -EBUSY;
	else
		ep->trx = *trx;
	spin_unlock_irqrestore(&ep->lock, flags);
	return ret;
}

/* FI_OPT_CONNECT_TIMEOUT_MS: bounds the next fi_connect(). */
static int ksock_ep_set_connect_timeout(struct ksock_ep *ep, size_t ms)
{
	unsigned long flags;

	if (ms > KSOCK_CONNECT_TIMEOUT_MAX_MS)
		return -EINVAL;
	spin_lock_irqsave(&ep->lock, flags);
	WRITE_ONCE(ep->connect_timeout_ms, ms);
	spin_unlock_irqrestore(&ep->lock, flags);
	return 0;
}

/* FI_OPT_KEEPALIVE_MS: the work applies it to a socket there is. */
static int ksock_ep_set_keepalive(struct ksock_ep *ep, size_t ms)
{
	unsigned long flags;

	if (ms > KSOCK_KEEPALIVE_MAX_MS)
		return -EINVAL;
	spin_lock_irqsave(&ep->lock, flags);
	WRITE_ONCE(ep->keepalive_ms, ms);
	ep->keepalive_set = true;
	ksock_ep_kick(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
	return 0;
}

static int ksock_ep_setopt(struct fid *fid, int level, int optname,
			   const void *optval, size_t optlen)
{
	struct ksock_ep *ep = container_of(fid, struct ksock_ep, ep.fid);

	if (level != FI_OPT_ENDPOINT)
		return -ENOPROTOOPT;
	switch (optname) {
	case FI_OPT_CM_DATA_SIZE:
		return -EINVAL;	/* read only */
	case FI_OPT_DATA_MAY_SLEEP:
		if (optlen != sizeof(size_t))
			return -EINVAL;
		return ksock_ep_set_may_sleep(ep, *(const size_t *)optval);
	case FI_OPT_KEEPALIVE_MS:
		if (optlen != sizeof(size_t))
			return -EINVAL;
		return ksock_ep_set_keepalive(ep, *(const size_t *)optval);
	case FI_OPT_TAGGED_RX:
		return ksock_ep_set_tagged_rx(ep, optval, optlen);
	case FI_OPT_CONNECT_TIMEOUT_MS:
		if (optlen != sizeof(size_t))
			return -EINVAL;
		return ksock_ep_set_connect_timeout(ep,
						    *(const size_t *)optval);
	default:
		return -ENOPROTOOPT;
	}
}

/*
 * fi_control(FI_TAGGED_RX_RETRY): the owner of a connection claim() held
 * has a place for its message now.  Any context; does not sleep.
 */
static int ksock_ep_control(struct fid *fid, int command, void *arg)
{
	struct ksock_ep *ep = container_of(fid, struct ksock_ep, ep.fid);
	unsigned long flags;
	bool resume;

	if (command != FI_TAGGED_RX_RETRY)
		return -FI_ENOSYS;
	spin_lock_irqsave(&ep->lock, flags);
	resume = ep->rx_held && ep->state == KSOCK_EP_CONNECTED;
	ep->rx_held = false;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (resume)
		ksock_ep_kick_unlocked(ep);
	return 0;
}

static const struct fi_ops ksock_ep_fi_ops = {
	.close = ksock_ep_close,
	.control = ksock_ep_control,
};

static const struct fi_ops_ep ksock_ep_ops = {
	.cancel = ksock_ep_cancel,
	.getopt = ksock_ep_getopt,
	.setopt = ksock_ep_setopt,
	.enable = ksock_ep_enable,
};

/**
 * ksock_ep_open() - fi_endpoint() of ksocket
 * @domain: the domain
 * @info: the endpoint's info; with a connection request handle (from an
 *	FI_CONNREQ event) the endpoint takes over the request's connection,
 *	and the handle is consumed
 * @fep: the new endpoint
 * @context: user context
 *
 * The endpoint's sockets live in the network namespace of the caller.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a foreign handle or a non-MSG info; -ENOMEM.
 */
int ksock_ep_open(struct fid_domain *domain, struct fi_info *info,
		  struct fid_ep **fep, void *context)
{
	struct ksock_ep *ep;
	int ret;

	if (info->ep_attr && info->ep_attr->type != FI_EP_MSG &&
	    info->ep_attr->type != FI_EP_UNSPEC)
		return -EINVAL;
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return -ENOMEM;
	ep->info = fi_dupinfo(info, GFP_KERNEL);
	if (!ep->info) {
		kfree(ep);
		return -ENOMEM;
	}
	ep->info->handle = NULL;
	ep->keepalive_ms = READ_ONCE(ksock_keepalive_ms);
	ep->connect_timeout_ms = min(READ_ONCE(ksock_connect_timeout_ms),
				     KSOCK_CONNECT_TIMEOUT_MAX_MS);
	ep->dom = container_of(domain, struct kofi_sw_domain, domain);
	ep->net = get_net(current->nsproxy->net_ns);
	spin_lock_init(&ep->lock);
	mutex_init(&ep->tx_mutex);
	INIT_LIST_HEAD(&ep->tx_queue);
	INIT_LIST_HEAD(&ep->ack_wait);
	INIT_LIST_HEAD(&ep->read_wait);
	INIT_LIST_HEAD(&ep->rx_queue);
	/* the transmit and receive queues get their sizes in fi_enable() */
	ksock_pool_init(&ep->tx_pool, KSOCK_REQ_SEND, 0);
	ksock_pool_init(&ep->rx_pool, KSOCK_REQ_RECV, 0);
	ksock_pool_init(&ep->trx_pool, KSOCK_REQ_TRECV, 1);
	ksock_pool_init(&ep->rsp_pool, KSOCK_REQ_READ_RSP, KSOCK_RSP_SIZE);
	kofi_oplist_init(&ep->ops);
	INIT_WORK(&ep->io_work, ksock_ep_work);
	timer_setup(&ep->connect_timer, ksock_connect_timer, 0);
	timer_setup(&ep->idle_timer, ksock_tx_idle_timer, 0);
	ep->ack_sent = sizeof(ep->ack_hdr);
	kofi_fid_init(&ep->ep.fid, FI_CLASS_EP, &ksock_ep_fi_ops, context);
	ep->ep.ops = &ksock_ep_ops;
	ep->ep.cm = &ksock_ep_cm_ops;
	ep->ep.msg = &ksock_msg_ops;
	ep->ep.tagged = &ksock_tagged_ops;
	ep->ep.rma = &ksock_rma_ops;

	if (info->handle) {
		ret = ksock_ep_adopt(ep, info->handle);
		if (ret) {
			ksock_ep_free(ep);
			return ret;
		}
	}
	*fep = &ep->ep;
	return 0;
}
