// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: receive matching (include/kofi/match.h).
 *
 * Two lists per queue, as libfabric's utility code keeps them: posted
 * receives in posting order and unexpected messages in arrival order.  A
 * message goes to the first receive that takes it; a receive posted later
 * first looks through the unexpected messages.  So, between one source
 * and one receive queue, messages are received in the order they were
 * sent, and receives are used in the order they were posted.
 */
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <kofi/match.h>
#include <kofi/provider.h>

/**
 * kofi_match_init() - initialise an empty queue
 * @q: the queue
 * @tagged: tags count (a tagged receive queue)
 * @directed: a receive's source counts (FI_DIRECTED_RECV)
 * @max_unexpected: at most this many unexpected messages wait
 * @min_multi_recv: a multi-receive buffer with less than this left is
 *	released (FI_OPT_MIN_MULTI_RECV)
 *
 * Context: any context.
 */
void kofi_match_init(struct kofi_match_queue *q, bool tagged, bool directed,
		     unsigned int max_unexpected, size_t min_multi_recv)
{
	INIT_LIST_HEAD(&q->posted);
	INIT_LIST_HEAD(&q->unexpected);
	q->nr_unexpected = 0;
	q->max_unexpected = max_unexpected;
	q->min_multi_recv = min_multi_recv;
	q->tagged = tagged;
	q->directed = directed;
}
EXPORT_SYMBOL_GPL(kofi_match_init);

/**
 * kofi_match_takes() - whether a receive takes a message
 * @q: the queue
 * @rx: the receive (or, for kofi_match_peek(), what is looked for)
 * @msg: the message
 *
 * On a tagged queue the tags must be equal but for @rx->ignore's bits; on
 * a directed queue @rx->addr must be FI_ADDR_UNSPEC or @msg->addr.
 *
 * Context: any context.
 * Return: true if @rx takes @msg.
 */
bool kofi_match_takes(const struct kofi_match_queue *q,
		      const struct kofi_match_entry *rx,
		      const struct kofi_match_entry *msg)
{
	if (q->tagged && ((rx->tag ^ msg->tag) & ~rx->ignore))
		return false;
	return !q->directed || rx->addr == FI_ADDR_UNSPEC ||
	       rx->addr == msg->addr;
}
EXPORT_SYMBOL_GPL(kofi_match_takes);

/*
 * @rx takes @msg: say where @msg goes; a multi-receive buffer takes its
 * bytes and is released (true) once less than the minimum is left.
 */
static bool kofi_match_take(struct kofi_match_queue *q,
			    struct kofi_match_entry *rx,
			    struct kofi_match_entry *msg)
{
	size_t left;

	if (!(rx->flags & FI_MULTI_RECV)) {
		msg->offset = 0;
		return true;
	}
	msg->offset = rx->offset;
	left = rx->len - rx->offset;
	rx->offset += min(msg->len, left);
	if (rx->len - rx->offset >= q->min_multi_recv &&
	    rx->offset < rx->len)
		return false;
	msg->flags |= FI_MULTI_RECV;
	return true;
}

/**
 * kofi_match_find() - a message arrived: find its receive, if posted
 * @q: the queue
 * @msg: the message, with @addr, @tag and @len set and @flags 0
 *
 * As kofi_match_arrive(), but a message no posted receive takes is not
 * queued: for a provider that must learn a message's tag before it can
 * receive it, and receives it straight into the receive's buffer when
 * one takes it, else into a buffer of its own for kofi_match_arrive().
 *
 * Context: any context; the caller serialises calls on @q.
 * Return: the receive, or NULL.
 */
struct kofi_match_entry *kofi_match_find(struct kofi_match_queue *q,
					 struct kofi_match_entry *msg)
{
	struct kofi_match_entry *rx;

	list_for_each_entry(rx, &q->posted, node) {
		if (!kofi_match_takes(q, rx, msg))
			continue;
		if (kofi_match_take(q, rx, msg))
			list_del_init(&rx->node);
		return rx;
	}
	return NULL;
}
EXPORT_SYMBOL_GPL(kofi_match_find);

