// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: verified reliable datagrams over the rds provider (or any
 * provider of FI_EP_RDM endpoints, prov=, such as ksocket;rxm).
 *
 * One FI_EP_RDM endpoint bound to addr:port exchanges a fixed schedule of
 * messages with one peer (peer:peer_port) - a kOFI endpoint running this
 * sample, or any AF_RDS program following the same schedule, such as
 * tools/rds/rds-peer.  Message k (from 0) has the sizes[k / iters] bytes
 * for the first nsizes * iters messages, then burst_size bytes for burst
 * more, and carries the samples' pattern of k (ks_fill()).
 *
 * role=send sends message k and waits for the peer's echo of it, one at a
 * time (fi_send, fi_sendmsg and fi_inject in turn, receives by fi_recv and
 * fi_recvmsg), then sends the burst as fast as the provider takes it
 * (with burst_pause_ms, pausing after its first 8 messages), counting the
 * -EAGAIN answers, and only then receives the burst's echoes.  role=echo
 * receives every message and sends it back.  Each side checks every
 * message's length, data and source (FI_SOURCE: the peer's
 * AV handle).  At the end the sender sends one more message, of 0 bytes,
 * that the echo side waits for and does not echo: closing an RDS socket
 * drops the messages it has not yet transmitted, so the echo side closes
 * only once the sender has all its echoes, and the sender lingers
 * SR_LINGER_MS before it closes.
 *
 * The run is in module init: insmod returns once it is over.  The outcome
 * - 0 if every message arrived whole and in order, a negative errno
 * otherwise - is the read-only parameter "result"; the count of -EAGAIN
 * answers seen in the burst, the fan-in or the exchange is "eagain".
 *
 * Fan-in: role=fanin-send opens eps endpoints, on ports port .. port +
 * eps - 1, and each sends burst messages of burst_size bytes to the one
 * endpoint of role=fanin-recv at peer:peer_port, all at once, as fast as
 * the provider takes them; message k of endpoint e carries the pattern of
 * e * burst + k.  The receiver takes the senders at peer:peer_port ..
 * peer_port + eps - 1 into its AV and checks every message's length and
 * data against the messages of its sender (by its source) not received
 * yet, with rx_depth receives posted (default 1: one at a time), and logs
 * how many overtook an earlier one (RDS/TCP reorders while a connection
 * is set up, see Documentation/rds.rst); after the first message it
 * posts no receive for stall_ms, so that the senders meet RDS's
 * back-pressure and the provider's -EAGAIN, which they count and retry
 * (as they retry while a connection-oriented provider such as rxm opens
 * their connections).  At the end the receiver sends each sender an
 * empty message, which the sender waits for before it closes.
 *
 * With tagged=1 the fan-in's messages are tagged, each sender's tag its
 * index e, and the receiver takes them with tagged receives for any tag,
 * checking each message's tag against its source.
 *
 * With hold=1 the fan-in is light enough for up to SR_HOLD_MAX senders,
 * and what it opens stays open until the module is unloaded, so that the
 * memory the provider holds for it can be looked at.  The senders share
 * one fabric, domain, pair of CQs and AV, and one buffer; each sends its
 * burst untagged, at most SR_HOLD_WINDOW of them opening their
 * connections at once.  The receiver takes every message in one
 * FI_MULTI_RECV buffer, so that none waits as unexpected.  Everything
 * the sample allocates is allocated before it logs its endpoint
 * (fanin-recv) or, on the senders' side, before it logs "fanin-send
 * holding" and waits, with no endpoint open, for the parameter hold to
 * be set to 0 (through sysfs); the module init returns once the fan-in
 * is over.
 *
 * Exchange: role=exchange on both hosts opens eps endpoints, on ports
 * port .. port + eps - 1, endpoint e paired with the peer's endpoint at
 * peer:peer_port + e.  Pair after pair, each side sends message k of the
 * schedule (sizes x iters; pattern e * nsizes * iters + k) and only then
 * receives the peer's message k, so that both sides send first at once:
 * over a connection-oriented provider (ksocket;rxm) both connect at the
 * same moment.  The first pair starts when the two modules are loaded;
 * each later pair when the side of the lower address (then port) has
 * sent the other an empty message over the pair before, which starts
 * the other side within a one-way latency of the first.  A send the
 * provider refuses with -EAGAIN (rxm while it connects) is retried, for
 * at most timeout_ms, and so is one answered -ECONNREFUSED (rxm's
 * attempt found no endpoint listening yet: the peer's module is still
 * opening its endpoints).  Each side checks every message's length, data
 * and source.  The endpoints stay open until the module is unloaded, so
 * that the connections they made can be looked at.
 *
 * domain=tcp or domain=ib asks for that RDS transport (the rds provider's
 * domain); without it the provider's default transport is used.
 *
 * Example:  insmod kofi_sample_rds.ko role=echo addr=10.0.0.1 peer=10.0.0.2
 *           insmod kofi_sample_rds.ko role=send addr=10.0.0.2 peer=10.0.0.1
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/in.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <kofi/fi_av.h>
#include "kofi_sample.h"

static char *prov = "rds";
module_param(prov, charp, 0444);
MODULE_PARM_DESC(prov, "provider of the FI_EP_RDM endpoints (default rds)");

static char *role = "echo";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "send, echo, fanin-send, fanin-recv or exchange");

static char *domain;
module_param(domain, charp, 0444);
MODULE_PARM_DESC(domain, "the rds domain, that is the RDS transport: tcp or ib (default: the provider's)");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "local IPv4 address (required)");

static char *port = "18000";
module_param(port, charp, 0444);
MODULE_PARM_DESC(port, "local RDS port (default 18000)");

static char *peer;
module_param(peer, charp, 0444);
MODULE_PARM_DESC(peer, "the peer's IPv4 address (required)");

static ushort peer_port = 18000;
module_param(peer_port, ushort, 0444);
MODULE_PARM_DESC(peer_port, "the peer's RDS port (default 18000)");

