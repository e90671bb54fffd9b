// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: test-only providers.
 *
 * "kt_hw" and "kt_sw" are core providers with fixed infos (see the spec
 * tables), "kt_util" a utility provider offering FI_EP_SOCK_STREAM over
 * whatever core providers kofi_getinfo_core() finds.  Their objects do not
 * free their memory on close (ktp_free_objects() does, after the test), so
 * tests can look at a closed object - e.g. close it twice - without
 * use-after-free.  Endpoints record what their data operations were given
 * (struct ktp_call).  Receives stay outstanding until the endpoint is
 * closed (then they are flushed with ECANCELED); sends, reads and writes
 * complete at once (without a completion if injected).
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>
#include "kofi_test.h"
#include "../kofi/kofi_core.h"

#define KTP_ALL_CAPS	(FI_MSG | FI_RMA | FI_READ | FI_WRITE | FI_SEND | \
			 FI_RECV | FI_REMOTE_READ | FI_REMOTE_WRITE)
#define KTP_HW_MR	(FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | \
			 FI_MR_ALLOCATED)

static const struct ktp_spec ktp_hw_specs[] = {
	{ KTP_ALL_CAPS, 0, FI_EP_MSG, KTP_HW_MR, FI_SOCKADDR_IN, "kt_hw0",
	  256, 2 },
	{ KTP_ALL_CAPS, 0, FI_EP_MSG, KTP_HW_MR, FI_SOCKADDR_IN6, "kt_hw0",
	  256, 2 },
};

static const struct ktp_spec ktp_sw_specs[] = {
	{ KTP_ALL_CAPS, FI_CONTEXT, FI_EP_MSG, FI_MR_PROV_KEY,
	  FI_SOCKADDR_IN, "kt_sw0", 128 },
};

static LIST_HEAD(ktp_objs);
static DEFINE_MUTEX(ktp_objs_lock);
static atomic_t ktp_open_fabrics = ATOMIC_INIT(0);
atomic_t ktp_cleanups[KTP_NPROV];

static void ktp_track(struct ktp_obj *o, void *base)
{
	o->base = base;
	mutex_lock(&ktp_objs_lock);
	list_add_tail(&o->node, &ktp_objs);
	mutex_unlock(&ktp_objs_lock);
}

/* Free every test provider object (after the test closed them). */
void ktp_free_objects(void)
{
	struct ktp_obj *o, *tmp;

	mutex_lock(&ktp_objs_lock);
	list_for_each_entry_safe(o, tmp, &ktp_objs, node) {
		list_del(&o->node);
		kfree(o->base);
	}
	mutex_unlock(&ktp_objs_lock);
}

/* Number of infos in the list from provider @prov_name (exact name). */
unsigned int ktp_count(const struct fi_info *info, const char *prov_name)
{
	unsigned int n = 0;

	for (; info; info = info->next)
		if (info->fabric_attr && info->fabric_attr->prov_name &&
		    !strcmp(info->fabric_attr->prov_name, prov_name))
			n++;
	return n;
}

unsigned int ktp_len(const struct fi_info *info)
{
	unsigned int n = 0;

	for (; info; info = info->next)
		n++;
	return n;
}

/* ---- endpoints ---- */

static void ktp_req_release(struct kofi_op *op, void *arg)
{
	kfree(container_of(op, struct ktp_req, op));
}

static int ktp_ep_close(struct fid *fid)
{
	struct ktp_ep *ep = container_of(fid, struct ktp_ep, ep.fid);
	int ret = ep->o.close_err;

	ep->o.close_calls++;
	/* what the core lets others see of an object being closed */
	ep->o.close_refs = kofi_fid_test_refs(fid);
	ep->o.close_held = kofi_fid_get(fid);
	if (ep->o.close_held)
		kofi_fid_put(fid);
	if (ret) {
		ep->o.close_err = 0;
		return ret;
	}
	kofi_oplist_flush(&ep->ops, ECANCELED, ktp_req_release, NULL);
	return 0;
}

static int ktp_ep_enable(struct fid_ep *fep)
{
	struct ktp_ep *ep = container_of(fep, struct ktp_ep, ep);

	if (ep->enable_binds)
		ep->enable_bind_ret = fi_ep_bind(&ep->ep, ep->enable_binds, 0);
	if (!kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL) ||
	    !kofi_ep_cq(&ep->ep, FI_RECV, NULL))
		return -EINVAL;
	ep->enabled = true;
	return 0;
}

