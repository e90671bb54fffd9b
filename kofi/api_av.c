// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: dispatch of the address vector calls.
 *
 * What the calls do is described here for every AV; kofi/av.c is the
 * shared implementation providers use.
 */
#include <linux/module.h>
#include "kofi_core.h"

/* Flags fi_av_insert() and fi_av_insertsvc() accept (FI_MORE: a hint). */
#define KOFI_AV_INSERT_FLAGS	FI_MORE

/**
 * fi_av_open() - open an address vector
 * @domain: the domain; the AV serves endpoints of this domain
 * @attr: AV attributes: type, count, rx_ctx_bits; flags must be 0.
 *	FI_AV_UNSPEC and count 0 are replaced by the values used
 * @av: the new AV
 * @context: user context of the AV
 *
 * The AV takes addresses in the format of the info the domain was opened
 * with (FI_SOCKADDR: IPv4 and IPv6).  It grows beyond @attr->count as
 * needed, up to FI_AV_MAX_COUNT entries.  fi_close() frees it and every
 * entry; it answers -EBUSY while the AV is bound to an endpoint.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if @domain is not a domain, @attr or @av is NULL, or
 * @attr is bad (nonzero flags, unknown type, count above FI_AV_MAX_COUNT,
 * rx_ctx_bits above FI_AV_MAX_RX_CTX_BITS); -EBADF if @domain is closed;
 * -FI_ENOSYS if the provider has no AV; -ENOMEM; the provider's error.
 */
int fi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
	       struct fid_av **av, void *context)
{
	int ret;

	if (!KOFI_IS(domain, FI_CLASS_DOMAIN) || !attr || !av ||
	    attr->flags || attr->type > FI_AV_TABLE ||
	    attr->count > FI_AV_MAX_COUNT || attr->rx_ctx_bits < 0 ||
	    attr->rx_ctx_bits > FI_AV_MAX_RX_CTX_BITS)
		return -EINVAL;
	if (!domain->ops || !domain->ops->av_open)
		return -FI_ENOSYS;
	if (!kofi_fid_get(&domain->fid))
		return -EBADF;
	ret = domain->ops->av_open(domain, attr, av, context);
	return kofi_fid_opened(&domain->fid, ret,
			       ret ? NULL : KOFI_FID(*av), FI_CLASS_AV);
}
EXPORT_SYMBOL_GPL(fi_av_open);

/* The operations of @av, or NULL if @av is not an AV. */
static const struct fi_ops_av *kofi_av_ops_of(struct fid_av *av)
{
	return KOFI_IS(av, FI_CLASS_AV) ? av->ops : NULL;
}

/**
 * fi_av_insert() - insert addresses into an address vector
 * @av: the AV
 * @addr: @count socket addresses, one after the other, each taking
 *	sizeof(struct sockaddr_in) bytes in an FI_SOCKADDR_IN AV and
 *	sizeof(struct sockaddr_in6) bytes otherwise (in an FI_SOCKADDR AV an
 *	IPv4 address uses the first sizeof(struct sockaddr_in) of them)
 * @count: number of addresses
 * @fi_addr: @count handles written back; may be NULL for an FI_AV_TABLE AV
 * @flags: 0 or FI_MORE
 * @context: unused (no asynchronous inserts); pass NULL
 *
 * An address of the wrong family for the AV, or one that cannot be
 * inserted (the AV is full, no memory), gets FI_ADDR_NOTAVAIL in its
 * @fi_addr slot and does not count; the others are inserted.  An address
 * already in the AV gets its existing handle.  FI_AV_TABLE handles are
 * indices: inserts into an AV nothing was removed from get 0, 1, 2 ...
 * in order; the indices of removed entries are reused, lowest first.
 * FI_AV_MAP handles are opaque.
 *
 * Context: process context, may sleep.
 * Return: the number of addresses inserted (0 to @count); -EINVAL if @av
 * is not an AV, @addr is NULL, @fi_addr is NULL for an FI_AV_MAP AV,
 * @count exceeds INT_MAX or @flags are unknown; -FI_ENOSYS.
 */
int fi_av_insert(struct fid_av *av, const void *addr, size_t count,
		 fi_addr_t *fi_addr, u64 flags, void *context)
{
	const struct fi_ops_av *ops = kofi_av_ops_of(av);

	if (!KOFI_IS(av, FI_CLASS_AV) || !addr || count > INT_MAX ||
	    (flags & ~KOFI_AV_INSERT_FLAGS))
		return -EINVAL;
	if (!ops || !ops->insert)
		return -FI_ENOSYS;
	return ops->insert(av, addr, count, fi_addr, flags, context);
}
EXPORT_SYMBOL_GPL(fi_av_insert);

