/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kstream: the engine's objects and its entry points inside the module.
 *
 * A kstream object owns the core provider's objects it is built on.  The
 * fabric, domain, passive endpoint and connection requests are the utility
 * objects of <kofi/util.h>; a stream endpoint owns a core endpoint
 * with a private core EQ, a transmit and a receive core CQ (callback CQs:
 * each operation posted on the core endpoint is a struct kstream_req) and
 * three core MRs (send buffer with control slots, receive ring, target
 * SGL).
 *
 * Locking and contexts:
 * - kstream_ep.lock (a bottom-half spinlock) protects the stream state; the data
 *   calls take only it, and sleep only as the core's data calls do.
 * - The core completes each operation by calling the done() of its
 *   request (kstream_progress.c), in the core's completion context: done()
 *   only queues the request on a lock-free list of its kind and signals.
 * - Progress runs in kstream_ep.work on kstream_wq, kicked by those
 *   signals, the core EQ's event handler and the keepalive timer; it takes
 *   the completed requests and reads the core EQ, updates the stream under
 *   the lock and posts control messages.  Data calls post their writes
 *   themselves.
 * - A caller waiting in the socket-like calls is woken by the completion
 *   signals too and drains the completions itself (kstream_ep_progress()) unless
 *   another context is at it, as rsockets' calls read their CQ: its data
 *   then does not wait for the work, and while such a caller waits the
 *   signals do not queue the work at all (kstream_ep.pollers), sparing a
 *   second thread woken per completion; a waiter that could not drain, or
 *   leaves, queues the work for what came since it last drained.
 *   kstream_ep.poll_mutex makes one context at a time drain the
 *   completions, so they are taken in order.
 * - Every readiness change wakes kstream_ep.wq (fi_control(FI_GETWAIT)) and
 *   calls kstream_ep.notify, if set.
 */
#ifndef _KSTREAM_H
#define _KSTREAM_H

#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <kofi/util.h>
#include <kofi/kstream.h>
#include <kofi/ib_verbs.h>
#include "kstream_curs.h"
#include "kstream_proto.h"

#define KSTREAM_PROV_NAME	"kstream"
#define KSTREAM_PROV_VERSION	FI_VERSION(1, 0)
#define KSTREAM_IOV_LIMIT	64
#define KSTREAM_BUF_MIN		4096
#define KSTREAM_BUF_MAX		(256U << 20)
#define KSTREAM_QSIZE_MIN	16
#define KSTREAM_QSIZE_MAX	0xfffe
#define KSTREAM_INLINE_MAX	65536
#define KSTREAM_KEEPALIVE_MAX	86400
/* Seconds a close waits at most for queued bytes to go. */
#define KSTREAM_LINGER_MAX	10
/* Jiffies a close after the peer's DISCONNECT waits for the peer's close. */
#define KSTREAM_PEER_CLOSE_WAIT	HZ
/* Jiffies before the connecting side sends its hello again, at first, at most. */
#define KSTREAM_HELLO_AGAIN	(HZ / 4)
#define KSTREAM_HELLO_AGAIN_MAX	(2 * HZ)

extern struct workqueue_struct *kstream_wq;
extern struct kofi_provider kstream_prov;
extern struct kofi_util_prov kstream_util;

/* Module parameters (kstream_main.c), the defaults of new endpoints. */
extern unsigned int kstream_mem_default;
extern unsigned int kstream_wmem_default;
extern unsigned int kstream_sqsize_default;
extern unsigned int kstream_rqsize_default;
extern unsigned int kstream_inline_default;
extern unsigned int kstream_iomap_size;
extern unsigned int kstream_polling_time;
extern unsigned int kstream_wake_up_interval;

