// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: the shared address vector.
 *
 * Every entry is a socket address, kept in normalised form (family, port,
 * address, IPv6 scope id; sin_zero and sin6_flowinfo dropped), in two
 * RCU-protected maps: an xarray from slot to entry (fi_addr_t -> address)
 * and an rhashtable from address to entry (address -> fi_addr_t).  Readers,
 * among them the data-path helpers providers call on every transfer, take
 * no lock and may run in any context; fi_av_insert() and fi_av_remove() are
 * serialised by a mutex.  A removed entry is freed after an RCU grace
 * period, so a reader never sees freed memory.
 *
 * fi_addr_t values.  FI_AV_TABLE: the slot.  FI_AV_MAP: the slot in bits
 * 0..31 and a nonzero 16-bit generation in bits 32..47, so a handle of a
 * removed entry is not mistaken for a later entry in the same slot (until
 * the generation wraps).  The slot is the lowest free one: inserts into an
 * AV nothing was removed from get 0, 1, 2 ...  The top rx_ctx_bits bits
 * (fi_rx_addr()) are ignored by every lookup.
 *
 * An address is in an AV at most once: inserting it again returns its
 * existing fi_addr_t, and one fi_av_remove() removes it.
 *
 * A provider that keeps state per peer (a connection, receives directed
 * to it) registers a struct kofi_av_watch on the AV of its endpoint;
 * fi_av_remove() tells it of every entry it removes.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/xarray.h>
#include "kofi_core.h"

/* Entries the hash table is sized for when fi_av_attr.count is 0. */
#define KOFI_AV_DEFAULT_COUNT	64
/* Largest initial hash table size hint; it grows beyond on demand. */
#define KOFI_AV_MAX_HINT	4096

#define KOFI_AV_GEN_SHIFT	32
#define KOFI_AV_GEN_MAX		0xffffU

struct kofi_av_key {
	u16 family;
	__be16 port;
	u32 scope_id;
	u8 addr[16];
};

struct kofi_av_entry {
	struct rhash_head node;
	struct kofi_av_key key;
	fi_addr_t fi_addr;
	struct rcu_head rcu;
};

struct kofi_av {
	struct fid_av av_fid;
	enum fi_av_type type;
	u32 addr_format;
	size_t stride;		/* bytes per entry of fi_av_insert()'s array */
	u64 addr_mask;		/* clears the rx_ctx_bits */
	struct mutex lock;	/* serialises insert and remove */
	struct xarray slots;	/* slot -> struct kofi_av_entry */
	struct rhashtable addrs;	/* struct kofi_av_key -> entry */
	u32 hwm;		/* every slot ever used is below it */
	u16 gen;		/* FI_AV_MAP: generation of the last insert */
	struct list_head watches;	/* struct kofi_av_watch, under @lock */
};

static const struct rhashtable_params kofi_av_params = {
	.key_len = sizeof(struct kofi_av_key),
	.key_offset = offsetof(struct kofi_av_entry, key),
	.head_offset = offsetof(struct kofi_av_entry, node),
	.automatic_shrinking = true,
};

static const struct fi_ops_av kofi_av_ops;

/* The shared AV behind @av_fid, or NULL if @av_fid is not one. */
static struct kofi_av *kofi_av(struct fid_av *av_fid)
{
	if (!av_fid || av_fid->fid.fclass != FI_CLASS_AV ||
	    av_fid->ops != &kofi_av_ops)
		return NULL;
	return container_of(av_fid, struct kofi_av, av_fid);
}

/*
 * Normalise the socket address at @addr (@len readable bytes) into @k.
 * Return: 0, or -EINVAL for a family the AV does not take or too few bytes.
 */
