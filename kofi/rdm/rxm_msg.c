// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: the data calls - messages and tagged messages - and the receive
 * path.
 *
 * A send is one eager packet: the 64-byte header, then the payload (the
 * caller's vector, or its copy for FI_INJECT), handed to the core in one
 * fi_sendmsg() on the peer's connection; it completes when the core's
 * send does.  A packet arrives in a bounce buffer of its connection and
 * goes to the first posted receive that takes it (kofi.ko's receive
 * matching: tags, directed receives, multi-receive buffers); the payload
 * is copied out and the buffer posted again.  A packet no receive takes
 * waits in its bounce buffer as an unexpected message, which holds the
 * buffer: a peer that sends faster than the ULP receives is held back by
 * its connection (the core's flow control), nothing is dropped.  A
 * rendezvous request waits in a copy of its own instead, and its bounce
 * buffer is posted again at once: the reads of the receives that took
 * earlier requests are answered on the same connection (ksocket), behind
 * whatever the peer sent after them, so requests that held the bounce
 * buffers would stop those reads for good.
 *
 * Over a core with FI_OPT_TAGGED_RX (ksocket) a tagged message up to the
 * eager limit goes as the core's tagged message, without rxm's header, as
 * libfabric's rxm sends it over tcp.  When such a message's header has
 * arrived the core asks rxm_trx_claim() where it goes: straight into the
 * receive it matches; else into the next bounce buffer, where it waits as
 * unexpected like any packet (its header made up from the core's
 * completion); a message larger than a bounce buffer (a peer with another
 * eager limit) waits in a buffer of its own (rxm_big.c).  Untagged
 * messages, and every message over another core, carry rxm's header.
 *
 * Over libfabric's net wire ("ksocket;net", rxm_ep.net) no message has
 * rxm's header and none goes by rendezvous: an untagged message of any
 * size is the core's untagged message, a tagged one the core's tagged
 * message, and both arrive as above (the core claims every message).
 *
 * Completions are written with no rxm lock held, in the context the core
 * completes in (ksocket: socket callbacks or its work; ib_verbs: softirq)
 * or in the data call that found a waiting message.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "rxm.h"

struct kmem_cache *rxm_tx_cache;

/**
 * rxm_vec_slice() - a part of a vector, as a vector of its own
 * @src: the vector
 * @off: where the part starts
 * @n: its bytes (fewer if @src ends first)
 * @dst: filled in
 *
 * Context: any context.
 * Return: the index in @src of the entry @dst starts in (entries of @dst
 * are the ones of @src from there on, in order).
 */
unsigned int rxm_vec_slice(const struct kofi_vec *src, size_t off, size_t n,
			   struct kofi_vec *dst)
{
	unsigned int i, start = src->count;

	dst->type = src->type;
	dst->first = 0;
	dst->count = 0;
	dst->len = 0;
	dst->hdr_len = 0;
	for (i = src->first; i < src->count && dst->len < n; i++) {
		size_t l = src->type == FI_IOV_BVEC ? src->bv[i].bv_len :
			   src->kv[i].iov_len;
		size_t take;

		if (off >= l) {
			off -= l;
			continue;
		}
		take = min(l - off, n - dst->len);
		if (!dst->count)
			start = i;
		if (src->type == FI_IOV_BVEC) {
			dst->bv[dst->count] = src->bv[i];
			dst->bv[dst->count].bv_offset += off;
			dst->bv[dst->count].bv_len = take;
		} else {
			dst->kv[dst->count].iov_base =
				(u8 *)src->kv[i].iov_base + off;
			dst->kv[dst->count].iov_len = take;
		}
		dst->count++;
		dst->len += take;
		off = 0;
	}
	return start;
}

/**
 * rxm_vec_chunk() - split a kvec vector's entries into pieces
 * @v: the vector, FI_IOV_KVEC; its entries larger than @chunk are split
 *	in place into entries of at most @chunk bytes, from their start
 * @chunk: the largest entry
 *
 * Context: any context.
 * Return: 0, or -EMSGSIZE if the pieces are more than a vector holds
 * (@v is left as it was).
 */
int rxm_vec_chunk(struct kofi_vec *v, size_t chunk)
{
	struct kofi_vec src = *v;
	unsigned int i, n = 0;
	size_t off;

	for (i = src.first; i < src.count; i++) {
		for (off = 0; off < src.kv[i].iov_len; off += chunk) {
			if (n == ARRAY_SIZE(v->kv)) {
				*v = src;
				return -EMSGSIZE;
			}
			v->kv[n].iov_base = (u8 *)src.kv[i].iov_base + off;
			v->kv[n].iov_len = min(chunk, src.kv[i].iov_len - off);
			n++;
		}
	}
	v->first = 0;
	v->count = n;
	return 0;
}

/* ---- sends ---- */

/**
 * rxm_tx_free() - free a send entry
 * @ep: its endpoint
 * @tx: the entry
 *
 * Context: any context.
 */
void rxm_tx_free(struct rxm_ep *ep, struct rxm_tx *tx)
{
	kmem_cache_free(rxm_tx_cache, tx);
	atomic_dec(&ep->tx_out);
}

/**
 * rxm_tx_get() - a send entry for an operation to a peer
 * @ep: the endpoint
 * @addr: the peer
 * @context: the ULP's context
 * @flags: the entry's completion flags
 * @conn: the connection to the peer, held (rxm_conn_put())
 * @err: on NULL, the error of rxm_conn_get(), or -EAGAIN when
 *	tx_attr->size operations are in flight or no memory
 *
 * Context: any context; does not sleep.
 * Return: the entry, done() set to rxm_tx_done(), not an inject and not
 * a rendezvous; NULL.
 */
struct rxm_tx *rxm_tx_get(struct rxm_ep *ep, fi_addr_t addr, void *context,
			  u64 flags, struct rxm_conn **conn, int *err)
{
	struct rxm_tx *tx;

	*conn = rxm_conn_get(ep, addr, err);
	if (!*conn)
		return NULL;
	*err = -EAGAIN;
	if (atomic_inc_return(&ep->tx_out) > ep->info->tx_attr->size)
		goto err_out;
	tx = kmem_cache_alloc(rxm_tx_cache, GFP_ATOMIC);
	if (!tx)
		goto err_out;
	tx->cqe.done = rxm_tx_done;
	tx->ep = ep;
	tx->context = context;
	tx->flags = flags;
	tx->inject = false;
	tx->rndv = false;
	return tx;
err_out:
	atomic_dec(&ep->tx_out);
	rxm_conn_put(*conn);
	return NULL;
}

/**
 * rxm_tx_unget() - give back an entry of rxm_tx_get() that was not posted
 * @tx: the entry
 * @conn: its connection, released
 * @err: why it was not posted
 *
 * -ENOTCONN from the core: its connection ended before rxm saw it go.
 * The connection is ended, and the caller is told to try again: the
 * next call connects again.
 *
 * Context: any context.
 * Return: the error for the ULP: -EAGAIN for -ENOTCONN, else @err.
 */
int rxm_tx_unget(struct rxm_tx *tx, struct rxm_conn *conn, int err)
{
	rxm_tx_free(tx->ep, tx);
	if (err == -ENOTCONN) {
		rxm_conn_fail(conn);
		err = -EAGAIN;
	}
	rxm_conn_put(conn);
	return err;
}

/**
 * rxm_tx_posted() - end a post of an entry of rxm_tx_get() to the core
 * @tx: the entry
 * @conn: its connection, released
 * @ret: what the core's post call returned
 *
 * Posted (@ret 0), the entry is the core's until its completion
 * (rxm_tx_done()) and only the connection is released; not posted, the
 * entry is given back with rxm_tx_unget().
 *
 * Context: any context; does not sleep.
 * Return: 0 for a posted entry, else as rxm_tx_unget().
 */
int rxm_tx_posted(struct rxm_tx *tx, struct rxm_conn *conn, int ret)
{
	if (ret)
		return rxm_tx_unget(tx, conn, ret);
	rxm_conn_put(conn);
	return 0;
}

/**
 * rxm_tx_done() - the core completed a packet's send
 * @cq: the core CQ
 * @cqe: &rxm_tx.cqe
 * @comp: the core's completion
 *
 * Context: the core's completion context.
 */
void rxm_tx_done(struct fid_cq *cq, struct fi_cqe *cqe,
		 const struct fi_cq_err_entry *comp)
{
	struct rxm_tx *tx = container_of(cqe, struct rxm_tx, cqe);
	struct rxm_ep *ep = tx->ep;
	void *context = tx->context;
	u64 flags = tx->flags;
	size_t len = tx->len;
	bool inject = tx->inject;
	struct fid_cq *ucq;

	if (tx->rndv) {
		rxm_rndv_sent(tx, comp->err);
		return;
	}
	/* the entry is free again before the ULP may post from its done() */
	rxm_tx_free(ep, tx);
	if (inject)
		return;
	ucq = kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL);
	if (comp->err)
		kofi_cq_write_err(ucq, context, flags, comp->err,
				  comp->prov_errno, 0, 0);
	else
		kofi_cq_write(ucq, context, flags, len, NULL, 0);
}

/* FI_INJECT: the payload copied into the entry. */
static int rxm_tx_inject(struct rxm_tx *tx)
{
	struct iov_iter it;

	if (tx->vec.len > RXM_INJECT_SIZE)
		return -EMSGSIZE;
	kofi_vec_iter(&tx->vec, ITER_SOURCE, false, &it);
	if (copy_from_iter(tx->buf, tx->vec.len, &it) != tx->vec.len)
		return -EFAULT;
	tx->vec.type = FI_IOV_KVEC;
	tx->vec.count = 2;
	tx->vec.kv[1].iov_base = tx->buf;
	tx->vec.kv[1].iov_len = tx->vec.len;
	tx->inject = true;
	return 0;
}

/*
 * A message as the core's own, the payload only, the tag (tagged) and
 * remote CQ data in the core's header: a tagged eager message over
 * ksocket, any message over net.
 */
static int rxm_send_raw(struct rxm_conn *conn, struct rxm_tx *tx,
			const struct fi_msg_tagged *s, u64 flags, bool tagged)
{
	struct fi_msg_tagged tm = {
		.iov_type = tx->vec.type,
		.iov_count = tx->vec.count - 1,
		.addr = FI_ADDR_UNSPEC,
		.tag = s->tag,
		.context = &tx->cqe,
		.data = s->data,
	};
	struct fi_msg m;

	if (tx->vec.type == FI_IOV_BVEC)
		tm.msg_bvec = tx->vec.bv + 1;
	else
		tm.msg_iov = tx->vec.kv + 1;
	flags = FI_COMPLETION | (flags & (FI_DELIVERY_COMPLETE |
					  FI_REMOTE_CQ_DATA | FI_MAY_SLEEP));
	if (tagged)
		return fi_tsendmsg(conn->core, &tm, flags);
	m.iov_type = tm.iov_type;
	m.msg_iov = tm.msg_iov;
	m.desc = NULL;
	m.iov_count = tm.iov_count;
	m.addr = tm.addr;
	m.context = tm.context;
	m.data = tm.data;
	return fi_sendmsg(conn->core, &m, flags);
}

/* An eager packet: header and payload in one core send. */
static int rxm_send_pkt(struct rxm_conn *conn, struct rxm_tx *tx, u64 flags)
{
	struct fi_msg cm = {
		.iov_type = tx->vec.type,
		.iov_count = tx->vec.count,
		.addr = FI_ADDR_UNSPEC,
		.context = &tx->cqe,
	};

	if (tx->vec.type == FI_IOV_BVEC)
		cm.msg_bvec = tx->vec.bv;
	else
		cm.msg_iov = tx->vec.kv;
	/*
	 * The core's send completion over its reliable connection is
	 * transmit complete (as libfabric's rxm has it); delivery complete
	 * is the core's acknowledgment.
	 */
	return fi_sendmsg(conn->core, &cm, FI_COMPLETION |
			  (flags & (FI_DELIVERY_COMPLETE | FI_MAY_SLEEP)));
}

static ssize_t rxm_send(struct rxm_ep *ep, const struct fi_msg_tagged *s,
			u64 flags, u8 op)
{
	u64 sleep = rxm_sleep_flag(ep, flags);
	struct rxm_conn *conn;
	struct rxm_tx *tx;
	int ret;

	if (s->iov_count > ep->info->tx_attr->iov_limit)
		return -EINVAL;
	tx = rxm_tx_get(ep, s->addr, s->context, FI_SEND |
			(op == RXM_OP_TAGGED ? FI_TAGGED : FI_MSG), &conn, &ret);
	if (!tx)
		return ret;
	ret = kofi_vec_set(&tx->vec, s->iov_type, s->msg_iov, s->iov_count, 1);
	if (ret)
		goto err_tx;
	tx->len = tx->vec.len;
	if (flags & FI_INJECT) {
		ret = rxm_tx_inject(tx);
		if (ret)
			goto err_tx;
	}
	ret = rxm_credit_take(conn);
	if (ret)
		goto err_tx;
	rxm_hdr_fill(&tx->hdr, RXM_EAGER, op, lower_32_bits(conn->peer_id),
		     0, tx->len,
		     (flags & FI_REMOTE_CQ_DATA) ? RXM_FLAG_CQ_DATA : 0,
		     (flags & FI_REMOTE_CQ_DATA) ? s->data : 0, s->tag);
	kofi_vec_hdr(&tx->vec, &tx->hdr, sizeof(tx->hdr));
	if (ep->net) {	/* any size, as the core's message: no header */
		ret = rxm_send_raw(conn, tx, s, flags | sleep,
				   op == RXM_OP_TAGGED);
	} else if (rxm_sar_sends(ep, conn, tx->len)) {
		ret = rxm_sar_send(ep, conn, tx, flags | sleep);
	} else if (tx->len > RXM_EAGER_LIMIT) {
		ret = rxm_rndv_send(ep, conn, tx, sleep);
		if (ret)
			goto err_credit;
		return 0;	/* the connection is released once posted */
	} else if (op == RXM_OP_TAGGED && conn->raw_tagged) {
		ret = rxm_send_raw(conn, tx, s, flags | sleep, true);
	} else {
		ret = rxm_send_pkt(conn, tx, flags | sleep);
	}
	if (ret)
		goto err_credit;
	return rxm_tx_posted(tx, conn, 0);
err_credit:
	rxm_credit_untake(conn);
err_tx:
	return rxm_tx_unget(tx, conn, ret);
}

static ssize_t rxm_sendmsg(struct fid_ep *fep, const struct fi_msg *msg,
			   u64 flags)
{
	struct fi_msg_tagged t;

	kofi_msg_to_tagged(msg, &t);
	return rxm_send(container_of(fep, struct rxm_ep, ep), &t, flags,
			RXM_OP_MSG);
}

static ssize_t rxm_tsendmsg(struct fid_ep *fep,
			    const struct fi_msg_tagged *msg, u64 flags)
{
	return rxm_send(container_of(fep, struct rxm_ep, ep), msg, flags,
			RXM_OP_TAGGED);
}

/* ---- receives ---- */

/**
 * rxm_buf_alloc_ep() - a bounce buffer of an endpoint, of no connection
 * @ep: the endpoint
 * @gfp: GFP_KERNEL, or GFP_ATOMIC where sleeping is not allowed
 *
 * Context: process context with GFP_KERNEL (may sleep), else any.
 * Return: the buffer, or NULL.
 */
struct rxm_buf *rxm_buf_alloc_ep(struct rxm_ep *ep, gfp_t gfp)
{
	struct rxm_buf *buf = kzalloc(sizeof(*buf), gfp);

	if (!buf)
		return NULL;
	buf->pkt = alloc_pages_exact(RXM_BUF_SIZE, gfp | __GFP_NOWARN);
	if (!buf->pkt) {
		kfree(buf);
		return NULL;
	}
	rxm_buf_init(buf, ep, NULL);
	return buf;
}

/**
 * rxm_buf_alloc() - a bounce buffer for a connection
 * @conn: the connection
 * @gfp: GFP_KERNEL, or GFP_ATOMIC where sleeping is not allowed
 *
 * Context: process context with GFP_KERNEL (may sleep), else any.
 * Return: the buffer, or NULL.
 */
struct rxm_buf *rxm_buf_alloc(struct rxm_conn *conn, gfp_t gfp)
{
	struct rxm_buf *buf = rxm_buf_alloc_ep(conn->ep, gfp);

	if (buf)
		buf->conn = conn;
	return buf;
}

/**
 * rxm_buf_init() - set up a buffer, its packet in place
 * @buf: the buffer, zeroed
 * @ep: its endpoint
 * @conn: its connection, or NULL (a shared buffer)
 *
 * Context: any context.
 */
void rxm_buf_init(struct rxm_buf *buf, struct rxm_ep *ep,
		  struct rxm_conn *conn)
{
	buf->cqe.done = rxm_buf_done;
	buf->ep = ep;
	buf->conn = conn;
	INIT_LIST_HEAD(&buf->node);
}

/**
 * rxm_buf_free() - free a bounce buffer or a rendezvous request's copy
 * @buf: the buffer, not posted; a copy on no connection's list
 *
 * Context: any context.
 */
void rxm_buf_free(struct rxm_buf *buf)
{
	if (buf->big) {
		rxm_big_free(buf);
		return;
	}
	if (!buf->copy)
		free_pages_exact(buf->pkt, RXM_BUF_SIZE);
	kfree(buf);
}

/*
 * A copy of the rendezvous request in @buf (checked), on its connection's
 * list; NULL if there is no memory for it (the request then waits in
 * @buf).
 */
static struct rxm_buf *rxm_buf_copy(struct rxm_buf *buf)
{
	struct rxm_ep *ep = buf->ep;
	struct rxm_buf *copy;
	unsigned long flags;

	copy = kmalloc(sizeof(*copy) + buf->len, GFP_ATOMIC);
	if (!copy)
		return NULL;
	*copy = *buf;
	copy->copy = true;
	copy->shared = false;
	copy->pkt = (u8 *)(copy + 1);
	memcpy(copy->pkt, buf->pkt, buf->len);
	spin_lock_irqsave(&ep->lock, flags);
	list_add_tail(&copy->node, &buf->conn->copies);
	spin_unlock_irqrestore(&ep->lock, flags);
	return copy;
}

/* A copy's request is done with: take it off its connection, free it. */
static void rxm_buf_copy_free(struct rxm_buf *copy)
{
	unsigned long flags;

	spin_lock_irqsave(&copy->ep->lock, flags);
	list_del(&copy->node);
	spin_unlock_irqrestore(&copy->ep->lock, flags);
	rxm_buf_free(copy);
}

/**
 * rxm_buf_recv() - post a bounce buffer as a receive of the core
 * @core: a core endpoint, or a core shared receive context
 * @buf: the buffer
 *
 * Context: any context; does not sleep.
 * Return: 0 or the core's error.
 */
ssize_t rxm_buf_recv(struct fid_ep *core, struct rxm_buf *buf)
{
	struct kvec kv = { .iov_base = buf->pkt, .iov_len = RXM_BUF_SIZE };
	struct fi_msg cm = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &kv,
		.iov_count = 1,
		.addr = FI_ADDR_UNSPEC,
		.context = &buf->cqe,
	};

	return fi_recvmsg(core, &cm, FI_COMPLETION);
}

