// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: dispatch of the domain calls.
 */
#include <linux/module.h>
#include "kofi_core.h"

/*
 * Complete the data-call tables of a new endpoint or shared receive
 * context, one line per family; one the provider got wrong closes it.
 */
static int kofi_ep_tables_set(struct fid_ep **ep)
{
	int ret = kofi_msg_ops_set(*ep);

	if (!ret)
		ret = kofi_rma_ops_set(*ep);
	if (!ret)
		ret = kofi_tagged_ops_set(*ep);
	if (ret) {
		WARN_ON(fi_close(&(*ep)->fid));
		*ep = NULL;
	}
	return ret;
}

/**
 * fi_endpoint() - open an active endpoint
 * @domain: the domain
 * @info: the endpoint's info; for the passive side of a connection the
 *	info of the FI_CONNREQ event (its handle names the request)
 * @ep: the new endpoint
 * @context: user context of the endpoint
 *
 * Every endpoint has a message and an RMA operation table: one the
 * provider left out (NULL) is the core's, whose operations answer
 * -FI_ENOSYS.  An endpoint whose provider set only some operations of a
 * table is closed and refused.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if @domain is not a domain or @info or @ep is NULL,
 * or for a provider table with only some operations; -EBADF if @domain is
 * closed; -FI_ENOSYS; the provider's error.
 */
int fi_endpoint(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep, void *context)
{
	int ret;

	if (!KOFI_IS(domain, FI_CLASS_DOMAIN) || !info || !ep)
		return -EINVAL;
	if (!domain->ops || !domain->ops->endpoint)
		return -FI_ENOSYS;
	if (!kofi_fid_get(&domain->fid))
		return -EBADF;
	ret = domain->ops->endpoint(domain, info, ep, context);
	ret = kofi_fid_opened(&domain->fid, ret,
			      ret ? NULL : KOFI_FID(*ep), FI_CLASS_EP);
	return ret ? ret : kofi_ep_tables_set(ep);
}
EXPORT_SYMBOL_GPL(fi_endpoint);

/**
 * fi_srx_context() - open a shared receive context
 * @domain: the domain
 * @attr: receive attributes: @attr->size receives posted at once and
 *	@attr->iov_limit entries each (0: the provider's defaults, which
 *	the provider writes back); NULL for the defaults
 * @rx_ep: the new context, an endpoint of class FI_CLASS_SRX_CTX
 * @context: user context of the context
 *
 * Endpoints of @domain bound to the context (fi_ep_bind(), flags 0,
 * before fi_enable()) take the messages that arrive on them into the
 * receives posted to it, in the order they were posted, whichever
 * endpoint a message arrives on; such an endpoint has no receives of its
 * own.  Receives are posted to the context with fi_recvmsg() and the
 * calls built on it (and fi_trecvmsg(), if the provider has tagged
 * operations), and fi_cancel() reaches the provider's; send, RMA, bind,
 * enable, option and connection calls on it answer -EINVAL.  A
 * receive completes on the FI_RECV CQ of the endpoint its message arrived
 * on.  The context can be closed once no endpoint is bound to it (-EBUSY
 * before); receives still posted then are dropped without completions,
 * and the provider no longer touches their buffers once fi_close()
 * returns.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if @domain is not a domain or @rx_ep is NULL, or for
 * a provider table with only some operations; -EBADF if @domain is closed;
 * -FI_ENOSYS if the domain has no shared receive contexts
 * (domain_attr->max_ep_srx_ctx 0); -ENOMEM; the provider's error (e.g.
 * -EOPNOTSUPP where its device cannot).
 */
int fi_srx_context(struct fid_domain *domain, struct fi_rx_attr *attr,
		   struct fid_ep **rx_ep, void *context)
{
	struct fi_rx_attr dflt = {};
	int ret;

	if (!KOFI_IS(domain, FI_CLASS_DOMAIN) || !rx_ep)
		return -EINVAL;
	if (!domain->ops || !domain->ops->srx_ctx)
		return -FI_ENOSYS;
	if (!kofi_fid_get(&domain->fid))
		return -EBADF;
	ret = domain->ops->srx_ctx(domain, attr ? attr : &dflt, rx_ep,
				   context);
	ret = kofi_fid_opened(&domain->fid, ret,
			      ret ? NULL : KOFI_FID(*rx_ep), FI_CLASS_SRX_CTX);
	return ret ? ret : kofi_ep_tables_set(rx_ep);
}
EXPORT_SYMBOL_GPL(fi_srx_context);

/**
 * fi_cq_open() - open a completion queue
 * @domain: the domain
 * @attr: CQ attributes (size, flags, format, wait_cond, comp_handler)
 * @cq: the new completion queue
 * @context: user context of the CQ, passed to @attr->comp_handler
 *
 * With FI_CQ_CALLBACK in @attr->flags the CQ is a callback CQ: every
 * operation completing to it must have a struct fi_cqe as its context,
 * whose done() receives the completion (see struct fi_cqe); the read calls
 * return -EOPNOTSUPP on it.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for bad arguments (NULL, a flag other than
 * FI_CQ_CALLBACK, a comp_handler with FI_CQ_CALLBACK, an unknown format or
 * wait condition, a size above FI_CQ_MAX_SIZE); -EBADF if @domain is
 * closed; -FI_ENOSYS; -ENOMEM; the provider's error.
 */
int fi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
	       struct fid_cq **cq, void *context)
{
	int ret;

	if (!KOFI_IS(domain, FI_CLASS_DOMAIN) || !attr || !cq ||
	    (attr->flags & ~FI_CQ_CALLBACK) ||
	    ((attr->flags & FI_CQ_CALLBACK) && attr->comp_handler) ||
	    attr->format > KOFI_CQ_FORMAT_LAST ||
	    attr->wait_cond > FI_CQ_COND_THRESHOLD)
		return -EINVAL;
	if (!domain->ops || !domain->ops->cq_open)
		return -FI_ENOSYS;
	if (!kofi_fid_get(&domain->fid))
		return -EBADF;
	ret = domain->ops->cq_open(domain, attr, cq, context);
	return kofi_fid_opened(&domain->fid, ret,
			       ret ? NULL : KOFI_FID(*cq), FI_CLASS_CQ);
}
EXPORT_SYMBOL_GPL(fi_cq_open);
