// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ksocket provider: RMA.
 *
 * Initiator: fi_write() and friends send an op-4 frame with the remote
 * segments and the data; fi_read() sends an op-2 request and waits for the
 * op-3 response, whose data lands in the caller's buffer.  Both complete on
 * the transmit CQ (FI_RMA | FI_WRITE, FI_RMA | FI_READ).
 *
 * Target: every remote segment is checked through the domain's key table
 * (key, bounds, FI_REMOTE_WRITE / FI_REMOTE_READ) before a byte moves; a
 * refused request ends the connection (see ksock_rx.c).  A write with
 * remote CQ data consumes a posted receive, which completes with
 * FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA.
 */
#include "ksock.h"

/**
 * ksock_rma_target() - check a peer's remote segments and iterate them
 * @ep: the endpoint
 * @rma: the segments, host order
 * @cnt: their number
 * @access: FI_REMOTE_WRITE or FI_REMOTE_READ
 * @ke: on success the referenced key entries, one per segment
 * @iter: on success an iterator per segment over the region's memory
 * @dir: ITER_DEST (write into the region) or ITER_SOURCE (read from it)
 * @total: on success the sum of the segment lengths
 *
 * Context: any context; does not sleep.
 * Return: 0; -ENOKEY, -EACCES or -ERANGE from the key table (nothing
 * referenced then).
 */
int ksock_rma_target(struct ksock_ep *ep, const struct ksock_rma_iov *rma,
		     unsigned int cnt, u64 access, struct kofi_key_entry **ke,
		     struct iov_iter *iter, unsigned int dir, u64 *total)
{
	struct kofi_key_entry *e;
	unsigned int i;

	*total = 0;
	for (i = 0; i < cnt; i++) {
		e = kofi_keytable_get(&ep->dom->kt, rma[i].key, rma[i].addr,
				      rma[i].len, access);
		if (IS_ERR(e)) {
			while (i--) {
				kofi_key_entry_put(ke[i]);
				ke[i] = NULL;
			}
			return PTR_ERR(e);
		}
		ke[i] = e;
		kofi_sw_mr_iter(e, &iter[i], dir, rma[i].addr, rma[i].len);
		*total += rma[i].len;
	}
	return 0;
}

static ssize_t ksock_rma_common(struct ksock_ep *ep, bool read,
				enum fi_iov_type type, const void *vec,
				size_t count, const struct fi_rma_iov *rma,
				size_t rma_cnt, u64 data, u64 flags,
				void *context)
{
	struct ksock_req *req;
	unsigned long irqflags;
	bool direct;
	size_t i, rlen = 0;
	u16 wire = 0;
	int ret;

	ksock_ep_data_call(ep);

	if (!rma_cnt || rma_cnt > KSOCK_RMA_IOV_MAX)
		return -EINVAL;
	for (i = 0; i < rma_cnt; i++)
		rlen += rma[i].len;

	spin_lock_irqsave(&ep->lock, irqflags);
	ret = ksock_ep_postable(ep);
	if (ret)
		goto out;
	req = ksock_req_get(ep, &ep->tx_pool);
	ret = -EAGAIN;
	if (!req)
		goto out;
	req->kind = read ? KSOCK_REQ_READ : KSOCK_REQ_WRITE;
	/* fi_readmsg() takes no FI_INJECT: a read's data is not the caller's */
	if (!read && (flags & FI_INJECT)) {
		ret = ksock_req_inject(req, type, vec, count);
		if (ret)
			goto put;
	} else {
		ret = ksock_req_iter(req, read ? ITER_DEST : ITER_SOURCE,
				     type, vec, count);
		if (ret)
			goto put;
		req->user = true;
		req->signal = true;
	}
	ret = -EINVAL;
	if (req->len != rlen)
		goto put;
	req->op.cq = req->user ? kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL) : NULL;
	req->op.context = context;
	req->op.flags = FI_RMA | (read ? FI_READ : FI_WRITE);
	req->data = data;
	if (!read)
		wire = ksock_tx_wire_flags(flags);
	req->need_ack = !!(wire & KSOCK_FLAG_DELIVERY_COMPLETE);
	ksock_tx_build_hdr(ep, req, read ? KSOCK_OP_READ_REQ : KSOCK_OP_WRITE,
			   wire, rma, rma_cnt);
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

static ssize_t ksock_readmsg(struct fid_ep *fep, const struct fi_msg_rma *msg,
			     u64 flags)
{
	return ksock_rma_common(ksock_ep(fep), true, msg->iov_type,
				msg->msg_iov, msg->iov_count, msg->rma_iov,
				msg->rma_iov_count, 0, flags & ~FI_INJECT,
				msg->context);
}

static ssize_t ksock_writemsg(struct fid_ep *fep,
			      const struct fi_msg_rma *msg, u64 flags)
{
	return ksock_rma_common(ksock_ep(fep), false, msg->iov_type,
				msg->msg_iov, msg->iov_count, msg->rma_iov,
				msg->rma_iov_count, msg->data, flags,
				msg->context);
}

const struct fi_ops_rma ksock_rma_ops = {
	.readmsg = ksock_readmsg,
	.writemsg = ksock_writemsg,
};
