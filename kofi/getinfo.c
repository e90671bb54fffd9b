// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: fi_getinfo() - asking the providers, filtering by hints.
 *
 * Matching rules (applied by the core to every info a provider returns,
 * so providers may return more than matches):
 *
 * - caps: every bit of hints->caps must be in info->caps (likewise for the
 *   tx/rx attr caps).
 * - mode: every mode bit the info requires must be in hints->mode (tx/rx
 *   attr mode: hints tx/rx mode, or hints->mode if that is 0).  Without
 *   hints every mode is accepted.
 * - ep_attr->type: equal, unless hints say FI_EP_UNSPEC.
 * - domain_attr->mr_mode: with hints mr_mode FI_MR_UNSPEC (0) anything
 *   matches; otherwise every bit the info requires must be in hints mr_mode
 *   (the user declares what it is prepared to honour).
 * - addr_format: equal, FI_SOCKADDR accepting IPv4 and IPv6, unless
 *   hints say FI_FORMAT_UNSPEC.  A node/service address also constrains the
 *   format: an IPv6 node never matches an FI_SOCKADDR_IN info.
 * - sizes and limits asked for in hints (max_msg_size, tx/rx size,
 *   iov_limit, inject_size, mr_key_size, cq_data_size, max_cm_data_size)
 *   must not exceed the info's.  Names (domain, fabric) must be equal.
 * - fabric_attr->prov_name: a comma-separated list; an entry "name"
 *   matches the core provider "name" and, when "name" is a utility, every
 *   "core;name" layering; an entry "core;util" matches exactly that
 *   layering.  A list starting with '^' excludes instead: an info is dropped
 *   if any of its provider names is listed.  Names compare case-insensitively.
 *
 * Order: providers by priority (KOFI_PRIO_HW_RDMA, KOFI_PRIO_UTIL,
 * KOFI_PRIO_SOFTWARE, KOFI_PRIO_TEST), then in registration order; within a
 * provider in the order it returned them.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "kofi_core.h"

static bool kofi_name_eq(const char *a, size_t alen, const char *b,
			 size_t blen)
{
	return alen == blen && !strncasecmp(a, b, alen);
}

/* Does the list entry [item, item + ilen) select provider name @name? */
static bool kofi_item_selects(const char *item, size_t ilen,
			      const char *name)
{
	const char *util;

	if (kofi_name_eq(item, ilen, name, strlen(name)))
		return true;
	if (memchr(item, ';', ilen))
		return false;
	util = strrchr(name, ';');
	return util && kofi_name_eq(item, ilen, util + 1, strlen(util + 1));
}

/* Does the exclusion entry [item, item + ilen) exclude @name? */
static bool kofi_item_excludes(const char *item, size_t ilen,
			       const char *name)
{
	const char *p = name, *e;

	if (kofi_name_eq(item, ilen, name, strlen(name)))
		return true;
	for (;;) {
		e = strchrnul(p, ';');
		if (kofi_name_eq(item, ilen, p, e - p))
			return true;
		if (!*e)
			return false;
		p = e + 1;
	}
}

/**
 * kofi_prov_name_match() - does provider name @name satisfy @spec?
 * @spec: the hints' prov_name, e.g. "ib_verbs", "ksocket;kstream",
 *	"kstream,ksocket" or "^ksocket"; NULL or "" matches everything
 * @name: an info's prov_name ("core" or "core;utility")
 *
 * Context: any context.
 * Return: true if @name is selected.
 */
bool kofi_prov_name_match(const char *spec, const char *name)
{
	bool exclude = false, hit = false;
	const char *p, *e;

	if (!spec || !*spec)
		return true;
	if (!name)
		return false;
	if (*spec == '^') {
		exclude = true;
		spec++;
	}
	for (p = spec; !hit; p = e + 1) {
		e = strchrnul(p, ',');
		if (e > p)
			hit = exclude ? kofi_item_excludes(p, e - p, name) :
					kofi_item_selects(p, e - p, name);
		if (!*e)
			break;
	}
	return exclude ? !hit : hit;
}

static bool kofi_too_big(size_t want, size_t have)
{
	return want && want > have;
}

static bool kofi_mode_ok(u64 required, u64 accepted)
{
	return !(required & ~accepted);
}

static bool kofi_str_ok(const char *want, const char *have)
{
	return !want || (have && !strcasecmp(want, have));
}