static unsigned int sizes[16] = { 0, 1, 64, 4096, 65536, 1048576 };
static unsigned int nsizes = 6;
module_param_array(sizes, uint, &nsizes, 0444);
MODULE_PARM_DESC(sizes, "message sizes (default 0,1,64,4096,65536,1048576)");

static unsigned int iters = 4;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "messages per size (default 4)");

static unsigned int burst = 32;
module_param(burst, uint, 0444);
MODULE_PARM_DESC(burst, "messages sent back to back at the end (default 32)");

static unsigned int burst_size = 65536;
module_param(burst_size, uint, 0444);
MODULE_PARM_DESC(burst_size, "size of the burst's messages (default 65536)");

/* role=send: the burst pauses after this many messages (burst_pause_ms) */
#define SR_PAUSE_AFTER	8
static unsigned int burst_pause_ms;
module_param(burst_pause_ms, uint, 0444);
MODULE_PARM_DESC(burst_pause_ms, "role=send: pause after the burst's first 8 messages, so that a receiver they congest has said so before the rest go (default 0: none)");

static unsigned int eps = 8;
module_param(eps, uint, 0444);
MODULE_PARM_DESC(eps, "fan-in: sending endpoints; exchange: endpoint pairs (default 8)");

static bool tagged;
module_param(tagged, bool, 0444);
MODULE_PARM_DESC(tagged, "fan-in: tagged messages, a sender's tag its index (default 0)");

static unsigned int rx_depth = 1;
module_param(rx_depth, uint, 0444);
MODULE_PARM_DESC(rx_depth, "fan-in: receives the receiver keeps posted (1 to 17, default 1)");

static bool hold;
module_param(hold, bool, 0644);
MODULE_PARM_DESC(hold, "fan-in: light senders, everything kept open until unloaded; the senders start when this is set to 0 (default 0)");

static unsigned int stall_ms;
module_param(stall_ms, uint, 0444);
MODULE_PARM_DESC(stall_ms, "fan-in: the receiver stops receiving this long after the first message (default 0)");

static int timeout_ms = 60000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of each wait (default 60000)");

static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome of the run: 0 or a negative errno (read only)");

static unsigned int eagain;
module_param(eagain, uint, 0444);
MODULE_PARM_DESC(eagain, "-EAGAIN answers to sends in the burst, the fan-in or the exchange (read only)");

/*
 * The transmit queue's depth, and the burst's buffers: one more than the
 * queue holds, so the buffer filled next is never one still queued.
 */
#define SR_TX_DEPTH	16
/* A fan-in sender's: the senders meet -EAGAIN soon. */
#define SR_FANIN_TX_DEPTH	4
#define SR_RING		(SR_TX_DEPTH + 1)
#define SR_MAX_SIZE	(1024 * 1024)
#define SR_LINGER_MS	1000
#define SR_FANIN_MAX	64
/* Each CQ's size; a fan-in with hold=1 has at most this many senders. */
#define SR_CQ_SIZE	1024
#define SR_HOLD_MAX	SR_CQ_SIZE
/* hold=1: senders that may be opening their connections at once */
#define SR_HOLD_WINDOW	32

struct sr_ctx {
	struct ks_conn c;
	struct fid_av *av;
	fi_addr_t peer_addr;
	u8 *rx;
	size_t rx_size;
	u8 *ring[SR_RING];	/* the burst's, or the fan-in receiver's */
	unsigned int inflight;	/* burst or fan-in sends not completed */
	unsigned int next;	/* fan-in: the next message to send */
	struct fid_ep **eps;	/* hold=1: the senders, on these queues */
	unsigned int *sent;	/* hold=1: each sender's messages sent */
};

/* hold=1, as it was when the module was loaded */
static bool sr_hold;
/*
 * What stays open until the module is unloaded: role=exchange's
 * endpoints, or the fan-in's with hold=1; sr_nheld of them
 */
static struct sr_ctx *sr_held;
static unsigned int sr_nheld;

/* Message @k's size; the last message, after the burst, is empty. */
static size_t sr_size(unsigned int k)
{
	if (k < nsizes * iters)
		return sizes[k / iters];
	return k < nsizes * iters + burst ? burst_size : 0;
}

/* Insert peer:@pport .. peer:@pport + @npeers - 1 into @s's AV. */
static int sr_av_insert(struct sr_ctx *s, u16 pport, unsigned int npeers,
			fi_addr_t *peers)
{
	struct sockaddr_in *sin;
	unsigned int i;
	int ret = 0;

	sin = kcalloc(npeers, sizeof(*sin), GFP_KERNEL);
	if (!sin)
		return -ENOMEM;
	for (i = 0; i < npeers && !ret; i++) {
		sin[i].sin_family = AF_INET;
		sin[i].sin_port = htons(pport + i);
		if (!in4_pton(peer, -1, (u8 *)&sin[i].sin_addr, -1, NULL))
			ret = -EINVAL;
	}
	if (!ret)
		ret = fi_av_insert(s->av, sin, npeers, peers, 0, NULL);
	kfree(sin);
	return ret == npeers ? 0 : (ret < 0 ? ret : -EINVAL);
}

/*
 * The info of addr:@service, with a transmit queue of @depth, and @s's
 * fabric, domain, CQs and AV.
 */
static int sr_open_queues(struct sr_ctx *s, const char *service, size_t depth)
{
	struct fi_cq_attr cq_attr = {
		.format = FI_CQ_FORMAT_DATA,
		.size = SR_CQ_SIZE,
	};
	struct fi_cq_attr rx_cq_attr = {
		.format = FI_CQ_FORMAT_TAGGED,
		.size = SR_CQ_SIZE,
	};
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct ks_conn *c = &s->c;
	struct fi_info *hints;
	int ret;

	hints = fi_allocinfo(GFP_KERNEL);
	if (!hints)
		return -ENOMEM;
	hints->caps = FI_MSG | FI_SOURCE | (tagged ? FI_TAGGED : 0) |
		      (sr_hold ? FI_MULTI_RECV : 0);
	hints->ep_attr->type = FI_EP_RDM;
	hints->fabric_attr->prov_name = kstrdup(prov, GFP_KERNEL);
	if (domain)
		hints->domain_attr->name = kstrdup(domain, GFP_KERNEL);
	ret = hints->fabric_attr->prov_name &&
	      (!domain || hints->domain_attr->name) ?
	      fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), addr,
			 service, FI_SOURCE, hints, &c->info) : -ENOMEM;
	fi_freeinfo(hints);
	if (ret)
		return ret;
	c->info->tx_attr->size = depth;
	ret = fi_fabric(c->info->fabric_attr, &c->fabric, NULL);
	if (!ret)
		ret = fi_domain(c->fabric, c->info, &c->domain, NULL);
	if (!ret)
		ret = fi_cq_open(c->domain, &cq_attr, &c->txcq, NULL);
	if (!ret)
		ret = fi_cq_open(c->domain, &rx_cq_attr, &c->rxcq, NULL);
	if (!ret)
		ret = fi_av_open(c->domain, &av_attr, &s->av, NULL);
	return ret;
}

