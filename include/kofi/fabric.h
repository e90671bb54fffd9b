/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kernel OpenFabrics Interface - core object model.
 *
 * This header defines what every kOFI user sees first: API versions, the
 * capability / mode / flag bits, endpoint types and address formats, the
 * fabric identifier (struct fid) every object starts with, struct fi_info
 * and its attribute blocks, and the fabric-level calls (fi_getinfo(),
 * fi_fabric(), fi_close() ...).  The other objects have their own headers:
 * fi_domain.h, fi_av.h, fi_endpoint.h, fi_cm.h, fi_eq.h, fi_rma.h and
 * fi_errno.h.
 */
#ifndef _KOFI_FABRIC_H
#define _KOFI_FABRIC_H

#include <linux/types.h>
#include <linux/bits.h>

#define FI_MAJOR_VERSION	1
#define FI_MINOR_VERSION	0

/**
 * FI_VERSION() - encode an API version
 * @major: major version
 * @minor: minor version
 */
#define FI_VERSION(major, minor)	(((u32)(major) << 16) | (u16)(minor))
/** FI_MAJOR() - major part of an API version made by FI_VERSION() */
#define FI_MAJOR(version)		((u32)(version) >> 16)
/** FI_MINOR() - minor part of an API version made by FI_VERSION() */
#define FI_MINOR(version)		((u32)(version) & 0xffff)

/**
 * typedef fi_addr_t - handle of a peer address in an address vector
 *
 * Connected (FI_EP_MSG) endpoints ignore it; pass FI_ADDR_UNSPEC.
 */
typedef u64 fi_addr_t;

#define FI_ADDR_UNSPEC		((fi_addr_t)-1)
#define FI_ADDR_NOTAVAIL	((fi_addr_t)-1)
#define FI_KEY_NOTAVAIL		((u64)-1)

/*
 * Capability bits (fi_info.caps, tx/rx attr caps), operation flags and
 * completion flags share one 64-bit space, as in libfabric.
 */
#define FI_MSG			BIT_ULL(1)
#define FI_RMA			BIT_ULL(2)
#define FI_TAGGED		BIT_ULL(3)
#define FI_ATOMIC		BIT_ULL(4)
#define FI_MULTICAST		BIT_ULL(5)

#define FI_READ			BIT_ULL(8)
#define FI_WRITE		BIT_ULL(9)
#define FI_RECV			BIT_ULL(10)
#define FI_SEND			BIT_ULL(11)
#define FI_TRANSMIT		FI_SEND
#define FI_REMOTE_READ		BIT_ULL(12)
#define FI_REMOTE_WRITE		BIT_ULL(13)

#define FI_MULTI_RECV		BIT_ULL(16)
#define FI_REMOTE_CQ_DATA	BIT_ULL(17)
#define FI_MORE			BIT_ULL(18)
#define FI_PEEK			BIT_ULL(19)
#define FI_TRIGGER		BIT_ULL(20)
#define FI_FENCE		BIT_ULL(21)

#define FI_COMPLETION		BIT_ULL(24)
#define FI_EVENT		FI_COMPLETION
#define FI_INJECT		BIT_ULL(25)
#define FI_INJECT_COMPLETE	BIT_ULL(26)
#define FI_TRANSMIT_COMPLETE	BIT_ULL(27)
#define FI_DELIVERY_COMPLETE	BIT_ULL(28)
#define FI_AFFINITY		BIT_ULL(29)

#define FI_LOCAL_COMM		BIT_ULL(49)
#define FI_REMOTE_COMM		BIT_ULL(50)
#define FI_PROV_ATTR_ONLY	BIT_ULL(54)
#define FI_NUMERICHOST		BIT_ULL(55)
#define FI_RMA_EVENT		BIT_ULL(56)
#define FI_SOURCE		BIT_ULL(57)
#define FI_NAMED_RX_CTX		BIT_ULL(58)
#define FI_DIRECTED_RECV	BIT_ULL(59)

