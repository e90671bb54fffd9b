/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI samples: the raw-verbs baseline's connection - one RC queue pair
 * set up directly with rdma_cm and ib_core (no kOFI), the buffer
 * DMA-mapped once, and completion queues of the kind kOFI's samples wait
 * on: ib_cqe done callbacks (ib_alloc_cq(), IB_POLL_SOFTIRQ) push each
 * completion into a ring under an irq-safe spinlock and wake a wait queue,
 * where the sample sleeps with wait_event_interruptible_timeout() - the
 * path of kOFI's shared CQ and fi_cq_sread().
 *
 * Everything here runs in process context (module init) and may sleep,
 * except the done callbacks (softirq) and the rdma_cm event handler
 * (rdma_cm's work queue).
 */
#ifndef _KOFI_SAMPLE_VERBS_H
#define _KOFI_SAMPLE_VERBS_H

#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/inet.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

/* Completions a queue holds: more than can ever be outstanding. */
#define VB_RING		256
/* Send requests in flight at most (the bandwidth window). */
#define VB_MAX_WINDOW	128
/* Receive slots at most. */
#define VB_MAX_SLOTS	64
#define VB_INLINE	256
#define VB_CM_TIMEOUT	2000

/**
 * struct vb_slot - one posted receive (or the send context)
 * @cqe: its completion entry, whose done callback is the queue's
 * @buf: the buffer it receives into
 */
struct vb_slot {
	struct ib_cqe cqe;
	u8 *buf;
};

/**
 * struct vb_wc - one completion as the sample reads it
 * @slot: the request's slot
 * @len: bytes received
 * @status: the work completion status
 */
struct vb_wc {
	struct vb_slot *slot;
	u32 len;
	enum ib_wc_status status;
};

/**
 * struct vb_cq - a ring of completions and its waiters
 * @lock: protects the ring
 * @wq: sleepers waiting for a completion
 * @head: next to read (free running)
 * @tail: next to write (free running)
 * @ring: the completions
 */
struct vb_cq {
	spinlock_t lock;	/* protects head, tail and ring */
	wait_queue_head_t wq;
	u32 head;
	u32 tail;
	struct vb_wc ring[VB_RING];
};

/**
 * struct vb_conn - one connected RC queue pair
 * @listen: the listening cm_id (server)
 * @id: the connected cm_id
 * @pd: protection domain
 * @cq: the ib_cq of both queues
 * @txq: send completions
 * @rxq: receive completions
 * @tx: context of every send (one shared ib_cqe)
 * @slots: receive slots
 * @cm_done: completed by every rdma_cm event
 * @cm_event: the last event
 * @cm_status: its status
 * @buf: tx half then rx half, @half bytes each (kmalloc'd)
 * @half: bytes of each half
 * @dma: DMA address of @buf (mapped once)
 * @mapped: @dma is valid
 * @max_inline: inline bytes of the QP
 * @min_rnr_timer: receiver-not-ready NAK timer of the QP (IBTA encoding)
 * @timeout_ms: limit of every wait
 */
struct vb_conn {
	struct rdma_cm_id *listen;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct vb_cq txq;
	struct vb_cq rxq;
	struct vb_slot tx;
	struct vb_slot slots[VB_MAX_SLOTS];
	struct completion cm_done;
	enum rdma_cm_event_type cm_event;
	int cm_status;
	u8 *buf;
	size_t half;
	u64 dma;
	bool mapped;
	u32 max_inline;
	u8 min_rnr_timer;
	int timeout_ms;
};

static inline void vb_cq_init(struct vb_cq *q)
{
	spin_lock_init(&q->lock);
	init_waitqueue_head(&q->wq);
	q->head = 0;
	q->tail = 0;
}

/* Context: softirq (done callbacks). */
static inline void vb_cq_push(struct vb_cq *q, struct ib_wc *wc)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	if (!WARN_ON_ONCE(q->tail - q->head >= VB_RING)) {
		q->ring[q->tail % VB_RING] = (struct vb_wc){
			.slot = container_of(wc->wr_cqe, struct vb_slot, cqe),
			.len = wc->byte_len,
			.status = wc->status,
		};
		q->tail++;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	/* synchronous, as kOFI's CQs (and sockets) wake their sleepers */
	wake_up_interruptible_sync(&q->wq);
}

static inline bool vb_cq_ready(struct vb_cq *q)
{
	unsigned long flags;
	bool ready;

	spin_lock_irqsave(&q->lock, flags);
	ready = q->tail != q->head;
	spin_unlock_irqrestore(&q->lock, flags);
	return ready;
}

static inline void vb_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vb_conn *c = cq->cq_context;

	vb_cq_push(&c->txq, wc);
}

