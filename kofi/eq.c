// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: the shared event queue.
 *
 * A bounded ring of events preallocated at open, under an irq-safe
 * spinlock so providers may queue events from any context.  A slot holds
 * a struct fi_eq_entry, the fixed part of a struct fi_eq_cm_entry or a
 * struct fi_eq_err_entry.  Connection data, an error entry's error data
 * and whatever else of a fi_eq_write() entry does not fit the slot are
 * copied into memory allocated with the entry (GFP_ATOMIC) and freed when
 * the entry is read or the queue closed, so an EQ costs no memory for data
 * its entries do not carry.
 *
 * Ownership: the info of a FI_CONNREQ event written by a provider belongs
 * to the queue until the event is read (without FI_PEEK), then to the
 * reader.  Events never read are released at close: the info is freed and
 * its connection request handle closed (the provider rejects it).
 *
 * Overrun: an event written by a provider into a full queue is refused
 * with -EOVERFLOW, and one whose data cannot be allocated with -ENOMEM
 * (the provider keeps what it passed, e.g. frees the info and rejects the
 * request); either is counted as lost, and the queue then refuses events
 * until the user has read, after the queued ones, an error entry with err
 * EOVERFLOW and prov_errno the number of events lost.  fi_eq_write() by a
 * user and kofi_eq_offer_cm() return -EAGAIN (full) or -ENOMEM instead and
 * change nothing.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <kunit/visibility.h>
#include "kofi_core.h"

#define KOFI_EQ_ENTRY_MAX	(sizeof(struct fi_eq_cm_entry) + FI_CM_DATA_MAX)

/*
 * One entry.  An event's first @hdrlen bytes are in @u.raw, the rest of
 * its @len at @data; an error entry (@is_err) is @u.err, its @len bytes of
 * error data at @data.
 */
struct kofi_eq_slot {
	u32 event;
	u32 len;
	u32 hdrlen;
	bool is_err;
	struct fi_info *info;		/* owned CONNREQ info, or NULL */
	void *data;			/* allocated, or NULL */
	union {
		struct fi_eq_entry entry;
		struct fi_eq_cm_entry cm;
		struct fi_eq_err_entry err;
		u8 raw[sizeof(struct fi_eq_entry)];
	} u;
};

#define KOFI_EQ_INLINE		sizeof_field(struct kofi_eq_slot, u.raw)

struct kofi_eq {
	struct fid_eq eq_fid;
	spinlock_t lock;	/* protects everything below */
	struct kofi_eq_slot *ring;
	u32 size;
	u32 head;		/* slot of the oldest entry, < size */
	u32 count;		/* entries queued, <= size */
	u32 nerr;
	u64 lost;
	wait_queue_head_t wq;
	void (*handler)(struct fid_eq *eq, void *context);
#if IS_ENABLED(CONFIG_KUNIT)
	atomic_t test_fail_alloc;	/* data allocations still to fail */
#endif
};

static const struct fi_ops_eq kofi_eq_ops;

static struct kofi_eq *kofi_eq(struct fid_eq *eq_fid)
{
	return container_of(eq_fid, struct kofi_eq, eq_fid);
}

static ssize_t kofi_eq_read(struct fid_eq *eq_fid, u32 *event, void *buf,
			    size_t len, u64 flags)
{
	struct kofi_eq *eq = kofi_eq(eq_fid);
	struct kofi_eq_slot *s;
	unsigned long irqflags;
	void *data = NULL;
	ssize_t ret;

	spin_lock_irqsave(&eq->lock, irqflags);
	if (!eq->count) {
		ret = eq->lost ? -FI_EAVAIL : -EAGAIN;
		goto out;
	}
	s = &eq->ring[eq->head];
	if (s->is_err) {
		ret = -FI_EAVAIL;
		goto out;
	}
	if (len < s->len) {
		ret = -EMSGSIZE;
		goto out;
	}
	memcpy(buf, s->u.raw, s->hdrlen);
	if (s->len > s->hdrlen)
		memcpy(buf + s->hdrlen, s->data, s->len - s->hdrlen);
	*event = s->event;
	ret = s->len;
	if (!(flags & FI_PEEK)) {
		data = s->data;
		s->data = NULL;
		s->info = NULL;
		eq->head = kofi_ring_slot(eq->head, 1, eq->size);
		eq->count--;
	}
out:
	spin_unlock_irqrestore(&eq->lock, irqflags);
	kfree(data);
	return ret;
}

