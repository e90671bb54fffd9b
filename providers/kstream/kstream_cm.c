// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: connection management - connect/accept/shutdown, and the
 * translation of the core EQ's events into the user's EQ.  Passive
 * endpoints and connection requests are the utility ones of
 * <kofi/util.h>.
 *
 * The rsockets connection data travels as the core's CM data (raw, where
 * the core offers FI_OPT_CM_DATA_RAW); a request whose data is not
 * rsockets v1 is rejected (kstream_util.connreq) and never reaches the
 * user.
 */
#include <linux/net.h>
#include <linux/socket.h>
#include "kstream.h"

/**
 * kstream_pep_open() - fi_passive_ep() of kstream
 * @fabric: a kstream fabric
 * @info: a kstream info (src_addr: where to listen)
 * @pep: the new passive endpoint
 * @context: user context
 *
 * A utility passive endpoint whose core passive endpoint passes the
 * connection data raw, where the core offers FI_OPT_CM_DATA_RAW.
 *
 * Context: process context, may sleep.
 * Return: 0, or the error of kofi_util_pep_open() or of the core.
 */
int kstream_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_pep **pep, void *context)
{
	struct kofi_util_pep *up;
	size_t raw = 1;
	int ret;

	ret = kofi_util_pep_open(fabric, info, pep, context);
	if (ret)
		return ret;
	up = container_of(*pep, struct kofi_util_pep, pep);
	ret = fi_setopt(&up->core->fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_RAW,
			&raw, sizeof(raw));
	if (ret && ret != -ENOPROTOOPT && ret != -FI_ENOSYS) {
		fi_close(&(*pep)->fid);
		return ret;
	}
	return 0;
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
	kep->active = true;
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
		kofi_eq_write_err(kofi_ep_eq(&kep->ep), &kep->ep.fid, kep->ep.fid.context,
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
		kofi_eq_write_cm(kofi_ep_eq(&kep->ep), FI_CONNECTED, &kep->ep.fid, NULL,
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
		kofi_eq_write_err(kofi_ep_eq(&kep->ep), &kep->ep.fid, kep->ep.fid.context,
				  err, 0, NULL, 0);
	kofi_eq_write_cm(kofi_ep_eq(&kep->ep), FI_SHUTDOWN, &kep->ep.fid, NULL,
			 NULL, 0);
	kstream_wake(kep);
}
