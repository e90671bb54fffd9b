// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: the RDMA devices (ib_client).
 *
 * The provider registers an ib_client: every RDMA device gets a struct
 * ibv_dev when it appears; fi_getinfo() offers a domain per active port.
 * When a device goes away (hot unplug, driver unload, `rdma link delete`)
 * the remove callback kills every domain opened on it: their endpoints
 * are disconnected and report the loss on their EQ (error ENODEV), their
 * outstanding work completes in error, their QPs, CQs, MRs and the PD are
 * freed, and the callback returns.  The kOFI objects stay valid (calls on
 * them fail with -ENODEV) until the user closes them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include "ibv.h"

static LIST_HEAD(ibv_devs);
static DEFINE_MUTEX(ibv_devs_lock);	/* protects ibv_devs */

static struct ib_client ibv_client;

static void ibv_dev_release(struct kref *ref)
{
	kfree(container_of(ref, struct ibv_dev, ref));
}

/**
 * ibv_dev_put() - drop a reference on a device
 * @dev: the device
 *
 * Context: any context.
 */
void ibv_dev_put(struct ibv_dev *dev)
{
	kref_put(&dev->ref, ibv_dev_release);
}

static int ibv_add_one(struct ib_device *ibdev)
{
	struct ibv_dev *dev;

	/* RC queue pairs with rdma_cm: IB, RoCE and iWARP devices. */
	if (!rdma_cap_ib_cm(ibdev, rdma_start_port(ibdev)) &&
	    !rdma_cap_iw_cm(ibdev, rdma_start_port(ibdev)))
		return -EOPNOTSUPP;
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	strscpy(dev->name, dev_name(&ibdev->dev), sizeof(dev->name));
	kref_init(&dev->ref);
	mutex_init(&dev->lock);
	INIT_LIST_HEAD(&dev->domains);
	mutex_lock(&ibv_devs_lock);
	list_add_tail(&dev->node, &ibv_devs);
	mutex_unlock(&ibv_devs_lock);
	ib_set_client_data(ibdev, &ibv_client, dev);
	pr_debug("device %s added\n", dev->name);
	return 0;
}

static void ibv_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct ibv_dev *dev = client_data;
	struct ibv_domain *dom;

	mutex_lock(&ibv_devs_lock);
	list_del(&dev->node);
	mutex_unlock(&ibv_devs_lock);

	mutex_lock(&dev->lock);
	dev->removed = true;
	list_for_each_entry(dom, &dev->domains, dev_node)
		ibv_domain_kill(dom);
	mutex_unlock(&dev->lock);
	pr_info("device %s removed\n", dev->name);
	ibv_dev_put(dev);
}

static struct ib_client ibv_client = {
	.name = "kofi_ib_verbs",
	.add = ibv_add_one,
	.remove = ibv_remove_one,
};

/**
 * ibv_dev_get_by_name() - find a device by name
 * @name: device name ("rxe0")
 *
 * Context: process context, may sleep.
 * Return: the device, referenced (ibv_dev_put()), or NULL.
 */
struct ibv_dev *ibv_dev_get_by_name(const char *name)
{
	struct ibv_dev *dev, *found = NULL;

	mutex_lock(&ibv_devs_lock);
	list_for_each_entry(dev, &ibv_devs, node) {
		if (!strcmp(dev->name, name) &&
		    !strcmp(dev_name(&dev->ibdev->dev), name)) {
			kref_get(&dev->ref);
			found = dev;
			break;
		}
	}
	mutex_unlock(&ibv_devs_lock);
	return found;
}

/**
 * ibv_dev_get_by_ibdev() - find the provider's device of an ib_device
 * @ibdev: the device
 *
 * Context: process context, may sleep.
 * Return: the device, referenced, or NULL.
 */
struct ibv_dev *ibv_dev_get_by_ibdev(struct ib_device *ibdev)
{
	struct ibv_dev *dev, *found = NULL;

	mutex_lock(&ibv_devs_lock);
	list_for_each_entry(dev, &ibv_devs, node) {
		if (dev->ibdev == ibdev) {
			kref_get(&dev->ref);
			found = dev;
			break;
		}
	}
	mutex_unlock(&ibv_devs_lock);
	return found;
}

/**
 * ibv_dev_list() - snapshot of the devices, in the order they appeared
 * @devs: set to a kmalloc'd array of referenced devices
 *
 * Context: process context, may sleep.
 * Return: the number of devices (@devs NULL for 0), or -ENOMEM.
 */
