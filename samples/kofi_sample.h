/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI samples: what the sample ULPs share - setting up one connected
 * FI_EP_MSG endpoint over any provider (server: passive endpoint and
 * fi_accept(); client: fi_connect()), a registered buffer, waiting for
 * completions with a timeout, the fabtests-style result row and the data
 * pattern used for verification.  The data calls serve connected and
 * reliable-datagram (FI_EP_RDM, kofi_sample_rdm.h) endpoints alike, with
 * messages or tagged messages.
 *
 * Everything here runs in process context (module init) and may sleep.
 * Nothing in it is specific to a provider: the provider is a parameter.
 */
#ifndef _KOFI_SAMPLE_H
#define _KOFI_SAMPLE_H

#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kofi/fabric.h>
#include <kofi/fi_av.h>
#include <kofi/fi_domain.h>
#include <kofi/fi_endpoint.h>
#include <kofi/fi_cm.h>
#include <kofi/fi_eq.h>
#include <kofi/fi_rma.h>
#include <kofi/fi_tagged.h>
#include <kofi/fi_errno.h>
#include <kofi/ib_verbs.h>

/* The tag of every tagged message (fi_pingpong's); receives ignore none. */
#define KS_TAG		1234

/**
 * struct ks_conn - one connected endpoint and its resources
 * @info: the endpoint's info
 * @fabric: fabric
 * @domain: domain
 * @eq: event queue of the endpoint (and of the listener)
 * @txcq: transmit CQ
 * @rxcq: receive CQ
 * @pep: the listener (server), closed once connected
 * @ep: the endpoint
 * @av: FI_EP_RDM: the address vector holding the peer
 * @peer: destination of every transfer: FI_ADDR_UNSPEC on a connected
 *	endpoint, the peer's AV entry on an FI_EP_RDM one
 * @rdm: the endpoint is FI_EP_RDM (kofi_sample_rdm.h sets it up)
 * @tagged: transfer tagged messages (tag KS_TAG), not messages
 * @rma: the sample makes RMA calls: the peer's key is needed
 * @inject: sends below the info's inject_size are injected
 * @mr: registration of @buf
 * @desc: fi_mr_desc() of @mr
 * @buf: tx half then rx half, @half bytes each
 * @half: bytes of each half
 * @raddr: the peer's buffer: remote address of its first byte
 * @rkey: the peer's key
 * @timeout_ms: wait limit of every wait
 * @defer_io: do not set FI_OPT_DATA_MAY_SLEEP (the samples make every
 *	data call from process context and set it unless told not to)
 * @retry_opts: set the endpoint's FI_OPT_RETRY_COUNT and FI_OPT_ACK_TIMEOUT
 *	(ib_verbs) to @retry_count and @ack_timeout
 * @retry_count: see @retry_opts
 * @ack_timeout: see @retry_opts
 * @keepalive_ms: non-zero: the endpoint's FI_OPT_KEEPALIVE_MS
 * @linger_ms: keep the idle connection up this long at the end and report
 *	how it ended
 * @ended: the connection already ended (ks_sync_last()): nothing to wait for
 */
struct ks_conn {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_eq *eq;
	struct fid_cq *txcq;
	struct fid_cq *rxcq;
	struct fid_pep *pep;
	struct fid_ep *ep;
	struct fid_av *av;
	fi_addr_t peer;
	bool rdm;
	bool tagged;
	bool rma;
	bool inject;
	struct fid_mr *mr;
	void *desc;
	u8 *buf;
	size_t half;
	u64 raddr;
	u64 rkey;
	int timeout_ms;
	bool defer_io;
	bool retry_opts;
	u8 retry_count;
	u8 ack_timeout;
	unsigned int keepalive_ms;
	unsigned int linger_ms;
	bool ended;
};

static inline u8 *ks_tx(struct ks_conn *c)
{
	return c->buf;
}

static inline u8 *ks_rx(struct ks_conn *c)
{
	return c->buf + c->half;
}

/* fi_pingpong's alphabet: the samples' pattern repeats every KS_PERIOD bytes. */
#define KS_ALPHABET \
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define KS_PERIOD	(sizeof(KS_ALPHABET) - 1)

