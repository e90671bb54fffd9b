// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: fi_getinfo().
 *
 * One info per active port of an RDMA device, with the device's name as
 * domain name and the IP address of its network device as source address.
 * Which devices are offered:
 *
 * - a source address (node with FI_SOURCE, or the service of a listener
 *   with a node): the device whose network device holds that address; the
 *   wildcard address offers every active device, keeping the port;
 * - a destination address: the device of the interface the route to it
 *   leaves through (IPv4 or IPv6; or that holds it, for a local address);
 * - nothing: the device of the "iface" module parameter if set, else every
 *   active device, the first active device first (the default).
 *
 * Addresses, routes and interfaces are those of the calling task's network
 * namespace, and only devices that namespace may use are offered
 * (rdma_dev_access_netns()): endpoints made from the infos live there too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include "ibv.h"

/**
 * ibv_netdev_addr() - an address of a network device
 * @nd: the network device
 * @family: AF_INET or AF_INET6 (not link-local)
 * @ss: its first address of @family, port 0
 *
 * Context: any context; takes the RCU read lock.
 * Return: true if @nd has one.
 */
bool ibv_netdev_addr(struct net_device *nd, int family,
		     struct sockaddr_storage *ss)
{
	bool found = false;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;
		struct in_device *in_dev;
		struct in_ifaddr *ifa;

		rcu_read_lock();
		in_dev = __in_dev_get_rcu(nd);
		ifa = in_dev ? rcu_dereference(in_dev->ifa_list) : NULL;
		if (ifa) {
			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = ifa->ifa_local;
			found = true;
		}
		rcu_read_unlock();
#if IS_ENABLED(CONFIG_IPV6)
	} else if (family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
		struct inet6_ifaddr *ifp;
		struct inet6_dev *idev;

		rcu_read_lock();
		idev = __in6_dev_get(nd);
		if (idev) {
			read_lock_bh(&idev->lock);
			list_for_each_entry(ifp, &idev->addr_list, if_list) {
				if (ifp->scope != IFA_LINK) {
					sin6->sin6_family = AF_INET6;
					sin6->sin6_addr = ifp->addr;
					found = true;
					break;
				}
			}
			read_unlock_bh(&idev->lock);
		}
		rcu_read_unlock();
#endif
	}
	return found;
}

static bool ibv_addr_is_any(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	if (sa->sa_family == AF_INET6)
		return ipv6_addr_any(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return true;
}

static __be16 ibv_addr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_port;
	if (sa->sa_family == AF_INET6)
		return ((const struct sockaddr_in6 *)sa)->sin6_port;
	return 0;
}

static void ibv_addr_set_port(struct sockaddr_storage *ss, __be16 port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = port;
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = port;
}

/* The network device holding the local address @sa, held, or NULL. */
static struct net_device *ibv_netdev_by_addr(struct net *net,
					     const struct sockaddr *sa)
{
	struct net_device *nd = NULL;

	if (sa->sa_family == AF_INET) {
		rcu_read_lock();
		nd = __ip_dev_find(net,
				   ((const struct sockaddr_in *)sa)->sin_addr.s_addr,
				   false);
		if (nd)
			dev_hold(nd);
		rcu_read_unlock();
#if IS_ENABLED(CONFIG_IPV6)
	} else if (sa->sa_family == AF_INET6) {
		rcu_read_lock();
		nd = ipv6_dev_find(net,
				   &((const struct sockaddr_in6 *)sa)->sin6_addr,
				   NULL);
		if (nd)
			dev_hold(nd);
		rcu_read_unlock();
#endif
	}
	return nd;
}

/* The device the IPv6 route to @sin6 leaves through, held, or NULL. */
static struct net_device *ibv_netdev_by_route6(struct net *net,
					       const struct sockaddr_in6 *sin6)
{
#if IS_ENABLED(CONFIG_IPV6)
	struct flowi6 fl6 = {
		.daddr = sin6->sin6_addr,
		/* A link-local destination names its interface. */
		.flowi6_oif = sin6->sin6_scope_id,
	};
	struct net_device *nd;
	struct dst_entry *dst;

	/* The stub works whether IPv6 is built in or a module (or absent). */
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl6, NULL);
	if (IS_ERR(dst))
		return NULL;
	nd = dst->dev;
	if (nd)
		dev_hold(nd);
	dst_release(dst);
	return nd;
