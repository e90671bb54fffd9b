/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rxm: the wire format of libfabric 1.17's ofi_rxm protocol - the CM data
 * of its connections and the 64-byte header of every packet - with
 * encoders and checks as static inlines (pure logic, tested by KUnit in
 * kunit/rxm_proto_test.c).
 *
 * rxm writes its CM data and headers in the host's byte order and says
 * which one in the connection request; kOFI speaks little-endian (what
 * rxm on x86 and arm64 sends) on every host, and refuses a big-endian
 * peer as rxm itself refuses an endianness other than its own.
 */
#ifndef _RXM_PROTO_H
#define _RXM_PROTO_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#define RXM_CM_VERSION		1
#define RXM_CM_LITTLE_ENDIAN	2
#define RXM_CTRL_VERSION	4
#define RXM_OP_VERSION_CM	3	/* what the CM data says */
#define RXM_OP_VERSION_HDR	2	/* what every header says */
#define RXM_EAGER_LIMIT		16384
#define RXM_MAX_SEGMENTS	8
/* A packet at most: the header and the eager limit of payload (16448). */
#define RXM_PKT_MAX		(64 + RXM_EAGER_LIMIT)
/* Largest message over a core with RMA (rendezvous). */
#define RXM_MAX_MSG_SIZE	SZ_1G
/*
 * Over a core that registers memory by its pages (FI_MR_ALLOCATED:
 * ib_verbs) a rendezvous registers its kvec entries on each side in
 * pieces of at most RXM_REG_CHUNK, each of which a device maps with one
 * page list (rxe: 512 pages): 1 MiB spans at most 257 pages at any
 * alignment.  A request carries at most RXM_RNDV_IOV_MAX pieces, so the
 * largest message is 4 MiB (in one kvec entry; fewer bytes where the
 * entries' pieces add up to more).
 */
#define RXM_REG_CHUNK		SZ_1M
#define RXM_MAX_MSG_SIZE_REG	(RXM_RNDV_IOV_MAX * RXM_REG_CHUNK)

/* Connection request flow control (credits over verbs). */
enum rxm_flow_ctrl {
	RXM_FLOW_CTRL_LEGACY = 0,
	RXM_FLOW_CTRL_ON = 1,
	RXM_FLOW_CTRL_OFF = 2,
};

/* Reasons of a rejected connection request. */
enum rxm_reject_reason {
	RXM_REJECT_UNSPEC = 0,
	RXM_REJECT_REFUSED = 1,
	RXM_REJECT_ALREADY = 2,	/* the loser of a simultaneous connect */
};

/* Packet types (header byte 1). */
enum rxm_pkt_type {
	RXM_EAGER = 0,
	RXM_SEGMENT = 1,
	RXM_RNDV_REQ = 2,
	RXM_RNDV_RD_DONE = 3,
	RXM_ATOMIC = 4,
	RXM_ATOMIC_RESP = 5,
	RXM_CREDIT = 6,
	RXM_RNDV_WR_DATA = 7,
	RXM_RNDV_WR_DONE = 8,
	RXM_PKT_TYPES
};

/* Operations (header byte 34). */
enum rxm_op {
	RXM_OP_MSG = 0,
	RXM_OP_TAGGED = 1,
	RXM_OP_ATOMIC = 6,
	RXM_OP_FETCH_ATOMIC = 7,
	RXM_OP_COMPARE_ATOMIC = 8,
};

/* The only header flag rxm sends: FI_REMOTE_CQ_DATA's bit. */
#define RXM_FLAG_CQ_DATA	BIT(17)

/* Segment position, bits 0-1 of a segment's ctrl_data. */
#define RXM_SEG_FIRST		1
#define RXM_SEG_MIDDLE		2
#define RXM_SEG_LAST		3
#define RXM_SEG_POS_MASK	3

