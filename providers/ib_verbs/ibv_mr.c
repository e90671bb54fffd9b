// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: memory registration by FRWR.
 *
 * A region (kmalloc'd or vmalloc'd kvecs, bio_vec pages or a scatterlist)
 * is turned into a page list, DMA-mapped, and registered with a fast
 * registration MR: ib_alloc_mr(IB_MR_TYPE_MEM_REG) + ib_map_mr_sg() + an
 * IB_WR_REG_MR work request.  Closing it posts IB_WR_LOCAL_INV before the
 * MR is freed.  The PD has no global rkey: peers reach only what was
 * registered, with the access asked for.
 *
 * Work requests need a queue pair in RTS: registration is posted on the
 * domain's registration QP (a QP connected to itself, see ibv_domain.c)
 * and waited for, so a region is usable when fi_mr_reg() returns.  Where
 * that QP cannot exist (iWARP) it is posted on a connected endpoint of the
 * domain; a region registered while the domain has none is registered
 * when the first one connects, before FI_CONNECTED is reported (its key
 * is valid from fi_mr_reg() on).
 *
 * Every wait for a registration or invalidation is bounded by
 * IBV_REG_TIMEOUT_MS.  On timeout the QP it was posted on is moved to the
 * error state, so that the late work request can no longer take effect
 * (it completes flushed, into a completion that is not on the waiter's
 * stack), and is not used again; the region is then released as after
 * any failed registration and fi_mr_reg() returns -ETIMEDOUT.  After a
 * timeout on the registration QP, later registrations go through
 * connected endpoints; after one on an endpoint, that endpoint's
 * connection ends (EQ error ETIMEDOUT), see ibv_mr_post().
 *
 * Remote addresses (FI_MR_VIRT_ADDR): the kernel virtual address of the
 * first byte for kvec regions; for bio_vec and scatterlist regions the
 * attr offset, whose offset within a page must be the first byte's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bvec.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <kofi/vec.h>
#include "ibv.h"

/* Make @wr signal @req, whose completion completes @done. */
static void ibv_mr_req_prep(struct ibv_req *req, struct completion *done,
			    struct ib_send_wr *wr)
{
	reinit_completion(done);
	req->done = done;
	req->status = IB_WC_GENERAL_ERR;
	wr->wr_cqe = &req->cqe;
	wr->send_flags = IB_SEND_SIGNALED;
}

/*
 * Wait at most IBV_REG_TIMEOUT_MS for the work request of @req; @done
 * outlives the wait, for a completion that arrives after it timed out.
 */
static int ibv_mr_wait(struct ibv_req *req, struct completion *done)
{
	if (!wait_for_completion_timeout(done,
					 msecs_to_jiffies(IBV_REG_TIMEOUT_MS)))
		return -ETIMEDOUT;
	return req->status == IB_WC_SUCCESS ? 0 : -EIO;
}

/*
 * A registration timed out on connected endpoint @ep: stop its QP (if
 * the endpoint still has one) and end the connection as after any failed
 * work request - no more posting, an ETIMEDOUT error on the EQ.  The QP
 * stays alive meanwhile: ibv_ep_release() clears @ep->qp under mr_lock
 * before destroying it.
 */
static void ibv_mr_ep_fail(struct ibv_ep *ep)
{
	/* the late request cannot take effect on a QP in the error state */
	int ret = ep->qp ? ibv_qp_stop(ep->qp) : 0;

	pr_warn("%s: registration timed out after %u ms; endpoint QP stopped (%d)\n",
		ep->dom->dev->name, IBV_REG_TIMEOUT_MS, ret);
	ibv_ep_conn_lost(ep, -ETIMEDOUT);
}

/**
 * ibv_mr_post() - post an internal work request on a connected endpoint
 * @ep: an endpoint of the domain
 * @wr: the registration or invalidation work request
 *
 * Posts @wr on @ep's QP, in the send queue slot reserved for registration,
 * and waits for its completion, at most IBV_REG_TIMEOUT_MS, as on the
 * registration QP.  On timeout the QP, which still holds the request, is
 * not used again: it is moved to the error state (the request completes
 * flushed, into @ep->reg_done; its outstanding operations with
 * ECANCELED), and the endpoint's connection ends: posting stops and its
 * EQ gets an ETIMEDOUT error entry (once, as for a connection lost).  The
 * ULP closes the endpoint.
 *
 * Context: process context, may sleep; the domain's mr_lock held (which
 * keeps @ep->qp), and the domain lock or @ep->mutex (which keep @ep).
 * Return: 0; -ENOTCONN if @ep is not connected; -ETIMEDOUT; -EIO if the
 * request failed; ib_post_send()'s error.
 */