/**
 * kofi_match_arrive() - a message arrived: find its receive
 * @q: the queue
 * @msg: the message, with @addr, @tag and @len set and @flags 0
 *
 * The first posted receive that takes @msg takes it: @msg->offset says
 * where in the receive's buffer it goes (0 but for a multi-receive
 * buffer).  A receive is removed from the queue once used up: a plain one
 * at once, a multi-receive buffer when less than the minimum is left (then
 * @msg->flags has FI_MULTI_RECV).  If no receive takes @msg, it is queued
 * as unexpected.
 *
 * Context: any context; the caller serialises calls on @q.
 * Return: the receive; NULL if @msg was queued as unexpected;
 * ERR_PTR(-ENOBUFS) if the unexpected queue is full (nothing queued: the
 * caller holds the message back until a receive is posted).
 */
struct kofi_match_entry *kofi_match_arrive(struct kofi_match_queue *q,
					   struct kofi_match_entry *msg)
{
	struct kofi_match_entry *rx = kofi_match_find(q, msg);

	if (rx)
		return rx;
	if (q->nr_unexpected >= q->max_unexpected)
		return ERR_PTR(-ENOBUFS);
	list_add_tail(&msg->node, &q->unexpected);
	q->nr_unexpected++;
	return NULL;
}
EXPORT_SYMBOL_GPL(kofi_match_arrive);

static void kofi_match_unqueue(struct kofi_match_queue *q,
			       struct kofi_match_entry *msg)
{
	list_del_init(&msg->node);
	q->nr_unexpected--;
}

/**
 * kofi_match_post() - a receive is posted: take what waits for it
 * @q: the queue
 * @rx: the receive, with @addr, @tag, @ignore, @context, @len and @flags
 *	(FI_MULTI_RECV or 0) set, and @offset 0
 * @taken: list the unexpected messages @rx takes are moved to, in order
 *
 * A plain receive takes the first unexpected message it matches, a
 * multi-receive buffer as many as it can hold (each message's @offset
 * says where it goes; the last one before the buffer is released has
 * FI_MULTI_RECV in its @flags).  Messages claimed with FI_CLAIM wait for
 * kofi_match_claim().  A receive not used up is queued after the others.
 *
 * Context: any context; the caller serialises calls on @q.
 * Return: how many messages were moved to @taken.
 */
unsigned int kofi_match_post(struct kofi_match_queue *q,
			     struct kofi_match_entry *rx,
			     struct list_head *taken)
{
	struct kofi_match_entry *msg, *next;
	unsigned int n = 0;

	list_for_each_entry_safe(msg, next, &q->unexpected, node) {
		if ((msg->flags & FI_CLAIM) || !kofi_match_takes(q, rx, msg))
			continue;
		kofi_match_unqueue(q, msg);
		list_add_tail(&msg->node, taken);
		n++;
		if (kofi_match_take(q, rx, msg))
			return n;
	}
	list_add_tail(&rx->node, &q->posted);
	return n;
}
EXPORT_SYMBOL_GPL(kofi_match_post);

/**
 * kofi_match_peek() - fi_trecvmsg() with FI_PEEK: look for a message
 * @q: the queue
 * @rx: what is looked for (@addr, @tag, @ignore) and, for FI_CLAIM, the
 *	claiming @context
 * @flags: FI_PEEK, with FI_CLAIM or FI_DISCARD or neither
 *
 * Finds the first unexpected message @rx would take that nobody claimed.
 * With FI_CLAIM it stays queued, claimed by @rx->context, for
 * kofi_match_claim(); with FI_DISCARD it is removed (the caller frees
 * it); otherwise it stays where it is.
 *
 * Context: any context; the caller serialises calls on @q.
 * Return: the message, or NULL if none waits (fi_trecvmsg() then
 * completes with an ENOMSG error entry, as libfabric's does).
 */
struct kofi_match_entry *kofi_match_peek(struct kofi_match_queue *q,
					 const struct kofi_match_entry *rx,
					 u64 flags)
{
	struct kofi_match_entry *msg;

	list_for_each_entry(msg, &q->unexpected, node) {
		if ((msg->flags & FI_CLAIM) || !kofi_match_takes(q, rx, msg))
			continue;
		if (flags & FI_CLAIM) {
			msg->flags |= FI_CLAIM;
			msg->context = rx->context;
		} else if (flags & FI_DISCARD) {
			kofi_match_unqueue(q, msg);
		}
		return msg;
	}
	return NULL;
}
EXPORT_SYMBOL_GPL(kofi_match_peek);

