// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: the data calls of the core.  Every convenience call reaches
 * the provider's *msg operation with the vector, address, context, data,
 * tag and flags it stands for; a provider without data operations answers
 * -FI_ENOSYS; a partial table refuses the endpoint; the argument checks
 * answer -EINVAL before the provider is reached; a tagged CQ gives the
 * tag; FI_MAY_SLEEP reaches the provider from every data call.
 */
#include <linux/uio.h>
#include "kofi_test.h"

static struct ktp_ep *kd_ep(struct fid_ep *ep)
{
	return container_of(ep, struct ktp_ep, ep);
}

/* What the provider's operation was given by the call just made. */
struct kd_want {
	enum ktp_op op;
	u64 flags;
	const void *vec;	/* NULL: a kvec of the call's own, as below */
	size_t count;
	const void *base;	/* the first kvec */
	size_t len;
	bool has_desc;
	void *desc0;
	fi_addr_t addr;
	void *context;
	u64 data;
	struct fi_rma_iov rma;	/* for reads and writes */
};

static void kd_expect(struct kunit *test, struct ktp_ep *kep,
		      unsigned int calls, const struct kd_want *w)
{
	const struct ktp_call *c = &kep->last;

	KUNIT_EXPECT_EQ(test, c->calls, calls);
	KUNIT_EXPECT_EQ(test, c->op, w->op);
	KUNIT_EXPECT_EQ(test, c->flags, w->flags);
	KUNIT_EXPECT_EQ(test, c->iov_type, FI_IOV_KVEC);
	if (w->vec)
		KUNIT_EXPECT_PTR_EQ(test, c->vec, w->vec);
	KUNIT_EXPECT_EQ(test, c->iov_count, w->count);
	KUNIT_EXPECT_PTR_EQ(test, c->iov0.iov_base, w->base);
	KUNIT_EXPECT_EQ(test, c->iov0.iov_len, w->len);
	KUNIT_EXPECT_EQ(test, c->has_desc, w->has_desc);
	KUNIT_EXPECT_PTR_EQ(test, c->desc0, w->desc0);
	KUNIT_EXPECT_EQ(test, c->addr, w->addr);
	KUNIT_EXPECT_PTR_EQ(test, c->context, w->context);
	KUNIT_EXPECT_EQ(test, c->data, w->data);
	if (w->op == KTP_OP_READMSG || w->op == KTP_OP_WRITEMSG) {
		KUNIT_EXPECT_EQ(test, c->rma_iov_count, 1UL);
		KUNIT_EXPECT_EQ(test, c->rma0.addr, w->rma.addr);
		KUNIT_EXPECT_EQ(test, c->rma0.len, w->rma.len);
		KUNIT_EXPECT_EQ(test, c->rma0.key, w->rma.key);
	}
}