/**
 * struct rxm_cm_req - CM data of a connection request (24 bytes)
 * @version: RXM_CM_VERSION
 * @endianness: RXM_CM_LITTLE_ENDIAN
 * @ctrl_version: RXM_CTRL_VERSION
 * @op_version: RXM_OP_VERSION_CM
 * @port: the requester's listening port
 * @flow_ctrl: enum rxm_flow_ctrl (over tcp rxm sends RXM_FLOW_CTRL_OFF)
 * @pad: zero
 * @eager_limit: RXM_EAGER_LIMIT; must equal the receiver's
 * @rx_size: the requester's receive queue size (informational)
 * @conn_id: the requester's id of the connection (pid << 32, or its
 *	index for this peer): the accepter puts its low 32 bits in the
 *	@conn_id of every header it sends
 */
struct rxm_cm_req {
	u8 version;
	u8 endianness;
	u8 ctrl_version;
	u8 op_version;
	__le16 port;
	u8 flow_ctrl;
	u8 pad;
	__le32 eager_limit;
	__le32 rx_size;
	__le64 conn_id;
} __packed;

/**
 * struct rxm_cm_accept - CM data of an accepted request (16 bytes)
 * @conn_id: the accepter's id of the connection (as in struct rxm_cm_req)
 * @rx_size: the accepter's receive queue size
 * @flow_ctrl: enum rxm_flow_ctrl
 * @pad: zero
 */
struct rxm_cm_accept {
	__le64 conn_id;
	__le32 rx_size;
	u8 flow_ctrl;
	u8 pad[3];
} __packed;

/**
 * struct rxm_cm_reject - CM data of a rejected request (2 bytes)
 * @version: RXM_CM_VERSION
 * @reason: enum rxm_reject_reason
 */
struct rxm_cm_reject {
	u8 version;
	u8 reason;
} __packed;

/**
 * struct rxm_hdr - the header of every rxm packet (64 bytes)
 * @ctrl_version: RXM_CTRL_VERSION
 * @type: enum rxm_pkt_type
 * @seg_size: a segment's payload bytes
 * @seg_no: a segment's number, from 0
 * @conn_id: the receiver's id of the connection (low 32 bits of the conn_id
 *	it sent in the CM data)
 * @msg_id: the sender's token, echoed in replies
 * @ctrl_data: a segment's position (RXM_SEG_*), a credit grant ...
 * @op_version: RXM_OP_VERSION_HDR
 * @rx_index: 0
 * @op: enum rxm_op
 * @op_data: 0
 * @flags: RXM_FLAG_CQ_DATA or 0
 * @size: the message's size (of all segments together)
 * @data: remote CQ data
 * @tag: the tag of a tagged message
 */
struct rxm_hdr {
	u8 ctrl_version;
	u8 type;
	__le16 seg_size;
	__le32 seg_no;
	__le64 conn_id;
	__le64 msg_id;
	__le64 ctrl_data;
	u8 op_version;
	u8 rx_index;
	u8 op;
	u8 op_data;
	__le32 flags;
	__le64 size;
	__le64 data;
	__le64 tag;
} __packed;

/* Remote segments of a rendezvous request. */
#define RXM_RNDV_IOV_MAX	4

/**
 * struct rxm_rndv_iov - one remote segment of a rendezvous request
 * @addr: its address: the virtual address over a core with
 *	FI_MR_VIRT_ADDR, else the offset in its registration (0)
 * @len: its bytes
 * @key: the core's key of its registration
 */
struct rxm_rndv_iov {
	__le64 addr;
	__le64 len;
	__le64 key;
} __packed;

/**
 * struct rxm_rndv - the payload of a rendezvous request (104 bytes)
 * @iov: where the receiver reads the message from, in order
 * @count: entries of @iov used (1 to RXM_RNDV_IOV_MAX)
 * @pad: zero
 *
 * The receiver reads the message with RMA reads, then answers with an
 * RXM_RNDV_RD_DONE header echoing the request's msg_id, which completes
 * the sender's send.
 */
struct rxm_rndv {
	struct rxm_rndv_iov iov[RXM_RNDV_IOV_MAX];
	u8 count;
	u8 pad[7];
} __packed;

static_assert(sizeof(struct rxm_rndv) == 104);
static_assert(sizeof(struct rxm_cm_req) == 24);
static_assert(sizeof(struct rxm_cm_accept) == 16);
static_assert(sizeof(struct rxm_cm_reject) == 2);
static_assert(sizeof(struct rxm_hdr) == 64);
static_assert(sizeof(struct rxm_hdr) + RXM_EAGER_LIMIT == RXM_PKT_MAX);

