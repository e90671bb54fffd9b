// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: message transfers, and the posting path RMA
 * shares.
 *
 * Local memory needs no registration (no FI_MR_LOCAL): buffers without a
 * descriptor are DMA-mapped per operation and addressed with the PD's
 * local DMA lkey - kmalloc'd memory as one segment, vmalloc'd memory page
 * by page, bio_vecs and scatterlists entry by entry.  A descriptor from
 * fi_mr_desc() of a registered kvec region avoids the mapping.  Sends of
 * kvec data up to the QP's inline size go inline (the data is copied at
 * post time), which is what fi_inject() requires.
 *
 * A send posts a plain SEND with no provider header, SEND_WITH_IMM
 * (htonl(data)) with FI_REMOTE_CQ_DATA, as libfabric's verbs provider.
 * Where the domain has no FI_REMOTE_CQ_DATA (iWARP: no immediate data) a
 * send or write with that flag is refused with -EOPNOTSUPP, nothing posted.
 * The local buffer of an RDMA READ on iWARP is registered for the read
 * (ibv_sink.c).
 *
 * Every call here may be made from process or softirq context (not from
 * hardirq context or with interrupts disabled) and never sleeps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bvec.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include "ibv.h"

struct ibv_sgl {
	struct ib_sge *sge;
	u32 n;
	u32 max;
	size_t len;
};

static int ibv_map_page(struct ibv_domain *dom, struct ibv_req *req,
			struct ibv_sgl *s, struct page *page, size_t off,
			size_t len)
{
	struct ib_device *ibdev = dom->dev->ibdev;
	u64 dma;

	if (s->n >= s->max || req->nmap >= IBV_MAX_SGE)
		return -EINVAL;
	dma = ib_dma_map_page(ibdev, page, off, len, req->dir);
	if (ib_dma_mapping_error(ibdev, dma))
		return -ENOMEM;
	req->map[req->nmap].addr = dma;
	req->map[req->nmap].len = len;
	req->nmap++;
	s->sge[s->n].addr = dma;
	s->sge[s->n].length = len;
	s->sge[s->n].lkey = dom->pd->local_dma_lkey;
	s->n++;
	return 0;
}

static int ibv_map_kvec(struct ibv_domain *dom, struct ibv_req *req,
			struct ibv_sgl *s, const void *base, size_t len,
			void *desc)
{
	unsigned long a = (unsigned long)base;
	struct ibv_mr *mr;
	size_t chunk;
	int ret;

	if (!len)
		return 0;
	mr = desc ? ibv_mr_from_desc(dom, desc) : NULL;
	if (mr && mr->kva && a >= mr->kva && len <= mr->length &&
	    a - mr->kva <= mr->length - len) {
		if (s->n >= s->max)
			return -EINVAL;
		s->sge[s->n].addr = mr->iova + (a - mr->kva);
		s->sge[s->n].length = len;
		s->sge[s->n].lkey = mr->ibmr->lkey;
		s->n++;
		return 0;
	}
	if (is_vmalloc_addr(base)) {
		while (len) {
			chunk = min_t(size_t, len, PAGE_SIZE - offset_in_page(a));
			ret = ibv_map_page(dom, req, s,
					   vmalloc_to_page((void *)a),
					   offset_in_page(a), chunk);
			if (ret)
				return ret;
			a += chunk;
			len -= chunk;
		}
		return 0;
	}
	if (!virt_addr_valid(base) || !virt_addr_valid(base + len - 1))
		return -EINVAL;
	return ibv_map_page(dom, req, s, virt_to_page(base), offset_in_page(a),
			    len);
}

/* Inline data: the device copies from kernel virtual addresses. */
static int ibv_inline_kvec(struct ibv_sgl *s, const struct kvec *iov,
			   size_t count, u32 lkey)
{
	size_t i;

	for (i = 0; i < count; i++) {
		if (!iov[i].iov_len)
			continue;
		if (s->n >= s->max)
			return -EINVAL;
		s->sge[s->n].addr = (uintptr_t)iov[i].iov_base;
		s->sge[s->n].length = iov[i].iov_len;
		s->sge[s->n].lkey = lkey;
		s->n++;
	}
	return 0;
}

static size_t ibv_vec_len(enum fi_iov_type type, const void *vec,
			  size_t count)
{
	const struct kvec *kv = vec;
	const struct bio_vec *bv = vec;
	struct scatterlist *sg;
	size_t i, len = 0;

	switch (type) {
	case FI_IOV_KVEC:
		for (i = 0; i < count; i++)
			len += kv[i].iov_len;
		break;
	case FI_IOV_BVEC:
		for (i = 0; i < count; i++)
			len += bv[i].bv_len;
		break;
	case FI_IOV_SG:
		for_each_sg((struct scatterlist *)vec, sg, count, i)
			len += sg->length;
		break;
	}
	return len;
}

