/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kernel OpenFabrics Interface - tagged messages.
 *
 * A tagged message carries a 64-bit tag; a tagged receive takes the first
 * message whose tag equals its own but for the receive's ignore bits (and,
 * with FI_DIRECTED_RECV, whose source is the receive's).  The calls are
 * those of the message family with a tag, on endpoints whose info has
 * FI_TAGGED; their completions are read in FI_CQ_FORMAT_TAGGED, which
 * gives a receive the tag of the message it took.  Like the message calls,
 * every tagged call may be made from atomic context.
 */
#ifndef _KOFI_FI_TAGGED_H
#define _KOFI_FI_TAGGED_H

#include <linux/bits.h>
#include <kofi/fabric.h>
#include <kofi/fi_endpoint.h>

/*
 * fi_trecvmsg() flags, with FI_PEEK (libfabric's values: they share bits
 * with capabilities).
 */
#define FI_DISCARD		BIT_ULL(58)
#define FI_CLAIM		BIT_ULL(59)

/**
 * struct fi_msg_tagged - a tagged message for fi_trecvmsg() / fi_tsendmsg()
 * @iov_type: which member of the union is valid
 * @msg_iov: FI_IOV_KVEC: @iov_count kvecs
 * @msg_bvec: FI_IOV_BVEC: @iov_count bio_vecs
 * @msg_sg: FI_IOV_SG: scatterlist of @iov_count entries
 * @desc: @iov_count descriptors, or NULL
 * @iov_count: entries in the vector
 * @addr: a send's destination; a receive's source (FI_ADDR_UNSPEC: any)
 * @tag: the message's tag; the tag a receive takes
 * @ignore: a receive's tag bits that do not count (0 for a send)
 * @context: operation context, returned in the completion
 * @data: remote CQ data, sent with FI_REMOTE_CQ_DATA
 */
struct fi_msg_tagged {
	enum fi_iov_type iov_type;
	union {
		const struct kvec *msg_iov;
		const struct bio_vec *msg_bvec;
		struct scatterlist *msg_sg;
	};
	void **desc;
	size_t iov_count;
	fi_addr_t addr;
	u64 tag;
	u64 ignore;
	void *context;
	u64 data;
};

/**
 * struct fi_ops_tagged - tagged message operations of an endpoint
 * @trecvmsg: post a tagged receive, see fi_trecvmsg()
 * @tsendmsg: send a tagged message, see fi_tsendmsg()
 *
 * As struct fi_ops_msg: a provider sets both or leaves the table out
 * (@ep->tagged NULL, the core's table answers -FI_ENOSYS); the core checks
 * the arguments once and builds the other tagged calls on these two.
 */
struct fi_ops_tagged {
	ssize_t (*trecvmsg)(struct fid_ep *ep, const struct fi_msg_tagged *msg,
			    u64 flags);
	ssize_t (*tsendmsg)(struct fid_ep *ep, const struct fi_msg_tagged *msg,
			    u64 flags);
};

ssize_t fi_trecvmsg(struct fid_ep *ep, const struct fi_msg_tagged *msg,
		    u64 flags);
ssize_t fi_tsendmsg(struct fid_ep *ep, const struct fi_msg_tagged *msg,
		    u64 flags);