/*
 * kOFI extension, an operation flag of the data calls (fi_sendmsg(),
 * fi_recvmsg(), fi_writemsg(), fi_readmsg(), fi_tsendmsg(),
 * fi_trecvmsg()): this call is made from a context that may sleep - a
 * task, no spinlock or RCU read lock held, interrupts enabled.  It is
 * FI_OPT_DATA_MAY_SLEEP for one call: a provider may do the call's I/O in
 * the caller's context instead of deferring it to a work item.  Only a
 * permission: a provider that has no use for it ignores it.  It sits in
 * the bits libfabric leaves to providers (60-63), clear of libfabric's
 * own flags.
 */
#define FI_MAY_SLEEP		BIT_ULL(60)

/* Every capability bit fi_getinfo() knows about. */
#define FI_CAPS_MASK	(FI_MSG | FI_RMA | FI_TAGGED | FI_ATOMIC |	\
			 FI_MULTICAST | FI_READ | FI_WRITE | FI_RECV |	\
			 FI_SEND | FI_REMOTE_READ | FI_REMOTE_WRITE |	\
			 FI_MULTI_RECV | FI_REMOTE_CQ_DATA | FI_TRIGGER | \
			 FI_FENCE | FI_LOCAL_COMM | FI_REMOTE_COMM |	\
			 FI_RMA_EVENT | FI_SOURCE | FI_NAMED_RX_CTX |	\
			 FI_DIRECTED_RECV)

/* Operation flags accepted by the *msg() data calls. */
#define FI_OP_FLAGS_MASK (FI_MULTI_RECV | FI_REMOTE_CQ_DATA | FI_MORE |	\
			  FI_FENCE | FI_COMPLETION | FI_INJECT |	\
			  FI_INJECT_COMPLETE | FI_TRANSMIT_COMPLETE |	\
			  FI_DELIVERY_COMPLETE | FI_MAY_SLEEP)

/* Flags accepted by fi_getinfo(). */
#define FI_GETINFO_FLAGS_MASK	(FI_SOURCE | FI_NUMERICHOST | FI_PROV_ATTR_ONLY)

/* Mode bits: requirements a provider places on its user. */
#define FI_CONTEXT2		BIT_ULL(52)
#define FI_RX_CQ_DATA		BIT_ULL(56)
#define FI_ASYNC_IOV		BIT_ULL(57)
#define FI_MSG_PREFIX		BIT_ULL(58)
#define FI_CONTEXT		BIT_ULL(59)

#define FI_MODE_MASK	(FI_CONTEXT2 | FI_RX_CQ_DATA | FI_ASYNC_IOV |	\
			 FI_MSG_PREFIX | FI_CONTEXT)

/*
 * Memory registration modes (fi_domain_attr.mr_mode).  A provider sets the
 * bits it requires; a user sets the bits it is prepared to honour.
 */
#define FI_MR_UNSPEC		0
#define FI_MR_LOCAL		BIT(2)
#define FI_MR_RAW		BIT(3)
#define FI_MR_VIRT_ADDR		BIT(4)
#define FI_MR_ALLOCATED		BIT(5)
#define FI_MR_PROV_KEY		BIT(6)
#define FI_MR_RMA_EVENT		BIT(8)
#define FI_MR_ENDPOINT		BIT(9)

#define FI_MR_MODE_MASK	(FI_MR_LOCAL | FI_MR_RAW | FI_MR_VIRT_ADDR |	\
			 FI_MR_ALLOCATED | FI_MR_PROV_KEY |		\
			 FI_MR_RMA_EVENT | FI_MR_ENDPOINT)

/**
 * enum fi_ep_type - endpoint (communication) type
 * @FI_EP_UNSPEC: any type (hints only)
 * @FI_EP_MSG: reliable, connected messages and RMA
 * @FI_EP_DGRAM: unreliable datagrams
 * @FI_EP_RDM: reliable, unconnected datagrams
 * @FI_EP_SOCK_STREAM: reliable, connected byte stream (kstream)
 * @FI_EP_SOCK_DGRAM: datagrams with socket semantics
 */
