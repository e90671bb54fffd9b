/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI ksocket provider: objects and declarations shared by its files.
 *
 * Locking and contexts:
 * - ksock_ep.lock (irq-safe spinlock) protects an endpoint's state, its
 *   request pools and queues.  The data calls (fi_send() ...) take it, so
 *   they may be made from any context.
 * - The receive engine (ksock_rx.c, struct ksock_rx) belongs to whoever
 *   holds the socket's lock: the data-ready callback (softirq, or process
 *   context when release_sock() replays the backlog), the endpoint's work
 *   or a data call posting a receive, both under lock_sock().  It never
 *   sleeps and never takes ksock_ep.tx_mutex.
 * - The transmit engine (ksock_tx.c: tx_cur, ack_hdr, ack_sent) belongs to
 *   the holder of ksock_ep.tx_mutex: the endpoint's work, or a data call
 *   whose ULP promised that it may sleep - on an endpoint with
 *   FI_OPT_DATA_MAY_SLEEP, or with FI_MAY_SLEEP in the call's flags
 *   (ksock_ep_can_direct()) - which sends at once instead of scheduling
 *   the work.  tx_mutex may be held around lock_sock(), never the other
 *   way round.
 * - The end of a connection (ksock_ep_down()) and connection setup run in
 *   the work (io_work on ksock_wq); the engines only record a failure
 *   (ksock_ep_fail()) and schedule it.
 * - A passive endpoint accepts connections and reads their connection
 *   requests in its own work item.
 */
#ifndef _KSOCK_H
#define _KSOCK_H

#include <linux/net.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <linux/bvec.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <kofi/provider.h>
#include <kofi/fi_tagged.h>
#include "ksock_proto.h"

#define KSOCK_PROV_NAME		"ksocket"
#define KSOCK_PROV_VERSION	FI_VERSION(1, 0)

#define KSOCK_MAX_MSG_SIZE	SZ_1G
#define KSOCK_IOV_LIMIT		8
#define KSOCK_INJECT_SIZE	64
#define KSOCK_TX_SIZE		256
#define KSOCK_RX_SIZE		256
#define KSOCK_RSP_SIZE		16	/* read responses in flight per ep */
#define KSOCK_BACKLOG		128
/* How often a request the full EQ of its listener held is offered again. */
#define KSOCK_CREQ_RETRY_MS	10
/* Bytes an endpoint's work moves before it yields to other work. */
#define KSOCK_WORK_BUDGET	(4 << 20)
/* Bytes the data-ready callback or a data call moves before it hands over. */
#define KSOCK_DIRECT_BUDGET	(256 << 10)
/*
 * A connected socket that sent nothing for this long (to twice as long)
 * gives back the page fragment TCP copies sent data into.
 */
#define KSOCK_IDLE_MS		500

/* Bits of ksock_ep.idle. */
enum {
	KSOCK_IDLE_ARMED,	/* idle_timer runs */
	KSOCK_IDLE_SENT,	/* something was sent since it was armed */
	KSOCK_IDLE_CHECK,	/* it fired: the work looks */
};

extern struct workqueue_struct *ksock_wq;
extern struct kmem_cache *ksock_req_cache;
extern struct kofi_provider ksock_prov;
extern bool ksock_debug;
extern unsigned int ksock_keepalive_ms;
extern unsigned int ksock_connect_timeout_ms;

/* Largest FI_OPT_CONNECT_TIMEOUT_MS: a day. */
#define KSOCK_CONNECT_TIMEOUT_MAX_MS	86400000U

/* FI_OPT_KEEPALIVE_MS: probes before the peer is given up, largest value */
#define KSOCK_KEEPALIVE_PROBES	3
#define KSOCK_KEEPALIVE_MAX_MS	(MAX_TCP_KEEPINTVL * 1000U)