static ssize_t kofi_eq_readerr(struct fid_eq *eq_fid,
			       struct fi_eq_err_entry *buf, u64 flags)
{
	struct kofi_eq *eq = kofi_eq(eq_fid);
	void *user_data = buf->err_data;
	size_t user_size = user_data ? buf->err_data_size : 0;
	struct kofi_eq_slot *s;
	unsigned long irqflags;
	void *data = NULL;
	size_t copied = 0;
	ssize_t ret = sizeof(*buf);

	spin_lock_irqsave(&eq->lock, irqflags);
	if (eq->count && eq->ring[eq->head].is_err) {
		s = &eq->ring[eq->head];
		*buf = s->u.err;
		copied = min_t(size_t, user_size, s->len);
		if (copied)
			memcpy(user_data, s->data, copied);
		if (!(flags & FI_PEEK)) {
			data = s->data;
			s->data = NULL;
			eq->head = kofi_ring_slot(eq->head, 1, eq->size);
			eq->count--;
			eq->nerr--;
		}
	} else if (!eq->count && eq->lost) {
		memset(buf, 0, sizeof(*buf));
		buf->err = EOVERFLOW;
		buf->prov_errno = min_t(u64, eq->lost, INT_MAX);
		if (!(flags & FI_PEEK))
			eq->lost = 0;
	} else {
		ret = -EAGAIN;
	}
	spin_unlock_irqrestore(&eq->lock, irqflags);
	kfree(data);
	if (ret > 0) {
		buf->err_data = copied ? user_data : NULL;
		buf->err_data_size = copied;
	}
	return ret;
}

static bool kofi_eq_ready(struct kofi_eq *eq)
{
	unsigned long irqflags;
	bool ready;

	spin_lock_irqsave(&eq->lock, irqflags);
	ready = eq->count || eq->lost;
	spin_unlock_irqrestore(&eq->lock, irqflags);
	return ready;
}

static ssize_t kofi_eq_sread(struct fid_eq *eq_fid, u32 *event, void *buf,
			     size_t len, int timeout, u64 flags)
{
	struct kofi_eq *eq = kofi_eq(eq_fid);
	long left;
	ssize_t ret;

	if (!timeout)
		return kofi_eq_read(eq_fid, event, buf, len, flags);
	left = timeout < 0 ? MAX_SCHEDULE_TIMEOUT : msecs_to_jiffies(timeout);
	for (;;) {
		left = wait_event_interruptible_timeout(eq->wq,
							kofi_eq_ready(eq),
							left);
		if (left < 0)
			return -EINTR;
		ret = kofi_eq_read(eq_fid, event, buf, len, flags);
		if (ret != -EAGAIN || !left)
			return ret;
	}
}

/* A copy of an entry's data, GFP_ATOMIC: the writers may be in any context. */
static void *kofi_eq_dup_data(struct kofi_eq *eq, const void *data,
			      size_t len)
{
#if IS_ENABLED(CONFIG_KUNIT)
	if (atomic_add_unless(&eq->test_fail_alloc, -1, 0))
		return NULL;
#endif
	return kmemdup(data, len, GFP_ATOMIC);
}

/*
 * Queue one entry: @hdrlen bytes at @hdr (at most KOFI_EQ_INLINE) kept in
 * the slot, or the error entry @err; @datalen bytes at @data (the rest of
 * the event, or the error data) copied into memory allocated for the
 * entry.  @user: a fi_eq_write() or an offered event (-EAGAIN when full,
 * -ENOMEM when the copy cannot be allocated, neither counted as lost).
 */
