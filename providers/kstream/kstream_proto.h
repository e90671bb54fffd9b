/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kstream: the rsockets v1 wire protocol, as pure logic.
 *
 * Everything here works on plain values - no connection, no locking - so
 * that KUnit can test it alone (kunit/kstream_test.c):
 *
 * - the 40-byte connection data (struct kstream_conn_data) exchanged as CM
 *   data: packing, unpacking and validation, plus kOFI's extension for core
 *   providers whose remote keys are wider than 32 bits (ksocket);
 * - the 32-bit immediate of every RDMA write with immediate: bits 31:29 the
 *   operation, bits 28:0 its data;
 * - how a message goes on a core without immediate data (iWARP, rsockets'
 *   RS_OPT_MSG_SEND): the mode choice, the operations a message takes and
 *   the 4-byte value its send carries;
 * - the iomap size scale of the connection data;
 * - the 16-bit absolute credits;
 * - the send chunk choice (2 KiB, doubling to 64 KiB, limited by the send
 *   buffer and the target entry; the size reached is kept for the next send
 *   call, where rsockets starts each call at 2 KiB again).
 *
 * See Documentation/kstream.rst, "Wire protocol".
 */
#ifndef _KSTREAM_PROTO_H
#define _KSTREAM_PROTO_H

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/swab.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#define KSTREAM_PROTO_VERSION	1

/* Connection data flags. */
#define KSTREAM_CONN_FLAG_NET	0x01	/* the writer's host is big-endian */
#define KSTREAM_CONN_FLAG_IOMAP	0x02	/* always set by rsockets */

/* Operations in bits 31:29 of the immediate. */
#define KSTREAM_OP_DATA		0
#define KSTREAM_OP_SGL		4
#define KSTREAM_OP_IOMAP_SGL	6
#define KSTREAM_OP_CTRL		7

/* Data of KSTREAM_OP_CTRL. */
#define KSTREAM_CTRL_DISCONNECT	0
#define KSTREAM_CTRL_KEEPALIVE	1
#define KSTREAM_CTRL_SHUTDOWN	2

#define KSTREAM_MSG_DATA_MASK	0x1fffffffU

/* Entries of the target SGL (the receive ring's two halves). */
#define KSTREAM_SGL_SIZE	2
/* Control sends (SGL updates, CTRL) in flight at most. */
#define KSTREAM_CTRL_SLOTS	4
/* Send chunks: start size, largest size; least free send buffer to send. */
#define KSTREAM_CHUNK_START	2048
#define KSTREAM_CHUNK_MAX	65536
#define KSTREAM_SNDLOWAT	2048
/* Largest write of bytes that waited in the send buffer. */
#define KSTREAM_WRITE_MAX	((u32)SZ_1M)
/* Largest iomap size the connection data can express. */
#define KSTREAM_IOMAP_MAX	(0x7f << 8)

/**
 * struct kstream_sge - a remote buffer, as in rsockets' struct rs_sge
 * @addr: remote address (virtual or offset, as the core provider uses)
 * @key: remote key
 * @length: bytes
 *
 * The wire form (16 bytes: u64 addr, u32 key, u32 length) is the writer's
 * host order, swapped by the writer when the NET flags of the two sides
 * differ.
 */
struct kstream_sge {
	u64 addr;
	u32 key;
	u32 length;
};

/* Bytes of an iomap entry: rsockets' struct rs_iomap, and with kOFI's key. */
#define KSTREAM_IOMAP_ENTRY	24
#define KSTREAM_IOMAP_ENTRY_EXT	32

/**
 * struct kstream_iomap_ent - an iomap entry, as rsockets' struct rs_iomap
 * @offset: the iomap offset of the buffer's first byte
 * @addr: the buffer's remote address (virtual or offset, as the core uses)
 * @key: its key (low 32 bits)
 * @length: its bytes
 * @key_hi: kOFI extension (only with 64-bit keys): high 32 bits of @key
 * @reserved: zero
 *
 * The peer writes it into the iomap table that follows the target SGL
 * (KSTREAM_IOMAP_ENTRY bytes apart, KSTREAM_IOMAP_ENTRY_EXT with the key
 * extension), in the writer's host order, swapped as a ring update.
 */