int ibv_dev_list(struct ibv_dev ***devs)
{
	struct ibv_dev *dev, **v;
	int n = 0, i = 0;

	*devs = NULL;
	mutex_lock(&ibv_devs_lock);
	list_for_each_entry(dev, &ibv_devs, node)
		n++;
	if (!n) {
		mutex_unlock(&ibv_devs_lock);
		return 0;
	}
	v = kcalloc(n, sizeof(*v), GFP_KERNEL);
	if (!v) {
		mutex_unlock(&ibv_devs_lock);
		return -ENOMEM;
	}
	list_for_each_entry(dev, &ibv_devs, node) {
		kref_get(&dev->ref);
		v[i++] = dev;
	}
	mutex_unlock(&ibv_devs_lock);
	*devs = v;
	return n;
}

/**
 * ibv_dev_list_put() - release a snapshot of ibv_dev_list()
 * @devs: the array
 * @n: its entries
 *
 * Context: any context.
 */
void ibv_dev_list_put(struct ibv_dev **devs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		ibv_dev_put(devs[i]);
	kfree(devs);
}

/**
 * ibv_ibdev_by_netdev() - the RDMA device bound to a network device
 * @ndev: the network device (RoCE, iWARP, soft-RoCE)
 *
 * Context: any context (RCU read side allowed).
 * Return: the device, referenced with ib_device_put(), or NULL.
 */
struct ib_device *ibv_ibdev_by_netdev(struct net_device *ndev)
{
	return ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
}

/**
 * ibv_dev_netdev() - the network device of an RDMA device's port
 * @net: the network namespace to look in
 * @ibdev: the RDMA device
 * @port: the port (ignored for single-port devices)
 *
 * Finds the first network device of @net that is bound to @ibdev.  IB
 * devices without a bound netdev (IPoIB), and devices whose network
 * device is in another namespace, return NULL.
 *
 * Context: process context.
 * Return: the network device, held with dev_hold(), or NULL.
 */
struct net_device *ibv_dev_netdev(struct net *net, struct ib_device *ibdev,
				  u32 port)
{
	struct net_device *nd, *found = NULL;
	struct ib_device *d;

	rcu_read_lock();
	for_each_netdev_rcu(net, nd) {
		d = ibv_ibdev_by_netdev(nd);
		if (!d)
			continue;
		ib_device_put(d);
		if (d == ibdev) {
			dev_hold(nd);
			found = nd;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* Can an RC QP of @ibdev be created with @inline_size bytes inline? */
static int ibv_probe_inline(struct ib_device *ibdev, struct ib_pd *pd,
			    struct ib_cq *cq, u32 inline_size, u32 *got)
{
	struct ib_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = inline_size,
		},
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp;

	qp = ib_create_qp(pd, &ia);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	*got = ia.cap.max_inline_data;
	ib_destroy_qp(qp);
	return 0;
}

/**
 * ibv_dev_max_inline() - inline send bytes the device supports
 * @dev: the device
 *
 * ib_device_attr does not say how much data a QP can carry inline, so the
 * first call creates probe QPs asking for the inline_size parameter,
 * halving it until the device accepts, and remembers the result.
 *
 * Context: process context, may sleep.
 * Return: the inline size (0 if the device has no inline sends or is gone).
 */
u32 ibv_dev_max_inline(struct ibv_dev *dev)
{
	u32 want, got = 0;
	struct ib_pd *pd;
	struct ib_cq *cq;

	mutex_lock(&dev->lock);
	if (dev->inline_probed || dev->removed)
		goto out;
	pd = ib_alloc_pd(dev->ibdev, 0);
	if (IS_ERR(pd))
		goto out;
	cq = ib_alloc_cq(dev->ibdev, NULL, 2, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq)) {
		ib_dealloc_pd(pd);
		goto out;
	}
	for (want = min(ibv_inline_size, 4096U); want; want /= 2)
		if (!ibv_probe_inline(dev->ibdev, pd, cq, want, &got))
			break;
	if (!want)
		got = 0;
	ib_free_cq(cq);
	ib_dealloc_pd(pd);
	dev->max_inline = got;
	dev->inline_probed = true;
out:
	got = dev->max_inline;
	mutex_unlock(&dev->lock);
	return got;
}

/**
 * ibv_device_init() - register the ib_client
 *
 * The add callback runs for every device already present.
 *
 * Context: process context, may sleep.
 * Return: 0 or the error of ib_register_client().
 */
int ibv_device_init(void)
{
	return ib_register_client(&ibv_client);
}

/**
 * ibv_device_exit() - unregister the ib_client
 *
 * Runs the remove callback for every device.
 *
 * Context: process context, may sleep.
 */
void ibv_device_exit(void)
{
	ib_unregister_client(&ibv_client);
}