static int kofi_eq_push(struct fid_eq *eq_fid, u32 event, const void *hdr,
			size_t hdrlen, const void *data, size_t datalen,
			struct fi_info *info,
			const struct fi_eq_err_entry *err, bool user)
{
	struct kofi_eq *eq;
	struct kofi_eq_slot *s;
	unsigned long irqflags;
	void *copy = NULL;
	int ret = 0;

	if (!eq_fid || eq_fid->ops != &kofi_eq_ops)
		return -EINVAL;
	if (WARN_ON_ONCE(hdrlen > KOFI_EQ_INLINE))
		return -EINVAL;
	eq = kofi_eq(eq_fid);
	if (datalen)
		copy = kofi_eq_dup_data(eq, data, datalen);
	spin_lock_irqsave(&eq->lock, irqflags);
	if (eq->lost || eq->count >= eq->size)
		ret = user ? -EAGAIN : -EOVERFLOW;
	else if (datalen && !copy)
		ret = -ENOMEM;
	if (ret) {
		if (!user && eq->lost != U64_MAX)
			eq->lost++;
	} else {
		s = &eq->ring[kofi_ring_slot(eq->head, eq->count, eq->size)];
		s->event = event;
		s->is_err = !!err;
		s->info = info;
		s->len = hdrlen + datalen;
		s->hdrlen = hdrlen;
		if (err) {
			s->u.err = *err;
			s->u.err.err_data = NULL;
			s->u.err.err_data_size = 0;
			eq->nerr++;
		} else if (hdrlen) {
			memcpy(s->u.raw, hdr, hdrlen);
		}
		s->data = copy;
		copy = NULL;
		eq->count++;
	}
	spin_unlock_irqrestore(&eq->lock, irqflags);
	kfree(copy);

	if (ret && user)
		return ret;
	if (wq_has_sleeper(&eq->wq))
		wake_up_interruptible(&eq->wq);
	if (eq->handler)
		eq->handler(eq_fid, eq_fid->fid.context);
	return ret;
}

static ssize_t kofi_eq_write(struct fid_eq *eq_fid, u32 event,
			     const void *buf, size_t len, u64 flags)
{
	size_t hdrlen = min(len, KOFI_EQ_INLINE);
	int ret;

	if (len > KOFI_EQ_ENTRY_MAX)
		return -EINVAL;
	ret = kofi_eq_push(eq_fid, event, buf, hdrlen, buf + hdrlen,
			   len - hdrlen, NULL, NULL, true);
	return ret ? ret : len;
}

static int kofi_eq_close(struct fid *fid)
{
	struct kofi_eq *eq = container_of(fid, struct kofi_eq, eq_fid.fid);
	struct fi_info *info;

	for (; eq->count; eq->count--) {
		info = eq->ring[eq->head].info;
		kfree(eq->ring[eq->head].data);
		eq->head = kofi_ring_slot(eq->head, 1, eq->size);
		if (!info)
			continue;
		if (info->handle && info->handle->fclass == FI_CLASS_CONNREQ)
			fi_close(info->handle);
		fi_freeinfo(info);
	}
	kvfree(eq->ring);
	kfree(eq);
	return 0;
}

static const struct fi_ops kofi_eq_fi_ops = {
	.close = kofi_eq_close,
};

static const struct fi_ops_eq kofi_eq_ops = {
	.read = kofi_eq_read,
	.readerr = kofi_eq_readerr,
	.write = kofi_eq_write,
	.sread = kofi_eq_sread,
};

/**
 * kofi_eq_open_generic() - open an EQ of the shared implementation
 * @fabric: the fabric (the core links the EQ to it)
 * @attr: EQ attributes; size 0 is replaced by FI_EQ_DEFAULT_SIZE
 * @eq: the new EQ
 * @context: user context
 *
 * A provider sets it as its fi_ops_fabric.eq_open and writes events with
 * kofi_eq_write_event(), kofi_eq_write_cm() and kofi_eq_write_err().
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a size above FI_EQ_MAX_SIZE; -ENOMEM.
 */
int kofi_eq_open_generic(struct fid_fabric *fabric, struct fi_eq_attr *attr,
			 struct fid_eq **eq, void *context)
{
	struct kofi_eq *q;