struct kstream_iomap_ent {
	u64 offset;
	u64 addr;
	u32 key;
	u32 length;
	u32 key_hi;
	u32 reserved;
};

/**
 * kstream_iomap_swap() - byte swap an iomap entry (different NET flags)
 * @e: the entry, swapped in place
 *
 * Context: any context.
 */
static inline void kstream_iomap_swap(struct kstream_iomap_ent *e)
{
	e->offset = swab64(e->offset);
	e->addr = swab64(e->addr);
	e->key = swab32(e->key);
	e->length = swab32(e->length);
	e->key_hi = swab32(e->key_hi);
}

/**
 * kstream_iomap_valid() - may a peer's iomap entry be used?
 * @e: the entry, host order
 *
 * Context: any context.
 * Return: true for a non-empty entry whose address and offset ranges do
 * not wrap and whose offset is a valid (non-negative) off_t.
 */
static inline bool kstream_iomap_valid(const struct kstream_iomap_ent *e)
{
	return e->length && e->addr + e->length > e->addr &&
	       e->offset + e->length > e->offset &&
	       e->offset + e->length <= (u64)S64_MAX;
}

/**
 * kstream_iomap_find() - the entry of a table that holds an offset
 * @tab: the entries
 * @n: their number
 * @offset: the iomap offset
 *
 * Context: any context.
 * Return: the index, or -1 if no entry holds @offset.
 */
static inline int kstream_iomap_find(const struct kstream_iomap_ent *tab,
				     u32 n, u64 offset)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (tab[i].length && offset >= tab[i].offset &&
		    offset - tab[i].offset < tab[i].length)
			return i;
	return -1;
}

/**
 * struct kstream_conn_wire - the rsockets connection data as sent
 * @version: KSTREAM_PROTO_VERSION
 * @flags: KSTREAM_CONN_FLAG_*
 * @credits: the sender's receive queue size
 * @reserved: zero
 * @target_iomap_size: iomap entries offered, scaled (kstream_iomap_scale())
 * @target_sgl_addr: address of the 2-entry target SGL
 * @target_sgl_key: its key (low 32 bits)
 * @target_sgl_length: KSTREAM_SGL_SIZE
 * @data_buf_addr: first half of the receive ring
 * @data_buf_key: its key (low 32 bits)
 * @data_buf_length: bytes in the half
 * @target_sgl_key_hi: kOFI extension (only with 64-bit keys): high 32 bits
 *	of @target_sgl_key
 * @data_buf_key_hi: kOFI extension: high 32 bits of @data_buf_key
 */
struct kstream_conn_wire {
	u8 version;
	u8 flags;
	__be16 credits;
	u8 reserved[3];
	u8 target_iomap_size;
	__be64 target_sgl_addr;
	__be32 target_sgl_key;
	__be32 target_sgl_length;
	__be64 data_buf_addr;
	__be32 data_buf_key;
	__be32 data_buf_length;
	__be32 target_sgl_key_hi;
	__be32 data_buf_key_hi;
} __packed;

/* Bytes of the rsockets connection data, and with kOFI's key extension. */
#define KSTREAM_CONN_LEN	40
#define KSTREAM_CONN_LEN_EXT	48

/**
 * struct kstream_conn_data - the connection data, host order
 * @version: protocol version
 * @flags: KSTREAM_CONN_FLAG_*
 * @credits: the peer's receive queue size
 * @iomap_size: iomap entries (unscaled)
 * @target_sgl_addr: address of the target SGL
 * @target_sgl_key: its key (64 bits with the extension)
 * @target_sgl_length: entries in the target SGL
 * @data_buf: first half of the receive ring
 * @data_buf_key_hi: high 32 bits (in place, low bits zero) of the receive
 *	ring's key, with the extension; 0 otherwise
 */
struct kstream_conn_data {
	u8 version;
	u8 flags;
	u16 credits;
	u32 iomap_size;
	u64 target_sgl_addr;
	u64 target_sgl_key;
	u32 target_sgl_length;
	struct kstream_sge data_buf;
	u64 data_buf_key_hi;
};

/**
 * kstream_host_is_net() - is this host big-endian (rsockets' NET flag)?
 *
 * Context: any context.
 * Return: true on a big-endian host.
 */
static inline bool kstream_host_is_net(void)
{
#ifdef __BIG_ENDIAN
	return true;
#else
	return false;
#endif
}