static int ibv_mr_post(struct ibv_ep *ep, struct ib_send_wr *wr)
{
	struct ibv_req *req = NULL;
	int ret = -ENOTCONN;

	lockdep_assert_held(&ep->dom->mr_lock);
	spin_lock_bh(&ep->lock);
	if (ep->can_send && ep->reqs) {
		req = &ep->reqs[ep->nreqs - 2];
		ibv_mr_req_prep(req, &ep->reg_done, wr);
		ret = ib_post_send(ep->qp, wr, NULL);
	}
	spin_unlock_bh(&ep->lock);
	if (ret)
		return ret;
	ret = ibv_mr_wait(req, &ep->reg_done);
	if (ret == -ETIMEDOUT)
		ibv_mr_ep_fail(ep);
	return ret;
}

/*
 * The registration QP did not complete a work request in time: stop it
 * and stop using it.
 */
static void ibv_mr_regqp_fail(struct ibv_domain *dom)
{
	int ret;

	dom->reg_failed = true;
	ret = ibv_qp_stop(dom->reg_qp);
	pr_warn("%s: registration timed out after %u ms; registration QP stopped (%d)\n",
		dom->dev->name, IBV_REG_TIMEOUT_MS, ret);
}

/*
 * Post on the domain's registration QP and wait, at most
 * IBV_REG_TIMEOUT_MS; @dom->lock and @dom->mr_lock held.
 */
static int ibv_mr_post_regqp(struct ibv_domain *dom, struct ib_send_wr *wr)
{
	int ret;

	lockdep_assert_held(&dom->lock);
	lockdep_assert_held(&dom->mr_lock);
	ibv_mr_req_prep(dom->reg_req, &dom->reg_done, wr);
	ret = ib_post_send(dom->reg_qp, wr, NULL);
	if (ret)
		return ret;
	ret = ibv_mr_wait(dom->reg_req, &dom->reg_done);
	if (ret == -ETIMEDOUT)
		ibv_mr_regqp_fail(dom);
	return ret;
}

static void ibv_mr_reg_wr(struct ibv_mr *mr, struct ib_reg_wr *wr)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = IB_WR_REG_MR;
	wr->mr = mr->ibmr;
	wr->key = mr->ibmr->rkey;
	wr->access = mr->access;
}

static int ibv_mr_post_reg(struct ibv_ep *ep, struct ibv_mr *mr)
{
	struct ib_reg_wr wr;

	ibv_mr_reg_wr(mr, &wr);
	return ibv_mr_post(ep, &wr.wr);
}

/*
 * Register (or with @inv invalidate) @mr on the registration QP, or some
 * connected endpoint; -ENOTCONN if there is none.
 */
static int ibv_mr_post_any(struct ibv_domain *dom, struct ibv_mr *mr,
			   bool inv)
{
	struct ib_send_wr inv_wr = {
		.opcode = IB_WR_LOCAL_INV,
		.ex.invalidate_rkey = mr->ibmr->rkey,
	};
	struct ib_reg_wr reg_wr;
	struct ibv_ep *ep;
	int ret = -ENOTCONN;

	lockdep_assert_held(&dom->lock);
	lockdep_assert_held(&dom->mr_lock);
	if (dom->reg_qp && !dom->reg_failed) {
		ibv_mr_reg_wr(mr, &reg_wr);
		return ibv_mr_post_regqp(dom, inv ? &inv_wr : &reg_wr.wr);
	}
	list_for_each_entry(ep, &dom->eps, dom_node) {
		ret = inv ? ibv_mr_post(ep, &inv_wr) : ibv_mr_post_reg(ep, mr);
		if (ret != -ENOTCONN)
			break;
	}
	return ret;
}

/**
 * ibv_mr_register_pending() - register the domain's pending regions
 * @ep: an endpoint that just connected
 *
 * A registration that times out ends @ep's connection (see ibv_mr_post())
 * and stops the loop: the regions left stay pending.
 *
 * Context: process context (rdma_cm callback), may sleep; @ep->mutex held.
 * Return: 0, -ETIMEDOUT, or the first error (the region stays pending).
 */
int ibv_mr_register_pending(struct ibv_ep *ep)
{
	struct ibv_domain *dom = ep->dom;
	struct ibv_mr *mr;
	int ret = 0, r;

	mutex_lock(&dom->mr_lock);
	list_for_each_entry(mr, &dom->mrs, dom_node) {
		if (!mr->pending || !mr->ibmr)
			continue;
		r = ibv_mr_post_reg(ep, mr);
		if (r == -ETIMEDOUT) {
			ret = r;	/* @ep's connection ended */
			break;
		}
		if (r) {
			ret = ret ? ret : r;
			continue;
		}
		mr->pending = false;
		mr->registered = true;
	}
	mutex_unlock(&dom->mr_lock);
	return ret;
}

