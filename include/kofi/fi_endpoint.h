/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kernel OpenFabrics Interface - endpoints and message transfers.
 *
 * An active endpoint (struct fid_ep) transfers data; a passive endpoint
 * (struct fid_pep) listens for connection requests.  Message data calls
 * take kernel memory: a plain buffer, an array of struct kvec, or a struct
 * fi_msg whose vector is tagged as kvec, bio_vec or scatterlist.  Every
 * data call may be made from atomic context; none sleeps.
 */
#ifndef _KOFI_FI_ENDPOINT_H
#define _KOFI_FI_ENDPOINT_H

#include <kofi/fabric.h>
#include <kofi/fi_domain.h>

struct fi_ops_cm;
struct fi_ops_rma;

/* fi_setopt()/fi_getopt() level */
#define FI_OPT_ENDPOINT		0

/*
 * Endpoint options, as in libfabric.  Every value is a size_t
 * (optlen = sizeof(size_t)); a provider answers -ENOPROTOOPT for an option
 * it does not have (-FI_ENOSYS if it has no options at all).
 * FI_OPT_MIN_MULTI_RECV:  free space below which a multi-receive buffer is
 *                         released
 * FI_OPT_CM_DATA_SIZE:    largest connection data (read only)
 * FI_OPT_BUFFERED_LIMIT:  largest message delivered from provider buffers
 * FI_OPT_BUFFERED_MIN:    smallest part of a message delivered first
 * FI_OPT_SEND_BUF_SIZE:   send buffer bytes
 * FI_OPT_RECV_BUF_SIZE:   receive buffer bytes
 * FI_OPT_TX_SIZE:         transmit queue depth
 * FI_OPT_RX_SIZE:         receive queue depth
 * Options that only one provider has, and its defaults for these, are in
 * that provider's header, <kofi/PROVIDER.h>; their numbers do not collide
 * with these.
 */
#define FI_OPT_MIN_MULTI_RECV	0
#define FI_OPT_CM_DATA_SIZE	1
#define FI_OPT_BUFFERED_LIMIT	2
#define FI_OPT_BUFFERED_MIN	3
#define FI_OPT_SEND_BUF_SIZE	4
#define FI_OPT_RECV_BUF_SIZE	5
#define FI_OPT_TX_SIZE		6
#define FI_OPT_RX_SIZE		7

/**
 * struct fi_msg - a message for fi_sendmsg() / fi_recvmsg()
 * @iov_type: which member of the union is valid
 * @msg_iov: FI_IOV_KVEC: @iov_count kvecs
 * @msg_bvec: FI_IOV_BVEC: @iov_count bio_vecs
 * @msg_sg: FI_IOV_SG: scatterlist of @iov_count entries
 * @desc: @iov_count local descriptors (fi_mr_desc()), or NULL
 * @iov_count: entries in the vector, at most tx/rx_attr->iov_limit
 * @addr: peer address (FI_EP_RDM), FI_ADDR_UNSPEC for connected endpoints
 * @context: operation context, returned in the completion
 * @data: remote CQ data, sent with FI_REMOTE_CQ_DATA
 */
struct fi_msg {
	enum fi_iov_type iov_type;
	union {
		const struct kvec *msg_iov;
		const struct bio_vec *msg_bvec;
		struct scatterlist *msg_sg;
	};
	void **desc;
	size_t iov_count;
	fi_addr_t addr;
	void *context;
	u64 data;
};

/**
 * struct fi_ops_ep - endpoint control operations
 * @cancel: see fi_cancel()
 * @getopt: see fi_getopt()
 * @setopt: see fi_setopt()
 */
struct fi_ops_ep {
	ssize_t (*cancel)(struct fid *fid, void *context);
	int (*getopt)(struct fid *fid, int level, int optname, void *optval,
		      size_t *optlen);
	int (*setopt)(struct fid *fid, int level, int optname,
		      const void *optval, size_t optlen);
};

/**
 * struct fi_ops_msg - message operations, see the fi_send() family
 * @recv: see fi_recv()
 * @recvv: see fi_recvv()
 * @recvmsg: see fi_recvmsg()
 * @send: see fi_send()
 * @sendv: see fi_sendv()
 * @sendmsg: see fi_sendmsg()
 * @inject: see fi_inject()
 * @senddata: see fi_senddata()
 * @injectdata: see fi_injectdata()
 */