enum fi_ep_type {
	FI_EP_UNSPEC,
	FI_EP_MSG,
	FI_EP_DGRAM,
	FI_EP_RDM,
	FI_EP_SOCK_STREAM,
	FI_EP_SOCK_DGRAM,
};

/**
 * enum fi_addr_format - format of fi_info src_addr / dest_addr
 * @FI_FORMAT_UNSPEC: unspecified (hints only)
 * @FI_SOCKADDR: struct sockaddr_in or sockaddr_in6 (hints only)
 * @FI_SOCKADDR_IN: struct sockaddr_in (IPv4)
 * @FI_SOCKADDR_IN6: struct sockaddr_in6 (IPv6)
 */
enum fi_addr_format {
	FI_FORMAT_UNSPEC,
	FI_SOCKADDR,
	FI_SOCKADDR_IN,
	FI_SOCKADDR_IN6,
};

/**
 * enum fi_threading - threading model of a domain
 * @FI_THREAD_UNSPEC: any (hints only)
 * @FI_THREAD_SAFE: every object may be used from any thread concurrently
 * @FI_THREAD_DOMAIN: the user serialises calls per domain
 * @FI_THREAD_ENDPOINT: the user serialises calls per endpoint
 * @FI_THREAD_COMPLETION: the user serialises calls per completion queue
 */
enum fi_threading {
	FI_THREAD_UNSPEC,
	FI_THREAD_SAFE,
	FI_THREAD_DOMAIN,
	FI_THREAD_ENDPOINT,
	FI_THREAD_COMPLETION,
};

/**
 * enum fi_progress - who drives progress
 * @FI_PROGRESS_UNSPEC: any (hints only)
 * @FI_PROGRESS_AUTO: the provider (softirq, workqueue, hardware)
 * @FI_PROGRESS_MANUAL: the user, by calling into the provider
 */
enum fi_progress {
	FI_PROGRESS_UNSPEC,
	FI_PROGRESS_AUTO,
	FI_PROGRESS_MANUAL,
};

/**
 * enum fi_resource_mgmt - whether the provider protects against overruns
 * @FI_RM_UNSPEC: any (hints only)
 * @FI_RM_DISABLED: the user must not overrun queues
 * @FI_RM_ENABLED: the provider returns -EAGAIN instead of overrunning
 */
enum fi_resource_mgmt {
	FI_RM_UNSPEC,
	FI_RM_DISABLED,
	FI_RM_ENABLED,
};

/**
 * enum fi_iov_type - type tag of the I/O vector in a message or MR attr
 * @FI_IOV_KVEC: array of struct kvec (kmalloc'd or vmalloc'd memory)
 * @FI_IOV_BVEC: array of struct bio_vec (pages)
 * @FI_IOV_SG: scatterlist (sg_next() chained, iov_count entries)
 */
enum fi_iov_type {
	FI_IOV_KVEC,
	FI_IOV_BVEC,
	FI_IOV_SG,
};

/**
 * enum fi_fclass - class of a struct fid
 * @FI_CLASS_UNSPEC: not a valid object
 * @FI_CLASS_FABRIC: struct fid_fabric
 * @FI_CLASS_DOMAIN: struct fid_domain
 * @FI_CLASS_EP: struct fid_ep (active endpoint)
 * @FI_CLASS_PEP: struct fid_pep (passive, listening endpoint)
 * @FI_CLASS_AV: address vector
 * @FI_CLASS_MR: struct fid_mr
 * @FI_CLASS_EQ: struct fid_eq
 * @FI_CLASS_CQ: struct fid_cq
 * @FI_CLASS_CNTR: counter
 * @FI_CLASS_CONNREQ: connection request handle (fi_info.handle of FI_CONNREQ)
 * @FI_CLASS_SRX_CTX: struct fid_ep of a shared receive context
 *	(fi_srx_context())
 * @FI_CLASS_MAX: number of classes
 */
