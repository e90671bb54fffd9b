// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: the machinery of utility providers (<kofi/util.h>), through
 * "kt_pass", a pass-through utility over the test core providers.  Its
 * code is the example of Documentation/writing-a-provider.rst.
 */
#include <linux/in.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kofi/util.h>
#include "kofi_test.h"

/* example: start */
static struct kofi_util_prov kt_pass_util;

static void kt_pass_core_hints(struct fi_info *hints)
{
	hints->ep_attr->type = FI_EP_MSG;	/* what we ask of the core */
}

static struct fi_info *kt_pass_info(const struct fi_info *core)
{
	return fi_dupinfo(core, GFP_KERNEL);	/* named "core;kt_pass" */
}

static int kt_pass_getinfo(u32 version, const struct fi_info *hints,
			   u64 flags, struct fi_info **info)
{
	return kofi_util_getinfo(&kt_pass_util, version, hints, flags, info);
}

static const struct fi_ops_domain kt_pass_domain_ops = {
	/* .endpoint: the utility's endpoints */
};

static int kt_pass_domain(struct fid_fabric *fabric, struct fi_info *info,
			  struct fid_domain **domain, void *context)
{
	return kofi_util_domain_open(fabric, info, &kt_pass_domain_ops,
				     domain, context);
}

static const struct fi_ops_fabric kt_pass_fabric_ops = {
	.domain = kt_pass_domain,
	.eq_open = kofi_eq_open_generic,
};

static int kt_pass_fabric(struct fi_fabric_attr *attr,
			  struct fid_fabric **fabric, void *context)
{
	return kofi_util_fabric_open(&kt_pass_util, attr, &kt_pass_fabric_ops,
				     fabric, context);
}

static struct kofi_provider kt_pass_prov = {
	.name = "kt_pass",
	.version = FI_VERSION(1, 0),
	.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
	.owner = THIS_MODULE,
	.priority = KOFI_PRIO_UTIL,
	.flags = KOFI_PROV_UTIL,
	.getinfo = kt_pass_getinfo,
	.fabric = kt_pass_fabric,
};

static struct kofi_util_prov kt_pass_util = {
	.prov = &kt_pass_prov,
	.core_hints = kt_pass_core_hints,
	.info = kt_pass_info,
};

/* example: end */

static int ku_suite_init(struct kunit_suite *suite)
{
	int ret = ktp_register_all();

	if (ret)
		return ret;
	kt_pass_util.wq = system_wq;
	ret = kofi_provider_register(&kt_pass_prov);
	if (ret)
		ktp_deregister_all();
	return ret;
}

static void ku_suite_exit(struct kunit_suite *suite)
{
	kofi_provider_deregister(&kt_pass_prov);
	ktp_deregister_all();
}

static struct fi_info *ku_getinfo(struct kunit *test)
{
	struct fi_info *hints, *info = NULL;

	hints = fi_allocinfo(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hints);
	hints->addr_format = FI_SOCKADDR_IN;
	hints->fabric_attr->prov_name = kstrdup("kt_hw;kt_pass", GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hints->fabric_attr->prov_name);
	KUNIT_EXPECT_EQ(test, fi_getinfo(fi_version(), NULL, NULL, 0, hints,
					 &info), 0);
	fi_freeinfo(hints);
	KUNIT_ASSERT_NOT_NULL(test, info);
	return info;
}

