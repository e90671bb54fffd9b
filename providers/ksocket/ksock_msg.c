// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ksocket provider: the message calls.
 *
 * A call takes a request from the endpoint's pool (-EAGAIN when the queue
 * is full, or a request could not be allocated), copies the caller's
 * vector into it and queues it.  A send that
 * finds the socket idle goes to the socket from the caller's context when
 * the ULP promised that the call may sleep (FI_OPT_DATA_MAY_SLEEP for
 * every call on the endpoint, FI_MAY_SLEEP for one; ksock_tx_direct()); a
 * receive the receive engine waits for resumes it there
 * (ksock_rx_resume()); otherwise the endpoint's work does it.  Without
 * the promise the calls may be made from any context and do not sleep;
 * with it they may sleep briefly, for the socket's lock.
 * Sends posted before the connection is established wait for it; receives
 * may be posted at any time after fi_enable().
 *
 * fi_tsendmsg() sends a tagged message as libfabric's tcp does for its
 * rxm: a message (op 0) with the tagged flag and the tag in its header.
 * ksocket matches no tags: the peer's owner does (FI_OPT_TAGGED_RX,
 * ksock_rx.c), so fi_trecvmsg() is not supported.
 */
#include <kofi/match.h>
#include "ksock.h"

/* A send: a tagged frame if @tagged, else a message (@s's tag unused). */
static ssize_t ksock_send_common(struct ksock_ep *ep,
				 const struct fi_msg_tagged *s, bool tagged,
				 u64 flags)
{
	struct ksock_req *req;
	unsigned long irqflags;
	bool direct;
	u16 wire;
	int ret;

	ksock_ep_data_call(ep);

	spin_lock_irqsave(&ep->lock, irqflags);
	ret = ksock_ep_postable(ep);
	if (ret)
		goto out;
	req = ksock_req_get(ep, &ep->tx_pool);
	if (!req) {
		ret = -EAGAIN;
		goto out;
	}
	req->kind = KSOCK_REQ_SEND;
	if (flags & FI_INJECT) {
		ret = ksock_req_inject(req, s->iov_type, s->msg_iov, s->iov_count);
		if (ret)
			goto put;
	} else {
		ret = ksock_req_iter(req, ITER_SOURCE, s->iov_type,
				     s->msg_iov, s->iov_count);
		if (ret)
			goto put;
		req->user = true;
		req->signal = true;
	}
	req->op.cq = req->user ? kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL) : NULL;
	req->op.context = s->context;
	req->op.flags = FI_SEND | (tagged ? FI_TAGGED : FI_MSG);
	req->data = s->data;
	req->tag = tagged ? s->tag : 0;
	wire = ksock_tx_wire_flags(flags);
	if (tagged)
		wire |= KSOCK_FLAG_TAGGED;
	req->need_ack = !!(wire & KSOCK_FLAG_DELIVERY_COMPLETE);
	ksock_tx_build_hdr(ep, req, KSOCK_OP_MSG, wire, NULL, 0);
	direct = ksock_post_tx(ep, req);
	spin_unlock_irqrestore(&ep->lock, irqflags);
	if (direct)
		ksock_tx_direct(ep, flags);
	return 0;
put:
	ksock_req_unget(ep, req);
out:
	spin_unlock_irqrestore(&ep->lock, irqflags);
	return ret;
}

static ssize_t ksock_recv_common(struct ksock_ep *ep, enum fi_iov_type type,
				 const void *vec, size_t count, u64 flags,
				 void *context)
{
	struct ksock_req *req;
	unsigned long irqflags;
	bool resume = false;
	int ret;

	ksock_ep_data_call(ep);

	spin_lock_irqsave(&ep->lock, irqflags);
	ret = ksock_ep_postable(ep);
	if (ret)
		goto out;
	req = ksock_req_get(ep, &ep->rx_pool);
	if (!req) {
		ret = -EAGAIN;
		goto out;
	}
	ret = ksock_req_iter(req, ITER_DEST, type, vec, count);
	if (ret) {
		ksock_req_unget(ep, req);
		goto out;
	}
	req->kind = KSOCK_REQ_RECV;
	req->user = true;
	req->signal = true;
	req->op.cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);
	req->op.context = context;
	req->op.flags = FI_RECV | FI_MSG;
	kofi_oplist_add(&ep->ops, &req->op);
	list_add_tail(&req->node, &ep->rx_queue);
	if (ep->rx_waiting && ep->state == KSOCK_EP_CONNECTED) {
		ep->rx_waiting = false;
		resume = true;
	}
out:
	spin_unlock_irqrestore(&ep->lock, irqflags);
	if (resume)
		ksock_rx_resume(ep, flags);
	return ret;
}

static ssize_t ksock_recvmsg(struct fid_ep *fep, const struct fi_msg *msg,
			     u64 flags)
{
	if (flags & FI_MULTI_RECV)
		return -EINVAL;
	return ksock_recv_common(ksock_ep(fep), msg->iov_type, msg->msg_iov,
				 msg->iov_count, flags, msg->context);
}

static ssize_t ksock_sendmsg(struct fid_ep *fep, const struct fi_msg *msg,
			     u64 flags)
{
	struct fi_msg_tagged t;

	kofi_msg_to_tagged(msg, &t);
	return ksock_send_common(ksock_ep(fep), &t, false, flags);
}

const struct fi_ops_msg ksock_msg_ops = {
	.recvmsg = ksock_recvmsg,
	.sendmsg = ksock_sendmsg,
};

static ssize_t ksock_tsendmsg(struct fid_ep *fep,
			      const struct fi_msg_tagged *msg, u64 flags)
{
	return ksock_send_common(ksock_ep(fep), msg, true, flags);
}

static ssize_t ksock_trecvmsg(struct fid_ep *fep,
			      const struct fi_msg_tagged *msg, u64 flags)
{
	return -FI_ENOSYS;
}

const struct fi_ops_tagged ksock_tagged_ops = {
	.trecvmsg = ksock_trecvmsg,
	.tsendmsg = ksock_tsendmsg,
};
