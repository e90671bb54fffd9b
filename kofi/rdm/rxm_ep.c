// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxm: the endpoint object - open, enable, name, options, close.
 *
 * fi_enable() opens the endpoint's private core queues and its core
 * passive endpoint, which listens on the endpoint's source address: the
 * address it listens on is the endpoint's name (fi_getname()), which
 * peers insert into their address vectors.  fi_close() closes every
 * connection and completes what is still posted with ECANCELED.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "rxm.h"

/**
 * struct rxm_opts - the endpoint's size_t options
 * @min_multi_recv: FI_OPT_MIN_MULTI_RECV
 * @connect_timeout_ms: FI_OPT_CONNECT_TIMEOUT_MS
 * @may_sleep: FI_OPT_DATA_MAY_SLEEP (0 or 1)
 */
struct rxm_opts {
	size_t min_multi_recv;
	size_t connect_timeout_ms;
	size_t may_sleep;
};

static const struct kofi_util_opt rxm_opt_tab[] = {
	KOFI_UTIL_OPT(FI_OPT_MIN_MULTI_RECV, 1, RXM_MAX_MSG_SIZE,
		      struct rxm_opts, min_multi_recv),
	KOFI_UTIL_OPT(FI_OPT_CONNECT_TIMEOUT_MS, 0, RXM_CONNECT_TIMEOUT_MAX_MS,
		      struct rxm_opts, connect_timeout_ms),
	KOFI_UTIL_OPT(FI_OPT_DATA_MAY_SLEEP, 0, 1, struct rxm_opts, may_sleep),
};

static int rxm_ep_setopt(struct fid *fid, int level, int optname,
			 const void *optval, size_t optlen)
{
	struct rxm_ep *ep = container_of(fid, struct rxm_ep, ep.fid);
	struct rxm_opts o;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&ep->lock, flags);
	o.min_multi_recv = ep->msgq.min_multi_recv;
	o.connect_timeout_ms = ep->connect_timeout_ms;
	o.may_sleep = ep->may_sleep;
	spin_unlock_irqrestore(&ep->lock, flags);
	ret = kofi_util_setopt(rxm_opt_tab, ARRAY_SIZE(rxm_opt_tab), &o,
			       level, optname, optval, optlen);
	if (ret)
		return ret;
	spin_lock_irqsave(&ep->lock, flags);
	/* FI_OPT_DATA_MAY_SLEEP: fixed once the endpoint is enabled */
	if (o.may_sleep != ep->may_sleep && ep->state != RXM_EP_IDLE)
		ret = -EBUSY;
	if (!ret) {
		ep->msgq.min_multi_recv = o.min_multi_recv;
		ep->tagq.min_multi_recv = o.min_multi_recv;
		WRITE_ONCE(ep->connect_timeout_ms, o.connect_timeout_ms);
		WRITE_ONCE(ep->may_sleep, !!o.may_sleep);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	return ret;
}

static int rxm_ep_getopt(struct fid *fid, int level, int optname,
			 void *optval, size_t *optlen)
{
	struct rxm_ep *ep = container_of(fid, struct rxm_ep, ep.fid);
	struct rxm_opts o = {
		.min_multi_recv = READ_ONCE(ep->msgq.min_multi_recv),
		.connect_timeout_ms = READ_ONCE(ep->connect_timeout_ms),
		.may_sleep = READ_ONCE(ep->may_sleep),
	};

	return kofi_util_getopt(rxm_opt_tab, ARRAY_SIZE(rxm_opt_tab), &o,
				level, optname, optval, optlen);
}

/* Free every receive entry, wherever it is: the endpoint is done. */
static void rxm_ep_free_rx(struct rxm_ep *ep)
{
	struct rxm_rx *rx, *next;

	list_for_each_entry_safe(rx, next, &ep->rx_all, all)
		kfree(rx);
}

/* Close the core objects fi_enable() opened, in reverse order. */
static void rxm_ep_close_core(struct rxm_ep *ep)
{
	kofi_util_close_core(ep->pep ? &ep->pep->fid : NULL);
	ep->pep = NULL;
	rxm_conn_close_all(ep);
	rxm_srx_close(ep);
	kofi_util_close_core(ep->core_cq ? &ep->core_cq->fid : NULL);
	ep->core_cq = NULL;
	kofi_util_close_core(ep->core_eq ? &ep->core_eq->fid : NULL);
	ep->core_eq = NULL;
	/* a core event may have queued the work until the EQ was closed */
	cancel_work_sync(&ep->cm_work);
}

/*
 * fi_enable(): the pools, the core queues and the core passive endpoint,
 * listening on the endpoint's name.
 */
