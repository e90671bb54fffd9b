/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI RDM engine (<kofi/rdm.h>): internal definitions.
 *
 * FI_EP_RDM endpoints over a core provider's FI_EP_MSG endpoints, for the
 * rxm utility provider ("ksocket;rxm", "ib_verbs;rxm", "ksocket;net") and
 * for ksocket's own, speaking libfabric 1.17's ofi_rxm protocol
 * (rxm_proto.h) or its net provider's.  An endpoint listens on its name
 * with a core passive endpoint and keeps one core connection per peer,
 * opened by the first send to that peer.  A message up to the eager limit
 * is one packet (the 64-byte header and the payload in one core send); a
 * larger one is a rendezvous request the receiver answers by reading the
 * message with the core's RMA (over a core that registers memory by its
 * pages, ib_verbs, both sides register the message's buffers for it).
 * Packets arrive in bounce buffers posted
 * on each connection and are matched to the posted receives by kofi.ko's
 * receive matching.  Over a core that carries tags itself (ksocket,
 * FI_OPT_TAGGED_RX) a tagged message up to the eager limit goes without
 * rxm's header, as the core's tagged message, and the receiver places it
 * straight in the receive it matches.  See Documentation/rxm.rst.
 */
#ifndef _KOFI_RXM_H
#define _KOFI_RXM_H

#include <linux/bvec.h>
#include <linux/sizes.h>
#include <linux/in.h>
#include <linux/list.h>
#include <linux/llist.h>
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
#include <kofi/fi_rma.h>
#include <kofi/fi_tagged.h>
#include <kofi/match.h>
#include <kofi/provider.h>
#include <kofi/sockaddr.h>
#include <kofi/rdm.h>
#include <kofi/util.h>
#include <kofi/vec.h>
#include "rxm_credit.h"
#include "rxm_proto.h"

/* A packet: the header and at most the eager limit of payload. */
#define RXM_BUF_SIZE		(sizeof(struct rxm_hdr) + RXM_EAGER_LIMIT)
#define RXM_INJECT_SIZE		256
#define RXM_IOV_LIMIT		4
#define RXM_TX_SIZE		256
/*
 * Sends a core connection of ksocket may have in flight: every ULP send
 * segmented, and as many packets of rxm's own (its queues grow as used).
 */
/* Bounce buffers an endpoint's shared receive context holds at most. */
#define RXM_SRX_MAX		64
/* The send queue of a connection's core endpoint with shared buffers. */
#define RXM_SRX_CORE_TX		32
/* Fewer posted than this after a packet: the pool grows by one. */
#define RXM_SRX_LOW		8
#define RXM_CORE_TX_SIZE	(RXM_TX_SIZE * (RXM_MAX_SEGMENTS + 1))
#define RXM_RX_SIZE		256
#define RXM_MIN_MULTI_RECV	RXM_EAGER_LIMIT

extern struct workqueue_struct *rxm_wq;
extern struct kmem_cache *rxm_tx_cache;
extern unsigned int rxm_conn_rx_bufs;
extern unsigned int rxm_srx_bufs;
extern unsigned int rxm_connect_timeout_ms;
extern unsigned int rxm_sar_limit;
extern unsigned long rxm_big_unexp_bytes;

/* Largest FI_OPT_CONNECT_TIMEOUT_MS: a day. */
#define RXM_CONNECT_TIMEOUT_MAX_MS	86400000U

/**
 * struct rxm_rx - a posted receive of the ULP
 * @me: its matching entry (on a match queue while posted)
 * @node: on the endpoint's free list when not in use
 * @all: on the endpoint's list of every entry it allocated
 * @flags: FI_MSG or FI_TAGGED, with FI_RECV
 * @vec: where the data goes
 * @busy: a multi-receive buffer's messages being placed into it
 * @used_up: a multi-receive buffer took its last message
 * @cancelled: a multi-receive buffer was taken off its queue
 *	(fi_cancel() ...) while @busy: it completes with ECANCELED once the
 *	last of them is in
 *
 * @busy, @used_up and @cancelled are under the endpoint's lock; a
 * multi-receive buffer is free again once it is used up or cancelled
 * and no message is being placed into it.
 */