static bool kofi_tx_match(const struct fi_tx_attr *i,
			  const struct fi_tx_attr *h, u64 mode)
{
	return (i->caps & h->caps) == h->caps &&
	       kofi_mode_ok(i->mode, h->mode ? h->mode : mode) &&
	       !kofi_too_big(h->size, i->size) &&
	       !kofi_too_big(h->iov_limit, i->iov_limit) &&
	       !kofi_too_big(h->rma_iov_limit, i->rma_iov_limit) &&
	       !kofi_too_big(h->inject_size, i->inject_size);
}

static bool kofi_rx_match(const struct fi_rx_attr *i,
			  const struct fi_rx_attr *h, u64 mode)
{
	return (i->caps & h->caps) == h->caps &&
	       kofi_mode_ok(i->mode, h->mode ? h->mode : mode) &&
	       !kofi_too_big(h->size, i->size) &&
	       !kofi_too_big(h->iov_limit, i->iov_limit);
}

static bool kofi_ep_match(const struct fi_ep_attr *i,
			  const struct fi_ep_attr *h)
{
	return (h->type == FI_EP_UNSPEC || h->type == i->type) &&
	       (!h->protocol || h->protocol == i->protocol) &&
	       !kofi_too_big(h->max_msg_size, i->max_msg_size) &&
	       !kofi_too_big(h->max_cm_data_size, i->max_cm_data_size);
}

static bool kofi_progress_ok(enum fi_progress want, enum fi_progress have)
{
	return want != FI_PROGRESS_AUTO || have == FI_PROGRESS_AUTO;
}

static bool kofi_domain_match(const struct fi_domain_attr *i,
			      const struct fi_domain_attr *h)
{
	return kofi_str_ok(h->name, i->name) &&
	       (h->mr_mode == FI_MR_UNSPEC ||
		!(i->mr_mode & ~h->mr_mode)) &&
	       (h->threading != FI_THREAD_SAFE ||
		i->threading == FI_THREAD_SAFE) &&
	       kofi_progress_ok(h->control_progress, i->control_progress) &&
	       kofi_progress_ok(h->data_progress, i->data_progress) &&
	       (i->caps & h->caps) == h->caps &&
	       !kofi_too_big(h->mr_key_size, i->mr_key_size) &&
	       !kofi_too_big(h->cq_data_size, i->cq_data_size) &&
	       !kofi_too_big(h->mr_iov_limit, i->mr_iov_limit) &&
	       !kofi_too_big(h->max_ep_srx_ctx, i->max_ep_srx_ctx);
}

/**
 * kofi_info_match() - does @info satisfy @hints?
 * @info: a complete info (every attribute block present)
 * @hints: the hints, or NULL
 * @self: for a utility provider's core query, the utility's name: the
 *	prov_name rule is then applied to "core;self"
 *
 * Context: any context.
 * Return: true if @info matches.
 */
bool kofi_info_match(const struct fi_info *info, const struct fi_info *hints,
		     const char *self)
{
	char layered[2 * KOFI_PROV_NAME_MAX + 2];
	const char *name;

	if (!hints)
		return true;
	if ((info->caps & hints->caps) != hints->caps ||
	    !kofi_mode_ok(info->mode, hints->mode) ||
	    !kofi_addr_format_ok(hints->addr_format, info->addr_format))
		return false;
	if (hints->tx_attr &&
	    !kofi_tx_match(info->tx_attr, hints->tx_attr, hints->mode))
		return false;
	if (hints->rx_attr &&
	    !kofi_rx_match(info->rx_attr, hints->rx_attr, hints->mode))
		return false;
	if (hints->ep_attr && !kofi_ep_match(info->ep_attr, hints->ep_attr))
		return false;
	if (hints->domain_attr &&
	    !kofi_domain_match(info->domain_attr, hints->domain_attr))
		return false;
	if (!hints->fabric_attr)
		return true;
	if (!kofi_str_ok(hints->fabric_attr->name, info->fabric_attr->name))
		return false;
	name = info->fabric_attr->prov_name;
	if (self) {
		snprintf(layered, sizeof(layered), "%s;%s", name, self);
		name = layered;
	}
	return kofi_prov_name_match(hints->fabric_attr->prov_name, name);
}

static int kofi_dup_addr(void **dst, size_t *dstlen, const void *src,
			 size_t len)
{
	if (*dst || !src || !len)
		return 0;
	*dst = kmemdup(src, len, GFP_KERNEL);
	if (!*dst)
		return -ENOMEM;
	*dstlen = len;
	return 0;
}

