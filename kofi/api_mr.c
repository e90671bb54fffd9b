// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: dispatch of the memory registration calls.
 *
 * A provider may implement only regattr: fi_mr_reg() and fi_mr_regv() are
 * turned into a struct fi_mr_attr for it when it leaves reg or regv out.
 */
#include <linux/module.h>
#include <linux/uio.h>
#include "kofi_core.h"

static int kofi_mr_check(struct fid_domain *domain, u64 access,
			 struct fid_mr **mr)
{
	if (!KOFI_IS(domain, FI_CLASS_DOMAIN) || !mr ||
	    (access & ~FI_MR_ACCESS_MASK))
		return -EINVAL;
	if (!domain->mr)
		return -FI_ENOSYS;
	if (!kofi_fid_get(&domain->fid))
		return -EBADF;
	return 0;
}

/*
 * Register a kvec array through the provider's regv, or through its
 * regattr when it has no regv: a provider need only implement regattr.
 */
static int kofi_mr_kvec(struct fid_domain *domain, const struct kvec *iov,
			size_t count, u64 access, u64 offset,
			u64 requested_key, u64 flags, struct fid_mr **mr,
			void *context)
{
	struct fi_mr_attr attr = {
		.iov_type = FI_IOV_KVEC,
		.mr_iov = iov,
		.iov_count = count,
		.access = access,
		.offset = offset,
		.requested_key = requested_key,
		.context = context,
	};

	if (domain->mr->regv)
		return domain->mr->regv(&domain->fid, iov, count, access,
					offset, requested_key, flags, mr,
					context);
	if (!domain->mr->regattr)
		return -FI_ENOSYS;
	return domain->mr->regattr(&domain->fid, &attr, flags, mr);
}

/**
 * fi_mr_reg() - register a contiguous kernel buffer
 * @domain: the domain
 * @buf: kmalloc'd or vmalloc'd memory (not stack or user memory)
 * @len: bytes, > 0
 * @access: FI_SEND, FI_RECV, FI_READ, FI_WRITE, FI_REMOTE_READ,
 *	FI_REMOTE_WRITE
 * @offset: remote address of @buf without FI_MR_VIRT_ADDR
 * @requested_key: key wanted, ignored with FI_MR_PROV_KEY
 * @flags: reserved, passed to the provider
 * @mr: the new memory region
 * @context: user context of the region
 *
 * The buffer must stay allocated until the MR is closed.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL (NULL @buf or @mr, @len 0, unknown @access bits, not
 * a domain); -EBADF if @domain is closed; -FI_ENOSYS; -EEXIST if
 * @requested_key is in use; -ENOMEM; the provider's error.
 */
int fi_mr_reg(struct fid_domain *domain, const void *buf, size_t len,
	      u64 access, u64 offset, u64 requested_key, u64 flags,
	      struct fid_mr **mr, void *context)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	int ret;

	if (!buf || !len)
		return -EINVAL;
	ret = kofi_mr_check(domain, access, mr);
	if (ret)
		return ret;
	if (domain->mr->reg)
		ret = domain->mr->reg(&domain->fid, buf, len, access, offset,
				      requested_key, flags, mr, context);
	else
		ret = kofi_mr_kvec(domain, &iov, 1, access, offset,
				   requested_key, flags, mr, context);
	return kofi_fid_opened(&domain->fid, ret,
			       ret ? NULL : KOFI_FID(*mr), FI_CLASS_MR);
}
EXPORT_SYMBOL_GPL(fi_mr_reg);

/**
 * fi_mr_regv() - register a vector of kernel buffers as one region
 * @domain: the domain
 * @iov: @count kvecs (kmalloc'd or vmalloc'd memory)
 * @count: entries, 1..domain_attr->mr_iov_limit
 * @access: as for fi_mr_reg()
 * @offset: as for fi_mr_reg()
 * @requested_key: as for fi_mr_reg()
 * @flags: as for fi_mr_reg()
 * @mr: the new memory region
 * @context: user context of the region
 *
 * Context: process context, may sleep.
 * Return: as for fi_mr_reg(); -EINVAL also for a NULL @iov or @count 0.
 */
int fi_mr_regv(struct fid_domain *domain, const struct kvec *iov,
	       size_t count, u64 access, u64 offset, u64 requested_key,
	       u64 flags, struct fid_mr **mr, void *context)
{
	int ret;

	if (!iov || !count)
		return -EINVAL;
	ret = kofi_mr_check(domain, access, mr);
	if (ret)
		return ret;
	ret = kofi_mr_kvec(domain, iov, count, access, offset, requested_key,
			   flags, mr, context);
	return kofi_fid_opened(&domain->fid, ret,
			       ret ? NULL : KOFI_FID(*mr), FI_CLASS_MR);
}
EXPORT_SYMBOL_GPL(fi_mr_regv);

/**
 * fi_mr_regattr() - register kvec, bio_vec (pages) or scatterlist memory
 * @domain: the domain
 * @attr: the region: iov_type, vector, access, offset, key, context
 * @flags: as for fi_mr_reg()
 * @mr: the new memory region
 *
 * Context: process context, may sleep.
 * Return: as for fi_mr_reg(); -EINVAL also for a NULL @attr, an unknown
 * iov_type, a NULL vector or iov_count 0.
 */
int fi_mr_regattr(struct fid_domain *domain, const struct fi_mr_attr *attr,
		  u64 flags, struct fid_mr **mr)
{
	int ret;

	if (!attr || attr->iov_type > FI_IOV_SG || !attr->mr_iov ||
	    !attr->iov_count)
		return -EINVAL;
	ret = kofi_mr_check(domain, attr->access, mr);
	if (ret)
		return ret;
	if (!domain->mr->regattr) {
		kofi_fid_put(&domain->fid);
		return -FI_ENOSYS;
	}
	ret = domain->mr->regattr(&domain->fid, attr, flags, mr);
	return kofi_fid_opened(&domain->fid, ret,
			       ret ? NULL : KOFI_FID(*mr), FI_CLASS_MR);
}
EXPORT_SYMBOL_GPL(fi_mr_regattr);

/**
 * fi_mr_desc() - local descriptor of a memory region
 * @mr: the region
 *
 * Context: any context.
 * Return: the descriptor to pass as desc to data calls, NULL if @mr is not
 * a memory region.
 */
void *fi_mr_desc(struct fid_mr *mr)
{
	return KOFI_IS(mr, FI_CLASS_MR) ? mr->mem_desc : NULL;
}
EXPORT_SYMBOL_GPL(fi_mr_desc);

/**
 * fi_mr_key() - remote key of a memory region
 * @mr: the region
 *
 * Context: any context.
 * Return: the key peers use in RMA operations, FI_KEY_NOTAVAIL if @mr is
 * not a memory region.
 */
u64 fi_mr_key(struct fid_mr *mr)
{
	return KOFI_IS(mr, FI_CLASS_MR) ? mr->key : FI_KEY_NOTAVAIL;
}
EXPORT_SYMBOL_GPL(fi_mr_key);
