// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests for the kOFI core: the version suite and the list of every
 * core suite (the others live in their own files).
 */
#include <kunit/test.h>
#include "kofi_test.h"

static void kofi_version_test(struct kunit *test)
{
	u32 v = fi_version();

	KUNIT_EXPECT_EQ(test, FI_MAJOR(v), (u32)FI_MAJOR_VERSION);
	KUNIT_EXPECT_EQ(test, FI_MINOR(v), (u32)FI_MINOR_VERSION);
	KUNIT_EXPECT_EQ(test, FI_VERSION(FI_MAJOR(v), FI_MINOR(v)), v);
	KUNIT_EXPECT_LT(test, FI_VERSION(1, 0xffff), FI_VERSION(2, 0));
}

static struct kunit_case kofi_core_cases[] = {
	KUNIT_CASE(kofi_version_test),
	{}
};

static struct kunit_suite kofi_core_suite = {
	.name = "kofi_core",
	.test_cases = kofi_core_cases,
};

kunit_test_suites(&kofi_core_suite, &kofi_registry_suite, &kofi_getinfo_suite,
		  &kofi_info_suite, &kofi_str_suite, &kofi_eq_suite,
		  &kofi_cq_suite, &kofi_lifetime_suite, &kofi_misuse_suite,
		  &kofi_keytable_suite, &kofi_data_suite, &kofi_av_suite,
		  &kofi_util_suite, &kofi_match_suite);

MODULE_DESCRIPTION("KUnit tests for the kOFI core");
MODULE_LICENSE("Dual BSD/GPL");
