/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI rxm provider: internal definitions.
 *
 * rxm is a utility provider: FI_EP_RDM endpoints over a core provider's
 * FI_EP_MSG endpoints ("ksocket;rxm", "ib_verbs;rxm"), speaking libfabric
 * 1.17's ofi_rxm protocol (rxm_proto.h).  An endpoint listens on its name
 * with a core passive endpoint and keeps one core connection per peer,
 * opened by the first send to that peer; every message is an eager
 * packet (the 64-byte header and the payload in one core send) received
 * into bounce buffers posted on each connection, then matched to the
 * posted receives by kofi.ko's receive matching.  See
 * Documentation/rxm.rst.
 */
#ifndef _KOFI_RXM_H
#define _KOFI_RXM_H

#include <linux/bvec.h>
#include <linux/in.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <kofi/fabric.h>
#include <kofi/fi_domain.h>
#include <kofi/fi_endpoint.h>
#include <kofi/fi_cm.h>
#include <kofi/fi_eq.h>
#include <kofi/fi_tagged.h>
#include <kofi/match.h>
#include <kofi/provider.h>
#include <kofi/util.h>
#include "rxm_proto.h"

#define RXM_PROV_NAME		"rxm"
#define RXM_PROV_VERSION	FI_VERSION(0, 1)

#define RXM_CAPS	(FI_MSG | FI_TAGGED | FI_SEND | FI_RECV | \
			 FI_SOURCE | FI_DIRECTED_RECV | FI_MULTI_RECV | \
			 FI_LOCAL_COMM | FI_REMOTE_COMM)

/* A packet: the header and at most the eager limit of payload. */
#define RXM_BUF_SIZE		(sizeof(struct rxm_hdr) + RXM_EAGER_LIMIT)
#define RXM_MAX_MSG_SIZE	RXM_EAGER_LIMIT
#define RXM_INJECT_SIZE		256
#define RXM_IOV_LIMIT		4
#define RXM_TX_SIZE		256
#define RXM_RX_SIZE		256
#define RXM_MIN_MULTI_RECV	RXM_MAX_MSG_SIZE

extern struct workqueue_struct *rxm_wq;
extern struct kofi_util_prov rxm_util;
extern unsigned int rxm_conn_rx_bufs;

/**
 * struct rxm_vec - a copy of a caller's data vector
 * @type: FI_IOV_KVEC or FI_IOV_BVEC (a scatterlist is kept as bvecs)
 * @count: entries used
 * @len: bytes in all entries
 * @kv: the kvecs, one left free in front for a send's header
 * @bv: the bvecs, one left free in front for a send's header
 */
struct rxm_vec {
	enum fi_iov_type type;
	unsigned int count;
	size_t len;
	union {
		struct kvec kv[RXM_IOV_LIMIT + 1];
		struct bio_vec bv[RXM_IOV_LIMIT + 1];
	};
};

/**
 * struct rxm_rx - a posted receive of the ULP
 * @me: its matching entry (on a match queue while posted)
 * @node: on the endpoint's free list when not in use
 * @flags: FI_MSG or FI_TAGGED, with FI_RECV
 * @vec: where the data goes
 */
struct rxm_rx {
	struct kofi_match_entry me;
	struct list_head node;
	u64 flags;
	struct rxm_vec vec;
};

/**
 * struct rxm_tx - a send in flight on a core connection
 * @cqe: the core operation's context
 * @ep: its endpoint
 * @context: the ULP's context
 * @flags: FI_SEND with FI_MSG or FI_TAGGED
 * @len: payload bytes
 * @inject: FI_INJECT: no completion; the payload is in @buf
 * @hdr: the packet header, sent in front of the payload
 * @vec: header and payload, as the core sends them
 * @buf: an injected payload
 */
struct rxm_tx {
	struct fi_cqe cqe;
	struct rxm_ep *ep;
	void *context;
	u64 flags;
	size_t len;
	bool inject;
	struct rxm_hdr hdr __aligned(64);
	struct rxm_vec vec;
	u8 buf[RXM_INJECT_SIZE];
};

/**
 * struct rxm_buf - a bounce buffer posted on a core connection
 * @cqe: the core receive's context
 * @me: the message's matching entry while it waits as unexpected
 * @conn: its connection; NULL once the connection is gone while the
 *	message waits (the buffer is then freed when it is received)
 * @held: the message waits on a match queue (not posted on the core)
 * @len: bytes received
 * @pkt: the packet, RXM_BUF_SIZE bytes of whole pages
 */
struct rxm_buf {
	struct fi_cqe cqe;
	struct kofi_match_entry me;
	struct rxm_conn *conn;
	bool held;
	size_t len;
	u8 *pkt;
};

