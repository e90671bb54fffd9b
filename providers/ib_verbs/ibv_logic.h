/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI ib_verbs provider: logic that needs no device.
 *
 * Pure functions shared by the provider and its KUnit suites
 * (kunit/ib_verbs_*_test.c include this header, so everything here is
 * static inline and uses no symbol of the provider module):
 *
 * - send/receive queue credits: a post takes one, its completion returns
 *   it, a post without a credit is refused with -EAGAIN;
 * - the errno of an rdma_cm event that failed a connection, and of one
 *   that invalidated a connection request not yet accepted;
 * - what an asynchronous QP event does to the endpoint;
 * - work completion status to errno mapping;
 * - libfabric's verbs CM data format (one size byte, then the data), and
 *   raw CM data (FI_OPT_CM_DATA_RAW);
 * - the byte order of the immediate data of FI_REMOTE_CQ_DATA;
 * - the page layout of a memory region (how many pages an FRWR maps).
 */
#ifndef _KOFI_IBV_LOGIC_H
#define _KOFI_IBV_LOGIC_H

#include <asm/byteorder.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <kofi/fi_eq.h>

/* libfabric verbs: user CM data follows a one-byte size header. */
#define IBV_CM_HDR_SIZE		1
/* Largest user CM data: 56 bytes of IB CM REQ private data, less the header. */
#define IBV_CM_DATA_MAX		55
/*
 * Raw CM data (FI_OPT_CM_DATA_RAW): what the IB CM carries after rdma_cm's
 * own header for RDMA_PS_TCP, per message - REQ (fi_connect()), REP
 * (fi_accept()) and REJ (fi_reject()).  The receiver gets the message's
 * whole private data area, zero padded: 56, 196 and 148 bytes.
 */
#define IBV_CM_RAW_REQ_MAX	56
#define IBV_CM_RAW_REP_MAX	196
#define IBV_CM_RAW_REJ_MAX	148

/**
 * struct ibv_credit - free slots of a work queue
 * @avail: slots that may be posted now
 * @size: slots in the queue
 *
 * Not locked: the caller serialises (the endpoint's spinlock).
 */
struct ibv_credit {
	u32 avail;
	u32 size;
};

static inline void ibv_credit_init(struct ibv_credit *c, u32 size)
{
	c->avail = size;
	c->size = size;
}

/* Take @n credits; false (nothing taken) if fewer are available. */
static inline bool ibv_credit_take(struct ibv_credit *c, u32 n)
{
	if (n > c->avail)
		return false;
	c->avail -= n;
	return true;
}

/* Return @n credits; false if that would exceed the queue (a bug). */
static inline bool ibv_credit_put(struct ibv_credit *c, u32 n)
{
	if (n > c->size - c->avail)
		return false;
	c->avail += n;
	return true;
}

static inline bool ibv_credit_idle(const struct ibv_credit *c)
{
	return c->avail == c->size;
}

/**
 * ibv_cm_errno() - negative errno for a failed connection event
 * @event: the event
 * @status: the event's status (negative errno, or a reject reason)
 *
 * Return: the negative errno the endpoint reports for @event.
 */
static inline int ibv_cm_errno(enum rdma_cm_event_type event, int status)
{
	switch (event) {
	case RDMA_CM_EVENT_REJECTED:
		return -ECONNREFUSED;
	case RDMA_CM_EVENT_UNREACHABLE:
		return status == -ETIMEDOUT ? -ETIMEDOUT : -EHOSTUNREACH;
	case RDMA_CM_EVENT_ADDR_ERROR:
		return status < 0 && status > -MAX_ERRNO ? status :
		       -EADDRNOTAVAIL;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return status < 0 && status > -MAX_ERRNO ? status :
		       -ENETUNREACH;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DISCONNECTED:
		return -ECONNRESET;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return -EADDRNOTAVAIL;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return -ENODEV;
	default:
		return -EIO;
	}
}

