// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of receive matching (kofi/match.c): tags and ignore bits,
 * directed receive, posting and arrival order, the bounded unexpected
 * queue, FI_PEEK with FI_CLAIM and FI_DISCARD, multi-receive buffers,
 * cancel, and a source that leaves the address vector.
 */
#include <kunit/test.h>
#include <kofi/match.h>
#include "kofi_test.h"

static struct kofi_match_entry km_rx(fi_addr_t addr, u64 tag, u64 ignore,
				     void *context, size_t len)
{
	return (struct kofi_match_entry){ .addr = addr, .tag = tag,
					  .ignore = ignore,
					  .context = context, .len = len };
}

static struct kofi_match_entry km_msg(fi_addr_t addr, u64 tag, size_t len)
{
	return (struct kofi_match_entry){ .addr = addr, .tag = tag,
					  .len = len };
}

static void km_tag_test(struct kunit *test)
{
	struct kofi_match_entry rx = km_rx(FI_ADDR_UNSPEC, 0x1200, 0xff,
					   NULL, 8);
	struct kofi_match_entry a = km_msg(1, 0x12ab, 8);
	struct kofi_match_entry b = km_msg(1, 0x1300, 8);
	struct kofi_match_queue q;

	kofi_match_init(&q, true, false, 8, 0);
	KUNIT_EXPECT_TRUE(test, kofi_match_takes(&q, &rx, &a));
	KUNIT_EXPECT_FALSE(test, kofi_match_takes(&q, &rx, &b));
	rx.ignore = 0;
	KUNIT_EXPECT_FALSE(test, kofi_match_takes(&q, &rx, &a));
	rx.ignore = ~0ULL;
	KUNIT_EXPECT_TRUE(test, kofi_match_takes(&q, &rx, &b));
	/* untagged: tags do not count */
	kofi_match_init(&q, false, false, 8, 0);
	rx.ignore = 0;
	KUNIT_EXPECT_TRUE(test, kofi_match_takes(&q, &rx, &b));
}

static void km_directed_test(struct kunit *test)
{
	struct kofi_match_entry rx = km_rx(5, 0, 0, NULL, 8);
	struct kofi_match_entry from5 = km_msg(5, 0, 8);
	struct kofi_match_entry from6 = km_msg(6, 0, 8);
	struct kofi_match_queue q;
	LIST_HEAD(taken);

	kofi_match_init(&q, false, true, 8, 0);
	KUNIT_EXPECT_TRUE(test, kofi_match_takes(&q, &rx, &from5));
	KUNIT_EXPECT_FALSE(test, kofi_match_takes(&q, &rx, &from6));
	rx.addr = FI_ADDR_UNSPEC;
	KUNIT_EXPECT_TRUE(test, kofi_match_takes(&q, &rx, &from6));
	/* without FI_DIRECTED_RECV the receive's source does not count */
	kofi_match_init(&q, false, false, 8, 0);
	rx.addr = 5;
	KUNIT_EXPECT_TRUE(test, kofi_match_takes(&q, &rx, &from6));

	/* a directed receive leaves another source's message waiting */
	kofi_match_init(&q, true, true, 8, 0);
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &from6));
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &rx, &taken), 0);
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_arrive(&q, &from5), &rx);
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 1);
}

/* kofi_match_find(): a posted receive takes it; nothing is queued. */
static void km_receive_test(struct kunit *test)
{
	struct kofi_match_entry rx = km_rx(FI_ADDR_UNSPEC, 7, 0, &rx, 8);
	struct kofi_match_entry a = km_msg(1, 9, 8), b = km_msg(1, 7, 8);
	struct kofi_match_queue q;
	LIST_HEAD(taken);

	kofi_match_init(&q, true, false, 8, 0);
	KUNIT_EXPECT_NULL(test, kofi_match_find(&q, &a));
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&q.unexpected));
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &rx, &taken), 0);
	KUNIT_EXPECT_NULL(test, kofi_match_find(&q, &a));
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_find(&q, &b), &rx);
	KUNIT_EXPECT_EQ(test, b.offset, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&q.posted));
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 0);
}