/**
 * ibv_mr_from_desc() - the registered region a descriptor names
 * @dom: the domain of the endpoint using it
 * @desc: a fi_mr_desc() value
 *
 * Context: any context.
 * Return: the region if it is a registered region of @dom, NULL.
 */
struct ibv_mr *ibv_mr_from_desc(struct ibv_domain *dom, void *desc)
{
	struct ibv_mr *mr = desc;

	if (mr->mr.fid.fclass != FI_CLASS_MR || mr->dom != dom ||
	    !mr->registered || !mr->ibmr)
		return NULL;
	return mr;
}

/* Free the device resources of @mr; the device must still exist. */
static void ibv_mr_release(struct ibv_mr *mr)
{
	struct ib_device *ibdev = mr->dom->dev->ibdev;

	if (mr->ibmr) {
		ib_dereg_mr(mr->ibmr);
		mr->ibmr = NULL;
		ib_dma_unmap_sg(ibdev, mr->sgt.sgl, mr->sgt.orig_nents,
				DMA_BIDIRECTIONAL);
	}
	mr->registered = false;
	mr->pending = false;
}

/**
 * ibv_mr_kill() - the region's device is going away
 * @mr: the region
 *
 * Context: process context, may sleep; the domain's locks held.
 */
void ibv_mr_kill(struct ibv_mr *mr)
{
	ibv_mr_release(mr);
}

static int ibv_mr_close(struct fid *fid)
{
	struct ibv_mr *mr = container_of(fid, struct ibv_mr, mr.fid);
	struct ibv_domain *dom = mr->dom;

	mutex_lock(&dom->lock);
	mutex_lock(&dom->mr_lock);
	list_del(&mr->dom_node);
	if (!dom->removed && mr->ibmr) {
		if (mr->registered)
			ibv_mr_post_any(dom, mr, true);
		ibv_mr_release(mr);
	}
	mutex_unlock(&dom->mr_lock);
	mutex_unlock(&dom->lock);
	sg_free_table(&mr->sgt);
	kfree(mr);
	return 0;
}

static const struct fi_ops ibv_mr_fi_ops = {
	.close = ibv_mr_close,
};

/* One contiguous piece of the region. */
struct ibv_seg {
	struct page *page;	/* NULL: use @addr */
	unsigned long addr;
	size_t off;
	size_t len;
};

static int ibv_mr_seg(const struct fi_mr_attr *attr, size_t i,
		      struct ibv_seg *s)
{
	struct scatterlist *sg;
	size_t k;

	memset(s, 0, sizeof(*s));
	switch (attr->iov_type) {
	case FI_IOV_KVEC:
		s->addr = (unsigned long)attr->mr_iov[i].iov_base;
		s->off = offset_in_page(s->addr);
		s->len = attr->mr_iov[i].iov_len;
		if (!s->len || !kofi_kvec_pageable((void *)s->addr, s->len))
			return -EINVAL;
		return 0;
	case FI_IOV_BVEC:
		s->page = attr->mr_bvec[i].bv_page;
		s->off = attr->mr_bvec[i].bv_offset;
		s->len = attr->mr_bvec[i].bv_len;
		break;
	case FI_IOV_SG:
		sg = attr->mr_sg;
		for (k = 0; k < i && sg; k++)
			sg = sg_next(sg);
		if (!sg)
			return -EINVAL;
		s->page = sg_page(sg);
		s->off = sg->offset;
		s->len = sg->length;
		break;
	default:
		return -EINVAL;
	}
	if (!s->page)
		return -EINVAL;
	s->page += s->off >> PAGE_SHIFT;
	s->off &= ~PAGE_MASK;
	return 0;
}

static struct page *ibv_seg_page(const struct ibv_seg *s, size_t k)
{
	unsigned long a;

	if (s->page)
		return s->page + k;
	a = (s->addr & PAGE_MASK) + k * PAGE_SIZE;
	return is_vmalloc_addr((void *)a) ? vmalloc_to_page((void *)a) :
	       virt_to_page((void *)a);
}

