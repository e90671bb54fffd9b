// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI ib_verbs provider: a test hook, built only with the KUnit suites
 * (CONFIG_KOFI_KUNIT_TEST, as in the debug kernel's build).
 *
 * Soft-RoCE raises none of the asynchronous events that fail a QP
 * (QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR), nor COMM_EST.  Writing an event's
 * name to the write-only parameter test_qp_event
 * (/sys/module/kofi_ib_verbs/parameters/test_qp_event) delivers it to
 * every endpoint that has a QP, through the QP's own event handler, with
 * interrupts off, as a device driver would: "QP_FATAL", "QP_REQ_ERR",
 * "QP_ACCESS_ERR", "COMM_EST", "SQ_DRAINED" or "LAST_WQE_REACHED".  The
 * write fails with -ENOENT if no endpoint has a QP.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/string.h>
#include "ibv.h"

static const struct {
	const char *name;
	enum ib_event_type event;
} ibv_test_events[] = {
	{ "QP_FATAL", IB_EVENT_QP_FATAL },
	{ "QP_REQ_ERR", IB_EVENT_QP_REQ_ERR },
	{ "QP_ACCESS_ERR", IB_EVENT_QP_ACCESS_ERR },
	{ "COMM_EST", IB_EVENT_COMM_EST },
	{ "SQ_DRAINED", IB_EVENT_SQ_DRAINED },
	{ "LAST_WQE_REACHED", IB_EVENT_QP_LAST_WQE_REACHED },
};

/*
 * Deliver @event to the endpoints of @dev; returns how many got it.
 * Context: process context; sleeps (the device, domain, endpoint locks).
 */
static int ibv_test_dev_event(struct ibv_dev *dev, enum ib_event_type event)
{
	struct ibv_domain *dom;
	struct ibv_ep *ep;
	int n = 0;

	mutex_lock(&dev->lock);
	list_for_each_entry(dom, &dev->domains, dev_node) {
		mutex_lock(&dom->lock);
		list_for_each_entry(ep, &dom->eps, dom_node) {
			mutex_lock(&ep->mutex);
			if (ibv_ep_test_qp_event(ep, event))
				n++;
			mutex_unlock(&ep->mutex);
		}
		mutex_unlock(&dom->lock);
	}
	mutex_unlock(&dev->lock);
	return n;
}

/* Write of the parameter.  Context: process context; sleeps. */
static int ibv_test_qp_event_set(const char *val, const struct kernel_param *kp)
{
	struct ibv_dev **devs;
	int i, n, found = 0;
	size_t e;

	for (e = 0; e < ARRAY_SIZE(ibv_test_events); e++)
		if (sysfs_streq(val, ibv_test_events[e].name))
			break;
	if (e == ARRAY_SIZE(ibv_test_events))
		return -EINVAL;
	n = ibv_dev_list(&devs);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		found += ibv_test_dev_event(devs[i], ibv_test_events[e].event);
	ibv_dev_list_put(devs, n);
	pr_info("test: %s delivered to %d endpoint(s)\n",
		ibv_test_events[e].name, found);
	return found ? 0 : -ENOENT;
}

static const struct kernel_param_ops ibv_test_qp_event_ops = {
	.set = ibv_test_qp_event_set,
};

module_param_cb(test_qp_event, &ibv_test_qp_event_ops, NULL, 0200);
MODULE_PARM_DESC(test_qp_event,
		 "test builds only: deliver a QP event (QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, LAST_WQE_REACHED) to every endpoint with a QP");
