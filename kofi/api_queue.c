// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: dispatch of the event queue and completion queue calls.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include "kofi_core.h"

static int kofi_eq_check(struct fid_eq *eq)
{
	if (!KOFI_IS(eq, FI_CLASS_EQ))
		return -EINVAL;
	return eq->ops ? 0 : -FI_ENOSYS;
}

static int kofi_cq_check(struct fid_cq *cq)
{
	if (!KOFI_IS(cq, FI_CLASS_CQ))
		return -EINVAL;
	return cq->ops ? 0 : -FI_ENOSYS;
}

/**
 * fi_eq_read() - read the next event
 * @eq: the event queue
 * @event: the event (FI_CONNREQ, FI_CONNECTED, FI_SHUTDOWN, or a user
 *	event)
 * @buf: buffer for the entry: struct fi_eq_cm_entry (plus connection data)
 *	for connection events, struct fi_eq_entry for the others
 * @len: bytes at @buf
 * @flags: FI_PEEK to leave the event queued (its info then stays owned by
 *	the queue)
 *
 * Context: any context; does not sleep.
 * Return: bytes of the entry copied to @buf; -EAGAIN if the queue is
 * empty; -FI_EAVAIL if an error entry is next (read it with
 * fi_eq_readerr()); -EMSGSIZE if @len is too small (the event stays
 * queued); -EINVAL for bad arguments; -FI_ENOSYS.
 */
ssize_t fi_eq_read(struct fid_eq *eq, u32 *event, void *buf, size_t len,
		   u64 flags)
{
	int ret = kofi_eq_check(eq);

	if (ret)
		return ret;
	if (!event || (!buf && len) || (flags & ~FI_PEEK))
		return -EINVAL;
	if (!eq->ops->read)
		return -FI_ENOSYS;
	return eq->ops->read(eq, event, buf, len, flags);
}
EXPORT_SYMBOL_GPL(fi_eq_read);

/**
 * fi_eq_readerr() - read the error entry at the head of the queue
 * @eq: the event queue
 * @buf: the entry; set err_data/err_data_size to receive provider error
 *	data (e.g. a peer's reject data), or zero them
 * @flags: FI_PEEK to leave the entry queued
 *
 * An overrun queue (events lost because it was full) reports one error
 * entry with err EOVERFLOW after the entries it holds, prov_errno the
 * number of events lost.
 *
 * Context: any context; does not sleep.
 * Return: sizeof(*@buf); -EAGAIN if no error entry is at the head (also
 * on an empty queue); -EINVAL; -FI_ENOSYS.
 */
ssize_t fi_eq_readerr(struct fid_eq *eq, struct fi_eq_err_entry *buf,
		      u64 flags)
{
	int ret = kofi_eq_check(eq);

	if (ret)
		return ret;
	if (!buf || (flags & ~FI_PEEK))
		return -EINVAL;
	if (!eq->ops->readerr)
		return -FI_ENOSYS;
	return eq->ops->readerr(eq, buf, flags);
}
EXPORT_SYMBOL_GPL(fi_eq_readerr);

/**
 * fi_eq_write() - queue a user event
 * @eq: the event queue
 * @event: event number
 * @buf: the entry, copied
 * @len: bytes at @buf, at most sizeof(struct fi_eq_cm_entry) +
 *	FI_CM_DATA_MAX
 * @flags: 0
 *
 * Wakes fi_eq_sread() sleepers and calls the EQ's event handler.  On the
 * shared EQ, the bytes of an entry longer than a struct fi_eq_entry are
 * copied into memory allocated for it.
 *
 * Context: any context; does not sleep; the shared EQ allocates with
 * GFP_ATOMIC for an entry longer than a struct fi_eq_entry.
 * Return: @len; -EAGAIN if the queue is full, -ENOMEM if memory for the
 * entry could not be allocated (nothing was queued either way); -EINVAL;
 * -FI_ENOSYS.
 */
