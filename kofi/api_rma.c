// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: dispatch of the RMA calls.
 *
 * As for the message calls: any context, no sleeping; 0 once queued, the
 * completion (FI_RMA | FI_READ or FI_WRITE) on the endpoint's send CQ;
 * -EAGAIN if the queue is full.  Remote errors (bad key: ENOKEY, out of
 * bounds: ERANGE, no access: EACCES) arrive as error completions.
 */
#include <linux/module.h>
#include <kofi/fi_rma.h>
#include "kofi_core.h"

static int kofi_rma_check(struct fid_ep *ep)
{
	return KOFI_IS(ep, FI_CLASS_EP) ? 0 : -EINVAL;
}

static int kofi_msg_rma_check(const struct fi_msg_rma *msg, u64 flags)
{
	if (!msg || msg->iov_type > FI_IOV_SG ||
	    (msg->iov_count && !msg->msg_iov) ||
	    (msg->rma_iov_count && !msg->rma_iov) ||
	    (flags & ~FI_OP_FLAGS_MASK))
		return -EINVAL;
	return 0;
}

/**
 * fi_read() - RMA read from a peer's region into a kernel buffer
 * @ep: the endpoint
 * @buf: local destination
 * @len: bytes
 * @desc: fi_mr_desc() of a local region holding @buf, or NULL
 * @src_addr: peer (FI_EP_RDM), FI_ADDR_UNSPEC otherwise
 * @addr: remote address
 * @key: remote key
 * @context: operation context
 *
 * Context: any context; does not sleep.
 * Return: 0; -EAGAIN; -EINVAL (not an endpoint, NULL @buf with @len);
 * -ENOTCONN; -FI_ENOSYS; the provider's error.
 */
ssize_t fi_read(struct fid_ep *ep, void *buf, size_t len, void *desc,
		fi_addr_t src_addr, u64 addr, u64 key, void *context)
{
	int ret = kofi_rma_check(ep);

	if (ret)
		return ret;
	if (!buf && len)
		return -EINVAL;
	if (!ep->rma || !ep->rma->read)
		return -FI_ENOSYS;
	return ep->rma->read(ep, buf, len, desc, src_addr, addr, key, context);
}
EXPORT_SYMBOL_GPL(fi_read);

/**
 * fi_readv() - RMA read into a kvec array
 * @ep: the endpoint
 * @iov: @count kvecs
 * @desc: @count descriptors, or NULL
 * @count: entries
 * @src_addr: as for fi_read()
 * @addr: remote address
 * @key: remote key
 * @context: operation context
 *
 * Context: any context; does not sleep.
 * Return: as for fi_read().
 */
ssize_t fi_readv(struct fid_ep *ep, const struct kvec *iov, void **desc,
		 size_t count, fi_addr_t src_addr, u64 addr, u64 key,
		 void *context)
{
	int ret = kofi_rma_check(ep);

	if (ret)
		return ret;
	if (!iov && count)
		return -EINVAL;
	if (!ep->rma || !ep->rma->readv)
		return -FI_ENOSYS;
	return ep->rma->readv(ep, iov, desc, count, src_addr, addr, key,
			      context);
}
EXPORT_SYMBOL_GPL(fi_readv);

/**
 * fi_readmsg() - RMA read described by a struct fi_msg_rma
 * @ep: the endpoint
 * @msg: local vector (kvec, bio_vec, scatterlist), remote segments
 * @flags: operation flags
 *
 * Context: any context; does not sleep.
 * Return: as for fi_read(); -EINVAL also for a bad @msg or @flags.
 */
ssize_t fi_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
		   u64 flags)
{
	int ret = kofi_rma_check(ep);

	if (ret)
		return ret;
	ret = kofi_msg_rma_check(msg, flags);
	if (ret)
		return ret;
	if (!ep->rma || !ep->rma->readmsg)
		return -FI_ENOSYS;
	return ep->rma->readmsg(ep, msg, flags);
}
EXPORT_SYMBOL_GPL(fi_readmsg);

/**
 * fi_write() - RMA write from a kernel buffer into a peer's region
 * @ep: the endpoint
 * @buf: local source
 * @len: bytes
 * @desc: descriptor, or NULL
 * @dest_addr: peer (FI_EP_RDM), FI_ADDR_UNSPEC otherwise
 * @addr: remote address
 * @key: remote key
 * @context: operation context
 *
 * Context: any context; does not sleep.
 * Return: as for fi_read().
 */
ssize_t fi_write(struct fid_ep *ep, const void *buf, size_t len, void *desc,
		 fi_addr_t dest_addr, u64 addr, u64 key, void *context)
{
	int ret = kofi_rma_check(ep);

	if (ret)
		return ret;
	if (!buf && len)
		return -EINVAL;
	if (!ep->rma || !ep->rma->write)
		return -FI_ENOSYS;
	return ep->rma->write(ep, buf, len, desc, dest_addr, addr, key,
			      context);
}
EXPORT_SYMBOL_GPL(fi_write);

