// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: connection management - passive endpoints, connection
 * requests, connect/accept/shutdown, and the translation of the core EQ's
 * events into the user's EQ.
 *
 * The rsockets connection data travels as the core's CM data (raw, where
 * the core offers FI_OPT_CM_DATA_RAW); a request whose data is not
 * rsockets v1 is rejected and never reaches the user.
 */
#include <linux/slab.h>
#include <linux/net.h>
#include <linux/socket.h>
#include "kstream.h"

struct kstream_cm_ent {
	struct fi_eq_cm_entry e;
	u8 data[FI_CM_DATA_MAX];
};

static int kstream_connreq_close(struct fid *fid)
{
	kstream_connreq_free(container_of(fid, struct kstream_connreq, fid));
	return 0;
}

static const struct fi_ops kstream_connreq_fi_ops = {
	.close = kstream_connreq_close,
};

/**
 * kstream_is_connreq() - is @fid the handle of a kstream FI_CONNREQ?
 * @fid: a handle
 *
 * Context: any context.
 * Return: true if it is.
 */
bool kstream_is_connreq(struct fid *fid)
{
	return fid && fid->fclass == FI_CLASS_CONNREQ &&
	       fid->ops == &kstream_connreq_fi_ops;
}

/**
 * kstream_connreq_free() - release a request: the core's is closed too
 * @creq: the request
 *
 * Context: process context, may sleep.
 */
void kstream_connreq_free(struct kstream_connreq *creq)
{
	if (creq->core_info) {
		if (creq->core_info->handle)
			fi_close(creq->core_info->handle);
		creq->core_info->handle = NULL;
		fi_freeinfo(creq->core_info);
	}
	kfree(creq);
}

/* ---- passive endpoints ---- */

static void kstream_pep_reject_core(struct kstream_pep *kp,
				    struct fi_info *core_info)
{
	if (core_info->handle)
		fi_reject(kp->core, core_info->handle, NULL, 0);
	core_info->handle = NULL;
	fi_freeinfo(core_info);
}

static void kstream_pep_connreq(struct kstream_pep *kp,
				struct fi_info *core_info, const void *data,
				ssize_t len)
{
	struct kstream_conn_data c;
	struct kstream_connreq *creq;
	struct fi_info *info;

	if (!kp->eq || len < 0 || kstream_conn_unpack(data, len, &c)) {
		kstream_pep_reject_core(kp, core_info);
		return;
	}
	creq = kzalloc(sizeof(*creq), GFP_KERNEL);
	info = kstream_info_from_core(core_info);
	if (!creq || !info) {
		kfree(creq);
		fi_freeinfo(info);
		kstream_pep_reject_core(kp, core_info);
		return;
	}
	kofi_fid_init(&creq->fid, FI_CLASS_CONNREQ, &kstream_connreq_fi_ops,
		      NULL);
	creq->core_info = core_info;
	creq->peer_len = min_t(size_t, len, sizeof(creq->peer));
	memcpy(creq->peer, data, creq->peer_len);
	info->handle = &creq->fid;
	if (kofi_eq_write_cm(kp->eq, FI_CONNREQ, &kp->pep.fid, info, NULL,
			     0)) {
		info->handle = NULL;
		fi_freeinfo(info);
		creq->core_info = NULL;
		kfree(creq);
		kstream_pep_reject_core(kp, core_info);
	}
}

static void kstream_pep_work(struct work_struct *work)
{
	struct kstream_pep *kp = container_of(work, struct kstream_pep, work);
	struct fi_eq_err_entry err;
	struct kstream_cm_ent *ent;
	u32 event;
	ssize_t n;

	ent = kmalloc(sizeof(*ent), GFP_KERNEL);
	if (!ent) {
		queue_work(kstream_wq, &kp->work);
		return;
	}
	while (!READ_ONCE(kp->closing)) {
		n = fi_eq_read(kp->core_eq, &event, ent, sizeof(*ent), 0);
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (fi_eq_readerr(kp->core_eq, &err, 0) < 0)
				break;
			if (kp->eq)
				kofi_eq_write_err(kp->eq, &kp->pep.fid,
						  kp->pep.fid.context,
						  err.err ? err.err : EIO,
						  err.prov_errno, NULL, 0);
			continue;
		}
		if (n < 0)
			break;
		if (event == FI_CONNREQ && ent->e.info)
			kstream_pep_connreq(kp, ent->e.info, ent->data,
					    n - (ssize_t)sizeof(ent->e));
		else if (ent->e.info)
			fi_freeinfo(ent->e.info);
	}
	kfree(ent);
}

static void kstream_pep_eq_handler(struct fid_eq *eq, void *context)
{
	struct kstream_pep *kp = context;

	queue_work(kstream_wq, &kp->work);
}

