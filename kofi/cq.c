// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: the shared completion queue.
 *
 * A bounded ring of completions, preallocated at open, protected by an
 * irq-safe spinlock: providers write completions from any context
 * (kofi_cq_write() from hardirq, softirq or process context) and users
 * read them from any context without allocating.  Error entries are queued
 * in order with the successful ones.
 *
 * Overrun: when a completion finds the ring full it is refused with
 * -EOVERFLOW and counted; the CQ then refuses every completion until the
 * user has read, after the entries already queued, one error entry with
 * err EOVERFLOW whose prov_errno is the number of completions lost.
 * Nothing is dropped silently.
 *
 * A callback CQ (FI_CQ_CALLBACK) has no ring and no lock: a completion
 * written to it is handed at once, in the writer's context, to the done()
 * of the struct fi_cqe that is the operation's context.
 *
 * Progress driven by the waiter: a thread in fi_cq_sread() on a ring CQ
 * drives it.  A provider whose endpoint has something to progress (a
 * message at its socket) calls kofi_cq_progress_kick(); while a thread
 * drives the CQ, the endpoint's struct kofi_cq_progress is queued and
 * that thread, woken, runs it in its own context - the completions it
 * waits for are written without a work item between the wake-up and the
 * reader.  Without a driver, or when the driver leaves first, the
 * provider's own work does it (the kick answers false, or the progress
 * is deferred).  One thread drives a CQ at a time; others wait as usual.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <kunit/visibility.h>
#include "kofi_core.h"

struct kofi_cq {
	struct fid_cq cq_fid;
	spinlock_t lock;	/* protects everything below */
	struct kofi_comp *ring;
	u32 size;
	u32 head;		/* slot of the oldest entry, < size */
	u32 count;		/* entries queued, <= size */
	u32 nerr;		/* error entries in the ring */
	u64 lost;		/* > 0: overrun, completions refused */
	bool signaled;
	enum fi_cq_format format;
	enum fi_cq_wait_cond wait_cond;
	wait_queue_head_t wq;
	void (*handler)(struct fid_cq *cq, void *context);
	bool driven;		/* a thread in fi_cq_sread() drives the CQ */
	struct list_head pending;	/* kofi_cq_progress to run */
	struct mutex run_mutex;	/* held while one of them runs */
};

static const struct fi_ops_cq kofi_cq_ops;
static const struct fi_ops_cq kofi_cq_cb_ops;

static struct kofi_cq *kofi_cq(struct fid_cq *cq_fid)
{
	return container_of(cq_fid, struct kofi_cq, cq_fid);
}

/*
 * Bytes of an entry of each format.  Each format's entry is the start of
 * struct fi_cq_tagged_entry (as in libfabric), so one entry filled in full
 * serves every format.
 */
static const size_t kofi_cq_entry_size[] = {
	[FI_CQ_FORMAT_CONTEXT] = sizeof(struct fi_cq_entry),
	[FI_CQ_FORMAT_MSG] = sizeof(struct fi_cq_msg_entry),
	[FI_CQ_FORMAT_DATA] = sizeof(struct fi_cq_data_entry),
	[FI_CQ_FORMAT_TAGGED] = sizeof(struct fi_cq_tagged_entry),
};

static_assert(offsetof(struct fi_cq_msg_entry, len) ==
	      offsetof(struct fi_cq_tagged_entry, len));
static_assert(offsetof(struct fi_cq_data_entry, data) ==
	      offsetof(struct fi_cq_tagged_entry, data));
static_assert(sizeof(struct fi_cq_data_entry) ==
	      offsetof(struct fi_cq_tagged_entry, tag));

static void kofi_cq_copy(struct kofi_cq *cq, void *buf, size_t i,
			 const struct kofi_comp *s)
{
	const struct fi_cq_tagged_entry e = {
		.op_context = s->op_context,
		.flags = s->flags,
		.len = s->len,
		.buf = s->buf,
		.data = s->data,
		.tag = s->tag,
	};
	size_t size = kofi_cq_entry_size[cq->format];

	memcpy((char *)buf + i * size, &e, size);
}

