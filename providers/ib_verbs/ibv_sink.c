// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: RDMA READ sinks on iWARP.
 *
 * An iWARP READ response is placed like an RDMA WRITE into the sink the
 * requester names by a steering tag, so the sink must be registered with
 * remote write access, which the PD's local DMA lkey is not; and a READ
 * has one sink SGE (max_sge_rd 1).  As the kernel's rdma_rw does, every
 * fi_read() on an iWARP endpoint registers its local buffer with an FRWR
 * MR of the QP's pool (qp->rdma_mrs, ib_mr_pool_*()): IB_WR_REG_MR with
 * local and remote write access, then IB_WR_RDMA_READ_WITH_INV with the MR
 * as its one SGE, which invalidates the MR once the data has landed.  An
 * MR whose chain was posted only in part may still be valid: it is
 * invalidated (IB_WR_LOCAL_INV) before its next registration.
 *
 * A read holds its MR until it completes: with every MR of the pool taken
 * (IBV_SINK_MRS per endpoint) fi_read() answers -EAGAIN.  The local vector
 * may have several entries if they make one FRWR page list (every entry
 * but the first starts on a page, every one but the last ends on one); it
 * covers at most ep->sink_pages pages.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
#include <rdma/mr_pool.h>
#include "ibv.h"

/**
 * ibv_sink_pages() - pages one READ sink MR maps
 * @a: the device's attributes
 *
 * Context: any context.
 * Return: the page list length of the pool's MRs.
 */
u32 ibv_sink_pages(const struct ib_device_attr *a)
{
	return min_t(u32, a->max_fast_reg_page_list_len, IBV_SINK_PAGES);
}

/* Completion of a sink's IB_WR_REG_MR or IB_WR_LOCAL_INV. */
static void ibv_sink_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibv_ep *ep = container_of(wc->wr_cqe, struct ibv_ep,
					 sink_cqe);
	int err = ibv_wc_errno(wc->status);

	/* A flush is reported by the READ behind it. */
	if (err && err != -ECANCELED)
		ibv_ep_conn_lost(ep, err);
}

/**
 * ibv_sink_init() - give an iWARP endpoint's QP its pool of sink MRs
 * @ep: the endpoint, its QP just created
 * @n: MRs (the QP's send queue has room for two more work requests each)
 *
 * Context: process context, may sleep; @ep->mutex held.
 * Return: 0 or a negative errno (no MR left allocated).
 */
int ibv_sink_init(struct ibv_ep *ep, u32 n)
{
	ep->sink_cqe.done = ibv_sink_reg_done;
	ep->sink_pages = ibv_sink_pages(&ep->dom->attr);
	if (!ep->sink_pages)
		return -EOPNOTSUPP;
	return ib_mr_pool_init(ep->qp, &ep->qp->rdma_mrs, n,
			       IB_MR_TYPE_MEM_REG, ep->sink_pages, 0);
}

/**
 * ibv_sink_fini() - free the endpoint's sink MRs (if it has any)
 * @ep: the endpoint, its QP drained (no completion will run)
 *
 * Context: process context, may sleep; @ep->mutex held.
 */
void ibv_sink_fini(struct ibv_ep *ep)
{
	u32 i;

	for (i = 0; ep->reqs && i < ep->sq.size; i++)
		if (ep->reqs[i].sink_mr)
			ibv_sink_put(ep, &ep->reqs[i], false);
	ib_mr_pool_destroy(ep->qp, &ep->qp->rdma_mrs);
}

/**
 * ibv_sink_put() - a read with a sink MR completed
 * @ep: the endpoint
 * @req: the read's request
 * @ok: it completed successfully (the MR is invalidated)
 *
 * Context: softirq or process context; does not sleep.
 */
void ibv_sink_put(struct ibv_ep *ep, struct ibv_req *req, bool ok)
{
	struct ib_mr *mr = req->sink_mr;

	req->sink_mr = NULL;
	if (!ok)
		mr->need_inval = true;
	ib_mr_pool_put(ep->qp, &ep->qp->rdma_mrs, mr);
}

