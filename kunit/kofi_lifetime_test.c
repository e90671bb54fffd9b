// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: object lifetime (children hold parents, -EBUSY, -EBADF,
 * endpoint close flushing outstanding work), misuse of the API (NULL and
 * wrong objects, bad flags, missing operations) and the remote key table.
 */
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include "kofi_test.h"
#include "../kofi/kofi_core.h"

/*
 * A user's struct fid is the libfabric identity and one opaque handle:
 * the core's references, lock, parent and bindings are not in it.
 */
struct kl_api_fid {
	u32 fclass;
	void *context;
	const struct fi_ops *ops;
	unsigned long core;
};

static_assert(sizeof(struct fid) == sizeof(struct kl_api_fid));
static_assert(offsetof(struct fid, core) ==
	      offsetof(struct kl_api_fid, core));

/* ---------------- lifetime ---------------- */

static void kl_order_test(struct kunit *test)
{
	struct ktp_stack s;

	ktp_stack_open(test, &s, true);
	/* every parent and every bound object is busy */
	KUNIT_EXPECT_EQ(test, fi_close(&s.fabric->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, fi_close(&s.domain->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, fi_close(&s.cq->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, fi_close(&s.eq->fid), -EBUSY);
	/* the endpoint goes first, then the rest in any child-first order */
	KUNIT_EXPECT_EQ(test, fi_close(&s.ep->fid), 0);
	s.ep = NULL;
	KUNIT_EXPECT_EQ(test, fi_close(&s.domain->fid), -EBUSY);	/* cq */
	KUNIT_EXPECT_EQ(test, fi_close(&s.fabric->fid), -EBUSY);
	ktp_stack_close(test, &s);
}

static void kl_double_close_test(struct kunit *test)
{
	struct ktp_stack s;
	struct ktp_ep *kep;
	struct ktp_domain *kdom;
	struct fid_ep *ep2;

	ktp_stack_open(test, &s, true);
	kep = container_of(s.ep, struct ktp_ep, ep);
	kdom = container_of(s.domain, struct ktp_domain, domain);

	KUNIT_EXPECT_FALSE(test, kofi_fid_closed(&s.ep->fid));
	KUNIT_EXPECT_EQ(test, fi_close(&s.ep->fid), 0);
	KUNIT_EXPECT_TRUE(test, kofi_fid_closed(&s.ep->fid));
	/* the test provider keeps the memory: a second close is detected */
	KUNIT_EXPECT_EQ(test, fi_close(&s.ep->fid), -EBADF);
	KUNIT_EXPECT_EQ(test, kep->o.close_calls, 1);
	/* a closed endpoint no longer holds its CQ, EQ and domain */
	KUNIT_EXPECT_EQ(test, fi_close(&s.cq->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&s.eq->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&s.domain->fid), 0);
	/* opening a child of a closed parent is refused */
	KUNIT_EXPECT_EQ(test, fi_endpoint(s.domain, s.info, &ep2, NULL),
			-EBADF);
	KUNIT_EXPECT_EQ(test, fi_close(&s.domain->fid), -EBADF);
	KUNIT_EXPECT_EQ(test, kdom->o.close_calls, 1);
	s.ep = NULL;
	s.cq = NULL;
	s.eq = NULL;
	s.domain = NULL;
	ktp_stack_close(test, &s);
}

/*
 * A close the provider fails leaves the object as it was: the core never
 * takes the count to zero (during the close it reads 1 and cannot be
 * raised), and afterwards the object is open, still holds its parent and
 * its bindings, works, and closes normally.
 */
static void kl_close_fail_test(struct kunit *test)
{
	struct fi_cq_data_entry c;
	struct ktp_stack s;
	struct ktp_ep *kep;
	char buf[16];

	ktp_stack_open(test, &s, true);
	kep = container_of(s.ep, struct ktp_ep, ep);
	KUNIT_EXPECT_EQ(test, kofi_fid_test_refs(&s.ep->fid), 1U);
	KUNIT_EXPECT_EQ(test, kofi_fid_test_refs(&s.cq->fid), 2U);

	kep->o.close_err = -EIO;
	KUNIT_EXPECT_EQ(test, fi_close(&s.ep->fid), -EIO);
	KUNIT_EXPECT_EQ(test, kep->o.close_calls, 1);
	KUNIT_EXPECT_EQ(test, kep->o.close_refs, 1U);
	KUNIT_EXPECT_FALSE(test, kep->o.close_held);

	/* open and unchanged */
	KUNIT_EXPECT_FALSE(test, kofi_fid_closed(&s.ep->fid));
	KUNIT_EXPECT_EQ(test, kofi_fid_test_refs(&s.ep->fid), 1U);
	KUNIT_EXPECT_EQ(test, kofi_fid_test_refs(&s.cq->fid), 2U);
	KUNIT_EXPECT_EQ(test, fi_close(&s.cq->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, fi_close(&s.domain->fid), -EBUSY);
	/* usable: it can be held, and its data calls complete */
	KUNIT_EXPECT_TRUE(test, kofi_fid_get(&s.ep->fid));
	KUNIT_EXPECT_EQ(test, fi_close(&s.ep->fid), -EBUSY);
	kofi_fid_put(&s.ep->fid);
	KUNIT_EXPECT_EQ(test, fi_send(s.ep, buf, 4, NULL, FI_ADDR_UNSPEC,
				      (void *)1), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, &c, 1), 1);

	/* closable later, releasing its parent and bindings */
	KUNIT_EXPECT_EQ(test, fi_close(&s.ep->fid), 0);
	KUNIT_EXPECT_EQ(test, kep->o.close_calls, 2);
	KUNIT_EXPECT_TRUE(test, kofi_fid_closed(&s.ep->fid));
	KUNIT_EXPECT_EQ(test, fi_close(&s.ep->fid), -EBADF);
	KUNIT_EXPECT_EQ(test, kofi_fid_test_refs(&s.cq->fid), 1U);
	s.ep = NULL;
	ktp_stack_close(test, &s);
}

/* Closing an endpoint completes its outstanding receives with ECANCELED. */
static void kl_flush_test(struct kunit *test)
{
	struct fi_cq_data_entry c[4];
	struct fi_cq_err_entry err;
	struct ktp_stack s;
	char buf[16];
	int i;

	ktp_stack_open(test, &s, true);
	for (i = 1; i <= 3; i++)
		KUNIT_EXPECT_EQ(test, fi_recv(s.ep, buf, sizeof(buf), NULL,
					      FI_ADDR_UNSPEC, (void *)(long)i),
				0);
	KUNIT_EXPECT_EQ(test, fi_send(s.ep, buf, 4, NULL, FI_ADDR_UNSPEC,
				      (void *)100), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, c, 4), 1);
	KUNIT_EXPECT_PTR_EQ(test, c[0].op_context, (void *)100);
	KUNIT_EXPECT_EQ(test, c[0].flags, FI_SEND | FI_MSG);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, c, 4), -EAGAIN);

	KUNIT_EXPECT_EQ(test, fi_close(&s.ep->fid), 0);
	s.ep = NULL;
	for (i = 1; i <= 3; i++) {
		KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, c, 4), -FI_EAVAIL);
		KUNIT_EXPECT_EQ(test, fi_cq_readerr(s.cq, &err, 0), 1);
		KUNIT_EXPECT_EQ(test, err.err, ECANCELED);
		KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)(long)i);
		KUNIT_EXPECT_EQ(test, err.flags, FI_RECV | FI_MSG);
	}
	KUNIT_EXPECT_EQ(test, fi_cq_readerr(s.cq, &err, 0), -EAGAIN);
	ktp_stack_close(test, &s);
}

