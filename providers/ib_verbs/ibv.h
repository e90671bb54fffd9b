/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI ib_verbs provider: declarations shared by its files.
 *
 * Objects and their locks, outermost first:
 *
 *   ibv_devs_lock (mutex)   the list of RDMA devices (ib_client add/remove)
 *   ibv_dev.lock (mutex)    a device's open domains, its removed flag
 *   ibv_domain.lock (mutex) a domain's endpoints, PD and registration QP,
 *                           its removed flag
 *   ibv_ep.mutex            an endpoint's connection state and cm_id
 *   ibv_domain.mr_lock      a domain's MRs; serialises registrations
 *                           (mutex)
 *   ibv_ep.lock (spinlock)  an endpoint's data path: queue credits, request
 *                           pools, whether posting is allowed
 *   ibv_srx.lock (spinlock) a shared receive context's SRQ, credits and
 *                           requests; taken alone, or inside the domain
 *                           lock or ibv_ep.mutex
 *
 * rdma_cm callbacks take ibv_ep.mutex; nothing calls rdma_destroy_id()
 * while holding it (rdma_destroy_id() waits for running callbacks).
 *
 * mr_lock nests inside both the domain lock and ibv_ep.mutex.  A
 * registration holds the domain lock, because what it posts on (the PD,
 * the registration QP, the endpoint list) is freed under that lock when
 * the device goes away; an rdma_cm callback, holding ibv_ep.mutex, registers
 * the pending MRs (ibv_mr_register_pending()) and cannot take the domain
 * lock, which is outside ibv_ep.mutex (fi_accept(), device removal).  Under
 * mr_lock only ibv_ep.lock (and, to report a registration that timed out,
 * the EQ's lock) is taken, and every wait for a registration work request
 * is bounded (IBV_REG_TIMEOUT_MS).  ibv_ep_release() clears ibv_ep.qp
 * under mr_lock, so that a registration that timed out can stop the QP.
 */
#ifndef _KOFI_IBV_H
#define _KOFI_IBV_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <net/net_namespace.h>
#include <kofi/provider.h>
#include <kofi/ib_verbs.h>
#include "ibv_logic.h"

#define IBV_PROV_NAME		"ib_verbs"
#define IBV_FABRIC_NAME		"ib_verbs"
#define IBV_VERSION		FI_VERSION(1, 0)
/* SGEs a request carries at most (iov entries, or pages of vmalloc memory). */
#define IBV_MAX_SGE		16
/* Longest keepalive interval (FI_OPT_KEEPALIVE_MS): one day. */
#define IBV_KEEPALIVE_MAX_MS	86400000U
/*
 * iWARP: keepalive intervals after which a peer that answered no probe
 * and completed nothing is given up.
 */
#define IBV_KEEPALIVE_IWARP_PROBES	3
/*
 * siw: an endpoint's early probes (ibv_ep_nudge_work()): the first
 * IBV_NUDGE_FIRST_MS after the connection is established, each next
 * one four times the previous gap later, the last gap IBV_NUDGE_LAST_MS
 * (at 0.1 s, 0.5 s and 2.1 s).
 */
#define IBV_NUDGE_FIRST_MS	100U
#define IBV_NUDGE_LAST_MS	1600U
/* Largest FI_OPT_RETRY_COUNT and FI_OPT_ACK_TIMEOUT (IB: 3 and 5 bits). */
#define IBV_RETRY_COUNT_MAX	7U
#define IBV_ACK_TIMEOUT_MAX	31U
/* MRs of an iWARP endpoint's RDMA READ sink pool, and their pages. */
#define IBV_SINK_MRS		16
#define IBV_SINK_PAGES		256
/* Largest message / RMA transfer (IB: 2 GiB). */
#define IBV_MAX_MSG_SIZE	BIT(31)
/*
 * Longest wait for a memory registration or invalidation work request (on
 * the registration QP or a connected endpoint's): the device executes it
 * locally, without the network; one that has not completed by then means a
 * device that has stopped.
 */
#define IBV_REG_TIMEOUT_MS	10000

#define IBV_CAPS	(FI_MSG | FI_RMA | FI_SEND | FI_RECV | FI_READ | \
			 FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | \
			 FI_REMOTE_CQ_DATA | FI_LOCAL_COMM | FI_REMOTE_COMM)