/* Offset of message @k's first byte in the alphabet (seed 7). */
static inline size_t ks_phase(unsigned int k)
{
	return (k * 7) % KS_PERIOD;
}

/* Pattern byte @i of message @k. */
static inline char ks_pattern(unsigned int k, size_t i)
{
	return KS_ALPHABET[(ks_phase(k) + i) % KS_PERIOD];
}

/*
 * Fill and check a whole period byte by byte, then the rest by copying or
 * comparing the buffer with itself one period further on (memcpy() and
 * memcmp() rather than a division per byte).
 */
static inline void ks_fill(u8 *buf, size_t len, unsigned int k)
{
	size_t i, n;

	for (i = 0; i < len && i < KS_PERIOD; i++)
		buf[i] = ks_pattern(k, i);
	/* buf[0, i) is a whole number of periods: copy it, doubling */
	for (; i < len; i += n) {
		n = min(i, len - i);
		memcpy(buf + i, buf, n);
	}
}

/* 0 if @buf holds message @k; else the first bad offset + 1. */
static inline size_t ks_check(const u8 *buf, size_t len, unsigned int k)
{
	size_t i;

	for (i = 0; i < len && i < KS_PERIOD; i++)
		if (buf[i] != ks_pattern(k, i))
			return i + 1;
	/* the first period is right: the rest must repeat it */
	if (len <= KS_PERIOD || !memcmp(buf + KS_PERIOD, buf, len - KS_PERIOD))
		return 0;
	for (i = KS_PERIOD; buf[i] == buf[i - KS_PERIOD]; i++)
		;
	return i + 1;
}

/* Say what the EQ holds, if anything (after a failed completion). */
static inline void ks_eq_report(struct ks_conn *c)
{
	struct fi_eq_err_entry err = {};
	struct fi_eq_cm_entry entry;
	u32 event;
	ssize_t ret;

	if (!c->eq)
		return;
	ret = fi_eq_read(c->eq, &event, &entry, sizeof(entry), 0);
	if (ret == -FI_EAVAIL && fi_eq_readerr(c->eq, &err, 0) > 0)
		pr_err("EQ error %d (%s), provider error %d\n", err.err,
		       fi_strerror(err.err), err.prov_errno);
	else if (ret > 0)
		pr_err("EQ event %u\n", event);
}

/* Wait for one completion on @cq; returns 0 and fills @e, or < 0. */
static inline int ks_cq_wait(struct ks_conn *c, struct fid_cq *cq,
			     struct fi_cq_data_entry *e)
{
	struct fi_cq_err_entry err;
	ssize_t ret;

	ret = fi_cq_sread(cq, e, 1, NULL, c->timeout_ms);
	if (ret == 1)
		return 0;
	if (ret == -FI_EAVAIL && fi_cq_readerr(cq, &err, 0) == 1) {
		pr_err("completion error %d (%s), len %zu olen %zu\n",
		       err.err, fi_strerror(err.err), err.len, err.olen);
		ks_eq_report(c);
		return -err.err;
	}
	if (ret == -EAGAIN)
		ret = -ETIMEDOUT;
	pr_err("fi_cq_sread: %zd (%s)\n", ret, fi_strerror((int)-ret));
	return ret;
}

/* Wait for EQ event @want; returns 0, or < 0 (error entry: its errno). */
static inline int ks_eq_wait(struct ks_conn *c, u32 want,
			     struct fi_eq_cm_entry *entry, size_t len)
{
	struct fi_eq_err_entry err = {};
	u32 event;
	ssize_t ret;

	ret = fi_eq_sread(c->eq, &event, entry, len, c->timeout_ms, 0);
	if (ret == -FI_EAVAIL && fi_eq_readerr(c->eq, &err, 0) > 0) {
		pr_err("EQ error %d (%s)\n", err.err, fi_strerror(err.err));
		return -err.err;
	}
	if (ret < 0) {
		if (ret == -EAGAIN)
			ret = -ETIMEDOUT;
		pr_err("fi_eq_sread: %zd (%s)\n", ret, fi_strerror((int)-ret));
		return ret;
	}
	if (event != want) {
		pr_err("EQ event %u, expected %u\n", event, want);
		if (event == FI_CONNREQ)
			fi_freeinfo(entry->info);
		return -EPROTO;
	}
	return 0;
}

