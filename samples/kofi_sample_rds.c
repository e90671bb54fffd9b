// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: verified reliable datagrams over the rds provider.
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
 * fi_recvmsg), then sends the burst as fast as the provider takes it,
 * counting the -EAGAIN answers, and only then receives the burst's
 * echoes.  role=echo receives every message and sends it back.  Each side
 * checks every message's length, data and source (FI_SOURCE: the peer's
 * AV handle).  At the end the sender sends one more message, of 0 bytes,
 * that the echo side waits for and does not echo: closing an RDS socket
 * drops the messages it has not yet transmitted, so the echo side closes
 * only once the sender has all its echoes, and the sender lingers
 * SR_LINGER_MS before it closes.
 *
 * The run is in module init: insmod returns once it is over.  The outcome
 * - 0 if every message arrived whole and in order, a negative errno
 * otherwise - is the read-only parameter "result"; the count of -EAGAIN
 * answers seen in the burst is "eagain".
 *
 * domain=tcp or domain=ib asks for that RDS transport (the rds provider's
 * domain); without it the provider's default transport is used.
 *
 * Example:  insmod kofi_sample_rds.ko role=echo addr=10.0.0.1 peer=10.0.0.2
 *           insmod kofi_sample_rds.ko role=send addr=10.0.0.2 peer=10.0.0.1
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <kofi/fi_av.h>
#include "kofi_sample.h"

static char *role = "echo";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "send or echo");

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

static int timeout_ms = 60000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of each wait (default 60000)");

static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome of the run: 0 or a negative errno (read only)");

static unsigned int eagain;
module_param(eagain, uint, 0444);
MODULE_PARM_DESC(eagain, "-EAGAIN answers to sends in the burst (read only)");

/*
 * The transmit queue's depth, and the burst's buffers: one more than the
 * queue holds, so the buffer filled next is never one still queued.
 */
#define SR_TX_DEPTH	16
#define SR_RING		(SR_TX_DEPTH + 1)
#define SR_MAX_SIZE	(1024 * 1024)
#define SR_LINGER_MS	1000

struct sr_ctx {
	struct ks_conn c;
	struct fid_av *av;
	fi_addr_t peer_addr;
	u8 *rx;
	u8 *ring[SR_RING];
	unsigned int inflight;	/* burst sends not completed */
};

/* Message @k's size; the last message, after the burst, is empty. */
static size_t sr_size(unsigned int k)
{
	if (k < nsizes * iters)
		return sizes[k / iters];
	return k < nsizes * iters + burst ? burst_size : 0;
}

static int sr_open(struct sr_ctx *s)
{
	struct fi_cq_attr cq_attr = {
		.format = FI_CQ_FORMAT_DATA,
		.size = 1024,
	};
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(peer_port),
	};
	struct ks_conn *c = &s->c;
	struct fi_info *hints;
	int ret;

	if (!in4_pton(peer, -1, (u8 *)&sin.sin_addr, -1, NULL))
		return -EINVAL;
	hints = fi_allocinfo(GFP_KERNEL);
	if (!hints)
		return -ENOMEM;
	hints->caps = FI_MSG | FI_SOURCE;
	hints->ep_attr->type = FI_EP_RDM;
	hints->fabric_attr->prov_name = kstrdup("rds", GFP_KERNEL);
	if (domain)
		hints->domain_attr->name = kstrdup(domain, GFP_KERNEL);
	ret = hints->fabric_attr->prov_name &&
	      (!domain || hints->domain_attr->name) ?
	      fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), addr,
			 port, FI_SOURCE, hints, &c->info) : -ENOMEM;
	fi_freeinfo(hints);
	if (ret)
		return ret;
	c->info->tx_attr->size = SR_TX_DEPTH;
	ret = fi_fabric(c->info->fabric_attr, &c->fabric, NULL);
	if (!ret)
		ret = fi_domain(c->fabric, c->info, &c->domain, NULL);
	if (!ret)
		ret = fi_cq_open(c->domain, &cq_attr, &c->txcq, NULL);
	if (!ret)
		ret = fi_cq_open(c->domain, &cq_attr, &c->rxcq, NULL);
	if (!ret)
		ret = fi_av_open(c->domain, &av_attr, &s->av, NULL);
	if (!ret)
		ret = fi_endpoint(c->domain, c->info, &c->ep, NULL);
	if (!ret)
		ret = fi_ep_bind(c->ep, &c->txcq->fid, FI_TRANSMIT);
	if (!ret)
		ret = fi_ep_bind(c->ep, &c->rxcq->fid, FI_RECV);
	if (!ret)
		ret = fi_ep_bind(c->ep, &s->av->fid, 0);
	if (!ret)
		ret = fi_enable(c->ep);
	if (ret)
		return ret;
	ret = fi_av_insert(s->av, &sin, 1, &s->peer_addr, 0, NULL);
	return ret == 1 ? 0 : (ret < 0 ? ret : -EINVAL);
}

static void sr_close(struct sr_ctx *s)
{
	unsigned int i;

	ks_close_fid(s->c.ep ? &s->c.ep->fid : NULL);
	s->c.ep = NULL;
	ks_close_fid(s->av ? &s->av->fid : NULL);
	ks_close(&s->c);
	for (i = 0; i < SR_RING; i++)
		kvfree(s->ring[i]);
	kvfree(s->rx);
}

