// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI rds provider: RMA carried in messages.
 *
 * RDS's own RDMA pins user memory only, so an endpoint with FI_RMA moves
 * RMA data in messages (krds_proto.h): fi_writemsg() sends a write frame -
 * the header with KRDS_HDR_RMA, the RMA header naming the region's key,
 * the remote address and the length, then the data - and completes when
 * the target's answer (KRDS_RMA_WRITE_ACK) arrives, the data then placed;
 * fi_readmsg() sends a read frame and completes when the answer brings
 * the data (KRDS_RMA_READ_DATA), received straight into the caller's
 * buffer.  An operation is one slot of the endpoint's send requests from
 * the call to its answer; its id (slot and use count) lets the answer find
 * it.  An answer that says the target refused (no such key, no access,
 * out of the region, no RMA on that endpoint) completes the operation with
 * that error; one that does not come within rma_timeout_ms completes it
 * with ETIMEDOUT, and fi_av_remove() of its peer with ECANCELED.
 *
 * Target: the endpoint's work takes a request from the socket like any
 * message, checks it against the domain's key table (kofi_keytable_get():
 * key, bounds, FI_REMOTE_WRITE / FI_REMOTE_READ) and receives a write's
 * data straight into the region.  A write with remote CQ data completes on
 * the receive CQ (FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA, its
 * source, no receive used up).  The answer is queued and sent before the
 * endpoint's own sends; a read's answer takes its data from the region
 * when the socket takes it (the region is looked up again then: one
 * closed meanwhile answers KRDS_RMA_NOKEY).  At most KRDS_ANSWERS_MAX
 * answers wait; further requests wait in the socket meanwhile.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include "krds.h"

/* ---- initiator ---- */

/* Describe the RMA operation @msg (@write, else a read) in @req. */
static int krds_rma_req(struct krds_ep *ep, struct krds_req *req,
			const struct fi_msg_rma *msg, u64 flags, bool write)
{
	const struct fi_rma_iov *rma = msg->rma_iov;
	int ret;

	ret = krds_req_dest(ep, req, msg->addr);
	if (ret)
		return ret;
	ret = kofi_vec_set(&req->vec, msg->iov_type, msg->msg_iov,
			   msg->iov_count, true);
	if (!ret && (flags & FI_INJECT))
		ret = krds_req_inject(req);
	if (ret)
		return ret;
	if (req->vec.len != rma->len)
		return -EINVAL;
	if (req->vec.len > ep->max_msg)
		return -EMSGSIZE;
	req->id = krds_rma_id(req - ep->pool, ++req->gen);
	krds_rma_fill(&req->frame, write ? KRDS_RMA_WRITE : KRDS_RMA_READ,
		      KRDS_RMA_OK, req->id, rma->key, rma->addr, rma->len,
		      flags & FI_REMOTE_CQ_DATA, msg->data);
	kofi_vec_hdr(&req->vec, &req->frame, sizeof(req->frame));
	req->op.cq = (flags & FI_INJECT) ? NULL :
		     kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL);
	req->op.context = msg->context;
	req->op.flags = FI_RMA | (write ? FI_WRITE : FI_READ);
	return 0;
}

static ssize_t krds_rma_post(struct fid_ep *fep, const struct fi_msg_rma *msg,
			     u64 flags, bool write)
{
	struct krds_ep *ep = container_of(fep, struct krds_ep, ep);
	struct krds_req *req;
	int ret;

	/* one remote segment; a read has no data to inject or CQ data */
	if (msg->rma_iov_count != 1 ||
	    (!write && (flags & (FI_INJECT | FI_REMOTE_CQ_DATA))))
		return -EINVAL;
	req = krds_req_get(ep, &ep->tx_free);
	if (!req)
		return ep->state == KRDS_EP_ENABLED ? -EAGAIN : -EINVAL;
	ret = krds_rma_req(ep, req, msg, flags, write);
	if (ret) {
		krds_req_put(ep, req, &ep->tx_free);
		return ret;
	}
	krds_req_post(ep, req, &ep->tx_queue);
	return 0;
}

static ssize_t krds_writemsg(struct fid_ep *fep, const struct fi_msg_rma *msg,
			     u64 flags)
{
	return krds_rma_post(fep, msg, flags, true);
}

static ssize_t krds_readmsg(struct fid_ep *fep, const struct fi_msg_rma *msg,
			    u64 flags)
{
	return krds_rma_post(fep, msg, flags, false);
}

const struct fi_ops_rma krds_rma_ops = {
	.readmsg = krds_readmsg,
	.writemsg = krds_writemsg,
};

/**
 * krds_rma_wait_locked() - the socket took an RMA operation's request
 * @ep: the endpoint, its lock held
 * @req: the operation
 *
 * It waits for its answer from now on, until rma_timeout_ms at most.
 *
 * Context: any context; does not sleep.
 */