/* Trace connection and frame events when the debug parameter is set. */
#define ksock_dbg(fmt, ...)						\
	do {								\
		if (ksock_debug)					\
			pr_info("ksocket: " fmt, ##__VA_ARGS__);	\
	} while (0)

/* Byte order helpers for the fields that follow the peer's order. */
static inline u64 ksock_to_wire64(bool bswap, u64 v)
{
	return bswap ? (__force u64)cpu_to_be64(v) : v;
}

static inline u64 ksock_from_wire64(bool bswap, u64 v)
{
	return bswap ? be64_to_cpu((__force __be64)v) : v;
}

static inline u16 ksock_to_wire16(bool bswap, u16 v)
{
	return bswap ? (__force u16)cpu_to_be16(v) : v;
}

static inline u16 ksock_from_wire16(bool bswap, u16 v)
{
	return bswap ? be16_to_cpu((__force __be16)v) : v;
}

struct ksock_fabric {
	struct fid_fabric fabric;
};

enum ksock_req_kind {
	KSOCK_REQ_SEND,		/* message */
	KSOCK_REQ_WRITE,	/* RMA write */
	KSOCK_REQ_READ,		/* RMA read request (local: destination) */
	KSOCK_REQ_READ_RSP,	/* response to a peer's read request */
	KSOCK_REQ_RECV,		/* posted receive */
	KSOCK_REQ_TRECV,	/* tagged message its owner placed (claim()) */
};

/**
 * struct ksock_req - one operation (posted by the user or internal)
 * @op: outstanding-operation record (user operations only)
 * @node: queue or free list linkage, under ksock_ep.lock
 * @kind: enum ksock_req_kind; ksock_req_put() finds the request's pool
 *	from it
 * @user: @op is on the endpoint's operation list
 * @signal: write a completion when done
 * @need_ack: wait for the peer's ACK before completing
 * @in_tx: on ack_wait or read_wait while the transmit engine still holds
 *	it (ep->lock)
 * @answered: the peer answered it while @in_tx: the transmit engine
 *	completes it (ep->lock)
 * @nseg: payload segments in @iter
 * @seg: current segment (engines only)
 * @hdr_len: bytes of header in @hdr
 * @hdr_sent: bytes of @hdr sent
 * @len: payload bytes
 * @cq_flags: completion flags
 * @data: remote CQ data (sends: to send; receives: received)
 * @tag: tag (tagged sends: to send; receives: received)
 * @rx_flags: receives: extra completion flags (FI_REMOTE_CQ_DATA)
 * @vec: copy of the user's local vector; a kvec vector starts at kv[1],
 *	kv[0] being the header of a send, so that header and payload go to
 *	the socket in one call
 * @iter: payload source (sends, writes, read responses) or destination
 *	(receives, reads), one per segment
 * @ke: read responses: the regions read, referenced
 * @hdr: header to send
 * @inject: inline payload of injected operations
 */
struct ksock_req {
	struct kofi_op op;
	struct list_head node;
	u8 kind;
	bool user;
	bool signal;
	bool need_ack;
	bool in_tx;
	bool answered;
	u8 nseg;
	u8 seg;
	u8 hdr_len;
	u8 hdr_sent;
	size_t len;
	u64 cq_flags;
	u64 data;
	u64 tag;
	u64 rx_flags;
	union {
		struct kvec kv[1 + KSOCK_IOV_LIMIT];
		struct bio_vec bv[KSOCK_IOV_LIMIT];
	} vec;
	struct iov_iter iter[KSOCK_RMA_IOV_MAX];
	struct kofi_key_entry *ke[KSOCK_RMA_IOV_MAX];
	u8 hdr[KSOCK_TX_HDR_MAX] __aligned(8);
	u8 inject[KSOCK_INJECT_SIZE] __aligned(8);
};

/**
 * struct ksock_pool - an endpoint's requests of one kind
 * @free: requests not in use
 * @count: requests allocated, in use or free; allocated when the free
 *	list is empty, freed with the endpoint
 * @max: the most @count may reach: the size of the queue
 * @kind: what ksock_req_get() sets ksock_req.kind to; ksock_req_put()
 *	finds the pool from it
 * @grow: an atomic allocation failed; the endpoint's work allocates a
 *	request for the pool
 *
 * Every field is protected by ksock_ep.lock.
 */
struct ksock_pool {
	struct list_head free;
	unsigned int count;
	unsigned int max;
	u8 kind;
	bool grow;
};

enum ksock_ep_state {
	KSOCK_EP_IDLE,		/* opened, not connected */
	KSOCK_EP_CONNECTING,	/* TCP connect in progress */
	KSOCK_EP_REQ_SENT,	/* connection request sent, awaiting answer */
	KSOCK_EP_ACCEPTING,	/* passive side, awaiting fi_accept() */
	KSOCK_EP_CONNECTED,
	KSOCK_EP_DOWN,		/* shut down, rejected or failed */
	KSOCK_EP_CLOSING,	/* fi_close() in progress */
};

enum ksock_rx_state {
	KSOCK_RX_HDR,		/* reading a message header */
	KSOCK_RX_WAIT,		/* header read, waiting for a receive */
	KSOCK_RX_PEEK,		/* reading an untagged message's first bytes */
	KSOCK_RX_CLAIM,		/* tagged header read, asking its owner */
	KSOCK_RX_DATA,		/* reading payload */
	KSOCK_RX_DISCARD,	/* discarding what did not fit */
	KSOCK_RX_CTRL,		/* reading the connection response */
	KSOCK_RX_END,		/* the connection ended; read nothing more */
};

/* What the receive engine is doing; owned by the socket lock's holder. */
struct ksock_rx {
	enum ksock_rx_state state;
	u32 got;			/* header bytes read */
	u32 need;			/* header bytes expected */
	union {
		struct ksock_base_hdr base;
		struct ksock_ctrl_hdr ctrl;
		u8 raw[KSOCK_HDR_MAX + KSOCK_CM_DATA_MAX];
	} hdr;
	u64 cq_data;
	u64 tag;
	struct ksock_rma_iov rma[KSOCK_RMA_IOV_MAX];	/* host order */
	struct ksock_req *req;		/* receive or read being filled */
	struct kofi_key_entry *ke[KSOCK_RMA_IOV_MAX];	/* write target */
	struct iov_iter iter[KSOCK_RMA_IOV_MAX];
	u8 nseg;
	u8 seg;
	u64 left;			/* payload bytes still to read */
	u64 discard;			/* then bytes to throw away */
	size_t done;			/* payload bytes placed */
	/* an untagged message's first bytes, read ahead (FI_OPT_TAGGED_RX) */
	u8 peek[FI_TAGGED_RX_HDR_MAX] __aligned(8);
	u32 peeked;			/* bytes of @peek read */
	u32 skipped;			/* of them, bytes the owner took */
	bool ack;			/* send an ACK once done */
	bool stopped;			/* waits for a receive, or ended */
};

/**
 * struct ksock_ep - an active endpoint
 * @ep: the kOFI object
 * @dom: its domain
 * @info: copy of the info it was opened with
 * @net: network namespace of its sockets (its creator's), referenced
 * @sock: the connection's socket, or NULL
 * @saved_data_ready: socket callbacks replaced by ksocket's
 * @saved_write_space: see @saved_data_ready
 * @saved_state_change: see @saved_data_ready
 * @lock: protects the fields below it
 * @enabled: fi_enable() done
 * @may_sleep: FI_OPT_DATA_MAY_SLEEP: every data call may sleep (set
 *	before fi_enable(), read without the lock after it)
 * @keepalive_ms: FI_OPT_KEEPALIVE_MS
 * @keepalive_set: @keepalive_ms changed; the work applies it to the socket
 * @connect_timeout_ms: FI_OPT_CONNECT_TIMEOUT_MS
 * @connect_bounded: fi_connect() must be connected by @connect_deadline
 * @connect_deadline: jiffies
 * @state: enum ksock_ep_state
 * @shutdown_req: fi_shutdown() asks the work to shut down
 * @tx_queue: operations to send
 * @ack_wait: sent, waiting for an ACK (FIFO)
 * @read_wait: read requests sent, waiting for their response (FIFO)
 * @rx_queue: posted receives
 * @tx_pool: transmit requests (sends, writes, reads), up to the tx size
 * @rx_pool: receive requests, up to the rx size
 * @trx_pool: the request a tagged message claim() places is read with,
 *	one
 * @rsp_pool: read responses, up to KSOCK_RSP_SIZE
 * @acks: ACKs to send
 * @rx_waiting: the receive engine waits for a receive or read response
 * @rx_held: the receive engine waits for FI_TAGGED_RX_RETRY
 * @trx: FI_OPT_TAGGED_RX: the owner's claim() of tagged messages, NULL
 *	if not set (set before fi_enable(), read without the lock after it)
 * @tx_blocked: the socket's send buffer was full; its write-space callback
 *	schedules the work
 * @fail_pending: an engine saw the connection end; the work ends it
 * @fail_err: what it saw (ksock_ep_down()'s @err)
 * @fail_why: and why (ksock_ep_down()'s @prov_errno)
 * @rx_task: the task running the receive engine with the socket locked
 *	(so that a data call made from a completion handler there does not
 *	try to lock the socket again), or NULL
 * @tx_mutex: owns the transmit engine
 * @ops: outstanding user operations
 * @io_work: the I/O work
 * @connect_timer: kicks @io_work at @connect_deadline
 * @idle: KSOCK_IDLE_* bits (atomic bit operations)
 * @idle_timer: fires KSOCK_IDLE_MS after the first send it watches; the
 *	work then gives the socket's page fragment back if nothing was sent
 *	since, else arms it again
 * @bswap: the peer uses the other byte order (wire fields big-endian)
 * @tx_cur: request being sent (tx_mutex)
 * @ack_hdr: ACK being sent (tx_mutex)
 * @ack_sent: bytes of @ack_hdr sent; sizeof(@ack_hdr) when none is
 *	being sent
 * @rx: receive engine state (socket lock)
 * @cm: connection request / response to send
 * @cm_len: bytes in @cm
 * @cm_sent: bytes of @cm sent
 */
struct ksock_ep {
	struct fid_ep ep;
	struct kofi_sw_domain *dom;
	struct fi_info *info;
	struct net *net;
	struct socket *sock;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);

	spinlock_t lock;	/* protects the fields below */
	bool enabled;
	bool may_sleep;
	u32 keepalive_ms;
	bool keepalive_set;
	u32 connect_timeout_ms;
	bool connect_bounded;
	unsigned long connect_deadline;
	enum ksock_ep_state state;
	bool shutdown_req;
	struct list_head tx_queue;
	struct list_head ack_wait;
	struct list_head read_wait;
	struct list_head rx_queue;
	struct ksock_pool tx_pool;
	struct ksock_pool rx_pool;
	struct ksock_pool trx_pool;
	struct ksock_pool rsp_pool;
	unsigned int acks;
	bool rx_waiting;
	bool rx_held;
	struct fi_tagged_rx trx;
	bool tx_blocked;
	bool fail_pending;
	int fail_err;
	int fail_why;

	struct task_struct *rx_task;
	struct mutex tx_mutex;	/* owns the transmit engine */
	struct kofi_oplist ops;
	struct work_struct io_work;
	struct timer_list connect_timer;
	unsigned long idle;
	struct timer_list idle_timer;
	bool bswap;
	struct ksock_req *tx_cur;
	struct ksock_base_hdr ack_hdr;
	u8 ack_sent;
	struct ksock_rx rx;
	u8 cm[sizeof(struct ksock_ctrl_hdr) + KSOCK_CM_DATA_MAX];
	u32 cm_len;
	u32 cm_sent;
};