static ssize_t kofi_cq_readfrom(struct fid_cq *cq_fid, void *buf,
				size_t count, fi_addr_t *src_addr)
{
	struct kofi_cq *cq = kofi_cq(cq_fid);
	struct kofi_comp *s;
	unsigned long irqflags;
	ssize_t n = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	while (n < count && cq->count) {
		s = &cq->ring[cq->head];
		if (s->err)
			break;
		kofi_cq_copy(cq, buf, n, s);
		if (src_addr)
			src_addr[n] = s->src;
		cq->head = kofi_ring_slot(cq->head, 1, cq->size);
		cq->count--;
		n++;
	}
	if (!n && count)
		n = (cq->count || cq->lost) ? -FI_EAVAIL : -EAGAIN;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return n;
}

static ssize_t kofi_cq_read(struct fid_cq *cq_fid, void *buf, size_t count)
{
	return kofi_cq_readfrom(cq_fid, buf, count, NULL);
}

static ssize_t kofi_cq_readerr(struct fid_cq *cq_fid,
			       struct fi_cq_err_entry *buf, u64 flags)
{
	struct kofi_cq *cq = kofi_cq(cq_fid);
	struct kofi_comp *s;
	unsigned long irqflags;
	ssize_t ret = 1;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->count && cq->ring[cq->head].err) {
		s = &cq->ring[cq->head];
		memset(buf, 0, sizeof(*buf));
		buf->op_context = s->op_context;
		buf->flags = s->flags;
		buf->len = s->len;
		buf->buf = s->buf;
		buf->data = s->data;
		buf->tag = s->tag;
		buf->olen = s->olen;
		buf->err = s->err;
		buf->prov_errno = s->prov_errno;
		if (!(flags & FI_PEEK)) {
			cq->head = kofi_ring_slot(cq->head, 1, cq->size);
			cq->count--;
			cq->nerr--;
		}
	} else if (!cq->count && cq->lost) {
		memset(buf, 0, sizeof(*buf));
		buf->err = EOVERFLOW;
		buf->prov_errno = min_t(u64, cq->lost, INT_MAX);
		if (!(flags & FI_PEEK))
			cq->lost = 0;
	} else {
		ret = -EAGAIN;
	}
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

static bool kofi_cq_ready_locked(struct kofi_cq *cq, u32 threshold)
{
	lockdep_assert_held(&cq->lock);
	return cq->signaled || cq->lost || cq->nerr || cq->count >= threshold;
}

static bool kofi_cq_ready(struct kofi_cq *cq, u32 threshold)
{
	unsigned long irqflags;
	bool ready;

	spin_lock_irqsave(&cq->lock, irqflags);
	ready = kofi_cq_ready_locked(cq, threshold);
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ready;
}

static bool kofi_cq_take_signal(struct kofi_cq *cq)
{
	unsigned long irqflags;
	bool signaled;

	spin_lock_irqsave(&cq->lock, irqflags);
	signaled = cq->signaled;
	cq->signaled = false;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return signaled;
}

/* The fi_cq_sread() thread takes the CQ's progress, if no other has it. */
static bool kofi_cq_drive_begin(struct kofi_cq *cq)
{
	unsigned long irqflags;
	bool driving;

	spin_lock_irqsave(&cq->lock, irqflags);
	driving = !cq->driven;
	cq->driven = true;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return driving;
}

/*
 * Run (@run) or hand back (!@run) the progress queued so far, one at a
 * time under run_mutex, so that kofi_cq_progress_stop() can wait for the
 * one running.  A kick during the pass waits for the next one: the
 * waiter returns to its caller even while wake-ups keep coming.
 */
