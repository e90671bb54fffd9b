/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kernel OpenFabrics Interface - connection management.
 *
 * Connection management of FI_EP_MSG (and FI_EP_SOCK_STREAM) endpoints.
 * The calls start an operation; its outcome arrives on the EQ bound to the
 * endpoint: FI_CONNREQ on the listener, FI_CONNECTED on both sides,
 * FI_SHUTDOWN when the peer disconnects, an error entry (ECONNREFUSED,
 * ETIMEDOUT, ENETUNREACH ...) when a connection fails.
 */
#ifndef _KOFI_FI_CM_H
#define _KOFI_FI_CM_H

#include <kofi/fabric.h>
#include <kofi/fi_endpoint.h>

/**
 * struct fi_ops_cm - connection management operations
 * @getname: see fi_getname()
 * @getpeer: see fi_getpeer()
 * @connect: see fi_connect()
 * @listen: see fi_listen()
 * @accept: see fi_accept()
 * @reject: see fi_reject()
 * @shutdown: see fi_shutdown()
 */
struct fi_ops_cm {
	int (*getname)(struct fid *fid, void *addr, size_t *addrlen);
	int (*getpeer)(struct fid_ep *ep, void *addr, size_t *addrlen);
	int (*connect)(struct fid_ep *ep, const void *addr, const void *param,
		       size_t paramlen);
	int (*listen)(struct fid_pep *pep);
	int (*accept)(struct fid_ep *ep, const void *param, size_t paramlen);
	int (*reject)(struct fid_pep *pep, struct fid *handle,
		      const void *param, size_t paramlen);
	int (*shutdown)(struct fid_ep *ep, u64 flags);
};

int fi_getname(struct fid *fid, void *addr, size_t *addrlen);
int fi_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen);
int fi_connect(struct fid_ep *ep, const void *addr, const void *param,
	       size_t paramlen);
int fi_listen(struct fid_pep *pep);
int fi_accept(struct fid_ep *ep, const void *param, size_t paramlen);
int fi_reject(struct fid_pep *pep, struct fid *handle, const void *param,
	      size_t paramlen);
int fi_shutdown(struct fid_ep *ep, u64 flags);

#endif /* _KOFI_FI_CM_H */
