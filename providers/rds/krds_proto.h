/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI rds provider: the header of tagged messages and remote CQ data
 * between kOFI peers, and the rules of the unexpected-message queue, as
 * static inlines (pure logic, tested by KUnit in kunit/rds_proto_test.c).
 *
 * An endpoint whose info has FI_TAGGED, FI_REMOTE_CQ_DATA or FI_RMA sends
 * every message as this 24-byte header followed by the payload, and
 * expects it in front of every message it receives; an FI_MSG-only
 * endpoint sends and receives the bare payload.  RMA is carried by
 * messages: the header with KRDS_HDR_RMA, then the 32-byte RMA header,
 * then the data of a write or of a read's answer.  Every field is
 * little-endian.  See Documentation/rds.rst.
 */
#ifndef _KRDS_PROTO_H
#define _KRDS_PROTO_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>
#include <kofi/fabric.h>

#define KRDS_HDR_MAGIC		"kRDS"
#define KRDS_HDR_VERSION	1
/* The message is for the tagged receive queue: @tag counts. */
#define KRDS_HDR_TAGGED		BIT(0)
/* The message carries remote CQ data in @data. */
#define KRDS_HDR_CQ_DATA	BIT(1)
/* The message is an RMA frame: a struct krds_rma_hdr follows the header. */
#define KRDS_HDR_RMA		BIT(2)
#define KRDS_HDR_FLAGS		(KRDS_HDR_TAGGED | KRDS_HDR_CQ_DATA | \
				 KRDS_HDR_RMA)

/**
 * struct krds_hdr - the header in front of a header endpoint's message
 * @magic: KRDS_HDR_MAGIC, the four bytes "kRDS"
 * @version: KRDS_HDR_VERSION
 * @flags: KRDS_HDR_TAGGED, KRDS_HDR_CQ_DATA, KRDS_HDR_RMA; no other bit,
 *	and not KRDS_HDR_TAGGED with KRDS_HDR_RMA
 * @reserved: sent as 0, ignored on receipt
 * @tag: the tag of a tagged message; sent as 0 and ignored otherwise
 * @data: remote CQ data with KRDS_HDR_CQ_DATA; sent as 0 and ignored
 *	otherwise
 */
struct krds_hdr {
	u8 magic[4];
	u8 version;
	u8 flags;
	__le16 reserved;
	__le64 tag;
	__le64 data;
} __packed;

static_assert(sizeof(struct krds_hdr) == 24);

/**
 * struct krds_msg_desc - what a received header says of its message
 * @flags: FI_MSG, FI_TAGGED or FI_RMA (an RMA frame), with
 *	FI_REMOTE_CQ_DATA if @data counts
 * @tag: the tag (0 for FI_MSG)
 * @data: the remote CQ data (0 without FI_REMOTE_CQ_DATA)
 * @len: the payload's length: the message's less the header (an RMA
 *	frame's payload starts with its struct krds_rma_hdr)
 */
struct krds_msg_desc {
	u64 flags;
	u64 tag;
	u64 data;
	size_t len;
};

/**
 * krds_hdr_fill() - the header of a message to send
 * @hdr: the header
 * @tagged: a tagged message (fi_tsendmsg())
 * @tag: its tag (ignored unless @tagged)
 * @cq_data: the message carries remote CQ data (FI_REMOTE_CQ_DATA)
 * @data: the data (ignored unless @cq_data)
 *
 * Context: any context.
 */
static inline void krds_hdr_fill(struct krds_hdr *hdr, bool tagged, u64 tag,
				 bool cq_data, u64 data)
{
	memcpy(hdr->magic, KRDS_HDR_MAGIC, sizeof(hdr->magic));
	hdr->version = KRDS_HDR_VERSION;
	hdr->flags = (tagged ? KRDS_HDR_TAGGED : 0) |
		     (cq_data ? KRDS_HDR_CQ_DATA : 0);
	hdr->reserved = 0;
	hdr->tag = cpu_to_le64(tagged ? tag : 0);
	hdr->data = cpu_to_le64(cq_data ? data : 0);
}