static inline struct ksock_ep *ksock_ep(struct fid_ep *ep)
{
	return container_of(ep, struct ksock_ep, ep);
}

/**
 * struct ksock_pep - a passive endpoint
 * @pep: the kOFI object
 * @info: copy of its info (src_addr: where to listen)
 * @net: network namespace (its creator's), referenced
 * @sock: the listening socket, or NULL
 * @saved_data_ready: the listening socket's callback
 * @backlog: listen backlog
 * @lock: protects @closing and @creqs
 * @closing: fi_close() in progress
 * @creqs: accepted connections whose request is being read
 * @work: accepts connections and reads their requests
 */
struct ksock_pep {
	struct fid_pep pep;
	struct fi_info *info;
	struct net *net;
	struct socket *sock;
	void (*saved_data_ready)(struct sock *sk);
	int backlog;
	spinlock_t lock;	/* protects closing, creqs */
	bool closing;
	struct list_head creqs;
	struct delayed_work work;
};

/**
 * struct ksock_creq - a connection request (fi_info.handle of FI_CONNREQ)
 * @fid: identity, class FI_CLASS_CONNREQ
 * @node: ksock_pep.creqs linkage while the request is read
 * @sock: the accepted socket
 * @saved_data_ready: its callbacks while the request is read
 * @saved_state_change: see @saved_data_ready
 * @bswap: the peer uses the other byte order
 * @complete: read whole; waits for room in the passive endpoint's EQ
 * @got: bytes of @buf read
 * @deadline: jiffies by which the request must be complete
 * @buf: control header and connection data
 */
