/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kernel OpenFabrics Interface - the provider side.
 *
 * What a provider module uses: registration with kofi.ko, initialisation
 * of its objects' struct fid, the shared event queue and completion queue
 * implementations and how to write events and completions into them, the
 * flush helper for outstanding operations, a remote-key table for
 * software RMA, and the shared address vector with its data-path lookups.
 * ULPs do not include this header.
 */
#ifndef _KOFI_PROVIDER_H
#define _KOFI_PROVIDER_H

#include <linux/bvec.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/refcount.h>
#include <linux/uio.h>
#include <kofi/fabric.h>
#include <kofi/fi_errno.h>
#include <kofi/fi_domain.h>
#include <kofi/fi_endpoint.h>
#include <kofi/fi_cm.h>
#include <kofi/fi_eq.h>
#include <kofi/fi_rma.h>
#include <kofi/fi_av.h>

struct module;
struct sockaddr;
struct sockaddr_storage;

/* Longest provider name, without the terminating NUL. */
#define KOFI_PROV_NAME_MAX	31

/*
 * Provider priorities: fi_getinfo() returns the infos of higher priority
 * providers first (equal priorities: registration order).
 */
#define KOFI_PRIO_HW_RDMA	300	/* RDMA hardware (ib_verbs) */
#define KOFI_PRIO_UTIL		200	/* utility providers (kstream) */
#define KOFI_PRIO_SOFTWARE	100	/* software transports (ksocket) */
#define KOFI_PRIO_TEST		0	/* test providers */

/* struct kofi_provider.flags */
#define KOFI_PROV_UTIL		BIT(0)	/* layered over core providers */

/**
 * struct kofi_provider - a provider, as registered with kofi.ko
 * @name: unique name, at most KOFI_PROV_NAME_MAX characters, none of
 *	";,^" or white space
 * @version: the provider's own version, FI_VERSION() form
 * @fi_version: API version the provider was built against:
 *	FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION)
 * @owner: THIS_MODULE; referenced while the provider is used (see below)
 * @priority: fi_getinfo() ordering, KOFI_PRIO_*
 * @flags: KOFI_PROV_UTIL for a utility provider
 * @getinfo: return in *@info a list of infos (fi_allocinfo()) describing
 *	what the provider offers for @hints, or -ENODATA.  @hints is never
 *	NULL, has every attribute block, and node/service have already been
 *	parsed into hints->src_addr / dest_addr.  The core filters the result
 *	against the user's hints again, so a provider may return more than
 *	matches.  If fabric_attr->prov_name is NULL the core fills it in.
 *	Process context, may sleep; may call kofi_getinfo_core().
 * @fabric: open a fabric for @attr (from one of the provider's infos).
 *	The provider initialises the fid with kofi_fid_init().  Process
 *	context, may sleep.
 * @cleanup: called by kofi_provider_deregister() once the provider is
 *	unlinked, or NULL.  Process context, may sleep.
 *
 * Lifetime.  The one thing that keeps a provider alive while it is used is
 * its module: every call of @getinfo or @fabric and every open fabric holds
 * a reference on @owner (try_module_get(), taken while the provider is
 * registered; fi_close() of the fabric drops it).  So:
 *
 * - A provider in a module: the module cannot be unloaded while it is used
 *   (rmmod fails, "in use"), and once its unload has begun no new user can
 *   get in; when module_exit calls kofi_provider_deregister(), nothing is
 *   in the provider, so deregistration does not wait.  Register as the
 *   last step of module_init and deregister as the first of module_exit.
 * - A provider without a module (@owner NULL: built into the kernel, or a
 *   KUnit test built in) is pinned by nothing: kofi_provider_deregister()
 *   unlinks it and calls @cleanup even if a getinfo call is in it or a
 *   fabric of it is open, and those carry on with the provider.  Such a
 *   provider, its callbacks and what they use must therefore stay valid
 *   after deregistration for as long as a call or a fabric may be left -
 *   static data of built-in code always is - and its owner deregisters it
 *   only when no fabric of it is open.
 *
 * The struct must stay valid and unchanged while registered.
 */
struct kofi_provider {
	const char *name;
	u32 version;
	u32 fi_version;
	struct module *owner;
	int priority;
	unsigned int flags;
	int (*getinfo)(u32 version, const struct fi_info *hints, u64 flags,
		       struct fi_info **info);
	int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		      void *context);
	void (*cleanup)(void);
	/* private: */
	struct list_head list;
};