/**
 * krds_hdr_parse() - check a received header and describe its message
 * @buf: the message's first bytes
 * @got: how many of them are in @buf (at most the message's length)
 * @total: the message's length, header included
 * @d: filled in if the header is valid
 *
 * Context: any context.
 * Return: 0; -EBADMSG for a message shorter than the header or without
 * the magic (not a kOFI header); -EPROTONOSUPPORT for another version;
 * -EPROTO for an unknown flag, or a tagged RMA frame.
 */
static inline int krds_hdr_parse(const void *buf, size_t got, size_t total,
				 struct krds_msg_desc *d)
{
	const struct krds_hdr *hdr = buf;

	if (!buf || got < sizeof(*hdr) || total < sizeof(*hdr) ||
	    memcmp(hdr->magic, KRDS_HDR_MAGIC, sizeof(hdr->magic)))
		return -EBADMSG;
	if (hdr->version != KRDS_HDR_VERSION)
		return -EPROTONOSUPPORT;
	if ((hdr->flags & ~KRDS_HDR_FLAGS) ||
	    (hdr->flags & (KRDS_HDR_TAGGED | KRDS_HDR_RMA)) ==
	    (KRDS_HDR_TAGGED | KRDS_HDR_RMA))
		return -EPROTO;
	if (hdr->flags & KRDS_HDR_RMA)
		d->flags = FI_RMA;
	else if (hdr->flags & KRDS_HDR_TAGGED)
		d->flags = FI_TAGGED;
	else
		d->flags = FI_MSG;
	d->tag = (hdr->flags & KRDS_HDR_TAGGED) ? le64_to_cpu(hdr->tag) : 0;
	d->data = 0;
	if (hdr->flags & KRDS_HDR_CQ_DATA) {
		d->flags |= FI_REMOTE_CQ_DATA;
		d->data = le64_to_cpu(hdr->data);
	}
	d->len = total - sizeof(*hdr);
	return 0;
}

/**
 * krds_ux_room() - may a message wait as unexpected?
 * @nr: messages waiting on its queue
 * @max: the most that may wait on one queue
 * @bytes: payload bytes waiting on all the endpoint's queues
 * @limit: the most payload bytes that may wait
 * @len: the message's payload length
 *
 * A queue takes up to @max messages, and the endpoint up to @limit bytes
 * of them - but one message of any size when none waits, so that a
 * message above @limit cannot be held back for ever.  A message that may
 * not wait stays in the socket, where RDS's congestion control holds its
 * sender back, until receives take waiting messages.
 *
 * Context: any context.
 * Return: true if the message may wait.
 */
static inline bool krds_ux_room(unsigned int nr, unsigned int max,
				size_t bytes, size_t limit, size_t len)
{
	if (nr >= max)
		return false;
	return !bytes || (bytes <= limit && len <= limit - bytes);
}

/**
 * krds_rx_truncated() - bytes of a message a receive buffer cannot hold
 * @len: the message's payload length
 * @room: the receive buffer's length
 *
 * Context: any context.
 * Return: 0 if the message fits, else the excess (the completion's olen).
 */
static inline size_t krds_rx_truncated(size_t len, size_t room)
{
	return len > room ? len - room : 0;
}

/* ---- RMA frames ---- */

/**
 * enum krds_rma_op - what an RMA frame is
 * @KRDS_RMA_WRITE: a write: the data follows, for [@addr, @addr + @len)
 *	of the region @key; answered by KRDS_RMA_WRITE_ACK
 * @KRDS_RMA_WRITE_ACK: the answer to a write: @status, @len as asked
 * @KRDS_RMA_READ: a read of [@addr, @addr + @len) of the region @key; no
 *	data; answered by KRDS_RMA_READ_DATA
 * @KRDS_RMA_READ_DATA: the answer to a read: @status, and with
 *	KRDS_RMA_OK the @len bytes asked for, which follow
 */
enum krds_rma_op {
	KRDS_RMA_WRITE = 1,
	KRDS_RMA_WRITE_ACK = 2,
	KRDS_RMA_READ = 3,
	KRDS_RMA_READ_DATA = 4,
};

