/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI core: declarations shared by the files of kofi.ko only.
 */
#ifndef _KOFI_CORE_H
#define _KOFI_CORE_H

#include <kofi/provider.h>

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
/* The struct fid of @obj, or NULL. */
#define KOFI_FID(obj)		({ typeof(obj) __o = (obj);		\
				   __o ? &__o->fid : NULL; })

int kofi_fid_opened(struct fid *parent, int ret, struct fid *child,
		    u32 fclass);
int kofi_fid_bind(struct fid *fid, struct fid *bfid, u64 flags);

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
