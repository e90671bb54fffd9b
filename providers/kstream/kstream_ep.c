// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: stream endpoints - open, settings, enable (the core objects
 * and the rings), close.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include "kstream.h"

static const struct fi_ops kstream_ep_fi_ops;

/**
 * kstream_is_ep() - is @ep a kstream endpoint?
 * @ep: an endpoint, or NULL
 *
 * Context: any context.
 * Return: true for an endpoint opened by kstream.
 */
bool kstream_is_ep(struct fid_ep *ep)
{
	return ep && ep->fid.fclass == FI_CLASS_EP &&
	       ep->fid.ops == &kstream_ep_fi_ops;
}

static u64 kstream_local_addr(struct kstream_ep *kep, const void *base,
			      const void *p)
{
	if (kep->virt)
		return (u64)(uintptr_t)p;
	return (u64)((const u8 *)p - (const u8 *)base);
}

/**
 * kstream_ep_conn_data() - our connection data
 * @kep: an enabled endpoint
 * @buf: KSTREAM_CONN_LEN_EXT bytes
 *
 * Context: any context.
 * Return: bytes to send as CM data.
 */
size_t kstream_ep_conn_data(struct kstream_ep *kep, void *buf)
{
	struct kstream_conn_data c = {
		.version = KSTREAM_PROTO_VERSION,
		.flags = KSTREAM_CONN_FLAG_IOMAP |
			 (kstream_host_is_net() ? KSTREAM_CONN_FLAG_NET : 0),
		.credits = kep->rq_size,
		.iomap_size = kep->iomap_size,
		.target_sgl_addr = kstream_local_addr(kep, kep->tsgl, kep->tsgl),
		.target_sgl_key = fi_mr_key(kep->tmr),
		.target_sgl_length = KSTREAM_SGL_SIZE,
	};
	u64 rkey = fi_mr_key(kep->rmr);

	c.data_buf.addr = kstream_local_addr(kep, kep->rbuf, kep->rbuf);
	c.data_buf.key = lower_32_bits(rkey);
	c.data_buf.length = kep->rbuf_size / 2;
	c.data_buf_key_hi = rkey & ~0xffffffffULL;
	return kstream_conn_pack(&c, buf, kep->wide_keys);
}

/**
 * kstream_ep_set_peer() - take the peer's connection data
 * @kep: an enabled endpoint, not yet connected
 * @data: the data
 * @len: its bytes
 *
 * Context: any context (takes the endpoint lock).
 * Return: 0, or the error of kstream_conn_unpack().
 */
int kstream_ep_set_peer(struct kstream_ep *kep, const void *data, size_t len)
{
	struct kstream_conn_data c;
	int ret;

	ret = kstream_conn_unpack(data, len, &c);
	if (ret)
		return ret;
	if (!kep->wide_keys) {
		c.target_sgl_key &= 0xffffffffULL;
		c.data_buf_key_hi = 0;
	}
	spin_lock_bh(&kep->lock);
	kep->remote_sgl.addr = c.target_sgl_addr;
	kep->remote_sgl.length = c.target_sgl_length;
	kep->remote_sgl_key = c.target_sgl_key;
	kep->remote_sge = 1;
	kep->data_key_hi = c.data_buf_key_hi;
	kep->liomap_size = c.iomap_size;
	/*
	 * Entry 1 is left alone: the peer's first ring update may have been
	 * processed before the connection event that brought this data.
	 */
	kep->target[0] = c.data_buf;
	kep->peer_net = !!(c.flags & KSTREAM_CONN_FLAG_NET);
	kep->swap_sgl = kep->peer_net != kstream_host_is_net();
	spin_unlock_bh(&kep->lock);
	return 0;
}