/* Receives are used in posting order, messages taken in arrival order. */
static void km_order_test(struct kunit *test)
{
	struct kofi_match_entry r1 = km_rx(FI_ADDR_UNSPEC, 7, 0, &r1, 8);
	struct kofi_match_entry r2 = km_rx(FI_ADDR_UNSPEC, 7, 0, &r2, 8);
	struct kofi_match_entry r3 = km_rx(FI_ADDR_UNSPEC, 9, 0, &r3, 8);
	struct kofi_match_entry a = km_msg(1, 7, 8), b = km_msg(1, 9, 8);
	struct kofi_match_entry c = km_msg(1, 7, 8);
	struct kofi_match_queue q;
	LIST_HEAD(taken);

	kofi_match_init(&q, true, false, 8, 0);
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &r1, &taken), 0);
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &r2, &taken), 0);
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_arrive(&q, &a), &r1);
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_arrive(&q, &c), &r2);
	KUNIT_EXPECT_TRUE(test, list_empty(&q.posted));

	/* a, b, c wait; tag 9 takes b past a, then tag 7 takes a, then c */
	a.flags = 0;
	c.flags = 0;
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &a));
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &b));
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &c));
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 3);
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &r3, &taken), 1);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&taken,
						   struct kofi_match_entry,
						   node), &b);
	INIT_LIST_HEAD(&taken);
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &r1, &taken), 1);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&taken,
						   struct kofi_match_entry,
						   node), &a);
	INIT_LIST_HEAD(&taken);
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &r2, &taken), 1);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&taken,
						   struct kofi_match_entry,
						   node), &c);
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&q.posted));
}

/* A full unexpected queue refuses the message and keeps its count. */
static void km_unexpected_bound_test(struct kunit *test)
{
	struct kofi_match_entry m[3] = { km_msg(1, 0, 1), km_msg(1, 0, 2),
					 km_msg(1, 0, 3) };
	struct kofi_match_entry rx = km_rx(FI_ADDR_UNSPEC, 0, 0, &rx, 8);
	struct kofi_match_queue q;
	LIST_HEAD(taken);

	kofi_match_init(&q, false, false, 2, 0);
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &m[0]));
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &m[1]));
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_arrive(&q, &m[2]),
			    ERR_PTR(-ENOBUFS));
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 2);
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &rx, &taken), 1);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&taken,
						   struct kofi_match_entry,
						   node), &m[0]);
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &m[2]));
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 2);
}

/* kofi_match_find() takes as kofi_match_arrive() does, but never queues. */
static void km_find_test(struct kunit *test)
{
	struct kofi_match_entry r1 = km_rx(FI_ADDR_UNSPEC, 7, 0, &r1, 8);
	struct kofi_match_entry r2 = km_rx(FI_ADDR_UNSPEC, 9, 0, &r2, 8);
	struct kofi_match_entry a = km_msg(1, 9, 8), b = km_msg(1, 8, 8);
	struct kofi_match_queue q;
	LIST_HEAD(taken);

	kofi_match_init(&q, true, false, 8, 0);
	KUNIT_EXPECT_NULL(test, kofi_match_find(&q, &a));
	KUNIT_EXPECT_TRUE(test, list_empty(&q.unexpected));
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &r1, &taken), 0);
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &r2, &taken), 0);
	/* tag 9 takes the second receive; the first stays posted */
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_find(&q, &a), &r2);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&q.posted,
						   struct kofi_match_entry,
						   node), &r1);
	KUNIT_EXPECT_TRUE(test, list_is_singular(&q.posted));
	KUNIT_EXPECT_NULL(test, kofi_match_find(&q, &b));
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 0);
	/* what find left is queued by arrive, then taken by a receive */
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &b));
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 1);
	r2.tag = 8;
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &r2, &taken), 1);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&taken,
						   struct kofi_match_entry,
						   node), &b);
}