ssize_t fi_eq_write(struct fid_eq *eq, u32 event, const void *buf,
		    size_t len, u64 flags)
{
	int ret = kofi_eq_check(eq);

	if (ret)
		return ret;
	if (!buf || !len || flags)
		return -EINVAL;
	if (!eq->ops->write)
		return -FI_ENOSYS;
	return eq->ops->write(eq, event, buf, len, flags);
}
EXPORT_SYMBOL_GPL(fi_eq_write);

/**
 * fi_eq_sread() - wait for the next event
 * @eq: the event queue
 * @event: as for fi_eq_read()
 * @buf: as for fi_eq_read()
 * @len: as for fi_eq_read()
 * @timeout: milliseconds to wait; -1 waits forever, 0 does not wait
 * @flags: as for fi_eq_read()
 *
 * Context: process context; sleeps (interruptibly) unless @timeout is 0.
 * Return: as for fi_eq_read(); -EAGAIN when @timeout expires; -EINTR if a
 * signal interrupted the wait.
 */
ssize_t fi_eq_sread(struct fid_eq *eq, u32 *event, void *buf, size_t len,
		    int timeout, u64 flags)
{
	int ret = kofi_eq_check(eq);

	if (ret)
		return ret;
	if (!event || (!buf && len) || (flags & ~FI_PEEK) || timeout < -1)
		return -EINVAL;
	if (!eq->ops->sread)
		return -FI_ENOSYS;
	if (timeout)
		might_sleep();
	return eq->ops->sread(eq, event, buf, len, timeout, flags);
}
EXPORT_SYMBOL_GPL(fi_eq_sread);

/**
 * fi_cq_read() - read completions
 * @cq: the completion queue
 * @buf: room for @count entries of the CQ's format
 * @count: entries wanted
 *
 * Successful completions before an error entry are returned first; once
 * the error entry is at the head, -FI_EAVAIL is returned until it is read
 * with fi_cq_readerr().
 *
 * Context: any context (also softirq and with spinlocks held, e.g. from the
 * comp_handler); does not sleep.
 * Return: entries read (> 0); -EAGAIN if none is available; -FI_EAVAIL;
 * -EINVAL (NULL @buf with @count, not a CQ); -FI_ENOSYS.
 */
ssize_t fi_cq_read(struct fid_cq *cq, void *buf, size_t count)
{
	int ret = kofi_cq_check(cq);

	if (ret)
		return ret;
	if (!buf && count)
		return -EINVAL;
	if (!cq->ops->read)
		return -FI_ENOSYS;
	return cq->ops->read(cq, buf, count);
}
EXPORT_SYMBOL_GPL(fi_cq_read);

/**
 * fi_cq_readfrom() - read completions with their source addresses
 * @cq: the completion queue
 * @buf: room for @count entries
 * @count: entries wanted
 * @src_addr: room for @count source addresses (FI_ADDR_NOTAVAIL when
 *	unknown, e.g. on connected endpoints)
 *
 * Context: any context; does not sleep.
 * Return: as for fi_cq_read().
 */
ssize_t fi_cq_readfrom(struct fid_cq *cq, void *buf, size_t count,
		       fi_addr_t *src_addr)
{
	int ret = kofi_cq_check(cq);

	if (ret)
		return ret;
	if ((!buf || !src_addr) && count)
		return -EINVAL;
	if (!cq->ops->readfrom)
		return -FI_ENOSYS;
	return cq->ops->readfrom(cq, buf, count, src_addr);
}
EXPORT_SYMBOL_GPL(fi_cq_readfrom);