static inline void vb_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vb_conn *c = cq->cq_context;

	vb_cq_push(&c->rxq, wc);
}

/**
 * vb_wait() - wait for the next completion of a queue
 * @c: the connection
 * @q: &c->txq or &c->rxq
 * @wc: the completion
 *
 * Return: 0, -ETIMEDOUT, -EINTR, or -EIO for a failed work request.
 */
static inline int vb_wait(struct vb_conn *c, struct vb_cq *q,
			  struct vb_wc *wc)
{
	unsigned long flags;
	long left;

	left = wait_event_interruptible_timeout(q->wq, vb_cq_ready(q),
						msecs_to_jiffies(c->timeout_ms));
	if (left < 0)
		return -EINTR;
	if (!left)
		return -ETIMEDOUT;
	spin_lock_irqsave(&q->lock, flags);
	*wc = q->ring[q->head % VB_RING];
	q->head++;
	spin_unlock_irqrestore(&q->lock, flags);
	if (wc->status != IB_WC_SUCCESS) {
		pr_err("work completion: %s\n", ib_wc_status_msg(wc->status));
		return -EIO;
	}
	return 0;
}

static inline u8 *vb_tx(struct vb_conn *c)
{
	return c->buf;
}

static inline u8 *vb_rx(struct vb_conn *c)
{
	return c->buf + c->half;
}

/* Post a receive of @len bytes at @buf (inside the rx half) on @slot. */
static inline int vb_post_recv(struct vb_conn *c, struct vb_slot *slot,
			       u8 *buf, size_t len)
{
	struct ib_sge sge = {
		.addr = c->dma + (buf - c->buf),
		.length = len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &slot->cqe,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
	};

	slot->buf = buf;
	ib_dma_sync_single_for_device(c->id->device, sge.addr, len,
				      DMA_BIDIRECTIONAL);
	return ib_post_recv(c->id->qp, &wr, NULL);
}

/* Post a send of the first @len bytes of the tx half (inline if it fits). */
static inline int vb_post_send(struct vb_conn *c, size_t len)
{
	bool inl = len && len <= c->max_inline;
	struct ib_sge sge = {
		.addr = inl ? (uintptr_t)vb_tx(c) : c->dma,
		.length = len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &c->tx.cqe,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED | (inl ? IB_SEND_INLINE : 0),
	};

	if (len && !inl)
		ib_dma_sync_single_for_device(c->id->device, c->dma, len,
					      DMA_BIDIRECTIONAL);
	return ib_post_send(c->id->qp, &wr, NULL);
}

/* A received buffer becomes the CPU's. */
static inline void vb_sync_cpu(struct vb_conn *c, u8 *buf, size_t len)
{
	ib_dma_sync_single_for_cpu(c->id->device, c->dma + (buf - c->buf), len,
				   DMA_BIDIRECTIONAL);
}

/* Context: rdma_cm's work queue; may sleep. */
static inline int vb_cm_handler(struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	struct vb_conn *c = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (c->id)
			return -EBUSY;	/* rdma_cm destroys this second id */
		c->id = id;
	}
	if (ev->event == RDMA_CM_EVENT_TIMEWAIT_EXIT)
		return 0;
	c->cm_event = ev->event;
	c->cm_status = ev->status;
	complete(&c->cm_done);
	return 0;
}

/* Wait for rdma_cm event @want. */
static inline int vb_cm_wait(struct vb_conn *c,
			     enum rdma_cm_event_type want)
{
	long left;
	long t = msecs_to_jiffies(c->timeout_ms);

	left = wait_for_completion_interruptible_timeout(&c->cm_done, t);
	if (left < 0)
		return -EINTR;
	if (!left)
		return -ETIMEDOUT;
	if (c->cm_event == want)
		return 0;
	pr_err("rdma_cm: %s (status %d), expected %s\n",
	       rdma_event_msg(c->cm_event), c->cm_status,
	       rdma_event_msg(want));
	if (c->cm_event == RDMA_CM_EVENT_REJECTED)
		return -ECONNREFUSED;
	return c->cm_status < 0 ? c->cm_status : -ECONNABORTED;
}

