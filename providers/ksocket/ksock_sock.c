// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ksocket provider: kernel socket helpers and an endpoint's socket
 * callbacks.
 *
 * The callbacks run with the socket locked: in softirq context, or in
 * process context when release_sock() replays the socket's backlog.  Data
 * ready runs the receive engine right there (ksock_rx_ready()); write space
 * and state change schedule the endpoint's work.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/tcp.h>
#include <net/tcp.h>
#include "ksock.h"

/**
 * ksock_sockaddr_len() - length of an IPv4 or IPv6 socket address
 * @sa: the address
 *
 * Context: any context.
 * Return: sizeof(struct sockaddr_in) or sizeof(struct sockaddr_in6), or
 * -EAFNOSUPPORT.
 */
int ksock_sockaddr_len(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return -EAFNOSUPPORT;
	}
}

/**
 * ksock_sock_create() - a kernel TCP socket in a network namespace
 * @net: the namespace
 * @family: AF_INET or AF_INET6
 * @sockp: the new socket
 *
 * The socket allocates with GFP_ATOMIC and copies the data it sends into
 * a page fragment of its own, never into the sending task's: a ULP may
 * send from memory reclaim that interrupted the task's own use of its
 * fragment (a storage ULP writing back), as the kernel's storage
 * transports (nvme-tcp, iSCSI, NFS) guard against.  Sockets accepted on
 * a listener inherit both.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
int ksock_sock_create(struct net *net, int family, struct socket **sockp)
{
	int ret;

	ret = sock_create_kern(net, family, SOCK_STREAM, IPPROTO_TCP, sockp);
	if (ret)
		return ret;
	(*sockp)->sk->sk_allocation = GFP_ATOMIC;
#ifdef KSOCK_SK_USE_TASK_FRAG
	(*sockp)->sk->sk_use_task_frag = false;
#endif
	return 0;
}

/**
 * ksock_sock_send() - send from an iterator without blocking
 * @sock: a connected socket
 * @it: the data; advanced by what was sent
 * @more: more data follows at once (MSG_MORE)
 *
 * Context: process context (the endpoint's work or a data call); may
 * sleep briefly for the socket's lock.
 * Return: bytes sent (may be short), -EAGAIN if nothing could be sent, or
 * a negative errno.
 */
int ksock_sock_send(struct socket *sock, struct iov_iter *it, bool more)
{
	struct msghdr msg = {
		.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL | (more ? MSG_MORE : 0),
	};
	int ret;

	msg.msg_iter = *it;
	ret = sock_sendmsg(sock, &msg);
	if (ret > 0)
		iov_iter_advance(it, ret);
	return ret;
}

/**
 * ksock_sock_recv() - receive into an iterator without blocking
 * @sock: a connected socket
 * @it: where to place the data; advanced by what was received
 *
 * Context: process context (the endpoint's work).
 * Return: bytes received, 0 at end of stream, -EAGAIN if nothing is
 * waiting, or a negative errno.
 */
int ksock_sock_recv(struct socket *sock, struct iov_iter *it)
{
	struct msghdr msg = {};
	int ret;

	msg.msg_iter = *it;
	ret = sock_recvmsg(sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (ret > 0)
		iov_iter_advance(it, ret);
	return ret;
}

/**
 * ksock_sock_recv_buf() - receive into a buffer without blocking
 * @sock: a connected socket
 * @buf: the buffer
 * @len: its size
 *
 * Context: process context.
 * Return: as for ksock_sock_recv().
 */
int ksock_sock_recv_buf(struct socket *sock, void *buf, size_t len)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_DEST, &kv, 1, len);
	return ksock_sock_recv(sock, &it);
}

static struct ksock_ep *ksock_sk_ep(struct sock *sk)
{
	return sk->sk_user_data;
}