struct fi_ops_msg {
	ssize_t (*recv)(struct fid_ep *ep, void *buf, size_t len, void *desc,
			fi_addr_t src_addr, void *context);
	ssize_t (*recvv)(struct fid_ep *ep, const struct kvec *iov,
			 void **desc, size_t count, fi_addr_t src_addr,
			 void *context);
	ssize_t (*recvmsg)(struct fid_ep *ep, const struct fi_msg *msg,
			   u64 flags);
	ssize_t (*send)(struct fid_ep *ep, const void *buf, size_t len,
			void *desc, fi_addr_t dest_addr, void *context);
	ssize_t (*sendv)(struct fid_ep *ep, const struct kvec *iov,
			 void **desc, size_t count, fi_addr_t dest_addr,
			 void *context);
	ssize_t (*sendmsg)(struct fid_ep *ep, const struct fi_msg *msg,
			   u64 flags);
	ssize_t (*inject)(struct fid_ep *ep, const void *buf, size_t len,
			  fi_addr_t dest_addr);
	ssize_t (*senddata)(struct fid_ep *ep, const void *buf, size_t len,
			    void *desc, u64 data, fi_addr_t dest_addr,
			    void *context);
	ssize_t (*injectdata)(struct fid_ep *ep, const void *buf, size_t len,
			      u64 data, fi_addr_t dest_addr);
};

/**
 * struct fid_ep - an active endpoint
 * @fid: object identity, class FI_CLASS_EP
 * @ops: control operations
 * @cm: connection management operations (fi_cm.h)
 * @msg: message operations
 * @rma: RMA operations (fi_rma.h)
 */
struct fid_ep {
	struct fid fid;
	const struct fi_ops_ep *ops;
	const struct fi_ops_cm *cm;
	const struct fi_ops_msg *msg;
	const struct fi_ops_rma *rma;
};

/**
 * struct fid_pep - a passive (listening) endpoint
 * @fid: object identity, class FI_CLASS_PEP
 * @ops: control operations
 * @cm: connection management operations (fi_cm.h)
 */
struct fid_pep {
	struct fid fid;
	const struct fi_ops_ep *ops;
	const struct fi_ops_cm *cm;
};

int fi_endpoint(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep, void *context);
int fi_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
		  struct fid_pep **pep, void *context);
int fi_ep_bind(struct fid_ep *ep, struct fid *bfid, u64 flags);
int fi_pep_bind(struct fid_pep *pep, struct fid *bfid, u64 flags);
int fi_enable(struct fid_ep *ep);
ssize_t fi_cancel(struct fid *fid, void *context);
int fi_setopt(struct fid *fid, int level, int optname, const void *optval,
	      size_t optlen);
int fi_getopt(struct fid *fid, int level, int optname, void *optval,
	      size_t *optlen);

ssize_t fi_recv(struct fid_ep *ep, void *buf, size_t len, void *desc,
		fi_addr_t src_addr, void *context);
ssize_t fi_recvv(struct fid_ep *ep, const struct kvec *iov, void **desc,
		 size_t count, fi_addr_t src_addr, void *context);
ssize_t fi_recvmsg(struct fid_ep *ep, const struct fi_msg *msg, u64 flags);
ssize_t fi_send(struct fid_ep *ep, const void *buf, size_t len, void *desc,
		fi_addr_t dest_addr, void *context);
ssize_t fi_sendv(struct fid_ep *ep, const struct kvec *iov, void **desc,
		 size_t count, fi_addr_t dest_addr, void *context);
ssize_t fi_sendmsg(struct fid_ep *ep, const struct fi_msg *msg, u64 flags);
ssize_t fi_inject(struct fid_ep *ep, const void *buf, size_t len,
		  fi_addr_t dest_addr);
ssize_t fi_senddata(struct fid_ep *ep, const void *buf, size_t len,
		    void *desc, u64 data, fi_addr_t dest_addr, void *context);
ssize_t fi_injectdata(struct fid_ep *ep, const void *buf, size_t len,
		      u64 data, fi_addr_t dest_addr);

#endif /* _KOFI_FI_ENDPOINT_H */