static int rxm_ep_enable(struct fid_ep *fep)
{
	struct rxm_ep *ep = container_of(fep, struct rxm_ep, ep);
	struct kofi_rdm_core *under = &ep->under;
	size_t len = sizeof(ep->name);
	unsigned long flags;
	int ret;

	if (!kofi_ep_av(fep) || !kofi_ep_cq(fep, FI_TRANSMIT, NULL) ||
	    !kofi_ep_cq(fep, FI_RECV, NULL))
		return -EINVAL;
	/*
	 * The listener's connection requests wait here for the CM work: the
	 * core's default size (64), as each slot has room for a request's
	 * data (FI_EQ_MAX_SIZE would cost every endpoint megabytes).
	 */
	ret = kofi_util_core_eq_open(under->fabric, 0, &ep->progress,
				     &ep->core_eq);
	if (ret)
		goto err;
	ret = kofi_util_core_cq_open(under->domain, 0, &ep->core_cq, ep);
	if (ret)
		goto err;
	ret = rxm_srx_open(ep);
	if (ret)
		goto err;
	ep->shared_rx = ep->srx;
	ret = fi_passive_ep(under->fabric, ep->core_info, &ep->pep, ep);
	if (ret)
		goto err;
	ret = fi_pep_bind(ep->pep, &ep->core_eq->fid, 0);
	if (!ret)
		ret = fi_listen(ep->pep);
	if (!ret)
		ret = fi_getname(&ep->pep->fid, &ep->name, &len);
	if (!ret && (!len ||
		     len != kofi_sockaddr_len(&ep->name.sa, sizeof(ep->name))))
		ret = -EAFNOSUPPORT;
	if (ret)
		goto err;
	ret = kofi_av_watch_add(kofi_ep_av(fep), &ep->av_watch);
	if (ret)
		goto err;
	spin_lock_irqsave(&ep->lock, flags);
	ep->state = RXM_EP_ENABLED;
	spin_unlock_irqrestore(&ep->lock, flags);
	return 0;
err:
	rxm_ep_close_core(ep);
	return ret;
}

static const struct fi_ops_ep rxm_ep_ops = {
	.cancel = rxm_cancel,
	.getopt = rxm_ep_getopt,
	.setopt = rxm_ep_setopt,
	.enable = rxm_ep_enable,
};

/* fi_getname(): the address the endpoint listens on, once enabled. */
static int rxm_ep_getname(struct fid *fid, void *addr, size_t *addrlen)
{
	struct rxm_ep *ep = container_of(fid, struct rxm_ep, ep.fid);
	size_t have = *addrlen, len;

	if (READ_ONCE(ep->state) != RXM_EP_ENABLED)
		return -EINVAL;
	len = kofi_sockaddr_len(&ep->name.sa, sizeof(ep->name));
	*addrlen = len;
	if (have < len)
		return -EMSGSIZE;
	memcpy(addr, &ep->name, len);
	return 0;
}

static const struct fi_ops_cm rxm_cm_ops = {
	.getname = rxm_ep_getname,
};

static void rxm_ep_free(struct rxm_ep *ep)
{
	rxm_ep_free_rx(ep);
	xa_destroy(&ep->table);
	xa_destroy(&ep->conn_ids);
	xa_destroy(&ep->rndv);
	fi_freeinfo(ep->core_info);
	fi_freeinfo(ep->info);
	kfree(ep);
}

static int rxm_ep_close(struct fid *fid)
{
	struct rxm_ep *ep = container_of(fid, struct rxm_ep, ep.fid);
	unsigned long flags;
	bool enabled;

	spin_lock_irqsave(&ep->lock, flags);
	enabled = ep->state == RXM_EP_ENABLED;
	ep->state = RXM_EP_CLOSING;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (enabled)
		kofi_av_watch_del(kofi_ep_av(&ep->ep), &ep->av_watch);
	cancel_work_sync(&ep->cm_work);
	rxm_ep_close_core(ep);
	/* the closed connections ended what waited for room */
	cancel_delayed_work_sync(&ep->room_retry);
	/*
	 * the rendezvous sends the closed connections failed, and the reads
	 * they ended whose registrations the work closes
	 */
	flush_work(&ep->tx_work);
	rxm_rx_flush(ep);
	rxm_ep_free(ep);
	return 0;
}

static const struct fi_ops rxm_ep_fi_ops = {
	.close = rxm_ep_close,
};

