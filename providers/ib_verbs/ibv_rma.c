// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: RMA reads and writes.
 *
 * fi_read() posts an RDMA READ, fi_write() an RDMA WRITE, fi_writedata()
 * (or FI_REMOTE_CQ_DATA) an RDMA WRITE WITH IMMEDIATE, which consumes a
 * receive at the peer and completes there with FI_RMA | FI_REMOTE_WRITE |
 * FI_REMOTE_CQ_DATA and the data.  Remote addresses are the peer region's
 * addresses (FI_MR_VIRT_ADDR), keys its fi_mr_key().  Local memory is as
 * for messages (see ibv_msg.c).  One remote segment per operation.  On
 * iWARP, which has no immediate data, fi_writedata() answers -EOPNOTSUPP.
 *
 * Every call here may be made from process or softirq context and never
 * sleeps.
 */
#include <linux/uio.h>
#include "ibv.h"

static ssize_t ibv_rma(struct fid_ep *fep, enum fi_iov_type type,
		       const void *vec, size_t count, void **desc, u64 addr,
		       size_t rlen, u64 key, void *context, u64 flags,
		       u64 data, bool read)
{
	struct ibv_xfer x = {
		.type = type,
		.vec = vec,
		.count = count,
		.desc = desc,
		.context = context,
		.op_flags = flags,
		.data = data,
		.opcode = read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE,
		.raddr = addr,
		.rlen = rlen,
		.rkey = key,
		.cflags = FI_RMA | (read ? FI_READ : FI_WRITE),
	};

	if (key > U32_MAX || (read && (flags & (FI_REMOTE_CQ_DATA |
						 FI_INJECT))))
		return -EINVAL;
	return ibv_post_tx(container_of(fep, struct ibv_ep, ep), &x);
}

static ssize_t ibv_rmamsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			  u64 flags, bool read)
{
	if (msg->rma_iov_count != 1)
		return -EINVAL;
	return ibv_rma(ep, msg->iov_type, msg->msg_iov, msg->iov_count,
		       msg->desc, msg->rma_iov->addr, msg->rma_iov->len,
		       msg->rma_iov->key, msg->context, flags, msg->data, read);
}

static ssize_t ibv_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			   u64 flags)
{
	return ibv_rmamsg(ep, msg, flags, true);
}

static ssize_t ibv_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			    u64 flags)
{
	return ibv_rmamsg(ep, msg, flags, false);
}

const struct fi_ops_rma ibv_rma_ops = {
	.readmsg = ibv_readmsg,
	.writemsg = ibv_writemsg,
};