#else
	return NULL;
#endif
}

/* The network device the route to @sa leaves through, held, or NULL. */
static struct net_device *ibv_netdev_by_route(struct net *net,
					      const struct sockaddr *sa)
{
	struct net_device *nd;
	struct flowi4 fl4 = {};
	struct rtable *rt;

	nd = ibv_netdev_by_addr(net, sa);	/* a local destination */
	if (nd)
		return nd;
	if (sa->sa_family == AF_INET6)
		return ibv_netdev_by_route6(net,
					    (const struct sockaddr_in6 *)sa);
	if (sa->sa_family != AF_INET)
		return NULL;
	fl4.daddr = ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return NULL;
	nd = rt->dst.dev;
	dev_hold(nd);
	ip_rt_put(rt);
	return nd;
}

static int ibv_family(u32 addr_format, const struct fi_info *hints)
{
	const struct sockaddr *sa = hints->src_addr ? hints->src_addr :
				    hints->dest_addr;

	if (sa)
		return sa->sa_family;
	return addr_format == FI_SOCKADDR_IN6 ? AF_INET6 : AF_INET;
}

/* One info for @port of @dev with source address @src. */
static struct fi_info *ibv_info_alloc(struct ibv_dev *dev, u32 port,
				      const struct sockaddr_storage *src)
{
	struct ib_device *ibdev = dev->ibdev;
	const struct ib_device_attr *a = &ibdev->attrs;
	struct ib_port_attr pattr;
	struct fi_info *info;
	bool iwarp = rdma_protocol_iwarp(ibdev, port);
	u32 max_inline;
	u64 caps;

	if (ib_query_port(ibdev, port, &pattr))
		return NULL;
	max_inline = ibv_dev_max_inline(dev);
	info = fi_allocinfo(GFP_KERNEL);
	if (!info)
		return NULL;
	/* iWARP has no immediate data: no remote CQ data there. */
	caps = ibv_caps(ibdev, port);
	info->caps = caps;
	info->mode = 0;
	if (src->ss_family == AF_INET) {
		info->addr_format = FI_SOCKADDR_IN;
		info->src_addrlen = sizeof(struct sockaddr_in);
	} else if (src->ss_family == AF_INET6) {
		info->addr_format = FI_SOCKADDR_IN6;
		info->src_addrlen = sizeof(struct sockaddr_in6);
	}
	if (info->src_addrlen) {
		info->src_addr = kmemdup(src, info->src_addrlen, GFP_KERNEL);
		if (!info->src_addr)
			goto err;
	}

	info->tx_attr->caps = caps;
	info->tx_attr->op_flags = FI_TRANSMIT_COMPLETE;
	info->tx_attr->msg_order = 0;
	info->tx_attr->inject_size = min(ibv_inline_size, max_inline);
	/*
	 * Send queue slots stay reserved for registration and keepalive,
	 * and on iWARP for the registration of read sinks (ibv_ep.c).
	 */
	info->tx_attr->size = min_t(u32, ibv_tx_size, a->max_qp_wr - 2 -
				    (iwarp ? 2 * IBV_SINK_MRS : 0));
	info->tx_attr->iov_limit = min_t(u32, ibv_iov_limit, a->max_send_sge);
	info->tx_attr->rma_iov_limit = 1;
	info->rx_attr->caps = caps;
	info->rx_attr->size = min_t(u32, ibv_rx_size, a->max_qp_wr);
	info->rx_attr->iov_limit = min_t(u32, ibv_iov_limit, a->max_recv_sge);
	info->ep_attr->type = FI_EP_MSG;
	info->ep_attr->max_msg_size = min_t(u64, IBV_MAX_MSG_SIZE,
					    pattr.max_msg_sz);
	/* An iWARP read sink is one MR (ibv_sink.c), at any alignment. */
	if (iwarp)
		info->ep_attr->max_msg_size =
			min_t(u64, info->ep_attr->max_msg_size,
			      (u64)(max(ibv_sink_pages(a), 1U) - 1) *
			      PAGE_SIZE);
	info->ep_attr->max_cm_data_size = IBV_CM_DATA_MAX;
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;
	info->domain_attr->threading = FI_THREAD_SAFE;
	info->domain_attr->control_progress = FI_PROGRESS_AUTO;
	info->domain_attr->data_progress = FI_PROGRESS_AUTO;
	info->domain_attr->resource_mgmt = FI_RM_ENABLED;
	info->domain_attr->mr_mode = IBV_MR_MODE;
	info->domain_attr->mr_key_size = sizeof(u32);
	info->domain_attr->cq_data_size = caps & FI_REMOTE_CQ_DATA ?
					  sizeof(u32) : 0;
	info->domain_attr->cq_cnt = a->max_cq;
	info->domain_attr->ep_cnt = a->max_qp;
	info->domain_attr->mr_cnt = a->max_mr;
	info->domain_attr->mr_iov_limit = IBV_MAX_SGE;
	/* iWARP has no receiver-not-ready retry for an empty SRQ */
	info->domain_attr->max_ep_srx_ctx = iwarp || !a->max_srq_sge ? 0 :
					    a->max_srq;
	if (port == rdma_start_port(ibdev))
		info->domain_attr->name = kstrdup(dev->name, GFP_KERNEL);
	else
		info->domain_attr->name = kasprintf(GFP_KERNEL, "%s:%u",
						    dev->name, port);
	info->fabric_attr->name = kstrdup(IBV_FABRIC_NAME, GFP_KERNEL);
	if (!info->domain_attr->name || !info->fabric_attr->name)
		goto err;
	return info;
err:
	fi_freeinfo(info);
	return NULL;
}

