// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: provider registration, deregistration and their races.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "kofi_test.h"

static atomic_t kr_cleanups;
/* References on this module seen by the last kr_getinfo() call. */
static int kr_getinfo_refs;

/*
 * References on this module, or -1 where this test is built in (no module
 * to reference) or references are not counted.
 */
static int kr_module_refs(void)
{
#if defined(MODULE) && defined(CONFIG_MODULE_UNLOAD)
	return module_refcount(THIS_MODULE);
#else
	return -1;
#endif
}

static int kr_getinfo(u32 version, const struct fi_info *hints, u64 flags,
		      struct fi_info **info)
{
	struct fi_info *i = fi_allocinfo(GFP_KERNEL);

	kr_getinfo_refs = kr_module_refs();
	if (!i)
		return -ENOMEM;
	i->caps = FI_MSG;
	i->ep_attr->type = FI_EP_MSG;
	i->addr_format = FI_SOCKADDR_IN;
	*info = i;
	return 0;
}

static int kr_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		     void *context)
{
	return ktp_provs[KTP_HW].fabric(attr, fabric, context);
}

static void kr_cleanup(void)
{
	atomic_inc(&kr_cleanups);
}

static void kr_init(struct kofi_provider *p, const char *name, u32 version)
{
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->version = version;
	p->fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION);
	p->owner = THIS_MODULE;
	p->priority = KOFI_PRIO_TEST;
	p->getinfo = kr_getinfo;
	p->fabric = kr_fabric;
	p->cleanup = kr_cleanup;
}

/* prov_version of the first info fi_getinfo() finds for @name, or 0. */
static u32 kr_visible_version(const char *name)
{
	struct fi_info *hints = fi_allocinfo(GFP_KERNEL), *info = NULL;
	u32 v = 0;

	if (!hints)
		return 0;
	hints->fabric_attr->prov_name = kstrdup(name, GFP_KERNEL);
	if (!fi_getinfo(fi_version(), NULL, NULL, 0, hints, &info))
		v = info->fabric_attr->prov_version;
	fi_freeinfo(info);
	fi_freeinfo(hints);
	return v;
}

static void kr_invalid_test(struct kunit *test)
{
	struct kofi_provider p;
	char longname[KOFI_PROV_NAME_MAX + 2];

	KUNIT_EXPECT_EQ(test, kofi_provider_register(NULL), -EINVAL);
	kr_init(&p, NULL, FI_VERSION(1, 0));
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&p), -EINVAL);
	kr_init(&p, "", FI_VERSION(1, 0));
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&p), -EINVAL);
	kr_init(&p, "a;b", FI_VERSION(1, 0));
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&p), -EINVAL);
	kr_init(&p, "^x", FI_VERSION(1, 0));
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&p), -EINVAL);
	kr_init(&p, "sp ace", FI_VERSION(1, 0));
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&p), -EINVAL);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	kr_init(&p, longname, FI_VERSION(1, 0));
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&p), -EINVAL);

	kr_init(&p, "kr_nogetinfo", FI_VERSION(1, 0));
	p.getinfo = NULL;
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&p), -EINVAL);
	kr_init(&p, "kr_nofabric", FI_VERSION(1, 0));
	p.fabric = NULL;
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&p), -EINVAL);

	/* API versions: newer major, older major, newer minor refused */
	kr_init(&p, "kr_api", FI_VERSION(1, 0));
	p.fi_version = FI_VERSION(FI_MAJOR_VERSION + 1, 0);
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&p), -EINVAL);
	p.fi_version = FI_VERSION(FI_MAJOR_VERSION - 1, 0);
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&p), -EINVAL);
	p.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION + 1);
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&p), -EINVAL);
	KUNIT_EXPECT_EQ(test, kr_visible_version("kr_api"), 0U);

	/* nothing above was registered, so nothing was cleaned up */
	KUNIT_EXPECT_EQ(test, atomic_read(&kr_cleanups), 0);
}

static void kr_register_getinfo_test(struct kunit *test)
{
	struct kofi_provider p;

	atomic_set(&kr_cleanups, 0);
	kr_init(&p, "kr_basic", FI_VERSION(1, 2));
	KUNIT_ASSERT_EQ(test, kofi_provider_register(&p), 0);
	KUNIT_EXPECT_EQ(test, kr_visible_version("kr_basic"),
			FI_VERSION(1, 2));
	/* registering the same struct again */
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&p), -EEXIST);
	kofi_provider_deregister(&p);
	KUNIT_EXPECT_EQ(test, atomic_read(&kr_cleanups), 1);
	KUNIT_EXPECT_EQ(test, kr_visible_version("kr_basic"), 0U);
	/* and it can come back */
	KUNIT_ASSERT_EQ(test, kofi_provider_register(&p), 0);
	kofi_provider_deregister(&p);
	KUNIT_EXPECT_EQ(test, atomic_read(&kr_cleanups), 2);
}

