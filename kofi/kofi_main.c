// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core module: load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "kofi_core.h"

/**
 * fi_version() - API version implemented by this kofi.ko
 *
 * Context: any context.
 * Return: FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION).
 */
u32 fi_version(void)
{
	return FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION);
}
EXPORT_SYMBOL_GPL(fi_version);

static int __init kofi_init(void)
{
	int ret;

	ret = kofi_rdm_init();
	if (ret)
		return ret;
	kofi_debugfs_init();
	pr_info("kernel OpenFabrics Interface %u.%u loaded\n",
		FI_MAJOR_VERSION, FI_MINOR_VERSION);
	return 0;
}

static void __exit kofi_exit(void)
{
	kofi_debugfs_exit();
	kofi_rdm_exit();
	pr_info("unloaded\n");
}

module_init(kofi_init);
module_exit(kofi_exit);

MODULE_DESCRIPTION("kOFI: kernel OpenFabrics Interface core");
MODULE_LICENSE("Dual BSD/GPL");