/* The message calls, each with what it must hand to the provider. */
static void kd_msg_calls_test(struct kunit *test)
{
	char buf[16], buf2[8];
	struct kvec iov[2] = {
		{ .iov_base = buf, .iov_len = sizeof(buf) },
		{ .iov_base = buf2, .iov_len = sizeof(buf2) },
	};
	void *descs[2] = { (void *)buf2, (void *)buf };
	void *desc = iov, *ctx = &ctx;
	struct ktp_stack s;
	struct ktp_ep *kep;
	struct kd_want w;

	ktp_stack_open(test, &s, true);
	kep = kd_ep(s.ep);

	KUNIT_ASSERT_EQ(test, fi_recv(s.ep, buf, 5, desc, 11, ctx), 0);
	w = (struct kd_want){ KTP_OP_RECVMSG, 0, NULL, 1, buf, 5, true, desc,
			      11, ctx, 0 };
	kd_expect(test, kep, 1, &w);

	KUNIT_ASSERT_EQ(test, fi_recv(s.ep, buf, 5, NULL, 12, ctx), 0);
	w.has_desc = false;
	w.desc0 = NULL;
	w.addr = 12;
	kd_expect(test, kep, 2, &w);

	KUNIT_ASSERT_EQ(test, fi_recvv(s.ep, iov, descs, 2, 13, ctx), 0);
	w = (struct kd_want){ KTP_OP_RECVMSG, 0, iov, 2, buf, sizeof(buf),
			      true, descs[0], 13, ctx, 0 };
	kd_expect(test, kep, 3, &w);

	KUNIT_ASSERT_EQ(test, fi_send(s.ep, buf2, 7, desc, 14, ctx), 0);
	w = (struct kd_want){ KTP_OP_SENDMSG, 0, NULL, 1, buf2, 7, true, desc,
			      14, ctx, 0 };
	kd_expect(test, kep, 4, &w);

	KUNIT_ASSERT_EQ(test, fi_sendv(s.ep, iov, NULL, 2, 15, ctx), 0);
	w = (struct kd_want){ KTP_OP_SENDMSG, 0, iov, 2, buf, sizeof(buf),
			      false, NULL, 15, ctx, 0 };
	kd_expect(test, kep, 5, &w);

	KUNIT_ASSERT_EQ(test, fi_inject(s.ep, buf, 3, 16), 0);
	w = (struct kd_want){ KTP_OP_SENDMSG, FI_INJECT, NULL, 1, buf, 3,
			      false, NULL, 16, NULL, 0 };
	kd_expect(test, kep, 6, &w);

	KUNIT_ASSERT_EQ(test, fi_senddata(s.ep, buf, 4, desc, 0xabcd, 17, ctx),
			0);
	w = (struct kd_want){ KTP_OP_SENDMSG, FI_REMOTE_CQ_DATA, NULL, 1, buf,
			      4, true, desc, 17, ctx, 0xabcd };
	kd_expect(test, kep, 7, &w);

	KUNIT_ASSERT_EQ(test, fi_injectdata(s.ep, buf2, 2, 0x1234, 18), 0);
	w = (struct kd_want){ KTP_OP_SENDMSG, FI_INJECT | FI_REMOTE_CQ_DATA,
			      NULL, 1, buf2, 2, false, NULL, 18, NULL,
			      0x1234 };
	kd_expect(test, kep, 8, &w);
	ktp_stack_close(test, &s);
}

/* The tagged calls, each with its tag and ignore bits. */
static void kd_tagged_calls_test(struct kunit *test)
{
	char buf[16], buf2[8];
	struct kvec iov[2] = {
		{ .iov_base = buf, .iov_len = sizeof(buf) },
		{ .iov_base = buf2, .iov_len = sizeof(buf2) },
	};
	void *descs[2] = { (void *)buf2, (void *)buf };
	void *desc = iov, *ctx = &ctx;
	struct ktp_stack s;
	struct ktp_ep *kep;
	struct kd_want w;

	ktp_stack_open(test, &s, true);
	kep = kd_ep(s.ep);

	KUNIT_ASSERT_EQ(test, fi_trecv(s.ep, buf, 5, desc, 11, 0x77, 0xf0,
				       ctx), 0);
	w = (struct kd_want){ KTP_OP_TRECVMSG, 0, NULL, 1, buf, 5, true, desc,
			      11, ctx, 0 };
	kd_expect(test, kep, 1, &w);
	KUNIT_EXPECT_EQ(test, kep->last.tag, 0x77ULL);
	KUNIT_EXPECT_EQ(test, kep->last.ignore, 0xf0ULL);

	KUNIT_ASSERT_EQ(test, fi_trecvv(s.ep, iov, descs, 2, FI_ADDR_UNSPEC,
					0x78, 0, ctx), 0);
	w = (struct kd_want){ KTP_OP_TRECVMSG, 0, iov, 2, buf, sizeof(buf),
			      true, descs[0], FI_ADDR_UNSPEC, ctx, 0 };
	kd_expect(test, kep, 2, &w);
	KUNIT_EXPECT_EQ(test, kep->last.tag, 0x78ULL);
	KUNIT_EXPECT_EQ(test, kep->last.ignore, 0ULL);

	KUNIT_ASSERT_EQ(test, fi_tsend(s.ep, buf2, 7, desc, 14, 0x79, ctx), 0);
	w = (struct kd_want){ KTP_OP_TSENDMSG, 0, NULL, 1, buf2, 7, true, desc,
			      14, ctx, 0 };
	kd_expect(test, kep, 3, &w);
	KUNIT_EXPECT_EQ(test, kep->last.tag, 0x79ULL);

	KUNIT_ASSERT_EQ(test, fi_tsendv(s.ep, iov, NULL, 2, 15, 0x7a, ctx), 0);
	w = (struct kd_want){ KTP_OP_TSENDMSG, 0, iov, 2, buf, sizeof(buf),
			      false, NULL, 15, ctx, 0 };
	kd_expect(test, kep, 4, &w);
	KUNIT_EXPECT_EQ(test, kep->last.tag, 0x7aULL);

	KUNIT_ASSERT_EQ(test, fi_tinject(s.ep, buf, 3, 16, 0x7b), 0);
	w = (struct kd_want){ KTP_OP_TSENDMSG, FI_INJECT, NULL, 1, buf, 3,
			      false, NULL, 16, NULL, 0 };
	kd_expect(test, kep, 5, &w);
	KUNIT_EXPECT_EQ(test, kep->last.tag, 0x7bULL);

	KUNIT_ASSERT_EQ(test, fi_tsenddata(s.ep, buf, 4, desc, 0xabcd, 17,
					   0x7c, ctx), 0);
	w = (struct kd_want){ KTP_OP_TSENDMSG, FI_REMOTE_CQ_DATA, NULL, 1, buf,
			      4, true, desc, 17, ctx, 0xabcd };
	kd_expect(test, kep, 6, &w);
	KUNIT_EXPECT_EQ(test, kep->last.tag, 0x7cULL);

	KUNIT_ASSERT_EQ(test, fi_tinjectdata(s.ep, buf2, 2, 0x1234, 18, 0x7d),
			0);
	w = (struct kd_want){ KTP_OP_TSENDMSG, FI_INJECT | FI_REMOTE_CQ_DATA,
			      NULL, 1, buf2, 2, false, NULL, 18, NULL,
			      0x1234 };
	kd_expect(test, kep, 7, &w);
	KUNIT_EXPECT_EQ(test, kep->last.tag, 0x7dULL);
	KUNIT_EXPECT_EQ(test, kep->last.ignore, 0ULL);
	ktp_stack_close(test, &s);
}

