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
	if (fid->fclass == FI_CLASS_EP || fid->fclass == FI_CLASS_SRX_CTX)
		return container_of(fid, struct fid_ep, fid)->ops;
	if (fid->fclass == FI_CLASS_PEP)
		return container_of(fid, struct fid_pep, fid)->ops;
	return NULL;
}

/*
 * The slots @bfid, bound with @flags, takes on an endpoint of domain
 * @domain; 0 if it cannot be bound there.
 */
static unsigned int kofi_ep_bind_slots(struct fid *domain, struct fid *bfid,
				       u64 flags)
{
	struct fid *fabric = domain ? kofi_fid_parent(domain) : NULL;

	switch (bfid->fclass) {
	case FI_CLASS_CQ:
		if (!(flags & (FI_TRANSMIT | FI_RECV)) ||
		    (flags & ~(FI_TRANSMIT | FI_RECV)) ||
		    kofi_fid_parent(bfid) != domain)
			return 0;
		return ((flags & FI_TRANSMIT) ? BIT(KOFI_SLOT_TX_CQ) : 0) |
		       ((flags & FI_RECV) ? BIT(KOFI_SLOT_RX_CQ) : 0);
	case FI_CLASS_EQ:
		if (flags || kofi_fid_parent(bfid) != fabric)
			return 0;
		return BIT(KOFI_SLOT_EQ);
	case FI_CLASS_AV:
		if (flags || kofi_fid_parent(bfid) != domain)
			return 0;
		return BIT(KOFI_SLOT_AV);
	case FI_CLASS_SRX_CTX:
		if (flags || kofi_fid_parent(bfid) != domain)
			return 0;
		return BIT(KOFI_SLOT_SRX);
	default:
		return 0;
	}
}

/**
 * fi_ep_bind() - bind a CQ, EQ, AV or shared receive context to an endpoint
 * @ep: the endpoint, not yet enabled
 * @bfid: the object: a CQ of the endpoint's domain for completions, an EQ
 *	of its fabric for connection events, an AV of its domain for an
 *	unconnected endpoint, a shared receive context of its domain
 *	(fi_srx_context()) whose receives take the endpoint's messages
 * @flags: for a CQ, FI_TRANSMIT (FI_SEND) and/or FI_RECV, the directions
 *	whose completions it receives; 0 for the others
 *
 * The core checks and records every binding; a provider refuses only what
 * it cannot do.  The rules, each with its answer:
 *
 * * @ep not an endpoint, @bfid NULL, not an object or @ep itself: -EINVAL.
 * * @bfid neither a CQ, an EQ, an AV nor a shared receive context
 *   (FI_CLASS_SRX_CTX): -EINVAL.
 * * A CQ with neither FI_TRANSMIT nor FI_RECV, or with any other flag
 *   (FI_SELECTIVE_COMPLETION is not supported): -EINVAL.
 * * An EQ, an AV or a shared receive context with flags: -EINVAL.
 * * A CQ, an AV or a shared receive context of another domain, an EQ of
 *   another fabric: -EINVAL.
 * * A second CQ for a direction, or a second EQ, AV or shared receive
 *   context of the endpoint: -EINVAL (the first binding stays).
 * * Any binding once fi_enable() succeeded: -EINVAL.
 * * @bfid or @ep closed: -EBADF.
 *
 * The endpoint holds @bfid until the endpoint is closed: closing @bfid
 * before returns -EBUSY.  Providers read the bindings with kofi_ep_cq(),
 * kofi_ep_eq(), kofi_ep_av() and kofi_ep_srx().
 *
 * Context: process context, may sleep.
 * Return: 0; the errno of the rule broken; -ENOMEM; the provider's error.
 */
int fi_ep_bind(struct fid_ep *ep, struct fid *bfid, u64 flags)
{
	unsigned int slots;

	if (!KOFI_IS(ep, FI_CLASS_EP) || !bfid || bfid == &ep->fid ||
	    bfid->fclass == FI_CLASS_UNSPEC || bfid->fclass >= FI_CLASS_MAX)
		return -EINVAL;
	if (kofi_fid_closed(bfid))
		return -EBADF;
	slots = kofi_ep_bind_slots(kofi_fid_parent(&ep->fid), bfid, flags);
	if (!slots)
		return -EINVAL;
	return kofi_fid_bind(&ep->fid, bfid, flags, slots);
}
EXPORT_SYMBOL_GPL(fi_ep_bind);

/**
 * fi_pep_bind() - bind an EQ to a passive endpoint
 * @pep: the passive endpoint
 * @bfid: the EQ, of the passive endpoint's fabric, that receives
 *	FI_CONNREQ events
 * @flags: 0
 *
 * A passive endpoint takes one EQ.  Anything else, flags, an EQ of
 * another fabric or a second EQ answer -EINVAL; a closed @bfid -EBADF.
 * Providers read the binding with kofi_pep_eq().
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL; -EBADF; -ENOMEM; the provider's error.
 */
