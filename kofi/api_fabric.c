// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: dispatch of the fabric calls.
 */
#include <linux/module.h>
#include <linux/string.h>
#include "kofi_core.h"

/**
 * fi_fabric() - open a fabric
 * @attr: fabric attributes, usually info->fabric_attr of a fi_getinfo()
 *	result; @attr->prov_name selects the provider (for "core;utility"
 *	the utility)
 * @fabric: the new fabric
 * @context: user context of the fabric
 *
 * The open fabric holds a reference on the provider's module until
 * fi_close(), so the module cannot be unloaded meanwhile.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for NULL arguments; -ENODEV if no such provider is
 * registered (or its module is going away); the provider's error.
 */
int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
	      void *context)
{
	struct kofi_provider *p;
	const char *name;
	int ret;

	if (!attr || !fabric || !attr->prov_name)
		return -EINVAL;
	name = strrchr(attr->prov_name, ';');
	name = name ? name + 1 : attr->prov_name;
	p = kofi_prov_find(name, strlen(name));
	if (!p)
		return -ENODEV;
	ret = p->fabric(attr, fabric, context);
	ret = kofi_fid_opened(NULL, ret, ret ? NULL : KOFI_FID(*fabric),
			      FI_CLASS_FABRIC);
	if (ret) {
		kofi_prov_put(p);
		return ret;
	}
	/* fi_close() of the fabric drops the module reference. */
	(*fabric)->owner = p->owner;
	if (!(*fabric)->api_version)
		(*fabric)->api_version = attr->api_version ? attr->api_version :
					 fi_version();
	return 0;
}
EXPORT_SYMBOL_GPL(fi_fabric);

/**
 * fi_domain() - open a domain of a fabric
 * @fabric: the fabric
 * @info: the info describing the domain (from fi_getinfo())
 * @domain: the new domain
 * @context: user context of the domain
 *
 * The domain holds @fabric until it is closed.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if @fabric is not a fabric or @info or @domain is
 * NULL; -EBADF if @fabric is closed; -FI_ENOSYS; the provider's error.
 */
int fi_domain(struct fid_fabric *fabric, struct fi_info *info,
	      struct fid_domain **domain, void *context)
{
	int ret;

	if (!KOFI_IS(fabric, FI_CLASS_FABRIC) || !info || !domain)
		return -EINVAL;
	if (!fabric->ops || !fabric->ops->domain)
		return -FI_ENOSYS;
	if (!kofi_fid_get(&fabric->fid))
		return -EBADF;
	ret = fabric->ops->domain(fabric, info, domain, context);
	return kofi_fid_opened(&fabric->fid, ret,
			       ret ? NULL : KOFI_FID(*domain),
			       FI_CLASS_DOMAIN);
}
EXPORT_SYMBOL_GPL(fi_domain);

/**
 * fi_passive_ep() - open a passive (listening) endpoint
 * @fabric: the fabric
 * @info: the info of the listener; src_addr is the address to listen on
 * @pep: the new passive endpoint
 * @context: user context of the passive endpoint
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL; -EBADF if @fabric is closed; -FI_ENOSYS; the
 * provider's error.
 */
int fi_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
		  struct fid_pep **pep, void *context)
{
	int ret;

	if (!KOFI_IS(fabric, FI_CLASS_FABRIC) || !info || !pep)
		return -EINVAL;
	if (!fabric->ops || !fabric->ops->passive_ep)
		return -FI_ENOSYS;
	if (!kofi_fid_get(&fabric->fid))
		return -EBADF;
	ret = fabric->ops->passive_ep(fabric, info, pep, context);
	return kofi_fid_opened(&fabric->fid, ret,
			       ret ? NULL : KOFI_FID(*pep),
			       FI_CLASS_PEP);
}
EXPORT_SYMBOL_GPL(fi_passive_ep);

/**
 * fi_eq_open() - open an event queue
 * @fabric: the fabric
 * @attr: EQ attributes (size, event_handler)
 * @eq: the new event queue
 * @context: user context of the EQ, passed to @attr->event_handler
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for bad arguments (NULL, nonzero @attr->flags, a size
 * above FI_EQ_MAX_SIZE); -EBADF if @fabric is closed; -FI_ENOSYS; -ENOMEM;
 * the provider's error.
 */
int fi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
	       struct fid_eq **eq, void *context)
{
	int ret;

	if (!KOFI_IS(fabric, FI_CLASS_FABRIC) || !attr || !eq ||
	    attr->flags)
		return -EINVAL;
	if (!fabric->ops || !fabric->ops->eq_open)
		return -FI_ENOSYS;
	if (!kofi_fid_get(&fabric->fid))
		return -EBADF;
	ret = fabric->ops->eq_open(fabric, attr, eq, context);
	return kofi_fid_opened(&fabric->fid, ret,
			       ret ? NULL : KOFI_FID(*eq),
			       FI_CLASS_EQ);
}
EXPORT_SYMBOL_GPL(fi_eq_open);