/**
 * kstream_iomap_scale() - encode an iomap size for the connection data
 * @value: entries
 *
 * Context: any context.
 * Return: @value if at most 128, else 0x80 | (@value >> 8).
 */
static inline u8 kstream_iomap_scale(u32 value)
{
	if (value <= 0x80)
		return value & 0xff;
	return 0x80 | (min_t(u32, value >> 8, 0x7f) & 0x7f);
}

/**
 * kstream_iomap_unscale() - decode an iomap size of the connection data
 * @scale: the encoded value
 *
 * Context: any context.
 * Return: the number of entries.
 */
static inline u32 kstream_iomap_unscale(u8 scale)
{
	return scale & 0x80 ? (u32)(scale & 0x7f) << 8 : scale;
}

/**
 * kstream_conn_pack() - build the connection data to send
 * @c: the values, host order
 * @buf: at least KSTREAM_CONN_LEN_EXT bytes
 * @wide_keys: append the high key halves (core keys wider than 32 bits)
 *
 * Context: any context.
 * Return: bytes to send: KSTREAM_CONN_LEN or KSTREAM_CONN_LEN_EXT.
 */
static inline size_t kstream_conn_pack(const struct kstream_conn_data *c,
				       void *buf, bool wide_keys)
{
	struct kstream_conn_wire w = {};

	w.version = c->version;
	w.flags = c->flags;
	w.credits = cpu_to_be16(c->credits);
	w.target_iomap_size = kstream_iomap_scale(c->iomap_size);
	w.target_sgl_addr = cpu_to_be64(c->target_sgl_addr);
	w.target_sgl_key = cpu_to_be32(lower_32_bits(c->target_sgl_key));
	w.target_sgl_length = cpu_to_be32(c->target_sgl_length);
	w.data_buf_addr = cpu_to_be64(c->data_buf.addr);
	w.data_buf_key = cpu_to_be32(c->data_buf.key);
	w.data_buf_length = cpu_to_be32(c->data_buf.length);
	w.target_sgl_key_hi = cpu_to_be32(upper_32_bits(c->target_sgl_key));
	w.data_buf_key_hi = cpu_to_be32(upper_32_bits(c->data_buf_key_hi));
	memcpy(buf, &w, sizeof(w));
	return wide_keys ? KSTREAM_CONN_LEN_EXT : KSTREAM_CONN_LEN;
}

/**
 * kstream_conn_unpack() - check and decode the peer's connection data
 * @buf: the bytes received
 * @len: their number
 * @c: the decoded values
 *
 * With the extension (@len >= KSTREAM_CONN_LEN_EXT) the keys get their
 * high halves: @c->target_sgl_key in full, @c->data_buf_key_hi the high
 * half (shifted) of every receive ring key.
 *
 * Context: any context.
 * Return: 0; -EPROTO if too short; -EOPNOTSUPP for another version (as the
 * active side of rsockets fails); -EPROTO for a target SGL that is not 2
 * entries or an empty or odd-sized first ring half.
 */
static inline int kstream_conn_unpack(const void *buf, size_t len,
				      struct kstream_conn_data *c)
{
	struct kstream_conn_wire w = {};

	if (!buf || len < KSTREAM_CONN_LEN)
		return -EPROTO;
	memcpy(&w, buf, min(len, sizeof(w)));
	memset(c, 0, sizeof(*c));
	c->version = w.version;
	if (c->version != KSTREAM_PROTO_VERSION)
		return -EOPNOTSUPP;
	c->flags = w.flags;
	c->credits = be16_to_cpu(w.credits);
	c->iomap_size = kstream_iomap_unscale(w.target_iomap_size);
	c->target_sgl_addr = be64_to_cpu(w.target_sgl_addr);
	c->target_sgl_key = be32_to_cpu(w.target_sgl_key);
	c->target_sgl_length = be32_to_cpu(w.target_sgl_length);
	c->data_buf.addr = be64_to_cpu(w.data_buf_addr);
	c->data_buf.key = be32_to_cpu(w.data_buf_key);
	c->data_buf.length = be32_to_cpu(w.data_buf_length);
	if (len >= KSTREAM_CONN_LEN_EXT) {
		c->target_sgl_key |= (u64)be32_to_cpu(w.target_sgl_key_hi) << 32;
		c->data_buf_key_hi = (u64)be32_to_cpu(w.data_buf_key_hi) << 32;
	}
	if (c->target_sgl_length != KSTREAM_SGL_SIZE || !c->data_buf.length ||
	    c->data_buf.addr + c->data_buf.length < c->data_buf.addr)
		return -EPROTO;
	return 0;
}

