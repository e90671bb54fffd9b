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
 * struct fi_ops_rma - RMA operations, see the fi_read() family
 * @read: see fi_read()
 * @readv: see fi_readv()
 * @readmsg: see fi_readmsg()
 * @write: see fi_write()
 * @writev: see fi_writev()
 * @writemsg: see fi_writemsg()
 * @inject: see fi_inject_write()
 * @writedata: see fi_writedata()
 * @injectdata: see fi_inject_writedata()
 */
struct fi_ops_rma {
	ssize_t (*read)(struct fid_ep *ep, void *buf, size_t len, void *desc,
			fi_addr_t src_addr, u64 addr, u64 key, void *context);
	ssize_t (*readv)(struct fid_ep *ep, const struct kvec *iov,
			 void **desc, size_t count, fi_addr_t src_addr,
			 u64 addr, u64 key, void *context);
	ssize_t (*readmsg)(struct fid_ep *ep, const struct fi_msg_rma *msg,
			   u64 flags);
	ssize_t (*write)(struct fid_ep *ep, const void *buf, size_t len,
			 void *desc, fi_addr_t dest_addr, u64 addr, u64 key,
			 void *context);
	ssize_t (*writev)(struct fid_ep *ep, const struct kvec *iov,
			  void **desc, size_t count, fi_addr_t dest_addr,
			  u64 addr, u64 key, void *context);
	ssize_t (*writemsg)(struct fid_ep *ep, const struct fi_msg_rma *msg,
			    u64 flags);
	ssize_t (*inject)(struct fid_ep *ep, const void *buf, size_t len,
			  fi_addr_t dest_addr, u64 addr, u64 key);
	ssize_t (*writedata)(struct fid_ep *ep, const void *buf, size_t len,
			     void *desc, u64 data, fi_addr_t dest_addr,
			     u64 addr, u64 key, void *context);
	ssize_t (*injectdata)(struct fid_ep *ep, const void *buf, size_t len,
			      u64 data, fi_addr_t dest_addr, u64 addr,
			      u64 key);
};

ssize_t fi_read(struct fid_ep *ep, void *buf, size_t len, void *desc,
		fi_addr_t src_addr, u64 addr, u64 key, void *context);
ssize_t fi_readv(struct fid_ep *ep, const struct kvec *iov, void **desc,
		 size_t count, fi_addr_t src_addr, u64 addr, u64 key,
		 void *context);
ssize_t fi_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
		   u64 flags);
ssize_t fi_write(struct fid_ep *ep, const void *buf, size_t len, void *desc,
		 fi_addr_t dest_addr, u64 addr, u64 key, void *context);
ssize_t fi_writev(struct fid_ep *ep, const struct kvec *iov, void **desc,
		  size_t count, fi_addr_t dest_addr, u64 addr, u64 key,
		  void *context);
ssize_t fi_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
		    u64 flags);
ssize_t fi_inject_write(struct fid_ep *ep, const void *buf, size_t len,
			fi_addr_t dest_addr, u64 addr, u64 key);
ssize_t fi_writedata(struct fid_ep *ep, const void *buf, size_t len,
		     void *desc, u64 data, fi_addr_t dest_addr, u64 addr,
		     u64 key, void *context);
ssize_t fi_inject_writedata(struct fid_ep *ep, const void *buf, size_t len,
			    u64 data, fi_addr_t dest_addr, u64 addr, u64 key);

#endif /* _KOFI_FI_RMA_H */