	if (!attr || !eq || attr->size > FI_EQ_MAX_SIZE)
		return -EINVAL;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	q->size = attr->size ? attr->size : FI_EQ_DEFAULT_SIZE;
	q->ring = kvcalloc(q->size, sizeof(*q->ring), GFP_KERNEL);
	if (!q->ring) {
		kfree(q);
		return -ENOMEM;
	}
	q->handler = attr->event_handler;
	spin_lock_init(&q->lock);
	init_waitqueue_head(&q->wq);
	kofi_fid_init(&q->eq_fid.fid, FI_CLASS_EQ, &kofi_eq_fi_ops, context);
	q->eq_fid.ops = &kofi_eq_ops;
	attr->size = q->size;
	*eq = &q->eq_fid;
	return 0;
}
EXPORT_SYMBOL_GPL(kofi_eq_open_generic);

/**
 * kofi_eq_write_event() - queue an event with a struct fi_eq_entry
 * @eq: an EQ opened by kofi_eq_open_generic()
 * @event: FI_CONNECTED, FI_SHUTDOWN, FI_NOTIFY ...
 * @fid: the object concerned
 * @context: its context
 * @data: event data
 *
 * Wakes fi_eq_sread() sleepers, then calls the EQ's event handler in the
 * caller's context.
 *
 * Context: any context; does not sleep or allocate.
 * Return: 0; -EOVERFLOW if the EQ was full (reported to the user by an
 * EOVERFLOW error entry); -EINVAL if @eq is not a shared EQ.
 */
int kofi_eq_write_event(struct fid_eq *eq, u32 event, struct fid *fid,
			void *context, u64 data)
{
	struct fi_eq_entry e = { .fid = fid, .context = context, .data = data };

	return kofi_eq_push(eq, event, &e, sizeof(e), NULL, 0, NULL, NULL,
			    false);
}
EXPORT_SYMBOL_GPL(kofi_eq_write_event);

/*
 * Check and queue a struct fi_eq_cm_entry with its connection data, for
 * kofi_eq_write_cm() (@offer false) and kofi_eq_offer_cm() (@offer true:
 * a full EQ or a failed allocation is answered and counts nothing as
 * lost).  Any context; does not sleep.
 */
static int kofi_eq_push_cm(struct fid_eq *eq, u32 event, struct fid *fid,
			   struct fi_info *info, const void *data,
			   size_t datalen, bool offer)
{
	struct fi_eq_cm_entry e = { .fid = fid, .info = info };

	if (datalen > FI_CM_DATA_MAX || (!data && datalen))
		return -EINVAL;
	return kofi_eq_push(eq, event, &e, sizeof(e), data, datalen, info,
			    NULL, offer);
}

/**
 * kofi_eq_write_cm() - queue a connection event (struct fi_eq_cm_entry)
 * @eq: an EQ opened by kofi_eq_open_generic()
 * @event: FI_CONNREQ, FI_CONNECTED or FI_SHUTDOWN
 * @fid: the passive endpoint (FI_CONNREQ) or the endpoint
 * @info: FI_CONNREQ: the request's info (fi_allocinfo(), handle set to a
 *	FI_CLASS_CONNREQ fid); the queue owns it on success.  Otherwise NULL.
 * @data: connection data from the peer, or NULL
 * @datalen: bytes at @data, at most FI_CM_DATA_MAX
 *
 * @data is copied into memory allocated for the entry (none for
 * @datalen 0), freed when the user reads the entry or closes the EQ.
 *
 * Context: any context; does not sleep; allocates with GFP_ATOMIC when
 * @datalen is not 0.
 * Return: 0; -EOVERFLOW if the EQ was full, -ENOMEM if the copy of @data
 * could not be allocated: either way nothing is queued, the caller still
 * owns @info, and the lost event is reported to the user by an EOVERFLOW
 * error entry; -EINVAL for a bad @eq or @datalen.
 */
int kofi_eq_write_cm(struct fid_eq *eq, u32 event, struct fid *fid,
		     struct fi_info *info, const void *data, size_t datalen)
{
	return kofi_eq_push_cm(eq, event, fid, info, data, datalen, false);
}
EXPORT_SYMBOL_GPL(kofi_eq_write_cm);