/**
 * kstream_msg() - the immediate of a message
 * @op: KSTREAM_OP_*
 * @data: its data, 29 bits
 *
 * Context: any context.
 * Return: the 32-bit immediate (host order; the core provider puts it on
 * the wire big-endian).
 */
static inline u32 kstream_msg(u32 op, u32 data)
{
	return (op << 29) | (data & KSTREAM_MSG_DATA_MASK);
}

/**
 * kstream_msg_op() - operation of an immediate
 * @msg: the immediate
 *
 * Context: any context.
 * Return: bits 31:29.
 */
static inline u32 kstream_msg_op(u32 msg)
{
	return msg >> 29;
}

/**
 * kstream_msg_data() - data of an immediate
 * @msg: the immediate
 *
 * Context: any context.
 * Return: bits 28:0.
 */
static inline u32 kstream_msg_data(u32 msg)
{
	return msg & KSTREAM_MSG_DATA_MASK;
}

/**
 * enum kstream_msg_mode - how the messages of a stream go on the wire
 * @KSTREAM_MSG_IMM: each message is the 32-bit immediate (remote CQ data)
 *	of an RDMA write, zero-length when it carries no bytes; the
 *	receives posted are zero-length
 * @KSTREAM_MSG_SEND: the core has no immediate data (iWARP): each message
 *	is a KSTREAM_MSG_SIZE-byte send of its value in the sender's host
 *	order, after the RDMA write of its bytes if it carries any; each
 *	receive posted has a KSTREAM_MSG_SIZE-byte buffer (rsockets'
 *	RS_OPT_MSG_SEND)
 *
 * Each side chooses by itself from its core (kstream_msg_mode_choose()),
 * as rsockets does from its device; the connection data is the same.
 */
enum kstream_msg_mode {
	KSTREAM_MSG_IMM,
	KSTREAM_MSG_SEND,
};

/* Bytes of the value a message's send carries (KSTREAM_MSG_SEND). */
#define KSTREAM_MSG_SIZE	4

/**
 * kstream_msg_mode_choose() - how messages go over a core
 * @cq_data: the core delivers at least 32 bits of remote CQ data
 * @inject_size: bytes the core sends inline (copied at post time)
 *
 * With remote CQ data the messages are immediates; without, they are
 * sends of KSTREAM_MSG_SIZE bytes, which the core must take inline, as
 * rsockets requires.
 *
 * Context: any context.
 * Return: KSTREAM_MSG_IMM or KSTREAM_MSG_SEND; -EOPNOTSUPP if the core can
 * carry messages neither way.
 */
static inline int kstream_msg_mode_choose(bool cq_data, size_t inject_size)
{
	if (cq_data)
		return KSTREAM_MSG_IMM;
	if (inject_size < KSTREAM_MSG_SIZE)
		return -EOPNOTSUPP;
	return KSTREAM_MSG_SEND;
}

/**
 * kstream_wr_per_req() - core send operations a request may post
 * @mode: the stream's enum kstream_msg_mode
 *
 * Context: any context.
 * Return: 2 in KSTREAM_MSG_SEND mode (write and send), else 1.
 */
static inline u32 kstream_wr_per_req(enum kstream_msg_mode mode)
{
	return mode == KSTREAM_MSG_SEND ? 2 : 1;
}

/* What kstream_post_ops() posts. */
#define KSTREAM_POST_WRITE	0x1	/* an RMA write (of the bytes, if any) */
#define KSTREAM_POST_IMM	0x2	/* ... with the message as its immediate */
#define KSTREAM_POST_SEND	0x4	/* a send of the message, last */

/**
 * kstream_post_ops() - the core operations of one write of the stream
 * @mode: the stream's enum kstream_msg_mode
 * @is_msg: the write is a message (ring update, data, mapping, control)
 *	rather than a plain write (keepalive, iowrite)
 * @len: bytes written
 *
 * A plain write is an RMA write in either mode.  A message is one write
 * with immediate in KSTREAM_MSG_IMM mode; in KSTREAM_MSG_SEND mode the
 * write of its bytes (none without bytes) and then the send of its value,
 * which the peer sees only after the bytes, as RC transmits in order.
 *
 * Context: any context.
 * Return: KSTREAM_POST_* bits.
 */