#define IBV_MR_MODE	(FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED)

/**
 * ibv_caps() - the capabilities the provider offers on a port
 * @ibdev: the device
 * @port: the port
 *
 * IBV_CAPS, without FI_REMOTE_CQ_DATA on iWARP, which has no immediate
 * data (no SEND_WITH_IMM, no RDMA_WRITE_WITH_IMM).
 *
 * Context: any context.
 * Return: the capability bits.
 */
static inline u64 ibv_caps(struct ib_device *ibdev, u32 port)
{
	if (rdma_protocol_iwarp(ibdev, port))
		return IBV_CAPS & ~FI_REMOTE_CQ_DATA;
	return IBV_CAPS;
}

/**
 * ibv_current_net() - the network namespace of the calling task
 *
 * Endpoints, passive endpoints and fi_getinfo() work in the namespace of
 * the task that creates or calls them (a kernel thread's is init_net).
 *
 * Context: process context.
 * Return: the namespace, not referenced (get_net() to keep it).
 */
static inline struct net *ibv_current_net(void)
{
	return current->nsproxy ? current->nsproxy->net_ns : &init_net;
}

/* Module parameters (ibv_main.c). */
extern char *ibv_iface;
extern unsigned int ibv_inline_size;
extern unsigned int ibv_tx_size;
extern unsigned int ibv_rx_size;
extern unsigned int ibv_iov_limit;
extern unsigned int ibv_cm_timeout_ms;
extern unsigned int ibv_retry_count;
extern unsigned int ibv_rnr_retry;
extern unsigned int ibv_ack_timeout;
extern unsigned int ibv_min_rnr_timer;
extern unsigned int ibv_keepalive_ms;
extern unsigned int ibv_read_sinks;
extern unsigned int ibv_connreq_timeout_ms;

/* How often a listener offers its held requests to its full EQ again. */
#define IBV_CONNREQ_RETRY_MS	10

/**
 * struct ibv_dev - an RDMA device known to the provider
 * @node: ibv_devs linkage
 * @ibdev: the device; valid until @removed
 * @name: its name when it was added
 * @ref: references (the device list, each domain)
 * @lock: protects @domains and @removed
 * @domains: open domains on the device
 * @removed: the device is gone (remove callback ran)
 * @max_inline: inline data an RC QP of the device accepts (probed)
 * @inline_probed: @max_inline is known
 */
struct ibv_dev {
	struct list_head node;
	struct ib_device *ibdev;
	char name[IB_DEVICE_NAME_MAX];
	struct kref ref;
	struct mutex lock;	/* protects domains, removed */
	struct list_head domains;
	bool removed;
	u32 max_inline;
	bool inline_probed;
};

struct ibv_req;

struct ibv_fabric {
	struct fid_fabric fabric;
};

/**
 * struct ibv_domain - an open domain: one port of one device
 * @domain: the kOFI object
 * @dev: the device, referenced
 * @port: the port number
 * @caps: ibv_caps() of the port
 * @iwarp: the port speaks iWARP
 * @nudge: the device is siw, whose accepting side can leave the first
 *	message of the connecting side unread: endpoints send early probes
 *	(ibv_ep_nudge_work())
 * @pd: protection domain, NULL once the device is removed
 * @lock: protects @eps, @srxs, @removed, @pd, @reg_qp
 * @eps: endpoints opened on the domain
 * @srxs: shared receive contexts opened on the domain
 * @mr_lock: protects @mrs, @reg_req, @reg_done and @reg_failed;
 *	serialises registrations; taken by rdma_cm callbacks; inside @lock
 *	and ibv_ep.mutex (see the top of this file)
 * @mrs: memory regions of the domain
 * @removed: the device went away
 * @dev_node: ibv_dev.domains linkage
 * @attr: device attributes (copied at open)
 * @reg_cq: CQ of @reg_qp
 * @reg_qp: a QP in RTS that only ever carries memory registration work
 *	requests (local operations): connected to itself by hand, or on
 *	iWARP through rdma_cm (@loop); NULL where it could not be made:
 *	registration then uses connected endpoints
 * @reg_req: the request of registrations posted on @reg_qp
 * @reg_done: completed by @reg_req's completion; here, not on a waiter's
 *	stack, for a completion that arrives after its wait timed out
 * @reg_failed: a work request on @reg_qp did not complete in time: the QP
 *	was moved to the error state and is no longer used (registration
 *	then goes through connected endpoints, as without @reg_qp)
 * @loop: iWARP: the connection to itself that @reg_qp is one side of
 *	(ibv_loop.c), NULL if none
 */
