// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: node/service strings to socket addresses.
 *
 * The kernel has no resolver: a node is a numeric IPv4 address
 * ("192.0.2.1") or IPv6 address ("2001:db8::1", optionally in brackets),
 * a service a decimal port number.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "kofi_core.h"

/**
 * kofi_addr_format_ok() - does address format @have satisfy @want?
 * @want: format asked for (FI_SOCKADDR accepts IPv4 and IPv6)
 * @have: format offered
 *
 * Context: any context.
 * Return: true if compatible.
 */
bool kofi_addr_format_ok(u32 want, u32 have)
{
	if (want == FI_FORMAT_UNSPEC || want == have)
		return true;
	return want == FI_SOCKADDR &&
	       (have == FI_SOCKADDR_IN || have == FI_SOCKADDR_IN6);
}

static int kofi_parse_port(const char *service, u16 *port)
{
	*port = 0;
	if (!service)
		return 0;
	return kstrtou16(service, 10, port) ? -EINVAL : 0;
}

/**
 * kofi_parse_addr() - parse @node and @service into a socket address
 * @node: numeric IPv4/IPv6 address, or NULL for the wildcard address
 * @service: decimal port, or NULL for port 0
 * @fmt_hint: the user's address format; with @node NULL, FI_SOCKADDR_IN6
 *	selects the IPv6 wildcard address, anything else IPv4
 * @addr: the new address, kmalloc'd
 * @addrlen: its length
 * @fmt: its format, FI_SOCKADDR_IN or FI_SOCKADDR_IN6
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if @node or @service cannot be parsed; -ENOMEM.
 */
int kofi_parse_addr(const char *node, const char *service, u32 fmt_hint,
		    void **addr, size_t *addrlen, u32 *fmt)
{
	struct sockaddr_in6 *sin6;
	struct sockaddr_in *sin;
	u8 a6[16] = {}, a4[4] = {};
	size_t len = 0;
	const char *end;
	bool v6;
	u16 port;
	int ret;

	ret = kofi_parse_port(service, &port);
	if (ret)
		return ret;

	if (node) {
		len = strlen(node);
		if (len && node[0] == '[') {
			if (len < 3 || node[len - 1] != ']')
				return -EINVAL;
			node++;
			len -= 2;
			if (in6_pton(node, len, a6, -1, &end) != 1 ||
			    end != node + len)
				return -EINVAL;
			v6 = true;
		} else if (in4_pton(node, len, a4, -1, &end) == 1 &&
			   end == node + len) {
			v6 = false;
		} else if (in6_pton(node, len, a6, -1, &end) == 1 &&
			   end == node + len) {
			v6 = true;
		} else {
			return -EINVAL;
		}
	} else {
		v6 = fmt_hint == FI_SOCKADDR_IN6;
	}

	if (v6) {
		sin6 = kzalloc(sizeof(*sin6), GFP_KERNEL);
		if (!sin6)
			return -ENOMEM;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		memcpy(&sin6->sin6_addr, a6, sizeof(a6));
		*addr = sin6;
		*addrlen = sizeof(*sin6);
		*fmt = FI_SOCKADDR_IN6;
	} else {
		sin = kzalloc(sizeof(*sin), GFP_KERNEL);
		if (!sin)
			return -ENOMEM;
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		memcpy(&sin->sin_addr, a4, sizeof(a4));
		*addr = sin;
		*addrlen = sizeof(*sin);
		*fmt = FI_SOCKADDR_IN;
	}
	return 0;
}