/* The receive flags of fi_trecvmsg(), and the send flags of fi_tsendmsg(). */
static void kd_tagged_flags_test(struct kunit *test)
{
	static const u64 ok[] = {
		0, FI_PEEK, FI_PEEK | FI_CLAIM, FI_PEEK | FI_DISCARD,
		FI_CLAIM, FI_CLAIM | FI_DISCARD, FI_MULTI_RECV, FI_COMPLETION,
	};
	static const u64 bad[] = {
		FI_DISCARD, FI_PEEK | FI_MULTI_RECV, BIT_ULL(63),
	};
	char buf[8];
	struct kvec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct fi_msg_tagged msg = { .iov_type = FI_IOV_KVEC, .msg_iov = &iov,
				     .iov_count = 1, .tag = 5 };
	struct fid_ep *dom_as_ep;
	struct ktp_stack s;
	struct ktp_ep *kep;
	unsigned int i, calls = 0;

	ktp_stack_open(test, &s, true);
	kep = kd_ep(s.ep);
	dom_as_ep = (struct fid_ep *)s.domain;
	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		KUNIT_EXPECT_EQ(test, fi_trecvmsg(s.ep, &msg, ok[i]), 0);
		KUNIT_EXPECT_EQ(test, kep->last.calls, ++calls);
		KUNIT_EXPECT_EQ(test, kep->last.flags, ok[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ(test, fi_trecvmsg(s.ep, &msg, bad[i]), -EINVAL);
	/* the receive flags are not send flags */
	KUNIT_EXPECT_EQ(test, fi_tsendmsg(s.ep, &msg, FI_PEEK), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_tsendmsg(s.ep, &msg, FI_CLAIM), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_tsendmsg(s.ep, &msg, FI_INJECT), 0);
	calls++;
	/* not an endpoint, no message, a bad vector */
	KUNIT_EXPECT_EQ(test, fi_tsendmsg(dom_as_ep, &msg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_trecvmsg(NULL, &msg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_tsendmsg(s.ep, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_trecvmsg(s.ep, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_tsend(s.ep, NULL, 1, NULL, 0, 1, NULL),
			-EINVAL);
	msg.iov_type = 7;
	KUNIT_EXPECT_EQ(test, fi_trecvmsg(s.ep, &msg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kep->last.calls, calls);
	ktp_stack_close(test, &s);
}

/*
 * FI_CQ_FORMAT_TAGGED: a tagged completion gives its tag and source; an
 * untagged one tag 0.
 */
static void kd_cq_tagged_test(struct kunit *test)
{
	struct fi_cq_attr attr = { .size = 4, .format = FI_CQ_FORMAT_TAGGED };
	struct fi_cq_tagged_entry e[2];
	fi_addr_t src[2];
	struct ktp_stack s;
	struct fid_cq *cq;
	char buf[4];

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), 0);
	KUNIT_EXPECT_EQ(test, kofi_cq_write_tagged(cq, buf, FI_RECV |
						   FI_TAGGED, 3, buf, 9,
						   0xfeed, 2), 0);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, &attr, FI_SEND | FI_MSG, 1,
					    NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, fi_cq_readfrom(cq, e, 2, src), 2);
	KUNIT_EXPECT_PTR_EQ(test, e[0].op_context, (void *)buf);
	KUNIT_EXPECT_EQ(test, e[0].flags, (u64)(FI_RECV | FI_TAGGED));
	KUNIT_EXPECT_EQ(test, e[0].len, 3UL);
	KUNIT_EXPECT_PTR_EQ(test, e[0].buf, (void *)buf);
	KUNIT_EXPECT_EQ(test, e[0].data, 9ULL);
	KUNIT_EXPECT_EQ(test, e[0].tag, 0xfeedULL);
	KUNIT_EXPECT_EQ(test, src[0], (fi_addr_t)2);
	KUNIT_EXPECT_PTR_EQ(test, e[1].op_context, (void *)&attr);
	KUNIT_EXPECT_EQ(test, e[1].tag, 0ULL);
	KUNIT_EXPECT_EQ(test, src[1], FI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);
	/* no format beyond it */
	attr.format = FI_CQ_FORMAT_TAGGED + 1;
	KUNIT_EXPECT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), -EINVAL);
	ktp_stack_close(test, &s);
}

/* The RMA calls: one remote segment as long as the local data. */
static void kd_rma_calls_test(struct kunit *test)
{
	char buf[16], buf2[8];
	struct kvec iov[2] = {
		{ .iov_base = buf, .iov_len = 3 },
		{ .iov_base = buf2, .iov_len = 5 },
	};
	void *descs[2] = { (void *)buf2, (void *)buf };
	void *desc = iov, *ctx = &ctx;
	struct ktp_stack s;
	struct ktp_ep *kep;
	struct kd_want w;

	ktp_stack_open(test, &s, true);
	kep = kd_ep(s.ep);

	KUNIT_ASSERT_EQ(test, fi_read(s.ep, buf, 9, desc, 21, 0x1000, 0x55,
				      ctx), 0);
	w = (struct kd_want){ KTP_OP_READMSG, 0, NULL, 1, buf, 9, true, desc,
			      21, ctx, 0, { 0x1000, 9, 0x55 } };
	kd_expect(test, kep, 1, &w);

	KUNIT_ASSERT_EQ(test, fi_readv(s.ep, iov, descs, 2, 22, 0x2000, 0x66,
				       ctx), 0);
	w = (struct kd_want){ KTP_OP_READMSG, 0, iov, 2, buf, 3, true,
			      descs[0], 22, ctx, 0, { 0x2000, 8, 0x66 } };
	kd_expect(test, kep, 2, &w);

	KUNIT_ASSERT_EQ(test, fi_write(s.ep, buf2, 6, NULL, 23, 0x3000, 0x77,
				       ctx), 0);
	w = (struct kd_want){ KTP_OP_WRITEMSG, 0, NULL, 1, buf2, 6, false,
			      NULL, 23, ctx, 0, { 0x3000, 6, 0x77 } };
	kd_expect(test, kep, 3, &w);

	KUNIT_ASSERT_EQ(test, fi_writev(s.ep, iov, NULL, 2, 24, 0x4000, 0x88,
					ctx), 0);
	w = (struct kd_want){ KTP_OP_WRITEMSG, 0, iov, 2, buf, 3, false, NULL,
			      24, ctx, 0, { 0x4000, 8, 0x88 } };
	kd_expect(test, kep, 4, &w);

	KUNIT_ASSERT_EQ(test, fi_inject_write(s.ep, buf, 4, 25, 0x5000, 0x99),
			0);
	w = (struct kd_want){ KTP_OP_WRITEMSG, FI_INJECT, NULL, 1, buf, 4,
			      false, NULL, 25, NULL, 0, { 0x5000, 4, 0x99 } };
	kd_expect(test, kep, 5, &w);

	KUNIT_ASSERT_EQ(test, fi_writedata(s.ep, buf, 10, desc, 0xbeef, 26,
					   0x6000, 0xaa, ctx), 0);
	w = (struct kd_want){ KTP_OP_WRITEMSG, FI_REMOTE_CQ_DATA, NULL, 1, buf,
			      10, true, desc, 26, ctx, 0xbeef,
			      { 0x6000, 10, 0xaa } };
	kd_expect(test, kep, 6, &w);

	KUNIT_ASSERT_EQ(test, fi_inject_writedata(s.ep, buf2, 1, 0xf00d, 27,
						  0x7000, 0xbb), 0);
	w = (struct kd_want){ KTP_OP_WRITEMSG, FI_INJECT | FI_REMOTE_CQ_DATA,
			      NULL, 1, buf2, 1, false, NULL, 27, NULL, 0xf00d,
			      { 0x7000, 1, 0xbb } };
	kd_expect(test, kep, 7, &w);
	ktp_stack_close(test, &s);
}

/* Open an endpoint on @s's domain with the given tables. */
static int kd_ep_open(struct ktp_stack *s, enum ktp_ep_tables tables,
		      struct fid_ep **ep)
{
	struct ktp_domain *kdom = container_of(s->domain, struct ktp_domain,
					       domain);
	int ret;

	kdom->ep_tables = tables;
	kdom->last_ep = NULL;
	ret = fi_endpoint(s->domain, s->info, ep, NULL);
	kdom->ep_tables = KTP_TABLES_ALL;
	return ret;
}

/*
 * A provider without data or control operations: every data call is
 * -FI_ENOSYS, and so are fi_getopt() and fi_cancel(); fi_enable() needs
 * no setup then: it succeeds, and the enabled endpoint takes no binding.
 */
static void kd_enosys_test(struct kunit *test)
{
	struct fi_rma_iov riov = { .len = 1 };
	char buf[8];
	struct kvec iov = { .iov_base = buf, .iov_len = 1 };
	struct fi_msg msg = { .iov_type = FI_IOV_KVEC, .msg_iov = &iov,
			      .iov_count = 1 };
	struct fi_msg_rma rmsg = { .iov_type = FI_IOV_KVEC, .msg_iov = &iov,
				   .iov_count = 1, .rma_iov = &riov,
				   .rma_iov_count = 1 };
	size_t len = sizeof(buf);
	struct ktp_stack s;
	struct fid_ep *ep;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, kd_ep_open(&s, KTP_TABLES_NONE, &ep), 0);
	KUNIT_EXPECT_NOT_NULL(test, ep->msg);
	KUNIT_EXPECT_NOT_NULL(test, ep->rma);
	KUNIT_EXPECT_EQ(test, fi_recvmsg(ep, &msg, 0), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_sendmsg(ep, &msg, 0), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_readmsg(ep, &rmsg, 0), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_writemsg(ep, &rmsg, 0), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_recv(ep, buf, 1, NULL, 0, NULL), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_recvv(ep, &iov, NULL, 1, 0, NULL),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_send(ep, buf, 1, NULL, 0, NULL), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_sendv(ep, &iov, NULL, 1, 0, NULL),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_inject(ep, buf, 1, 0), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_senddata(ep, buf, 1, NULL, 1, 0, NULL),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_injectdata(ep, buf, 1, 1, 0), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_read(ep, buf, 1, NULL, 0, 0, 0, NULL),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_readv(ep, &iov, NULL, 1, 0, 0, 0, NULL),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_write(ep, buf, 1, NULL, 0, 0, 0, NULL),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_writev(ep, &iov, NULL, 1, 0, 0, 0, NULL),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_inject_write(ep, buf, 1, 0, 0, 0),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_writedata(ep, buf, 1, NULL, 1, 0, 0, 0,
					   NULL), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_inject_writedata(ep, buf, 1, 1, 0, 0, 0),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_tsend(ep, buf, 1, NULL, 0, 1, NULL),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_trecv(ep, buf, 1, NULL, 0, 1, 0, NULL),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_tinjectdata(ep, buf, 1, 1, 0, 1), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_getopt(&ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_MIN_MULTI_RECV, buf, &len),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_cancel(&ep->fid, NULL), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_enable(ep), 0);
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &s.cq->fid, FI_TRANSMIT), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_close(&ep->fid), 0);
	ktp_stack_close(test, &s);
}