/**
 * rxm_buf_post() - post a bounce buffer on its connection's core endpoint
 * @conn: the connection
 * @buf: the buffer
 *
 * With credit flow control the peer is granted it (rxm_credit_posted()).
 *
 * Context: any context; does not sleep.
 * Return: 0 or the core's error.
 */
int rxm_buf_post(struct rxm_conn *conn, struct rxm_buf *buf)
{
	bool data = !buf->grant;
	int ret;

	/* once posted, the buffer may be completed again at once */
	buf->grant = false;
	ret = rxm_buf_recv(conn->core, buf);
	if (!ret)
		rxm_credit_posted(conn, data);
	return ret;
}

/**
 * rxm_buf_recycle() - a bounce buffer is free again
 * @buf: the buffer
 *
 * Posts it again (a shared one to the endpoint's shared receive
 * context), or frees it if its connection is gone or it is a rendezvous
 * request's copy.  A connection that is closing frees it
 * (rxm_conn_close_core() sees it no longer held).
 *
 * Context: any context; does not sleep.
 */
void rxm_buf_recycle(struct rxm_buf *buf)
{
	struct rxm_ep *ep = buf->ep;
	struct rxm_conn *conn;
	unsigned long flags;
	bool up = false;

	if (buf->copy) {
		rxm_buf_copy_free(buf);
		return;
	}
	spin_lock_irqsave(&ep->lock, flags);
	buf->held = false;
	buf->sar = NULL;
	if (buf->shared) {
		buf->conn = NULL;
		spin_unlock_irqrestore(&ep->lock, flags);
		rxm_srx_post(ep, buf);
		return;
	}
	conn = buf->conn;
	if (conn)
		up = rxm_conn_hold_locked(conn);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!conn) {
		rxm_buf_free(buf);
		return;
	}
	if (!up)
		return;
	if (rxm_buf_post(conn, buf))
		rxm_conn_fail(conn);
	rxm_conn_put(conn);
}