/* Receive message @k into s->rx (fi_recvmsg for odd @k) and check it. */
static int sr_recv(struct sr_ctx *s, unsigned int k)
{
	struct kvec iov = { .iov_base = s->rx, .iov_len = SR_MAX_SIZE };
	struct fi_msg msg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &iov,
		.iov_count = 1,
		.addr = FI_ADDR_UNSPEC,
	};
	struct fi_cq_data_entry e;
	size_t len = sr_size(k), bad;
	fi_addr_t src = FI_ADDR_NOTAVAIL;
	ssize_t ret;

	ret = k & 1 ? fi_recvmsg(s->c.ep, &msg, 0) :
		      fi_recv(s->c.ep, s->rx, SR_MAX_SIZE, NULL,
			      FI_ADDR_UNSPEC, NULL);
	if (ret)
		return ret;
	ret = fi_cq_sreadfrom(s->c.rxcq, &e, 1, &src, NULL, s->c.timeout_ms);
	if (ret != 1) {
		struct fi_cq_err_entry err;

		if (ret == -FI_EAVAIL && fi_cq_readerr(s->c.rxcq, &err, 0) == 1)
			ret = -err.err;
		pr_err("message %u: receive failed: %zd\n", k, ret);
		return ret < 0 ? ret : -EIO;
	}
	if (e.len != len || src != s->peer_addr ||
	    !(e.flags & FI_RECV) || !(e.flags & FI_MSG)) {
		pr_err("message %u: %zu bytes (want %zu) from %llu (want %llu), flags %#llx\n",
		       k, e.len, len, (unsigned long long)src,
		       (unsigned long long)s->peer_addr,
		       (unsigned long long)e.flags);
		return -EPROTO;
	}
	bad = ks_check(s->rx, len, k);
	if (bad) {
		pr_err("message %u: bad data at byte %zu\n", k, bad - 1);
		return -EBADMSG;
	}
	return 0;
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
 * Send @len bytes of @buf, cycling through fi_send, fi_sendmsg and
 * fi_inject by @k.  Return: 1 if a completion will follow, 0 if not
 * (inject), or a negative errno (-EAGAIN when the provider is full).
 */
static int sr_send(struct sr_ctx *s, const u8 *buf, size_t len,
		   unsigned int k)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct fi_msg msg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &iov,
		.iov_count = 1,
		.addr = s->peer_addr,
	};
	ssize_t ret;

	if (k % 3 == 2 && len <= s->c.info->tx_attr->inject_size) {
		ret = fi_inject(s->c.ep, buf, len, s->peer_addr);
		return ret ? ret : 0;
	}
	ret = k % 3 == 1 ? fi_sendmsg(s->c.ep, &msg, 0) :
			   fi_send(s->c.ep, buf, len, NULL, s->peer_addr,
				   NULL);
	return ret ? ret : 1;
}

/* Send @len bytes of @buf and wait until the provider is done with it. */
static int sr_send_sync(struct sr_ctx *s, const u8 *buf, size_t len,
			unsigned int k)
{
	int ret = sr_send(s, buf, len, k);

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

		ks_fill(buf, burst_size, k);
		while ((ret = sr_send(s, buf, burst_size, k)) == -EAGAIN) {
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

static int __init sr_init(void)
{
	bool send = !strcmp(role, "send");
	struct sr_ctx *s;
	unsigned int i;
	int ret;

	if ((!send && strcmp(role, "echo")) || !addr || !peer ||
	    burst_size > SR_MAX_SIZE)
		return -EINVAL;
	for (i = 0; i < nsizes; i++)
		if (sizes[i] > SR_MAX_SIZE)
			return -EINVAL;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->c.timeout_ms = timeout_ms;
	ret = -ENOMEM;
	s->rx = kvmalloc(SR_MAX_SIZE, GFP_KERNEL);
	for (i = 0; i < SR_RING; i++)
		s->ring[i] = kvmalloc(i ? max(burst_size, 1U) : SR_MAX_SIZE,
				      GFP_KERNEL);
	for (i = 0; i < SR_RING && s->ring[i]; i++)
		;
	if (s->rx && i == SR_RING)
		ret = sr_open(s);
	if (!ret) {
		pr_info("%s %s:%s <-> %s:%u over %s, %u sizes x %u, burst %u x %u\n",
			role, addr, port, peer, peer_port,
			s->c.info->domain_attr->name, nsizes, iters, burst,
			burst_size);
		ret = send ? sr_run_send(s) : sr_run_echo(s);
	}
	sr_close(s);
	kfree(s);
	result = ret;
	if (ret)
		pr_err("%s failed: %d\n", role, ret);
	else
		pr_info("%s done: every message verified\n", role);
	return 0;
}

static void __exit sr_exit(void)
{
}

module_init(sr_init);
module_exit(sr_exit);

MODULE_DESCRIPTION("kOFI sample: verified reliable datagrams over the rds provider");
MODULE_LICENSE("Dual BSD/GPL");