static int ktp_ep_bind(struct fid *fid, struct fid *bfid, u64 flags)
{
	struct ktp_ep *ep = container_of(fid, struct ktp_ep, ep.fid);

	if (ep->bind_enables)
		ep->bind_enable_ret = fi_enable(&ep->ep);
	return 0;
}

static int ktp_ep_getopt(struct fid *fid, int level, int optname,
			 void *optval, size_t *optlen)
{
	if (level != FI_OPT_ENDPOINT || optname != FI_OPT_CM_DATA_SIZE)
		return -ENOPROTOOPT;
	if (*optlen < sizeof(size_t))
		return -EINVAL;
	*(size_t *)optval = 64;
	*optlen = sizeof(size_t);
	return 0;
}

/* Record what a data operation was given (see struct ktp_call). */
static void ktp_record(struct ktp_ep *ep, enum ktp_op op,
		       enum fi_iov_type type, const void *vec, size_t count,
		       void **desc, fi_addr_t addr, void *context, u64 data,
		       u64 flags)
{
	struct ktp_call *c = &ep->last;

	c->calls++;
	c->op = op;
	c->flags = flags;
	c->iov_type = type;
	c->vec = vec;
	c->iov_count = count;
	c->iov0 = type == FI_IOV_KVEC && count ?
		  *(const struct kvec *)vec : (struct kvec){};
	c->has_desc = desc;
	c->desc0 = desc && count ? desc[0] : NULL;
	c->addr = addr;
	c->context = context;
	c->data = data;
	c->rma_iov_count = 0;
	c->rma0 = (struct fi_rma_iov){};
	c->tag = 0;
	c->ignore = 0;
}

/* Bytes in a kvec vector, 0 for the other types. */
static size_t ktp_vec_len(enum fi_iov_type type, const void *vec,
			  size_t count)
{
	const struct kvec *kv = vec;
	size_t i, len = 0;

	for (i = 0; type == FI_IOV_KVEC && i < count; i++)
		len += kv[i].iov_len;
	return len;
}

/* A transmit completes at once, without a completion if injected. */
static ssize_t ktp_tx_done(struct ktp_ep *ep, void *context, u64 cflags,
			   size_t len, u64 flags)
{
	int ret;

	if (flags & FI_INJECT)
		return 0;
	ret = kofi_cq_write(kofi_ep_cq(&ep->ep, FI_TRANSMIT, NULL), context,
			    cflags, len, NULL, 0);
	return ret == -EOVERFLOW ? -EAGAIN : ret;
}

static ssize_t ktp_recvmsg(struct fid_ep *fep, const struct fi_msg *msg,
			   u64 flags)
{
	struct ktp_ep *ep = container_of(fep, struct ktp_ep, ep);
	struct ktp_req *req;

	if (!ep->enabled)
		return -EINVAL;
	req = kzalloc(sizeof(*req), GFP_ATOMIC);
	if (!req)
		return -EAGAIN;
	ktp_record(ep, KTP_OP_RECVMSG, msg->iov_type, msg->msg_iov,
		   msg->iov_count, msg->desc, msg->addr, msg->context,
		   msg->data, flags);
	req->op.cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);
	req->op.context = msg->context;
	req->op.flags = FI_RECV | FI_MSG;
	req->len = ktp_vec_len(msg->iov_type, msg->msg_iov, msg->iov_count);
	kofi_oplist_add(&ep->ops, &req->op);
	return 0;
}

static ssize_t ktp_sendmsg(struct fid_ep *fep, const struct fi_msg *msg,
			   u64 flags)
{
	struct ktp_ep *ep = container_of(fep, struct ktp_ep, ep);

	if (!ep->enabled)
		return -EINVAL;
	ktp_record(ep, KTP_OP_SENDMSG, msg->iov_type, msg->msg_iov,
		   msg->iov_count, msg->desc, msg->addr, msg->context,
		   msg->data, flags);
	return ktp_tx_done(ep, msg->context, FI_SEND | FI_MSG,
			   ktp_vec_len(msg->iov_type, msg->msg_iov,
				       msg->iov_count), flags);
}

