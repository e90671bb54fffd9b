/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kernel OpenFabrics Interface - the machinery of utility providers.
 *
 * A utility provider ("core;utility" in prov_name) is built over a core
 * provider's objects.  What every utility needs is here: its infos made
 * from the core's with one core query, each keeping the core info it was
 * made from; fabric, domain, passive endpoint and connection request
 * objects that own the core's; memory regions registered in the core
 * domain; private core queues whose events run the
 * utility's progress in a work item; EQ binding and size_t options.  The
 * code is in kofi.ko (kofi/util/).  Documentation/writing-a-provider.rst
 * shows a utility built on it.  ULPs do not include this header.
 */
#ifndef _KOFI_UTIL_H
#define _KOFI_UTIL_H

#include <linux/stddef.h>
#include <linux/workqueue.h>
#include <kofi/provider.h>

/**
 * struct kofi_util_prov - what the machinery needs of a utility provider
 * @prov: the provider, as registered
 * @wq: workqueue of its progress (pep connection requests too)
 * @core_hints: tailor a copy of the user's hints into hints for the core
 *	providers: set the endpoint type, capabilities, modes and sizes the
 *	utility needs of the core (the core's own attributes are cleared
 *	from the copy before); process context
 * @info: the utility's info over one core info (fi_dupinfo() of it,
 *	changed; the machinery names it "core;utility" afterwards); NULL if
 *	out of memory; process context
 * @connreq: check a core connection request's CM data; 0 passes the
 *	request on to the user, a negative errno rejects it; NULL passes
 *	every request
 */
struct kofi_util_prov {
	struct kofi_provider *prov;
	struct workqueue_struct *wq;
	void (*core_hints)(struct fi_info *hints);
	struct fi_info *(*info)(const struct fi_info *core);
	int (*connreq)(const struct fi_info *core, const void *data,
		       size_t len);
};

/* info.c: the utility info's link to its core info */
int kofi_util_getinfo(const struct kofi_util_prov *util, u32 version,
		      const struct fi_info *hints, u64 flags,
		      struct fi_info **info);
struct fi_info *kofi_util_info(const struct kofi_util_prov *util,
			       const struct fi_info *core);
int kofi_util_info_set_core(struct fi_info *info, const struct fi_info *core);
const struct fi_info *kofi_util_info_core(const struct fi_info *info);
int kofi_util_core_info(const struct kofi_util_prov *util,
			const struct fi_info *info, struct fi_info **core);

/**
 * struct kofi_util_progress - how a core queue's event reaches progress
 * @wq: the workqueue
 * @work: the work item running the utility object's progress
 */
struct kofi_util_progress {
	struct workqueue_struct *wq;
	struct work_struct *work;
};

/**
 * kofi_util_progress_init() - set up a struct kofi_util_progress
 * @p: the struct
 * @wq: the workqueue
 * @work: the work item, initialised by the caller
 *
 * Context: any context.
 */
static inline void kofi_util_progress_init(struct kofi_util_progress *p,
					   struct workqueue_struct *wq,
					   struct work_struct *work)
{
	p->wq = wq;
	p->work = work;
}

/* queue.c: private core queues */
void kofi_util_kick(struct kofi_util_progress *p);
int kofi_util_core_eq_open(struct fid_fabric *core, size_t size,
			   struct kofi_util_progress *p, struct fid_eq **eq);
int kofi_util_core_cq_open(struct fid_domain *core, size_t size,
			   struct fid_cq **cq, void *context);
void kofi_util_close_core(struct fid *fid);

/**
 * struct kofi_util_fabric - a utility fabric
 * @fabric: the kOFI object
 * @util: the utility provider
 * @core: the core fabric it owns
 */
struct kofi_util_fabric {
	struct fid_fabric fabric;
	const struct kofi_util_prov *util;
	struct fid_fabric *core;
};

/**
 * struct kofi_util_domain - a utility domain
 * @domain: the kOFI object
 * @fab: its fabric
 * @core: the core domain it owns
 * @core_attr: the core domain's attributes (mr_mode, mr_key_size ...;
 *	name NULL)
 * @addr_format: the address format of the core info it was opened from
 *	(FI_SOCKADDR_IN if that had none): its AVs' and endpoints'
 */
