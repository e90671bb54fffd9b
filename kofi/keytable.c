// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: remote keys for software RMA.
 *
 * A hash table of registered regions keyed by unguessable random 64-bit
 * keys.  Lookups run under RCU and take a reference on the entry, so a
 * provider may resolve and check a peer's (key, address, length, access)
 * from softirq context and copy data while the region cannot go away;
 * removal unhashes the entry, drops the table's reference and waits for
 * the last one.  It does not wait for an RCU grace period (a close per
 * message, as a rendezvous protocol does, would wait for one each time):
 * a lookup that still walks to a removed entry finds its count at zero
 * and fails, and the provider frees the entry's memory by kfree_rcu().
 */
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include "kofi_core.h"

#define KOFI_KT_MAX_BITS	16

static struct hlist_head *kofi_kt_bucket(struct kofi_keytable *kt, u64 key)
{
	return &kt->buckets[hash_64(key, kt->bits)];
}

/**
 * kofi_keytable_init() - initialise an empty key table
 * @kt: the table
 * @bits: log2 of the number of hash buckets, 1..16
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for bad @bits; -ENOMEM.
 */
int kofi_keytable_init(struct kofi_keytable *kt, unsigned int bits)
{
	unsigned int i;

	if (!bits || bits > KOFI_KT_MAX_BITS)
		return -EINVAL;
	kt->buckets = kvcalloc(1U << bits, sizeof(*kt->buckets), GFP_KERNEL);
	if (!kt->buckets)
		return -ENOMEM;
	for (i = 0; i < (1U << bits); i++)
		INIT_HLIST_HEAD(&kt->buckets[i]);
	spin_lock_init(&kt->lock);
	kt->bits = bits;
	kt->count = 0;
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_keytable_init);

/**
 * kofi_keytable_destroy() - free an empty key table
 * @kt: the table; every entry must have been removed
 *
 * Context: process context, may sleep.
 */
void kofi_keytable_destroy(struct kofi_keytable *kt)
{
	WARN_ON(kt->count);
	kvfree(kt->buckets);
	kt->buckets = NULL;
}
EXPORT_SYMBOL_GPL(kofi_keytable_destroy);

static struct kofi_key_entry *kofi_kt_find(struct kofi_keytable *kt, u64 key)
{
	struct kofi_key_entry *e;

	hlist_for_each_entry_rcu(e, kofi_kt_bucket(kt, key), node,
				 lockdep_is_held(&kt->lock))
		if (e->key == key)
			return e;
	return NULL;
}

/**
 * kofi_keytable_insert() - add a region and give it a key
 * @kt: the table
 * @e: the entry, with base, len, access and priv filled in
 * @requested_key: the key the user asked for (used unless @prov_key)
 * @prov_key: choose a random key (FI_MR_PROV_KEY); 0 and FI_KEY_NOTAVAIL
 *	are never chosen
 *
 * Context: process context, may sleep.
 * Return: 0 with @e->key set; -EEXIST if @requested_key is in use;
 * -EINVAL for a zero-length or wrapping region, or a requested key of
 * FI_KEY_NOTAVAIL.
 */
int kofi_keytable_insert(struct kofi_keytable *kt, struct kofi_key_entry *e,
			 u64 requested_key, bool prov_key)
{
	u64 key = requested_key;

	if (!e->len || e->base + e->len - 1 < e->base ||
	    (!prov_key && key == FI_KEY_NOTAVAIL))
		return -EINVAL;
	refcount_set(&e->ref, 1);
	init_completion(&e->released);

	spin_lock(&kt->lock);
	for (;;) {
		if (prov_key) {
			key = get_random_u64();
			if (!key || key == FI_KEY_NOTAVAIL)
				continue;
		}
		if (!kofi_kt_find(kt, key))
			break;
		if (!prov_key) {
			spin_unlock(&kt->lock);
			return -EEXIST;
		}
	}
	e->key = key;
	hlist_add_head_rcu(&e->node, kofi_kt_bucket(kt, key));
	kt->count++;
	spin_unlock(&kt->lock);
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_keytable_insert);

/**
 * kofi_keytable_remove() - remove a region, waiting for its users
 * @kt: the table
 * @e: an entry inserted into @kt
 *
 * After return no lookup succeeds on @e and no reference remains: the
 * region's memory may go.  A lookup under RCU may still read @e itself
 * until a grace period has passed, so the provider frees the structure
 * embedding @e with kfree_rcu() (through @e->rcu), not kfree().  Waits
 * only for references taken before the removal (a peer's RMA being
 * copied), not for a grace period.
 *
 * Context: process context, sleeps while a reference is held.
 */
void kofi_keytable_remove(struct kofi_keytable *kt, struct kofi_key_entry *e)
{
	spin_lock(&kt->lock);
	hlist_del_rcu(&e->node);
	kt->count--;
	spin_unlock(&kt->lock);
	kofi_key_entry_put(e);
	wait_for_completion(&e->released);
}
EXPORT_SYMBOL_GPL(kofi_keytable_remove);

/**
 * kofi_keytable_get() - find and check a region for a peer's access
 * @kt: the table
 * @key: the peer's key
 * @addr: first remote address accessed
 * @len: bytes accessed (0 checks the key and access only)
 * @access: FI_REMOTE_READ and/or FI_REMOTE_WRITE
 *
 * Context: any context (softirq included); does not sleep.
 * Return: the referenced entry (release it with kofi_key_entry_put());
 * ERR_PTR(-ENOKEY) for an unknown key, ERR_PTR(-EACCES) if the region does
 * not grant @access, ERR_PTR(-ERANGE) if [@addr, @addr + @len) is not
 * inside the region.
 */
struct kofi_key_entry *kofi_keytable_get(struct kofi_keytable *kt, u64 key,
					 u64 addr, u64 len, u64 access)
{
	struct kofi_key_entry *e;
	int err = 0;

	rcu_read_lock();
	e = kofi_kt_find(kt, key);
	if (!e || !refcount_inc_not_zero(&e->ref)) {
		rcu_read_unlock();
		return ERR_PTR(-ENOKEY);
	}
	rcu_read_unlock();

	if (!access || (access & ~e->access) ||
	    (access & ~(FI_REMOTE_READ | FI_REMOTE_WRITE)))
		err = -EACCES;
	else if (addr < e->base || addr - e->base > e->len ||
		 len > e->len - (addr - e->base))
		err = -ERANGE;
	if (err) {
		kofi_key_entry_put(e);
		return ERR_PTR(err);
	}
	return e;
}
EXPORT_SYMBOL_GPL(kofi_keytable_get);

/**
 * kofi_key_entry_put() - release a kofi_keytable_get() reference
 * @e: the entry
 *
 * Context: any context.
 */
void kofi_key_entry_put(struct kofi_key_entry *e)
{
	if (refcount_dec_and_test(&e->ref))
		complete(&e->released);
}
EXPORT_SYMBOL_GPL(kofi_key_entry_put);
