// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: rxm's credit flow control (kofi/rdm/rxm_credit.h) - the
 * rules of one side, and two sides played against each other over
 * in-order links: no packet ever finds its receiver without a posted
 * buffer, grants are never traded forever once the data stops, and at
 * rest each side may send again.  Everything tested is a static inline:
 * this suite needs no module.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/string.h>
#include "../kofi/rdm/rxm_credit.h"

static void rxmc_rules_test(struct kunit *test)
{
	struct rxm_credits c;
	int i;

	rxm_credits_init(&c);
	/* off: everything goes, nothing is granted */
	KUNIT_EXPECT_TRUE(test, rxm_credits_take(&c, false));
	for (i = 0; i < 3; i++)
		rxm_credits_posted(&c);
	KUNIT_EXPECT_EQ(test, rxm_credits_grant(&c, 3, true), 0);
	/* the peer's first grant may come before we enable */
	rxm_credits_add(&c, 5);
	rxm_credits_enable(&c);
	KUNIT_EXPECT_EQ(test, c.tx, 6);
	/* three buffers: two granted, one backs the peer's assumed credit */
	KUNIT_EXPECT_EQ(test, rxm_credits_grant(&c, 3, true), 2);
	KUNIT_EXPECT_EQ(test, c.lent, 3);
	KUNIT_EXPECT_EQ(test, rxm_credits_grant(&c, 3, true), 0);
	/* data needs two credits, a grant one */
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_TRUE(test, rxm_credits_take(&c, false));
	KUNIT_EXPECT_FALSE(test, rxm_credits_take(&c, false));
	KUNIT_EXPECT_TRUE(test, rxm_credits_take(&c, true));
	KUNIT_EXPECT_FALSE(test, rxm_credits_take(&c, true));
	rxm_credits_untake(&c);
	KUNIT_EXPECT_EQ(test, c.tx, 1);
	/* a huge grant is capped */
	rxm_credits_add(&c, U64_MAX);
	KUNIT_EXPECT_EQ(test, c.tx, RXM_CREDIT_MAX);
}

static void rxmc_grant_test(struct kunit *test)
{
	struct rxm_credits c;

	rxm_credits_init(&c);
	rxm_credits_posted(&c);
	rxm_credits_posted(&c);
	rxm_credits_posted(&c);
	rxm_credits_posted(&c);
	rxm_credits_enable(&c);
	KUNIT_EXPECT_EQ(test, rxm_credits_grant(&c, 4, true), 3);
	/* lent 4: one arrival, one repost - below half, peer not short */
	KUNIT_EXPECT_FALSE(test, rxm_credits_arrived(&c));
	rxm_credits_posted(&c);
	KUNIT_EXPECT_EQ(test, rxm_credits_grant(&c, 4, true), 0);
	/* half of the buffers: granted */
	KUNIT_EXPECT_FALSE(test, rxm_credits_arrived(&c));
	rxm_credits_posted(&c);
	KUNIT_EXPECT_EQ(test, rxm_credits_grant(&c, 4, true), 2);
	/* the peer short of credits: one is granted after data ... */
	c.lent = 2;
	KUNIT_EXPECT_TRUE(test, rxm_credits_arrived(&c));
	rxm_credits_posted(&c);
	KUNIT_EXPECT_EQ(test, rxm_credits_grant(&c, 8, false), 0);
	KUNIT_EXPECT_EQ(test, rxm_credits_grant(&c, 8, true), 1);
	/* ... but a grant answers a grant only with two or more */
	c.lent = 1;
	rxm_credits_posted(&c);
	KUNIT_EXPECT_EQ(test, rxm_credits_grant(&c, 8, false), 0);
	rxm_credits_posted(&c);
	KUNIT_EXPECT_EQ(test, rxm_credits_grant(&c, 8, false), 2);
	rxm_credits_ungrant(&c, 2);
	KUNIT_EXPECT_EQ(test, c.avail, 2);
	KUNIT_EXPECT_EQ(test, c.lent, 1);
}

/* ---- two sides ---- */

#define SIM_LINK	512	/* packets in flight one way, at most */

struct sim_side {
	struct rxm_credits c;
	unsigned int nbufs, maxbufs;
	int free;		/* buffers posted */
	int held;		/* buffers holding data the ULP has not taken */
	bool pending;		/* a grant waits for a credit */
	int link[SIM_LINK];	/* to the peer: 0 data, n > 0 a grant of n */
	unsigned int head, tail;
	unsigned long sent, received;
};

static void sim_grant(struct kunit *test, struct sim_side *s, bool data)
{
	int n = rxm_credits_grant(&s->c, s->nbufs, data || s->pending);

	if (!n)
		return;
	if (!rxm_credits_take(&s->c, true)) {
		rxm_credits_ungrant(&s->c, n);
		s->pending = true;
		return;
	}
	s->pending = false;
	KUNIT_ASSERT_LT(test, s->tail - s->head, SIM_LINK);
	s->link[s->tail++ % SIM_LINK] = n;
}

static void sim_post(struct kunit *test, struct sim_side *s, bool data)
{
	s->free++;
	rxm_credits_posted(&s->c);
	sim_grant(test, s, data);
}

