// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: the raw kernel TCP baseline.
 *
 * The same exchanges as kofi_sample_pingpong (mode=pingpong: size bytes
 * each way, iters times) and kofi_sample_bandwidth (mode=bandwidth: the
 * client streams iters messages of size bytes, the server answers one byte
 * at the end) over one plain kernel TCP socket with TCP_NODELAY, blocking
 * calls, no framing.  It prints the same fabtests-style rows, so that
 * benchmarks can compare a provider with what the kernel's TCP stack
 * itself does in the same VM run.
 *
 * The run happens in module init; the outcome is the read-only parameter
 * "result" (0 or a negative errno).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/tcp.h>
#include "kofi_sample_fipp.h"

static char *role = "server";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "server or client");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "client: server IPv4 address");

static ushort port = 7480;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "port (default 7480)");

static char *mode = "pingpong";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "pingpong or bandwidth");

static unsigned int sizes[16] = { 64, 4096, 65536 };
static unsigned int nsizes = 3;
module_param_array(sizes, uint, &nsizes, 0444);
MODULE_PARM_DESC(sizes, "message sizes (default 64,4096,65536)");

static unsigned int iters = 100;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "iterations per size (default 100)");

static int timeout_ms = 30000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of each socket call (default 30000)");

static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome of the run: 0 or a negative errno (read only)");

static int tcp_run_size(struct socket *sock, u8 *buf, size_t size,
			bool client, bool bw)
{
	unsigned int i;
	u64 start;
	u8 sync = 0;
	int ret = 0;

	/* In step: one byte each way. */
	ret = client ? fipp_send(sock, &sync, 1) : fipp_recv(sock, &sync, 1);
	if (!ret)
		ret = client ? fipp_recv(sock, &sync, 1) :
			       fipp_send(sock, &sync, 1);
	if (ret)
		return ret;
	start = ktime_get_ns();
	for (i = 0; i < iters && !ret; i++) {
		if (bw) {
			ret = client ? fipp_send(sock, buf, size) :
				       fipp_recv(sock, buf, size);
			continue;
		}
		if (client) {
			ret = fipp_send(sock, buf, size);
			if (!ret)
				ret = fipp_recv(sock, buf, size);
		} else {
			ret = fipp_recv(sock, buf, size);
			if (!ret)
				ret = fipp_send(sock, buf, size);
		}
	}
	if (!ret && bw)
		ret = client ? fipp_recv(sock, &sync, 1) :
			       fipp_send(sock, &sync, 1);
	if (!ret && client)
		ks_print_row(size, iters, bw ? 1 : 2, ktime_get_ns() - start);
	return ret;
}

static int tcp_connect(struct socket **sock, bool client)
{
	if (!client)
		return fipp_ctrl_accept(sock, NULL, port, timeout_ms);
	if (!addr)
		return -EINVAL;
	return fipp_ctrl_connect(sock, addr, port, timeout_ms);
}

static int __init tcp_init(void)
{
	bool client = !strcmp(role, "client");
	bool bw = !strcmp(mode, "bandwidth");
	struct socket *sock = NULL;
	size_t max = 1;
	unsigned int i;
	u8 *buf;
	int ret;

	if ((!client && strcmp(role, "server")) ||
	    (!bw && strcmp(mode, "pingpong"))) {
		result = -EINVAL;
		return 0;
	}
	for (i = 0; i < nsizes; i++)
		max = max_t(size_t, max, sizes[i]);
	buf = kvzalloc(max, GFP_KERNEL);
	if (!buf) {
		result = -ENOMEM;
		return 0;
	}
	pr_info("%s, %s, %u sizes, %u iters\n", role, mode, nsizes, iters);
	ret = tcp_connect(&sock, client);
	if (!ret) {
		tcp_sock_set_nodelay(sock->sk);
		if (client)
			ks_print_header();
		for (i = 0; i < nsizes && !ret; i++)
			ret = tcp_run_size(sock, buf, sizes[i], client, bw);
	}
	if (ret)
		pr_err("failed: %d\n", ret);
	else
		pr_info("%s done\n", role);
	if (sock)
		sock_release(sock);
	kvfree(buf);
	result = ret;
	return 0;
}

static void __exit tcp_exit(void)
{
}

module_init(tcp_init);
module_exit(tcp_exit);

MODULE_DESCRIPTION("kOFI sample: raw kernel TCP baseline for the benchmarks");
MODULE_LICENSE("Dual BSD/GPL");