/**
 * MODULE_ALIAS_KOFI_PROV() - declare the module alias of a provider
 * @name: the provider's name, a string literal in lower case
 *
 * fi_getinfo() loads a provider named in its hints that is not registered
 * by this alias, "kofi-prov-" @name.  Every provider module declares it.
 */
#define MODULE_ALIAS_KOFI_PROV(name)	MODULE_ALIAS("kofi-prov-" name)

int kofi_provider_register(struct kofi_provider *prov);
void kofi_provider_deregister(struct kofi_provider *prov);
int kofi_getinfo_core(u32 version, const char *node, const char *service,
		      u64 flags, const struct fi_info *hints,
		      const struct kofi_provider *self, struct fi_info **info);

void kofi_fid_init(struct fid *fid, u32 fclass, const struct fi_ops *ops,
		   void *context);
bool kofi_fid_get(struct fid *fid);
void kofi_fid_put(struct fid *fid);
bool kofi_fid_closed(const struct fid *fid);

/* The shared event queue. */
int kofi_eq_open_generic(struct fid_fabric *fabric, struct fi_eq_attr *attr,
			 struct fid_eq **eq, void *context);
int kofi_eq_write_event(struct fid_eq *eq, u32 event, struct fid *fid,
			void *context, u64 data);
int kofi_eq_write_cm(struct fid_eq *eq, u32 event, struct fid *fid,
		     struct fi_info *info, const void *data, size_t datalen);
int kofi_eq_offer_cm(struct fid_eq *eq, u32 event, struct fid *fid,
		     struct fi_info *info, const void *data, size_t datalen);
int kofi_eq_write_err(struct fid_eq *eq, struct fid *fid, void *context,
		      int err, int prov_errno, const void *err_data,
		      size_t err_data_size);

/*
 * The shared completion queue.  On a CQ opened with FI_CQ_CALLBACK the
 * kofi_cq_write*() calls hand the completion to the done() of the struct
 * fi_cqe that is @op_context, in the writer's context and with no lock of
 * the CQ held.  As a comp_handler, done() may call the provider's data
 * calls again: the provider writes completions where that works, and
 * documents the context.
 */
int kofi_cq_open_generic(struct fid_domain *domain, struct fi_cq_attr *attr,
			 struct fid_cq **cq, void *context);

/**
 * struct kofi_comp - one completion, as a provider hands it to a CQ
 * @op_context: the operation's context (its struct fi_cqe on a callback CQ)
 * @flags: completion flags (FI_SEND, FI_RECV | FI_TAGGED, FI_MULTI_RECV,
 *	FI_REMOTE_CQ_DATA ...)
 * @len: bytes transferred; for an error, bytes transferred before it
 * @buf: where a received message starts in a multi-receive buffer, or NULL
 * @data: remote CQ data
 * @tag: the tag of the message a tagged receive took
 * @src: the sender of a received message, FI_ADDR_NOTAVAIL if unknown
 *	(0 is an address: set it)
 * @olen: bytes of a message that did not fit its buffer (with @err
 *	EMSGSIZE), else 0
 * @err: 0 for a successful completion, else an errno, positive or
 *	negative (stored positive): an error completion, for fi_cq_readerr()
 * @prov_errno: a provider-specific error with @err, or 0
 *
 * The record a CQ keeps per entry: providers that build their completions
 * before they know where they go fill one in and write it with
 * kofi_cq_write_comp(); the kofi_cq_write*() calls build one from their
 * arguments.
 */
struct kofi_comp {
	void *op_context;
	u64 flags;
	size_t len;
	void *buf;
	u64 data;
	u64 tag;
	fi_addr_t src;
	size_t olen;
	int err;
	int prov_errno;
};

/**
 * struct kofi_cq_progress - an endpoint's progress a CQ's waiter may run
 * @node: on the CQ's queue while kicked (the core's)
 * @run: runs the endpoint's progress (its receives, which write the
 *	completions): called by the thread waiting in fi_cq_sread(), in
 *	process context, may sleep, no lock of the CQ held
 * @defer: hands the progress back to the provider's own work (queues it):
 *	called when that thread leaves before it ran @run; process context,
 *	must not sleep for long
 *
 * See kofi_cq_progress_kick().  Set up with kofi_cq_progress_init().
 */
struct kofi_cq_progress {
	struct list_head node;
	void (*run)(struct kofi_cq_progress *p);
	void (*defer)(struct kofi_cq_progress *p);
};