struct rxm_rx {
	struct kofi_match_entry me;
	struct list_head node;
	struct list_head all;
	u64 flags;
	struct kofi_vec vec;
	unsigned int busy;
	bool used_up;
	bool cancelled;
};

/**
 * struct rxm_room - an operation waiting for room in its connection's
 *	core (rxm_room.c)
 * @node: on &rxm_ep.room_wait (ep->lock)
 * @conn: its connection, not held while it waits
 * @post: posts it again, its connection held (process context); it
 *	waits again (rxm_room_wait()) or goes its way
 * @gone: its connection closed: ends it (process context)
 */
struct rxm_room {
	struct list_head node;
	struct rxm_conn *conn;
	void (*post)(struct rxm_room *r);
	void (*gone)(struct rxm_room *r);
};

/**
 * struct rxm_tx - a send in flight on a core connection
 * @cqe: the core operation's context
 * @ep: its endpoint
 * @context: the ULP's context
 * @flags: FI_SEND with FI_MSG or FI_TAGGED
 * @len: payload bytes
 * @inject: no completion (FI_INJECT, or a control packet); an injected
 *	payload is in @buf
 * @rndv: a rendezvous send: @buf holds the request's struct rxm_rndv
 * @posted: a rendezvous send's request was posted (or failed to be)
 * @node: on the endpoint's list of rendezvous sends for its work; a
 *	control packet's on &rxm_conn.ctrl_wait while it waits for credits
 * @conn: a rendezvous send's connection (held until the request is
 *	posted), a control packet's
 * @room: a control packet or rendezvous request while the core has no
 *	room for it
 * @id: a rendezvous send's msg_id, its index in &rxm_ep.rndv
 * @pending: a rendezvous send completes once both its request's core
 *	send completed and the receiver's RXM_RNDV_RD_DONE came (or will not)
 * @err: a rendezvous send's error (positive errno)
 * @segs: a segmented send's segments (rxm_sar_send.c)
 * @mr: a rendezvous send's core registrations, one per entry
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
	bool rndv;
	bool posted;
	struct list_head node;
	struct rxm_conn *conn;
	struct rxm_room room;
	u32 id;
	atomic_t pending;
	int err;
	struct rxm_segs *segs;
	struct fid_mr *mr[RXM_IOV_LIMIT];
	struct rxm_hdr hdr __aligned(64);
	struct kofi_vec vec;
	u8 buf[RXM_INJECT_SIZE];
};

/**
 * struct rxm_rd - a receive reading a rendezvous message
 * @cqe: the context of the core reads
 * @ep: its endpoint
 * @conn: the connection the request came on
 * @rx: the receive
 * @msg_id: the request's msg_id, echoed in RXM_RNDV_RD_DONE
 * @c: the receive's completion
 * @local: where the message goes
 * @rma: where it is read from
 * @nrma: entries of @rma
 * @node: on &rxm_ep.rd_list, for the work to register @local and post
 *	the reads, or to close the registrations and complete
 * @room: while the core has no room for a read
 * @posted: the work has registered (or tried to): next time it finishes
 * @pending: the reads in flight, and one for the posting
 * @next: the first read not posted yet (the core answered -EAGAIN)
 * @off: where in @local it reads to
 * @err: the first error (positive errno)
 * @mr: the registrations of @local's entries (a core that registers
 *	pages), NULL for an empty entry
 * @desc: their descriptors, for the reads
 * @nmr: entries of @mr and @desc used; 0 without registrations
 */
struct rxm_rd {
	struct fi_cqe cqe;
	struct rxm_ep *ep;
	struct rxm_conn *conn;
	struct rxm_rx *rx;
	u64 msg_id;
	struct kofi_comp c;
	struct kofi_vec local;
	struct fi_rma_iov rma[RXM_RNDV_IOV_MAX];
	unsigned int nrma;
	struct list_head node;
	struct rxm_room room;
	bool posted;
	atomic_t pending;
	unsigned int next;
	size_t off;
	int err;
	struct fid_mr *mr[KOFI_VEC_MAX + 1];
	void *desc[KOFI_VEC_MAX + 1];
	unsigned int nmr;
};

