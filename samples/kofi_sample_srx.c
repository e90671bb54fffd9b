// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: connected endpoints sharing one receive context.
 *
 * The server opens a shared receive context (fi_srx_context()) with
 * depth= receives, accepts conns= connections, binds every endpoint to the
 * context and gives each its own receive CQ.  The client opens conns=
 * endpoints to it and sends count= messages of size= bytes on each, one
 * on every connection in turn; a message carries its connection's index
 * and sequence number, then the pattern of kofi_sample.h.  Every message
 * takes whichever receive of the context is oldest, completes on the CQ
 * of the endpoint it came on, is checked (the same connection index on
 * every message of an endpoint, no two endpoints with one index, sequence
 * numbers in order, the pattern) and its receive posted again.  With
 * fewer receives than messages in flight, senders wait on
 * receiver-not-ready retries.  The server also checks what the core and
 * the provider refuse: a send on the context, FI_MULTI_RECV and
 * fi_cancel() on it, a receive on a bound endpoint, closing the context
 * while an endpoint holds it.  A connection
 * that ends before all its messages came (an error on the EQ, such as
 * ENODEV when the device goes away, or FI_SHUTDOWN) ends the server's run
 * with that error; with linger_ms= it keeps its objects open that long,
 * then says what posting a receive to the context answers, and closes
 * them.
 *
 * Example:  insmod kofi_sample_srx.ko role=server addr=192.0.2.1 port=7481
 *           insmod kofi_sample_srx.ko role=client addr=192.0.2.1 port=7481
 *
 * The outcome is the read-only parameter "result" (0, or a negative
 * errno).  Process context (module init); sleeps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>
#include "kofi_sample.h"

#define SRX_MAX_CONNS	64

static char *prov = "ib_verbs";
module_param(prov, charp, 0444);
MODULE_PARM_DESC(prov, "provider (default ib_verbs)");
static char *role = "server";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "server or client");
static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "server address (server: the one to listen on)");
static char *port = "7481";
module_param(port, charp, 0444);
MODULE_PARM_DESC(port, "server port");
static unsigned int conns = 4;
module_param(conns, uint, 0444);
MODULE_PARM_DESC(conns, "connections (1-64)");
static unsigned int count = 100;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "messages per connection");
static unsigned int size = 1024;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "bytes per message (8 to 1 MiB)");
static unsigned int depth = 8;
module_param(depth, uint, 0444);
MODULE_PARM_DESC(depth, "receives of the shared context (server)");
static int timeout_ms = 30000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "longest wait for any event or completion");
static unsigned int linger_ms;
module_param(linger_ms, uint, 0444);
MODULE_PARM_DESC(linger_ms, "after a failure, keep every object open this long");
static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome: 0, or the negative errno of the failure (read only)");

/* The head of every message. */
struct srx_hdr {
	__le32 conn;
	__le32 seq;
};

/**
 * struct srx_peer - one endpoint of the server
 * @ep: the endpoint, bound to the shared context
 * @rxcq: its receive CQ
 * @conn: the connection index its messages carry, -1 before the first
 * @next: the sequence number expected next
 */
struct srx_peer {
	struct fid_ep *ep;
	struct fid_cq *rxcq;
	int conn;
	u32 next;
};

/**
 * struct srx_state - the server's or the client's side
 * @c: fabric, EQ, listener, domain, transmit CQ (and, client, receive
 *	CQ), registered buffer (@c.buf, @c.mr, @c.desc)
 * @srx: the shared receive context (server)
 * @slot: the contexts of the receives: the index of their buffer
 * @peer: the endpoints
 * @seen: the server saw a message of connection index i
 */
struct srx_state {
	struct ks_conn c;
	struct fid_ep *srx;
	u32 slot[SRX_MAX_CONNS * 4];
	struct srx_peer peer[SRX_MAX_CONNS];
	bool seen[SRX_MAX_CONNS];
};

