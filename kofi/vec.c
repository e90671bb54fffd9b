// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: a provider's copy of a caller's data vector
 * (include/kofi/vec.h).
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/vmalloc.h>
#include <kofi/vec.h>

/**
 * kofi_vec_set() - copy a caller's vector into a struct kofi_vec
 * @v: the copy
 * @type: the vector's type
 * @iov: the vector (kvecs, bvecs or a scatterlist)
 * @count: its entries
 * @first: entries of @v to leave free in front (0, or 1 for a header)
 *
 * Context: any context.
 * Return: 0; -EINVAL for more than KOFI_VEC_MAX entries, @first above 1,
 * an unknown @type or a scatterlist shorter than @count.
 */
int kofi_vec_set(struct kofi_vec *v, enum fi_iov_type type, const void *iov,
		 size_t count, unsigned int first)
{
	const struct kvec *kv = iov;
	const struct bio_vec *bv = iov;
	struct scatterlist *sg = (struct scatterlist *)iov;
	size_t i;

	if (count > KOFI_VEC_MAX || first > 1)
		return -EINVAL;
	v->first = first;
	v->count = first + count;
	v->len = 0;
	v->hdr_len = 0;
	switch (type) {
	case FI_IOV_KVEC:
		v->type = FI_IOV_KVEC;
		for (i = 0; i < count; i++) {
			v->kv[first + i] = kv[i];
			v->len += kv[i].iov_len;
		}
		return 0;
	case FI_IOV_BVEC:
		v->type = FI_IOV_BVEC;
		for (i = 0; i < count; i++) {
			v->bv[first + i] = bv[i];
			v->len += bv[i].bv_len;
		}
		return 0;
	case FI_IOV_SG:
		v->type = FI_IOV_BVEC;
		for (i = 0; i < count && sg; i++, sg = sg_next(sg)) {
			bvec_set_page(&v->bv[first + i], sg_page(sg),
				      sg->length, sg->offset);
			v->len += sg->length;
		}
		return i == count ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_GPL(kofi_vec_set);

/**
 * kofi_vec_hdr() - put a header in the entry left free in front
 * @v: a vector set with @first 1
 * @hdr: the header: kernel memory (kmalloc'ed or vmalloc'ed) that does
 *	not cross a page boundary
 * @len: its size
 *
 * Context: any context.
 */
void kofi_vec_hdr(struct kofi_vec *v, void *hdr, size_t len)
{
	if (WARN_ON_ONCE(!v->first))
		return;
	v->hdr_len = len;
	if (v->type == FI_IOV_BVEC) {
		struct page *page = is_vmalloc_addr(hdr) ?
				    vmalloc_to_page(hdr) : virt_to_page(hdr);

		bvec_set_page(&v->bv[0], page, len, offset_in_page(hdr));
	} else {
		v->kv[0].iov_base = hdr;
		v->kv[0].iov_len = len;
	}
}
EXPORT_SYMBOL_GPL(kofi_vec_hdr);

/**
 * kofi_vec_iter() - an iterator over a vector
 * @v: the vector
 * @dir: ITER_SOURCE or ITER_DEST
 * @hdr: from the header (set by kofi_vec_hdr()) on; else the caller's
 *	entries only
 * @it: the iterator
 *
 * Context: any context.
 */
void kofi_vec_iter(const struct kofi_vec *v, unsigned int dir, bool hdr,
		   struct iov_iter *it)
{
	unsigned int from = hdr ? 0 : v->first;
	size_t len = v->len + (hdr ? v->hdr_len : 0);

	if (v->type == FI_IOV_BVEC)
		iov_iter_bvec(it, dir, v->bv + from, v->count - from, len);
	else
		iov_iter_kvec(it, dir, v->kv + from, v->count - from, len);
}
EXPORT_SYMBOL_GPL(kofi_vec_iter);

/**
 * kofi_kvec_pageable() - is a kernel buffer made of pages a device can map?
 * @base: the buffer's first byte
 * @len: its bytes
 *
 * A provider that registers memory with an RDMA device, or maps it for
 * DMA page by page, reaches a kvec buffer through its pages: those of the
 * linear map (kmalloc'd, or pages of the page allocator) or of vmalloc
 * space (vmalloc'd, kvmalloc'd, vmap'd).  Other kernel addresses (a
 * module's static data, ioremapped memory) have no page a provider
 * looks for.
 *
 * Context: any context.
 * Return: true if every byte of [@base, @base + @len) is in the linear
 * map or in vmalloc space (true for @len 0).
 */
bool kofi_kvec_pageable(const void *base, size_t len)
{
	const u8 *last;

	if (!len)
		return true;
	if (len - 1 > ULONG_MAX - (unsigned long)base)
		return false;
	last = (const u8 *)base + len - 1;
	if (is_vmalloc_addr(base))
		return is_vmalloc_addr(last);
	return virt_addr_valid(base) && virt_addr_valid(last);
}
EXPORT_SYMBOL_GPL(kofi_kvec_pageable);

/**
 * kofi_vec_pageable() - are a vector's buffers made of pages?
 * @v: the vector (the header entry in front, if any, is not looked at)
 *
 * Context: any context.
 * Return: true for bio_vecs (pages already), and for kvecs whose every
 * entry is kofi_kvec_pageable().
 */
bool kofi_vec_pageable(const struct kofi_vec *v)
{
	unsigned int i;

	if (v->type != FI_IOV_KVEC)
		return true;
	for (i = v->first; i < v->count; i++)
		if (!kofi_kvec_pageable(v->kv[i].iov_base, v->kv[i].iov_len))
			return false;
	return true;
}
EXPORT_SYMBOL_GPL(kofi_vec_pageable);