/* PD, CQ, QP on the connected id's device, the buffer mapped. */
static inline int vb_setup_qp(struct vb_conn *c, u32 sq, u32 rq)
{
	struct ib_device *dev = c->id->device;
	struct ib_qp_init_attr attr = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = {
			.max_send_wr = sq,
			.max_recv_wr = rq,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = VB_INLINE,
		},
	};
	u32 i;
	int ret;

	c->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(c->pd)) {
		ret = PTR_ERR(c->pd);
		c->pd = NULL;
		return ret;
	}
	c->cq = ib_alloc_cq(dev, c, sq + rq, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(c->cq)) {
		ret = PTR_ERR(c->cq);
		c->cq = NULL;
		return ret;
	}
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	ret = rdma_create_qp(c->id, c->pd, &attr);
	if (ret) {
		/* A device without inline data: send from the buffer. */
		attr.cap.max_inline_data = 0;
		ret = rdma_create_qp(c->id, c->pd, &attr);
	}
	if (ret)
		return ret;
	c->max_inline = attr.cap.max_inline_data;
	c->dma = ib_dma_map_single(dev, c->buf, 2 * c->half, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, c->dma))
		return -ENOMEM;
	c->mapped = true;
	c->tx.cqe.done = vb_tx_done;
	c->tx.buf = vb_tx(c);
	for (i = 0; i < VB_MAX_SLOTS; i++)
		c->slots[i].cqe.done = vb_rx_done;
	/* Slot 0 receives into the whole rx half (syncs, pingpong). */
	return vb_post_recv(c, &c->slots[0], vb_rx(c), c->half);
}

/**
 * vb_connect() - connect one RC queue pair with rdma_cm
 * @c: zeroed connection with @buf, @half, @min_rnr_timer and @timeout_ms set
 * @server: listen on @node:@port and accept one connection
 * @node: numeric IPv4 address (server: local; client: the server)
 * @port: port
 * @sq: send queue depth
 * @rq: receive queue depth
 *
 * Return: 0 once established, or a negative errno; call vb_close() anyway.
 */
static inline int vb_connect(struct vb_conn *c, bool server, const char *node,
			     u16 port, u32 sq, u32 rq)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.flow_control = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	struct rdma_cm_id *id;
	int ret;

	vb_cq_init(&c->txq);
	vb_cq_init(&c->rxq);
	init_completion(&c->cm_done);
	if (!in4_pton(node, -1, (u8 *)&sin.sin_addr, -1, NULL))
		return -EINVAL;
	id = rdma_create_id(&init_net, vb_cm_handler, c, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	if (server) {
		c->listen = id;
		ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
		if (!ret)
			ret = rdma_listen(id, 1);
		if (!ret) {
			pr_info("listening on %pI4:%u\n", &sin.sin_addr, port);
			ret = vb_cm_wait(c, RDMA_CM_EVENT_CONNECT_REQUEST);
		}
		if (ret)
			return ret;
		ret = vb_setup_qp(c, sq, rq);
		if (!ret)
			ret = rdma_set_min_rnr_timer(c->id, c->min_rnr_timer);
		/* Outside the event handler: under its lock. */
		rdma_lock_handler(c->id);
		if (ret)
			rdma_reject(c->id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		else
			ret = rdma_accept(c->id, &param);
		rdma_unlock_handler(c->id);
	} else {
		c->id = id;
		ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin,
					VB_CM_TIMEOUT);
		if (!ret)
			ret = vb_cm_wait(c, RDMA_CM_EVENT_ADDR_RESOLVED);
		if (!ret)
			ret = rdma_resolve_route(id, VB_CM_TIMEOUT);
		if (!ret)
			ret = vb_cm_wait(c, RDMA_CM_EVENT_ROUTE_RESOLVED);
		if (!ret)
			ret = vb_setup_qp(c, sq, rq);
		if (!ret)
			ret = rdma_set_min_rnr_timer(id, c->min_rnr_timer);
		if (!ret)
			ret = rdma_connect(id, &param);
	}
	return ret ? ret : vb_cm_wait(c, RDMA_CM_EVENT_ESTABLISHED);
}

/**
 * vb_close() - disconnect, flush and free everything vb_connect() made
 * @c: the connection
 */
static inline void vb_close(struct vb_conn *c)
{
	if (c->id && c->id->qp) {
		rdma_disconnect(c->id);
		ib_drain_qp(c->id->qp);
		rdma_destroy_qp(c->id);
	}
	if (c->mapped)
		ib_dma_unmap_single(c->id->device, c->dma, 2 * c->half,
				    DMA_BIDIRECTIONAL);
	if (c->cq) {
		/*
		 * The softirq poll that ran the drain's completion may still
		 * be re-arming the CQ after ib_free_cq() can take the poll
		 * back; a grace period outlasts it.
		 */
		synchronize_rcu();
		ib_free_cq(c->cq);
	}
	if (c->pd)
		ib_dealloc_pd(c->pd);
	if (c->id && c->id != c->listen)
		rdma_destroy_id(c->id);
	if (c->listen)
		rdma_destroy_id(c->listen);
	c->id = NULL;
	c->listen = NULL;
}

#endif /* _KOFI_SAMPLE_VERBS_H */