/**
 * kofi_rdm_ep_open() - fi_endpoint() of an FI_EP_RDM info
 * @under: what the endpoint runs over (copied)
 * @info: the info (of kofi_rdm_info(), or the user's changes of it)
 * @core_info: the FI_EP_MSG info its listener and connections are
 *	opened with; the endpoint's from now on, also on failure
 * @fep: the new endpoint
 * @context: user context
 *
 * The provider calls it from its domain's endpoint(); the core objects
 * are opened by fi_enable().
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for another endpoint type or an info with a handle;
 * -ENOMEM.
 */
int kofi_rdm_ep_open(const struct kofi_rdm_core *under, struct fi_info *info,
		     struct fi_info *core_info, struct fid_ep **fep,
		     void *context)
{
	bool directed = info->caps & FI_DIRECTED_RECV;
	struct rxm_ep *ep;
	int ret;

	if (!info->ep_attr || info->ep_attr->type != FI_EP_RDM ||
	    info->handle) {
		fi_freeinfo(core_info);
		return -EINVAL;
	}
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep) {
		fi_freeinfo(core_info);
		return -ENOMEM;
	}
	ep->under = *under;
	ep->core_info = core_info;
	spin_lock_init(&ep->lock);
	INIT_LIST_HEAD(&ep->conns);
	INIT_LIST_HEAD(&ep->rx_free);
	INIT_LIST_HEAD(&ep->rx_all);
	xa_init(&ep->table);
	xa_init_flags(&ep->conn_ids, XA_FLAGS_ALLOC1);
	xa_init_flags(&ep->rndv, XA_FLAGS_ALLOC);
	INIT_LIST_HEAD(&ep->tx_list);
	INIT_LIST_HEAD(&ep->rd_list);
	INIT_LIST_HEAD(&ep->room_wait);
	INIT_DELAYED_WORK(&ep->room_retry, rxm_room_retry);
	INIT_WORK(&ep->tx_work, rxm_tx_work);
	INIT_WORK(&ep->cm_work, rxm_cm_work);
	INIT_LIST_HEAD(&ep->av_watch.node);
	ep->av_watch.removed = rxm_av_removed;
	ep->connect_timeout_ms = min(READ_ONCE(rxm_connect_timeout_ms),
				     RXM_CONNECT_TIMEOUT_MAX_MS);
	kofi_util_progress_init(&ep->progress, rxm_wq, &ep->cm_work);
	kofi_match_init(&ep->msgq, false, directed, UINT_MAX,
			RXM_MIN_MULTI_RECV);
	kofi_match_init(&ep->tagq, true, directed, UINT_MAX,
			RXM_MIN_MULTI_RECV);
	ep->info = fi_dupinfo(info, GFP_KERNEL);
	if (!ep->info) {
		ret = -ENOMEM;
		goto err;
	}
	if (!ep->info->rx_attr->size ||
	    ep->info->rx_attr->size > RXM_RX_SIZE)
		ep->info->rx_attr->size = RXM_RX_SIZE;
	if (!ep->info->tx_attr->size ||
	    ep->info->tx_attr->size > RXM_TX_SIZE)
		ep->info->tx_attr->size = RXM_TX_SIZE;
	ep->net = under->wire == KOFI_RDM_WIRE_NET;
	ep->wire = ep->net ? &rxm_wire_net : &rxm_wire_rxm;
	ep->net_pid = get_random_u32();
	ep->big_max = READ_ONCE(rxm_big_unexp_bytes);
	ep->rndv_ok = !ep->net && (ep->core_info->caps & FI_RMA) &&
		      ep->info->ep_attr->max_msg_size > RXM_EAGER_LIMIT;
	ep->virt_addr = under->mr_mode & FI_MR_VIRT_ADDR;
	ep->reg_pages = under->mr_mode & FI_MR_ALLOCATED;
	/* TCP paces ksocket's sends; a verbs QP's need credits */
	ep->flow_ctrl = ep->core_info->fabric_attr->prov_name &&
			!strcmp(ep->core_info->fabric_attr->prov_name,
				"ib_verbs");
	ep->rma_iov_limit = max_t(size_t, ep->core_info->tx_attr->rma_iov_limit,
				  1);
	kofi_fid_init(&ep->ep.fid, FI_CLASS_EP, &rxm_ep_fi_ops, context);
	ep->ep.ops = &rxm_ep_ops;
	ep->ep.cm = &rxm_cm_ops;
	ep->ep.msg = &rxm_msg_ops;
	ep->ep.tagged = &rxm_tagged_ops;
	if (ep->core_info->caps & FI_RMA)
		ep->ep.rma = &rxm_rma_ops;
	*fep = &ep->ep;
	return 0;
err:
	rxm_ep_free(ep);
	return ret;
}
EXPORT_SYMBOL_GPL(kofi_rdm_ep_open);
