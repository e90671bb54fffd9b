/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI samples: fi_pingpong's out-of-band control protocol (libfabric
 * 1.17 util/pingpong.c), so that the pingpong sample can run against
 * Debian's fi_pingpong: kernel as server or as client.
 *
 * Control channel: plain TCP, the server listening on port 47592.  Each
 * message is one send() on one side and a read of the expected length on
 * the other.  The server sends its passive endpoint's address (u32 length
 * big-endian, u32 address format in host order, the sockaddr); with
 * FI_EP_RDM ("-e rdm") the server sends its endpoint's name the same way
 * and the client answers with its own.  Then for each size the client
 * sends "q\0" and the server answers "a\0", the pingpong runs over the
 * fabric, the client sends its receive count as 10 NUL-padded decimal
 * bytes and the server answers "cnt ok\0".  At the end both sides send
 * "fin\0" over the fabric with FI_TRANSMIT_COMPLETE.
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

/*
 * @node:@port as a socket address: IPv4 or IPv6 @node, or NULL for the
 * IPv4 wildcard.  Return: the address's length, or a negative errno.
 */
static inline int fipp_sockaddr(const char *node, u16 port,
				struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	char service[8];
	int ret;

	memset(ss, 0, sizeof(*ss));
	if (!node) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = htonl(INADDR_ANY);
		return sizeof(*sin);
	}
	snprintf(service, sizeof(service), "%u", port);
	ret = inet_pton_with_scope(current->nsproxy->net_ns, AF_UNSPEC, node,
				   service, ss);
	if (ret)
		return ret;
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(*sin);
}

/*
 * Server: accept the control connection on @node:@port (@node NULL: any
 * IPv4 address, as fi_pingpong).
 */
static inline int fipp_ctrl_accept(struct socket **ctrl, const char *node,
				   u16 port, int timeout_ms)
{
	struct sockaddr_storage ss;
	struct socket *lsock;
	int len, ret;

	len = fipp_sockaddr(node, port, &ss);
	if (len < 0)
		return len;
	ret = sock_create_kern(current->nsproxy->net_ns, ss.ss_family,
			       SOCK_STREAM, IPPROTO_TCP, &lsock);
	if (ret)
		return ret;
	sock_set_reuseaddr(lsock->sk);
	fipp_timeouts(lsock, timeout_ms);
	ret = kernel_bind(lsock, (struct sockaddr *)&ss, len);
	if (!ret)
		ret = kernel_listen(lsock, 1);
	if (!ret)
		ret = kernel_accept(lsock, ctrl, 0);
	sock_release(lsock);
	if (!ret)
		fipp_timeouts(*ctrl, timeout_ms);
	return ret;
}

/* Client: connect to the control port, retrying until it is up. */
static inline int fipp_ctrl_connect(struct socket **ctrl, const char *addr,
				    u16 port, int timeout_ms)
{
	struct sockaddr_storage ss;
	int len, ret, waited = 0;

	if (!addr)
		return -EINVAL;
	len = fipp_sockaddr(addr, port, &ss);
	if (len < 0)
		return len;
	for (;;) {
		ret = sock_create_kern(current->nsproxy->net_ns, ss.ss_family,
				       SOCK_STREAM, IPPROTO_TCP, ctrl);
		if (ret)
			return ret;
		fipp_timeouts(*ctrl, timeout_ms);
		ret = kernel_connect(*ctrl, (struct sockaddr *)&ss, len, 0);
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

/*
 * Send the name of @c's FI_EP_RDM endpoint: u32 length big-endian, u32
 * address format in host order, the name.
 */
static inline int fipp_send_ep_name(struct socket *ctrl, struct ks_conn *c)
{
	struct sockaddr_storage name = {};
	size_t len = sizeof(name);
	u32 fmt = c->info->addr_format;
	__be32 blen;
	int ret;

	ret = fi_getname(&c->ep->fid, &name, &len);
	if (ret)
		return ret;
	blen = cpu_to_be32(len);
	ret = fipp_send(ctrl, &blen, sizeof(blen));
	if (!ret)
		ret = fipp_send(ctrl, &fmt, sizeof(fmt));
	if (!ret)
		ret = fipp_send(ctrl, &name, len);
	return ret;
}

/* Receive a peer's name as fipp_send_ep_name() sends it. */
static inline int fipp_recv_ep_name(struct socket *ctrl,
				    struct sockaddr_storage *name,
				    size_t *len)
{
	__be32 blen;
	u32 fmt;
	int ret;

	ret = fipp_recv(ctrl, &blen, sizeof(blen));
	if (!ret)
		ret = fipp_recv(ctrl, &fmt, sizeof(fmt));
	if (ret)
		return ret;
	*len = be32_to_cpu(blen);
	if (!*len || *len > sizeof(*name))
		return -EMSGSIZE;
	memset(name, 0, sizeof(*name));
	return fipp_recv(ctrl, name, *len);
}

/*
 * FI_EP_RDM: close the control connection once the peer is done with
 * the fabric.  Both sides end their half (shutdown(SHUT_WR)) and read
 * until the peer's end: the peer ends its half only once it has
 * received every message of ours that it waits for, so that closing the
 * endpoint afterwards cannot drop one (an RDS socket drops, when closed,
 * what it has not yet transmitted, sends that completed included).
 * fi_pingpong as the peer closes its control socket once it has our
 * "fin".
 */
static inline int fipp_ctrl_end(struct socket *ctrl)
{
	char buf[16];
	int ret;

	ret = kernel_sock_shutdown(ctrl, SHUT_WR);
	if (ret == -ENOTCONN)
		return 0;	/* the peer has closed the connection already */
	while (!ret) {
		ret = fipp_recv(ctrl, buf, sizeof(buf));
		if (ret == -ECONNABORTED)
			return 0;	/* the end, after 0 to 15 bytes */
	}
	return ret;
}

/*
 * Both sides, at the end: "fin\0" with transmit complete, and the peer's
 * (which decides if ours was flushed by the peer's disconnect).
 */
static inline int fipp_finish(struct ks_conn *c)
{
	struct kvec kv = { .iov_base = ks_tx(c), .iov_len = 4 };
	struct fi_msg msg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &kv,
		.desc = &c->desc,
		.iov_count = 1,
		.addr = c->peer,
		.context = c,
	};
	struct fi_msg_tagged tmsg = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &kv,
		.desc = &c->desc,
		.iov_count = 1,
		.addr = c->peer,
		.tag = KS_TAG,
		.context = c,
	};
	ktime_t end = ktime_add_ms(ktime_get(), c->timeout_ms);
	struct fi_cq_data_entry e;
	int ret;

	memcpy(ks_tx(c), "fin", 4);
	for (;;) {
		if (c->tagged)
			ret = fi_tsendmsg(c->ep, &tmsg, FI_TRANSMIT_COMPLETE);
		else
			ret = fi_sendmsg(c->ep, &msg, FI_TRANSMIT_COMPLETE);
		if (ret != -EAGAIN || ktime_after(ktime_get(), end))
			break;
		usleep_range(50, 200);
	}
	if (!ret)
		ret = ks_cq_wait(c, c->txcq, &e);
	/*
	 * A connected peer that has our "fin" may disconnect before its
	 * acknowledgment reaches us, and over RC the send is then flushed
	 * (ECANCELED).  The peer's own "fin", sent before it waits for
	 * ours, says that it reached the end.
	 */
	if (!ret || ret == -ECANCELED)
		ret = ks_cq_wait(c, c->rxcq, &e);
	return ret;
}

#endif /* _KOFI_SAMPLE_FIPP_H */