struct ibv_domain {
	struct fid_domain domain;
	struct ibv_dev *dev;
	u32 port;
	u64 caps;
	bool iwarp;
	bool nudge;
	struct ib_pd *pd;
	struct mutex lock;	/* protects eps, removed, pd */
	struct list_head eps;
	struct list_head srxs;
	struct mutex mr_lock;	/* protects mrs, serialises registrations */
	struct list_head mrs;
	bool removed;
	struct list_head dev_node;
	struct ib_device_attr attr;
	struct ib_cq *reg_cq;
	struct ib_qp *reg_qp;
	struct ibv_req *reg_req;
	struct completion reg_done;
	bool reg_failed;
	struct ibv_loop *loop;
};

/**
 * struct ibv_pep - a passive endpoint
 * @pep: the kOFI object (the context of its rdma_cm identifier)
 * @net: the network namespace of its creator, referenced; it listens there
 * @mutex: protects @cm_id, @listening, @held
 * @cm_id: the listening identifier, NULL once destroyed
 * @info: the info it was opened with (copy)
 * @held: connection requests its full EQ has not taken yet, oldest first
 * @held_work: offers them again every IBV_CONNREQ_RETRY_MS
 * @backlog: listen backlog
 * @listening: fi_listen() succeeded
 * @cm_raw: FI_OPT_CM_DATA_RAW: requests and rejects carry raw CM data
 */
struct ibv_pep {
	struct fid_pep pep;
	struct net *net;
	struct mutex mutex;	/* protects cm_id, listening, held */
	struct rdma_cm_id *cm_id;
	struct fi_info *info;
	struct list_head held;
	struct delayed_work held_work;
	int backlog;
	bool listening;
	bool cm_raw;
};

/**
 * struct ibv_connreq - a connection request (fi_info.handle of FI_CONNREQ)
 * @fid: class FI_CLASS_CONNREQ (the context of its rdma_cm identifier)
 * @cm_id: the new connection's identifier, NULL once taken by an endpoint
 *	or destroyed
 * @err: why the request is no longer valid (ibv_connreq_errno(), negative),
 *	0 while it is; under ibv_connreq_lock, like @cm_id
 * @initiator_depth: the peer's initiator depth
 * @responder_resources: the peer's responder resources
 * @cm_raw: it came to a raw (FI_OPT_CM_DATA_RAW) passive endpoint
 * @node: on its listener's @held list while its EQ is full
 * @info: while held: the FI_CONNREQ info (handle: this request)
 * @data: while held: a copy of the request's connection data
 * @len: bytes at @data
 * @deadline: while held: when it is rejected if its EQ is still full
 */
struct ibv_connreq {
	struct fid fid;
	struct rdma_cm_id *cm_id;
	int err;
	u8 initiator_depth;
	u8 responder_resources;
	bool cm_raw;
	struct list_head node;
	struct fi_info *info;
	void *data;
	size_t len;
	unsigned long deadline;
};

/* Endpoint states. */
enum ibv_ep_state {
	IBV_EP_IDLE,		/* opened, not enabled */
	IBV_EP_ENABLED,		/* QP created, may post receives */
	IBV_EP_CONNECTING,	/* fi_connect()/fi_accept() in progress */
	IBV_EP_CONNECTED,	/* FI_CONNECTED reported */
	IBV_EP_SHUTDOWN,	/* disconnected (FI_SHUTDOWN or error) */
	IBV_EP_DEAD,		/* resources freed (device removed, closed) */
};