/* Open an endpoint of s->c.info on @s's queues, to @ep. */
static int sr_open_ep(struct sr_ctx *s, struct fid_ep **ep)
{
	struct ks_conn *c = &s->c;
	int ret;

	ret = fi_endpoint(c->domain, c->info, ep, NULL);
	if (ret) {
		*ep = NULL;
		return ret;
	}
	ret = fi_ep_bind(*ep, &c->txcq->fid, FI_TRANSMIT);
	if (!ret)
		ret = fi_ep_bind(*ep, &c->rxcq->fid, FI_RECV);
	if (!ret)
		ret = fi_ep_bind(*ep, &s->av->fid, 0);
	if (!ret)
		ret = fi_enable(*ep);
	return ret;
}

/*
 * Open @s's endpoint on addr:@service, with a transmit queue of @depth,
 * and an AV of the @npeers peers at peer:@pport, peer:@pport + 1, ...;
 * their handles go to @peers.
 */
static int sr_open(struct sr_ctx *s, const char *service, size_t depth,
		   u16 pport, unsigned int npeers, fi_addr_t *peers)
{
	int ret = sr_open_queues(s, service, depth);

	if (!ret)
		ret = sr_open_ep(s, &s->c.ep);
	if (ret)
		return ret;
	return sr_av_insert(s, pport, npeers, peers);
}

static void sr_close(struct sr_ctx *s)
{
	unsigned int i;

	for (i = 0; s->eps && i < eps; i++)
		ks_close_fid(s->eps[i] ? &s->eps[i]->fid : NULL);
	kfree(s->eps);
	kfree(s->sent);
	ks_close_fid(s->c.ep ? &s->c.ep->fid : NULL);
	s->c.ep = NULL;
	ks_close_fid(s->av ? &s->av->fid : NULL);
	ks_close(&s->c);
	for (i = 0; i < SR_RING; i++)
		kvfree(s->ring[i]);
	kvfree(s->rx);
}

/*
 * Post receive @k of @len bytes into @buf, its context @buf: fi_recvmsg
 * for odd @k, fi_recv for even; with @tag, fi_trecv of any tag.
 */
static int sr_post_recv(struct sr_ctx *s, unsigned int k, u8 *buf,
			size_t len, bool tag)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct fi_msg msg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &iov,
		.iov_count = 1,
		.addr = FI_ADDR_UNSPEC,
		.context = buf,
	};

	if (tag)
		return fi_trecv(s->c.ep, buf, len, NULL, FI_ADDR_UNSPEC, 0,
				~0ULL, buf);
	if (k & 1)
		return fi_recvmsg(s->c.ep, &msg, 0);
	return fi_recv(s->c.ep, buf, len, NULL, FI_ADDR_UNSPEC, buf);
}

/*
 * Wait for the completion of receive @k, a tagged one (its tag to *@tag)
 * if @tag.  Return: its length, its source in @src, its buffer (the
 * context) in @buf; or a negative errno.
 */
static ssize_t sr_recv_wait(struct sr_ctx *s, unsigned int k, fi_addr_t *src,
			    u64 *tag, u8 **buf)
{
	struct fi_cq_tagged_entry e;
	ssize_t ret;

	*src = FI_ADDR_NOTAVAIL;
	ret = fi_cq_sreadfrom(s->c.rxcq, &e, 1, src, NULL, s->c.timeout_ms);
	if (ret != 1) {
		struct fi_cq_err_entry err;

		if (ret == -FI_EAVAIL && fi_cq_readerr(s->c.rxcq, &err, 0) == 1)
			ret = -err.err;
		pr_err("message %u: receive failed: %zd\n", k, ret);
		return ret < 0 ? ret : -EIO;
	}
	if (!(e.flags & FI_RECV) || !(e.flags & (tag ? FI_TAGGED : FI_MSG))) {
		pr_err("message %u: flags %#llx\n", k,
		       (unsigned long long)e.flags);
		return -EPROTO;
	}
	if (tag)
		*tag = e.tag;
	/* a multi-receive buffer's completion says where its message is */
	*buf = e.buf ? e.buf : e.op_context;
	return e.len;
}

/*
 * Receive message @k into s->rx.  Return: its length, its source in @src;
 * or a negative errno.
 */
static ssize_t sr_recv_from(struct sr_ctx *s, unsigned int k, fi_addr_t *src)
{
	ssize_t ret;
	u8 *buf;

	ret = sr_post_recv(s, k, s->rx, s->rx_size, false);
	if (ret)
		return ret;
	ret = sr_recv_wait(s, k, src, NULL, &buf);
	if (ret >= 0 && buf != s->rx) {
		pr_err("message %u: completion of no receive of ours\n", k);
		return -EPROTO;
	}
	return ret;
}

/* Check that s->rx holds @len bytes, @want of them, of pattern @seq. */
static int sr_verify(struct sr_ctx *s, unsigned int k, size_t len,
		     size_t want, unsigned int seq)
{
	size_t bad;

	if (len != want) {
		pr_err("message %u: %zu bytes (want %zu)\n", k, len, want);
		return -EPROTO;
	}
	bad = ks_check(s->rx, len, seq);
	if (bad) {
		pr_err("message %u: bad data at byte %zu\n", k, bad - 1);
		return -EBADMSG;
	}
	return 0;
}