enum fi_fclass {
	FI_CLASS_UNSPEC,
	FI_CLASS_FABRIC,
	FI_CLASS_DOMAIN,
	FI_CLASS_EP,
	FI_CLASS_PEP,
	FI_CLASS_AV,
	FI_CLASS_MR,
	FI_CLASS_EQ,
	FI_CLASS_CQ,
	FI_CLASS_CNTR,
	FI_CLASS_CONNREQ,
	FI_CLASS_SRX_CTX,
	FI_CLASS_MAX,
};

/* fi_control() commands */
#define FI_GETFIDFLAG	1
#define FI_SETFIDFLAG	2
#define FI_GETOPSFLAG	3
#define FI_SETOPSFLAG	4
#define FI_ENABLE	5
#define FI_BACKLOG	6
#define FI_GETWAIT	7	/* wait_queue_head_t **: the fid's wait queue */
#define FI_TAGGED_RX_RETRY 8	/* fi_tagged.h: FI_OPT_TAGGED_RX */

struct fid;
struct fid_fabric;
struct fid_domain;
struct fid_ep;
struct fid_pep;
struct fid_eq;
struct fid_cq;
struct fid_mr;
struct fi_eq_attr;
struct module;

/**
 * struct fi_ops - operations every object has
 * @close: release the object.  Called by fi_close() once the core has
 *	checked that no child or binding holds the object; on success the
 *	provider must not touch @fid again.  Process context, may sleep.
 * @bind: optional; a binding of fi_ep_bind() or fi_pep_bind() the core
 *	has checked (see fi_ep_bind()), called before the core records it,
 *	to refuse what the provider cannot do.  An error leaves nothing
 *	bound.  The provider reads bindings with kofi_ep_cq(), kofi_ep_eq(),
 *	kofi_ep_av() and kofi_pep_eq().  Process context, may sleep.
 * @control: object-specific control commands (FI_ENABLE ...).
 */
struct fi_ops {
	int (*close)(struct fid *fid);
	int (*bind)(struct fid *fid, struct fid *bfid, u64 flags);
	int (*control)(struct fid *fid, int command, void *arg);
};

/**
 * struct fid - fabric identifier, the first member of every kOFI object
 * @fclass: object class, enum fi_fclass
 * @context: user context given when the object was opened
 * @ops: provider operations
 * @core: opaque handle of the object's state in kofi.ko (its references,
 *	parent and bindings), set by kofi_fid_init() and the core's open and
 *	close calls; providers and users must not touch it.
 */
struct fid {
	u32 fclass;
	void *context;
	const struct fi_ops *ops;
	unsigned long core;
};

/**
 * struct fi_tx_attr - transmit context attributes
 * @caps: transmit capabilities
 * @mode: transmit mode bits
 * @op_flags: default operation flags
 * @msg_order: message ordering guarantees (provider defined bits)
 * @comp_order: completion ordering guarantees
 * @inject_size: largest fi_inject() / FI_INJECT payload
 * @size: number of outstanding transmit operations
 * @iov_limit: largest iov_count of a transmit
 * @rma_iov_limit: largest rma_iov_count of an RMA operation
 */
struct fi_tx_attr {
	u64 caps;
	u64 mode;
	u64 op_flags;
	u64 msg_order;
	u64 comp_order;
	size_t inject_size;
	size_t size;
	size_t iov_limit;
	size_t rma_iov_limit;
};

/**
 * struct fi_rx_attr - receive context attributes
 * @caps: receive capabilities
 * @mode: receive mode bits
 * @op_flags: default operation flags
 * @msg_order: message ordering guarantees
 * @comp_order: completion ordering guarantees
 * @total_buffered_recv: bytes the provider buffers for unexpected messages
 * @size: number of outstanding receive operations
 * @iov_limit: largest iov_count of a receive
 */
struct fi_rx_attr {
	u64 caps;
	u64 mode;
	u64 op_flags;
	u64 msg_order;
	u64 comp_order;
	size_t total_buffered_recv;
	size_t size;
	size_t iov_limit;
};