/*
 * kOFI extension: tagged messages over a connected endpoint, matched by its
 * owner.  A utility provider that matches tags itself (rxm) over a core
 * whose wire carries a tag in its own header (ksocket: libfabric tcp's
 * tagged frames, op 0 with flag 0x80) sends with fi_tsendmsg() on the core
 * endpoint, and receives by setting FI_OPT_TAGGED_RX on it: when the
 * header of a tagged message has arrived, the core asks the owner's
 * claim() where its payload goes, before it reads a byte of it.  A core
 * without it answers -ENOPROTOOPT to the option (and -FI_ENOSYS to
 * fi_tsendmsg()); the owner then carries the tag in its own header.
 *
 * FI_OPT_TAGGED_RX:   level FI_OPT_ENDPOINT, value a struct fi_tagged_rx
 *                     (optlen its size), set before fi_enable() (-EBUSY
 *                     after); write only.  Without it a tagged message
 *                     from the peer ends the connection as malformed.
 * FI_TAGGED_RX_POSTED: what claim() returns to have the message go to
 *                     the next receive posted with fi_recvmsg(), as an
 *                     untagged one would (waiting for one if none is).
 * FI_TAGGED_RX_RETRY: fi_control() command (arg NULL): a connection held
 *                     by claim() (-EAGAIN) asks again.  Any context, does
 *                     not sleep; 0 also when nothing is held.
 *
 * The owner of a core that speaks libfabric's net wire (rxm's net
 * protocol, "ksocket;net") sets flags in struct fi_tagged_rx:
 * FI_TAGGED_RX_MSG:   untagged messages are claimed too (frame flags
 *                     FI_MSG), so that the owner matches them as well.
 * FI_TAGGED_RX_OP:    tagged messages are tcp op 1 with the tag (net's
 *                     form) both ways, instead of op 0 with flag 0x80.
 *
 * An owner that puts a header of its own in front of its untagged
 * messages (rxm's 64 bytes) sets struct fi_tagged_rx's @hdr_len: the core
 * reads that many bytes of an untagged message ahead and claims it with
 * them (frame @hdr), so that the owner can place what follows its header
 * straight in the receive it matches.  Messages shorter than @hdr_len go
 * to the next posted receive without a claim; one the owner sends there
 * (FI_TAGGED_RX_POSTED) arrives whole, the bytes read ahead first.
 */
#define FI_OPT_TAGGED_RX	0x10001
#define FI_TAGGED_RX_POSTED	1
#define FI_TAGGED_RX_MSG	BIT_ULL(0)
#define FI_TAGGED_RX_OP		BIT_ULL(1)
#define FI_TAGGED_RX_HDR_MAX	64

/**
 * struct fi_tagged_frame - what the header of a tagged message says
 * @tag: the tag (0 for an untagged message)
 * @data: remote CQ data, if @flags has FI_REMOTE_CQ_DATA
 * @flags: FI_TAGGED (or FI_MSG, FI_TAGGED_RX_MSG or @hdr), with
 *	FI_REMOTE_CQ_DATA if the header carries data
 * @len: bytes of payload, @hdr's included
 * @hdr: an untagged message's first fi_tagged_rx.hdr_len bytes, read
 *	ahead (the owner's header); NULL for any other message
 */
struct fi_tagged_frame {
	u64 tag;
	u64 data;
	u64 flags;
	size_t len;
	const void *hdr;
};

/**
 * struct fi_tagged_dest - where claim() puts a tagged message
 * @iov_type: FI_IOV_KVEC, FI_IOV_BVEC or FI_IOV_SG
 * @msg_iov: FI_IOV_KVEC: @iov_count kvecs
 * @msg_bvec: FI_IOV_BVEC: @iov_count bio_vecs
 * @msg_sg: FI_IOV_SG: scatterlist of @iov_count entries
 * @iov_count: entries, at most the core's rx_attr->iov_limit (0: none)
 * @context: the completion's operation context
 *
 * The message is read into the vector (what follows the frame's @hdr if
 * it has one) and completes on the endpoint's receive CQ as a receive of
 * @context would: FI_RECV | FI_TAGGED (FI_MSG for an untagged one), with
 * FI_REMOTE_CQ_DATA and the data, the tag, the length placed.  Bytes that
 * do not fit are read and dropped, and the completion is an EMSGSIZE
 * error entry (olen the bytes dropped).  If the connection ends first, it
 * completes with ECANCELED.
 */
struct fi_tagged_dest {
	enum fi_iov_type iov_type;
	union {
		const struct kvec *msg_iov;
		const struct bio_vec *msg_bvec;
		struct scatterlist *msg_sg;
	};
	size_t iov_count;
	void *context;
};