/* A table with only some operations: the endpoint is closed, refused. */
static void kd_partial_test(struct kunit *test)
{
	static const enum ktp_ep_tables partial[] = {
		KTP_TABLES_MSG_SEND, KTP_TABLES_RMA_READ,
		KTP_TABLES_TAGGED_RECV,
	};
	struct ktp_domain *kdom;
	struct ktp_stack s;
	struct fid_ep *ep;
	unsigned int i;

	ktp_stack_open(test, &s, false);
	kdom = container_of(s.domain, struct ktp_domain, domain);
	for (i = 0; i < ARRAY_SIZE(partial); i++) {
		ep = (struct fid_ep *)&ep;
		KUNIT_EXPECT_EQ(test, kd_ep_open(&s, partial[i], &ep),
				-EINVAL);
		KUNIT_EXPECT_NULL(test, ep);
		/* the provider made it and the core closed it */
		KUNIT_ASSERT_NOT_NULL(test, kdom->last_ep);
		KUNIT_EXPECT_EQ(test, kdom->last_ep->o.close_calls, 1);
		KUNIT_EXPECT_TRUE(test,
				  kofi_fid_closed(&kdom->last_ep->ep.fid));
	}
	/* and the refused endpoints hold no reference on the domain */
	ktp_stack_close(test, &s);
}

