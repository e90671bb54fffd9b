/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kernel OpenFabrics Interface - core object model.
 */
#ifndef _KOFI_FABRIC_H
#define _KOFI_FABRIC_H

#include <linux/types.h>

#define FI_MAJOR_VERSION	1
#define FI_MINOR_VERSION	0

/**
 * FI_VERSION() - encode an API version
 * @major: major version
 * @minor: minor version
 */
#define FI_VERSION(major, minor)	(((u32)(major) << 16) | (u16)(minor))
/** FI_MAJOR() - major part of an API version made by FI_VERSION() */
#define FI_MAJOR(version)		((u32)(version) >> 16)
/** FI_MINOR() - minor part of an API version made by FI_VERSION() */
#define FI_MINOR(version)		((u32)(version) & 0xffff)

u32 fi_version(void);

#endif /* _KOFI_FABRIC_H */