static inline u32 kstream_post_ops(enum kstream_msg_mode mode, bool is_msg,
				   size_t len)
{
	if (!is_msg)
		return KSTREAM_POST_WRITE;
	if (mode == KSTREAM_MSG_IMM)
		return KSTREAM_POST_WRITE | KSTREAM_POST_IMM;
	return len ? KSTREAM_POST_WRITE | KSTREAM_POST_SEND : KSTREAM_POST_SEND;
}

/**
 * kstream_msg_put() - the bytes a message's send carries
 * @msg: the message (kstream_msg())
 * @buf: KSTREAM_MSG_SIZE bytes
 *
 * The value in this host's byte order, as rsockets sends it (not
 * big-endian like the immediate).
 *
 * Context: any context.
 */
static inline void kstream_msg_put(u32 msg, void *buf)
{
	__be32 be = cpu_to_be32(msg);
	__le32 le = cpu_to_le32(msg);

	if (kstream_host_is_net())
		memcpy(buf, &be, sizeof(be));
	else
		memcpy(buf, &le, sizeof(le));
}

/**
 * kstream_msg_get() - the message a received send carries
 * @buf: the KSTREAM_MSG_SIZE bytes received
 * @peer_net: the peer's host is big-endian (its KSTREAM_CONN_FLAG_NET)
 *
 * The peer wrote the value in its own host order.
 *
 * Context: any context.
 * Return: the message.
 */
static inline u32 kstream_msg_get(const void *buf, bool peer_net)
{
	__be32 be;
	__le32 le;

	memcpy(&be, buf, sizeof(be));
	memcpy(&le, buf, sizeof(le));
	return peer_net ? be32_to_cpu(be) : le32_to_cpu(le);
}

/**
 * kstream_msg_valid() - is an immediate one a peer may send?
 * @msg: the immediate
 * @iomap_size: iomap entries this side offered
 *
 * Context: any context.
 * Return: true for DATA, SGL, IOMAP_SGL within @iomap_size and the three
 * CTRL messages; false for anything else.
 */
static inline bool kstream_msg_valid(u32 msg, u32 iomap_size)
{
	switch (kstream_msg_op(msg)) {
	case KSTREAM_OP_DATA:
	case KSTREAM_OP_SGL:
		return true;
	case KSTREAM_OP_IOMAP_SGL:
		return kstream_msg_data(msg) < iomap_size;
	case KSTREAM_OP_CTRL:
		return kstream_msg_data(msg) <= KSTREAM_CTRL_SHUTDOWN;
	default:
		return false;
	}
}

/**
 * kstream_credits_ok() - may the peer's new credit limit be taken?
 * @sseq_no: data messages sent so far (16 bits)
 * @old_comp: the current limit
 * @new_comp: the limit the peer sent
 *
 * Credits are absolute and only move forward, never below what was sent.
 *
 * Context: any context.
 * Return: true if @new_comp is acceptable.
 */
static inline bool kstream_credits_ok(u16 sseq_no, u16 old_comp, u16 new_comp)
{
	return ((new_comp - old_comp) & 0xffff) < 0x8000 &&
	       ((new_comp - sseq_no) & 0xffff) < 0x8000;
}

/**
 * kstream_sge_swap() - byte swap an rs_sge (different NET flags)
 * @s: the entry, swapped in place
 *
 * Context: any context.
 */
static inline void kstream_sge_swap(struct kstream_sge *s)
{
	s->addr = swab64(s->addr);
	s->key = swab32(s->key);
	s->length = swab32(s->length);
}

/**
 * kstream_sge_valid() - may a peer's ring update be used?
 * @s: the update, host order
 * @max_len: largest length accepted
 *
 * Context: any context.
 * Return: true for a non-empty entry of at most @max_len bytes whose
 * address range does not wrap.
 */
static inline bool kstream_sge_valid(const struct kstream_sge *s,
				     u32 max_len)
{
	return s->length && s->length <= max_len &&
	       s->addr + s->length > s->addr;
}

