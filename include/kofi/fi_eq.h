/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kernel OpenFabrics Interface - event queues and completion queues.
 *
 * An event queue (EQ) reports control events: connection management
 * (FI_CONNREQ, FI_CONNECTED, FI_SHUTDOWN) and the user's own
 * (fi_eq_write()).  Registration is synchronous in kOFI: no provider
 * reports FI_MR_COMPLETE, whose number is kept for libfabric's sake.
 * A completion queue (CQ) reports finished data
 * transfers.  Both are bounded; an error is reported as an error entry
 * (fi_eq_readerr(), fi_cq_readerr()), signalled by -FI_EAVAIL from the read
 * calls.  kofi.ko has a shared implementation every provider may use
 * (kofi_eq_open_generic(), kofi_cq_open_generic(), see provider.h).
 *
 * A CQ opened with FI_CQ_CALLBACK has no ring: each operation's context is
 * a struct fi_cqe the caller embeds in its request, and the provider calls
 * its done() with the completion instead of queuing it.
 */
#ifndef _KOFI_FI_EQ_H
#define _KOFI_FI_EQ_H

#include <kofi/fabric.h>

/* EQ events */
#define FI_NOTIFY		0
#define FI_CONNREQ		1
#define FI_CONNECTED		2
#define FI_SHUTDOWN		3
#define FI_MR_COMPLETE		4
#define FI_AV_COMPLETE		5
#define FI_JOIN_COMPLETE	6

/* Largest connection data an EQ entry carries (fi_eq_cm_entry.data). */
#define FI_CM_DATA_MAX		256
/* Largest provider error data an error entry carries. */
#define FI_ERR_DATA_MAX		256

/* Default number of entries of an EQ / CQ opened with size 0. */
#define FI_EQ_DEFAULT_SIZE	64
#define FI_CQ_DEFAULT_SIZE	1024
/* Largest EQ / CQ the shared implementation accepts. */
#define FI_EQ_MAX_SIZE		4096
#define FI_CQ_MAX_SIZE		65536

/**
 * struct fi_eq_attr - event queue attributes
 * @size: number of entries; 0 selects FI_EQ_DEFAULT_SIZE
 * @flags: reserved, must be 0
 * @event_handler: if set, called after an event (or error entry) has been
 *	queued.  Context: the context of the provider's event source: process
 *	context (rdma_cm callbacks, workqueues) or softirq (socket callbacks);
 *	no kOFI lock is held, but the handler must not sleep.  It receives
 *	the EQ and the context given to fi_eq_open(); it typically wakes or
 *	schedules the ULP, which then calls fi_eq_read().
 */
struct fi_eq_attr {
	size_t size;
	u64 flags;
	void (*event_handler)(struct fid_eq *eq, void *context);
};

/**
 * struct fi_eq_entry - entry of FI_NOTIFY, FI_CONNECTED, FI_SHUTDOWN and
 *	user events (fi_eq_write())
 * @fid: object the event is about (endpoint, MR ...)
 * @context: that object's context
 * @data: event data
 */
struct fi_eq_entry {
	struct fid *fid;
	void *context;
	u64 data;
};

/**
 * struct fi_eq_cm_entry - entry of connection events
 * @fid: passive endpoint (FI_CONNREQ) or endpoint (FI_CONNECTED, FI_SHUTDOWN)
 * @info: for FI_CONNREQ, the connection's info: pass it to fi_endpoint()
 *	(its @handle) or fi_reject(), then free it with fi_freeinfo().  NULL
 *	for other events.
 * @data: connection data sent by the peer; the read length says how much
 *	(bytes read - sizeof(struct fi_eq_cm_entry))
 */
struct fi_eq_cm_entry {
	struct fid *fid;
	struct fi_info *info;
	u8 data[];
};

