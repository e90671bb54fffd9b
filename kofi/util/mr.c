// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI utility providers: memory registration passed through to the core.
 *
 * A utility whose endpoints hand RMA to the core's endpoints (rxm on an
 * FI_EP_RDM endpoint, as libfabric's rxm does) registers its users'
 * memory in the core domain: the key and descriptor a user gets are the
 * core's, which the core endpoints and their peers take as they are.  The
 * utility's region is a small object owning the core's, so that it is a
 * child of the utility domain (which cannot be closed while it is open)
 * and the core's region a child of the core domain.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <kofi/util.h>

/**
 * struct kofi_util_mr - a utility memory region
 * @mr: the kOFI object; its key and descriptor are the core's
 * @core: the core region it owns
 */
struct kofi_util_mr {
	struct fid_mr mr;
	struct fid_mr *core;
};

static int kofi_util_mr_close(struct fid *fid)
{
	struct kofi_util_mr *m = container_of(fid, struct kofi_util_mr,
					      mr.fid);
	int ret = fi_close(&m->core->fid);

	if (!ret)
		kfree(m);
	return ret;
}

static const struct fi_ops kofi_util_mr_fi_ops = {
	.close = kofi_util_mr_close,
};

static int kofi_util_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
				u64 flags, struct fid_mr **mr)
{
	struct kofi_util_domain *dom = container_of(fid,
						    struct kofi_util_domain,
						    domain.fid);
	struct fi_mr_attr core_attr = *attr;
	struct kofi_util_mr *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	core_attr.context = m;
	ret = fi_mr_regattr(dom->core, &core_attr, flags, &m->core);
	if (ret) {
		kfree(m);
		return ret;
	}
	kofi_fid_init(&m->mr.fid, FI_CLASS_MR, &kofi_util_mr_fi_ops,
		      attr->context);
	m->mr.mem_desc = m->core->mem_desc;
	m->mr.key = m->core->key;
	*mr = &m->mr;
	return 0;
}

static const struct fi_ops_mr kofi_util_mr_ops = {
	.regattr = kofi_util_mr_regattr,
};

/**
 * kofi_util_domain_mr() - register memory of a utility domain in its core
 *	domain
 * @dom: the utility domain, open
 *
 * For a utility whose endpoints pass RMA through to the core's (only over
 * a core with FI_RMA).  fi_mr_reg(), fi_mr_regv() and fi_mr_regattr() on
 * the utility domain then register the memory in the core domain, with
 * the caller's access, offset, requested key and flags; fi_mr_key() and
 * fi_mr_desc() of the region are the core's, and its fi_close() closes the
 * core's region.  The utility domain cannot be closed while a region is
 * open (-EBUSY).
 *
 * Context: process context, before the domain is returned to its user.
 */
void kofi_util_domain_mr(struct kofi_util_domain *dom)
{
	dom->domain.mr = &kofi_util_mr_ops;
}
EXPORT_SYMBOL_GPL(kofi_util_domain_mr);
