// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI utility providers: the private core queues of a utility object and
 * the kick of its progress work.
 *
 * A utility endpoint reads its core endpoint's events from a private core
 * EQ whose event handler queues the utility's progress work, and posts on
 * its core endpoint with FI_CQ_CALLBACK core CQs: each completion calls
 * the done() of the struct fi_cqe that is the operation's context.
 */
#include <linux/bug.h>
#include <linux/module.h>
#include <kofi/util.h>

/**
 * kofi_util_kick() - queue a utility object's progress work
 * @p: its progress
 *
 * Context: any context.
 */
void kofi_util_kick(struct kofi_util_progress *p)
{
	queue_work(p->wq, p->work);
}
EXPORT_SYMBOL_GPL(kofi_util_kick);

static void kofi_util_eq_handler(struct fid_eq *eq, void *context)
{
	kofi_util_kick(context);
}

/**
 * kofi_util_core_eq_open() - a private core EQ that kicks progress
 * @core: the core fabric
 * @size: entries (0 for the core's default)
 * @p: the progress its events kick; valid until the EQ is closed
 * @eq: the new core EQ
 *
 * Each event written to the EQ queues @p's work, which reads it.
 *
 * Context: process context, may sleep.
 * Return: 0, or fi_eq_open()'s error.
 */
int kofi_util_core_eq_open(struct fid_fabric *core, size_t size,
			   struct kofi_util_progress *p, struct fid_eq **eq)
{
	struct fi_eq_attr attr = {
		.size = size,
		.event_handler = kofi_util_eq_handler,
	};

	return fi_eq_open(core, &attr, eq, p);
}
EXPORT_SYMBOL_GPL(kofi_util_core_eq_open);

/**
 * kofi_util_core_cq_open() - a private core callback CQ
 * @core: the core domain
 * @size: entries (0 for the core's default)
 * @cq: the new core CQ, FI_CQ_CALLBACK: every operation posted with it
 *	has a struct fi_cqe as its context, whose done() the completion calls
 * @context: the CQ's context
 *
 * Context: process context, may sleep.
 * Return: 0, or fi_cq_open()'s error.
 */
int kofi_util_core_cq_open(struct fid_domain *core, size_t size,
			   struct fid_cq **cq, void *context)
{
	struct fi_cq_attr attr = { .size = size, .flags = FI_CQ_CALLBACK };

	return fi_cq_open(core, &attr, cq, context);
}
EXPORT_SYMBOL_GPL(kofi_util_core_cq_open);

/**
 * kofi_util_close_core() - close a core object a utility object owns
 * @fid: the core object, or NULL
 *
 * For the close paths of utility objects, which cannot fail: a core object
 * whose fi_close() fails (nothing bound to it is left open by the
 * utility, so it does not) is reported with a warning.
 *
 * Context: process context, may sleep.
 */
void kofi_util_close_core(struct fid *fid)
{
	int ret;

	if (!fid)
		return;
	ret = fi_close(fid);
	WARN_ONCE(ret, "kofi: closing a core object failed: %d\n", ret);
}
EXPORT_SYMBOL_GPL(kofi_util_close_core);
