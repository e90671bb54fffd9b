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

#include <linux/uio.h>
#include <kofi/fabric.h>
#include <kofi/fi_domain.h>

struct fi_ops_cm;
struct fi_ops_rma;
struct fi_ops_tagged;

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

/*
 * kOFI extensions: endpoint options that are not libfabric's, known to
 * every provider (numbers from 0x10000, clear of libfabric's and of the
 * providers' own).
 *
 * FI_OPT_DATA_MAY_SLEEP:  non-zero: the ULP promises that every data call
 *                         on the endpoint (fi_send()/fi_recv()/fi_write()/
 *                         fi_read() and their msg forms) is made from a
 *                         context that may sleep - a task, no spinlock or
 *                         RCU read lock held, interrupts enabled.  A
 *                         provider may then do the I/O in the caller's
 *                         context instead of deferring it to a work item.
 *                         Zero (default): a data call may come from any
 *                         context.  Set it before fi_enable(): a
 *                         provider that uses it refuses it afterwards
 *                         (-EBUSY; kstream, whose options are fixed from
 *                         its connection on, -EISCONN once connecting);
 *                         a provider that does not use it accepts and
 *                         ignores it (fi_setopt() answers 0 for it).
 *                         The operation flag FI_MAY_SLEEP (fabric.h)
 *                         makes the same promise for one call.
 */
#define FI_OPT_DATA_MAY_SLEEP	0x10000

/*
 * FI_OPT_TAGGED_RX (0x10001), in <kofi/fi_tagged.h>: a connected
 * endpoint's tagged messages matched by its owner (ksocket; the others
 * answer -ENOPROTOOPT).
 *
 * FI_OPT_RETRY_COUNT (0x10003) and FI_OPT_ACK_TIMEOUT (0x10004), in
 * <kofi/ib_verbs.h>: an RC connection's transport retries and ACK timeout
 * (ib_verbs; the others answer -ENOPROTOOPT).
 */

/*
 * Shared by the providers that have it (ib_verbs, ksocket; others answer
 * -ENOPROTOOPT).  Its number predates the kOFI range and is kept.
 *
 * FI_OPT_KEEPALIVE_MS:    milliseconds between keepalive probes of a
 *                         connected endpoint, 0 for none (the default is
 *                         the provider's keepalive_ms module parameter);
 *                         a peer that stopped answering is reported as an
 *                         ETIMEDOUT error entry on the EQ.  The limits and
 *                         the time to report are the provider's
 *                         (Documentation/ib_verbs.rst, ksocket.rst).
 */
#define FI_OPT_KEEPALIVE_MS	17

/*
 * Shared by the providers that have it (ksocket, rxm; others answer
 * -ENOPROTOOPT).
 *
 * FI_OPT_CONNECT_TIMEOUT_MS: milliseconds a connection attempt may take,
 *                         0 for no bound (the default is the provider's
 *                         connect_timeout_ms module parameter); one not
 *                         up by then fails with ETIMEDOUT (ksocket: an
 *                         EQ error entry answering fi_connect(); rxm: the
 *                         next send to the peer answers -ETIMEDOUT).  It
 *                         bounds the attempts started after it is set.
 */
#define FI_OPT_CONNECT_TIMEOUT_MS	0x10002

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
 * @enable: make an active endpoint ready for data calls, see fi_enable();
 *	the core calls it with no fi_ep_bind() of the endpoint in progress
 *	and admits none until it returns (none at all once it succeeded).
 *	An endpoint that needs no setup leaves it out: fi_enable() then
 *	succeeds.  Not used for passive endpoints.
 *
 * Every member is optional; a call whose operation is left out answers
 * -FI_ENOSYS unless its description says otherwise.
 */
struct fi_ops_ep {
	ssize_t (*cancel)(struct fid *fid, void *context);
	int (*getopt)(struct fid *fid, int level, int optname, void *optval,
		      size_t *optlen);
	int (*setopt)(struct fid *fid, int level, int optname,
		      const void *optval, size_t optlen);
	int (*enable)(struct fid_ep *ep);
};

