// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: address vectors - fi_av_open() and its attributes, both AV
 * types with IPv4 and IPv6 addresses, insert, insertsvc, lookup, straddr,
 * remove and reinsert, bad input, growth beyond the count, the data-path
 * lookups of kofi/av.c in atomic context, binding to an endpoint, and the
 * source address fi_cq_readfrom() reports.
 */
#include <linux/in.h>
#include <linux/completion.h>
#include <linux/in6.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include "kofi_test.h"

static int ka_suite_init(struct kunit_suite *suite)
{
	return ktp_register_all();
}

static void ka_suite_exit(struct kunit_suite *suite)
{
	ktp_deregister_all();
}

static void ka_exit(struct kunit *test)
{
	ktp_free_objects();
}

static struct sockaddr_in ka_in(u32 host, u16 port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(host),
	};

	return sin;
}

/* 2001:db8::@last, port @port */
static struct sockaddr_in6 ka_in6(u16 last, u16 port)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};

	sin6.sin6_addr.s6_addr16[0] = htons(0x2001);
	sin6.sin6_addr.s6_addr16[1] = htons(0xdb8);
	sin6.sin6_addr.s6_addr16[7] = htons(last);
	return sin6;
}

/* Open the stack and an AV of @type whose domain takes @fmt addresses. */
static struct fid_av *ka_open(struct kunit *test, struct ktp_stack *s,
			      bool with_ep, enum fi_av_type type, u32 fmt)
{
	struct fi_av_attr attr = { .type = type };
	struct ktp_domain *kdom;
	struct fid_av *av;

	ktp_stack_open(test, s, with_ep);
	kdom = container_of(s->domain, struct ktp_domain, domain);
	/* the test provider's AVs take the format its domain records */
	kdom->addr_format = fmt;
	KUNIT_ASSERT_EQ(test, fi_av_open(s->domain, &attr, &av, s), 0);
	KUNIT_ASSERT_NOT_NULL(test, av);
	KUNIT_EXPECT_EQ(test, av->fid.fclass, (u32)FI_CLASS_AV);
	KUNIT_EXPECT_PTR_EQ(test, av->fid.context, (void *)s);
	KUNIT_EXPECT_EQ(test, attr.type, type);
	return av;
}

static void ka_close(struct kunit *test, struct ktp_stack *s,
		     struct fid_av *av)
{
	if (s->ep) {
		KUNIT_EXPECT_EQ(test, fi_close(&s->ep->fid), 0);
		s->ep = NULL;
	}
	KUNIT_EXPECT_EQ(test, fi_close(&av->fid), 0);
	ktp_stack_close(test, s);
}

static void ka_expect_in(struct kunit *test, struct fid_av *av,
			 fi_addr_t fi_addr, const struct sockaddr_in *want)
{
	struct sockaddr_in got;
	size_t len = sizeof(got);

	memset(&got, 0xa5, sizeof(got));
	KUNIT_ASSERT_EQ(test, fi_av_lookup(av, fi_addr, &got, &len), 0);
	KUNIT_EXPECT_EQ(test, len, sizeof(got));
	KUNIT_EXPECT_EQ(test, got.sin_family, (sa_family_t)AF_INET);
	KUNIT_EXPECT_EQ(test, ntohs(got.sin_port), ntohs(want->sin_port));
	KUNIT_EXPECT_EQ(test, ntohl(got.sin_addr.s_addr),
			ntohl(want->sin_addr.s_addr));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(got.sin_zero, 0,
					    sizeof(got.sin_zero)));
}

static void ka_expect_in6(struct kunit *test, struct fid_av *av,
			  fi_addr_t fi_addr, const struct sockaddr_in6 *want)
{
	struct sockaddr_in6 got;
	size_t len = sizeof(got);

	memset(&got, 0xa5, sizeof(got));
	KUNIT_ASSERT_EQ(test, fi_av_lookup(av, fi_addr, &got, &len), 0);
	KUNIT_EXPECT_EQ(test, len, sizeof(got));
	KUNIT_EXPECT_EQ(test, got.sin6_family, (sa_family_t)AF_INET6);
	KUNIT_EXPECT_EQ(test, ntohs(got.sin6_port), ntohs(want->sin6_port));
	KUNIT_EXPECT_EQ(test, ntohl(got.sin6_flowinfo), 0U);
	KUNIT_EXPECT_EQ(test, got.sin6_scope_id, want->sin6_scope_id);
	KUNIT_EXPECT_EQ(test, memcmp(&got.sin6_addr, &want->sin6_addr,
				     sizeof(got.sin6_addr)), 0);
}

