// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: the registration QP of an iWARP domain.
 *
 * Memory registration (IB_WR_REG_MR, IB_WR_LOCAL_INV) is a work request,
 * and a QP takes work requests only in RTS.  On InfiniBand and RoCE the
 * domain connects a QP to itself by hand (ibv_domain.c); an iWARP QP
 * reaches RTS only through a connection.  So an iWARP domain makes one:
 * an rdma_cm listener on an ephemeral port of an address of the device's
 * netdev (IPv4 if it has one) and a connection to it from a second
 * identifier, both in the initial network namespace.  The connecting side's QP is the
 * domain's registration QP; nothing is ever sent over the connection
 * (registration is local), and the accepting side's QP only keeps it up.
 * The listener accepts only its own domain's request (its address and
 * port), once.
 * Without it (no address, a failure, no answer in time) the domain
 * registers through its connected endpoints, as before their first
 * connection.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <kofi/sockaddr.h>
#include "ibv.h"

/*
 * The state of the connection to itself.  @done is completed with
 * @status once the connecting side is established or failed.
 */
struct ibv_loop {
	struct ibv_domain *dom;
	struct ib_qp_init_attr qp_attr;
	struct rdma_cm_id *listen;
	struct rdma_cm_id *active;
	struct rdma_cm_id *child;	/* set by the listener's handler */
	struct completion done;
	int status;
};

/*
 * Does connection request @id come from the domain's own connecting
 * side, address and port?  Anyone else who finds the listener is
 * refused: the accepted QP is in the domain's PD.
 */
static bool ibv_loop_is_self(struct ibv_loop *loop, struct rdma_cm_id *id)
{
	return kofi_sockaddr_equal((union kofi_sockaddr *)&id->route.addr.dst_addr,
				   (union kofi_sockaddr *)
				   &loop->active->route.addr.src_addr);
}

/* The listener's connection request: accept it with a QP of its own. */
static int ibv_loop_accept(struct ibv_loop *loop, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr ia = loop->qp_attr;
	struct rdma_conn_param cp = {};
	int ret;

	/* a second request, or not ours: rdma_cm refuses and drops it */
	if (loop->child || !loop->active || !ibv_loop_is_self(loop, id))
		return -EBUSY;
	ret = rdma_create_qp(id, loop->dom->pd, &ia);
	if (ret)
		return ret;
	ret = rdma_accept(id, &cp);
	if (ret) {
		rdma_destroy_qp(id);
		return ret;
	}
	loop->child = id;
	return 0;
}

/* The connecting side's route is known: its QP, then the connection. */
static int ibv_loop_connect(struct ibv_loop *loop, struct rdma_cm_id *id)
{
	struct rdma_conn_param cp = {
		.initiator_depth = 1,
		.responder_resources = 1,
	};
	struct ib_qp_init_attr ia = loop->qp_attr;
	int ret;

	ret = rdma_create_qp(id, loop->dom->pd, &ia);
	if (ret)
		return ret;
	return rdma_connect_locked(id, &cp);
}

static void ibv_loop_end(struct ibv_loop *loop, int status)
{
	loop->status = status;
	complete(&loop->done);
}

/*
 * Events of the three identifiers.  A non-zero return makes rdma_cm
 * destroy the identifier: only ever for a connection request not taken.
 * Context: process context (rdma_cm), the identifier's handler lock held.
 */
static int ibv_loop_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct ibv_loop *loop = id->context;
	int ret;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return ibv_loop_accept(loop, id);
	if (id != loop->active || completion_done(&loop->done))
		return 0;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, ibv_cm_timeout_ms);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = ibv_loop_connect(loop, id);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		ibv_loop_end(loop, 0);
		return 0;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		return 0;
	default:
		ret = ev->status ? ev->status : -ECONNREFUSED;
		if (ret > 0)
			ret = -ECONNREFUSED;
		break;
	}
	if (ret)
		ibv_loop_end(loop, ret);
	return 0;
}

/*
 * An address of the domain's netdev in the initial namespace, IPv4 if it
 * has one.
 */
static int ibv_loop_addr(struct ibv_domain *dom, struct sockaddr_storage *ss)
{
	struct net_device *nd;
	int ret = 0;

	nd = ibv_dev_netdev(&init_net, dom->dev->ibdev, dom->port);
	if (!nd)
		return -ENODEV;
	if (!ibv_netdev_addr(nd, AF_INET, ss) &&
	    !ibv_netdev_addr(nd, AF_INET6, ss))
		ret = -EADDRNOTAVAIL;
	dev_put(nd);
	return ret;
}

