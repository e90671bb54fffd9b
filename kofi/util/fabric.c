// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI utility providers: the fabric and domain objects, which own the
 * core provider's.
 *
 * fi_fabric() only receives a fabric_attr.  Its prov_name, "core;utility"
 * as in the utility's infos, names the core provider as libfabric's does:
 * the utility fabric opens the core fabric of the same name from the
 * core's part of prov_name, without a core query.  A domain opens its core
 * domain from the core info its info keeps (kofi_util_core_info()).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kofi/util.h>

/**
 * kofi_util_fabric_init() - open a utility fabric's core fabric
 * @fab: the utility fabric (zeroed, embedded in the utility's own)
 * @util: the utility provider
 * @attr: the attributes passed to the utility's fabric callback; its
 *	prov_name is "core;utility"
 * @ops: the fabric's fi_ops (its close calls kofi_util_fabric_close())
 * @fops: the fabric's operations
 * @context: user context
 *
 * Opens the core fabric named by the fabric name of @attr and the core
 * part of its prov_name, and initialises @fab->fabric.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if prov_name names no core provider; -ENOMEM; the
 * error of fi_fabric() for the core (-ENODEV if it is not registered).
 */
int kofi_util_fabric_init(struct kofi_util_fabric *fab,
			  const struct kofi_util_prov *util,
			  struct fi_fabric_attr *attr, const struct fi_ops *ops,
			  const struct fi_ops_fabric *fops, void *context)
{
	struct fi_fabric_attr core_attr = *attr;
	const char *semi;
	int ret;

	semi = attr->prov_name ? strrchr(attr->prov_name, ';') : NULL;
	if (!semi || semi == attr->prov_name)
		return -EINVAL;
	core_attr.fabric = NULL;
	core_attr.prov_version = 0;
	core_attr.prov_name = kstrndup(attr->prov_name,
				       semi - attr->prov_name, GFP_KERNEL);
	if (!core_attr.prov_name)
		return -ENOMEM;
	ret = fi_fabric(&core_attr, &fab->core, NULL);
	kfree(core_attr.prov_name);
	if (ret)
		return ret;
	fab->util = util;
	kofi_fid_init(&fab->fabric.fid, FI_CLASS_FABRIC, ops, context);
	fab->fabric.ops = fops;
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_util_fabric_init);

/**
 * kofi_util_fabric_close() - close a utility fabric's core fabric
 * @fab: the utility fabric; the caller frees it after success
 *
 * Context: process context, may sleep.
 * Return: 0, or the core's error (@fab stays open).
 */
int kofi_util_fabric_close(struct kofi_util_fabric *fab)
{
	return fi_close(&fab->core->fid);
}
EXPORT_SYMBOL_GPL(kofi_util_fabric_close);

/**
 * kofi_util_domain_init() - open a utility domain's core domain
 * @dom: the utility domain (zeroed, embedded in the utility's own)
 * @fabric: the utility fabric, a struct kofi_util_fabric
 * @info: the info passed to the utility's domain callback
 * @ops: the domain's fi_ops (its close calls kofi_util_domain_close())
 * @dops: the domain's operations
 * @context: user context
 *
 * Opens the core domain from the core info of @info (kept, or looked up
 * for an info its user built: kofi_util_core_info()), keeps the core
 * domain's attributes in @dom->core_attr and its address format in
 * @dom->addr_format, and initialises @dom->domain.
 *
 * Context: process context, may sleep.
 * Return: 0; the error of kofi_util_core_info(); the core's error.
 */
int kofi_util_domain_init(struct kofi_util_domain *dom,
			  struct fid_fabric *fabric, struct fi_info *info,
			  const struct fi_ops *ops,
			  const struct fi_ops_domain *dops, void *context)
{
	struct kofi_util_fabric *fab = container_of(fabric,
						    struct kofi_util_fabric,
						    fabric);
	struct fi_info *core;
	int ret;

	ret = kofi_util_core_info(fab->util, info, &core);
	if (ret)
		return ret;
	ret = fi_domain(fab->core, core, &dom->core, NULL);
	if (!ret) {
		dom->fab = fab;
		dom->core_attr = *core->domain_attr;
		dom->core_attr.name = NULL;
		dom->core_attr.domain = NULL;
		dom->addr_format = core->addr_format == FI_FORMAT_UNSPEC ?
				   FI_SOCKADDR_IN : core->addr_format;
		kofi_fid_init(&dom->domain.fid, FI_CLASS_DOMAIN, ops, context);
		dom->domain.ops = dops;
	}
	fi_freeinfo(core);
	return ret;
}
EXPORT_SYMBOL_GPL(kofi_util_domain_init);