/*
 * Receive message @k from the peer into s->rx and check that it has
 * @want bytes of pattern @seq.
 */
static int sr_recv_seq(struct sr_ctx *s, unsigned int k, size_t want,
		       unsigned int seq)
{
	fi_addr_t src;
	ssize_t len = sr_recv_from(s, k, &src);

	if (len < 0)
		return len;
	if (src != s->peer_addr) {
		pr_err("message %u: from %llu (want %llu)\n", k,
		       (unsigned long long)src,
		       (unsigned long long)s->peer_addr);
		return -EPROTO;
	}
	return sr_verify(s, k, len, want, seq);
}

/* Receive message @k of the schedule from the peer and check it. */
static int sr_recv(struct sr_ctx *s, unsigned int k)
{
	return sr_recv_seq(s, k, sr_size(k), k);
}

/* Wait for the next send completion. */
static int sr_send_wait(struct sr_ctx *s)
{
	struct fi_cq_data_entry e;
	int ret;

	ret = ks_cq_wait(&s->c, s->c.txcq, &e);
	if (ret)
		return ret;
	return e.flags & FI_SEND ? 0 : -EPROTO;
}

/*
 * Send @len bytes of @buf to @dest, cycling through fi_send, fi_sendmsg
 * and fi_inject by @k.  Return: 1 if a completion will follow, 0 if not
 * (inject), or a negative errno (-EAGAIN when the provider is full).
 */
static int sr_send(struct sr_ctx *s, fi_addr_t dest, const u8 *buf,
		   size_t len, unsigned int k)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct fi_msg msg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &iov,
		.iov_count = 1,
		.addr = dest,
	};
	ssize_t ret;

	if (k % 3 == 2 && len <= s->c.info->tx_attr->inject_size) {
		ret = fi_inject(s->c.ep, buf, len, dest);
		return ret ? ret : 0;
	}
	ret = k % 3 == 1 ? fi_sendmsg(s->c.ep, &msg, 0) :
			   fi_send(s->c.ep, buf, len, NULL, dest, NULL);
	return ret ? ret : 1;
}

/* Send @len bytes of @buf and wait until the provider is done with it. */
static int sr_send_sync(struct sr_ctx *s, const u8 *buf, size_t len,
			unsigned int k)
{
	int ret = sr_send(s, s->peer_addr, buf, len, k);

	if (ret < 0)
		pr_err("message %u: send failed: %d\n", k, ret);
	return ret > 0 ? sr_send_wait(s) : ret;
}

static int sr_run_send(struct sr_ctx *s)
{
	unsigned int k, n = nsizes * iters;
	int ret;

	for (k = 0; k < n; k++) {
		ks_fill(s->ring[0], sr_size(k), k);
		ret = sr_send_sync(s, s->ring[0], sr_size(k), k);
		if (!ret)
			ret = sr_recv(s, k);
		if (ret)
			return ret;
	}
	/* The burst: message k in ring slot k % SR_RING */
	for (; k < n + burst; k++) {
		u8 *buf = s->ring[k % SR_RING];

		if (burst_pause_ms && k == n + SR_PAUSE_AFTER)
			msleep(burst_pause_ms);
		ks_fill(buf, burst_size, k);
		while ((ret = sr_send(s, s->peer_addr, buf, burst_size, k)) ==
	       -EAGAIN) {
			eagain++;
			if (!s->inflight)
				return -EIO;
			ret = sr_send_wait(s);
			if (ret)
				return ret;
			s->inflight--;
		}
		if (ret < 0)
			return ret;
		s->inflight += ret;
	}
	for (; s->inflight; s->inflight--) {
		ret = sr_send_wait(s);
		if (ret)
			return ret;
	}
	for (k = n; k < n + burst; k++) {
		ret = sr_recv(s, k);
		if (ret)
			return ret;
	}
	pr_info("burst of %u x %u bytes: %u sends answered -EAGAIN\n", burst,
		burst_size, eagain);
	ret = sr_send_sync(s, s->ring[0], 0, 0);
	msleep(SR_LINGER_MS);
	return ret;
}

static int sr_run_echo(struct sr_ctx *s)
{
	unsigned int k;
	int ret;

	for (k = 0; k < nsizes * iters + burst; k++) {
		ret = sr_recv(s, k);
		if (!ret)
			ret = sr_send_sync(s, s->rx, sr_size(k), k);
		if (ret)
			return ret;
	}
	return sr_recv(s, k);
}

/* ---- fan-in ---- */

/* The pattern of fan-in message @k of sender @e. */
static unsigned int sr_fanin_seq(unsigned int e, unsigned int k)
{
	return e * burst + k;
}

/* Count @s's send completions that are there, without waiting. */
static int sr_reap(struct sr_ctx *s)
{
	struct fi_cq_data_entry e;
	ssize_t ret;

	while (s->inflight) {
		ret = fi_cq_read(s->c.txcq, &e, 1);
		if (ret == -EAGAIN)
			return 0;
		if (ret != 1) {
			/* an error entry: say which */
			ret = sr_send_wait(s);
			if (ret)
				return ret;
		}
		s->inflight--;
	}
	return 0;
}

/*
 * What sender @e's send of its message @k answered (@ret) means: 1 it
 * went, 0 try again later (-EAGAIN, counted in eagain; -ECONNREFUSED:
 * the receiver's endpoint is not open yet), < 0 an error.
 */
static int sr_fanin_sent(int ret, unsigned int e, unsigned int k)
{
	if (ret == -EAGAIN)
		eagain++;
	if (ret == -EAGAIN || ret == -ECONNREFUSED)
		return 0;
	if (ret) {
		pr_err("sender %u, message %u: send failed: %d\n", e, k, ret);
		return ret;
	}
	return 1;
}

/* Wait for one send completion of the first of @ss with one to come. */
static int sr_fanin_wait(struct sr_ctx *ss)
{
	unsigned int e;
	int ret;

	for (e = 0; e < eps && !ss[e].inflight; e++)
		;
	if (e == eps) {
		/*
		 * Refused with nothing outstanding: the provider is still
		 * opening its connections (rxm's first sends); try again.
		 */
		usleep_range(1000, 2000);
		return 0;
	}
	ret = sr_send_wait(&ss[e]);
	if (!ret)
		ss[e].inflight--;
	return ret;
}