/* The reverse lookup, taking any pointer to a socket address. */
static int ka_rev(struct fid_av *av, const void *addr, size_t len,
		  fi_addr_t *fi_addr)
{
	return kofi_av_lookup_fi_addr(av, addr, len, fi_addr);
}

static void ka_open_test(struct kunit *test)
{
	struct fi_av_attr attr = {};
	struct ktp_stack s;
	struct fid_av *av;
	char buf[32];

	ktp_stack_open(test, &s, false);
	KUNIT_EXPECT_EQ(test, fi_av_open(NULL, &attr, &av, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_open(s.domain, NULL, &av, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_open(s.domain, &attr, NULL, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_open((struct fid_domain *)s.cq, &attr,
					 &av, NULL), -EINVAL);
	attr.flags = 1;
	KUNIT_EXPECT_EQ(test, fi_av_open(s.domain, &attr, &av, NULL), -EINVAL);
	attr.flags = 0;
	attr.type = FI_AV_TABLE + 1;
	KUNIT_EXPECT_EQ(test, fi_av_open(s.domain, &attr, &av, NULL), -EINVAL);
	attr.type = FI_AV_UNSPEC;
	attr.count = FI_AV_MAX_COUNT + 1;
	KUNIT_EXPECT_EQ(test, fi_av_open(s.domain, &attr, &av, NULL), -EINVAL);
	attr.count = 0;
	attr.rx_ctx_bits = FI_AV_MAX_RX_CTX_BITS + 1;
	KUNIT_EXPECT_EQ(test, fi_av_open(s.domain, &attr, &av, NULL), -EINVAL);
	attr.rx_ctx_bits = -1;
	KUNIT_EXPECT_EQ(test, fi_av_open(s.domain, &attr, &av, NULL), -EINVAL);
	attr.rx_ctx_bits = 0;

	/* FI_AV_UNSPEC and count 0 come back as the values used */
	KUNIT_ASSERT_EQ(test, fi_av_open(s.domain, &attr, &av, NULL), 0);
	KUNIT_EXPECT_EQ(test, attr.type, FI_AV_TABLE);
	KUNIT_EXPECT_GT(test, attr.count, (size_t)0);
	/* the AV holds its domain */
	KUNIT_EXPECT_EQ(test, fi_close(&s.domain->fid), -EBUSY);
	KUNIT_EXPECT_STREQ(test, fi_tostr(buf, sizeof(buf), &attr.type,
					  FI_TYPE_AV_TYPE), "FI_AV_TABLE");
	attr.type = FI_AV_MAP;
	KUNIT_EXPECT_STREQ(test, fi_tostr(buf, sizeof(buf), &attr.type,
					  FI_TYPE_AV_TYPE), "FI_AV_MAP");
	KUNIT_EXPECT_EQ(test, fi_close(&av->fid), 0);

	/* an AV needs an address format the shared AV knows */
	KUNIT_EXPECT_EQ(test, kofi_av_open_generic(s.domain, &attr,
						   FI_FORMAT_UNSPEC, &av,
						   NULL), -EINVAL);
	ktp_stack_close(test, &s);
}

/* FI_AV_TABLE with IPv4: indices, lookup, straddr, remove, reinsert. */
static void ka_table_ipv4_test(struct kunit *test)
{
	struct sockaddr_in a[4], got;
	fi_addr_t fa[4], x;
	struct ktp_stack s;
	struct fid_av *av;
	char buf[32];
	size_t len;
	int i;

	av = ka_open(test, &s, false, FI_AV_TABLE, FI_SOCKADDR_IN);
	for (i = 0; i < 4; i++) {
		a[i] = ka_in(0xc0000201 + i, 7471 + i);	/* 192.0.2.1 + i */
		/* garbage in sin_zero is not part of the address */
		memset(a[i].sin_zero, i + 1, sizeof(a[i].sin_zero));
	}
	KUNIT_ASSERT_EQ(test, fi_av_insert(av, a, 3, fa, 0, NULL), 3);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, fa[i], (fi_addr_t)i);
		ka_expect_in(test, av, fa[i], &a[i]);
	}
	/* FI_AV_TABLE users may leave out fi_addr: the next index is 3 */
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, &a[3], 1, NULL, FI_MORE, NULL),
			1);
	ka_expect_in(test, av, 3, &a[3]);
	/* an address already present keeps its index */
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, &a[1], 1, &x, 0, NULL), 1);
	KUNIT_EXPECT_EQ(test, x, (fi_addr_t)1);

	/* lookup into a short buffer: truncated, the real size returned */
	memset(&got, 0, sizeof(got));
	len = 4;
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, 2, &got, &len), -ETOOSMALL);
	KUNIT_EXPECT_EQ(test, len, sizeof(struct sockaddr_in));
	KUNIT_EXPECT_EQ(test, got.sin_family, (sa_family_t)AF_INET);
	KUNIT_EXPECT_EQ(test, ntohs(got.sin_port), ntohs(a[2].sin_port));
	KUNIT_EXPECT_EQ(test, ntohl(got.sin_addr.s_addr), 0U);
	len = 0;
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, 2, NULL, &len), -ETOOSMALL);
	KUNIT_EXPECT_EQ(test, len, sizeof(struct sockaddr_in));

	/* straddr */
	len = sizeof(buf);
	KUNIT_EXPECT_PTR_EQ(test, fi_av_straddr(av, &a[0], buf, &len),
			    (const char *)buf);
	KUNIT_EXPECT_STREQ(test, buf, "192.0.2.1:7471");
	KUNIT_EXPECT_EQ(test, len, strlen("192.0.2.1:7471") + 1);
	len = 5;
	KUNIT_EXPECT_PTR_EQ(test, fi_av_straddr(av, &a[0], buf, &len),
			    (const char *)buf);
	KUNIT_EXPECT_STREQ(test, buf, "192.");
	KUNIT_EXPECT_EQ(test, len, strlen("192.0.2.1:7471") + 1);

	/* remove: the index is gone, others stay */
	x = 1;
	KUNIT_EXPECT_EQ(test, fi_av_remove(av, &x, 1, 0), 0);
	len = sizeof(got);
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, 1, &got, &len), -ENOENT);
	ka_expect_in(test, av, 0, &a[0]);
	ka_expect_in(test, av, 2, &a[2]);
	/* double remove */
	KUNIT_EXPECT_EQ(test, fi_av_remove(av, &x, 1, 0), -ENOENT);
	/* never handed out */
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, 4, &got, &len), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, 1ULL << 40, &got, &len),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, FI_ADDR_NOTAVAIL, &got, &len),
			-EINVAL);
	x = 77;
	KUNIT_EXPECT_EQ(test, fi_av_remove(av, &x, 1, 0), -EINVAL);

	/* reinsert: the lowest free index is reused */
	a[1].sin_port = htons(9999);
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, &a[1], 1, &x, 0, NULL), 1);
	KUNIT_EXPECT_EQ(test, x, (fi_addr_t)1);
	ka_expect_in(test, av, 1, &a[1]);
	/* and the next one goes to the end */
	a[0].sin_port = htons(1);
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, &a[0], 1, &x, 0, NULL), 1);
	KUNIT_EXPECT_EQ(test, x, (fi_addr_t)4);
	ka_close(test, &s, av);
}