static int kstream_pep_close(struct fid *fid)
{
	struct kstream_pep *kp = container_of(fid, struct kstream_pep, pep.fid);
	int ret;

	WRITE_ONCE(kp->closing, true);
	cancel_work_sync(&kp->work);
	ret = fi_close(&kp->core->fid);
	if (ret) {
		WRITE_ONCE(kp->closing, false);
		return ret;
	}
	cancel_work_sync(&kp->work);
	/* Unread requests are rejected by the EQ's close. */
	fi_close(&kp->core_eq->fid);
	kfree(kp);
	return 0;
}

static int kstream_pep_bind(struct fid *fid, struct fid *bfid, u64 flags)
{
	struct kstream_pep *kp = container_of(fid, struct kstream_pep, pep.fid);

	if (bfid->fclass != FI_CLASS_EQ)
		return -EINVAL;
	if (kp->eq)
		return -EBUSY;
	kp->eq = container_of(bfid, struct fid_eq, fid);
	return 0;
}

static int kstream_pep_control(struct fid *fid, int command, void *arg)
{
	struct kstream_pep *kp = container_of(fid, struct kstream_pep, pep.fid);

	return fi_control(&kp->core->fid, command, arg);
}

static int kstream_pep_listen(struct fid_pep *pep)
{
	struct kstream_pep *kp = container_of(pep, struct kstream_pep, pep);

	if (!kp->eq)
		return -EINVAL;
	return fi_listen(kp->core);
}

static int kstream_pep_getname(struct fid *fid, void *addr, size_t *addrlen)
{
	struct kstream_pep *kp = container_of(fid, struct kstream_pep, pep.fid);

	return fi_getname(&kp->core->fid, addr, addrlen);
}

static int kstream_pep_reject(struct fid_pep *pep, struct fid *handle,
			      const void *param, size_t paramlen)
{
	struct kstream_pep *kp = container_of(pep, struct kstream_pep, pep);
	struct kstream_connreq *creq;
	int ret = -EINVAL;

	if (!kstream_is_connreq(handle))
		return -EINVAL;
	creq = container_of(handle, struct kstream_connreq, fid);
	if (creq->core_info && creq->core_info->handle) {
		ret = fi_reject(kp->core, creq->core_info->handle, param,
				paramlen);
		creq->core_info->handle = NULL;
	}
	kstream_connreq_free(creq);
	return ret;
}

static const struct fi_ops kstream_pep_fi_ops = {
	.close = kstream_pep_close,
	.bind = kstream_pep_bind,
	.control = kstream_pep_control,
};

static const struct fi_ops_ep kstream_pep_ops = {
};

static const struct fi_ops_cm kstream_pep_cm_ops = {
	.getname = kstream_pep_getname,
	.listen = kstream_pep_listen,
	.reject = kstream_pep_reject,
};

/**
 * kstream_pep_open() - fi_passive_ep() of kstream
 * @fabric: a kstream fabric
 * @info: a kstream info (src_addr: where to listen)
 * @pep: the new passive endpoint
 * @context: user context
 *
 * Opens the core passive endpoint with a private EQ; its connection
 * requests become kstream FI_CONNREQ events on the EQ bound by the user.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL; -ENODATA if the core provider is gone; -ENOMEM; the
 * core's error.
 */
int kstream_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_pep **pep, void *context)
{
	struct kstream_fabric *fab = container_of(fabric, struct kstream_fabric,
						  fabric);
	struct fi_eq_attr eq_attr = { .event_handler = kstream_pep_eq_handler };
	struct kstream_pep *kp;
	struct fi_info *core;
	size_t raw = 1;
	int ret;

	ret = kstream_core_info(info, &core);
	if (ret)
		return ret;
	kp = kzalloc(sizeof(*kp), GFP_KERNEL);
	ret = -ENOMEM;
	if (!kp)
		goto out;
	kp->fab = fab;
	INIT_WORK(&kp->work, kstream_pep_work);
	ret = fi_eq_open(fab->core, &eq_attr, &kp->core_eq, kp);
	if (ret)
		goto err_free;
	ret = fi_passive_ep(fab->core, core, &kp->core, kp);
	if (ret)
		goto err_eq;
	ret = fi_pep_bind(kp->core, &kp->core_eq->fid, 0);
	if (ret)
		goto err_pep;
	ret = fi_setopt(&kp->core->fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_RAW,
			&raw, sizeof(raw));
	if (ret && ret != -ENOPROTOOPT && ret != -FI_ENOSYS)
		goto err_pep;
	kofi_fid_init(&kp->pep.fid, FI_CLASS_PEP, &kstream_pep_fi_ops, context);
	kp->pep.ops = &kstream_pep_ops;
	kp->pep.cm = &kstream_pep_cm_ops;
	*pep = &kp->pep;
	fi_freeinfo(core);
	return 0;
err_pep:
	fi_close(&kp->core->fid);
err_eq:
	fi_close(&kp->core_eq->fid);
err_free:
	kfree(kp);
out:
	fi_freeinfo(core);
	return ret;
}