/**
 * kofi_eq_offer_cm() - queue a connection event if the EQ has room
 * @eq: an EQ opened by kofi_eq_open_generic()
 * @event: as for kofi_eq_write_cm()
 * @fid: as for kofi_eq_write_cm()
 * @info: as for kofi_eq_write_cm()
 * @data: as for kofi_eq_write_cm()
 * @datalen: as for kofi_eq_write_cm()
 *
 * kofi_eq_write_cm() for an event the provider can hold back: a full EQ
 * takes nothing and reports nothing to the user, so that the provider
 * offers the event again once the user has read entries (a passive
 * endpoint holding a connection request while its EQ is full).
 *
 * Context: any context; does not sleep; allocates with GFP_ATOMIC when
 * @datalen is not 0, as kofi_eq_write_cm().
 * Return: 0; -EAGAIN if the EQ is full, -ENOMEM if the copy of @data could
 * not be allocated: either way nothing is queued or reported to the user
 * and the caller still owns @info; -EINVAL for a bad @eq or @datalen.
 */
int kofi_eq_offer_cm(struct fid_eq *eq, u32 event, struct fid *fid,
		     struct fi_info *info, const void *data, size_t datalen)
{
	return kofi_eq_push_cm(eq, event, fid, info, data, datalen, true);
}
EXPORT_SYMBOL_GPL(kofi_eq_offer_cm);

/**
 * kofi_eq_write_err() - queue an error entry
 * @eq: an EQ opened by kofi_eq_open_generic()
 * @fid: the object concerned (e.g. the endpoint whose connect failed)
 * @context: its context
 * @err: errno, positive or negative (stored positive): ECONNREFUSED,
 *	ETIMEDOUT, ENETUNREACH, ECONNRESET ...
 * @prov_errno: provider-specific error, or 0
 * @err_data: error data for the user (e.g. reject data), or NULL
 * @err_data_size: bytes at @err_data, at most FI_ERR_DATA_MAX
 *
 * The error data is copied with the entry (GFP_ATOMIC).
 *
 * Context: any context; does not sleep.
 * Return: 0; -EOVERFLOW; -ENOMEM if the copy of the error data cannot be
 * allocated (the entry is counted as lost, as with -EOVERFLOW); -EINVAL
 * for a bad @eq, @err 0 or too much data.
 */
int kofi_eq_write_err(struct fid_eq *eq, struct fid *fid, void *context,
		      int err, int prov_errno, const void *err_data,
		      size_t err_data_size)
{
	struct fi_eq_err_entry e = {
		.fid = fid,
		.context = context,
		.err = abs(err),
		.prov_errno = prov_errno,
	};

	if (!err || err == INT_MIN || err_data_size > FI_ERR_DATA_MAX ||
	    (!err_data && err_data_size))
		return -EINVAL;
	return kofi_eq_push(eq, 0, NULL, 0, err_data, err_data_size, NULL, &e,
			    false);
}
EXPORT_SYMBOL_GPL(kofi_eq_write_err);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kofi_eq_test_fail_alloc() - KUnit only: fail the next data allocations
 * @eq_fid: an EQ opened by kofi_eq_open_generic()
 * @n: how many of the next allocations of entry data fail
 *
 * Lets a test see what a writer is answered when GFP_ATOMIC memory runs
 * out (kunit/kofi_queue_test.c).
 *
 * Context: any context; does not sleep.
 */
void kofi_eq_test_fail_alloc(struct fid_eq *eq_fid, unsigned int n)
{
	atomic_set(&kofi_eq(eq_fid)->test_fail_alloc, n);
}
EXPORT_SYMBOL_IF_KUNIT(kofi_eq_test_fail_alloc);

/**
 * kofi_eq_test_set_pos() - KUnit only: place an empty EQ as if @pos events
 *	had passed through it
 * @eq_fid: an empty EQ opened by kofi_eq_open_generic()
 * @pos: events written and read so far
 *
 * Lets a test run an EQ across the wrap of 32-bit positions without 2^32
 * writes (kunit/kofi_queue_test.c).
 *
 * Context: any context; does not sleep.
 */
void kofi_eq_test_set_pos(struct fid_eq *eq_fid, u32 pos)
{
	struct kofi_eq *eq = kofi_eq(eq_fid);
	unsigned long irqflags;

	spin_lock_irqsave(&eq->lock, irqflags);
	if (!WARN_ON(eq->count))
		eq->head = pos % eq->size;
	spin_unlock_irqrestore(&eq->lock, irqflags);
}
EXPORT_SYMBOL_IF_KUNIT(kofi_eq_test_set_pos);
#endif