/**
 * struct kstream_opts - endpoint settings (fi_setopt before enable)
 * @rbuf_size: receive ring bytes (FI_OPT_RECV_BUF_SIZE)
 * @sbuf_size: send buffer bytes (FI_OPT_SEND_BUF_SIZE)
 * @sq_size: send queue (FI_OPT_TX_SIZE)
 * @rq_size: receive queue (FI_OPT_RX_SIZE)
 * @inline_size: FI_OPT_KSTREAM_INLINE
 * @iomap_size: FI_OPT_KSTREAM_IOMAPSIZE
 * @keepalive: FI_OPT_KSTREAM_KEEPALIVE, seconds
 * @may_sleep: FI_OPT_DATA_MAY_SLEEP: every data call may sleep (non-zero)
 */
struct kstream_opts {
	size_t rbuf_size;
	size_t sbuf_size;
	size_t sq_size;
	size_t rq_size;
	size_t inline_size;
	size_t iomap_size;
	size_t keepalive;
	size_t may_sleep;
};

/**
 * struct kstream_liomap - a buffer we offer to the peer (kstream_ep_iomap())
 * @buf: the buffer
 * @len: its bytes
 * @offset: its iomap offset
 * @mr: its core MR, NULL for a free slot
 * @pending: its entry is still to be written into the peer's table
 */
struct kstream_liomap {
	void *buf;
	size_t len;
	u64 offset;
	struct fid_mr *mr;
	bool pending;
};

/**
 * enum kstream_state - the life of an endpoint and of its core connection
 * @KSTREAM_IDLE: opened, no core objects; settings may change
 * @KSTREAM_ENABLED: fi_enable() opened the core objects
 * @KSTREAM_CONNECTING: fi_connect() or fi_accept() issued
 * @KSTREAM_CONNECTED: the core connection is up: the stream runs
 * @KSTREAM_DOWN: the core connection ended or failed
 * @KSTREAM_CLOSING: the core objects are being released: nothing new is
 *	posted, no progress runs
 *
 * The transitions, each made by kstream_set_state() under the endpoint
 * lock, which refuses any other:
 *
 * - IDLE -> ENABLED: fi_enable();
 * - ENABLED -> CONNECTING: fi_connect() or fi_accept();
 * - CONNECTING -> ENABLED: the core refused that call;
 * - CONNECTING -> CONNECTED: FI_CONNECTED;
 * - ENABLED, CONNECTING, CONNECTED -> DOWN: FI_SHUTDOWN, a connection error
 *   or a stream error (kstream_fail()); DOWN -> DOWN changes nothing;
 * - any state but CLOSING -> CLOSING: fi_close(), or fi_enable() failing;
 * - CLOSING -> IDLE: fi_enable() failed and released what it opened.
 *
 * The order matters: a state below CONNECTED was never connected.
 */
enum kstream_state {
	KSTREAM_IDLE,
	KSTREAM_ENABLED,
	KSTREAM_CONNECTING,
	KSTREAM_CONNECTED,
	KSTREAM_DOWN,
	KSTREAM_CLOSING,
};

/**
 * enum kstream_peer - how far the peer has ended the stream
 * @KSTREAM_PEER_OPEN: both directions open
 * @KSTREAM_PEER_SHUT: the peer sent SHUTDOWN, or the connection was reset:
 *	end of stream after the data received
 * @KSTREAM_PEER_GONE: the peer sent DISCONNECT: end of stream after the
 *	data received, sends fail -ECONNRESET
 * @KSTREAM_PEER_LOST: after the DISCONNECT the core connection failed too
 *	(kstream_after_disconnect()): writes in flight were cancelled, sends
 *	fail -EPIPE; not a stream error
 *
 * It only moves forward, by kstream_set_peer_state() under the endpoint
 * lock: OPEN -> SHUT -> GONE -> LOST and OPEN -> GONE.  A SHUTDOWN after
 * the DISCONNECT changes nothing.  Independent of it: the local
 * shutdowns (kstream_ep.rd_shut, kstream_ep.wr_shut, in any order) and
 * the stream error (kstream_ep.err).
 */
enum kstream_peer {
	KSTREAM_PEER_OPEN,
	KSTREAM_PEER_SHUT,
	KSTREAM_PEER_GONE,
	KSTREAM_PEER_LOST,
};

