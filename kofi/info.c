// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: allocation, deep copy and release of struct fi_info.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "kofi_core.h"

static void kofi_info_free_one(struct fi_info *info)
{
	kfree(info->src_addr);
	kfree(info->dest_addr);
	kfree(info->tx_attr);
	kfree(info->rx_attr);
	kfree(info->ep_attr);
	if (info->domain_attr)
		kfree(info->domain_attr->name);
	kfree(info->domain_attr);
	if (info->fabric_attr) {
		kfree(info->fabric_attr->name);
		kfree(info->fabric_attr->prov_name);
	}
	kfree(info->fabric_attr);
	fi_freeinfo(info->util_core);
	kfree(info);
}

/**
 * fi_freeinfo() - free a list of infos
 * @info: first entry, or NULL
 *
 * Frees every entry of the list with its addresses, attribute blocks,
 * names and the core info a utility info keeps.  The objects an info points
 * to (fi_info.handle, domain_attr.domain, fabric_attr.fabric) are not
 * closed.
 *
 * Context: any context.
 */
void fi_freeinfo(struct fi_info *info)
{
	struct fi_info *next;

	while (info) {
		next = info->next;
		kofi_info_free_one(info);
		info = next;
	}
}
EXPORT_SYMBOL_GPL(fi_freeinfo);

/**
 * fi_allocinfo() - allocate an empty info with every attribute block
 * @gfp: allocation flags
 *
 * Context: any context allowed by @gfp.
 * Return: the info, zeroed, with tx_attr, rx_attr, ep_attr, domain_attr
 * and fabric_attr allocated; NULL if out of memory.
 */
struct fi_info *fi_allocinfo(gfp_t gfp)
{
	struct fi_info *info;

	info = kzalloc(sizeof(*info), gfp);
	if (!info)
		return NULL;
	info->tx_attr = kzalloc(sizeof(*info->tx_attr), gfp);
	info->rx_attr = kzalloc(sizeof(*info->rx_attr), gfp);
	info->ep_attr = kzalloc(sizeof(*info->ep_attr), gfp);
	info->domain_attr = kzalloc(sizeof(*info->domain_attr), gfp);
	info->fabric_attr = kzalloc(sizeof(*info->fabric_attr), gfp);
	if (!info->tx_attr || !info->rx_attr || !info->ep_attr ||
	    !info->domain_attr || !info->fabric_attr) {
		kofi_info_free_one(info);
		return NULL;
	}
	return info;
}
EXPORT_SYMBOL_GPL(fi_allocinfo);

static int kofi_dup_mem(void **dst, const void *src, size_t len, gfp_t gfp)
{
	*dst = NULL;
	if (!src || !len)
		return 0;
	*dst = kmemdup(src, len, gfp);
	return *dst ? 0 : -ENOMEM;
}

static int kofi_dup_str(char **dst, const char *src, gfp_t gfp)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = kstrdup(src, gfp);
	return *dst ? 0 : -ENOMEM;
}

/**
 * fi_dupinfo() - deep copy of one info
 * @info: the info to copy (its @next is not followed), or NULL
 * @gfp: allocation flags
 *
 * Addresses, attribute blocks, names and the core info kept by a utility
 * provider's info are copied; an attribute block
 * that is NULL in @info is NULL in the copy.  @handle and the object
 * pointers in the attributes are copied as pointers.  The copy's @next is
 * NULL.  fi_dupinfo(NULL) is fi_allocinfo().
 *
 * Context: any context allowed by @gfp.
 * Return: the copy, to be freed with fi_freeinfo(), or NULL if out of
 * memory.
 */
struct fi_info *fi_dupinfo(const struct fi_info *info, gfp_t gfp)
{
	struct fi_info *dup;
	int ret = 0;

	if (!info)
		return fi_allocinfo(gfp);
	dup = kmemdup(info, sizeof(*info), gfp);
	if (!dup)
		return NULL;
	dup->next = NULL;

	ret |= kofi_dup_mem(&dup->src_addr, info->src_addr,
			    info->src_addrlen, gfp);
	ret |= kofi_dup_mem(&dup->dest_addr, info->dest_addr,
			    info->dest_addrlen, gfp);
	ret |= kofi_dup_mem((void **)&dup->tx_attr, info->tx_attr,
			    sizeof(*info->tx_attr), gfp);
	ret |= kofi_dup_mem((void **)&dup->rx_attr, info->rx_attr,
			    sizeof(*info->rx_attr), gfp);
	ret |= kofi_dup_mem((void **)&dup->ep_attr, info->ep_attr,
			    sizeof(*info->ep_attr), gfp);
	ret |= kofi_dup_mem((void **)&dup->domain_attr, info->domain_attr,
			    sizeof(*info->domain_attr), gfp);
	ret |= kofi_dup_mem((void **)&dup->fabric_attr, info->fabric_attr,
			    sizeof(*info->fabric_attr), gfp);
	/* The strings must never be shared with @info, even on failure. */
	if (dup->domain_attr)
		ret |= kofi_dup_str(&dup->domain_attr->name,
				    info->domain_attr->name, gfp);
	if (dup->fabric_attr) {
		ret |= kofi_dup_str(&dup->fabric_attr->name,
				    info->fabric_attr->name, gfp);
		ret |= kofi_dup_str(&dup->fabric_attr->prov_name,
				    info->fabric_attr->prov_name, gfp);
	}
	/* A utility info's core info (<kofi/util.h>) is copied too. */
	dup->util_core = NULL;
	if (info->util_core) {
		dup->util_core = fi_dupinfo(info->util_core, gfp);
		if (!dup->util_core)
			ret = -ENOMEM;
	}
	if (!dup->src_addr)
		dup->src_addrlen = 0;
	if (!dup->dest_addr)
		dup->dest_addrlen = 0;
	if (ret) {
		kofi_info_free_one(dup);
		return NULL;
	}
	return dup;
}
EXPORT_SYMBOL_GPL(fi_dupinfo);