static void km_peek_test(struct kunit *test)
{
	struct kofi_match_entry look = km_rx(FI_ADDR_UNSPEC, 3, 0, &look, 0);
	struct kofi_match_entry rx = km_rx(FI_ADDR_UNSPEC, 3, 0, &rx, 8);
	struct kofi_match_entry a = km_msg(1, 3, 8), b = km_msg(1, 3, 8);
	struct kofi_match_queue q;
	LIST_HEAD(taken);
	int other;

	kofi_match_init(&q, true, false, 8, 0);
	KUNIT_EXPECT_NULL(test, kofi_match_peek(&q, &look, FI_PEEK));
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &a));
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &b));
	/* a plain peek leaves the message where it is */
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_peek(&q, &look, FI_PEEK), &a);
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 2);
	/* claimed: a receive passes it by, only its claimer takes it */
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_peek(&q, &look,
						  FI_PEEK | FI_CLAIM), &a);
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_peek(&q, &look, FI_PEEK), &b);
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &rx, &taken), 1);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&taken,
						   struct kofi_match_entry,
						   node), &b);
	KUNIT_EXPECT_NULL(test, kofi_match_claim(&q, &other));
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_claim(&q, &look), &a);
	KUNIT_EXPECT_FALSE(test, a.flags & FI_CLAIM);
	KUNIT_EXPECT_NULL(test, kofi_match_claim(&q, &look));
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 0);
	/* discarded: removed */
	a.flags = 0;
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &a));
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_peek(&q, &look,
						  FI_PEEK | FI_DISCARD), &a);
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 0);
	KUNIT_EXPECT_NULL(test, kofi_match_peek(&q, &look, FI_PEEK));
}

/*
 * A 100-byte multi-receive buffer with a 30-byte minimum takes 40, 20 and
 * 15 bytes, one after the other, and is released after the third message
 * (25 bytes left): that message carries FI_MULTI_RECV.
 */
static void km_multi_recv_test(struct kunit *test)
{
	struct kofi_match_entry rx = km_rx(FI_ADDR_UNSPEC, 0, 0, &rx, 100);
	struct kofi_match_entry m[4] = { km_msg(1, 0, 40), km_msg(1, 0, 20),
					 km_msg(1, 0, 15), km_msg(1, 0, 10) };
	struct kofi_match_entry *e;
	struct kofi_match_queue q;
	LIST_HEAD(taken);
	int i = 0;

	kofi_match_init(&q, false, false, 8, 30);
	rx.flags = FI_MULTI_RECV;
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &rx, &taken), 0);
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_arrive(&q, &m[0]), &rx);
	KUNIT_EXPECT_EQ(test, m[0].offset, 0);
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_arrive(&q, &m[1]), &rx);
	KUNIT_EXPECT_EQ(test, m[1].offset, 40);
	KUNIT_EXPECT_FALSE(test, m[1].flags & FI_MULTI_RECV);
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_arrive(&q, &m[2]), &rx);
	KUNIT_EXPECT_EQ(test, m[2].offset, 60);
	KUNIT_EXPECT_TRUE(test, m[2].flags & FI_MULTI_RECV);
	KUNIT_EXPECT_TRUE(test, list_empty(&q.posted));
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &m[3]));

	/* posted after messages wait: takes them until released */
	for (i = 0; i < 3; i++)
		m[i].flags = 0;
	kofi_match_init(&q, false, false, 8, 30);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &m[i]));
	rx.offset = 0;
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &rx, &taken), 3);
	i = 0;
	list_for_each_entry(e, &taken, node)
		KUNIT_EXPECT_PTR_EQ(test, e, &m[i++]);
	KUNIT_EXPECT_TRUE(test, m[2].flags & FI_MULTI_RECV);
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 1);
	KUNIT_EXPECT_TRUE(test, list_empty(&q.posted));

	/* a message longer than what is left fills the buffer and ends it */
	kofi_match_init(&q, false, false, 8, 0);
	rx.offset = 0;
	m[0] = km_msg(1, 0, 70);
	m[1] = km_msg(1, 0, 70);
	INIT_LIST_HEAD(&taken);
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &rx, &taken), 0);
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_arrive(&q, &m[0]), &rx);
	KUNIT_EXPECT_FALSE(test, m[0].flags & FI_MULTI_RECV);
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_arrive(&q, &m[1]), &rx);
	KUNIT_EXPECT_EQ(test, m[1].offset, 70);
	KUNIT_EXPECT_TRUE(test, m[1].flags & FI_MULTI_RECV);
	KUNIT_EXPECT_EQ(test, rx.offset, 100);
	KUNIT_EXPECT_TRUE(test, list_empty(&q.posted));
}