static ssize_t ktp_rmamsg(struct fid_ep *fep, const struct fi_msg_rma *msg,
			  u64 flags, bool write)
{
	struct ktp_ep *ep = container_of(fep, struct ktp_ep, ep);

	if (!ep->enabled)
		return -EINVAL;
	ktp_record(ep, write ? KTP_OP_WRITEMSG : KTP_OP_READMSG,
		   msg->iov_type, msg->msg_iov, msg->iov_count, msg->desc,
		   msg->addr, msg->context, msg->data, flags);
	ep->last.rma_iov_count = msg->rma_iov_count;
	if (msg->rma_iov_count)
		ep->last.rma0 = msg->rma_iov[0];
	return ktp_tx_done(ep, msg->context,
			   FI_RMA | (write ? FI_WRITE : FI_READ),
			   ktp_vec_len(msg->iov_type, msg->msg_iov,
				       msg->iov_count), flags);
}

/* A tagged receive is queued as a receive is; a tagged send completes. */
static ssize_t ktp_trecvmsg(struct fid_ep *fep,
			    const struct fi_msg_tagged *msg, u64 flags)
{
	struct ktp_ep *ep = container_of(fep, struct ktp_ep, ep);
	struct ktp_req *req;

	if (!ep->enabled)
		return -EINVAL;
	req = kzalloc(sizeof(*req), GFP_ATOMIC);
	if (!req)
		return -EAGAIN;
	ktp_record(ep, KTP_OP_TRECVMSG, msg->iov_type, msg->msg_iov,
		   msg->iov_count, msg->desc, msg->addr, msg->context,
		   msg->data, flags);
	ep->last.tag = msg->tag;
	ep->last.ignore = msg->ignore;
	req->op.cq = kofi_ep_cq(&ep->ep, FI_RECV, NULL);
	req->op.context = msg->context;
	req->op.flags = FI_RECV | FI_TAGGED;
	req->len = ktp_vec_len(msg->iov_type, msg->msg_iov, msg->iov_count);
	kofi_oplist_add(&ep->ops, &req->op);
	return 0;
}

static ssize_t ktp_tsendmsg(struct fid_ep *fep,
			    const struct fi_msg_tagged *msg, u64 flags)
{
	struct ktp_ep *ep = container_of(fep, struct ktp_ep, ep);

	if (!ep->enabled)
		return -EINVAL;
	ktp_record(ep, KTP_OP_TSENDMSG, msg->iov_type, msg->msg_iov,
		   msg->iov_count, msg->desc, msg->addr, msg->context,
		   msg->data, flags);
	ep->last.tag = msg->tag;
	ep->last.ignore = msg->ignore;
	return ktp_tx_done(ep, msg->context, FI_SEND | FI_TAGGED,
			   ktp_vec_len(msg->iov_type, msg->msg_iov,
				       msg->iov_count), flags);
}

static ssize_t ktp_readmsg(struct fid_ep *fep, const struct fi_msg_rma *msg,
			   u64 flags)
{
	return ktp_rmamsg(fep, msg, flags, false);
}

static ssize_t ktp_writemsg(struct fid_ep *fep, const struct fi_msg_rma *msg,
			    u64 flags)
{
	return ktp_rmamsg(fep, msg, flags, true);
}

static const struct fi_ops ktp_ep_fi_ops = {
	.close = ktp_ep_close,
	.bind = ktp_ep_bind,
};

static const struct fi_ops_ep ktp_ep_ops = {
	.getopt = ktp_ep_getopt,
	.enable = ktp_ep_enable,
};

static const struct fi_ops_msg ktp_msg_ops = {
	.recvmsg = ktp_recvmsg,
	.sendmsg = ktp_sendmsg,
};

static const struct fi_ops_rma ktp_rma_ops = {
	.readmsg = ktp_readmsg,
	.writemsg = ktp_writemsg,
};

static const struct fi_ops_tagged ktp_tagged_ops = {
	.trecvmsg = ktp_trecvmsg,
	.tsendmsg = ktp_tsendmsg,
};

/* Tables a buggy provider could hand out: only some operations set. */
static const struct fi_ops_msg ktp_msg_send_only_ops = {
	.sendmsg = ktp_sendmsg,
};

static const struct fi_ops_rma ktp_rma_read_only_ops = {
	.readmsg = ktp_readmsg,
};

static const struct fi_ops_msg ktp_msg_recv_only_ops = {
	.recvmsg = ktp_recvmsg,
};