/* Each argument check answers -EINVAL before the provider is reached. */
static void kd_args_test(struct kunit *test)
{
	char buf[8];
	struct kvec iov[2] = {
		{ .iov_base = buf, .iov_len = 1 },
		{ .iov_base = NULL, .iov_len = 1 },
	};
	struct fi_rma_iov riov = { .len = 1 };
	struct fi_msg msg = { .iov_type = FI_IOV_KVEC, .msg_iov = iov,
			      .iov_count = 1 };
	struct fi_msg_rma rmsg = { .iov_type = FI_IOV_KVEC, .msg_iov = iov,
				   .iov_count = 1, .rma_iov = &riov,
				   .rma_iov_count = 1 };
	struct fid_ep *dom_as_ep;
	struct ktp_stack s;
	struct ktp_ep *kep;

	ktp_stack_open(test, &s, true);
	kep = kd_ep(s.ep);
	dom_as_ep = (struct fid_ep *)s.domain;

	/* the valid calls reach the provider */
	KUNIT_EXPECT_EQ(test, fi_sendmsg(s.ep, &msg, 0), 0);
	KUNIT_EXPECT_EQ(test, fi_recvmsg(s.ep, &msg, FI_PEEK), 0);
	KUNIT_EXPECT_EQ(test, fi_writemsg(s.ep, &rmsg, 0), 0);
	KUNIT_EXPECT_EQ(test, fi_readmsg(s.ep, &rmsg, 0), 0);
	KUNIT_EXPECT_EQ(test, kep->last.calls, 4U);

	/* not an endpoint */
	KUNIT_EXPECT_EQ(test, fi_sendmsg(NULL, &msg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_recvmsg(dom_as_ep, &msg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_readmsg(dom_as_ep, &rmsg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_writemsg(NULL, &rmsg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_send(dom_as_ep, buf, 1, NULL, 0, NULL),
			-EINVAL);
	/* no message */
	KUNIT_EXPECT_EQ(test, fi_sendmsg(s.ep, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_recvmsg(s.ep, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_readmsg(s.ep, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_writemsg(s.ep, NULL, 0), -EINVAL);
	/* unknown flags; FI_PEEK is a message flag only */
	KUNIT_EXPECT_EQ(test, fi_sendmsg(s.ep, &msg, BIT_ULL(63)), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_recvmsg(s.ep, &msg, BIT_ULL(63)), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_readmsg(s.ep, &rmsg, FI_PEEK), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_writemsg(s.ep, &rmsg, BIT_ULL(63)),
			-EINVAL);
	/* a kvec with a NULL base and a length */
	msg.iov_count = 2;
	rmsg.iov_count = 2;
	KUNIT_EXPECT_EQ(test, fi_sendmsg(s.ep, &msg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_recvmsg(s.ep, &msg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_readmsg(s.ep, &rmsg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_writemsg(s.ep, &rmsg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_sendv(s.ep, iov, NULL, 2, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_writev(s.ep, iov, NULL, 2, 0, 0, 0, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_send(s.ep, NULL, 1, NULL, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_recv(s.ep, NULL, 1, NULL, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_inject(s.ep, NULL, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_read(s.ep, NULL, 1, NULL, 0, 0, 0, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_inject_writedata(s.ep, NULL, 1, 0, 0, 0, 0),
			-EINVAL);
	msg.iov_count = 1;
	rmsg.iov_count = 1;
	/* an unknown vector type */
	msg.iov_type = 7;
	rmsg.iov_type = 7;
	KUNIT_EXPECT_EQ(test, fi_sendmsg(s.ep, &msg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_readmsg(s.ep, &rmsg, 0), -EINVAL);
	msg.iov_type = FI_IOV_KVEC;
	rmsg.iov_type = FI_IOV_KVEC;
	/* a NULL vector with a count */
	msg.msg_iov = NULL;
	rmsg.msg_iov = NULL;
	KUNIT_EXPECT_EQ(test, fi_recvmsg(s.ep, &msg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_writemsg(s.ep, &rmsg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_recvv(s.ep, NULL, NULL, 1, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_readv(s.ep, NULL, NULL, 2, 0, 0, 0, NULL),
			-EINVAL);
	msg.msg_iov = iov;
	rmsg.msg_iov = iov;
	/* a NULL remote vector with a count */
	rmsg.rma_iov = NULL;
	KUNIT_EXPECT_EQ(test, fi_readmsg(s.ep, &rmsg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_writemsg(s.ep, &rmsg, 0), -EINVAL);

	/* none of them reached the provider */
	KUNIT_EXPECT_EQ(test, kep->last.calls, 4U);
	/* a kvec with a NULL base and no length is fine */
	iov[0].iov_base = NULL;
	iov[0].iov_len = 0;
	KUNIT_EXPECT_EQ(test, fi_sendmsg(s.ep, &msg, 0), 0);
	KUNIT_EXPECT_EQ(test, fi_send(s.ep, NULL, 0, NULL, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, kep->last.calls, 6U);
	ktp_stack_close(test, &s);
}

/*
 * FI_MAY_SLEEP: every data call takes it (made here from the test's task,
 * which may sleep) and hands it to the provider unchanged, alone and with
 * the call's other flags; the bits beside it stay unknown.
 */
static void kd_may_sleep_test(struct kunit *test)
{
	char buf[8];
	struct kvec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct fi_rma_iov riov = { .len = sizeof(buf) };
	struct fi_msg msg = { .iov_type = FI_IOV_KVEC, .msg_iov = &iov,
			      .iov_count = 1 };
	struct fi_msg_rma rmsg = { .iov_type = FI_IOV_KVEC, .msg_iov = &iov,
				   .iov_count = 1, .rma_iov = &riov,
				   .rma_iov_count = 1 };
	struct fi_msg_tagged tmsg = { .iov_type = FI_IOV_KVEC, .msg_iov = &iov,
				      .iov_count = 1, .tag = 5 };
	static const u64 flags[] = {
		FI_MAY_SLEEP, FI_MAY_SLEEP | FI_COMPLETION,
		FI_MAY_SLEEP | FI_INJECT | FI_REMOTE_CQ_DATA,
	};
	struct ktp_stack s;
	struct ktp_ep *kep;
	unsigned int i, calls = 0;

	ktp_stack_open(test, &s, true);
	kep = kd_ep(s.ep);
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		KUNIT_EXPECT_EQ(test, fi_sendmsg(s.ep, &msg, flags[i]), 0);
		KUNIT_EXPECT_EQ(test, kep->last.op, KTP_OP_SENDMSG);
		KUNIT_EXPECT_EQ(test, kep->last.flags, flags[i]);
		KUNIT_EXPECT_EQ(test, fi_writemsg(s.ep, &rmsg, flags[i]), 0);
		KUNIT_EXPECT_EQ(test, kep->last.op, KTP_OP_WRITEMSG);
		KUNIT_EXPECT_EQ(test, kep->last.flags, flags[i]);
		KUNIT_EXPECT_EQ(test, fi_tsendmsg(s.ep, &tmsg, flags[i]), 0);
		KUNIT_EXPECT_EQ(test, kep->last.op, KTP_OP_TSENDMSG);
		KUNIT_EXPECT_EQ(test, kep->last.flags, flags[i]);
		calls += 3;
	}
	KUNIT_EXPECT_EQ(test, fi_recvmsg(s.ep, &msg, FI_MAY_SLEEP), 0);
	KUNIT_EXPECT_EQ(test, kep->last.op, KTP_OP_RECVMSG);
	KUNIT_EXPECT_EQ(test, kep->last.flags, FI_MAY_SLEEP);
	KUNIT_EXPECT_EQ(test, fi_recvmsg(s.ep, &msg, FI_MAY_SLEEP | FI_PEEK),
			0);
	KUNIT_EXPECT_EQ(test, kep->last.flags, FI_MAY_SLEEP | FI_PEEK);
	KUNIT_EXPECT_EQ(test, fi_readmsg(s.ep, &rmsg, FI_MAY_SLEEP), 0);
	KUNIT_EXPECT_EQ(test, kep->last.op, KTP_OP_READMSG);
	KUNIT_EXPECT_EQ(test, kep->last.flags, FI_MAY_SLEEP);
	KUNIT_EXPECT_EQ(test, fi_trecvmsg(s.ep, &tmsg,
					  FI_MAY_SLEEP | FI_PEEK | FI_CLAIM),
			0);
	KUNIT_EXPECT_EQ(test, kep->last.op, KTP_OP_TRECVMSG);
	KUNIT_EXPECT_EQ(test, kep->last.flags,
			FI_MAY_SLEEP | FI_PEEK | FI_CLAIM);
	calls += 4;
	KUNIT_EXPECT_EQ(test, kep->last.calls, calls);

	/* it is not FI_PEEK: a send or RMA call with that is still refused */
	KUNIT_EXPECT_EQ(test, fi_readmsg(s.ep, &rmsg, FI_MAY_SLEEP | FI_PEEK),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_tsendmsg(s.ep, &tmsg,
					  FI_MAY_SLEEP | FI_PEEK), -EINVAL);
	/* the bits beside it are still unknown */
	KUNIT_EXPECT_EQ(test, fi_sendmsg(s.ep, &msg, BIT_ULL(61)), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_writemsg(s.ep, &rmsg,
					  FI_MAY_SLEEP | BIT_ULL(61)), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_trecvmsg(s.ep, &tmsg, BIT_ULL(61)), -EINVAL);
	KUNIT_EXPECT_EQ(test, kep->last.calls, calls);
	ktp_stack_close(test, &s);
}

static struct kunit_case kofi_data_cases[] = {
	KUNIT_CASE(kd_msg_calls_test),
	KUNIT_CASE(kd_tagged_calls_test),
	KUNIT_CASE(kd_tagged_flags_test),
	KUNIT_CASE(kd_cq_tagged_test),
	KUNIT_CASE(kd_rma_calls_test),
	KUNIT_CASE(kd_enosys_test),
	KUNIT_CASE(kd_partial_test),
	KUNIT_CASE(kd_args_test),
	KUNIT_CASE(kd_may_sleep_test),
	{}
};

struct kunit_suite kofi_data_suite = {
	.name = "kofi_data",
	.suite_init = ktp_suite_init,
	.suite_exit = ktp_suite_exit,
	.exit = ktp_test_exit,
	.test_cases = kofi_data_cases,
};
