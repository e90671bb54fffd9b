// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: one-way bandwidth over any provider.
 *
 * The client keeps up to "window" transfers in flight until iters transfers
 * of each size are done: messages (op=msg, the server keeps a window of
 * receives posted), RMA writes into the server's buffer (op=write) or RMA
 * reads from it (op=read).  The server then answers with a zero-byte
 * message and the client prints a fabtests-style row (time until that
 * answer).  With verify=1 the data is checked: each message on arrival,
 * the written buffer at the end, the read data after each read.
 *
 * With credits=1 (op=msg) the client never has more messages on their
 * way than the server has receives posted: the server grants them by
 * messages (kofi_sample.h, KS_GRANT_LEN), as a provider without
 * receiver-not-ready retries (ib_verbs on iWARP) needs.
 *
 * ep_type=rdm runs one FI_EP_RDM endpoint on each side instead of a
 * connection, the peers finding each other over a TCP control connection
 * on port (kofi_sample_rdm.h); mode=tagged sends tagged messages (tag
 * 1234) instead of messages.
 *
 * The run happens in module init; the outcome is the read-only parameter
 * "result" (0 or a negative errno).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/delay.h>
#include <linux/sizes.h>
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

static char *port = "7481";
module_param(port, charp, 0444);
MODULE_PARM_DESC(port, "port (default 7481)");

static char *ep_type = "msg";
module_param(ep_type, charp, 0444);
MODULE_PARM_DESC(ep_type, "msg (connected) or rdm (reliable datagrams, peers found over a TCP control connection on port) (default msg)");

static char *mode = "msg";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "msg (fi_send/fi_recv) or tagged (fi_tsend/fi_trecv, tag 1234) (default msg)");

static char *op = "msg";
module_param(op, charp, 0444);
MODULE_PARM_DESC(op, "msg, write or read");

static unsigned int sizes[KS_SIZES_MAX] = { 4096, 65536 };
static unsigned int nsizes = 2;
static bool sizes_all;
static struct ks_sizes_param sizes_param =
	KS_SIZES_INIT(sizes, nsizes, sizes_all);
module_param_cb(sizes, &ks_sizes_ops, &sizes_param.arr, 0444);
MODULE_PARM_DESC(sizes, "transfer sizes, comma separated, up to 64, or all: fi_pingpong -S all's (default 4096,65536)");

static unsigned int iters = 1000;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "transfers per size (default 1000)");

static unsigned int window = 64;
module_param(window, uint, 0444);
MODULE_PARM_DESC(window, "transfers in flight (default 64)");

static unsigned int rx_slots;
module_param(rx_slots, uint, 0444);
MODULE_PARM_DESC(rx_slots, "op=msg: receives the server keeps posted, at most (default 0: the window)");

static bool credits;
module_param(credits, bool, 0444);
MODULE_PARM_DESC(credits, "op=msg: the server grants the client its messages, so that none finds no receive posted (iWARP) (default 0)");

static bool verify = true;
module_param(verify, bool, 0444);
MODULE_PARM_DESC(verify, "check the data (default 1)");

static int timeout_ms = 30000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of each wait (default 30000)");

static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome of the run: 0 or a negative errno (read only)");

/* Bytes of receive slots the server posts for messages, at most. */
#define BW_SLOTS_MAX	SZ_1M
static int bw_op;

/* Receive slots the server keeps posted, at most. */
static unsigned int bw_slots_max(void)
{
	return rx_slots ? rx_slots : window;
}

static int bw_check(const u8 *buf, size_t len, unsigned int k)
{
	size_t bad;

	if (!verify)
		return 0;
	bad = ks_check(buf, len, k);
	if (!bad)
		return 0;
	pr_err("data error: size %zu, byte %zu\n", len, bad - 1);
	return -EBADMSG;
}

/* Post transfer @i of the client. */
static int bw_post(struct ks_conn *c, size_t size)
{
	int ret;

	do {
		switch (bw_op) {
		case KS_OP_MSG:
			ret = ks_post_send(c, ks_tx(c), size, c, false);
			break;
		case KS_OP_WRITE:
			ret = fi_write(c->ep, ks_tx(c), size, c->desc, c->peer,
				       c->raddr + c->half, c->rkey, c);
			break;
		default:
			ret = fi_read(c->ep, ks_rx(c), size, c->desc, c->peer,
				      c->raddr, c->rkey, c);
			break;
		}
	} while (ret == -EAGAIN && !msleep_interruptible(1));
	return ret;
}