/**
 * rxm_buf_grow() - a bounce buffer of a connection is held
 * @conn: the connection
 *
 * A message waits in one of @conn's bounce buffers, or the peer ran out
 * of credits (rxm_credit_arrived()): post one more, up to rdm_conn_rx_bufs,
 * so that the connection goes on while the ULP has not taken it.  A
 * connection that never has an unexpected message (or a peer short of
 * credits) keeps the ones it started with.  Without memory it does not
 * grow: the core (or the peer's credits) holds the peer back until a
 * buffer is free again.
 *
 * Context: any context; does not sleep.
 */
void rxm_buf_grow(struct rxm_conn *conn)
{
	struct rxm_ep *ep = conn->ep;
	struct rxm_buf *buf;
	unsigned long flags;
	bool room;

	if (ep->shared_rx) {
		rxm_srx_grow(ep);
		return;
	}
	if (READ_ONCE(conn->nbufs) >= conn->maxbufs || !rxm_conn_hold(conn))
		return;
	buf = rxm_buf_alloc(conn, GFP_ATOMIC);
	if (!buf)
		goto out;
	/* held, so rxm_conn_close_core() has not taken the array yet */
	spin_lock_irqsave(&ep->lock, flags);
	room = conn->nbufs < conn->maxbufs;
	if (room)
		conn->bufs[conn->nbufs++] = buf;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!room)
		rxm_buf_free(buf);
	else if (rxm_buf_post(conn, buf))
		rxm_conn_fail(conn);