/**
 * struct fi_eq_err_entry - EQ error entry, read with fi_eq_readerr()
 * @fid: object the error is about
 * @context: that object's context
 * @data: event data
 * @err: positive errno (e.g. ECONNREFUSED for a rejected fi_connect())
 * @prov_errno: provider-specific error
 * @err_data: on input, a buffer of @err_data_size bytes for provider error
 *	data (such as a reject's connection data), or NULL; on output,
 *	unchanged if data was copied, NULL if not
 * @err_data_size: on input the size of @err_data; on output the bytes copied
 */
struct fi_eq_err_entry {
	struct fid *fid;
	void *context;
	u64 data;
	int err;
	int prov_errno;
	void *err_data;
	size_t err_data_size;
};

/**
 * enum fi_cq_format - format of the entries fi_cq_read() returns
 * @FI_CQ_FORMAT_UNSPEC: provider default (FI_CQ_FORMAT_CONTEXT)
 * @FI_CQ_FORMAT_CONTEXT: struct fi_cq_entry
 * @FI_CQ_FORMAT_MSG: struct fi_cq_msg_entry
 * @FI_CQ_FORMAT_DATA: struct fi_cq_data_entry
 * @FI_CQ_FORMAT_TAGGED: struct fi_cq_tagged_entry
 */
enum fi_cq_format {
	FI_CQ_FORMAT_UNSPEC,
	FI_CQ_FORMAT_CONTEXT,
	FI_CQ_FORMAT_MSG,
	FI_CQ_FORMAT_DATA,
	FI_CQ_FORMAT_TAGGED,
};

/**
 * enum fi_cq_wait_cond - when fi_cq_sread() wakes up
 * @FI_CQ_COND_NONE: as soon as one entry is available
 * @FI_CQ_COND_THRESHOLD: once *(size_t *)cond entries are available (or
 *	an error entry, a signal, or the timeout)
 */
enum fi_cq_wait_cond {
	FI_CQ_COND_NONE,
	FI_CQ_COND_THRESHOLD,
};

/*
 * fi_cq_attr.flags: FI_CQ_CALLBACK opens a callback CQ.  It has no ring:
 * every operation completing to it must have a struct fi_cqe as its
 * context, and the provider completes the operation by calling that
 * object's done() (see struct fi_cqe) instead of queuing an entry.
 * fi_cq_read(), fi_cq_readfrom(), fi_cq_readerr(), fi_cq_sread(),
 * fi_cq_sreadfrom() and fi_cq_signal() on it return -EOPNOTSUPP.  @size,
 * @format, @wait_cond and @signaling_vector are not used; @comp_handler
 * must be NULL.
 */
#define FI_CQ_CALLBACK		BIT_ULL(0)

/**
 * struct fi_cq_attr - completion queue attributes
 * @size: number of entries; 0 selects FI_CQ_DEFAULT_SIZE
 * @flags: 0, or FI_CQ_CALLBACK for a callback CQ
 * @format: entry format
 * @wait_cond: wake-up condition of fi_cq_sread()
 * @signaling_vector: preferred CPU / interrupt vector, or -1 (hint)
 * @comp_handler: if set, called after completions (or an error entry) have
 *	been written.  Context: the provider's completion context - softirq
 *	(ib_cqe done callbacks, socket callbacks) or a workqueue - with no kOFI
 *	lock held; the handler must not sleep.  It receives the CQ and the
 *	context given to fi_cq_open(); fi_cq_read() may be called from it.
 *	Must be NULL with FI_CQ_CALLBACK.
 */
struct fi_cq_attr {
	size_t size;
	u64 flags;
	enum fi_cq_format format;
	enum fi_cq_wait_cond wait_cond;
	int signaling_vector;
	void (*comp_handler)(struct fid_cq *cq, void *context);
};

/**
 * struct fi_cq_entry - FI_CQ_FORMAT_CONTEXT entry
 * @op_context: context of the completed operation
 */
struct fi_cq_entry {
	void *op_context;
};