static bool ibv_port_active(struct ib_device *ibdev, u32 port)
{
	struct ib_port_attr pattr;

	return !ib_query_port(ibdev, port, &pattr) &&
	       pattr.state == IB_PORT_ACTIVE;
}

/*
 * Append infos for the active ports of @dev.  @src: the source address, or
 * NULL to use the device's own address of @family with port @port.
 */
static int ibv_add_dev(struct net *net, struct ibv_dev *dev,
		       const struct sockaddr *src, int family, __be16 port,
		       struct fi_info ***tail)
{
	struct sockaddr_storage ss;
	struct net_device *nd;
	struct fi_info *info;
	u32 p;

	/* A device in exclusive namespace mode, given to another namespace. */
	if (!rdma_dev_access_netns(dev->ibdev, net))
		return 0;
	if (src) {
		memcpy(&ss, src, src->sa_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) :
		       sizeof(struct sockaddr_in));
	} else {
		nd = ibv_dev_netdev(net, dev->ibdev,
				    rdma_start_port(dev->ibdev));
		if (!nd)
			return 0;
		if (!ibv_netdev_addr(nd, family, &ss)) {
			dev_put(nd);
			return 0;
		}
		dev_put(nd);
		ibv_addr_set_port(&ss, port);
	}
	rdma_for_each_port(dev->ibdev, p) {
		if (!ibv_port_active(dev->ibdev, p))
			continue;
		info = ibv_info_alloc(dev, p, &ss);
		if (!info)
			return -ENOMEM;
		**tail = info;
		*tail = &info->next;
	}
	return 0;
}

/* Infos for the device of network device @nd, if it has one. */
static int ibv_add_netdev(struct net *net, struct net_device *nd,
			  const struct sockaddr *src, int family, __be16 port,
			  struct fi_info ***tail)
{
	struct ib_device *ibdev = ibv_ibdev_by_netdev(nd);
	struct ibv_dev *dev;
	int ret;

	if (!ibdev)
		return 0;
	dev = ibv_dev_get_by_ibdev(ibdev);
	ib_device_put(ibdev);
	if (!dev)
		return 0;
	ret = ibv_add_dev(net, dev, src, family, port, tail);
	ibv_dev_put(dev);
	return ret;
}