static void kr_duplicate_test(struct kunit *test)
{
	struct kofi_provider v1, v1b, v0, v2;

	atomic_set(&kr_cleanups, 0);
	kr_init(&v1, "kr_dup", FI_VERSION(1, 0));
	kr_init(&v1b, "kr_dup", FI_VERSION(1, 0));
	kr_init(&v0, "KR_DUP", FI_VERSION(0, 9));
	kr_init(&v2, "kr_dup", FI_VERSION(2, 0));

	KUNIT_ASSERT_EQ(test, kofi_provider_register(&v1), 0);
	/* same version, lower version (names compare case-insensitively) */
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&v1b), -EEXIST);
	KUNIT_EXPECT_EQ(test, kofi_provider_register(&v0), -EEXIST);
	/* a higher version shadows the older registration */
	KUNIT_ASSERT_EQ(test, kofi_provider_register(&v2), 0);
	KUNIT_EXPECT_EQ(test, kr_visible_version("kr_dup"), FI_VERSION(2, 0));
	kofi_provider_deregister(&v2);
	KUNIT_EXPECT_EQ(test, kr_visible_version("kr_dup"), FI_VERSION(1, 0));
	kofi_provider_deregister(&v1);
	KUNIT_EXPECT_EQ(test, kr_visible_version("kr_dup"), 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&kr_cleanups), 2);
}

struct kr_dereg {
	struct kofi_provider *prov;
	struct completion done;
};

static int kr_dereg_thread(void *arg)
{
	struct kr_dereg *d = arg;

	kofi_provider_deregister(d->prov);
	complete(&d->done);
	return 0;
}

/*
 * A provider is held by its module only, so deregistration never waits: from
 * module_exit nothing can be in the provider.  Deregistering a provider
 * without a module while a fabric of it is open (which struct
 * kofi_provider's rule leaves to its owner) returns at once, calls the
 * cleanup, hides the provider, and leaves the fabric usable and closable.
 * Where this test is a module, the fabric and each getinfo call hold a
 * reference on it.
 */
static void kr_dereg_no_wait_test(struct kunit *test)
{
	struct fi_fabric_attr attr = { .prov_name = "kr_nowait" };
	struct fid_fabric *fabric, *other = NULL;
	struct kofi_provider p;
	struct task_struct *t;
	struct kr_dereg d;
	int refs = kr_module_refs();
	bool done;

	atomic_set(&kr_cleanups, 0);
	kr_init(&p, "kr_nowait", FI_VERSION(1, 0));
	KUNIT_ASSERT_EQ(test, kofi_provider_register(&p), 0);
	KUNIT_EXPECT_EQ(test, kr_visible_version("kr_nowait"),
			FI_VERSION(1, 0));
	if (refs >= 0) {
		KUNIT_EXPECT_EQ(test, kr_getinfo_refs, refs + 1);
		KUNIT_EXPECT_EQ(test, kr_module_refs(), refs);
	}
	KUNIT_ASSERT_EQ(test, fi_fabric(&attr, &fabric, NULL), 0);
	if (refs >= 0)
		KUNIT_EXPECT_EQ(test, kr_module_refs(), refs + 1);

	d.prov = &p;
	init_completion(&d.done);
	t = kthread_run(kr_dereg_thread, &d, "kr_dereg");
	if (IS_ERR(t)) {
		fi_close(&fabric->fid);
		kofi_provider_deregister(&p);
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(t));
		return;
	}
	done = wait_for_completion_timeout(&d.done, msecs_to_jiffies(5000));
	KUNIT_EXPECT_TRUE_MSG(test, done,
			      "deregistration waited for the open fabric");
	KUNIT_EXPECT_EQ(test, atomic_read(&kr_cleanups), 1);
	/* new users no longer find the provider */
	KUNIT_EXPECT_EQ(test, kr_visible_version("kr_nowait"), 0U);
	KUNIT_EXPECT_EQ(test, fi_fabric(&attr, &other, NULL), -ENODEV);
	KUNIT_EXPECT_NULL(test, other);

	/* the fabric outlives the registration */
	KUNIT_EXPECT_EQ(test, fi_close(&fabric->fid), 0);
	if (refs >= 0)
		KUNIT_EXPECT_EQ(test, kr_module_refs(), refs);
	if (!done)
		wait_for_completion(&d.done);
	KUNIT_EXPECT_EQ(test, atomic_read(&kr_cleanups), 1);
	ktp_free_objects();
}

static void kr_fabric_unknown_test(struct kunit *test)
{
	struct fi_fabric_attr attr = { .prov_name = "kr_no_such_prov" };
	struct fid_fabric *fabric = NULL;

	KUNIT_EXPECT_EQ(test, fi_fabric(&attr, &fabric, NULL), -ENODEV);
	attr.prov_name = "kr_no_such_core;kr_no_such_util";
	KUNIT_EXPECT_EQ(test, fi_fabric(&attr, &fabric, NULL), -ENODEV);
	KUNIT_EXPECT_EQ(test, fi_fabric(NULL, &fabric, NULL), -EINVAL);
	attr.prov_name = NULL;
	KUNIT_EXPECT_EQ(test, fi_fabric(&attr, &fabric, NULL), -EINVAL);
	KUNIT_EXPECT_NULL(test, fabric);
}