/* ---- active endpoints ---- */

static int kstream_enable_if_idle(struct kstream_ep *kep)
{
	if (kep->state == KSTREAM_IDLE)
		return fi_enable(&kep->ep);
	if (kep->state != KSTREAM_ENABLED)
		return -EISCONN;
	return 0;
}

static int kstream_cm_connect(struct fid_ep *ep, const void *addr,
			      const void *param, size_t paramlen)
{
	struct kstream_ep *kep = kstream_ep(ep);
	u8 buf[KSTREAM_CONN_LEN_EXT];
	size_t len;
	int ret;

	if (paramlen || kep->core_info->handle)
		return -EINVAL;
	ret = kstream_enable_if_idle(kep);
	if (ret)
		return ret;
	len = kstream_ep_conn_data(kep, buf);
	spin_lock_bh(&kep->lock);
	kstream_set_state(kep, KSTREAM_CONNECTING);
	spin_unlock_bh(&kep->lock);
	ret = fi_connect(kep->core_ep, addr, buf, len);
	if (ret) {
		spin_lock_bh(&kep->lock);
		kstream_set_state(kep, KSTREAM_ENABLED);
		spin_unlock_bh(&kep->lock);
	}
	return ret;
}

static int kstream_cm_accept(struct fid_ep *ep, const void *param,
			     size_t paramlen)
{
	struct kstream_ep *kep = kstream_ep(ep);
	u8 buf[KSTREAM_CONN_LEN_EXT];
	size_t len;
	int ret;

	if (paramlen || !kep->peer_len)
		return -EINVAL;
	ret = kstream_enable_if_idle(kep);
	if (ret)
		return ret;
	ret = kstream_ep_set_peer(kep, kep->peer, kep->peer_len);
	if (ret)
		return ret;
	len = kstream_ep_conn_data(kep, buf);
	spin_lock_bh(&kep->lock);
	kstream_set_state(kep, KSTREAM_CONNECTING);
	spin_unlock_bh(&kep->lock);
	ret = fi_accept(kep->core_ep, buf, len);
	if (ret) {
		spin_lock_bh(&kep->lock);
		kstream_set_state(kep, KSTREAM_ENABLED);
		spin_unlock_bh(&kep->lock);
	}
	return ret;
}

/**
 * kstream_ep_shutdown() - shut down one or both directions of a stream
 * @ep: a kstream endpoint
 * @how: SHUT_RD, SHUT_WR or SHUT_RDWR
 *
 * SHUT_RD is local: receives return 0 from now on.  SHUT_WR sends the
 * rsockets SHUTDOWN control message (the peer reads end of stream after
 * our data), SHUT_RDWR sends DISCONNECT, waits (at most a second) for our
 * sends to complete and ends the core connection; the EQ then gets
 * FI_SHUTDOWN.  After the peer's DISCONNECT, SHUT_RDWR first waits (a
 * second at most) for the peer to end the connection, see
 * kstream_wait_peer_close().  fi_shutdown() is SHUT_RDWR.
 *
 * Context: process context, may sleep (SHUT_RDWR).
 * Return: 0; -EINVAL for a bad @how or a non-kstream @ep; -ENOTCONN if
 * the stream was never connected.
 */
int kstream_ep_shutdown(struct fid_ep *ep, int how)
{
	struct kstream_ep *kep;
	bool send = false, rdwr = how == SHUT_RDWR;
	int ret = 0;

	if (!kstream_is_ep(ep) || (how != SHUT_RD && how != SHUT_WR && !rdwr))
		return -EINVAL;
	kep = kstream_ep(ep);
	spin_lock_bh(&kep->lock);
	if (kep->state != KSTREAM_CONNECTED && kep->state != KSTREAM_DOWN) {
		spin_unlock_bh(&kep->lock);
		return -ENOTCONN;
	}
	if (how != SHUT_WR)
		kep->rd_shut = true;
	if (how != SHUT_RD && !kep->wr_shut) {
		kep->wr_shut = true;
		send = kep->state == KSTREAM_CONNECTED && !kep->err &&
		       !kstream_peer_gone(kep->peer_state);
	}
	if (send) {
		ret = kstream_send_ctrl(kep, rdwr ? KSTREAM_CTRL_DISCONNECT :
					KSTREAM_CTRL_SHUTDOWN);
		if (ret == -EAGAIN)
			ret = 0;
		else if (ret)
			kstream_fail(kep, -ret);
	}
	spin_unlock_bh(&kep->lock);
	kstream_wake(kep);
	if (rdwr && kep->core_ep) {
		kstream_wait_tx(kep);
		if (!send)
			kstream_wait_peer_close(kep);
		fi_shutdown(kep->core_ep, 0);
	}
	return 0;
}
EXPORT_SYMBOL_GPL(kstream_ep_shutdown);