static int srx_open_common(struct srx_state *s, size_t bytes)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA };
	int ret;

	ret = fi_domain(s->c.fabric, s->c.info, &s->c.domain, NULL);
	if (!ret)
		ret = fi_cq_open(s->c.domain, &cq_attr, &s->c.txcq, NULL);
	if (ret)
		return ret;
	s->c.buf = kvzalloc(bytes, GFP_KERNEL);
	if (!s->c.buf)
		return -ENOMEM;
	ret = fi_mr_reg(s->c.domain, s->c.buf, bytes, FI_SEND | FI_RECV,
			(s->c.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ?
			(u64)(uintptr_t)s->c.buf : 0, 0, 0, &s->c.mr, NULL);
	if (ret)
		return ret;
	s->c.desc = fi_mr_desc(s->c.mr);
	return 0;
}

static int srx_post(struct srx_state *s, u32 slot)
{
	return fi_recv(s->srx, s->c.buf + (size_t)slot * size, size, s->c.desc,
		       FI_ADDR_UNSPEC, &s->slot[slot]);
}

/* Accept one connection onto a new endpoint bound to the context. */
static int srx_accept(struct srx_state *s, struct srx_peer *p, bool first)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA };
	struct {
		struct fi_eq_cm_entry e;
		u8 data[FI_CM_DATA_MAX];
	} entry;
	u8 byte;
	int ret;

	ret = ks_eq_wait(&s->c, FI_CONNREQ, &entry.e, sizeof(entry));
	if (ret)
		return ret;
	p->conn = -1;
	ret = fi_endpoint(s->c.domain, entry.e.info, &p->ep, NULL);
	if (ret) {
		fi_reject(s->c.pep, entry.e.info->handle, NULL, 0);
		fi_freeinfo(entry.e.info);
		return ret;
	}
	fi_freeinfo(entry.e.info);
	ret = fi_cq_open(s->c.domain, &cq_attr, &p->rxcq, NULL);
	if (!ret)
		ret = fi_ep_bind(p->ep, &s->c.eq->fid, 0);
	if (!ret)
		ret = fi_ep_bind(p->ep, &s->c.txcq->fid, FI_SEND);
	if (!ret)
		ret = fi_ep_bind(p->ep, &p->rxcq->fid, FI_RECV);
	if (!ret)
		ret = fi_ep_bind(p->ep, &s->srx->fid, 0);
	if (ret)
		return ret;
	if (first && fi_close(&s->srx->fid) != -EBUSY) {
		pr_err("closing the context held by an endpoint did not answer -EBUSY\n");
		return -EPROTO;
	}
	ret = fi_enable(p->ep);
	if (ret)
		return ret;
	ret = fi_recv(p->ep, &byte, 1, NULL, FI_ADDR_UNSPEC, NULL);
	if (ret != -EINVAL) {
		pr_err("a receive on an endpoint bound to the context: %d, not -EINVAL\n",
		       ret);
		return -EPROTO;
	}
	ret = fi_accept(p->ep, NULL, 0);
	if (ret)
		return ret;
	return ks_eq_wait(&s->c, FI_CONNECTED, &entry.e, sizeof(entry));
}

/* Check one received message against what endpoint @p sent so far. */
static int srx_check(struct srx_state *s, struct srx_peer *p,
		     const struct fi_cq_data_entry *e)
{
	u32 slot = (u32 *)e->op_context - s->slot;
	const u8 *data = s->c.buf + (size_t)slot * size;
	const struct srx_hdr *h = (const void *)data;
	u32 conn = le32_to_cpu(h->conn), seq = le32_to_cpu(h->seq);
	size_t bad;

	if (slot >= depth || e->len != size || conn >= conns) {
		pr_err("completion of slot %u, %zu bytes, connection %u\n",
		       slot, e->len, conn);
		return -EPROTO;
	}
	if (p->conn < 0) {
		if (s->seen[conn]) {
			pr_err("two endpoints got connection %u's messages\n",
			       conn);
			return -EPROTO;
		}
		s->seen[conn] = true;
		p->conn = conn;
	}
	if (conn != p->conn || seq != p->next) {
		pr_err("endpoint of connection %d got connection %u's message %u, expected %u\n",
		       p->conn, conn, seq, p->next);
		return -EPROTO;
	}
	bad = ks_check(data + sizeof(*h), size - sizeof(*h),
		       conn * count + seq);
	if (bad) {
		pr_err("connection %u message %u: bad byte at %zu\n", conn,
		       seq, bad - 1);
		return -EIO;
	}
	p->next++;
	return srx_post(s, slot);
}

/*
 * Whether a connection ended (its EQ entry: an error, or FI_SHUTDOWN with
 * messages still to come): its errno, else 0.
 */