static void ksock_ep_data_ready(struct sock *sk)
{
	struct ksock_ep *ep;

	read_lock_bh(&sk->sk_callback_lock);
	ep = ksock_sk_ep(sk);
	if (ep)
		ksock_rx_ready(ep);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void ksock_ep_write_space(struct sock *sk)
{
	struct ksock_ep *ep;

	read_lock_bh(&sk->sk_callback_lock);
	ep = ksock_sk_ep(sk);
	if (ep && sk_stream_is_writeable(sk)) {
		clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		ksock_tx_writable(ep);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void ksock_ep_state_change(struct sock *sk)
{
	struct ksock_ep *ep;

	read_lock_bh(&sk->sk_callback_lock);
	ep = ksock_sk_ep(sk);
	if (ep)
		ksock_ep_kick_unlocked(ep);
	read_unlock_bh(&sk->sk_callback_lock);
}

/**
 * ksock_sock_keepalive() - TCP keepalive for FI_OPT_KEEPALIVE_MS
 * @sk: the endpoint's socket
 * @ms: the interval, 0 for none; at most KSOCK_KEEPALIVE_MAX_MS
 *
 * The interval, rounded up to whole seconds, is both the idle time before
 * the first probe and the time between probes; after
 * KSOCK_KEEPALIVE_PROBES unanswered probes TCP gives the peer up
 * (ETIMEDOUT).  TCP_USER_TIMEOUT is set to the same total, so that data
 * the peer does not acknowledge for that long ends the connection as
 * well, rather than TCP's retransmission limit.
 *
 * Context: process context; sleeps (socket lock).
 */
void ksock_sock_keepalive(struct sock *sk, u32 ms)
{
	int secs = DIV_ROUND_UP(min(ms, KSOCK_KEEPALIVE_MAX_MS), 1000);
	sockptr_t on = KERNEL_SOCKPTR(&secs);

	if (secs) {
		tcp_sock_set_keepidle(sk, secs);
		tcp_sock_set_keepintvl(sk, secs);
		tcp_sock_set_keepcnt(sk, KSOCK_KEEPALIVE_PROBES);
	}
	tcp_sock_set_user_timeout(sk, secs * (KSOCK_KEEPALIVE_PROBES + 1) *
				  MSEC_PER_SEC);
	/* SO_KEEPALIVE on for non-zero @secs, off for 0. */
	sock_setsockopt(sk->sk_socket, SOL_SOCKET, SO_KEEPALIVE, on,
			sizeof(secs));
}

/**
 * ksock_sock_drop_frag() - give back the page fragment a socket sends from
 * @sk: an endpoint's socket, idle
 *
 * TCP copies what is sent into the socket's page fragment (ksocket's
 * sockets never use the task's, ksock_sock_create()), up to 32 KiB that
 * the socket keeps for its next send; on a thousand idle connections
 * that is most of their memory.  Dropped here, the next send takes a new
 * one, as TCP does itself when the old one is still in use.  Data queued
 * or in flight holds its own references to the page.
 *
 * Context: process context; sleeps (socket lock).
 */
void ksock_sock_drop_frag(struct sock *sk)
{
	lock_sock(sk);
	if (sk->sk_frag.page) {
		put_page(sk->sk_frag.page);
		sk->sk_frag.page = NULL;
		sk->sk_frag.offset = 0;
	}
	release_sock(sk);
}

/**
 * ksock_ep_sock_attach() - route @ep->sock's events to @ep's work
 * @ep: the endpoint, with its socket set
 *
 * Also turns Nagle off (kOFI messages are sent whole) and sets the
 * endpoint's keepalive.
 *
 * Context: process context; sleeps.
 */
void ksock_ep_sock_attach(struct ksock_ep *ep)
{
	struct sock *sk = ep->sock->sk;

	tcp_sock_set_nodelay(sk);
	ksock_sock_keepalive(sk, READ_ONCE(ep->keepalive_ms));
	write_lock_bh(&sk->sk_callback_lock);
	ep->saved_data_ready = sk->sk_data_ready;
	ep->saved_write_space = sk->sk_write_space;
	ep->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = ep;
	sk->sk_data_ready = ksock_ep_data_ready;
	sk->sk_write_space = ksock_ep_write_space;
	sk->sk_state_change = ksock_ep_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/**
 * ksock_ep_sock_detach() - give @ep->sock its own callbacks back
 * @ep: the endpoint
 *
 * Once it returns no callback schedules @ep's work any more.
 *
 * Context: process context.
 */
void ksock_ep_sock_detach(struct ksock_ep *ep)
{
	struct sock *sk = ep->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == ep) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = ep->saved_data_ready;
		sk->sk_write_space = ep->saved_write_space;
		sk->sk_state_change = ep->saved_state_change;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}