/* Fill in what the provider left to the core; false to drop the info. */
static bool kofi_info_complete(struct fi_info *info,
			       const struct kofi_provider *prov, u32 version,
			       const struct fi_info *q)
{
	struct fi_fabric_attr *fa = info->fabric_attr;

	if (!info->tx_attr || !info->rx_attr || !info->ep_attr ||
	    !info->domain_attr || !fa) {
		pr_warn_once("kofi: provider %s returned an incomplete info\n",
			     prov->name);
		return false;
	}
	if (!fa->prov_name) {
		fa->prov_name = kstrdup(prov->name, GFP_KERNEL);
		if (!fa->prov_name)
			return false;
	}
	if (!fa->prov_version)
		fa->prov_version = prov->version;
	fa->api_version = version;
	if (info->addr_format == FI_FORMAT_UNSPEC)
		info->addr_format = q->addr_format;
	if (!kofi_addr_format_ok(q->addr_format, info->addr_format))
		return false;
	if (kofi_dup_addr(&info->src_addr, &info->src_addrlen, q->src_addr,
			  q->src_addrlen) ||
	    kofi_dup_addr(&info->dest_addr, &info->dest_addrlen, q->dest_addr,
			  q->dest_addrlen))
		return false;
	return true;
}

/* The hints providers see: complete, with node/service parsed. */
static int kofi_query_hints(const char *node, const char *service,
			    u64 flags, const struct fi_info *hints,
			    struct fi_info **qp)
{
	struct fi_info *q;
	size_t addrlen;
	void *addr;
	u32 fmt;
	int ret;

	q = fi_dupinfo(hints, GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	if (!q->tx_attr)
		q->tx_attr = kzalloc(sizeof(*q->tx_attr), GFP_KERNEL);
	if (!q->rx_attr)
		q->rx_attr = kzalloc(sizeof(*q->rx_attr), GFP_KERNEL);
	if (!q->ep_attr)
		q->ep_attr = kzalloc(sizeof(*q->ep_attr), GFP_KERNEL);
	if (!q->domain_attr)
		q->domain_attr = kzalloc(sizeof(*q->domain_attr), GFP_KERNEL);
	if (!q->fabric_attr)
		q->fabric_attr = kzalloc(sizeof(*q->fabric_attr), GFP_KERNEL);
	ret = -ENOMEM;
	if (!q->tx_attr || !q->rx_attr || !q->ep_attr || !q->domain_attr ||
	    !q->fabric_attr)
		goto err;
	q->handle = NULL;
	if (!hints)
		q->mode = FI_MODE_MASK;

	if (node || service) {
		ret = kofi_parse_addr(node, service, q->addr_format, &addr,
				      &addrlen, &fmt);
		if (ret)
			goto err;
		if (!kofi_addr_format_ok(q->addr_format, fmt)) {
			kfree(addr);
			ret = -ENODATA;
			goto err;
		}
		if (node && !(flags & FI_SOURCE)) {
			kfree(q->dest_addr);
			q->dest_addr = addr;
			q->dest_addrlen = addrlen;
		} else {
			kfree(q->src_addr);
			q->src_addr = addr;
			q->src_addrlen = addrlen;
		}
		q->addr_format = fmt;
	}
	*qp = q;
	return 0;
err:
	fi_freeinfo(q);
	return ret;
}

/*
 * Load the provider modules not registered yet that the prov_name hint
 * @spec names: every name of every entry ("ksocket;kstream" names both).
 * An exclusion list ("^...") names none.
 */
static void kofi_load_named(const char *spec)
{
	const char *p, *e;

	if (!spec || *spec == '^')
		return;
	for (p = spec; *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, ",;");
		if (e > p)
			kofi_prov_request(p, e - p);
	}
}

static int kofi_do_getinfo(u32 version, const char *node,
			   const char *service, u64 flags,
			   const struct fi_info *hints,
			   const struct kofi_provider *self,
			   struct fi_info **info)
{
	struct fi_info *q, *head = NULL, **tail = &head, *list, *cur, *next;
	struct kofi_provider **v;
	unsigned int n, i;
	int ret;

	if (!info)
		return -EINVAL;
	*info = NULL;
	if (flags & ~FI_GETINFO_FLAGS_MASK)
		return -EINVAL;
	if (FI_MAJOR(version) != FI_MAJOR_VERSION ||
	    FI_MINOR(version) > FI_MINOR_VERSION)
		return -FI_ENOSYS;
	if (hints && (hints->addr_format > FI_SOCKADDR_IN6 ||
		      (hints->ep_attr &&
		       hints->ep_attr->type > FI_EP_SOCK_DGRAM)))
		return -EINVAL;