int fi_pep_bind(struct fid_pep *pep, struct fid *bfid, u64 flags)
{
	if (!KOFI_IS(pep, FI_CLASS_PEP) || !kofi_fid_is(bfid, FI_CLASS_EQ) ||
	    flags)
		return -EINVAL;
	if (kofi_fid_closed(bfid))
		return -EBADF;
	if (kofi_fid_parent(bfid) != kofi_fid_parent(&pep->fid))
		return -EINVAL;
	return kofi_fid_bind(&pep->fid, bfid, flags, BIT(KOFI_SLOT_EQ));
}
EXPORT_SYMBOL_GPL(fi_pep_bind);

/**
 * kofi_ep_cq() - the CQ bound to an endpoint for a direction
 * @ep: the endpoint, open
 * @dir: FI_TRANSMIT (FI_SEND) or FI_RECV
 * @flags: if not NULL, set to the flags the CQ was bound with (0 if none)
 *
 * Lock-free and cheap, for data paths.
 *
 * Context: any context; does not sleep.
 * Return: the CQ, valid until @ep is closed; NULL if none is bound for
 * @dir or @dir is not one direction.
 */
struct fid_cq *kofi_ep_cq(struct fid_ep *ep, u64 dir, u64 *flags)
{
	enum kofi_bind_slot slot = dir == FI_RECV ? KOFI_SLOT_RX_CQ :
				   KOFI_SLOT_TX_CQ;
	struct fid *fid = NULL;

	if (ep && (dir == FI_RECV || dir == FI_TRANSMIT))
		fid = kofi_fid_slot(&ep->fid, slot, flags);
	else if (flags)
		*flags = 0;
	return fid ? container_of(fid, struct fid_cq, fid) : NULL;
}
EXPORT_SYMBOL_GPL(kofi_ep_cq);

/**
 * kofi_ep_eq() - the EQ bound to an endpoint
 * @ep: the endpoint, open
 *
 * Context: any context; does not sleep.
 * Return: the EQ, valid until @ep is closed; NULL if none is bound.
 */
struct fid_eq *kofi_ep_eq(struct fid_ep *ep)
{
	struct fid *fid = ep ? kofi_fid_slot(&ep->fid, KOFI_SLOT_EQ, NULL) :
			       NULL;

	return fid ? container_of(fid, struct fid_eq, fid) : NULL;
}
EXPORT_SYMBOL_GPL(kofi_ep_eq);

/**
 * kofi_ep_srx() - the shared receive context bound to an endpoint
 * @ep: the endpoint, open
 *
 * Context: any context; does not sleep.
 * Return: the context (class FI_CLASS_SRX_CTX), valid until @ep is
 * closed; NULL if none is bound.
 */
struct fid_ep *kofi_ep_srx(struct fid_ep *ep)
{
	struct fid *fid = ep ? kofi_fid_slot(&ep->fid, KOFI_SLOT_SRX, NULL) :
			       NULL;

	return fid ? container_of(fid, struct fid_ep, fid) : NULL;
}
EXPORT_SYMBOL_GPL(kofi_ep_srx);

/**
 * kofi_pep_eq() - the EQ bound to a passive endpoint
 * @pep: the passive endpoint, open
 *
 * Context: any context; does not sleep.
 * Return: the EQ, valid until @pep is closed; NULL if none is bound.
 */
struct fid_eq *kofi_pep_eq(struct fid_pep *pep)
{
	struct fid *fid = pep ? kofi_fid_slot(&pep->fid, KOFI_SLOT_EQ, NULL) :
				NULL;

	return fid ? container_of(fid, struct fid_eq, fid) : NULL;
}
EXPORT_SYMBOL_GPL(kofi_pep_eq);

/**
 * fi_enable() - enable an endpoint once its EQ and CQs are bound
 * @ep: the endpoint
 *
 * Equivalent to fi_control(&ep->fid, FI_ENABLE, NULL).
 *
 * The core runs the provider's enable operation (struct fi_ops_ep); an
 * endpoint whose provider has none needs no setup, and enabling it
 * succeeds.  Once enabled, the endpoint takes no binding.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if @ep is not an endpoint; -EBUSY while an
 * fi_ep_bind() of @ep or another fi_enable() of it is in progress (no
 * binding is admitted while the provider enables @ep); the provider's
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
 * @fid: the endpoint, or a shared receive context (a receive posted to it)
 * @context: context of the operation
 *
 * A cancelled operation completes with an error entry (err ECANCELED).
 *
 * Context: any context; does not sleep.
 * Return: 0 if cancelled; -ENOENT if no such operation is outstanding;
 * -EINVAL if @fid is neither; -FI_ENOSYS.
 */
ssize_t fi_cancel(struct fid *fid, void *context)
{
	const struct fi_ops_ep *ops;

	if (!fid || (fid->fclass != FI_CLASS_EP &&
		     fid->fclass != FI_CLASS_SRX_CTX))
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