out:
	rxm_conn_put(conn);
}

/**
 * rxm_comp_fill() - the completion of a receive that took a message
 * @rx: the receive
 * @msg: the message's matching entry (its source, length, place in @rx)
 * @hdr: the message's header
 * @len: bytes of it that are (or will be) in @rx; the rest is cut off
 * @c: filled in
 *
 * Context: any context.
 */
void rxm_comp_fill(const struct rxm_rx *rx,
		   const struct kofi_match_entry *msg,
		   const struct rxm_hdr *hdr, size_t len, struct kofi_comp *c)
{
	c->op_context = rx->me.context;
	c->flags = rx->flags | (msg->flags & FI_MULTI_RECV);
	c->len = len;
	c->olen = msg->len - len;
	c->err = c->olen ? EMSGSIZE : 0;
	c->prov_errno = 0;
	c->buf = NULL;
	if ((rx->me.flags & FI_MULTI_RECV) && rx->vec.type == FI_IOV_KVEC)
		c->buf = (u8 *)rx->vec.kv[0].iov_base + msg->offset;
	c->data = 0;
	if (le32_to_cpu(hdr->flags) & RXM_FLAG_CQ_DATA) {
		c->flags |= FI_REMOTE_CQ_DATA;
		c->data = le64_to_cpu(hdr->data);
	}
	c->tag = le64_to_cpu(hdr->tag);
	c->src = msg->addr;
}

/**
 * rxm_rx_room() - bytes of a message that fit in the receive taking it
 * @rx: the receive
 * @msg: the message's matching entry
 *
 * Context: any context.
 * Return: at most the message's length.
 */
size_t rxm_rx_room(const struct rxm_rx *rx,
		   const struct kofi_match_entry *msg)
{
	size_t off = msg->offset;

	return min(msg->len, rx->vec.len > off ? rx->vec.len - off : 0);
}

/* Copy @buf's eager payload into @rx and describe the completion. */
static void rxm_copy(struct rxm_rx *rx, struct rxm_buf *buf,
		     struct kofi_comp *c)
{
	struct iov_iter it;
	size_t n;

	kofi_vec_iter(&rx->vec, ITER_DEST, false, &it);
	iov_iter_advance(&it, buf->me.offset);
	n = copy_to_iter(rxm_buf_payload(buf), rxm_rx_room(rx, &buf->me), &it);
	rxm_comp_fill(rx, &buf->me, rxm_buf_hdr(buf), n, c);
}

/**
 * rxm_comp_write() - write a receive's completion
 * @ep: the endpoint
 * @c: the completion: an EMSGSIZE error entry if bytes were cut off
 *
 * Context: any context; no rxm lock held.
 */
void rxm_comp_write(struct rxm_ep *ep, const struct kofi_comp *c)
{
	kofi_cq_write_comp(kofi_ep_cq(&ep->ep, FI_RECV, NULL), c);
}

/* A receive entry is free again.  Lock held. */
static void rxm_rx_free_locked(struct rxm_ep *ep, struct rxm_rx *rx)
{
	list_add(&rx->node, &ep->rx_free);
}

/**
 * rxm_rx_free() - a receive entry is free again
 * @ep: its endpoint
 * @rx: the entry
 *
 * Context: any context.
 */
void rxm_rx_free(struct rxm_ep *ep, struct rxm_rx *rx)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	rxm_rx_free_locked(ep, rx);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/**
 * rxm_rx_busy_locked() - a receive took a message
 * @rx: the receive
 * @msg: the message's matching entry
 *
 * A multi-receive buffer counts the message until it is placed
 * (rxm_rx_placed()): until then the buffer stays in use, even if it is
 * used up or cancelled meanwhile.
 *
 * Context: the endpoint's lock held.
 */
void rxm_rx_busy_locked(struct rxm_rx *rx, const struct kofi_match_entry *msg)
{
	if (!(rx->me.flags & FI_MULTI_RECV))
		return;
	rx->busy++;
	/* the buffer's last message carries the flag */
	if (msg->flags & FI_MULTI_RECV)
		rx->used_up = true;
}

/**
 * rxm_rx_placed() - a message is in the receive that took it
 * @ep: the endpoint
 * @rx: the receive
 * @cancel: the cancelled buffer's completion, if it is to be written
 *
 * Call before writing the message's completion.  Frees a plain receive,
 * and a multi-receive buffer used up or cancelled once no message is
 * being placed into it.
 *
 * Context: any context; no rxm lock held.
 * Return: true if @rx was a cancelled multi-receive buffer that is now
 * free: write @cancel (rxm_rx_cancel_write()) after the message's
 * completion.
 */