/* Post a receive of @len bytes at @buf: a message, or tagged KS_TAG. */
static inline int ks_post_recv_buf(struct ks_conn *c, void *buf, size_t len,
				   void *context)
{
	if (c->tagged)
		return fi_trecv(c->ep, buf, len, c->desc, FI_ADDR_UNSPEC,
				KS_TAG, 0, context);
	return fi_recv(c->ep, buf, len, c->desc, FI_ADDR_UNSPEC, context);
}

static inline int ks_post_recv(struct ks_conn *c, size_t len)
{
	return ks_post_recv_buf(c, ks_rx(c), len, c);
}

/**
 * ks_post_send() - send @len bytes at @buf to the peer
 * @c: the connection
 * @buf: the data, in the registered buffer
 * @len: its length
 * @context: the completion's context (ignored by an inject)
 * @inject: fi_inject() / fi_tinject(): no completion follows
 *
 * A message, or a tagged one (KS_TAG) if @c->tagged.  While the provider
 * answers -EAGAIN (a full queue; an FI_EP_RDM provider may answer so
 * until its connection to the peer is up) the call is retried, up to the
 * wait limit.
 *
 * Context: process context; sleeps between retries.
 * Return: 0 or a negative errno.
 */
static inline int ks_post_send(struct ks_conn *c, const void *buf,
			       size_t len, void *context, bool inject)
{
	ktime_t end = ktime_add_ms(ktime_get(), c->timeout_ms);
	ssize_t ret;

	for (;;) {
		if (inject && c->tagged)
			ret = fi_tinject(c->ep, buf, len, c->peer, KS_TAG);
		else if (inject)
			ret = fi_inject(c->ep, buf, len, c->peer);
		else if (c->tagged)
			ret = fi_tsend(c->ep, buf, len, c->desc, c->peer,
				       KS_TAG, context);
		else
			ret = fi_send(c->ep, buf, len, c->desc, c->peer,
				      context);
		if (ret != -EAGAIN || ktime_after(ktime_get(), end))
			return ret;
		usleep_range(50, 200);
	}
}

/* Post a send of @len bytes of the tx half; its completion follows. */
static inline int ks_send_post(struct ks_conn *c, size_t len)
{
	int ret = ks_post_send(c, ks_tx(c), len, c, false);

	if (ret)
		pr_err("send: %d\n", ret);
	return ret;
}

/* Send @len bytes of the tx half and wait for its completion. */
static inline int ks_send_wait(struct ks_conn *c, size_t len)
{
	struct fi_cq_data_entry e;
	int ret;

	ret = ks_send_post(c, len);
	return ret ? ret : ks_cq_wait(c, c->txcq, &e);
}

/*
 * Send @len bytes of the tx half: injected if @c->inject and @len is
 * below the info's inject_size (as fi_pingpong does), else sent and its
 * completion waited for.
 */
static inline int ks_send_data(struct ks_conn *c, size_t len)
{
	int ret;

	if (!c->inject || len >= c->info->tx_attr->inject_size)
		return ks_send_wait(c, len);
	ret = ks_post_send(c, ks_tx(c), len, NULL, true);
	if (ret)
		pr_err("inject: %d\n", ret);
	return ret;
}

/* Wait for a receive of exactly @len bytes; repost the buffer if asked. */
static inline int ks_recv_wait(struct ks_conn *c, size_t len, bool repost)
{
	struct fi_cq_data_entry e;
	int ret;

	ret = ks_cq_wait(c, c->rxcq, &e);
	if (ret)
		return ret;
	if (e.len != len) {
		pr_err("received %zu bytes, expected %zu\n", e.len, len);
		return -EBADMSG;
	}
	return repost ? ks_post_recv(c, c->half) : 0;
}

/*
 * The client's side of the final exchange.  The server answers once it
 * has the client's message and closes once its answer has gone, which
 * may be before the client's send has completed: over a reliable
 * connection a lost acknowledgment is repaired only by a retransmission,
 * which then meets a closed connection, and the send completes with
 * -ECANCELED although its message arrived; on siw a send whose transmit
 * path has not finished when the answer and the close come in fails
 * with -EIO (Documentation/ib_verbs.rst, Limitations).  The answer
 * proves that the message arrived, so the client waits for the answer
 * first and takes either completion of its send as done; any other
 * error still fails the run.
 */
