/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI rds provider: internal definitions.
 *
 * rds runs FI_EP_RDM endpoints on kernel AF_RDS sockets, over RDS's TCP
 * or InfiniBand transport (the domain "tcp" or "ib").  An FI_MSG-only
 * endpoint's message is the bare payload, so any AF_RDS program exchanges
 * messages with it; an endpoint with FI_TAGGED, FI_REMOTE_CQ_DATA or
 * FI_RMA puts a header in front of every message (krds_proto.h), and
 * carries RMA in messages (krds_rma.c).  See Documentation/rds.rst.
 */
#ifndef _KOFI_RDS_H
#define _KOFI_RDS_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/net.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <kofi/fi_tagged.h>
#include <kofi/match.h>
#include <kofi/provider.h>
#include <kofi/sockaddr.h>
#include <kofi/vec.h>
#include "krds_proto.h"

#define KRDS_PROV_NAME		"rds"
#define KRDS_PROV_VERSION	FI_VERSION(0, 1)

/* Largest message: RDS's own limit. */
#define KRDS_MAX_MSG_SIZE	(1024 * 1024)
/* Largest payload of a header endpoint's message. */
#define KRDS_MAX_HDR_MSG_SIZE	(KRDS_MAX_MSG_SIZE - sizeof(struct krds_hdr))
/* Largest message and RMA transfer of an endpoint with FI_RMA. */
#define KRDS_MAX_RMA_SIZE	(KRDS_MAX_MSG_SIZE - \
				 sizeof(struct krds_rma_frame))
/*
 * Socket buffers: RDS refuses a message above sk_sndbuf / 2 (and a send
 * with EAGAIN once that much is unacknowledged), and marks a port
 * congested once its receive queue passes sk_rcvbuf / 2.
 */
#define KRDS_SNDBUF		(4 * KRDS_MAX_MSG_SIZE)
#define KRDS_RCVBUF		(8 * KRDS_MAX_MSG_SIZE)
#define KRDS_IOV_LIMIT		KOFI_VEC_MAX
#define KRDS_INJECT_SIZE	256
#define KRDS_TX_SIZE		256
#define KRDS_RX_SIZE		256
#define KRDS_QUEUE_MAX		4096
/* A send refused for back-pressure is retried after this at the latest. */
#define KRDS_RETRY_MS		2
/*
 * A header endpoint's unexpected messages: at most this many on each of
 * its receive queues, and this many payload bytes on both together.
 */
#define KRDS_UX_MAX		256
#define KRDS_UX_BYTES		(KRDS_RCVBUF / 2)
/*
 * Answers to peers' RMA requests an endpoint holds until the socket takes
 * them; beyond that requests wait in the socket.
 */
#define KRDS_ANSWERS_MAX	1024
/* FI_OPT_MIN_MULTI_RECV of a new endpoint. */
#define KRDS_MIN_MULTI_RECV	16384

extern struct workqueue_struct *krds_wq;
extern unsigned int krds_rma_timeout_ms;

/**
 * struct krds_domain - a domain: one RDS transport
 * @sw: kOFI's domain of a software RMA provider: the public domain, the
 *	keys of its memory regions (which peers' RMA requests name), and
 *	the address format of its infos and AVs
 * @transport: RDS_TRANS_TCP or RDS_TRANS_IB, for every endpoint of it
 */
struct krds_domain {
	struct kofi_sw_domain sw;
	int transport;
};

/**
 * struct krds_req - a posted send or receive
 * @op: outstanding-operation record (CQ, context, completion flags)
 * @node: on the endpoint's free lists, its send queue, its list of
 *	multi-receive buffers not yet posted, or (an RMA operation the
 *	socket took) its list of operations waiting for their answer
 * @me: a receive's matching entry, on a receive queue while posted
 * @dest: destination of a send
 * @vec: the caller's vector (or the injected payload), behind the header
 *	on a header endpoint
 * @hdr: the header: a send's, or a receive's as it arrived
 * @frame: an RMA operation's header and RMA header; the answer's as it
 *	arrived
 * @inject: an injected send's payload
 * @busy: a receive the work is placing a message in (a multi-receive
 *	buffer stays posted meanwhile)
 * @cancelled: fi_cancel() found it @busy, or fi_av_remove() of its
 *	destination found it &krds_ep.tx_busy: the work completes it
 * @waiting: an RMA operation on &krds_ep.rma_wait
 * @gen: RMA operations this send request carried (krds_rma_id())
 * @id: the id of its RMA operation
 * @deadline: when its RMA operation times out (jiffies)
 */