static int kofi_av_make_key(const struct kofi_av *av, const void *addr,
			    size_t len, struct kofi_av_key *k)
{
	const struct sockaddr_in6 *sin6 = addr;
	const struct sockaddr_in *sin = addr;
	sa_family_t family;

	if (!addr || len < sizeof(family))
		return -EINVAL;
	family = ((const struct sockaddr *)addr)->sa_family;
	memset(k, 0, sizeof(*k));
	if (family == AF_INET && av->addr_format != FI_SOCKADDR_IN6 &&
	    len >= sizeof(*sin)) {
		k->family = AF_INET;
		k->port = sin->sin_port;
		memcpy(k->addr, &sin->sin_addr, sizeof(sin->sin_addr));
		return 0;
	}
	if (family == AF_INET6 && av->addr_format != FI_SOCKADDR_IN &&
	    len >= sizeof(*sin6)) {
		k->family = AF_INET6;
		k->port = sin6->sin6_port;
		k->scope_id = sin6->sin6_scope_id;
		memcpy(k->addr, &sin6->sin6_addr, sizeof(sin6->sin6_addr));
		return 0;
	}
	return -EINVAL;
}

/* Write the socket address of @k to @ss; return its length. */
static int kofi_av_key_addr(const struct kofi_av_key *k,
			    struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	if (k->family == AF_INET) {
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = k->port;
		memcpy(&sin->sin_addr, k->addr, sizeof(sin->sin_addr));
		return sizeof(*sin);
	}
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = k->port;
	sin6->sin6_scope_id = k->scope_id;
	memcpy(&sin6->sin6_addr, k->addr, sizeof(sin6->sin6_addr));
	return sizeof(*sin6);
}

/*
 * The entry @fi_addr names.  Caller holds rcu_read_lock() or av->lock.
 * Return: the entry; ERR_PTR(-EINVAL) for a value the AV never handed out
 * (FI_ADDR_NOTAVAIL, bits outside the AV's layout, a slot never used);
 * ERR_PTR(-ENOENT) for one whose entry was removed.
 */
static struct kofi_av_entry *kofi_av_find(struct kofi_av *av,
					  fi_addr_t fi_addr)
{
	struct kofi_av_entry *e;
	u32 slot;
	u64 a;

	if (fi_addr == FI_ADDR_NOTAVAIL)
		return ERR_PTR(-EINVAL);
	a = fi_addr & av->addr_mask;
	slot = lower_32_bits(a);
	if (av->type == FI_AV_TABLE ? upper_32_bits(a) :
	    (a >> 48 || !upper_32_bits(a)))
		return ERR_PTR(-EINVAL);
	if (slot >= READ_ONCE(av->hwm))
		return ERR_PTR(-EINVAL);
	e = xa_load(&av->slots, slot);
	if (!e || e->fi_addr != a)
		return ERR_PTR(-ENOENT);
	return e;
}