/* Stop progress and release every core object; process context. */
static void kstream_release_core(struct kstream_ep *kep)
{
	spin_lock_bh(&kep->lock);
	WARN_ON_ONCE(!kstream_set_state(kep, KSTREAM_CLOSING));
	spin_unlock_bh(&kep->lock);
	cancel_delayed_work_sync(&kep->keepalive);
	cancel_work_sync(&kep->work);
	/* A waiting caller taking completions sees CLOSING from now on. */
	mutex_lock(&kep->poll_mutex);
	mutex_unlock(&kep->poll_mutex);
	if (kep->core_ep)
		kofi_util_close_core(&kep->core_ep->fid);
	kep->core_ep = NULL;
	/* Closing the core endpoint may have written completions. */
	cancel_work_sync(&kep->work);
	if (kep->smr)
		kofi_util_close_core(&kep->smr->fid);
	if (kep->rmr)
		kofi_util_close_core(&kep->rmr->fid);
	if (kep->tmr)
		kofi_util_close_core(&kep->tmr->fid);
	/* Closing the core endpoint completed what it had: no done() now. */
	kstream_reqs_release(kep);
	if (kep->tx_cq)
		kofi_util_close_core(&kep->tx_cq->fid);
	if (kep->rx_cq)
		kofi_util_close_core(&kep->rx_cq->fid);
	if (kep->core_eq)
		kofi_util_close_core(&kep->core_eq->fid);
	kep->smr = NULL;
	kep->rmr = NULL;
	kep->tmr = NULL;
	kep->tx_cq = NULL;
	kep->rx_cq = NULL;
	kep->core_eq = NULL;
	kvfree(kep->sbuf);
	kvfree(kep->rbuf);
	kstream_iomap_release(kep);
	kvfree(kep->tsgl);
	kfree(kep->rmsg);
	kep->sbuf = NULL;
	kep->rbuf = NULL;
	kep->tsgl = NULL;
	kep->rmsg = NULL;
}

/* Bytes of rbuf: the ring, and the receives' buffers in KSTREAM_MSG_SEND. */
static size_t kstream_rbuf_alloc(struct kstream_ep *kep)
{
	size_t n = kep->rbuf_size;

	if (kep->mode == KSTREAM_MSG_SEND)
		n += (size_t)kep->rq_size * KSTREAM_MSG_SIZE;
	return n;
}

static int kstream_open_core(struct kstream_ep *kep)
{
	struct kofi_util_domain *dom = kep->dom;
	struct fi_info *ci = kep->core_info;
	size_t raw = 1;
	int ret;

	ret = kofi_util_core_eq_open(dom->fab->core, 16, &kep->progress,
				     &kep->core_eq);
	if (ret)
		return ret;
	ret = kofi_util_core_cq_open(dom->core, 0, &kep->tx_cq, kep);
	if (ret)
		return ret;
	ret = kofi_util_core_cq_open(dom->core, 0, &kep->rx_cq, kep);
	if (ret)
		return ret;
	ci->tx_attr->size = kep->sq_size * kstream_wr_per_req(kep->mode);
	ci->rx_attr->size = kep->rq_size;
	ret = fi_endpoint(dom->core, ci, &kep->core_ep, kep);
	if (ret)
		return ret;
	/* The request handle, if any, now belongs to the core endpoint. */
	ci->handle = NULL;
	ret = fi_ep_bind(kep->core_ep, &kep->core_eq->fid, 0);
	if (!ret)
		ret = fi_ep_bind(kep->core_ep, &kep->tx_cq->fid, FI_SEND);
	if (!ret)
		ret = fi_ep_bind(kep->core_ep, &kep->rx_cq->fid, FI_RECV);
	if (ret)
		return ret;
	ret = fi_setopt(&kep->core_ep->fid, FI_OPT_ENDPOINT,
			FI_OPT_CM_DATA_RAW, &raw, sizeof(raw));
	if (ret && ret != -ENOPROTOOPT && ret != -FI_ENOSYS)
		return ret;
	ret = fi_enable(kep->core_ep);
	if (ret)
		return ret;
	ret = fi_mr_reg(dom->core, kep->sbuf, kep->sbuf_size +
			KSTREAM_CTRL_SLOTS * sizeof(struct kstream_sge),
			FI_SEND | FI_WRITE, 0, 0, 0, &kep->smr, NULL);
	if (ret)
		return ret;
	ret = fi_mr_reg(dom->core, kep->rbuf, kstream_rbuf_alloc(kep),
			FI_RECV | FI_REMOTE_WRITE, 0, 0, 0, &kep->rmr, NULL);
	if (ret)
		return ret;
	return fi_mr_reg(dom->core, kep->tsgl,
			 KSTREAM_SGL_SIZE * sizeof(struct kstream_sge) +
			 kep->iomap_size * kep->iomap_stride,
			 FI_RECV | FI_REMOTE_WRITE, 0, 0, 0, &kep->tmr, NULL);
}