/* Connection states. */
enum rxm_conn_state {
	RXM_CONN_IDLE,		/* to be connected by the CM work */
	RXM_CONN_CONNECTING,	/* our request is out */
	RXM_CONN_WAITING,	/* lost a simultaneous connect: the peer connects */
	RXM_CONN_ACCEPTING,	/* the peer's request accepted */
	RXM_CONN_CONNECTED,
	RXM_CONN_DOWN,		/* to be closed by the CM work */
};

/**
 * struct rxm_conn - a connection to one peer
 * @node: on the endpoint's list of connections
 * @ep: its endpoint
 * @fi_addr: the peer's address in the AV (FI_ADDR_NOTAVAIL if unknown)
 * @peer: the peer's name
 * @core: the core endpoint, or NULL
 * @eq: the core endpoint's private EQ, or NULL
 * @state: enum rxm_conn_state
 * @keyed: in the endpoint's table under @fi_addr
 * @id: our id of the connection (sent in the CM data)
 * @peer_id: the peer's id of it (in the header of every packet we send)
 * @users: data calls posting on @core; the CM work closes @core only
 *	when it is zero
 * @bufs: the bounce buffers
 * @nbufs: entries of @bufs
 */
struct rxm_conn {
	struct list_head node;
	struct rxm_ep *ep;
	fi_addr_t fi_addr;
	struct sockaddr_in peer;
	struct fid_ep *core;
	struct fid_eq *eq;
	enum rxm_conn_state state;
	bool keyed;
	u32 id;
	u64 peer_id;
	atomic_t users;
	struct rxm_buf **bufs;
	unsigned int nbufs;
};

/* Endpoint states. */
enum rxm_ep_state {
	RXM_EP_IDLE,
	RXM_EP_ENABLED,
	RXM_EP_CLOSING,
};

/**
 * struct rxm_ep - an FI_EP_RDM endpoint
 * @ep: the public endpoint
 * @dom: its domain
 * @info: the endpoint's own copy of its info
 * @core_info: the core info its core objects are opened with
 * @name: its name: the address its core passive endpoint listens on
 * @pep: the core passive endpoint
 * @core_eq: the private core EQ of @pep and every connection
 * @core_cq: the private core callback CQ of every connection
 * @progress: kicks @cm_work on a core EQ event
 * @cm_work: connection management (process context, rxm_wq)
 * @lock: protects the connections, the match queues, the free lists
 *	and @state
 * @state: enum rxm_ep_state
 * @conns: every connection
 * @table: connections by fi_addr
 * @next_id: the next connection id
 * @msgq: posted receives and unexpected messages, untagged
 * @tagq: the same, tagged
 * @rx_free: free receive entries
 * @rx_pool: every receive entry
 * @tx_out: sends in flight (at most tx_attr->size)
 */
struct rxm_ep {
	struct fid_ep ep;
	struct kofi_util_domain *dom;
	struct fi_info *info;
	struct fi_info *core_info;
	struct sockaddr_in name;
	struct fid_pep *pep;
	struct fid_eq *core_eq;
	struct fid_cq *core_cq;
	struct kofi_util_progress progress;
	struct work_struct cm_work;
	spinlock_t lock;	/* see above */
	enum rxm_ep_state state;
	struct list_head conns;
	struct xarray table;
	atomic_t next_id;
	struct kofi_match_queue msgq;
	struct kofi_match_queue tagq;
	struct list_head rx_free;
	struct rxm_rx *rx_pool;
	atomic_t tx_out;
};

/* rxm_ep.c */
int rxm_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep, void *context);

/* rxm_conn.c */
void rxm_cm_work(struct work_struct *work);
struct rxm_conn *rxm_conn_get(struct rxm_ep *ep, fi_addr_t addr, int *err);
bool rxm_conn_hold(struct rxm_conn *conn);
void rxm_conn_put(struct rxm_conn *conn);
void rxm_conn_fail(struct rxm_conn *conn);
void rxm_conn_close_all(struct rxm_ep *ep);

/* rxm_msg.c */
extern const struct fi_ops_msg rxm_msg_ops;
extern const struct fi_ops_tagged rxm_tagged_ops;
extern struct kmem_cache *rxm_tx_cache;
struct rxm_buf *rxm_buf_alloc(struct rxm_conn *conn);
void rxm_buf_free(struct rxm_buf *buf);
int rxm_buf_post(struct rxm_conn *conn, struct rxm_buf *buf);
void rxm_buf_done(struct fid_cq *cq, struct fi_cqe *cqe,
		  const struct fi_cq_err_entry *comp);
void rxm_rx_flush(struct rxm_ep *ep);
ssize_t rxm_cancel(struct fid *fid, void *context);

#endif /* _KOFI_RXM_H */
