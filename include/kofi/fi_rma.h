/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kernel OpenFabrics Interface - remote memory access.
 *
 * RMA reads and writes move data between local kernel memory and a region
 * a peer registered (fi_mr_reg()) and advertised by (address, key).  Like
 * the message calls, every RMA call may be made from atomic context.
 */
#ifndef _KOFI_FI_RMA_H
#define _KOFI_FI_RMA_H

#include <kofi/fabric.h>
#include <kofi/fi_endpoint.h>

/**
 * struct fi_rma_iov - one remote segment
 * @addr: remote address (virtual address with FI_MR_VIRT_ADDR, else the
 *	offset into the region plus the region's fi_mr_attr offset)
 * @len: bytes
 * @key: remote key, fi_mr_key() of the peer's region
 */
struct fi_rma_iov {
	u64 addr;
	size_t len;
	u64 key;
};

/**
 * struct fi_msg_rma - an RMA operation for fi_readmsg() / fi_writemsg()
 * @iov_type: which member of the union is valid
 * @msg_iov: FI_IOV_KVEC: @iov_count kvecs
 * @msg_bvec: FI_IOV_BVEC: @iov_count bio_vecs
 * @msg_sg: FI_IOV_SG: scatterlist of @iov_count entries
 * @desc: @iov_count local descriptors, or NULL
 * @iov_count: entries in the local vector
 * @addr: peer address (FI_EP_RDM), FI_ADDR_UNSPEC for connected endpoints
 * @rma_iov: @rma_iov_count remote segments
 * @rma_iov_count: entries in @rma_iov, at most tx_attr->rma_iov_limit
 * @context: operation context, returned in the completion
 * @data: remote CQ data, sent with FI_REMOTE_CQ_DATA
 */
struct fi_msg_rma {
	enum fi_iov_type iov_type;
	union {
		const struct kvec *msg_iov;
		const struct bio_vec *msg_bvec;
		struct scatterlist *msg_sg;
	};
	void **desc;
	size_t iov_count;
	fi_addr_t addr;
	const struct fi_rma_iov *rma_iov;
	size_t rma_iov_count;
	void *context;
	u64 data;
};

/**
 * struct fi_ops_rma - RMA operations of an endpoint
 * @readmsg: post an RMA read, see fi_readmsg()
 * @writemsg: post an RMA write, see fi_writemsg()
 *
 * As struct fi_ops_msg: the provider implements the *msg forms, the core
 * checks the arguments in fi_readmsg() and fi_writemsg() and builds the
 * other RMA calls on them.  A provider sets both members or leaves the
 * table out (@ep->rma NULL): the core then installs a table whose
 * operations answer -FI_ENOSYS; fi_endpoint() refuses an endpoint whose
 * table has only one of them.
 */
struct fi_ops_rma {
	ssize_t (*readmsg)(struct fid_ep *ep, const struct fi_msg_rma *msg,
			   u64 flags);
	ssize_t (*writemsg)(struct fid_ep *ep, const struct fi_msg_rma *msg,
			    u64 flags);
};

ssize_t fi_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
		   u64 flags);
ssize_t fi_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
		    u64 flags);

/**
 * kofi_rma_kvec() - an RMA call on a kvec array and one remote segment,
 *	as the convenience calls make it
 * @ep: the endpoint
 * @write: fi_writemsg() if true, else fi_readmsg()
 * @iov: @count kvecs
 * @desc: @count descriptors, or NULL
 * @count: entries in @iov
 * @addr: peer address (FI_EP_RDM), FI_ADDR_UNSPEC otherwise
 * @raddr: remote address of the segment
 * @key: remote key of the segment
 * @context: operation context
 * @data: remote CQ data (with FI_REMOTE_CQ_DATA in @flags)
 * @flags: operation flags
 *
 * The remote segment is as long as the kvecs together.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_writemsg() or fi_readmsg().
 */
static inline ssize_t kofi_rma_kvec(struct fid_ep *ep, bool write,
				    const struct kvec *iov, void **desc,
				    size_t count, fi_addr_t addr, u64 raddr,
				    u64 key, void *context, u64 data,
				    u64 flags)
{
	struct fi_rma_iov rma = { .addr = raddr, .key = key };
	struct fi_msg_rma msg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = iov,
		.desc = desc,
		.iov_count = count,
		.addr = addr,
		.rma_iov = &rma,
		.rma_iov_count = 1,
		.context = context,
		.data = data,
	};
	size_t i;

	/* a NULL @iov with @count is the core's -EINVAL */
	for (i = 0; iov && i < count; i++)
		rma.len += iov[i].iov_len;
	return write ? fi_writemsg(ep, &msg, flags) :
		       fi_readmsg(ep, &msg, flags);
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
 * fi_readmsg() of one kvec and one remote segment of @len bytes, flags 0.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_readmsg(); -EINVAL for a NULL @buf with @len.
 */