/**
 * kofi_util_domain_close() - close a utility domain's core domain
 * @dom: the utility domain; the caller frees it after success
 *
 * Context: process context, may sleep.
 * Return: 0, or the core's error (@dom stays open).
 */
int kofi_util_domain_close(struct kofi_util_domain *dom)
{
	return fi_close(&dom->core->fid);
}
EXPORT_SYMBOL_GPL(kofi_util_domain_close);

static int kofi_util_fabric_fi_close(struct fid *fid)
{
	struct kofi_util_fabric *fab = container_of(fid,
						    struct kofi_util_fabric,
						    fabric.fid);
	int ret = kofi_util_fabric_close(fab);

	if (!ret)
		kfree(fab);
	return ret;
}

static const struct fi_ops kofi_util_fabric_fi_ops = {
	.close = kofi_util_fabric_fi_close,
};

/**
 * kofi_util_fabric_open() - a utility fabric with nothing of its own
 * @util: the utility provider
 * @attr: the attributes passed to the utility's fabric callback
 * @fops: the fabric's operations
 * @fabric: the new fabric, a struct kofi_util_fabric
 * @context: user context
 *
 * kofi_util_fabric_init() of an allocated struct kofi_util_fabric, which
 * fi_close() closes and frees.
 *
 * Context: process context, may sleep.
 * Return: 0; -ENOMEM; the error of kofi_util_fabric_init().
 */
int kofi_util_fabric_open(const struct kofi_util_prov *util,
			  struct fi_fabric_attr *attr,
			  const struct fi_ops_fabric *fops,
			  struct fid_fabric **fabric, void *context)
{
	struct kofi_util_fabric *fab = kzalloc(sizeof(*fab), GFP_KERNEL);
	int ret;

	if (!fab)
		return -ENOMEM;
	ret = kofi_util_fabric_init(fab, util, attr, &kofi_util_fabric_fi_ops,
				    fops, context);
	if (ret) {
		kfree(fab);
		return ret;
	}
	*fabric = &fab->fabric;
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_util_fabric_open);

static int kofi_util_domain_fi_close(struct fid *fid)
{
	struct kofi_util_domain *dom = container_of(fid,
						    struct kofi_util_domain,
						    domain.fid);
	int ret = kofi_util_domain_close(dom);

	if (!ret)
		kfree(dom);
	return ret;
}

static const struct fi_ops kofi_util_domain_fi_ops = {
	.close = kofi_util_domain_fi_close,
};

/**
 * kofi_util_domain_open() - a utility domain with nothing of its own
 * @fabric: the utility fabric, a struct kofi_util_fabric
 * @info: the info passed to the utility's domain callback
 * @dops: the domain's operations
 * @domain: the new domain, a struct kofi_util_domain
 * @context: user context
 *
 * kofi_util_domain_init() of an allocated struct kofi_util_domain, which
 * fi_close() closes and frees.
 *
 * Context: process context, may sleep.
 * Return: 0; -ENOMEM; the error of kofi_util_domain_init().
 */
int kofi_util_domain_open(struct fid_fabric *fabric, struct fi_info *info,
			  const struct fi_ops_domain *dops,
			  struct fid_domain **domain, void *context)
{
	struct kofi_util_domain *dom = kzalloc(sizeof(*dom), GFP_KERNEL);
	int ret;

	if (!dom)
		return -ENOMEM;
	ret = kofi_util_domain_init(dom, fabric, info,
				    &kofi_util_domain_fi_ops, dops, context);
	if (ret) {
		kfree(dom);
		return ret;
	}
	*domain = &dom->domain;
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_util_domain_open);
