/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kernel OpenFabrics Interface - error codes.
 *
 * kOFI calls return 0 (or a count) on success and a negative Linux errno on
 * failure.  Where Linux has no fitting code, kOFI defines one here, in a
 * range reserved above every Linux errno (including the kernel-internal
 * 512..529 codes) and below MAX_ERRNO, so IS_ERR_VALUE() still works on it.
 * fi_strerror() prints both kinds.
 */
#ifndef _KOFI_FI_ERRNO_H
#define _KOFI_FI_ERRNO_H

#include <linux/errno.h>

/*
 * FI_ENOSYS - "operation not implemented": what every fi_* call returns,
 * negated, when the provider leaves the operation out of its ops table.
 * It is the Linux errno libfabric users know for this case (checkpatch
 * reserves that errno for bad syscall numbers; kOFI deliberately keeps
 * the libfabric meaning and spells it in this one place).
 */
#define FI_ENOSYS	ENOSYS

/* First kOFI-specific error number; nothing below it is kOFI's. */
#define FI_ERRNO_OFFSET	1024

/*
 * FI_EAVAIL - an error entry is waiting on this queue: read it with
 * fi_cq_readerr() or fi_eq_readerr().  Returned negated (-FI_EAVAIL) by
 * fi_cq_read(), fi_cq_sread(), fi_eq_read() and fi_eq_sread().
 */
#define FI_EAVAIL	(FI_ERRNO_OFFSET + 1)

/*
 * FI_EOTHER - unspecified provider error; the provider-specific code is in
 * the prov_errno member of the error entry.
 */
#define FI_EOTHER	(FI_ERRNO_OFFSET + 2)

/* One past the last kOFI error number. */
#define FI_ERRNO_MAX	(FI_ERRNO_OFFSET + 3)

const char *fi_strerror(int errnum);

#endif /* _KOFI_FI_ERRNO_H */
