// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: dispatch of the message calls.
 *
 * Every call here may be made from any context (process, softirq, with
 * spinlocks held); the core adds no sleeping and no allocation, and the
 * providers' data paths must not sleep either.  A call returns 0 once the
 * operation is queued; it then completes on the CQ bound to the endpoint
 * (FI_SEND or FI_RECV).  -EAGAIN means the queue is full: retry after
 * reading completions.
 */
#include <linux/module.h>
#include <kofi/fi_endpoint.h>
#include "kofi_core.h"

static int kofi_msg_check(struct fid_ep *ep)
{
	return KOFI_IS(ep, FI_CLASS_EP) ? 0 : -EINVAL;
}

static int kofi_fi_msg_check(const struct fi_msg *msg, u64 flags)
{
	if (!msg || msg->iov_type > FI_IOV_SG ||
	    (msg->iov_count && !msg->msg_iov) ||
	    (flags & ~(FI_OP_FLAGS_MASK | FI_PEEK)))
		return -EINVAL;
	return 0;
}

/**
 * fi_recv() - post a receive buffer
 * @ep: the endpoint
 * @buf: kernel buffer
 * @len: its size
 * @desc: fi_mr_desc() of a region holding @buf, or NULL if the provider
 *	does not require FI_MR_LOCAL
 * @src_addr: source (FI_EP_RDM), FI_ADDR_UNSPEC otherwise
 * @context: operation context, returned in the completion
 *
 * Context: any context; does not sleep.
 * Return: 0; -EAGAIN if the receive queue is full; -EINVAL (not an
 * endpoint, NULL @buf with @len); -FI_ENOSYS; the provider's error.
 */
ssize_t fi_recv(struct fid_ep *ep, void *buf, size_t len, void *desc,
		fi_addr_t src_addr, void *context)
{
	int ret = kofi_msg_check(ep);

	if (ret)
		return ret;
	if (!buf && len)
		return -EINVAL;
	if (!ep->msg || !ep->msg->recv)
		return -FI_ENOSYS;
	return ep->msg->recv(ep, buf, len, desc, src_addr, context);
}
EXPORT_SYMBOL_GPL(fi_recv);

/**
 * fi_recvv() - post a receive into a kvec array
 * @ep: the endpoint
 * @iov: @count kvecs
 * @desc: @count descriptors, or NULL
 * @count: entries, at most rx_attr->iov_limit
 * @src_addr: as for fi_recv()
 * @context: operation context
 *
 * Context: any context; does not sleep.
 * Return: as for fi_recv(); -EINVAL also for a NULL @iov with @count.
 */
ssize_t fi_recvv(struct fid_ep *ep, const struct kvec *iov, void **desc,
		 size_t count, fi_addr_t src_addr, void *context)
{
	int ret = kofi_msg_check(ep);

	if (ret)
		return ret;
	if (!iov && count)
		return -EINVAL;
	if (!ep->msg || !ep->msg->recvv)
		return -FI_ENOSYS;
	return ep->msg->recvv(ep, iov, desc, count, src_addr, context);
}
EXPORT_SYMBOL_GPL(fi_recvv);

/**
 * fi_recvmsg() - post a receive described by a struct fi_msg
 * @ep: the endpoint
 * @msg: vector (kvec, bio_vec or scatterlist), descriptors, context
 * @flags: FI_COMPLETION, FI_MULTI_RECV, FI_MORE ...; FI_PEEK on a
 *	stream endpoint (kstream): copy without consuming
 *
 * Context: any context; does not sleep.
 * Return: as for fi_recv(); -EINVAL also for a NULL @msg, an unknown
 * iov_type, a NULL vector with iov_count, or unknown @flags.
 */
ssize_t fi_recvmsg(struct fid_ep *ep, const struct fi_msg *msg, u64 flags)
{
	int ret = kofi_msg_check(ep);

	if (ret)
		return ret;
	ret = kofi_fi_msg_check(msg, flags);
	if (ret)
		return ret;
	if (!ep->msg || !ep->msg->recvmsg)
		return -FI_ENOSYS;
	return ep->msg->recvmsg(ep, msg, flags);
}
EXPORT_SYMBOL_GPL(fi_recvmsg);

/**
 * fi_send() - send a message from a kernel buffer
 * @ep: the endpoint
 * @buf: the data; must stay untouched until the completion
 * @len: bytes, at most ep_attr->max_msg_size
 * @desc: fi_mr_desc() of a region holding @buf, or NULL
 * @dest_addr: destination (FI_EP_RDM), FI_ADDR_UNSPEC otherwise
 * @context: operation context, returned in the completion
 *
 * Context: any context; does not sleep.
 * Return: 0; -EAGAIN if the send queue is full; -EINVAL; -EMSGSIZE;
 * -ENOTCONN; -FI_ENOSYS; the provider's error.
 */