static inline ssize_t fi_read(struct fid_ep *ep, void *buf, size_t len,
			      void *desc, fi_addr_t src_addr, u64 addr,
			      u64 key, void *context)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };

	return kofi_rma_kvec(ep, false, &iov, desc ? &desc : NULL, 1,
			     src_addr, addr, key, context, 0, 0);
}

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
 * fi_readmsg() of @iov and one remote segment as long as @iov, flags 0.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_readmsg().
 */
static inline ssize_t fi_readv(struct fid_ep *ep, const struct kvec *iov,
			       void **desc, size_t count, fi_addr_t src_addr,
			       u64 addr, u64 key, void *context)
{
	return kofi_rma_kvec(ep, false, iov, desc, count, src_addr, addr, key,
			     context, 0, 0);
}

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
 * fi_writemsg() of one kvec and one remote segment of @len bytes, flags 0.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_writemsg(); -EINVAL for a NULL @buf with @len.
 */
static inline ssize_t fi_write(struct fid_ep *ep, const void *buf,
			       size_t len, void *desc, fi_addr_t dest_addr,
			       u64 addr, u64 key, void *context)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return kofi_rma_kvec(ep, true, &iov, desc ? &desc : NULL, 1,
			     dest_addr, addr, key, context, 0, 0);
}

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
 * fi_writemsg() of @iov and one remote segment as long as @iov, flags 0.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_writemsg().
 */
static inline ssize_t fi_writev(struct fid_ep *ep, const struct kvec *iov,
				void **desc, size_t count,
				fi_addr_t dest_addr, u64 addr, u64 key,
				void *context)
{
	return kofi_rma_kvec(ep, true, iov, desc, count, dest_addr, addr, key,
			     context, 0, 0);
}

/**
 * fi_inject_write() - small RMA write, buffer reusable at once
 * @ep: the endpoint
 * @buf: local source, copied before return
 * @len: bytes, at most tx_attr->inject_size
 * @dest_addr: as for fi_write()
 * @addr: remote address
 * @key: remote key
 *
 * fi_writemsg() of one kvec with FI_INJECT and no context.  No completion
 * is written.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_write(); -EMSGSIZE above the inject size.
 */
static inline ssize_t fi_inject_write(struct fid_ep *ep, const void *buf,
				      size_t len, fi_addr_t dest_addr,
				      u64 addr, u64 key)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return kofi_rma_kvec(ep, true, &iov, NULL, 1, dest_addr, addr, key,
			     NULL, 0, FI_INJECT);
}

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
 * fi_writemsg() of one kvec with FI_REMOTE_CQ_DATA.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_write().
 */
static inline ssize_t fi_writedata(struct fid_ep *ep, const void *buf,
				   size_t len, void *desc, u64 data,
				   fi_addr_t dest_addr, u64 addr, u64 key,
				   void *context)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return kofi_rma_kvec(ep, true, &iov, desc ? &desc : NULL, 1,
			     dest_addr, addr, key, context, data,
			     FI_REMOTE_CQ_DATA);
}

/**
 * fi_inject_writedata() - fi_inject_write() with remote CQ data
 * @ep: the endpoint
 * @buf: local source, copied before return
 * @len: bytes, at most tx_attr->inject_size
 * @data: remote CQ data
 * @dest_addr: as for fi_write()
 * @addr: remote address
 * @key: remote key
 *
 * fi_writemsg() of one kvec with FI_INJECT | FI_REMOTE_CQ_DATA and no
 * context.  No completion is written.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_inject_write().
 */
static inline ssize_t fi_inject_writedata(struct fid_ep *ep, const void *buf,
					  size_t len, u64 data,
					  fi_addr_t dest_addr, u64 addr,
					  u64 key)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return kofi_rma_kvec(ep, true, &iov, NULL, 1, dest_addr, addr, key,
			     NULL, data, FI_INJECT | FI_REMOTE_CQ_DATA);
}

#endif /* _KOFI_FI_RMA_H */