/* FI_AV_MAP with IPv6: opaque handles that do not come back to life. */
static void ka_map_ipv6_test(struct kunit *test)
{
	struct sockaddr_in6 a[2], got;
	struct sockaddr_in sin;
	fi_addr_t fa[2], x, old;
	struct ktp_stack s;
	struct fid_av *av;
	char buf[64];
	size_t len;

	av = ka_open(test, &s, false, FI_AV_MAP, FI_SOCKADDR_IN6);
	a[0] = ka_in6(1, 7471);
	a[1] = ka_in6(2, 7472);
	a[1].sin6_scope_id = 3;
	a[1].sin6_flowinfo = htonl(0x12345);	/* not part of the address */
	KUNIT_ASSERT_EQ(test, fi_av_insert(av, a, 2, fa, 0, NULL), 2);
	KUNIT_EXPECT_NE(test, fa[0], fa[1]);
	KUNIT_EXPECT_NE(test, fa[0], FI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_NE(test, fa[1], FI_ADDR_NOTAVAIL);
	ka_expect_in6(test, av, fa[0], &a[0]);
	ka_expect_in6(test, av, fa[1], &a[1]);

	len = sizeof(buf);
	KUNIT_EXPECT_NOT_NULL(test, fi_av_straddr(av, &a[0], buf, &len));
	KUNIT_EXPECT_STREQ(test, buf, "[2001:db8::1]:7471");

	/* remove and reinsert the same address: a new handle */
	old = fa[0];
	KUNIT_EXPECT_EQ(test, fi_av_remove(av, &old, 1, 0), 0);
	len = sizeof(got);
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, old, &got, &len), -ENOENT);
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, &a[0], 1, &x, 0, NULL), 1);
	KUNIT_EXPECT_NE(test, x, old);
	ka_expect_in6(test, av, x, &a[0]);
	/* the old handle names nothing, though its slot is in use again */
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, old, &got, &len), -ENOENT);
	KUNIT_EXPECT_EQ(test, fi_av_remove(av, &old, 1, 0), -ENOENT);

	/* forged values are refused, never followed */
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, 0, &got, &len), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, 0xdeadbeefdeadbeefULL, &got,
					   &len), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, x + 1000, &got, &len),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, (unsigned long)av, &got, &len),
			-EINVAL);

	/* insertsvc */
	KUNIT_EXPECT_EQ(test, fi_av_insertsvc(av, "2001:db8::5", "80", &x, 0,
					      NULL), 1);
	a[0] = ka_in6(5, 80);
	ka_expect_in6(test, av, x, &a[0]);
	KUNIT_EXPECT_EQ(test, fi_av_insertsvc(av, "[2001:db8::6]", "81", &x,
					      0, NULL), 1);
	a[0] = ka_in6(6, 81);
	ka_expect_in6(test, av, x, &a[0]);

	/* IPv4 does not go into an IPv6 AV */
	sin = ka_in(0xc0000201, 1);
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, &sin, 1, &x, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, x, FI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_EQ(test, fi_av_insertsvc(av, "192.0.2.1", "1", &x, 0,
					      NULL), 0);
	KUNIT_EXPECT_EQ(test, x, FI_ADDR_NOTAVAIL);
	len = sizeof(buf);
	KUNIT_EXPECT_NULL(test, fi_av_straddr(av, &sin, buf, &len));
	ka_close(test, &s, av);
}