struct ibv_ep;
struct ibv_srx;

/**
 * struct ibv_req - one posted work request
 * @cqe: completion callback
 * @ep: its endpoint
 * @context: the user's operation context
 * @cq: CQ to report to, NULL for none (inject, keepalive, internal)
 * @flags: completion flags
 * @len: bytes (sends, RMA)
 * @buf: receive buffer start (for fi_cq_data_entry.buf), or NULL
 * @nmap: entries of @map that were DMA-mapped by the provider
 * @dir: their DMA direction
 * @map: DMA mappings made for this request
 * @done: for internal requests: completed, with @status
 * @status: completion status of an internal request
 * @busy: taken from its free list (posted)
 * @sink_mr: an iWARP RDMA READ's sink MR (ibv_sink.c), or NULL
 * @next: free list linkage
 */
struct ibv_req {
	struct ib_cqe cqe;
	struct ibv_ep *ep;
	void *context;
	struct fid_cq *cq;
	u64 flags;
	size_t len;
	void *buf;
	u8 nmap;
	u8 dir;
	struct {
		u64 addr;
		u32 len;
	} map[IBV_MAX_SGE];
	struct completion *done;
	int status;
	bool busy;
	struct ib_mr *sink_mr;
	struct ibv_req *next;
};

/**
 * struct ibv_ep - an active endpoint
 * @ep: the kOFI object (the context of its rdma_cm identifier)
 * @dom: its domain
 * @dom_node: ibv_domain.eps linkage
 * @net: the network namespace of its creator, referenced; its rdma_cm
 *	identifier lives there (a passive endpoint's is the listener's)
 * @info: its info (copy)
 * @mutex: protects @state transitions, @cm_id, @qp, @cq; @qp is also
 *	cleared under the domain's mr_lock (a registration that timed out
 *	stops the QP under that lock only)
 * @lock: protects @sq, @rq, the free lists, @can_recv/@can_send and
 *	@eq_ended
 * @state: enum ibv_ep_state
 * @cm_id: its rdma_cm identifier
 * @qp: the RC queue pair
 * @cq: the ib_cq of both queues
 * @sq: send queue credits
 * @rq: receive queue credits (none with @srx)
 * @srx: the shared receive context its QP takes receives from, bound
 *	before fi_enable(); NULL for its own receive queue
 * @tx_free: free send requests
 * @rx_free: free receive requests
 * @reqs: all requests (sq.size + rq.size + internal)
 * @nreqs: entries of @reqs
 * @can_recv: receives may be posted (QP exists)
 * @can_send: sends may be posted (connected)
 * @inline_size: inline data the QP was created with
 * @iov_limit: SGEs per request
 * @max_rd_atomic: outstanding RDMA reads the QP allows
 * @keepalive_ms: keepalive interval, 0 = off
 * @keepalive: keepalive timer work
 * @ka_pending: a keepalive probe is outstanding
 * @ka_posted: when the outstanding probe was posted (jiffies)
 * @nudge: early probe work of an endpoint on siw
 * @nudge_ms: delay of the next early probe, 0 for none; under @lock
 * @heard: when a work request last completed successfully (jiffies);
 *	under @lock
 * @rx_heard: a receive completed since the connection was established;
 *	under @lock
 * @may_probe: keepalive probes may go out: not before the peer has sent
 *	or the user has, on a passive iWARP endpoint (there the connecting
 *	side sends first); under @lock
 * @drained: QP drained (no more completions)
 * @eq_ended: an entry that ends the endpoint's connection (FI_SHUTDOWN or
 *	an error) is on its EQ; under @lock, so that the data path and a
 *	failed QP report the end once
 * @qp_event: the first asynchronous event that failed the QP
 *	(IB_EVENT_QP_FATAL, _REQ_ERR or _ACCESS_ERR), 0 for none; set in
 *	any context by ibv_qp_event()
 * @qp_work: ends the connection of a failed QP in process context
 * @req_err: a connection request taken by this (passive) endpoint that
 *	the peer withdrew before fi_accept(): the negative errno
 *	fi_accept() answers, else 0
 * @conn_data: CM data to send
 * @conn_len: bytes of @conn_data
 * @peer_rd_atomic: the connreq's initiator depth (passive side)
 * @peer_rd_resp: the connreq's responder resources (passive side)
 * @reg_done: completed by the completion of the registration request
 *	(reqs[nreqs - 2]); here, not on a waiter's stack, for a completion
 *	that arrives after its wait timed out; used under the domain's mr_lock
 * @addr_done: address resolution for fi_enable() completed
 * @addr_status: its result
 * @addr_resolved: the cm_id's destination address is resolved
 * @passive: opened from a connection request
 * @shutdown_reported: FI_SHUTDOWN or a connection error was reported
 * @max_sge: SGEs per work request the QP was created with
 * @max_sge_rd: SGEs per RDMA read
 * @cm_raw: FI_OPT_CM_DATA_RAW: connection data without the size byte
 * @retry_count: FI_OPT_RETRY_COUNT: transport retries of the connection
 * @ack_timeout: FI_OPT_ACK_TIMEOUT: local ACK timeout exponent of the QP,
 *	0 for rdma_cm's default
 * @sink_cqe: completion of the sink registrations of iWARP RDMA READs
 * @sink_pages: pages a sink MR maps (iWARP)
 */
