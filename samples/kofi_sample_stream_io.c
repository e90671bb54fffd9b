// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: riostream's exchange on kstream's direct placement calls.
 *
 * librdmacm's riostream maps its buffer for the peer at iomap offset 0
 * (one iomap slot each way), exchanges 16 bytes on the stream, then per
 * iteration one side writes "count" transfers of "size" bytes straight
 * into the other's buffer with riowrite(); the last byte of the last one
 * is a marker the receiver spins on, and the receiver answers the same
 * way.  This module does the same with kstream_iomap() and
 * kstream_iowrite(), as client ("addr" is the server) or as server
 * (server=1, "addr" the local address), so it pairs with riostream in
 * either role.  With verify=1 the bytes before the marker carry one
 * continuous uint8 counter per direction, as riostream -T v checks.
 *
 * The run happens in module init; the outcome is the read-only parameter
 * "result" (0 or a negative errno); one row in rstream's format.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include "kofi_sample_stream.h"

static char *prov = "ib_verbs";
module_param(prov, charp, 0444);
MODULE_PARM_DESC(prov, "core provider under kstream (default ib_verbs)");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "client: the server's address; server: the local address");

static bool server;
module_param(server, bool, 0444);
MODULE_PARM_DESC(server, "listen for one connection instead of connecting");

static ushort port = 7471;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "port (default 7471)");

static unsigned int size = 4096;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "bytes per transfer and of the mapped buffer (riostream -S)");

static unsigned int count = 10;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "transfers per iteration and direction (riostream -C)");

static unsigned int iters = 10;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "iterations (riostream -I)");

static bool verify = true;
module_param(verify, bool, 0444);
MODULE_PARM_DESC(verify, "riostream -T v's pattern before the marker (default 1)");

static int timeout_ms = 60000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of each wait (default 60000)");

static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome: 0 or a negative errno");

struct sio {
	struct kstream_sock *ks;
	u8 *buf;
	struct kss_pattern tx;
	struct kss_pattern rx;
};

/* Write the whole buffer into the peer's, at offset 0. */
static int sio_write(struct sio *s)
{
	size_t done = 0;
	ssize_t n;

	while (done < size) {
		n = kstream_iowrite(s->ks, s->buf + done, size - done, done, 0);
		if (n < 0)
			return n;
		if (!n)
			return -EIO;
		done += n;
		cond_resched();
	}
	return 0;
}

/* Spin (politely) until the peer's last write set our marker byte. */
static int sio_wait(struct sio *s, u8 marker)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);

	while (READ_ONCE(s->buf[size - 1]) != marker) {
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		/* The peer may end the stream right after its last write. */
		if ((kstream_poll(s->ks) & (EPOLLERR | EPOLLHUP)) &&
		    READ_ONCE(s->buf[size - 1]) != marker)
			return -ECONNRESET;
		cond_resched();
	}
	smp_rmb();	/* the bytes before the marker */
	return verify ? kss_verify(&s->rx, s->buf, size - 1) : 0;
}

/* Our turn: count transfers, the last one with the marker. */
static int sio_send(struct sio *s, u8 marker)
{
	unsigned int t;
	int ret = 0;

	for (t = 0; t + 1 < count && !ret; t++)
		ret = sio_write(s);
	if (ret)
		return ret;
	WRITE_ONCE(s->buf[size - 1], marker);
	if (verify)
		kss_fill(&s->tx, s->buf, size - 1);
	return sio_write(s);
}

static int sio_run(struct sio *s)
{
	u8 sync[KSS_SYNC] = {}, marker = 0;
	unsigned int i;
	off_t off;
	u64 start;
	int ret;

	s->buf[size - 1] = 0xff;
	off = kstream_iomap(s->ks, s->buf, size, PROT_WRITE, 0, 0);
	if (off) {
		pr_err("kstream_iomap: %lld\n", (long long)off);
		return off < 0 ? (int)off : -EINVAL;
	}
	ret = kss_xfer(s->ks, sync, sizeof(sync), !server);
	if (!ret)
		ret = kss_xfer(s->ks, sync, sizeof(sync), server);
	if (ret)
		return ret;
	start = ktime_get_ns();
	for (i = 0; i < iters && !ret; i++) {
		if (!server) {
			ret = sio_send(s, marker++);
			if (!ret)
				ret = sio_wait(s, marker++);
		} else {
			ret = sio_wait(s, marker++);
			if (!ret)
				ret = sio_send(s, marker++);
		}
	}
	if (ret)
		return ret;
	kss_print_row("custom", size, count, iters, 2,
		      ktime_get_ns() - start);
	return kstream_iounmap(s->ks, s->buf, size);
}

/* SO_RCVTIMEO/SO_SNDTIMEO and one iomap slot for the peer. */
static int sio_setup(struct kstream_sock *ks)
{
	int one = 1, ret;

	ret = kss_set_timeouts(ks, timeout_ms);
	if (!ret)
		ret = kstream_setsockopt(ks, KSTREAM_SOL_RDMA,
					 KSTREAM_IOMAPSIZE, KERNEL_SOCKPTR(&one),
					 sizeof(one));
	return ret;
}

static int sio_connect(struct sio *s, struct sockaddr_storage *ss,
		       int family)
{
	struct kstream_sock *lks;
	int ret;

	ret = kstream_sock_create(family, prov, server ? &lks : &s->ks);
	if (ret)
		return ret;
	if (!server) {
		ret = sio_setup(s->ks);
		if (!ret)
			ret = kstream_connect(s->ks, (struct sockaddr *)ss,
					      kss_addrlen(family), 0);
		return ret;
	}
	ret = sio_setup(lks);
	if (!ret)
		ret = kstream_bind(lks, (struct sockaddr *)ss,
				   kss_addrlen(family));
	if (!ret)
		ret = kstream_listen(lks, 1);
	if (!ret) {
		pr_info("listening on %pISpc over %s\n", ss, prov);
		ret = kstream_accept(lks, &s->ks, 0);
	}
	kstream_release(lks);
	return ret;
}

static int __init sio_init(void)
{
	struct sockaddr_storage ss;
	struct sio s = {};
	int family, ret;

	family = kss_addr(addr, port, AF_INET, &ss);
	if (family < 0 || (!server && !addr) || size < 2 || size > SZ_4M ||
	    !count || !iters) {
		result = -EINVAL;
		return 0;
	}
	s.buf = kzalloc(size, GFP_KERNEL);
	if (!s.buf) {
		result = -ENOMEM;
		return 0;
	}
	ret = sio_connect(&s, &ss, family);
	if (ret) {
		pr_err("%s %pISpc: %d\n", server ? "accept on" : "connect to",
		       &ss, ret);
	} else {
		kss_print_header();
		ret = sio_run(&s);
		if (ret)
			pr_err("transfers: %d\n", ret);
	}
	if (s.ks) {
		kstream_shutdown(s.ks, SHUT_RDWR);
		kstream_release(s.ks);
	}
	kfree(s.buf);
	if (!ret)
		pr_info("done%s\n", verify ? ", verified" : "");
	result = ret;
	return 0;
}

static void __exit sio_exit(void)
{
}

module_init(sio_init);
module_exit(sio_exit);

MODULE_DESCRIPTION("kOFI sample: riostream's exchange on kstream's direct placement");
MODULE_LICENSE("Dual BSD/GPL");