/**
 * struct fi_ep_attr - endpoint attributes
 * @type: endpoint type
 * @protocol: wire protocol (provider defined, 0 = unspecified)
 * @protocol_version: wire protocol version
 * @max_msg_size: largest message or RMA transfer
 * @msg_prefix_size: bytes of prefix with FI_MSG_PREFIX
 * @max_cm_data_size: largest connection data of fi_connect()/fi_accept()
 * @tx_ctx_cnt: transmit contexts per endpoint
 * @rx_ctx_cnt: receive contexts per endpoint
 */
struct fi_ep_attr {
	enum fi_ep_type type;
	u32 protocol;
	u32 protocol_version;
	size_t max_msg_size;
	size_t msg_prefix_size;
	size_t max_cm_data_size;
	size_t tx_ctx_cnt;
	size_t rx_ctx_cnt;
};

/**
 * struct fi_domain_attr - domain attributes
 * @domain: open domain, if the info was obtained for one
 * @name: domain (device) name, e.g. "rxe0" or "ksocket"
 * @threading: threading model
 * @control_progress: progress model of control operations
 * @data_progress: progress model of data operations
 * @resource_mgmt: resource management
 * @mr_mode: FI_MR_* bits required (provider) or honoured (user hints)
 * @mr_key_size: bytes of a remote key
 * @cq_data_size: bytes of remote CQ data (senddata/writedata)
 * @cq_cnt: completion queues supported
 * @ep_cnt: endpoints supported
 * @mr_cnt: memory regions supported
 * @mr_iov_limit: largest iov_count of fi_mr_regv()/fi_mr_regattr()
 * @max_ep_srx_ctx: shared receive contexts (fi_srx_context()) the domain
 *	can open; 0 if it has none
 * @caps: domain capabilities
 * @mode: domain mode bits
 */
struct fi_domain_attr {
	struct fid_domain *domain;
	char *name;
	enum fi_threading threading;
	enum fi_progress control_progress;
	enum fi_progress data_progress;
	enum fi_resource_mgmt resource_mgmt;
	u32 mr_mode;
	size_t mr_key_size;
	size_t cq_data_size;
	size_t cq_cnt;
	size_t ep_cnt;
	size_t mr_cnt;
	size_t mr_iov_limit;
	size_t max_ep_srx_ctx;
	u64 caps;
	u64 mode;
};

/**
 * struct fi_fabric_attr - fabric attributes
 * @fabric: open fabric, if the info was obtained for one
 * @name: fabric name (e.g. a network or subnet)
 * @prov_name: provider name, "core;utility" for layered providers
 * @prov_version: provider version, FI_VERSION() form
 * @api_version: API version the info was obtained with
 */
struct fi_fabric_attr {
	struct fid_fabric *fabric;
	char *name;
	char *prov_name;
	u32 prov_version;
	u32 api_version;
};

/**
 * struct fi_info - description of one way to use a fabric
 * @next: next entry of a list returned by fi_getinfo()
 * @caps: capabilities
 * @mode: mode bits the user must honour
 * @addr_format: enum fi_addr_format of @src_addr and @dest_addr
 * @src_addrlen: bytes at @src_addr
 * @dest_addrlen: bytes at @dest_addr
 * @src_addr: local address, or NULL
 * @dest_addr: peer address, or NULL
 * @handle: for an FI_CONNREQ event, the connection request to give to
 *	fi_endpoint() or fi_reject(); otherwise NULL
 * @tx_attr: transmit attributes
 * @rx_attr: receive attributes
 * @ep_attr: endpoint attributes
 * @domain_attr: domain attributes
 * @fabric_attr: fabric attributes
 *
 * Every pointer is owned by the info: fi_freeinfo() frees them (but never
 * @handle), fi_dupinfo() copies them deeply.  The private member links a
 * utility provider's info to the core provider's info under it (see
 * <kofi/util.h>); an info built by its user leaves it zeroed.
 */
struct fi_info {
	struct fi_info *next;
	u64 caps;
	u64 mode;
	u32 addr_format;
	size_t src_addrlen;
	size_t dest_addrlen;
	void *src_addr;
	void *dest_addr;
	struct fid *handle;
	struct fi_tx_attr *tx_attr;
	struct fi_rx_attr *rx_attr;
	struct fi_ep_attr *ep_attr;
	struct fi_domain_attr *domain_attr;
	struct fi_fabric_attr *fabric_attr;
	/* private: */
	struct fi_info *util_core;
};