struct ibv_ep {
	struct fid_ep ep;
	struct ibv_domain *dom;
	struct list_head dom_node;
	struct net *net;
	struct fi_info *info;
	struct mutex mutex;	/* protects state, cm_id, qp, cq */
	spinlock_t lock;	/* data path */
	int state;
	struct rdma_cm_id *cm_id;
	struct ib_qp *qp;
	struct ib_cq *cq;
	struct ibv_credit sq;
	struct ibv_credit rq;
	struct ibv_srx *srx;
	struct ibv_req *tx_free;
	struct ibv_req *rx_free;
	struct ibv_req *reqs;
	u32 nreqs;
	bool can_recv;
	bool can_send;
	u32 inline_size;
	u32 iov_limit;
	u32 max_rd_atomic;
	unsigned int keepalive_ms;
	struct delayed_work keepalive;
	bool ka_pending;
	unsigned long ka_posted;
	struct delayed_work nudge;
	unsigned int nudge_ms;
	unsigned long heard;
	bool rx_heard;
	bool may_probe;
	bool drained;
	bool eq_ended;
	atomic_t qp_event;
	struct work_struct qp_work;
	int req_err;
	u8 conn_data[IBV_CM_RAW_REP_MAX];
	u8 conn_len;
	u8 peer_rd_atomic;
	u8 peer_rd_resp;
	struct completion reg_done;
	struct completion addr_done;
	int addr_status;
	bool addr_resolved;
	bool passive;
	bool shutdown_reported;
	u32 max_sge;
	u32 max_sge_rd;
	bool cm_raw;
	u8 retry_count;
	u8 ack_timeout;
	struct ib_cqe sink_cqe;
	u32 sink_pages;
};

/**
 * struct ibv_srx - a shared receive context: an SRQ of the domain
 * @ep: the kOFI object, class FI_CLASS_SRX_CTX
 * @dom: its domain
 * @dom_node: ibv_domain.srxs linkage, under the domain's lock
 * @lock: protects @srq (NULL once the device is gone), @rq and @free
 * @srq: the shared receive queue
 * @rq: receive credits: one per request
 * @free: free requests
 * @reqs: all requests, @rq.size of them
 * @iov_limit: entries a receive may have
 *
 * A receive's request carries no endpoint: the QP whose message took it
 * names the endpoint at its completion (ibv_srx_rx_done()).
 */