/**
 * kstream_peer_eof() - the peer sends no more data
 * @peer: a state of the peer
 *
 * Context: any context.
 * Return: true once the peer sent SHUTDOWN or DISCONNECT or the
 * connection was reset.
 */
static inline bool kstream_peer_eof(enum kstream_peer peer)
{
	return peer != KSTREAM_PEER_OPEN;
}

/**
 * kstream_peer_gone() - the peer ended the stream with DISCONNECT
 * @peer: a state of the peer
 *
 * Context: any context.
 * Return: true after the peer's DISCONNECT.
 */
static inline bool kstream_peer_gone(enum kstream_peer peer)
{
	return peer >= KSTREAM_PEER_GONE;
}

/**
 * struct kstream_req - an operation kstream posts on its core endpoint
 * @cqe: its completion, the operation's context; done() is the handler of
 *	its kind: a data write (send buffer bytes, mapping announcements), a
 *	control write (ring updates, credits, control messages, keepalives)
 *	or a receive
 * @kep: the endpoint
 * @next: linkage in the free list of its kind (under kstream_ep.lock)
 * @node: linkage in the list of completed requests of its kind
 * @wcqe: KSTREAM_MSG_SEND mode: the completion of the RMA write a message
 *	posts before its send, which completes to @cqe; nothing to do there
 *	(RC completes the write first, and a failed write fails the send)
 * @flags: receives: the completion's flags
 * @len: data writes: bytes of the send buffer the write carries;
 *	receives: bytes received
 * @data: receives: the completion's remote CQ data (the message)
 * @msg: KSTREAM_MSG_SEND mode, writes: the value the send carries
 *	(kstream_msg_put()), kept until the send completes
 * @slot: KSTREAM_MSG_SEND mode, receives: the KSTREAM_MSG_SIZE bytes the
 *	receive is posted with (after the receive ring)
 * @err: the completion's error (positive errno), 0 for success
 */
struct kstream_req {
	struct fi_cqe cqe;
	struct fi_cqe wcqe;
	struct kstream_ep *kep;
	struct kstream_req *next;
	struct llist_node node;
	u64 flags;
	u32 len;
	u32 data;
	u8 msg[KSTREAM_MSG_SIZE];
	u8 *slot;
	int err;
};

