/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI ksocket provider: the wire protocol.
 *
 * ksocket speaks the protocol of libfabric's tcp provider, version 3 (the
 * "tcp" provider of libfabric 1.17), so that kernel ULPs and userspace
 * libfabric applications can talk to each other.  Documentation/ksocket.rst
 * describes it in full; in short:
 *
 * Connection setup: right after the TCP connection is made the client sends
 * a 32-byte control header (struct ksock_ctrl_hdr, type KSOCK_CTRL_CONNREQ)
 * followed by seg_size bytes of connection data; the server answers with a
 * KSOCK_CTRL_CONNRESP of the same shape, or rejects with KSOCK_CTRL_NACK
 * (carrying the reject data) and closes the connection.
 *
 * Messages: every message starts with a 16-byte struct ksock_base_hdr,
 * followed by the optional parts in this order: cq_data (u64, flag
 * KSOCK_FLAG_CQ_DATA), tag (u64, flag KSOCK_FLAG_TAGGED: a message whose tag
 * its owner matches, FI_OPT_TAGGED_RX), then
 * rma_iov_cnt struct ksock_rma_iov.  hdr_size counts the base header and the
 * optional parts; size counts the header and the payload.
 *
 * Byte order: each side sends conn_data = 1 in its own byte order.  If the
 * value received is 1 both sides use host order for everything; otherwise
 * the flags, the size and every u64 after the base header are big-endian.
 * seg_size of the control header is always big-endian.
 */
#ifndef _KSOCK_PROTO_H
#define _KSOCK_PROTO_H

#include <linux/types.h>
#include <linux/build_bug.h>

#define KSOCK_PROTO_VERSION	3	/* base header version */
#define KSOCK_CTRL_VERSION	3	/* control header version */

/* struct ksock_ctrl_hdr.type */
#define KSOCK_CTRL_CONNREQ	0
#define KSOCK_CTRL_CONNRESP	1
#define KSOCK_CTRL_NACK		6

/* Largest connection data of a control message. */
#define KSOCK_CM_DATA_MAX	256

/* struct ksock_base_hdr.op */
#define KSOCK_OP_MSG		0
#define KSOCK_OP_TAGGED		1
#define KSOCK_OP_READ_REQ	2
#define KSOCK_OP_READ_RSP	3
#define KSOCK_OP_WRITE		4
#define KSOCK_OP_MAX		4

/* struct ksock_base_hdr.flags */
#define KSOCK_FLAG_CQ_DATA		0x01
#define KSOCK_FLAG_DELIVERY_COMPLETE	0x04
#define KSOCK_FLAG_COMMIT_COMPLETE	0x08
#define KSOCK_FLAG_TAGGED		0x80

/* struct ksock_base_hdr.op_data of KSOCK_OP_MSG */
#define KSOCK_OP_DATA_ACK	2

/* At most this many remote segments per RMA request. */
#define KSOCK_RMA_IOV_MAX	4
/* Largest hdr_size a peer may send. */
#define KSOCK_HDR_MAX		120

/**
 * struct ksock_ctrl_hdr - connection setup header (32 bytes)
 * @version: KSOCK_CTRL_VERSION
 * @type: KSOCK_CTRL_CONNREQ, KSOCK_CTRL_CONNRESP or KSOCK_CTRL_NACK
 * @seg_size: bytes of connection data that follow, big-endian
 * @seg_no: 0
 * @conn_id: 0
 * @msg_id: 0
 * @conn_data: 1 in the sender's byte order (endianness probe)
 */
struct ksock_ctrl_hdr {
	u8 version;
	u8 type;
	__be16 seg_size;
	u32 seg_no;
	u64 conn_id;
	u64 msg_id;
	u64 conn_data;
} __packed;

/**
 * struct ksock_base_hdr - start of every message (16 bytes)
 * @version: KSOCK_PROTO_VERSION
 * @op: KSOCK_OP_*
 * @flags: KSOCK_FLAG_* (byte order: see above)
 * @op_data: KSOCK_OP_DATA_ACK marks an acknowledgment
 * @rma_iov_cnt: number of struct ksock_rma_iov in the header
 * @hdr_size: bytes of header, optional parts included
 * @reserved: 0
 * @size: bytes of header and payload (byte order: see above)
 */
struct ksock_base_hdr {
	u8 version;
	u8 op;
	u16 flags;
	u8 op_data;
	u8 rma_iov_cnt;
	u8 hdr_size;
	u8 reserved;
	u64 size;
} __packed;

/**
 * struct ksock_rma_iov - one remote segment of an RMA request
 * @addr: remote address
 * @len: bytes
 * @key: remote key
 */
struct ksock_rma_iov {
	u64 addr;
	u64 len;
	u64 key;
} __packed;

/* Largest header ksocket itself sends: base, cq_data, four rma_iovs. */
#define KSOCK_TX_HDR_MAX	(sizeof(struct ksock_base_hdr) + sizeof(u64) + \
				 KSOCK_RMA_IOV_MAX * sizeof(struct ksock_rma_iov))

static inline void ksock_proto_checks(void)
{
	BUILD_BUG_ON(sizeof(struct ksock_ctrl_hdr) != 32);
	BUILD_BUG_ON(sizeof(struct ksock_base_hdr) != 16);
	BUILD_BUG_ON(sizeof(struct ksock_rma_iov) != 24);
	BUILD_BUG_ON(KSOCK_TX_HDR_MAX > KSOCK_HDR_MAX);
}

#endif /* _KSOCK_PROTO_H */