static void kofi_cq_drive_pass(struct kofi_cq *cq, bool run)
{
	struct kofi_cq_progress *p;
	unsigned long irqflags;
	LIST_HEAD(batch);

	mutex_lock(&cq->run_mutex);
	spin_lock_irqsave(&cq->lock, irqflags);
	list_splice_init(&cq->pending, &batch);
	for (;;) {
		p = list_first_entry_or_null(&batch, struct kofi_cq_progress,
					     node);
		if (p)
			list_del_init(&p->node);
		spin_unlock_irqrestore(&cq->lock, irqflags);
		if (!p)
			break;
		if (run)
			p->run(p);
		else
			p->defer(p);
		spin_lock_irqsave(&cq->lock, irqflags);
	}
	mutex_unlock(&cq->run_mutex);
}

/* The driver leaves: what was queued for it goes back to the providers. */
static void kofi_cq_drive_end(struct kofi_cq *cq)
{
	unsigned long irqflags;

	spin_lock_irqsave(&cq->lock, irqflags);
	cq->driven = false;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	kofi_cq_drive_pass(cq, false);
}

/* What wakes an fi_cq_sread() thread: kofi_cq_ready(), or progress to run. */
static bool kofi_cq_woken(struct kofi_cq *cq, u32 threshold, bool driving)
{
	unsigned long irqflags;
	bool woken;

	spin_lock_irqsave(&cq->lock, irqflags);
	woken = kofi_cq_ready_locked(cq, threshold) ||
		(driving && !list_empty(&cq->pending));
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return woken;
}

static ssize_t kofi_cq_sreadfrom(struct fid_cq *cq_fid, void *buf,
				 size_t count, fi_addr_t *src_addr,
				 const void *cond, int timeout)
{
	struct kofi_cq *cq = kofi_cq(cq_fid);
	u32 threshold = 1;
	bool driving;
	long left;
	ssize_t ret;

	if (cq->wait_cond == FI_CQ_COND_THRESHOLD && cond)
		threshold = clamp_t(size_t, *(const size_t *)cond, 1,
				    min_t(size_t, count, cq->size));
	if (!timeout)
		return kofi_cq_readfrom(cq_fid, buf, count, src_addr);

	left = timeout < 0 ? MAX_SCHEDULE_TIMEOUT : msecs_to_jiffies(timeout);
	driving = kofi_cq_drive_begin(cq);
	for (;;) {
		if (driving)
			kofi_cq_drive_pass(cq, true);
		if (kofi_cq_ready(cq, threshold)) {
			ret = -EAGAIN;
			if (kofi_cq_take_signal(cq))
				break;
			ret = kofi_cq_readfrom(cq_fid, buf, count, src_addr);
			if (ret != -EAGAIN)
				break;
		}
		if (!left) {
			ret = kofi_cq_readfrom(cq_fid, buf, count, src_addr);
			break;
		}
		left = wait_event_interruptible_timeout(cq->wq,
							kofi_cq_woken(cq,
								      threshold,
								      driving),
							left);
		if (left < 0) {
			ret = -EINTR;
			break;
		}
	}
	if (driving)
		kofi_cq_drive_end(cq);
	return ret;
}

static ssize_t kofi_cq_sread(struct fid_cq *cq_fid, void *buf, size_t count,
			     const void *cond, int timeout)
{
	return kofi_cq_sreadfrom(cq_fid, buf, count, NULL, cond, timeout);
}

static int kofi_cq_signal(struct fid_cq *cq_fid)
{
	struct kofi_cq *cq = kofi_cq(cq_fid);
	unsigned long irqflags;

	spin_lock_irqsave(&cq->lock, irqflags);
	cq->signaled = true;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	wake_up_interruptible(&cq->wq);
	return 0;
}

/* A callback CQ has nothing to read, wait for or signal. */
static ssize_t kofi_cq_cb_read(struct fid_cq *cq_fid, void *buf,
			       size_t count)
{
	return -EOPNOTSUPP;
}

static ssize_t kofi_cq_cb_readfrom(struct fid_cq *cq_fid, void *buf,
				   size_t count, fi_addr_t *src_addr)
{
	return -EOPNOTSUPP;
}

static ssize_t kofi_cq_cb_readerr(struct fid_cq *cq_fid,
				  struct fi_cq_err_entry *buf, u64 flags)
{
	return -EOPNOTSUPP;
}

