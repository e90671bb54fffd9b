// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: object identity and lifetime.
 *
 * Every object starts with a struct fid whose @ref counts one for the
 * object itself plus one per child (an object opened from it) and per
 * binding (fi_ep_bind() of a CQ to an endpoint references the CQ).  The
 * core takes those references when a child is opened or a binding made, and
 * drops them when the child is closed.  fi_close() therefore succeeds only
 * on an object nobody holds: it moves @ref from 1 to 0 atomically, and
 * answers -EBUSY while children or bindings exist, -EBADF once closed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include "kofi_core.h"

/**
 * kofi_fid_init() - initialise the identity of a new object
 * @fid: the object's fid
 * @fclass: its class, enum fi_fclass
 * @ops: its operations (close is required)
 * @context: the user context given to the open call
 *
 * Providers call this for every object they create, before returning it.
 * The parent link is made by the core when the open call returns.
 *
 * Context: any context.
 */
void kofi_fid_init(struct fid *fid, u32 fclass, const struct fi_ops *ops,
		   void *context)
{
	fid->fclass = fclass;
	fid->context = context;
	fid->ops = ops;
	refcount_set(&fid->ref, 1);
	spin_lock_init(&fid->lock);
	fid->parent = NULL;
	fid->binds = NULL;
}
EXPORT_SYMBOL_GPL(kofi_fid_init);

/**
 * kofi_fid_get() - hold an open object
 * @fid: the object
 *
 * While held, fi_close(@fid) returns -EBUSY.  Providers use it for
 * references the core does not know about (e.g. a connection request
 * handle holding its passive endpoint).
 *
 * Context: any context.
 * Return: true if @fid was open and is now held, false if it is closed.
 */
bool kofi_fid_get(struct fid *fid)
{
	return fid && refcount_inc_not_zero(&fid->ref);
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
	if (fid)
		refcount_dec(&fid->ref);
}
EXPORT_SYMBOL_GPL(kofi_fid_put);

/**
 * kofi_fid_closed() - has fi_close() released this object?
 * @fid: the object; its memory must still be valid
 *
 * Meant for providers and tests that keep the memory of a closed object.
 *
 * Context: any context.
 * Return: true once @fid was successfully closed.
 */
bool kofi_fid_closed(const struct fid *fid)
{
	return !refcount_read(&fid->ref);
}
EXPORT_SYMBOL_GPL(kofi_fid_closed);

/**
 * kofi_fid_opened() - finish an open call: link the child to its parent
 * @parent: the object the child was opened from, held by the caller
 * @ret: the provider's return value
 * @child: the new object (only looked at if @ret is 0)
 * @fclass: the class the child must have
 *
 * On success the caller's hold on @parent becomes the child's; on failure
 * it is dropped.
 *
 * Context: any context.
 * Return: @ret, or -EIO if the provider returned a bad object.
 */
int kofi_fid_opened(struct fid *parent, int ret, struct fid *child,
		    u32 fclass)
{
	if (ret) {
		kofi_fid_put(parent);
		return ret > 0 ? -EIO : ret;
	}
	if (WARN_ONCE(!child || child->fclass != fclass ||
		      refcount_read(&child->ref) != 1 || child->parent,
		      "kofi: provider returned a bad object of class %u\n",
		      fclass)) {
		kofi_fid_put(parent);
		return -EIO;
	}
	child->parent = parent;
	return 0;
}

/**
 * kofi_fid_bind() - bind @bfid to @fid through the provider, holding @bfid
 * @fid: the object bound to (endpoint, passive endpoint)
 * @bfid: the object bound (EQ, CQ ...)
 * @flags: binding flags, passed to the provider
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL, -EBADF if @bfid is closed, -FI_ENOSYS, -ENOMEM or the
 * provider's error.
 */
int kofi_fid_bind(struct fid *fid, struct fid *bfid, u64 flags)
{
	struct kofi_fid_bind *b;
	int ret;

	if (!bfid || bfid == fid || bfid->fclass == FI_CLASS_UNSPEC ||
	    bfid->fclass >= FI_CLASS_MAX)
		return -EINVAL;
	if (!fid->ops || !fid->ops->bind)
		return -FI_ENOSYS;
	b = kmalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	if (!kofi_fid_get(bfid)) {
		kfree(b);
		return -EBADF;
	}
	ret = fid->ops->bind(fid, bfid, flags);
	if (ret) {
		kofi_fid_put(bfid);
		kfree(b);
		return ret;
	}
	b->bfid = bfid;
	spin_lock(&fid->lock);
	b->next = fid->binds;
	fid->binds = b;
	spin_unlock(&fid->lock);
	return 0;
}

/**
 * kofi_fid_bound() - the object of class @fclass bound to @fid
 * @fid: the object bound to
 * @fclass: the class looked for
 *
 * Context: process context (binds are made there); does not sleep.
 * Return: the most recently bound object of @fclass, or NULL.
 */
struct fid *kofi_fid_bound(struct fid *fid, u32 fclass)
{
	struct kofi_fid_bind *b;
	struct fid *found = NULL;

	spin_lock(&fid->lock);
	for (b = fid->binds; b && !found; b = b->next)
		if (b->bfid->fclass == fclass)
			found = b->bfid;
	spin_unlock(&fid->lock);
	return found;
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
	struct module *owner = NULL;
	struct fid *parent;
	int ret;

	if (!fid || !fid->ops || fid->fclass == FI_CLASS_UNSPEC ||
	    fid->fclass >= FI_CLASS_MAX)
		return -EINVAL;
	if (!fid->ops->close)
		return -FI_ENOSYS;
	if (!refcount_dec_if_one(&fid->ref))
		return refcount_read(&fid->ref) ? -EBUSY : -EBADF;

	parent = fid->parent;
	spin_lock(&fid->lock);
	binds = fid->binds;
	spin_unlock(&fid->lock);
	if (fid->fclass == FI_CLASS_FABRIC)
		owner = container_of(fid, struct fid_fabric, fid)->owner;

	ret = fid->ops->close(fid);
	if (ret) {
		refcount_set(&fid->ref, 1);
		return ret > 0 ? -EIO : ret;
	}
	/* @fid may be freed now. */
	while (binds) {
		b = binds;
		binds = b->next;
		kofi_fid_put(b->bfid);
		kfree(b);
	}
	kofi_fid_put(parent);
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
 * Context: process context, may sleep (providers may document less).
 * Return: 0 or the provider's result; -EINVAL if @fid is not an open
 * object; -FI_ENOSYS if the provider has no control operation.
 */
int fi_control(struct fid *fid, int command, void *arg)
{
	if (!fid || !fid->ops || fid->fclass == FI_CLASS_UNSPEC ||
	    fid->fclass >= FI_CLASS_MAX)
		return -EINVAL;
	if (!fid->ops->control)
		return -FI_ENOSYS;
	return fid->ops->control(fid, command, arg);
}
EXPORT_SYMBOL_GPL(fi_control);