static int srx_ended(struct srx_state *s)
{
	struct fi_eq_err_entry err = {};
	struct fi_eq_cm_entry entry;
	u32 event;
	ssize_t ret;

	ret = fi_eq_read(s->c.eq, &event, &entry, sizeof(entry), 0);
	if (ret == -FI_EAVAIL && fi_eq_readerr(s->c.eq, &err, 0) > 0) {
		pr_err("connection error %d (%s)\n", err.err,
		       fi_strerror(err.err));
		return -err.err;
	}
	if (ret > 0) {
		pr_err("EQ event %u before every message came\n", event);
		return -ECONNRESET;
	}
	return 0;
}

/* Take every message from the endpoints' CQs, in turn, until all came. */
static int srx_receive_all(struct srx_state *s)
{
	unsigned long idle = jiffies + msecs_to_jiffies(timeout_ms);
	u64 left = (u64)conns * count;
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	struct srx_peer *p;
	unsigned int i;
	ssize_t ret;

	while (left) {
		for (i = 0; i < conns; i++) {
			p = &s->peer[i];
			ret = fi_cq_read(p->rxcq, &e, 1);
			if (ret == -EAGAIN)
				continue;
			if (ret == -FI_EAVAIL &&
			    fi_cq_readerr(p->rxcq, &err, 0) == 1) {
				pr_err("receive error %d (%s)\n", err.err,
				       fi_strerror(err.err));
				return -err.err;
			}
			if (ret != 1)
				return ret < 0 ? ret : -EPROTO;
			ret = srx_check(s, p, &e);
			if (ret)
				return ret;
			left--;
			idle = jiffies + msecs_to_jiffies(timeout_ms);
		}
		ret = srx_ended(s);
		if (ret)
			return ret;
		if (time_after(jiffies, idle)) {
			pr_err("%llu messages did not come\n", left);
			return -ETIMEDOUT;
		}
		cond_resched();
	}
	return 0;
}

static int srx_server(struct srx_state *s)
{
	struct fi_rx_attr rx_attr = { .size = depth };
	u8 byte = 0;
	struct kvec iov = { .iov_base = &byte, .iov_len = 1 };
	struct fi_msg msg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &iov,
		.iov_count = 1,
		.addr = FI_ADDR_UNSPEC,
	};
	unsigned int i;
	int ret;

	if (s->c.info->domain_attr->max_ep_srx_ctx < 1)
		return -EOPNOTSUPP;
	ret = srx_open_common(s, (size_t)depth * size);
	if (ret)
		return ret;
	ret = fi_srx_context(s->c.domain, &rx_attr, &s->srx, NULL);
	if (ret) {
		pr_err("fi_srx_context: %d\n", ret);
		return ret;
	}
	if (rx_attr.size != depth || !rx_attr.iov_limit) {
		pr_err("context of %zu receives, %zu entries each\n",
		       rx_attr.size, rx_attr.iov_limit);
		return -EPROTO;
	}
	ret = fi_send(s->srx, &byte, 1, NULL, FI_ADDR_UNSPEC, NULL);
	if (ret != -EINVAL) {
		pr_err("a send on the context: %d, not -EINVAL\n", ret);
		return -EPROTO;
	}
	ret = fi_recvmsg(s->srx, &msg, FI_MULTI_RECV);
	if (ret != -EOPNOTSUPP) {
		pr_err("FI_MULTI_RECV on the context: %d, not -EOPNOTSUPP\n",
		       ret);
		return -EPROTO;
	}
	ret = fi_cancel(&s->srx->fid, &s->slot[0]);
	if (ret != -FI_ENOSYS) {
		pr_err("fi_cancel() on the context: %d, not -FI_ENOSYS\n", ret);
		return -EPROTO;
	}
	for (i = 0; i < depth; i++) {
		s->slot[i] = i;
		ret = srx_post(s, i);
		if (ret)
			return ret;
	}
	for (i = 0; i < conns; i++) {
		ret = srx_accept(s, &s->peer[i], i == 0);
		if (ret) {
			pr_err("connection %u: %d\n", i, ret);
			return ret;
		}
	}
	pr_info("server: %u connections share %u receives\n", conns, depth);
	ret = srx_receive_all(s);
	if (!ret)
		pr_info("server: %u messages of %u bytes on each of %u connections, all verified\n",
			count, size, conns);
	return ret;
}

