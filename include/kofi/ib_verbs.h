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
 * FI_OPT_RETRY_COUNT:   transport retries of the connection's sends
 *                       before they fail (0-7); the default is the
 *                       retry_count module parameter.
 * FI_OPT_ACK_TIMEOUT:   local ACK timeout of the connection's QP as IB
 *                       encodes it: 4.096 us * 2^n per try (1-31; 0 for
 *                       rdma_cm's default, derived from the path); the
 *                       default is the ack_timeout module parameter.
 *                       With FI_OPT_RETRY_COUNT it bounds how long a send
 *                       to a peer that stopped answering takes to fail
 *                       (an ETIMEDOUT error completion): about
 *                       (retries + 1) x the timeout.
 *                       Both are set before fi_connect() or fi_accept()
 *                       (-EISCONN afterwards; -EINVAL out of range) and
 *                       have no effect on iWARP, whose transport is TCP.
 * FI_OPT_KEEPALIVE_MS (<kofi/fi_endpoint.h>) is shared with ksocket.
 */
#define FI_OPT_CM_DATA_RAW	16
#define FI_OPT_RETRY_COUNT	0x10003
#define FI_OPT_ACK_TIMEOUT	0x10004

#endif /* _KOFI_IB_VERBS_H */