struct ksock_creq {
	struct fid fid;
	struct list_head node;
	struct socket *sock;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	bool bswap;
	bool complete;
	u32 got;
	unsigned long deadline;
	union {
		struct ksock_ctrl_hdr ctrl;
		u8 raw[sizeof(struct ksock_ctrl_hdr) + KSOCK_CM_DATA_MAX];
	} buf;
};

/* ksock_main.c */
struct fi_info *ksock_info_alloc(u32 addr_format);

/* ksock_rdm.c */
struct fi_info *ksock_rdm_info_alloc(u32 addr_format);
int ksock_rdm_open(struct fid_domain *domain, struct fi_info *info,
		   struct fid_ep **fep, void *context);

/* ksock_sock.c */
int ksock_sock_create(struct net *net, int family, struct socket **sockp);
int ksock_sock_send(struct socket *sock, struct iov_iter *it, bool more);
int ksock_sock_recv(struct socket *sock, struct iov_iter *it);
int ksock_sock_recv_buf(struct socket *sock, void *buf, size_t len);
void ksock_ep_sock_attach(struct ksock_ep *ep);
void ksock_sock_keepalive(struct sock *sk, u32 ms);
void ksock_sock_drop_frag(struct sock *sk);
void ksock_ep_sock_detach(struct ksock_ep *ep);
int ksock_sockaddr_len(const struct sockaddr *sa);

