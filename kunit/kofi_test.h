/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI KUnit: the test-only providers and what the suites share.
 */
#ifndef _KOFI_TEST_H
#define _KOFI_TEST_H

#include <kunit/test.h>
#include <kofi/provider.h>
#include <kofi/fi_tagged.h>

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
	size_t srx;		/* max_ep_srx_ctx: 0, or its srx_ctx op */
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
	int close_err;		/* endpoints: the next close fails with it */
	unsigned int close_refs;	/* endpoints: references seen in close */
	bool close_held;	/* endpoints: close could hold its own fid */
};

struct ktp_fabric {
	struct fid_fabric fabric;
	struct ktp_obj o;
};

struct ktp_ep;

/* The data operation tables ktp_ep_open() gives an endpoint. */
enum ktp_ep_tables {
	KTP_TABLES_ALL,		/* message and RMA, every operation */
	KTP_TABLES_NONE,	/* ep->ops and the data tables NULL */
	KTP_TABLES_MSG_SEND,	/* a message table with sendmsg only */
	KTP_TABLES_RMA_READ,	/* an RMA table with readmsg only */
	KTP_TABLES_TAGGED_RECV,	/* a tagged table with trecvmsg only */
};

struct ktp_domain {
	struct fid_domain domain;
	struct ktp_obj o;
	struct kofi_keytable kt;
	enum ktp_ep_tables ep_tables;	/* for the endpoints opened next */
	struct ktp_ep *last_ep;		/* the endpoint opened last */
	struct ktp_ep *last_srx;	/* the shared receive context, likewise */
	u32 addr_format;	/* of the info; the format of its AVs */
};

struct ktp_req {
	struct kofi_op op;
	size_t len;
};

/* Which data operation of a test endpoint ran */
enum ktp_op {
	KTP_OP_NONE,
	KTP_OP_RECVMSG,
	KTP_OP_SENDMSG,
	KTP_OP_READMSG,
	KTP_OP_WRITEMSG,
	KTP_OP_TRECVMSG,
	KTP_OP_TSENDMSG,
};

/* What the last data operation of a test endpoint was given. */
struct ktp_call {
	unsigned int calls;		/* data operations so far */
	enum ktp_op op;
	u64 flags;
	enum fi_iov_type iov_type;
	const void *vec;		/* msg->msg_iov */
	size_t iov_count;
	struct kvec iov0;		/* the first kvec (FI_IOV_KVEC) */
	bool has_desc;			/* msg->desc != NULL */
	void *desc0;			/* msg->desc[0] */
	fi_addr_t addr;
	void *context;
	u64 data;
	size_t rma_iov_count;
	struct fi_rma_iov rma0;		/* the first remote segment */
	u64 tag;			/* tagged operations */
	u64 ignore;
};

struct ktp_ep {
	struct fid_ep ep;
	struct ktp_obj o;
	struct ktp_call last;
	bool enabled;
	struct kofi_oplist ops;
	/* calls made from inside the provider's operations, and their answers */
	struct fid *enable_binds;	/* the enable op binds it (flags 0) */
	int enable_bind_ret;
	bool bind_enables;		/* the bind op calls fi_enable() */
	int bind_enable_ret;
};

struct ktp_mr {
	struct fid_mr mr;
	struct ktp_obj o;
	struct ktp_domain *dom;
	struct kofi_key_entry ke;
};

int ktp_register_all(void);
int ktp_suite_init(struct kunit_suite *suite);
void ktp_suite_exit(struct kunit_suite *suite);
void ktp_test_exit(struct kunit *test);
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
extern struct kunit_suite kofi_data_suite;
extern struct kunit_suite kofi_str_suite;
extern struct kunit_suite kofi_av_suite;
extern struct kunit_suite kofi_util_suite;
extern struct kunit_suite kofi_match_suite;

#endif /* _KOFI_TEST_H */
