// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: fi_info allocation, deep copy and release; fi_strerror and
 * fi_tostr.
 */
#include <linux/in.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "kofi_test.h"

static struct fi_info *ki_sample(struct kunit *test)
{
	struct fi_info *i = fi_allocinfo(GFP_KERNEL);
	struct sockaddr_in *sin;

	KUNIT_ASSERT_NOT_NULL(test, i);
	i->caps = FI_MSG | FI_RMA;
	i->mode = FI_CONTEXT;
	i->addr_format = FI_SOCKADDR_IN;
	sin = kzalloc(sizeof(*sin), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sin);
	sin->sin_family = AF_INET;
	sin->sin_port = htons(7471);
	sin->sin_addr.s_addr = htonl(0x7f000001);
	i->src_addr = sin;
	i->src_addrlen = sizeof(*sin);
	i->tx_attr->size = 77;
	i->ep_attr->type = FI_EP_MSG;
	i->domain_attr->mr_mode = FI_MR_PROV_KEY;
	i->domain_attr->name = kstrdup("dom0", GFP_KERNEL);
	i->fabric_attr->name = kstrdup("fab0", GFP_KERNEL);
	i->fabric_attr->prov_name = kstrdup("kt_sw", GFP_KERNEL);
	i->fabric_attr->prov_version = FI_VERSION(1, 3);
	return i;
}

static void ki_alloc_test(struct kunit *test)
{
	struct fi_info *i = fi_allocinfo(GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, i);
	KUNIT_EXPECT_NOT_NULL(test, i->tx_attr);
	KUNIT_EXPECT_NOT_NULL(test, i->rx_attr);
	KUNIT_EXPECT_NOT_NULL(test, i->ep_attr);
	KUNIT_EXPECT_NOT_NULL(test, i->domain_attr);
	KUNIT_EXPECT_NOT_NULL(test, i->fabric_attr);
	KUNIT_EXPECT_EQ(test, i->caps, 0ULL);
	KUNIT_EXPECT_NULL(test, i->next);
	fi_freeinfo(i);
	fi_freeinfo(NULL);
}