/**
 * struct fi_ops_msg - message operations of an endpoint
 * @recvmsg: post a receive, see fi_recvmsg()
 * @sendmsg: post a send, see fi_sendmsg()
 *
 * A provider implements one operation per family of data calls: the
 * *msg form, which takes the whole description of the transfer (a struct
 * fi_msg) and the operation flags.  The core checks the arguments once,
 * in fi_recvmsg() and fi_sendmsg(), and builds the other calls of the
 * family on them (fi_recv(), fi_send(), fi_inject() ... below).  Every
 * table of data operations (this one, struct fi_ops_rma) follows that
 * pattern.
 *
 * A provider sets both members or leaves the table out (@ep->msg NULL):
 * the core then installs a table whose operations answer -FI_ENOSYS.
 * fi_endpoint() refuses an endpoint whose table has only one of them.
 * The operations run in any context the provider documents and never
 * sleep for long (see fi_sendmsg()).
 */
struct fi_ops_msg {
	ssize_t (*recvmsg)(struct fid_ep *ep, const struct fi_msg *msg,
			   u64 flags);
	ssize_t (*sendmsg)(struct fid_ep *ep, const struct fi_msg *msg,
			   u64 flags);
};

/**
 * struct fid_ep - an active endpoint
 * @fid: object identity, class FI_CLASS_EP
 * @ops: control operations
 * @cm: connection management operations (fi_cm.h)
 * @msg: message operations, never NULL once fi_endpoint() returned it
 * @rma: RMA operations (fi_rma.h), never NULL once fi_endpoint()
 *	returned it
 * @tagged: tagged message operations (fi_tagged.h), never NULL once
 *	fi_endpoint() returned it
 */
struct fid_ep {
	struct fid fid;
	const struct fi_ops_ep *ops;
	const struct fi_ops_cm *cm;
	const struct fi_ops_msg *msg;
	const struct fi_ops_rma *rma;
	const struct fi_ops_tagged *tagged;
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

ssize_t fi_recvmsg(struct fid_ep *ep, const struct fi_msg *msg, u64 flags);
ssize_t fi_sendmsg(struct fid_ep *ep, const struct fi_msg *msg, u64 flags);

/**
 * kofi_msg_kvec() - a message call on a kvec array, as the
 *	convenience calls make it
 * @ep: the endpoint
 * @send: fi_sendmsg() if true, else fi_recvmsg()
 * @iov: @count kvecs
 * @desc: @count descriptors, or NULL
 * @count: entries in @iov
 * @addr: peer address (FI_EP_RDM), FI_ADDR_UNSPEC otherwise
 * @context: operation context
 * @data: remote CQ data (with FI_REMOTE_CQ_DATA in @flags)
 * @flags: operation flags
 *
 * Context: any context; does not sleep.
 * Return: as for fi_sendmsg() or fi_recvmsg().
 */
static inline ssize_t kofi_msg_kvec(struct fid_ep *ep, bool send,
				    const struct kvec *iov, void **desc,
				    size_t count, fi_addr_t addr,
				    void *context, u64 data, u64 flags)
{
	struct fi_msg msg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = iov,
		.desc = desc,
		.iov_count = count,
		.addr = addr,
		.context = context,
		.data = data,
	};

	return send ? fi_sendmsg(ep, &msg, flags) : fi_recvmsg(ep, &msg, flags);
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
 * fi_recvmsg() of one kvec, flags 0.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_recvmsg(); -EINVAL for a NULL @buf with @len.
 */
static inline ssize_t fi_recv(struct fid_ep *ep, void *buf, size_t len,
			      void *desc, fi_addr_t src_addr, void *context)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };

	return kofi_msg_kvec(ep, false, &iov, desc ? &desc : NULL, 1,
			     src_addr, context, 0, 0);
}