/* FI_SOCKADDR: both families, each entry sizeof(struct sockaddr_in6). */
static void ka_sockaddr_test(struct kunit *test)
{
	struct sockaddr_in6 v[3] = {};
	struct sockaddr_in sin;
	struct ktp_stack s;
	struct fid_av *av;
	fi_addr_t fa[3];

	av = ka_open(test, &s, false, FI_AV_TABLE, FI_SOCKADDR);
	sin = ka_in(0x7f000001, 10);
	memcpy(&v[0], &sin, sizeof(sin));
	v[1] = ka_in6(1, 11);
	v[2].sin6_family = AF_UNIX;
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, v, 3, fa, 0, NULL), 2);
	KUNIT_EXPECT_EQ(test, fa[0], (fi_addr_t)0);
	KUNIT_EXPECT_EQ(test, fa[1], (fi_addr_t)1);
	KUNIT_EXPECT_EQ(test, fa[2], FI_ADDR_NOTAVAIL);
	ka_expect_in(test, av, 0, &sin);
	ka_expect_in6(test, av, 1, &v[1]);
	/* one bare struct sockaddr_in */
	sin = ka_in(0x7f000002, 12);
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, &sin, 1, fa, 0, NULL), 1);
	ka_expect_in(test, av, fa[0], &sin);
	KUNIT_EXPECT_EQ(test, fi_av_insertsvc(av, "127.0.0.3", "13", fa, 0,
					      NULL), 1);
	KUNIT_EXPECT_EQ(test, fi_av_insertsvc(av, "::1", "14", fa + 1, 0,
					      NULL), 1);
	KUNIT_EXPECT_EQ(test, fa[0], (fi_addr_t)3);
	KUNIT_EXPECT_EQ(test, fa[1], (fi_addr_t)4);
	ka_close(test, &s, av);
}