/**
 * struct rxm_buf - a bounce buffer posted on a core connection, or the
 *	copy of a rendezvous request
 * @cqe: the core receive's context
 * @me: the message's matching entry while it waits as unexpected
 * @ep: the endpoint
 * @conn: its connection; NULL once the connection is gone while the
 *	message waits (the buffer is then freed when it is received)
 * @node: a copy's place on &rxm_conn.copies while @conn is set; a
 *	segment's on &rxm_sar.segs
 * @held: not posted on the core: the message waits on a match queue (or
 *	with its first segment), or is being delivered; cleared by
 *	rxm_buf_recycle()
 * @copy: a rendezvous request's copy (rxm_buf_copy()), never posted
 * @grant: the packet was the peer's credit grant (rxm_credit_posted()
 *	when it is posted again)
 * @raw: the core's tagged message, without rxm's header: @pkt holds the
 *	payload only, @hdr what the core said of it
 * @big: a large message's buffer of its own (rxm_big.c), also @copy
 * @shared: a buffer of the endpoint's shared receive context (rxm_srx.c):
 *	@conn is the connection its packet named, while it is handled or
 *	waits
 * @cap: a @big buffer's bytes
 * @dead: a freed @big buffer's place on the list of those to free
 * @len: bytes received
 * @pkt: the packet, RXM_BUF_SIZE bytes of whole pages (a copy: the
 *	request's bytes, after the structure)
 * @hdr: the header of a @raw message, made up from the core's completion
 * @sar: a segment's message
 * @seg_off: where a segment's payload goes in its message
 */
struct rxm_buf {
	struct fi_cqe cqe;
	struct kofi_match_entry me;
	struct rxm_ep *ep;
	struct rxm_conn *conn;
	struct list_head node;
	bool held;
	bool copy;
	bool grant;
	bool raw;
	bool big;
	bool shared;
	size_t cap;
	struct llist_node dead;
	size_t len;
	u8 *pkt;
	struct rxm_hdr hdr;
	struct rxm_sar *sar;
	size_t seg_off;
};

/**
 * struct rxm_sar - a segmented message being received (rxm_sar.c)
 * @node: on &rxm_conn.sars while segments are still to come
 * @msg_id: the sender's id of it, in every segment
 * @next_seg: the number of the segment expected next
 * @got: payload bytes arrived
 * @size: the message's size; cut to @got if its connection ends first
 * @placed: bytes copied into @rx (or cut off) so far
 * @segs: segments after the first that arrived before a receive took it
 * @rx: the receive that took it, or NULL
 * @me: its match entry as @rx took it (offset, length, flags)
 * @hdr: the first segment's header (operation, tag, CQ data)
 * @discard: FI_DISCARD dropped it: segments still to come are dropped
 * @err: positive errno: its connection ended before the last segment
 *
 * Under the endpoint's lock.
 */
struct rxm_sar {
	struct list_head node;
	u64 msg_id;
	u32 next_seg;
	size_t got;
	size_t size;
	size_t placed;
	struct list_head segs;
	struct rxm_rx *rx;
	struct kofi_match_entry me;
	struct rxm_hdr hdr;
	bool discard;
	int err;
};

/* The header of @buf's message. */
static inline const struct rxm_hdr *rxm_buf_hdr(const struct rxm_buf *buf)
{
	return buf->raw ? &buf->hdr : (const struct rxm_hdr *)buf->pkt;
}

/* Where @buf's eager payload starts. */
static inline const u8 *rxm_buf_payload(const struct rxm_buf *buf)
{
	return buf->pkt + (buf->raw ? 0 : sizeof(struct rxm_hdr));
}