/**
 * struct kstream_ep - a stream endpoint
 * @ep: the kOFI object
 * @dom: its domain
 * @core_info: the core info the core endpoint is (or will be) opened with
 * @opts: settings
 * @core_ep: core endpoint (after enable)
 * @core_eq: its private EQ
 * @progress: queues @work on kstream_wq when @core_eq has an event
 * @tx_cq: core transmit CQ
 * @rx_cq: core receive CQ
 * @smr: MR of @sbuf (and the control slots after it)
 * @rmr: MR of @rbuf
 * @tmr: MR of @tsgl
 * @sbuf: send buffer, @sbuf_size bytes plus KSTREAM_CTRL_SLOTS rs_sge
 * @rbuf: receive ring, and in KSTREAM_MSG_SEND mode after it the
 *	KSTREAM_MSG_SIZE-byte buffers of the @rq_size receives (as rsockets)
 * @tsgl: target SGL the peer writes ring updates into
 * @sbuf_size: bytes of the send buffer
 * @rbuf_size: bytes of the receive ring
 * @sq_size: core send queue size used
 * @rq_size: receives posted (and credits given)
 * @mode: how messages go (enum kstream_msg_mode), from the core info at
 *	enable (kstream_core_mode())
 * @virt: the core uses virtual addresses (FI_MR_VIRT_ADDR)
 * @wide_keys: the core's keys are wider than 32 bits
 * @peer: the peer's connection data (after the connection request or
 *	FI_CONNECTED)
 * @peer_len: bytes in @peer
 * @iomap_size: entries of our iomap table (after @tsgl), offered to the peer
 * @iomap_stride: bytes of an iomap entry on the wire (both tables)
 * @iomap_mutex: serializes kstream_ep_iomap() and kstream_ep_iounmap()
 * @poll_mutex: held while the core's completions are drained (the work,
 *	or a waiting caller in kstream_ep_progress())
 * @kicks: completion signals of the core, for waiting callers
 * @drained: @kicks as read before the last complete drain of the
 *	completions (kstream_progress_poll_locked()): all those signalled
 *	before are taken
 * @pollers: callers waiting in ksk_wait_until(), which take the core's
 *	completions themselves: while there is one, the done() handlers
 *	leave the progress work alone
 * @reqs: every request: data writes, control writes, receives
 * @rx_done: completed receives, newest first (done() adds, any context)
 * @data_done: completed data writes, likewise
 * @ctrl_done: completed control writes, likewise
 * @wq: readiness wait queue (FI_GETWAIT)
 * @notify: called after every readiness change, or NULL
 * @notify_arg: its argument
 * @work: progress
 * @keepalive: keepalive timer work; on the connecting side in
 *	KSTREAM_MSG_SEND mode also the repeat of the hello until the peer is
 *	heard (@hello_again)
 * @lock: protects everything below
 * @state: the endpoint's life, enum kstream_state
 * @peer_state: the peer's end of the stream, enum kstream_peer
 * @err: stream error (positive errno), 0 for none
 * @rd_shut: local SHUT_RD (reads return 0)
 * @wr_shut: local SHUT_WR (sends fail -EPIPE)
 * @tx_err: a failed transmit completion (positive errno) not judged yet:
 *	the receive CQ is read once more for a DISCONNECT first
 * @ctrl_pending: CTRL message to send when a slot frees, or -1
 * @err_report: @err is still to be reported on the EQ
 * @rx_posted: receives posted on the core endpoint
 * @swap_sgl: the NET flags differ: swap ring updates we write
 * @peer_heard: a message came from the peer, or the mode is
 *	KSTREAM_MSG_IMM.  In KSTREAM_MSG_SEND mode no RMA write goes to the
 *	peer before: on iWARP the core may register memory only as the
 *	connection comes up (ib_verbs, before it reports FI_CONNECTED), so
 *	the peer's keys are known good once the peer has sent, which it does
 *	only after FI_CONNECTED.  Until then the connecting side sends one
 *	credits-only message (@hello_sent), a send, which needs no key of the
 *	peer's, and the accepting side sends nothing at all: on iWARP the
 *	connecting side sends first (MPA, RFC 6581; see kstream_may_send())
 * @hello_sent: that message was sent.  It is sent again, after
 *	@hello_again jiffies (doubling up to KSTREAM_HELLO_AGAIN_MAX), until
 *	the peer is heard: soft-iWARP's accepting side can leave a first
 *	message that came while it was setting up its queue pair unread in
 *	its socket until more data arrives, and nothing else would come
 * @hello_again: the wait before the next repeat of the hello
 * @active: the endpoint connected with fi_connect() (not from a request)
 * @peer_net: the peer's host is big-endian (its NET flag): the byte order
 *	of the message values it sends in KSTREAM_MSG_SEND mode
 * @tx_sent_since: anything sent since the last keepalive tick
 * @remote_sgl: the peer's target SGL (addr, key)
 * @remote_sgl_key: its full key
 * @remote_sge: entry of @remote_sgl the next ring update goes to
 * @data_key_hi: high key half of the peer's ring (extension)
 * @target: our copy of the peer's ring entries we write to
 * @target_sge: entry of @target in use
 * @next_update: entry of @tsgl the peer writes next
 * @sbuf_head: start of the bytes of @sbuf not written yet (queued);
 *	the writes move it
 * @sbuf_tail: end of the queued bytes, where the next copy goes; only
 *	the holder of @tx_busy, or a call that found @tx_busy clear, moves
 *	it.  The bytes from @sbuf_head to @sbuf_tail (kstream_sbuf_queued())
 *	wait for the peer's ring, a credit or a send slot
 * @sbuf_avail: free bytes of @sbuf (neither queued nor in flight)
 * @sqe_avail: free data send slots
 * @tx_olen: size of the next full send chunk; it grows from
 *	KSTREAM_CHUNK_START as rsockets' does, but across send calls
 * @sseq_no: data messages sent
 * @sseq_comp: peer's credit limit
 * @ctrl_seqno: control messages sent
 * @ctrl_max_seqno: control messages allowed (completed + slots)
 * @tx_out: sends outstanding at the core
 * @rseq_no: data messages fully consumed
 * @rseq_comp: when the next credit update is due
 * @rbuf_off: next byte to read in @rbuf
 * @rbuf_free_off: start of the next half of @rbuf to advertise
 * @rbuf_avail: consumed bytes not yet advertised
 * @rbuf_adv: advertised bytes not yet received
 * @rbuf_data: received bytes not yet consumed
 * @data_free: free data write requests, as many as @sqe_avail
 * @ctrl_free: free control write requests, one per free control slot
 * @rx_free: free receive requests, @rq_size - @rx_posted
 * @rmsg: lengths of received data messages not fully consumed (ring)
 * @rmsg_size: entries of @rmsg
 * @rmsg_head: first unconsumed entry (a cursor of @rmsg_size entries)
 * @rmsg_count: entries queued
 * @liomap: our mappings, one slot per entry of the peer's table (or NULL)
 * @liomap_size: entries of the peer's iomap table
 * @iomap_pending: an entry of @liomap is still to be sent
 * @tiomap: the peer's mappings, checked copies of our iomap table
 * @tx_busy: a send or iowrite is copying into @sbuf (kstream_data.c)
 * @rx_busy: a receive is copying out of @rbuf
 * @waiters: KSTREAM_BUSY_WAITERS, KSTREAM_TX_WAITERS (atomic bits,
 *	outside the lock)
 */