/**
 * fi_cq_readerr() - read the error entry at the head of the queue
 * @cq: the completion queue
 * @buf: the entry (err_data/err_data_size as for fi_eq_readerr())
 * @flags: FI_PEEK to leave the entry queued
 *
 * err is a positive errno: ECANCELED for operations flushed by fi_close()
 * or fi_cancel(), EOVERFLOW when completions were lost to an overrun
 * (prov_errno = number lost; the overrun is reported after the entries
 * the queue holds, and the queue accepts completions again afterwards).
 *
 * Context: any context; does not sleep.
 * Return: 1 (one entry); -EAGAIN if no error entry is at the head (also on
 * an empty queue); -EINVAL; -FI_ENOSYS.
 */
ssize_t fi_cq_readerr(struct fid_cq *cq, struct fi_cq_err_entry *buf,
		      u64 flags)
{
	int ret = kofi_cq_check(cq);

	if (ret)
		return ret;
	if (!buf || (flags & ~FI_PEEK))
		return -EINVAL;
	if (!cq->ops->readerr)
		return -FI_ENOSYS;
	return cq->ops->readerr(cq, buf, flags);
}
EXPORT_SYMBOL_GPL(fi_cq_readerr);

/**
 * fi_cq_sread() - wait for completions
 * @cq: the completion queue
 * @buf: room for @count entries
 * @count: entries wanted
 * @cond: with FI_CQ_COND_THRESHOLD, a size_t: wait until that many entries
 *	are queued (capped at @count); otherwise NULL
 * @timeout: milliseconds to wait; -1 waits forever, 0 does not wait
 *
 * Returns early, with what is available, on an error entry.  fi_cq_signal()
 * ends the wait with -EAGAIN.
 *
 * Context: process context; sleeps (interruptibly) unless @timeout is 0.
 * Return: as for fi_cq_read(); -EAGAIN when @timeout expires or after
 * fi_cq_signal(); -EINTR if a signal interrupted the wait.
 */
ssize_t fi_cq_sread(struct fid_cq *cq, void *buf, size_t count,
		    const void *cond, int timeout)
{
	int ret = kofi_cq_check(cq);

	if (ret)
		return ret;
	if (!buf || !count || timeout < -1)
		return -EINVAL;
	if (!cq->ops->sread)
		return -FI_ENOSYS;
	if (timeout)
		might_sleep();
	return cq->ops->sread(cq, buf, count, cond, timeout);
}
EXPORT_SYMBOL_GPL(fi_cq_sread);

/**
 * fi_cq_sreadfrom() - fi_cq_sread() with source addresses
 * @cq: the completion queue
 * @buf: room for @count entries
 * @count: entries wanted
 * @src_addr: room for @count source addresses
 * @cond: as for fi_cq_sread()
 * @timeout: as for fi_cq_sread()
 *
 * Context: process context; sleeps unless @timeout is 0.
 * Return: as for fi_cq_sread().
 */
ssize_t fi_cq_sreadfrom(struct fid_cq *cq, void *buf, size_t count,
			fi_addr_t *src_addr, const void *cond, int timeout)
{
	int ret = kofi_cq_check(cq);

	if (ret)
		return ret;
	if (!buf || !src_addr || !count || timeout < -1)
		return -EINVAL;
	if (!cq->ops->sreadfrom)
		return -FI_ENOSYS;
	if (timeout)
		might_sleep();
	return cq->ops->sreadfrom(cq, buf, count, src_addr, cond, timeout);
}
EXPORT_SYMBOL_GPL(fi_cq_sreadfrom);

/**
 * fi_cq_signal() - wake a fi_cq_sread() sleeper
 * @cq: the completion queue
 *
 * One sleeper returns -EAGAIN; with none asleep, the next fi_cq_sread()
 * does (the signal is remembered, never lost).
 *
 * Context: any context; does not sleep.
 * Return: 0; -EINVAL; -FI_ENOSYS.
 */
int fi_cq_signal(struct fid_cq *cq)
{
	int ret = kofi_cq_check(cq);

	if (ret)
		return ret;
	if (!cq->ops->signal)
		return -FI_ENOSYS;
	return cq->ops->signal(cq);
}
EXPORT_SYMBOL_GPL(fi_cq_signal);