	ret = kofi_query_hints(node, service, flags, hints, &q);
	if (ret)
		return ret;
	if (!self)
		kofi_load_named(q->fabric_attr->prov_name);

	v = kofi_prov_snapshot(self, !!self, &n);
	if (IS_ERR(v)) {
		fi_freeinfo(q);
		return PTR_ERR(v);
	}
	for (i = 0; i < n; i++) {
		list = NULL;
		if (v[i]->getinfo(version, q, flags, &list))
			continue;
		for (cur = list; cur; cur = next) {
			next = cur->next;
			cur->next = NULL;
			if (!kofi_info_complete(cur, v[i], version, q) ||
			    !kofi_info_match(cur, q, self ? self->name : NULL)) {
				fi_freeinfo(cur);
				continue;
			}
			*tail = cur;
			tail = &cur->next;
		}
	}
	kofi_prov_snapshot_put(v, n);
	fi_freeinfo(q);
	*info = head;
	return head ? 0 : -ENODATA;
}

/**
 * fi_getinfo() - find the ways to reach a fabric that suit the caller
 * @version: API version the caller was built for, FI_VERSION(...)
 * @node: numeric IPv4 or IPv6 address ("192.0.2.1", "fe80::1",
 *	"[fe80::1]"), or NULL; the kernel has no resolver, names are refused
 * @service: decimal port number, or NULL
 * @flags: FI_SOURCE: @node/@service are the local (source) address;
 *	otherwise a @node is the destination, and @service alone the local
 *	port of a listener.  FI_NUMERICHOST is accepted and implied.
 * @hints: wanted capabilities, modes accepted, endpoint type, mr_mode,
 *	address format, provider name ...; NULL for anything (every mode
 *	accepted).  See the matching rules in Documentation/core-api.rst.
 * @info: on success the list of matching infos, best first; free it with
 *	fi_freeinfo()
 *
 * Every registered provider is asked; the answers are filtered by @hints
 * and ordered by provider priority (hardware RDMA first, then utility
 * providers, then software transports such as ksocket).  Addresses parsed
 * from @node/@service are copied into every returned info.
 *
 * A provider named in @hints->fabric_attr->prov_name (each name of a
 * layered "core;utility" entry too, none of an exclusion list "^...") that
 * is not registered is first loaded: fi_getinfo() asks for its module by
 * the alias "kofi-prov-NAME" with request_module() and waits for modprobe
 * to finish.  Each provider module declares that alias.
 *
 * Context: process context, sleeps if it loads a module (may sleep
 * otherwise); not with a lock held that a module's init may need.
 * Return: 0; -EINVAL for a NULL @info, unknown @flags, invalid hints or an
 * unparsable @node/@service; -FI_ENOSYS if @version is newer than this
 * kofi.ko; -ENODATA if nothing matches; -ENOMEM.
 */
int fi_getinfo(u32 version, const char *node, const char *service,
	       u64 flags, const struct fi_info *hints, struct fi_info **info)
{
	return kofi_do_getinfo(version, node, service, flags, hints, NULL,
			       info);
}
EXPORT_SYMBOL_GPL(fi_getinfo);

/**
 * kofi_getinfo_core() - fi_getinfo() over the core providers, for a utility
 * @version: as for fi_getinfo()
 * @node: as for fi_getinfo()
 * @service: as for fi_getinfo()
 * @flags: as for fi_getinfo()
 * @hints: the hints for the core providers (e.g. FI_EP_MSG with
 *	FI_MSG | FI_RMA for a stream utility), with the user's prov_name
 * @self: the calling utility provider; it and every other utility provider
 *	are left out
 * @info: on success the core providers' infos
 *
 * The prov_name of @hints is matched against "core;self", so a user asking
 * for "ksocket;kstream" makes kstream's core query return only ksocket
 * infos, and "^ib_verbs" keeps kstream off ib_verbs.  Called from a
 * utility provider's getinfo or fabric callback.
 *
 * Context: process context, may sleep.
 * Return: as for fi_getinfo(); -EINVAL if @self is NULL.
 */
int kofi_getinfo_core(u32 version, const char *node, const char *service,
		      u64 flags, const struct fi_info *hints,
		      const struct kofi_provider *self, struct fi_info **info)
{
	if (!self) {
		if (info)
			*info = NULL;
		return -EINVAL;
	}
	return kofi_do_getinfo(version, node, service, flags, hints, self,
			       info);
}
EXPORT_SYMBOL_GPL(kofi_getinfo_core);
