/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rxm: credit flow control of a connection over a core without flow
 * control of its own (ib_verbs), as libfabric 1.17's rxm and verbs speak
 * it - pure logic, tested by KUnit in kunit/rxm_credit_test.c.
 *
 * Both sides said RXM_FLOW_CTRL_ON in the CM data.  Each side assumes
 * the peer has posted one receive for it at first, and keeps its last
 * credit for grants: a packet that consumes one of the peer's receives
 * (a send; an RDMA write with immediate data) needs two credits, a grant
 * one.  A grant is an RXM_CREDIT packet whose ctrl_data is the number of
 * receives posted for the peer since the last grant; the receiver adds
 * it to its credits.
 *
 * The receiving side counts what it may grant: bounce buffers posted and
 * not yet granted (@avail), less one that backs the credit the peer
 * assumed at first, so the peer never holds more credits than there are
 * buffers posted for it.  It grants all of @avail once it reaches half of
 * the connection's buffers (at least 2), or sooner when the peer is out
 * of credits for data by our count (@lent below 2): after a packet that
 * carried data, or a buffer added, at once; after a grant from the peer,
 * only if it grants 2 or more - so a grant answers a grant only with a
 * net gain for the peer, and two sides can never trade grants forever.
 */
#ifndef _RXM_CREDIT_H
#define _RXM_CREDIT_H

#include <linux/bits.h>
#include <linux/minmax.h>
#include <linux/types.h>

/* Bounce buffers a flow-controlled connection starts with (and needs). */
#define RXM_CREDIT_MIN_BUFS	3
/* Credits held at most (a peer's grants beyond are ignored). */
#define RXM_CREDIT_MAX		BIT(20)

/**
 * struct rxm_credits - the credit state of one connection
 * @on: flow control is on (both sides said so); until then nothing is
 *	granted and nothing is held back
 * @tx: our credits: receives the peer posted for us, by its grants, less
 *	the packets we sent that consume one
 * @avail: our posted bounce buffers not yet granted to the peer
 * @lent: credits the peer holds by our count: one assumed, plus what we
 *	granted, less the packets that arrived
 */
struct rxm_credits {
	bool on;
	int tx;
	int avail;
	int lent;
};

/**
 * rxm_credits_init() - the state of a new core connection
 * @c: the state
 */
static inline void rxm_credits_init(struct rxm_credits *c)
{
	c->on = false;
	c->tx = 0;
	c->avail = 0;
	c->lent = 1;
}

/**
 * rxm_credits_enable() - both sides said RXM_FLOW_CTRL_ON
 * @c: the state; grants that came before stay counted
 *
 * The peer's assumed credit is ours, one posted buffer backs the one
 * the peer assumes of us.  Call rxm_credits_grant() next (data: true).
 */
static inline void rxm_credits_enable(struct rxm_credits *c)
{
	c->on = true;
	c->tx++;
	c->avail--;
}

/**
 * rxm_credits_take() - take a credit for a packet to the peer
 * @c: the state
 * @grant: the packet is a grant (it may take the last credit)
 *
 * Return: true if the packet may go (always, with flow control off).
 */
static inline bool rxm_credits_take(struct rxm_credits *c, bool grant)
{
	if (!c->on)
		return true;
	if (c->tx < (grant ? 1 : 2))
		return false;
	c->tx--;
	return true;
}

/**
 * rxm_credits_untake() - give back a credit a packet did not use
 * @c: the state
 */
static inline void rxm_credits_untake(struct rxm_credits *c)
{
	if (c->on)
		c->tx++;
}

/**
 * rxm_credits_add() - the peer granted credits
 * @c: the state
 * @n: the grant's ctrl_data
 */
static inline void rxm_credits_add(struct rxm_credits *c, u64 n)
{
	c->tx = min_t(u64, c->tx + min_t(u64, n, RXM_CREDIT_MAX),
		      RXM_CREDIT_MAX);
}

/**
 * rxm_credits_posted() - a bounce buffer was posted for the peer
 * @c: the state
 */
static inline void rxm_credits_posted(struct rxm_credits *c)
{
	c->avail++;
}

/**
 * rxm_credits_arrived() - a packet of the peer consumed a bounce buffer
 * @c: the state
 *
 * Return: true if the peer is now out of credits for data by our count
 *	(a reason to post another buffer).
 */
static inline bool rxm_credits_arrived(struct rxm_credits *c)
{
	c->lent--;
	return c->on && c->lent < 2;
}

/**
 * rxm_credits_grant() - what to grant the peer now
 * @c: the state; a grant is counted as made
 * @nbufs: the connection's bounce buffers
 * @data: called after a packet that was not a grant was received (or a
 *	buffer added, or flow control enabled), not after a grant
 *
 * Return: the credits to send in an RXM_CREDIT packet, or 0.  Give them
 * back with rxm_credits_ungrant() if the packet cannot go.
 */
static inline int rxm_credits_grant(struct rxm_credits *c,
				    unsigned int nbufs, bool data)
{
	int n = c->avail;

	if (!c->on || n <= 0)
		return 0;
	if (n < max_t(int, 2, nbufs / 2) &&
	    (c->lent >= 2 || (!data && n < 2)))
		return 0;
	c->avail = 0;
	c->lent += n;
	return n;
}

/**
 * rxm_credits_ungrant() - a grant of rxm_credits_grant() did not go
 * @c: the state
 * @n: its credits
 */
static inline void rxm_credits_ungrant(struct rxm_credits *c, int n)
{
	c->avail += n;
	c->lent -= n;
}

#endif /* _RXM_CREDIT_H */
