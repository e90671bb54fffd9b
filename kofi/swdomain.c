// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: the domain of a software RMA provider.
 *
 * ksocket and rds move RMA data with the CPU: their domain is a key table
 * for the regions registered in it (kofi_sw_mr_reg()), the fabric it was
 * opened on, and the address format of its address vectors, which are
 * kOFI's own (kofi_av_open_generic()).  The provider embeds a struct
 * kofi_sw_domain, gives it its fi_ops (close) and fi_ops_domain
 * (endpoints, CQs), and takes memory registration and address vectors
 * from here.
 */
#include <linux/module.h>
#include "kofi_core.h"

static int kofi_sw_domain_regattr(struct fid *fid,
				  const struct fi_mr_attr *attr, u64 flags,
				  struct fid_mr **fmr)
{
	struct kofi_sw_domain *dom = container_of(fid, struct kofi_sw_domain,
						  domain.fid);

	return kofi_sw_mr_reg(&dom->kt, attr, flags, fmr);
}

static const struct fi_ops_mr kofi_sw_domain_mr_ops = {
	.regattr = kofi_sw_domain_regattr,
};

/**
 * kofi_sw_domain_init() - set up the domain of a software RMA provider
 * @dom: the domain, zeroed, embedded in the provider's own
 * @fabric: the fabric it is opened on
 * @info: the info it is opened with: FI_SOCKADDR_IN6 makes its address
 *	vectors IPv6, any other format IPv4
 * @fi_ops: its fi_ops; close calls kofi_sw_domain_fini()
 * @ops: its fi_ops_domain; av_open may be kofi_sw_domain_av_open()
 * @context: the user's context
 *
 * Memory registration is kofi_sw_mr_reg() on the domain's key table.
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int kofi_sw_domain_init(struct kofi_sw_domain *dom, struct fid_fabric *fabric,
			const struct fi_info *info, const struct fi_ops *fi_ops,
			const struct fi_ops_domain *ops, void *context)
{
	int ret;

	ret = kofi_keytable_init(&dom->kt, 8);
	if (ret)
		return ret;
	dom->fabric = fabric;
	dom->addr_format = info->addr_format == FI_SOCKADDR_IN6 ?
			   FI_SOCKADDR_IN6 : FI_SOCKADDR_IN;
	kofi_fid_init(&dom->domain.fid, FI_CLASS_DOMAIN, fi_ops, context);
	dom->domain.ops = ops;
	dom->domain.mr = &kofi_sw_domain_mr_ops;
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_sw_domain_init);

/**
 * kofi_sw_domain_fini() - tear down what kofi_sw_domain_init() set up
 * @dom: the domain, its regions closed (the core closes them first)
 *
 * Context: process context.
 */
void kofi_sw_domain_fini(struct kofi_sw_domain *dom)
{
	kofi_keytable_destroy(&dom->kt);
}
EXPORT_SYMBOL_GPL(kofi_sw_domain_fini);

/**
 * kofi_sw_domain_av_open() - fi_av_open() of a software RMA provider
 * @domain: &kofi_sw_domain.domain
 * @attr: AV attributes, as for kofi_av_open_generic()
 * @av: the new AV, of the domain's address format
 * @context: user context
 *
 * Context: process context, may sleep.
 * Return: as kofi_av_open_generic().
 */
int kofi_sw_domain_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
			   struct fid_av **av, void *context)
{
	struct kofi_sw_domain *dom = container_of(domain, struct kofi_sw_domain,
						  domain);

	return kofi_av_open_generic(domain, attr, dom->addr_format, av,
				    context);
}
EXPORT_SYMBOL_GPL(kofi_sw_domain_av_open);
