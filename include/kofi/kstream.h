/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kstream - in-kernel byte streams over RMA.
 *
 * kstream is a utility provider ("ksocket;kstream", "ib_verbs;kstream")
 * that offers FI_EP_SOCK_STREAM endpoints over any core provider with
 * FI_MSG, FI_RMA and remote CQ data.  On the wire it speaks rsockets v1,
 * so over ib_verbs it talks to librdmacm's rsockets (rstream, riostream).
 *
 * Two ways to use it:
 *
 * - the fi_* calls on an FI_EP_SOCK_STREAM endpoint (fi_send/fi_recv and
 *   their v/msg forms with stream semantics, FI_PEEK, fi_control
 *   (FI_GETWAIT) for a wait queue and kstream_ep_poll() for readiness);
 * - the socket-like calls below, the in-kernel counterpart of rsocket(7):
 *   kstream_sock_create(), kstream_bind(), kstream_listen(),
 *   kstream_accept(), kstream_connect(), kstream_sendmsg(),
 *   kstream_recvmsg(), kstream_shutdown(), kstream_release() ...
 *
 * Documentation/kstream.rst describes both, the settings and the wire.
 */
#ifndef _KOFI_KSTREAM_H
#define _KOFI_KSTREAM_H

#include <linux/poll.h>
#include <linux/socket.h>
#include <linux/sockptr.h>
#include <kofi/fabric.h>
#include <kofi/fi_endpoint.h>

/*
 * Endpoint options of a kstream endpoint (level FI_OPT_ENDPOINT, size_t
 * values, set before fi_enable()).  The generic ones, with their defaults
 * (module parameters of kofi_kstream.ko, in parentheses):
 * FI_OPT_SEND_BUF_SIZE:      send buffer bytes (wmem_default, 32 KiB)
 * FI_OPT_RECV_BUF_SIZE:      receive ring bytes (mem_default, 32 KiB)
 * FI_OPT_TX_SIZE:            send queue depth (sqsize_default, 384)
 * FI_OPT_RX_SIZE:            receive queue depth and credits given to the
 *                            peer (rqsize_default, 384)
 * and kstream's own:
 * FI_OPT_KSTREAM_INLINE:     largest send copied inline by the core
 *                            provider (inline_default, 64)
 * FI_OPT_KSTREAM_IOMAPSIZE:  direct placement slots offered to the peer
 *                            (iomap_size, 0)
 * FI_OPT_KSTREAM_KEEPALIVE:  seconds between keepalives, 0 for none (0)
 * rsockets' SO_SNDBUF, SO_RCVBUF, RDMA_SQSIZE and RDMA_RQSIZE are the
 * four generic ones.
 *
 * fi_control(&ep->fid, FI_GETWAIT, &wq) on a kstream endpoint stores its
 * readiness wait queue (wait_queue_head_t *) in wq; see kstream_ep_poll().
 */
#define FI_OPT_KSTREAM_INLINE		0x100
#define FI_OPT_KSTREAM_IOMAPSIZE	0x101
#define FI_OPT_KSTREAM_KEEPALIVE	0x102

/**
 * kstream_ep_poll() - readiness of a kstream endpoint
 * @ep: an FI_EP_SOCK_STREAM endpoint
 *
 * EPOLLIN: data can be received (or the peer shut down its side:
 * EPOLLRDHUP); EPOLLOUT: a send would accept bytes; EPOLLERR: the stream
 * has failed; EPOLLHUP: both directions are shut.  The wait queue that
 * fi_control(&ep->fid, FI_GETWAIT, &wq) hands out (wait_queue_head_t **)
 * is woken on every change.
 *
 * Context: any context.
 * Return: the EPOLL* mask, 0 if @ep is not a kstream endpoint.
 */
__poll_t kstream_ep_poll(struct fid_ep *ep);

/*
 * Engine calls on an FI_EP_SOCK_STREAM endpoint (kernel-doc where they are
 * defined, providers/kstream/): shut down one direction (SHUT_RD, SHUT_WR)
 * or both (SHUT_RDWR, as fi_shutdown()); the error that ended the stream;
 * a function called after every readiness change.
 */
int kstream_ep_shutdown(struct fid_ep *ep, int how);
int kstream_ep_error(struct fid_ep *ep);
void kstream_ep_set_notify(struct fid_ep *ep, void (*notify)(void *arg),
			   void *arg);

/*
 * Direct placement on an FI_EP_SOCK_STREAM endpoint (rsockets' riomap(),
 * riounmap(), riowrite(); kernel-doc in providers/kstream/kstream_iomap.c):
 * offer a buffer to the peer at an iomap offset, withdraw it, write into a
 * buffer the peer offered (nonblocking), and whether such a write could go.
 */
off_t kstream_ep_iomap(struct fid_ep *ep, void *buf, size_t len, int prot,
		       off_t offset);
int kstream_ep_iounmap(struct fid_ep *ep, void *buf, size_t len);
ssize_t kstream_ep_iowrite(struct fid_ep *ep, const void *buf, size_t count,
			   off_t offset);
bool kstream_ep_iowritable(struct fid_ep *ep);

struct kstream_sock;

/* SOL_RDMA-level options of kstream_setsockopt(), as rsocket(7). */
#define KSTREAM_SOL_RDMA	0x10000
#define KSTREAM_SQSIZE		0
#define KSTREAM_RQSIZE		1
#define KSTREAM_INLINE		2
#define KSTREAM_IOMAPSIZE	3

int kstream_sock_create(int family, const char *prov,
			struct kstream_sock **ks);
int kstream_bind(struct kstream_sock *ks, const struct sockaddr *addr,
		 int addrlen);
int kstream_listen(struct kstream_sock *ks, int backlog);
int kstream_accept(struct kstream_sock *ks, struct kstream_sock **newks,
		   int flags);
int kstream_connect(struct kstream_sock *ks, const struct sockaddr *addr,
		    int addrlen, int flags);
int kstream_sendmsg(struct kstream_sock *ks, struct msghdr *msg);
int kstream_recvmsg(struct kstream_sock *ks, struct msghdr *msg, int flags);
int kstream_shutdown(struct kstream_sock *ks, int how);
void kstream_release(struct kstream_sock *ks);
int kstream_getname(struct kstream_sock *ks, struct sockaddr *addr,
		    int peer);
int kstream_setsockopt(struct kstream_sock *ks, int level, int optname,
		       sockptr_t optval, unsigned int optlen);
int kstream_getsockopt(struct kstream_sock *ks, int level, int optname,
		       void *optval, int *optlen);
int kstream_set_nonblock(struct kstream_sock *ks, bool nonblock);
__poll_t kstream_poll(struct kstream_sock *ks);
int kstream_wait(struct kstream_sock *ks, __poll_t events, long timeout);
struct fid_ep *kstream_sock_ep(struct kstream_sock *ks);

/* Direct placement, as rsockets' riomap(), riounmap() and riowrite(). */
off_t kstream_iomap(struct kstream_sock *ks, void *buf, size_t len,
		    int prot, int flags, off_t offset);
int kstream_iounmap(struct kstream_sock *ks, void *buf, size_t len);
ssize_t kstream_iowrite(struct kstream_sock *ks, const void *buf,
			size_t count, off_t offset, int flags);

#endif /* _KOFI_KSTREAM_H */
