/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kernel OpenFabrics Interface - domains and memory registration.
 *
 * A domain is one access point to a fabric (an RDMA device, the kernel's
 * TCP stack).  Memory is registered in a domain before remote peers may
 * access it (and before local use, if the provider sets FI_MR_LOCAL).
 * Registered memory is kernel memory: a kmalloc'd or vmalloc'd buffer, an
 * array of struct kvec, an array of struct bio_vec (pages) or a scatterlist.
 */
#ifndef _KOFI_FI_DOMAIN_H
#define _KOFI_FI_DOMAIN_H

#include <kofi/fabric.h>
#include <kofi/fi_av.h>
#include <kofi/fi_eq.h>

struct kvec;
struct bio_vec;
struct scatterlist;

/* MR access bits accepted by the registration calls. */
#define FI_MR_ACCESS_MASK	(FI_SEND | FI_RECV | FI_READ | FI_WRITE | \
				 FI_REMOTE_READ | FI_REMOTE_WRITE)

/**
 * struct fi_mr_attr - memory registration attributes for fi_mr_regattr()
 * @iov_type: which member of the union is valid
 * @mr_iov: FI_IOV_KVEC: @iov_count kvecs
 * @mr_bvec: FI_IOV_BVEC: @iov_count bio_vecs
 * @mr_sg: FI_IOV_SG: scatterlist of @iov_count entries
 * @iov_count: entries in the vector (at most domain_attr->mr_iov_limit)
 * @access: FI_SEND, FI_RECV, FI_READ, FI_WRITE, FI_REMOTE_READ,
 *	FI_REMOTE_WRITE
 * @offset: with FI_MR_VIRT_ADDR unset, the address remote peers use for
 *	the first byte of the region
 * @requested_key: key wanted by the user (ignored with FI_MR_PROV_KEY)
 * @context: user context of the MR (its fid's context)
 */
struct fi_mr_attr {
	enum fi_iov_type iov_type;
	union {
		const struct kvec *mr_iov;
		const struct bio_vec *mr_bvec;
		struct scatterlist *mr_sg;
	};
	size_t iov_count;
	u64 access;
	u64 offset;
	u64 requested_key;
	void *context;
};

/**
 * struct fid_mr - a registered memory region
 * @fid: object identity, class FI_CLASS_MR
 * @mem_desc: local descriptor, the desc argument of data calls
 * @key: remote key peers use in RMA operations
 */
struct fid_mr {
	struct fid fid;
	void *mem_desc;
	u64 key;
};

/**
 * struct fi_ops_mr - memory registration operations
 * @reg: see fi_mr_reg(); optional: without it the core calls @regv, or
 *	@regattr with a one-entry kvec
 * @regv: see fi_mr_regv(); optional: without it the core calls @regattr
 * @regattr: see fi_mr_regattr(); the one a provider should implement
 */
struct fi_ops_mr {
	int (*reg)(struct fid *fid, const void *buf, size_t len, u64 access,
		   u64 offset, u64 requested_key, u64 flags,
		   struct fid_mr **mr, void *context);
	int (*regv)(struct fid *fid, const struct kvec *iov, size_t count,
		    u64 access, u64 offset, u64 requested_key, u64 flags,
		    struct fid_mr **mr, void *context);
	int (*regattr)(struct fid *fid, const struct fi_mr_attr *attr,
		       u64 flags, struct fid_mr **mr);
};

/**
 * struct fi_ops_domain - domain operations
 * @cq_open: see fi_cq_open(); kofi_cq_open_generic() is the shared
 *	implementation
 * @endpoint: see fi_endpoint()
 * @av_open: see fi_av_open(); optional; kofi_av_open_generic()
 *	is the shared implementation
 * @srx_ctx: see fi_srx_context(); optional (a domain whose
 *	domain_attr->max_ep_srx_ctx is 0 has none)
 */
struct fi_ops_domain {
	int (*cq_open)(struct fid_domain *domain, struct fi_cq_attr *attr,
		       struct fid_cq **cq, void *context);
	int (*endpoint)(struct fid_domain *domain, struct fi_info *info,
			struct fid_ep **ep, void *context);
	int (*av_open)(struct fid_domain *domain, struct fi_av_attr *attr,
		       struct fid_av **av, void *context);
	int (*srx_ctx)(struct fid_domain *domain, struct fi_rx_attr *attr,
		       struct fid_ep **rx_ep, void *context);
};

/**
 * struct fid_domain - an open domain
 * @fid: object identity, class FI_CLASS_DOMAIN
 * @ops: domain operations
 * @mr: memory registration operations
 */
struct fid_domain {
	struct fid fid;
	const struct fi_ops_domain *ops;
	const struct fi_ops_mr *mr;
};

int fi_domain(struct fid_fabric *fabric, struct fi_info *info,
	      struct fid_domain **domain, void *context);
int fi_srx_context(struct fid_domain *domain, struct fi_rx_attr *attr,
		   struct fid_ep **rx_ep, void *context);
int fi_mr_reg(struct fid_domain *domain, const void *buf, size_t len,
	      u64 access, u64 offset, u64 requested_key, u64 flags,
	      struct fid_mr **mr, void *context);
int fi_mr_regv(struct fid_domain *domain, const struct kvec *iov,
	       size_t count, u64 access, u64 offset, u64 requested_key,
	       u64 flags, struct fid_mr **mr, void *context);
int fi_mr_regattr(struct fid_domain *domain, const struct fi_mr_attr *attr,
		  u64 flags, struct fid_mr **mr);
void *fi_mr_desc(struct fid_mr *mr);
u64 fi_mr_key(struct fid_mr *mr);

#endif /* _KOFI_FI_DOMAIN_H */