/**
 * kofi_cq_progress_init() - set up a struct kofi_cq_progress
 * @p: the progress
 * @run: see struct kofi_cq_progress
 * @defer: see struct kofi_cq_progress
 *
 * Context: any context.
 */
static inline void
kofi_cq_progress_init(struct kofi_cq_progress *p,
		      void (*run)(struct kofi_cq_progress *p),
		      void (*defer)(struct kofi_cq_progress *p))
{
	INIT_LIST_HEAD(&p->node);
	p->run = run;
	p->defer = defer;
}

bool kofi_cq_progress_kick(struct fid_cq *cq, struct kofi_cq_progress *p);
void kofi_cq_progress_stop(struct fid_cq *cq, struct kofi_cq_progress *p);

int kofi_cq_write_comp(struct fid_cq *cq, const struct kofi_comp *c);
int kofi_cq_write(struct fid_cq *cq, void *op_context, u64 flags,
		  size_t len, void *buf, u64 data);
int kofi_cq_write_src(struct fid_cq *cq, void *op_context, u64 flags,
		      size_t len, void *buf, u64 data, fi_addr_t src_addr);
int kofi_cq_write_tagged(struct fid_cq *cq, void *op_context, u64 flags,
			 size_t len, void *buf, u64 data, u64 tag,
			 fi_addr_t src_addr);
int kofi_cq_write_err(struct fid_cq *cq, void *op_context, u64 flags,
		      int err, int prov_errno, size_t len, size_t olen);

/**
 * struct kofi_av_watch - a provider's interest in removals from an AV
 * @node: linkage on the AV's list, owned by the AV while added
 * @removed: called by fi_av_remove() for each entry it removes, with the
 *	entry's fi_addr_t and address, once lookups of it fail; process
 *	context with the AV's insert/remove mutex held: it may sleep, and
 *	must not call fi_av_insert(), fi_av_remove() or kofi_av_watch_del()
 *	on the AV
 *
 * Embed it in the endpoint; kofi_av_watch_add() and kofi_av_watch_del().
 */
struct kofi_av_watch {
	struct list_head node;
	void (*removed)(struct kofi_av_watch *watch, fi_addr_t fi_addr,
			const struct sockaddr *addr);
};

/* The shared address vector. */
int kofi_av_open_generic(struct fid_domain *domain, struct fi_av_attr *attr,
			 u32 addr_format, struct fid_av **av, void *context);
int kofi_av_lookup_addr(struct fid_av *av, fi_addr_t fi_addr,
			struct sockaddr_storage *addr);
int kofi_av_lookup_fi_addr(struct fid_av *av, const struct sockaddr *addr,
			   size_t addrlen, fi_addr_t *fi_addr);
struct fid_av *kofi_ep_av(struct fid_ep *ep);
int kofi_av_watch_add(struct fid_av *av, struct kofi_av_watch *watch);
void kofi_av_watch_del(struct fid_av *av, struct kofi_av_watch *watch);

/* The bindings fi_ep_bind() and fi_pep_bind() checked and recorded. */
struct fid_cq *kofi_ep_cq(struct fid_ep *ep, u64 dir, u64 *flags);
struct fid_eq *kofi_ep_eq(struct fid_ep *ep);
struct fid_ep *kofi_ep_srx(struct fid_ep *ep);
struct fid_eq *kofi_pep_eq(struct fid_pep *pep);

/**
 * struct kofi_op - an outstanding operation, for kofi_oplist_flush()
 * @node: list linkage, owned by the list
 * @cq: CQ the operation completes to, or NULL for no completion
 * @context: the operation's context (op_context of the completion; a
 *	struct fi_cqe if @cq is a callback CQ)
 * @flags: completion flags (FI_SEND, FI_RECV | FI_MSG, FI_RMA | FI_READ ...)
 *
 * Embed it in the provider's request structure.
 */
struct kofi_op {
	struct list_head node;
	struct fid_cq *cq;
	void *context;
	u64 flags;
};

/**
 * struct kofi_oplist - the outstanding operations of an endpoint
 * @lock: protects @ops; may be taken from any context
 * @ops: list of struct kofi_op
 */
struct kofi_oplist {
	spinlock_t lock;	/* protects ops */
	struct list_head ops;
};

void kofi_oplist_init(struct kofi_oplist *list);
void kofi_oplist_add(struct kofi_oplist *list, struct kofi_op *op);
bool kofi_oplist_del(struct kofi_oplist *list, struct kofi_op *op);
unsigned int kofi_oplist_flush(struct kofi_oplist *list, int err,
			       void (*release)(struct kofi_op *op, void *arg),
			       void *arg);

