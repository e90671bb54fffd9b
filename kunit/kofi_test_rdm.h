/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI KUnit: the FI_EP_RDM endpoints the RDM providers' suites start
 * from.
 *
 * ktr_rdm_open() asks a provider for its info on a local address and
 * opens a fabric, a domain, a table AV and up to KTR_EPS_MAX enabled
 * endpoints, each with its CQs (one for both directions, or one per
 * direction) and a zeroed buffer, every endpoint named in the AV;
 * ktr_rdm_close() closes what is open, the endpoints first.  Static
 * inlines of exported calls only: the suites are also built as modules.
 */
#ifndef _KOFI_TEST_RDM_H
#define _KOFI_TEST_RDM_H

#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kofi/fabric.h>
#include <kofi/fi_av.h>
#include <kofi/fi_cm.h>
#include <kofi/fi_domain.h>
#include <kofi/fi_endpoint.h>
#include <kofi/fi_eq.h>
#include <kofi/fi_errno.h>

#define KTR_EPS_MAX	3

/**
 * struct ktr_rdm_attr - what ktr_rdm_open() opens
 * @prov: the provider name hint ("rds", "ksocket;rxm")
 * @domain: the domain name hint, or NULL
 * @node: the numeric local address the endpoints bind to ("127.0.0.1",
 *	"::1"), port 0
 * @caps: the caps asked for
 * @drop: caps taken off the info before anything is opened with it
 * @eps: endpoints, 1 to KTR_EPS_MAX
 * @split_cq: a send CQ and a receive CQ per endpoint; else one for both
 * @buf_size: bytes of each endpoint's buffer
 * @may_sleep: set FI_OPT_DATA_MAY_SLEEP on each endpoint before enabling
 */
struct ktr_rdm_attr {
	const char *prov;
	const char *domain;
	const char *node;
	u64 caps;
	u64 drop;
	unsigned int eps;
	bool split_cq;
	size_t buf_size;
	bool may_sleep;
};

/**
 * struct ktr_rdm - an RDM suite's objects
 * @info: the info everything was opened with
 * @fabric: the fabric
 * @domain: the domain
 * @av: the AV every endpoint is bound to
 * @eps: endpoints opened
 * @ep: the endpoints; NULL once closed
 * @cq: each endpoint's CQ (without split_cq)
 * @tx: each endpoint's send CQ (the same as @cq)
 * @rx: each endpoint's receive CQ (@tx's without split_cq)
 * @addr: each endpoint's handle in @av
 * @buf: each endpoint's buffer (kvzalloc)
 */
struct ktr_rdm {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	unsigned int eps;
	struct fid_ep *ep[KTR_EPS_MAX];
	union {
		struct fid_cq *cq[KTR_EPS_MAX];
		struct fid_cq *tx[KTR_EPS_MAX];
	};
	struct fid_cq *rx[KTR_EPS_MAX];
	fi_addr_t addr[KTR_EPS_MAX];
	u8 *buf[KTR_EPS_MAX];
};

/**
 * ktr_rdm_getinfo() - a provider's FI_EP_RDM infos on a local address
 * @test: the test (asserts that there is one)
 * @prov: the provider name hint
 * @domain: the domain name hint, or NULL
 * @node: the numeric local address (FI_SOURCE, port 0)
 * @caps: the caps asked for
 *
 * Context: process context, may sleep.
 * Return: the infos, best first; the caller frees them.
 */
static inline struct fi_info *ktr_rdm_getinfo(struct kunit *test,
					      const char *prov,
					      const char *domain,
					      const char *node, u64 caps)
{
	struct fi_info *hints = fi_allocinfo(GFP_KERNEL), *info = NULL;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, hints);
	hints->caps = caps;
	hints->ep_attr->type = FI_EP_RDM;
	hints->fabric_attr->prov_name = kstrdup(prov, GFP_KERNEL);
	if (domain)
		hints->domain_attr->name = kstrdup(domain, GFP_KERNEL);
	ret = fi_getinfo(fi_version(), node, "0", FI_SOURCE, hints, &info);
	fi_freeinfo(hints);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return info;
}

/**
 * ktr_rdm_close_ep() - close one endpoint before the rest
 * @test: the test
 * @t: the objects
 * @i: the endpoint
 *
 * Context: process context, may sleep.
 */
static inline void ktr_rdm_close_ep(struct kunit *test, struct ktr_rdm *t,
				    unsigned int i)
{
	if (!t->ep[i])
		return;
	KUNIT_EXPECT_EQ(test, fi_close(&t->ep[i]->fid), 0);
	t->ep[i] = NULL;
}

/**
 * ktr_rdm_close() - close everything ktr_rdm_open() opened
 * @test: the test (expects every close to succeed)
 * @t: the objects, zeroed after
 *
 * Context: process context, may sleep.
 */
static inline void ktr_rdm_close(struct kunit *test, struct ktr_rdm *t)
{
	unsigned int i;

	for (i = 0; i < KTR_EPS_MAX; i++)
		ktr_rdm_close_ep(test, t, i);
	for (i = 0; i < KTR_EPS_MAX; i++) {
		if (t->rx[i] && t->rx[i] != t->tx[i])
			KUNIT_EXPECT_EQ(test, fi_close(&t->rx[i]->fid), 0);
		if (t->tx[i])
			KUNIT_EXPECT_EQ(test, fi_close(&t->tx[i]->fid), 0);
		kvfree(t->buf[i]);
	}
	if (t->av)
		KUNIT_EXPECT_EQ(test, fi_close(&t->av->fid), 0);
	if (t->domain)
		KUNIT_EXPECT_EQ(test, fi_close(&t->domain->fid), 0);
	if (t->fabric)
		KUNIT_EXPECT_EQ(test, fi_close(&t->fabric->fid), 0);
	fi_freeinfo(t->info);
	memset(t, 0, sizeof(*t));
}

