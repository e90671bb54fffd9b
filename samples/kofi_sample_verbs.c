// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: the raw-verbs baseline.
 *
 * The same exchanges as kofi_sample_pingpong op=msg (mode=pingpong: size
 * bytes each way, iters times, each side waiting for its send's and its
 * receive's completion) and kofi_sample_bandwidth op=msg (mode=bandwidth:
 * the client keeps a window of sends in flight, the server a window of
 * receive slots within 1 MiB, and answers a zero-byte message at the end),
 * written directly on ib_core and rdma_cm without kOFI: rdma_create_id,
 * address and route resolution, ib_alloc_pd, ib_alloc_cq with ib_cqe done
 * callbacks, rdma_create_qp, the buffer mapped once with
 * ib_dma_map_single, ib_post_send and ib_post_recv, sends of up to the
 * QP's inline size inline, the receiver-not-ready NAK timer that of
 * kofi_ib_verbs (min_rnr_timer).  Completions are waited for as kOFI's
 * samples wait (kofi_sample_verbs.h).  It prints the same fabtests-style rows, so
 * that benchmarks can compare kOFI over ib_verbs with what the RDMA stack
 * itself does in the same VM run.
 *
 * With credits=1 (bandwidth) the server grants the client its sends by
 * messages, as kofi_sample_bandwidth credits=1 does (kofi_sample.h,
 * KS_GRANT_LEN): the baseline over iWARP, which has no receiver-not-ready
 * retry.
 *
 * The run happens in module init; the outcome is the read-only parameter
 * "result" (0 or a negative errno).
 *
 * Example:  insmod kofi_sample_verbs.ko role=server addr=192.0.2.1
 *           insmod kofi_sample_verbs.ko role=client addr=192.0.2.1
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include "kofi_sample.h"
#include "kofi_sample_verbs.h"

static char *role = "server";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "server or client");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address: the server's own (both roles)");

static ushort port = 7490;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "port (default 7490)");

static char *mode = "pingpong";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "pingpong or bandwidth");

static unsigned int sizes[16] = { 64, 4096, 65536 };
static unsigned int nsizes = 3;
module_param_array(sizes, uint, &nsizes, 0444);
MODULE_PARM_DESC(sizes, "message sizes (default 64,4096,65536)");

static unsigned int iters = 100;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "iterations (pingpong) or transfers (bandwidth) per size (default 100)");

static unsigned int window = 64;
module_param(window, uint, 0444);
MODULE_PARM_DESC(window, "bandwidth: sends in flight (default 64, at most 128)");

static unsigned int rx_slots;
module_param(rx_slots, uint, 0444);
MODULE_PARM_DESC(rx_slots, "bandwidth: receives the server keeps posted, at most (default 0: the window; at most 64)");

static bool credits;
module_param(credits, bool, 0444);
MODULE_PARM_DESC(credits, "bandwidth: the server grants the client its sends, so that none finds no receive posted (iWARP) (default 0)");

static bool verify = true;
module_param(verify, bool, 0444);
MODULE_PARM_DESC(verify, "check the data of every message (default 1)");

static uint min_rnr_timer = 12;
module_param(min_rnr_timer, uint, 0444);
MODULE_PARM_DESC(min_rnr_timer, "receiver-not-ready NAK timer, IBTA encoding (0-31; default 12 = 0.64 ms, as kofi_ib_verbs)");

static int timeout_ms = 30000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of each wait (default 30000)");

static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome of the run: 0 or a negative errno (read only)");

/* Bytes of receive slots the bandwidth server posts, at most. */
#define VB_SLOTS_MAX	SZ_1M

/* Receive slots the bandwidth server keeps posted, at most. */
static unsigned int vb_slots_max(void)
{
	return min_t(unsigned int, rx_slots ? rx_slots : window,
		     VB_MAX_SLOTS);
}

static int vb_check(struct vb_conn *c, const u8 *buf, size_t len,
		    unsigned int k)
{
	size_t bad;

	if (!verify)
		return 0;
	vb_sync_cpu(c, (u8 *)buf, len);
	bad = ks_check(buf, len, k);
	if (!bad)
		return 0;
	pr_err("data error: message %u, size %zu, byte %zu\n", k, len,
	       bad - 1);
	return -EBADMSG;
}

/* Send @len bytes of the tx half and wait for the send's completion. */
static int vb_send_wait(struct vb_conn *c, size_t len)
{
	struct vb_wc wc;
	int ret;

	ret = vb_post_send(c, len);
	if (ret) {
		pr_err("ib_post_send: %d\n", ret);
		return ret;
	}
	return vb_wait(c, &c->txq, &wc);
}

/*
 * Post @slot's receive again: slot 0 takes the whole rx half, a grant
 * slot of the client (credits=1) the rest of it from its buffer.
 */
static int vb_repost(struct vb_conn *c, struct vb_slot *slot)
{
	return vb_post_recv(c, slot, slot->buf,
			    c->half - (slot->buf - vb_rx(c)));
}