/**
 * rxm_cm_req_fill() - the CM data of our connection request
 * @req: filled in
 * @port: our listening port (host order)
 * @flow_ctrl: enum rxm_flow_ctrl
 * @rx_size: our receive queue size
 * @conn_id: our id of the connection
 */
static inline void rxm_cm_req_fill(struct rxm_cm_req *req, u16 port,
				   u8 flow_ctrl, u32 rx_size, u64 conn_id)
{
	memset(req, 0, sizeof(*req));
	req->version = RXM_CM_VERSION;
	req->endianness = RXM_CM_LITTLE_ENDIAN;
	req->ctrl_version = RXM_CTRL_VERSION;
	req->op_version = RXM_OP_VERSION_CM;
	req->port = cpu_to_le16(port);
	req->flow_ctrl = flow_ctrl;
	req->eager_limit = cpu_to_le32(RXM_EAGER_LIMIT);
	req->rx_size = cpu_to_le32(rx_size);
	req->conn_id = cpu_to_le64(conn_id);
}

/**
 * rxm_cm_req_check() - a peer's connection request, as an accepter sees it
 * @data: its CM data
 * @len: bytes of @data
 *
 * Return: 0 if we can accept it; -EPROTO for CM data too short to be a
 * request; -EPROTONOSUPPORT for a version, byte order, control or
 * operation version or eager limit other than ours (reject it with
 * RXM_REJECT_REFUSED).
 */
static inline int rxm_cm_req_check(const void *data, size_t len)
{
	const struct rxm_cm_req *req = data;

	if (!data || len < sizeof(*req))
		return -EPROTO;
	if (req->version != RXM_CM_VERSION ||
	    req->endianness != RXM_CM_LITTLE_ENDIAN ||
	    req->ctrl_version != RXM_CTRL_VERSION ||
	    req->op_version != RXM_OP_VERSION_CM ||
	    le32_to_cpu(req->eager_limit) != RXM_EAGER_LIMIT)
		return -EPROTONOSUPPORT;
	return 0;
}

/**
 * rxm_cm_reject_reason() - why a peer rejected our request
 * @data: the reject's CM data
 * @len: bytes of @data
 *
 * Return: enum rxm_reject_reason, or -EPROTO for CM data that is not an
 * rxm reject (too short, another version).
 */
static inline int rxm_cm_reject_reason(const void *data, size_t len)
{
	const struct rxm_cm_reject *rej = data;

	if (!data || len < sizeof(*rej) || rej->version != RXM_CM_VERSION)
		return -EPROTO;
	return rej->reason;
}

/**
 * rxm_hdr_fill() - the header of a message packet
 * @hdr: filled in
 * @type: RXM_EAGER, RXM_SEGMENT or RXM_RNDV_REQ
 * @op: RXM_OP_MSG or RXM_OP_TAGGED
 * @conn_id: the receiver's id of the connection
 * @msg_id: our token
 * @size: the message's size
 * @flags: RXM_FLAG_CQ_DATA or 0
 * @data: remote CQ data
 * @tag: the tag (RXM_OP_TAGGED)
 */
static inline void rxm_hdr_fill(struct rxm_hdr *hdr, u8 type, u8 op,
				u64 conn_id, u64 msg_id, u64 size, u32 flags,
				u64 data, u64 tag)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->ctrl_version = RXM_CTRL_VERSION;
	hdr->type = type;
	hdr->conn_id = cpu_to_le64(conn_id);
	hdr->msg_id = cpu_to_le64(msg_id);
	hdr->op_version = RXM_OP_VERSION_HDR;
	hdr->op = op;
	hdr->flags = cpu_to_le32(flags);
	hdr->size = cpu_to_le64(size);
	hdr->data = cpu_to_le64(data);
	hdr->tag = cpu_to_le64(tag);
}

