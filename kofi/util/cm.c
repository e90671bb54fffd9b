// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI utility providers: passive endpoints and connection requests.
 *
 * A utility passive endpoint owns a core passive endpoint with a private
 * core EQ.  Its work reads that EQ: each core connection request the
 * utility accepts (kofi_util_prov.connreq) becomes an FI_CONNREQ on the
 * user's EQ, with a utility info whose handle is a struct
 * kofi_util_connreq holding the core's request; other requests are
 * rejected, and the core's errors are passed on.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <kofi/util.h>

struct kofi_util_cm_ent {
	struct fi_eq_cm_entry e;
	u8 data[FI_CM_DATA_MAX];
};

static int kofi_util_connreq_close(struct fid *fid)
{
	kofi_util_connreq_free(container_of(fid, struct kofi_util_connreq,
					    fid));
	return 0;
}

static const struct fi_ops kofi_util_connreq_fi_ops = {
	.close = kofi_util_connreq_close,
};

/**
 * kofi_util_connreq() - the utility connection request behind a handle
 * @util: the utility provider
 * @handle: fi_info.handle of an FI_CONNREQ, or anything else
 *
 * Context: any context.
 * Return: the request if @handle is one of @util's, else NULL.
 */
struct kofi_util_connreq *kofi_util_connreq(const struct kofi_util_prov *util,
					    struct fid *handle)
{
	struct kofi_util_connreq *creq;

	if (!handle || handle->fclass != FI_CLASS_CONNREQ ||
	    handle->ops != &kofi_util_connreq_fi_ops)
		return NULL;
	creq = container_of(handle, struct kofi_util_connreq, fid);
	return creq->util == util ? creq : NULL;
}
EXPORT_SYMBOL_GPL(kofi_util_connreq);

/**
 * kofi_util_connreq_free() - release a connection request
 * @creq: the request; the core's request it still holds is closed
 *
 * Context: process context, may sleep.
 */
void kofi_util_connreq_free(struct kofi_util_connreq *creq)
{
	if (creq->core_info) {
		if (creq->core_info->handle)
			fi_close(creq->core_info->handle);
		creq->core_info->handle = NULL;
		fi_freeinfo(creq->core_info);
	}
	kfree(creq);
}
EXPORT_SYMBOL_GPL(kofi_util_connreq_free);

static void kofi_util_reject_core(struct kofi_util_pep *up,
				  struct fi_info *core_info)
{
	if (core_info->handle)
		fi_reject(up->core, core_info->handle, NULL, 0);
	core_info->handle = NULL;
	fi_freeinfo(core_info);
}

static void kofi_util_pep_connreq(struct kofi_util_pep *up,
				  struct fi_info *core_info, const void *data,
				  ssize_t len)
{
	const struct kofi_util_prov *util = up->fab->util;
	struct kofi_util_connreq *creq;
	struct fi_info *info;

	if (!kofi_pep_eq(&up->pep) || len < 0 ||
	    (util->connreq && util->connreq(core_info, data, len))) {
		kofi_util_reject_core(up, core_info);
		return;
	}
	creq = kzalloc(struct_size(creq, data, len), GFP_KERNEL);
	info = kofi_util_info(util, core_info);
	if (!creq || !info) {
		kfree(creq);
		fi_freeinfo(info);
		kofi_util_reject_core(up, core_info);
		return;
	}
	kofi_fid_init(&creq->fid, FI_CLASS_CONNREQ, &kofi_util_connreq_fi_ops,
		      NULL);
	creq->util = util;
	creq->core_info = core_info;
	creq->datalen = len;
	memcpy(creq->data, data, len);
	info->handle = &creq->fid;
	if (kofi_eq_write_cm(kofi_pep_eq(&up->pep), FI_CONNREQ, &up->pep.fid,
			     info, NULL, 0)) {
		info->handle = NULL;
		fi_freeinfo(info);
		creq->core_info = NULL;
		kfree(creq);
		kofi_util_reject_core(up, core_info);
	}
}

static void kofi_util_pep_work(struct work_struct *work)
{
	struct kofi_util_pep *up = container_of(work, struct kofi_util_pep,
						work);
	struct fi_eq_err_entry err;
	struct kofi_util_cm_ent *ent;
	u32 event;
	ssize_t n;

	ent = kmalloc(sizeof(*ent), GFP_KERNEL);
	if (!ent) {
		kofi_util_kick(&up->progress);
		return;
	}
	while (!READ_ONCE(up->closing)) {
		n = fi_eq_read(up->core_eq, &event, ent, sizeof(*ent), 0);
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (fi_eq_readerr(up->core_eq, &err, 0) < 0)
				break;
			if (kofi_pep_eq(&up->pep))
				kofi_eq_write_err(kofi_pep_eq(&up->pep), &up->pep.fid,
						  up->pep.fid.context,
						  err.err ? err.err : EIO,
						  err.prov_errno, NULL, 0);
			continue;
		}
		if (n < 0)
			break;
		if (event == FI_CONNREQ && ent->e.info)
			kofi_util_pep_connreq(up, ent->e.info, ent->data,
					      n - (ssize_t)sizeof(ent->e));
		else if (ent->e.info)
			fi_freeinfo(ent->e.info);
	}
	kfree(ent);
}

