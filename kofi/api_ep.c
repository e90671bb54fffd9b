// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: dispatch of the endpoint control calls.
 */
#include <linux/module.h>
#include "kofi_core.h"

/* The control operations of an active or passive endpoint. */
static const struct fi_ops_ep *kofi_ep_ops(struct fid *fid)
{
	if (!fid)
		return NULL;
	if (fid->fclass == FI_CLASS_EP)
		return container_of(fid, struct fid_ep, fid)->ops;
	if (fid->fclass == FI_CLASS_PEP)
		return container_of(fid, struct fid_pep, fid)->ops;
	return NULL;
}

/**
 * fi_ep_bind() - bind an EQ, CQ, AV (or other object) to an endpoint
 * @ep: the endpoint
 * @bfid: the object: an EQ for connection events, a CQ with FI_SEND and/or
 *	FI_RECV for completions (FI_SELECTIVE_COMPLETION-like flags are the
 *	provider's), the AV of an unconnected endpoint (flags 0)
 * @flags: binding flags
 *
 * The endpoint holds @bfid until the endpoint is closed: closing @bfid
 * before returns -EBUSY.  An endpoint takes one AV, opened in its domain.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if @ep is not an endpoint or @bfid is NULL or not an
 * object, or for an AV of another domain or a second AV; -EBADF if @bfid
 * is closed; -FI_ENOSYS; -ENOMEM; the provider's error.
 */
int fi_ep_bind(struct fid_ep *ep, struct fid *bfid, u64 flags)
{
	if (!KOFI_IS(ep, FI_CLASS_EP))
		return -EINVAL;
	if (kofi_fid_is(bfid, FI_CLASS_AV) &&
	    (kofi_fid_parent(bfid) != kofi_fid_parent(&ep->fid) || kofi_ep_av(ep)))
		return -EINVAL;
	return kofi_fid_bind(&ep->fid, bfid, flags);
}
EXPORT_SYMBOL_GPL(fi_ep_bind);

/**
 * fi_pep_bind() - bind an EQ to a passive endpoint
 * @pep: the passive endpoint
 * @bfid: the EQ that receives FI_CONNREQ events
 * @flags: binding flags
 *
 * Context: process context, may sleep.
 * Return: as for fi_ep_bind().
 */
int fi_pep_bind(struct fid_pep *pep, struct fid *bfid, u64 flags)
{
	if (!KOFI_IS(pep, FI_CLASS_PEP))
		return -EINVAL;
	return kofi_fid_bind(&pep->fid, bfid, flags);
}
EXPORT_SYMBOL_GPL(fi_pep_bind);

/**
 * fi_enable() - enable an endpoint once its EQ and CQs are bound
 * @ep: the endpoint
 *
 * Equivalent to fi_control(&ep->fid, FI_ENABLE, NULL).
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if @ep is not an endpoint; -FI_ENOSYS; the provider's
 * error (e.g. -ENOTCONN/-EINVAL when a required CQ is not bound).
 */
int fi_enable(struct fid_ep *ep)
{
	if (!KOFI_IS(ep, FI_CLASS_EP))
		return -EINVAL;
	return fi_control(&ep->fid, FI_ENABLE, NULL);
}
EXPORT_SYMBOL_GPL(fi_enable);

/**
 * fi_cancel() - cancel an outstanding operation
 * @fid: the endpoint
 * @context: context of the operation
 *
 * A cancelled operation completes with an error entry (err ECANCELED).
 *
 * Context: any context; does not sleep.
 * Return: 0 if cancelled; -ENOENT if no such operation is outstanding;
 * -EINVAL if @fid is not an endpoint; -FI_ENOSYS.
 */
ssize_t fi_cancel(struct fid *fid, void *context)
{
	const struct fi_ops_ep *ops;

	if (!fid || fid->fclass != FI_CLASS_EP)
		return -EINVAL;
	ops = kofi_ep_ops(fid);
	if (!ops || !ops->cancel)
		return -FI_ENOSYS;
	return ops->cancel(fid, context);
}
EXPORT_SYMBOL_GPL(fi_cancel);

/**
 * fi_setopt() - set an endpoint option
 * @fid: active or passive endpoint
 * @level: FI_OPT_ENDPOINT
 * @optname: FI_OPT_* (see fi_endpoint.h)
 * @optval: the value (a size_t for every option defined so far)
 * @optlen: bytes at @optval
 *
 * FI_OPT_DATA_MAY_SLEEP, a kOFI extension every provider knows, is
 * answered here for a provider that does not use it: accepted (0) and
 * ignored.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a non-endpoint, NULL @optval or bad length;
 * -ENOPROTOOPT for an option the provider does not know; -FI_ENOSYS; the
 * provider's error.
 */
int fi_setopt(struct fid *fid, int level, int optname, const void *optval,
	      size_t optlen)
{
	const struct fi_ops_ep *ops;
	bool ext;
	int ret;

	if (!fid || (fid->fclass != FI_CLASS_EP &&
		     fid->fclass != FI_CLASS_PEP) || !optval)
		return -EINVAL;
	ext = level == FI_OPT_ENDPOINT && optname == FI_OPT_DATA_MAY_SLEEP;
	if (ext && optlen != sizeof(size_t))
		return -EINVAL;
	ops = kofi_ep_ops(fid);
	if (!ops || !ops->setopt)
		return ext ? 0 : -FI_ENOSYS;
	ret = ops->setopt(fid, level, optname, optval, optlen);
	if (ext && (ret == -ENOPROTOOPT || ret == -FI_ENOSYS))
		return 0;
	return ret;
}
EXPORT_SYMBOL_GPL(fi_setopt);

/**
 * fi_getopt() - read an endpoint option
 * @fid: active or passive endpoint
 * @level: FI_OPT_ENDPOINT
 * @optname: FI_OPT_*
 * @optval: buffer for the value
 * @optlen: in: bytes at @optval; out: bytes written
 *
 * Context: process context, may sleep.
 * Return: as for fi_setopt().
 */
int fi_getopt(struct fid *fid, int level, int optname, void *optval,
	      size_t *optlen)
{
	const struct fi_ops_ep *ops;

	if (!fid || (fid->fclass != FI_CLASS_EP &&
		     fid->fclass != FI_CLASS_PEP) || !optval || !optlen)
		return -EINVAL;
	ops = kofi_ep_ops(fid);
	if (!ops || !ops->getopt)
		return -FI_ENOSYS;
	return ops->getopt(fid, level, optname, optval, optlen);
}
EXPORT_SYMBOL_GPL(fi_getopt);