static inline int ks_sync_last(struct ks_conn *c)
{
	struct fi_cq_data_entry e;
	int ret;

	ret = ks_send_post(c, 0);
	if (ret)
		return ret;
	ret = ks_recv_wait(c, 0, false);
	if (ret)
		return ret;
	ret = ks_cq_wait(c, c->txcq, &e);
	if (ret == -ECANCELED || ret == -EIO) {
		pr_info("last send ended (%d) by the server's close after its answer came\n",
			ret);
		c->ended = true;
		ret = 0;
	}
	return ret;
}

/**
 * ks_sync() - a zero-byte message each way, client first
 * @c: the connection
 * @client: which side this is
 * @last: the final exchange: no receive is posted afterwards, so that the
 *	peer may close the connection right after it
 *
 * Return: 0 or a negative errno.
 */
static inline int ks_sync(struct ks_conn *c, bool client, bool last)
{
	int ret;

	if (client && last)
		return ks_sync_last(c);
	if (client) {
		ret = ks_send_wait(c, 0);
		return ret ? ret : ks_recv_wait(c, 0, !last);
	}
	ret = ks_recv_wait(c, 0, !last);
	return ret ? ret : ks_send_wait(c, 0);
}

static inline struct fi_info *ks_hints(const char *prov)
{
	struct fi_info *hints = fi_allocinfo(GFP_KERNEL);

	if (!hints)
		return NULL;
	hints->caps = FI_MSG | FI_RMA;
	hints->ep_attr->type = FI_EP_MSG;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				      FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->fabric_attr->prov_name = kstrdup(prov, GFP_KERNEL);
	if (!hints->fabric_attr->prov_name) {
		fi_freeinfo(hints);
		return NULL;
	}
	return hints;
}

/*
 * Set FI_OPT_RETRY_COUNT and FI_OPT_ACK_TIMEOUT (ib_verbs) of endpoint
 * @fid to *@rc and *@at, then read them back into *@rc and *@at.
 */
static inline int ks_retry_opts(struct fid *fid, size_t *rc, size_t *at)
{
	size_t len = sizeof(size_t);
	int ret;

	ret = fi_setopt(fid, FI_OPT_ENDPOINT, FI_OPT_RETRY_COUNT, rc,
			sizeof(*rc));
	if (!ret)
		ret = fi_setopt(fid, FI_OPT_ENDPOINT, FI_OPT_ACK_TIMEOUT, at,
				sizeof(*at));
	if (!ret)
		ret = fi_getopt(fid, FI_OPT_ENDPOINT, FI_OPT_RETRY_COUNT, rc,
				&len);
	if (!ret)
		ret = fi_getopt(fid, FI_OPT_ENDPOINT, FI_OPT_ACK_TIMEOUT, at,
				&len);
	return ret;
}

