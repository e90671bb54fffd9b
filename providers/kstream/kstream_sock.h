/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kstream: the socket-like calls (include/kofi/kstream.h), internal part.
 *
 * A struct kstream_sock wraps what an rsocket is in librdmacm: a fabric,
 * an EQ, and either a passive endpoint (a listener) or one
 * FI_EP_SOCK_STREAM endpoint of the kstream provider.  It only uses the
 * fi_* calls, kstream_ep_poll() and fi_control(FI_GETWAIT); the stream
 * itself is the engine's.
 *
 * Waking: every waiter sleeps on @wq of the socket.  The EQ's event
 * handler wakes it, and an entry on the endpoint's FI_GETWAIT queue
 * forwards the engine's wake-ups to it, so one wait covers connection
 * events and data.
 */
#ifndef _KSTREAM_SOCK_H
#define _KSTREAM_SOCK_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <kofi/kstream.h>

/* Largest number of vector entries handed to one fi_sendmsg/fi_recvmsg. */
#define KSK_MAX_SEGS	16
/* struct kstream_sock.shut */
#define KSK_SHUT_RD		1
#define KSK_SHUT_WR		2
#define KSK_SHUT_BOTH		(KSK_SHUT_RD | KSK_SHUT_WR)
/* Keepalive interval of SO_KEEPALIVE, as tcp_keepalive_time's default. */
#define KSK_KEEPALIVE_SECS	7200

enum ksk_state {
	KSK_NEW,		/* nothing opened */
	KSK_BOUND,		/* @info holds the local address */
	KSK_LISTEN,		/* @pep listens */
	KSK_CONNECTING,		/* fi_connect() or fi_accept() issued */
	KSK_CONNECTED,		/* FI_CONNECTED seen */
	KSK_CLOSED,		/* failed or torn down; @err says why */
};

/**
 * struct ksk_fabric - a fabric shared by a listener and its accepted sockets
 * @ref: one per socket using it
 * @fabric: the kstream fabric
 */
struct ksk_fabric {
	struct kref ref;
	struct fid_fabric *fabric;
};

/**
 * struct ksk_opts - settings stored by kstream_setsockopt()
 * @rcvbuf: receive buffer bytes (FI_OPT_RECV_BUF_SIZE), 0: default
 * @sndbuf: send buffer bytes (FI_OPT_SEND_BUF_SIZE), 0: default
 * @sqsize: FI_OPT_TX_SIZE, 0: default
 * @rqsize: FI_OPT_RX_SIZE, 0: default
 * @inline_size: FI_OPT_KSTREAM_INLINE, 0: default
 * @iomapsize: FI_OPT_KSTREAM_IOMAPSIZE, 0: default
 * @has_inline: @inline_size was set (0 is a valid value)
 * @has_iomap: @iomapsize was set
 * @keepalive: SO_KEEPALIVE
 * @nodelay: TCP_NODELAY (kstream never delays sends; stored and reported)
 * @linger: SO_LINGER (stored and reported)
 * @rcvtimeo: SO_RCVTIMEO in jiffies, MAX_SCHEDULE_TIMEOUT for none
 * @sndtimeo: SO_SNDTIMEO in jiffies, MAX_SCHEDULE_TIMEOUT for none
 */
struct ksk_opts {
	size_t rcvbuf;
	size_t sndbuf;
	size_t sqsize;
	size_t rqsize;
	size_t inline_size;
	size_t iomapsize;
	bool has_inline;
	bool has_iomap;
	bool keepalive;
	bool nodelay;
	struct linger linger;
	long rcvtimeo;
	long sndtimeo;
};

/**
 * struct kstream_sock - one socket-like kstream object
 * @family: AF_INET or AF_INET6
 * @prov: "core;kstream" to ask fi_getinfo() for, or NULL for any core
 * @lock: serializes the set-up calls (bind, listen, accept, connect,
 *	setsockopt, shutdown); the data calls do not take it
 * @cm_lock: protects @state, @err and @connreq against the EQ progress
 *	made by any caller (including kstream_poll() in atomic context)
 * @state: see enum ksk_state
 * @err: pending error (negative errno) for SO_ERROR, 0 for none
 * @shut: KSK_SHUT_RD / KSK_SHUT_WR done locally
 * @nonblock: kstream_set_nonblock()
 * @opts: socket options
 * @fab: the fabric, shared with the listener that accepted us
 * @info: the endpoint's (or bound listener's) info
 * @eq: our EQ, its handler wakes @wq
 * @domain: our domain
 * @pep: the listener's passive endpoint
 * @ep: the stream endpoint
 * @epwq: the endpoint's FI_GETWAIT queue, @fwd is on it
 * @fwd: forwards wake-ups of @epwq to @wq
 * @wq: everyone waiting on this socket
 * @connreq: a listener's connection request read from @eq, not yet taken
 */
struct kstream_sock {
	int family;
	char *prov;
	struct mutex lock;		/* see above */
	spinlock_t cm_lock;		/* see above */
	enum ksk_state state;
	int err;
	u8 shut;
	bool nonblock;
	struct ksk_opts opts;
	struct ksk_fabric *fab;
	struct fi_info *info;
	struct fid_eq *eq;
	struct fid_domain *domain;
	struct fid_pep *pep;
	struct fid_ep *ep;
	wait_queue_head_t *epwq;
	struct wait_queue_entry fwd;
	wait_queue_head_t wq;
	struct fi_info *connreq;
};

/* A wait condition of ksk_wait_until(); must not sleep. */
typedef bool (*ksk_ready_fn)(struct kstream_sock *ks, __poll_t arg);

enum ksk_state ksk_progress(struct kstream_sock *ks);
long ksk_wait_until(struct kstream_sock *ks, ksk_ready_fn ready,
		    __poll_t arg, long timeo);
int ksk_take_err(struct kstream_sock *ks);
int ksk_wait_connected(struct kstream_sock *ks, long *timeo);
int ksk_apply_opts(struct kstream_sock *ks, struct fid *fid);
long ksk_intr_errno(long timeo);

#endif /* _KSTREAM_SOCK_H */
