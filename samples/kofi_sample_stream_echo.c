// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: a kstream echo server on the socket-like calls.
 *
 * It listens (kstream_sock_create(), kstream_bind(), kstream_listen()),
 * accepts "connections" connections one after the other and sends every
 * byte it receives back until the peer ends the stream; with echo=0 it
 * only receives (a sink for one-way runs).  With verify=1 it checks the
 * received bytes against rstream's pattern (one continuous uint8 counter
 * per direction), so it serves both kofi_sample_stream_tput and
 * librdmacm's rstream as client ("rstream -s ADDR -T v -S SIZE -C COUNT").
 *
 * The run happens in module init, so insmod returns once every
 * connection has ended; "listening" is logged once it accepts, and the
 * outcome is the read-only parameter "result" (0 or a negative errno).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "kofi_sample_stream.h"

static char *prov;
module_param(prov, charp, 0444);
MODULE_PARM_DESC(prov, "core provider under kstream: ksocket or ib_verbs (default: the best one)");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "address to listen on (default: the IPv4 wildcard, or ipv6=1)");

static bool ipv6;
module_param(ipv6, bool, 0444);
MODULE_PARM_DESC(ipv6, "listen on the IPv6 wildcard when addr is not given");

static ushort port = 7471;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "port (default 7471, rstream's)");

static unsigned int connections = 1;
module_param(connections, uint, 0444);
MODULE_PARM_DESC(connections, "connections to serve (default 1)");

static bool echo = true;
module_param(echo, bool, 0444);
MODULE_PARM_DESC(echo, "send the data back (default 1); 0: only receive");

static bool verify = true;
module_param(verify, bool, 0444);
MODULE_PARM_DESC(verify, "check the data against rstream's pattern (default 1)");

static unsigned int bufsize;
module_param(bufsize, uint, 0444);
MODULE_PARM_DESC(bufsize, "SO_RCVBUF/SO_SNDBUF value (default: provider's)");

static unsigned int ring = 16 << 20;
module_param(ring, uint, 0444);
MODULE_PARM_DESC(ring, "bytes received but not yet echoed, at most (default 16 MiB)");

static int timeout_ms = 60000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of each wait (default 60000)");

static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome of the run: 0 or a negative errno (read only)");

/* A nonblocking send or receive of @len bytes at @buf. */
static int echo_io(struct kstream_sock *ks, u8 *buf, size_t len, bool send)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };

	iov_iter_kvec(&msg.msg_iter, send ? ITER_SOURCE : ITER_DEST, &kv, 1,
		      len);
	return send ? kstream_sendmsg(ks, &msg) :
		      kstream_recvmsg(ks, &msg, MSG_DONTWAIT);
}

/*
 * Echo one connection until the peer ends it; returns 0 or < 0.  The
 * bytes go through a ring of "ring" bytes, received and sent without
 * blocking, so a peer that sends a lot before it reads (rstream sends
 * count transfers, then reads) does not stall the echo: the ring takes
 * what the peer's send buffer and ours cannot.
 */
static int echo_conn(struct kstream_sock *ks, u8 *buf, u64 *bytes)
{
	struct kss_pattern rx = {};
	u64 head = 0, tail = 0;	/* next byte to send, to receive */
	bool eof = false, moved;
	__poll_t want;
	size_t off, len;
	int n, ret;

	for (;;) {
		moved = false;
		if (!eof && tail - head < ring) {
			off = tail % ring;
			len = min_t(u64, ring - off, ring - (tail - head));
			n = echo_io(ks, buf + off, len, false);
			if (n == 0)
				eof = true;
			else if (n < 0 && n != -EAGAIN)
				return n;
			if (n > 0) {
				if (verify) {
					ret = kss_verify(&rx, buf + off, n);
					if (ret)
						return ret;
				}
				tail += n;
				*bytes += n;
				moved = true;
				if (!echo)
					head = tail;
			}
		}
		if (tail != head) {
			off = head % ring;
			len = min_t(u64, ring - off, tail - head);
			n = echo_io(ks, buf + off, len, true);
			if (n < 0 && n != -EAGAIN)
				return n;
			if (n > 0) {
				head += n;
				moved = true;
			}
		}
		if (eof && head == tail)
			return 0;	/* the peer ended the stream */
		if (moved) {
			cond_resched();
			continue;
		}
		want = tail != head ? EPOLLOUT : 0;
		if (!eof && tail - head < ring)
			want |= EPOLLIN | EPOLLRDHUP;
		n = kstream_wait(ks, want, msecs_to_jiffies(timeout_ms));
		if (n < 0)
			return n;
		if (!n)
			return -ETIMEDOUT;
	}
}

static void echo_say_peer(struct kstream_sock *ks, unsigned int i)
{
	struct sockaddr_storage ss;

	if (kstream_getname(ks, (struct sockaddr *)&ss, 1) > 0)
		pr_info("connection %u from %pISpc\n", i, &ss);
}

static int echo_serve(struct kstream_sock *lks, u8 *buf)
{
	struct kstream_sock *ks;
	unsigned int i;
	u64 bytes = 0;
	int ret = 0;

	for (i = 1; i <= connections && !ret; i++) {
		ret = kstream_accept(lks, &ks, 0);
		if (ret) {
			pr_err("accept: %d\n", ret);
			break;
		}
		echo_say_peer(ks, i);
		bytes = 0;
		ret = echo_conn(ks, buf, &bytes);
		pr_info("connection %u: %llu bytes %s%s\n", i, bytes,
			echo ? "echoed" : "received",
			ret ? ", failed" : verify ? ", verified" : "");
		if (ret)
			pr_err("connection %u: %d\n", i, ret);
		kstream_release(ks);
	}
	return ret;
}

static int __init echo_init(void)
{
	struct sockaddr_storage ss;
	struct kstream_sock *lks;
	int family, ret;
	u8 *buf;

	family = kss_addr(addr, port, ipv6 ? AF_INET6 : AF_INET, &ss);
	if (family < 0 || !connections || !ring || ring > INT_MAX) {
		result = -EINVAL;
		return 0;
	}
	buf = vmalloc(ring);
	if (!buf) {
		result = -ENOMEM;
		return 0;
	}
	ret = kstream_sock_create(family, prov, &lks);
	if (ret) {
		pr_err("kstream_sock_create(%s): %d\n", prov ?: "any", ret);
		goto out;
	}
	ret = kss_set_timeouts(lks, timeout_ms);
	if (!ret)
		ret = kss_set_bufs(lks, bufsize);
	if (!ret)
		ret = kstream_bind(lks, (struct sockaddr *)&ss,
				   kss_addrlen(family));
	if (!ret)
		ret = kstream_listen(lks, 16);
	if (ret) {
		pr_err("listen on %pISpc: %d\n", &ss, ret);
	} else {
		pr_info("listening on %pISpc over %s, %u connection(s), %s%s\n",
			&ss, prov ?: "any provider", connections,
			echo ? "echo" : "sink", verify ? ", verified" : "");
		ret = echo_serve(lks, buf);
	}
	kstream_release(lks);
out:
	vfree(buf);
	if (!ret)
		pr_info("done\n");
	result = ret;
	return 0;
}

static void __exit echo_exit(void)
{
}

module_init(echo_init);
module_exit(echo_exit);

MODULE_DESCRIPTION("kOFI sample: kstream echo server on the socket-like calls");
MODULE_LICENSE("Dual BSD/GPL");
