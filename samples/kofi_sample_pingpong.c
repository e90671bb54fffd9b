// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: pingpong latency over any provider.
 *
 * Loaded on two hosts, one with role=server and one with role=client (the
 * same sizes and iters on both), it connects one FI_EP_MSG endpoint and for
 * each size bounces a message back and forth iters times, then prints a
 * fabtests-style row.  op=msg uses fi_send/fi_recv (mode=tagged:
 * fi_tsend/fi_trecv, tag 1234); op=write bounces RMA
 * writes with remote CQ data (fi_writedata) into the peer's buffer, or,
 * where the provider has no FI_REMOTE_CQ_DATA (ib_verbs on iWARP), an
 * fi_write followed by a zero-byte message that tells the peer; op=read
 * has the client fi_read() the server's buffer.  With verify=1 every
 * transfer carries a pattern that the receiver checks.
 *
 * ep_type=rdm runs one FI_EP_RDM endpoint on each side instead
 * (kofi_sample_rdm.h): the server listens for a TCP control connection on
 * port, the two exchange their endpoints' names over it and address each
 * other through an AV; sends below the info's inject_size are injected,
 * as fi_pingpong does.
 *
 * On ib_verbs, retry_count and ack_timeout set the endpoint's transport
 * retries and ACK timeout (FI_OPT_RETRY_COUNT, FI_OPT_ACK_TIMEOUT); with
 * pause_ms the client waits before its first transfer and logs how long
 * that transfer took or when it failed - how a test times the loss of a
 * peer it takes away during the pause.
 *
 * The test runs in module init: insmod returns once it is over.  The
 * outcome - 0 if every transfer succeeded (and verified), a negative errno
 * otherwise - is the read-only parameter "result".
 *
 * Example:  insmod kofi_sample_pingpong.ko role=server port=7471
 *           insmod kofi_sample_pingpong.ko role=client addr=192.0.2.1
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include "kofi_sample_rdm.h"
#include "kofi_sample_sizes.h"

static char *prov = "ksocket";
module_param(prov, charp, 0444);
MODULE_PARM_DESC(prov, "provider name (default ksocket)");

static char *role = "server";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "server or client");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "client: server address; server: address to listen on (default any)");

static char *port = "7471";
module_param(port, charp, 0444);
MODULE_PARM_DESC(port, "port (default 7471)");

static char *ep_type = "msg";
module_param(ep_type, charp, 0444);
MODULE_PARM_DESC(ep_type, "msg (connected) or rdm (reliable datagrams, peers found over a TCP control connection on port) (default msg)");

static char *mode = "msg";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "msg (fi_send/fi_recv) or tagged (fi_tsend/fi_trecv, tag 1234) (default msg)");

static char *op = "msg";
module_param(op, charp, 0444);
MODULE_PARM_DESC(op, "msg, write or read");

static unsigned int sizes[KS_SIZES_MAX] = { 64, 4096, 65536 };
static unsigned int nsizes = 3;
static bool sizes_all;
static struct ks_sizes_param sizes_param =
	KS_SIZES_INIT(sizes, nsizes, sizes_all);
module_param_cb(sizes, &ks_sizes_ops, &sizes_param.arr, 0444);
MODULE_PARM_DESC(sizes, "message sizes, comma separated, up to 64, or all: fi_pingpong -S all's (default 64,4096,65536)");

static unsigned int iters = 100;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "iterations per size (default 100)");

static bool verify = true;
module_param(verify, bool, 0444);
MODULE_PARM_DESC(verify, "check the data of every transfer (default 1)");

static bool writedata;
module_param(writedata, bool, 0444);
MODULE_PARM_DESC(writedata, "op=write: fi_writedata() even where the provider has no FI_REMOTE_CQ_DATA, which it must refuse (default 0)");

static bool fipp;
module_param(fipp, bool, 0444);
MODULE_PARM_DESC(fipp, "speak fi_pingpong's control protocol (op=msg only; the peer is fi_pingpong -e msg or -e rdm, as ep_type)");