/* Build @mr->sgt from the region's pages. */
static int ibv_mr_build(struct ibv_mr *mr, const struct fi_mr_attr *attr,
			size_t *first_off, unsigned long *npages)
{
	struct page **pages;
	struct ibv_seg s;
	size_t i, k, n = 0, total = 0, np;
	int ret;

	*npages = 0;
	for (i = 0; i < attr->iov_count; i++) {
		ret = ibv_mr_seg(attr, i, &s);
		if (ret)
			return ret;
		if (!ibv_mr_vec_ok(i, attr->iov_count, s.off, s.len,
				   PAGE_SIZE))
			return -EINVAL;
		if (!i)
			*first_off = s.off;
		*npages += ibv_mr_pages(s.off, s.len, PAGE_SIZE);
		total += s.len;
	}
	if (total > IBV_MAX_MSG_SIZE || *npages > UINT_MAX)
		return -EINVAL;
	pages = kvmalloc_array(*npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < attr->iov_count; i++) {
		ibv_mr_seg(attr, i, &s);
		np = ibv_mr_pages(s.off, s.len, PAGE_SIZE);
		for (k = 0; k < np; k++)
			pages[n++] = ibv_seg_page(&s, k);
	}
	ret = sg_alloc_table_from_pages(&mr->sgt, pages, n, *first_off, total,
					GFP_KERNEL);
	kvfree(pages);
	mr->length = total;
	return ret;
}

static int ibv_mr_access(u64 access)
{
	int a = IB_ACCESS_LOCAL_WRITE;

	if (access & FI_REMOTE_READ)
		a |= IB_ACCESS_REMOTE_READ;
	if (access & FI_REMOTE_WRITE)
		a |= IB_ACCESS_REMOTE_WRITE;
	return a;
}

static int ibv_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			  u64 flags, struct fid_mr **fmr)
{
	struct ibv_domain *dom = container_of(fid, struct ibv_domain,
					      domain.fid);
	struct ib_device *ibdev = dom->dev->ibdev;
	unsigned long npages;
	size_t first_off = 0;
	struct ibv_mr *mr;
	int ret, nents, n;
	u64 iova;

	if (attr->iov_count > IBV_MAX_SGE || flags)
		return -EINVAL;
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return -ENOMEM;
	mr->dom = dom;
	mr->access = ibv_mr_access(attr->access);
	ret = ibv_mr_build(mr, attr, &first_off, &npages);
	if (ret)
		goto err_free;
	if (attr->iov_type == FI_IOV_KVEC) {
		iova = (unsigned long)attr->mr_iov[0].iov_base;
		if (attr->iov_count == 1)
			mr->kva = iova;
	} else {
		iova = attr->offset;
		ret = -EINVAL;
		if ((iova ^ first_off) & ~PAGE_MASK)
			goto err_sgt;
	}
	mr->iova = iova;

	mutex_lock(&dom->lock);
	ret = -ENODEV;
	if (dom->removed)
		goto err_unlock;
	ret = -EINVAL;
	if (npages > dom->attr.max_fast_reg_page_list_len)
		goto err_unlock;
	ret = -ENOMEM;
	nents = ib_dma_map_sg(ibdev, mr->sgt.sgl, mr->sgt.orig_nents,
			      DMA_BIDIRECTIONAL);
	if (!nents)
		goto err_unlock;
	mr->ibmr = ib_alloc_mr(dom->pd, IB_MR_TYPE_MEM_REG, npages);
	if (IS_ERR(mr->ibmr)) {
		ret = PTR_ERR(mr->ibmr);
		mr->ibmr = NULL;
		goto err_unmap;
	}
	n = ib_map_mr_sg(mr->ibmr, mr->sgt.sgl, nents, NULL, PAGE_SIZE);
	if (n != nents) {
		ret = n < 0 ? n : -EINVAL;
		goto err_mr;
	}
	ib_update_fast_reg_key(mr->ibmr, get_random_u32() & 0xff);
	mr->ibmr->iova = iova;

	mutex_lock(&dom->mr_lock);
	ret = ibv_mr_post_any(dom, mr, false);
	if (!ret) {
		mr->registered = true;
	} else if (ret == -ENOTCONN) {
		mr->pending = true;
		ret = 0;
	}
	if (!ret)
		list_add_tail(&mr->dom_node, &dom->mrs);
	mutex_unlock(&dom->mr_lock);
	if (ret)
		goto err_mr;
	mutex_unlock(&dom->lock);

	kofi_fid_init(&mr->mr.fid, FI_CLASS_MR, &ibv_mr_fi_ops, attr->context);
	mr->mr.mem_desc = mr;
	mr->mr.key = mr->ibmr->rkey;
	*fmr = &mr->mr;
	return 0;

err_mr:
	ib_dereg_mr(mr->ibmr);
	mr->ibmr = NULL;
err_unmap:
	ib_dma_unmap_sg(ibdev, mr->sgt.sgl, mr->sgt.orig_nents,
			DMA_BIDIRECTIONAL);
err_unlock:
	mutex_unlock(&dom->lock);
err_sgt:
	sg_free_table(&mr->sgt);
err_free:
	kfree(mr);
	return ret;
}

const struct fi_ops_mr ibv_mr_ops = {
	.regattr = ibv_mr_regattr,
};
