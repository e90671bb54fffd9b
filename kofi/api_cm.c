// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: dispatch of the connection management calls.
 */
#include <linux/module.h>
#include "kofi_core.h"

static const struct fi_ops_cm *kofi_ep_cm(struct fid_ep *ep)
{
	return KOFI_IS(ep, FI_CLASS_EP) ? ep->cm : NULL;
}

/**
 * fi_getname() - local address of an endpoint
 * @fid: active or passive endpoint
 * @addr: buffer for the address (struct sockaddr_in / sockaddr_in6 ...)
 * @addrlen: in: bytes at @addr; out: the address length
 *
 * Context: process context, may sleep.
 * Return: 0; -EMSGSIZE if @addr is too small (*@addrlen then holds the
 * size needed); -EINVAL; -FI_ENOSYS; the provider's error.
 */
int fi_getname(struct fid *fid, void *addr, size_t *addrlen)
{
	const struct fi_ops_cm *cm = NULL;

	if (!fid || !addrlen || (!addr && *addrlen))
		return -EINVAL;
	if (fid->fclass == FI_CLASS_EP)
		cm = container_of(fid, struct fid_ep, fid)->cm;
	else if (fid->fclass == FI_CLASS_PEP)
		cm = container_of(fid, struct fid_pep, fid)->cm;
	else
		return -EINVAL;
	if (!cm || !cm->getname)
		return -FI_ENOSYS;
	return cm->getname(fid, addr, addrlen);
}
EXPORT_SYMBOL_GPL(fi_getname);

/**
 * fi_getpeer() - peer address of a connected endpoint
 * @ep: the endpoint
 * @addr: buffer for the address
 * @addrlen: in: bytes at @addr; out: the address length
 *
 * Context: process context, may sleep.
 * Return: as for fi_getname(); -ENOTCONN if not connected.
 */
int fi_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	const struct fi_ops_cm *cm = kofi_ep_cm(ep);

	if (!KOFI_IS(ep, FI_CLASS_EP) || !addrlen || (!addr && *addrlen))
		return -EINVAL;
	if (!cm || !cm->getpeer)
		return -FI_ENOSYS;
	return cm->getpeer(ep, addr, addrlen);
}
EXPORT_SYMBOL_GPL(fi_getpeer);

/**
 * fi_connect() - start connecting an endpoint
 * @ep: an enabled FI_EP_MSG endpoint with an EQ bound
 * @addr: the peer address, or NULL to use the info's dest_addr
 * @param: connection data for the peer (its FI_CONNREQ entry), or NULL
 * @paramlen: bytes at @param, at most the FI_OPT_CM_DATA_SIZE option
 *
 * The result arrives on the EQ: FI_CONNECTED, or an error entry
 * (ECONNREFUSED with the peer's reject data, ETIMEDOUT, ENETUNREACH ...).
 *
 * Context: process context, may sleep.
 * Return: 0 if started; -EINVAL (not an endpoint, @param NULL with
 * @paramlen > 0); -EISCONN; -FI_ENOSYS; the provider's error.
 */
int fi_connect(struct fid_ep *ep, const void *addr, const void *param,
	       size_t paramlen)
{
	const struct fi_ops_cm *cm = kofi_ep_cm(ep);

	if (!KOFI_IS(ep, FI_CLASS_EP) || (!param && paramlen))
		return -EINVAL;
	if (!cm || !cm->connect)
		return -FI_ENOSYS;
	return cm->connect(ep, addr, param, paramlen);
}
EXPORT_SYMBOL_GPL(fi_connect);

/**
 * fi_listen() - start listening for connection requests
 * @pep: a passive endpoint with an EQ bound
 *
 * Requests arrive as FI_CONNREQ events on the EQ.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL; -EADDRINUSE; -FI_ENOSYS; the provider's error.
 */
int fi_listen(struct fid_pep *pep)
{
	if (!KOFI_IS(pep, FI_CLASS_PEP))
		return -EINVAL;
	if (!pep->cm || !pep->cm->listen)
		return -FI_ENOSYS;
	return pep->cm->listen(pep);
}
EXPORT_SYMBOL_GPL(fi_listen);

/**
 * fi_accept() - accept a connection request
 * @ep: an endpoint opened with the FI_CONNREQ event's info, EQ bound,
 *	enabled
 * @param: connection data for the peer, or NULL
 * @paramlen: bytes at @param
 *
 * FI_CONNECTED follows on the EQ once the connection is established.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL; -FI_ENOSYS; the provider's error.
 */
int fi_accept(struct fid_ep *ep, const void *param, size_t paramlen)
{
	const struct fi_ops_cm *cm = kofi_ep_cm(ep);

	if (!KOFI_IS(ep, FI_CLASS_EP) || (!param && paramlen))
		return -EINVAL;
	if (!cm || !cm->accept)
		return -FI_ENOSYS;
	return cm->accept(ep, param, paramlen);
}
EXPORT_SYMBOL_GPL(fi_accept);

/**
 * fi_reject() - reject a connection request
 * @pep: the passive endpoint that reported the request
 * @handle: info->handle of the FI_CONNREQ event (class FI_CLASS_CONNREQ)
 * @param: data for the peer (it sees it in its error entry), or NULL
 * @paramlen: bytes at @param
 *
 * The request handle is consumed, whatever the result.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL (not a passive endpoint, @handle not a connection
 * request); -FI_ENOSYS; the provider's error.
 */
int fi_reject(struct fid_pep *pep, struct fid *handle, const void *param,
	      size_t paramlen)
{
	if (!KOFI_IS(pep, FI_CLASS_PEP) || !handle ||
	    handle->fclass != FI_CLASS_CONNREQ || (!param && paramlen))
		return -EINVAL;
	if (!pep->cm || !pep->cm->reject)
		return -FI_ENOSYS;
	return pep->cm->reject(pep, handle, param, paramlen);
}
EXPORT_SYMBOL_GPL(fi_reject);

/**
 * fi_shutdown() - disconnect an endpoint
 * @ep: the endpoint
 * @flags: reserved, 0
 *
 * Both sides see FI_SHUTDOWN on their EQ; outstanding operations complete
 * in error.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL; -ENOTCONN; -FI_ENOSYS; the provider's error.
 */
int fi_shutdown(struct fid_ep *ep, u64 flags)
{
	const struct fi_ops_cm *cm = kofi_ep_cm(ep);

	if (!KOFI_IS(ep, FI_CLASS_EP) || flags)
		return -EINVAL;
	if (!cm || !cm->shutdown)
		return -FI_ENOSYS;
	return cm->shutdown(ep, flags);
}
EXPORT_SYMBOL_GPL(fi_shutdown);