/* Fill @s from the vector, DMA-mapping into @req as needed. */
static int ibv_build_sgl(struct ibv_domain *dom, struct ibv_req *req,
			 struct ibv_sgl *s, enum fi_iov_type type,
			 const void *vec, size_t count, void **desc)
{
	const struct kvec *kv = vec;
	const struct bio_vec *bv = vec;
	struct scatterlist *sg;
	size_t i;
	int ret = 0;

	switch (type) {
	case FI_IOV_KVEC:
		for (i = 0; i < count && !ret; i++)
			ret = ibv_map_kvec(dom, req, s, kv[i].iov_base,
					   kv[i].iov_len, desc ? desc[i] : NULL);
		break;
	case FI_IOV_BVEC:
		for (i = 0; i < count && !ret; i++)
			if (bv[i].bv_len)
				ret = ibv_map_page(dom, req, s, bv[i].bv_page,
						   bv[i].bv_offset,
						   bv[i].bv_len);
		break;
	case FI_IOV_SG:
		for_each_sg((struct scatterlist *)vec, sg, count, i) {
			if (!sg->length)
				continue;
			ret = ibv_map_page(dom, req, s, sg_page(sg), sg->offset,
					   sg->length);
			if (ret)
				break;
		}
		break;
	default:
		ret = -EINVAL;
	}
	if (ret)
		ibv_req_unmap(dom, req);
	return ret;
}

/**
 * ibv_post_tx() - post a send or RMA operation
 * @ep: the endpoint
 * @x: the operation
 *
 * Context: process or softirq context; does not sleep.
 * Return: 0; -EAGAIN if the send queue is full; -ENOTCONN if not
 * connected; -EINVAL for a bad vector or too many entries; -EMSGSIZE for
 * an inject above the inject size or a message above max_msg_size;
 * -EOPNOTSUPP for FI_REMOTE_CQ_DATA on a domain without it (iWARP); for
 * an iWARP read also the errors of ibv_sink_post().
 */
ssize_t ibv_post_tx(struct ibv_ep *ep, const struct ibv_xfer *x)
{
	struct ib_sge sge[IBV_MAX_SGE];
	struct ibv_sgl s = { .sge = sge };
	bool read = x->opcode == IB_WR_RDMA_READ;
	bool sink = read && ep->dom->iwarp;
	bool imm = x->op_flags & FI_REMOTE_CQ_DATA;
	struct ib_rdma_wr wr = {};
	struct ibv_req *req;
	bool inl;
	size_t len;
	int ret;

	if (x->count > ep->info->tx_attr->iov_limit || (!x->vec && x->count))
		return -EINVAL;
	if (imm && !(ep->dom->caps & FI_REMOTE_CQ_DATA))
		return -EOPNOTSUPP;
	len = ibv_vec_len(x->type, x->vec, x->count);
	if (len > ep->info->ep_attr->max_msg_size)
		return -EMSGSIZE;
	if (x->opcode != IB_WR_SEND && len > x->rlen)
		return -EINVAL;
	inl = !read && x->type == FI_IOV_KVEC && len <= ep->inline_size;
	if ((x->op_flags & FI_INJECT) && !inl)
		return x->type == FI_IOV_KVEC ? -EMSGSIZE : -EINVAL;

	spin_lock_bh(&ep->lock);
	req = ep->can_send ? ibv_req_get(ep, true) : NULL;
	ret = ep->can_send ? -EAGAIN : -ENOTCONN;
	spin_unlock_bh(&ep->lock);
	if (!req)
		return ret;

	/* An iWARP sink is DMA-mapped here and registered by ibv_sink.c. */
	s.max = read && !sink ? ep->max_sge_rd : ep->max_sge;
	req->dir = read ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	if (inl)
		ret = ibv_inline_kvec(&s, x->vec, x->count,
				      ep->dom->pd->local_dma_lkey);
	else
		ret = ibv_build_sgl(ep->dom, req, &s, x->type, x->vec, x->count,
				    sink ? NULL : x->desc);
	if (ret)
		goto err_put;

	req->cq = (x->op_flags & FI_INJECT) ? NULL :
		  kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL);
	req->context = x->context;
	req->flags = x->cflags;
	req->len = len;
	wr.wr.wr_cqe = &req->cqe;
	wr.wr.sg_list = sge;
	wr.wr.num_sge = s.n;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	if (inl && len)
		wr.wr.send_flags |= IB_SEND_INLINE;
	if (x->op_flags & FI_FENCE)
		wr.wr.send_flags |= IB_SEND_FENCE;
	switch (x->opcode) {
	case IB_WR_SEND:
		wr.wr.opcode = imm ? IB_WR_SEND_WITH_IMM : IB_WR_SEND;
		break;
	case IB_WR_RDMA_WRITE:
		wr.wr.opcode = imm ? IB_WR_RDMA_WRITE_WITH_IMM :
			       IB_WR_RDMA_WRITE;
		break;
	default:
		wr.wr.opcode = x->opcode;
		break;
	}
	if (imm)
		wr.wr.ex.imm_data = ibv_imm_data(x->data);
	wr.remote_addr = x->raddr;
	wr.rkey = x->rkey;

	if (sink && s.n) {
		ret = ibv_sink_post(ep, req, &wr, s.n);
	} else {
		spin_lock_bh(&ep->lock);
		ret = ep->can_send ? ib_post_send(ep->qp, &wr.wr, NULL) :
		      -ENOTCONN;
		spin_unlock_bh(&ep->lock);
	}
	if (!ret)
		return 0;
	ibv_req_unmap(ep->dom, req);