/**
 * fi_av_insertsvc() - insert the address of a node and service
 * @av: the AV
 * @node: numeric IPv4 or IPv6 address ("192.0.2.1", "2001:db8::1",
 *	"[2001:db8::1]")
 * @service: decimal port
 * @fi_addr: the handle written back; may be NULL for an FI_AV_TABLE AV
 * @flags: 0 or FI_MORE
 * @context: unused; pass NULL
 *
 * As fi_av_insert() of the one address @node and @service name.
 *
 * Context: process context, may sleep.
 * Return: 1 if inserted; 0 if not (an address of a family the AV does not
 * take, a full AV), with FI_ADDR_NOTAVAIL in *@fi_addr; -EINVAL if @av is
 * not an AV, @node or @service is NULL or cannot be parsed, or @flags are
 * unknown; -ENOMEM; -FI_ENOSYS.
 */
int fi_av_insertsvc(struct fid_av *av, const char *node, const char *service,
		    fi_addr_t *fi_addr, u64 flags, void *context)
{
	const struct fi_ops_av *ops = kofi_av_ops_of(av);

	if (!KOFI_IS(av, FI_CLASS_AV) || !node || !service ||
	    (flags & ~KOFI_AV_INSERT_FLAGS))
		return -EINVAL;
	if (!ops || !ops->insertsvc)
		return -FI_ENOSYS;
	return ops->insertsvc(av, node, service, fi_addr, flags, context);
}
EXPORT_SYMBOL_GPL(fi_av_insertsvc);

/**
 * fi_av_remove() - remove addresses from an address vector
 * @av: the AV
 * @fi_addr: @count handles
 * @count: number of handles
 * @flags: must be 0
 *
 * Every valid handle is removed, even if others are not.  Removal does not
 * wait for transfers: one already posted to a removed peer proceeds with
 * the address it was posted with - unless the provider keeps state per
 * peer and ends it (rxm ends its connection to the peer: what was in
 * flight to it completes with errors, see Documentation/rxm.rst).  Later
 * lookups of the handle fail with -ENOENT, and transfers to it fail (the
 * provider's page says with what).
 *
 * Context: process context, may sleep.
 * Return: 0 if every handle was removed; otherwise the error of the first
 * one that was not: -ENOENT for a handle whose entry was already removed,
 * -EINVAL for a value @av never handed out (FI_ADDR_NOTAVAIL among them);
 * -EINVAL if @av is not an AV, @fi_addr is NULL or @flags are nonzero;
 * -FI_ENOSYS.
 */
int fi_av_remove(struct fid_av *av, fi_addr_t *fi_addr, size_t count,
		 u64 flags)
{
	const struct fi_ops_av *ops = kofi_av_ops_of(av);

	if (!KOFI_IS(av, FI_CLASS_AV) || !fi_addr || flags)
		return -EINVAL;
	if (!ops || !ops->remove)
		return -FI_ENOSYS;
	return ops->remove(av, fi_addr, count, flags);
}
EXPORT_SYMBOL_GPL(fi_av_remove);

/**
 * fi_av_lookup() - the address behind a handle
 * @av: the AV
 * @fi_addr: the handle
 * @addr: buffer for the address (struct sockaddr_in or sockaddr_in6);
 *	may be NULL if *@addrlen is 0
 * @addrlen: in: bytes at @addr; out: the size of the address
 *
 * Copies at most *@addrlen bytes of the address and sets *@addrlen to its
 * full size, so a call with *@addrlen 0 asks for the size.  The address is
 * as inserted with sin_zero and sin6_flowinfo cleared.
 *
 * Context: process context; does not sleep.
 * Return: 0; -ETOOSMALL if the address did not fit (it was truncated);
 * -ENOENT if the entry of @fi_addr was removed; -EINVAL if @fi_addr was
 * never handed out by @av, @av is not an AV, or @addrlen is NULL (or @addr
 * NULL with *@addrlen nonzero); -FI_ENOSYS.
 */
int fi_av_lookup(struct fid_av *av, fi_addr_t fi_addr, void *addr,
		 size_t *addrlen)
{
	const struct fi_ops_av *ops = kofi_av_ops_of(av);

	if (!KOFI_IS(av, FI_CLASS_AV) || !addrlen || (!addr && *addrlen))
		return -EINVAL;
	if (!ops || !ops->lookup)
		return -FI_ENOSYS;
	return ops->lookup(av, fi_addr, addr, addrlen);
}
EXPORT_SYMBOL_GPL(fi_av_lookup);

/**
 * fi_av_straddr() - print an address in the AV's format
 * @av: the AV
 * @addr: a socket address the AV takes (need not be in it)
 * @buf: the output
 * @len: in: bytes at @buf; out: bytes the whole string needs, with its NUL
 *
 * Writes "192.0.2.1:7471" or "[2001:db8::1]:7471", truncated (and NUL
 * terminated) to *@len bytes.
 *
 * Context: any context; does not sleep.
 * Return: @buf; NULL if an argument is NULL, @av is not an AV or @addr is
 * not of a family the AV takes.
 */
const char *fi_av_straddr(struct fid_av *av, const void *addr, char *buf,
			  size_t *len)
{
	const struct fi_ops_av *ops = kofi_av_ops_of(av);

	if (!addr || !buf || !len || !ops || !ops->straddr)
		return NULL;
	return ops->straddr(av, addr, buf, len);
}
EXPORT_SYMBOL_GPL(fi_av_straddr);
