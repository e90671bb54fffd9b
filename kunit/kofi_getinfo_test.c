// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: fi_getinfo() matching, in the manner of fabtests'
 * getinfo_test: one table row per hints combination, with the number of
 * infos each test provider must contribute (-1: the call must fail with
 * the given errno).
 *
 * The test providers: kt_hw (priority HW, IPv4 and IPv6 infos, mr_mode
 * LOCAL|VIRT_ADDR|PROV_KEY|ALLOCATED), kt_sw (priority software, IPv4,
 * requires mode FI_CONTEXT, mr_mode PROV_KEY) and the utility kt_util
 * (SOCK_STREAM, one info per matching core info, named "core;kt_util").
 * Rows restrict prov_name to the test providers unless they test prov_name
 * itself, so real providers in the kernel do not disturb the counts.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "kofi_test.h"

#define KT_ALL	"kt_hw,kt_sw,kt_util"

struct kg_case {
	const char *desc;
	const char *node;
	const char *service;
	u64 flags;
	bool no_hints;
	u64 caps;
	u64 mode;
	enum fi_ep_type type;
	u32 mr_mode;
	u32 addr_format;
	const char *prov_name;
	const char *domain;
	size_t tx_size;
	int ret;
	int hw, sw, hw_util, sw_util;
};

static const struct kg_case kg_cases[] = {
	{ "everything", .prov_name = KT_ALL, .mode = FI_CONTEXT,
	  .hw = 2, .sw = 1, .hw_util = 2, .sw_util = 1 },
	{ "mode 0 drops kt_sw", .prov_name = KT_ALL,
	  .hw = 2, .hw_util = 2, .sw_util = 1 },
	{ "caps MSG", .prov_name = KT_ALL, .mode = FI_CONTEXT, .caps = FI_MSG,
	  .hw = 2, .sw = 1, .hw_util = 2, .sw_util = 1 },
	{ "caps RMA: no stream", .prov_name = KT_ALL, .mode = FI_CONTEXT,
	  .caps = FI_RMA | FI_REMOTE_WRITE, .hw = 2, .sw = 1 },
	{ "caps ATOMIC", .prov_name = KT_ALL, .mode = FI_CONTEXT,
	  .caps = FI_ATOMIC, .ret = -ENODATA },
	{ "ep MSG", .prov_name = KT_ALL, .mode = FI_CONTEXT,
	  .type = FI_EP_MSG, .hw = 2, .sw = 1 },
	{ "ep SOCK_STREAM", .prov_name = KT_ALL, .mode = FI_CONTEXT,
	  .type = FI_EP_SOCK_STREAM, .hw_util = 2, .sw_util = 1 },
	{ "ep RDM", .prov_name = KT_ALL, .type = FI_EP_RDM, .ret = -ENODATA },
	{ "mr_mode PROV_KEY", .prov_name = KT_ALL, .mode = FI_CONTEXT,
	  .mr_mode = FI_MR_PROV_KEY, .sw = 1, .hw_util = 2, .sw_util = 1 },
	{ "mr_mode superset", .prov_name = KT_ALL, .mode = FI_CONTEXT,
	  .mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY |
		     FI_MR_ALLOCATED | FI_MR_RAW,
	  .hw = 2, .sw = 1, .hw_util = 2, .sw_util = 1 },
	{ "mr_mode LOCAL only", .prov_name = "kt_hw,kt_sw",
	  .mode = FI_CONTEXT, .mr_mode = FI_MR_LOCAL, .ret = -ENODATA },
	{ "addr IN6", .prov_name = KT_ALL, .mode = FI_CONTEXT,
	  .addr_format = FI_SOCKADDR_IN6, .hw = 1, .hw_util = 1 },
	{ "addr SOCKADDR", .prov_name = KT_ALL, .mode = FI_CONTEXT,
	  .addr_format = FI_SOCKADDR,
	  .hw = 2, .sw = 1, .hw_util = 2, .sw_util = 1 },
	{ "node IPv4", .prov_name = KT_ALL, .mode = FI_CONTEXT,
	  .node = "192.0.2.7", .service = "7471",
	  .hw = 1, .sw = 1, .hw_util = 1, .sw_util = 1 },
	{ "node IPv6", .prov_name = KT_ALL, .mode = FI_CONTEXT,
	  .node = "2001:db8::7", .service = "7471", .hw = 1, .hw_util = 1 },
	{ "node [IPv6]", .prov_name = "kt_hw", .node = "[::1]",
	  .hw = 1 },
	{ "IPv6 node vs IN hints", .prov_name = KT_ALL,
	  .node = "::1", .addr_format = FI_SOCKADDR_IN, .ret = -ENODATA },
	{ "prov kt_sw", .prov_name = "kt_sw", .mode = FI_CONTEXT, .sw = 1 },
	{ "prov case", .prov_name = "KT_SW", .mode = FI_CONTEXT, .sw = 1 },
	{ "prov list", .prov_name = "kt_sw,kt_hw", .mode = FI_CONTEXT,
	  .hw = 2, .sw = 1 },
	{ "prov layered", .prov_name = "kt_hw;kt_util", .mode = FI_CONTEXT,
	  .hw_util = 2 },
	{ "prov utility alone", .prov_name = "kt_util", .mode = FI_CONTEXT,
	  .hw_util = 2, .sw_util = 1 },
	{ "prov exclude core", .prov_name = "^kt_hw", .mode = FI_CONTEXT,
	  .sw = 1, .sw_util = 1 },
	{ "prov exclude util", .prov_name = "^kt_util", .mode = FI_CONTEXT,
	  .hw = 2, .sw = 1 },
	{ "prov unknown", .prov_name = "kt_nope", .ret = -ENODATA },
	{ "domain name", .prov_name = KT_ALL, .mode = FI_CONTEXT,
	  .domain = "kt_sw0", .sw = 1, .sw_util = 1 },
	{ "tx size too big", .prov_name = "kt_hw,kt_sw", .mode = FI_CONTEXT,
	  .tx_size = 200, .hw = 2 },
	{ "bad node", .prov_name = KT_ALL, .node = "not.a.host",
	  .ret = -EINVAL },
	{ "bad service", .prov_name = KT_ALL, .node = "192.0.2.1",
	  .service = "http", .ret = -EINVAL },
	{ "port too big", .prov_name = KT_ALL, .service = "70000",
	  .ret = -EINVAL },
	{ "bad flags", .prov_name = KT_ALL, .flags = BIT_ULL(0),
	  .ret = -EINVAL },
	{ "bad ep type", .prov_name = KT_ALL, .type = 99, .ret = -EINVAL },
	{ "no hints", .no_hints = true,
	  .hw = 2, .sw = 1, .hw_util = 2, .sw_util = 1 },
};

