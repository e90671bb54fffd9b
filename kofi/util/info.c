// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI utility providers: the link of a utility info to its core info.
 *
 * A utility's fi_getinfo() asks the core providers once; each utility info
 * it returns keeps a copy of the core info it was made from (the private
 * fi_info.util_core, copied by fi_dupinfo() and freed by fi_freeinfo()).
 * Opening an object from a utility info opens the core object from that
 * copy.  An info its user built has no link: its core info is then looked
 * up once by the names it carries (kofi_util_core_info()).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kofi/util.h>

/**
 * kofi_util_info_set_core() - make @info keep a copy of @core
 * @info: a utility info
 * @core: the core info it is made from (its @next and @handle are not
 *	kept)
 *
 * A core info @info kept before is freed.
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENOMEM (@info unchanged).
 */
int kofi_util_info_set_core(struct fi_info *info, const struct fi_info *core)
{
	struct fi_info *dup = fi_dupinfo(core, GFP_KERNEL);

	if (!dup)
		return -ENOMEM;
	dup->handle = NULL;
	fi_freeinfo(info->util_core);
	info->util_core = dup;
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_util_info_set_core);

/**
 * kofi_util_info_core() - the core info a utility info keeps
 * @info: an info
 *
 * Context: any context.
 * Return: the core info, owned by @info; NULL if @info keeps none (it is
 * not a utility's, or its user built it).
 */
const struct fi_info *kofi_util_info_core(const struct fi_info *info)
{
	return info->util_core;
}
EXPORT_SYMBOL_GPL(kofi_util_info_core);

/*
 * Name a utility info after its core's: prov_name "core;utility", the
 * utility's version, no open fabric or domain.
 */
static int kofi_util_info_name(struct fi_info *info,
			       const struct kofi_util_prov *util)
{
	struct fi_fabric_attr *fa = info->fabric_attr;
	char *name;

	name = kasprintf(GFP_KERNEL, "%s;%s", fa->prov_name ? fa->prov_name :
			 "", util->prov->name);
	if (!name)
		return -ENOMEM;
	kfree(fa->prov_name);
	fa->prov_name = name;
	fa->prov_version = util->prov->version;
	fa->fabric = NULL;
	info->domain_attr->domain = NULL;
	return 0;
}

/**
 * kofi_util_info() - a utility's info over a core info
 * @util: the utility provider
 * @core: a core provider's info
 *
 * @util->info() makes the info, which is named after @core's:
 * prov_name "core;utility" and the utility's prov_version.  It keeps a
 * copy of @core.
 *
 * Context: process context, may sleep.
 * Return: the info (handle NULL, next NULL), or NULL if out of memory.
 */
struct fi_info *kofi_util_info(const struct kofi_util_prov *util,
			       const struct fi_info *core)
{
	struct fi_info *info = util->info(core);

	if (!info)
		return NULL;
	info->handle = NULL;
	info->next = NULL;
	/* the core's shared receive contexts are not the utility's */
	info->domain_attr->max_ep_srx_ctx = 0;
	if (kofi_util_info_name(info, util) ||
	    kofi_util_info_set_core(info, core)) {
		fi_freeinfo(info);
		return NULL;
	}
	return info;
}
EXPORT_SYMBOL_GPL(kofi_util_info);

/*
 * The hints of the core query keep the user's names, addresses and
 * fabric and domain names; what the utility provides itself (endpoint,
 * transmit and receive attributes, domain sizes and models) is left for
 * the core to choose, and @util->core_hints() adds what the utility needs.
 */
static void kofi_util_hints_reset(struct fi_info *h)
{
	struct fi_domain_attr *d = h->domain_attr;

	h->handle = NULL;
	h->caps = 0;
	h->mode = 0;
	memset(h->tx_attr, 0, sizeof(*h->tx_attr));
	memset(h->rx_attr, 0, sizeof(*h->rx_attr));
	memset(h->ep_attr, 0, sizeof(*h->ep_attr));
	d->domain = NULL;
	d->threading = FI_THREAD_UNSPEC;
	d->control_progress = FI_PROGRESS_UNSPEC;
	d->data_progress = FI_PROGRESS_UNSPEC;
	d->resource_mgmt = FI_RM_UNSPEC;
	d->mr_mode = FI_MR_UNSPEC;
	d->mr_key_size = 0;
	d->cq_data_size = 0;
	d->cq_cnt = 0;
	d->ep_cnt = 0;
	d->mr_cnt = 0;
	d->mr_iov_limit = 0;
	d->max_ep_srx_ctx = 0;
	d->caps = 0;
	d->mode = 0;
	h->fabric_attr->fabric = NULL;
	h->fabric_attr->prov_version = 0;
}

/**
 * kofi_util_getinfo() - the getinfo callback of a utility provider
 * @util: the utility provider
 * @version: as passed to the callback
 * @hints: as passed to the callback
 * @flags: as passed to the callback
 * @info: on success the utility's infos
 *
 * Asks the core providers once, with @hints tailored by
 * @util->core_hints() (after the utility's own attributes were cleared
 * from them: capabilities, modes, endpoint, transmit and receive
 * attributes, the domain's models and sizes), and makes one utility info of each answer with
 * kofi_util_info().
 *
 * Context: process context, may sleep.
 * Return: 0; -ENODATA if no core provider answers; -ENOMEM.
 */