/**
 * kofi_match_peek_write() - write the answer of fi_trecvmsg(FI_PEEK)
 * @cq: the endpoint's receive CQ
 * @context: the call's context
 * @found: what the message kofi_match_peek() found says - its length,
 *	tag, source, and remote CQ data with FI_REMOTE_CQ_DATA in @flags -
 *	or NULL if it found none
 *
 * A message found is described by a completion of FI_RECV | FI_TAGGED
 * (with FI_REMOTE_CQ_DATA and the data if it has them); none, by an
 * ENOMSG error entry, as libfabric's providers answer.
 *
 * Context: any context; no lock of the caller's held.
 * Return: 0; -EAGAIN if @cq has no room for the ENOMSG entry (the call
 * fails then, to be made again).
 */
int kofi_match_peek_write(struct fid_cq *cq, void *context,
			  const struct kofi_comp *found)
{
	if (!found)
		return kofi_cq_write_err(cq, context, FI_RECV | FI_TAGGED,
					 ENOMSG, 0, 0, 0) == -EOVERFLOW ?
		       -EAGAIN : 0;
	kofi_cq_write_tagged(cq, context, FI_RECV | FI_TAGGED |
			     (found->flags & FI_REMOTE_CQ_DATA), found->len,
			     NULL, found->data, found->tag, found->src);
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_match_peek_write);

/**
 * kofi_match_claim() - fi_trecvmsg() with FI_CLAIM: take a claimed message
 * @q: the queue
 * @context: the context of the FI_PEEK | FI_CLAIM that claimed it
 *
 * Context: any context; the caller serialises calls on @q.
 * Return: the message, removed from the queue (the caller receives it, or
 * frees it for FI_DISCARD); NULL if none is claimed by @context.
 */
struct kofi_match_entry *kofi_match_claim(struct kofi_match_queue *q,
					  void *context)
{
	struct kofi_match_entry *msg;

	list_for_each_entry(msg, &q->unexpected, node) {
		if (!(msg->flags & FI_CLAIM) || msg->context != context)
			continue;
		kofi_match_unqueue(q, msg);
		msg->flags &= ~FI_CLAIM;
		return msg;
	}
	return NULL;
}
EXPORT_SYMBOL_GPL(kofi_match_claim);

/**
 * kofi_match_cancel() - fi_cancel() of a posted receive
 * @q: the queue
 * @context: the receive's context
 *
 * A multi-receive buffer that took messages already is cancelled too: the
 * caller completes it with ECANCELED (its @offset bytes are in use).
 *
 * Context: any context; the caller serialises calls on @q.
 * Return: the receive, removed from the queue; NULL if no posted receive
 * has @context.
 */
struct kofi_match_entry *kofi_match_cancel(struct kofi_match_queue *q,
					   void *context)
{
	struct kofi_match_entry *rx;

	list_for_each_entry(rx, &q->posted, node) {
		if (rx->context != context)
			continue;
		list_del_init(&rx->node);
		return rx;
	}
	return NULL;
}
EXPORT_SYMBOL_GPL(kofi_match_cancel);

/**
 * kofi_match_forget() - a source left the address vector
 * @q: the queue
 * @addr: the source's fi_addr_t, removed from the AV
 * @cancelled: the receives directed to @addr are moved to the end of this
 *	list; the caller completes them with ECANCELED
 *
 * Messages from @addr that wait on @q stay, their source now
 * FI_ADDR_NOTAVAIL, so that a receive directed to a later entry in the
 * same AV slot does not take them.
 *
 * Context: any context; the caller serialises calls on @q.
 * Return: the number of receives moved to @cancelled.
 */
unsigned int kofi_match_forget(struct kofi_match_queue *q, fi_addr_t addr,
			       struct list_head *cancelled)
{
	struct kofi_match_entry *e, *next;
	unsigned int n = 0;

	/* FI_ADDR_NOTAVAIL is FI_ADDR_UNSPEC: any source, not one */
	if (addr == FI_ADDR_UNSPEC)
		return 0;
	list_for_each_entry_safe(e, next, &q->posted, node) {
		if (e->addr != addr)
			continue;
		list_move_tail(&e->node, cancelled);
		n++;
	}
	list_for_each_entry(e, &q->unexpected, node) {
		if (e->addr == addr)
			e->addr = FI_ADDR_NOTAVAIL;
	}
	return n;
}
EXPORT_SYMBOL_GPL(kofi_match_forget);