static void ibv_loop_free(struct ibv_loop *loop)
{
	if (loop->listen)
		rdma_destroy_id(loop->listen);
	/* No handler runs for the listener now: @child is settled. */
	if (loop->child) {
		rdma_disconnect(loop->child);
		rdma_destroy_qp(loop->child);
		rdma_destroy_id(loop->child);
	}
	if (loop->active) {
		if (loop->active->qp)
			rdma_destroy_qp(loop->active);
		rdma_destroy_id(loop->active);
	}
	kfree(loop);
}

/* A new identifier of @loop into @id (NULL on failure). */
static int ibv_loop_new_id(struct ibv_loop *loop, struct rdma_cm_id **id)
{
	struct rdma_cm_id *new = rdma_create_id(&init_net, ibv_loop_handler,
						loop, RDMA_PS_TCP, IB_QPT_RC);

	*id = IS_ERR(new) ? NULL : new;
	return PTR_ERR_OR_ZERO(new);
}

/* Listen on an ephemeral port of @src, connect to it, wait for it. */
static int ibv_loop_start(struct ibv_loop *loop, struct sockaddr_storage *src)
{
	struct sockaddr_storage dst;
	int ret;

	ret = ibv_loop_new_id(loop, &loop->listen);
	if (ret)
		return ret;
	ret = rdma_set_afonly(loop->listen, 1);
	if (!ret)
		ret = rdma_bind_addr(loop->listen, (struct sockaddr *)src);
	if (!ret)
		ret = rdma_listen(loop->listen, 1);
	if (ret)
		return ret;
	/* The address with the port rdma_bind_addr() chose. */
	dst = loop->listen->route.addr.src_addr;

	ret = ibv_loop_new_id(loop, &loop->active);
	if (ret)
		return ret;
	ret = rdma_resolve_addr(loop->active, (struct sockaddr *)src,
				(struct sockaddr *)&dst, ibv_cm_timeout_ms);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&loop->done,
					 msecs_to_jiffies(IBV_REG_TIMEOUT_MS)))
		return -ETIMEDOUT;
	if (loop->status)
		return loop->status;
	/* The device of the address must be the domain's. */
	if (loop->active->device != loop->dom->dev->ibdev ||
	    loop->active->port_num != loop->dom->port)
		return -EXDEV;
	return 0;
}

/**
 * ibv_loop_create() - give an iWARP domain its registration QP
 * @dom: the domain; its PD, @dom->reg_cq and @dom->reg_req exist
 * @qp_attr: the attributes of both sides' QPs (their CQ: @dom->reg_cq)
 *
 * Connects the domain to itself (see the top of this file) and sets
 * @dom->reg_qp to the connecting side's QP.
 *
 * Context: process context, sleeps (at most IBV_REG_TIMEOUT_MS for the
 * connection); the device's lock held (the domain is being opened).
 * Return: 0, or a negative errno (nothing left behind, no reg_qp).
 */
int ibv_loop_create(struct ibv_domain *dom,
		    const struct ib_qp_init_attr *qp_attr)
{
	struct sockaddr_storage src;
	struct ibv_loop *loop;
	int ret;

	ret = ibv_loop_addr(dom, &src);
	if (ret)
		return ret;
	loop = kzalloc(sizeof(*loop), GFP_KERNEL);
	if (!loop)
		return -ENOMEM;
	loop->dom = dom;
	loop->qp_attr = *qp_attr;
	init_completion(&loop->done);
	ret = ibv_loop_start(loop, &src);
	if (ret) {
		ibv_loop_free(loop);
		return ret;
	}
	dom->loop = loop;
	dom->reg_qp = loop->active->qp;
	return 0;
}

/**
 * ibv_loop_destroy() - end an iWARP domain's connection to itself
 * @dom: the domain
 *
 * Disconnects and frees both sides, their QPs included (@dom->reg_qp
 * becomes NULL); the caller frees @dom->reg_cq after.
 *
 * Context: process context, sleeps; @dom->lock held.
 */
void ibv_loop_destroy(struct ibv_domain *dom)
{
	if (!dom->loop)
		return;
	ibv_loop_free(dom->loop);
	dom->loop = NULL;
	dom->reg_qp = NULL;
}