/*
 * credits=1: the client's receives for the server's grants and answer,
 * beside its usual one (posted once; each is posted again when taken).
 */
static int bw_grant_recvs(struct ks_conn *c)
{
	static bool posted;
	unsigned int i;
	u8 *buf;
	int ret;

	if (posted)
		return 0;
	for (i = 1; i <= KS_GRANT_RECVS; i++) {
		buf = ks_rx(c) + i * KS_GRANT_SLOT;
		ret = ks_post_recv_buf(c, buf, KS_GRANT_SLOT, buf);
		if (ret)
			return ret;
	}
	posted = true;
	return 0;
}

/*
 * A message of the server's arrived at the client (@e): a grant adds to
 * @credit; the answer (0 bytes) sets @answered.  Its receive is posted
 * again.
 */
static int bw_client_got(struct ks_conn *c, const struct fi_cq_data_entry *e,
			 unsigned int *credit, bool *answered)
{
	u8 *buf = e->op_context == c ? ks_rx(c) : e->op_context;

	if (e->len == KS_GRANT_LEN)
		*credit += *(u32 *)buf;
	else if (!e->len)
		*answered = true;
	else
		return -EBADMSG;
	if (e->op_context == c)
		return ks_post_recv(c, c->half);
	return ks_post_recv_buf(c, buf, KS_GRANT_SLOT, buf);
}

static int bw_client(struct ks_conn *c, size_t size, unsigned int k)
{
	unsigned int posted = 0, done = 0, credit = UINT_MAX;
	struct fi_cq_data_entry e;
	bool answered = false;
	int ret = 0;

	if (credits)
		credit = 1;	/* the server grants the rest */
	while (done < iters && !ret) {
		while (posted < iters && posted - done < window &&
		       posted < credit && !ret) {
			ret = bw_post(c, size);
			posted++;
		}
		if (ret)
			break;
		if (posted > done) {
			ret = ks_cq_wait(c, c->txcq, &e);
			done++;
			if (!ret && bw_op == KS_OP_READ)
				ret = bw_check(ks_rx(c), size, k);
		}
		/* grants that came; with none in flight, wait for one */
		while (credits && !ret && !answered) {
			if (posted == done && posted < iters &&
			    posted >= credit)
				ret = ks_cq_wait(c, c->rxcq, &e);
			else if (fi_cq_read(c->rxcq, &e, 1) != 1)
				break;
			if (!ret)
				ret = bw_client_got(c, &e, &credit, &answered);
		}
	}
	if (ret)
		return ret;
	if (bw_op != KS_OP_MSG)
		ret = ks_send_wait(c, 0);	/* "all written / read" */
	if (!credits || ret)
		return ret ? ret : ks_recv_wait(c, 0, true);
	while (!answered && !ret) {
		ret = ks_cq_wait(c, c->rxcq, &e);
		if (!ret)
			ret = bw_client_got(c, &e, &credit, &answered);
	}
	return ret;
}

/* credits=1: grant the client @n more messages. */
static int bw_grant(struct ks_conn *c, unsigned int n)
{
	*(u32 *)ks_tx(c) = n;
	return ks_send_wait(c, KS_GRANT_LEN);
}

