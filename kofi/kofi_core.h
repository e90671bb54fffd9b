/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI core: declarations shared by the files of kofi.ko only.
 */
#ifndef _KOFI_CORE_H
#define _KOFI_CORE_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <kofi/provider.h>

/**
 * struct kofi_prov_entry - a registered provider
 * @list: kofi_providers linkage, under kofi_registry_lock
 * @prov: the provider
 * @users: 1 while registered, plus one per getinfo call in progress and
 *	per open fabric
 * @gone: completed when @users drops to zero
 * @fabrics: open fabrics count
 */
struct kofi_prov_entry {
	struct list_head list;
	struct kofi_provider *prov;
	refcount_t users;
	struct completion gone;
	atomic_t fabrics;
};

/**
 * struct kofi_fid_bind - a binding held by an object (fi_ep_bind() ...)
 * @next: next binding
 * @bfid: the bound object, referenced
 */
struct kofi_fid_bind {
	struct kofi_fid_bind *next;
	struct fid *bfid;
};

/* registry.c */
struct kofi_prov_entry **kofi_prov_snapshot(const struct kofi_provider *skip,
					    bool core_only, unsigned int *n);
void kofi_prov_snapshot_put(struct kofi_prov_entry **v, unsigned int n);
struct kofi_prov_entry *kofi_prov_find(const char *name, size_t len);
void kofi_prov_put(struct kofi_prov_entry *e);
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
/* The struct fid of @obj, or NULL. */
#define KOFI_FID(obj)		({ typeof(obj) __o = (obj);		\
				   __o ? &__o->fid : NULL; })

int kofi_fid_opened(struct fid *parent, int ret, struct fid *child,
		    u32 fclass);
int kofi_fid_bind(struct fid *fid, struct fid *bfid, u64 flags);
struct fid *kofi_fid_bound(struct fid *fid, u32 fclass);

/* getinfo.c */
bool kofi_info_match(const struct fi_info *info, const struct fi_info *hints,
		     const char *self);
bool kofi_prov_name_match(const char *spec, const char *name);

/* addr.c */
int kofi_parse_addr(const char *node, const char *service, u32 fmt_hint,
		    void **addr, size_t *addrlen, u32 *fmt);
bool kofi_addr_format_ok(u32 want, u32 have);

/* debugfs.c */
void kofi_debugfs_init(void);
void kofi_debugfs_exit(void);

#endif /* _KOFI_CORE_H */