/* Insert one address; caller holds av->lock. */
static int kofi_av_insert_one(struct kofi_av *av, const struct kofi_av_key *k,
			      fi_addr_t *fi_addr)
{
	struct kofi_av_entry *e;
	u32 slot;
	int ret;

	e = rhashtable_lookup_fast(&av->addrs, k, kofi_av_params);
	if (e) {
		*fi_addr = e->fi_addr;
		return 0;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->key = *k;
	/* Reserve the slot; readers see it empty until xa_store(). */
	ret = xa_alloc(&av->slots, &slot, NULL,
		       XA_LIMIT(0, FI_AV_MAX_COUNT - 1), GFP_KERNEL);
	if (ret) {
		kfree(e);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	e->fi_addr = slot;
	if (av->type == FI_AV_MAP) {
		av->gen = av->gen >= KOFI_AV_GEN_MAX ? 1 : av->gen + 1;
		e->fi_addr |= (u64)av->gen << KOFI_AV_GEN_SHIFT;
	}
	ret = rhashtable_insert_fast(&av->addrs, &e->node, kofi_av_params);
	if (ret) {
		xa_release(&av->slots, slot);
		kfree(e);
		return ret;
	}
	if (slot >= av->hwm)
		WRITE_ONCE(av->hwm, slot + 1);
	xa_store(&av->slots, slot, e, GFP_KERNEL);
	*fi_addr = e->fi_addr;
	return 0;
}

/*
 * Insert @count addresses, @len bytes apart, each @len readable bytes.
 * Return: the number inserted; failed entries get FI_ADDR_NOTAVAIL.
 */
static int kofi_av_insert_addrs(struct kofi_av *av, const void *addr,
				size_t count, size_t len, fi_addr_t *fi_addr)
{
	struct kofi_av_key k;
	fi_addr_t a;
	size_t i;
	int n = 0;

	mutex_lock(&av->lock);
	for (i = 0; i < count; i++) {
		if (kofi_av_make_key(av, (const u8 *)addr + i * len, len, &k) ||
		    kofi_av_insert_one(av, &k, &a)) {
			a = FI_ADDR_NOTAVAIL;
		} else {
			n++;
		}
		if (fi_addr)
			fi_addr[i] = a;
	}
	mutex_unlock(&av->lock);
	return n;
}

static int kofi_av_insert(struct fid_av *av_fid, const void *addr,
			  size_t count, fi_addr_t *fi_addr, u64 flags,
			  void *context)
{
	struct kofi_av *av = kofi_av(av_fid);

	if (!av || !addr || (!fi_addr && av->type != FI_AV_TABLE) ||
	    count > INT_MAX || count > SIZE_MAX / av->stride)
		return -EINVAL;
	return kofi_av_insert_addrs(av, addr, count, av->stride, fi_addr);
}

static int kofi_av_insertsvc(struct fid_av *av_fid, const char *node,
			     const char *service, fi_addr_t *fi_addr,
			     u64 flags, void *context)
{
	struct kofi_av *av = kofi_av(av_fid);
	size_t addrlen;
	void *addr;
	u32 fmt;
	int ret;

	if (!av || !node || !service || (!fi_addr && av->type != FI_AV_TABLE))
		return -EINVAL;
	ret = kofi_parse_addr(node, service, av->addr_format, &addr, &addrlen,
			      &fmt);
	if (ret)
		return ret;
	ret = kofi_av_insert_addrs(av, addr, 1, addrlen, fi_addr);
	kfree(addr);
	return ret;
}

static int kofi_av_remove(struct fid_av *av_fid, fi_addr_t *fi_addr,
			  size_t count, u64 flags)
{
	struct kofi_av *av = kofi_av(av_fid);
	struct kofi_av_watch *w;
	struct kofi_av_entry *e;
	struct sockaddr_storage ss;
	fi_addr_t gone;
	int ret = 0;
	size_t i;

	if (!av || !fi_addr)
		return -EINVAL;
	mutex_lock(&av->lock);
	for (i = 0; i < count; i++) {
		e = kofi_av_find(av, fi_addr[i]);
		if (IS_ERR(e)) {
			if (!ret)
				ret = PTR_ERR(e);
			continue;
		}
		gone = e->fi_addr;
		kofi_av_key_addr(&e->key, &ss);
		rhashtable_remove_fast(&av->addrs, &e->node, kofi_av_params);
		xa_erase(&av->slots, lower_32_bits(gone));
		kfree_rcu(e, rcu);
		list_for_each_entry(w, &av->watches, node)
			w->removed(w, gone, (struct sockaddr *)&ss);
	}
	mutex_unlock(&av->lock);
	return ret;
}

static int kofi_av_lookup(struct fid_av *av_fid, fi_addr_t fi_addr,
			  void *addr, size_t *addrlen)
{
	struct sockaddr_storage ss;
	size_t have;
	int len;

	if (!addrlen || (!addr && *addrlen))
		return -EINVAL;
	len = kofi_av_lookup_addr(av_fid, fi_addr, &ss);
	if (len < 0)
		return len;
	have = *addrlen;
	*addrlen = len;
	if (have)
		memcpy(addr, &ss, min_t(size_t, have, len));
	return have < len ? -ETOOSMALL : 0;
}

static const char *kofi_av_straddr(struct fid_av *av_fid, const void *addr,
				   char *buf, size_t *len)
{
	struct kofi_av *av = kofi_av(av_fid);
	struct sockaddr_storage ss;
	struct kofi_av_key k;

	if (!av || !buf || !len ||
	    kofi_av_make_key(av, addr, av->stride, &k))
		return NULL;
	kofi_av_key_addr(&k, &ss);
	*len = snprintf(buf, *len, "%pISpc", &ss) + 1;
	return buf;
}

static void kofi_av_free_entry(void *ptr, void *arg)
{
	kfree(ptr);
}

static int kofi_av_close(struct fid *fid)
{
	struct kofi_av *av = container_of(fid, struct kofi_av, av_fid.fid);

	/* Every entry is in both maps: free them once, with the hash. */
	rhashtable_free_and_destroy(&av->addrs, kofi_av_free_entry, NULL);
	xa_destroy(&av->slots);
	mutex_destroy(&av->lock);
	kfree(av);
	return 0;
}

static const struct fi_ops kofi_av_fi_ops = {
	.close = kofi_av_close,
};

static const struct fi_ops_av kofi_av_ops = {
	.insert = kofi_av_insert,
	.insertsvc = kofi_av_insertsvc,
	.remove = kofi_av_remove,
	.lookup = kofi_av_lookup,
	.straddr = kofi_av_straddr,
};

/**
 * kofi_av_open_generic() - open an AV of the shared implementation
 * @domain: the domain (the core links the AV to it)
 * @attr: AV attributes; FI_AV_UNSPEC and count 0 are replaced by the
 *	values used (FI_AV_TABLE, 64)
 * @addr_format: the domain's address format: FI_SOCKADDR_IN,
 *	FI_SOCKADDR_IN6, or FI_SOCKADDR for both
 * @av: the new AV
 * @context: user context
 *
 * A provider calls it from its fi_ops_domain.av_open, with the address
 * format of the info its domain was opened with, and translates fi_addr_t
 * values with kofi_av_lookup_addr() and source addresses with
 * kofi_av_lookup_fi_addr().
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for bad attributes or address format; -ENOMEM.
 */
int kofi_av_open_generic(struct fid_domain *domain, struct fi_av_attr *attr,
			 u32 addr_format, struct fid_av **av, void *context)
{
	struct kofi_av *a;
	int ret;

	if (!attr || !av || attr->flags || attr->type > FI_AV_TABLE ||
	    attr->count > FI_AV_MAX_COUNT || attr->rx_ctx_bits < 0 ||
	    attr->rx_ctx_bits > FI_AV_MAX_RX_CTX_BITS ||
	    (addr_format != FI_SOCKADDR && addr_format != FI_SOCKADDR_IN &&
	     addr_format != FI_SOCKADDR_IN6))
		return -EINVAL;
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	a->type = attr->type == FI_AV_UNSPEC ? FI_AV_TABLE : attr->type;
	a->addr_format = addr_format;
	a->stride = addr_format == FI_SOCKADDR_IN ? sizeof(struct sockaddr_in) :
						    sizeof(struct sockaddr_in6);
	a->addr_mask = GENMASK_ULL(63 - attr->rx_ctx_bits, 0);
	mutex_init(&a->lock);
	INIT_LIST_HEAD(&a->watches);
	xa_init_flags(&a->slots, XA_FLAGS_ALLOC);
	attr->count = attr->count ? attr->count : KOFI_AV_DEFAULT_COUNT;
	ret = rhashtable_init(&a->addrs, &kofi_av_params);
	if (ret) {
		mutex_destroy(&a->lock);
		kfree(a);
		return ret;
	}
	kofi_fid_init(&a->av_fid.fid, FI_CLASS_AV, &kofi_av_fi_ops, context);
	a->av_fid.ops = &kofi_av_ops;
	attr->type = a->type;
	*av = &a->av_fid;
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_av_open_generic);

/**
 * kofi_av_lookup_addr() - the socket address of an fi_addr_t (data path)
 * @av: an AV opened by kofi_av_open_generic(), held by the caller (bound
 *	to the caller's endpoint)
 * @fi_addr: the peer; its rx_ctx_bits are ignored
 * @addr: the address, written as struct sockaddr_in or sockaddr_in6
 *
 * The address is copied: an operation that translated @fi_addr keeps
 * using the copy if the entry is removed meanwhile.
 *
 * Context: any context (hardirq, softirq, process; spinlocks may be held);
 * does not sleep, lock or allocate.
 * Return: the length of the address (sizeof(struct sockaddr_in) or
 * sizeof(struct sockaddr_in6)); -ENOENT if the entry of @fi_addr was
 * removed; -EINVAL if @av is not a shared AV or @addr is NULL or @fi_addr
 * was never handed out by @av.
 */
int kofi_av_lookup_addr(struct fid_av *av, fi_addr_t fi_addr,
			struct sockaddr_storage *addr)
{
	struct kofi_av *a = kofi_av(av);
	struct kofi_av_entry *e;
	int ret;

	if (!a || !addr)
		return -EINVAL;
	rcu_read_lock();
	e = kofi_av_find(a, fi_addr);
	ret = IS_ERR(e) ? PTR_ERR(e) : kofi_av_key_addr(&e->key, addr);
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(kofi_av_lookup_addr);

/**
 * kofi_av_lookup_fi_addr() - the fi_addr_t of a socket address (data path)
 * @av: an AV opened by kofi_av_open_generic(), held by the caller
 * @addr: struct sockaddr_in or sockaddr_in6, e.g. the source of a
 *	received message; sin_zero and sin6_flowinfo are ignored
 * @addrlen: bytes at @addr
 * @fi_addr: the entry's fi_addr_t, or FI_ADDR_NOTAVAIL on any failure -
 *	what a completion of an unknown source reports (kofi_cq_write_src())
 *
 * Context: any context; does not sleep, lock or allocate.
 * Return: 0; -ENOENT if the address is not in @av; -EINVAL if @av is not
 * a shared AV, @addr or @fi_addr is NULL, or @addr is not of a family the
 * AV takes or shorter than its family's struct.
 */
int kofi_av_lookup_fi_addr(struct fid_av *av, const struct sockaddr *addr,
			   size_t addrlen, fi_addr_t *fi_addr)
{
	struct kofi_av *a = kofi_av(av);
	struct kofi_av_entry *e;
	struct kofi_av_key k;
	int ret = -ENOENT;

	if (!fi_addr)
		return -EINVAL;
	*fi_addr = FI_ADDR_NOTAVAIL;
	if (!a || kofi_av_make_key(a, addr, addrlen, &k))
		return -EINVAL;
	rcu_read_lock();
	e = rhashtable_lookup(&a->addrs, &k, kofi_av_params);
	if (e) {
		*fi_addr = e->fi_addr;
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(kofi_av_lookup_fi_addr);

/**
 * kofi_ep_av() - the AV bound to an endpoint
 * @ep: the endpoint
 *
 * The AV stays valid while bound, i.e. until the endpoint is closed.
 *
 * Context: any context; does not sleep.
 * Return: the AV, or NULL if none is bound.
 */
struct fid_av *kofi_ep_av(struct fid_ep *ep)
{
	struct fid *fid;

	if (!ep)
		return NULL;
	fid = kofi_fid_slot(&ep->fid, KOFI_SLOT_AV, NULL);
	return fid ? container_of(fid, struct fid_av, fid) : NULL;
}
EXPORT_SYMBOL_GPL(kofi_ep_av);

/**
 * kofi_av_watch_add() - be told of the entries removed from an AV
 * @av: an AV opened by kofi_av_open_generic(), bound to the caller's
 *	endpoint (it outlives the watch)
 * @watch: the watch, its @removed set; the caller's until
 *	kofi_av_watch_del()
 *
 * From now on fi_av_remove() calls @watch->removed for each entry it
 * removes, once the entry is gone (lookups of it fail).
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINVAL if @av is not a shared AV or @watch has no
 * @removed.
 */
int kofi_av_watch_add(struct fid_av *av, struct kofi_av_watch *watch)
{
	struct kofi_av *a = kofi_av(av);

	if (!a || !watch || !watch->removed)
		return -EINVAL;
	mutex_lock(&a->lock);
	list_add_tail(&watch->node, &a->watches);
	mutex_unlock(&a->lock);
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_av_watch_add);

/**
 * kofi_av_watch_del() - stop being told of removals
 * @av: the AV of kofi_av_watch_add()
 * @watch: the watch it added
 *
 * Once this returns, @watch->removed is not running and is not called
 * again.
 *
 * Context: process context, may sleep; not from @watch->removed.
 */
void kofi_av_watch_del(struct fid_av *av, struct kofi_av_watch *watch)
{
	struct kofi_av *a = kofi_av(av);

	if (!a || !watch)
		return;
	mutex_lock(&a->lock);
	list_del_init(&watch->node);
	mutex_unlock(&a->lock);
}
EXPORT_SYMBOL_GPL(kofi_av_watch_del);