/**
 * struct fi_tagged_rx - the owner's side of FI_OPT_TAGGED_RX
 * @claim: a tagged message's header arrived on @ep: 0 with @dest filled
 *	in (the message goes there), FI_TAGGED_RX_POSTED (it goes to the
 *	next posted receive), -EAGAIN (not yet: the core reads nothing more
 *	from the connection, and the peer is held back by the transport's
 *	flow control, until fi_control(FI_TAGGED_RX_RETRY) on @ep; a retry
 *	made while claim() runs counts), or another negative errno (the
 *	connection ends with that error).  Context: the core's receive
 *	context (ksocket: its socket callbacks in softirq, or process
 *	context with the socket locked); must not sleep or call the data
 *	calls of @ep.  @frame and @dest are valid during the call only; the
 *	vector @dest names is copied.
 * @flags: FI_TAGGED_RX_MSG, FI_TAGGED_RX_OP, or 0
 * @hdr_len: bytes of an untagged message read ahead and claimed with it
 *	(at most FI_TAGGED_RX_HDR_MAX); 0: untagged messages are not claimed
 *	(unless FI_TAGGED_RX_MSG, which does not go with it)
 *
 * One message of a connection is claimed at a time, in the order they
 * arrive: the next one is claimed once the previous one has completed.
 */
struct fi_tagged_rx {
	int (*claim)(struct fid_ep *ep, const struct fi_tagged_frame *frame,
		     struct fi_tagged_dest *dest);
	u64 flags;
	size_t hdr_len;
};

/**
 * kofi_tagged_kvec() - a tagged call on a kvec array, as the convenience
 *	calls make it
 * @ep: the endpoint
 * @send: fi_tsendmsg() if true, else fi_trecvmsg()
 * @iov: @count kvecs
 * @desc: @count descriptors, or NULL
 * @count: entries in @iov
 * @addr: destination or source
 * @tag: the tag
 * @ignore: ignore bits (receives)
 * @context: operation context
 * @data: remote CQ data (with FI_REMOTE_CQ_DATA in @flags)
 * @flags: operation flags
 *
 * Context: any context; does not sleep.
 * Return: as for fi_tsendmsg() or fi_trecvmsg().
 */
static inline ssize_t kofi_tagged_kvec(struct fid_ep *ep, bool send,
				       const struct kvec *iov, void **desc,
				       size_t count, fi_addr_t addr, u64 tag,
				       u64 ignore, void *context, u64 data,
				       u64 flags)
{
	struct fi_msg_tagged msg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = iov,
		.desc = desc,
		.iov_count = count,
		.addr = addr,
		.tag = tag,
		.ignore = ignore,
		.context = context,
		.data = data,
	};

	return send ? fi_tsendmsg(ep, &msg, flags) :
		      fi_trecvmsg(ep, &msg, flags);
}

/**
 * fi_trecv() - post a tagged receive buffer
 * @ep: the endpoint
 * @buf: kernel buffer
 * @len: its size
 * @desc: descriptor, or NULL
 * @src_addr: source (FI_ADDR_UNSPEC: any)
 * @tag: the tag it takes
 * @ignore: tag bits that do not count
 * @context: operation context
 *
 * fi_trecvmsg() of one kvec, flags 0.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_trecvmsg().
 */
static inline ssize_t fi_trecv(struct fid_ep *ep, void *buf, size_t len,
			       void *desc, fi_addr_t src_addr, u64 tag,
			       u64 ignore, void *context)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };

	return kofi_tagged_kvec(ep, false, &iov, desc ? &desc : NULL, 1,
				src_addr, tag, ignore, context, 0, 0);
}

/**
 * fi_trecvv() - post a tagged receive into a kvec array
 * @ep: the endpoint
 * @iov: @count kvecs
 * @desc: @count descriptors, or NULL
 * @count: entries, at most rx_attr->iov_limit
 * @src_addr: as for fi_trecv()
 * @tag: the tag it takes
 * @ignore: tag bits that do not count
 * @context: operation context
 *
 * Context: any context; does not sleep.
 * Return: as for fi_trecvmsg().
 */
