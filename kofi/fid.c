// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: object identity and lifetime.
 *
 * Every object starts with a struct fid.  Its state in the core - the
 * references held on it, its parent and its bindings - lives in a struct
 * kofi_fid_core that only this file knows; struct fid carries an opaque
 * handle to it (@core), so neither providers nor users can reach it.  The
 * core allocates it when an open call returns a new object (fi_fabric(),
 * fi_domain(), fi_endpoint() ... through kofi_fid_opened()); an object the
 * core never returned from an open call (a connection request handle) has
 * none, and nothing can hold or bind it.
 *
 * @ref of the state (a kref) counts one for the object itself plus one per
 * child (an object opened from it), per binding (fi_ep_bind() of a CQ to
 * an endpoint references the CQ) and per kofi_fid_get().  Only fi_close()
 * drops the object's own reference, and only after the provider's close
 * operation succeeded: a count never goes back up from zero.
 *
 * Closing is a state of the handle, distinct from the count.  fi_close()
 * checks under @lock that the object holds only its own reference, and
 * sets KOFI_FID_CLOSING in the handle there, so that no new reference can
 * be taken while the provider closes the object.  If the provider's close
 * fails, the flag is cleared again and the object is as before.  If it
 * succeeds, the flag stays (the provider may have freed the fid; a kept
 * one reads as closed) and the state is released.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kref.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "kofi_core.h"

/* The low bit of fid->core: fi_close() is closing or has closed the fid. */
#define KOFI_FID_CLOSING	1UL

/**
 * struct kofi_fid_bind - a binding held by an object (fi_ep_bind() ...)
 * @next: next binding
 * @bfid: the bound object, referenced
 */
struct kofi_fid_bind {
	struct kofi_fid_bind *next;
	struct fid *bfid;
};

/**
 * struct kofi_fid_core - the core's state of an open object
 * @ref: the object's own reference plus one per child, binding and
 *	kofi_fid_get()
 * @lock: protects @binds, and the KOFI_FID_CLOSING flag of the handle
 *	against new references
 * @parent: the object it was opened from (referenced), or NULL
 * @binds: the objects bound to it, referenced
 * @slot: the bound object of each enum kofi_bind_slot, for lock-free
 *	reads (kofi_fid_slot()); set once, valid until the object is closed
 * @slot_flags: the flags each slot's object was bound with
 * @used: the slots taken or being taken by a binding, under @lock
 * @binding: kofi_fid_bind() calls between their checks and their
 *	recording, under @lock; fi_enable() waits for none and answers -EBUSY
 * @enabling: fi_enable() is in the provider, under @lock; nothing binds
 * @enabled: fi_enable() succeeded; nothing more can be bound, under @lock
 */
struct kofi_fid_core {
	struct kref ref;
	spinlock_t lock;	/* binds, used, binding, enabl*, closing */
	struct fid *parent;
	struct kofi_fid_bind *binds;
	struct fid *slot[KOFI_SLOT_MAX];
	u64 slot_flags[KOFI_SLOT_MAX];
	unsigned int used;
	unsigned int binding;
	bool enabling;
	bool enabled;
};

/* The state of @fid, NULL if it has none; valid until @fid is closed. */
static struct kofi_fid_core *kofi_fid_core(const struct fid *fid)
{
	return (struct kofi_fid_core *)(READ_ONCE(fid->core) &
					~KOFI_FID_CLOSING);
}

static void kofi_fid_release(struct kref *ref)
{
	kfree(container_of(ref, struct kofi_fid_core, ref));
}

/**
 * kofi_fid_init() - initialise the identity of a new object
 * @fid: the object's fid
 * @fclass: its class, enum fi_fclass
 * @ops: its operations (close is required)
 * @context: the user context given to the open call
 *
 * Providers call this for every object they create, before returning it.
 * The core attaches its state and the parent link when the open call
 * returns.
 *
 * Context: any context.
 */
void kofi_fid_init(struct fid *fid, u32 fclass, const struct fi_ops *ops,
		   void *context)
{
	fid->fclass = fclass;
	fid->context = context;
	fid->ops = ops;
	fid->core = 0;
}
EXPORT_SYMBOL_GPL(kofi_fid_init);

/**
 * kofi_fid_get() - hold an open object
 * @fid: the object; the caller keeps its memory valid during the call
 *	(it must not race the object's successful fi_close())
 *
 * While held, fi_close(@fid) returns -EBUSY.  Providers use it for
 * references the core does not know about (e.g. a connection request
 * handle holding its passive endpoint).
 *
 * Context: any context.
 * Return: true if @fid is now held; false if it is closed, being closed,
 * or was not returned by an open call.
 */
