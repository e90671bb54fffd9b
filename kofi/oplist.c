// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: outstanding operations of an endpoint, and their flush.
 *
 * A provider links each posted operation (struct kofi_op embedded in its
 * request) into the endpoint's struct kofi_oplist and unlinks it when it
 * completes.  When the endpoint is closed or shut down, kofi_oplist_flush()
 * completes everything still outstanding with an error entry (ECANCELED)
 * so the user gets back every context it posted; on a callback CQ
 * (FI_CQ_CALLBACK) that is a call of the operation's done().
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include "kofi_core.h"

/**
 * kofi_oplist_init() - initialise an empty operation list
 * @list: the list
 *
 * Context: any context.
 */
void kofi_oplist_init(struct kofi_oplist *list)
{
	spin_lock_init(&list->lock);
	INIT_LIST_HEAD(&list->ops);
}
EXPORT_SYMBOL_GPL(kofi_oplist_init);

/**
 * kofi_oplist_add() - record an outstanding operation
 * @list: the list
 * @op: the operation, with cq, context and flags set
 *
 * Context: any context; does not sleep.
 */
void kofi_oplist_add(struct kofi_oplist *list, struct kofi_op *op)
{
	unsigned long irqflags;

	spin_lock_irqsave(&list->lock, irqflags);
	list_add_tail(&op->node, &list->ops);
	spin_unlock_irqrestore(&list->lock, irqflags);
}
EXPORT_SYMBOL_GPL(kofi_oplist_add);

/**
 * kofi_oplist_del() - take a completing operation off the list
 * @list: the list
 * @op: the operation
 *
 * Context: any context; does not sleep.
 * Return: true if @op was outstanding and is now the caller's to complete;
 * false if a flush took it first (the flush completes it).
 */
bool kofi_oplist_del(struct kofi_oplist *list, struct kofi_op *op)
{
	unsigned long irqflags;
	bool found = false;

	spin_lock_irqsave(&list->lock, irqflags);
	if (!list_empty(&op->node)) {
		list_del_init(&op->node);
		found = true;
	}
	spin_unlock_irqrestore(&list->lock, irqflags);
	return found;
}
EXPORT_SYMBOL_GPL(kofi_oplist_del);

/**
 * kofi_oplist_flush() - complete every outstanding operation in error
 * @list: the list
 * @err: the error, e.g. ECANCELED (sign ignored)
 * @release: called for each operation after its error completion has been
 *	written, to free the provider's request; may be NULL
 * @arg: passed to @release
 *
 * Each operation with a CQ gets an error entry (op_context = its context,
 * flags = its flags, err = @err); on a callback CQ its struct fi_cqe's
 * done() is called with that error, in the caller's context, with no lock
 * of the list or the CQ held.  A completion lost to a full CQ is reported
 * there by the overrun entry.  The provider must have stopped posting to
 * the list (endpoint disabled) before it flushes.
 *
 * Context: any context; does not sleep (unless @release or a done()
 * does).
 * Return: the number of operations flushed.
 */
unsigned int kofi_oplist_flush(struct kofi_oplist *list, int err,
			       void (*release)(struct kofi_op *op, void *arg),
			       void *arg)
{
	struct kofi_op *op;
	unsigned long irqflags;
	unsigned int n = 0;

	for (;;) {
		spin_lock_irqsave(&list->lock, irqflags);
		op = list_first_entry_or_null(&list->ops, struct kofi_op, node);
		if (op)
			list_del_init(&op->node);
		spin_unlock_irqrestore(&list->lock, irqflags);
		if (!op)
			break;
		if (op->cq)
			kofi_cq_write_err(op->cq, op->context, op->flags,
					  err ? err : ECANCELED, 0, 0, 0);
		if (release)
			release(op, arg);
		n++;
	}
	return n;
}
EXPORT_SYMBOL_GPL(kofi_oplist_flush);