static ushort ctrl_port = FIPP_CTRL_PORT;
module_param(ctrl_port, ushort, 0444);
MODULE_PARM_DESC(ctrl_port, "fi_pingpong control port (default 47592)");

static bool defer_io;
module_param(defer_io, bool, 0444);
MODULE_PARM_DESC(defer_io, "do not set FI_OPT_DATA_MAY_SLEEP: the provider may leave every transfer to its own work (default 0)");

static unsigned int keepalive_ms;
module_param(keepalive_ms, uint, 0444);
MODULE_PARM_DESC(keepalive_ms, "non-zero: set the endpoint's keepalive interval with fi_setopt(FI_OPT_KEEPALIVE_MS) (ep_type=msg only; default 0: the provider's)");

static unsigned int linger_ms;
module_param(linger_ms, uint, 0444);
MODULE_PARM_DESC(linger_ms, "after the run, keep the idle connection up to this long and report how it ended (ep_type=msg only; default 0)");

static int retry_count = -1;
module_param(retry_count, int, 0444);
MODULE_PARM_DESC(retry_count, "0-7: set the endpoint's FI_OPT_RETRY_COUNT, with ack_timeout (ib_verbs; default -1: the provider's)");

static int ack_timeout = -1;
module_param(ack_timeout, int, 0444);
MODULE_PARM_DESC(ack_timeout, "0-31: set the endpoint's FI_OPT_ACK_TIMEOUT, with retry_count (ib_verbs; default -1: the provider's)");

static unsigned int pause_ms;
module_param(pause_ms, uint, 0444);
MODULE_PARM_DESC(pause_ms, "client: pause this long before the first transfer, then report how long it took or when it failed (default 0)");

static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome of the run: 0 or a negative errno (read only)");

static int timeout_ms = 30000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of each wait (default 30000)");

static int pp_op;
static unsigned int pp_seq;	/* message number, for the data pattern */

static int pp_check(struct ks_conn *c, const u8 *buf, size_t len,
		    unsigned int k)
{
	size_t bad;

	if (!verify)
		return 0;
	bad = ks_check(buf, len, k);
	if (!bad)
		return 0;
	pr_err("data error: message %u, size %zu, byte %zu\n", k, len,
	       bad - 1);
	return -EBADMSG;
}

/* Writes carry their notification as remote CQ data (else a message). */
static bool pp_cq_data(struct ks_conn *c)
{
	return writedata || (c->info->caps & FI_REMOTE_CQ_DATA);
}

/* One message from the tx half to the peer (msg, or write into its rx). */
static int pp_put(struct ks_conn *c, size_t size, unsigned int k)
{
	struct fi_cq_data_entry e;
	int ret;

	if (verify)
		ks_fill(ks_tx(c), size, k);
	if (pp_op == KS_OP_MSG)
		return ks_send_data(c, size);
	if (pp_cq_data(c))
		ret = fi_writedata(c->ep, ks_tx(c), size, c->desc, k,
				   c->peer, c->raddr + c->half, c->rkey, c);
	else
		ret = fi_write(c->ep, ks_tx(c), size, c->desc, c->peer,
			       c->raddr + c->half, c->rkey, c);
	if (ret) {
		pr_err("post: %d\n", ret);
		return ret;
	}
	ret = ks_cq_wait(c, c->txcq, &e);
	/* Delivered after the write has landed (RC order). */
	if (!ret && !pp_cq_data(c))
		ret = ks_send_wait(c, 0);
	return ret;
}