struct kstream_ep {
	struct fid_ep ep;
	struct kofi_util_domain *dom;
	struct fi_info *core_info;
	struct kstream_opts opts;
	struct fid_ep *core_ep;
	struct fid_eq *core_eq;
	struct kofi_util_progress progress;
	struct fid_cq *tx_cq;
	struct fid_cq *rx_cq;
	struct fid_mr *smr;
	struct fid_mr *rmr;
	struct fid_mr *tmr;
	u8 *sbuf;
	u8 *rbuf;
	struct kstream_sge *tsgl;
	u32 sbuf_size;
	u32 rbuf_size;
	u32 sq_size;
	u32 rq_size;
	enum kstream_msg_mode mode;
	bool virt;
	bool wide_keys;
	u8 peer[KSTREAM_CONN_LEN_EXT];
	size_t peer_len;
	u32 iomap_size;
	u32 iomap_stride;
	struct mutex iomap_mutex;	/* see above */
	struct mutex poll_mutex;	/* see above */
	atomic_t kicks;
	atomic_t drained;
	atomic_t pollers;
	struct kstream_req *reqs;
	struct llist_head rx_done;
	struct llist_head data_done;
	struct llist_head ctrl_done;
	wait_queue_head_t wq;
	void (*notify)(void *arg);
	void *notify_arg;
	struct work_struct work;
	struct delayed_work keepalive;