/* Wait for a receive of @len bytes (message @k); repost its slot. */
static int vb_recv_wait(struct vb_conn *c, size_t len, unsigned int k,
			bool repost)
{
	struct vb_wc wc;
	int ret;

	ret = vb_wait(c, &c->rxq, &wc);
	if (ret)
		return ret;
	if (wc.len != len) {
		pr_err("received %u bytes, expected %zu\n", wc.len, len);
		return -EBADMSG;
	}
	ret = vb_check(c, wc.slot->buf, len, k);
	if (ret || !repost)
		return ret;
	return vb_repost(c, wc.slot);
}

/* A zero-byte message each way, client first (as ks_sync()). */
static int vb_sync(struct vb_conn *c, bool client, bool last)
{
	int ret;

	if (client) {
		ret = vb_send_wait(c, 0);
		return ret ? ret : vb_recv_wait(c, 0, 0, !last);
	}
	ret = vb_recv_wait(c, 0, 0, !last);
	return ret ? ret : vb_send_wait(c, 0);
}

static unsigned int vb_seq;	/* pingpong message number */

static int vb_put(struct vb_conn *c, size_t size, unsigned int k)
{
	if (verify)
		ks_fill(vb_tx(c), size, k);
	return vb_send_wait(c, size);
}

static int vb_pingpong(struct vb_conn *c, size_t size, bool client)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < iters && !ret; i++) {
		if (client) {
			ret = vb_put(c, size, vb_seq);
			if (!ret)
				ret = vb_recv_wait(c, size, vb_seq + 1, true);
		} else {
			ret = vb_recv_wait(c, size, vb_seq, true);
			if (!ret)
				ret = vb_put(c, size, vb_seq + 1);
		}
		vb_seq += 2;
	}
	return ret;
}

/*
 * credits=1: the client's receives for the server's grants and answer,
 * on slots 1 to KS_GRANT_RECVS beside slot 0 (posted once; each is
 * posted again when taken).
 */
static int vb_grant_recvs(struct vb_conn *c)
{
	static bool posted;
	unsigned int i;
	int ret;

	if (posted)
		return 0;
	for (i = 1; i <= KS_GRANT_RECVS; i++) {
		ret = vb_post_recv(c, &c->slots[i],
				   vb_rx(c) + i * KS_GRANT_SLOT, KS_GRANT_SLOT);
		if (ret)
			return ret;
	}
	posted = true;
	return 0;
}

/* As bw_client_got() of kofi_sample_bandwidth.c. */
static int vb_client_got(struct vb_conn *c, const struct vb_wc *wc,
			 unsigned int *credit, bool *answered)
{
	struct vb_slot *slot = wc->slot;

	vb_sync_cpu(c, slot->buf, wc->len);
	if (wc->len == KS_GRANT_LEN)
		*credit += *(u32 *)slot->buf;
	else if (!wc->len)
		*answered = true;
	else
		return -EBADMSG;
	return vb_repost(c, slot);
}

static int vb_bw_client(struct vb_conn *c, size_t size)
{
	unsigned int posted = 0, done = 0, credit = UINT_MAX;
	bool answered = false;
	struct vb_wc wc;
	int ret = 0;

	if (credits)
		credit = 1;	/* the server grants the rest */
	while (done < iters && !ret) {
		while (posted < iters && posted - done < window &&
		       posted < credit && !ret) {
			ret = vb_post_send(c, size);
			posted++;
		}
		if (ret)
			break;
		if (posted > done) {
			ret = vb_wait(c, &c->txq, &wc);
			done++;
		}
		/* grants that came; with none in flight, wait for one */
		while (credits && !ret && !answered &&
		       (vb_cq_ready(&c->rxq) ||
			(posted == done && posted < iters &&
			 posted >= credit))) {
			ret = vb_wait(c, &c->rxq, &wc);
			if (!ret)
				ret = vb_client_got(c, &wc, &credit,
						    &answered);
		}
	}
	if (!credits || ret)
		return ret ? ret : vb_recv_wait(c, 0, 0, true);
	while (!answered && !ret) {
		ret = vb_wait(c, &c->rxq, &wc);
		if (!ret)
			ret = vb_client_got(c, &wc, &credit, &answered);
	}
	return ret;
}

/* credits=1: grant the client @n more sends. */
static int vb_grant(struct vb_conn *c, unsigned int n)
{
	*(u32 *)vb_tx(c) = n;
	return vb_send_wait(c, KS_GRANT_LEN);
}