/* ---- concurrency: register/deregister against getinfo ---- */

#define KR_NREG		2
#define KR_NGET		2
#define KR_RUN_MS	300

struct kr_race {
	atomic_t stop;
	atomic_t errors;
	atomic_t getinfo_ok;
	atomic_t regs;
	struct completion done[KR_NREG + KR_NGET];
	int idx;
};

struct kr_race_arg {
	struct kr_race *r;
	int idx;
};

/*
 * The racing providers have no module (this test built in) or a module that
 * stays loaded: a getinfo call may still be in one after its deregistration
 * returned, so, as struct kofi_provider's rule asks, they stay valid after
 * it: static, not on the registering thread's stack.
 */
static struct kofi_provider kr_race_provs[KR_NREG];
static char kr_race_names[KR_NREG][16];

static int kr_reg_thread(void *arg)
{
	struct kr_race_arg *a = arg;
	struct kofi_provider *p = &kr_race_provs[a->idx];
	struct kr_race *r = a->r;

	snprintf(kr_race_names[a->idx], sizeof(kr_race_names[a->idx]),
		 "kr_race%d", a->idx);
	kr_init(p, kr_race_names[a->idx], FI_VERSION(1, 0));
	while (!atomic_read(&r->stop)) {
		if (kofi_provider_register(p)) {
			atomic_inc(&r->errors);
			break;
		}
		atomic_inc(&r->regs);
		cond_resched();
		kofi_provider_deregister(p);
	}
	complete(&r->done[a->idx]);
	return 0;
}

static int kr_get_thread(void *arg)
{
	struct kr_race_arg *a = arg;
	struct kr_race *r = a->r;
	struct fi_info *hints, *info;
	int ret;

	hints = fi_allocinfo(GFP_KERNEL);
	if (hints)
		hints->fabric_attr->prov_name = kstrdup("kr_race0,kr_race1",
							GFP_KERNEL);
	if (!hints || !hints->fabric_attr->prov_name) {
		atomic_inc(&r->errors);
		fi_freeinfo(hints);
		complete(&r->done[a->idx]);
		return 0;
	}
	while (!atomic_read(&r->stop)) {
		info = NULL;
		ret = fi_getinfo(fi_version(), NULL, NULL, 0, hints, &info);
		if (ret == 0) {
			if (ktp_len(info) < 1 || ktp_len(info) > 2)
				atomic_inc(&r->errors);
			atomic_inc(&r->getinfo_ok);
		} else if (ret != -ENODATA) {
			atomic_inc(&r->errors);
		}
		fi_freeinfo(info);
		cond_resched();
	}
	fi_freeinfo(hints);
	complete(&r->done[a->idx]);
	return 0;
}

static void kr_concurrent_test(struct kunit *test)
{
	struct kr_race_arg args[KR_NREG + KR_NGET];
	struct task_struct *t;
	struct kr_race *r;
	int i;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	atomic_set(&kr_cleanups, 0);
	for (i = 0; i < KR_NREG + KR_NGET; i++) {
		init_completion(&r->done[i]);
		args[i].r = r;
		args[i].idx = i;
	}
	for (i = 0; i < KR_NREG + KR_NGET; i++) {
		t = kthread_run(i < KR_NREG ? kr_reg_thread : kr_get_thread,
				&args[i], "kr_race%d", i);
		if (IS_ERR(t)) {
			complete(&r->done[i]);
			atomic_inc(&r->errors);
		}
	}
	msleep(KR_RUN_MS);
	atomic_set(&r->stop, 1);
	for (i = 0; i < KR_NREG + KR_NGET; i++)
		KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&r->done[i],
								    msecs_to_jiffies(10000)));
	KUNIT_EXPECT_EQ(test, atomic_read(&r->errors), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&r->regs), 0);
	/* every registration was cleaned up exactly once */
	KUNIT_EXPECT_EQ(test, atomic_read(&kr_cleanups),
			atomic_read(&r->regs));
	kunit_info(test, "%d registrations, %d successful getinfo\n",
		   atomic_read(&r->regs), atomic_read(&r->getinfo_ok));
	/* the racers are gone */
	KUNIT_EXPECT_EQ(test, kr_visible_version("kr_race0,kr_race1"), 0U);
}

static struct kunit_case kofi_registry_cases[] = {
	KUNIT_CASE(kr_invalid_test),
	KUNIT_CASE(kr_register_getinfo_test),
	KUNIT_CASE(kr_duplicate_test),
	KUNIT_CASE(kr_dereg_no_wait_test),
	KUNIT_CASE(kr_fabric_unknown_test),
	KUNIT_CASE_SLOW(kr_concurrent_test),
	{}
};

struct kunit_suite kofi_registry_suite = {
	.name = "kofi_registry",
	.test_cases = kofi_registry_cases,
};