	spinlock_t lock;	/* protects the fields below */
	enum kstream_state state;
	enum kstream_peer peer_state;
	int err;
	bool rd_shut;
	bool wr_shut;
	int tx_err;
	int ctrl_pending;
	bool err_report;
	u32 rx_posted;
	bool swap_sgl;
	bool peer_net;
	bool peer_heard;
	bool hello_sent;
	unsigned long hello_again;
	bool active;
	bool tx_sent_since;
	struct kstream_sge remote_sgl;
	u64 remote_sgl_key;
	u32 remote_sge;
	u64 data_key_hi;
	struct kstream_sge target[KSTREAM_SGL_SIZE];
	u32 target_sge;
	u32 next_update;
	struct kstream_curs sbuf_head;
	struct kstream_curs sbuf_tail;
	u32 sbuf_avail;
	u32 sqe_avail;
	u32 tx_olen;
	u16 sseq_no;
	u16 sseq_comp;
	u32 ctrl_seqno;
	u32 ctrl_max_seqno;
	u32 tx_out;
	u16 rseq_no;
	u16 rseq_comp;
	struct kstream_curs rbuf_off;
	struct kstream_curs rbuf_free_off;
	u32 rbuf_avail;
	u32 rbuf_adv;
	u32 rbuf_data;
	struct kstream_req *data_free;
	struct kstream_req *ctrl_free;
	struct kstream_req *rx_free;
	u32 *rmsg;
	u32 rmsg_size;
	struct kstream_curs rmsg_head;
	u32 rmsg_count;
	struct kstream_liomap *liomap;
	u32 liomap_size;
	bool iomap_pending;
	struct kstream_iomap_ent *tiomap;
	bool tx_busy;
	bool rx_busy;
	unsigned long waiters;
};

/* kstream_ep.waiters: a call or a poll found a direction busy */
#define KSTREAM_BUSY_WAITERS	0
/*
 * kstream_ep.waiters: something waits for a transmit completion (room in
 * the send buffer, a send or control slot): the done() of the next
 * transmit request wakes the callers waiting in ksk_wait_until() to take
 * it, and clears the bit.
 */
#define KSTREAM_TX_WAITERS	1

/**
 * kstream_may_send() - may the stream send a message now?
 * @kep: the endpoint (lock held)
 *
 * Always in KSTREAM_MSG_IMM mode; in KSTREAM_MSG_SEND mode (iWARP) the
 * accepting side sends nothing before the connecting side's first message
 * came in (MPA, RFC 6581: the connecting side sends first).
 *
 * Context: any context, endpoint lock held.
 * Return: true if a message may be posted.
 */
static inline bool kstream_may_send(const struct kstream_ep *kep)
{
	return kep->peer_heard || kep->active;
}

/**
 * kstream_sbuf_queued() - bytes of the send buffer queued, not written yet
 * @kep: the endpoint (lock held)
 *
 * Context: any context, endpoint lock held.
 * Return: the bytes from sbuf_head to sbuf_tail.
 */
static inline u32 kstream_sbuf_queued(const struct kstream_ep *kep)
{
	return kstream_curs_diff(kep->sbuf_size, &kep->sbuf_head,
				 &kep->sbuf_tail);
}

/**
 * struct kstream_vec - a caller's vector, walked by the copies
 * @type: FI_IOV_KVEC, FI_IOV_BVEC or FI_IOV_SG
 * @it: the iterator of a kvec or bvec vector
 * @sg: the scatterlist of an FI_IOV_SG vector
 * @nents: its entries
 * @skip: bytes of it already walked
 * @len: bytes in all
 */
struct kstream_vec {
	enum fi_iov_type type;
	struct iov_iter it;
	struct scatterlist *sg;
	unsigned int nents;
	size_t skip;
	size_t len;
};

static inline struct kstream_ep *kstream_ep(struct fid_ep *ep)
{
	return container_of(ep, struct kstream_ep, ep);
}

/* kstream_main.c */
int kstream_core_mode(const struct fi_info *core);
/* Only in a build with the KUnit suites (KOFI_KSTREAM_TEST_HOOK). */
void kstream_test_set_msg_send(bool on);
void kstream_test_lose_hellos(int n);
#ifdef KOFI_KSTREAM_TEST_HOOK
bool kstream_test_hello_lost(void);
#else
static inline bool kstream_test_hello_lost(void)
{
	return false;
}
#endif

/* kstream_cm.c */
int kstream_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_pep **pep, void *context);
extern const struct fi_ops_cm kstream_ep_cm_ops;
void kstream_cm_event(struct kstream_ep *kep, u32 event, const void *buf,
		      ssize_t len);