struct ibv_srx {
	struct fid_ep ep;
	struct ibv_domain *dom;
	struct list_head dom_node;
	spinlock_t lock;	/* srq, rq, free */
	struct ib_srq *srq;
	struct ibv_credit rq;
	struct ibv_req *free;
	struct ibv_req *reqs;
	size_t iov_limit;
};

/**
 * struct ibv_mr - a memory region registered by FRWR
 * @mr: the kOFI object
 * @dom: its domain
 * @dom_node: ibv_domain.mrs linkage
 * @ibmr: the fast registration MR, NULL once released
 * @sgt: the pages, DMA-mapped
 * @access: IB access flags
 * @iova: address of the first byte for peers and local descriptors
 * @length: bytes
 * @kva: kernel virtual address of the first byte (kvec regions), or 0
 * @registered: the REG_MR work request completed
 * @pending: waiting for an endpoint to post the registration on
 */
struct ibv_mr {
	struct fid_mr mr;
	struct ibv_domain *dom;
	struct list_head dom_node;
	struct ib_mr *ibmr;
	struct sg_table sgt;
	int access;
	u64 iova;
	u64 length;
	unsigned long kva;
	bool registered;
	bool pending;
};

/* ibv_device.c */
int ibv_device_init(void);
void ibv_device_exit(void);
struct ibv_dev *ibv_dev_get_by_name(const char *name);
struct ibv_dev *ibv_dev_get_by_ibdev(struct ib_device *ibdev);
void ibv_dev_put(struct ibv_dev *dev);
int ibv_dev_list(struct ibv_dev ***devs);
void ibv_dev_list_put(struct ibv_dev **devs, int n);
struct net_device *ibv_dev_netdev(struct net *net, struct ib_device *ibdev,
				  u32 port);
bool ibv_netdev_addr(struct net_device *nd, int family,
		     struct sockaddr_storage *ss);
struct ib_device *ibv_ibdev_by_netdev(struct net_device *ndev);
u32 ibv_dev_max_inline(struct ibv_dev *dev);

/* ibv_info.c */
int ibv_getinfo(u32 version, const struct fi_info *hints, u64 flags,
		struct fi_info **info);
struct fi_info *ibv_info_for_id(const struct fi_info *base,
				struct rdma_cm_id *id);

/* ibv_domain.c */
int ibv_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **domain, void *context);
void ibv_domain_kill(struct ibv_domain *dom);

/* ibv_loop.c */
int ibv_loop_create(struct ibv_domain *dom,
		    const struct ib_qp_init_attr *qp_attr);
void ibv_loop_destroy(struct ibv_domain *dom);

/* ibv_cm.c */
int ibv_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
int ibv_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
		   struct fid_pep **pep, void *context);
struct rdma_cm_id *ibv_cm_create_id(struct net *net, void *context);
extern const struct fi_ops_cm ibv_ep_cm_ops;
void ibv_connreq_free(struct ibv_connreq *cr);
bool ibv_is_connreq(const struct fid *fid);
int ibv_connreq_take(struct ibv_connreq *cr, struct ib_device *ibdev,
		     struct rdma_cm_id **id);

/* ibv_ep.c */
int ibv_endpoint(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **ep, void *context);
int ibv_ep_setup_qp(struct ibv_ep *ep);
struct rdma_cm_id *ibv_ep_release(struct ibv_ep *ep);
void ibv_ep_kill(struct ibv_ep *ep, int err);
void ibv_ep_set_connected(struct ibv_ep *ep);
void ibv_ep_stop(struct ibv_ep *ep);
void ibv_ep_set_ended(struct ibv_ep *ep);
void ibv_ep_keepalive_work(struct work_struct *work);
void ibv_ep_nudge_work(struct work_struct *work);
int ibv_qp_stop(struct ib_qp *qp);
#ifdef KOFI_IBV_TEST_HOOK
bool ibv_ep_test_qp_event(struct ibv_ep *ep, enum ib_event_type event);
#endif

/*
 * A receive of @ep completed: its peer is alive and has spoken.
 * Context: any context but hardirq; @ep->lock held.
 */
