// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: debugfs view, /sys/kernel/debug/kofi/providers.
 *
 * One line per registered provider: name, version, API version, priority,
 * core or utility, references on its module ("-" without one), and whether
 * a newer registration of the same name shadows it.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "kofi_core.h"

static struct dentry *kofi_debugfs_root;

static int kofi_providers_show(struct seq_file *m, void *unused)
{
	kofi_registry_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kofi_providers);

/**
 * kofi_debugfs_init() - create the kofi debugfs directory
 *
 * Failures are not fatal (debugfs may be absent).
 *
 * Context: process context, may sleep.
 */
void kofi_debugfs_init(void)
{
	kofi_debugfs_root = debugfs_create_dir("kofi", NULL);
	debugfs_create_file("providers", 0444, kofi_debugfs_root, NULL,
			    &kofi_providers_fops);
}

/**
 * kofi_debugfs_exit() - remove the kofi debugfs directory
 *
 * Context: process context, may sleep.
 */
void kofi_debugfs_exit(void)
{
	debugfs_remove_recursive(kofi_debugfs_root);
	kofi_debugfs_root = NULL;
}
