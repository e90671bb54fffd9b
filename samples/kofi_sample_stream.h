/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI samples: what the two kstream samples (stream echo and stream
 * throughput) share - addresses, rstream's data pattern, blocking
 * transfers of whole buffers with kstream_sendmsg()/kstream_recvmsg(),
 * and rstream's result row.
 *
 * rstream (librdmacm) verifies with one continuous uint8 counter per
 * direction: the n-th byte a side sends is (u8)n, from the 16-byte sync
 * on.  These samples do the same, so they verify rstream's data and
 * rstream verifies theirs.
 *
 * Everything here runs in process context (module init) and may sleep.
 */
#ifndef _KOFI_SAMPLE_STREAM_H
#define _KOFI_SAMPLE_STREAM_H

#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <kofi/kstream.h>

/* Size of rstream's sync exchange, each way. */
#define KSS_SYNC	16

/**
 * struct kss_pattern - rstream's verification counter of one direction
 * @next: the next byte's value
 * @total: bytes so far (for the message on a mismatch)
 */
struct kss_pattern {
	u8 next;
	u64 total;
};

/*
 * The counter repeats every 256 bytes: one period byte by byte, the rest
 * copied or compared against the buffer itself (see ks_fill()).
 */
static inline void kss_fill(struct kss_pattern *p, u8 *buf, size_t len)
{
	size_t i, n;

	for (i = 0; i < len && i < 256; i++)
		buf[i] = p->next + i;
	for (; i < len; i += n) {
		n = min(i, len - i);
		memcpy(buf + i, buf, n);
	}
	p->next += len;
	p->total += len;
}

/* 0, or -EBADMSG after saying where the data is wrong. */
static inline int kss_verify(struct kss_pattern *p, const u8 *buf,
			     size_t len)
{
	size_t i;

	for (i = 0; i < len && i < 256; i++)
		if (buf[i] != (u8)(p->next + i))
			goto bad;
	if (len > 256 && memcmp(buf + 256, buf, len - 256)) {
		while (buf[i] == buf[i - 256])
			i++;
		goto bad;
	}
	p->next += len;
	p->total += len;
	return 0;
bad:
	pr_err("data verification failed at byte %llu: %u, expected %u\n",
	       p->total + i, buf[i], (u8)(p->next + i));
	return -EBADMSG;
}

/**
 * kss_addr() - numeric address and port to a sockaddr
 * @node: IPv4 or IPv6 address, or NULL for the wildcard of @family
 * @port: port
 * @family: AF_INET or AF_INET6, used when @node is NULL
 * @ss: the result
 *
 * Return: the address family, or -EINVAL.
 */
static inline int kss_addr(const char *node, u16 port, int family,
			   struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (node && strchr(node, ':'))
		family = AF_INET6;
	else if (node)
		family = AF_INET;
	if (family == AF_INET) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		if (node && !in4_pton(node, -1, (u8 *)&sin->sin_addr, -1, NULL))
			return -EINVAL;
		return AF_INET;
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	if (node && !in6_pton(node, -1, sin6->sin6_addr.s6_addr, -1, NULL))
		return -EINVAL;
	return AF_INET6;
}

static inline int kss_addrlen(int family)
{
	return family == AF_INET ? sizeof(struct sockaddr_in) :
				   sizeof(struct sockaddr_in6);
}

/**
 * kss_xfer() - send or receive exactly @len bytes (blocking calls)
 * @ks: a connected socket
 * @buf: the bytes
 * @len: how many
 * @send: direction
 *
 * Return: 0; -ECONNRESET if the stream ended early; or the call's error.
 */
static inline int kss_xfer(struct kstream_sock *ks, void *buf, size_t len,
			   bool send)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {};
	int ret;

	iov_iter_kvec(&msg.msg_iter, send ? ITER_SOURCE : ITER_DEST, &kv, 1,
		      len);
	while (msg_data_left(&msg)) {
		ret = send ? kstream_sendmsg(ks, &msg) :
			     kstream_recvmsg(ks, &msg, MSG_WAITALL);
		if (ret < 0)
			return ret;
		if (!ret)
			return -ECONNRESET;
		cond_resched();
	}
	return 0;
}

/**
 * kss_set_timeouts() - SO_RCVTIMEO and SO_SNDTIMEO, so nothing hangs forever
 * @ks: the socket
 * @ms: milliseconds
 *
 * Return: 0 or a negative errno.
 */
