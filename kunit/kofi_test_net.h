/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI KUnit: what the suites over loopback sockets share.
 */
#ifndef _KOFI_TEST_NET_H
#define _KOFI_TEST_NET_H

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include <kunit/test.h>

/**
 * kofi_test_loopback_up() - suite_init of the suites over 127.0.0.1
 * @suite: the suite
 *
 * Built-in suites run during boot, before anything has brought the
 * loopback device up: do it, so that 127.0.0.1 exists.
 *
 * Context: process context, may sleep.
 * Return: 0 or the error of dev_change_flags().
 */
static inline int kofi_test_loopback_up(struct kunit_suite *suite)
{
	struct net_device *lo = init_net.loopback_dev;
	int ret = 0;

	rtnl_lock();
	if (!(lo->flags & IFF_UP))
		ret = dev_change_flags(lo, lo->flags | IFF_UP, NULL);
	rtnl_unlock();
	return ret;
}

#endif /* _KOFI_TEST_NET_H */
