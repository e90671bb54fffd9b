// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ksocket provider: reliable datagrams (FI_EP_RDM) of its own.
 *
 * ksocket offers FI_EP_RDM endpoints as libfabric's net provider does:
 * one tcp v3 connection per peer, opened by the first send to it, each
 * message one tcp message (untagged op 0, tagged op 1 with the tag),
 * net's 8-byte CM data.  They are kofi.ko's RDM engine (<kofi/rdm.h>)
 * over ksocket's own FI_EP_MSG endpoints in the same domain, speaking the
 * net wire: the same endpoints as rxm's "ksocket;net", with no utility
 * provider between.  The domain gives them address vectors of its
 * address format; its CQs and regions are theirs.
 * See Documentation/ksocket.rst, Reliable datagrams.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <kofi/rdm.h>
#include "ksock.h"

/**
 * ksock_rdm_info_alloc() - the FI_EP_RDM info of an address format
 * @addr_format: FI_SOCKADDR_IN or FI_SOCKADDR_IN6
 *
 * Context: process context, may sleep.
 * Return: the info, or NULL.
 */
struct fi_info *ksock_rdm_info_alloc(u32 addr_format)
{
	struct fi_info *msg = ksock_info_alloc(addr_format), *info;

	if (!msg)
		return NULL;
	info = kofi_rdm_info(msg, KOFI_RDM_WIRE_NET);
	fi_freeinfo(msg);
	return info;
}

/**
 * ksock_rdm_open() - fi_endpoint() of an FI_EP_RDM info
 * @domain: a ksocket domain
 * @info: the info, of ksock_rdm_info_alloc() or changed by the user
 * @fep: the new endpoint
 * @context: user context
 *
 * The endpoint listens on @info's source address and connects from it,
 * with ksocket's FI_EP_MSG endpoints in @domain.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for an address format ksocket has not, -ENOMEM, or
 * kofi_rdm_ep_open()'s error.
 */
int ksock_rdm_open(struct fid_domain *domain, struct fi_info *info,
		   struct fid_ep **fep, void *context)
{
	struct kofi_sw_domain *dom = container_of(domain,
						  struct kofi_sw_domain,
						  domain);
	struct kofi_rdm_core under = {
		.domain = domain,
		.fabric = dom->fabric,
		.mr_mode = FI_MR_PROV_KEY,
		.wire = KOFI_RDM_WIRE_NET,
	};
	struct fi_info *core;

	if (info->addr_format != FI_SOCKADDR_IN &&
	    info->addr_format != FI_SOCKADDR_IN6)
		return -EINVAL;
	core = ksock_info_alloc(info->addr_format);
	if (!core)
		return -ENOMEM;
	if (info->src_addr && info->src_addrlen) {
		core->src_addr = kmemdup(info->src_addr, info->src_addrlen,
					 GFP_KERNEL);
		if (!core->src_addr) {
			fi_freeinfo(core);
			return -ENOMEM;
		}
		core->src_addrlen = info->src_addrlen;
	}
	return kofi_rdm_ep_open(&under, info, core, fep, context);
}