/*
 * The eps senders @ss send their burst messages, in turn while the
 * provider takes them; @pat holds the pattern of message 0 and a period
 * more, so that message k of sender e is @pat at an offset.  When every
 * sender is refused (-EAGAIN), wait for a send to complete.
 */
static int sr_run_fanin_send(struct sr_ctx *ss, const u8 *pat)
{
	ktime_t stuck = ktime_add_ms(ktime_get(), timeout_ms);
	unsigned int e, done = 0;
	bool moved;
	int ret;

	while (done < eps) {
		if (ktime_after(ktime_get(), stuck))
			return -ETIMEDOUT;
		moved = false;
		done = 0;
		for (e = 0; e < eps; e++) {
			struct sr_ctx *s = &ss[e];
			const u8 *buf = pat +
				ks_phase(sr_fanin_seq(e, s->next));

			if (s->next == burst) {
				done++;
				continue;
			}
			ret = sr_reap(s);
			if (ret)
				return ret;
			ret = tagged ? fi_tsend(s->c.ep, buf, burst_size, NULL,
						s->peer_addr, e, NULL) :
				       fi_send(s->c.ep, buf, burst_size, NULL,
					       s->peer_addr, NULL);
			ret = sr_fanin_sent(ret, e, s->next);
			if (ret < 0)
				return ret;
			if (!ret)
				continue;
			s->next++;
			s->inflight++;
			moved = true;
			stuck = ktime_add_ms(ktime_get(), timeout_ms);
		}
		if (!moved && done < eps) {
			ret = sr_fanin_wait(ss);
			if (ret)
				return ret;
		}
	}
	for (e = 0; e < eps; e++) {
		for (; ss[e].inflight; ss[e].inflight--) {
			ret = sr_send_wait(&ss[e]);
			if (ret)
				return ret;
		}
	}
	pr_info("fan-in of %u x %u x %u bytes: %u sends answered -EAGAIN\n",
		eps, burst, burst_size, eagain);
	/* the receiver's empty message to each sender (sr_size() 0) */
	for (e = 0; e < eps; e++) {
		ret = sr_recv(&ss[e], UINT_MAX);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * hold=1: wait, with no endpoint open yet, until hold is set to 0; at
 * most timeout_ms.
 */
static int sr_hold_wait(void)
{
	unsigned long stop = jiffies + msecs_to_jiffies(timeout_ms);

	while (READ_ONCE(hold)) {
		if (time_after(jiffies, stop))
			return -ETIMEDOUT;
		msleep(20);
	}
	return 0;
}

/*
 * hold=1: the eps senders s->eps, on @s's queues, send their burst
 * messages as sr_run_fanin_send() does, with their completions on the
 * shared transmit CQ (s->inflight), but at most SR_HOLD_WINDOW of them
 * at a time opening their connections: sender e is tried once those
 * below e - SR_HOLD_WINDOW + 1 have sent their burst.  Each has a
 * receive posted for the receiver's empty message, which it then waits
 * for (s->sent[e] is burst + 1 once it came).
 */
static int sr_run_hold_send(struct sr_ctx *s, const u8 *pat)
{
	ktime_t stuck = ktime_add_ms(ktime_get(), timeout_ms);
	unsigned int e, lo = 0, k;
	fi_addr_t src;
	bool moved;
	ssize_t len;
	u8 *ctx;
	int ret;

	for (e = 0; e < eps; e++) {
		ret = fi_recv(s->eps[e], s->rx, s->rx_size, NULL,
			      FI_ADDR_UNSPEC, &s->eps[e]);
		if (ret)
			return ret;
	}
	while (lo < eps) {
		if (ktime_after(ktime_get(), stuck))
			return -ETIMEDOUT;
		moved = false;
		for (e = lo; e < eps && e < lo + SR_HOLD_WINDOW; e++) {
			k = s->sent[e];
			if (k == burst)
				continue;
			ret = fi_send(s->eps[e],
				      pat + ks_phase(sr_fanin_seq(e, k)),
				      burst_size, NULL, s->peer_addr,
				      &s->eps[e]);
			ret = sr_fanin_sent(ret, e, k);
			if (ret < 0)
				return ret;
			if (!ret)
				continue;
			s->sent[e]++;
			s->inflight++;
			moved = true;
			stuck = ktime_add_ms(ktime_get(), timeout_ms);
		}
		while (lo < eps && s->sent[lo] == burst)
			lo++;
		ret = sr_reap(s);
		if (ret)
			return ret;
		if (!moved)
			usleep_range(1000, 2000);
	}
	for (; s->inflight; s->inflight--) {
		ret = sr_send_wait(s);
		if (ret)
			return ret;
	}
	pr_info("fan-in of %u x %u x %u bytes: %u sends answered -EAGAIN\n",
		eps, burst, burst_size, eagain);
	for (k = 0; k < eps; k++) {
		len = sr_recv_wait(s, k, &src, NULL, &ctx);
		if (len < 0)
			return len;
		e = (struct fid_ep **)ctx - s->eps;
		if (len || src != s->peer_addr || e >= eps ||
		    s->sent[e] != burst) {
			pr_err("message %u: %zd bytes from %llu: not the receiver's\n",
			       k, len, (unsigned long long)src);
			return -EPROTO;
		}
		s->sent[e]++;
	}
	return 0;
}

/*
 * Which of sender @e's messages not received yet (@got) @buf holds, as
 * @len bytes; -1 if none.
 */
static int sr_fanin_which(const u8 *buf, unsigned int e, size_t len,
			  const unsigned long *got)
{
	unsigned int k;

	if (len != burst_size)
		return -1;
	for (k = 0; k < burst; k++)
		if (!test_bit(e * burst + k, got) &&
		    !ks_check(buf, len, sr_fanin_seq(e, k)))
			return k;
	return -1;
}

/*
 * Whether @buf is one of the first rx_depth buffers of s->ring; with
 * hold=1, a message's place in the multi-receive buffer s->ring[0].
 */
static bool sr_fanin_rx_buf(const struct sr_ctx *s, const u8 *buf)
{
	unsigned int i;

	if (sr_hold)
		return buf >= s->ring[0] &&
		       (size_t)(buf - s->ring[0]) <
		       (size_t)eps * burst * burst_size &&
		       !((size_t)(buf - s->ring[0]) % burst_size);
	for (i = 0; i < rx_depth; i++)
		if (buf == s->ring[i])
			return true;
	return false;
}

/*
 * Send message @k to @dest as sr_send() does; while the provider answers
 * -EAGAIN (rxm: it connects, or waits for the peer's request, or its own
 * messages hold its send buffers) or -ECONNREFUSED (rxm: its attempt was
 * refused, the peer's endpoint is not open yet; the next send tries
 * again), try again, for at most timeout_ms.
 */
static int sr_send_retry(struct sr_ctx *s, fi_addr_t dest, const u8 *buf,
			 size_t len, unsigned int k)
{
	unsigned long stop = jiffies + msecs_to_jiffies(timeout_ms);
	int ret;

	while ((ret = sr_send(s, dest, buf, len, k)) == -EAGAIN ||
	       ret == -ECONNREFUSED) {
		if (ret == -EAGAIN)
			eagain++;
		if (time_after(jiffies, stop))
			return -ETIMEDOUT;
		usleep_range(1000, 2000);
	}
	return ret;
}

/*
 * Post the fan-in receiver's receives: rx_depth of them into s->ring;
 * with hold=1, one multi-receive buffer, s->ring[0], for every message.
 */
static int sr_fanin_post(struct sr_ctx *s, unsigned int total)
{
	struct kvec iov = {
		.iov_base = s->ring[0],
		.iov_len = (size_t)total * burst_size,
	};
	struct fi_msg msg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &iov,
		.iov_count = 1,
		.addr = FI_ADDR_UNSPEC,
		.context = s->ring[0],
	};
	size_t min = burst_size;
	unsigned int n;
	int ret = 0;

	if (!sr_hold) {
		for (n = 0; n < rx_depth && n < total && !ret; n++)
			ret = sr_post_recv(s, n, s->ring[n], burst_size,
					   tagged);
		return ret;
	}
	/* the buffer is released with the last message */
	ret = fi_setopt(&s->c.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV,
			&min, sizeof(min));
	return ret ? ret : fi_recvmsg(s->c.ep, &msg, FI_MULTI_RECV);
}

/*
 * Receive the burst messages of each of the eps senders @from, with
 * the receives sr_fanin_post() posted, and check each against the
 * messages of its sender not received yet (@got, @next: zeroed); count
 * those that overtook an earlier one of their sender.  Post no receive
 * for stall_ms after the first.  Then send each sender an empty message.
 */
static int sr_run_fanin_recv(struct sr_ctx *s, const fi_addr_t *from,
			     unsigned int *next, unsigned long *got)
{
	unsigned int n, e, late = 0, total = eps * burst;
	fi_addr_t src;
	ssize_t len;
	u64 tag = 0;
	int ret = 0, k;
	u8 *buf;

	for (n = 0; n < total && !ret; n++) {
		len = sr_recv_wait(s, n, &src, tagged ? &tag : NULL, &buf);
		if (len < 0)
			return len;
		if (!sr_fanin_rx_buf(s, buf)) {
			pr_err("message %u: completion of no receive of ours\n",
			       n);
			return -EPROTO;
		}
		for (e = 0; e < eps && from[e] != src; e++)
			;
		if (tagged && e < eps && tag != e) {
			pr_err("message %u from sender %u: tag %llu\n", n, e,
			       (unsigned long long)tag);
			return -EBADMSG;
		}
		k = e < eps ? sr_fanin_which(buf, e, len, got) : -1;
		if (k < 0) {
			pr_err("message %u: %zd bytes from %llu: no message of a sender's\n",
			       n, len, (unsigned long long)src);
			return -EBADMSG;
		}
		set_bit(e * burst + k, got);
		if (k != next[e])
			late++;
		while (next[e] < burst && test_bit(e * burst + next[e], got))
			next[e]++;
		if (!n && stall_ms) {
			pr_info("stopping to receive for %u ms\n", stall_ms);
			msleep(stall_ms);
		}
		if (!sr_hold && n + rx_depth < total)
			ret = sr_post_recv(s, n + rx_depth, buf, burst_size,
					   tagged);
	}
	if (ret)
		return ret;
	pr_info("%u messages overtook an earlier one of their sender\n",
		late);
	for (e = 0; e < eps && !ret; e++) {
		ret = sr_send_retry(s, from[e], s->ring[0], 0, 0);
		if (ret > 0)
			ret = sr_send_wait(s);
	}
	if (!ret)
		msleep(SR_LINGER_MS);
	return ret;
}

/* The first of the eps local ports, port, to @base. */
static int sr_base_port(u16 *base)
{
	int ret = kstrtou16(port, 0, base);

	if (ret)
		return ret;
	return *base + eps - 1 > U16_MAX ? -EINVAL : 0;
}

/*
 * Open the eps endpoints @ss on ports @base, @base + 1, ...: endpoint e
 * with a receive buffer of @size bytes and, if @tx, a send buffer
 * (ring[0]) as large, a transmit queue of @depth, and its one peer at
 * peer:peer_port + e if @step, else at peer:peer_port.  On error the
 * caller closes them all.
 */
static int sr_open_eps(struct sr_ctx *ss, u16 base, size_t size, bool tx,
		       size_t depth, bool step)
{
	char service[8];
	unsigned int e;
	int ret = 0;

	for (e = 0; e < eps && !ret; e++) {
		struct sr_ctx *s = &ss[e];

		s->c.timeout_ms = timeout_ms;
		s->rx_size = size;
		s->rx = kvmalloc(size, GFP_KERNEL);
		if (tx)
			s->ring[0] = kvmalloc(size, GFP_KERNEL);
		snprintf(service, sizeof(service), "%u", base + e);
		ret = s->rx && (!tx || s->ring[0]) ?
		      sr_open(s, service, depth, peer_port + (step ? e : 0), 1,
			      &s->peer_addr) : -ENOMEM;
	}
	return ret;
}

/* Log the fan-in's senders, on ports @base .. @base + eps - 1 of @s's info. */
static void sr_fanin_send_log(const struct sr_ctx *s, u16 base)
{
	pr_info("fanin-send %s:%u..%u -> %s:%u over %s %s, %u x %u bytes each%s\n",
		addr, base, base + eps - 1, peer, peer_port,
		s->c.info->fabric_attr->prov_name, s->c.info->domain_attr->name,
		burst, burst_size, tagged ? ", tagged" : "");
}

/*
 * role=fanin-send with hold=1: the eps senders on ports @base, @base + 1,
 * ... share the queues and buffers of one context, which stays open
 * (sr_held).  Everything is allocated before "fanin-send holding" is
 * logged; the endpoints are opened once hold is 0.
 */
static int sr_hold_send(u16 base)
{
	struct sockaddr_in *sin;
	char service[8];
	struct sr_ctx *s;
	unsigned int e;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	sr_held = s;
	sr_nheld = 1;
	s->c.timeout_ms = timeout_ms;
	s->rx_size = 1;
	s->rx = kvmalloc(s->rx_size, GFP_KERNEL);
	/* the pattern of message 0 and a period more (sr_run_fanin_send()) */
	s->ring[0] = kvmalloc(burst_size + KS_PERIOD, GFP_KERNEL);
	s->eps = kcalloc(eps, sizeof(*s->eps), GFP_KERNEL);
	s->sent = kcalloc(eps, sizeof(*s->sent), GFP_KERNEL);
	if (!s->rx || !s->ring[0] || !s->eps || !s->sent)
		return -ENOMEM;
	ks_fill(s->ring[0], burst_size + KS_PERIOD, 0);
	snprintf(service, sizeof(service), "%u", base);
	ret = sr_open_queues(s, service, SR_FANIN_TX_DEPTH);
	if (!ret)
		ret = sr_av_insert(s, peer_port, 1, &s->peer_addr);
	if (!ret && s->c.info->addr_format != FI_SOCKADDR_IN)
		ret = -EAFNOSUPPORT;
	if (ret)
		return ret;
	pr_info("fanin-send holding: %u endpoints to open once hold is 0\n",
		eps);
	ret = sr_hold_wait();
	sin = s->c.info->src_addr;
	for (e = 0; e < eps && !ret; e++) {
		sin->sin_port = htons(base + e);
		ret = sr_open_ep(s, &s->eps[e]);
	}
	if (ret)
		return ret;
	sr_fanin_send_log(s, base);
	return sr_run_hold_send(s, s->ring[0]);
}

/* role=fanin-send: eps endpoints on ports port, port + 1, ... */
static int sr_fanin_send(void)
{
	struct sr_ctx *ss;
	unsigned int e;
	u8 *pat;
	u16 base;
	int ret;

	ret = sr_base_port(&base);
	if (ret)
		return ret;
	if (sr_hold)
		return sr_hold_send(base);
	ss = kcalloc(eps, sizeof(*ss), GFP_KERNEL);
	pat = kvmalloc(burst_size + KS_PERIOD, GFP_KERNEL);
	ret = -ENOMEM;
	if (!ss || !pat)
		goto out;
	ks_fill(pat, burst_size + KS_PERIOD, 0);
	ret = sr_open_eps(ss, base, 1, false, SR_FANIN_TX_DEPTH, false);
	if (!ret) {
		sr_fanin_send_log(&ss[0], base);
		ret = sr_run_fanin_send(ss, pat);
	}
	for (e = 0; e < eps; e++)
		sr_close(&ss[e]);
out:
	kvfree(pat);
	kfree(ss);
	return ret;
}

/*
 * role=fanin-recv: one endpoint, the eps senders at peer:peer_port + e.
 * Everything is allocated and the receives are posted before the
 * endpoint is logged; with hold=1 it stays open (sr_held).
 */
static int sr_fanin_recv(void)
{
	unsigned int i, total = eps * burst;
	unsigned long *got;
	unsigned int *next;
	fi_addr_t *from;
	struct sr_ctx *s;
	int ret = -ENOMEM;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	from = kcalloc(eps, sizeof(*from), GFP_KERNEL);
	next = kcalloc(eps, sizeof(*next), GFP_KERNEL);
	got = bitmap_zalloc(total, GFP_KERNEL);
	if (!s || !from || !next || !got)
		goto out;
	s->c.timeout_ms = timeout_ms;
	for (i = 0; i < (sr_hold ? 1 : rx_depth); i++) {
		s->ring[i] = kvmalloc(sr_hold ? (size_t)total * burst_size :
					  max(burst_size, 1U), GFP_KERNEL);
		if (!s->ring[i])
			goto close;
	}
	ret = sr_open(s, port, SR_TX_DEPTH, peer_port, eps, from);
	if (!ret)
		ret = sr_fanin_post(s, total);
	if (!ret) {
		pr_info("fanin-recv %s:%s <- %s:%u..%u over %s %s, %u x %u bytes each%s, %u %s posted\n",
			addr, port, peer, peer_port, peer_port + eps - 1,
			s->c.info->fabric_attr->prov_name,
			s->c.info->domain_attr->name, burst, burst_size,
			tagged ? ", tagged" : "", sr_hold ? 1 : rx_depth,
			sr_hold ? "multi-receive buffer" : "receives");
		ret = sr_run_fanin_recv(s, from, next, got);
	}
close:
	if (sr_hold) {
		sr_held = s;
		sr_nheld = 1;
		s = NULL;
	} else {
		sr_close(s);
	}
out:
	bitmap_free(got);
	kfree(next);
	kfree(from);
	kfree(s);
	return ret;
}

/* ---- exchange ---- */

/* The largest size of the schedule, at least 1. */
static size_t sr_max_size(void)
{
	size_t max = 1;
	unsigned int i;

	for (i = 0; i < nsizes; i++)
		max = max_t(size_t, max, sizes[i]);
	return max;
}

/*
 * Pair @e's exchange over @s: for each message k of the schedule, send
 * ours, then receive the peer's and check it, then wait for our send to
 * complete (a rendezvous send completes once the peer has read it).
 */
static int sr_run_exchange(struct sr_ctx *s, unsigned int e)
{
	unsigned int k, n = nsizes * iters;
	int ret, sent;

	for (k = 0; k < n; k++) {
		unsigned int seq = e * n + k;

		ks_fill(s->ring[0], sr_size(k), seq);
		sent = sr_send_retry(s, s->peer_addr, s->ring[0], sr_size(k),
				     k);
		if (sent < 0) {
			pr_err("pair %u, message %u: send failed: %d\n", e, k,
			       sent);
			return sent;
		}
		ret = sr_recv_seq(s, k, sr_size(k), seq);
		if (!ret && sent)
			ret = sr_send_wait(s);
		if (ret)
			return ret;
	}
	return 0;
}

/* Whether this host leads the exchange: its address, then port, is lower. */
static bool sr_exchange_leads(u16 base)
{
	__be32 self, other;

	if (!in4_pton(addr, -1, (u8 *)&self, -1, NULL) ||
	    !in4_pton(peer, -1, (u8 *)&other, -1, NULL))
		return false;
	if (self != other)
		return ntohl(self) < ntohl(other);
	return base < peer_port;
}

/*
 * Start the next pair together with the peer, over @s, the pair before:
 * the leader (@lead) sends an empty message and starts, the other side
 * starts when it arrives.
 */
static int sr_exchange_go(struct sr_ctx *s, bool lead)
{
	unsigned int n = nsizes * iters;

	return lead ? sr_send_sync(s, s->ring[0], 0, n) :
		      sr_recv_seq(s, n, 0, 0);
}

/*
 * role=exchange: eps endpoints on ports port, port + 1, ..., endpoint e
 * paired with peer:peer_port + e; they stay open (sr_held) until the
 * module is unloaded, whatever the outcome.
 */
static int sr_exchange(void)
{
	unsigned int e;
	bool lead;
	u16 base;
	int ret;

	ret = sr_base_port(&base);
	if (ret)
		return ret;
	sr_held = kcalloc(eps, sizeof(*sr_held), GFP_KERNEL);
	if (!sr_held)
		return -ENOMEM;
	sr_nheld = eps;
	ret = sr_open_eps(sr_held, base, sr_max_size(), true, SR_TX_DEPTH,
			  true);
	if (ret)
		return ret;
	lead = sr_exchange_leads(base);
	pr_info("exchange %s:%u..%u <-> %s:%u..%u over %s %s, %u sizes x %u, %s\n",
		addr, base, base + eps - 1, peer, peer_port,
		peer_port + eps - 1, sr_held[0].c.info->fabric_attr->prov_name,
		sr_held[0].c.info->domain_attr->name, nsizes, iters,
		lead ? "leading" : "following");
	for (e = 0; e < eps && !ret; e++) {
		if (e)
			ret = sr_exchange_go(&sr_held[e - 1], lead);
		if (!ret)
			ret = sr_run_exchange(&sr_held[e], e);
	}
	if (!ret)
		pr_info("exchange: %u sends answered -EAGAIN\n", eagain);
	return ret;
}

/* role=send or role=echo */
static int sr_pair(bool send)
{
	struct sr_ctx *s;
	unsigned int i;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->c.timeout_ms = timeout_ms;
	ret = -ENOMEM;
	s->rx_size = SR_MAX_SIZE;
	s->rx = kvmalloc(s->rx_size, GFP_KERNEL);
	for (i = 0; i < SR_RING; i++)
		s->ring[i] = kvmalloc(i ? max(burst_size, 1U) : SR_MAX_SIZE,
				      GFP_KERNEL);
	for (i = 0; i < SR_RING && s->ring[i]; i++)
		;
	if (s->rx && i == SR_RING)
		ret = sr_open(s, port, SR_TX_DEPTH, peer_port, 1,
			      &s->peer_addr);
	if (!ret) {
		pr_info("%s %s:%s <-> %s:%u over %s, %u sizes x %u, burst %u x %u\n",
			role, addr, port, peer, peer_port,
			s->c.info->domain_attr->name, nsizes, iters, burst,
			burst_size);
		ret = send ? sr_run_send(s) : sr_run_echo(s);
	}
	sr_close(s);
	kfree(s);
	return ret;
}

static int __init sr_init(void)
{
	unsigned int i;
	int ret;

	sr_hold = hold;
	if (!addr || !peer || burst_size > SR_MAX_SIZE || !eps ||
	    eps > (sr_hold ? SR_HOLD_MAX : SR_FANIN_MAX) ||
	    peer_port + eps - 1 > U16_MAX || !rx_depth || rx_depth > SR_RING ||
	    (sr_hold && (strncmp(role, "fanin-", 6) || tagged || !burst ||
			 !burst_size)))
		return -EINVAL;
	for (i = 0; i < nsizes; i++)
		if (sizes[i] > SR_MAX_SIZE)
			return -EINVAL;
	if (!strcmp(role, "send") || !strcmp(role, "echo"))
		ret = sr_pair(!strcmp(role, "send"));
	else if (!strcmp(role, "fanin-send"))
		ret = sr_fanin_send();
	else if (!strcmp(role, "fanin-recv"))
		ret = sr_fanin_recv();
	else if (!strcmp(role, "exchange"))
		ret = sr_exchange();
	else
		return -EINVAL;
	result = ret;
	if (ret)
		pr_err("%s failed: %d\n", role, ret);
	else
		pr_info("%s done: every message verified\n", role);
	return 0;
}

static void __exit sr_exit(void)
{
	unsigned int e;

	for (e = 0; e < sr_nheld; e++)
		sr_close(&sr_held[e]);
	kfree(sr_held);
}

module_init(sr_init);
module_exit(sr_exit);

MODULE_DESCRIPTION("kOFI sample: verified reliable datagrams over the rds provider and other FI_EP_RDM providers");
MODULE_LICENSE("Dual BSD/GPL");