void krds_rma_wait_locked(struct krds_ep *ep, struct krds_req *req)
{
	lockdep_assert_held(&ep->lock);
	req->waiting = true;
	req->deadline = jiffies + msecs_to_jiffies(krds_rma_timeout_ms);
	list_add_tail(&req->node, &ep->rma_wait);
}

/**
 * krds_rma_cancel_to() - take the operations waiting on a peer
 * @ep: the endpoint, its lock held
 * @dest: the peer
 * @gone: where the operations go, for the caller to complete
 *
 * Context: any context; does not sleep.
 */
void krds_rma_cancel_to(struct krds_ep *ep, const union kofi_sockaddr *dest,
			struct list_head *gone)
{
	struct krds_req *req, *tmp;

	lockdep_assert_held(&ep->lock);
	list_for_each_entry_safe(req, tmp, &ep->rma_wait, node) {
		if (!kofi_sockaddr_equal(&req->dest, dest))
			continue;
		req->waiting = false;
		list_move_tail(&req->node, gone);
	}
}

/**
 * krds_rma_expire() - end the operations whose answer is overdue
 * @ep: the endpoint
 *
 * They complete with ETIMEDOUT; the work runs again when the next one is
 * due.  A timeout of 0 waits for ever.
 *
 * Context: the endpoint's work.
 */