static inline int ks_open_active(struct ks_conn *c)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA };
	u64 access = FI_SEND | FI_RECV | FI_READ | FI_WRITE |
		     FI_REMOTE_READ | FI_REMOTE_WRITE;
	size_t may_sleep = !c->defer_io;
	u64 offset = 0;
	int ret;

	c->peer = FI_ADDR_UNSPEC;
	ret = fi_domain(c->fabric, c->info, &c->domain, NULL);
	if (ret)
		return ret;
	ret = fi_cq_open(c->domain, &cq_attr, &c->txcq, NULL);
	if (ret)
		return ret;
	ret = fi_cq_open(c->domain, &cq_attr, &c->rxcq, NULL);
	if (ret)
		return ret;
	ret = fi_endpoint(c->domain, c->info, &c->ep, NULL);
	if (ret)
		return ret;
	ret = fi_setopt(&c->ep->fid, FI_OPT_ENDPOINT, FI_OPT_DATA_MAY_SLEEP,
			&may_sleep, sizeof(may_sleep));
	if (ret)
		return ret;
	if (c->keepalive_ms) {
		size_t ms = c->keepalive_ms;

		ret = fi_setopt(&c->ep->fid, FI_OPT_ENDPOINT,
				FI_OPT_KEEPALIVE_MS, &ms, sizeof(ms));
		if (ret)
			return ret;
		pr_info("endpoint keepalive %zu ms\n", ms);
	}
	if (c->retry_opts) {
		size_t rc = c->retry_count, at = c->ack_timeout;

		ret = ks_retry_opts(&c->ep->fid, &rc, &at);
		if (ret)
			return ret;
		pr_info("endpoint retry_count %zu ack_timeout %zu\n", rc, at);
	}
	ret = fi_ep_bind(c->ep, &c->eq->fid, 0);
	if (!ret)
		ret = fi_ep_bind(c->ep, &c->txcq->fid, FI_SEND);
	if (!ret)
		ret = fi_ep_bind(c->ep, &c->rxcq->fid, FI_RECV);
	if (!ret)
		ret = fi_enable(c->ep);
	if (ret)
		return ret;
	c->buf = kvzalloc(2 * c->half, GFP_KERNEL);
	if (!c->buf)
		return -ENOMEM;
	if (c->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR)
		offset = (u64)(uintptr_t)c->buf;
	ret = fi_mr_reg(c->domain, c->buf, 2 * c->half, access, offset, 0, 0,
			&c->mr, NULL);
	if (ret)
		return ret;
	c->desc = fi_mr_desc(c->mr);
	return ks_post_recv(c, c->half);
}

/*
 * Tell the peer where our buffer is and learn where its buffer is.  The
 * client speaks first and the server answers once it has posted its
 * receive again, as every exchange of the samples does: a message must
 * not reach a peer with no receive posted (iWARP has no receiver-not-ready
 * retry: the connection ends), and on iWARP the connecting side sends
 * first.
 */
static inline int ks_exchange_keys(struct ks_conn *c, bool server)
{
	u64 *tx = (u64 *)ks_tx(c), *rx = (u64 *)ks_rx(c);
	u64 base = 0;
	int ret;

	if (c->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR)
		base = (u64)(uintptr_t)c->buf;
	tx[0] = base;
	tx[1] = fi_mr_key(c->mr);
	if (!server) {
		ret = ks_send_wait(c, 2 * sizeof(u64));
		if (ret)
			return ret;
	}
	ret = ks_recv_wait(c, 2 * sizeof(u64), false);
	if (ret)
		return ret;
	c->raddr = rx[0];
	c->rkey = rx[1];
	ret = ks_post_recv(c, c->half);
	if (!ret && server)
		ret = ks_send_wait(c, 2 * sizeof(u64));
	return ret;
}

/**
 * ks_start() - first half of connection setup
 * @c: zeroed connection with @half and @timeout_ms set (and @tagged, to
 *	ask for FI_TAGGED instead of FI_MSG)
 * @prov: provider name
 * @server: open a passive endpoint on @node:@service and listen
 * @node: numeric address (server: local, may be NULL; client: the server)
 * @service: port
 *
 * Return: 0 or a negative errno; on error call ks_close().
 */
static inline int ks_start(struct ks_conn *c, const char *prov, bool server,
			   const char *node, const char *service)
{
	struct fi_eq_attr eq_attr = {};
	struct fi_info *hints;
	int ret;

	hints = ks_hints(prov);
	if (!hints)
		return -ENOMEM;
	if (c->tagged)
		hints->caps = (hints->caps & ~FI_MSG) | FI_TAGGED;
	ret = fi_getinfo(fi_version(), node, service, server ? FI_SOURCE : 0,
			 hints, &c->info);
	fi_freeinfo(hints);
	if (ret) {
		pr_err("fi_getinfo(%s): %d\n", prov, ret);
		return ret;
	}
	ret = fi_fabric(c->info->fabric_attr, &c->fabric, NULL);
	if (!ret)
		ret = fi_eq_open(c->fabric, &eq_attr, &c->eq, NULL);
	if (ret || !server)
		return ret;
	ret = fi_passive_ep(c->fabric, c->info, &c->pep, NULL);
	if (!ret)
		ret = fi_pep_bind(c->pep, &c->eq->fid, 0);
	if (!ret)
		ret = fi_listen(c->pep);
	if (ret)
		pr_err("listen: %d\n", ret);
	return ret;
}

