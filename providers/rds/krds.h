/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI rds provider: internal definitions.
 *
 * rds runs FI_EP_RDM endpoints on kernel AF_RDS sockets, over RDS's TCP
 * or InfiniBand transport (the domain "tcp" or "ib").  A message is the
 * bare payload, so any AF_RDS program exchanges messages with a kOFI
 * endpoint.  See Documentation/rds.rst.
 */
#ifndef _KOFI_RDS_H
#define _KOFI_RDS_H

#include <linux/in.h>
#include <linux/list.h>
#include <linux/net.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <kofi/provider.h>

#define KRDS_PROV_NAME		"rds"
#define KRDS_PROV_VERSION	FI_VERSION(0, 1)

/* Largest message: RDS's own limit. */
#define KRDS_MAX_MSG_SIZE	(1024 * 1024)
/*
 * Socket buffers: RDS refuses a message above sk_sndbuf / 2 (and a send
 * with EAGAIN once that much is unacknowledged), and marks a port
 * congested once its receive queue passes sk_rcvbuf / 2.
 */
#define KRDS_SNDBUF		(4 * KRDS_MAX_MSG_SIZE)
#define KRDS_RCVBUF		(8 * KRDS_MAX_MSG_SIZE)
#define KRDS_IOV_LIMIT		8
#define KRDS_INJECT_SIZE	256
#define KRDS_TX_SIZE		256
#define KRDS_RX_SIZE		256
#define KRDS_QUEUE_MAX		4096
/* A send refused for back-pressure is retried after this at the latest. */
#define KRDS_RETRY_MS		2

extern struct workqueue_struct *krds_wq;

/**
 * struct krds_domain - a domain: one RDS transport
 * @domain: the public domain
 * @transport: RDS_TRANS_TCP or RDS_TRANS_IB, for every endpoint of it
 */
struct krds_domain {
	struct fid_domain domain;
	int transport;
};

/**
 * struct krds_req - a posted send or receive
 * @op: outstanding-operation record (CQ, context, completion flags)
 * @node: on the endpoint's free list or its send or receive queue
 * @dest: destination of a send
 * @type: FI_IOV_KVEC or FI_IOV_BVEC (scatterlists are copied as bvecs)
 * @count: entries in @vec
 * @len: bytes in @vec
 * @vec: the caller's vector, or one kvec of @inject
 * @inject: an injected send's payload
 */
struct krds_req {
	struct kofi_op op;
	struct list_head node;
	struct sockaddr_in dest;
	enum fi_iov_type type;
	unsigned int count;
	size_t len;
	union {
		struct kvec kv[KRDS_IOV_LIMIT];
		struct bio_vec bv[KRDS_IOV_LIMIT];
	} vec;
	u8 inject[KRDS_INJECT_SIZE];
};

/**
 * struct krds_ep - an FI_EP_RDM endpoint on an AF_RDS socket
 * @ep: the public endpoint
 * @info: the endpoint's own copy of its info
 * @net: network namespace of the creator, where the socket lives
 * @transport: the RDS transport of the socket: its domain's
 * @sock: the bound AF_RDS socket, from fi_enable() on
 * @lock: protects the lists and @state
 * @state: KRDS_EP_*
 * @tx_queue: sends not yet taken by the socket, oldest first
 * @rx_queue: posted receives, oldest first
 * @tx_free: free send requests
 * @rx_free: free receive requests
 * @pool: every request, allocated at fi_enable()
 * @ops: outstanding operations, flushed at close
 * @work: the progress work (sends and receives)
 * @wait: on the socket's wait queue: RDS wakes it when a message arrives
 *	and when acknowledged sends free send space
 */
struct krds_ep {
	struct fid_ep ep;
	struct fi_info *info;
	struct net *net;
	int transport;
	struct socket *sock;
	spinlock_t lock;	/* protects the lists and state */
	int state;
	struct list_head tx_queue;
	struct list_head rx_queue;
	struct list_head tx_free;
	struct list_head rx_free;
	struct krds_req *pool;
	struct kofi_oplist ops;
	struct delayed_work work;
	struct wait_queue_entry wait;
};

enum {
	KRDS_EP_IDLE,
	KRDS_EP_ENABLED,
	KRDS_EP_CLOSING,
};

int krds_transport_parse(const char *name);
int krds_sock_create(struct net *net, int transport,
		     const struct sockaddr_in *src, struct socket **sockp);
int krds_ep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **fep, void *context);
void krds_ep_kick(struct krds_ep *ep);
void krds_ep_work(struct work_struct *work);
extern const struct fi_ops_msg krds_msg_ops;

#endif /* _KOFI_RDS_H */