/**
 * ibv_getinfo() - the provider's getinfo callback
 * @version: API version
 * @hints: the complete hints of the core, addresses parsed
 * @flags: fi_getinfo() flags
 * @info: the infos
 *
 * Addresses are resolved in the calling task's network namespace.
 *
 * Context: process context, may sleep.
 * Return: 0; -ENODATA if no device fits (none reachable from the
 * namespace, no route to the destination there); -ENOMEM.
 */
int ibv_getinfo(u32 version, const struct fi_info *hints, u64 flags,
		struct fi_info **info)
{
	const struct sockaddr *src = hints->src_addr;
	const struct sockaddr *dst = hints->dest_addr;
	struct fi_info *head = NULL, **tail = &head;
	int family = ibv_family(hints->addr_format, hints);
	struct net *net = ibv_current_net();
	struct net_device *nd = NULL;
	struct ibv_dev **devs;
	int ret = 0, n, i;

	if (hints->ep_attr->type != FI_EP_UNSPEC &&
	    hints->ep_attr->type != FI_EP_MSG)
		return -ENODATA;
	if ((hints->caps & ~IBV_CAPS) ||
	    (family != AF_INET && family != AF_INET6))
		return -ENODATA;

	if (src && !ibv_addr_is_any(src)) {
		nd = ibv_netdev_by_addr(net, src);
		if (!nd)
			return -ENODATA;
		ret = ibv_add_netdev(net, nd, src, family, 0, &tail);
	} else if (dst && !ibv_addr_is_any(dst)) {
		nd = ibv_netdev_by_route(net, dst);
		if (!nd)
			return -ENODATA;
		ret = ibv_add_netdev(net, nd, NULL, family, 0, &tail);
	} else if (ibv_iface && *ibv_iface) {
		nd = dev_get_by_name(net, ibv_iface);
		if (!nd) {
			pr_warn_once("iface=%s: no such interface\n", ibv_iface);
			return -ENODATA;
		}
		ret = ibv_add_netdev(net, nd, NULL, family,
				     src ? ibv_addr_port(src) : 0, &tail);
	} else {
		n = ibv_dev_list(&devs);
		if (n < 0)
			return n;
		for (i = 0; i < n && !ret; i++)
			ret = ibv_add_dev(net, devs[i], NULL, family,
					  src ? ibv_addr_port(src) : 0, &tail);
		ibv_dev_list_put(devs, n);
	}
	if (nd)
		dev_put(nd);
	if (ret) {
		fi_freeinfo(head);
		return ret;
	}
	*info = head;
	return head ? 0 : -ENODATA;
}

/**
 * ibv_info_for_id() - the info of a connection request
 * @base: the listener's info
 * @id: the new connection's identifier
 *
 * A copy of @base with the request's device as domain and its addresses.
 *
 * Context: process context, may sleep.
 * Return: the info, or NULL if out of memory.
 */
struct fi_info *ibv_info_for_id(const struct fi_info *base,
				struct rdma_cm_id *id)
{
	struct sockaddr *src = (struct sockaddr *)&id->route.addr.src_addr;
	struct sockaddr *dst = (struct sockaddr *)&id->route.addr.dst_addr;
	size_t len = src->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
		     sizeof(struct sockaddr_in);
	struct fi_info *info = fi_dupinfo(base, GFP_KERNEL);

	if (!info)
		return NULL;
	kfree(info->src_addr);
	kfree(info->dest_addr);
	kfree(info->domain_attr->name);
	info->addr_format = src->sa_family == AF_INET6 ? FI_SOCKADDR_IN6 :
			    FI_SOCKADDR_IN;
	info->src_addr = kmemdup(src, len, GFP_KERNEL);
	info->dest_addr = kmemdup(dst, len, GFP_KERNEL);
	info->src_addrlen = len;
	info->dest_addrlen = len;
	if (id->port_num == rdma_start_port(id->device))
		info->domain_attr->name = kstrdup(dev_name(&id->device->dev),
						  GFP_KERNEL);
	else
		info->domain_attr->name = kasprintf(GFP_KERNEL, "%s:%u",
						    dev_name(&id->device->dev),
						    id->port_num);
	if (!info->src_addr || !info->dest_addr || !info->domain_attr->name) {
		fi_freeinfo(info);
		return NULL;
	}
	return info;
}