/**
 * ibv_connreq_errno() - what an rdma_cm event does to a pending request
 * @event: an event on the identifier of a connection request that the
 *	user has neither accepted nor rejected
 *
 * The device going away makes the request answer -ENODEV; the peer
 * giving up (its reject, a disconnect, a connection error) or the address
 * changing makes it answer -ECONNABORTED.  Other events cannot end a
 * request that is not accepted and leave it as it is.
 *
 * Return: the negative errno fi_endpoint() and fi_accept() answer from
 * now on, or 0 if the request stays valid.
 */
static inline int ibv_connreq_errno(enum rdma_cm_event_type event)
{
	switch (event) {
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return -ENODEV;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return -ECONNABORTED;
	default:
		return 0;
	}
}

/* What an endpoint does with an asynchronous event of its QP. */
enum ibv_qp_verdict {
	IBV_QP_IGNORE,		/* nothing (logged at debug level) */
	IBV_QP_NOTIFY,		/* passed to rdma_notify() */
	IBV_QP_FAIL,		/* the QP is unusable: the connection ends */
};

/**
 * ibv_qp_action() - what the endpoint does with a QP event
 * @event: the event
 *
 * COMM_EST (a message arrived before the connection's RTU) goes to
 * rdma_notify(), which completes the connection on the IB CM; the
 * affiliated errors (QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR) end the
 * connection; everything else (SQ_DRAINED, LAST_WQE_REACHED, path
 * migration) needs nothing, as the endpoint uses neither SRQs nor
 * alternate paths.
 *
 * Return: the action.
 */
static inline enum ibv_qp_verdict ibv_qp_action(enum ib_event_type event)
{
	switch (event) {
	case IB_EVENT_COMM_EST:
		return IBV_QP_NOTIFY;
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		return IBV_QP_FAIL;
	default:
		return IBV_QP_IGNORE;
	}
}

/**
 * ibv_qp_errno() - the error a failed QP reports on the endpoint's EQ
 * @event: an event for which ibv_qp_action() is IBV_QP_FAIL
 *
 * EIO for all three (the error entry's prov_errno is the event, which
 * tells them apart).
 *
 * Return: the negative errno, or 0 for an event that does not fail the QP.
 */
static inline int ibv_qp_errno(enum ib_event_type event)
{
	return ibv_qp_action(event) == IBV_QP_FAIL ? -EIO : 0;
}

/**
 * ibv_wc_errno() - negative errno of a failed work completion (0: success)
 * @status: the completion status
 *
 * Return: 0 for IB_WC_SUCCESS, otherwise a negative errno.
 */
static inline int ibv_wc_errno(enum ib_wc_status status)
{
	switch (status) {
	case IB_WC_SUCCESS:
		return 0;
	case IB_WC_WR_FLUSH_ERR:
		return -ECANCELED;
	case IB_WC_LOC_LEN_ERR:
		return -EMSGSIZE;
	case IB_WC_REM_ACCESS_ERR:
	case IB_WC_LOC_ACCESS_ERR:
	case IB_WC_LOC_PROT_ERR:
	case IB_WC_MW_BIND_ERR:
		return -EACCES;
	case IB_WC_REM_INV_REQ_ERR:
	case IB_WC_REM_OP_ERR:
		return -EREMOTEIO;
	case IB_WC_RETRY_EXC_ERR:
	case IB_WC_RNR_RETRY_EXC_ERR:
	case IB_WC_RESP_TIMEOUT_ERR:
		return -ETIMEDOUT;
	case IB_WC_REM_ABORT_ERR:
		return -ECONNRESET;
	default:
		return -EIO;
	}
}

/**
 * ibv_cm_data_pack() - build connection private data
 * @buf: output, at least IBV_CM_HDR_SIZE + @len bytes
 * @data: user data, or NULL
 * @len: bytes of user data, at most IBV_CM_DATA_MAX
 *
 * Return: bytes written to @buf, or -EINVAL if @len is too large.
 */
static inline int ibv_cm_data_pack(u8 *buf, const void *data, size_t len)
{
	if (len > IBV_CM_DATA_MAX || (!data && len))
		return -EINVAL;
	buf[0] = len;
	if (len)
		memcpy(buf + IBV_CM_HDR_SIZE, data, len);
	return IBV_CM_HDR_SIZE + len;
}