/**
 * ks_establish() - second half: accept (server) or connect (client)
 * @c: the connection after ks_start()
 * @server: which side this is
 *
 * Return: 0 once FI_CONNECTED, or a negative errno.
 */
static inline int ks_establish(struct ks_conn *c, bool server)
{
	struct {
		struct fi_eq_cm_entry e;
		u8 data[FI_CM_DATA_MAX];
	} entry;
	int ret;

	if (server) {
		ret = ks_eq_wait(c, FI_CONNREQ, &entry.e, sizeof(entry));
		if (ret)
			return ret;
		fi_freeinfo(c->info);
		c->info = entry.e.info;
		ret = ks_open_active(c);
		if (ret) {
			fi_reject(c->pep, c->info->handle, NULL, 0);
			return ret;
		}
		ret = fi_accept(c->ep, NULL, 0);
	} else {
		ret = ks_open_active(c);
		if (!ret)
			ret = fi_connect(c->ep, c->info->dest_addr, NULL, 0);
	}
	if (ret)
		return ret;
	return ks_eq_wait(c, FI_CONNECTED, &entry.e, sizeof(entry));
}

/**
 * ks_connect() - set up a connection and exchange buffer keys
 * @c: zeroed connection with @half and @timeout_ms set
 * @prov: provider name
 * @server: listen on @node:@service and accept one connection
 * @node: numeric address (server: local, may be NULL; client: the server)
 * @service: port
 *
 * Return: 0 or a negative errno; on error call ks_close().
 */
static inline int ks_connect(struct ks_conn *c, const char *prov,
			     bool server, const char *node,
			     const char *service)
{
	int ret;

	ret = ks_start(c, prov, server, node, service);
	if (!ret)
		ret = ks_establish(c, server);
	return ret ? ret : ks_exchange_keys(c, server);
}

static inline void ks_close_fid(struct fid *fid)
{
	int ret;

	if (!fid)
		return;
	ret = fi_close(fid);
	if (ret)
		pr_err("fi_close(class %u): %d\n", fid->fclass, ret);
}

static inline void ks_close(struct ks_conn *c)
{
	if (c->ep && !c->rdm)
		fi_shutdown(c->ep, 0);
	ks_close_fid(c->ep ? &c->ep->fid : NULL);
	ks_close_fid(c->av ? &c->av->fid : NULL);
	ks_close_fid(c->pep ? &c->pep->fid : NULL);
	ks_close_fid(c->mr ? &c->mr->fid : NULL);
	ks_close_fid(c->rxcq ? &c->rxcq->fid : NULL);
	ks_close_fid(c->txcq ? &c->txcq->fid : NULL);
	ks_close_fid(c->eq ? &c->eq->fid : NULL);
	ks_close_fid(c->domain ? &c->domain->fid : NULL);
	ks_close_fid(c->fabric ? &c->fabric->fid : NULL);
	fi_freeinfo(c->info);
	kvfree(c->buf);
	memset(c, 0, sizeof(*c));
}

/* Hundredths of @num / @den, for printing x.yy without floating point. */
static inline u64 ks_centi(u64 num, u64 den)
{
	return den ? div64_u64(num * 100, den) : 0;
}

/**
 * ks_print_row() - one fabtests-style result line (after the module name)
 * @size: bytes per transfer
 * @iters: iterations
 * @xfers: transfers per iteration (2 for a pingpong)
 * @ns: elapsed time
 */
static inline void ks_print_row(size_t size, unsigned int iters,
				unsigned int xfers, u64 ns)
{
	u64 total = (u64)size * iters * xfers;
	u64 nx = (u64)iters * xfers;
	u64 mbps = ks_centi(total * 1000, ns);	/* bytes/us = MB/s */
	u64 us = ks_centi(ns, nx * 1000);
	u64 mx = ks_centi(nx * 1000, ns);

	pr_info("%-8zu %-8u %-10llu %4llu.%02llus %8llu.%02llu %9llu.%02llu %9llu.%02llu\n",
		size, iters, total, ns / NSEC_PER_SEC,
		(ns % NSEC_PER_SEC) / (NSEC_PER_SEC / 100), mbps / 100,
		mbps % 100, us / 100, us % 100, mx / 100, mx % 100);
}