static const struct fi_ops_tagged ktp_tagged_recv_only_ops = {
	.trecvmsg = ktp_trecvmsg,
};

static int ktp_ep_open(struct fid_domain *domain, struct fi_info *info,
		       struct fid_ep **fep, void *context)
{
	struct ktp_ep *ep = kzalloc(sizeof(*ep), GFP_KERNEL);

	if (!ep)
		return -ENOMEM;
	kofi_fid_init(&ep->ep.fid, FI_CLASS_EP, &ktp_ep_fi_ops, context);
	ep->ep.ops = &ktp_ep_ops;
	ep->ep.tagged = &ktp_tagged_ops;
	switch (container_of(domain, struct ktp_domain, domain)->ep_tables) {
	case KTP_TABLES_ALL:
		ep->ep.msg = &ktp_msg_ops;
		ep->ep.rma = &ktp_rma_ops;
		break;
	case KTP_TABLES_NONE:
		ep->ep.ops = NULL;
		ep->ep.tagged = NULL;
		break;
	case KTP_TABLES_MSG_SEND:
		ep->ep.msg = &ktp_msg_send_only_ops;
		ep->ep.rma = &ktp_rma_ops;
		break;
	case KTP_TABLES_RMA_READ:
		ep->ep.msg = &ktp_msg_ops;
		ep->ep.rma = &ktp_rma_read_only_ops;
		break;
	case KTP_TABLES_TAGGED_RECV:
		ep->ep.msg = &ktp_msg_ops;
		ep->ep.rma = &ktp_rma_ops;
		ep->ep.tagged = &ktp_tagged_recv_only_ops;
		break;
	}
	kofi_oplist_init(&ep->ops);
	ktp_track(&ep->o, ep);
	container_of(domain, struct ktp_domain, domain)->last_ep = ep;
	*fep = &ep->ep;
	return 0;
}

/* ---- memory regions ---- */

static int ktp_mr_close(struct fid *fid)
{
	struct ktp_mr *mr = container_of(fid, struct ktp_mr, mr.fid);

	kofi_keytable_remove(&mr->dom->kt, &mr->ke);
	mr->o.close_calls++;
	return 0;
}

static const struct fi_ops ktp_mr_fi_ops = {
	.close = ktp_mr_close,
};

/* Only regattr: fi_mr_reg() and fi_mr_regv() reach it through the core. */
static int ktp_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			  u64 flags, struct fid_mr **fmr)
{
	struct ktp_domain *dom = container_of(fid, struct ktp_domain,
					      domain.fid);
	struct ktp_mr *mr;
	size_t i, len = 0;
	int ret;

	if (attr->iov_type != FI_IOV_KVEC)
		return -EOPNOTSUPP;
	for (i = 0; i < attr->iov_count; i++)
		len += attr->mr_iov[i].iov_len;
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return -ENOMEM;
	mr->dom = dom;
	mr->ke.base = attr->offset;
	mr->ke.len = len;
	mr->ke.access = attr->access & (FI_REMOTE_READ | FI_REMOTE_WRITE);
	mr->ke.priv = attr->mr_iov[0].iov_base;
	ret = kofi_keytable_insert(&dom->kt, &mr->ke, attr->requested_key,
				   true);
	if (ret) {
		kfree(mr);
		return ret;
	}
	kofi_fid_init(&mr->mr.fid, FI_CLASS_MR, &ktp_mr_fi_ops,
		      attr->context);
	mr->mr.key = mr->ke.key;
	mr->mr.mem_desc = mr;
	ktp_track(&mr->o, mr);
	*fmr = &mr->mr;
	return 0;
}

static const struct fi_ops_mr ktp_mr_ops = {
	.regattr = ktp_mr_regattr,
};

/* ---- domains and fabrics ---- */

static int ktp_domain_close(struct fid *fid)
{
	struct ktp_domain *dom = container_of(fid, struct ktp_domain,
					      domain.fid);

	kofi_keytable_destroy(&dom->kt);
	dom->o.close_calls++;
	return 0;
}

static const struct fi_ops ktp_domain_fi_ops = {
	.close = ktp_domain_close,
};

static int ktp_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		       struct fid_av **av, void *context)
{
	struct ktp_domain *dom = container_of(domain, struct ktp_domain,
					      domain);

	return kofi_av_open_generic(domain, attr, dom->addr_format, av,
				    context);
}