static ssize_t kofi_cq_cb_sread(struct fid_cq *cq_fid, void *buf,
				size_t count, const void *cond, int timeout)
{
	return -EOPNOTSUPP;
}

static ssize_t kofi_cq_cb_sreadfrom(struct fid_cq *cq_fid, void *buf,
				    size_t count, fi_addr_t *src_addr,
				    const void *cond, int timeout)
{
	return -EOPNOTSUPP;
}

static int kofi_cq_cb_signal(struct fid_cq *cq_fid)
{
	return -EOPNOTSUPP;
}

static int kofi_cq_close(struct fid *fid)
{
	struct kofi_cq *cq = container_of(fid, struct kofi_cq, cq_fid.fid);

	mutex_destroy(&cq->run_mutex);
	kvfree(cq->ring);
	kfree(cq);
	return 0;
}

static const struct fi_ops kofi_cq_fi_ops = {
	.close = kofi_cq_close,
};

static const struct fi_ops_cq kofi_cq_ops = {
	.read = kofi_cq_read,
	.readfrom = kofi_cq_readfrom,
	.readerr = kofi_cq_readerr,
	.sread = kofi_cq_sread,
	.sreadfrom = kofi_cq_sreadfrom,
	.signal = kofi_cq_signal,
};

static const struct fi_ops_cq kofi_cq_cb_ops = {
	.read = kofi_cq_cb_read,
	.readfrom = kofi_cq_cb_readfrom,
	.readerr = kofi_cq_cb_readerr,
	.sread = kofi_cq_cb_sread,
	.sreadfrom = kofi_cq_cb_sreadfrom,
	.signal = kofi_cq_cb_signal,
};

/**
 * kofi_cq_open_generic() - open a CQ of the shared implementation
 * @domain: the domain (the core links the CQ to it)
 * @attr: CQ attributes; size 0 and FI_CQ_FORMAT_UNSPEC are replaced by
 *	the values used (FI_CQ_DEFAULT_SIZE, FI_CQ_FORMAT_CONTEXT);
 *	flags 0 or FI_CQ_CALLBACK
 * @cq: the new CQ
 * @context: user context
 *
 * A provider sets it as its fi_ops_domain.cq_open (or calls it from its
 * own cq_open) and writes completions with kofi_cq_write() and
 * kofi_cq_write_err().  With FI_CQ_CALLBACK the CQ has no ring and those
 * calls hand each completion to the operation's struct fi_cqe.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a size above FI_CQ_MAX_SIZE, a bad format or
 * wait condition, an unknown flag, or a comp_handler with FI_CQ_CALLBACK;
 * -ENOMEM.
 */
int kofi_cq_open_generic(struct fid_domain *domain, struct fi_cq_attr *attr,
			 struct fid_cq **cq, void *context)
{
	struct kofi_cq *q;

	if (!attr || !cq || attr->size > FI_CQ_MAX_SIZE ||
	    attr->format > KOFI_CQ_FORMAT_LAST ||
	    attr->wait_cond > FI_CQ_COND_THRESHOLD ||
	    (attr->flags & ~FI_CQ_CALLBACK) ||
	    ((attr->flags & FI_CQ_CALLBACK) && attr->comp_handler))
		return -EINVAL;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	spin_lock_init(&q->lock);
	init_waitqueue_head(&q->wq);
	INIT_LIST_HEAD(&q->pending);
	mutex_init(&q->run_mutex);
	kofi_fid_init(&q->cq_fid.fid, FI_CLASS_CQ, &kofi_cq_fi_ops, context);
	if (attr->flags & FI_CQ_CALLBACK) {
		q->cq_fid.ops = &kofi_cq_cb_ops;
		*cq = &q->cq_fid;
		return 0;
	}
	q->size = attr->size ? attr->size : FI_CQ_DEFAULT_SIZE;
	q->ring = kvcalloc(q->size, sizeof(*q->ring), GFP_KERNEL);
	if (!q->ring) {
		kfree(q);
		return -ENOMEM;
	}
	q->format = attr->format ? attr->format : FI_CQ_FORMAT_CONTEXT;
	q->wait_cond = attr->wait_cond;
	q->handler = attr->comp_handler;
	q->cq_fid.ops = &kofi_cq_ops;
	attr->size = q->size;
	attr->format = q->format;
	*cq = &q->cq_fid;
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_cq_open_generic);