/* Each utility info keeps its core info; fi_dupinfo() copies it deeply. */
static void ku_info_link_test(struct kunit *test)
{
	struct fi_info *info = ku_getinfo(test), *dup;
	const struct fi_info *core, *dcore;

	KUNIT_EXPECT_STREQ(test, info->fabric_attr->prov_name,
			   "kt_hw;kt_pass");
	core = kofi_util_info_core(info);
	KUNIT_ASSERT_NOT_NULL(test, core);
	KUNIT_EXPECT_STREQ(test, core->fabric_attr->prov_name, "kt_hw");
	KUNIT_EXPECT_EQ(test, core->ep_attr->type, FI_EP_MSG);
	KUNIT_EXPECT_NULL(test, kofi_util_info_core(core));

	dup = fi_dupinfo(info, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dup);
	dcore = kofi_util_info_core(dup);
	KUNIT_ASSERT_NOT_NULL(test, dcore);
	KUNIT_EXPECT_PTR_NE(test, dcore, core);
	KUNIT_EXPECT_PTR_NE(test, dcore->fabric_attr, core->fabric_attr);
	KUNIT_EXPECT_STREQ(test, dcore->fabric_attr->prov_name, "kt_hw");
	KUNIT_EXPECT_STREQ(test, dcore->domain_attr->name,
			   core->domain_attr->name);
	/* Both copies are freed with their infos (kmemleak checks). */
	fi_freeinfo(info);
	KUNIT_EXPECT_STREQ(test, dcore->fabric_attr->prov_name, "kt_hw");
	fi_freeinfo(dup);
}

/* The core info of a utility object: the kept one, with the addresses. */
static void ku_core_info_test(struct kunit *test)
{
	struct fi_info *info = ku_getinfo(test), *core;
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(7471) };

	info->src_addr = kmemdup(&sin, sizeof(sin), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info->src_addr);
	info->src_addrlen = sizeof(sin);
	KUNIT_ASSERT_EQ(test, kofi_util_core_info(&kt_pass_util, info, &core),
			0);
	KUNIT_EXPECT_STREQ(test, core->fabric_attr->prov_name, "kt_hw");
	KUNIT_EXPECT_NULL(test, core->handle);
	KUNIT_ASSERT_EQ(test, core->src_addrlen, sizeof(sin));
	KUNIT_EXPECT_EQ(test, memcmp(core->src_addr, &sin, sizeof(sin)), 0);
	fi_freeinfo(core);
	fi_freeinfo(info);
}