static inline void ibv_ep_heard_locked(struct ibv_ep *ep)
{
	lockdep_assert_held(&ep->lock);
	ep->may_probe = true;
	ep->rx_heard = true;
	ep->heard = jiffies;
}

/* ibv_cq.c */
struct ibv_req *ibv_req_pop(struct ibv_req **list, struct ibv_credit *c);
void ibv_req_push(struct ibv_req **list, struct ibv_credit *c,
		  struct ibv_req *req);
struct ibv_req *ibv_req_get(struct ibv_ep *ep, bool tx);
void ibv_req_put(struct ibv_ep *ep, struct ibv_req *req, bool tx);
void ibv_req_unmap(struct ibv_domain *dom, struct ibv_req *req);
void ibv_tx_done(struct ib_cq *cq, struct ib_wc *wc);
void ibv_ep_conn_lost(struct ibv_ep *ep, int err);
void ibv_ep_qp_failed(struct ibv_ep *ep);
void ibv_rx_done(struct ib_cq *cq, struct ib_wc *wc);
void ibv_rx_complete(struct ibv_ep *ep, struct fid_cq *ucq, void *context,
		     u64 flags, void *buf, const struct ib_wc *wc);
void ibv_internal_done(struct ib_cq *cq, struct ib_wc *wc);
void ibv_cq_free(struct ib_cq *cq);

/**
 * struct ibv_xfer - a transmit (send or RMA) to post
 * @type: type of @vec
 * @vec: local vector (struct kvec, struct bio_vec or scatterlist)
 * @count: entries in @vec
 * @desc: local descriptors, or NULL
 * @context: the user's operation context
 * @op_flags: FI_INJECT, FI_REMOTE_CQ_DATA, FI_FENCE ...
 * @data: remote CQ data
 * @opcode: IB_WR_SEND, IB_WR_RDMA_WRITE, IB_WR_RDMA_READ (the _WITH_IMM
 *	variants are chosen by FI_REMOTE_CQ_DATA)
 * @raddr: remote address (RMA)
 * @rlen: remote length (RMA)
 * @rkey: remote key (RMA)
 * @cflags: completion flags
 */
struct ibv_xfer {
	enum fi_iov_type type;
	const void *vec;
	size_t count;
	void **desc;
	void *context;
	u64 op_flags;
	u64 data;
	enum ib_wr_opcode opcode;
	u64 raddr;
	u64 rlen;
	u32 rkey;
	u64 cflags;
};

/* ibv_msg.c */
extern const struct fi_ops_msg ibv_msg_ops;
ssize_t ibv_post_tx(struct ibv_ep *ep, const struct ibv_xfer *x);
int ibv_rx_prepare(struct ibv_domain *dom, struct ibv_req *req,
		   struct ib_recv_wr *wr, struct ib_sge *sge,
		   enum fi_iov_type type, const void *vec, size_t count,
		   void **desc, void *context);

/* ibv_srx.c */
int ibv_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		 struct fid_ep **rx_ep, void *context);
void ibv_srx_kill(struct ibv_srx *srx);
void ibv_srx_rx_done(struct ib_cq *cq, struct ib_wc *wc);

/* ibv_sink.c */
u32 ibv_sink_pages(const struct ib_device_attr *a);
int ibv_sink_init(struct ibv_ep *ep, u32 n);
void ibv_sink_fini(struct ibv_ep *ep);
void ibv_sink_put(struct ibv_ep *ep, struct ibv_req *req, bool ok);
int ibv_sink_post(struct ibv_ep *ep, struct ibv_req *req,
		  struct ib_rdma_wr *rd, u32 n);

/* ibv_rma.c */
extern const struct fi_ops_rma ibv_rma_ops;

/* ibv_mr.c */
extern const struct fi_ops_mr ibv_mr_ops;
void ibv_mr_kill(struct ibv_mr *mr);
int ibv_mr_register_pending(struct ibv_ep *ep);
struct ibv_mr *ibv_mr_from_desc(struct ibv_domain *dom, void *desc);

#endif /* _KOFI_IBV_H */