static inline int kss_set_timeouts(struct kstream_sock *ks, int ms)
{
	struct __kernel_sock_timeval tv = {
		.tv_sec = ms / 1000,
		.tv_usec = (ms % 1000) * 1000,
	};
	int ret;

	ret = kstream_setsockopt(ks, SOL_SOCKET, SO_RCVTIMEO_NEW,
				 KERNEL_SOCKPTR(&tv), sizeof(tv));
	if (!ret)
		ret = kstream_setsockopt(ks, SOL_SOCKET, SO_SNDTIMEO_NEW,
					 KERNEL_SOCKPTR(&tv), sizeof(tv));
	return ret;
}

/* SO_RCVBUF and SO_SNDBUF of @bytes (the buffers become twice that). */
static inline int kss_set_bufs(struct kstream_sock *ks, int bytes)
{
	int ret;

	if (!bytes)
		return 0;
	ret = kstream_setsockopt(ks, SOL_SOCKET, SO_RCVBUF,
				 KERNEL_SOCKPTR(&bytes), sizeof(bytes));
	if (!ret)
		ret = kstream_setsockopt(ks, SOL_SOCKET, SO_SNDBUF,
					 KERNEL_SOCKPTR(&bytes), sizeof(bytes));
	return ret;
}

/* rstream's size column: 64, 4k, 1.5m ... */
static inline void kss_size_str(char *str, size_t n, u64 size)
{
	u64 base = 1, frac = 0;
	const char *mag = "";

	if (size >= 1ULL << 30) {
		base = 1ULL << 30;
		mag = "g";
	} else if (size >= 1 << 20) {
		base = 1 << 20;
		mag = "m";
	} else if (size >= 1 << 10) {
		base = 1 << 10;
		mag = "k";
	}
	if (div64_u64(size, base) < 10)
		frac = div64_u64((size - div64_u64(size, base) * base) * 10,
				 base);
	if (frac)
		snprintf(str, n, "%llu.%llu%s", div64_u64(size, base), frac,
			 mag);
	else
		snprintf(str, n, "%llu%s", div64_u64(size, base), mag);
}

/* rstream's count column: 100, 10k, 1m ... */
static inline void kss_cnt_str(char *str, size_t n, u64 cnt)
{
	if (cnt >= 1000000000)
		snprintf(str, n, "%llub", div64_u64(cnt, 1000000000));
	else if (cnt >= 1000000)
		snprintf(str, n, "%llum", div64_u64(cnt, 1000000));
	else if (cnt >= 1000)
		snprintf(str, n, "%lluk", div64_u64(cnt, 1000));
	else
		snprintf(str, n, "%llu", cnt);
}

static inline void kss_print_header(void)
{
	pr_info("%-10s%-8s%-8s%-8s%-8s%8s %10s%13s\n", "name", "bytes",
		"xfers", "iters", "total", "time", "Gb/sec", "usec/xfer");
}

/**
 * kss_print_row() - one row in rstream's format
 * @name: test name (e.g. "64_lat", "1m_bw")
 * @size: bytes per transfer
 * @xfers: transfers per iteration and direction
 * @iters: iterations
 * @dirs: 2 for an echo, 1 one-way
 * @ns: elapsed time
 */
static inline void kss_print_row(const char *name, size_t size,
				 unsigned int xfers, unsigned int iters,
				 unsigned int dirs, u64 ns)
{
	char s[24], x[24], i[24], t[24];
	u64 bytes = (u64)size * xfers * iters * dirs;
	u64 us = max_t(u64, div64_u64(ns, 1000), 1);
	/* Gb/sec = bits / (1000 * usec); both columns in hundredths */
	u64 gbps = div64_u64(bytes * 8 * 100, 1000 * us);
	u64 uspx = div64_u64(us * 100, (u64)iters * xfers * dirs);

	kss_size_str(s, sizeof(s), size);
	kss_cnt_str(x, sizeof(x), xfers);
	kss_cnt_str(i, sizeof(i), iters);
	kss_size_str(t, sizeof(t), bytes);
	pr_info("%-9s %-8s%-8s%-8s%-8s%5llu.%02llus%7llu.%02llu%8llu.%02llu\n",
		name, s, x, i, t, us / 1000000, (us % 1000000) / 10000,
		gbps / 100, gbps % 100, uspx / 100, uspx % 100);
}

#endif /* _KOFI_SAMPLE_STREAM_H */