static int srx_client(struct srx_state *s)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA };
	struct fi_eq_cm_entry entry;
	struct fi_cq_data_entry e;
	struct srx_hdr *h;
	unsigned int i, seq;
	u8 *msg;
	int ret;

	ret = srx_open_common(s, (size_t)conns * size);
	if (!ret)
		ret = fi_cq_open(s->c.domain, &cq_attr, &s->c.rxcq, NULL);
	if (ret)
		return ret;
	for (i = 0; i < conns; i++) {
		struct fid_ep **ep = &s->peer[i].ep;

		ret = fi_endpoint(s->c.domain, s->c.info, ep, NULL);
		if (!ret)
			ret = fi_ep_bind(*ep, &s->c.eq->fid, 0);
		if (!ret)
			ret = fi_ep_bind(*ep, &s->c.txcq->fid, FI_SEND);
		if (!ret)
			ret = fi_ep_bind(*ep, &s->c.rxcq->fid, FI_RECV);
		if (!ret)
			ret = fi_enable(*ep);
		if (!ret)
			ret = fi_connect(*ep, s->c.info->dest_addr, NULL, 0);
		if (!ret)
			ret = ks_eq_wait(&s->c, FI_CONNECTED, &entry,
					 sizeof(entry));
		if (ret) {
			pr_err("connection %u: %d\n", i, ret);
			return ret;
		}
	}
	for (seq = 0; seq < count; seq++) {
		for (i = 0; i < conns; i++) {
			msg = s->c.buf + (size_t)i * size;
			h = (void *)msg;
			h->conn = cpu_to_le32(i);
			h->seq = cpu_to_le32(seq);
			ks_fill(msg + sizeof(*h), size - sizeof(*h),
				i * count + seq);
			ret = fi_send(s->peer[i].ep, msg, size, s->c.desc,
				      FI_ADDR_UNSPEC, NULL);
			if (ret)
				return ret;
		}
		for (i = 0; i < conns; i++) {
			ret = ks_cq_wait(&s->c, s->c.txcq, &e);
			if (ret)
				return ret;
		}
	}
	pr_info("client: %u messages of %u bytes sent on each of %u connections\n",
		count, size, conns);
	return 0;
}

static void srx_close(struct srx_state *s)
{
	unsigned int i;

	for (i = 0; i < conns; i++) {
		if (s->peer[i].ep) {
			fi_shutdown(s->peer[i].ep, 0);
			ks_close_fid(&s->peer[i].ep->fid);
		}
		ks_close_fid(s->peer[i].rxcq ? &s->peer[i].rxcq->fid : NULL);
	}
	/* no endpoint holds it now */
	ks_close_fid(s->srx ? &s->srx->fid : NULL);
	ks_close(&s->c);
}

static int __init srx_init(void)
{
	bool client = !strcmp(role, "client");
	struct srx_state *s;
	int ret;

	if ((!client && strcmp(role, "server")) || !addr || !conns ||
	    conns > SRX_MAX_CONNS || !count || size < sizeof(struct srx_hdr) ||
	    size > SZ_1M || !depth || depth > ARRAY_SIZE(s->slot)) {
		result = -EINVAL;
		return 0;
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		result = -ENOMEM;
		return 0;
	}
	s->c.timeout_ms = timeout_ms;
	ret = ks_start(&s->c, prov, !client, addr, port);
	if (!ret && !client)
		ret = srx_server(s);
	else if (!ret)
		ret = srx_client(s);
	if (ret) {
		pr_err("%s failed: %d\n", role, ret);
		/* e.g. for the device to go away under the open objects */
		if (linger_ms) {
			msleep(linger_ms);
			if (s->srx)
				pr_info("a receive posted to the context now: %d\n",
					srx_post(s, 0));
		}
	}
	srx_close(s);
	kfree(s);
	result = ret;
	/* loading succeeds whatever the outcome: see the result parameter */
	return 0;
}

static void __exit srx_exit(void)
{
}

module_init(srx_init);
module_exit(srx_exit);

MODULE_DESCRIPTION("kOFI sample: endpoints sharing a receive context");
MODULE_LICENSE("Dual BSD/GPL");