/**
 * enum krds_rma_status - the target's answer to an RMA request
 * @KRDS_RMA_OK: done
 * @KRDS_RMA_NOKEY: no region has the key (ENOKEY at the initiator)
 * @KRDS_RMA_ACCESS: the region does not allow it (EACCES)
 * @KRDS_RMA_RANGE: the range is not inside the region (ERANGE)
 * @KRDS_RMA_NOTSUPP: the target endpoint takes no RMA (EOPNOTSUPP)
 * @KRDS_RMA_IO: the target failed to move the data (EIO)
 * @KRDS_RMA_STATUS_MAX: the highest status
 */
enum krds_rma_status {
	KRDS_RMA_OK,
	KRDS_RMA_NOKEY,
	KRDS_RMA_ACCESS,
	KRDS_RMA_RANGE,
	KRDS_RMA_NOTSUPP,
	KRDS_RMA_IO,
	KRDS_RMA_STATUS_MAX = KRDS_RMA_IO,
};

/**
 * struct krds_rma_hdr - the RMA header, behind a header with KRDS_HDR_RMA
 * @op: enum krds_rma_op
 * @status: enum krds_rma_status of an answer; sent as 0 in a request
 * @reserved: sent as 0, ignored on receipt
 * @id: the initiator's name of the operation, copied into the answer
 * @key: the remote key (requests; sent as 0 in answers)
 * @addr: the remote address (requests; sent as 0 in answers)
 * @len: the bytes to write or read; in an answer those asked for
 */
struct krds_rma_hdr {
	u8 op;
	u8 status;
	__le16 reserved;
	__le32 id;
	__le64 key;
	__le64 addr;
	__le64 len;
} __packed;

static_assert(sizeof(struct krds_rma_hdr) == 32);

/**
 * struct krds_rma_frame - the front of an RMA frame
 * @hdr: the header, with KRDS_HDR_RMA
 * @rma: the RMA header
 */
struct krds_rma_frame {
	struct krds_hdr hdr;
	struct krds_rma_hdr rma;
} __packed;

static_assert(sizeof(struct krds_rma_frame) == 56);

/**
 * struct krds_rma_desc - what a received RMA header says
 * @op: enum krds_rma_op
 * @status: enum krds_rma_status
 * @id: the operation's id
 * @key: the remote key
 * @addr: the remote address
 * @len: the bytes of the operation
 */
struct krds_rma_desc {
	u8 op;
	u8 status;
	u32 id;
	u64 key;
	u64 addr;
	u64 len;
};

/**
 * krds_rma_fill() - the front of an RMA frame to send
 * @f: the frame
 * @op: enum krds_rma_op
 * @status: enum krds_rma_status (answers; KRDS_RMA_OK in requests)
 * @id: the operation's id
 * @key: the remote key (requests)
 * @addr: the remote address (requests)
 * @len: the bytes of the operation
 * @cq_data: a write carries remote CQ data (FI_REMOTE_CQ_DATA)
 * @data: the data (ignored unless @cq_data)
 *
 * Context: any context.
 */
static inline void krds_rma_fill(struct krds_rma_frame *f, u8 op, u8 status,
				 u32 id, u64 key, u64 addr, u64 len,
				 bool cq_data, u64 data)
{
	krds_hdr_fill(&f->hdr, false, 0, cq_data, data);
	f->hdr.flags |= KRDS_HDR_RMA;
	f->rma.op = op;
	f->rma.status = status;
	f->rma.reserved = 0;
	f->rma.id = cpu_to_le32(id);
	f->rma.key = cpu_to_le64(key);
	f->rma.addr = cpu_to_le64(addr);
	f->rma.len = cpu_to_le64(len);
}

/**
 * krds_rma_parse() - check the RMA header of a received RMA frame
 * @f: the frame's first bytes, whose header krds_hdr_parse() took
 * @got: how many of them are in @f
 * @d: what the header said (FI_RMA); its @len becomes the data's length
 * @rd: filled in if the RMA header is valid
 *
 * A request has a known key's worth of fields; a write carries @len
 * bytes, a read none; an answer carries none, but the data of a
 * successful read (@len bytes); only a write carries remote CQ data.
 *
 * Context: any context.
 * Return: 0; -EBADMSG for a frame shorter than its RMA header; -EPROTO
 * for an unknown op or status, a length the frame does not have, or
 * remote CQ data on another op than a write.
 */