static inline void ks_print_header(void)
{
	pr_info("%-8s %-8s %-10s %6s %11s %12s %12s\n", "bytes",
		"iters", "total", "time", "MB/sec", "usec/xfer", "Mxfers/sec");
}

/*
 * The bandwidth samples' credits (credits=1): the server grants the
 * client its messages, so that none finds no receive posted - iWARP has
 * no receiver-not-ready retry, and a send that completes there has only
 * left the sender.  The client starts a size with one credit, the
 * receive the server posted before it answered the size's sync; the
 * server grants with a KS_GRANT_LEN-byte message (a u32, the credits)
 * the rest of its @slots receives once it has posted them, then more
 * each time it has posted KS_GRANT_BATCH(@slots) receives again, until
 * it has granted a receive for every transfer of the size.  The client
 * keeps KS_GRANT_RECVS receives of 64 bytes posted beside its usual one
 * for the grants in flight and the server's last answer, posted before
 * its first sync: the server's first grant may follow the sync's answer
 * before the client has posted its usual receive again.
 */
#define KS_GRANT_LEN		sizeof(u32)
#define KS_GRANT_BATCH(slots)	max_t(unsigned int, (slots) / 2, 1)
#define KS_GRANT_RECVS		3
#define KS_GRANT_SLOT		64

/**
 * ks_bw_slots() - receive slots the bandwidth server keeps posted
 * @half: bytes of each half of the samples' buffer
 * @size: bytes per transfer
 * @window: transfers in flight
 *
 * Return: the slots, 1 to @window.
 */
static inline unsigned int ks_bw_slots(size_t half, size_t size,
				       unsigned int window)
{
	return clamp_t(size_t, half / max_t(size_t, size, 1), 1, window);
}

/*
 * How many of @sizes run on @c: all @nsizes, or for ks_sizes_all()'s list
 * (@all) those up to the endpoint's max_msg_size.
 */
static inline unsigned int ks_sizes_fit(const struct ks_conn *c,
					const unsigned int *sizes,
					unsigned int nsizes, bool all)
{
	while (all && nsizes &&
	       sizes[nsizes - 1] > c->info->ep_attr->max_msg_size)
		nsizes--;
	return nsizes;
}

/* The operations the pingpong and bandwidth samples time. */
enum ks_op { KS_OP_MSG, KS_OP_WRITE, KS_OP_READ };

/* The "ep_type" parameter's value (msg or rdm) as an FI_EP_*, or -EINVAL. */
static inline int ks_parse_ep_type(const char *type)
{
	if (!strcmp(type, "msg"))
		return FI_EP_MSG;
	if (!strcmp(type, "rdm"))
		return FI_EP_RDM;
	return -EINVAL;
}

/* The "mode" parameter's value: 0 for msg, 1 for tagged, or -EINVAL. */
static inline int ks_parse_mode(const char *mode)
{
	if (!strcmp(mode, "msg"))
		return 0;
	if (!strcmp(mode, "tagged"))
		return 1;
	return -EINVAL;
}

/* The "op" parameter's value as a ks_op, or -EINVAL. */
static inline int ks_parse_op(const char *op)
{
	if (!strcmp(op, "msg"))
		return KS_OP_MSG;
	if (!strcmp(op, "write"))
		return KS_OP_WRITE;
	if (!strcmp(op, "read"))
		return KS_OP_READ;
	return -EINVAL;
}

/* Keep the idle connection up to linger_ms; report how it ended. */
static inline int ks_linger(struct ks_conn *c)
{
	struct fi_eq_err_entry err = {};
	struct fi_eq_cm_entry e;
	ktime_t start = ktime_get();
	u32 event;
	ssize_t n;

	pr_info("idling up to %u ms\n", c->linger_ms);
	n = fi_eq_sread(c->eq, &event, &e, sizeof(e), c->linger_ms, 0);
	if (n == -EAGAIN) {
		pr_info("connection idle for %u ms, still up\n", c->linger_ms);
		return 0;
	}
	if (n == -FI_EAVAIL && fi_eq_readerr(c->eq, &err, 0) > 0) {
		pr_info("connection error %d (%s) after %lld ms idle\n",
			err.err, fi_strerror(err.err),
			ktime_ms_delta(ktime_get(), start));
		return -err.err;
	}
	if (n >= 0 && event == FI_SHUTDOWN) {
		pr_info("connection shut down after %lld ms idle\n",
			ktime_ms_delta(ktime_get(), start));
		return -ECONNRESET;
	}
	return n < 0 ? n : -EPROTO;
}

