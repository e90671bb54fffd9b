// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI rds provider: fi_sendmsg()/fi_recvmsg() and the progress work.
 *
 * The data calls only queue: RDS's sendmsg and recvmsg may sleep.  The
 * endpoint's work (process context, krds_wq) hands queued sends to the
 * socket in order and receives into posted buffers in order; it runs when
 * the socket's wait queue is woken (a message arrived, send space was
 * freed), when a call queued something, and, while the socket refuses a
 * send for back-pressure (EAGAIN: send space; ENOBUFS: the destination
 * port is congested), again after KRDS_RETRY_MS.  A refused send stays at
 * the head of the queue: nothing is lost, and the caller sees -EAGAIN once
 * the queue (tx_attr->size) is full.  A message with no posted receive
 * stays in the socket, where RDS's congestion control holds the sender
 * back.  A send completes when the socket has taken the message.
 * Completions are written by the work, with no lock held.
 */
#include <linux/scatterlist.h>
#include <linux/socket.h>
#include "krds.h"

static struct krds_req *krds_req_get(struct krds_ep *ep,
				     struct list_head *free)
{
	struct krds_req *req = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (ep->state == KRDS_EP_ENABLED)
		req = list_first_entry_or_null(free, struct krds_req, node);
	if (req)
		list_del_init(&req->node);
	spin_unlock_irqrestore(&ep->lock, flags);
	return req;
}

static void krds_req_put(struct krds_ep *ep, struct krds_req *req,
			 struct list_head *free)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	list_add(&req->node, free);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/* Queue @req on @queue as an outstanding operation and run the work. */
static void krds_req_post(struct krds_ep *ep, struct krds_req *req,
			  struct list_head *queue)
{
	unsigned long flags;

	kofi_oplist_add(&ep->ops, &req->op);
	spin_lock_irqsave(&ep->lock, flags);
	list_add_tail(&req->node, queue);
	spin_unlock_irqrestore(&ep->lock, flags);
	krds_ep_kick(ep);
}

/* Copy the caller's vector into @req: kvecs and bvecs as they are,
 * a scatterlist as bvecs.
 */
static int krds_req_vec(struct krds_req *req, const struct fi_msg *msg)
{
	struct scatterlist *sg = msg->msg_sg;
	size_t i, len = 0;

	if (msg->iov_count > KRDS_IOV_LIMIT)
		return -EINVAL;
	req->count = msg->iov_count;
	switch (msg->iov_type) {
	case FI_IOV_KVEC:
		req->type = FI_IOV_KVEC;
		for (i = 0; i < req->count; i++) {
			req->vec.kv[i] = msg->msg_iov[i];
			len += req->vec.kv[i].iov_len;
		}
		break;
	case FI_IOV_BVEC:
		req->type = FI_IOV_BVEC;
		for (i = 0; i < req->count; i++) {
			req->vec.bv[i] = msg->msg_bvec[i];
			len += req->vec.bv[i].bv_len;
		}
		break;
	case FI_IOV_SG:
		req->type = FI_IOV_BVEC;
		for (i = 0; i < req->count && sg; i++, sg = sg_next(sg)) {
			req->vec.bv[i].bv_page = sg_page(sg);
			req->vec.bv[i].bv_offset = sg->offset;
			req->vec.bv[i].bv_len = sg->length;
			len += sg->length;
		}
		if (i != req->count)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	req->len = len;
	return 0;
}

static void krds_req_iter(struct krds_req *req, unsigned int dir,
			  struct iov_iter *it)
{
	if (req->type == FI_IOV_BVEC)
		iov_iter_bvec(it, dir, req->vec.bv, req->count, req->len);
	else
		iov_iter_kvec(it, dir, req->vec.kv, req->count, req->len);
}

static int krds_req_inject(struct krds_req *req, const struct fi_msg *msg)
{
	if (msg->iov_type != FI_IOV_KVEC)
		return -EINVAL;
	if (msg->iov_count > 1 ||
	    (msg->iov_count && msg->msg_iov[0].iov_len > KRDS_INJECT_SIZE))
		return -EMSGSIZE;
	req->len = msg->iov_count ? msg->msg_iov[0].iov_len : 0;
	if (req->len)
		memcpy(req->inject, msg->msg_iov[0].iov_base, req->len);
	req->type = FI_IOV_KVEC;
	req->count = 1;
	req->vec.kv[0].iov_base = req->inject;
	req->vec.kv[0].iov_len = req->len;
	return 0;
}

static ssize_t krds_sendmsg(struct fid_ep *fep, const struct fi_msg *msg,
			    u64 flags)
{
	struct krds_ep *ep = container_of(fep, struct krds_ep, ep);
	struct sockaddr_storage ss;
	struct krds_req *req;
	int ret;

	if (flags & (FI_REMOTE_CQ_DATA | FI_DELIVERY_COMPLETE))
		return -FI_ENOSYS;
	req = krds_req_get(ep, &ep->tx_free);
	if (!req)
		return ep->state == KRDS_EP_ENABLED ? -EAGAIN : -EINVAL;
	ret = kofi_av_lookup_addr(kofi_ep_av(&ep->ep), msg->addr, &ss);
	if (ret >= 0 && ss.ss_family != AF_INET)
		ret = -EINVAL;
	if (ret < 0)
		goto err;
	memcpy(&req->dest, &ss, sizeof(req->dest));
	if (flags & FI_INJECT)
		ret = krds_req_inject(req, msg);
	else
		ret = krds_req_vec(req, msg);
	if (ret)
		goto err;
	if (req->len > KRDS_MAX_MSG_SIZE) {
		ret = -EMSGSIZE;
		goto err;
	}
	req->op.cq = (flags & FI_INJECT) ? NULL :
		     kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL);
	req->op.context = msg->context;
	req->op.flags = FI_SEND | FI_MSG;
	krds_req_post(ep, req, &ep->tx_queue);
	return 0;
err:
	krds_req_put(ep, req, &ep->tx_free);
	return ret;
}

