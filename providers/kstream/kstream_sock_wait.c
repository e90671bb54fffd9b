// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: how the socket-like calls wait, as rsockets does: poll the
 * stream for up to the module parameter polling_time (microseconds)
 * before sleeping, then sleep on the socket's wait queue in slices of at
 * most wake_up_interval (milliseconds), re-checking after each, so that
 * a missed wake-up costs at most one slice.  Each check first takes what
 * the core provider completed (kstream_ep_progress()), and a completion
 * wakes the sleeper, so that its data need not wait for the progress
 * work: every receive completion, a transmit completion only if something
 * waits for one (KSTREAM_TX_WAITERS; a reader needs none, a writer's
 * check of the send buffer's room notes itself through
 * kstream_poll_snapshot()).  While a caller waits here it counts in
 * kstream_ep.pollers and the done() of the core's completions does not
 * queue the work; what the caller could not take (another context was
 * taking the completions, or the stream was not up) or what came after it
 * last drained when it leaves, it hands to the work.
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

/* Hand the work the completions signalled since the last drain, if any. */
static void ksk_hand_over(struct kstream_ep *kep, int clean)
{
	if (atomic_read(&kep->kicks) != clean)
		queue_work(kstream_wq, &kep->work);
}

/*
 * Take the core's completions, then check.  @kicks: the kicks read just
 * before; @clean: the kicks the last drain covered, @kicks once this one
 * drains; if it cannot, what came past @clean goes to the work.
 */
static bool ksk_ready_now(struct kstream_sock *ks, struct kstream_ep *kep,
			  int kicks, int *clean, ksk_ready_fn ready,
			  __poll_t arg)
{
	if (kep) {
		if (kstream_ep_progress(kep))
			*clean = kicks;
		else
			ksk_hand_over(kep, *clean);
	}
	return ready(ks, arg);
}

/* Busy-poll @ready for polling_time microseconds at most. */
static bool ksk_poll_briefly(struct kstream_sock *ks, struct kstream_ep *kep,
			     int *clean, ksk_ready_fn ready, __poll_t arg)
{
	unsigned int us = READ_ONCE(kstream_polling_time);
	u64 end;

	if (!us)
		return false;
	end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;
	while (ktime_get_ns() < end) {
		if (ksk_ready_now(ks, kep, ksk_kicks(kep), clean, ready, arg))
			return true;
		if (need_resched() || signal_pending(current))
			break;
		cpu_relax();
	}
	return false;
}

/* Count in kstream_ep.pollers; returns the kicks already covered. */
static int ksk_poller_enter(struct kstream_ep *kep)
{
	if (!kep)
		return 0;
	atomic_inc(&kep->pollers);
	/* Kicks from here on the handlers leave to us; read after counting. */
	smp_mb__after_atomic();
	return atomic_read(&kep->kicks);
}

/* Leave, handing to the work what came since the last drain. */
static void ksk_poller_leave(struct kstream_ep *kep, int clean)
{
	if (!kep)
		return;
	atomic_dec(&kep->pollers);
	/* Pairs with kstream_cq_kick(): its kick is seen here, or us gone. */
	smp_mb__after_atomic();
	ksk_hand_over(kep, clean);
}

/*
 * The kicks are read before each check's drain and the sleep lasts while
 * they stand: a completion that comes after the drain ends the wait at
 * once, as none but this caller takes it while it counts in
 * kstream_ep.pollers.
 */
static long ksk_wait_loop(struct kstream_sock *ks, struct kstream_ep *kep,
			  int *clean, ksk_ready_fn ready, __poll_t arg,
			  long timeo)
{
	long slice, w;
	int kicks;

	if (ksk_poll_briefly(ks, kep, clean, ready, arg))
		return timeo;
	for (;;) {
		kicks = ksk_kicks(kep);
		if (ksk_ready_now(ks, kep, kicks, clean, ready, arg))
			return max(timeo, 1L);
		if (timeo <= 0)
			return 0;
		if (signal_pending(current))
			return ksk_intr_errno(timeo);
		slice = msecs_to_jiffies(READ_ONCE(kstream_wake_up_interval));
		slice = clamp(slice, 1L, timeo);
		w = wait_event_interruptible_timeout(ks->wq, ready(ks, arg) ||
						     ksk_kicks(kep) != kicks,
						     slice);
		if (w < 0)
			return ksk_intr_errno(timeo);
		if (timeo != MAX_SCHEDULE_TIMEOUT)
			timeo -= slice - w;
	}
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
	int clean = ksk_poller_enter(kep);
	long ret;

	ret = ksk_wait_loop(ks, kep, &clean, ready, arg, timeo);
	ksk_poller_leave(kep, clean);
	return ret;
}
