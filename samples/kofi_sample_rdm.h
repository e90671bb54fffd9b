/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI samples: one reliable-datagram (FI_EP_RDM) endpoint and its peer,
 * over any provider that offers FI_EP_RDM.
 *
 * The two sides find each other over a TCP control connection, server
 * listening, client connecting, as fi_pingpong -e rdm does: the server
 * sends its endpoint's name (fi_getname()), the client answers with its
 * own, and each inserts the other into its AV (FI_AV_TABLE).  Each side's
 * endpoint is bound to the local address of the control connection (the
 * server's to addr= if given), port 0: the provider picks the port and
 * the name tells it.  After the run the control connection tells each
 * side when the peer is done with the fabric (fipp_ctrl_end()).
 *
 * Process context only (module init); everything may sleep.
 */
#ifndef _KOFI_SAMPLE_RDM_H
#define _KOFI_SAMPLE_RDM_H

#include "kofi_sample_fipp.h"

/**
 * ks_rdm_open() - open an FI_EP_RDM endpoint and its resources
 * @c: zeroed connection with @half, @timeout_ms, @tagged and @rma set
 * @prov: provider name
 * @node: the local address to bind the endpoint to (numeric)
 *
 * fi_getinfo() with FI_EP_RDM and FI_MSG, or FI_TAGGED if @c->tagged,
 * then fabric, domain, two CQs, an AV of type FI_AV_TABLE and the
 * endpoint, enabled, with a receive of the whole rx half posted.  The
 * buffer is registered where the domain needs it (FI_MR_LOCAL) and for
 * RMA (@c->rma), for which the hints ask for FI_RMA.
 *
 * Return: 0; the errno of fi_getinfo() (-ENODATA: no provider offers
 * it); another negative errno.  On error call ks_close().
 */
static inline int ks_rdm_open(struct ks_conn *c, const char *prov,
			      const char *node)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	size_t may_sleep = !c->defer_io;
	u64 access = FI_SEND | FI_RECV;
	struct fi_info *hints;
	u64 offset = 0;
	int ret;

	c->rdm = true;
	c->peer = FI_ADDR_UNSPEC;
	hints = ks_hints(prov);
	if (!hints)
		return -ENOMEM;
	hints->caps = (c->tagged ? FI_TAGGED : FI_MSG) | (c->rma ? FI_RMA : 0);
	hints->ep_attr->type = FI_EP_RDM;
	ret = fi_getinfo(fi_version(), node, "0", FI_SOURCE, hints, &c->info);
	fi_freeinfo(hints);
	if (ret) {
		pr_err("fi_getinfo(%s, FI_EP_RDM, %s%s): %d\n", prov,
		       c->tagged ? "FI_TAGGED" : "FI_MSG",
		       c->rma ? " | FI_RMA" : "", ret);
		return ret;
	}
	pr_info("provider %s, domain %s\n", c->info->fabric_attr->prov_name,
		c->info->domain_attr->name);
	ret = fi_fabric(c->info->fabric_attr, &c->fabric, NULL);
	if (!ret)
		ret = fi_domain(c->fabric, c->info, &c->domain, NULL);
	if (!ret)
		ret = fi_cq_open(c->domain, &cq_attr, &c->txcq, NULL);
	if (!ret)
		ret = fi_cq_open(c->domain, &cq_attr, &c->rxcq, NULL);
	if (!ret)
		ret = fi_av_open(c->domain, &av_attr, &c->av, NULL);
	if (!ret)
		ret = fi_endpoint(c->domain, c->info, &c->ep, NULL);
	if (!ret)
		ret = fi_setopt(&c->ep->fid, FI_OPT_ENDPOINT,
				FI_OPT_DATA_MAY_SLEEP, &may_sleep,
				sizeof(may_sleep));
	if (!ret)
		ret = fi_ep_bind(c->ep, &c->txcq->fid, FI_TRANSMIT);
	if (!ret)
		ret = fi_ep_bind(c->ep, &c->rxcq->fid, FI_RECV);
	if (!ret)
		ret = fi_ep_bind(c->ep, &c->av->fid, 0);
	if (!ret)
		ret = fi_enable(c->ep);
	if (ret)
		return ret;
	c->buf = kvzalloc(2 * c->half, GFP_KERNEL);
	if (!c->buf)
		return -ENOMEM;
	if ((c->info->domain_attr->mr_mode & FI_MR_LOCAL) || c->rma) {
		if (c->rma)
			access |= FI_READ | FI_WRITE | FI_REMOTE_READ |
				  FI_REMOTE_WRITE;
		if (c->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR)
			offset = (u64)(uintptr_t)c->buf;
		ret = fi_mr_reg(c->domain, c->buf, 2 * c->half, access,
				offset, 0, 0, &c->mr, NULL);
		if (ret)
			return ret;
		c->desc = fi_mr_desc(c->mr);
	}
	return ks_post_recv(c, c->half);
}

/* Insert the name @addr into @c's AV; its entry goes to @fi_addr. */
static inline int ks_rdm_insert(struct ks_conn *c, const void *addr,
				fi_addr_t *fi_addr)
{
	int ret;

	ret = fi_av_insert(c->av, addr, 1, fi_addr, 0, NULL);
	if (ret == 1)
		return 0;
	pr_err("fi_av_insert: %d\n", ret);
	return ret < 0 ? ret : -EINVAL;
}