bool rxm_rx_placed(struct rxm_ep *ep, struct rxm_rx *rx,
		   struct kofi_comp *cancel)
{
	unsigned long flags;
	bool last, end;

	if (!(rx->me.flags & FI_MULTI_RECV)) {
		rxm_rx_free(ep, rx);
		return false;
	}
	spin_lock_irqsave(&ep->lock, flags);
	last = !--rx->busy && (rx->used_up || rx->cancelled);
	end = last && rx->cancelled;
	if (end) {
		cancel->op_context = rx->me.context;
		cancel->flags = rx->flags | FI_MULTI_RECV;
	}
	if (last)
		rxm_rx_free_locked(ep, rx);
	spin_unlock_irqrestore(&ep->lock, flags);
	return end;
}

/**
 * rxm_rx_cancel_write() - complete a cancelled receive
 * @ep: the endpoint
 * @cancel: its context and flags
 *
 * Context: any context; no rxm lock held.
 */
void rxm_rx_cancel_write(struct rxm_ep *ep, const struct kofi_comp *cancel)
{
	kofi_cq_write_err(kofi_ep_cq(&ep->ep, FI_RECV, NULL), cancel->op_context,
			  cancel->flags, ECANCELED, 0, 0, 0);
}

/**
 * rxm_rx_cancelled() - a posted receive was taken off its queue
 * @ep: the endpoint
 * @rx: the receive (fi_cancel(), its source's removal, the endpoint's
 *	close)
 *
 * It completes with ECANCELED: now, or once the messages being placed
 * into it are in - its buffer is the ULP's again only then.
 *
 * Context: any context; no rxm lock held.
 */
void rxm_rx_cancelled(struct rxm_ep *ep, struct rxm_rx *rx)
{
	struct kofi_comp c = {
		.op_context = rx->me.context,
		.flags = rx->flags | (rx->me.flags & FI_MULTI_RECV),
	};
	unsigned long flags;
	bool now;

	spin_lock_irqsave(&ep->lock, flags);
	rx->cancelled = true;
	now = !rx->busy;
	if (now)
		rxm_rx_free_locked(ep, rx);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (now)
		rxm_rx_cancel_write(ep, &c);
}

/* Deliver @buf's message into @rx, complete it, recycle @buf. */
static void rxm_deliver(struct rxm_ep *ep, struct rxm_rx *rx,
			struct rxm_buf *buf)
{
	struct kofi_comp c, cancel;
	bool end;

	if (rxm_buf_hdr(buf)->type == RXM_RNDV_REQ) {
		rxm_rndv_read(ep, rx, buf);
		return;
	}
	if (rxm_buf_hdr(buf)->type == RXM_SEGMENT) {
		rxm_sar_deliver(ep, rx, buf);
		return;
	}
	rxm_copy(rx, buf, &c);
	end = rxm_rx_placed(ep, rx, &cancel);
	rxm_buf_recycle(buf);
	rxm_comp_write(ep, &c);
	if (end)
		rxm_rx_cancel_write(ep, &cancel);
}

/*
 * The core's tagged message (over net any message) in a bounce buffer:
 * make up the header rxm's would have been.
 */
static void rxm_buf_raw_hdr(struct rxm_buf *buf,
			    const struct fi_cq_err_entry *comp)
{
	bool data = comp->flags & FI_REMOTE_CQ_DATA;
	u8 op = (comp->flags & FI_TAGGED) ? RXM_OP_TAGGED : RXM_OP_MSG;

	rxm_hdr_fill(&buf->hdr, RXM_EAGER, op, 0, 0, buf->len,
		     data ? RXM_FLAG_CQ_DATA : 0, data ? comp->data : 0,
		     comp->tag);
}

/* A packet of @conn arrived in @buf: handle it. */
static void rxm_buf_packet(struct rxm_conn *conn, struct rxm_buf *buf,
			   const struct fi_cq_err_entry *comp)
{
	const struct rxm_hdr *hdr;
	struct rxm_ep *ep = conn->ep;
	struct kofi_match_queue *q;
	struct kofi_match_entry *me;
	struct rxm_buf *copy;
	unsigned long flags;
	int ret;

	/*
	 * Flushed: the connection is closing.  Any other error (a packet
	 * larger than the buffer) ends it; the CM work closes it.
	 */
	if (comp->err) {
		if (comp->err != ECANCELED)
			rxm_conn_fail_err(conn, EPROTO);
		if (buf->big)
			rxm_buf_copy_free(buf);
		return;
	}
	rxm_credit_arrived(conn);
	if (comp->flags & FI_REMOTE_WRITE) {
		rxm_rma_remote(ep, buf, comp, READ_ONCE(conn->fi_addr));
		return;
	}
	buf->len = comp->len;
	buf->sar = NULL;
	buf->raw = ep->net || (comp->flags & FI_TAGGED);
	if (buf->raw)
		rxm_buf_raw_hdr(buf, comp);
	else if (rxm_hdr_check(buf->pkt, buf->len))
		goto bad;
	hdr = rxm_buf_hdr(buf);
	switch (hdr->type) {
	case RXM_EAGER:
		break;
	case RXM_SEGMENT:
		if ((le64_to_cpu(hdr->ctrl_data) & RXM_SEG_POS_MASK) !=
		    RXM_SEG_FIRST) {
			if (rxm_sar_next(conn, buf))
				goto bad;
			return;
		}
		ret = rxm_sar_first(conn, buf);
		if (ret == -ENOMEM) {
			rxm_conn_fail_err(conn, ENOMEM);
			if (buf->shared)
				rxm_buf_recycle(buf);
			return;
		}
		if (ret)
			goto bad;
		break;
	case RXM_RNDV_REQ:
		if (!ep->rndv_ok || rxm_rndv_check(buf->pkt, buf->len) ||
		    le64_to_cpu(hdr->size) > ep->info->ep_attr->max_msg_size)
			goto bad;
		break;
	case RXM_RNDV_RD_DONE:
		if (rxm_rndv_answered(conn, le64_to_cpu(hdr->msg_id)))
			goto bad;
		rxm_buf_recycle(buf);
		return;
	case RXM_CREDIT:
		if (buf->raw || rxm_credit_granted(conn, buf))
			goto bad;
		return;
	default:
		goto bad;
	}
	q = hdr->op == RXM_OP_TAGGED ? &ep->tagq : &ep->msgq;
	memset(&buf->me, 0, sizeof(buf->me));
	buf->me.addr = READ_ONCE(conn->fi_addr);
	buf->me.tag = le64_to_cpu(hdr->tag);
	buf->me.len = le64_to_cpu(hdr->size);
	if (hdr->type == RXM_EAGER)
		buf->me.len = buf->raw ? buf->len : buf->len - sizeof(*hdr);
	/* a request waits in its copy: the bounce buffer goes back below */
	copy = hdr->type == RXM_RNDV_REQ ? rxm_buf_copy(buf) : NULL;
	spin_lock_irqsave(&ep->lock, flags);
	me = kofi_match_arrive(q, copy ? &copy->me : &buf->me);
	if (IS_ERR_OR_NULL(me)) {
		/* waits as unexpected */
		if (copy)
			copy->held = true;
		else
			buf->held = true;
		spin_unlock_irqrestore(&ep->lock, flags);
		if (copy)
			rxm_buf_recycle(buf);
		else if (!buf->big)
			rxm_buf_grow(conn);
		return;
	}
	rxm_rx_busy_locked(container_of(me, struct rxm_rx, me),
			   copy ? &copy->me : &buf->me);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (copy)
		rxm_buf_recycle(buf);
	rxm_deliver(ep, container_of(me, struct rxm_rx, me), copy ?: buf);
	return;
bad:
	pr_debug("malformed packet (type %u, %zu bytes) from %pISpc\n",
		 hdr->type, buf->len, &conn->peer);
	rxm_conn_fail_err(conn, EPROTO);
	/* a shared buffer goes back; a connection's goes with it */
	if (buf->shared)
		rxm_buf_recycle(buf);
}