/**
 * struct rxm_trx - a message the core places in a receive
 * @cqe: the core's completion of it
 * @ep: its endpoint
 * @rx: the receive (rxm_rx_placed() on completion), or NULL
 * @c: the receive's completion
 * @dst: the part of the receive's buffer it goes to
 * @sar: instead of @rx: the segmented message a segment belongs to
 * @seg_len: that segment's payload
 */
struct rxm_trx {
	struct fi_cqe cqe;
	struct rxm_ep *ep;
	struct rxm_rx *rx;
	struct kofi_comp c;
	struct kofi_vec dst;
	struct rxm_sar *sar;
	size_t seg_len;
};

struct rxm_conn;
struct rxm_ep;

/**
 * struct rxm_wire_peer - what a peer's connection request says
 * @port: the port it listens on
 * @id: its id of the connection (rxm), or of its endpoint (net)
 * @fc: its enum rxm_flow_ctrl
 */
struct rxm_wire_peer {
	u16 port;
	u64 id;
	u8 fc;
};

/* Room for any wire's CM data (rxm_wire.c). */
#define RXM_WIRE_CM_MAX		32

/**
 * struct rxm_wire - the connection data of a wire (rxm_wire.c)
 * @trx: FI_OPT_TAGGED_RX of each core endpoint
 * @trx_needed: a core without FI_OPT_TAGGED_RX cannot speak the wire
 * @req: our connection request's data into @buf; its length
 * @accepted: the accepter's data of our request: the peer's id and flow
 *	control into the connection; -EPROTO if it is not the wire's
 * @already: does a reject's data say that the peer keeps its own
 *	connection (we lost a simultaneous connect)?
 * @reject: a reject's data (with @reason where the wire has one) into
 *	@buf; its length
 * @request: a peer's request data; -EPROTO or -EPROTONOSUPPORT if the
 *	endpoint cannot take it
 * @accept: our accept's data of a request whose peer listens on @port
 *	into @buf; its length
 *
 * @buf has room for RXM_WIRE_CM_MAX bytes.  Context: the CM work, process
 * context.
 */
struct rxm_wire {
	const struct fi_tagged_rx *trx;
	bool trx_needed;
	size_t (*req)(const struct rxm_conn *conn, void *buf);
	int (*accepted)(struct rxm_conn *conn, const void *data, size_t len);
	bool (*already)(const void *data, size_t len);
	size_t (*reject)(const struct rxm_ep *ep, u8 reason, void *buf);
	int (*request)(const void *data, size_t len,
		       struct rxm_wire_peer *peer);
	size_t (*accept)(const struct rxm_conn *conn, u16 port, void *buf);
};

extern const struct rxm_wire rxm_wire_rxm;
extern const struct rxm_wire rxm_wire_net;