static void ka_bad_input_test(struct kunit *test)
{
	struct sockaddr_in a[3], got;
	struct sockaddr_in6 sin6;
	fi_addr_t fa[3];
	struct ktp_stack s;
	struct fid_av *av, *map;
	struct fi_av_attr attr = { .type = FI_AV_MAP };
	char buf[32];
	size_t len = sizeof(got);

	av = ka_open(test, &s, false, FI_AV_TABLE, FI_SOCKADDR_IN);
	a[0] = ka_in(0x0a000001, 1);
	a[1] = ka_in(0x0a000002, 2);
	a[2] = ka_in(0x0a000003, 3);

	/* not an AV */
	KUNIT_EXPECT_EQ(test, fi_av_insert(NULL, a, 1, fa, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_insert((struct fid_av *)s.cq, a, 1, fa, 0,
					   NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_insertsvc(NULL, "10.0.0.1", "1", fa, 0,
					      NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_remove(NULL, fa, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_lookup(NULL, 0, &got, &len), -EINVAL);
	KUNIT_EXPECT_NULL(test, fi_av_straddr(NULL, a, buf, &len));
	/* NULL arguments, unknown flags */
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, NULL, 1, fa, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, a, 1, fa, FI_SOURCE, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, a, (size_t)INT_MAX + 1, fa, 0,
					   NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_insertsvc(av, NULL, "1", fa, 0, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_insertsvc(av, "10.0.0.1", NULL, fa, 0,
					      NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_insertsvc(av, "node.example", "1", fa, 0,
					      NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_insertsvc(av, "10.0.0.1", "http", fa, 0,
					      NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_remove(av, NULL, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_remove(av, fa, 1, FI_MORE), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, 0, &got, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, 0, NULL, &len), -EINVAL);
	KUNIT_EXPECT_NULL(test, fi_av_straddr(av, NULL, buf, &len));
	KUNIT_EXPECT_NULL(test, fi_av_straddr(av, a, NULL, &len));
	KUNIT_EXPECT_NULL(test, fi_av_straddr(av, a, buf, NULL));
	/* nothing was inserted by any of them */
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, 0, &got, &len), -EINVAL);

	/* per-entry failures: wrong family in the middle of a batch */
	a[1].sin_family = AF_INET6;
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, a, 3, fa, 0, NULL), 2);
	KUNIT_EXPECT_EQ(test, fa[0], (fi_addr_t)0);
	KUNIT_EXPECT_EQ(test, fa[1], FI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_EQ(test, fa[2], (fi_addr_t)1);
	/* an IPv6 address into an IPv4 AV */
	sin6 = ka_in6(1, 1);
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, &sin6, 1, fa, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, fa[0], FI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_EQ(test, fi_av_insertsvc(av, "::1", "1", fa, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, fa[0], FI_ADDR_NOTAVAIL);
	/* count 0 inserts nothing */
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, a, 0, fa, 0, NULL), 0);

	/* remove of a mixed list removes the valid ones, reports the rest */
	fa[0] = 0;
	fa[1] = 12345;
	fa[2] = 1;
	KUNIT_EXPECT_EQ(test, fi_av_remove(av, fa, 3, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, 0, &got, &len), -ENOENT);
	KUNIT_EXPECT_EQ(test, fi_av_lookup(av, 1, &got, &len), -ENOENT);
	KUNIT_EXPECT_EQ(test, fi_av_remove(av, fa, 1, 0), -ENOENT);

	/* FI_AV_MAP handles cannot be left out */
	KUNIT_ASSERT_EQ(test, fi_av_open(s.domain, &attr, &map, NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_av_insert(map, a, 1, NULL, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_av_insertsvc(map, "10.0.0.1", "1", NULL, 0,
					      NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_close(&map->fid), 0);
	ka_close(test, &s, av);
}

/* The AV grows well beyond attr->count; close frees every entry. */
static void ka_growth_test(struct kunit *test)
{
	struct fi_av_attr attr = { .type = FI_AV_MAP, .count = 4 };
	const int n = 2000;
	struct sockaddr_in *a;
	struct ktp_stack s;
	struct fid_av *av;
	fi_addr_t *fa, x;
	int i;

	a = kunit_kcalloc(test, n, sizeof(*a), GFP_KERNEL);
	fa = kunit_kcalloc(test, n, sizeof(*fa), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, fa);
	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_av_open(s.domain, &attr, &av, NULL), 0);
	KUNIT_EXPECT_EQ(test, attr.count, (size_t)4);
	for (i = 0; i < n; i++)
		a[i] = ka_in(0x0a000000 + i / 100, 1000 + i);
	KUNIT_ASSERT_EQ(test, fi_av_insert(av, a, n, fa, 0, NULL), n);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, ka_rev(av, &a[i], sizeof(a[i]), &x), 0);
		KUNIT_ASSERT_EQ(test, x, fa[i]);
	}
	ka_expect_in(test, av, fa[0], &a[0]);
	ka_expect_in(test, av, fa[n - 1], &a[n - 1]);
	/* remove half, then close with the rest still inserted */
	KUNIT_EXPECT_EQ(test, fi_av_remove(av, fa, n / 2, 0), 0);
	KUNIT_EXPECT_EQ(test, ka_rev(av, &a[0], sizeof(a[0]), &x), -ENOENT);
	KUNIT_EXPECT_EQ(test, fi_av_insert(av, a, n / 2, fa, 0, NULL), n / 2);
	KUNIT_EXPECT_EQ(test, fi_close(&av->fid), 0);
	ktp_stack_close(test, &s);
}

/* The reverse lookup providers use for FI_SOURCE. */
static void ka_reverse_test(struct kunit *test)
{
	struct sockaddr_in6 sin6 = ka_in6(9, 9);
	struct sockaddr_in sin = ka_in(0xc0000209, 9);
	struct sockaddr_storage ss;
	struct ktp_stack s;
	struct fid_av *av;
	fi_addr_t fa, x;

	av = ka_open(test, &s, false, FI_AV_MAP, FI_SOCKADDR_IN);
	KUNIT_ASSERT_EQ(test, fi_av_insert(av, &sin, 1, &fa, 0, NULL), 1);
	KUNIT_EXPECT_EQ(test, ka_rev(av, &sin, sizeof(sin), &x), 0);
	KUNIT_EXPECT_EQ(test, x, fa);
	/* sin_zero does not matter; a sockaddr_storage length is fine */
	memset(&ss, 0x5a, sizeof(ss));
	memcpy(&ss, &sin, sizeof(sin));
	memset(((struct sockaddr_in *)&ss)->sin_zero, 7, 8);
	KUNIT_EXPECT_EQ(test, ka_rev(av, &ss, sizeof(ss), &x), 0);
	KUNIT_EXPECT_EQ(test, x, fa);
	/* another port is another address */
	sin.sin_port = htons(10);
	KUNIT_EXPECT_EQ(test, ka_rev(av, &sin, sizeof(sin), &x), -ENOENT);
	KUNIT_EXPECT_EQ(test, x, FI_ADDR_NOTAVAIL);
	sin.sin_port = htons(9);
	/* wrong length, wrong family, NULL */
	x = 0;
	KUNIT_EXPECT_EQ(test, ka_rev(av, &sin, sizeof(sin) - 1, &x), -EINVAL);
	KUNIT_EXPECT_EQ(test, x, FI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_EQ(test, ka_rev(av, &sin6, sizeof(sin6), &x), -EINVAL);
	KUNIT_EXPECT_EQ(test, kofi_av_lookup_fi_addr(av, NULL, sizeof(sin),
						     &x), -EINVAL);
	KUNIT_EXPECT_EQ(test, ka_rev(NULL, &sin, sizeof(sin), &x), -EINVAL);
	KUNIT_EXPECT_EQ(test, ka_rev(av, &sin, sizeof(sin), NULL), -EINVAL);
	/* the forward helper */
	KUNIT_EXPECT_EQ(test, kofi_av_lookup_addr(av, fa, &ss),
			(int)sizeof(sin));
	KUNIT_EXPECT_EQ(test, ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr),
			ntohl(sin.sin_addr.s_addr));
	KUNIT_EXPECT_EQ(test, kofi_av_lookup_addr(av, fa, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kofi_av_lookup_addr(NULL, fa, &ss), -EINVAL);
	KUNIT_EXPECT_EQ(test, kofi_av_lookup_addr(av, FI_ADDR_NOTAVAIL, &ss),
			-EINVAL);
	/* removed: both directions fail */
	KUNIT_EXPECT_EQ(test, fi_av_remove(av, &fa, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, ka_rev(av, &sin, sizeof(sin), &x), -ENOENT);
	KUNIT_EXPECT_EQ(test, x, FI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_EQ(test, kofi_av_lookup_addr(av, fa, &ss), -ENOENT);
	ka_close(test, &s, av);
}

/* fi_rx_addr(): the receive context bits are ignored by lookups. */
static void ka_rx_addr_test(struct kunit *test)
{
	struct fi_av_attr attr = { .type = FI_AV_MAP, .rx_ctx_bits = 4 };
	struct sockaddr_in sin = ka_in(0xc0000203, 3);
	struct sockaddr_storage ss;
	struct ktp_stack s;
	struct fid_av *av;
	fi_addr_t fa;

	KUNIT_EXPECT_EQ(test, fi_rx_addr(5, 3, 4), (3ULL << 60) | 5);
	KUNIT_EXPECT_EQ(test, fi_rx_addr(5, 3, 0), (fi_addr_t)5);
	KUNIT_EXPECT_EQ(test, fi_rx_addr(5, 1, 16), (1ULL << 48) | 5);

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_av_open(s.domain, &attr, &av, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_av_insert(av, &sin, 1, &fa, 0, NULL), 1);
	KUNIT_EXPECT_EQ(test, kofi_av_lookup_addr(av, fi_rx_addr(fa, 15, 4),
						  &ss), (int)sizeof(sin));
	ka_expect_in(test, av, fi_rx_addr(fa, 2, 4), &sin);
	/* bits between the handle and the rx context bits are not ignored */
	KUNIT_EXPECT_EQ(test, kofi_av_lookup_addr(av, fa | (1ULL << 50), &ss),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_close(&av->fid), 0);
	ktp_stack_close(test, &s);
}

/* Binding: one AV of the endpoint's domain, busy while bound. */
static void ka_bind_test(struct kunit *test)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct fid_domain *dom2;
	struct fid_av *av, *av2, *av3;
	struct ktp_stack s;

	/* an endpoint takes bindings until it is enabled */
	av = ka_open(test, &s, false, FI_AV_TABLE, FI_SOCKADDR_IN);
	KUNIT_ASSERT_EQ(test, fi_endpoint(s.domain, s.info, &s.ep, NULL), 0);
	KUNIT_EXPECT_NULL(test, kofi_ep_av(s.ep));
	KUNIT_ASSERT_EQ(test, fi_ep_bind(s.ep, &av->fid, 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, kofi_ep_av(s.ep), av);
	KUNIT_EXPECT_EQ(test, fi_close(&av->fid), -EBUSY);

	/* a second AV is refused, as is an AV of another domain */
	KUNIT_ASSERT_EQ(test, fi_av_open(s.domain, &attr, &av2, NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_ep_bind(s.ep, &av2->fid, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, fi_domain(s.fabric, s.info, &dom2, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_av_open(dom2, &attr, &av3, NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_ep_bind(s.ep, &av3->fid, 0), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, kofi_ep_av(s.ep), av);
	/* a refused bind does not hold the AV */
	KUNIT_EXPECT_EQ(test, fi_close(&av2->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&av3->fid), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&dom2->fid), 0);

	/* still busy; free once the endpoint is closed */
	KUNIT_EXPECT_EQ(test, fi_close(&av->fid), -EBUSY);
	ka_close(test, &s, av);
}

/* The data-path helpers under a spinlock with interrupts off. */
static void ka_atomic_test(struct kunit *test)
{
	struct sockaddr_in sin = ka_in(0xc0000204, 4);
	struct sockaddr_storage ss;
	unsigned long flags;
	struct ktp_stack s;
	struct fid_av *av;
	spinlock_t lock;	/* stands for a provider's lock */
	fi_addr_t fa, x = 0;
	int len, ret;

	spin_lock_init(&lock);
	av = ka_open(test, &s, false, FI_AV_MAP, FI_SOCKADDR_IN);
	KUNIT_ASSERT_EQ(test, fi_av_insert(av, &sin, 1, &fa, 0, NULL), 1);
	spin_lock_irqsave(&lock, flags);
	len = kofi_av_lookup_addr(av, fa, &ss);
	ret = ka_rev(av, &sin, sizeof(sin), &x);
	spin_unlock_irqrestore(&lock, flags);
	KUNIT_EXPECT_EQ(test, len, (int)sizeof(sin));
	KUNIT_EXPECT_EQ(test, ntohs(((struct sockaddr_in *)&ss)->sin_port),
			ntohs(sin.sin_port));
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, x, fa);
	ka_close(test, &s, av);
}

struct ka_churn {
	struct fid_av *av;
	int rounds;
	int err;
	struct completion done;
};

/* Insert and remove entries while the test looks them up. */
static int ka_churn_fn(void *arg)
{
	struct ka_churn *c = arg;
	struct sockaddr_in a[8];
	fi_addr_t fa[8];
	int i, r;

	for (i = 0; i < 8; i++)
		a[i] = ka_in(0x0a010000 + i, 5000 + i);
	for (r = 0; r < c->rounds; r++) {
		if (fi_av_insert(c->av, a, 8, fa, 0, NULL) != 8 ||
		    fi_av_remove(c->av, fa, 8, 0)) {
			c->err = -EIO;
			break;
		}
	}
	complete(&c->done);
	return 0;
}

/*
 * Lookups in atomic context race with insert and remove on another CPU:
 * they find the address or not, never a wrong one (and KASAN sees no use
 * of a freed entry).
 */
static void ka_churn_test(struct kunit *test)
{
	struct ka_churn c = { .rounds = 500 };
	struct sockaddr_in sin = ka_in(0x0a010000, 5000);
	struct sockaddr_storage ss;
	int found = 0, wrong = 0, bad = 0, n = 0;
	struct task_struct *t;
	struct ktp_stack s;
	unsigned long flags;
	spinlock_t lock;	/* stands for a provider's lock */
	fi_addr_t x;
	int ret;

	spin_lock_init(&lock);
	init_completion(&c.done);
	c.av = ka_open(test, &s, false, FI_AV_TABLE, FI_SOCKADDR_IN);
	t = kthread_run(ka_churn_fn, &c, "ka_churn");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	while (!completion_done(&c.done)) {
		spin_lock_irqsave(&lock, flags);
		ret = ka_rev(c.av, &sin, sizeof(sin), &x);
		if (!ret && kofi_av_lookup_addr(c.av, x, &ss) > 0) {
			found++;
			if (((struct sockaddr_in *)&ss)->sin_port !=
			    sin.sin_port)
				wrong++;
		}
		spin_unlock_irqrestore(&lock, flags);
		if (ret && ret != -ENOENT)
			bad++;
		if (!(++n % 64))
			cond_resched();
	}
	wait_for_completion(&c.done);
	KUNIT_EXPECT_EQ(test, c.err, 0);
	KUNIT_EXPECT_EQ(test, wrong, 0);
	KUNIT_EXPECT_EQ(test, bad, 0);
	kunit_info(test, "%d lookups, %d found the address\n", n, found);
	ka_close(test, &s, c.av);
}

/* Completions without a known source report FI_ADDR_NOTAVAIL. */
static void ka_cq_src_test(struct kunit *test)
{
	struct sockaddr_in sin = ka_in(0xc0000205, 5);
	struct fi_cq_data_entry d;
	struct ktp_stack s;
	struct fid_av *av;
	fi_addr_t fa, src, x;
	char buf[8];

	av = ka_open(test, &s, true, FI_AV_MAP, FI_SOCKADDR_IN);
	KUNIT_ASSERT_EQ(test, fi_av_insert(av, &sin, 1, &fa, 0, NULL), 1);
	/* the test provider completes sends with kofi_cq_write() */
	KUNIT_ASSERT_EQ(test, fi_send(s.ep, buf, sizeof(buf), NULL, fa,
				      (void *)1), 0);
	src = 0;
	KUNIT_ASSERT_EQ(test, fi_cq_readfrom(s.cq, &d, 1, &src), 1);
	KUNIT_EXPECT_PTR_EQ(test, d.op_context, (void *)1);
	KUNIT_EXPECT_EQ(test, src, FI_ADDR_NOTAVAIL);

	/* a receive whose source the provider found in the AV */
	KUNIT_EXPECT_EQ(test, ka_rev(av, &sin, sizeof(sin), &x), 0);
	KUNIT_ASSERT_EQ(test, kofi_cq_write_src(s.cq, (void *)2,
						FI_RECV | FI_MSG, 8, buf, 0,
						x), 0);
	/* and one it did not */
	sin.sin_port = htons(6);
	KUNIT_EXPECT_EQ(test, ka_rev(av, &sin, sizeof(sin), &x), -ENOENT);
	KUNIT_ASSERT_EQ(test, kofi_cq_write_src(s.cq, (void *)3,
						FI_RECV | FI_MSG, 8, buf, 0,
						x), 0);
	KUNIT_ASSERT_EQ(test, fi_cq_readfrom(s.cq, &d, 1, &src), 1);
	KUNIT_EXPECT_PTR_EQ(test, d.op_context, (void *)2);
	KUNIT_EXPECT_EQ(test, src, fa);
	KUNIT_ASSERT_EQ(test, fi_cq_readfrom(s.cq, &d, 1, &src), 1);
	KUNIT_EXPECT_PTR_EQ(test, d.op_context, (void *)3);
	KUNIT_EXPECT_EQ(test, src, FI_ADDR_NOTAVAIL);
	ka_close(test, &s, av);
}

static struct kunit_case kofi_av_cases[] = {
	KUNIT_CASE(ka_open_test),
	KUNIT_CASE(ka_table_ipv4_test),
	KUNIT_CASE(ka_map_ipv6_test),
	KUNIT_CASE(ka_sockaddr_test),
	KUNIT_CASE(ka_bad_input_test),
	KUNIT_CASE(ka_growth_test),
	KUNIT_CASE(ka_reverse_test),
	KUNIT_CASE(ka_rx_addr_test),
	KUNIT_CASE(ka_bind_test),
	KUNIT_CASE(ka_atomic_test),
	KUNIT_CASE(ka_churn_test),
	KUNIT_CASE(ka_cq_src_test),
	{}
};

struct kunit_suite kofi_av_suite = {
	.name = "kofi_av",
	.suite_init = ka_suite_init,
	.suite_exit = ka_suite_exit,
	.exit = ka_exit,
	.test_cases = kofi_av_cases,
};
