// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: the provider registry.
 *
 * Providers register at module load and deregister at unload.  What keeps
 * a provider alive while it is used is its module: every call into it
 * (getinfo, fabric) and every open fabric of it holds a reference on
 * prov->owner, taken with try_module_get() under kofi_registry_lock while
 * the provider is on the list.  A module in use cannot be unloaded, and
 * once its unload has begun no reference can be taken, so by the time its
 * module_exit deregisters, nothing is in the provider and nothing can get
 * in: deregistration only unlinks and calls the cleanup.  A provider
 * without a module (owner NULL: built into the kernel) is pinned by nothing;
 * see kofi_provider_deregister() for what its deregistration then means.
 *
 * Duplicate names: a provider may register under a name already registered
 * only with a strictly higher version; it then shadows the older one, which
 * becomes visible again when the newer deregisters.  Anything else with a
 * registered name is refused with -EEXIST.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "kofi_core.h"

static LIST_HEAD(kofi_providers);
static DEFINE_MUTEX(kofi_registry_lock);

static bool kofi_prov_name_valid(const char *name)
{
	size_t len, i;

	if (!name)
		return false;
	len = strnlen(name, KOFI_PROV_NAME_MAX + 1);
	if (!len || len > KOFI_PROV_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!isgraph(name[i]) || strchr(";,^", name[i]))
			return false;
	return true;
}

/* Is @p shadowed by a registration of the same name with a higher version? */
static bool kofi_prov_shadowed(const struct kofi_provider *p)
{
	struct kofi_provider *o;

	lockdep_assert_held(&kofi_registry_lock);
	list_for_each_entry(o, &kofi_providers, list)
		if (o != p && !strcasecmp(o->name, p->name) &&
		    o->version > p->version)
			return true;
	return false;
}

/* Reference @p's module; false if it is being unloaded. */
static bool kofi_prov_get(struct kofi_provider *p)
{
	lockdep_assert_held(&kofi_registry_lock);
	return try_module_get(p->owner);
}

/**
 * kofi_provider_register() - make a provider available to fi_getinfo()
 * @prov: the provider; must stay valid until kofi_provider_deregister()
 *
 * Context: process context, may sleep.  Usually called from module_init.
 * Return: 0 on success; -EINVAL if @prov is NULL, lacks a valid name,
 * getinfo or fabric, or was built against an API this kofi.ko does not
 * implement (another major version, or a newer minor version); -EEXIST if
 * @prov is already registered, or a provider of the same name is registered
 * with the same or a higher version.
 */
int kofi_provider_register(struct kofi_provider *prov)
{
	struct kofi_provider *o;
	struct list_head *pos;

	if (!prov || !kofi_prov_name_valid(prov->name) || !prov->getinfo ||
	    !prov->fabric)
		return -EINVAL;
	if (FI_MAJOR(prov->fi_version) != FI_MAJOR_VERSION ||
	    FI_MINOR(prov->fi_version) > FI_MINOR_VERSION) {
		pr_err("provider %s wants API %u.%u, this is %u.%u\n",
		       prov->name, FI_MAJOR(prov->fi_version),
		       FI_MINOR(prov->fi_version), FI_MAJOR_VERSION,
		       FI_MINOR_VERSION);
		return -EINVAL;
	}

	mutex_lock(&kofi_registry_lock);
	list_for_each_entry(o, &kofi_providers, list) {
		if (o == prov ||
		    (!strcasecmp(o->name, prov->name) &&
		     o->version >= prov->version)) {
			mutex_unlock(&kofi_registry_lock);
			return -EEXIST;
		}
	}
	/* Keep the list sorted by priority, registration order within. */
	pos = &kofi_providers;
	list_for_each_entry(o, &kofi_providers, list) {
		if (o->priority < prov->priority) {
			pos = &o->list;
			break;
		}
	}
	list_add_tail(&prov->list, pos);
	mutex_unlock(&kofi_registry_lock);

	pr_debug("provider %s %u.%u registered\n", prov->name,
		 FI_MAJOR(prov->version), FI_MINOR(prov->version));
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_provider_register);

/**
 * kofi_prov_put() - drop the module reference kofi_prov_find() or
 *	kofi_prov_snapshot() took
 * @p: the provider
 *
 * Context: any context.
 */
void kofi_prov_put(const struct kofi_provider *p)
{
	module_put(p->owner);
}

/**
 * kofi_provider_deregister() - remove a provider
 * @prov: a provider registered with kofi_provider_register()
 *
 * Unlinks @prov, so that new fi_getinfo() and fi_fabric() calls no longer
 * find it, then calls @prov->cleanup.  It does not wait for anything: the
 * rule for when it may be called is in the kernel-doc of struct
 * kofi_provider (from module_exit; for a provider without module, once it
 * is unused).  Deregistering a provider that is not registered only logs a
 * warning.
 *
 * Context: process context, may sleep (the cleanup may).  Usually called
 * from module_exit.
 */
void kofi_provider_deregister(struct kofi_provider *prov)
{
	struct kofi_provider *o;
	bool found = false;

	if (!prov)
		return;
	mutex_lock(&kofi_registry_lock);
	list_for_each_entry(o, &kofi_providers, list) {
		if (o == prov) {
			list_del(&prov->list);
			found = true;
			break;
		}
	}
	mutex_unlock(&kofi_registry_lock);
	if (!found) {
		pr_warn("deregistering unknown provider %s\n",
			prov->name ? prov->name : "(null)");
		return;
	}

	if (prov->cleanup)
		prov->cleanup();
	pr_debug("provider %s deregistered\n", prov->name);
}
EXPORT_SYMBOL_GPL(kofi_provider_deregister);