/**
 * kofi_cq_progress_kick() - have a thread waiting on a CQ run progress
 * @cq_fid: the CQ the progress writes completions to (may be NULL)
 * @p: the endpoint's progress, set up by kofi_cq_progress_init()
 *
 * While a thread waits in fi_cq_sread() on @cq_fid, queues @p (once) and
 * wakes that thread, which runs @p->run in its own context; if it leaves
 * before it runs @p, it calls @p->defer.  Otherwise (no such thread, a
 * callback CQ, no shared CQ) does nothing and answers false: the caller
 * runs the progress its own way.
 *
 * Context: any context (the socket's wake-up callback, softirq; spinlocks
 * may be held, but no lock @p->run or @p->defer takes); does not sleep.
 * Return: true if the waiting thread will run @p (or defer it).
 */
bool kofi_cq_progress_kick(struct fid_cq *cq_fid, struct kofi_cq_progress *p)
{
	struct kofi_cq *cq;
	unsigned long irqflags;
	bool queued = false;

	if (!cq_fid || cq_fid->ops != &kofi_cq_ops)
		return false;
	cq = kofi_cq(cq_fid);
	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->driven) {
		if (list_empty(&p->node))
			list_add_tail(&p->node, &cq->pending);
		queued = true;
	}
	spin_unlock_irqrestore(&cq->lock, irqflags);
	if (queued)
		wake_up_interruptible_sync(&cq->wq);
	return queued;
}
EXPORT_SYMBOL_GPL(kofi_cq_progress_kick);

/**
 * kofi_cq_progress_stop() - no thread waiting on a CQ runs progress any more
 * @cq_fid: the CQ @p was kicked on (may be NULL)
 * @p: the endpoint's progress, no longer kicked
 *
 * Waits for the CQ's waiter to finish the progress it runs, then takes @p
 * off the CQ's queue (it is then neither run nor deferred).  Call it at
 * endpoint close, after the last kofi_cq_progress_kick() of @p.
 *
 * Context: process context, may sleep; no lock a run of progress takes
 * held, and not from a run of progress (a completion's done() or the
 * CQ's comp_handler called from one).
 */
void kofi_cq_progress_stop(struct fid_cq *cq_fid, struct kofi_cq_progress *p)
{
	struct kofi_cq *cq;
	unsigned long irqflags;

	if (!cq_fid || cq_fid->ops != &kofi_cq_ops)
		return;
	cq = kofi_cq(cq_fid);
	mutex_lock(&cq->run_mutex);
	spin_lock_irqsave(&cq->lock, irqflags);
	list_del_init(&p->node);
	spin_unlock_irqrestore(&cq->lock, irqflags);
	mutex_unlock(&cq->run_mutex);
}
EXPORT_SYMBOL_GPL(kofi_cq_progress_stop);

/* Complete an operation of a callback CQ: no lock held, no copy kept. */
static int kofi_cq_call(struct fid_cq *cq_fid, const struct kofi_comp *s)
{
	struct fi_cqe *cqe = s->op_context;
	struct fi_cq_err_entry comp = {
		.op_context = cqe,
		.flags = s->flags,
		.len = s->len,
		.buf = s->buf,
		.data = s->data,
		.tag = s->tag,
		.olen = s->olen,
		.err = abs(s->err),
		.prov_errno = s->prov_errno,
	};

	if (!cqe || !cqe->done) {
		pr_warn_ratelimited("kofi: completion without a struct fi_cqe on a callback CQ\n");
		return -EINVAL;
	}
	cqe->done(cq_fid, cqe, &comp);
	return 0;
}