static int bw_server(struct ks_conn *c, size_t size, unsigned int k)
{
	unsigned int slots, posted, got = 0, owed = 0, granted, i;
	struct fi_cq_data_entry e;
	u8 *slot;
	int ret;

	if (bw_op != KS_OP_MSG) {
		ret = ks_recv_wait(c, 0, true);
		if (!ret && bw_op == KS_OP_WRITE)
			ret = bw_check(ks_rx(c), size, k);
		return ret ? ret : ks_send_wait(c, 0);
	}
	/* One receive (the whole rx half) is posted; add a window of slots. */
	slots = ks_bw_slots(c->half, size, bw_slots_max());
	granted = 1;
	posted = 1;
	for (i = 1; i < slots && posted <= iters; i++, posted++) {
		slot = ks_rx(c) + i * size;
		ret = ks_post_recv_buf(c, slot, posted == iters ? 0 : size,
				       slot);
		if (ret)
			return ret;
	}
	/* credits=1: the client may send into what is posted now */
	if (credits && min(posted, iters) > granted) {
		ret = bw_grant(c, min(posted, iters) - granted);
		if (ret)
			return ret;
		granted = min(posted, iters);
	}
	while (got < iters) {
		ret = ks_cq_wait(c, c->rxcq, &e);
		if (ret)
			return ret;
		got++;
		slot = e.op_context == c ? ks_rx(c) : e.op_context;
		if (e.len != size)
			return -EBADMSG;
		ret = bw_check(slot, size, k);
		if (ret)
			return ret;
		if (posted > iters)
			continue;
		/* The receive after the last transfer is for the next sync. */
		if (posted == iters)
			ret = ks_post_recv(c, c->half);
		else
			ret = ks_post_recv_buf(c, slot, size, slot);
		posted++;
		if (ret)
			return ret;
		if (credits && granted < iters &&
		    ++owed >= KS_GRANT_BATCH(slots)) {
			ret = bw_grant(c, owed);
			granted += owed;
			owed = 0;
			if (ret)
				return ret;
		}
	}
	return ks_send_wait(c, 0);
}

static int bw_run_size(struct ks_conn *c, size_t size, bool client)
{
	unsigned int k = size % 61;
	u64 start;
	int ret = 0;

	if (verify && (client || bw_op == KS_OP_READ))
		ks_fill(ks_tx(c), size, k);
	/*
	 * credits=1: the client's receives for grants go before the sync,
	 * whose answer the server's first grant may follow at once.
	 */
	if (credits && client)
		ret = bw_grant_recvs(c);
	if (!ret)
		ret = ks_sync(c, client, false);
	if (ret)
		return ret;
	start = ktime_get_ns();
	ret = client ? bw_client(c, size, k) : bw_server(c, size, k);
	if (!ret && client)
		ks_print_row(size, iters, 1, ktime_get_ns() - start);
	return ret;
}

static int __init bw_init(void)
{
	struct ks_conn c = { .timeout_ms = timeout_ms };
	bool client = !strcmp(role, "client");
	int type = ks_parse_ep_type(ep_type);
	int tagged = ks_parse_mode(mode);
	size_t max = 64;
	unsigned int i;

	bw_op = ks_parse_op(op);
	if ((!client && strcmp(role, "server")) || (client && !addr) ||
	    !window || !iters || bw_op < 0 || type < 0 || tagged < 0 ||
	    (credits && bw_op != KS_OP_MSG)) {
		result = -EINVAL;
		return 0;
	}
	c.tagged = tagged;
	c.rma = bw_op != KS_OP_MSG;
	if (sizes_all)
		nsizes = ks_sizes_all(sizes);
	for (i = 0; i < nsizes; i++)
		max = max_t(size_t, max, sizes[i]);
	/*
	 * Messages: room for a window of receive slots, within 1 MiB (the
	 * server keeps fewer slots posted if they do not fit).  RMA: one
	 * transfer.  The whole buffer is one registered region, and a
	 * provider may limit its size: ib_verbs registers by FRWR, at most
	 * the device's page list (rxe: 512 pages, 2 MiB of vmalloc'd
	 * memory).
	 */
	c.half = max;
	if (bw_op == KS_OP_MSG)
		c.half = max_t(size_t, max, min_t(size_t,
						  (size_t)bw_slots_max() * max,
						  BW_SLOTS_MAX));
	pr_info("%s over %s, %s%s%s, %u sizes, %u iters, window %u%s%s\n",
		role, prov, type == FI_EP_RDM ? "rdm, " : "",
		tagged ? "tagged, " : "", op, nsizes, iters, window,
		credits ? ", credits" : "", verify ? ", verified" : "");
	if (type == FI_EP_RDM)
		result = ks_rdm_run(&c, prov, client, addr, port, sizes,
				    nsizes, sizes_all, bw_run_size);
	else
		result = ks_run(&c, prov, client, addr, port, sizes, nsizes,
				sizes_all, bw_run_size);
	return 0;
}

static void __exit bw_exit(void)
{
}

module_init(bw_init);
module_exit(bw_exit);

MODULE_DESCRIPTION("kOFI sample: one-way bandwidth over any provider");
MODULE_LICENSE("Dual BSD/GPL");