/**
 * rxm_hdr_check() - a received packet's header
 * @buf: the packet
 * @len: its bytes, header included
 *
 * Checks what a receiver relies on before it looks further: the versions,
 * a known type, for message packets a known operation and flags, an eager
 * message's size equal to its payload and at most the eager limit, a
 * segment's payload equal to its seg_size, at most the eager limit, and a
 * valid position; a "read done" answer and a credit grant carry no
 * payload.  A packet that fails ends the peer's connection.
 *
 * Return: 0, or -EPROTO.
 */
static inline int rxm_hdr_check(const void *buf, size_t len)
{
	const struct rxm_hdr *hdr = buf;
	size_t payload;
	u32 flags;

	if (!buf || len < sizeof(*hdr))
		return -EPROTO;
	payload = len - sizeof(*hdr);
	if (hdr->ctrl_version != RXM_CTRL_VERSION ||
	    hdr->op_version != RXM_OP_VERSION_HDR ||
	    hdr->type >= RXM_PKT_TYPES)
		return -EPROTO;
	if (hdr->type == RXM_RNDV_RD_DONE || hdr->type == RXM_CREDIT)
		return payload ? -EPROTO : 0;
	if (hdr->type != RXM_EAGER && hdr->type != RXM_SEGMENT &&
	    hdr->type != RXM_RNDV_REQ)
		return 0;
	flags = le32_to_cpu(hdr->flags);
	if ((hdr->op != RXM_OP_MSG && hdr->op != RXM_OP_TAGGED) ||
	    (flags & ~RXM_FLAG_CQ_DATA))
		return -EPROTO;
	switch (hdr->type) {
	case RXM_EAGER:
		if (le64_to_cpu(hdr->size) != payload ||
		    payload > RXM_EAGER_LIMIT)
			return -EPROTO;
		break;
	case RXM_SEGMENT:
		if (le16_to_cpu(hdr->seg_size) != payload ||
		    payload > RXM_EAGER_LIMIT ||
		    le32_to_cpu(hdr->seg_no) >= RXM_MAX_SEGMENTS ||
		    le64_to_cpu(hdr->size) >
		    (u64)RXM_MAX_SEGMENTS * RXM_EAGER_LIMIT ||
		    !(le64_to_cpu(hdr->ctrl_data) & RXM_SEG_POS_MASK))
			return -EPROTO;
		break;
	}
	return 0;
}

/**
 * rxm_rndv_check() - a received rendezvous request's payload
 * @buf: the packet, header included
 * @len: its bytes
 *
 * Call after rxm_hdr_check() passed.  Checks that the payload is exactly
 * one struct rxm_rndv holding 1 to RXM_RNDV_IOV_MAX segments whose
 * lengths add up to the message's size.
 *
 * Return: 0, or -EPROTO.
 */
static inline int rxm_rndv_check(const void *buf, size_t len)
{
	const struct rxm_hdr *hdr = buf;
	const struct rxm_rndv *r = (const void *)(hdr + 1);
	u64 total = 0;
	unsigned int i;

	if (len != sizeof(*hdr) + sizeof(*r) || !r->count ||
	    r->count > RXM_RNDV_IOV_MAX)
		return -EPROTO;
	for (i = 0; i < r->count; i++) {
		u64 l = le64_to_cpu(r->iov[i].len);

		if (l > le64_to_cpu(hdr->size) - total)
			return -EPROTO;
		total += l;
	}
	return total == le64_to_cpu(hdr->size) ? 0 : -EPROTO;
}

/**
 * rxm_rndv_pieces() - the remote segments of a rendezvous request
 * @kv: the message's kvec entries
 * @count: entries of @kv
 * @chunk: the largest registration (RXM_REG_CHUNK over a core that
 *	registers pages, else SIZE_MAX)
 *
 * Return: how many registrations the sender makes: each non-empty entry
 * in pieces of at most @chunk, from its start.
 */
static inline unsigned int rxm_rndv_pieces(const struct kvec *kv,
					   unsigned int count, size_t chunk)
{
	unsigned int i, n = 0;

	for (i = 0; i < count; i++)
		if (kv[i].iov_len)
			n += 1 + (kv[i].iov_len - 1) / chunk;
	return n;
}