/* A shared receive context: an endpoint that only receives. */
static int ktp_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
			struct fid_ep **fep, void *context)
{
	struct ktp_ep *ep = kzalloc(sizeof(*ep), GFP_KERNEL);

	if (!ep)
		return -ENOMEM;
	kofi_fid_init(&ep->ep.fid, FI_CLASS_SRX_CTX, &ktp_ep_fi_ops, context);
	ep->ep.msg = &ktp_msg_recv_only_ops;
	ep->ep.tagged = &ktp_tagged_recv_only_ops;
	ep->enabled = true;
	kofi_oplist_init(&ep->ops);
	ktp_track(&ep->o, ep);
	container_of(domain, struct ktp_domain, domain)->last_srx = ep;
	*fep = &ep->ep;
	return 0;
}

static const struct fi_ops_domain ktp_domain_ops = {
	.cq_open = kofi_cq_open_generic,
	.endpoint = ktp_ep_open,
	.av_open = ktp_av_open,
};

static const struct fi_ops_domain ktp_domain_srx_ops = {
	.cq_open = kofi_cq_open_generic,
	.endpoint = ktp_ep_open,
	.av_open = ktp_av_open,
	.srx_ctx = ktp_srx_open,
};

static int ktp_domain_open(struct fid_fabric *fabric, struct fi_info *info,
			   struct fid_domain **fdom, void *context)
{
	struct ktp_domain *dom = kzalloc(sizeof(*dom), GFP_KERNEL);
	int ret;

	if (!dom)
		return -ENOMEM;
	ret = kofi_keytable_init(&dom->kt, 6);
	if (ret) {
		kfree(dom);
		return ret;
	}
	kofi_fid_init(&dom->domain.fid, FI_CLASS_DOMAIN, &ktp_domain_fi_ops,
		      context);
	dom->domain.ops = info->domain_attr->max_ep_srx_ctx ?
			  &ktp_domain_srx_ops : &ktp_domain_ops;
	dom->domain.mr = &ktp_mr_ops;
	dom->addr_format = info->addr_format;
	ktp_track(&dom->o, dom);
	*fdom = &dom->domain;
	return 0;
}

static int ktp_fabric_close(struct fid *fid)
{
	struct ktp_fabric *fab = container_of(fid, struct ktp_fabric,
					      fabric.fid);

	fab->o.close_calls++;
	atomic_dec(&ktp_open_fabrics);
	return 0;
}

static const struct fi_ops ktp_fabric_fi_ops = {
	.close = ktp_fabric_close,
};

static const struct fi_ops_fabric ktp_fabric_ops = {
	.domain = ktp_domain_open,
	.eq_open = kofi_eq_open_generic,
};

static int ktp_fabric_open(struct fi_fabric_attr *attr,
			   struct fid_fabric **ffab, void *context)
{
	struct ktp_fabric *fab = kzalloc(sizeof(*fab), GFP_KERNEL);

	if (!fab)
		return -ENOMEM;
	kofi_fid_init(&fab->fabric.fid, FI_CLASS_FABRIC, &ktp_fabric_fi_ops,
		      context);
	fab->fabric.ops = &ktp_fabric_ops;
	ktp_track(&fab->o, fab);
	atomic_inc(&ktp_open_fabrics);
	*ffab = &fab->fabric;
	return 0;
}

/* ---- getinfo ---- */

static struct fi_info *ktp_info(const struct ktp_spec *sp)
{
	struct fi_info *info = fi_allocinfo(GFP_KERNEL);