static inline ssize_t fi_trecvv(struct fid_ep *ep, const struct kvec *iov,
				void **desc, size_t count, fi_addr_t src_addr,
				u64 tag, u64 ignore, void *context)
{
	return kofi_tagged_kvec(ep, false, iov, desc, count, src_addr, tag,
				ignore, context, 0, 0);
}

/**
 * fi_tsend() - send a tagged message from a kernel buffer
 * @ep: the endpoint
 * @buf: the data; untouched until the completion
 * @len: bytes
 * @desc: descriptor, or NULL
 * @dest_addr: destination
 * @tag: the message's tag
 * @context: operation context
 *
 * Context: any context; does not sleep.
 * Return: as for fi_tsendmsg().
 */
static inline ssize_t fi_tsend(struct fid_ep *ep, const void *buf,
			       size_t len, void *desc, fi_addr_t dest_addr,
			       u64 tag, void *context)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return kofi_tagged_kvec(ep, true, &iov, desc ? &desc : NULL, 1,
				dest_addr, tag, 0, context, 0, 0);
}

/**
 * fi_tsendv() - send a tagged message gathered from a kvec array
 * @ep: the endpoint
 * @iov: @count kvecs
 * @desc: @count descriptors, or NULL
 * @count: entries, at most tx_attr->iov_limit
 * @dest_addr: destination
 * @tag: the message's tag
 * @context: operation context
 *
 * Context: any context; does not sleep.
 * Return: as for fi_tsendmsg().
 */
static inline ssize_t fi_tsendv(struct fid_ep *ep, const struct kvec *iov,
				void **desc, size_t count,
				fi_addr_t dest_addr, u64 tag, void *context)
{
	return kofi_tagged_kvec(ep, true, iov, desc, count, dest_addr, tag, 0,
				context, 0, 0);
}

/**
 * fi_tinject() - send a small tagged message, buffer reusable at once
 * @ep: the endpoint
 * @buf: the data, copied before return
 * @len: bytes, at most tx_attr->inject_size
 * @dest_addr: destination
 * @tag: the message's tag
 *
 * fi_tsendmsg() with FI_INJECT and no context; no completion is written.
 *
 * Context: any context; does not sleep.
 * Return: as for fi_tsendmsg().
 */
static inline ssize_t fi_tinject(struct fid_ep *ep, const void *buf,
				 size_t len, fi_addr_t dest_addr, u64 tag)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return kofi_tagged_kvec(ep, true, &iov, NULL, 1, dest_addr, tag, 0,
				NULL, 0, FI_INJECT);
}

/**
 * fi_tsenddata() - send a tagged message with remote CQ data
 * @ep: the endpoint
 * @buf: the data
 * @len: bytes
 * @desc: descriptor, or NULL
 * @data: remote CQ data
 * @dest_addr: destination
 * @tag: the message's tag
 * @context: operation context
 *
 * Context: any context; does not sleep.
 * Return: as for fi_tsendmsg().
 */
static inline ssize_t fi_tsenddata(struct fid_ep *ep, const void *buf,
				   size_t len, void *desc, u64 data,
				   fi_addr_t dest_addr, u64 tag,
				   void *context)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return kofi_tagged_kvec(ep, true, &iov, desc ? &desc : NULL, 1,
				dest_addr, tag, 0, context, data,
				FI_REMOTE_CQ_DATA);
}

/**
 * fi_tinjectdata() - fi_tinject() with remote CQ data
 * @ep: the endpoint
 * @buf: the data, copied before return
 * @len: bytes, at most tx_attr->inject_size
 * @data: remote CQ data
 * @dest_addr: destination
 * @tag: the message's tag
 *
 * Context: any context; does not sleep.
 * Return: as for fi_tsendmsg().
 */
static inline ssize_t fi_tinjectdata(struct fid_ep *ep, const void *buf,
				     size_t len, u64 data,
				     fi_addr_t dest_addr, u64 tag)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return kofi_tagged_kvec(ep, true, &iov, NULL, 1, dest_addr, tag, 0,
				NULL, data, FI_INJECT | FI_REMOTE_CQ_DATA);
}

#endif /* _KOFI_FI_TAGGED_H */