/**
 * struct kofi_key_entry - a region in a struct kofi_keytable
 * @key: the region's remote key, set by kofi_keytable_insert()
 * @base: first remote address of the region
 * @len: bytes in the region
 * @access: FI_REMOTE_READ and/or FI_REMOTE_WRITE
 * @priv: provider data (its MR), not used by the core
 * @rcu: for the provider's kfree_rcu() of the structure embedding the entry
 *
 * Embed it in the provider's MR; fill in @base, @len, @access, @priv
 * before kofi_keytable_insert().  Lookups walk the table under RCU and
 * may still read a removed entry: after kofi_keytable_remove() free the
 * memory that holds it only after an RCU grace period (kfree_rcu() of the
 * MR with @rcu), and never insert the entry again.
 */
struct kofi_key_entry {
	u64 key;
	u64 base;
	u64 len;
	u64 access;
	void *priv;
	/* private: */
	struct hlist_node node;
	refcount_t ref;
	struct completion released;
	/* public: */
	struct rcu_head rcu;
};

/**
 * struct kofi_keytable - remote keys of a software provider's domain
 *
 * Lookups are RCU protected and safe from any context; insert and remove
 * may sleep.
 */
struct kofi_keytable {
	/* private: */
	spinlock_t lock;		/* serialises insert and remove */
	unsigned int bits;
	unsigned int count;
	struct hlist_head *buckets;
};

int kofi_keytable_init(struct kofi_keytable *kt, unsigned int bits);
void kofi_keytable_destroy(struct kofi_keytable *kt);
int kofi_keytable_insert(struct kofi_keytable *kt, struct kofi_key_entry *e,
			 u64 requested_key, bool prov_key);
void kofi_keytable_remove(struct kofi_keytable *kt, struct kofi_key_entry *e);
struct kofi_key_entry *kofi_keytable_get(struct kofi_keytable *kt, u64 key,
					 u64 addr, u64 len, u64 access);
void kofi_key_entry_put(struct kofi_key_entry *e);

/* Most entries in a software region's vector (kofi_sw_mr_reg()). */
#define KOFI_SW_MR_IOV_LIMIT	256

/**
 * struct kofi_sw_mr - a region of a software RMA provider
 * @mr: the kOFI object
 * @kt: the key table it is entered in
 * @ke: its key table entry (base = remote address of the first byte;
 *	priv = the region)
 * @bvec: true if @bv is the vector, false for @kv
 * @nr: entries in the vector
 * @len: bytes in the region
 * @kv: kvec vector (a copy of the user's)
 * @bv: bio_vec vector (a copy of the user's, or made from a scatterlist)
 *
 * Made by kofi_sw_mr_reg(); a peer's request reaches its memory through
 * kofi_keytable_get() and kofi_sw_mr_iter().
 */
struct kofi_sw_mr {
	struct fid_mr mr;
	struct kofi_keytable *kt;
	struct kofi_key_entry ke;
	bool bvec;
	unsigned int nr;
	size_t len;
	union {
		struct kvec *kv;
		struct bio_vec *bv;
	};
};

int kofi_sw_mr_reg(struct kofi_keytable *kt, const struct fi_mr_attr *attr,
		   u64 flags, struct fid_mr **fmr);
void kofi_sw_mr_iter(const struct kofi_key_entry *e, struct iov_iter *it,
		     unsigned int dir, u64 addr, size_t len);

/**
 * struct kofi_sw_domain - the domain of a software RMA provider
 * @domain: the kOFI object
 * @kt: the key table of the regions registered in it
 * @fabric: the fabric it was opened on
 * @addr_format: FI_SOCKADDR_IN or FI_SOCKADDR_IN6: of its address vectors
 *
 * Set up by kofi_sw_domain_init() (kofi/swdomain.c).
 */
struct kofi_sw_domain {
	struct fid_domain domain;
	struct kofi_keytable kt;
	struct fid_fabric *fabric;
	u32 addr_format;
};

int kofi_sw_domain_init(struct kofi_sw_domain *dom, struct fid_fabric *fabric,
			const struct fi_info *info, const struct fi_ops *fi_ops,
			const struct fi_ops_domain *ops, void *context);
void kofi_sw_domain_fini(struct kofi_sw_domain *dom);
int kofi_sw_domain_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
			   struct fid_av **av, void *context);

#endif /* _KOFI_PROVIDER_H */