static int kstream_ep_enable(struct fid_ep *fep)
{
	struct kstream_ep *kep = container_of(fep, struct kstream_ep, ep);
	struct fi_info *ci = kep->core_info;
	int ret;

	if (kep->state != KSTREAM_IDLE)
		return kep->state == KSTREAM_ENABLED ? 0 : -EISCONN;
	if (!kofi_ep_eq(&kep->ep))
		return -ENOTCONN;
	ret = kstream_core_mode(ci);
	if (ret < 0)
		return ret;
	kep->mode = ret;
	kep->sbuf_size = kep->opts.sbuf_size & ~63UL;
	kep->rbuf_size = kep->opts.rbuf_size & ~63UL;
	kep->sq_size = kep->opts.sq_size;
	/* A request may take more than one operation of the core's queue. */
	if (ci->tx_attr->size)
		kep->sq_size = min_t(size_t, kep->sq_size, ci->tx_attr->size /
				     kstream_wr_per_req(kep->mode));
	kep->rq_size = kep->opts.rq_size;
	if (ci->rx_attr->size)
		kep->rq_size = min_t(size_t, kep->rq_size, ci->rx_attr->size);
	if (kep->sq_size <= KSTREAM_CTRL_SLOTS || kep->rq_size < 2)
		return -ENOSPC;
	kep->virt = !!(kep->dom->core_attr.mr_mode & FI_MR_VIRT_ADDR);
	kep->wide_keys = kep->dom->core_attr.mr_key_size > sizeof(u32);
	kep->rmsg_size = kep->rq_size + KSTREAM_CTRL_SLOTS + 1;

	ret = -ENOMEM;
	kep->sbuf = kvzalloc(kep->sbuf_size + KSTREAM_CTRL_SLOTS *
			     sizeof(struct kstream_sge), GFP_KERNEL);
	kep->rbuf = kvzalloc(kstream_rbuf_alloc(kep), GFP_KERNEL);
	kep->rmsg = kcalloc(kep->rmsg_size, sizeof(*kep->rmsg), GFP_KERNEL);
	if (!kep->sbuf || !kep->rbuf || !kep->rmsg || kstream_iomap_init(kep) ||
	    kstream_reqs_init(kep))
		goto err;
	ret = kstream_open_core(kep);
	if (ret)
		goto err;

	spin_lock_bh(&kep->lock);
	kep->sbuf_head = (struct kstream_curs){};
	kep->sbuf_tail = kep->sbuf_head;
	kep->sbuf_avail = kep->sbuf_size;
	kep->sqe_avail = kep->sq_size - KSTREAM_CTRL_SLOTS;
	kep->tx_olen = KSTREAM_CHUNK_START;
	kep->ctrl_seqno = 0;
	kep->ctrl_max_seqno = KSTREAM_CTRL_SLOTS;
	kep->rbuf_off = (struct kstream_curs){};
	kep->rbuf_free_off = (struct kstream_curs){ .count = kep->rbuf_size / 2 };
	kep->rmsg_head = (struct kstream_curs){};
	kep->rbuf_avail = kep->rbuf_size / 2;
	kep->rbuf_adv = kep->rbuf_size / 2;
	kep->rseq_comp = kep->rq_size / 2;
	kep->remote_sge = 1;
	kep->next_update = 1;
	kep->ctrl_pending = -1;
	kep->peer_heard = kep->mode == KSTREAM_MSG_IMM;
	kep->hello_sent = false;
	kep->hello_again = KSTREAM_HELLO_AGAIN;
	kstream_set_state(kep, KSTREAM_ENABLED);
	spin_unlock_bh(&kep->lock);
	kstream_post_recvs(kep);
	return 0;
err:
	kstream_release_core(kep);
	spin_lock_bh(&kep->lock);
	kstream_set_state(kep, KSTREAM_IDLE);
	spin_unlock_bh(&kep->lock);
	return ret;
}