ssize_t fi_send(struct fid_ep *ep, const void *buf, size_t len, void *desc,
		fi_addr_t dest_addr, void *context)
{
	int ret = kofi_msg_check(ep);

	if (ret)
		return ret;
	if (!buf && len)
		return -EINVAL;
	if (!ep->msg || !ep->msg->send)
		return -FI_ENOSYS;
	return ep->msg->send(ep, buf, len, desc, dest_addr, context);
}
EXPORT_SYMBOL_GPL(fi_send);

/**
 * fi_sendv() - send a message gathered from a kvec array
 * @ep: the endpoint
 * @iov: @count kvecs
 * @desc: @count descriptors, or NULL
 * @count: entries, at most tx_attr->iov_limit
 * @dest_addr: as for fi_send()
 * @context: operation context
 *
 * Context: any context; does not sleep.
 * Return: as for fi_send(); -EINVAL also for a NULL @iov with @count.
 */
ssize_t fi_sendv(struct fid_ep *ep, const struct kvec *iov, void **desc,
		 size_t count, fi_addr_t dest_addr, void *context)
{
	int ret = kofi_msg_check(ep);

	if (ret)
		return ret;
	if (!iov && count)
		return -EINVAL;
	if (!ep->msg || !ep->msg->sendv)
		return -FI_ENOSYS;
	return ep->msg->sendv(ep, iov, desc, count, dest_addr, context);
}
EXPORT_SYMBOL_GPL(fi_sendv);

/**
 * fi_sendmsg() - send a message described by a struct fi_msg
 * @ep: the endpoint
 * @msg: vector (kvec, bio_vec or scatterlist), descriptors, context, data
 * @flags: FI_COMPLETION, FI_INJECT, FI_REMOTE_CQ_DATA, FI_FENCE, FI_MORE,
 *	FI_*_COMPLETE; FI_PEEK on a stream endpoint (kstream): send nothing,
 *	return how many bytes a send would take
 *
 * Context: any context; does not sleep.
 * Return: as for fi_send(); -EINVAL also for a bad @msg or unknown @flags.
 */
ssize_t fi_sendmsg(struct fid_ep *ep, const struct fi_msg *msg, u64 flags)
{
	int ret = kofi_msg_check(ep);

	if (ret)
		return ret;
	ret = kofi_fi_msg_check(msg, flags);
	if (ret)
		return ret;
	if (!ep->msg || !ep->msg->sendmsg)
		return -FI_ENOSYS;
	return ep->msg->sendmsg(ep, msg, flags);
}
EXPORT_SYMBOL_GPL(fi_sendmsg);

/**
 * fi_inject() - send a small message, buffer reusable at once
 * @ep: the endpoint
 * @buf: the data, copied before return
 * @len: bytes, at most tx_attr->inject_size
 * @dest_addr: as for fi_send()
 *
 * No completion is written.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_send(); -EMSGSIZE above the inject size.
 */
ssize_t fi_inject(struct fid_ep *ep, const void *buf, size_t len,
		  fi_addr_t dest_addr)
{
	int ret = kofi_msg_check(ep);

	if (ret)
		return ret;
	if (!buf && len)
		return -EINVAL;
	if (!ep->msg || !ep->msg->inject)
		return -FI_ENOSYS;
	return ep->msg->inject(ep, buf, len, dest_addr);
}
EXPORT_SYMBOL_GPL(fi_inject);

/**
 * fi_senddata() - send a message with remote CQ data
 * @ep: the endpoint
 * @buf: the data
 * @len: bytes
 * @desc: descriptor, or NULL
 * @data: remote CQ data (domain_attr->cq_data_size bytes are delivered);
 *	the peer's receive completion has FI_REMOTE_CQ_DATA set
 * @dest_addr: as for fi_send()
 * @context: operation context
 *
 * Context: any context; does not sleep.
 * Return: as for fi_send().
 */
ssize_t fi_senddata(struct fid_ep *ep, const void *buf, size_t len,
		    void *desc, u64 data, fi_addr_t dest_addr, void *context)
{
	int ret = kofi_msg_check(ep);

	if (ret)
		return ret;
	if (!buf && len)
		return -EINVAL;
	if (!ep->msg || !ep->msg->senddata)
		return -FI_ENOSYS;
	return ep->msg->senddata(ep, buf, len, desc, data, dest_addr,
				 context);
}
EXPORT_SYMBOL_GPL(fi_senddata);

/**
 * fi_injectdata() - fi_inject() with remote CQ data
 * @ep: the endpoint
 * @buf: the data, copied before return
 * @len: bytes, at most tx_attr->inject_size
 * @data: remote CQ data
 * @dest_addr: as for fi_send()
 *
 * Context: any context; does not sleep.
 * Return: as for fi_inject().
 */
ssize_t fi_injectdata(struct fid_ep *ep, const void *buf, size_t len,
		      u64 data, fi_addr_t dest_addr)
{
	int ret = kofi_msg_check(ep);

	if (ret)
		return ret;
	if (!buf && len)
		return -EINVAL;
	if (!ep->msg || !ep->msg->injectdata)
		return -FI_ENOSYS;
	return ep->msg->injectdata(ep, buf, len, data, dest_addr);
}
EXPORT_SYMBOL_GPL(fi_injectdata);