/* Wait for the peer's message (or write notification) number @k. */
static int pp_get(struct ks_conn *c, size_t size, unsigned int k)
{
	struct fi_cq_data_entry e;
	int ret;

	ret = ks_cq_wait(c, c->rxcq, &e);
	if (ret)
		return ret;
	if (pp_op == KS_OP_MSG && e.len != size) {
		pr_err("received %zu bytes, expected %zu\n", e.len, size);
		return -EBADMSG;
	}
	if (pp_op == KS_OP_WRITE && pp_cq_data(c) &&
	    (!(e.flags & FI_REMOTE_CQ_DATA) || e.data != k)) {
		pr_err("write notification: flags %llx data %llu, expected %u\n",
		       e.flags, e.data, k);
		return -EBADMSG;
	}
	if (pp_op == KS_OP_WRITE && !pp_cq_data(c) &&
	    (e.len || (e.flags & FI_REMOTE_CQ_DATA))) {
		pr_err("write notification: flags %llx len %zu, expected a zero-byte message\n",
		       e.flags, e.len);
		return -EBADMSG;
	}
	ret = pp_check(c, ks_rx(c), size, k);
	if (ret)
		return ret;
	return ks_post_recv(c, c->half);
}

static int pp_read_loop(struct ks_conn *c, size_t size, bool client)
{
	struct fi_cq_data_entry e;
	unsigned int i;
	int ret;

	if (!client)
		return 0;
	for (i = 0; i < iters; i++) {
		ret = fi_read(c->ep, ks_rx(c), size, c->desc, c->peer,
			      c->raddr, c->rkey, c);
		if (ret)
			return ret;
		ret = ks_cq_wait(c, c->txcq, &e);
		if (ret)
			return ret;
		ret = pp_check(c, ks_rx(c), size, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * pause_ms: the client waits before its first transfer (the test takes
 * the peer away meanwhile), then reports how long that transfer's
 * iteration took, or how long after it began it failed.
 */
static void pp_pause(void)
{
	pr_info("pausing %u ms\n", pause_ms);
	msleep(pause_ms);
}

static void pp_report_first(ktime_t begin, int ret)
{
	s64 ms = ktime_ms_delta(ktime_get(), begin);

	if (ret)
		pr_info("first iteration after the pause failed after %lld ms: %d\n",
			ms, ret);
	else
		pr_info("first iteration after the pause took %lld ms\n", ms);
}

static int pp_run_size(struct ks_conn *c, size_t size, bool client)
{
	bool paused = client && pause_ms && !pp_seq;
	ktime_t begin = 0;
	unsigned int i;
	u64 start;
	int ret = 0;

	/*
	 * The data a client reads is in place before the sync: the client
	 * reads as soon as the sync ends, and the previous size's data
	 * (the same pattern, shorter) must not pass for it.
	 */
	if (pp_op == KS_OP_READ && !client && verify)
		ks_fill(ks_tx(c), size, 0);
	/*
	 * Without remote CQ data a write is notified by a message sent
	 * after it, which only a connection's order delivers after it.
	 */
	if (pp_op == KS_OP_WRITE && c->rdm && !pp_cq_data(c)) {
		pr_err("op=write on FI_EP_RDM needs FI_REMOTE_CQ_DATA\n");
		return -EINVAL;
	}
	if (pp_op == KS_OP_WRITE && !pp_seq)
		pr_info("writes notified by %s\n", pp_cq_data(c) ?
			"remote CQ data" :
			"a zero-byte message (no FI_REMOTE_CQ_DATA)");
	/* Both sides in step: a zero-byte message each way. */
	ret = ks_sync(c, client, false);
	if (ret)
		return ret;

	if (paused)
		pp_pause();
	start = ktime_get_ns();
	if (pp_op == KS_OP_READ) {
		ret = pp_read_loop(c, size, client);
	} else {
		for (i = 0; i < iters && !ret; i++) {
			if (client) {
				if (paused && !i)
					begin = ktime_get();
				ret = pp_put(c, size, pp_seq);
				if (!ret)
					ret = pp_get(c, size, pp_seq + 1);
				if (paused && !i)
					pp_report_first(begin, ret);
			} else {
				ret = pp_get(c, size, pp_seq);
				if (!ret)
					ret = pp_put(c, size, pp_seq + 1);
			}
			pp_seq += 2;
		}
	}
	if (ret)
		return ret;
	/*
	 * The server of a read learns the end from the client, and answers:
	 * the client's next message must not arrive before the server has
	 * posted its receive again (iWARP has no receiver-not-ready retry).
	 */
	if (pp_op == KS_OP_READ) {
		ret = ks_sync(c, client, false);
		if (ret || !client)
			return ret;
	}
	ks_print_row(size, iters,
		     pp_op == KS_OP_READ ? 1 : 2, ktime_get_ns() - start);
	return 0;
}

/* ---- against fi_pingpong ---- */

static unsigned int fipp_ktx, fipp_krx;	/* pattern numbers, each way */

static int fipp_put(struct ks_conn *c, size_t size)
{
	if (verify)
		ks_fill(ks_tx(c), size, fipp_ktx);
	fipp_ktx++;
	return ks_send_data(c, size);
}

static int fipp_get(struct ks_conn *c, size_t size)
{
	int ret;

	ret = ks_recv_wait(c, size, false);
	if (!ret)
		ret = pp_check(c, ks_rx(c), size, fipp_krx);
	fipp_krx++;
	return ret ? ret : ks_post_recv(c, c->half);
}

static int fipp_run_size(struct ks_conn *c, struct socket *ctrl, size_t size,
			 bool client)
{
	char cnt[11] = {};
	unsigned int i, n;
	u64 start;
	int ret;

	if (client) {
		ret = fipp_send(ctrl, "q", 2);
		if (!ret)
			ret = fipp_expect(ctrl, "a", 2);
	} else {
		ret = fipp_expect(ctrl, "q", 2);
		if (!ret)
			ret = fipp_send(ctrl, "a", 2);
	}
	if (ret)
		return ret;
	start = ktime_get_ns();
	for (i = 0; i < iters && !ret; i++) {
		if (client) {
			ret = fipp_put(c, size);
			if (!ret)
				ret = fipp_get(c, size);
		} else {
			ret = fipp_get(c, size);
			if (!ret)
				ret = fipp_put(c, size);
		}
	}
	if (ret)
		return ret;
	if (client)
		ks_print_row(size, iters, 2, ktime_get_ns() - start);
	if (client) {
		snprintf(cnt, sizeof(cnt), "%u", iters);
		ret = fipp_send(ctrl, cnt, 10);
		if (!ret)
			ret = fipp_expect(ctrl, "cnt ok", 7);
	} else {
		ret = fipp_recv(ctrl, cnt, 10);
		if (!ret && (kstrtouint(cnt, 10, &n) || n != iters))
			pr_warn("peer counted '%s' receives, expected %u\n",
				cnt, iters);
		if (!ret)
			ret = fipp_send(ctrl, "cnt ok", 7);
	}
	return ret;
}

/* fi_pingpong -e msg: the server's passive endpoint, then a connection. */
static int fipp_connect(struct ks_conn *c, struct socket **ctrl, bool client)
{
	char node[INET6_ADDRSTRLEN + 1], service[8];
	int ret;

	if (client) {
		ret = fipp_ctrl_connect(ctrl, addr, ctrl_port, timeout_ms);
		if (!ret)
			ret = fipp_recv_name(*ctrl, node, sizeof(node), service);
		if (!ret)
			ret = ks_start(c, prov, false, node, service);
	} else {
		ret = ks_start(c, prov, true, addr, "0");
		if (!ret)
			ret = fipp_ctrl_accept(ctrl, NULL, ctrl_port,
					       timeout_ms);
		if (!ret)
			ret = fipp_send_name(*ctrl, c->pep);
	}
	return ret ? ret : ks_establish(c, !client);
}

/* fi_pingpong -e rdm: the name exchange (ks_rdm_setup()). */
static int fipp_rdm_setup(struct ks_conn *c, struct socket **ctrl,
			  bool client)
{
	int ret;

	if (client)
		ret = fipp_ctrl_connect(ctrl, addr, ctrl_port, timeout_ms);
	else
		ret = fipp_ctrl_accept(ctrl, NULL, ctrl_port, timeout_ms);
	return ret ? ret : ks_rdm_setup(c, prov, *ctrl, client,
					client ? NULL : addr);
}

static int fipp_run(struct ks_conn *c, bool client)
{
	struct socket *ctrl = NULL;
	unsigned int i, n;
	int ret;

	if (c->rdm)
		ret = fipp_rdm_setup(c, &ctrl, client);
	else
		ret = fipp_connect(c, &ctrl, client);
	if (ret) {
		pr_err("setup with fi_pingpong failed: %d\n", ret);
		goto out;
	}
	if (client)
		ks_print_header();
	n = ks_sizes_fit(c, sizes, nsizes, sizes_all);
	for (i = 0; i < n && !ret; i++)
		ret = fipp_run_size(c, ctrl, sizes[i], client);
	if (!ret)
		ret = fipp_finish(c);
	if (!ret && c->rdm)
		ret = fipp_ctrl_end(ctrl);
out:
	if (ctrl)
		sock_release(ctrl);
	return ret;
}

static int __init pp_init(void)
{
	struct ks_conn c = { .timeout_ms = timeout_ms, .defer_io = defer_io,
			     .keepalive_ms = keepalive_ms,
			     .linger_ms = linger_ms };
	bool client = !strcmp(role, "client");
	int type = ks_parse_ep_type(ep_type);
	int tagged = ks_parse_mode(mode);
	size_t max = 0;
	unsigned int i;
	int ret;

	if (!client && strcmp(role, "server"))
		return -EINVAL;
	pp_op = ks_parse_op(op);
	if (pp_op < 0 || type < 0 || tagged < 0)
		return -EINVAL;
	if (client && !addr)
		return -EINVAL;
	if (type == FI_EP_RDM && (keepalive_ms || linger_ms || retry_count >= 0))
		return -EINVAL;
	/* Both retry options or neither; the pause times message transfers. */
	if ((min(retry_count, ack_timeout) < 0 &&
	     max(retry_count, ack_timeout) >= 0) ||
	    max(retry_count, ack_timeout) > U8_MAX ||
	    (pause_ms && (pp_op != KS_OP_MSG || fipp)))
		return -EINVAL;
	c.retry_opts = retry_count >= 0;
	c.retry_count = retry_count;
	c.ack_timeout = ack_timeout;
	c.tagged = tagged;
	c.rma = pp_op != KS_OP_MSG;
	c.inject = type == FI_EP_RDM;
	if (sizes_all)
		nsizes = ks_sizes_all(sizes);
	for (i = 0; i < nsizes; i++)
		max = max_t(size_t, max, sizes[i]);
	c.half = max_t(size_t, max, 64);

	pr_info("%s over %s, %s%s%s, %u sizes, %u iters%s%s\n", role, prov,
		type == FI_EP_RDM ? "rdm, " : "", tagged ? "tagged, " : "", op,
		nsizes, iters, verify ? ", verified" : "",
		fipp ? ", with fi_pingpong" : "");
	if (fipp) {
		c.rdm = type == FI_EP_RDM;
		ret = pp_op == KS_OP_MSG ? fipp_run(&c, client) : -EINVAL;
		if (ret)
			pr_err("failed: %d\n", ret);
		else
			pr_info("%s done\n", role);
		ks_close(&c);
	} else if (type == FI_EP_RDM) {
		ret = ks_rdm_run(&c, prov, client, addr, port, sizes, nsizes,
				 sizes_all, pp_run_size);
	} else {
		ret = ks_run(&c, prov, client, addr, port, sizes, nsizes,
			     sizes_all, pp_run_size);
	}
	result = ret;
	/*
	 * Loading succeeds whatever the outcome (insmod would retry a failed
	 * init): the result is in /sys/module/kofi_sample_pingpong/parameters/result.
	 */
	return 0;
}

static void __exit pp_exit(void)
{
}

module_init(pp_init);
module_exit(pp_exit);

MODULE_DESCRIPTION("kOFI sample: pingpong latency over any provider");
MODULE_LICENSE("Dual BSD/GPL");
