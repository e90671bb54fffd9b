// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: dispatch of the tagged message calls.
 *
 * As for the message calls: the provider implements fi_trecvmsg() and
 * fi_tsendmsg() (struct fi_ops_tagged), the other tagged calls are inlines
 * of fi_tagged.h built on them, the arguments are checked here, and the
 * endpoint's table is complete (kofi_tagged_ops_set()).  Any context, no
 * sleeping (but with FI_MAY_SLEEP or FI_OPT_DATA_MAY_SLEEP, see
 * api_msg.c); 0 once queued, the completion (FI_TAGGED | FI_SEND or
 * FI_RECV) on the endpoint's CQ; -EAGAIN if the queue is full.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <kofi/fi_tagged.h>
#include "kofi_core.h"

static ssize_t kofi_tagged_enosys(struct fid_ep *ep,
				  const struct fi_msg_tagged *msg, u64 flags)
{
	return -FI_ENOSYS;
}

/* The table of an endpoint whose provider has no tagged operations. */
static const struct fi_ops_tagged kofi_tagged_enosys_ops = {
	.trecvmsg = kofi_tagged_enosys,
	.tsendmsg = kofi_tagged_enosys,
};

/**
 * kofi_tagged_ops_set() - make an endpoint's tagged table complete
 * @ep: a new endpoint, as the provider returned it
 *
 * As kofi_msg_ops_set(), for @ep->tagged: on a shared receive context the
 * receive operation alone is complete.
 *
 * Context: any context.
 * Return: 0; -EINVAL for a table with only some operations set.
 */
int kofi_tagged_ops_set(struct fid_ep *ep)
{
	const struct fi_ops_tagged *ops = ep->tagged;

	if (!ops || (!ops->trecvmsg && !ops->tsendmsg)) {
		ep->tagged = &kofi_tagged_enosys_ops;
		return 0;
	}
	if (!ops->trecvmsg ||
	    (!ops->tsendmsg && ep->fid.fclass != FI_CLASS_SRX_CTX)) {
		pr_err("an endpoint's tagged table %ps has only some operations\n",
		       ops);
		return -EINVAL;
	}
	return 0;
}

static int kofi_tagged_check(struct fid_ep *ep,
			     const struct fi_msg_tagged *msg, u64 flags,
			     bool recv)
{
	if (unlikely(!kofi_data_ep_ok(ep, recv) || !msg))
		return -EINVAL;
	kofi_may_sleep_check(flags);
	return kofi_iov_check(msg->iov_type, msg->msg_iov, msg->iov_count);
}

/*
 * A receive's flags: FI_PEEK looks for a message, with FI_CLAIM to claim
 * it or FI_DISCARD to drop it; FI_CLAIM alone takes the message a peek
 * claimed (with FI_DISCARD: drops it).  FI_DISCARD needs one of them.
 */
static bool kofi_trecv_flags_ok(u64 flags)
{
	if (flags & ~(FI_OP_FLAGS_MASK | FI_PEEK | FI_CLAIM | FI_DISCARD))
		return false;
	if ((flags & FI_DISCARD) && !(flags & (FI_PEEK | FI_CLAIM)))
		return false;
	return !((flags & FI_PEEK) && (flags & FI_MULTI_RECV));
}

/**
 * fi_trecvmsg() - post a tagged receive described by a struct fi_msg_tagged
 * @ep: the endpoint, or a shared receive context (fi_srx_context())
 * @msg: vector, descriptors, source, tag, ignore bits, context
 * @flags: FI_COMPLETION, FI_MULTI_RECV, FI_MAY_SLEEP ...; FI_PEEK (look
 *	for a message that waits, with FI_CLAIM to claim it for a later
 *	FI_CLAIM receive of the same context, or FI_DISCARD to drop it);
 *	FI_CLAIM (receive the message claimed, or with FI_DISCARD drop it)
 *
 * fi_trecv() and fi_trecvv() are this call on a kvec array, flags 0.  A
 * peek that finds nothing completes with an ENOMSG error entry.
 *
 * Context: any context; does not sleep.  With FI_MAY_SLEEP: process
 * context, and the provider may sleep.
 * Return: 0; -EAGAIN if the receive queue is full; -EINVAL if @ep is
 * neither, for a NULL @msg, a bad vector (as fi_recvmsg()), unknown
 * @flags, FI_DISCARD without FI_PEEK or FI_CLAIM, or FI_PEEK with
 * FI_MULTI_RECV; -FI_ENOSYS if the provider has no tagged operations; the
 * provider's error.
 */
ssize_t fi_trecvmsg(struct fid_ep *ep, const struct fi_msg_tagged *msg,
		    u64 flags)
{
	int ret = kofi_tagged_check(ep, msg, flags, true);

	if (unlikely(ret))
		return ret;
	if (unlikely(!kofi_trecv_flags_ok(flags)))
		return -EINVAL;
	return ep->tagged->trecvmsg(ep, msg, flags);
}
EXPORT_SYMBOL_GPL(fi_trecvmsg);

/**
 * fi_tsendmsg() - send a tagged message described by a struct fi_msg_tagged
 * @ep: the endpoint
 * @msg: vector, descriptors, destination, tag, context, data
 * @flags: FI_COMPLETION, FI_INJECT, FI_REMOTE_CQ_DATA, FI_FENCE, FI_MORE,
 *	FI_*_COMPLETE, FI_MAY_SLEEP
 *
 * With FI_INJECT the data is copied before the call returns and no
 * completion is written.  fi_tsend(), fi_tsendv(), fi_tinject(),
 * fi_tsenddata() and fi_tinjectdata() are this call on a kvec array.
 *
 * Context: any context; does not sleep.  With FI_MAY_SLEEP: process
 * context, and the provider may sleep.
 * Return: 0; -EAGAIN if the send queue is full; -EINVAL (as for
 * fi_sendmsg()); -EMSGSIZE above max_msg_size, or with FI_INJECT above
 * inject_size; -FI_ENOSYS if the provider has no tagged operations; the
 * provider's error.
 */
ssize_t fi_tsendmsg(struct fid_ep *ep, const struct fi_msg_tagged *msg,
		    u64 flags)
{
	int ret = kofi_tagged_check(ep, msg, flags, false);

	if (unlikely(ret))
		return ret;
	if (unlikely(flags & ~FI_OP_FLAGS_MASK))
		return -EINVAL;
	return ep->tagged->tsendmsg(ep, msg, flags);
}
EXPORT_SYMBOL_GPL(fi_tsendmsg);
