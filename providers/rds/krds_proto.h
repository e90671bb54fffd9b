/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI rds provider: the header of tagged messages and remote CQ data
 * between kOFI peers, and the rules of the unexpected-message queue, as
 * static inlines (pure logic, tested by KUnit in kunit/rds_proto_test.c).
 *
 * An endpoint whose info has FI_TAGGED or FI_REMOTE_CQ_DATA sends every
 * message as this 24-byte header followed by the payload, and expects it
 * in front of every message it receives; an FI_MSG-only endpoint sends and
 * receives the bare payload.  Every field is little-endian.  See
 * Documentation/rds.rst.
 */
#ifndef _KRDS_PROTO_H
#define _KRDS_PROTO_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
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
#define KRDS_HDR_FLAGS		(KRDS_HDR_TAGGED | KRDS_HDR_CQ_DATA)

/**
 * struct krds_hdr - the header in front of a header endpoint's message
 * @magic: KRDS_HDR_MAGIC, the four bytes "kRDS"
 * @version: KRDS_HDR_VERSION
 * @flags: KRDS_HDR_TAGGED, KRDS_HDR_CQ_DATA; no other bit
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
 * @flags: FI_MSG or FI_TAGGED, with FI_REMOTE_CQ_DATA if @data counts
 * @tag: the tag (0 for FI_MSG)
 * @data: the remote CQ data (0 without FI_REMOTE_CQ_DATA)
 * @len: the payload's length: the message's less the header
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
 * -EPROTO for an unknown flag.
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
	if (hdr->flags & ~KRDS_HDR_FLAGS)
		return -EPROTO;
	d->flags = (hdr->flags & KRDS_HDR_TAGGED) ? FI_TAGGED : FI_MSG;
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

#endif /* _KRDS_PROTO_H */