/* Map the @n DMA-mapped segments @sge into @mr. */
static int ibv_sink_map(struct ibv_ep *ep, struct ib_mr *mr,
			const struct ib_sge *sge, u32 n)
{
	struct scatterlist sgl[IBV_MAX_SGE];
	unsigned long pages = 0;
	u32 i;
	int ret;

	if (!n || n > IBV_MAX_SGE)
		return -EINVAL;
	sg_init_table(sgl, n);
	for (i = 0; i < n; i++) {
		if (!ibv_mr_vec_ok(i, n, sge[i].addr, sge[i].length,
				   PAGE_SIZE))
			return -EINVAL;
		pages += ibv_mr_pages(sge[i].addr, sge[i].length, PAGE_SIZE);
		sgl[i].length = sge[i].length;
		sg_dma_address(&sgl[i]) = sge[i].addr;
		sg_dma_len(&sgl[i]) = sge[i].length;
	}
	if (pages > ep->sink_pages)
		return -EMSGSIZE;
	ret = ib_map_mr_sg(mr, sgl, n, NULL, PAGE_SIZE);
	if (ret < 0)
		return ret;
	return ret == n ? 0 : -EINVAL;
}

/**
 * ibv_sink_post() - post an RDMA READ into a freshly registered sink
 * @ep: the endpoint (iWARP)
 * @req: the read's request
 * @rd: the READ, its sg_list the @n DMA-mapped segments of the sink
 * @n: segments, at least one
 *
 * Posts [LOCAL_INV,] REG_MR, RDMA_READ_WITH_INV; @rd's sg_list[0] becomes
 * the MR.  On success the MR stays with @req until ibv_sink_put().
 *
 * Context: process or softirq context; does not sleep.
 * Return: 0; -EAGAIN with every sink MR in use; -EINVAL for segments that
 * are not one page list; -EMSGSIZE for more pages than an MR maps;
 * -ENOTCONN if not connected; the error of ib_post_send().
 */
int ibv_sink_post(struct ibv_ep *ep, struct ibv_req *req,
		  struct ib_rdma_wr *rd, u32 n)
{
	struct ib_sge *sge = rd->wr.sg_list;
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr inv = {};
	struct ib_send_wr *first;
	struct ib_reg_wr reg = {};
	struct ib_mr *mr;
	int ret;

	/*
	 * Under the lock, with posting allowed: ibv_ep_release() stops
	 * posting under it before it drains the QP and frees the pool.
	 */
	spin_lock_bh(&ep->lock);
	ret = -ENOTCONN;
	if (!ep->can_send)
		goto out;
	ret = -EAGAIN;
	mr = ib_mr_pool_get(ep->qp, &ep->qp->rdma_mrs);
	if (!mr)
		goto out;
	ret = ibv_sink_map(ep, mr, sge, n);
	if (ret)
		goto put;
	first = &reg.wr;
	if (mr->need_inval) {
		inv.opcode = IB_WR_LOCAL_INV;
		inv.ex.invalidate_rkey = mr->lkey;
		inv.wr_cqe = &ep->sink_cqe;
		inv.send_flags = IB_SEND_SIGNALED;
		inv.next = &reg.wr;
		first = &inv;
	}
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->lkey));
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_cqe = &ep->sink_cqe;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.wr.next = &rd->wr;
	reg.mr = mr;
	reg.key = mr->lkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	sge[0].addr = mr->iova;
	sge[0].length = mr->length;
	sge[0].lkey = mr->lkey;
	rd->wr.num_sge = 1;
	rd->wr.opcode = IB_WR_RDMA_READ_WITH_INV;
	rd->wr.ex.invalidate_rkey = mr->lkey;

	/* Before the post: the completion may run at once. */
	req->sink_mr = mr;
	mr->need_inval = false;
	ret = ib_post_send(ep->qp, first, &bad);
	if (!ret)
		goto out;
	/* Part of the chain went out: the MR may end up registered. */
	req->sink_mr = NULL;
	if (bad && bad != first)
		mr->need_inval = true;
put:
	ib_mr_pool_put(ep->qp, &ep->qp->rdma_mrs, mr);
out:
	spin_unlock_bh(&ep->lock);
	return ret;
}