static void kl_mr_test(struct kunit *test)
{
	struct ktp_stack s;
	struct fid_mr *mr, *mr2;
	struct ktp_domain *kdom;
	struct kofi_key_entry *e;
	void *buf = kunit_kzalloc(test, 4096, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	ktp_stack_open(test, &s, false);
	kdom = container_of(s.domain, struct ktp_domain, domain);
	KUNIT_ASSERT_EQ(test, fi_mr_reg(s.domain, buf, 4096, FI_REMOTE_WRITE,
					0, 0, 0, &mr, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_mr_reg(s.domain, buf, 4096, FI_REMOTE_READ,
					0, 0, 0, &mr2, NULL), 0);
	KUNIT_EXPECT_NE(test, fi_mr_key(mr), fi_mr_key(mr2));
	KUNIT_EXPECT_NOT_NULL(test, fi_mr_desc(mr));
	e = kofi_keytable_get(&kdom->kt, fi_mr_key(mr), 100, 100,
			      FI_REMOTE_WRITE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(e));
	KUNIT_EXPECT_PTR_EQ(test, e->priv, buf);
	kofi_key_entry_put(e);
	/* the MRs hold the domain */
	KUNIT_EXPECT_EQ(test, fi_close(&s.domain->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, fi_close(&mr->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&mr2->fid), 0);
	ktp_stack_close(test, &s);
}

/* fi_mr_regv() of a provider with only regattr: one region, all bytes. */
static void kl_mr_regv_test(struct kunit *test)
{
	struct ktp_stack s;
	struct fid_mr *mr;
	struct ktp_domain *kdom;
	struct kofi_key_entry *e;
	u8 *buf = kunit_kzalloc(test, 8192, GFP_KERNEL);
	struct kvec iov[2];
	int ctx;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	iov[0] = (struct kvec){ .iov_base = buf, .iov_len = 4096 };
	iov[1] = (struct kvec){ .iov_base = buf + 4096, .iov_len = 1000 };
	ktp_stack_open(test, &s, false);
	kdom = container_of(s.domain, struct ktp_domain, domain);
	KUNIT_ASSERT_EQ(test, fi_mr_regv(s.domain, iov, 2, FI_REMOTE_READ, 64,
					 0, 0, &mr, &ctx), 0);
	KUNIT_EXPECT_PTR_EQ(test, mr->fid.context, (void *)&ctx);
	/* the region spans both entries, from the given offset */
	e = kofi_keytable_get(&kdom->kt, fi_mr_key(mr), 64 + 5095, 1,
			      FI_REMOTE_READ);
	KUNIT_ASSERT_FALSE(test, IS_ERR(e));
	kofi_key_entry_put(e);
	e = kofi_keytable_get(&kdom->kt, fi_mr_key(mr), 64 + 5096, 1,
			      FI_REMOTE_READ);
	KUNIT_EXPECT_TRUE(test, IS_ERR(e));
	KUNIT_EXPECT_EQ(test, fi_close(&mr->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_mr_regv(s.domain, iov, 0, FI_REMOTE_READ, 0,
					 0, 0, &mr, NULL), -EINVAL);
	ktp_stack_close(test, &s);
}

/* ---------------- misuse ---------------- */

static void km_null_test(struct kunit *test)
{
	struct fid bogus = {};
	struct fi_cq_entry c;
	u32 event;

	KUNIT_EXPECT_EQ(test, fi_close(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_close(&bogus), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_control(NULL, FI_ENABLE, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_domain(NULL, NULL, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_endpoint(NULL, NULL, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_send(NULL, NULL, 0, NULL, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_recv(NULL, NULL, 0, NULL, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_write(NULL, NULL, 0, NULL, 0, 0, 0, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_cq_read(NULL, &c, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_cq_signal(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_eq_read(NULL, &event, NULL, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_connect(NULL, NULL, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_listen(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_ep_bind(NULL, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_enable(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_mr_reg(NULL, &c, 1, 0, 0, 0, 0, NULL, NULL),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, fi_mr_desc(NULL));
	KUNIT_EXPECT_EQ(test, fi_mr_key(NULL), FI_KEY_NOTAVAIL);
	KUNIT_EXPECT_EQ(test, fi_getname(NULL, NULL, NULL), -EINVAL);
}

static void km_wrong_class_test(struct kunit *test)
{
	struct fid_domain *d2 = NULL;
	struct fi_cq_entry c;
	struct ktp_stack s;
	u32 event;

	ktp_stack_open(test, &s, true);
	/* an object of the wrong class is refused before any provider op */
	KUNIT_EXPECT_EQ(test, fi_domain((struct fid_fabric *)s.domain, s.info,
					&d2, NULL), -EINVAL);
	KUNIT_EXPECT_NULL(test, d2);
	KUNIT_EXPECT_EQ(test, fi_cq_read((struct fid_cq *)s.eq, &c, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_eq_read((struct fid_eq *)s.cq, &event, &c,
					 sizeof(c), 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_send((struct fid_ep *)s.domain, &c, 1, NULL,
				      0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_listen((struct fid_pep *)s.ep), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_reject((struct fid_pep *)s.ep, &s.ep->fid,
					NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_mr_key((struct fid_mr *)s.cq),
			FI_KEY_NOTAVAIL);
	KUNIT_EXPECT_EQ(test, fi_setopt(&s.cq->fid, FI_OPT_ENDPOINT,
					FI_OPT_CM_DATA_SIZE, &c, sizeof(c)),
			-EINVAL);
	/* binding something that is not an object */
	KUNIT_EXPECT_EQ(test, fi_ep_bind(s.ep, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_ep_bind(s.ep, &s.ep->fid, 0), -EINVAL);
	/* the core refuses a CQ without FI_SEND/FI_RECV */
	KUNIT_EXPECT_EQ(test, fi_ep_bind(s.ep, &s.cq->fid, 0), -EINVAL);
	/* and a failed bind left no reference behind */
	ktp_stack_close(test, &s);
}

static void km_bad_args_test(struct kunit *test)
{
	struct fi_msg msg = { .iov_type = FI_IOV_KVEC };
	struct fi_msg_rma rmsg = { .iov_type = FI_IOV_KVEC };
	struct fi_cq_err_entry err;
	struct kvec iov = {};
	struct ktp_stack s;
	struct fid_mr *mr;
	char buf[8];
	size_t sz;
	u32 event;

	ktp_stack_open(test, &s, true);
	msg.msg_iov = &iov;
	msg.iov_count = 1;
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	KUNIT_EXPECT_EQ(test, fi_send(s.ep, NULL, 10, NULL, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_sendv(s.ep, NULL, NULL, 1, 0, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_sendmsg(s.ep, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_sendmsg(s.ep, &msg, BIT_ULL(63)), -EINVAL);
	msg.iov_type = 7;
	KUNIT_EXPECT_EQ(test, fi_recvmsg(s.ep, &msg, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_writemsg(s.ep, &rmsg, BIT_ULL(63)), -EINVAL);
	rmsg.rma_iov_count = 1;
	KUNIT_EXPECT_EQ(test, fi_readmsg(s.ep, &rmsg, 0), -EINVAL);

	KUNIT_EXPECT_EQ(test, fi_mr_reg(s.domain, buf, 0, FI_REMOTE_READ, 0,
					0, 0, &mr, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_mr_reg(s.domain, buf, 8, BIT_ULL(60), 0, 0,
					0, &mr, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_mr_reg(s.domain, NULL, 8, FI_REMOTE_READ, 0,
					0, 0, &mr, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_eq_read(s.eq, &event, buf, sizeof(buf),
					 BIT_ULL(1)), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_eq_write(s.eq, 0, buf, sizeof(buf), 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_cq_readerr(s.cq, &err, BIT_ULL(1)), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, NULL, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_shutdown(s.ep, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_connect(s.ep, NULL, NULL, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_setopt(&s.ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_CM_DATA_SIZE, NULL, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_getopt(&s.ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_CM_DATA_SIZE, buf, NULL),
			-EINVAL);
	sz = sizeof(size_t);
	KUNIT_EXPECT_EQ(test, fi_getopt(&s.ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_CM_DATA_SIZE, buf, &sz), 0);
	KUNIT_EXPECT_EQ(test, *(size_t *)buf, 64UL);
	KUNIT_EXPECT_EQ(test, fi_getopt(&s.ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_TX_SIZE, buf, &sz),
			-ENOPROTOOPT);
	/* Every provider accepts kOFI's generic option, this one ignores it. */
	KUNIT_EXPECT_EQ(test, fi_setopt(&s.ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_DATA_MAY_SLEEP, buf, sz), 0);
	KUNIT_EXPECT_EQ(test, fi_setopt(&s.ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_DATA_MAY_SLEEP, buf, 1), -EINVAL);
	ktp_stack_close(test, &s);
}

/* Control operations a provider leaves out answer -FI_ENOSYS. */
static void km_enosys_test(struct kunit *test)
{
	struct ktp_stack s;
	struct fid_pep *pep;
	char buf[8];
	size_t len = sizeof(buf);

	ktp_stack_open(test, &s, true);
	KUNIT_EXPECT_EQ(test, fi_connect(s.ep, NULL, NULL, 0), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_shutdown(s.ep, 0), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_getname(&s.ep->fid, buf, &len), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_cancel(&s.ep->fid, NULL), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_setopt(&s.ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_TX_SIZE, &len, sizeof(len)),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_setopt(&s.ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_DATA_MAY_SLEEP, &len,
					sizeof(len)), 0);
	KUNIT_EXPECT_EQ(test, fi_passive_ep(s.fabric, s.info, &pep, NULL),
			-FI_ENOSYS);
	/* a refused open leaves the parent free to close */
	ktp_stack_close(test, &s);
}

/* ---------------- key table ---------------- */

static void kk_basic_test(struct kunit *test)
{
	struct kofi_keytable kt;
	struct kofi_key_entry *a, *b, *e;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, kofi_keytable_init(&kt, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, kofi_keytable_init(&kt, 4), 0);

	a->base = 0x1000;
	a->len = 0x100;
	a->access = FI_REMOTE_READ;
	KUNIT_ASSERT_EQ(test, kofi_keytable_insert(&kt, a, 0, true), 0);
	KUNIT_EXPECT_NE(test, a->key, 0ULL);
	KUNIT_EXPECT_NE(test, a->key, FI_KEY_NOTAVAIL);
	b->base = 0;
	b->len = 10;
	b->access = FI_REMOTE_READ | FI_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, kofi_keytable_insert(&kt, b, a->key, false),
			-EEXIST);
	KUNIT_ASSERT_EQ(test, kofi_keytable_insert(&kt, b, 77, false), 0);
	KUNIT_EXPECT_EQ(test, b->key, 77ULL);

	/* inside, exactly at both ends */
	e = kofi_keytable_get(&kt, a->key, 0x1000, 0x100, FI_REMOTE_READ);
	KUNIT_ASSERT_FALSE(test, IS_ERR(e));
	KUNIT_EXPECT_PTR_EQ(test, e, a);
	kofi_key_entry_put(e);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kofi_keytable_get(&kt, a->key, 0x1000,
							0x101,
							FI_REMOTE_READ)),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kofi_keytable_get(&kt, a->key, 0xfff, 1,
							FI_REMOTE_READ)),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kofi_keytable_get(&kt, a->key, 0x10ff,
							U64_MAX,
							FI_REMOTE_READ)),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kofi_keytable_get(&kt, a->key, 0x1000, 1,
							FI_REMOTE_WRITE)),
			-EACCES);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kofi_keytable_get(&kt, a->key ^ 1,
							0x1000, 1,
							FI_REMOTE_READ)),
			-ENOKEY);

	/* lookups from softirq-disabled (bottom half) context */
	local_bh_disable();
	e = kofi_keytable_get(&kt, 77, 0, 10, FI_REMOTE_WRITE);
	if (!IS_ERR(e))
		kofi_key_entry_put(e);
	local_bh_enable();
	KUNIT_EXPECT_FALSE(test, IS_ERR(e));

	kofi_keytable_remove(&kt, a);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kofi_keytable_get(&kt, a->key, 0x1000, 1,
							FI_REMOTE_READ)),
			-ENOKEY);
	kofi_keytable_remove(&kt, b);
	kofi_keytable_destroy(&kt);
}

/* A thread that holds an RCU read-side section, or a key reference. */
struct kk_holder {
	struct kofi_keytable *kt;
	u64 key;			/* 0: hold rcu_read_lock() */
	struct completion started;
	struct completion done;
	atomic_t release;		/* set by the test: leave now */
	atomic_t held;			/* 1 while holding */
};

/* Hold an RCU read-side section until released (at most 5 s). */
static int kk_rcu_holder_fn(void *arg)
{
	struct kk_holder *h = arg;
	unsigned long end = jiffies + 5 * HZ;

	rcu_read_lock();
	atomic_set(&h->held, 1);
	complete(&h->started);
	/* bounded: a removal that waits for us must not hang */
	while (!atomic_read(&h->release) && time_before(jiffies, end))
		cpu_relax();
	atomic_set(&h->held, 0);
	rcu_read_unlock();
	complete(&h->done);
	return 0;
}

/* Hold a reference on h->key for 100 ms: the test's removal waits. */
static int kk_ref_holder_fn(void *arg)
{
	struct kk_holder *h = arg;
	struct kofi_key_entry *e;

	e = kofi_keytable_get(h->kt, h->key, 0x1000, 1, FI_REMOTE_READ);
	if (!IS_ERR(e))
		atomic_set(&h->held, 1);
	complete(&h->started);
	if (!IS_ERR(e)) {
		msleep(100);
		atomic_set(&h->held, 0);
		kofi_key_entry_put(e);
	}
	complete(&h->done);
	return 0;
}

static void kk_holder_start(struct kunit *test, struct kk_holder *h,
			    struct kofi_keytable *kt, u64 key)
{
	struct task_struct *t;

	h->kt = kt;
	h->key = key;
	init_completion(&h->started);
	init_completion(&h->done);
	atomic_set(&h->release, 0);
	atomic_set(&h->held, 0);
	t = kthread_run(key ? kk_ref_holder_fn : kk_rcu_holder_fn, h,
			"kk_holder");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&h->started);
}

static struct kofi_key_entry *kk_entry(struct kunit *test,
				       struct kofi_keytable *kt, u64 key)
{
	struct kofi_key_entry *e = kzalloc(sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->base = 0x1000;
	e->len = 0x100;
	e->access = FI_REMOTE_READ;
	KUNIT_ASSERT_EQ(test, kofi_keytable_insert(kt, e, key, false), 0);
	return e;
}

/*
 * kofi_keytable_remove() waits for a peer's reference, not for an RCU
 * grace period: a region closed per message (rxm's rendezvous) must not
 * cost one.  The lookup that follows fails at once.
 */
static void kk_remove_test(struct kunit *test)
{
	struct kofi_key_entry *e;
	struct kofi_keytable kt;
	struct kk_holder h;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	KUNIT_ASSERT_EQ(test, kofi_keytable_init(&kt, 4), 0);

	/* a reader in an RCU section does not hold the removal up */
	e = kk_entry(test, &kt, 5);
	kk_holder_start(test, &h, &kt, 0);
	kofi_keytable_remove(&kt, e);
	KUNIT_EXPECT_EQ(test, atomic_read(&h.held), 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kofi_keytable_get(&kt, 5, 0x1000, 1,
							FI_REMOTE_READ)),
			-ENOKEY);
	atomic_set(&h.release, 1);
	wait_for_completion(&h.done);
	kfree_rcu(e, rcu);

	/* a reference does: the removal returns after its put */
	e = kk_entry(test, &kt, 6);
	kk_holder_start(test, &h, &kt, 6);
	KUNIT_EXPECT_EQ(test, atomic_read(&h.held), 1);
	kofi_keytable_remove(&kt, e);
	KUNIT_EXPECT_EQ(test, atomic_read(&h.held), 0);
	wait_for_completion(&h.done);
	kfree_rcu(e, rcu);
	kofi_keytable_destroy(&kt);
}

/* fi_ep_bind(): the core's rules, one answer each, and the accessors. */
static void kl_bind_rules_test(struct kunit *test)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fid_domain *dom2;
	struct fid_cq *cq2, *cq3;
	struct ktp_stack s;
	struct ktp_ep *tep;
	struct fid_av *av;
	struct fid_ep *ep;
	u64 f = 1;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_endpoint(s.domain, s.info, &ep, NULL), 0);
	tep = container_of(ep, struct ktp_ep, ep);
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &cq_attr, &cq2, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_domain(s.fabric, s.info, &dom2, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_cq_open(dom2, &cq_attr, &cq3, NULL), 0);
	KUNIT_EXPECT_NULL(test, kofi_ep_cq(ep, FI_TRANSMIT, &f));
	KUNIT_EXPECT_EQ(test, f, 0ULL);
	KUNIT_EXPECT_NULL(test, kofi_ep_eq(ep));

	/* wrong class */
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &s.domain->fid, 0), -EINVAL);
	/* a CQ needs a direction, and nothing else */
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &s.cq->fid, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &s.cq->fid, FI_SEND | FI_MSG),
			-EINVAL);
	/* an EQ takes no flags */
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &s.eq->fid, FI_RECV), -EINVAL);
	/* a CQ of another domain */
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &cq3->fid, FI_RECV), -EINVAL);
	KUNIT_EXPECT_NULL(test, kofi_ep_cq(ep, FI_RECV, NULL));

	/* valid bindings, visible through the accessors */
	KUNIT_ASSERT_EQ(test, fi_ep_bind(ep, &s.cq->fid, FI_TRANSMIT), 0);
	KUNIT_EXPECT_PTR_EQ(test, kofi_ep_cq(ep, FI_TRANSMIT, &f), s.cq);
	KUNIT_EXPECT_EQ(test, f, FI_TRANSMIT);
	KUNIT_EXPECT_NULL(test, kofi_ep_cq(ep, FI_RECV, NULL));
	KUNIT_EXPECT_NULL(test, kofi_ep_cq(ep, FI_SEND | FI_RECV, NULL));
	/* one CQ per direction */
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &cq2->fid, FI_SEND | FI_RECV),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, kofi_ep_cq(ep, FI_RECV, NULL));
	KUNIT_ASSERT_EQ(test, fi_ep_bind(ep, &cq2->fid, FI_RECV), 0);
	KUNIT_EXPECT_PTR_EQ(test, kofi_ep_cq(ep, FI_RECV, &f), cq2);
	KUNIT_EXPECT_EQ(test, f, FI_RECV);
	KUNIT_EXPECT_PTR_EQ(test, kofi_ep_cq(ep, FI_SEND, NULL), s.cq);
	/* one EQ; no fi_enable() while a binding is in progress */
	tep->bind_enables = true;
	KUNIT_ASSERT_EQ(test, fi_ep_bind(ep, &s.eq->fid, 0), 0);
	tep->bind_enables = false;
	KUNIT_EXPECT_EQ(test, tep->bind_enable_ret, -EBUSY);
	KUNIT_EXPECT_FALSE(test, tep->enabled);
	KUNIT_EXPECT_PTR_EQ(test, kofi_ep_eq(ep), s.eq);
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &s.eq->fid, 0), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, kofi_ep_eq(ep), s.eq);
	/* a bound CQ is busy */
	KUNIT_EXPECT_EQ(test, fi_close(&cq2->fid), -EBUSY);

	/* nothing binds while the provider enables, nor once enabled */
	KUNIT_ASSERT_EQ(test, fi_av_open(s.domain, &av_attr, &av, NULL), 0);
	tep->enable_binds = &av->fid;
	KUNIT_ASSERT_EQ(test, fi_enable(ep), 0);
	tep->enable_binds = NULL;
	KUNIT_EXPECT_EQ(test, tep->enable_bind_ret, -EINVAL);
	KUNIT_EXPECT_TRUE(test, tep->enabled);
	KUNIT_EXPECT_NULL(test, kofi_ep_av(ep));
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &av->fid, 0), -EINVAL);
	KUNIT_EXPECT_NULL(test, kofi_ep_av(ep));

	KUNIT_EXPECT_EQ(test, fi_close(&ep->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&av->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&cq2->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&cq3->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&dom2->fid), 0);
	ktp_stack_close(test, &s);
}

/*
 * fi_srx_context(): opened on a domain that offers it, -FI_ENOSYS on one
 * that does not; receives only; bound by endpoints of its domain, one
 * each, flags 0; busy while bound.
 */
static void kl_srx_test(struct kunit *test)
{
	struct fid_domain *dom2, *swdom;
	struct fid_fabric *swfab;
	struct fid_ep *ep, *ep2, *srx, *srx2, *srx3;
	struct fi_info *hints, *swinfo, *none = NULL;
	struct ktp_stack s;
	struct ktp_ep *tsrx;
	char buf[8];
	int ctx;

	ktp_stack_open(test, &s, false);
	KUNIT_EXPECT_EQ(test, s.info->domain_attr->max_ep_srx_ctx, 2UL);
	KUNIT_EXPECT_EQ(test, fi_srx_context(NULL, NULL, &srx, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_srx_context(s.domain, NULL, NULL, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_srx_context((struct fid_domain *)s.cq, NULL,
					     &srx, NULL), -EINVAL);
	KUNIT_ASSERT_EQ(test, fi_srx_context(s.domain, NULL, &srx, &ctx), 0);
	KUNIT_EXPECT_EQ(test, srx->fid.fclass, (u32)FI_CLASS_SRX_CTX);
	KUNIT_EXPECT_PTR_EQ(test, srx->fid.context, (void *)&ctx);
	tsrx = container_of(srx, struct ktp_ep, ep);

	/* receives reach the provider; nothing else does */
	KUNIT_EXPECT_EQ(test, fi_recv(srx, buf, sizeof(buf), NULL, 0, &ctx),
			0);
	KUNIT_EXPECT_EQ(test, tsrx->last.calls, 1U);
	KUNIT_EXPECT_EQ(test, tsrx->last.op, KTP_OP_RECVMSG);
	KUNIT_EXPECT_EQ(test, fi_trecv(srx, buf, sizeof(buf), NULL, 0, 1, 0,
				       &ctx), 0);
	KUNIT_EXPECT_EQ(test, tsrx->last.calls, 2U);
	KUNIT_EXPECT_EQ(test, fi_send(srx, buf, 1, NULL, 0, &ctx), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_tsend(srx, buf, 1, NULL, 0, 1, &ctx),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_write(srx, buf, 1, NULL, 0, 0, 0, &ctx),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_enable(srx), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_ep_bind(srx, &s.cq->fid, FI_RECV), -EINVAL);
	KUNIT_EXPECT_EQ(test, tsrx->last.calls, 2U);
	/* no cancel in this provider: the core asks it */
	KUNIT_EXPECT_EQ(test, fi_cancel(&srx->fid, &ctx), -FI_ENOSYS);

	/* bindings: flags 0, same domain, one each */
	KUNIT_ASSERT_EQ(test, fi_endpoint(s.domain, s.info, &ep, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_endpoint(s.domain, s.info, &ep2, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_domain(s.fabric, s.info, &dom2, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_srx_context(dom2, NULL, &srx3, NULL), 0);
	KUNIT_EXPECT_NULL(test, kofi_ep_srx(ep));
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &srx->fid, FI_RECV), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &srx3->fid, 0), -EINVAL);
	KUNIT_EXPECT_NULL(test, kofi_ep_srx(ep));
	KUNIT_ASSERT_EQ(test, fi_ep_bind(ep, &srx->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(ep2, &srx->fid, 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, kofi_ep_srx(ep), srx);
	KUNIT_EXPECT_PTR_EQ(test, kofi_ep_srx(ep2), srx);
	KUNIT_ASSERT_EQ(test, fi_srx_context(s.domain, NULL, &srx2, NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &srx2->fid, 0), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, kofi_ep_srx(ep), srx);
	/* busy while an endpoint holds it */
	KUNIT_EXPECT_EQ(test, fi_close(&srx->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, fi_close(&ep->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&srx->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, fi_close(&ep2->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&srx->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&srx2->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&srx3->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&dom2->fid), 0);

	/* kt_sw has none: its info says 0, the call answers -FI_ENOSYS */
	hints = fi_allocinfo(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hints);
	hints->mode = FI_CONTEXT;
	hints->fabric_attr->prov_name = kstrdup("kt_sw", GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, fi_getinfo(fi_version(), NULL, NULL, 0, hints,
					 &swinfo), 0);
	KUNIT_EXPECT_EQ(test, swinfo->domain_attr->max_ep_srx_ctx, 0UL);
	KUNIT_ASSERT_EQ(test, fi_fabric(swinfo->fabric_attr, &swfab, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_domain(swfab, swinfo, &swdom, NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_srx_context(swdom, NULL, &srx, NULL),
			-FI_ENOSYS);
	/* a hint asking for a shared receive context finds only kt_hw */
	hints->domain_attr->max_ep_srx_ctx = 1;
	KUNIT_EXPECT_EQ(test, fi_getinfo(fi_version(), NULL, NULL, 0, hints,
					 &none), -ENODATA);
	KUNIT_EXPECT_NULL(test, none);
	KUNIT_EXPECT_EQ(test, fi_close(&swdom->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&swfab->fid), 0);
	fi_freeinfo(swinfo);
	fi_freeinfo(hints);
	ktp_stack_close(test, &s);
}

static struct kunit_case kofi_lifetime_cases[] = {
	KUNIT_CASE(kl_bind_rules_test),
	KUNIT_CASE(kl_srx_test),
	KUNIT_CASE(kl_order_test),
	KUNIT_CASE(kl_double_close_test),
	KUNIT_CASE(kl_close_fail_test),
	KUNIT_CASE(kl_flush_test),
	KUNIT_CASE(kl_mr_test),
	KUNIT_CASE(kl_mr_regv_test),
	{}
};

struct kunit_suite kofi_lifetime_suite = {
	.name = "kofi_lifetime",
	.suite_init = ktp_suite_init,
	.suite_exit = ktp_suite_exit,
	.exit = ktp_test_exit,
	.test_cases = kofi_lifetime_cases,
};

static struct kunit_case kofi_misuse_cases[] = {
	KUNIT_CASE(km_null_test),
	KUNIT_CASE(km_wrong_class_test),
	KUNIT_CASE(km_bad_args_test),
	KUNIT_CASE(km_enosys_test),
	{}
};

struct kunit_suite kofi_misuse_suite = {
	.name = "kofi_misuse",
	.suite_init = ktp_suite_init,
	.suite_exit = ktp_suite_exit,
	.exit = ktp_test_exit,
	.test_cases = kofi_misuse_cases,
};

static struct kunit_case kofi_keytable_cases[] = {
	KUNIT_CASE(kk_basic_test),
	KUNIT_CASE(kk_remove_test),
	{}
};

struct kunit_suite kofi_keytable_suite = {
	.name = "kofi_keytable",
	.test_cases = kofi_keytable_cases,
};
