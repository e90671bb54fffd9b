// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: how the socket-like calls wait, as rsockets does: poll the
 * stream for up to the module parameter polling_time (microseconds)
 * before sleeping, then sleep on the socket's wait queue in slices of at
 * most wake_up_interval (milliseconds), re-checking after each, so that
 * a missed wake-up costs at most one slice.  Each check first takes what
 * the core provider completed (kstream_ep_progress()), and a completion
 * wakes the sleeper, so that its data need not wait for the progress
 * work.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>
#include "kstream.h"
#include "kstream_sock.h"

/* The socket's stream, or NULL before it has one. */
static struct kstream_ep *ksk_kep(struct kstream_sock *ks)
{
	struct fid_ep *ep = READ_ONCE(ks->ep);

	return kstream_is_ep(ep) ? kstream_ep(ep) : NULL;
}

static int ksk_kicks(struct kstream_ep *kep)
{
	return kep ? atomic_read(&kep->kicks) : 0;
}

/* Take the core's completions, if no one else is at it, then check. */
static bool ksk_ready_now(struct kstream_sock *ks, struct kstream_ep *kep,
			  ksk_ready_fn ready, __poll_t arg)
{
	if (kep)
		kstream_ep_progress(kep);
	return ready(ks, arg);
}

/* Busy-poll @ready for polling_time microseconds at most. */
static bool ksk_poll_briefly(struct kstream_sock *ks, struct kstream_ep *kep,
			     ksk_ready_fn ready, __poll_t arg)
{
	unsigned int us = READ_ONCE(kstream_polling_time);
	u64 end;

	if (!us)
		return false;
	end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;
	while (ktime_get_ns() < end) {
		if (ksk_ready_now(ks, kep, ready, arg))
			return true;
		if (need_resched() || signal_pending(current))
			break;
		cpu_relax();
	}
	return false;
}

/**
 * ksk_wait_until() - wait until a condition of the socket holds
 * @ks: the socket
 * @ready: the condition; must not sleep
 * @arg: its argument
 * @timeo: jiffies at most, MAX_SCHEDULE_TIMEOUT for no limit; not 0
 *
 * Context: process context; sleeps (interruptibly).
 * Return: the jiffies left (at least 1) once @ready holds; 0 when @timeo
 * passed first; -ERESTARTSYS or -EINTR (ksk_intr_errno()) on a signal.
 */
long ksk_wait_until(struct kstream_sock *ks, ksk_ready_fn ready,
		    __poll_t arg, long timeo)
{
	struct kstream_ep *kep = ksk_kep(ks);
	long slice, w;
	int kicks;

	if (ksk_ready_now(ks, kep, ready, arg) ||
	    ksk_poll_briefly(ks, kep, ready, arg))
		return timeo;
	while (timeo > 0) {
		slice = msecs_to_jiffies(READ_ONCE(kstream_wake_up_interval));
		slice = clamp(slice, 1L, timeo);
		/* A completion after this is a reason to look again. */
		kicks = ksk_kicks(kep);
		w = wait_event_interruptible_timeout(ks->wq, ready(ks, arg) ||
						     ksk_kicks(kep) != kicks,
						     slice);
		if (w < 0)
			return ksk_intr_errno(timeo);
		if (timeo != MAX_SCHEDULE_TIMEOUT)
			timeo -= slice - w;
		if (ksk_ready_now(ks, kep, ready, arg))
			return max(timeo, 1L);
		if (signal_pending(current))
			return ksk_intr_errno(timeo);
	}
	return 0;
}
