/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: a provider's copy of a caller's data vector.
 *
 * A data call's vector - kvecs, bio_vecs or a scatterlist - is copied
 * into a struct kofi_vec, a scatterlist as bio_vecs, so that the provider
 * can build iov_iters on it after the call returned.  One entry may be
 * left free in front for a header of the provider's own, which goes on
 * the wire in front of the payload.  The code is in kofi.ko (kofi/vec.c).
 * ULPs do not include this header.
 */
#ifndef _KOFI_VEC_H
#define _KOFI_VEC_H

#include <linux/bvec.h>
#include <linux/uio.h>
#include <kofi/fabric.h>

/* Most entries of a caller's vector that a struct kofi_vec holds. */
#define KOFI_VEC_MAX	8

/**
 * struct kofi_vec - a copy of a caller's data vector
 * @type: FI_IOV_KVEC or FI_IOV_BVEC (a scatterlist is kept as bvecs)
 * @first: entries left free in front for a header (0 or 1)
 * @count: entries used, the header's included
 * @len: bytes of the caller's entries
 * @hdr_len: bytes of the header in front, once kofi_vec_hdr() set it
 * @kv: the kvecs
 * @bv: the bvecs
 */
struct kofi_vec {
	enum fi_iov_type type;
	unsigned int first;
	unsigned int count;
	size_t len;
	size_t hdr_len;
	union {
		struct kvec kv[KOFI_VEC_MAX + 1];
		struct bio_vec bv[KOFI_VEC_MAX + 1];
	};
};

int kofi_vec_set(struct kofi_vec *v, enum fi_iov_type type, const void *iov,
		 size_t count, unsigned int first);
void kofi_vec_hdr(struct kofi_vec *v, void *hdr, size_t len);
void kofi_vec_iter(const struct kofi_vec *v, unsigned int dir, bool hdr,
		   struct iov_iter *it);
bool kofi_kvec_pageable(const void *base, size_t len);
bool kofi_vec_pageable(const struct kofi_vec *v);

#endif /* _KOFI_VEC_H */