/**
 * fi_writev() - RMA write gathered from a kvec array
 * @ep: the endpoint
 * @iov: @count kvecs
 * @desc: @count descriptors, or NULL
 * @count: entries
 * @dest_addr: as for fi_write()
 * @addr: remote address
 * @key: remote key
 * @context: operation context
 *
 * Context: any context; does not sleep.
 * Return: as for fi_read().
 */
ssize_t fi_writev(struct fid_ep *ep, const struct kvec *iov, void **desc,
		  size_t count, fi_addr_t dest_addr, u64 addr, u64 key,
		  void *context)
{
	int ret = kofi_rma_check(ep);

	if (ret)
		return ret;
	if (!iov && count)
		return -EINVAL;
	if (!ep->rma || !ep->rma->writev)
		return -FI_ENOSYS;
	return ep->rma->writev(ep, iov, desc, count, dest_addr, addr, key,
			       context);
}
EXPORT_SYMBOL_GPL(fi_writev);

/**
 * fi_writemsg() - RMA write described by a struct fi_msg_rma
 * @ep: the endpoint
 * @msg: local vector, remote segments, context, data
 * @flags: operation flags (FI_REMOTE_CQ_DATA, FI_INJECT, FI_FENCE ...)
 *
 * Context: any context; does not sleep.
 * Return: as for fi_readmsg().
 */
ssize_t fi_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
		    u64 flags)
{
	int ret = kofi_rma_check(ep);

	if (ret)
		return ret;
	ret = kofi_msg_rma_check(msg, flags);
	if (ret)
		return ret;
	if (!ep->rma || !ep->rma->writemsg)
		return -FI_ENOSYS;
	return ep->rma->writemsg(ep, msg, flags);
}
EXPORT_SYMBOL_GPL(fi_writemsg);

/**
 * fi_inject_write() - small RMA write, buffer reusable at once
 * @ep: the endpoint
 * @buf: local source, copied before return
 * @len: bytes, at most tx_attr->inject_size
 * @dest_addr: as for fi_write()
 * @addr: remote address
 * @key: remote key
 *
 * No completion is written.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_read(); -EMSGSIZE above the inject size.
 */
ssize_t fi_inject_write(struct fid_ep *ep, const void *buf, size_t len,
			fi_addr_t dest_addr, u64 addr, u64 key)
{
	int ret = kofi_rma_check(ep);

	if (ret)
		return ret;
	if (!buf && len)
		return -EINVAL;
	if (!ep->rma || !ep->rma->inject)
		return -FI_ENOSYS;
	return ep->rma->inject(ep, buf, len, dest_addr, addr, key);
}
EXPORT_SYMBOL_GPL(fi_inject_write);

/**
 * fi_writedata() - RMA write with remote CQ data
 * @ep: the endpoint
 * @buf: local source
 * @len: bytes
 * @desc: descriptor, or NULL
 * @data: remote CQ data; the peer gets a completion with
 *	FI_REMOTE_CQ_DATA (it consumes a posted receive, as with verbs
 *	write-with-immediate)
 * @dest_addr: as for fi_write()
 * @addr: remote address
 * @key: remote key
 * @context: operation context
 *
 * Context: any context; does not sleep.
 * Return: as for fi_read().
 */
ssize_t fi_writedata(struct fid_ep *ep, const void *buf, size_t len,
		     void *desc, u64 data, fi_addr_t dest_addr, u64 addr,
		     u64 key, void *context)
{
	int ret = kofi_rma_check(ep);

	if (ret)
		return ret;
	if (!buf && len)
		return -EINVAL;
	if (!ep->rma || !ep->rma->writedata)
		return -FI_ENOSYS;
	return ep->rma->writedata(ep, buf, len, desc, data, dest_addr, addr,
				  key, context);
}
EXPORT_SYMBOL_GPL(fi_writedata);

/**
 * fi_inject_writedata() - fi_inject_write() with remote CQ data
 * @ep: the endpoint
 * @buf: local source, copied before return
 * @len: bytes
 * @data: remote CQ data
 * @dest_addr: as for fi_write()
 * @addr: remote address
 * @key: remote key
 *
 * Context: any context; does not sleep.
 * Return: as for fi_inject_write().
 */
ssize_t fi_inject_writedata(struct fid_ep *ep, const void *buf, size_t len,
			    u64 data, fi_addr_t dest_addr, u64 addr, u64 key)
{
	int ret = kofi_rma_check(ep);

	if (ret)
		return ret;
	if (!buf && len)
		return -EINVAL;
	if (!ep->rma || !ep->rma->injectdata)
		return -FI_ENOSYS;
	return ep->rma->injectdata(ep, buf, len, data, dest_addr, addr, key);
}
EXPORT_SYMBOL_GPL(fi_inject_writedata);