/**
 * rxm_buf_done() - a bounce buffer received a packet
 * @cq: the core CQ
 * @cqe: &rxm_buf.cqe
 * @comp: the core's completion
 *
 * A buffer of the endpoint's shared receive context learns its
 * connection from the packet (rxm_srx_conn()), which is held while the
 * packet is handled; a peer's write with remote CQ data has no packet,
 * and its completion no source.
 *
 * Context: the core's completion context; does not sleep.
 */
void rxm_buf_done(struct fid_cq *cq, struct fi_cqe *cqe,
		  const struct fi_cq_err_entry *comp)
{
	struct rxm_buf *buf = container_of(cqe, struct rxm_buf, cqe);
	struct rxm_conn *conn;

	if (!buf->shared) {
		rxm_buf_packet(buf->conn, buf, comp);
		return;
	}
	rxm_srx_taken(buf->ep);
	if (!comp->err && (comp->flags & FI_REMOTE_WRITE)) {
		rxm_rma_remote(buf->ep, buf, comp, FI_ADDR_NOTAVAIL);
		return;
	}
	conn = rxm_srx_conn(buf, comp);
	if (!conn)
		return;
	rxm_buf_packet(conn, buf, comp);
	rxm_conn_put(conn);
}

/* ---- messages the core places (FI_OPT_TAGGED_RX) ---- */

/**
 * rxm_trx_dest() - tell the core to read a claimed message into @t->dst
 * @t: the connection's placement, @dst set
 * @d: filled in; completes to @t->cqe
 *
 * Context: any context.
 */
void rxm_trx_dest(struct rxm_trx *t, struct fi_tagged_dest *d)
{
	d->iov_type = t->dst.type;
	if (t->dst.type == FI_IOV_BVEC)
		d->msg_bvec = t->dst.bv;
	else
		d->msg_iov = t->dst.kv;
	d->iov_count = t->dst.count;
	d->context = &t->cqe;
}

/* The core placed a claimed message (or failed to). */
static void rxm_trx_done(struct fid_cq *cq, struct fi_cqe *cqe,
			 const struct fi_cq_err_entry *comp)
{
	struct rxm_trx *t = container_of(cqe, struct rxm_trx, cqe);
	struct rxm_ep *ep = t->ep;
	struct kofi_comp c = t->c;
	struct rxm_sar *sar = t->sar;
	struct kofi_comp cancel;
	bool end = false;

	if (sar) {
		t->sar = NULL;
		rxm_sar_claimed(ep, sar, t->seg_len, comp->err);
		return;
	}
	if (t->rx)
		end = rxm_rx_placed(ep, t->rx, &cancel);
	t->rx = NULL;
	/* a message cut off is EMSGSIZE, which c says already */
	if (comp->err && comp->err != EMSGSIZE)
		kofi_cq_write_err(kofi_ep_cq(&ep->ep, FI_RECV, NULL),
				  c.op_context, c.flags, comp->err, 0, 0, 0);
	else
		rxm_comp_write(ep, &c);
	if (end)
		rxm_rx_cancel_write(ep, &cancel);
}

/*
 * @rx takes the message @msg (its header @hdr, rxm's or made up): where
 * it goes, and its completion.  ep->lock held.
 */
static void rxm_trx_place(struct rxm_conn *conn, struct rxm_rx *rx,
			  const struct kofi_match_entry *msg,
			  const struct rxm_hdr *hdr, struct fi_tagged_dest *d)
{
	struct rxm_trx *t = &conn->trx;
	size_t room = rxm_rx_room(rx, msg);

	rxm_comp_fill(rx, msg, hdr, room, &t->c);
	rxm_rx_busy_locked(rx, msg);
	t->rx = rx;
	rxm_vec_slice(&rx->vec, msg->offset, room, &t->dst);
	rxm_trx_dest(t, d);
}

/*
 * struct fi_tagged_rx's claim() of every core endpoint: a tagged message
 * (over net any message) goes straight to the receive that takes it; else
 * to a bounce buffer, where it waits as unexpected, if it fits one; else
 * to a buffer of its own (rxm_big.c).  An untagged message over rxm's
 * wire comes with rxm's header read ahead: an eager packet goes straight
 * to the receive that takes it, a segment to its place in its message's
 * receive (rxm_sar_claim()); anything else (no such receive, another
 * packet type, a header that fails its checks, credits to count) goes to
 * a bounce buffer, where rxm_buf_done() deals with it as with any packet.
 * Context: the core's receive context; does not sleep.
 */
static int rxm_trx_claim(struct fid_ep *core, const struct fi_tagged_frame *f,
			 struct fi_tagged_dest *d)
{
	struct rxm_conn *conn = core->fid.context;
	struct rxm_ep *ep = conn->ep;
	struct kofi_match_entry msg = {
		.addr = READ_ONCE(conn->fi_addr),
		.len = f->len,
	};
	bool data = f->flags & FI_REMOTE_CQ_DATA;
	const struct rxm_hdr *hdr = f->hdr;
	struct rxm_buf *drop = NULL;
	struct kofi_match_entry *me;
	struct rxm_hdr made;
	unsigned long flags;
	int ret = FI_TAGGED_RX_POSTED;