/**
 * rxm_max_msg_size() - an rxm info's max_msg_size over a core
 * @core_max: the core's max_msg_size
 * @rma: the core has FI_RMA: messages above the eager limit go by
 *	rendezvous, read with the core's RMA
 * @reg_pages: the core registers memory by its pages (FI_MR_ALLOCATED,
 *	ib_verbs): a rendezvous registers each kvec entry on both sides
 *
 * Return: the eager limit without RMA; else the core's largest message,
 * at least the eager limit and at most RXM_MAX_MSG_SIZE
 * (RXM_MAX_MSG_SIZE_REG over a core that registers pages).
 */
static inline u64 rxm_max_msg_size(u64 core_max, bool rma, bool reg_pages)
{
	u64 cap = reg_pages ? RXM_MAX_MSG_SIZE_REG : RXM_MAX_MSG_SIZE;

	if (!rma)
		return RXM_EAGER_LIMIT;
	return clamp_t(u64, core_max, RXM_EAGER_LIMIT, cap);
}

/**
 * rxm_cq_data_size() - an rxm info's cq_data_size over a core
 * @core: the core's cq_data_size
 * @rma: the core has FI_RMA
 *
 * Messages carry 8 bytes of remote CQ data in rxm's header; an RMA write
 * with remote CQ data is the core's, with the core's (ib_verbs: the 4
 * bytes of an RDMA write's immediate data).
 *
 * Return: 8, or the core's if it has RMA and less.
 */
static inline size_t rxm_cq_data_size(size_t core, bool rma)
{
	return rma ? min_t(size_t, core, sizeof(u64)) : sizeof(u64);
}

/**
 * rxm_rd_per_read() - remote segments of a rendezvous one core read takes
 * @nrma: the segments to read
 * @core_limit: the core's rma_iov_limit (ib_verbs: 1)
 *
 * Return: @nrma, all in one read, if the core takes that many at once;
 * else 1: one read per segment.
 */
static inline unsigned int rxm_rd_per_read(unsigned int nrma,
					   size_t core_limit)
{
	return core_limit >= nrma ? nrma : 1;
}

/*
 * libfabric's net wire ("ksocket;net"): native reliable datagrams over tcp
 * v3 connections.  The CM data of a request, an accept and a reject is one
 * struct rxm_net_cm (8 bytes, big-endian fields); the accepter answers
 * with the request's bytes and its own pid, and rejects with the
 * request's bytes.  Messages carry no header of their own: an untagged
 * message is the core's op 0, a tagged one its op 1 with the tag.
 */
#define RXM_NET_CM_VERSION	0

/**
 * struct rxm_net_cm - net's CM data (8 bytes)
 * @version: RXM_NET_CM_VERSION
 * @resv: zero
 * @port: the requester's listening port, big-endian
 * @pid: the sender's process id (kOFI: a random id of its endpoint),
 *	big-endian
 */
struct rxm_net_cm {
	u8 version;
	u8 resv;
	__be16 port;
	__be32 pid;
} __packed;

static_assert(sizeof(struct rxm_net_cm) == 8);

/**
 * rxm_net_cm_fill() - net's CM data of our request (or accept, reject)
 * @cm: filled in
 * @port: the requester's listening port (host order)
 * @pid: our id
 */
static inline void rxm_net_cm_fill(struct rxm_net_cm *cm, u16 port, u32 pid)
{
	cm->version = RXM_NET_CM_VERSION;
	cm->resv = 0;
	cm->port = cpu_to_be16(port);
	cm->pid = cpu_to_be32(pid);
}

/**
 * rxm_net_cm_check() - a peer's net CM data
 * @data: its CM data
 * @len: bytes of @data
 *
 * Return: 0 if it is net's; -EPROTO for CM data too short;
 * -EPROTONOSUPPORT for another version.
 */
static inline int rxm_net_cm_check(const void *data, size_t len)
{
	const struct rxm_net_cm *cm = data;

	if (!data || len < sizeof(*cm))
		return -EPROTO;
	return cm->version == RXM_NET_CM_VERSION ? 0 : -EPROTONOSUPPORT;
}

#endif /* _RXM_PROTO_H */
