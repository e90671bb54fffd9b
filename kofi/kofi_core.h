/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI core: declarations shared by the files of kofi.ko only.
 */
#ifndef _KOFI_CORE_H
#define _KOFI_CORE_H

#include <kofi/provider.h>

/* registry.c */
struct kofi_provider **kofi_prov_snapshot(const struct kofi_provider *skip,
					  bool core_only, unsigned int *n);
void kofi_prov_snapshot_put(struct kofi_provider **v, unsigned int n);
struct kofi_provider *kofi_prov_find(const char *name, size_t len);
void kofi_prov_put(const struct kofi_provider *p);
void kofi_prov_request(const char *name, size_t len);
void kofi_registry_show(struct seq_file *m);

/* fid.c */
/* True if @fid is a live object of class @fclass. */
static inline bool kofi_fid_is(const struct fid *fid, u32 fclass)
{
	return fid && fid->fclass == fclass;
}

/* True if @obj (a struct fid_* pointer) is non-NULL and of class @cls. */
#define KOFI_IS(obj, cls)	({ typeof(obj) __o = (obj);		\
				   __o && __o->fid.fclass == (cls); })
/*
 * True if data calls may be made on @ep: an endpoint, or for a receive
 * (@recv) also a shared receive context.
 */
static inline bool kofi_data_ep_ok(const struct fid_ep *ep, bool recv)
{
	return ep && (ep->fid.fclass == FI_CLASS_EP ||
		      (recv && ep->fid.fclass == FI_CLASS_SRX_CTX));
}

/* The struct fid of @obj, or NULL. */
#define KOFI_FID(obj)		({ typeof(obj) __o = (obj);		\
				   __o ? &__o->fid : NULL; })

int kofi_fid_opened(struct fid *parent, int ret, struct fid *child,
		    u32 fclass);
/* What an endpoint (or passive endpoint) holds bound, one object each. */
enum kofi_bind_slot {
	KOFI_SLOT_TX_CQ,
	KOFI_SLOT_RX_CQ,
	KOFI_SLOT_EQ,
	KOFI_SLOT_AV,
	KOFI_SLOT_SRX,
	KOFI_SLOT_MAX
};

int kofi_fid_bind(struct fid *fid, struct fid *bfid, u64 flags,
		  unsigned int slots);
struct fid *kofi_fid_slot(const struct fid *fid, enum kofi_bind_slot slot,
			  u64 *flags);
struct fid *kofi_fid_parent(const struct fid *fid);

/**
 * kofi_iov_check() - the local vector of a data call
 * @type: its enum fi_iov_type
 * @vec: the vector
 * @count: its entries
 *
 * Context: any context.
 * Return: 0; -EINVAL for an unknown @type, a NULL @vec with @count, or a
 * kvec with a NULL base and a length.
 */
static inline int kofi_iov_check(enum fi_iov_type type, const void *vec,
				 size_t count)
{
	const struct kvec *kv = vec;
	size_t i;

	if (unlikely(type > FI_IOV_SG || (count && !vec)))
		return -EINVAL;
	if (type == FI_IOV_KVEC)
		for (i = 0; i < count; i++)
			if (unlikely(!kv[i].iov_base && kv[i].iov_len))
				return -EINVAL;
	return 0;
}

/**
 * kofi_may_sleep_check() - check a data call's FI_MAY_SLEEP promise
 * @flags: the call's flags
 *
 * With CONFIG_DEBUG_ATOMIC_SLEEP a call flagged FI_MAY_SLEEP from a
 * context that may not sleep is reported here, whatever the provider
 * does with the flag.
 *
 * Context: any context; may sleep only with FI_MAY_SLEEP in @flags.
 */
static inline void kofi_may_sleep_check(u64 flags)
{
	if (flags & FI_MAY_SLEEP)
		might_sleep();
}

/*
 * api_msg.c, api_rma.c: fi_endpoint() completes the data operation tables
 * of every new endpoint, one family at a time.
 */
/* The last CQ format fi_cq_open() and the shared CQ know. */
#define KOFI_CQ_FORMAT_LAST	FI_CQ_FORMAT_TAGGED

int kofi_msg_ops_set(struct fid_ep *ep);
int kofi_rma_ops_set(struct fid_ep *ep);
int kofi_tagged_ops_set(struct fid_ep *ep);

/* getinfo.c */
bool kofi_info_match(const struct fi_info *info, const struct fi_info *hints,
		     const char *self);
bool kofi_prov_name_match(const char *spec, const char *name);

/* addr.c */
int kofi_parse_addr(const char *node, const char *service, u32 fmt_hint,
		    void **addr, size_t *addrlen, u32 *fmt);
bool kofi_addr_format_ok(u32 want, u32 have);

/*
 * cq.c, eq.c: the slot @n places after slot @i of a ring of @size slots
 * (@i < @size, @n <= @size).  The rings keep their positions in [0, size)
 * and wrap them here, for any size, without a division.
 */
static inline u32 kofi_ring_slot(u32 i, u32 n, u32 size)
{
	i += n;
	return i >= size ? i - size : i;
}

/*
 * cq.c, eq.c: test hooks for KUnit only.  They make an empty queue look as
 * if @pos entries had already passed through it, so that a test can run a
 * queue across the wrap of its 32-bit positions without 2^32 writes.
 */
#if IS_ENABLED(CONFIG_KUNIT)
void kofi_cq_test_set_pos(struct fid_cq *cq, u32 pos);
void kofi_eq_test_set_pos(struct fid_eq *eq, u32 pos);
/* eq.c: the next @n allocations of EQ entry data fail. */
void kofi_eq_test_fail_alloc(struct fid_eq *eq, unsigned int n);
unsigned int kofi_fid_test_refs(const struct fid *fid);
#endif

/* debugfs.c */
void kofi_debugfs_init(void);

/* rdm/rxm_init.c: the RDM engine */
int kofi_rdm_init(void);
void kofi_rdm_exit(void);
void kofi_debugfs_exit(void);

#endif /* _KOFI_CORE_H */
