/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: ib_verbs - what only the ib_verbs provider offers.
 *
 * The ib_verbs core provider ("ib_verbs", kofi_ib_verbs.ko) runs the fi_*
 * calls on the kernel's RDMA stack (ib_core, rdma_cm).  Everything it does
 * through the generic headers is described in Documentation/ib_verbs.rst;
 * this header adds its own endpoint options.
 */
#ifndef _KOFI_IB_VERBS_H
#define _KOFI_IB_VERBS_H

#include <kofi/fi_endpoint.h>

/*
 * Endpoint options of ib_verbs (level FI_OPT_ENDPOINT, size_t values);
 * other providers answer -ENOPROTOOPT.
 * FI_OPT_CM_DATA_RAW:   non-zero: connection data goes on the wire as
 *                       given, without the provider's length header, and
 *                       a peer's arrives as every byte the transport
 *                       delivered (rdma_cm may pad it with zeros); for
 *                       peers that are not kOFI (rsockets).  Set on the
 *                       endpoint or passive endpoint before fi_connect(),
 *                       fi_listen() or fi_accept().
 * FI_OPT_KEEPALIVE_MS (<kofi/fi_endpoint.h>) is shared with ksocket.
 */
#define FI_OPT_CM_DATA_RAW	16

#endif /* _KOFI_IB_VERBS_H */