	if (!info)
		return NULL;
	info->caps = sp->caps;
	info->mode = sp->mode;
	info->addr_format = sp->addr_format;
	info->tx_attr->caps = sp->caps;
	info->tx_attr->size = sp->tx_size;
	info->tx_attr->iov_limit = 4;
	info->tx_attr->inject_size = 64;
	info->rx_attr->caps = sp->caps;
	info->rx_attr->size = sp->tx_size;
	info->rx_attr->iov_limit = 4;
	info->ep_attr->type = sp->type;
	info->ep_attr->max_msg_size = 1 << 20;
	info->ep_attr->max_cm_data_size = 64;
	info->domain_attr->threading = FI_THREAD_SAFE;
	info->domain_attr->control_progress = FI_PROGRESS_AUTO;
	info->domain_attr->data_progress = FI_PROGRESS_AUTO;
	info->domain_attr->mr_mode = sp->mr_mode;
	info->domain_attr->mr_key_size = 8;
	info->domain_attr->cq_data_size = 4;
	info->domain_attr->mr_iov_limit = 1;
	info->domain_attr->max_ep_srx_ctx = sp->srx;
	info->domain_attr->name = kstrdup(sp->domain, GFP_KERNEL);
	info->fabric_attr->name = kstrdup("kt_fabric", GFP_KERNEL);
	if (!info->domain_attr->name || !info->fabric_attr->name) {
		fi_freeinfo(info);
		return NULL;
	}
	return info;
}

static int ktp_getinfo_specs(const struct ktp_spec *specs, unsigned int n,
			     struct fi_info **list)
{
	struct fi_info *head = NULL, **tail = &head, *info;
	unsigned int i;

	for (i = 0; i < n; i++) {
		info = ktp_info(&specs[i]);
		if (!info) {
			fi_freeinfo(head);
			return -ENOMEM;
		}
		*tail = info;
		tail = &info->next;
	}
	*list = head;
	return 0;
}

static int ktp_hw_getinfo(u32 version, const struct fi_info *hints,
			  u64 flags, struct fi_info **info)
{
	return ktp_getinfo_specs(ktp_hw_specs, ARRAY_SIZE(ktp_hw_specs), info);
}

static int ktp_sw_getinfo(u32 version, const struct fi_info *hints,
			  u64 flags, struct fi_info **info)
{
	return ktp_getinfo_specs(ktp_sw_specs, ARRAY_SIZE(ktp_sw_specs), info);
}

/* kt_util: one SOCK_STREAM info per core info with FI_MSG | FI_RMA. */
static int ktp_util_getinfo(u32 version, const struct fi_info *hints,
			    u64 flags, struct fi_info **info)
{
	struct fi_info *core_hints, *core = NULL, *c, *head = NULL;
	struct fi_info **tail = &head, *u;
	struct ktp_spec sp = {
		.caps = FI_MSG | FI_SEND | FI_RECV,
		.type = FI_EP_SOCK_STREAM,
		.tx_size = 384,
	};
	int ret;

	core_hints = fi_dupinfo(hints, GFP_KERNEL);
	if (!core_hints)
		return -ENOMEM;
	core_hints->caps = FI_MSG | FI_RMA;
	core_hints->mode = FI_MODE_MASK;
	core_hints->tx_attr->caps = 0;
	core_hints->tx_attr->mode = 0;
	core_hints->tx_attr->size = 0;
	core_hints->rx_attr->caps = 0;
	core_hints->rx_attr->mode = 0;
	core_hints->ep_attr->type = FI_EP_MSG;
	core_hints->domain_attr->mr_mode = FI_MR_UNSPEC;
	ret = kofi_getinfo_core(version, NULL, NULL, flags, core_hints,
				&ktp_provs[KTP_UTIL], &core);
	fi_freeinfo(core_hints);
	if (ret)
		return ret;

	for (c = core; c; c = c->next) {
		sp.addr_format = c->addr_format;
		sp.domain = c->domain_attr->name;
		u = ktp_info(&sp);
		if (u)
			u->fabric_attr->prov_name =
				kasprintf(GFP_KERNEL, "%s;kt_util",
					  c->fabric_attr->prov_name);
		if (!u || !u->fabric_attr->prov_name) {
			fi_freeinfo(u);
			fi_freeinfo(head);
			fi_freeinfo(core);
			return -ENOMEM;
		}
		*tail = u;
		tail = &u->next;
	}
	fi_freeinfo(core);
	*info = head;
	return head ? 0 : -ENODATA;
}

static void ktp_hw_cleanup(void)
{
	atomic_inc(&ktp_cleanups[KTP_HW]);
}

static void ktp_sw_cleanup(void)
{
	atomic_inc(&ktp_cleanups[KTP_SW]);
}

static void ktp_util_cleanup(void)
{
	atomic_inc(&ktp_cleanups[KTP_UTIL]);
}

