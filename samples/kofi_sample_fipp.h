/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI samples: fi_pingpong's out-of-band control protocol (libfabric
 * 1.17 util/pingpong.c), so that the pingpong sample can run against
 * Debian's fi_pingpong: kernel as server or as client.
 *
 * Control channel: plain TCP, the server listening on port 47592.  Each
 * message is one send() on one side and a read of the expected length on
 * the other.  The server sends its passive endpoint's address (u32 length
 * big-endian, u32 address format in host order, the sockaddr); then for
 * each size the client sends "q\0" and the server answers "a\0", the
 * pingpong runs over the fabric, the client sends its receive count as 10
 * NUL-padded decimal bytes and the server answers "cnt ok\0".  At the end
 * both sides send "fin\0" over the fabric with FI_TRANSMIT_COMPLETE.
 *
 * Process context only (module init); everything may sleep.
 */
#ifndef _KOFI_SAMPLE_FIPP_H
#define _KOFI_SAMPLE_FIPP_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/nsproxy.h>
#include <linux/net.h>
#include <linux/delay.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include "kofi_sample.h"

#define FIPP_CTRL_PORT	47592

static inline int fipp_send(struct socket *sock, const void *buf, size_t len)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	int ret;

	ret = kernel_sendmsg(sock, &msg, &kv, 1, len);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -EPIPE;
}

static inline int fipp_recv(struct socket *sock, void *buf, size_t len)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {};
	int ret;

	ret = kernel_recvmsg(sock, &msg, &kv, 1, len, MSG_WAITALL);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -ECONNABORTED;
}

/* Receive @len bytes that must equal @want. */
static inline int fipp_expect(struct socket *sock, const char *want,
			      size_t len)
{
	char buf[16];
	int ret;

	ret = fipp_recv(sock, buf, len);
	if (ret)
		return ret;
	if (memcmp(buf, want, len)) {
		pr_err("control channel: unexpected message\n");
		return -EBADMSG;
	}
	return 0;
}

static inline void fipp_timeouts(struct socket *sock, int timeout_ms)
{
	long t = msecs_to_jiffies(timeout_ms);

	sock->sk->sk_rcvtimeo = t;
	sock->sk->sk_sndtimeo = t;
}

/* Server: accept fi_pingpong's control connection on @port. */
static inline int fipp_ctrl_accept(struct socket **ctrl, u16 port,
				   int timeout_ms)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	struct socket *lsock;
	int ret;

	ret = sock_create_kern(current->nsproxy->net_ns, AF_INET, SOCK_STREAM,
			       IPPROTO_TCP, &lsock);
	if (ret)
		return ret;
	sock_set_reuseaddr(lsock->sk);
	fipp_timeouts(lsock, timeout_ms);
	ret = kernel_bind(lsock, (struct sockaddr *)&sin, sizeof(sin));
	if (!ret)
		ret = kernel_listen(lsock, 1);
	if (!ret)
		ret = kernel_accept(lsock, ctrl, 0);
	sock_release(lsock);
	if (!ret)
		fipp_timeouts(*ctrl, timeout_ms);
	return ret;
}

/* Client: connect to fi_pingpong's control port, retrying until it is up. */
static inline int fipp_ctrl_connect(struct socket **ctrl, const char *addr,
				    u16 port, int timeout_ms)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	int ret, waited = 0;

	if (!in4_pton(addr, -1, (u8 *)&sin.sin_addr, -1, NULL))
		return -EINVAL;
	for (;;) {
		ret = sock_create_kern(current->nsproxy->net_ns, AF_INET,
				       SOCK_STREAM, IPPROTO_TCP, ctrl);
		if (ret)
			return ret;
		fipp_timeouts(*ctrl, timeout_ms);
		ret = kernel_connect(*ctrl, (struct sockaddr *)&sin,
				     sizeof(sin), 0);
		if (!ret)
			return 0;
		sock_release(*ctrl);
		*ctrl = NULL;
		if (ret != -ECONNREFUSED || waited >= timeout_ms)
			return ret;
		msleep(200);
		waited += 200;
	}
}

/* Server: tell the client where the passive endpoint listens. */
static inline int fipp_send_name(struct socket *ctrl, struct fid_pep *pep)
{
	struct sockaddr_storage ss = {};
	size_t len = sizeof(ss);
	__be32 blen;
	u32 fmt;
	int ret;

	ret = fi_getname(&pep->fid, &ss, &len);
	if (ret)
		return ret;
	blen = cpu_to_be32(len);
	fmt = ss.ss_family == AF_INET6 ? FI_SOCKADDR_IN6 : FI_SOCKADDR_IN;
	ret = fipp_send(ctrl, &blen, sizeof(blen));
	if (!ret)
		ret = fipp_send(ctrl, &fmt, sizeof(fmt));
	if (!ret)
		ret = fipp_send(ctrl, &ss, len);
	return ret;
}

/* Client: learn the server's address, as "node" and "service" strings. */
static inline int fipp_recv_name(struct socket *ctrl, char *node,
				 size_t nodelen, char *service)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	__be32 blen;
	u32 fmt, len;
	int ret;

	ret = fipp_recv(ctrl, &blen, sizeof(blen));
	if (!ret)
		ret = fipp_recv(ctrl, &fmt, sizeof(fmt));
	if (ret)
		return ret;
	len = be32_to_cpu(blen);
	if (len > sizeof(ss) || len < sizeof(*sin))
		return -EMSGSIZE;
	ret = fipp_recv(ctrl, &ss, len);
	if (ret)
		return ret;
	if (ss.ss_family == AF_INET) {
		snprintf(node, nodelen, "%pI4", &sin->sin_addr);
		snprintf(service, 8, "%u", ntohs(sin->sin_port));
	} else if (ss.ss_family == AF_INET6) {
		snprintf(node, nodelen, "%pI6c", &sin6->sin6_addr);
		snprintf(service, 8, "%u", ntohs(sin6->sin6_port));
	} else {
		return -EAFNOSUPPORT;
	}
	return 0;
}

/* Both sides, at the end: "fin\0" with transmit complete, and the peer's. */
static inline int fipp_finish(struct ks_conn *c)
{
	struct kvec kv = { .iov_base = ks_tx(c), .iov_len = 4 };
	struct fi_msg msg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &kv,
		.iov_count = 1,
		.context = c,
	};
	struct fi_cq_data_entry e;
	int ret;

	memcpy(ks_tx(c), "fin", 4);
	ret = fi_sendmsg(c->ep, &msg, FI_TRANSMIT_COMPLETE);
	if (!ret)
		ret = ks_cq_wait(c, c->txcq, &e);
	if (!ret)
		ret = ks_cq_wait(c, c->rxcq, &e);
	return ret;
}

#endif /* _KOFI_SAMPLE_FIPP_H */