	if (hdr) {
		if (conn->fc || rxm_hdr_check(hdr, f->len))
			return ret;
		if (hdr->type == RXM_SEGMENT)
			return rxm_sar_claim(conn, hdr,
					     f->len - sizeof(*hdr), d);
		if (hdr->type != RXM_EAGER)
			return ret;
		msg.len -= sizeof(*hdr);
	} else {
		/* the core's own frame: the header rxm's would have been */
		rxm_hdr_fill(&made, RXM_EAGER, (f->flags & FI_TAGGED) ?
			     RXM_OP_TAGGED : RXM_OP_MSG, 0, 0, f->len,
			     data ? RXM_FLAG_CQ_DATA : 0, data ? f->data : 0,
			     f->tag);
		hdr = &made;
	}
	msg.tag = le64_to_cpu(hdr->tag);
	spin_lock_irqsave(&ep->lock, flags);
	me = kofi_match_find(hdr->op == RXM_OP_TAGGED ? &ep->tagq : &ep->msgq,
			     &msg);
	/* under the lock: a multi-receive buffer may be cancelled */
	if (me) {
		rxm_trx_place(conn, container_of(me, struct rxm_rx, me), &msg,
			      hdr, d);
		ret = 0;
	} else if (!f->hdr && f->len > RXM_EAGER_LIMIT) {
		ret = rxm_big_claim_locked(conn, f->len, d, &drop);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (drop)
		rxm_big_free(drop);
	return ret;
}

static_assert(sizeof(struct rxm_hdr) <= FI_TAGGED_RX_HDR_MAX);

/* rxm's wire: tagged messages, and untagged ones with rxm's header */
const struct fi_tagged_rx rxm_trx_ops = {
	.claim = rxm_trx_claim,
	.hdr_len = sizeof(struct rxm_hdr),
};

/* net: every message is claimed; tagged ones are op 1 both ways */
const struct fi_tagged_rx rxm_net_trx_ops = {
	.claim = rxm_trx_claim,
	.flags = FI_TAGGED_RX_MSG | FI_TAGGED_RX_OP,
};

/**
 * rxm_trx_init() - a new connection's part in tagged messages the core
 *	places
 * @conn: the connection
 *
 * Context: any context.
 */
void rxm_trx_init(struct rxm_conn *conn)
{
	conn->trx.cqe.done = rxm_trx_done;
	conn->trx.ep = conn->ep;
}

/*
 * A tagged receive was posted: the connections whose tagged message
 * waits for one ask rxm_trx_claim() again.
 */
static void rxm_trx_retry(struct rxm_ep *ep)
{
	struct rxm_conn *conn, *c;
	unsigned long flags;

	for (;;) {
		conn = NULL;
		spin_lock_irqsave(&ep->lock, flags);
		list_for_each_entry(c, &ep->conns, node) {
			if (!ep->trx_held)
				break;
			if (!c->trx_held || !c->core ||
			    c->state == RXM_CONN_DOWN)
				continue;
			c->trx_held = false;
			ep->trx_held--;
			atomic_inc(&c->users);
			conn = c;
			break;
		}
		spin_unlock_irqrestore(&ep->lock, flags);
		if (!conn)
			return;
		fi_control(&conn->core->fid, FI_TAGGED_RX_RETRY, NULL);
		rxm_conn_put(conn);
	}
}

/*
 * A free receive entry, or a new one while the endpoint has fewer than
 * rx_attr->size: an endpoint costs as many as the ULP keeps posted.
 * Lock held.
 */
static struct rxm_rx *rxm_rx_take_locked(struct rxm_ep *ep)
{
	struct rxm_rx *rx;

	rx = list_first_entry_or_null(&ep->rx_free, struct rxm_rx, node);
	if (rx) {
		list_del_init(&rx->node);
		return rx;
	}
	if (ep->nrx >= ep->info->rx_attr->size)
		return NULL;
	rx = kzalloc(sizeof(*rx), GFP_ATOMIC | __GFP_NOWARN);
	if (!rx)
		return NULL;
	INIT_LIST_HEAD(&rx->node);
	list_add_tail(&rx->all, &ep->rx_all);
	ep->nrx++;
	return rx;
}

/* Take a free receive entry and fill it; NULL with *@err set. */
static struct rxm_rx *rxm_rx_get(struct rxm_ep *ep, const struct fi_msg_tagged *r,
				 u64 flags, u64 op, int *err)
{
	struct rxm_rx *rx = NULL;
	unsigned long irq;

	spin_lock_irqsave(&ep->lock, irq);
	if (ep->state == RXM_EP_ENABLED)
		rx = rxm_rx_take_locked(ep);
	*err = ep->state == RXM_EP_ENABLED ? -EAGAIN : -EINVAL;
	spin_unlock_irqrestore(&ep->lock, irq);
	if (!rx)
		return NULL;
	*err = r->iov_count > RXM_IOV_LIMIT ? -EINVAL :
	       kofi_vec_set(&rx->vec, r->iov_type, r->msg_iov, r->iov_count,
			    0);
	if (!*err && (flags & FI_MULTI_RECV) &&
	    (rx->vec.type != FI_IOV_KVEC || rx->vec.count != 1))
		*err = -EINVAL;
	if (*err) {
		rxm_rx_free(ep, rx);
		return NULL;
	}
	memset(&rx->me, 0, sizeof(rx->me));
	rx->busy = 0;
	rx->used_up = false;
	rx->cancelled = false;
	rx->me.addr = ep->msgq.directed ? r->addr : FI_ADDR_UNSPEC;
	rx->me.tag = r->tag;
	rx->me.ignore = r->ignore;
	rx->me.context = r->context;
	rx->me.len = rx->vec.len;
	rx->me.flags = flags & FI_MULTI_RECV;
	rx->flags = FI_RECV | op;
	return rx;
}

/* Post @rx on @q and deliver what waited for it. */
static void rxm_rx_post(struct rxm_ep *ep, struct kofi_match_queue *q,
			struct rxm_rx *rx)
{
	struct kofi_match_entry *me, *next;
	unsigned long flags;
	LIST_HEAD(taken);
	bool retry;

	spin_lock_irqsave(&ep->lock, flags);
	kofi_match_post(q, &rx->me, &taken);
	list_for_each_entry(me, &taken, node)
		rxm_rx_busy_locked(rx, me);
	/* over net untagged messages are held too */
	retry = (q == &ep->tagq || ep->net) && ep->trx_held;
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(me, next, &taken, node) {
		list_del_init(&me->node);
		rxm_deliver(ep, rx, container_of(me, struct rxm_buf, me));
	}
	if (retry)
		rxm_trx_retry(ep);
}

static ssize_t rxm_recv(struct rxm_ep *ep, struct kofi_match_queue *q,
			const struct fi_msg_tagged *r, u64 flags, u64 op)
{
	struct rxm_rx *rx;
	int ret;

	rx = rxm_rx_get(ep, r, flags, op, &ret);
	if (!rx)
		return ret;
	rxm_rx_post(ep, q, rx);
	return 0;
}

static ssize_t rxm_recvmsg(struct fid_ep *fep, const struct fi_msg *msg,
			   u64 flags)
{
	struct rxm_ep *ep = container_of(fep, struct rxm_ep, ep);
	struct fi_msg_tagged t;

	if (flags & FI_PEEK)
		return -FI_ENOSYS;
	kofi_msg_to_tagged(msg, &t);
	return rxm_recv(ep, &ep->msgq, &t, flags, FI_MSG);
}

/* A message taken by FI_PEEK | FI_DISCARD or FI_CLAIM | FI_DISCARD. */
static void rxm_discard(struct rxm_ep *ep, struct rxm_buf *buf,
			void *context)
{
	const struct rxm_hdr *hdr = rxm_buf_hdr(buf);
	struct fid_cq *cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);
	u64 tag = le64_to_cpu(hdr->tag);
	fi_addr_t src = buf->me.addr;