/**
 * struct fi_cq_msg_entry - FI_CQ_FORMAT_MSG entry
 * @op_context: context of the completed operation
 * @flags: FI_SEND, FI_RECV, FI_RMA, FI_READ, FI_WRITE, FI_REMOTE_* ...
 * @len: bytes received (receives); 0 or the length for other operations
 */
struct fi_cq_msg_entry {
	void *op_context;
	u64 flags;
	size_t len;
};

/**
 * struct fi_cq_data_entry - FI_CQ_FORMAT_DATA entry
 * @op_context: context of the completed operation
 * @flags: completion flags, FI_REMOTE_CQ_DATA if @data is valid
 * @len: bytes received
 * @buf: start of the received data (multi-receive buffers), or NULL
 * @data: remote CQ data (senddata/writedata)
 */
struct fi_cq_data_entry {
	void *op_context;
	u64 flags;
	size_t len;
	void *buf;
	u64 data;
};

/**
 * struct fi_cq_tagged_entry - FI_CQ_FORMAT_TAGGED entry
 * @op_context: context of the completed operation
 * @flags: completion flags (FI_TAGGED for tagged messages)
 * @len: bytes received
 * @buf: start of the received data (multi-receive buffers), or NULL
 * @data: remote CQ data
 * @tag: a tagged receive's message tag; 0 for other operations
 */
struct fi_cq_tagged_entry {
	void *op_context;
	u64 flags;
	size_t len;
	void *buf;
	u64 data;
	u64 tag;
};

/**
 * struct fi_cq_err_entry - CQ error entry, read with fi_cq_readerr()
 * @op_context: context of the failed operation (NULL for an overrun)
 * @flags: completion flags of the failed operation
 * @len: bytes transferred before the error
 * @buf: receive buffer, or NULL
 * @data: remote CQ data, if any
 * @tag: the message tag of a failed tagged receive, if the provider knows
 *	it, else 0
 * @olen: bytes that did not fit the receive buffer (EMSGSIZE)
 * @err: positive errno: ECANCELED (operation flushed by fi_close() or
 *	fi_cancel()), EMSGSIZE (truncated), EOVERFLOW (queue overrun: completions
 *	were lost, @prov_errno says how many), EIO, ECONNRESET ...
 * @prov_errno: provider-specific error (count of lost entries for EOVERFLOW)
 * @err_data: as in struct fi_eq_err_entry
 * @err_data_size: as in struct fi_eq_err_entry
 */
struct fi_cq_err_entry {
	void *op_context;
	u64 flags;
	size_t len;
	void *buf;
	u64 data;
	u64 tag;
	size_t olen;
	int err;
	int prov_errno;
	void *err_data;
	size_t err_data_size;
};

struct fid_cq;

/**
 * struct fi_cqe - the completion of an operation on a callback CQ
 * @done: called once when the operation completes, successfully or not
 *	(also when it is flushed by fi_close() or fi_shutdown() of its
 *	endpoint, with err ECANCELED)
 *
 * The caller embeds it in its request, sets @done and passes its address
 * as the operation's context; @done finds the request with container_of().
 * @done receives the CQ, the object, and the completion in the form of an
 * error entry: @comp->op_context is the object, @comp->err is 0 for a
 * success and a positive errno for a failure, the other members as
 * fi_cq_readerr() would return them (as fi_cq_read() in FI_CQ_FORMAT_DATA
 * for a success; no source address).  @comp is valid during the call
 * only; the object is the caller's again as soon as @done is called.
 *
 * Context of @done: the context the provider completes the operation in,
 * documented per provider - ib_verbs: the done callback of its ib_cqe,
 * softirq (its ib_cq is polled with IB_POLL_SOFTIRQ), also for what the
 * QP's drain flushes; operations still held once its CQ is gone, in the
 * task calling fi_close().  ksocket: its socket callbacks (softirq, or
 * process context when release_sock() replays the socket's backlog), its
 * work item (process context), the data call that sent the operation,
 * and the caller of fi_close(), fi_shutdown() or fi_cancel() for what
 * they cancel.  No lock of the CQ is held; @done must not sleep and may
 * post new operations (they may then complete, and call a done(), before
 * the post returns).
 */