static int kstream_cm_shutdown(struct fid_ep *ep, u64 flags)
{
	return kstream_ep_shutdown(ep, SHUT_RDWR);
}

static int kstream_cm_getname(struct fid *fid, void *addr,
			      size_t *addrlen)
{
	struct kstream_ep *kep = container_of(fid, struct kstream_ep, ep.fid);

	if (!kep->core_ep)
		return -ENOTCONN;
	return fi_getname(&kep->core_ep->fid, addr, addrlen);
}

static int kstream_cm_getpeer(struct fid_ep *ep, void *addr,
			      size_t *addrlen)
{
	struct kstream_ep *kep = kstream_ep(ep);

	if (!kep->core_ep)
		return -ENOTCONN;
	return fi_getpeer(kep->core_ep, addr, addrlen);
}

const struct fi_ops_cm kstream_ep_cm_ops = {
	.getname = kstream_cm_getname,
	.getpeer = kstream_cm_getpeer,
	.connect = kstream_cm_connect,
	.accept = kstream_cm_accept,
	.shutdown = kstream_cm_shutdown,
};

/**
 * kstream_cm_error() - the core reported a connection error
 * @kep: the endpoint
 * @err: positive errno (ECONNREFUSED, ETIMEDOUT, ECONNRESET ...)
 *
 * After the peer's DISCONNECT it is no stream error (see
 * kstream_after_disconnect()): FI_SHUTDOWN follows without an error entry.
 *
 * Context: process context (the progress work).
 */
void kstream_cm_error(struct kstream_ep *kep, int err)
{
	bool report;

	spin_lock_bh(&kep->lock);
	report = !kep->err && !kstream_after_disconnect(kep);
	if (report)
		kep->err = err;
	kstream_set_state(kep, KSTREAM_DOWN);
	spin_unlock_bh(&kep->lock);
	if (report)
		kofi_eq_write_err(kep->eq, &kep->ep.fid, kep->ep.fid.context,
				  err, 0, NULL, 0);
	kstream_wake(kep);
}

/**
 * kstream_cm_event() - an event of the core endpoint's EQ
 * @kep: the endpoint
 * @event: FI_CONNECTED or FI_SHUTDOWN (others are ignored)
 * @buf: the event's connection data
 * @len: its bytes (may be negative for none)
 *
 * FI_CONNECTED on the active side carries the peer's connection data; a
 * bad one ends the connection with an EQ error (EOPNOTSUPP for another
 * version, EPROTO otherwise).  FI_SHUTDOWN after the peer's DISCONNECT or
 * our own shutdown is orderly; otherwise the peer vanished and the stream
 * fails with ECONNRESET.
 *
 * Context: process context (the progress work).
 */
void kstream_cm_event(struct kstream_ep *kep, u32 event, const void *buf,
		      ssize_t len)
{
	bool orderly, report;
	int ret, err;

	if (event == FI_CONNECTED) {
		if (!kep->peer_len) {
			ret = kstream_ep_set_peer(kep, buf, len > 0 ? len : 0);
			if (ret) {
				kstream_cm_error(kep, -ret);
				fi_shutdown(kep->core_ep, 0);
				return;
			}
			kep->peer_len = min_t(size_t, len, sizeof(kep->peer));
			memcpy(kep->peer, buf, kep->peer_len);
		}
		kstream_connected(kep);
		kofi_eq_write_cm(kep->eq, FI_CONNECTED, &kep->ep.fid, NULL,
				 NULL, 0);
		kstream_wake(kep);
		return;
	}
	if (event != FI_SHUTDOWN)
		return;
	spin_lock_bh(&kep->lock);
	orderly = kstream_peer_gone(kep->peer_state) ||
		  (kep->wr_shut && kep->rd_shut) || kep->err;
	if (!orderly) {
		kep->err = ECONNRESET;
		kstream_set_peer_state(kep, KSTREAM_PEER_SHUT);
		kep->err_report = true;
	}
	/* An error not reported yet goes before FI_SHUTDOWN. */
	report = kep->err_report;
	kep->err_report = false;
	err = kep->err;
	kstream_set_state(kep, KSTREAM_DOWN);
	spin_unlock_bh(&kep->lock);
	if (report)
		kofi_eq_write_err(kep->eq, &kep->ep.fid, kep->ep.fid.context,
				  err, 0, NULL, 0);
	kofi_eq_write_cm(kep->eq, FI_SHUTDOWN, &kep->ep.fid, NULL, NULL, 0);
	kstream_wake(kep);
}