int kofi_util_getinfo(const struct kofi_util_prov *util, u32 version,
		      const struct fi_info *hints, u64 flags,
		      struct fi_info **info)
{
	struct fi_info *ch, *core, *cur, *head = NULL, **tail = &head;
	int ret;

	ch = fi_dupinfo(hints, GFP_KERNEL);
	if (!ch)
		return -ENOMEM;
	kofi_util_hints_reset(ch);
	util->core_hints(ch);
	ret = kofi_getinfo_core(version, NULL, NULL, flags, ch, util->prov,
				&core);
	fi_freeinfo(ch);
	if (ret)
		return ret;
	for (cur = core; cur; cur = cur->next) {
		*tail = kofi_util_info(util, cur);
		if (!*tail) {
			fi_freeinfo(head);
			fi_freeinfo(core);
			return -ENOMEM;
		}
		tail = &(*tail)->next;
	}
	fi_freeinfo(core);
	*info = head;
	return head ? 0 : -ENODATA;
}
EXPORT_SYMBOL_GPL(kofi_util_getinfo);

static int kofi_util_dup_addr(void **dst, size_t *dstlen, const void *src,
			      size_t len)
{
	void *d = NULL;

	if (src && len) {
		d = kmemdup(src, len, GFP_KERNEL);
		if (!d)
			return -ENOMEM;
	}
	kfree(*dst);
	*dst = d;
	*dstlen = d ? len : 0;
	return 0;
}

/* A caller-built @info: ask the core providers for what it names. */
static int kofi_util_core_lookup(const struct kofi_util_prov *util,
				 const struct fi_info *info,
				 struct fi_info **core)
{
	const struct fi_fabric_attr *fa = info->fabric_attr;
	struct fi_info *h;
	int ret;

	h = fi_allocinfo(GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	util->core_hints(h);
	h->addr_format = info->addr_format;
	ret = -ENOMEM;
	/* the user's names, not what core_hints() may have put there */
	kfree(h->fabric_attr->prov_name);
	h->fabric_attr->prov_name = kstrdup(fa->prov_name, GFP_KERNEL);
	if (!h->fabric_attr->prov_name)
		goto out;
	if (fa->name) {
		h->fabric_attr->name = kstrdup(fa->name, GFP_KERNEL);
		if (!h->fabric_attr->name)
			goto out;
	}
	if (info->domain_attr && info->domain_attr->name) {
		h->domain_attr->name = kstrdup(info->domain_attr->name,
					       GFP_KERNEL);
		if (!h->domain_attr->name)
			goto out;
	}
	if (kofi_util_dup_addr(&h->src_addr, &h->src_addrlen, info->src_addr,
			       info->src_addrlen) ||
	    kofi_util_dup_addr(&h->dest_addr, &h->dest_addrlen,
			       info->dest_addr, info->dest_addrlen))
		goto out;
	ret = kofi_getinfo_core(fa->api_version ? fa->api_version :
				fi_version(), NULL, NULL, 0, h, util->prov,
				core);
	if (!ret) {
		fi_freeinfo((*core)->next);
		(*core)->next = NULL;
	}
out:
	fi_freeinfo(h);
	return ret;
}

/**
 * kofi_util_core_info() - the core info to open a utility object's core
 *	object with
 * @util: the utility provider
 * @info: the info the utility object is opened with
 * @core: on success a core info of the caller's, to be freed with
 *	fi_freeinfo(); its handle is NULL
 *
 * The core info @info keeps (kofi_util_info_core()) if it keeps one: no
 * core query.  An info its user built keeps none; then the core providers
 * are asked once for the fabric, domain and "core;utility" provider names
 * and the addresses of @info.  Either way the core info takes the
 * addresses (and their format) of @info, which its user may have set.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if @info keeps no core info and has no "core;utility"
 * prov_name; -ENODATA if the named core is not there; -ENOMEM.
 */
int kofi_util_core_info(const struct kofi_util_prov *util,
			const struct fi_info *info, struct fi_info **core)
{
	const struct fi_fabric_attr *fa = info->fabric_attr;
	struct fi_info *c;
	int ret;

	*core = NULL;
	if (info->util_core) {
		c = fi_dupinfo(info->util_core, GFP_KERNEL);
		if (!c)
			return -ENOMEM;
		c->handle = NULL;
	} else {
		if (!fa || !fa->prov_name || !strchr(fa->prov_name, ';'))
			return -EINVAL;
		ret = kofi_util_core_lookup(util, info, &c);
		if (ret)
			return ret;
	}
	c->addr_format = info->addr_format;
	if (kofi_util_dup_addr(&c->src_addr, &c->src_addrlen, info->src_addr,
			       info->src_addrlen) ||
	    kofi_util_dup_addr(&c->dest_addr, &c->dest_addrlen,
			       info->dest_addr, info->dest_addrlen)) {
		fi_freeinfo(c);
		return -ENOMEM;
	}
	*core = c;
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_util_core_info);