struct fi_cqe {
	void (*done)(struct fid_cq *cq, struct fi_cqe *cqe,
		     const struct fi_cq_err_entry *comp);
};

/**
 * struct fi_ops_eq - event queue operations
 * @read: see fi_eq_read()
 * @readerr: see fi_eq_readerr()
 * @write: see fi_eq_write()
 * @sread: see fi_eq_sread()
 */
struct fi_ops_eq {
	ssize_t (*read)(struct fid_eq *eq, u32 *event, void *buf, size_t len,
			u64 flags);
	ssize_t (*readerr)(struct fid_eq *eq, struct fi_eq_err_entry *buf,
			   u64 flags);
	ssize_t (*write)(struct fid_eq *eq, u32 event, const void *buf,
			 size_t len, u64 flags);
	ssize_t (*sread)(struct fid_eq *eq, u32 *event, void *buf, size_t len,
			 int timeout, u64 flags);
};

/**
 * struct fid_eq - an open event queue
 * @fid: object identity, class FI_CLASS_EQ
 * @ops: event queue operations
 */
struct fid_eq {
	struct fid fid;
	const struct fi_ops_eq *ops;
};

/**
 * struct fi_ops_cq - completion queue operations
 * @read: see fi_cq_read()
 * @readfrom: see fi_cq_readfrom()
 * @readerr: see fi_cq_readerr()
 * @sread: see fi_cq_sread()
 * @sreadfrom: see fi_cq_sreadfrom()
 * @signal: see fi_cq_signal()
 */
struct fi_ops_cq {
	ssize_t (*read)(struct fid_cq *cq, void *buf, size_t count);
	ssize_t (*readfrom)(struct fid_cq *cq, void *buf, size_t count,
			    fi_addr_t *src_addr);
	ssize_t (*readerr)(struct fid_cq *cq, struct fi_cq_err_entry *buf,
			   u64 flags);
	ssize_t (*sread)(struct fid_cq *cq, void *buf, size_t count,
			 const void *cond, int timeout);
	ssize_t (*sreadfrom)(struct fid_cq *cq, void *buf, size_t count,
			     fi_addr_t *src_addr, const void *cond,
			     int timeout);
	int (*signal)(struct fid_cq *cq);
};

/**
 * struct fid_cq - an open completion queue
 * @fid: object identity, class FI_CLASS_CQ
 * @ops: completion queue operations
 */
struct fid_cq {
	struct fid fid;
	const struct fi_ops_cq *ops;
};

int fi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
	       struct fid_eq **eq, void *context);
ssize_t fi_eq_read(struct fid_eq *eq, u32 *event, void *buf, size_t len,
		   u64 flags);
ssize_t fi_eq_readerr(struct fid_eq *eq, struct fi_eq_err_entry *buf,
		      u64 flags);
ssize_t fi_eq_write(struct fid_eq *eq, u32 event, const void *buf,
		    size_t len, u64 flags);
ssize_t fi_eq_sread(struct fid_eq *eq, u32 *event, void *buf, size_t len,
		    int timeout, u64 flags);

int fi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
	       struct fid_cq **cq, void *context);
ssize_t fi_cq_read(struct fid_cq *cq, void *buf, size_t count);
ssize_t fi_cq_readfrom(struct fid_cq *cq, void *buf, size_t count,
		       fi_addr_t *src_addr);
ssize_t fi_cq_readerr(struct fid_cq *cq, struct fi_cq_err_entry *buf,
		      u64 flags);
ssize_t fi_cq_sread(struct fid_cq *cq, void *buf, size_t count,
		    const void *cond, int timeout);
ssize_t fi_cq_sreadfrom(struct fid_cq *cq, void *buf, size_t count,
			fi_addr_t *src_addr, const void *cond, int timeout);
int fi_cq_signal(struct fid_cq *cq);

#endif /* _KOFI_FI_EQ_H */
