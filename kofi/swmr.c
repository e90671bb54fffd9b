// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: memory regions of software RMA providers.
 *
 * A provider that moves RMA data with the CPU (ksocket, rds) registers a
 * region by keeping a copy of the caller's vector (kvec, or bio_vec for
 * pages and scatterlists) and entering it in its domain's key table with a
 * random key (FI_MR_PROV_KEY).  A peer's request is checked against the
 * table (key, bounds, access) by kofi_keytable_get() before any byte
 * moves; the reference taken there keeps the region alive while data is
 * copied, and closing the region waits for it.  Remote addresses start at
 * the registration's offset (no FI_MR_VIRT_ADDR).
 */
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include "kofi_core.h"

/**
 * kofi_sw_mr_iter() - iterator over part of a software region
 * @e: the region's key entry, referenced by kofi_keytable_get(), which
 *	checked that [@addr, @addr + @len) is inside it
 * @it: the iterator to set up
 * @dir: ITER_SOURCE (read from the region) or ITER_DEST (write into it)
 * @addr: remote address of the first byte
 * @len: bytes
 *
 * Context: any context.
 */
void kofi_sw_mr_iter(const struct kofi_key_entry *e, struct iov_iter *it,
		     unsigned int dir, u64 addr, size_t len)
{
	const struct kofi_sw_mr *mr = e->priv;

	if (mr->bvec)
		iov_iter_bvec(it, dir, mr->bv, mr->nr, mr->len);
	else
		iov_iter_kvec(it, dir, mr->kv, mr->nr, mr->len);
	iov_iter_advance(it, addr - e->base);
	iov_iter_truncate(it, len);
}
EXPORT_SYMBOL_GPL(kofi_sw_mr_iter);

static int kofi_sw_mr_close(struct fid *fid)
{
	struct kofi_sw_mr *mr = container_of(fid, struct kofi_sw_mr, mr.fid);

	kofi_keytable_remove(mr->kt, &mr->ke);
	kvfree(mr->kv);
	/* a lookup under RCU may still read mr->ke */
	kfree_rcu(mr, ke.rcu);
	return 0;
}

static const struct fi_ops kofi_sw_mr_fi_ops = {
	.close = kofi_sw_mr_close,
};

static int kofi_sw_mr_kvec(struct kofi_sw_mr *mr, const struct kvec *iov)
{
	unsigned int i;

	mr->kv = kvmalloc_array(mr->nr, sizeof(*mr->kv), GFP_KERNEL);
	if (!mr->kv)
		return -ENOMEM;
	for (i = 0; i < mr->nr; i++) {
		if (!iov[i].iov_base && iov[i].iov_len)
			return -EINVAL;
		mr->kv[i] = iov[i];
		mr->len += iov[i].iov_len;
	}
	return 0;
}

static int kofi_sw_mr_bvec(struct kofi_sw_mr *mr, const struct bio_vec *bv,
			   struct scatterlist *sgl)
{
	struct scatterlist *sg = sgl;
	unsigned int i;

	mr->bvec = true;
	mr->bv = kvmalloc_array(mr->nr, sizeof(*mr->bv), GFP_KERNEL);
	if (!mr->bv)
		return -ENOMEM;
	for (i = 0; i < mr->nr; i++) {
		if (bv) {
			mr->bv[i] = bv[i];
		} else {
			if (!sg)
				return -EINVAL;
			mr->bv[i].bv_page = sg_page(sg);
			mr->bv[i].bv_offset = sg->offset;
			mr->bv[i].bv_len = sg->length;
			sg = sg_next(sg);
		}
		mr->len += mr->bv[i].bv_len;
	}
	return 0;
}

/**
 * kofi_sw_mr_reg() - fi_mr_regattr() of a software RMA provider
 * @kt: the domain's key table
 * @attr: the registration: a kvec, bio_vec or scatterlist vector of 1 to
 *	KOFI_SW_MR_IOV_LIMIT entries and at least one byte, the access,
 *	the offset (the remote address of its first byte), a requested key
 *	(ignored: the key is random) and the context
 * @flags: must be 0
 * @fmr: the new region: fi_mr_key() its remote key, fi_mr_desc() a
 *	descriptor the provider ignores
 *
 * A provider's &fi_ops_mr.regattr calls it with its domain's key table.
 * Peers may read the region if @attr->access has FI_REMOTE_READ, write it
 * with FI_REMOTE_WRITE.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for flags or a bad vector; -ENOMEM.
 */
int kofi_sw_mr_reg(struct kofi_keytable *kt, const struct fi_mr_attr *attr,
		   u64 flags, struct fid_mr **fmr)
{
	struct kofi_sw_mr *mr;
	int ret;

	if (flags || !attr->iov_count ||
	    attr->iov_count > KOFI_SW_MR_IOV_LIMIT)
		return -EINVAL;
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return -ENOMEM;
	mr->kt = kt;
	mr->nr = attr->iov_count;
	switch (attr->iov_type) {
	case FI_IOV_KVEC:
		ret = kofi_sw_mr_kvec(mr, attr->mr_iov);
		break;
	case FI_IOV_BVEC:
		ret = kofi_sw_mr_bvec(mr, attr->mr_bvec, NULL);
		break;
	case FI_IOV_SG:
		ret = kofi_sw_mr_bvec(mr, NULL, attr->mr_sg);
		break;
	default:
		ret = -EINVAL;
	}
	if (!ret && !mr->len)
		ret = -EINVAL;
	if (ret)
		goto err;
	mr->ke.base = attr->offset;
	mr->ke.len = mr->len;
	mr->ke.access = attr->access & (FI_REMOTE_READ | FI_REMOTE_WRITE);
	mr->ke.priv = mr;
	ret = kofi_keytable_insert(kt, &mr->ke, attr->requested_key, true);
	if (ret)
		goto err;
	kofi_fid_init(&mr->mr.fid, FI_CLASS_MR, &kofi_sw_mr_fi_ops,
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
EXPORT_SYMBOL_GPL(kofi_sw_mr_reg);