/* A caller-built info: one core lookup by name, or -EINVAL without one. */
static void ku_caller_info_test(struct kunit *test)
{
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fi_info *info, *core;
	struct fi_info bare = {};

	info = fi_allocinfo(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	info->addr_format = FI_SOCKADDR_IN;
	info->fabric_attr->prov_name = kstrdup("kt_hw;kt_pass", GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info->fabric_attr->prov_name);
	KUNIT_EXPECT_NULL(test, kofi_util_info_core(info));
	KUNIT_ASSERT_EQ(test, kofi_util_core_info(&kt_pass_util, info, &core),
			0);
	KUNIT_EXPECT_STREQ(test, core->fabric_attr->prov_name, "kt_hw");
	KUNIT_EXPECT_NULL(test, core->next);
	fi_freeinfo(core);

	KUNIT_ASSERT_EQ(test, fi_fabric(info->fabric_attr, &fabric, NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_domain(fabric, info, &domain, NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&domain->fid), 0);
	/* A name without a core, and an info with no attributes at all. */
	kfree(info->fabric_attr->prov_name);
	info->fabric_attr->prov_name = kstrdup("kt_pass", GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, fi_domain(fabric, info, &domain, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_domain(fabric, &bare, &domain, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_fabric(info->fabric_attr, &fabric, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_close(&fabric->fid), 0);
	fi_freeinfo(info);
}

/* The utility objects own the core's and close them after their own. */
static void ku_close_order_test(struct kunit *test)
{
	struct fi_info *info = ku_getinfo(test);
	struct kofi_util_fabric *ufab;
	struct kofi_util_domain *udom;
	struct fid_fabric *fabric, *core_fab;
	struct fid_domain *domain, *core_dom;
	struct fi_eq_attr eq_attr = { .size = 4 };
	struct fid_eq *eq;

	KUNIT_ASSERT_EQ(test, fi_fabric(info->fabric_attr, &fabric, NULL), 0);
	ufab = container_of(fabric, struct kofi_util_fabric, fabric);
	core_fab = ufab->core;
	KUNIT_ASSERT_EQ(test, fi_domain(fabric, info, &domain, NULL), 0);
	udom = container_of(domain, struct kofi_util_domain, domain);
	core_dom = udom->core;
	KUNIT_EXPECT_PTR_EQ(test, udom->fab, ufab);
	KUNIT_EXPECT_EQ(test, udom->core_attr.mr_mode,
			kofi_util_info_core(info)->domain_attr->mr_mode);
	KUNIT_EXPECT_NULL(test, udom->core_attr.name);

	KUNIT_ASSERT_EQ(test, fi_eq_open(fabric, &eq_attr, &eq, NULL), 0);

	KUNIT_EXPECT_EQ(test, fi_close(&fabric->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, fi_close(&core_fab->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, fi_close(&eq->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&fabric->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, fi_close(&domain->fid), 0);
	KUNIT_EXPECT_TRUE(test, kofi_fid_closed(&core_dom->fid));
	KUNIT_EXPECT_FALSE(test, kofi_fid_closed(&core_fab->fid));
	KUNIT_EXPECT_EQ(test, fi_close(&fabric->fid), 0);
	KUNIT_EXPECT_TRUE(test, kofi_fid_closed(&core_fab->fid));
	fi_freeinfo(info);
}

struct ku_opts {
	size_t a;
	size_t b;
};

static const struct kofi_util_opt ku_opt_tab[] = {
	KOFI_UTIL_OPT(FI_OPT_TX_SIZE, 16, 64, struct ku_opts, a),
	KOFI_UTIL_OPT(FI_OPT_RX_SIZE, 0, 8, struct ku_opts, b),
};

static void ku_opt_test(struct kunit *test)
{
	struct ku_opts o = { .a = 32, .b = 1 };
	size_t v = 64, len = sizeof(v);
	size_t n = ARRAY_SIZE(ku_opt_tab);

	KUNIT_EXPECT_EQ(test, kofi_util_setopt(ku_opt_tab, n, &o,
					       FI_OPT_ENDPOINT, FI_OPT_TX_SIZE,
					       &v, sizeof(v)), 0);
	KUNIT_EXPECT_EQ(test, o.a, (size_t)64);
	v = 65;
	KUNIT_EXPECT_EQ(test, kofi_util_setopt(ku_opt_tab, n, &o,
					       FI_OPT_ENDPOINT, FI_OPT_TX_SIZE,
					       &v, sizeof(v)), -EINVAL);
	KUNIT_EXPECT_EQ(test, kofi_util_setopt(ku_opt_tab, n, &o,
					       FI_OPT_ENDPOINT, FI_OPT_RX_SIZE,
					       &v, sizeof(u32)), -EINVAL);
	KUNIT_EXPECT_EQ(test, kofi_util_setopt(ku_opt_tab, n, &o, 99,
					       FI_OPT_TX_SIZE, &v, sizeof(v)),
			-ENOPROTOOPT);
	KUNIT_EXPECT_EQ(test, kofi_util_setopt(ku_opt_tab, n, &o,
					       FI_OPT_ENDPOINT,
					       FI_OPT_SEND_BUF_SIZE, &v,
					       sizeof(v)), -ENOPROTOOPT);
	KUNIT_EXPECT_EQ(test, o.a, (size_t)64);
	KUNIT_EXPECT_EQ(test, kofi_util_getopt(ku_opt_tab, n, &o,
					       FI_OPT_ENDPOINT, FI_OPT_RX_SIZE,
					       &v, &len), 0);
	KUNIT_EXPECT_EQ(test, v, (size_t)1);
	KUNIT_EXPECT_EQ(test, len, sizeof(size_t));
	len = sizeof(u32);
	KUNIT_EXPECT_EQ(test, kofi_util_getopt(ku_opt_tab, n, &o,
					       FI_OPT_ENDPOINT, FI_OPT_RX_SIZE,
					       &v, &len), -EINVAL);
}

static struct kunit_case kofi_util_cases[] = {
	KUNIT_CASE(ku_info_link_test),
	KUNIT_CASE(ku_core_info_test),
	KUNIT_CASE(ku_caller_info_test),
	KUNIT_CASE(ku_close_order_test),
	KUNIT_CASE(ku_opt_test),
	{}
};

struct kunit_suite kofi_util_suite = {
	.name = "kofi_util",
	.suite_init = ku_suite_init,
	.suite_exit = ku_suite_exit,
	.exit = ktp_test_exit,
	.test_cases = kofi_util_cases,
};