/* ksock_ep.c */
int ksock_ep_open(struct fid_domain *domain, struct fi_info *info,
		  struct fid_ep **ep, void *context);
void ksock_ep_kick(struct ksock_ep *ep);
void ksock_ep_kick_unlocked(struct ksock_ep *ep);
bool ksock_ep_can_direct(struct ksock_ep *ep, u64 flags);

/**
 * ksock_ep_data_call() - the start of a data call
 * @ep: the endpoint
 *
 * With FI_OPT_DATA_MAY_SLEEP promised, checks the promise
 * (CONFIG_DEBUG_ATOMIC_SLEEP reports a call from atomic context); the
 * core checks a call's FI_MAY_SLEEP.
 *
 * Context: any context; may sleep only if the ULP promised it may.
 */
static inline void ksock_ep_data_call(struct ksock_ep *ep)
{
	if (READ_ONCE(ep->may_sleep))
		might_sleep();
}

void ksock_ep_fail(struct ksock_ep *ep, int err, int prov_errno);
void ksock_ep_down(struct ksock_ep *ep, int err, int prov_errno,
		   const void *data, size_t datalen);
void ksock_ep_connected(struct ksock_ep *ep, const void *data,
			size_t datalen);
struct ksock_req *ksock_req_get(struct ksock_ep *ep, struct ksock_pool *pool);
void ksock_req_unget(struct ksock_ep *ep, struct ksock_req *req);
void ksock_req_put(struct ksock_ep *ep, struct ksock_req *req);
void ksock_req_complete(struct ksock_ep *ep, struct ksock_req *req);
void ksock_req_answered(struct ksock_ep *ep, struct ksock_req *req);
void ksock_req_fail(struct ksock_ep *ep, struct ksock_req *req, int err,
		    size_t len, size_t olen);
int ksock_req_iter(struct ksock_req *req, unsigned int dir,
		   enum fi_iov_type type, const void *vec, size_t count);
void ksock_req_release_keys(struct ksock_req *req);
int ksock_req_inject(struct ksock_req *req, enum fi_iov_type type,
		     const void *vec, size_t count);
int ksock_ep_postable(struct ksock_ep *ep);
bool ksock_post_tx(struct ksock_ep *ep, struct ksock_req *req);

/* ksock_cm.c */
extern const struct fi_ops_cm ksock_ep_cm_ops;
int ksock_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		   struct fid_pep **pep, void *context);
int ksock_ep_adopt(struct ksock_ep *ep, struct fid *handle);
int ksock_cm_progress(struct ksock_ep *ep);
void ksock_connect_timer(struct timer_list *t);

/* ksock_tx.c */
int ksock_tx_progress(struct ksock_ep *ep, size_t *budget);
void ksock_tx_direct(struct ksock_ep *ep, u64 flags);
void ksock_tx_flush_acks(struct ksock_ep *ep);
void ksock_tx_writable(struct ksock_ep *ep);
void ksock_tx_note_sent(struct ksock_ep *ep);
void ksock_tx_idle_timer(struct timer_list *t);
void ksock_tx_idle(struct ksock_ep *ep);
u16 ksock_tx_wire_flags(u64 flags);
void ksock_tx_build_hdr(struct ksock_ep *ep, struct ksock_req *req, u8 op,
			u16 flags, const struct fi_rma_iov *rma,
			size_t rma_cnt);

/* ksock_rx.c */
int ksock_rx_run(struct ksock_ep *ep, size_t *budget);
void ksock_rx_ready(struct ksock_ep *ep);
void ksock_rx_resume(struct ksock_ep *ep, u64 flags);
struct ksock_req *ksock_rx_reset(struct ksock_ep *ep);

/* ksock_msg.c, ksock_rma.c */
extern const struct fi_ops_msg ksock_msg_ops;
extern const struct fi_ops_tagged ksock_tagged_ops;
extern const struct fi_ops_rma ksock_rma_ops;
int ksock_rma_target(struct ksock_ep *ep, const struct ksock_rma_iov *rma,
		     unsigned int cnt, u64 access, struct kofi_key_entry **ke,
		     struct iov_iter *iter, unsigned int dir, u64 *total);

#endif /* _KSOCK_H */