struct kofi_util_domain {
	struct fid_domain domain;
	struct kofi_util_fabric *fab;
	struct fid_domain *core;
	struct fi_domain_attr core_attr;
	u32 addr_format;
};

/* fabric.c, domain.c: the wrapper objects */
int kofi_util_fabric_init(struct kofi_util_fabric *fab,
			  const struct kofi_util_prov *util,
			  struct fi_fabric_attr *attr, const struct fi_ops *ops,
			  const struct fi_ops_fabric *fops, void *context);
int kofi_util_fabric_close(struct kofi_util_fabric *fab);
int kofi_util_domain_init(struct kofi_util_domain *dom,
			  struct fid_fabric *fabric, struct fi_info *info,
			  const struct fi_ops *ops,
			  const struct fi_ops_domain *dops, void *context);
int kofi_util_domain_close(struct kofi_util_domain *dom);
int kofi_util_fabric_open(const struct kofi_util_prov *util,
			  struct fi_fabric_attr *attr,
			  const struct fi_ops_fabric *fops,
			  struct fid_fabric **fabric, void *context);
int kofi_util_domain_open(struct fid_fabric *fabric, struct fi_info *info,
			  const struct fi_ops_domain *dops,
			  struct fid_domain **domain, void *context);

/* mr.c: memory registration in the core domain */
void kofi_util_domain_mr(struct kofi_util_domain *dom);

/**
 * struct kofi_util_connreq - fi_info.handle of a utility FI_CONNREQ
 * @fid: identity, class FI_CLASS_CONNREQ
 * @util: the utility provider
 * @core_info: the core's request info, its handle the core request
 * @datalen: bytes of @data
 * @data: the peer's CM data
 */
struct kofi_util_connreq {
	struct fid fid;
	const struct kofi_util_prov *util;
	struct fi_info *core_info;
	size_t datalen;
	u8 data[];
};

/**
 * struct kofi_util_pep - a utility passive endpoint
 * @pep: the kOFI object
 * @fab: its fabric
 * @core: the core passive endpoint it owns
 * @core_eq: the core endpoint's private EQ
 * @progress: queues @work when @core_eq has an event
 * @work: turns the core's connection requests into the utility's
 * @closing: fi_close() in progress: no new work
 */
struct kofi_util_pep {
	struct fid_pep pep;
	struct kofi_util_fabric *fab;
	struct fid_pep *core;
	struct fid_eq *core_eq;
	struct kofi_util_progress progress;
	struct work_struct work;
	bool closing;
};

/* cm.c: passive endpoints and connection requests */
int kofi_util_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		       struct fid_pep **pep, void *context);
struct kofi_util_connreq *kofi_util_connreq(const struct kofi_util_prov *util,
					    struct fid *handle);
void kofi_util_connreq_free(struct kofi_util_connreq *creq);

/**
 * struct kofi_util_opt - a size_t endpoint option of a utility
 * @name: FI_OPT_*
 * @min: smallest value accepted
 * @max: largest value accepted
 * @offset: where the value is kept, offsetof() in the utility's settings
 *
 * KOFI_UTIL_OPT() fills one in.
 */
struct kofi_util_opt {
	int name;
	size_t min;
	size_t max;
	size_t offset;
};

#define KOFI_UTIL_OPT(_name, _min, _max, _type, _member)		\
	{ .name = (_name), .min = (_min), .max = (_max),		\
	  .offset = offsetof(_type, _member) }

/* ep.c: options */
int kofi_util_setopt(const struct kofi_util_opt *tab, size_t n, void *opts,
		     int level, int optname, const void *optval,
		     size_t optlen);
int kofi_util_getopt(const struct kofi_util_opt *tab, size_t n,
		     const void *opts, int level, int optname, void *optval,
		     size_t *optlen);
int kofi_util_ep_core_info(const struct kofi_util_prov *util,
			   struct fi_info *info, struct fi_info **core,
			   struct kofi_util_connreq **creq);

#endif /* _KOFI_UTIL_H */