/**
 * fi_recvv() - post a receive into a kvec array
 * @ep: the endpoint
 * @iov: @count kvecs
 * @desc: @count descriptors, or NULL
 * @count: entries, at most rx_attr->iov_limit
 * @src_addr: as for fi_recv()
 * @context: operation context
 *
 * fi_recvmsg() of @iov, flags 0.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_recvmsg().
 */
static inline ssize_t fi_recvv(struct fid_ep *ep, const struct kvec *iov,
			       void **desc, size_t count, fi_addr_t src_addr,
			       void *context)
{
	return kofi_msg_kvec(ep, false, iov, desc, count, src_addr, context,
			     0, 0);
}

/**
 * fi_send() - send a message from a kernel buffer
 * @ep: the endpoint
 * @buf: the data; must stay untouched until the completion
 * @len: bytes, at most ep_attr->max_msg_size
 * @desc: fi_mr_desc() of a region holding @buf, or NULL
 * @dest_addr: destination (FI_EP_RDM), FI_ADDR_UNSPEC otherwise
 * @context: operation context, returned in the completion
 *
 * fi_sendmsg() of one kvec, flags 0.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_sendmsg(); -EINVAL for a NULL @buf with @len.
 */
static inline ssize_t fi_send(struct fid_ep *ep, const void *buf, size_t len,
			      void *desc, fi_addr_t dest_addr, void *context)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return kofi_msg_kvec(ep, true, &iov, desc ? &desc : NULL, 1,
			     dest_addr, context, 0, 0);
}

/**
 * fi_sendv() - send a message gathered from a kvec array
 * @ep: the endpoint
 * @iov: @count kvecs
 * @desc: @count descriptors, or NULL
 * @count: entries, at most tx_attr->iov_limit
 * @dest_addr: as for fi_send()
 * @context: operation context
 *
 * fi_sendmsg() of @iov, flags 0.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_sendmsg().
 */
static inline ssize_t fi_sendv(struct fid_ep *ep, const struct kvec *iov,
			       void **desc, size_t count, fi_addr_t dest_addr,
			       void *context)
{
	return kofi_msg_kvec(ep, true, iov, desc, count, dest_addr, context,
			     0, 0);
}

/**
 * fi_inject() - send a small message, buffer reusable at once
 * @ep: the endpoint
 * @buf: the data, copied before return
 * @len: bytes, at most tx_attr->inject_size
 * @dest_addr: as for fi_send()
 *
 * fi_sendmsg() of one kvec with FI_INJECT and no context.  No completion
 * is written.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_send(); -EMSGSIZE above the inject size.
 */
static inline ssize_t fi_inject(struct fid_ep *ep, const void *buf,
				size_t len, fi_addr_t dest_addr)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return kofi_msg_kvec(ep, true, &iov, NULL, 1, dest_addr, NULL, 0,
			     FI_INJECT);
}

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
 * fi_sendmsg() of one kvec with FI_REMOTE_CQ_DATA.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_send().
 */
static inline ssize_t fi_senddata(struct fid_ep *ep, const void *buf,
				  size_t len, void *desc, u64 data,
				  fi_addr_t dest_addr, void *context)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return kofi_msg_kvec(ep, true, &iov, desc ? &desc : NULL, 1,
			     dest_addr, context, data, FI_REMOTE_CQ_DATA);
}

/**
 * fi_injectdata() - fi_inject() with remote CQ data
 * @ep: the endpoint
 * @buf: the data, copied before return
 * @len: bytes, at most tx_attr->inject_size
 * @data: remote CQ data
 * @dest_addr: as for fi_send()
 *
 * fi_sendmsg() of one kvec with FI_INJECT | FI_REMOTE_CQ_DATA and no
 * context.  No completion is written.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_inject().
 */
static inline ssize_t fi_injectdata(struct fid_ep *ep, const void *buf,
				    size_t len, u64 data, fi_addr_t dest_addr)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return kofi_msg_kvec(ep, true, &iov, NULL, 1, dest_addr, NULL, data,
			     FI_INJECT | FI_REMOTE_CQ_DATA);
}

#endif /* _KOFI_FI_ENDPOINT_H */
