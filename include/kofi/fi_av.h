/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: kernel OpenFabrics Interface - address vectors.
 *
 * An address vector (AV) maps peer addresses to fi_addr_t handles, which
 * unconnected (FI_EP_RDM, FI_EP_DGRAM) endpoints take as the peer of a
 * transfer.  An AV is opened in a domain, filled with fi_av_insert() or
 * fi_av_insertsvc() and bound to endpoints of that domain with
 * fi_ep_bind().  Addresses are socket addresses in the domain's address
 * format: struct sockaddr_in (FI_SOCKADDR_IN), struct sockaddr_in6
 * (FI_SOCKADDR_IN6), or either (FI_SOCKADDR).  fi_domain.h includes this
 * header, as libfabric's declares the AV calls.
 */
#ifndef _KOFI_FI_AV_H
#define _KOFI_FI_AV_H

#include <kofi/fabric.h>

struct fid_domain;

/**
 * enum fi_av_type - how an AV hands out fi_addr_t values
 * @FI_AV_UNSPEC: the provider chooses; fi_av_open() writes back its choice
 * @FI_AV_MAP: opaque values, valid only as returned by fi_av_insert()
 * @FI_AV_TABLE: indices: the addresses of one fi_av_insert() call get
 *	consecutive values, the first insert into an empty AV starting at 0
 */
enum fi_av_type {
	FI_AV_UNSPEC,
	FI_AV_MAP,
	FI_AV_TABLE,
};

/* Most entries one AV holds; fi_av_attr.count may not exceed it. */
#define FI_AV_MAX_COUNT		BIT(20)

/* Largest fi_av_attr.rx_ctx_bits. */
#define FI_AV_MAX_RX_CTX_BITS	16

/**
 * struct fi_av_attr - address vector attributes for fi_av_open()
 * @type: FI_AV_MAP, FI_AV_TABLE or FI_AV_UNSPEC (replaced by the type
 *	chosen)
 * @rx_ctx_bits: high bits of an fi_addr_t naming a receive context of
 *	the peer (see fi_rx_addr()), at most FI_AV_MAX_RX_CTX_BITS
 * @count: entries expected; a hint, the AV grows beyond it up to
 *	FI_AV_MAX_COUNT; 0 for the provider's default (replaced by it)
 * @flags: must be 0
 */
struct fi_av_attr {
	enum fi_av_type type;
	int rx_ctx_bits;
	size_t count;
	u64 flags;
};

struct fid_av;

/**
 * struct fi_ops_av - address vector operations
 * @insert: see fi_av_insert()
 * @insertsvc: see fi_av_insertsvc()
 * @remove: see fi_av_remove()
 * @lookup: see fi_av_lookup()
 * @straddr: see fi_av_straddr()
 *
 * kofi_av_open_generic() is the shared implementation; providers with
 * their own AV implement every operation.
 */
struct fi_ops_av {
	int (*insert)(struct fid_av *av, const void *addr, size_t count,
		      fi_addr_t *fi_addr, u64 flags, void *context);
	int (*insertsvc)(struct fid_av *av, const char *node,
			 const char *service, fi_addr_t *fi_addr, u64 flags,
			 void *context);
	int (*remove)(struct fid_av *av, fi_addr_t *fi_addr, size_t count,
		      u64 flags);
	int (*lookup)(struct fid_av *av, fi_addr_t fi_addr, void *addr,
		      size_t *addrlen);
	const char *(*straddr)(struct fid_av *av, const void *addr,
			       char *buf, size_t *len);
};

/**
 * struct fid_av - an open address vector
 * @fid: object identity, class FI_CLASS_AV
 * @ops: address vector operations
 */
struct fid_av {
	struct fid fid;
	const struct fi_ops_av *ops;
};

/**
 * fi_rx_addr() - address one receive context of a peer
 * @fi_addr: the peer, as returned by fi_av_insert()
 * @rx_index: index of the receive context
 * @rx_ctx_bits: the AV's fi_av_attr.rx_ctx_bits
 *
 * Puts @rx_index into the top @rx_ctx_bits bits of @fi_addr.  An
 * @rx_ctx_bits outside 1..FI_AV_MAX_RX_CTX_BITS (no AV accepts one)
 * leaves @fi_addr as it is.
 *
 * Context: any context.
 * Return: the fi_addr_t of receive context @rx_index of the peer.
 */
static inline fi_addr_t fi_rx_addr(fi_addr_t fi_addr, int rx_index,
				   int rx_ctx_bits)
{
	if (rx_ctx_bits <= 0 || rx_ctx_bits > FI_AV_MAX_RX_CTX_BITS)
		return fi_addr;
	return ((u64)rx_index << (64 - rx_ctx_bits)) | fi_addr;
}

int fi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
	       struct fid_av **av, void *context);
int fi_av_insert(struct fid_av *av, const void *addr, size_t count,
		 fi_addr_t *fi_addr, u64 flags, void *context);
int fi_av_insertsvc(struct fid_av *av, const char *node, const char *service,
		    fi_addr_t *fi_addr, u64 flags, void *context);
int fi_av_remove(struct fid_av *av, fi_addr_t *fi_addr, size_t count,
		 u64 flags);
int fi_av_lookup(struct fid_av *av, fi_addr_t fi_addr, void *addr,
		 size_t *addrlen);
const char *fi_av_straddr(struct fid_av *av, const void *addr, char *buf,
			  size_t *len);

#endif /* _KOFI_FI_AV_H */
