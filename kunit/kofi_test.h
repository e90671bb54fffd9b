/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI KUnit: the test-only providers and what the suites share.
 */
#ifndef _KOFI_TEST_H
#define _KOFI_TEST_H

#include <kunit/test.h>
#include <kofi/provider.h>

/*
 * What one info of a test provider looks like.  The getinfo callbacks build
 * a fresh info for every spec (the core filters them against the hints).
 */
struct ktp_spec {
	u64 caps;
	u64 mode;
	enum fi_ep_type type;
	u32 mr_mode;
	u32 addr_format;
	const char *domain;
	size_t tx_size;
};

/* The test providers: index into ktp_provs[] */
enum {
	KTP_HW,		/* "kt_hw", KOFI_PRIO_HW_RDMA */
	KTP_SW,		/* "kt_sw", KOFI_PRIO_SOFTWARE, requires FI_CONTEXT */
	KTP_UTIL,	/* "kt_util", utility: SOCK_STREAM over kt_* cores */
	KTP_NPROV,
};

extern struct kofi_provider ktp_provs[KTP_NPROV];
extern atomic_t ktp_cleanups[KTP_NPROV];

/* Test provider objects; their memory lives until ktp_free_objects(). */
struct ktp_obj {
	struct list_head node;
	void *base;		/* the allocation to free */
	int close_calls;
};

struct ktp_fabric {
	struct fid_fabric fabric;
	struct ktp_obj o;
};

struct ktp_domain {
	struct fid_domain domain;
	struct ktp_obj o;
	struct kofi_keytable kt;
	u32 addr_format;	/* of the info; the format of its AVs */
};

struct ktp_req {
	struct kofi_op op;
	size_t len;
};

struct ktp_ep {
	struct fid_ep ep;
	struct ktp_obj o;
	struct fid_cq *tx_cq;
	struct fid_cq *rx_cq;
	struct fid_eq *eq;
	struct fid_av *av;
	bool enabled;
	struct kofi_oplist ops;
};

struct ktp_mr {
	struct fid_mr mr;
	struct ktp_obj o;
	struct ktp_domain *dom;
	struct kofi_key_entry ke;
};

int ktp_register_all(void);
void ktp_deregister_all(void);
void ktp_free_objects(void);
unsigned int ktp_count(const struct fi_info *info, const char *prov_name);
unsigned int ktp_len(const struct fi_info *info);

/* Open fabric, domain and (optionally) an EP with an EQ and a CQ. */
struct ktp_stack {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_eq *eq;
	struct fid_cq *cq;
	struct fid_ep *ep;
};

int ktp_stack_open(struct kunit *test, struct ktp_stack *s, bool with_ep);
void ktp_stack_close(struct kunit *test, struct ktp_stack *s);

extern struct kunit_suite kofi_registry_suite;
extern struct kunit_suite kofi_getinfo_suite;
extern struct kunit_suite kofi_info_suite;
extern struct kunit_suite kofi_eq_suite;
extern struct kunit_suite kofi_cq_suite;
extern struct kunit_suite kofi_lifetime_suite;
extern struct kunit_suite kofi_misuse_suite;
extern struct kunit_suite kofi_keytable_suite;
extern struct kunit_suite kofi_str_suite;
extern struct kunit_suite kofi_av_suite;

#endif /* _KOFI_TEST_H */
