// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: dispatch of the RMA calls.
 *
 * As for the message calls: the provider implements fi_readmsg() and
 * fi_writemsg() (struct fi_ops_rma), the other RMA calls are inlines of
 * fi_rma.h built on them, the arguments are checked here, and the
 * endpoint's table is complete (kofi_rma_ops_set()).  Any context, no
 * sleeping (but with FI_MAY_SLEEP or FI_OPT_DATA_MAY_SLEEP, see
 * api_msg.c); 0 once queued, the completion (FI_RMA | FI_READ or FI_WRITE)
 * on the endpoint's send CQ; -EAGAIN if the queue is full.  Remote errors
 * (bad key: ENOKEY, out of bounds: ERANGE, no access: EACCES) arrive as
 * error completions.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <kofi/fi_rma.h>
#include "kofi_core.h"

static ssize_t kofi_rma_enosys(struct fid_ep *ep,
			       const struct fi_msg_rma *msg, u64 flags)
{
	return -FI_ENOSYS;
}

/* The table of an endpoint whose provider has no RMA operations. */
static const struct fi_ops_rma kofi_rma_enosys_ops = {
	.readmsg = kofi_rma_enosys,
	.writemsg = kofi_rma_enosys,
};

/**
 * kofi_rma_ops_set() - make an endpoint's RMA table complete
 * @ep: a new endpoint, as the provider returned it
 *
 * As kofi_msg_ops_set(), for @ep->rma.
 *
 * Context: any context.
 * Return: 0; -EINVAL for a table with only some operations set.
 */
int kofi_rma_ops_set(struct fid_ep *ep)
{
	const struct fi_ops_rma *ops = ep->rma;

	if (!ops || (!ops->readmsg && !ops->writemsg)) {
		ep->rma = &kofi_rma_enosys_ops;
		return 0;
	}
	if (!ops->readmsg || !ops->writemsg) {
		pr_err("an endpoint's RMA table %ps has only some operations\n",
		       ops);
		return -EINVAL;
	}
	return 0;
}

static int kofi_rma_check(struct fid_ep *ep, const struct fi_msg_rma *msg,
			  u64 flags)
{
	if (unlikely(!KOFI_IS(ep, FI_CLASS_EP) || !msg ||
		     (msg->rma_iov_count && !msg->rma_iov) ||
		     (flags & ~FI_OP_FLAGS_MASK)))
		return -EINVAL;
	kofi_may_sleep_check(flags);
	return kofi_iov_check(msg->iov_type, msg->msg_iov, msg->iov_count);
}

/**
 * fi_readmsg() - RMA read described by a struct fi_msg_rma
 * @ep: the endpoint
 * @msg: local vector (kvec, bio_vec, scatterlist), remote segments,
 *	context
 * @flags: operation flags (FI_COMPLETION, FI_MAY_SLEEP ...)
 *
 * fi_read() and fi_readv() are this call on a kvec array and one remote
 * segment as long as the array, with @flags 0.
 *
 * Context: any context; does not sleep.  With FI_MAY_SLEEP: process
 * context, and the provider may sleep.
 * Return: 0; -EAGAIN; -EINVAL if @ep is not an endpoint, for a NULL
 * @msg, an unknown iov_type, a NULL vector with iov_count, a kvec with a
 * NULL base and a length, a NULL rma_iov with rma_iov_count, or unknown
 * @flags; -ENOTCONN; -FI_ENOSYS if the provider has no RMA operations;
 * the provider's error.
 */
ssize_t fi_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
		   u64 flags)
{
	int ret = kofi_rma_check(ep, msg, flags);

	if (unlikely(ret))
		return ret;
	return ep->rma->readmsg(ep, msg, flags);
}
EXPORT_SYMBOL_GPL(fi_readmsg);

/**
 * fi_writemsg() - RMA write described by a struct fi_msg_rma
 * @ep: the endpoint
 * @msg: local vector, remote segments, context, data
 * @flags: operation flags (FI_REMOTE_CQ_DATA, FI_INJECT, FI_FENCE,
 *	FI_MAY_SLEEP ...)
 *
 * With FI_INJECT the data is copied before the call returns and no
 * completion is written (@msg->context is not used).  fi_write(),
 * fi_writev(), fi_inject_write(), fi_writedata() and
 * fi_inject_writedata() are this call on a kvec array and one remote
 * segment as long as the array.
 *
 * Context: any context; does not sleep.  With FI_MAY_SLEEP: process
 * context, and the provider may sleep.
 * Return: as for fi_readmsg(); -EMSGSIZE with FI_INJECT above
 * tx_attr->inject_size.
 */
ssize_t fi_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
		    u64 flags)
{
	int ret = kofi_rma_check(ep, msg, flags);

	if (unlikely(ret))
		return ret;
	return ep->rma->writemsg(ep, msg, flags);
}
EXPORT_SYMBOL_GPL(fi_writemsg);