struct krds_req {
	struct kofi_op op;
	struct list_head node;
	struct kofi_match_entry me;
	union kofi_sockaddr dest;
	struct kofi_vec vec;
	/* never across a page of a vmalloc'ed pool: vmalloc_to_page() */
	union {
		struct krds_hdr hdr;
		struct krds_rma_frame frame;
	} __aligned(64);
	u8 inject[KRDS_INJECT_SIZE];
	bool busy;
	bool cancelled;
	bool waiting;
	u16 gen;
	u32 id;
	unsigned long deadline;
};

/**
 * struct krds_answer - an answer to a peer's RMA request, to send
 * @frame: its header and RMA header; first received into: the request's
 * @node: on &krds_ep.answers
 * @dest: the peer
 * @key: the request's key
 * @addr: the request's remote address
 */
struct krds_answer {
	struct krds_rma_frame frame;
	struct list_head node;
	union kofi_sockaddr dest;
	u64 key;
	u64 addr;
};

/**
 * struct krds_arrival - the head message of an endpoint's socket
 * @f: its header, and an RMA frame's RMA header (header endpoints)
 * @d: what the header says; on an FI_MSG-only endpoint its length
 * @rd: what the RMA header says (an RMA frame)
 * @src: its sender
 * @me: its matching entry (source, tag, length)
 * @q: the receive queue it is for
 */
struct krds_arrival {
	struct krds_rma_frame f;
	struct krds_msg_desc d;
	struct krds_rma_desc rd;
	union kofi_sockaddr src;
	struct kofi_match_entry me;
	struct kofi_match_queue *q;
};

/**
 * struct krds_ux - a message no receive took yet (header endpoints)
 * @me: its matching entry, on a receive queue's unexpected list; on
 *	&krds_ep.ux_dead once taken, until the work frees it
 * @d: what its header said
 * @buf: the payload (@d.len bytes; NULL if 0)
 */
struct krds_ux {
	struct kofi_match_entry me;
	struct krds_msg_desc d;
	void *buf;
};

/**
 * struct krds_ep - an FI_EP_RDM endpoint on an AF_RDS socket
 * @ep: the public endpoint
 * @info: the endpoint's own copy of its info
 * @net: network namespace of the creator, where the socket lives
 * @transport: the RDS transport of the socket: its domain's
 * @family: AF_INET or AF_INET6, as its domain's address format
 * @sock: the bound AF_RDS socket, from fi_enable() on
 * @lock: protects the lists, the receive queues, @ux_bytes, @rx_held and
 *	@state
 * @state: KRDS_EP_*
 * @tx_queue: sends not yet taken by the socket, oldest first
 * @tx_busy: the send the work is handing to the socket, off @tx_queue
 * @rx_multi: multi-receive buffers for the work to post, oldest first
 * @tx_free: free send requests
 * @rx_free: free receive requests
 * @pool: every request, allocated at fi_enable()
 * @ops: outstanding operations, flushed at close
 * @work: the progress work (sends and receives)
 * @tx_mutex: held by whoever hands answers and sends to the socket: a
 *	data call that may sleep (krds_send()), or the work, which holds it
 *	through its receives too, as they queue answers
 * @may_sleep: FI_OPT_DATA_MAY_SLEEP: every data call may sleep
 * @wait: on the socket's wait queue: RDS wakes it when a message arrives
 *	and when acknowledged sends free send space
 * @rx_cqp: the progress a thread waiting on the receive CQ runs in place
 *	of @work
 * @tx_cqp: the same on the transmit CQ, if it is another CQ
 * @hdr: a header endpoint (FI_TAGGED or FI_REMOTE_CQ_DATA): every message
 *	has the header
 * @max_msg: the largest payload of a message
 * @msgq: message receives and unexpected messages
 * @tagq: a header endpoint's tagged receives and unexpected messages
 * @ux_bytes: payload bytes of the messages waiting on @msgq and @tagq,
 *	and of the one the work is taking in as unexpected
 * @rx_held: the work left a message in the socket for want of a receive
 *	or of room for it as unexpected: a receive posted runs the work
 * @ux_dead: unexpected messages taken by a receive, freed by the work
 * @bad_msgs: messages without a valid header, dropped
 * @av_watch: on the AV from fi_enable() on: tells of the sources removed
 * @dom: the domain, whose key table RMA requests are checked against
 * @ntx: send requests: the first @ntx of @pool
 * @rma_access: FI_REMOTE_READ and FI_REMOTE_WRITE of its info: the RMA
 *	requests of peers it takes
 * @rma_wait: RMA operations the socket took, waiting for their answer,
 *	oldest first
 * @answers: answers to peers' RMA requests, oldest first (work only)
 * @nr_answers: how many are on @answers
 */
