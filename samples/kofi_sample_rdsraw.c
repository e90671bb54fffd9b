// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: the raw kernel RDS baseline.
 *
 * The same exchanges as kofi_sample_pingpong (mode=pingpong: size bytes
 * each way, iters times) and kofi_sample_bandwidth (mode=bandwidth: the
 * client sends iters messages of size bytes, the server answers with an
 * empty message once it has them all) with ep_type=rdm, over one plain
 * kernel AF_RDS socket on each side, RDS over TCP, blocking calls, no
 * kOFI.  The client prints the same fabtests-style rows, so that
 * benchmarks can compare the rds provider (and other FI_EP_RDM
 * providers) with what RDS itself does in the same VM run.
 *
 * The two sides find each other as the samples do with ep_type=rdm
 * (kofi_sample_rdm.h): the server accepts a TCP control connection on
 * port (on addr, default any address), each side binds its socket to
 * the local address of that connection, port 0 (RDS picks one), and the
 * server sends its socket's address (a struct sockaddr_in) over the
 * connection, the client answers with its own.  Before each size the two
 * exchange an empty message each way.  Every message received must come
 * from the peer's socket and have the length expected; the data is not
 * checked.  At the end each side ends the control connection and waits
 * for the peer's end (fipp_ctrl_end()), so that closing the socket,
 * which drops what RDS has not transmitted yet, loses nothing the peer
 * waits for.
 *
 * The socket's buffers are those of the rds provider's endpoints: 4 MiB
 * to send (RDS takes messages up to half of it) and 8 MiB to receive.
 * RDS itself (rds.ko, rds_tcp.ko) is loaded beforehand, or by the kernel
 * when the socket is made and its transport selected.
 *
 * The run happens in module init; the outcome is the read-only parameter
 * "result" (0 or a negative errno).  Bad parameters fail the load with
 * -EINVAL.
 *
 * Example:  insmod kofi_sample_rdsraw.ko role=server
 *           insmod kofi_sample_rdsraw.ko role=client addr=192.0.2.1
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rds.h>
#include <linux/sizes.h>
#include "kofi_sample_fipp.h"

static char *role = "server";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "server or client");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "client: server IPv4 address; server: address to listen on (default any)");

static ushort port = 7490;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "TCP control port (default 7490)");

static char *mode = "pingpong";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "pingpong or bandwidth");

static unsigned int sizes[16] = { 64, 4096, 65536 };
static unsigned int nsizes = 3;
module_param_array(sizes, uint, &nsizes, 0444);
MODULE_PARM_DESC(sizes, "message sizes, 0 to 1048576 (default 64,4096,65536)");

static unsigned int iters = 100;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "iterations per size, at least 1 (default 100)");

static int timeout_ms = 30000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of each socket call, at least 1 (default 30000)");

static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome of the run: 0 or a negative errno (read only)");

/* RDS's largest message, and the rds provider's socket buffers */
#define RR_MAX_SIZE	SZ_1M
#define RR_SNDBUF	(4 * RR_MAX_SIZE)
#define RR_RCVBUF	(8 * RR_MAX_SIZE)

struct rr_ctx {
	struct socket *sock;	/* the AF_RDS socket */
	struct sockaddr_in peer;	/* the peer's socket */
	u8 *buf;		/* sent from and received into */
	size_t size;		/* of @buf */
};

/* Send @len bytes of r->buf to the peer; block while RDS holds back. */
static int rr_send(struct rr_ctx *r, size_t len)
{
	struct kvec kv = { .iov_base = r->buf, .iov_len = len };
	struct msghdr msg = {
		.msg_name = &r->peer,
		.msg_namelen = sizeof(r->peer),
	};
	int ret;

	ret = kernel_sendmsg(r->sock, &msg, &kv, 1, len);
	if (ret < 0) {
		pr_err("send of %zu bytes: %d\n", len, ret);
		return ret;
	}
	return ret == len ? 0 : -EIO;
}

/* Receive the peer's next message into r->buf: @len bytes. */
static int rr_recv(struct rr_ctx *r, size_t len)
{
	struct kvec kv = { .iov_base = r->buf, .iov_len = r->size };
	struct sockaddr_storage from = {};
	struct sockaddr_in *sin = (struct sockaddr_in *)&from;
	struct msghdr msg = {
		.msg_name = &from,
		.msg_namelen = sizeof(from),
	};
	int ret;

	ret = kernel_recvmsg(r->sock, &msg, &kv, 1, r->size, 0);
	if (ret < 0) {
		pr_err("receive: %d\n", ret);
		return ret;
	}
	if (sin->sin_family != AF_INET ||
	    sin->sin_addr.s_addr != r->peer.sin_addr.s_addr ||
	    sin->sin_port != r->peer.sin_port) {
		pr_err("a message from %pISpc, not from the peer\n", &from);
		return -EPROTO;
	}
	if (ret != len || (msg.msg_flags & MSG_TRUNC)) {
		pr_err("received %d bytes%s, expected %zu\n", ret,
		       msg.msg_flags & MSG_TRUNC ? " (truncated)" : "", len);
		return -EBADMSG;
	}
	return 0;
}

/*
 * The AF_RDS socket, over TCP, with the rds provider's buffers and
 * timeout_ms on its calls, bound to the local address of @ctrl, port 0.
 */