static void kg_desc(const struct kg_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kg, kg_cases, kg_desc);

static struct fi_info *kg_hints(struct kunit *test, const struct kg_case *c)
{
	struct fi_info *h;

	if (c->no_hints)
		return NULL;
	h = fi_allocinfo(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	h->caps = c->caps;
	h->mode = c->mode;
	h->ep_attr->type = c->type;
	h->domain_attr->mr_mode = c->mr_mode;
	h->addr_format = c->addr_format;
	h->tx_attr->size = c->tx_size;
	if (c->prov_name)
		h->fabric_attr->prov_name = kstrdup(c->prov_name, GFP_KERNEL);
	if (c->domain)
		h->domain_attr->name = kstrdup(c->domain, GFP_KERNEL);
	return h;
}

/* Rank of an info's provider in the documented order. */
static int kg_rank(const struct fi_info *i)
{
	const char *n = i->fabric_attr->prov_name;

	if (!strcmp(n, "kt_hw"))
		return 0;
	if (!strcmp(n, "kt_hw;kt_util") || !strcmp(n, "kt_sw;kt_util"))
		return 1;
	if (!strcmp(n, "kt_sw"))
		return 2;
	return -1;
}

static void kg_matrix_test(struct kunit *test)
{
	const struct kg_case *c = test->param_value;
	struct fi_info *hints = kg_hints(test, c), *info = NULL, *i;
	int ret, last = 0;

	ret = fi_getinfo(fi_version(), c->node, c->service, c->flags, hints,
			 &info);
	fi_freeinfo(hints);
	if (c->ret) {
		KUNIT_EXPECT_EQ(test, ret, c->ret);
		KUNIT_EXPECT_NULL(test, info);
		fi_freeinfo(info);
		return;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, ktp_count(info, "kt_hw"), (unsigned int)c->hw);
	KUNIT_EXPECT_EQ(test, ktp_count(info, "kt_sw"), (unsigned int)c->sw);
	KUNIT_EXPECT_EQ(test, ktp_count(info, "kt_hw;kt_util"),
			(unsigned int)c->hw_util);
	KUNIT_EXPECT_EQ(test, ktp_count(info, "kt_sw;kt_util"),
			(unsigned int)c->sw_util);

	for (i = info; i; i = i->next) {
		int rank = kg_rank(i);

		/* priority order: HW, then utility, then software */
		if (rank >= 0) {
			KUNIT_EXPECT_GE(test, rank, last);
			last = rank;
		}
		KUNIT_EXPECT_EQ(test, i->fabric_attr->api_version,
				fi_version());
		KUNIT_EXPECT_NOT_NULL(test, i->tx_attr);
		/* a node address lands in dest_addr with the port */
		if (c->node && rank >= 0) {
			KUNIT_ASSERT_NOT_NULL(test, i->dest_addr);
			KUNIT_EXPECT_NULL(test, i->src_addr);
			if (i->addr_format == FI_SOCKADDR_IN) {
				struct sockaddr_in *sin = i->dest_addr;

				KUNIT_EXPECT_EQ(test, i->dest_addrlen,
						sizeof(*sin));
				KUNIT_EXPECT_EQ(test, sin->sin_family, AF_INET);
				if (c->service)
					KUNIT_EXPECT_EQ(test,
							ntohs(sin->sin_port),
							7471);
			} else {
				struct sockaddr_in6 *sin6 = i->dest_addr;

				KUNIT_EXPECT_EQ(test, i->addr_format,
						(u32)FI_SOCKADDR_IN6);
				KUNIT_EXPECT_EQ(test, sin6->sin6_family,
						AF_INET6);
			}
		}
	}
	fi_freeinfo(info);
}

static void kg_source_test(struct kunit *test)
{
	struct fi_info *hints, *info = NULL;
	struct sockaddr_in *sin;
	struct sockaddr_in6 *sin6;

	hints = fi_allocinfo(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hints);
	hints->fabric_attr->prov_name = kstrdup("kt_hw", GFP_KERNEL);

	/* FI_SOURCE: node/service are the local address */
	KUNIT_ASSERT_EQ(test, fi_getinfo(fi_version(), "10.1.2.3", "4000",
					 FI_SOURCE, hints, &info), 0);
	KUNIT_EXPECT_EQ(test, ktp_len(info), 1U);
	KUNIT_EXPECT_NULL(test, info->dest_addr);
	KUNIT_ASSERT_NOT_NULL(test, info->src_addr);
	sin = info->src_addr;
	KUNIT_EXPECT_EQ(test, sin->sin_family, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohs(sin->sin_port), 4000);
	KUNIT_EXPECT_EQ(test, ntohl(sin->sin_addr.s_addr), 0x0a010203);
	fi_freeinfo(info);
	info = NULL;

	/* service alone: a listener's local port on the wildcard address */
	hints->addr_format = FI_SOCKADDR_IN6;
	KUNIT_ASSERT_EQ(test, fi_getinfo(fi_version(), NULL, "4001", 0,
					 hints, &info), 0);
	KUNIT_ASSERT_NOT_NULL(test, info->src_addr);
	sin6 = info->src_addr;
	KUNIT_EXPECT_EQ(test, sin6->sin6_family, AF_INET6);
	KUNIT_EXPECT_EQ(test, ntohs(sin6->sin6_port), 4001);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_any(&sin6->sin6_addr));
	fi_freeinfo(info);
	fi_freeinfo(hints);
}