static int kstream_ep_bind(struct fid *fid, struct fid *bfid, u64 flags)
{
	/* Completions come through the stream calls: only an EQ binds. */
	return bfid->fclass == FI_CLASS_EQ ? 0 : -EINVAL;
}

static int kstream_ep_control(struct fid *fid, int command, void *arg)
{
	struct kstream_ep *kep = container_of(fid, struct kstream_ep, ep.fid);

	switch (command) {
	case FI_GETWAIT:
		if (!arg)
			return -EINVAL;
		*(wait_queue_head_t **)arg = &kep->wq;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static const struct kofi_util_opt kstream_opt_tab[] = {
	KOFI_UTIL_OPT(FI_OPT_SEND_BUF_SIZE, KSTREAM_BUF_MIN, KSTREAM_BUF_MAX,
		      struct kstream_opts, sbuf_size),
	KOFI_UTIL_OPT(FI_OPT_RECV_BUF_SIZE, KSTREAM_BUF_MIN, KSTREAM_BUF_MAX,
		      struct kstream_opts, rbuf_size),
	KOFI_UTIL_OPT(FI_OPT_TX_SIZE, KSTREAM_QSIZE_MIN, KSTREAM_QSIZE_MAX,
		      struct kstream_opts, sq_size),
	KOFI_UTIL_OPT(FI_OPT_RX_SIZE, KSTREAM_QSIZE_MIN, KSTREAM_QSIZE_MAX,
		      struct kstream_opts, rq_size),
	KOFI_UTIL_OPT(FI_OPT_KSTREAM_INLINE, 0, KSTREAM_INLINE_MAX,
		      struct kstream_opts, inline_size),
	KOFI_UTIL_OPT(FI_OPT_KSTREAM_IOMAPSIZE, 0, KSTREAM_IOMAP_MAX,
		      struct kstream_opts, iomap_size),
	KOFI_UTIL_OPT(FI_OPT_KSTREAM_KEEPALIVE, 0, KSTREAM_KEEPALIVE_MAX,
		      struct kstream_opts, keepalive),
	KOFI_UTIL_OPT(FI_OPT_DATA_MAY_SLEEP, 0, SIZE_MAX,
		      struct kstream_opts, may_sleep),
};

static int kstream_ep_setopt(struct fid *fid, int level, int optname,
			     const void *optval, size_t optlen)
{
	struct kstream_ep *kep = container_of(fid, struct kstream_ep, ep.fid);
	struct kstream_opts opts = kep->opts;
	int ret;

	ret = kofi_util_setopt(kstream_opt_tab, ARRAY_SIZE(kstream_opt_tab),
			       &opts, level, optname, optval, optlen);
	if (ret)
		return ret;
	if (kep->state >= KSTREAM_CONNECTING)
		return -EISCONN;
	if (kep->state != KSTREAM_IDLE)
		return -EBUSY;
	kep->opts = opts;
	return 0;
}

static int kstream_ep_getopt(struct fid *fid, int level, int optname,
			     void *optval, size_t *optlen)
{
	struct kstream_ep *kep = container_of(fid, struct kstream_ep, ep.fid);

	return kofi_util_getopt(kstream_opt_tab, ARRAY_SIZE(kstream_opt_tab),
				&kep->opts, level, optname, optval, optlen);
}

/* Nothing of ours left to post or to complete (takes the lock). */
static bool kstream_tx_idle(struct kstream_ep *kep)
{
	bool idle;

	spin_lock_bh(&kep->lock);
	idle = (!kep->tx_out && kep->ctrl_pending < 0) ||
	       kep->state != KSTREAM_CONNECTED;
	if (!idle)
		kstream_tx_waiter(kep);
	spin_unlock_bh(&kep->lock);
	return idle;
}

/**
 * kstream_wait_tx() - wait for our sends to finish
 * @kep: the endpoint
 *
 * Until nothing is outstanding at the core and no control message (a
 * DISCONNECT waiting for a free control slot or for the bytes queued
 * before it) is still to be posted, or the connection is down.  Bytes
 * still queued go as the peer makes room: the wait goes on while a second
 * does not pass without a write, for KSTREAM_LINGER_MAX seconds at most.
 *
 * Context: process context, sleeps; the endpoint lock not held.
 */
void kstream_wait_tx(struct kstream_ep *kep)
{
	unsigned int i;
	u16 seq;

	for (i = 0; i < KSTREAM_LINGER_MAX; i++) {
		seq = READ_ONCE(kep->sseq_no);
		if (wait_event_timeout(kep->wq, kstream_tx_idle(kep), HZ) ||
		    READ_ONCE(kep->sseq_no) == seq)
			return;
	}
}

/**
 * kstream_wait_peer_close() - let the peer close first after its DISCONNECT
 * @kep: the endpoint
 *
 * After the peer's DISCONNECT (and no DISCONNECT of ours), the peer waits
 * for that message's completion before it closes its connection, as
 * rsockets' rshutdown() does.  Ending the core connection at once can take
 * the acknowledgment with it: soft-RoCE does not acknowledge a request it
 * completed after the QP went to error, and a retry count of 7 (rsockets')
 * then retries without end.  So the core connection stays until the peer
 * ends it, for KSTREAM_PEER_CLOSE_WAIT at most.
 *
 * Context: process context, sleeps; the endpoint lock not held.
 */
void kstream_wait_peer_close(struct kstream_ep *kep)
{
	bool wait;

	spin_lock_bh(&kep->lock);
	wait = kstream_peer_gone(kep->peer_state) &&
	       kep->state == KSTREAM_CONNECTED;
	spin_unlock_bh(&kep->lock);
	if (wait)
		wait_event_timeout(kep->wq,
				   READ_ONCE(kep->state) != KSTREAM_CONNECTED,
				   KSTREAM_PEER_CLOSE_WAIT);
}

static int kstream_ep_close(struct fid *fid)
{
	struct kstream_ep *kep = container_of(fid, struct kstream_ep, ep.fid);
	bool bye = false;
	int ret;

	spin_lock_bh(&kep->lock);
	if (kep->state == KSTREAM_CONNECTED && !kep->err &&
	    !kstream_peer_gone(kep->peer_state) && !kep->wr_shut) {
		kep->wr_shut = true;
		kep->rd_shut = true;
		/* -EAGAIN: posted by the progress when a control slot frees */
		ret = kstream_send_ctrl(kep, KSTREAM_CTRL_DISCONNECT);
		bye = !ret || ret == -EAGAIN;
	}
	spin_unlock_bh(&kep->lock);
	if (bye)
		kstream_wait_tx(kep);
	else
		kstream_wait_peer_close(kep);
	kstream_release_core(kep);
	if (kep->core_info) {
		if (kep->core_info->handle)
			fi_close(kep->core_info->handle);
		kep->core_info->handle = NULL;
		fi_freeinfo(kep->core_info);
	}
	mutex_destroy(&kep->iomap_mutex);
	kfree(kep);
	return 0;
}

static const struct fi_ops kstream_ep_fi_ops = {
	.close = kstream_ep_close,
	.bind = kstream_ep_bind,
	.control = kstream_ep_control,
};

/*
 * fi_cancel(): a stream's calls complete before they return, so nothing is
 * ever outstanding to cancel.
 */
static ssize_t kstream_ep_cancel(struct fid *fid, void *context)
{
	return -ENOENT;
}

static const struct fi_ops_ep kstream_ep_ops = {
	.cancel = kstream_ep_cancel,
	.setopt = kstream_ep_setopt,
	.getopt = kstream_ep_getopt,
	.enable = kstream_ep_enable,
};

static size_t kstream_size_or(size_t v, size_t lo, size_t hi, size_t def)
{
	return v >= lo && v <= hi ? v : def;
}

/**
 * kstream_ep_open() - fi_endpoint() of kstream
 * @domain: a kstream domain
 * @info: a kstream info; with the handle of a kstream FI_CONNREQ the
 *	endpoint takes over the request (the handle is consumed on success)
 * @ep: the new endpoint
 * @context: user context
 *
 * The core endpoint is opened by fi_enable(), once the settings are known.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a foreign handle or a non-stream info; -ENODATA
 * if the core provider is gone; -ENOMEM.
 */
int kstream_ep_open(struct fid_domain *domain, struct fi_info *info,
		    struct fid_ep **ep, void *context)
{
	struct kofi_util_domain *dom = container_of(domain,
						    struct kofi_util_domain,
						    domain);
	struct kofi_util_connreq *creq;
	struct kstream_ep *kep;
	int ret;

	if (info->ep_attr && info->ep_attr->type != FI_EP_SOCK_STREAM)
		return -EINVAL;
	if (info->handle && !kofi_util_connreq(&kstream_util, info->handle))
		return -EINVAL;
	kep = kzalloc(sizeof(*kep), GFP_KERNEL);
	if (!kep)
		return -ENOMEM;
	kep->dom = dom;
	kep->opts.rbuf_size = READ_ONCE(kstream_mem_default);
	kep->opts.sbuf_size = READ_ONCE(kstream_wmem_default);
	kep->opts.sq_size = kstream_size_or(info->tx_attr ?
					    info->tx_attr->size : 0,
					    KSTREAM_QSIZE_MIN,
					    KSTREAM_QSIZE_MAX,
					    READ_ONCE(kstream_sqsize_default));
	kep->opts.rq_size = kstream_size_or(info->rx_attr ?
					    info->rx_attr->size : 0,
					    KSTREAM_QSIZE_MIN,
					    KSTREAM_QSIZE_MAX,
					    READ_ONCE(kstream_rqsize_default));
	kep->opts.inline_size = READ_ONCE(kstream_inline_default);
	kep->opts.iomap_size = READ_ONCE(kstream_iomap_size);
	ret = kofi_util_ep_core_info(&kstream_util, info, &kep->core_info,
				     &creq);
	if (ret) {
		kfree(kep);
		return ret;
	}
	spin_lock_init(&kep->lock);
	mutex_init(&kep->iomap_mutex);
	mutex_init(&kep->poll_mutex);
	init_waitqueue_head(&kep->wq);
	INIT_WORK(&kep->work, kstream_progress_work);
	kofi_util_progress_init(&kep->progress, kstream_wq, &kep->work);
	INIT_DELAYED_WORK(&kep->keepalive, kstream_keepalive_work);
	kep->state = KSTREAM_IDLE;
	kep->ctrl_pending = -1;
	if (creq) {
		kep->peer_len = min_t(size_t, creq->datalen, sizeof(kep->peer));
		memcpy(kep->peer, creq->data, kep->peer_len);
		kofi_util_connreq_free(creq);
	}
	kofi_fid_init(&kep->ep.fid, FI_CLASS_EP, &kstream_ep_fi_ops, context);
	kep->ep.ops = &kstream_ep_ops;
	kep->ep.cm = &kstream_ep_cm_ops;
	kep->ep.msg = &kstream_msg_ops;
	*ep = &kep->ep;
	return 0;
}

/**
 * kstream_ep_set_notify() - call @notify after every readiness change
 * @ep: a kstream endpoint
 * @notify: the function (called from the progress work or the caller of a
 *	state change, never with the endpoint lock held), or NULL
 * @arg: its argument
 *
 * For the socket layer; the wait queue of fi_control(FI_GETWAIT) is woken
 * as well.  Set it before fi_enable().
 *
 * Context: process or softirq context.
 */
void kstream_ep_set_notify(struct fid_ep *ep, void (*notify)(void *arg),
			   void *arg)
{
	struct kstream_ep *kep;

	if (!kstream_is_ep(ep))
		return;
	kep = kstream_ep(ep);
	spin_lock_bh(&kep->lock);
	kep->notify = notify;
	kep->notify_arg = arg;
	spin_unlock_bh(&kep->lock);
}
EXPORT_SYMBOL_GPL(kstream_ep_set_notify);

/**
 * kstream_ep_error() - the error that ended a stream
 * @ep: a kstream endpoint
 *
 * Context: any context.
 * Return: 0 while healthy, else the negative errno (-ECONNRESET, -EPROTO,
 * -ETIMEDOUT ...); -EINVAL if @ep is not a kstream endpoint.
 */
int kstream_ep_error(struct fid_ep *ep)
{
	if (!kstream_is_ep(ep))
		return -EINVAL;
	return -READ_ONCE(kstream_ep(ep)->err);
}
EXPORT_SYMBOL_GPL(kstream_ep_error);
