/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: reliable datagram endpoints over connected endpoints, for
 * providers.
 *
 * kofi.ko holds the engine of FI_EP_RDM endpoints that keep one
 * FI_EP_MSG connection per peer (kofi/rdm/): the rxm utility provider
 * runs it over any core ("ksocket;rxm", "ib_verbs;rxm", "ksocket;net"),
 * and ksocket over its own connections.  Each endpoint speaks one of two
 * wires: libfabric 1.17's ofi_rxm protocol, or its net provider's (tcp
 * messages as they are, over a core with FI_OPT_TAGGED_RX and its
 * FI_TAGGED_RX_OP: ksocket).  See Documentation/rxm.rst.  ULPs do not
 * include this header.
 */
#ifndef _KOFI_RDM_H
#define _KOFI_RDM_H

#include <kofi/fabric.h>

/* What an RDM info offers, and with a core that has FI_RMA. */
#define KOFI_RDM_CAPS		(FI_MSG | FI_TAGGED | FI_SEND | FI_RECV | \
				 FI_SOURCE | FI_DIRECTED_RECV | \
				 FI_MULTI_RECV | FI_LOCAL_COMM | FI_REMOTE_COMM)
#define KOFI_RDM_RMA_CAPS	(FI_RMA | FI_READ | FI_WRITE | \
				 FI_REMOTE_READ | FI_REMOTE_WRITE)

/**
 * enum kofi_rdm_wire - what an RDM endpoint speaks
 * @KOFI_RDM_WIRE_RXM: libfabric's ofi_rxm protocol
 * @KOFI_RDM_WIRE_NET: libfabric's net provider's
 */
enum kofi_rdm_wire {
	KOFI_RDM_WIRE_RXM,
	KOFI_RDM_WIRE_NET,
};

/**
 * struct kofi_rdm_core - what RDM endpoints run over
 * @domain: the domain their connections, private queues and rendezvous
 *	registrations are opened in; the regions the ULP registers for
 *	RMA on the endpoints are this domain's
 * @fabric: its fabric (the listener, the private EQs)
 * @mr_mode: @domain's mr_mode
 * @wire: what the endpoints speak
 */
struct kofi_rdm_core {
	struct fid_domain *domain;
	struct fid_fabric *fabric;
	u64 mr_mode;
	enum kofi_rdm_wire wire;
};

struct fi_info *kofi_rdm_info(const struct fi_info *core,
			      enum kofi_rdm_wire wire);
int kofi_rdm_ep_open(const struct kofi_rdm_core *core, struct fi_info *info,
		     struct fi_info *core_info, struct fid_ep **ep,
		     void *context);

#endif /* _KOFI_RDM_H */