struct kofi_provider ktp_provs[KTP_NPROV] = {
	[KTP_HW] = {
		.name = "kt_hw",
		.version = FI_VERSION(1, 0),
		.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
		.owner = THIS_MODULE,
		.priority = KOFI_PRIO_HW_RDMA,
		.getinfo = ktp_hw_getinfo,
		.fabric = ktp_fabric_open,
		.cleanup = ktp_hw_cleanup,
	},
	[KTP_SW] = {
		.name = "kt_sw",
		.version = FI_VERSION(1, 0),
		.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
		.owner = THIS_MODULE,
		.priority = KOFI_PRIO_SOFTWARE,
		.getinfo = ktp_sw_getinfo,
		.fabric = ktp_fabric_open,
		.cleanup = ktp_sw_cleanup,
	},
	[KTP_UTIL] = {
		.name = "kt_util",
		.version = FI_VERSION(1, 0),
		.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
		.owner = THIS_MODULE,
		.priority = KOFI_PRIO_UTIL,
		.flags = KOFI_PROV_UTIL,
		.getinfo = ktp_util_getinfo,
		.fabric = ktp_fabric_open,
		.cleanup = ktp_util_cleanup,
	},
};

int ktp_register_all(void)
{
	int i, ret;

	for (i = 0; i < KTP_NPROV; i++) {
		ret = kofi_provider_register(&ktp_provs[i]);
		if (ret) {
			while (--i >= 0)
				kofi_provider_deregister(&ktp_provs[i]);
			return ret;
		}
	}
	return 0;
}

void ktp_deregister_all(void)
{
	int i;

	/*
	 * A failed test may have left a fabric open: deregistering the
	 * providers under it would break struct kofi_provider's rule.
	 */
	if (atomic_read(&ktp_open_fabrics)) {
		pr_err("kofi test: fabrics left open, providers stay registered\n");
		return;
	}
	for (i = 0; i < KTP_NPROV; i++)
		kofi_provider_deregister(&ktp_provs[i]);
	ktp_free_objects();
}

/* suite_init, suite_exit and exit of the suites on the test providers */
int ktp_suite_init(struct kunit_suite *suite)
{
	return ktp_register_all();
}

void ktp_suite_exit(struct kunit_suite *suite)
{
	ktp_deregister_all();
}

void ktp_test_exit(struct kunit *test)
{
	ktp_free_objects();
}

int ktp_stack_open(struct kunit *test, struct ktp_stack *s, bool with_ep)
{
	struct fi_eq_attr eq_attr = { .size = 16 };
	struct fi_cq_attr cq_attr = { .size = 16,
				      .format = FI_CQ_FORMAT_DATA };
	struct fi_info *hints;
	int ret;

	memset(s, 0, sizeof(*s));
	hints = fi_allocinfo(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hints);
	hints->caps = FI_MSG;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->fabric_attr->prov_name = kstrdup("kt_hw", GFP_KERNEL);
	ret = fi_getinfo(fi_version(), NULL, NULL, 0, hints, &s->info);
	fi_freeinfo(hints);
	KUNIT_ASSERT_EQ(test, ret, 0);

	ret = fi_fabric(s->info->fabric_attr, &s->fabric, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = fi_domain(s->fabric, s->info, &s->domain, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = fi_eq_open(s->fabric, &eq_attr, &s->eq, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = fi_cq_open(s->domain, &cq_attr, &s->cq, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	if (!with_ep)
		return 0;
	ret = fi_endpoint(s->domain, s->info, &s->ep, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(s->ep, &s->eq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(s->ep, &s->cq->fid,
					 FI_SEND | FI_RECV), 0);
	KUNIT_ASSERT_EQ(test, fi_enable(s->ep), 0);
	return 0;
}

void ktp_stack_close(struct kunit *test, struct ktp_stack *s)
{
	if (s->ep)
		KUNIT_EXPECT_EQ(test, fi_close(&s->ep->fid), 0);
	if (s->cq)
		KUNIT_EXPECT_EQ(test, fi_close(&s->cq->fid), 0);
	if (s->eq)
		KUNIT_EXPECT_EQ(test, fi_close(&s->eq->fid), 0);
	if (s->domain)
		KUNIT_EXPECT_EQ(test, fi_close(&s->domain->fid), 0);
	if (s->fabric)
		KUNIT_EXPECT_EQ(test, fi_close(&s->fabric->fid), 0);
	fi_freeinfo(s->info);
	memset(s, 0, sizeof(*s));
}