err_put:
	spin_lock_bh(&ep->lock);
	ibv_req_put(ep, req, true);
	spin_unlock_bh(&ep->lock);
	return ret;
}

/**
 * ibv_rx_prepare() - map a receive's buffers and fill its work request
 * @dom: the domain
 * @req: the receive's request, taken
 * @wr: the work request to fill
 * @sge: its SGEs, IBV_MAX_SGE of them
 * @type: the vector's type
 * @vec: the vector
 * @count: its entries
 * @desc: their descriptors, or NULL
 * @context: the receive's context
 *
 * Context: any context but hardirq; does not sleep.
 * Return: 0, or a negative errno with nothing left mapped.
 */
int ibv_rx_prepare(struct ibv_domain *dom, struct ibv_req *req,
		   struct ib_recv_wr *wr, struct ib_sge *sge,
		   enum fi_iov_type type, const void *vec, size_t count,
		   void **desc, void *context)
{
	struct ibv_sgl s = { .sge = sge };
	int ret;

	s.max = min_t(u32, IBV_MAX_SGE, dom->attr.max_recv_sge);
	req->dir = DMA_FROM_DEVICE;
	ret = ibv_build_sgl(dom, req, &s, type, vec, count, desc);
	if (ret)
		return ret;
	req->context = context;
	req->flags = FI_RECV | FI_MSG;
	req->buf = type == FI_IOV_KVEC && count ?
		   ((const struct kvec *)vec)->iov_base : NULL;
	wr->next = NULL;
	wr->wr_cqe = &req->cqe;
	wr->sg_list = sge;
	wr->num_sge = s.n;
	return 0;
}

static ssize_t ibv_post_rx(struct ibv_ep *ep, enum fi_iov_type type,
			   const void *vec, size_t count, void **desc,
			   void *context)
{
	struct ib_sge sge[IBV_MAX_SGE];
	struct ib_recv_wr wr;
	struct ibv_req *req;
	int ret;

	/* an endpoint bound to a shared receive context has no receives */
	if (count > ep->info->rx_attr->iov_limit || (!vec && count) ||
	    ep->srx)
		return -EINVAL;
	spin_lock_bh(&ep->lock);
	req = ep->can_recv ? ibv_req_get(ep, false) : NULL;
	ret = ep->can_recv ? -EAGAIN : -EINVAL;
	spin_unlock_bh(&ep->lock);
	if (!req)
		return ret;

	ret = ibv_rx_prepare(ep->dom, req, &wr, sge, type, vec, count, desc,
			     context);
	if (ret)
		goto err_put;
	req->cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);

	spin_lock_bh(&ep->lock);
	ret = ep->can_recv ? ib_post_recv(ep->qp, &wr, NULL) : -EINVAL;
	spin_unlock_bh(&ep->lock);
	if (!ret)
		return 0;
	ibv_req_unmap(ep->dom, req);
err_put:
	spin_lock_bh(&ep->lock);
	ibv_req_put(ep, req, false);
	spin_unlock_bh(&ep->lock);
	return ret;
}

static struct ibv_ep *ibv_ep(struct fid_ep *fep)
{
	return container_of(fep, struct ibv_ep, ep);
}

static ssize_t ibv_recvmsg(struct fid_ep *fep, const struct fi_msg *msg,
			   u64 flags)
{
	if (flags & FI_MULTI_RECV)
		return -EOPNOTSUPP;
	return ibv_post_rx(ibv_ep(fep), msg->iov_type, msg->msg_iov,
			   msg->iov_count, msg->desc, msg->context);
}

static ssize_t ibv_sendmsg(struct fid_ep *fep, const struct fi_msg *msg,
			   u64 flags)
{
	struct ibv_xfer x = {
		.type = msg->iov_type,
		.vec = msg->msg_iov,
		.count = msg->iov_count,
		.desc = msg->desc,
		.context = msg->context,
		.op_flags = flags,
		.data = msg->data,
		.opcode = IB_WR_SEND,
		.cflags = FI_SEND | FI_MSG,
	};

	return ibv_post_tx(ibv_ep(fep), &x);
}

const struct fi_ops_msg ibv_msg_ops = {
	.recvmsg = ibv_recvmsg,
	.sendmsg = ibv_sendmsg,
};