/*
 * The client's end of a run: the server sent the last message and ends
 * the connection once that send has completed; the client waits for
 * that (FI_SHUTDOWN) before it closes, as a connection taken down first
 * by the receiver can fail the last send (iWARP: the sender's send may
 * still be in progress when the receiver has its data).  A peer that
 * does not end it within the wait changes nothing: the client closes.
 */
static inline void ks_await_shutdown(struct ks_conn *c)
{
	struct fi_eq_err_entry err = {};
	struct fi_eq_cm_entry e;
	u32 event;
	ssize_t n;

	if (c->ended)
		return;
	n = fi_eq_sread(c->eq, &event, &e, sizeof(e), c->timeout_ms, 0);
	if (n == -FI_EAVAIL)
		fi_eq_readerr(c->eq, &err, 0);
}

/* A timing sample's code for one size; the client prints its row. */
typedef int (*ks_run_size_t)(struct ks_conn *c, size_t size, bool client);

/**
 * ks_run_sizes() - run every size, then say goodbye in step with the peer
 * @c: the connected (or FI_EP_RDM: set up) connection
 * @client: which side this is; it prints the header
 * @sizes: @nsizes transfer sizes
 * @nsizes: their number
 * @all: @sizes is ks_sizes_all()'s list: the sizes above the endpoint's
 *	max_msg_size are left out
 * @run_size: times one size
 *
 * Context: process context; sleeps.
 * Return: 0 or the first negative errno.
 */
static inline int ks_run_sizes(struct ks_conn *c, bool client,
			       const unsigned int *sizes, unsigned int nsizes,
			       bool all, ks_run_size_t run_size)
{
	unsigned int i;
	int ret = 0;

	nsizes = ks_sizes_fit(c, sizes, nsizes, all);
	if (client)
		ks_print_header();
	for (i = 0; i < nsizes && !ret; i++)
		ret = run_size(c, sizes[i], client);
	if (!ret)
		ret = ks_sync(c, client, true);
	return ret;
}

/**
 * ks_run() - the body of a timing sample over a connected endpoint
 * @c: zeroed connection with @half and @timeout_ms set
 * @prov: provider name
 * @client: connect to @node (else listen on it and accept one connection)
 * @node: as for ks_connect()
 * @service: as for ks_connect()
 * @sizes: @nsizes transfer sizes
 * @nsizes: their number
 * @all: as for ks_run_sizes()
 * @run_size: times one size; the client prints its row
 *
 * Connects, prints the header (client), runs every size, says goodbye in
 * step with the peer, lingers if asked to (@c->linger_ms), else (client)
 * waits for the server to end the connection, and closes the connection.
 * The outcome is logged.
 *
 * Context: process context; sleeps.
 * Return: 0 or the first negative errno.
 */
static inline int ks_run(struct ks_conn *c, const char *prov, bool client,
			 const char *node, const char *service,
			 const unsigned int *sizes, unsigned int nsizes,
			 bool all, ks_run_size_t run_size)
{
	int ret;

	ret = ks_connect(c, prov, !client, node, service);
	if (ret) {
		pr_err("connection setup failed: %d\n", ret);
		goto out;
	}
	ret = ks_run_sizes(c, client, sizes, nsizes, all, run_size);
	if (!ret && client && !c->linger_ms)
		ks_await_shutdown(c);
	if (ret)
		pr_err("failed: %d\n", ret);
	else
		pr_info("%s done\n", client ? "client" : "server");
	if (!ret && c->linger_ms)
		ret = ks_linger(c);
out:
	ks_close(c);
	return ret;
}

#endif /* _KOFI_SAMPLE_H */
