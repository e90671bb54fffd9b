// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: the provider registry.
 *
 * Providers register at module load and deregister at unload.  Each
 * registration is a struct kofi_prov_entry whose @users count keeps it (and
 * the provider's callbacks) alive while fi_getinfo() calls into it or a
 * fabric of it is open; deregistration unlinks the entry, then waits until
 * the last user has gone before calling the provider's cleanup.
 *
 * Duplicate names: a provider may register under a name already registered
 * only with a strictly higher version; it then shadows the older one, which
 * becomes visible again when the newer deregisters.  Anything else with a
 * registered name is refused with -EEXIST.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
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

/* Is @e shadowed by a registration of the same name with a higher version? */
static bool kofi_prov_shadowed(const struct kofi_prov_entry *e)
{
	struct kofi_prov_entry *o;

	lockdep_assert_held(&kofi_registry_lock);
	list_for_each_entry(o, &kofi_providers, list)
		if (o != e && !strcasecmp(o->prov->name, e->prov->name) &&
		    o->prov->version > e->prov->version)
			return true;
	return false;
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
 * with the same or a higher version; -ENOMEM.
 */
int kofi_provider_register(struct kofi_provider *prov)
{
	struct kofi_prov_entry *e, *o;
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

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->prov = prov;
	refcount_set(&e->users, 1);
	init_completion(&e->gone);
	atomic_set(&e->fabrics, 0);

	mutex_lock(&kofi_registry_lock);
	list_for_each_entry(o, &kofi_providers, list) {
		if (o->prov == prov ||
		    (!strcasecmp(o->prov->name, prov->name) &&
		     o->prov->version >= prov->version)) {
			mutex_unlock(&kofi_registry_lock);
			kfree(e);
			return -EEXIST;
		}
	}
	/* Keep the list sorted by priority, registration order within. */
	pos = &kofi_providers;
	list_for_each_entry(o, &kofi_providers, list) {
		if (o->prov->priority < prov->priority) {
			pos = &o->list;
			break;
		}
	}
	list_add_tail(&e->list, pos);
	mutex_unlock(&kofi_registry_lock);

	pr_debug("provider %s %u.%u registered\n", prov->name,
		 FI_MAJOR(prov->version), FI_MINOR(prov->version));
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_provider_register);

/**
 * kofi_prov_put() - drop a user of a registered provider
 * @e: the entry
 *
 * Context: any context.
 */
void kofi_prov_put(struct kofi_prov_entry *e)
{
	if (refcount_dec_and_test(&e->users))
		complete(&e->gone);
}

/**
 * kofi_provider_deregister() - remove a provider
 * @prov: a provider registered with kofi_provider_register()
 *
 * New fi_getinfo() and fi_fabric() calls no longer see @prov once this
 * starts.  It then waits for late users: getinfo calls in progress and
 * open fabrics (a fabric pins its provider's module, so from module_exit
 * only getinfo calls can still be running).  Then @prov->cleanup runs.
 * Deregistering a provider that is not registered only logs a warning.
 *
 * Context: process context, sleeps.  Usually called from module_exit.
 */
void kofi_provider_deregister(struct kofi_provider *prov)
{
	struct kofi_prov_entry *e, *found = NULL;

	if (!prov)
		return;
	mutex_lock(&kofi_registry_lock);
	list_for_each_entry(e, &kofi_providers, list) {
		if (e->prov == prov) {
			found = e;
			list_del(&e->list);
			break;
		}
	}
	mutex_unlock(&kofi_registry_lock);
	if (!found) {
		pr_warn("deregistering unknown provider %s\n",
			prov->name ? prov->name : "(null)");
		return;
	}

	kofi_prov_put(found);
	wait_for_completion(&found->gone);
	if (prov->cleanup)
		prov->cleanup();
	kfree(found);
	pr_debug("provider %s deregistered\n", prov->name);
}
EXPORT_SYMBOL_GPL(kofi_provider_deregister);

/**
 * kofi_prov_snapshot() - reference every visible provider
 * @skip: provider to leave out, or NULL
 * @core_only: leave out utility providers
 * @n: number of entries returned
 *
 * Context: process context, may sleep.
 * Return: array of referenced entries in priority order (release with
 * kofi_prov_snapshot_put()), NULL with *@n == 0 if there is none, or an
 * ERR_PTR(-ENOMEM).
 */
struct kofi_prov_entry **kofi_prov_snapshot(const struct kofi_provider *skip,
					    bool core_only, unsigned int *n)
{
	struct kofi_prov_entry **v = NULL, *e;
	unsigned int max = 0, cnt = 0;

	*n = 0;
	mutex_lock(&kofi_registry_lock);
	list_for_each_entry(e, &kofi_providers, list)
		max++;
	if (max) {
		v = kcalloc(max, sizeof(*v), GFP_KERNEL);
		if (!v) {
			mutex_unlock(&kofi_registry_lock);
			return ERR_PTR(-ENOMEM);
		}
	}
	list_for_each_entry(e, &kofi_providers, list) {
		if (e->prov == skip ||
		    (core_only && (e->prov->flags & KOFI_PROV_UTIL)) ||
		    kofi_prov_shadowed(e))
			continue;
		refcount_inc(&e->users);
		v[cnt++] = e;
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
void kofi_prov_snapshot_put(struct kofi_prov_entry **v, unsigned int n)
{
	unsigned int i;

	if (IS_ERR_OR_NULL(v))
		return;
	for (i = 0; i < n; i++)
		kofi_prov_put(v[i]);
	kfree(v);
}

/**
 * kofi_prov_find() - reference the visible provider called @name
 * @name: provider name (not necessarily NUL terminated)
 * @len: its length
 *
 * Context: process context, may sleep.
 * Return: the referenced entry (release with kofi_prov_put()) or NULL.
 */
struct kofi_prov_entry *kofi_prov_find(const char *name, size_t len)
{
	struct kofi_prov_entry *e, *found = NULL;

	mutex_lock(&kofi_registry_lock);
	list_for_each_entry(e, &kofi_providers, list) {
		if (strlen(e->prov->name) == len &&
		    !strncasecmp(e->prov->name, name, len) &&
		    !kofi_prov_shadowed(e)) {
			refcount_inc(&e->users);
			found = e;
			break;
		}
	}
	mutex_unlock(&kofi_registry_lock);
	return found;
}

/**
 * kofi_registry_show() - print the registry (debugfs kofi/providers)
 * @m: seq_file to print to
 *
 * Context: process context, may sleep.
 */
void kofi_registry_show(struct seq_file *m)
{
	struct kofi_prov_entry *e;

	seq_puts(m, "# name version api priority type open_fabrics state\n");
	mutex_lock(&kofi_registry_lock);
	list_for_each_entry(e, &kofi_providers, list)
		seq_printf(m, "%s %u.%u %u.%u %d %s %d %s\n", e->prov->name,
			   FI_MAJOR(e->prov->version),
			   FI_MINOR(e->prov->version),
			   FI_MAJOR(e->prov->fi_version),
			   FI_MINOR(e->prov->fi_version), e->prov->priority,
			   e->prov->flags & KOFI_PROV_UTIL ? "utility" : "core",
			   atomic_read(&e->fabrics),
			   kofi_prov_shadowed(e) ? "shadowed" : "active");
	mutex_unlock(&kofi_registry_lock);
}