/**
 * struct fi_ops_fabric - fabric operations
 * @domain: open a domain, see fi_domain()
 * @passive_ep: open a passive endpoint, see fi_passive_ep()
 * @eq_open: open an event queue, see fi_eq_open(); kofi_eq_open_generic()
 *	is the shared implementation
 */
struct fi_ops_fabric {
	int (*domain)(struct fid_fabric *fabric, struct fi_info *info,
		      struct fid_domain **domain, void *context);
	int (*passive_ep)(struct fid_fabric *fabric, struct fi_info *info,
			  struct fid_pep **pep, void *context);
	int (*eq_open)(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		       struct fid_eq **eq, void *context);
};

/**
 * struct fid_fabric - an open fabric
 * @fid: object identity, class FI_CLASS_FABRIC
 * @ops: fabric operations
 * @api_version: API version the fabric was opened with
 */
struct fid_fabric {
	struct fid fid;
	const struct fi_ops_fabric *ops;
	u32 api_version;
	/* private: */
	struct module *owner;
};

/**
 * enum fi_type - what fi_tostr() prints
 * @FI_TYPE_INFO: struct fi_info (one entry, not the list)
 * @FI_TYPE_EP_TYPE: enum fi_ep_type
 * @FI_TYPE_CAPS: u64 capability bits
 * @FI_TYPE_OP_FLAGS: u64 operation flags
 * @FI_TYPE_ADDR_FORMAT: u32 enum fi_addr_format
 * @FI_TYPE_TX_ATTR: struct fi_tx_attr
 * @FI_TYPE_RX_ATTR: struct fi_rx_attr
 * @FI_TYPE_EP_ATTR: struct fi_ep_attr
 * @FI_TYPE_DOMAIN_ATTR: struct fi_domain_attr
 * @FI_TYPE_FABRIC_ATTR: struct fi_fabric_attr
 * @FI_TYPE_MR_MODE: u32 FI_MR_* bits
 * @FI_TYPE_MODE: u64 mode bits
 * @FI_TYPE_EQ_EVENT: u32 EQ event (FI_CONNREQ ...)
 * @FI_TYPE_CQ_FORMAT: enum fi_cq_format
 * @FI_TYPE_FID_CLASS: u32 enum fi_fclass
 * @FI_TYPE_VERSION: u32 FI_VERSION() value
 * @FI_TYPE_AV_TYPE: enum fi_av_type
 */
enum fi_type {
	FI_TYPE_INFO,
	FI_TYPE_EP_TYPE,
	FI_TYPE_CAPS,
	FI_TYPE_OP_FLAGS,
	FI_TYPE_ADDR_FORMAT,
	FI_TYPE_TX_ATTR,
	FI_TYPE_RX_ATTR,
	FI_TYPE_EP_ATTR,
	FI_TYPE_DOMAIN_ATTR,
	FI_TYPE_FABRIC_ATTR,
	FI_TYPE_MR_MODE,
	FI_TYPE_MODE,
	FI_TYPE_EQ_EVENT,
	FI_TYPE_CQ_FORMAT,
	FI_TYPE_FID_CLASS,
	FI_TYPE_VERSION,
	FI_TYPE_AV_TYPE,
};

u32 fi_version(void);

int fi_getinfo(u32 version, const char *node, const char *service,
	       u64 flags, const struct fi_info *hints, struct fi_info **info);
struct fi_info *fi_allocinfo(gfp_t gfp);
struct fi_info *fi_dupinfo(const struct fi_info *info, gfp_t gfp);
void fi_freeinfo(struct fi_info *info);

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
	      void *context);
int fi_close(struct fid *fid);
int fi_control(struct fid *fid, int command, void *arg);

char *fi_tostr(char *buf, size_t len, const void *data, enum fi_type type);

#endif /* _KOFI_FABRIC_H */