/**
 * struct kstream_tx_state - what limits the next send and the next write
 * @olen: the endpoint's next chunk size (0: KSTREAM_CHUNK_START)
 * @sbuf_avail: free bytes of the send buffer
 * @sqe_avail: free data send slots
 * @credits: data messages the peer still accepts
 * @target: bytes left in the current target entry
 * @target_next: bytes in the other target entry (used once @target is 0)
 */
struct kstream_tx_state {
	u32 olen;
	u32 sbuf_avail;
	u32 sqe_avail;
	u32 credits;
	u32 target;
	u32 target_next;
};

/**
 * kstream_chunk_next() - the next chunk size of a send, before its limits
 * @olen: in/out: the chunk size, starting at KSTREAM_CHUNK_START and
 *	doubling to KSTREAM_CHUNK_MAX with each chunk that leaves more
 * @left: bytes still to send, not 0
 *
 * As rsockets' rs_send(): a send starts small and doubles its chunks, so
 * that a small send goes at once and a large one in few writes.
 *
 * Context: any context.
 * Return: @left if it fits in @olen, else @olen as it was.
 */
static inline u32 kstream_chunk_next(u32 *olen, size_t left)
{
	u32 x = *olen;

	if (x >= left)
		return left;
	if (x < KSTREAM_CHUNK_MAX)
		*olen = x << 1;
	return x;
}

/**
 * kstream_tx_chunk() - size of the next chunk a send copies
 * @s: the limits; consumed by the chunk returned
 * @left: bytes still to send
 * @olen: in/out: the chunk size, starting at KSTREAM_CHUNK_START and
 *	doubling to KSTREAM_CHUNK_MAX
 *
 * A send takes bytes while at least KSTREAM_SNDLOWAT bytes of send buffer
 * are free (rsockets' low-water mark); each chunk is written as soon as
 * the peer's ring, a credit and a send slot allow (kstream_tx_write_size()).
 *
 * Context: any context.
 * Return: bytes of the next chunk, 0 if the send buffer is full.
 */
static inline u32 kstream_tx_chunk(struct kstream_tx_state *s, size_t left,
				   u32 *olen)
{
	u32 xfer;

	if (!left || s->sbuf_avail < KSTREAM_SNDLOWAT)
		return 0;
	xfer = min(kstream_chunk_next(olen, left), s->sbuf_avail);
	s->sbuf_avail -= xfer;
	return xfer;
}

/**
 * kstream_tx_plan() - bytes a send of @len would accept now (FI_PEEK)
 * @s: the limits (a copy: consumed)
 * @len: bytes offered
 *
 * Context: any context.
 * Return: bytes that kstream_tx_chunk() would hand out for @len.
 */
static inline size_t kstream_tx_plan(struct kstream_tx_state *s, size_t len)
{
	u32 olen = s->olen ? s->olen : KSTREAM_CHUNK_START, x;
	size_t done = 0;

	while (done < len) {
		x = kstream_tx_chunk(s, len - done, &olen);
		if (!x)
			break;
		done += x;
	}
	return done;
}

/**
 * kstream_tx_write_size() - size of the next write of copied bytes
 * @s: the limits; consumed by the write returned
 * @queued: bytes copied into the send buffer and not yet written
 *
 * As rsockets: a write needs a slot, a credit and a non-empty target
 * entry, and never spans two target entries.  Bytes that waited for them
 * go in one write, up to KSTREAM_WRITE_MAX: while the peer's ring is full
 * the sends go on filling the send buffer, and the peer then takes what
 * they copied in one write, one completion and one wake-up of its reader,
 * instead of one per chunk.
 *
 * Context: any context.
 * Return: bytes of the next write, 0 if nothing can be written now.
 */
static inline u32 kstream_tx_write_size(struct kstream_tx_state *s,
					u32 queued)
{
	u32 xfer;

	if (!queued || !s->sqe_avail || !s->credits)
		return 0;
	if (!s->target) {
		s->target = s->target_next;
		s->target_next = 0;
		if (!s->target)
			return 0;
	}
	xfer = min3(queued, s->target, KSTREAM_WRITE_MAX);
	s->target -= xfer;
	s->sqe_avail--;
	s->credits--;
	return xfer;
}

#endif /* _KSTREAM_PROTO_H */
