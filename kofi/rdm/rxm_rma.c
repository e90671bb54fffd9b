// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: RMA on FI_EP_RDM endpoints.
 *
 * As libfabric's rxm does it, an RMA operation to a peer is the core's
 * RMA operation on the connection to that peer, opened by the first
 * operation to it as by the first send: no rxm header, the core's wire
 * form, the core's keys (the domain's regions are the core's,
 * kofi_util_domain_mr()).  A write with remote CQ data consumes a posted
 * receive of the target's core endpoint - one of rxm's bounce buffers -
 * and completes there with FI_REMOTE_CQ_DATA: rxm_rma_remote() turns
 * that into a completion of the target's receive CQ and posts the buffer
 * again.
 */
#include <linux/slab.h>
#include <linux/uio.h>
#include "rxm.h"

/* FI_INJECT: the payload copied into the entry, which the core sends. */
static int rxm_rma_inject(struct rxm_tx *tx, const struct fi_msg_rma *msg)
{
	struct iov_iter it;
	size_t len;
	int ret;

	ret = kofi_vec_set(&tx->vec, msg->iov_type, msg->msg_iov,
			   msg->iov_count, 0);
	if (ret)
		return ret;
	len = tx->vec.len;
	if (len > RXM_INJECT_SIZE)
		return -EMSGSIZE;
	kofi_vec_iter(&tx->vec, ITER_SOURCE, false, &it);
	if (copy_from_iter(tx->buf, len, &it) != len)
		return -EFAULT;
	tx->vec.kv[0].iov_base = tx->buf;
	tx->vec.kv[0].iov_len = len;
	tx->inject = true;
	return 0;
}

static ssize_t rxm_rma(struct rxm_ep *ep, const struct fi_msg_rma *msg,
		       u64 flags, bool write)
{
	struct fi_msg_rma cm = *msg;
	struct rxm_conn *conn;
	struct rxm_tx *tx;
	bool data;
	size_t i;
	int ret;

	if (msg->iov_count > ep->info->tx_attr->iov_limit ||
	    !msg->rma_iov_count ||
	    msg->rma_iov_count > ep->core_info->tx_attr->rma_iov_limit)
		return -EINVAL;
	tx = rxm_tx_get(ep, msg->addr, msg->context,
			FI_RMA | (write ? FI_WRITE : FI_READ), &conn, &ret);
	if (!tx)
		return ret;
	tx->len = 0;
	for (i = 0; i < msg->rma_iov_count; i++)
		tx->len += msg->rma_iov[i].len;
	if (write && (flags & FI_INJECT)) {
		ret = rxm_rma_inject(tx, msg);
		if (ret)
			return rxm_tx_unget(tx, conn, ret);
		cm.iov_type = FI_IOV_KVEC;
		cm.msg_iov = tx->vec.kv;
		cm.iov_count = 1;
		cm.desc = NULL;
	}
	/* a write with remote CQ data consumes one of the peer's buffers */
	data = write && (flags & FI_REMOTE_CQ_DATA);
	if (data) {
		ret = rxm_credit_take(conn);
		if (ret)
			return rxm_tx_unget(tx, conn, ret);
	}
	cm.addr = FI_ADDR_UNSPEC;
	cm.context = &tx->cqe;
	/* completion semantics as for sends; the core does the rest */
	flags = FI_COMPLETION | rxm_sleep_flag(ep, flags) |
		(flags & (FI_DELIVERY_COMPLETE | FI_REMOTE_CQ_DATA));
	ret = write ? fi_writemsg(conn->core, &cm, flags) :
		      fi_readmsg(conn->core, &cm, flags & ~FI_REMOTE_CQ_DATA);
	if (ret && data)
		rxm_credit_untake(conn);
	return rxm_tx_posted(tx, conn, ret);
}

static ssize_t rxm_readmsg(struct fid_ep *fep, const struct fi_msg_rma *msg,
			   u64 flags)
{
	return rxm_rma(container_of(fep, struct rxm_ep, ep), msg, flags,
		       false);
}

static ssize_t rxm_writemsg(struct fid_ep *fep, const struct fi_msg_rma *msg,
			    u64 flags)
{
	return rxm_rma(container_of(fep, struct rxm_ep, ep), msg, flags, true);
}

const struct fi_ops_rma rxm_rma_ops = {
	.readmsg = rxm_readmsg,
	.writemsg = rxm_writemsg,
};

/**
 * rxm_rma_remote() - a peer's write with remote CQ data consumed a bounce
 *	buffer
 * @ep: the endpoint
 * @buf: the buffer, posted again here (before the completion is written)
 * @comp: the core's completion (FI_RMA | FI_REMOTE_WRITE |
 *	FI_REMOTE_CQ_DATA, no payload)
 * @src: the peer's fi_addr: of the connection it came on, or
 *	FI_ADDR_NOTAVAIL when the buffer was shared (nothing names it)
 *
 * Writes the receive CQ's completion: no context, the core's flags and
 * data, @src as its source.
 *
 * Context: the core's completion context; does not sleep.
 */
void rxm_rma_remote(struct rxm_ep *ep, struct rxm_buf *buf,
		    const struct fi_cq_err_entry *comp, fi_addr_t src)
{
	struct kofi_comp c = {
		.flags = FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA,
		.data = comp->data,
		.src = src,
	};

	/* posted first: a grant it earns goes out before the ULP's answer */
	rxm_buf_recycle(buf);
	rxm_comp_write(ep, &c);
}