static void kg_version_test(struct kunit *test)
{
	struct fi_info *info = (void *)1;
	u32 v;

	KUNIT_EXPECT_EQ(test, fi_getinfo(FI_VERSION(FI_MAJOR_VERSION + 1, 0),
					 NULL, NULL, 0, NULL, &info),
			-FI_ENOSYS);
	KUNIT_EXPECT_NULL(test, info);
	v = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION + 1);
	KUNIT_EXPECT_EQ(test, fi_getinfo(v, NULL, NULL, 0, NULL, &info),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_getinfo(fi_version(), NULL, NULL, 0, NULL,
					 NULL), -EINVAL);
}

/* A utility's core query skips itself and other utilities. */
static void kg_core_query_test(struct kunit *test)
{
	struct fi_info *info = NULL;

	KUNIT_EXPECT_EQ(test, kofi_getinfo_core(fi_version(), NULL, NULL, 0,
						NULL, NULL, &info), -EINVAL);
	KUNIT_ASSERT_EQ(test, kofi_getinfo_core(fi_version(), NULL, NULL, 0,
						NULL, &ktp_provs[KTP_UTIL],
						&info), 0);
	KUNIT_EXPECT_EQ(test, ktp_count(info, "kt_hw"), 2U);
	KUNIT_EXPECT_EQ(test, ktp_count(info, "kt_sw"), 1U);
	KUNIT_EXPECT_EQ(test, ktp_count(info, "kt_hw;kt_util"), 0U);
	fi_freeinfo(info);
}

static int kg_suite_init(struct kunit_suite *suite)
{
	return ktp_register_all();
}

static void kg_suite_exit(struct kunit_suite *suite)
{
	ktp_deregister_all();
}

static struct kunit_case kofi_getinfo_cases[] = {
	KUNIT_CASE_PARAM(kg_matrix_test, kg_gen_params),
	KUNIT_CASE(kg_source_test),
	KUNIT_CASE(kg_version_test),
	KUNIT_CASE(kg_core_query_test),
	{}
};

struct kunit_suite kofi_getinfo_suite = {
	.name = "kofi_getinfo",
	.suite_init = kg_suite_init,
	.suite_exit = kg_suite_exit,
	.test_cases = kofi_getinfo_cases,
};