static int vb_bw_server(struct vb_conn *c, size_t size, unsigned int k)
{
	unsigned int slots, posted, got = 0, owed = 0, granted, i;
	struct vb_slot *slot;
	struct vb_wc wc;
	int ret;

	/* Slot 0 (the whole rx half) is posted; add a window of slots. */
	slots = ks_bw_slots(c->half, size, vb_slots_max());
	granted = 1;
	posted = 1;
	for (i = 1; i < slots && posted <= iters; i++, posted++) {
		ret = vb_post_recv(c, &c->slots[i], vb_rx(c) + i * size,
				   posted == iters ? 0 : size);
		if (ret)
			return ret;
	}
	/* credits=1: the client may send into what is posted now */
	if (credits && min(posted, iters) > granted) {
		ret = vb_grant(c, min(posted, iters) - granted);
		if (ret)
			return ret;
		granted = min(posted, iters);
	}
	while (got < iters) {
		ret = vb_wait(c, &c->rxq, &wc);
		if (ret)
			return ret;
		got++;
		slot = wc.slot;
		if (wc.len != size)
			return -EBADMSG;
		ret = vb_check(c, slot->buf, size, k);
		if (ret)
			return ret;
		if (posted > iters)
			continue;
		/* The receive after the last transfer is for the next sync. */
		if (posted == iters)
			ret = vb_post_recv(c, &c->slots[0], vb_rx(c), c->half);
		else
			ret = vb_post_recv(c, slot, slot->buf, size);
		posted++;
		if (ret)
			return ret;
		if (credits && granted < iters &&
		    ++owed >= KS_GRANT_BATCH(slots)) {
			ret = vb_grant(c, owed);
			granted += owed;
			owed = 0;
			if (ret)
				return ret;
		}
	}
	return vb_send_wait(c, 0);
}

static int vb_run_size(struct vb_conn *c, size_t size, bool client, bool bw)
{
	unsigned int k = size % 61;
	u64 start;
	int ret = 0;

	if (bw && verify && client)
		ks_fill(vb_tx(c), size, k);
	/*
	 * credits=1: the client's receives for grants go before the sync,
	 * whose answer the server's first grant may follow at once.
	 */
	if (bw && credits && client)
		ret = vb_grant_recvs(c);
	if (!ret)
		ret = vb_sync(c, client, false);
	if (ret)
		return ret;
	start = ktime_get_ns();
	if (!bw)
		ret = vb_pingpong(c, size, client);
	else
		ret = client ? vb_bw_client(c, size) : vb_bw_server(c, size, k);
	if (!ret && client)
		ks_print_row(size, iters, bw ? 1 : 2, ktime_get_ns() - start);
	return ret;
}

static int __init vb_init(void)
{
	struct vb_conn *c;
	bool client = !strcmp(role, "client");
	bool bw = !strcmp(mode, "bandwidth");
	size_t max = 64;
	unsigned int i;
	int ret;

	if ((!client && strcmp(role, "server")) ||
	    (!bw && strcmp(mode, "pingpong")) || !addr || !iters ||
	    !window || window > VB_MAX_WINDOW || min_rnr_timer > 31) {
		result = -EINVAL;
		return 0;
	}
	for (i = 0; i < nsizes; i++)
		max = max_t(size_t, max, sizes[i]);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c) {
		result = -ENOMEM;
		return 0;
	}
	c->timeout_ms = timeout_ms;
	c->min_rnr_timer = min_rnr_timer;
	/* As kofi_sample_bandwidth: a window of slots within 1 MiB. */
	c->half = max;
	if (bw)
		c->half = max_t(size_t, max, min_t(size_t,
						   (size_t)vb_slots_max() * max,
						   VB_SLOTS_MAX));
	ret = 2 * c->half <= KMALLOC_MAX_SIZE ? 0 : -EMSGSIZE;
	if (!ret) {
		c->buf = kzalloc(2 * c->half, GFP_KERNEL);
		ret = c->buf ? 0 : -ENOMEM;
	}
	if (ret)
		goto out;
	pr_info("%s, %s, %u sizes, %u iters%s\n", role, mode, nsizes, iters,
		verify ? ", verified" : "");
	ret = vb_connect(c, !client, addr, port, window + 2, VB_MAX_SLOTS + 2);
	if (ret) {
		pr_err("connection setup failed: %d\n", ret);
		goto out;
	}
	if (client)
		ks_print_header();
	for (i = 0; i < nsizes && !ret; i++)
		ret = vb_run_size(c, sizes[i], client, bw);
	if (!ret)
		ret = vb_sync(c, client, true);
	/*
	 * The server sent the last message and disconnects once its send
	 * has completed; the client waits for that before it disconnects
	 * itself, as kOFI's samples do (ks_await_shutdown()): on iWARP the
	 * server's send may still be in progress when the client has its
	 * data, and a connection the client took down first fails it.
	 */
	if (!ret && client)
		vb_cm_wait(c, RDMA_CM_EVENT_DISCONNECTED);
	if (ret)
		pr_err("failed: %d\n", ret);
	else
		pr_info("%s done\n", role);
out:
	vb_close(c);
	kfree(c->buf);
	kfree(c);
	result = ret;
	/* Loading succeeds whatever the outcome: see the parameter result. */
	return 0;
}

static void __exit vb_exit(void)
{
}

module_init(vb_init);
module_exit(vb_exit);

MODULE_DESCRIPTION("kOFI sample: raw-verbs baseline (ib_core + rdma_cm) for the benchmarks");
MODULE_LICENSE("Dual BSD/GPL");