/**
 * kofi_cq_write_comp() - write a completion
 * @cq_fid: a CQ opened by kofi_cq_open_generic()
 * @c: the completion; an error completion if @c->err is not 0
 *
 * Wakes fi_cq_sread() sleepers, then calls the CQ's comp_handler in the
 * caller's context.  On a callback CQ (FI_CQ_CALLBACK) @c->op_context is
 * the operation's struct fi_cqe, whose done() is called instead, in the
 * caller's context, with the completion (an error one with err set); no
 * lock of the CQ is held, and done() may post operations to the caller's
 * endpoint again.  fi_cq_readfrom() reports @c->src; fi_cq_readerr()
 * every field but @c->src.
 *
 * Context: any context (hardirq, softirq, process; spinlocks may be held,
 * but not ones the comp_handler or done() takes); does not sleep or
 * allocate.
 * Return: 0; -EOVERFLOW if the CQ was full (the loss is reported to the
 * user by an EOVERFLOW error entry); -EINVAL if @cq_fid is not a shared
 * CQ, or is a callback CQ and @c->op_context no struct fi_cqe with a
 * done(), or @c->err is INT_MIN.
 */
int kofi_cq_write_comp(struct fid_cq *cq_fid, const struct kofi_comp *c)
{
	struct kofi_cq *cq;
	struct kofi_comp *s;
	unsigned long irqflags;
	int ret = 0;

	if (!cq_fid || c->err == INT_MIN)
		return -EINVAL;
	if (cq_fid->ops == &kofi_cq_cb_ops)
		return kofi_cq_call(cq_fid, c);
	if (cq_fid->ops != &kofi_cq_ops)
		return -EINVAL;
	cq = kofi_cq(cq_fid);
	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->lost || cq->count >= cq->size) {
		if (cq->lost != U64_MAX)
			cq->lost++;
		ret = -EOVERFLOW;
	} else {
		s = &cq->ring[kofi_ring_slot(cq->head, cq->count, cq->size)];
		*s = *c;
		s->err = abs(c->err);
		cq->count++;
		if (s->err)
			cq->nerr++;
	}
	spin_unlock_irqrestore(&cq->lock, irqflags);

	/*
	 * A synchronous wake-up, as sockets wake their readers: completions
	 * mostly come from softirq, and the sleeper is best run on this CPU
	 * rather than on an idle one kicked awake by an IPI.
	 */
	if (wq_has_sleeper(&cq->wq))
		wake_up_interruptible_sync(&cq->wq);
	if (cq->handler)
		cq->handler(cq_fid, cq_fid->fid.context);
	return ret;
}
EXPORT_SYMBOL_GPL(kofi_cq_write_comp);

/**
 * kofi_cq_write_src() - write a successful completion with its source
 * @cq: a CQ opened by kofi_cq_open_generic()
 * @op_context: the operation's context
 * @flags: completion flags (FI_SEND, FI_RECV | FI_MSG, FI_RMA | FI_WRITE,
 *	FI_REMOTE_CQ_DATA ...)
 * @len: bytes transferred
 * @buf: receive buffer start, or NULL
 * @data: remote CQ data
 * @src_addr: source address (FI_ADDR_NOTAVAIL if unknown)
 *
 * As kofi_cq_write_comp() with these fields.
 *
 * Context: any context; does not sleep or allocate.
 * Return: as for kofi_cq_write_comp().
 */
int kofi_cq_write_src(struct fid_cq *cq, void *op_context, u64 flags,
		      size_t len, void *buf, u64 data, fi_addr_t src_addr)
{
	return kofi_cq_write_tagged(cq, op_context, flags, len, buf, data, 0,
				    src_addr);
}
EXPORT_SYMBOL_GPL(kofi_cq_write_src);

/**
 * kofi_cq_write_tagged() - write a successful completion with a tag
 * @cq: a CQ opened by kofi_cq_open_generic()
 * @op_context: the operation's context
 * @flags: completion flags (FI_TAGGED | FI_RECV ...)
 * @len: bytes transferred
 * @buf: receive buffer start, or NULL
 * @data: remote CQ data
 * @tag: the tag of the message a tagged receive took
 * @src_addr: source address (FI_ADDR_NOTAVAIL if unknown)
 *
 * As kofi_cq_write_src(); fi_cq_read() in FI_CQ_FORMAT_TAGGED returns
 * @tag (and a callback CQ's done() gets it in its entry).
 *
 * Context: any context; does not sleep or allocate.
 * Return: as for kofi_cq_write_comp().
 */