/* The numeric local address of the connected socket @sock. */
static inline int ks_rdm_local(struct socket *sock, char *node, size_t len)
{
	struct sockaddr_storage ss = {};
	int ret;

	ret = kernel_getsockname(sock, (struct sockaddr *)&ss);
	if (ret < 0)
		return ret;
	if (ss.ss_family == AF_INET)
		snprintf(node, len, "%pI4",
			 &((struct sockaddr_in *)&ss)->sin_addr);
	else if (ss.ss_family == AF_INET6)
		snprintf(node, len, "%pI6c",
			 &((struct sockaddr_in6 *)&ss)->sin6_addr);
	else
		return -EAFNOSUPPORT;
	return 0;
}

/**
 * ks_rdm_setup() - open the endpoint and learn the peer, over @ctrl
 * @c: zeroed connection with @half, @timeout_ms, @tagged and @rma set
 * @prov: provider name
 * @ctrl: the control connection
 * @client: which side this is
 * @node: the local address to bind the endpoint to; NULL: that of @ctrl
 *
 * fi_pingpong's "-e rdm" exchange: the server sends its name first, the
 * client answers with its own.  The client inserts the peer, then itself;
 * the server itself, then the peer; each inserts itself only where the
 * domain has FI_LOCAL_COMM.  @c->peer is then the peer's AV entry.  Each
 * side opens its endpoint before it reads on @ctrl, so that both sides
 * see the same errno when fi_getinfo() finds nothing.
 *
 * Return: 0 or a negative errno; on error call ks_close().
 */
static inline int ks_rdm_setup(struct ks_conn *c, const char *prov,
			       struct socket *ctrl, bool client,
			       const char *node)
{
	char local[INET6_ADDRSTRLEN + 1];
	struct sockaddr_storage peer = {}, self = {};
	bool local_comm;
	fi_addr_t own;
	size_t len;
	int ret;

	if (!node) {
		ret = ks_rdm_local(ctrl, local, sizeof(local));
		if (ret)
			return ret;
		node = local;
	}
	ret = ks_rdm_open(c, prov, node);
	if (ret)
		return ret;
	local_comm = c->info->domain_attr->caps & FI_LOCAL_COMM;
	len = sizeof(self);
	ret = fi_getname(&c->ep->fid, &self, &len);
	if (ret)
		return ret;
	if (!client) {
		ret = fipp_send_ep_name(ctrl, c);
		if (!ret)
			ret = fipp_recv_ep_name(ctrl, &peer, &len);
		if (!ret && local_comm)
			ret = ks_rdm_insert(c, &self, &own);
		if (!ret)
			ret = ks_rdm_insert(c, &peer, &c->peer);
	} else {
		ret = fipp_recv_ep_name(ctrl, &peer, &len);
		if (!ret)
			ret = ks_rdm_insert(c, &peer, &c->peer);
		if (!ret && local_comm)
			ret = ks_rdm_insert(c, &self, &own);
		if (!ret)
			ret = fipp_send_ep_name(ctrl, c);
	}
	if (!ret)
		pr_info("endpoint %pISpc, peer %pISpc over %s\n", &self, &peer,
			c->info->fabric_attr->prov_name);
	return ret;
}

/**
 * ks_rdm_run() - the body of a timing sample over FI_EP_RDM endpoints
 * @c: zeroed connection with @half, @timeout_ms, @tagged and @rma set
 * @prov: provider name
 * @client: connect to the server's control port (else accept there)
 * @node: client: the server's address; server: the address to listen on
 *	and to bind the endpoint to, NULL for any
 * @service: the control port
 * @sizes: @nsizes transfer sizes
 * @nsizes: their number
 * @all: as for ks_run_sizes()
 * @run_size: times one size; the client prints its row
 *
 * Opens the control connection, sets up the endpoint and the peer
 * (ks_rdm_setup()), exchanges buffer keys for RMA, runs every size, says
 * goodbye in step with the peer, ends the control connection with the
 * peer and closes.  The outcome is logged.
 *
 * Context: process context; sleeps.
 * Return: 0 or the first negative errno.
 */
static inline int ks_rdm_run(struct ks_conn *c, const char *prov,
			     bool client, const char *node,
			     const char *service, const unsigned int *sizes,
			     unsigned int nsizes, bool all,
			     ks_run_size_t run_size)
{
	struct socket *ctrl = NULL;
	u16 port;
	int ret;

	ret = kstrtou16(service, 10, &port);
	if (ret)
		goto out;
	if (client)
		ret = fipp_ctrl_connect(&ctrl, node, port, c->timeout_ms);
	else
		ret = fipp_ctrl_accept(&ctrl, node, port, c->timeout_ms);
	if (!ret)
		ret = ks_rdm_setup(c, prov, ctrl, client, client ? NULL : node);
	if (!ret && c->rma)
		ret = ks_exchange_keys(c, !client);
	if (ret) {
		pr_err("endpoint setup failed: %d\n", ret);
		goto out;
	}
	ret = ks_run_sizes(c, client, sizes, nsizes, all, run_size);
	if (!ret)
		ret = fipp_ctrl_end(ctrl);
	if (ret)
		pr_err("failed: %d\n", ret);
	else
		pr_info("%s done\n", client ? "client" : "server");
out:
	if (ctrl)
		sock_release(ctrl);
	ks_close(c);
	return ret;
}

#endif /* _KOFI_SAMPLE_RDM_H */