void kstream_cm_error(struct kstream_ep *kep, int err);

/* kstream_ep.c */
int kstream_ep_open(struct fid_domain *domain, struct fi_info *info,
		    struct fid_ep **ep, void *context);
bool kstream_is_ep(struct fid_ep *ep);
int kstream_ep_set_peer(struct kstream_ep *kep, const void *data,
			size_t len);
size_t kstream_ep_conn_data(struct kstream_ep *kep, void *buf);
void kstream_wait_tx(struct kstream_ep *kep);
void kstream_wait_peer_close(struct kstream_ep *kep);

/* kstream_progress.c */
void kstream_progress_work(struct work_struct *work);
bool kstream_ep_progress(struct kstream_ep *kep);
void kstream_keepalive_work(struct work_struct *work);
bool kstream_set_state(struct kstream_ep *kep, enum kstream_state state);
bool kstream_set_peer_state(struct kstream_ep *kep, enum kstream_peer peer);
void kstream_fail(struct kstream_ep *kep, int err);
bool kstream_after_disconnect(struct kstream_ep *kep);
void kstream_wake(struct kstream_ep *kep);
void kstream_post_recvs(struct kstream_ep *kep);
void kstream_connected(struct kstream_ep *kep);
int kstream_send_ctrl(struct kstream_ep *kep, u32 ctrl);
void kstream_update_credits(struct kstream_ep *kep);
void kstream_tx_waiter(struct kstream_ep *kep);
int kstream_reqs_init(struct kstream_ep *kep);
void kstream_reqs_release(struct kstream_ep *kep);
struct kstream_req *kstream_data_req(struct kstream_ep *kep, u32 len);
void kstream_data_req_done(struct kstream_ep *kep, struct kstream_req *req);
void kstream_tx_posted(struct kstream_ep *kep);
int kstream_core_write(struct fid_ep *core, enum kstream_msg_mode mode,
		       struct kvec *iov, void **desc, size_t cnt, u64 addr,
		       u64 key, u32 imm, struct kstream_req *req, bool with_imm,
		       u64 flags);
int kstream_post_data(struct kstream_ep *kep, struct kvec *iov,
		      void **desc, size_t cnt, u64 addr, u64 key, u32 imm,
		      u32 len, bool with_imm);

/* kstream_data.c */
extern const struct fi_ops_msg kstream_msg_ops;
__poll_t kstream_poll_snapshot(struct kstream_ep *kep);
int kstream_tx_check(struct kstream_ep *kep);
int kstream_post_sbuf(struct kstream_ep *kep, u32 x, u64 addr, u64 key,
		      u32 imm, bool with_imm);
int kstream_vec_init(struct kstream_vec *v, unsigned int dir,
		     enum fi_iov_type type, const void *vec, size_t count);
void kstream_sbuf_copy(struct kstream_ep *kep, struct kstream_vec *v, u32 x);
void kstream_sbuf_queue(struct kstream_ep *kep, u32 x);
int kstream_tx_undo(struct kstream_ep *kep, struct kstream_vec *v, u32 x,
		    int err);
bool kstream_busy_claim(struct kstream_ep *kep, bool *busy);
bool kstream_tx_end(struct kstream_ep *kep);
void kstream_tx_push(struct kstream_ep *kep);

/* kstream_iomap.c */
int kstream_iomap_init(struct kstream_ep *kep);
void kstream_iomap_release(struct kstream_ep *kep);
int kstream_iomap_rx(struct kstream_ep *kep, u32 index);
void kstream_iomap_flush(struct kstream_ep *kep);

/*
 * Entry points for the socket layer (kstream_sock.c) are declared in
 * <kofi/kstream.h>: kstream_ep_poll(), kstream_ep_shutdown(),
 * kstream_ep_error(), kstream_ep_set_notify().
 */

#endif /* _KSTREAM_H */