struct krds_ep {
	struct fid_ep ep;
	struct fi_info *info;
	struct net *net;
	int transport;
	sa_family_t family;
	struct socket *sock;
	spinlock_t lock;	/* protects lists, queues and state */
	int state;
	struct list_head tx_queue;
	struct krds_req *tx_busy;
	struct list_head rx_multi;
	struct list_head tx_free;
	struct list_head rx_free;
	struct krds_req *pool;
	struct kofi_oplist ops;
	struct delayed_work work;
	struct mutex tx_mutex;	/* see @tx_mutex */
	bool may_sleep;
	struct wait_queue_entry wait;
	struct kofi_cq_progress rx_cqp;
	struct kofi_cq_progress tx_cqp;
	bool hdr;
	size_t max_msg;
	struct kofi_match_queue msgq;
	struct kofi_match_queue tagq;
	size_t ux_bytes;
	bool rx_held;
	struct list_head ux_dead;
	unsigned long bad_msgs;
	struct kofi_av_watch av_watch;
	struct krds_domain *dom;
	size_t ntx;
	u64 rma_access;
	struct list_head rma_wait;
	struct list_head answers;
	unsigned int nr_answers;
};

enum {
	KRDS_EP_IDLE,
	KRDS_EP_ENABLED,
	KRDS_EP_CLOSING,
};

int krds_transport_parse(const char *name);
int krds_sock_create(struct net *net, int transport,
		     const union kofi_sockaddr *src, struct socket **sockp);
void krds_sock_cancel_to(struct socket *sock, const union kofi_sockaddr *dest);
int krds_ep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **fep, void *context);
void krds_ep_kick(struct krds_ep *ep);
void krds_ep_work(struct work_struct *work);
void krds_ep_progress(struct krds_ep *ep);
void krds_ux_free_all(struct krds_ep *ep);
ssize_t krds_cancel(struct fid *fid, void *context);
void krds_av_removed(struct kofi_av_watch *watch, fi_addr_t fi_addr,
		     const struct sockaddr *addr);
struct krds_req *krds_req_get(struct krds_ep *ep, struct list_head *free);
void krds_req_put(struct krds_ep *ep, struct krds_req *req,
		  struct list_head *free);
void krds_req_done(struct krds_ep *ep, struct krds_req *req,
		   struct list_head *free, const struct kofi_comp *c);
void krds_req_fail(struct krds_ep *ep, struct krds_req *req,
		   struct list_head *free, int err);
int krds_req_dest(struct krds_ep *ep, struct krds_req *req, fi_addr_t addr);
void krds_req_post(struct krds_ep *ep, struct krds_req *req,
		   struct list_head *queue);
int krds_req_inject(struct krds_req *req);
void krds_rx_discard(struct krds_ep *ep);

/* krds_rma.c */
int krds_rma_rx(struct krds_ep *ep, const struct krds_arrival *a);
void krds_rma_wait_locked(struct krds_ep *ep, struct krds_req *req);
bool krds_answers_progress(struct krds_ep *ep);
void krds_rma_expire(struct krds_ep *ep);
void krds_rma_cancel_to(struct krds_ep *ep, const union kofi_sockaddr *dest,
			struct list_head *gone);
void krds_answers_free(struct krds_ep *ep);
extern const struct fi_ops_rma krds_rma_ops;
extern const struct fi_ops_msg krds_msg_ops;
extern const struct fi_ops_tagged krds_tagged_ops;

#endif /* _KOFI_RDS_H */