static ssize_t krds_recvmsg(struct fid_ep *fep, const struct fi_msg *msg,
			    u64 flags)
{
	struct krds_ep *ep = container_of(fep, struct krds_ep, ep);
	struct krds_req *req;
	int ret;

	if (flags & (FI_MULTI_RECV | FI_PEEK))
		return -FI_ENOSYS;
	req = krds_req_get(ep, &ep->rx_free);
	if (!req)
		return ep->state == KRDS_EP_ENABLED ? -EAGAIN : -EINVAL;
	ret = krds_req_vec(req, msg);
	if (ret) {
		krds_req_put(ep, req, &ep->rx_free);
		return ret;
	}
	req->op.cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);
	req->op.context = msg->context;
	req->op.flags = FI_RECV | FI_MSG;
	krds_req_post(ep, req, &ep->rx_queue);
	return 0;
}

const struct fi_ops_msg krds_msg_ops = {
	.recvmsg = krds_recvmsg,
	.sendmsg = krds_sendmsg,
};

/* ---- progress ---- */

static struct krds_req *krds_queue_head(struct krds_ep *ep,
					struct list_head *queue)
{
	struct krds_req *req;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	req = list_first_entry_or_null(queue, struct krds_req, node);
	if (req)
		list_del_init(&req->node);
	spin_unlock_irqrestore(&ep->lock, flags);
	return req;
}

static void krds_queue_push_back(struct krds_ep *ep, struct krds_req *req,
				 struct list_head *queue)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	list_add(&req->node, queue);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/*
 * Complete @req and free it.  The request goes back to its free list
 * before the completion is written, so that a callback CQ's done() may
 * post again at once.
 */
static void krds_req_done(struct krds_ep *ep, struct krds_req *req,
			  struct list_head *free, int err, size_t len,
			  size_t olen, fi_addr_t src)
{
	struct kofi_op op = req->op;

	if (!kofi_oplist_del(&ep->ops, &req->op))
		return;
	krds_req_put(ep, req, free);
	if (!op.cq)
		return;
	if (err)
		kofi_cq_write_err(op.cq, op.context, op.flags, err, 0, len,
				  olen);
	else if (op.flags & FI_RECV)
		kofi_cq_write_src(op.cq, op.context, op.flags, len, NULL, 0,
				  src);
	else
		kofi_cq_write(op.cq, op.context, op.flags, len, NULL, 0);
}

/* Hand queued sends to the socket.  Return: true if back-pressure
 * stopped it with sends left.
 */
static bool krds_tx_progress(struct krds_ep *ep)
{
	struct krds_req *req;
	int ret;

	while ((req = krds_queue_head(ep, &ep->tx_queue))) {
		struct msghdr msg = {
			.msg_name = &req->dest,
			.msg_namelen = sizeof(req->dest),
			/* RDS refuses any other flag (EOPNOTSUPP) */
			.msg_flags = MSG_DONTWAIT,
		};

		krds_req_iter(req, ITER_SOURCE, &msg.msg_iter);
		ret = sock_sendmsg(ep->sock, &msg);
		if (ret == -EAGAIN || ret == -ENOBUFS) {
			krds_queue_push_back(ep, req, &ep->tx_queue);
			return true;
		}
		if (ret < 0)
			krds_req_done(ep, req, &ep->tx_free, -ret, 0, 0, 0);
		else
			krds_req_done(ep, req, &ep->tx_free, 0, req->len, 0, 0);
	}
	return false;
}

/* Receive waiting messages into posted buffers. */
static void krds_rx_progress(struct krds_ep *ep)
{
	struct krds_req *req;
	fi_addr_t src;
	int ret;

	while ((req = krds_queue_head(ep, &ep->rx_queue))) {
		struct sockaddr_storage ss = {};
		struct msghdr msg = {
			.msg_name = &ss,
			.msg_namelen = sizeof(ss),
		};

		krds_req_iter(req, ITER_DEST, &msg.msg_iter);
		/* MSG_TRUNC: the whole message's length, even if cut */
		ret = sock_recvmsg(ep->sock, &msg, MSG_DONTWAIT | MSG_TRUNC);
		if (ret == -EAGAIN || ret == -EINTR) {
			krds_queue_push_back(ep, req, &ep->rx_queue);
			return;
		}
		if (ret < 0) {
			krds_req_done(ep, req, &ep->rx_free, -ret, 0, 0, 0);
			continue;
		}
		if (ret > req->len) {
			krds_req_done(ep, req, &ep->rx_free, EMSGSIZE,
				      req->len, ret - req->len, 0);
			continue;
		}
		kofi_av_lookup_fi_addr(kofi_ep_av(&ep->ep), (struct sockaddr *)&ss,
				       msg.msg_namelen, &src);
		krds_req_done(ep, req, &ep->rx_free, 0, ret, 0, src);
	}
}

/**
 * krds_ep_work() - the endpoint's progress: sends, then receives
 * @work: &krds_ep.work
 *
 * Context: process context (krds_wq); sleeps in the socket calls.
 */
void krds_ep_work(struct work_struct *work)
{
	struct krds_ep *ep = container_of(to_delayed_work(work),
					  struct krds_ep, work);

	if (READ_ONCE(ep->state) != KRDS_EP_ENABLED)
		return;
	if (krds_tx_progress(ep))
		queue_delayed_work(krds_wq, &ep->work,
				   msecs_to_jiffies(KRDS_RETRY_MS));
	krds_rx_progress(ep);
}