static void sim_init(struct kunit *test, struct sim_side *s,
		     unsigned int maxbufs)
{
	int i;

	memset(s, 0, sizeof(*s));
	rxm_credits_init(&s->c);
	s->maxbufs = maxbufs;
	s->nbufs = RXM_CREDIT_MIN_BUFS;
	for (i = 0; i < RXM_CREDIT_MIN_BUFS; i++)
		sim_post(test, s, true);
}

static void sim_enable(struct kunit *test, struct sim_side *s)
{
	rxm_credits_enable(&s->c);
	sim_grant(test, s, true);
}

static bool sim_send(struct kunit *test, struct sim_side *s)
{
	if (!rxm_credits_take(&s->c, false))
		return false;
	KUNIT_ASSERT_LT(test, s->tail - s->head, SIM_LINK);
	s->link[s->tail++ % SIM_LINK] = 0;
	s->sent++;
	return true;
}

/* Deliver the next packet from @from to @to, if any. */
static bool sim_deliver(struct kunit *test, struct sim_side *from,
			struct sim_side *to, bool hold)
{
	int p;

	if (from->head == from->tail)
		return false;
	p = from->link[from->head++ % SIM_LINK];
	/* the one thing flow control is for */
	KUNIT_ASSERT_GT(test, to->free, 0);
	to->free--;
	if (rxm_credits_arrived(&to->c) && to->nbufs < to->maxbufs) {
		to->nbufs++;
		sim_post(test, to, true);
	}
	if (p) {
		rxm_credits_add(&to->c, p);
		sim_post(test, to, false);
		if (to->pending)
			sim_grant(test, to, true);
		return true;
	}
	to->received++;
	if (hold)
		to->held++;
	else
		sim_post(test, to, true);
	return true;
}

static void sim_take_held(struct kunit *test, struct sim_side *s)
{
	if (s->held) {
		s->held--;
		sim_post(test, s, true);
	}
}

static void sim_run(struct kunit *test, unsigned int maxa, unsigned int maxb,
		    u32 seed)
{
	struct sim_side *a, *b;
	struct rnd_state rnd;
	unsigned int i, quiet;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	prandom_seed_state(&rnd, seed);
	sim_init(test, a, maxa);
	sim_init(test, b, maxb);
	sim_enable(test, a);
	sim_enable(test, b);
	for (i = 0; i < 20000; i++) {
		switch (prandom_u32_state(&rnd) % 7) {
		case 0:
			sim_send(test, a);
			break;
		case 1:
			sim_send(test, b);
			break;
		case 2:
			sim_deliver(test, a, b, prandom_u32_state(&rnd) % 4 == 0);
			break;
		case 3:
			sim_deliver(test, b, a, prandom_u32_state(&rnd) % 4 == 0);
			break;
		case 4:
			sim_take_held(test, a);
			break;
		case 5:
			sim_take_held(test, b);
			break;
		default:
			/* a burst one way, as a streaming sender does */
			while (sim_send(test, a))
				;
			break;
		}
	}
	KUNIT_EXPECT_GT(test, a->sent, 100UL);
	KUNIT_EXPECT_GT(test, b->sent, 100UL);
	/* the data stops: the grants die out */
	for (quiet = 0; quiet < 1000; quiet++) {
		sim_take_held(test, a);
		sim_take_held(test, b);
		if (!sim_deliver(test, a, b, false) &&
		    !sim_deliver(test, b, a, false) && !a->held && !b->held)
			break;
	}
	KUNIT_EXPECT_LT(test, quiet, 1000U);
	KUNIT_EXPECT_EQ(test, a->sent, b->received);
	KUNIT_EXPECT_EQ(test, b->sent, a->received);
	/* at rest each side may send data again, and the peer takes it */
	KUNIT_EXPECT_TRUE(test, sim_send(test, a));
	KUNIT_EXPECT_TRUE(test, sim_send(test, b));
	KUNIT_EXPECT_TRUE(test, sim_deliver(test, a, b, false));
	KUNIT_EXPECT_TRUE(test, sim_deliver(test, b, a, false));
}

static void rxmc_sim_test(struct kunit *test)
{
	static const unsigned int bufs[][2] = {
		{ 3, 3 }, { 3, 4 }, { 4, 4 }, { 3, 16 }, { 8, 128 },
	};
	unsigned int i;
	u32 seed;

	for (i = 0; i < ARRAY_SIZE(bufs); i++)
		for (seed = 1; seed <= 8; seed++)
			sim_run(test, bufs[i][0], bufs[i][1], seed * 7919 + i);
}

static struct kunit_case rxm_credit_cases[] = {
	KUNIT_CASE(rxmc_rules_test),
	KUNIT_CASE(rxmc_grant_test),
	KUNIT_CASE(rxmc_sim_test),
	{}
};

static struct kunit_suite rxm_credit_suite = {
	.name = "rxm_credit",
	.test_cases = rxm_credit_cases,
};

kunit_test_suite(rxm_credit_suite);

MODULE_DESCRIPTION("KUnit tests of rxm's credit flow control");
MODULE_LICENSE("Dual BSD/GPL");