static void ki_dup_test(struct kunit *test)
{
	struct fi_info *a = ki_sample(test), *b;

	b = fi_dupinfo(a, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	/* deep: nothing shared */
	KUNIT_EXPECT_PTR_NE(test, b->src_addr, a->src_addr);
	KUNIT_EXPECT_PTR_NE(test, b->tx_attr, a->tx_attr);
	KUNIT_EXPECT_PTR_NE(test, b->domain_attr->name, a->domain_attr->name);
	KUNIT_EXPECT_PTR_NE(test, b->fabric_attr->prov_name,
			    a->fabric_attr->prov_name);
	KUNIT_EXPECT_EQ(test, b->src_addrlen, a->src_addrlen);
	KUNIT_EXPECT_EQ(test, memcmp(b->src_addr, a->src_addr,
				     a->src_addrlen), 0);
	KUNIT_EXPECT_NULL(test, b->dest_addr);
	KUNIT_EXPECT_EQ(test, b->dest_addrlen, 0UL);
	/* free the original: the copy must stay valid (KASAN watches) */
	fi_freeinfo(a);
	KUNIT_EXPECT_EQ(test, b->caps, FI_MSG | FI_RMA);
	KUNIT_EXPECT_EQ(test, b->mode, FI_CONTEXT);
	KUNIT_EXPECT_EQ(test, b->tx_attr->size, 77UL);
	KUNIT_EXPECT_EQ(test, b->domain_attr->mr_mode, (u32)FI_MR_PROV_KEY);
	KUNIT_EXPECT_STREQ(test, b->domain_attr->name, "dom0");
	KUNIT_EXPECT_STREQ(test, b->fabric_attr->name, "fab0");
	KUNIT_EXPECT_STREQ(test, b->fabric_attr->prov_name, "kt_sw");
	KUNIT_EXPECT_EQ(test, ntohs(((struct sockaddr_in *)b->src_addr)->sin_port),
			7471);
	fi_freeinfo(b);
}

static void ki_dup_partial_test(struct kunit *test)
{
	struct fi_info *a = ki_sample(test), *b, *c;

	/* a missing attribute block stays missing; next is not followed */
	kfree(a->rx_attr);
	a->rx_attr = NULL;
	a->next = fi_allocinfo(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a->next);
	b = fi_dupinfo(a, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_NULL(test, b->rx_attr);
	KUNIT_EXPECT_NULL(test, b->next);
	KUNIT_EXPECT_EQ(test, ktp_len(a), 2U);
	fi_freeinfo(a);		/* frees the whole list */
	fi_freeinfo(b);

	c = fi_dupinfo(NULL, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_NOT_NULL(test, c->fabric_attr);
	fi_freeinfo(c);
}

static void ki_strerror_test(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, fi_strerror(-EINVAL), "Invalid argument");
	KUNIT_EXPECT_STREQ(test, fi_strerror(EINVAL), "Invalid argument");
	KUNIT_EXPECT_STREQ(test, fi_strerror(-EAGAIN),
			   "Try again (resource temporarily unavailable)");
	KUNIT_EXPECT_STREQ(test, fi_strerror(-FI_EAVAIL),
			   "Error entry available");
	KUNIT_EXPECT_STREQ(test, fi_strerror(FI_EAVAIL),
			   "Error entry available");
	KUNIT_EXPECT_STREQ(test, fi_strerror(-FI_EOTHER),
			   "Unspecified provider error");
	KUNIT_EXPECT_STREQ(test, fi_strerror(-ECANCELED), "Operation Canceled");
	KUNIT_EXPECT_STREQ(test, fi_strerror(0), "Success");
	KUNIT_EXPECT_STREQ(test, fi_strerror(-99999), "Unknown error");
	KUNIT_EXPECT_STREQ(test, fi_strerror(INT_MIN), "Unknown error");
	/* kOFI codes sit above every Linux errno, below MAX_ERRNO */
	KUNIT_EXPECT_GT(test, FI_EAVAIL, 530);
	KUNIT_EXPECT_LT(test, FI_ERRNO_MAX, MAX_ERRNO);
}

static void ki_tostr_test(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	struct fi_info *info = ki_sample(test);
	u64 caps = FI_MSG | FI_RMA | BIT_ULL(63);
	enum fi_ep_type type = FI_EP_SOCK_STREAM;
	u32 mr = FI_MR_LOCAL | FI_MR_PROV_KEY, ev = FI_CONNREQ;
	char small[8];

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_STREQ(test, fi_tostr(buf, 4096, &caps, FI_TYPE_CAPS),
			   "[ FI_MSG, FI_RMA, 0x8000000000000000 ]");
	KUNIT_EXPECT_STREQ(test, fi_tostr(buf, 4096, &type, FI_TYPE_EP_TYPE),
			   "FI_EP_SOCK_STREAM");
	KUNIT_EXPECT_STREQ(test, fi_tostr(buf, 4096, &mr, FI_TYPE_MR_MODE),
			   "[ FI_MR_LOCAL, FI_MR_PROV_KEY ]");
	KUNIT_EXPECT_STREQ(test, fi_tostr(buf, 4096, &ev, FI_TYPE_EQ_EVENT),
			   "FI_CONNREQ");
	KUNIT_EXPECT_STREQ(test, fi_tostr(buf, 4096, NULL, FI_TYPE_INFO),
			   "(null)");

	fi_tostr(buf, 4096, info, FI_TYPE_INFO);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "caps: [ FI_MSG, FI_RMA ]"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "src_addr: 127.0.0.1:7471"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "prov_name: kt_sw"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "prov_version: 1.3"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "type: FI_EP_MSG"));

	/* truncated, always terminated, never past the buffer */
	memset(small, 'x', sizeof(small));
	KUNIT_EXPECT_PTR_EQ(test, fi_tostr(small, sizeof(small), info,
					   FI_TYPE_INFO), (char *)small);
	KUNIT_EXPECT_EQ(test, strnlen(small, sizeof(small)),
			sizeof(small) - 1);
	KUNIT_EXPECT_NULL(test, fi_tostr(NULL, 10, &caps, FI_TYPE_CAPS));
	KUNIT_EXPECT_NULL(test, fi_tostr(buf, 0, &caps, FI_TYPE_CAPS));
	fi_freeinfo(info);
}

static struct kunit_case kofi_info_cases[] = {
	KUNIT_CASE(ki_alloc_test),
	KUNIT_CASE(ki_dup_test),
	KUNIT_CASE(ki_dup_partial_test),
	{}
};

struct kunit_suite kofi_info_suite = {
	.name = "kofi_info",
	.test_cases = kofi_info_cases,
};

static struct kunit_case kofi_str_cases[] = {
	KUNIT_CASE(ki_strerror_test),
	KUNIT_CASE(ki_tostr_test),
	{}
};

struct kunit_suite kofi_str_suite = {
	.name = "kofi_str",
	.test_cases = kofi_str_cases,
};