static int kofi_util_pep_close(struct fid *fid)
{
	struct kofi_util_pep *up = container_of(fid, struct kofi_util_pep,
						pep.fid);
	int ret;

	WRITE_ONCE(up->closing, true);
	cancel_work_sync(&up->work);
	ret = fi_close(&up->core->fid);
	if (ret) {
		WRITE_ONCE(up->closing, false);
		return ret;
	}
	cancel_work_sync(&up->work);
	/* Unread requests are rejected by the EQ's close. */
	kofi_util_close_core(&up->core_eq->fid);
	kfree(up);
	return 0;
}

static int kofi_util_pep_control(struct fid *fid, int command, void *arg)
{
	struct kofi_util_pep *up = container_of(fid, struct kofi_util_pep,
						pep.fid);

	return fi_control(&up->core->fid, command, arg);
}

static int kofi_util_pep_listen(struct fid_pep *pep)
{
	struct kofi_util_pep *up = container_of(pep, struct kofi_util_pep, pep);

	if (!kofi_pep_eq(&up->pep))
		return -EINVAL;
	return fi_listen(up->core);
}

static int kofi_util_pep_getname(struct fid *fid, void *addr,
				 size_t *addrlen)
{
	struct kofi_util_pep *up = container_of(fid, struct kofi_util_pep,
						pep.fid);

	return fi_getname(&up->core->fid, addr, addrlen);
}

static int kofi_util_pep_reject(struct fid_pep *pep, struct fid *handle,
				const void *param, size_t paramlen)
{
	struct kofi_util_pep *up = container_of(pep, struct kofi_util_pep, pep);
	struct kofi_util_connreq *creq = kofi_util_connreq(up->fab->util,
							   handle);
	int ret = -EINVAL;

	if (!creq)
		return -EINVAL;
	if (creq->core_info && creq->core_info->handle) {
		ret = fi_reject(up->core, creq->core_info->handle, param,
				paramlen);
		creq->core_info->handle = NULL;
	}
	kofi_util_connreq_free(creq);
	return ret;
}

static const struct fi_ops kofi_util_pep_fi_ops = {
	.close = kofi_util_pep_close,
	.control = kofi_util_pep_control,
};

static const struct fi_ops_ep kofi_util_pep_ops = {
};

static const struct fi_ops_cm kofi_util_pep_cm_ops = {
	.getname = kofi_util_pep_getname,
	.listen = kofi_util_pep_listen,
	.reject = kofi_util_pep_reject,
};

/**
 * kofi_util_pep_open() - the passive_ep operation of a utility fabric
 * @fabric: the utility fabric, a struct kofi_util_fabric
 * @info: a utility info (src_addr: where to listen)
 * @pep: the new passive endpoint, a struct kofi_util_pep
 * @context: user context
 *
 * Opens the core passive endpoint from the core info of @info
 * (kofi_util_core_info()) with a private core EQ, bound.  The utility
 * may set options of the core passive endpoint (@pep's core) before it
 * listens.  Connection
 * requests reach the EQ the user binds as described at the top of this
 * file; fi_reject() takes a utility request; fi_control() goes to the
 * core passive endpoint.
 *
 * Context: process context, may sleep.
 * Return: 0; the error of kofi_util_core_info(); -ENOMEM; the core's
 * error.
 */
int kofi_util_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		       struct fid_pep **pep, void *context)
{
	struct kofi_util_fabric *fab = container_of(fabric,
						    struct kofi_util_fabric,
						    fabric);
	struct kofi_util_pep *up;
	struct fi_info *core;
	int ret;

	ret = kofi_util_core_info(fab->util, info, &core);
	if (ret)
		return ret;
	up = kzalloc(sizeof(*up), GFP_KERNEL);
	ret = -ENOMEM;
	if (!up)
		goto out;
	up->fab = fab;
	INIT_WORK(&up->work, kofi_util_pep_work);
	kofi_util_progress_init(&up->progress, fab->util->wq, &up->work);
	ret = kofi_util_core_eq_open(fab->core, 0, &up->progress,
				     &up->core_eq);
	if (ret)
		goto err_free;
	ret = fi_passive_ep(fab->core, core, &up->core, up);
	if (ret)
		goto err_eq;
	ret = fi_pep_bind(up->core, &up->core_eq->fid, 0);
	if (ret)
		goto err_pep;
	kofi_fid_init(&up->pep.fid, FI_CLASS_PEP, &kofi_util_pep_fi_ops,
		      context);
	up->pep.ops = &kofi_util_pep_ops;
	up->pep.cm = &kofi_util_pep_cm_ops;
	*pep = &up->pep;
	fi_freeinfo(core);
	return 0;
err_pep:
	kofi_util_close_core(&up->core->fid);
err_eq:
	kofi_util_close_core(&up->core_eq->fid);
err_free:
	kfree(up);
out:
	fi_freeinfo(core);
	return ret;
}
EXPORT_SYMBOL_GPL(kofi_util_pep_open);