static int rr_open(struct rr_ctx *r, struct socket *ctrl)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_storage ss = {};
	int transport = RDS_TRANS_TCP;
	struct socket *sock;
	struct sock *sk;
	int ret;

	ret = kernel_getsockname(ctrl, (struct sockaddr *)&ss);
	if (ret < 0)
		return ret;
	if (ss.ss_family != AF_INET)
		return -EAFNOSUPPORT;	/* RDS here is IPv4 */
	src.sin_addr = ((struct sockaddr_in *)&ss)->sin_addr;
	ret = sock_create_kern(current->nsproxy->net_ns, AF_RDS,
			       SOCK_SEQPACKET, 0, &sock);
	if (ret)
		return ret;
	/* The transport is selected before the bind, as RDS requires. */
	ret = sock->ops->setsockopt(sock, SOL_RDS, SO_RDS_TRANSPORT,
				    KERNEL_SOCKPTR(&transport),
				    sizeof(transport));
	if (ret)
		goto err;
	sk = sock->sk;
	lock_sock(sk);
	sk->sk_userlocks |= SOCK_SNDBUF_LOCK | SOCK_RCVBUF_LOCK;
	WRITE_ONCE(sk->sk_sndbuf, RR_SNDBUF);
	WRITE_ONCE(sk->sk_rcvbuf, RR_RCVBUF);
	release_sock(sk);
	fipp_timeouts(sock, timeout_ms);
	ret = kernel_bind(sock, (struct sockaddr *)&src, sizeof(src));
	if (ret)
		goto err;
	r->sock = sock;
	return 0;
err:
	sock_release(sock);
	return ret;
}

/*
 * Learn the peer's socket over @ctrl: the server sends the address of
 * its own first, the client answers with its own.
 */
static int rr_names(struct rr_ctx *r, struct socket *ctrl, bool client)
{
	struct sockaddr_in self = {};
	int ret;

	ret = kernel_getsockname(r->sock, (struct sockaddr *)&self);
	if (ret < 0)
		return ret;
	ret = 0;	/* the address's length */
	if (!client)
		ret = fipp_send(ctrl, &self, sizeof(self));
	if (!ret)
		ret = fipp_recv(ctrl, &r->peer, sizeof(r->peer));
	if (!ret && client)
		ret = fipp_send(ctrl, &self, sizeof(self));
	if (ret)
		return ret;
	if (r->peer.sin_family != AF_INET || !r->peer.sin_port) {
		pr_err("the peer sent no IPv4 RDS address\n");
		return -EPROTO;
	}
	pr_info("socket %pISpc, peer %pISpc over RDS/TCP\n", &self, &r->peer);
	return 0;
}

static int rr_run_size(struct rr_ctx *r, size_t size, bool client, bool bw)
{
	unsigned int i;
	u64 start;
	int ret;

	/* In step: an empty message each way. */
	ret = client ? rr_send(r, 0) : rr_recv(r, 0);
	if (!ret)
		ret = client ? rr_recv(r, 0) : rr_send(r, 0);
	if (ret)
		return ret;
	start = ktime_get_ns();
	for (i = 0; i < iters && !ret; i++) {
		if (bw) {
			ret = client ? rr_send(r, size) : rr_recv(r, size);
			continue;
		}
		if (client) {
			ret = rr_send(r, size);
			if (!ret)
				ret = rr_recv(r, size);
		} else {
			ret = rr_recv(r, size);
			if (!ret)
				ret = rr_send(r, size);
		}
	}
	/* Bandwidth: the server's empty message says that all arrived. */
	if (!ret && bw)
		ret = client ? rr_recv(r, 0) : rr_send(r, 0);
	if (!ret && client)
		ks_print_row(size, iters, bw ? 1 : 2, ktime_get_ns() - start);
	return ret;
}

static int rr_run(struct rr_ctx *r, bool client, bool bw)
{
	struct socket *ctrl = NULL;
	unsigned int i;
	int ret;

	if (client)
		ret = fipp_ctrl_connect(&ctrl, addr, port, timeout_ms);
	else
		ret = fipp_ctrl_accept(&ctrl, addr, port, timeout_ms);
	if (ret)
		return ret;
	ret = rr_open(r, ctrl);
	if (!ret)
		ret = rr_names(r, ctrl, client);
	if (!ret && client)
		ks_print_header();
	for (i = 0; i < nsizes && !ret; i++)
		ret = rr_run_size(r, sizes[i], client, bw);
	if (!ret)
		ret = fipp_ctrl_end(ctrl);
	if (r->sock)
		sock_release(r->sock);
	r->sock = NULL;
	sock_release(ctrl);
	return ret;
}

static int __init rr_init(void)
{
	bool client = !strcmp(role, "client");
	bool bw = !strcmp(mode, "bandwidth");
	struct rr_ctx r = {};
	unsigned int i;
	int ret;

	if ((!client && strcmp(role, "server")) ||
	    (!bw && strcmp(mode, "pingpong")) || (client && !addr) ||
	    !iters || timeout_ms <= 0)
		return -EINVAL;
	r.size = 1;
	for (i = 0; i < nsizes; i++) {
		if (sizes[i] > RR_MAX_SIZE)
			return -EINVAL;
		r.size = max_t(size_t, r.size, sizes[i]);
	}
	r.buf = kvzalloc(r.size, GFP_KERNEL);
	if (!r.buf) {
		result = -ENOMEM;
		return 0;
	}
	pr_info("%s, %s, %u sizes, %u iters\n", role, mode, nsizes, iters);
	ret = rr_run(&r, client, bw);
	if (ret)
		pr_err("failed: %d\n", ret);
	else
		pr_info("%s done\n", role);
	kvfree(r.buf);
	result = ret;
	return 0;
}

static void __exit rr_exit(void)
{
}

module_init(rr_init);
module_exit(rr_exit);

MODULE_DESCRIPTION("kOFI sample: raw kernel RDS baseline for the benchmarks");
MODULE_LICENSE("Dual BSD/GPL");
