// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: kstream throughput client on the socket-like calls.
 *
 * It speaks rstream's exchange (librdmacm): per size, one connection;
 * a 16-byte sync each way, then per iteration "count" transfers of
 * "size" bytes sent and (echo) the same received back; rows in rstream's
 * format.  Verification is on by default with rstream's pattern (one
 * continuous uint8 counter per direction), so the peer may be
 * kofi_sample_stream_echo or librdmacm's rstream as server
 * ("rstream -T v -S SIZE -C COUNT -I ITERS").  With oneway=1 it only
 * sends, then shuts its side down and waits for the peer (an echo server
 * with echo=0) to end the stream; the time includes that.
 *
 * The run happens in module init; the outcome is the read-only parameter
 * "result" (0 or a negative errno).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/vmalloc.h>
#include "kofi_sample_stream.h"

static char *prov;
module_param(prov, charp, 0444);
MODULE_PARM_DESC(prov, "core provider under kstream: ksocket or ib_verbs (default: the best one)");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "server address, IPv4 or IPv6 (required)");

static ushort port = 7471;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "port (default 7471, rstream's)");

static unsigned int sizes[16] = { 64, 65536 };
static unsigned int nsizes = 2;
module_param_array(sizes, uint, &nsizes, 0444);
MODULE_PARM_DESC(sizes, "transfer sizes, one connection each (default 64,65536)");

static unsigned int count = 100;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "transfers per iteration and direction (default 100)");

static unsigned int iters = 10;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "iterations (default 10)");

static bool oneway;
module_param(oneway, bool, 0444);
MODULE_PARM_DESC(oneway, "only send; the peer only receives (default 0: echo)");

static bool verify = true;
module_param(verify, bool, 0444);
MODULE_PARM_DESC(verify, "rstream's pattern on sent data, checked on received data (default 1)");

static unsigned int bufsize;
module_param(bufsize, uint, 0444);
MODULE_PARM_DESC(bufsize, "SO_RCVBUF/SO_SNDBUF value (default: provider's)");

static int timeout_ms = 60000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of each wait (default 60000)");

static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome of the run: 0 or a negative errno (read only)");

/**
 * struct tput - one connection's state
 * @ks: the socket
 * @buf: transfer buffer
 * @tx: pattern of what we send
 * @rx: pattern of what we receive
 */
struct tput {
	struct kstream_sock *ks;
	u8 *buf;
	struct kss_pattern tx;
	struct kss_pattern rx;
};

static int tput_send(struct tput *t, size_t len)
{
	if (verify)
		kss_fill(&t->tx, t->buf, len);
	return kss_xfer(t->ks, t->buf, len, true);
}

static int tput_recv(struct tput *t, size_t len)
{
	int ret = kss_xfer(t->ks, t->buf, len, false);

	if (!ret && verify)
		ret = kss_verify(&t->rx, t->buf, len);
	return ret;
}

/* After a one-way run: end our side, wait until the peer ends its side. */
static int tput_drain(struct tput *t)
{
	struct kvec kv = { .iov_base = t->buf, .iov_len = 1 };
	struct msghdr msg = {};
	int ret;

	ret = kstream_shutdown(t->ks, SHUT_WR);
	if (ret)
		return ret;
	iov_iter_kvec(&msg.msg_iter, ITER_DEST, &kv, 1, 1);
	ret = kstream_recvmsg(t->ks, &msg, 0);
	return ret > 0 ? -EPROTO : ret;
}

static int tput_connect(struct tput *t)
{
	struct sockaddr_storage ss;
	int family, ret;

	family = kss_addr(addr, port, AF_INET, &ss);
	if (family < 0)
		return family;
	ret = kstream_sock_create(family, prov, &t->ks);
	if (ret) {
		pr_err("kstream_sock_create(%s): %d\n", prov ?: "any", ret);
		return ret;
	}
	ret = kss_set_timeouts(t->ks, timeout_ms);
	if (!ret)
		ret = kss_set_bufs(t->ks, bufsize);
	if (!ret)
		ret = kstream_connect(t->ks, (struct sockaddr *)&ss,
				      kss_addrlen(family), 0);
	if (ret)
		pr_err("connect to %pISpc: %d\n", &ss, ret);
	return ret;
}

static int tput_run(struct tput *t, size_t size)
{
	unsigned int i, k;
	char name[40], s[24];
	u64 start;
	int ret;

	ret = tput_send(t, KSS_SYNC);
	if (!ret)
		ret = oneway ? 0 : tput_recv(t, KSS_SYNC);
	if (ret)
		return ret;
	start = ktime_get_ns();
	for (i = 0; i < iters; i++) {
		for (k = 0; k < count && !ret; k++)
			ret = tput_send(t, size);
		for (k = 0; k < count && !ret && !oneway; k++)
			ret = tput_recv(t, size);
		if (ret)
			return ret;
	}
	if (oneway) {
		ret = tput_drain(t);
		if (ret)
			return ret;
	}
	kss_size_str(s, sizeof(s), size);
	snprintf(name, sizeof(name), "%s_%s", s, oneway ? "oneway" : "bw");
	kss_print_row(name, size, count, iters, oneway ? 1 : 2,
		      ktime_get_ns() - start);
	return 0;
}

static int __init tput_init(void)
{
	struct tput t = {};
	size_t max = KSS_SYNC;
	unsigned int i;
	int ret = 0;

	if (!addr || !count || !iters || !nsizes) {
		result = -EINVAL;
		return 0;
	}
	for (i = 0; i < nsizes; i++) {
		if (!sizes[i] || sizes[i] > INT_MAX) {
			result = -EINVAL;
			return 0;
		}
		max = max_t(size_t, max, sizes[i]);
	}
	t.buf = vmalloc(max);
	if (!t.buf) {
		result = -ENOMEM;
		return 0;
	}
	pr_info("client to %s port %u over %s, %u size(s), %u x %u per iteration%s%s\n",
		addr, port, prov ?: "any provider", nsizes, count, iters,
		oneway ? ", one-way" : ", echoed",
		verify ? ", verified" : "");
	kss_print_header();
	for (i = 0; i < nsizes && !ret; i++) {
		memset(&t.tx, 0, sizeof(t.tx));
		memset(&t.rx, 0, sizeof(t.rx));
		ret = tput_connect(&t);
		if (!ret)
			ret = tput_run(&t, sizes[i]);
		if (ret)
			pr_err("size %u: %d\n", sizes[i], ret);
		kstream_release(t.ks);
		t.ks = NULL;
	}
	vfree(t.buf);
	if (!ret)
		pr_info("done\n");
	result = ret;
	return 0;
}

static void __exit tput_exit(void)
{
}

module_init(tput_init);
module_exit(tput_exit);

MODULE_DESCRIPTION("kOFI sample: kstream throughput client on the socket-like calls");
MODULE_LICENSE("Dual BSD/GPL");