static void km_cancel_test(struct kunit *test)
{
	struct kofi_match_entry r1 = km_rx(FI_ADDR_UNSPEC, 0, 0, &r1, 8);
	struct kofi_match_entry r2 = km_rx(FI_ADDR_UNSPEC, 0, 0, &r2, 8);
	struct kofi_match_entry a = km_msg(1, 0, 8);
	struct kofi_match_queue q;
	LIST_HEAD(taken);

	kofi_match_init(&q, false, false, 8, 0);
	kofi_match_post(&q, &r1, &taken);
	kofi_match_post(&q, &r2, &taken);
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_cancel(&q, &r1), &r1);
	KUNIT_EXPECT_NULL(test, kofi_match_cancel(&q, &r1));
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_arrive(&q, &a), &r2);
	KUNIT_EXPECT_TRUE(test, list_empty(&q.posted));
}

/*
 * A source that left the AV: receives directed to it are handed back,
 * its waiting messages lose their source, the rest is untouched.
 */
static void km_forget_test(struct kunit *test)
{
	struct kofi_match_entry r5 = km_rx(5, 1, 0, &r5, 8);
	struct kofi_match_entry r6 = km_rx(6, 1, 0, &r6, 8);
	struct kofi_match_entry again = km_rx(5, 2, 0, &again, 8);
	struct kofi_match_entry any = km_rx(FI_ADDR_UNSPEC, 2, 0, &any, 8);
	struct kofi_match_entry m5 = km_msg(5, 2, 8), m7 = km_msg(7, 3, 8);
	struct kofi_match_queue q;
	LIST_HEAD(taken);
	LIST_HEAD(gone);

	kofi_match_init(&q, true, true, 8, 0);
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &r5, &taken), 0);
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &r6, &taken), 0);
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &m5));
	KUNIT_EXPECT_NULL(test, kofi_match_arrive(&q, &m7));
	KUNIT_EXPECT_EQ(test, kofi_match_forget(&q, 5, &gone), 1);
	KUNIT_ASSERT_TRUE(test, list_is_singular(&gone));
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&gone,
						   struct kofi_match_entry,
						   node), &r5);
	KUNIT_EXPECT_EQ(test, m5.addr, FI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_EQ(test, m7.addr, 7);
	KUNIT_EXPECT_EQ(test, q.nr_unexpected, 2);
	/* any source is not a source */
	KUNIT_EXPECT_EQ(test, kofi_match_forget(&q, FI_ADDR_UNSPEC, &gone), 0);
	/* a receive directed to the next peer in slot 5 leaves m5 waiting */
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &again, &taken), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&taken));
	/* a receive from any source takes it */
	KUNIT_EXPECT_EQ(test, kofi_match_post(&q, &any, &taken), 1);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&taken,
						   struct kofi_match_entry,
						   node), &m5);
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_cancel(&q, &r6), &r6);
	KUNIT_EXPECT_PTR_EQ(test, kofi_match_cancel(&q, &again), &again);
}

static struct kunit_case kofi_match_cases[] = {
	KUNIT_CASE(km_tag_test),
	KUNIT_CASE(km_directed_test),
	KUNIT_CASE(km_order_test),
	KUNIT_CASE(km_receive_test),
	KUNIT_CASE(km_unexpected_bound_test),
	KUNIT_CASE(km_find_test),
	KUNIT_CASE(km_peek_test),
	KUNIT_CASE(km_multi_recv_test),
	KUNIT_CASE(km_cancel_test),
	KUNIT_CASE(km_forget_test),
	{}
};

struct kunit_suite kofi_match_suite = {
	.name = "kofi_match",
	.test_cases = kofi_match_cases,
};