/* Connection states. */
enum rxm_conn_state {
	RXM_CONN_IDLE,		/* to be connected by the CM work */
	RXM_CONN_CONNECTING,	/* our request is out */
	RXM_CONN_WAITING,	/* lost a simultaneous connect: the peer connects */
	RXM_CONN_ACCEPTING,	/* the peer's request accepted */
	RXM_CONN_CONNECTED,
	RXM_CONN_DOWN,		/* to be closed by the CM work */
	RXM_CONN_FAILED,	/* our attempt failed, closed: its error is
				 * the next send's answer
				 */
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
 * @err: why it ended (positive errno), 0 if not known
 * @deadline: in RXM_CONN_WAITING, when the wait for the peer's request
 *	ends (jiffies); 0: no bound
 * @id: our id of the connection (sent in the CM data)
 * @peer_id: the peer's id of it (in the header of every packet we send)
 * @users: data calls posting on @core; the CM work closes @core only
 *	when it is zero
 * @raw_tagged: @core takes FI_OPT_TAGGED_RX: tagged eager messages go as
 *	the core's tagged messages
 * @trx_held: a tagged message waits on @core for a receive (ep->lock)
 * @trx: the tagged message @core places (one at a time)
 * @bufs: the bounce buffers, room for @maxbufs
 * @nbufs: entries of @bufs: one at first, one more each time a message
 *	waits as unexpected in a bounce buffer, up to @maxbufs (ep->lock)
 * @maxbufs: the connection's rdm_conn_rx_bufs
 * @copies: copies of its rendezvous requests that wait for a receive,
 *	and its large messages' buffers from their claim on (rxm_big.c)
 * @big: a buffer allocated for the large message the core holds, not
 *	claimed yet (ep->lock)
 * @big_want: the bytes @big_work is to allocate, 0 if none (ep->lock)
 * @big_work: allocates @big (process context, rxm_wq)
 * @sars: its segmented messages whose segments are still to come
 * @fc: credit flow control (rxm_ctrl.c): set when the core endpoint
 *	opens if the endpoint wants it, cleared when the peer says it does
 *	not; fixed once connected
 * @peer_fc: the peer's enum rxm_flow_ctrl, from its request (accepting)
 * @cr: the credit state (ep->lock)
 * @grant_pending: a grant waits for a credit to go, or (accepting) for
 *	the peer's first packet (ep->lock)
 * @ctrl_wait: control packets waiting for credits (ep->lock)
 * @nwait: its operations on &rxm_ep.room_wait (ep->lock): the ULP's
 *	sends and RMA to the peer answer -EAGAIN meanwhile, so that they go
 *	first
 */
struct rxm_conn {
	struct list_head node;
	struct rxm_ep *ep;
	fi_addr_t fi_addr;
	union kofi_sockaddr peer;
	struct fid_ep *core;
	struct fid_eq *eq;
	enum rxm_conn_state state;
	bool keyed;
	int err;
	unsigned long deadline;
	u32 id;
	u64 peer_id;
	atomic_t users;
	bool raw_tagged;
	bool trx_held;
	struct rxm_trx trx;
	struct rxm_buf **bufs;
	unsigned int nbufs;
	unsigned int maxbufs;
	struct list_head copies;
	struct rxm_buf *big;
	size_t big_want;
	struct work_struct big_work;
	struct list_head sars;
	bool fc;
	u8 peer_fc;
	struct rxm_credits cr;
	bool grant_pending;
	struct list_head ctrl_wait;
	unsigned int nwait;
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
 * @under: what it runs over: the core domain and fabric, the wire
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
 * @conn_ids: connections by our id of them (struct rxm_conn.id)
 * @next_id: where the next connection id is looked for
 * @srx: the core shared receive context every connection takes its
 *	packets from (rxm_srx.c), NULL if none or once closing
 * @srx_users: posts to @srx in flight
 * @sposted: buffers posted to @srx and not completed yet
 * @sbufs: the bounce buffers of @srx (ep->lock)
 * @nsbufs: entries of @sbufs (ep->lock)
 * @maxsbufs: the most @sbufs may hold
 * @shared_rx: the endpoint's connections use @srx (fixed once enabled)
 * @msgq: posted receives and unexpected messages, untagged
 * @tagq: the same, tagged
 * @rx_free: free receive entries
 * @rx_all: every receive entry, allocated as receives are posted (up to
 *	rx_attr->size) and kept until the endpoint is freed
 * @nrx: entries on @rx_all
 * @trx_held: connections with a tagged message that waits for a receive
 * @tx_out: sends in flight (at most tx_attr->size)
 * @rndv_ok: the core has RMA: messages above the eager limit go by
 *	rendezvous
 * @virt_addr: the core's registrations are addressed by virtual address
 * @reg_pages: the core registers memory by its pages (FI_MR_ALLOCATED,
 *	ib_verbs): a rendezvous send takes only memory with pages
 *	(kofi_vec_pageable()), and the receiver registers where it reads to
 * @rma_iov_limit: remote segments one core RMA operation takes
 * @rndv: rendezvous sends waiting for their RXM_RNDV_RD_DONE, by msg_id
 * @tx_list: rendezvous sends for @tx_work to post or to complete
 * @tx_work: registers and posts rendezvous requests, completes them;
 *	registers and posts the reads of @rd_list, completes them (process
 *	context, rxm_wq)
 * @rd_list: rendezvous reads for @tx_work to register and post, or to
 *	complete (over a core that registers pages)
 * @room_wait: rendezvous reads, control packets and rendezvous requests
 *	the core had no room for (-EAGAIN: its send queue, or on iWARP its
 *	read sinks, full), posted again by @room_retry (rxm_room.c)
 * @room_retry: retries @room_wait a jiffy later (process context, rxm_wq)
 * @av_watch: tells of the peers removed from the AV
 * @connect_timeout_ms: FI_OPT_CONNECT_TIMEOUT_MS, passed to the core
 *	endpoint of each connection we open
 * @may_sleep: FI_OPT_DATA_MAY_SLEEP, fixed once enabled: every data call
 *	may sleep, so a send posts to the core itself (rxm_sleep_flag())
 * @flow_ctrl: the core has no flow control of its own (ib_verbs): its
 *	connections use credits where the peer does too (rxm_ctrl.c)
 * @net: the endpoint speaks libfabric's net wire ("ksocket;net"): net's
 *	CM data, every message as the core's own (untagged op 0, tagged op
 *	1), claimed by rxm (FI_TAGGED_RX_MSG), no header, no rendezvous
 * @net_pid: the endpoint's id in net's CM data (random, as a pid)
 * @wire: its wire's connection data (&rxm_wire_net if @net)
 * @sar_msg_id: the msg_id of the last segmented send
 * @big_bytes: bytes of the buffers of large messages (rxm_big.c)
 * @big_max: the most @big_bytes may reach (big_unexp_bytes at the open)
 */
struct rxm_ep {
	struct fid_ep ep;
	struct kofi_rdm_core under;
	struct fi_info *info;
	struct fi_info *core_info;
	union kofi_sockaddr name;
	struct fid_pep *pep;
	struct fid_eq *core_eq;
	struct fid_cq *core_cq;
	struct kofi_util_progress progress;
	struct work_struct cm_work;
	spinlock_t lock;	/* see above */
	enum rxm_ep_state state;
	struct list_head conns;
	struct xarray table;
	struct xarray conn_ids;
	u32 next_id;
	struct fid_ep *srx;
	atomic_t srx_users;
	atomic_t sposted;
	struct rxm_buf **sbufs;
	unsigned int nsbufs;
	unsigned int maxsbufs;
	bool shared_rx;
	struct kofi_match_queue msgq;
	struct kofi_match_queue tagq;
	struct list_head rx_free;
	struct list_head rx_all;
	unsigned int nrx;
	unsigned int trx_held;
	atomic_t tx_out;
	bool rndv_ok;
	bool virt_addr;
	bool reg_pages;
	size_t rma_iov_limit;
	struct xarray rndv;
	struct list_head tx_list;
	struct work_struct tx_work;
	struct list_head rd_list;
	struct list_head room_wait;
	struct delayed_work room_retry;
	struct kofi_av_watch av_watch;
	size_t connect_timeout_ms;
	bool may_sleep;
	bool flow_ctrl;
	bool net;
	u32 net_pid;
	const struct rxm_wire *wire;
	atomic64_t sar_msg_id;
	atomic_long_t big_bytes;
	unsigned long big_max;
};

/**
 * rxm_sleep_flag() - may a data call post to the core in its own context?
 * @ep: the endpoint
 * @flags: the call's flags
 *
 * A call its ULP promised may sleep (FI_OPT_DATA_MAY_SLEEP on @ep, or
 * FI_MAY_SLEEP in @flags) passes the promise on to the core, which may
 * then do the I/O in the caller's context, and registers a rendezvous
 * send's buffers there instead of in the endpoint's work.
 *
 * Context: any context.
 * Return: FI_MAY_SLEEP or 0.
 */
static inline u64 rxm_sleep_flag(struct rxm_ep *ep, u64 flags)
{
	return (READ_ONCE(ep->may_sleep) || (flags & FI_MAY_SLEEP)) ?
	       FI_MAY_SLEEP : 0;
}

/* rxm_ep.c: kofi_rdm_ep_open() */

/* rxm_conn.c */
void rxm_cm_work(struct work_struct *work);
struct rxm_conn *rxm_conn_get(struct rxm_ep *ep, fi_addr_t addr, int *err);
bool rxm_conn_hold(struct rxm_conn *conn);
bool rxm_conn_hold_locked(struct rxm_conn *conn);
void rxm_conn_put(struct rxm_conn *conn);
void rxm_conn_fail(struct rxm_conn *conn);
void rxm_conn_fail_err(struct rxm_conn *conn, int err);
void rxm_conn_close_all(struct rxm_ep *ep);
void rxm_av_removed(struct kofi_av_watch *watch, fi_addr_t fi_addr,
		    const struct sockaddr *addr);

/* rxm_msg.c */
extern const struct fi_ops_msg rxm_msg_ops;
extern const struct fi_ops_tagged rxm_tagged_ops;
int rxm_vec_chunk(struct kofi_vec *v, size_t chunk);
unsigned int rxm_vec_slice(const struct kofi_vec *src, size_t off, size_t n,
			   struct kofi_vec *dst);
struct rxm_buf *rxm_buf_alloc_ep(struct rxm_ep *ep, gfp_t gfp);
struct rxm_buf *rxm_buf_alloc(struct rxm_conn *conn, gfp_t gfp);
void rxm_buf_init(struct rxm_buf *buf, struct rxm_ep *ep,
		  struct rxm_conn *conn);
void rxm_buf_free(struct rxm_buf *buf);
ssize_t rxm_buf_recv(struct fid_ep *core, struct rxm_buf *buf);
int rxm_buf_post(struct rxm_conn *conn, struct rxm_buf *buf);
void rxm_buf_done(struct fid_cq *cq, struct fi_cqe *cqe,
		  const struct fi_cq_err_entry *comp);
void rxm_rx_flush(struct rxm_ep *ep);
void rxm_tx_free(struct rxm_ep *ep, struct rxm_tx *tx);
struct rxm_tx *rxm_tx_get(struct rxm_ep *ep, fi_addr_t addr, void *context,
			  u64 flags, struct rxm_conn **conn, int *err);
int rxm_tx_unget(struct rxm_tx *tx, struct rxm_conn *conn, int err);
int rxm_tx_posted(struct rxm_tx *tx, struct rxm_conn *conn, int ret);
void rxm_tx_done(struct fid_cq *cq, struct fi_cqe *cqe,
		 const struct fi_cq_err_entry *comp);
void rxm_rx_free(struct rxm_ep *ep, struct rxm_rx *rx);
void rxm_rx_busy_locked(struct rxm_rx *rx,
			const struct kofi_match_entry *msg);
bool rxm_rx_placed(struct rxm_ep *ep, struct rxm_rx *rx,
		   struct kofi_comp *cancel);
void rxm_rx_cancel_write(struct rxm_ep *ep, const struct kofi_comp *cancel);
void rxm_rx_cancelled(struct rxm_ep *ep, struct rxm_rx *rx);
size_t rxm_rx_room(const struct rxm_rx *rx,
		   const struct kofi_match_entry *msg);
void rxm_buf_grow(struct rxm_conn *conn);
void rxm_comp_fill(const struct rxm_rx *rx,
		   const struct kofi_match_entry *msg,
		   const struct rxm_hdr *hdr, size_t len, struct kofi_comp *c);
void rxm_comp_write(struct rxm_ep *ep, const struct kofi_comp *c);
void rxm_buf_recycle(struct rxm_buf *buf);
extern const struct fi_tagged_rx rxm_trx_ops;
extern const struct fi_tagged_rx rxm_net_trx_ops;
void rxm_trx_init(struct rxm_conn *conn);
void rxm_trx_dest(struct rxm_trx *t, struct fi_tagged_dest *d);

/* rxm_sar.c */
int rxm_sar_first(struct rxm_conn *conn, struct rxm_buf *buf);
int rxm_sar_next(struct rxm_conn *conn, struct rxm_buf *buf);
int rxm_sar_claim(struct rxm_conn *conn, const struct rxm_hdr *hdr,
		  size_t len, struct fi_tagged_dest *d);
void rxm_sar_claimed(struct rxm_ep *ep, struct rxm_sar *sar, size_t len,
		     int err);
void rxm_sar_deliver(struct rxm_ep *ep, struct rxm_rx *rx,
		     struct rxm_buf *first);
void rxm_sar_discard(struct rxm_ep *ep, struct rxm_buf *first);
void rxm_sar_free(struct rxm_buf *first);
void rxm_sar_conn_gone_locked(struct rxm_conn *conn, struct list_head *ended);
void rxm_sar_ended(struct rxm_ep *ep, struct list_head *ended);

/* rxm_big.c */
void rxm_big_free(struct rxm_buf *buf);
int rxm_big_claim_locked(struct rxm_conn *conn, size_t len,
			 struct fi_tagged_dest *d, struct rxm_buf **drop);
void rxm_big_work(struct work_struct *work);
void rxm_big_conn_gone(struct rxm_conn *conn);

/* rxm_sar_send.c */
struct rxm_segs;
bool rxm_sar_sends(const struct rxm_ep *ep, const struct rxm_conn *conn,
		   size_t len);
int rxm_sar_send(struct rxm_ep *ep, struct rxm_conn *conn, struct rxm_tx *tx,
		 u64 flags);

/* rxm_rndv.c */
int rxm_rndv_send(struct rxm_ep *ep, struct rxm_conn *conn,
		  struct rxm_tx *tx, u64 sleep);
void rxm_rndv_sent(struct rxm_tx *tx, int err);
int rxm_rndv_answered(struct rxm_conn *conn, u64 msg_id);
void rxm_rndv_conn_gone(struct rxm_conn *conn);
void rxm_rndv_unposted(struct rxm_tx *tx, int err);
void rxm_rndv_ack(struct rxm_ep *ep, struct rxm_conn *conn, u64 msg_id);
void rxm_rndv_read(struct rxm_ep *ep, struct rxm_rx *rx, struct rxm_buf *buf);
void rxm_tx_work(struct work_struct *work);
ssize_t rxm_cancel(struct fid *fid, void *context);

/* rxm_ctrl.c */
struct rxm_tx *rxm_ctrl_alloc(struct rxm_ep *ep, struct rxm_conn *conn,
			      u8 type, u64 msg_id, u64 ctrl_data);
void rxm_ctrl_send(struct rxm_conn *conn, struct rxm_tx *tx);
int rxm_pkt_post(struct rxm_conn *conn, struct rxm_tx *tx, u64 sleep);

/* rxm_room.c */
void rxm_room_wait(struct rxm_room *r);
void rxm_room_retry(struct work_struct *work);
void rxm_room_conn_gone(struct rxm_conn *conn);
int rxm_credit_take(struct rxm_conn *conn);
void rxm_credit_untake(struct rxm_conn *conn);
void rxm_credit_posted(struct rxm_conn *conn, bool data);
void rxm_credit_arrived(struct rxm_conn *conn);
int rxm_credit_granted(struct rxm_conn *conn, struct rxm_buf *buf);
void rxm_credit_enable(struct rxm_conn *conn, u8 peer, bool accepted);
void rxm_credit_conn_gone(struct rxm_conn *conn);

/* rxm_rma.c */
extern const struct fi_ops_rma rxm_rma_ops;
void rxm_rma_remote(struct rxm_ep *ep, struct rxm_buf *buf,
		    const struct fi_cq_err_entry *comp, fi_addr_t src);

/* rxm_srx.c */
int rxm_srx_open(struct rxm_ep *ep);
void rxm_srx_close(struct rxm_ep *ep);
void rxm_srx_post(struct rxm_ep *ep, struct rxm_buf *buf);
void rxm_srx_grow(struct rxm_ep *ep);
void rxm_srx_taken(struct rxm_ep *ep);
struct rxm_conn *rxm_srx_conn(struct rxm_buf *buf,
			      const struct fi_cq_err_entry *comp);
void rxm_srx_conn_gone_locked(struct rxm_conn *conn);

#endif /* _KOFI_RXM_H */