static inline int krds_rma_parse(const struct krds_rma_frame *f, size_t got,
				 struct krds_msg_desc *d,
				 struct krds_rma_desc *rd)
{
	size_t data;

	if (got < sizeof(*f) || d->len < sizeof(f->rma))
		return -EBADMSG;
	data = d->len - sizeof(f->rma);
	rd->op = f->rma.op;
	rd->status = f->rma.status;
	rd->id = le32_to_cpu(f->rma.id);
	rd->key = le64_to_cpu(f->rma.key);
	rd->addr = le64_to_cpu(f->rma.addr);
	rd->len = le64_to_cpu(f->rma.len);
	if (rd->status > KRDS_RMA_STATUS_MAX)
		return -EPROTO;
	if ((d->flags & FI_REMOTE_CQ_DATA) && rd->op != KRDS_RMA_WRITE)
		return -EPROTO;
	switch (rd->op) {
	case KRDS_RMA_WRITE:
		if (rd->status || rd->len != data)
			return -EPROTO;
		break;
	case KRDS_RMA_READ:
		if (rd->status || data)
			return -EPROTO;
		break;
	case KRDS_RMA_WRITE_ACK:
		if (data)
			return -EPROTO;
		break;
	case KRDS_RMA_READ_DATA:
		if (data != (rd->status ? 0 : rd->len))
			return -EPROTO;
		break;
	default:
		return -EPROTO;
	}
	d->len = data;
	return 0;
}

/**
 * krds_rma_status() - the answer's status for the target's outcome
 * @err: 0, or the negative errno of kofi_keytable_get() (-ENOKEY,
 *	-EACCES, -ERANGE), -EOPNOTSUPP (no RMA on the endpoint) or another
 *	one (moving the data failed)
 *
 * Context: any context.
 * Return: enum krds_rma_status.
 */
static inline u8 krds_rma_status(int err)
{
	switch (err) {
	case 0:
		return KRDS_RMA_OK;
	case -ENOKEY:
		return KRDS_RMA_NOKEY;
	case -EACCES:
		return KRDS_RMA_ACCESS;
	case -ERANGE:
		return KRDS_RMA_RANGE;
	case -EOPNOTSUPP:
		return KRDS_RMA_NOTSUPP;
	default:
		return KRDS_RMA_IO;
	}
}

/**
 * krds_rma_errno() - the initiator's completion error for an answer
 * @status: enum krds_rma_status, checked by krds_rma_parse()
 *
 * Context: any context.
 * Return: 0 or the positive errno of the completion's error entry.
 */
static inline int krds_rma_errno(u8 status)
{
	static const int err[] = {
		[KRDS_RMA_OK] = 0,
		[KRDS_RMA_NOKEY] = ENOKEY,
		[KRDS_RMA_ACCESS] = EACCES,
		[KRDS_RMA_RANGE] = ERANGE,
		[KRDS_RMA_NOTSUPP] = EOPNOTSUPP,
		[KRDS_RMA_IO] = EIO,
	};

	return status < ARRAY_SIZE(err) ? err[status] : EPROTO;
}

/*
 * An RMA operation's id: the initiator's request slot in its low 16 bits,
 * the slot's use count in the high 16, so that a late answer to an
 * operation that ended (timed out, cancelled) does not match the next one
 * in the same slot.
 */
#define KRDS_RMA_SLOTS		BIT(16)

/**
 * krds_rma_id() - the id of an RMA operation
 * @slot: the initiator's request slot, below KRDS_RMA_SLOTS
 * @gen: how many operations the slot carried before
 *
 * Context: any context.
 * Return: the id.
 */
static inline u32 krds_rma_id(u32 slot, u16 gen)
{
	return (u32)gen << 16 | (slot & (KRDS_RMA_SLOTS - 1));
}

/**
 * krds_rma_id_slot() - the request slot an answer's id names
 * @id: the id
 *
 * Context: any context.
 * Return: the slot.
 */
static inline u32 krds_rma_id_slot(u32 id)
{
	return id & (KRDS_RMA_SLOTS - 1);
}

#endif /* _KRDS_PROTO_H */
