/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: IPv4 and IPv6 socket addresses as providers keep and compare
 * them (FI_SOCKADDR_IN and FI_SOCKADDR_IN6 names and AV entries).
 */
#ifndef _KOFI_SOCKADDR_H
#define _KOFI_SOCKADDR_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <net/ipv6.h>

/**
 * union kofi_sockaddr - an IPv4 or IPv6 socket address
 * @sa: the family
 * @in: an IPv4 one
 * @in6: an IPv6 one
 */
union kofi_sockaddr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

/**
 * kofi_sockaddr_len() - the length of an IPv4 or IPv6 socket address
 * @sa: the address, of @len readable bytes, or NULL
 * @len: its length as given
 *
 * Context: any context.
 * Return: sizeof(struct sockaddr_in) or sizeof(struct sockaddr_in6); 0
 * for NULL, another family or a @len too short for the family's struct.
 */
static inline size_t kofi_sockaddr_len(const struct sockaddr *sa, size_t len)
{
	if (!sa || len < sizeof(sa->sa_family))
		return 0;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in))
		return sizeof(struct sockaddr_in);
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6))
		return sizeof(struct sockaddr_in6);
	return 0;
}

/**
 * kofi_sockaddr_port() - the port of an address
 * @a: an AF_INET or AF_INET6 address
 *
 * Context: any context.
 * Return: the port, in host byte order.
 */
static inline u16 kofi_sockaddr_port(const union kofi_sockaddr *a)
{
	return ntohs(a->sa.sa_family == AF_INET6 ? a->in6.sin6_port :
		     a->in.sin_port);
}

/**
 * kofi_sockaddr_set_port() - set the port of an address
 * @a: an AF_INET or AF_INET6 address
 * @port: the port, in host byte order
 *
 * Context: any context.
 */
static inline void kofi_sockaddr_set_port(union kofi_sockaddr *a, u16 port)
{
	if (a->sa.sa_family == AF_INET6)
		a->in6.sin6_port = htons(port);
	else
		a->in.sin_port = htons(port);
}

/**
 * kofi_sockaddr_equal() - do two addresses name the same endpoint?
 * @a: an AF_INET or AF_INET6 address
 * @b: another
 *
 * Family, address and port compare; for IPv6 the scope id too (a
 * link-local address means nothing without it); sin_zero and the flow
 * label do not.
 *
 * Context: any context.
 * Return: true if they are the same.
 */
static inline bool kofi_sockaddr_equal(const union kofi_sockaddr *a,
				       const union kofi_sockaddr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->in.sin_addr.s_addr == b->in.sin_addr.s_addr &&
		       a->in.sin_port == b->in.sin_port;
	return ipv6_addr_equal(&a->in6.sin6_addr, &b->in6.sin6_addr) &&
	       a->in6.sin6_port == b->in6.sin6_port &&
	       a->in6.sin6_scope_id == b->in6.sin6_scope_id;
}

/**
 * kofi_sockaddr_cmp() - order of two addresses, as libfabric orders them
 * @a: an AF_INET or AF_INET6 address
 * @b: another
 *
 * IPv4 before IPv6; then the address as big-endian bytes, then the port,
 * big-endian (libfabric's ofi_addr_cmp(), which decides simultaneous
 * connects between rxm peers).
 *
 * Context: any context.
 * Return: <0, 0 or >0 as @a is lower than, equal to or higher than @b.
 */
static inline int kofi_sockaddr_cmp(const union kofi_sockaddr *a,
				    const union kofi_sockaddr *b)
{
	u16 pa = kofi_sockaddr_port(a), pb = kofi_sockaddr_port(b);
	int cmp;

	if (a->sa.sa_family != b->sa.sa_family)
		return a->sa.sa_family == AF_INET ? -1 : 1;
	if (a->sa.sa_family == AF_INET)
		cmp = memcmp(&a->in.sin_addr, &b->in.sin_addr,
			     sizeof(a->in.sin_addr));
	else
		cmp = memcmp(&a->in6.sin6_addr, &b->in6.sin6_addr,
			     sizeof(a->in6.sin6_addr));
	if (cmp)
		return cmp < 0 ? -1 : 1;
	if (pa != pb)
		return pa < pb ? -1 : 1;
	return 0;
}

#endif /* _KOFI_SOCKADDR_H */
