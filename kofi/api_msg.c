// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: dispatch of the message calls.
 *
 * The provider implements fi_recvmsg() and fi_sendmsg() (struct
 * fi_ops_msg); the other message calls are inlines of fi_endpoint.h built
 * on them.  The arguments are checked here, once per call; the endpoint's
 * table is never NULL and has both operations (kofi_msg_ops_set()).
 *
 * Every call here may be made from any context (process, softirq, with
 * spinlocks held); the core adds no sleeping and no allocation, and the
 * providers' data paths must not sleep either - unless the caller
 * promised that it may: for one call with FI_MAY_SLEEP in its flags
 * (checked here with might_sleep()), for every call on the endpoint with
 * FI_OPT_DATA_MAY_SLEEP.  A call returns 0 once the operation is queued;
 * it then completes on the CQ bound to the endpoint (FI_SEND or
 * FI_RECV).  -EAGAIN means the queue is full: retry after reading
 * completions.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <kofi/fi_endpoint.h>
#include "kofi_core.h"

static ssize_t kofi_msg_enosys(struct fid_ep *ep, const struct fi_msg *msg,
			       u64 flags)
{
	return -FI_ENOSYS;
}

/* The table of an endpoint whose provider has no message operations. */
static const struct fi_ops_msg kofi_msg_enosys_ops = {
	.recvmsg = kofi_msg_enosys,
	.sendmsg = kofi_msg_enosys,
};

/**
 * kofi_msg_ops_set() - make an endpoint's message table complete
 * @ep: a new endpoint, as the provider returned it
 *
 * A NULL table, or one without operations, becomes the core's table whose
 * operations answer -FI_ENOSYS.  A shared receive context (class
 * FI_CLASS_SRX_CTX) needs only the receive operation: the core never
 * calls its send operation.
 *
 * Context: any context.
 * Return: 0; -EINVAL for a table with only some operations set.
 */
int kofi_msg_ops_set(struct fid_ep *ep)
{
	const struct fi_ops_msg *ops = ep->msg;

	if (!ops || (!ops->recvmsg && !ops->sendmsg)) {
		ep->msg = &kofi_msg_enosys_ops;
		return 0;
	}
	if (!ops->recvmsg ||
	    (!ops->sendmsg && ep->fid.fclass != FI_CLASS_SRX_CTX)) {
		pr_err("an endpoint's message table %ps has only some operations\n",
		       ops);
		return -EINVAL;
	}
	return 0;
}

static int kofi_msg_check(struct fid_ep *ep, const struct fi_msg *msg,
			  u64 flags, bool recv)
{
	if (unlikely(!kofi_data_ep_ok(ep, recv) || !msg ||
		     (flags & ~(FI_OP_FLAGS_MASK | FI_PEEK))))
		return -EINVAL;
	kofi_may_sleep_check(flags);
	return kofi_iov_check(msg->iov_type, msg->msg_iov, msg->iov_count);
}

/**
 * fi_recvmsg() - post a receive described by a struct fi_msg
 * @ep: the endpoint, or a shared receive context (fi_srx_context())
 * @msg: vector (kvec, bio_vec or scatterlist), descriptors, source
 *	address, context
 * @flags: FI_COMPLETION, FI_MULTI_RECV, FI_MORE, FI_MAY_SLEEP ...; FI_PEEK
 *	on a stream endpoint (kstream): copy without consuming
 *
 * fi_recv() and fi_recvv() are this call on a kvec array, with @flags 0.
 *
 * Context: any context; does not sleep.  With FI_MAY_SLEEP: process
 * context, and the provider may sleep.
 * Return: 0; -EAGAIN if the receive queue is full; -EINVAL if @ep is
 * neither, for a NULL @msg, an unknown iov_type, a NULL vector with
 * iov_count, a kvec with a NULL base and a length, or unknown @flags;
 * -FI_ENOSYS if the provider has no message operations; the provider's
 * error.
 */
ssize_t fi_recvmsg(struct fid_ep *ep, const struct fi_msg *msg, u64 flags)
{
	int ret = kofi_msg_check(ep, msg, flags, true);

	if (unlikely(ret))
		return ret;
	return ep->msg->recvmsg(ep, msg, flags);
}
EXPORT_SYMBOL_GPL(fi_recvmsg);

/**
 * fi_sendmsg() - send a message described by a struct fi_msg
 * @ep: the endpoint
 * @msg: vector (kvec, bio_vec or scatterlist), descriptors, destination
 *	address, context, data
 * @flags: FI_COMPLETION, FI_INJECT, FI_REMOTE_CQ_DATA, FI_FENCE, FI_MORE,
 *	FI_*_COMPLETE, FI_MAY_SLEEP; FI_PEEK on a stream endpoint (kstream):
 *	send nothing, return how many bytes a send would take
 *
 * With FI_INJECT the data is copied before the call returns and no
 * completion is written (@msg->context is not used).  fi_send(),
 * fi_sendv(), fi_inject(), fi_senddata() and fi_injectdata() are this
 * call on a kvec array.
 *
 * Context: any context; does not sleep.  With FI_MAY_SLEEP: process
 * context, and the provider may sleep.
 * Return: 0; -EAGAIN if the send queue is full; -EINVAL (as for
 * fi_recvmsg(), and on a shared receive context); -EMSGSIZE above ep_attr->max_msg_size, or with
 * FI_INJECT above tx_attr->inject_size; -ENOTCONN; -FI_ENOSYS if the
 * provider has no message operations; the provider's error.
 */
ssize_t fi_sendmsg(struct fid_ep *ep, const struct fi_msg *msg, u64 flags)
{
	int ret = kofi_msg_check(ep, msg, flags, false);

	if (unlikely(ret))
		return ret;
	return ep->msg->sendmsg(ep, msg, flags);
}
EXPORT_SYMBOL_GPL(fi_sendmsg);
