// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ksocket provider: memory registration.
 *
 * A region keeps a copy of the caller's vector (kvec, or bio_vec for pages
 * and scatterlists) and is entered in the domain's key table with a random
 * key (FI_MR_PROV_KEY).  The peer's RMA requests are checked against the
 * table (key, bounds, access) by kofi_keytable_get() before any byte moves;
 * the reference taken there keeps the region alive while data is copied.
 * Remote addresses start at the registration's offset (ksocket does not
 * use FI_MR_VIRT_ADDR).
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include "ksock.h"

/**
 * ksock_mr_iter() - iterator over part of a region
 * @mr: the region
 * @it: the iterator to set up
 * @dir: ITER_SOURCE (read from the region) or ITER_DEST (write into it)
 * @off: offset into the region
 * @len: bytes; @off + @len must be inside the region (checked by the key
 *	table)
 *
 * Context: any context.
 */
void ksock_mr_iter(struct ksock_mr *mr, struct iov_iter *it,
		   unsigned int dir, u64 off, size_t len)
{
	if (mr->bvec)
		iov_iter_bvec(it, dir, mr->bv, mr->nr, mr->len);
	else
		iov_iter_kvec(it, dir, mr->kv, mr->nr, mr->len);
	iov_iter_advance(it, off);
	iov_iter_truncate(it, len);
}

static int ksock_mr_close(struct fid *fid)
{
	struct ksock_mr *mr = container_of(fid, struct ksock_mr, mr.fid);

	kofi_keytable_remove(&mr->dom->kt, &mr->ke);
	kvfree(mr->kv);
	/* a lookup under RCU may still read mr->ke */
	kfree_rcu(mr, ke.rcu);
	return 0;
}

static const struct fi_ops ksock_mr_fi_ops = {
	.close = ksock_mr_close,
};

static int ksock_mr_copy_vec(struct ksock_mr *mr,
			     const struct fi_mr_attr *attr)
{
	struct scatterlist *sg;
	size_t i, len = 0;

	if (attr->iov_count > KSOCK_MR_IOV_LIMIT)
		return -EINVAL;
	mr->nr = attr->iov_count;
	switch (attr->iov_type) {
	case FI_IOV_KVEC:
		mr->kv = kvmalloc_array(mr->nr, sizeof(*mr->kv), GFP_KERNEL);
		if (!mr->kv)
			return -ENOMEM;
		for (i = 0; i < mr->nr; i++) {
			if (!attr->mr_iov[i].iov_base && attr->mr_iov[i].iov_len)
				return -EINVAL;
			mr->kv[i] = attr->mr_iov[i];
			len += mr->kv[i].iov_len;
		}
		break;
	case FI_IOV_BVEC:
		mr->bvec = true;
		mr->bv = kvmalloc_array(mr->nr, sizeof(*mr->bv), GFP_KERNEL);
		if (!mr->bv)
			return -ENOMEM;
		for (i = 0; i < mr->nr; i++) {
			mr->bv[i] = attr->mr_bvec[i];
			len += mr->bv[i].bv_len;
		}
		break;
	case FI_IOV_SG:
		mr->bvec = true;
		mr->bv = kvmalloc_array(mr->nr, sizeof(*mr->bv), GFP_KERNEL);
		if (!mr->bv)
			return -ENOMEM;
		for (i = 0, sg = attr->mr_sg; i < mr->nr && sg;
		     i++, sg = sg_next(sg)) {
			mr->bv[i].bv_page = sg_page(sg);
			mr->bv[i].bv_offset = sg->offset;
			mr->bv[i].bv_len = sg->length;
			len += sg->length;
		}
		if (i != mr->nr)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	mr->len = len;
	return len ? 0 : -EINVAL;
}

static int ksock_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			    u64 flags, struct fid_mr **fmr)
{
	struct ksock_domain *dom = container_of(fid, struct ksock_domain,
						domain.fid);
	struct ksock_mr *mr;
	int ret;

	if (flags)
		return -EINVAL;
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return -ENOMEM;
	ret = ksock_mr_copy_vec(mr, attr);
	if (ret)
		goto err;
	mr->dom = dom;
	mr->ke.base = attr->offset;
	mr->ke.len = mr->len;
	mr->ke.access = attr->access & (FI_REMOTE_READ | FI_REMOTE_WRITE);
	mr->ke.priv = mr;
	ret = kofi_keytable_insert(&dom->kt, &mr->ke, attr->requested_key,
				   true);
	if (ret)
		goto err;
	kofi_fid_init(&mr->mr.fid, FI_CLASS_MR, &ksock_mr_fi_ops,
		      attr->context);
	mr->mr.key = mr->ke.key;
	mr->mr.mem_desc = mr;
	*fmr = &mr->mr;
	return 0;
err:
	kvfree(mr->kv);
	kfree(mr);
	return ret;
}

const struct fi_ops_mr ksock_mr_ops = {
	.regattr = ksock_mr_regattr,
};