void krds_rma_expire(struct krds_ep *ep)
{
	unsigned long flags, next = 0;
	struct krds_req *req, *tmp;
	bool more = false;
	LIST_HEAD(gone);

	if (!krds_rma_timeout_ms)
		return;
	spin_lock_irqsave(&ep->lock, flags);
	list_for_each_entry_safe(req, tmp, &ep->rma_wait, node) {
		if (time_before(jiffies, req->deadline)) {
			next = req->deadline;
			more = true;
			break;
		}
		req->waiting = false;
		list_move_tail(&req->node, &gone);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(req, tmp, &gone, node) {
		list_del_init(&req->node);
		krds_req_fail(ep, req, &ep->tx_free, ETIMEDOUT);
	}
	if (more)
		queue_delayed_work(krds_wq, &ep->work,
				   time_after(next, jiffies) ? next - jiffies : 0);
}

/*
 * The operation an answer (@a) is for, taken off the waiting list; NULL
 * if none waits for it (it ended meanwhile, or the answer is bogus).
 */
static struct krds_req *krds_rma_find(struct krds_ep *ep,
				      const struct krds_arrival *a)
{
	u64 op = a->rd.op == KRDS_RMA_WRITE_ACK ? FI_WRITE : FI_READ;
	u32 slot = krds_rma_id_slot(a->rd.id);
	struct krds_req *req = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (slot < ep->ntx)
		req = &ep->pool[slot];
	if (req && (!req->waiting || req->id != a->rd.id ||
		    !(req->op.flags & op) ||
		    !kofi_sockaddr_equal(&req->dest, &a->src)))
		req = NULL;
	if (req) {
		req->waiting = false;
		list_del_init(&req->node);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	return req;
}

/* Take the answer @a in and complete its operation. */
static void krds_rma_answered(struct krds_ep *ep, const struct krds_arrival *a)
{
	struct krds_req *req = krds_rma_find(ep, a);
	struct kofi_comp c = {};
	struct msghdr msg = {};
	int ret;

	if (!req) {
		pr_debug("%pISpc: answer %#x for no operation dropped\n",
			 &a->src.sa, a->rd.id);
		krds_rx_discard(ep);
		return;
	}
	c.err = krds_rma_errno(a->rd.status);
	if (!c.err && a->rd.len != req->vec.len)
		c.err = EPROTO;
	if (c.err || a->rd.op == KRDS_RMA_WRITE_ACK) {
		krds_rx_discard(ep);
	} else {
		/* the frame into the request's, the data into the buffer */
		kofi_vec_iter(&req->vec, ITER_DEST, true, &msg.msg_iter);
		ret = sock_recvmsg(ep->sock, &msg, MSG_DONTWAIT | MSG_TRUNC);
		if (ret != sizeof(req->frame) + req->vec.len)
			c.err = ret < 0 ? -ret : EIO;
	}
	if (!c.err)
		c.len = req->vec.len;
	krds_req_done(ep, req, &ep->tx_free, &c);
}

/* ---- target ---- */

/*
 * An iterator over @f followed by [@addr, @addr + @len) of the region of
 * @e, which kofi_keytable_get() checked; @f must not cross a page.
 * Return: the entries the iterator runs over, for kfree() after it;
 * ERR_PTR(-ENOMEM).
 */
static void *krds_rma_vec(const struct kofi_key_entry *e, u64 addr,
			  size_t len, struct krds_rma_frame *f,
			  unsigned int dir, struct iov_iter *it)
{
	const struct kofi_sw_mr *mr = e->priv;
	size_t skip = addr - e->base, total = sizeof(*f) + len;
	unsigned int i, n = 1;
	struct bio_vec *bv;
	struct kvec *kv;

	if (mr->bvec) {
		bv = kmalloc_array(mr->nr + 1, sizeof(*bv), GFP_KERNEL);
		if (!bv)
			return ERR_PTR(-ENOMEM);
		bvec_set_page(&bv[0], virt_to_page(f), sizeof(*f),
			      offset_in_page(f));
		for (i = 0; i < mr->nr && len; i++) {
			struct bio_vec b = mr->bv[i];

			if (skip >= b.bv_len) {
				skip -= b.bv_len;
				continue;
			}
			b.bv_offset += skip;
			b.bv_len = min_t(size_t, b.bv_len - skip, len);
			skip = 0;
			len -= b.bv_len;
			bv[n++] = b;
		}
		iov_iter_bvec(it, dir, bv, n, total);
		return bv;
	}
	kv = kmalloc_array(mr->nr + 1, sizeof(*kv), GFP_KERNEL);
	if (!kv)
		return ERR_PTR(-ENOMEM);
	kv[0].iov_base = f;
	kv[0].iov_len = sizeof(*f);
	for (i = 0; i < mr->nr && len; i++) {
		struct kvec k = mr->kv[i];

		if (skip >= k.iov_len) {
			skip -= k.iov_len;
			continue;
		}
		k.iov_base = (u8 *)k.iov_base + skip;
		k.iov_len = min_t(size_t, k.iov_len - skip, len);
		skip = 0;
		len -= k.iov_len;
		kv[n++] = k;
	}
	iov_iter_kvec(it, dir, kv, n, total);
	return kv;
}

/*
 * A new answer to the request @a.  Its size is a power of two, so that
 * kmalloc() aligns it to that size and its frame does not cross a page.
 */
static struct krds_answer *krds_answer_alloc(const struct krds_arrival *a)
{
	struct krds_answer *ans;

	ans = kzalloc(roundup_pow_of_two(sizeof(*ans)), GFP_KERNEL);
	if (ans) {
		ans->dest = a->src;
		ans->key = a->rd.key;
		ans->addr = a->rd.addr;
	}
	return ans;
}

/* A write with remote CQ data landed: its completion at the target. */
static void krds_rma_notify(struct krds_ep *ep, const struct krds_arrival *a)
{
	struct kofi_comp c = {
		.flags = FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA,
		.len = a->rd.len,
		.data = a->d.data,
		.src = a->me.addr,
	};

	kofi_cq_write_comp(kofi_ep_cq(&ep->ep, FI_RECV, NULL), &c);
}

/*
 * Receive the write @a into the region of @e (the frame into @ans's).
 * Return: 0; -ENOMEM (the write stays in the socket); -EIO.
 */
static int krds_rma_write_in(struct krds_ep *ep, const struct krds_arrival *a,
			     const struct kofi_key_entry *e,
			     struct krds_answer *ans)
{
	struct msghdr msg = {};
	void *vec;
	int ret;

	vec = krds_rma_vec(e, a->rd.addr, a->rd.len, &ans->frame, ITER_DEST,
			   &msg.msg_iter);
	if (IS_ERR(vec))
		return PTR_ERR(vec);
	ret = sock_recvmsg(ep->sock, &msg, MSG_DONTWAIT | MSG_TRUNC);
	kfree(vec);
	return ret == sizeof(ans->frame) + a->rd.len ? 0 : -EIO;
}

/*
 * Take the request @a in: check it, place a write's data, and queue the
 * answer.  Return: 0; -EAGAIN (too many answers wait) or -ENOMEM: the
 * request stays in the socket.
 */
static int krds_rma_request(struct krds_ep *ep, const struct krds_arrival *a)
{
	bool write = a->rd.op == KRDS_RMA_WRITE;
	u64 access = write ? FI_REMOTE_WRITE : FI_REMOTE_READ;
	struct kofi_key_entry *e = NULL;
	struct krds_answer *ans;
	int err = 0;

	if (ep->nr_answers >= KRDS_ANSWERS_MAX)
		return -EAGAIN;
	ans = krds_answer_alloc(a);
	if (!ans)
		return -ENOMEM;
	if (ep->rma_access & access) {
		e = kofi_keytable_get(&ep->dom->sw.kt, a->rd.key, a->rd.addr,
				      a->rd.len, access);
		if (IS_ERR(e)) {
			err = PTR_ERR(e);
			e = NULL;
		}
	} else {
		err = -EOPNOTSUPP;
	}
	if (write && e) {
		err = krds_rma_write_in(ep, a, e, ans);
		kofi_key_entry_put(e);
		if (err == -ENOMEM) {
			kfree(ans);
			return err;
		}
	} else {
		/* a read's request; a refused write's data is dropped */
		if (e)
			kofi_key_entry_put(e);
		krds_rx_discard(ep);
	}
	if (err)
		pr_debug("%pISpc: RMA %s of %llu bytes at %#llx key %#llx: %d\n",
			 &a->src.sa, write ? "write" : "read", a->rd.len,
			 a->rd.addr, a->rd.key, err);
	if (write && !err && (a->d.flags & FI_REMOTE_CQ_DATA))
		krds_rma_notify(ep, a);
	krds_rma_fill(&ans->frame,
		      write ? KRDS_RMA_WRITE_ACK : KRDS_RMA_READ_DATA,
		      krds_rma_status(err), a->rd.id, 0, 0, a->rd.len, false, 0);
	list_add_tail(&ans->node, &ep->answers);
	ep->nr_answers++;
	return 0;
}

/**
 * krds_rma_rx() - take an RMA frame in
 * @ep: the endpoint
 * @a: the frame, at the head of the socket, its RMA header checked
 *
 * A request is checked and carried out, and its answer queued; an answer
 * completes its operation (one that no operation waits for is dropped).
 *
 * Context: the endpoint's work.
 * Return: 0; -EAGAIN or -ENOMEM if the frame stays in the socket for now.
 */
int krds_rma_rx(struct krds_ep *ep, const struct krds_arrival *a)
{
	switch (a->rd.op) {
	case KRDS_RMA_WRITE:
	case KRDS_RMA_READ:
		return krds_rma_request(ep, a);
	default:
		krds_rma_answered(ep, a);
		return 0;
	}
}

/*
 * Hand the answer @ans to the socket; a read's data comes from the region,
 * looked up again.  Return: the socket's answer; -ENOMEM.
 */
static int krds_answer_send(struct krds_ep *ep, struct krds_answer *ans)
{
	struct kvec kv = { .iov_base = &ans->frame,
			   .iov_len = sizeof(ans->frame) };
	size_t len = le64_to_cpu(ans->frame.rma.len);
	struct msghdr msg = {
		.msg_name = &ans->dest,
		.msg_namelen = kofi_sockaddr_len(&ans->dest.sa,
						 sizeof(ans->dest)),
		.msg_flags = MSG_DONTWAIT,
	};
	struct kofi_key_entry *e = NULL;
	void *vec = NULL;
	int ret;

	if (ans->frame.rma.op == KRDS_RMA_READ_DATA &&
	    ans->frame.rma.status == KRDS_RMA_OK) {
		e = kofi_keytable_get(&ep->dom->sw.kt, ans->key, ans->addr, len,
				      FI_REMOTE_READ);
		if (IS_ERR(e)) {
			ans->frame.rma.status = krds_rma_status(PTR_ERR(e));
			e = NULL;
		}
	}
	if (e) {
		vec = krds_rma_vec(e, ans->addr, len, &ans->frame,
				   ITER_SOURCE, &msg.msg_iter);
		if (IS_ERR(vec)) {
			kofi_key_entry_put(e);
			return PTR_ERR(vec);
		}
	} else {
		iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, &kv, 1, kv.iov_len);
	}
	ret = sock_sendmsg(ep->sock, &msg);
	kfree(vec);
	if (e)
		kofi_key_entry_put(e);
	return ret;
}

/**
 * krds_answers_progress() - send the answers to peers' RMA requests
 * @ep: the endpoint
 *
 * Context: the endpoint's work.
 * Return: true if back-pressure (or memory) stopped it with answers left.
 */
bool krds_answers_progress(struct krds_ep *ep)
{
	struct krds_answer *ans;
	int ret;

	while ((ans = list_first_entry_or_null(&ep->answers,
					       struct krds_answer, node))) {
		ret = krds_answer_send(ep, ans);
		if (ret == -EAGAIN || ret == -ENOBUFS || ret == -ENOMEM)
			return true;
		if (ret < 0)
			pr_warn_ratelimited("answer to %pISpc: %d\n",
					    &ans->dest.sa, ret);
		list_del(&ans->node);
		ep->nr_answers--;
		kfree(ans);
	}
	return false;
}

/**
 * krds_answers_free() - drop the answers of a closing endpoint
 * @ep: the endpoint, its work stopped
 *
 * Context: process context (fi_close()).
 */
void krds_answers_free(struct krds_ep *ep)
{
	struct krds_answer *ans, *tmp;

	list_for_each_entry_safe(ans, tmp, &ep->answers, node)
		kfree(ans);
	INIT_LIST_HEAD(&ep->answers);
	ep->nr_answers = 0;
}