	/* a rendezvous sender is told its message went */
	if (hdr->type == RXM_RNDV_REQ && buf->conn)
		rxm_rndv_ack(ep, buf->conn, le64_to_cpu(hdr->msg_id));
	if (hdr->type == RXM_SEGMENT)
		rxm_sar_discard(ep, buf);
	rxm_buf_recycle(buf);
	kofi_cq_write_tagged(cq, context, FI_RECV | FI_TAGGED, 0, NULL, 0, tag,
			     src);
}

/* fi_trecvmsg() with FI_PEEK: report (and claim or drop) a message. */
static ssize_t rxm_peek(struct rxm_ep *ep, const struct fi_msg_tagged *r,
			u64 flags)
{
	struct fid_cq *cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);
	struct kofi_match_entry want = {
		.addr = ep->tagq.directed ? r->addr : FI_ADDR_UNSPEC,
		.tag = r->tag,
		.ignore = r->ignore,
		.context = r->context,
	};
	struct kofi_match_entry *me;
	struct rxm_buf *buf = NULL;
	struct kofi_comp c = {};
	unsigned long irq;

	spin_lock_irqsave(&ep->lock, irq);
	me = kofi_match_peek(&ep->tagq, &want, flags);
	if (me) {
		const struct rxm_hdr *hdr;

		buf = container_of(me, struct rxm_buf, me);
		hdr = rxm_buf_hdr(buf);
		c.len = me->len;
		c.tag = le64_to_cpu(hdr->tag);
		c.src = me->addr;
		if (le32_to_cpu(hdr->flags) & RXM_FLAG_CQ_DATA) {
			c.flags = FI_REMOTE_CQ_DATA;
			c.data = le64_to_cpu(hdr->data);
		}
	}
	spin_unlock_irqrestore(&ep->lock, irq);
	if (!me)
		return kofi_match_peek_write(cq, r->context, NULL);
	if (flags & FI_DISCARD) {
		rxm_discard(ep, buf, r->context);
		return 0;
	}
	return kofi_match_peek_write(cq, r->context, &c);
}

/* fi_trecvmsg() with FI_CLAIM: receive (or drop) the claimed message. */
static ssize_t rxm_claim(struct rxm_ep *ep, const struct fi_msg_tagged *r,
			 u64 flags)
{
	struct kofi_match_entry *me;
	struct rxm_buf *buf;
	struct rxm_rx *rx;
	unsigned long irq;
	int ret;

	if (flags & FI_DISCARD) {
		spin_lock_irqsave(&ep->lock, irq);
		me = kofi_match_claim(&ep->tagq, r->context);
		spin_unlock_irqrestore(&ep->lock, irq);
		if (!me)
			return -ENOMSG;
		rxm_discard(ep, container_of(me, struct rxm_buf, me),
			    r->context);
		return 0;
	}
	rx = rxm_rx_get(ep, r, 0, FI_TAGGED, &ret);
	if (!rx)
		return ret;
	spin_lock_irqsave(&ep->lock, irq);
	me = kofi_match_claim(&ep->tagq, r->context);
	spin_unlock_irqrestore(&ep->lock, irq);
	if (!me) {
		rxm_rx_free(ep, rx);
		return -ENOMSG;
	}
	buf = container_of(me, struct rxm_buf, me);
	buf->me.offset = 0;
	rxm_deliver(ep, rx, buf);
	return 0;
}

static ssize_t rxm_trecvmsg(struct fid_ep *fep,
			    const struct fi_msg_tagged *msg, u64 flags)
{
	struct rxm_ep *ep = container_of(fep, struct rxm_ep, ep);

	if (READ_ONCE(ep->state) != RXM_EP_ENABLED)
		return -EINVAL;
	if (flags & FI_PEEK)
		return rxm_peek(ep, msg, flags);
	if (flags & FI_CLAIM)
		return rxm_claim(ep, msg, flags);
	return rxm_recv(ep, &ep->tagq, msg, flags, FI_TAGGED);
}

const struct fi_ops_msg rxm_msg_ops = {
	.recvmsg = rxm_recvmsg,
	.sendmsg = rxm_sendmsg,
};

const struct fi_ops_tagged rxm_tagged_ops = {
	.trecvmsg = rxm_trecvmsg,
	.tsendmsg = rxm_tsendmsg,
};

/**
 * rxm_cancel() - fi_cancel() of a posted receive
 * @fid: the endpoint
 * @context: the receive's context
 *
 * Context: any context; does not sleep.
 * Return: 0 (the receive completes with ECANCELED); -ENOENT if no posted
 * receive has @context.
 */
ssize_t rxm_cancel(struct fid *fid, void *context)
{
	struct rxm_ep *ep = container_of(fid, struct rxm_ep, ep.fid);
	struct kofi_match_entry *me;
	unsigned long irq;

	spin_lock_irqsave(&ep->lock, irq);
	me = kofi_match_cancel(&ep->msgq, context);
	if (!me)
		me = kofi_match_cancel(&ep->tagq, context);
	spin_unlock_irqrestore(&ep->lock, irq);
	if (!me)
		return -ENOENT;
	rxm_rx_cancelled(ep, container_of(me, struct rxm_rx, me));
	return 0;
}

/* Complete every receive on @q with ECANCELED; free what waits on it. */
static void rxm_q_flush(struct rxm_ep *ep, struct kofi_match_queue *q)
{
	struct kofi_match_entry *me;
	struct rxm_buf *buf;

	while (!list_empty(&q->posted)) {
		me = list_first_entry(&q->posted, struct kofi_match_entry,
				      node);
		list_del_init(&me->node);
		rxm_rx_cancelled(ep, container_of(me, struct rxm_rx, me));
	}
	while (!list_empty(&q->unexpected)) {
		me = list_first_entry(&q->unexpected, struct kofi_match_entry,
				      node);
		list_del_init(&me->node);
		q->nr_unexpected--;
		buf = container_of(me, struct rxm_buf, me);
		if (buf->sar)
			rxm_sar_free(buf);
		else
			rxm_buf_free(buf);
	}
}

/**
 * rxm_rx_flush() - end what a closing endpoint still holds
 * @ep: the endpoint, every connection closed
 *
 * Posted receives complete with ECANCELED; waiting messages are dropped.
 *
 * Context: process context (fi_close()).
 */
void rxm_rx_flush(struct rxm_ep *ep)
{
	rxm_q_flush(ep, &ep->msgq);
	rxm_q_flush(ep, &ep->tagq);
}