/* Open and enable endpoint @i with its CQs and buffer. */
static inline void ktr_rdm_open_ep(struct kunit *test, struct ktr_rdm *t,
				   const struct ktr_rdm_attr *attr,
				   unsigned int i)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };

	t->buf[i] = kvzalloc(attr->buf_size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->buf[i]);
	KUNIT_ASSERT_EQ(test, fi_cq_open(t->domain, &cq_attr, &t->tx[i], NULL),
			0);
	t->rx[i] = t->tx[i];
	if (attr->split_cq) {
		t->rx[i] = NULL;
		KUNIT_ASSERT_EQ(test, fi_cq_open(t->domain, &cq_attr, &t->rx[i],
						 NULL), 0);
	}
	KUNIT_ASSERT_EQ(test, fi_endpoint(t->domain, t->info, &t->ep[i], NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(t->ep[i], &t->av->fid, 0), 0);
	if (attr->split_cq) {
		KUNIT_ASSERT_EQ(test, fi_ep_bind(t->ep[i], &t->tx[i]->fid,
						 FI_SEND), 0);
		KUNIT_ASSERT_EQ(test, fi_ep_bind(t->ep[i], &t->rx[i]->fid,
						 FI_RECV), 0);
	} else {
		KUNIT_ASSERT_EQ(test, fi_ep_bind(t->ep[i], &t->tx[i]->fid,
						 FI_SEND | FI_RECV), 0);
	}
	if (attr->may_sleep) {
		size_t one = 1;

		KUNIT_ASSERT_EQ(test, fi_setopt(&t->ep[i]->fid, FI_OPT_ENDPOINT,
						FI_OPT_DATA_MAY_SLEEP, &one,
						sizeof(one)), 0);
	}
	KUNIT_ASSERT_EQ(test, fi_enable(t->ep[i]), 0);
}

/**
 * ktr_rdm_open() - open an RDM suite's objects
 * @test: the test (asserts every step; ktr_rdm_close() undoes a partial
 *	open)
 * @t: filled in
 * @attr: what to open
 *
 * Every endpoint's name (fi_getname(), of the info's address format)
 * goes into the AV, endpoint i's handle in @t->addr[i].
 *
 * Context: process context, may sleep.
 */
static inline void ktr_rdm_open(struct kunit *test, struct ktr_rdm *t,
				const struct ktr_rdm_attr *attr)
{
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct sockaddr_in6 name[KTR_EPS_MAX];
	size_t len, want;
	unsigned int i;

	memset(t, 0, sizeof(*t));
	KUNIT_ASSERT_TRUE(test, attr->eps && attr->eps <= KTR_EPS_MAX);
	t->info = ktr_rdm_getinfo(test, attr->prov, attr->domain, attr->node,
				  attr->caps);
	t->info->caps &= ~attr->drop;
	want = t->info->addr_format == FI_SOCKADDR_IN6 ?
	       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	KUNIT_ASSERT_EQ(test, fi_fabric(t->info->fabric_attr, &t->fabric,
					NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_domain(t->fabric, t->info, &t->domain, NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_av_open(t->domain, &av_attr, &t->av, NULL),
			0);
	t->eps = attr->eps;
	for (i = 0; i < t->eps; i++) {
		ktr_rdm_open_ep(test, t, attr, i);
		len = sizeof(name[i]);
		KUNIT_ASSERT_EQ(test, fi_getname(&t->ep[i]->fid, &name[i],
						 &len), 0);
		KUNIT_ASSERT_EQ(test, len, want);
	}
	/* the AV takes the addresses packed at its format's size */
	for (i = 1; i < t->eps; i++)
		memmove((u8 *)name + i * want, &name[i], want);
	KUNIT_ASSERT_EQ(test, fi_av_insert(t->av, name, t->eps, t->addr, 0,
					   NULL), t->eps);
}

/**
 * ktr_rdm_comp() - wait for one completion of a CQ
 * @cq: the CQ
 * @e: the entry read
 * @src: its source (may be NULL)
 * @err: an error entry read (may be NULL)
 * @timeout_ms: how long to wait
 *
 * Context: process context, may sleep.
 * Return: 1; the negative errno of an error entry; -EAGAIN if none came
 * in time.
 */
static inline ssize_t ktr_rdm_comp(struct fid_cq *cq,
				   struct fi_cq_tagged_entry *e,
				   fi_addr_t *src, struct fi_cq_err_entry *err,
				   int timeout_ms)
{
	struct fi_cq_err_entry dummy;
	fi_addr_t s;
	ssize_t ret;

	ret = fi_cq_sreadfrom(cq, e, 1, src ? src : &s, NULL, timeout_ms);
	if (ret != -FI_EAVAIL)
		return ret;
	if (!err)
		err = &dummy;
	memset(err, 0, sizeof(*err));
	return fi_cq_readerr(cq, err, 0) == 1 ? -err->err : -EIO;
}

#endif /* _KOFI_TEST_RDM_H */