/**
 * ibv_cm_data_unpack() - find the user data in received private data
 * @priv: private data of the event, or NULL
 * @privlen: its length (the transport may pad it)
 * @len: set to the user data length (0 if none or malformed)
 *
 * Return: the user data, or NULL if there is none.  A size byte larger
 * than what was received is treated as no data.
 */
static inline const void *ibv_cm_data_unpack(const void *priv, size_t privlen,
					     size_t *len)
{
	const u8 *p = priv;

	*len = 0;
	if (!p || privlen < IBV_CM_HDR_SIZE || !p[0] ||
	    p[0] > privlen - IBV_CM_HDR_SIZE || p[0] > IBV_CM_DATA_MAX)
		return NULL;
	*len = p[0];
	return p + IBV_CM_HDR_SIZE;
}

/**
 * ibv_cm_data_build() - connection private data, in either format
 * @buf: output, at least IBV_CM_HDR_SIZE + @len bytes (@len when @raw)
 * @data: user data, or NULL
 * @len: bytes of user data
 * @raw: FI_OPT_CM_DATA_RAW: the data as given, no size byte
 * @raw_max: largest raw data of the message (IBV_CM_RAW_*_MAX)
 *
 * Return: bytes written to @buf, or -EINVAL if @len is too large.
 */
static inline int ibv_cm_data_build(u8 *buf, const void *data, size_t len,
				    bool raw, size_t raw_max)
{
	if (!raw)
		return ibv_cm_data_pack(buf, data, len);
	if (len > raw_max || (!data && len))
		return -EINVAL;
	if (len)
		memcpy(buf, data, len);
	return len;
}

/**
 * ibv_cm_data_get() - the user data of received private data
 * @priv: private data of the event, or NULL
 * @privlen: its length
 * @raw: FI_OPT_CM_DATA_RAW: every byte received is user data
 * @max: most bytes to hand on (the EQ entry's limit)
 * @len: set to the user data length
 *
 * Return: the user data, or NULL if there is none.
 */
static inline const void *ibv_cm_data_get(const void *priv, size_t privlen,
					  bool raw, size_t max, size_t *len)
{
	if (!raw)
		return ibv_cm_data_unpack(priv, privlen, len);
	*len = priv ? min(privlen, max) : 0;
	return *len ? priv : NULL;
}

/**
 * ibv_imm_data() - the immediate of FI_REMOTE_CQ_DATA on the wire
 * @data: the remote CQ data (cq_data_size 4: its low 32 bits)
 *
 * Big-endian, as libfabric's verbs provider and librdmacm's rsockets
 * (htonl() to send, be32toh() to read).
 *
 * Return: the immediate data of the work request.
 */
static inline __be32 ibv_imm_data(u64 data)
{
	return cpu_to_be32(lower_32_bits(data));
}

/**
 * ibv_mr_pages() - pages an FRWR must map for [addr, addr + len)
 * @addr: first byte (a kernel virtual address or a page offset)
 * @len: bytes, > 0
 * @page_size: the MR page size, a power of two
 *
 * Return: the number of pages, 0 if @len is 0.
 */
static inline unsigned long ibv_mr_pages(unsigned long addr, size_t len,
					 unsigned long page_size)
{
	unsigned long first = addr & ~(page_size - 1);
	unsigned long last = (addr + len - 1) & ~(page_size - 1);

	if (!len)
		return 0;
	return (last - first) / page_size + 1;
}

/**
 * ibv_mr_vec_ok() - can a vector of segments be one FRWR region?
 * @idx: segment index
 * @n: segments
 * @addr: start of segment @idx
 * @len: its length
 * @page_size: the MR page size
 *
 * An FRWR maps a list of pages: every segment but the first must start on
 * a page boundary, every segment but the last must end on one.
 *
 * Return: true if segment @idx of @n can be mapped.
 */
static inline bool ibv_mr_vec_ok(size_t idx, size_t n, unsigned long addr,
				 size_t len, unsigned long page_size)
{
	if (idx && (addr & (page_size - 1)))
		return false;
	if (idx + 1 < n && ((addr + len) & (page_size - 1)))
		return false;
	return len > 0;
}

#endif /* _KOFI_IBV_LOGIC_H */
