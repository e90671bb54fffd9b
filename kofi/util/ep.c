// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI utility providers: what the endpoints of utilities share - the
 * core info an endpoint is opened with and size_t
 * endpoint options checked against a table.
 */
#include <linux/module.h>
#include <kofi/util.h>

/**
 * kofi_util_ep_core_info() - the core info a utility endpoint opens with
 * @util: the utility provider
 * @info: the info passed to the utility's endpoint callback
 * @core: on success the core info, the caller's (fi_freeinfo()); for a
 *	connection request its handle is the core's request
 * @creq: on success the utility connection request @info's handle is, its
 *	core info now taken (free it with kofi_util_connreq_free() once its
 *	data is read), or NULL
 *
 * With a handle, @info must be an FI_CONNREQ of @util: the core info is
 * the core's request info.  Otherwise it is kofi_util_core_info().
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a handle that is not a request of @util or one
 * already taken; the error of kofi_util_core_info().
 */
int kofi_util_ep_core_info(const struct kofi_util_prov *util,
			   struct fi_info *info, struct fi_info **core,
			   struct kofi_util_connreq **creq)
{
	struct kofi_util_connreq *c;

	*creq = NULL;
	*core = NULL;
	if (!info->handle)
		return kofi_util_core_info(util, info, core);
	c = kofi_util_connreq(util, info->handle);
	if (!c || !c->core_info)
		return -EINVAL;
	*core = c->core_info;
	c->core_info = NULL;
	*creq = c;
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_util_ep_core_info);

static const struct kofi_util_opt *
kofi_util_opt_find(const struct kofi_util_opt *tab, size_t n, int optname)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tab[i].name == optname)
			return &tab[i];
	return NULL;
}

/**
 * kofi_util_setopt() - check and store a size_t endpoint option
 * @tab: the utility's options
 * @n: entries of @tab
 * @opts: the utility's settings, where @tab's offsets point
 * @level: as given to fi_setopt()
 * @optname: as given to fi_setopt()
 * @optval: as given to fi_setopt(), a size_t
 * @optlen: as given to fi_setopt()
 *
 * The caller checks whether its object may still change (after this call,
 * on a copy of its settings, so that a bad value is reported first).
 *
 * Context: any context.
 * Return: 0; -ENOPROTOOPT for a level other than FI_OPT_ENDPOINT or an
 * option not in @tab; -EINVAL for an @optlen other than sizeof(size_t) or
 * a value out of the option's range.
 */
int kofi_util_setopt(const struct kofi_util_opt *tab, size_t n, void *opts,
		     int level, int optname, const void *optval,
		     size_t optlen)
{
	const struct kofi_util_opt *o;
	size_t v;

	if (level != FI_OPT_ENDPOINT)
		return -ENOPROTOOPT;
	if (optlen != sizeof(size_t))
		return -EINVAL;
	o = kofi_util_opt_find(tab, n, optname);
	if (!o)
		return -ENOPROTOOPT;
	v = *(const size_t *)optval;
	if (v < o->min || v > o->max)
		return -EINVAL;
	*(size_t *)((u8 *)opts + o->offset) = v;
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_util_setopt);

/**
 * kofi_util_getopt() - read a size_t endpoint option
 * @tab: the utility's options
 * @n: entries of @tab
 * @opts: the utility's settings
 * @level: as given to fi_getopt()
 * @optname: as given to fi_getopt()
 * @optval: as given to fi_getopt(), room for a size_t
 * @optlen: as given to fi_getopt(); set to sizeof(size_t)
 *
 * Context: any context.
 * Return: 0; -ENOPROTOOPT for a level other than FI_OPT_ENDPOINT or an
 * option not in @tab; -EINVAL if *@optlen is below sizeof(size_t).
 */
int kofi_util_getopt(const struct kofi_util_opt *tab, size_t n,
		     const void *opts, int level, int optname, void *optval,
		     size_t *optlen)
{
	const struct kofi_util_opt *o;

	if (level != FI_OPT_ENDPOINT)
		return -ENOPROTOOPT;
	if (*optlen < sizeof(size_t))
		return -EINVAL;
	o = kofi_util_opt_find(tab, n, optname);
	if (!o)
		return -ENOPROTOOPT;
	*(size_t *)optval = *(const size_t *)((const u8 *)opts + o->offset);
	*optlen = sizeof(size_t);
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_util_getopt);