/**
 * kofi_prov_snapshot() - reference every visible provider
 * @skip: provider to leave out, or NULL
 * @core_only: leave out utility providers
 * @n: number of providers returned
 *
 * A provider whose module is being unloaded is left out.
 *
 * Context: process context, may sleep.
 * Return: array of providers in priority order, each with a reference on
 * its module (release with kofi_prov_snapshot_put()), NULL with *@n == 0 if
 * there is none, or an ERR_PTR(-ENOMEM).
 */
struct kofi_provider **kofi_prov_snapshot(const struct kofi_provider *skip,
					  bool core_only, unsigned int *n)
{
	struct kofi_provider **v = NULL, *p;
	unsigned int max = 0, cnt = 0;

	*n = 0;
	mutex_lock(&kofi_registry_lock);
	list_for_each_entry(p, &kofi_providers, list)
		max++;
	if (max) {
		v = kcalloc(max, sizeof(*v), GFP_KERNEL);
		if (!v) {
			mutex_unlock(&kofi_registry_lock);
			return ERR_PTR(-ENOMEM);
		}
	}
	list_for_each_entry(p, &kofi_providers, list) {
		if (p == skip || (core_only && (p->flags & KOFI_PROV_UTIL)) ||
		    kofi_prov_shadowed(p) || !kofi_prov_get(p))
			continue;
		v[cnt++] = p;
	}
	mutex_unlock(&kofi_registry_lock);
	*n = cnt;
	return v;
}

/**
 * kofi_prov_snapshot_put() - release a kofi_prov_snapshot() result
 * @v: the array, may be NULL or an ERR_PTR
 * @n: its number of entries
 *
 * Context: any context.
 */
void kofi_prov_snapshot_put(struct kofi_provider **v, unsigned int n)
{
	unsigned int i;

	if (IS_ERR_OR_NULL(v))
		return;
	for (i = 0; i < n; i++)
		kofi_prov_put(v[i]);
	kfree(v);
}

/* Is @p called [name, name + len)? */
static bool kofi_prov_called(const struct kofi_provider *p, const char *name,
			     size_t len)
{
	return strlen(p->name) == len && !strncasecmp(p->name, name, len);
}

/**
 * kofi_prov_find() - reference the visible provider called @name
 * @name: provider name (not necessarily NUL terminated)
 * @len: its length
 *
 * Context: process context, may sleep.
 * Return: the provider, with a reference on its module (release with
 * kofi_prov_put()), or NULL if none is registered under @name or its module
 * is being unloaded.
 */
struct kofi_provider *kofi_prov_find(const char *name, size_t len)
{
	struct kofi_provider *p, *found = NULL;

	mutex_lock(&kofi_registry_lock);
	list_for_each_entry(p, &kofi_providers, list) {
		if (kofi_prov_called(p, name, len) && !kofi_prov_shadowed(p)) {
			if (kofi_prov_get(p))
				found = p;
			break;
		}
	}
	mutex_unlock(&kofi_registry_lock);
	return found;
}

/**
 * kofi_prov_request() - load the module of provider @name if it is not
 *	registered
 * @name: provider name (not necessarily NUL terminated)
 * @len: its length
 *
 * Asks for the module alias "kofi-prov-NAME" (NAME in lower case) with
 * request_module() and waits for modprobe, unless a provider called @name
 * is registered or @name is not a valid provider name.  A module that does
 * not exist is not an error: the provider simply stays unregistered.
 *
 * Context: process context, sleeps.  Must not be called with a lock held
 * that a provider's module_init may need (kofi_registry_lock among them).
 */
void kofi_prov_request(const char *name, size_t len)
{
	char mod[KOFI_PROV_NAME_MAX + 1];
	struct kofi_provider *p;
	bool known = false;
	size_t i;

	if (!IS_ENABLED(CONFIG_MODULES) || len > KOFI_PROV_NAME_MAX)
		return;
	for (i = 0; i < len; i++)
		mod[i] = tolower(name[i]);
	mod[len] = '\0';
	if (!kofi_prov_name_valid(mod))
		return;
	mutex_lock(&kofi_registry_lock);
	list_for_each_entry(p, &kofi_providers, list) {
		if (kofi_prov_called(p, mod, len)) {
			known = true;
			break;
		}
	}
	mutex_unlock(&kofi_registry_lock);
	if (!known && request_module("kofi-prov-%s", mod))
		pr_debug("no module for provider %s\n", mod);
}

/* References on @p's module, or -1 if it has none or they are not counted. */
static int kofi_prov_refs(const struct kofi_provider *p)
{
#ifdef CONFIG_MODULE_UNLOAD
	if (p->owner)
		return module_refcount(p->owner);
#endif
	return -1;
}

/**
 * kofi_registry_show() - print the registry (debugfs kofi/providers)
 * @m: seq_file to print to
 *
 * Context: process context, may sleep.
 */
void kofi_registry_show(struct seq_file *m)
{
	struct kofi_provider *p;
	int refs;

	seq_puts(m, "# name version api priority type module_refs state\n");
	mutex_lock(&kofi_registry_lock);
	list_for_each_entry(p, &kofi_providers, list) {
		seq_printf(m, "%s %u.%u %u.%u %d %s ", p->name,
			   FI_MAJOR(p->version), FI_MINOR(p->version),
			   FI_MAJOR(p->fi_version), FI_MINOR(p->fi_version),
			   p->priority,
			   p->flags & KOFI_PROV_UTIL ? "utility" : "core");
		refs = kofi_prov_refs(p);
		if (refs < 0)
			seq_puts(m, "-");
		else
			seq_printf(m, "%d", refs);
		seq_printf(m, " %s\n",
			   kofi_prov_shadowed(p) ? "shadowed" : "active");
	}
	mutex_unlock(&kofi_registry_lock);
}
