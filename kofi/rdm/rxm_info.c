// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI RDM engine: the FI_EP_RDM info over a core's FI_EP_MSG info.
 *
 * Messages of 0 bytes to the core's largest (over the rxm wire: 4 MiB
 * over a core that registers memory by its pages, and only up to the
 * eager limit over a core without RMA), 256 sends and 256 receives,
 * remote CQ data where the core has it (rxm_proto.h: 4 bytes of an RMA
 * write's over ib_verbs), the core's regions for RMA.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include "rxm.h"

/* The rxm info over a core FI_EP_MSG info; NULL if out of memory. */
static struct fi_info *rxm_info_rxm(const struct fi_info *core)
{
	struct fi_info *info = fi_dupinfo(core, GFP_KERNEL);

	if (!info)
		return NULL;
	info->handle = NULL;
	info->caps = KOFI_RDM_CAPS | (core->caps & FI_REMOTE_CQ_DATA);
	if (core->caps & FI_RMA)
		info->caps |= KOFI_RDM_RMA_CAPS;
	info->mode = 0;
	kfree(info->dest_addr);
	info->dest_addr = NULL;
	info->dest_addrlen = 0;
	memset(info->tx_attr, 0, sizeof(*info->tx_attr));
	info->tx_attr->caps = info->caps & ~(FI_RECV | FI_DIRECTED_RECV |
					     FI_MULTI_RECV | FI_SOURCE |
					     FI_REMOTE_READ | FI_REMOTE_WRITE);
	info->tx_attr->inject_size = RXM_INJECT_SIZE;
	info->tx_attr->size = RXM_TX_SIZE;
	/* one entry of the core's goes to the header */
	info->tx_attr->iov_limit = clamp_t(size_t, core->tx_attr->iov_limit,
					   2, RXM_IOV_LIMIT + 1) - 1;
	memset(info->rx_attr, 0, sizeof(*info->rx_attr));
	info->rx_attr->caps = info->caps & ~(FI_SEND | FI_READ | FI_WRITE);
	info->rx_attr->size = RXM_RX_SIZE;
	info->rx_attr->iov_limit = RXM_IOV_LIMIT;
	memset(info->ep_attr, 0, sizeof(*info->ep_attr));
	info->ep_attr->type = FI_EP_RDM;
	info->ep_attr->protocol_version = RXM_CTRL_VERSION;
	/* above the eager limit by rendezvous, which reads with the core's RMA */
	info->ep_attr->max_msg_size =
		rxm_max_msg_size(core->ep_attr->max_msg_size,
				 core->caps & FI_RMA,
				 core->domain_attr->mr_mode & FI_MR_ALLOCATED);
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;
	info->domain_attr->threading = FI_THREAD_SAFE;
	info->domain_attr->control_progress = FI_PROGRESS_AUTO;
	info->domain_attr->data_progress = FI_PROGRESS_AUTO;
	info->domain_attr->resource_mgmt = FI_RM_ENABLED;
	info->domain_attr->cq_data_size = !(core->caps & FI_REMOTE_CQ_DATA) ?
		0 : rxm_cq_data_size(core->domain_attr->cq_data_size,
				     core->caps & FI_RMA);
	/* the domain's regions are the core's (kofi_util_domain_mr()) */
	if (core->caps & FI_RMA) {
		info->tx_attr->rma_iov_limit = core->tx_attr->rma_iov_limit;
	} else {
		info->domain_attr->mr_mode = 0;
		info->domain_attr->mr_key_size = 0;
		info->domain_attr->mr_cnt = 0;
		info->domain_attr->mr_iov_limit = 0;
	}
	info->domain_attr->caps = FI_LOCAL_COMM | FI_REMOTE_COMM;
	info->domain_attr->mode = 0;
	return info;
}

/**
 * kofi_rdm_info() - the RDM info over a core FI_EP_MSG info
 * @core: the core's info (FI_MSG; FI_RMA for RMA and, over the rxm wire,
 *	messages above the eager limit)
 * @wire: what the endpoints speak: over the net wire messages are as
 *	large as the core's (no rendezvous, no header) and carry the
 *	core's remote CQ data
 *
 * The info keeps @core's fabric and domain attributes, names and
 * addresses but for the destination; the caller names its provider.
 *
 * Context: process context, may sleep.
 * Return: the info, or NULL if out of memory.
 */
struct fi_info *kofi_rdm_info(const struct fi_info *core,
			      enum kofi_rdm_wire wire)
{
	struct fi_info *info = rxm_info_rxm(core);

	if (!info || wire != KOFI_RDM_WIRE_NET)
		return info;

	info->ep_attr->protocol_version = RXM_NET_CM_VERSION;
	info->ep_attr->max_msg_size = core->ep_attr->max_msg_size;
	info->domain_attr->cq_data_size = (core->caps & FI_REMOTE_CQ_DATA) ?
					  core->domain_attr->cq_data_size : 0;
	return info;
}
EXPORT_SYMBOL_GPL(kofi_rdm_info);