bool kofi_fid_get(struct fid *fid)
{
	struct kofi_fid_core *c;
	unsigned long flags;
	bool held = false;

	if (!fid || (READ_ONCE(fid->core) & KOFI_FID_CLOSING))
		return false;
	c = kofi_fid_core(fid);
	if (!c)
		return false;
	spin_lock_irqsave(&c->lock, flags);
	if (!(READ_ONCE(fid->core) & KOFI_FID_CLOSING)) {
		kref_get(&c->ref);
		held = true;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return held;
}
EXPORT_SYMBOL_GPL(kofi_fid_get);

/**
 * kofi_fid_put() - release a kofi_fid_get() reference
 * @fid: the object
 *
 * Context: any context.
 */
void kofi_fid_put(struct fid *fid)
{
	struct kofi_fid_core *c = fid ? kofi_fid_core(fid) : NULL;

	if (c)
		kref_put(&c->ref, kofi_fid_release);
}
EXPORT_SYMBOL_GPL(kofi_fid_put);

/**
 * kofi_fid_closed() - has fi_close() released this object?
 * @fid: the object; its memory must still be valid
 *
 * Meant for providers and tests that keep the memory of a closed object.
 *
 * Context: any context.
 * Return: true once @fid was successfully closed (and while fi_close() is
 * closing it; false again if the provider's close fails).
 */
bool kofi_fid_closed(const struct fid *fid)
{
	return READ_ONCE(fid->core) & KOFI_FID_CLOSING;
}
EXPORT_SYMBOL_GPL(kofi_fid_closed);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kofi_fid_test_refs() - the number of references held on an object
 * @fid: the object, open
 *
 * For KUnit tests only.
 *
 * Context: any context.
 * Return: the count (1: only the object's own), 0 if @fid has no state.
 */
unsigned int kofi_fid_test_refs(const struct fid *fid)
{
	struct kofi_fid_core *c = kofi_fid_core(fid);

	return c ? kref_read(&c->ref) : 0;
}
EXPORT_SYMBOL_GPL(kofi_fid_test_refs);
#endif

/**
 * kofi_fid_parent() - the object @fid was opened from
 * @fid: an open object
 *
 * Context: any context.
 * Return: the parent, or NULL (a fabric, or an object without state).
 */
struct fid *kofi_fid_parent(const struct fid *fid)
{
	struct kofi_fid_core *c = kofi_fid_core(fid);

	return c ? c->parent : NULL;
}

/**
 * kofi_fid_opened() - finish an open call: give the child its core state
 * @parent: the object the child was opened from, held by the caller, or
 *	NULL (a fabric)
 * @ret: the provider's return value
 * @child: the new object (only looked at if @ret is 0)
 * @fclass: the class the child must have
 *
 * On success the caller's hold on @parent becomes the child's; on failure
 * it is dropped, and a child the core cannot take is closed again.
 *
 * Context: process context, may sleep.
 * Return: @ret; -ENOMEM; -EIO if the provider returned a bad object.
 */
int kofi_fid_opened(struct fid *parent, int ret, struct fid *child,
		    u32 fclass)
{
	struct kofi_fid_core *c;

	if (ret) {
		kofi_fid_put(parent);
		return ret > 0 ? -EIO : ret;
	}
	if (WARN_ONCE(!child || child->fclass != fclass || child->core,
		      "kofi: provider returned a bad object of class %u\n",
		      fclass)) {
		kofi_fid_put(parent);
		return -EIO;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c) {
		/* Nobody has seen the new object: its close cannot be busy. */
		if (child->ops && child->ops->close)
			WARN_ON_ONCE(child->ops->close(child));
		kofi_fid_put(parent);
		return -ENOMEM;
	}
	kref_init(&c->ref);
	spin_lock_init(&c->lock);
	c->parent = parent;
	WRITE_ONCE(child->core, (unsigned long)c);
	return 0;
}

/**
 * kofi_fid_bind() - bind @bfid to @fid in the slots @slots, holding @bfid
 * @fid: the object bound to (endpoint, passive endpoint)
 * @bfid: the object bound (EQ, CQ ...), of a class the caller checked
 * @flags: binding flags, passed to the provider
 * @slots: the enum kofi_bind_slot bits @bfid takes; none may be taken
 *
 * The provider's bind operation, if it has one, is called after these
 * checks and before the binding is recorded; its error leaves @fid as it
 * was.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a bad @bfid, a slot already taken or an enabled
 * @fid (or one being enabled); -EBADF if @fid or @bfid is closed;
 * -ENOMEM; the provider's error.
 */
int kofi_fid_bind(struct fid *fid, struct fid *bfid, u64 flags,
		  unsigned int slots)
{
	struct kofi_fid_core *c = kofi_fid_core(fid);
	struct kofi_fid_bind *b;
	unsigned int i;
	int ret = 0;

	if (!bfid || bfid == fid || bfid->fclass == FI_CLASS_UNSPEC ||
	    bfid->fclass >= FI_CLASS_MAX)
		return -EINVAL;
	if (!c || (READ_ONCE(fid->core) & KOFI_FID_CLOSING))
		return -EBADF;
	b = kmalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	spin_lock_irq(&c->lock);
	if (c->enabled || c->enabling || (c->used & slots)) {
		ret = -EINVAL;
	} else {
		c->used |= slots;
		c->binding++;
	}
	spin_unlock_irq(&c->lock);
	if (ret)
		goto out_free;
	if (!kofi_fid_get(bfid)) {
		ret = -EBADF;
		goto out_slots;
	}
	if (fid->ops && fid->ops->bind) {
		ret = fid->ops->bind(fid, bfid, flags);
		if (ret) {
			ret = ret > 0 ? -EIO : ret;
			kofi_fid_put(bfid);
			goto out_slots;
		}
	}
	b->bfid = bfid;
	spin_lock_irq(&c->lock);
	b->next = c->binds;
	c->binds = b;
	for (i = 0; i < KOFI_SLOT_MAX; i++) {
		if (!(slots & BIT(i)))
			continue;
		c->slot_flags[i] = flags;
		/* Pairs with the acquire of kofi_fid_slot(). */
		smp_store_release(&c->slot[i], bfid);
	}
	c->binding--;
	spin_unlock_irq(&c->lock);
	return 0;

out_slots:
	spin_lock_irq(&c->lock);
	c->used &= ~slots;
	c->binding--;
	spin_unlock_irq(&c->lock);
out_free:
	kfree(b);
	return ret;
}

/**
 * kofi_fid_slot() - the object bound to @fid in @slot
 * @fid: the object bound to, open
 * @slot: enum kofi_bind_slot
 * @flags: if not NULL, set to the flags of the binding (0 if none)
 *
 * Lock-free: one load of the core's state.
 *
 * Context: any context; does not sleep.
 * Return: the bound object, valid until @fid is closed; NULL if none.
 */
struct fid *kofi_fid_slot(const struct fid *fid, enum kofi_bind_slot slot,
			  u64 *flags)
{
	struct kofi_fid_core *c = kofi_fid_core(fid);
	struct fid *bfid;

	if (!c || slot >= KOFI_SLOT_MAX) {
		if (flags)
			*flags = 0;
		return NULL;
	}
	/* Pairs with the release of kofi_fid_bind(): the flags are set. */
	bfid = smp_load_acquire(&c->slot[slot]);
	if (flags)
		*flags = bfid ? c->slot_flags[slot] : 0;
	return bfid;
}

/* The provider's enable of endpoint @fid; without one, none is needed. */
static int kofi_fid_ep_enable(struct fid *fid)
{
	struct fid_ep *ep = container_of(fid, struct fid_ep, fid);

	return ep->ops && ep->ops->enable ? ep->ops->enable(ep) : 0;
}

/*
 * fi_enable() of endpoint @fid: the provider's enable runs with no
 * binding in progress and none admitted until it returns; once it
 * succeeds, none is admitted again.  -EBUSY while a binding or another
 * enable is in progress.
 */
static int kofi_fid_enable(struct fid *fid)
{
	struct kofi_fid_core *c = kofi_fid_core(fid);
	int ret = 0;

	if (!c)
		return kofi_fid_ep_enable(fid);
	spin_lock_irq(&c->lock);
	if (c->binding || c->enabling)
		ret = -EBUSY;
	else
		c->enabling = true;
	spin_unlock_irq(&c->lock);
	if (ret)
		return ret;
	ret = kofi_fid_ep_enable(fid);
	spin_lock_irq(&c->lock);
	c->enabling = false;
	if (!ret)
		c->enabled = true;
	spin_unlock_irq(&c->lock);
	return ret;
}

/*
 * Start closing @fid: 0 with KOFI_FID_CLOSING set, -EBUSY while it is
 * held, -EBADF if it is closed (or being closed).
 */
static int kofi_fid_close_begin(struct fid *fid, struct kofi_fid_core *c)
{
	unsigned long v = READ_ONCE(fid->core);
	int ret = 0;

	if (v & KOFI_FID_CLOSING)
		return -EBADF;
	if (!c)		/* no state: only the closing flag */
		return cmpxchg(&fid->core, 0, KOFI_FID_CLOSING) ? -EBADF : 0;
	spin_lock_irq(&c->lock);
	if (READ_ONCE(fid->core) & KOFI_FID_CLOSING)
		ret = -EBADF;
	else if (kref_read(&c->ref) != 1)
		ret = -EBUSY;
	else
		WRITE_ONCE(fid->core, v | KOFI_FID_CLOSING);
	spin_unlock_irq(&c->lock);
	return ret;
}

/* The provider's close failed: @fid is open again, as it was. */
static void kofi_fid_close_abort(struct fid *fid, struct kofi_fid_core *c)
{
	if (!c) {
		WRITE_ONCE(fid->core, 0);
		return;
	}
	spin_lock_irq(&c->lock);
	WRITE_ONCE(fid->core, (unsigned long)c);
	spin_unlock_irq(&c->lock);
}

/**
 * fi_close() - close any kOFI object
 * @fid: the object
 *
 * Closing releases the object's hold on its parent and on the objects
 * bound to it.  An object is closed after its children: closing an
 * endpoint before its CQs and EQ, a domain after its endpoints, MRs and
 * CQs, the fabric last.  Closing an endpoint cancels its outstanding
 * operations; they complete with error entries (err ECANCELED) on its CQs.
 * Closing the last fabric of a provider lets its module unload.
 *
 * While the provider closes the object, it cannot be held (opening a
 * child of it fails with -EBADF).  If the provider's close fails, the
 * object is left exactly as it was: open, usable, and closable later.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if @fid is NULL or not an object; -FI_ENOSYS if the
 * object cannot be closed; -EBUSY while children or bindings hold the
 * object; -EBADF if the object was already closed (only detectable while
 * its memory is valid - after a successful close the provider may free
 * it); or the provider's error, in which case the object stays open.
 */
int fi_close(struct fid *fid)
{
	struct kofi_fid_bind *binds, *b;
	struct kofi_fid_core *c;
	struct module *owner = NULL;
	int ret;

	if (!fid || !fid->ops || fid->fclass == FI_CLASS_UNSPEC ||
	    fid->fclass >= FI_CLASS_MAX)
		return -EINVAL;
	if (!fid->ops->close)
		return -FI_ENOSYS;
	c = kofi_fid_core(fid);
	ret = kofi_fid_close_begin(fid, c);
	if (ret)
		return ret;
	if (fid->fclass == FI_CLASS_FABRIC)
		owner = container_of(fid, struct fid_fabric, fid)->owner;

	ret = fid->ops->close(fid);
	if (ret) {
		kofi_fid_close_abort(fid, c);
		return ret > 0 ? -EIO : ret;
	}
	/* @fid may be freed now; nobody can add a binding to @c. */
	if (c) {
		binds = c->binds;
		while (binds) {
			b = binds;
			binds = b->next;
			kofi_fid_put(b->bfid);
			kfree(b);
		}
		kofi_fid_put(c->parent);
		kref_put(&c->ref, kofi_fid_release);
	}
	module_put(owner);
	return 0;
}
EXPORT_SYMBOL_GPL(fi_close);

/**
 * fi_control() - object-specific control
 * @fid: the object
 * @command: FI_ENABLE, FI_BACKLOG, FI_GETOPSFLAG ...
 * @arg: command argument
 *
 * FI_ENABLE of an endpoint is fi_enable(): the core runs the provider's
 * enable operation (struct fi_ops_ep), never its control operation.
 *
 * Context: process context, may sleep (providers may document less).
 * Return: 0 or the provider's result; -EINVAL if @fid is not an open
 * object; -FI_ENOSYS if the provider has no control operation; for
 * FI_ENABLE of an endpoint, what fi_enable() returns.
 */
int fi_control(struct fid *fid, int command, void *arg)
{
	if (!fid || !fid->ops || fid->fclass == FI_CLASS_UNSPEC ||
	    fid->fclass >= FI_CLASS_MAX)
		return -EINVAL;
	if (fid->fclass == FI_CLASS_EP && command == FI_ENABLE)
		return kofi_fid_enable(fid);
	if (!fid->ops->control)
		return -FI_ENOSYS;
	return fid->ops->control(fid, command, arg);
}
EXPORT_SYMBOL_GPL(fi_control);