int kofi_cq_write_tagged(struct fid_cq *cq, void *op_context, u64 flags,
			 size_t len, void *buf, u64 data, u64 tag,
			 fi_addr_t src_addr)
{
	struct kofi_comp s = {
		.op_context = op_context,
		.flags = flags,
		.len = len,
		.buf = buf,
		.data = data,
		.tag = tag,
		.src = src_addr,
	};

	return kofi_cq_write_comp(cq, &s);
}
EXPORT_SYMBOL_GPL(kofi_cq_write_tagged);

/**
 * kofi_cq_write() - write a successful completion
 * @cq: a CQ opened by kofi_cq_open_generic()
 * @op_context: the operation's context
 * @flags: completion flags
 * @len: bytes transferred
 * @buf: receive buffer start, or NULL
 * @data: remote CQ data
 *
 * As kofi_cq_write_src() with FI_ADDR_NOTAVAIL.
 *
 * Context: any context; does not sleep or allocate.
 * Return: as for kofi_cq_write_comp().
 */
int kofi_cq_write(struct fid_cq *cq, void *op_context, u64 flags,
		  size_t len, void *buf, u64 data)
{
	return kofi_cq_write_src(cq, op_context, flags, len, buf, data,
				 FI_ADDR_NOTAVAIL);
}
EXPORT_SYMBOL_GPL(kofi_cq_write);

/**
 * kofi_cq_write_err() - write an error completion
 * @cq: a CQ opened by kofi_cq_open_generic()
 * @op_context: the failed operation's context
 * @flags: completion flags of the operation
 * @err: errno, positive or negative (stored positive): ECANCELED, EIO,
 *	EMSGSIZE, ENOKEY, EACCES, ERANGE, ECONNRESET ...
 * @prov_errno: provider-specific error, or 0
 * @len: bytes transferred before the error
 * @olen: bytes that did not fit (EMSGSIZE), or 0
 *
 * On a callback CQ, the done() of the struct fi_cqe @op_context is called
 * with the error (err positive, prov_errno, len, olen and flags set).
 *
 * Context: any context; does not sleep or allocate.
 * Return: as for kofi_cq_write_comp(); -EINVAL also for @err 0.
 */
int kofi_cq_write_err(struct fid_cq *cq, void *op_context, u64 flags,
		      int err, int prov_errno, size_t len, size_t olen)
{
	struct kofi_comp s = {
		.op_context = op_context,
		.flags = flags,
		.len = len,
		.src = FI_ADDR_NOTAVAIL,
		.olen = olen,
		.err = err,	/* made positive by kofi_cq_write_comp() */
		.prov_errno = prov_errno,
	};

	if (!err)
		return -EINVAL;
	return kofi_cq_write_comp(cq, &s);
}
EXPORT_SYMBOL_GPL(kofi_cq_write_err);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kofi_cq_test_set_pos() - KUnit only: place an empty CQ as if @pos
 *	completions had passed through it
 * @cq_fid: an empty CQ opened by kofi_cq_open_generic()
 * @pos: completions written and read so far
 *
 * Lets a test run a CQ across the wrap of 32-bit positions without 2^32
 * writes (kunit/kofi_queue_test.c).
 *
 * Context: any context; does not sleep.
 */
void kofi_cq_test_set_pos(struct fid_cq *cq_fid, u32 pos)
{
	struct kofi_cq *cq = kofi_cq(cq_fid);
	unsigned long irqflags;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (!WARN_ON(cq->count || !cq->size))
		cq->head = pos % cq->size;
	spin_unlock_irqrestore(&cq->lock, irqflags);
}
EXPORT_SYMBOL_IF_KUNIT(kofi_cq_test_set_pos);
#endif
