// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: the rxm utility provider over ksocket on loopback.
 *
 * Two FI_EP_RDM endpoints in one domain, each in the other's address
 * vector: connections opened by the first send, messages of every size
 * class with their sources, rendezvous (above the eager limit: vectors,
 * truncation, unexpected, tagged, peeked and discarded requests), tagged
 * messages with ignore bits, unexpected messages, FI_PEEK / FI_CLAIM /
 * FI_DISCARD, directed and multi-receive
 * buffers, both sides sending first at once (simultaneous connect),
 * cancel, and close with receives still posted; RMA to a peer's region
 * (reads, writes, remote CQ data, a refused key); and the wire form of
 * tagged messages against a ksocket endpoint playing libfabric's tcp under
 * its ofi_rxm.
 *
 * Faults: a raw kernel TCP socket plays a misbehaving peer - it speaks
 * ksocket's frames and rxm's CM data and packets itself - and writes
 * segmented messages as libfabric's rxm sends them over verbs, malformed
 * packets and CM data to endpoint 0, or listens and never
 * answers; each must end that peer's connection (or attempt) with an
 * error while endpoint 1 is still served.  Sends to addresses the AV does
 * not hold, and the removal of a peer with traffic in flight.
 *
 * Only exported symbols are used (the suite is also built as a module);
 * kofi_ksocket and kofi_rxm must be loaded or built in.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <kofi/fabric.h>
#include <kofi/fi_av.h>
#include <kofi/fi_cm.h>
#include <kofi/fi_domain.h>
#include <kofi/fi_endpoint.h>
#include <kofi/fi_eq.h>
#include <kofi/fi_errno.h>
#include <kofi/fi_rma.h>
#include <kofi/fi_tagged.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include "../providers/ksocket/ksock_proto.h"
#include "../kofi/rdm/rxm_proto.h"
#include "kofi_test_net.h"
#include "kofi_test_rdm.h"
#include "../kofi/rdm/rxm.h"

#define RT_TIMEOUT	5000	/* ms, every wait */
#define RT_EAGER	16384
#define RT_BIG		SZ_1M
#define RT_SAR_MAX	(8 * RT_EAGER)	/* larger goes by rendezvous */
#define RT_RNDV		(RT_SAR_MAX + 1)
#define RT_SHORT	300	/* ms, connection timeout of the fault tests */

static struct fi_info *rt_getinfo(struct kunit *test, u64 caps)
{
	return ktr_rdm_getinfo(test, "ksocket;rxm", NULL, "127.0.0.1", caps);
}

/*
 * Fabric, domain, AV, and two enabled endpoints on @node named in the AV,
 * each with a send and a receive CQ and a buffer of RT_BIG + 64 bytes.
 */
static void rt_setup_attr(struct kunit *test, struct ktr_rdm *t,
			  const char *node, u64 caps, bool may_sleep)
{
	const struct ktr_rdm_attr attr = {
		.prov = "ksocket;rxm",
		.node = node,
		.caps = caps,
		.eps = 2,
		.split_cq = true,
		.buf_size = RT_BIG + 64,
		.may_sleep = may_sleep,
	};

	ktr_rdm_open(test, t, &attr);
}

/* rt_setup_attr() on 127.0.0.1, without FI_OPT_DATA_MAY_SLEEP. */
static void rt_setup(struct kunit *test, struct ktr_rdm *t, u64 caps)
{
	struct sockaddr_in name;
	size_t len;
	int i;

	rt_setup_attr(test, t, "127.0.0.1", caps, false);
	for (i = 0; i < 2; i++) {
		len = sizeof(name);
		KUNIT_ASSERT_EQ(test, fi_getname(&t->ep[i]->fid, &name, &len),
				0);
		KUNIT_EXPECT_EQ(test, ntohl(name.sin_addr.s_addr),
				INADDR_LOOPBACK);
		KUNIT_EXPECT_NE(test, ntohs(name.sin_port), 0);
	}
}

static void rt_teardown(struct kunit *test, struct ktr_rdm *t)
{
	ktr_rdm_close(test, t);
}

static void rt_close(struct kunit *test, struct fid *fid)
{
	if (fid)
		KUNIT_EXPECT_EQ(test, fi_close(fid), 0);
}

/* Send to @dest until the connection is up (the first send opens it). */
static ssize_t rt_sendto(struct ktr_rdm *t, int from, fi_addr_t dest,
			 const void *buf, size_t len, bool tagged, u64 tag,
			 void *context)
{
	unsigned long end = jiffies + msecs_to_jiffies(RT_TIMEOUT);
	struct fid_ep *ep = t->ep[from];
	ssize_t ret;

	do {
		ret = tagged ? fi_tsend(ep, buf, len, NULL, dest, tag, context) :
			       fi_send(ep, buf, len, NULL, dest, context);
		if (ret != -EAGAIN)
			return ret;
		usleep_range(500, 1000);
	} while (time_before(jiffies, end));
	return ret;
}

/* Send to the other endpoint until the connection is up. */
static ssize_t rt_send(struct ktr_rdm *t, int from, const void *buf, size_t len,
		       bool tagged, u64 tag, void *context)
{
	return rt_sendto(t, from, t->addr[!from], buf, len, tagged, tag,
			 context);
}

/* Read one completion of @cq: its entry and source; -errno of an error. */
static ssize_t rt_comp(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
		       fi_addr_t *src, struct fi_cq_err_entry *err)
{
	return ktr_rdm_comp(cq, e, src, err, RT_TIMEOUT);
}

/*
 * Post receives @first .. @n - 1 of @len bytes each on endpoint 1, slot i
 * at buf[1] + i * @len, and take their completions, each of @len bytes.
 */
static void rt_recv_n(struct kunit *test, struct ktr_rdm *t, int first, int n,
		      size_t len)
{
	struct fi_cq_tagged_entry e;
	int i;

	for (i = first; i < n; i++)
		KUNIT_ASSERT_EQ(test, fi_recv(t->ep[1], t->buf[1] + i * len,
					      len, NULL, FI_ADDR_UNSPEC, NULL),
				0);
	for (i = first; i < n; i++) {
		KUNIT_ASSERT_EQ(test, rt_comp(t->rx[1], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.len, len);
	}
}

/*
 * Endpoint 0 sends endpoint 1 one message of @len bytes (at most 64) into
 * a posted receive - the first opens their connection - and both
 * complete.
 */
static void rt_one_msg(struct kunit *test, struct ktr_rdm *t, size_t len)
{
	struct fi_cq_tagged_entry e;

	KUNIT_ASSERT_EQ(test, fi_recv(t->ep[1], t->buf[1], 64, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_send(t, 0, t->buf[0], len, false, 0, NULL),
			0);
	KUNIT_ASSERT_EQ(test, rt_comp(t->tx[0], &e, NULL, NULL), 1);
	KUNIT_ASSERT_EQ(test, rt_comp(t->rx[1], &e, NULL, NULL), 1);
}

static void rt_fill(u8 *buf, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = seed + i * 7;
}

/* The infos: RDM over ksocket and ib_verbs, sizes, what is not offered. */
static void rxm_getinfo_test(struct kunit *test)
{
	struct fi_info *hints, *info = NULL;
	struct fi_info *i = rt_getinfo(test, FI_MSG | FI_TAGGED | FI_SOURCE);
	int ret;

	KUNIT_EXPECT_STREQ(test, i->fabric_attr->prov_name, "ksocket;rxm");
	KUNIT_EXPECT_EQ(test, i->ep_attr->type, FI_EP_RDM);
	KUNIT_EXPECT_GE(test, i->ep_attr->max_msg_size, RT_BIG);
	KUNIT_EXPECT_EQ(test, i->addr_format, FI_SOCKADDR_IN);
	KUNIT_EXPECT_TRUE(test, i->caps & FI_DIRECTED_RECV);
	KUNIT_EXPECT_TRUE(test, i->caps & FI_MULTI_RECV);
	fi_freeinfo(i);

	/* no atomics, no MSG endpoints from rxm */
	hints = fi_allocinfo(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hints);
	hints->caps = FI_MSG | FI_ATOMIC;
	hints->ep_attr->type = FI_EP_RDM;
	hints->fabric_attr->prov_name = kstrdup("ksocket;rxm", GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, fi_getinfo(fi_version(), NULL, NULL, 0, hints,
					 &info), -ENODATA);
	hints->caps = FI_MSG;
	hints->ep_attr->type = FI_EP_MSG;
	KUNIT_EXPECT_EQ(test, fi_getinfo(fi_version(), NULL, NULL, 0, hints,
					 &info), -ENODATA);
	/*
	 * over ib_verbs where it has an RDMA device (a soft-RoCE device in
	 * the debug guest; none under kunit.py): messages up to 1 MiB, remote
	 * CQ data of an RDMA write's 4 bytes; else nothing
	 */
	hints->ep_attr->type = FI_EP_RDM;
	kfree(hints->fabric_attr->prov_name);
	hints->fabric_attr->prov_name = kstrdup("ib_verbs;rxm", GFP_KERNEL);
	ret = fi_getinfo(fi_version(), NULL, NULL, 0, hints, &info);
	if (ret) {
		KUNIT_EXPECT_EQ(test, ret, -ENODATA);
		info = NULL;
	}
	for (i = info; i; i = i->next) {
		KUNIT_EXPECT_STREQ(test, i->fabric_attr->prov_name,
				   "ib_verbs;rxm");
		KUNIT_EXPECT_EQ(test, i->ep_attr->type, FI_EP_RDM);
		KUNIT_EXPECT_EQ(test, i->addr_format, FI_SOCKADDR_IN);
		KUNIT_EXPECT_EQ(test, i->ep_attr->max_msg_size, SZ_4M);
		KUNIT_EXPECT_EQ(test, i->domain_attr->cq_data_size, 4);
		KUNIT_EXPECT_TRUE(test, i->domain_attr->mr_mode &
				  FI_MR_VIRT_ADDR);
		KUNIT_EXPECT_TRUE(test, i->caps & FI_RMA);
	}
	fi_freeinfo(info);
	info = NULL;
	/* none named: both cores' */
	kfree(hints->fabric_attr->prov_name);
	hints->fabric_attr->prov_name = NULL;
	KUNIT_ASSERT_EQ(test, fi_getinfo(fi_version(), NULL, NULL, 0, hints,
					 &info), 0);
	for (i = info; i; i = i->next) {
		if (!strstr(i->fabric_attr->prov_name, "rxm"))
			continue;
		KUNIT_EXPECT_TRUE(test,
				  !strcmp(i->fabric_attr->prov_name,
					  "ksocket;rxm") ||
				  !strcmp(i->fabric_attr->prov_name,
					  "ib_verbs;rxm"));
		if (!strcmp(i->fabric_attr->prov_name, "ksocket;rxm"))
			KUNIT_EXPECT_EQ(test, i->domain_attr->cq_data_size, 8);
	}
	fi_freeinfo(info);
	fi_freeinfo(hints);
}

/* Messages of every size class both ways, with their sources. */
static void rxm_msg_test(struct kunit *test)
{
	static const size_t sizes[] = { 0, 1, 64, 256, 257, 4096, RT_EAGER };
	struct fi_cq_tagged_entry e;
	struct ktr_rdm t;
	fi_addr_t src;
	size_t i;
	int dir;

	rt_setup(test, &t, FI_MSG | FI_SOURCE);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		for (dir = 0; dir < 2; dir++) {
			size_t len = sizes[i];

			memset(t.buf[!dir], 0, len + 1);
			KUNIT_ASSERT_EQ(test, fi_recv(t.ep[!dir], t.buf[!dir],
						      RT_EAGER, NULL,
						      FI_ADDR_UNSPEC, &t), 0);
			rt_fill(t.buf[dir], len, i + dir);
			KUNIT_ASSERT_EQ(test, rt_send(&t, dir, t.buf[dir], len,
						      false, 0, &e), 0);
			KUNIT_ASSERT_EQ(test, rt_comp(t.tx[dir], &e, NULL,
						      NULL), 1);
			KUNIT_EXPECT_EQ(test, e.flags, FI_SEND | FI_MSG);
			KUNIT_ASSERT_EQ(test, rt_comp(t.rx[!dir], &e, &src,
						      NULL), 1);
			KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&t);
			KUNIT_EXPECT_EQ(test, e.flags, FI_RECV | FI_MSG);
			KUNIT_EXPECT_EQ(test, e.len, len);
			KUNIT_EXPECT_EQ(test, src, t.addr[dir]);
			KUNIT_EXPECT_EQ(test, memcmp(t.buf[!dir], t.buf[dir],
						     len), 0);
		}
	}
	/* inject: no completion; too long: refused */
	KUNIT_EXPECT_EQ(test, fi_recv(t.ep[1], t.buf[1], RT_EAGER, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_inject(t.ep[0], t.buf[0], 256, t.addr[1]),
			0);
	KUNIT_EXPECT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.len, 256);
	KUNIT_EXPECT_EQ(test, fi_inject(t.ep[0], t.buf[0], 257, t.addr[1]),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, fi_send(t.ep[0], t.buf[0],
				      t.info->ep_attr->max_msg_size + 1, NULL,
				      t.addr[1], NULL), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, fi_send(t.ep[0], t.buf[0], 1, NULL, 77, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.tx[0], &e, 1), -EAGAIN);
	/* truncation: the receive completes with EMSGSIZE */
	KUNIT_EXPECT_EQ(test, fi_recv(t.ep[1], t.buf[1], 8, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_EXPECT_EQ(test, rt_send(&t, 0, t.buf[0], 100, false, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	rt_teardown(test, &t);
}

/*
 * The net wire ("ksocket;net"): its info; untagged and tagged messages of
 * 0 B to 1 MiB both ways as the core's own messages - into a posted
 * receive, waiting unexpected in a bounce buffer (16 KiB and less) or on
 * the connection (larger, until a receive is posted) - with tags, remote
 * CQ data and sources, data verified.
 */
/* Two enabled ksocket;net endpoints on 127.0.0.1, as rt_setup()'s. */
/*
 * The net wire's endpoints: rxm's "ksocket;net", or ksocket's own
 * FI_EP_RDM ("ksocket", no utility provider between).
 */
static const char * const rt_net_provs[] = { "ksocket;net", "ksocket" };

static void rt_net_desc(const char * const *prov, char *desc)
{
	strscpy(desc, *prov, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rt_net, rt_net_provs, rt_net_desc);

static void rt_net_setup(struct kunit *test, struct ktr_rdm *t)
{
	const char * const *prov = test->param_value;
	const struct ktr_rdm_attr attr = {
		.prov = prov ? *prov : "ksocket;net",
		.node = "127.0.0.1",
		.caps = FI_MSG | FI_TAGGED | FI_SOURCE,
		.eps = 2,
		.split_cq = true,
		.buf_size = RT_BIG + 64,
	};

	ktr_rdm_open(test, t, &attr);
}

static void rxm_net_test(struct kunit *test)
{
	static const size_t sizes[] = { 0, 1, 4096, RT_EAGER, RT_EAGER + 1,
					RT_BIG };
	struct kvec pkv = { .iov_len = 64 };
	struct fi_msg_tagged peek = {
		.iov_type = FI_IOV_KVEC,
		.iov_count = 1,
		.addr = FI_ADDR_UNSPEC,
	};
	struct fi_cq_tagged_entry e;
	struct ktr_rdm t;
	fi_addr_t src;
	size_t i;
	int dir, late;

	rt_net_setup(test, &t);
	pkv.iov_base = t.buf[1];
	KUNIT_EXPECT_STREQ(test, t.info->fabric_attr->prov_name,
			   *(const char * const *)test->param_value);
	KUNIT_EXPECT_EQ(test, t.info->ep_attr->type, FI_EP_RDM);
	KUNIT_EXPECT_EQ(test, t.info->ep_attr->protocol_version, 0);
	KUNIT_EXPECT_GT(test, t.info->ep_attr->max_msg_size, (u64)SZ_4M);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		for (dir = 0; dir < 2; dir++) {
			for (late = 0; late < 2; late++) {
				size_t len = sizes[i];
				bool tagged = late ^ dir;
				struct fi_msg_tagged r = {
					.iov_type = FI_IOV_KVEC,
					.iov_count = 1,
					.addr = FI_ADDR_UNSPEC,
					.tag = 0x55 + i,
					.context = &t,
				};
				struct kvec kv = {
					.iov_base = t.buf[!dir],
					.iov_len = RT_BIG,
				};

				r.msg_iov = &kv;
				memset(t.buf[!dir], 0, len + 1);
				rt_fill(t.buf[dir], len, i + dir + late);
				if (!late)
					KUNIT_ASSERT_EQ(test, tagged ?
						fi_trecvmsg(t.ep[!dir], &r, 0) :
						fi_recvmsg(t.ep[!dir],
							   (void *)&r, 0), 0);
				KUNIT_ASSERT_EQ(test, rt_send(&t, dir,
							      t.buf[dir], len,
							      tagged, r.tag,
							      NULL), 0);
				KUNIT_ASSERT_EQ(test, rt_comp(t.tx[dir], &e,
							      NULL, NULL), 1);
				if (late) {
					msleep(20);
					KUNIT_ASSERT_EQ(test, tagged ?
						fi_trecvmsg(t.ep[!dir], &r, 0) :
						fi_recvmsg(t.ep[!dir],
							   (void *)&r, 0), 0);
				}
				KUNIT_ASSERT_EQ(test, rt_comp(t.rx[!dir], &e,
							      &src, NULL), 1);
				KUNIT_EXPECT_EQ(test, e.flags, FI_RECV |
						(tagged ? FI_TAGGED : FI_MSG));
				KUNIT_EXPECT_EQ(test, e.len, len);
				if (tagged)
					KUNIT_EXPECT_EQ(test, e.tag, r.tag);
				KUNIT_EXPECT_EQ(test, src, t.addr[dir]);
				KUNIT_EXPECT_EQ(test,
						memcmp(t.buf[!dir],
						       t.buf[dir], len), 0);
			}
		}
	}
	/*
	 * FI_PEEK sees an unexpected message in a bounce buffer (16 KiB and
	 * less) and a larger one in a buffer of its own; not one waiting on
	 * its connection (ENOMSG) past big_unexp_bytes, which the receive
	 * posted next takes
	 */
	peek.msg_iov = &pkv;
	peek.context = &peek;
	KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], 64, true, 0x64, NULL),
			0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	msleep(50);
	peek.tag = 0x64;
	KUNIT_ASSERT_EQ(test, fi_trecvmsg(t.ep[1], &peek, FI_PEEK), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.len, 64);
	KUNIT_EXPECT_EQ(test, e.tag, 0x64);
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1], RT_BIG, NULL,
				       FI_ADDR_UNSPEC, 0x64, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.len, 64);
	for (i = 0; i < 2; i++) {
		struct rxm_ep *rep = container_of(t.ep[1], struct rxm_ep, ep);
		unsigned long max = rep->big_max;

		if (i)
			rep->big_max = 0;
		rt_fill(t.buf[0], 70000, 0x70 + i);
		KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], 70000, true,
					      0x70 + i, NULL), 0);
		msleep(50);
		peek.tag = 0x70 + i;
		KUNIT_ASSERT_EQ(test, fi_trecvmsg(t.ep[1], &peek, FI_PEEK), 0);
		if (!i) {
			KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL),
					1);
			KUNIT_EXPECT_EQ(test, e.len, 70000);
			KUNIT_EXPECT_EQ(test, e.tag, 0x70);
		} else {
			KUNIT_EXPECT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL),
					-ENOMSG);
		}
		KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1], RT_BIG, NULL,
					       FI_ADDR_UNSPEC, 0x70 + i, 0,
					       NULL), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.len, 70000);
		KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], t.buf[0], 70000), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
		rep->big_max = max;
		KUNIT_EXPECT_EQ(test, atomic_long_read(&rep->big_bytes), 0);
	}

	/* remote CQ data rides in tcp's header, tagged or not */
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], 64, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_senddata(t.ep[0], t.buf[0], 8, NULL, 0xd1,
					  t.addr[1], NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.flags, FI_RECV | FI_MSG | FI_REMOTE_CQ_DATA);
	KUNIT_EXPECT_EQ(test, e.data, 0xd1ULL);
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	ktr_rdm_close(test, &t);
}

/*
 * A peer that connected before it was in the AV: its messages come from
 * FI_ADDR_NOTAVAIL; once inserted and sent to, its connection is taken
 * for it (no second connection), and its messages come from its fi_addr.
 */
static void rxm_adopt_test(struct kunit *test)
{
	struct fi_cq_tagged_entry e;
	struct sockaddr_in name;
	fi_addr_t src, a0;
	struct ktr_rdm t;
	size_t len = sizeof(name);

	rt_setup(test, &t, FI_MSG | FI_SOURCE);
	KUNIT_ASSERT_EQ(test, fi_getname(&t.ep[0]->fid, &name, &len), 0);
	KUNIT_ASSERT_EQ(test, fi_av_remove(t.av, &t.addr[0], 1, 0), 0);
	/* endpoint 0 connects; endpoint 1 does not know it */
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], 64, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], 8, false, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, &src, NULL), 1);
	KUNIT_EXPECT_EQ(test, src, FI_ADDR_NOTAVAIL);
	/* inserted, sent to: the same connection */
	KUNIT_ASSERT_EQ(test, fi_av_insert(t.av, &name, 1, &a0, 0, NULL), 1);
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[0], t.buf[0], 64, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_send(t.ep[1], t.buf[1], 8, NULL, a0, NULL),
			0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[1], &e, NULL, NULL), 1);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[0], &e, &src, NULL), 1);
	KUNIT_EXPECT_EQ(test, src, t.addr[1]);
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], 64, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_send(t.ep[0], t.buf[0], 8, NULL, t.addr[1],
				      NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, &src, NULL), 1);
	KUNIT_EXPECT_EQ(test, src, a0);
	t.addr[0] = a0;
	rt_teardown(test, &t);
}

/*
 * Messages above the eager limit: segmented up to the SAR limit, larger
 * ones by rendezvous (read by the receiver from the sender's
 * registrations) - each from kvec arrays, into a shorter buffer
 * (truncated), waiting unexpected, tagged, peeked and discarded.
 */
static void rxm_rndv_test(struct kunit *test)
{
	static const size_t sizes[] = { RT_EAGER + 1, 65536, RT_SAR_MAX,
					RT_RNDV, RT_BIG };
	/* per kvec of three, cut off at, peeked, discarded */
	static const size_t big[][4] = {
		{ 30000, 50000, 70000, 40000 },		/* segmented */
		{ 50000, 140000, 150000, RT_RNDV },	/* rendezvous */
	};
	struct fi_cq_tagged_entry e;
	struct fi_msg_tagged m = {};
	struct kvec kv[3];
	struct ktr_rdm t;
	fi_addr_t src;
	size_t i, j;
	int ctx;

	rt_setup(test, &t, FI_MSG | FI_TAGGED | FI_SOURCE);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t len = sizes[i];

		memset(t.buf[1], 0, len);
		rt_fill(t.buf[0], len, i);
		KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], RT_BIG, NULL,
					      FI_ADDR_UNSPEC, &ctx), 0);
		KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], len, false, 0,
					      &e), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, &src, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.len, len);
		KUNIT_EXPECT_EQ(test, src, t.addr[0]);
		KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], t.buf[0], len), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.len, len);
	}

	for (j = 0; j < ARRAY_SIZE(big); j++) {
		size_t part = big[j][0], cut = big[j][1];
		size_t peek = big[j][2], drop = big[j][3];

		/* three kvecs in, unexpected, received into one buffer */
		rt_fill(t.buf[0], 3 * part, 9 + j);
		for (i = 0; i < 3; i++) {
			kv[i].iov_base = t.buf[0] + part * i;
			kv[i].iov_len = part;
		}
		KUNIT_ASSERT_EQ(test, fi_sendv(t.ep[0], kv, NULL, 3,
					       t.addr[1], NULL), 0);
		msleep(50);
		KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], RT_BIG, NULL,
					      FI_ADDR_UNSPEC, NULL), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.len, 3 * part);
		KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], t.buf[0], 3 * part), 0);
		KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);

		/* truncated: what fits is read, the rest reported */
		KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], 20000, NULL,
					      FI_ADDR_UNSPEC, NULL), 0);
		KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], cut, false, 0,
					      NULL), 0);
		KUNIT_EXPECT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL),
				-EMSGSIZE);
		KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], t.buf[0], 20000), 0);
		KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);

		/* tagged, peeked first; then one discarded: the sender completes */
		KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], peek, true, 7,
					      NULL), 0);
		msleep(50);
		kv[0].iov_base = t.buf[1];
		kv[0].iov_len = RT_BIG;
		m.iov_type = FI_IOV_KVEC;
		m.msg_iov = kv;
		m.iov_count = 1;
		m.addr = FI_ADDR_UNSPEC;
		m.tag = 7;
		m.context = &ctx;
		KUNIT_ASSERT_EQ(test, fi_trecvmsg(t.ep[1], &m, FI_PEEK), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.len, peek);
		KUNIT_EXPECT_EQ(test, e.tag, 7);
		KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1], RT_BIG, NULL,
					       FI_ADDR_UNSPEC, 7, 0, NULL), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.len, peek);
		KUNIT_EXPECT_EQ(test, e.tag, 7);
		KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], t.buf[0], peek), 0);
		KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
		KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], drop, true, 8,
					      NULL), 0);
		msleep(50);
		m.tag = 8;
		KUNIT_ASSERT_EQ(test, fi_trecvmsg(t.ep[1], &m,
						  FI_PEEK | FI_DISCARD), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	}
	rt_teardown(test, &t);
}

/* Tags, ignore bits, unexpected messages, peek, claim and discard. */
static void rxm_tagged_test(struct kunit *test)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_msg_tagged m = {};
	struct kvec kv;
	struct ktr_rdm t;
	u64 tag;
	int ctx;

	rt_setup(test, &t, FI_TAGGED | FI_SOURCE);
	/* unexpected: three tags sent before any receive */
	for (tag = 1; tag <= 3; tag++) {
		t.buf[0][0] = tag;
		KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], 32, true,
					      0x100 | tag, NULL), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.flags, FI_SEND | FI_TAGGED);
	}
	msleep(50);
	/* tag 3 exactly, then anything under 0x1ff with ignore 0xff */
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1], 64, NULL,
				       FI_ADDR_UNSPEC, 0x103, 0, &ctx), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.tag, 0x103);
	KUNIT_EXPECT_EQ(test, t.buf[1][0], 3);
	KUNIT_EXPECT_EQ(test, e.flags, FI_RECV | FI_TAGGED);
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1], 64, NULL,
				       FI_ADDR_UNSPEC, 0x100, 0xff, &ctx), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.tag, 0x101);
	KUNIT_EXPECT_EQ(test, t.buf[1][0], 1);

	/* peek finds tag 2, claim takes it; a second peek finds none */
	kv.iov_base = t.buf[1];
	kv.iov_len = 64;
	m.iov_type = FI_IOV_KVEC;
	m.msg_iov = &kv;
	m.iov_count = 1;
	m.addr = FI_ADDR_UNSPEC;
	m.tag = 0x102;
	m.context = &ctx;
	KUNIT_ASSERT_EQ(test, fi_trecvmsg(t.ep[1], &m, FI_PEEK | FI_CLAIM), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.len, 32);
	KUNIT_EXPECT_EQ(test, e.tag, 0x102);
	KUNIT_EXPECT_EQ(test, fi_trecvmsg(t.ep[1], &m, FI_PEEK), 0);
	KUNIT_EXPECT_EQ(test, rt_comp(t.rx[1], &e, NULL, &err), -ENOMSG);
	t.buf[1][0] = 0;
	KUNIT_ASSERT_EQ(test, fi_trecvmsg(t.ep[1], &m, FI_CLAIM), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, t.buf[1][0], 2);
	KUNIT_EXPECT_EQ(test, fi_trecvmsg(t.ep[1], &m, FI_CLAIM), -ENOMSG);

	/* peek and discard */
	KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], 16, true, 0x200, NULL),
			0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	msleep(50);
	m.tag = 0x200;
	KUNIT_ASSERT_EQ(test, fi_trecvmsg(t.ep[1], &m, FI_PEEK | FI_DISCARD),
			0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.tag, 0x200);
	KUNIT_EXPECT_EQ(test, fi_trecvmsg(t.ep[1], &m, FI_PEEK), 0);
	KUNIT_EXPECT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), -ENOMSG);

	/* an untagged message does not go to a tagged receive */
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1], 64, NULL,
				       FI_ADDR_UNSPEC, 0, ~0ULL, &ctx), 0);
	KUNIT_EXPECT_EQ(test, rt_send(&t, 0, t.buf[0], 8, false, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	msleep(50);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.rx[1], &e, 1), -EAGAIN);
	/* close with the receive posted: it completes with ECANCELED */
	rt_close(test, &t.ep[1]->fid);
	t.ep[1] = NULL;
	KUNIT_EXPECT_EQ(test, fi_cq_readerr(t.rx[1], &err, 0), 1);
	KUNIT_EXPECT_EQ(test, err.err, ECANCELED);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)&ctx);
	rt_teardown(test, &t);
}

/* Directed receives, multi-receive buffers and fi_cancel(). */
static void rxm_recv_kinds_test(struct kunit *test)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_msg m = {};
	struct kvec kv;
	size_t min = 300, len = sizeof(min);
	struct ktr_rdm t;
	int i, ctx;

	rt_setup(test, &t, FI_MSG | FI_SOURCE | FI_DIRECTED_RECV |
		 FI_MULTI_RECV);
	/* a receive from ep 1 only does not take ep 0's message */
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], 64, NULL,
				      t.addr[1], &ctx), 0);
	KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], 8, false, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	msleep(50);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.rx[1], &e, 1), -EAGAIN);
	KUNIT_ASSERT_EQ(test, fi_cancel(&t.ep[1]->fid, &ctx), 0);
	KUNIT_EXPECT_EQ(test, rt_comp(t.rx[1], &e, NULL, &err), -ECANCELED);
	KUNIT_EXPECT_EQ(test, fi_cancel(&t.ep[1]->fid, &ctx), -ENOENT);
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], 64, NULL,
				      t.addr[0], &ctx), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.len, 8);

	/*
	 * A 1000-byte multi-receive buffer, 300 bytes minimum: four messages
	 * of 200 bytes, released with the fourth (200 bytes left).
	 */
	KUNIT_ASSERT_EQ(test, fi_setopt(&t.ep[1]->fid, FI_OPT_ENDPOINT,
					FI_OPT_MIN_MULTI_RECV, &min, len), 0);
	kv.iov_base = t.buf[1];
	kv.iov_len = 1000;
	m.iov_type = FI_IOV_KVEC;
	m.msg_iov = &kv;
	m.iov_count = 1;
	m.addr = FI_ADDR_UNSPEC;
	m.context = &ctx;
	KUNIT_ASSERT_EQ(test, fi_recvmsg(t.ep[1], &m, FI_MULTI_RECV), 0);
	for (i = 0; i < 4; i++) {
		memset(t.buf[0], 'a' + i, 200);
		KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], 200, false, 0,
					      NULL), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
		KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.len, 200);
		KUNIT_EXPECT_PTR_EQ(test, e.buf, (void *)(t.buf[1] + 200 * i));
		KUNIT_EXPECT_EQ(test, !!(e.flags & FI_MULTI_RECV), i == 3);
		KUNIT_EXPECT_EQ(test, t.buf[1][200 * i], 'a' + i);
	}
	rt_teardown(test, &t);
}

/* Both endpoints send first at the same time: one connection wins. */
static void rxm_simultaneous_test(struct kunit *test)
{
	struct fi_cq_tagged_entry e;
	struct ktr_rdm t;
	int round, i, got;

	rt_setup(test, &t, FI_MSG | FI_SOURCE);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, fi_recv(t.ep[i], t.buf[i], 64, NULL,
					      FI_ADDR_UNSPEC, NULL), 0);
	/* the first sends of both sides, before either connection is up */
	KUNIT_EXPECT_EQ(test, fi_send(t.ep[0], t.buf[0], 8, NULL, t.addr[1],
				      NULL), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fi_send(t.ep[1], t.buf[1], 8, NULL, t.addr[0],
				      NULL), -EAGAIN);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, rt_send(&t, i, t.buf[i], 8, false, 0,
					      NULL), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, rt_comp(t.tx[i], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, rt_comp(t.rx[i], &e, NULL, NULL), 1);
	}
	/* and the connections carry traffic both ways afterwards */
	for (round = 0; round < 20; round++) {
		for (i = 0; i < 2; i++)
			KUNIT_ASSERT_EQ(test, fi_recv(t.ep[i], t.buf[i], 64,
						      NULL, FI_ADDR_UNSPEC,
						      NULL), 0);
		for (i = 0; i < 2; i++)
			KUNIT_ASSERT_EQ(test, rt_send(&t, i, t.buf[i], 8,
						      false, 0, NULL), 0);
		for (got = 0, i = 0; i < 2; i++) {
			got += rt_comp(t.tx[i], &e, NULL, NULL) == 1;
			got += rt_comp(t.rx[i], &e, NULL, NULL) == 1;
		}
		KUNIT_ASSERT_EQ(test, got, 4);
	}
	rt_teardown(test, &t);
}

/*
 * Each size of @sizes, untagged then tagged (tag @tag), both ways between
 * the two endpoints: posted receive, send, both completions, the length,
 * source and data of what arrived.
 */
static void rt_exchange(struct kunit *test, struct ktr_rdm *t,
			const size_t *sizes, size_t n, u64 tag)
{
	struct fi_cq_tagged_entry e;
	fi_addr_t src;
	size_t i, len;
	int dir;

	for (i = 0; i < n * 2; i++) {
		bool tagged = i & 1;

		len = sizes[i / 2];
		for (dir = 0; dir < 2; dir++) {
			memset(t->buf[!dir], 0, len);
			KUNIT_ASSERT_EQ(test, tagged ?
					fi_trecv(t->ep[!dir], t->buf[!dir],
						 len, NULL, FI_ADDR_UNSPEC,
						 tag, 0, NULL) :
					fi_recv(t->ep[!dir], t->buf[!dir], len,
						NULL, FI_ADDR_UNSPEC, NULL), 0);
			rt_fill(t->buf[dir], len, i + dir);
			KUNIT_ASSERT_EQ(test, rt_send(t, dir, t->buf[dir], len,
						      tagged, tag, NULL), 0);
			KUNIT_ASSERT_EQ(test, rt_comp(t->tx[dir], &e, NULL,
						      NULL), 1);
			KUNIT_ASSERT_EQ(test, rt_comp(t->rx[!dir], &e, &src,
						      NULL), 1);
			KUNIT_EXPECT_EQ(test, e.len, len);
			KUNIT_EXPECT_EQ(test, src, t->addr[dir]);
			KUNIT_EXPECT_EQ(test, memcmp(t->buf[!dir], t->buf[dir],
						     len), 0);
		}
	}
}

/*
 * IPv6 (on ::1): FI_SOCKADDR_IN6 infos, AV and names; a simultaneous
 * connect decided by the IPv6 names; eager and rendezvous messages both
 * ways, untagged and tagged, with their sources.
 */
static void rxm_ipv6_test(struct kunit *test)
{
	static const size_t sizes[] = { 64, RT_EAGER + 1 };
	struct sockaddr_in6 name;
	struct fi_cq_tagged_entry e;
	struct ktr_rdm t;
	fi_addr_t src;
	size_t len;
	int dir;

	rt_setup_attr(test, &t, "::1", FI_MSG | FI_TAGGED | FI_SOURCE, false);
	KUNIT_EXPECT_EQ(test, t.info->addr_format, FI_SOCKADDR_IN6);
	len = sizeof(struct sockaddr_in);
	KUNIT_EXPECT_EQ(test, fi_getname(&t.ep[0]->fid, &name, &len),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, len, sizeof(name));
	KUNIT_ASSERT_EQ(test, fi_getname(&t.ep[0]->fid, &name, &len), 0);
	KUNIT_EXPECT_EQ(test, name.sin6_family, AF_INET6);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_loopback(&name.sin6_addr));
	KUNIT_EXPECT_NE(test, ntohs(name.sin6_port), 0);

	/* both sides send first: one connection survives */
	for (dir = 0; dir < 2; dir++)
		KUNIT_ASSERT_EQ(test, fi_recv(t.ep[dir], t.buf[dir], 64, NULL,
					      FI_ADDR_UNSPEC, NULL), 0);
	for (dir = 0; dir < 2; dir++)
		KUNIT_EXPECT_EQ(test, fi_send(t.ep[dir], t.buf[dir], 8, NULL,
					      t.addr[!dir], NULL), -EAGAIN);
	for (dir = 0; dir < 2; dir++)
		KUNIT_ASSERT_EQ(test, rt_send(&t, dir, t.buf[dir], 8, false, 0,
					      NULL), 0);
	for (dir = 0; dir < 2; dir++) {
		KUNIT_EXPECT_EQ(test, rt_comp(t.tx[dir], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, rt_comp(t.rx[dir], &e, &src, NULL), 1);
		KUNIT_EXPECT_EQ(test, src, t.addr[!dir]);
	}

	rt_exchange(test, &t, sizes, ARRAY_SIZE(sizes), 7);
	rt_teardown(test, &t);
}

/*
 * FI_OPT_DATA_MAY_SLEEP: the sends post to ksocket in the caller's
 * context, rendezvous registrations included; eager and rendezvous
 * messages both ways, untagged and tagged, and an RMA write arrive
 * intact.  The option reads back, and is fixed once enabled.
 */
static void rxm_may_sleep_test(struct kunit *test)
{
	static const size_t sizes[] = { 64, RT_EAGER + 1, RT_BIG };
	struct fi_cq_tagged_entry e;
	size_t val = 0, vlen = sizeof(val);
	struct fid_mr *mr;
	struct ktr_rdm t;

	rt_setup_attr(test, &t, "127.0.0.1",
		      FI_MSG | FI_TAGGED | FI_RMA | FI_SOURCE, true);
	KUNIT_ASSERT_EQ(test, fi_getopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_DATA_MAY_SLEEP, &val, &vlen), 0);
	KUNIT_EXPECT_EQ(test, val, 1);
	val = 0;
	KUNIT_EXPECT_EQ(test, fi_setopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_DATA_MAY_SLEEP, &val,
					sizeof(val)), -EBUSY);
	val = 1;
	KUNIT_EXPECT_EQ(test, fi_setopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_DATA_MAY_SLEEP, &val,
					sizeof(val)), 0);

	rt_exchange(test, &t, sizes, ARRAY_SIZE(sizes), 3);

	/* an RMA write into endpoint 1's region */
	KUNIT_ASSERT_EQ(test, fi_mr_reg(t.domain, t.buf[1], 4096,
					FI_REMOTE_WRITE, 0, 0, 0, &mr, NULL),
			0);
	rt_fill(t.buf[0], 4096, 99);
	KUNIT_ASSERT_EQ(test, fi_write(t.ep[0], t.buf[0], 4096, NULL,
				       t.addr[1], 0, fi_mr_key(mr), NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], t.buf[0], 4096), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&mr->fid), 0);
	rt_teardown(test, &t);
}

/*
 * More rendezvous requests than the connection has bounce buffers wait
 * unexpected while the one receive posted reads its message: the read's
 * answers come on the same connection behind those requests, so they
 * must not hold the bounce buffers.  Then every message is received.
 */
static void rxm_rndv_backlog_test(struct kunit *test)
{
	const size_t len = RT_RNDV;
	const int n = 7;
	struct fi_cq_tagged_entry e;
	struct ktr_rdm t;
	int i;

	rt_setup(test, &t, FI_MSG);
	for (i = 0; i < n; i++)
		rt_fill(t.buf[0] + i * len, len, i);
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], len, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0] + i * len, len,
					      false, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.len, len);
	rt_recv_n(test, &t, 1, n, len);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], t.buf[0], n * len), 0);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	rt_teardown(test, &t);
}

/* Bounce buffers on @fep's connections, and the most they may have. */
static unsigned int rt_nbufs(struct fid_ep *fep, unsigned int *max)
{
	struct rxm_ep *ep = container_of(fep, struct rxm_ep, ep);
	struct rxm_conn *conn;
	unsigned int n = 0;
	unsigned long flags;

	*max = 0;
	spin_lock_irqsave(&ep->lock, flags);
	list_for_each_entry(conn, &ep->conns, node) {
		n += conn->nbufs;
		*max += conn->maxbufs;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	return n;
}

/*
 * A connection starts with one bounce buffer and takes one more for each
 * message that waits unexpected, up to conn_rx_bufs; the messages beyond
 * wait in the core, and all of them arrive once receives are posted.
 */
static void rxm_bufs_grow_test(struct kunit *test)
{
	const size_t len = RT_EAGER;
	const int n = 6;
	struct fi_cq_tagged_entry e;
	unsigned long end;
	unsigned int max;
	struct ktr_rdm t;
	int i;

	rt_setup(test, &t, FI_MSG);
	rt_one_msg(test, &t, 64);
	/* an idle connection: one buffer each side */
	KUNIT_EXPECT_EQ(test, rt_nbufs(t.ep[1], &max), 1);
	KUNIT_EXPECT_EQ(test, max, 4);
	KUNIT_EXPECT_EQ(test, rt_nbufs(t.ep[0], &max), 1);

	for (i = 0; i < n; i++) {
		rt_fill(t.buf[0] + i * len, len, i);
		KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0] + i * len, len,
					      false, 0, NULL), 0);
	}
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	end = jiffies + msecs_to_jiffies(RT_TIMEOUT);
	while (rt_nbufs(t.ep[1], &max) < max && time_before(jiffies, end))
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, rt_nbufs(t.ep[1], &max), 4);
	/* the other side received nothing: it did not grow */
	KUNIT_EXPECT_EQ(test, rt_nbufs(t.ep[0], &max), 1);

	rt_recv_n(test, &t, 0, n, len);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], t.buf[0], n * len), 0);
	KUNIT_EXPECT_EQ(test, rt_nbufs(t.ep[1], &max), 4);
	rt_teardown(test, &t);
}

/*
 * Receive entries are allocated as receives are posted, up to
 * rx_attr->size: an enabled endpoint has none, a full one answers
 * -EAGAIN, and closing frees them, posted or not (kmemleak checks).
 */
static void rxm_rx_entries_test(struct kunit *test)
{
	struct fi_cq_tagged_entry e;
	struct rxm_ep *ep;
	size_t i, size;
	struct ktr_rdm t;

	rt_setup(test, &t, FI_MSG);
	ep = container_of(t.ep[1], struct rxm_ep, ep);
	size = t.info->rx_attr->size;
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->nrx), 0);
	for (i = 0; i < size; i++)
		KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], 64, NULL,
					      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->nrx), size);
	KUNIT_EXPECT_EQ(test, fi_recv(t.ep[1], t.buf[1], 64, NULL,
				      FI_ADDR_UNSPEC, NULL), -EAGAIN);
	/* one completes: its entry is used again, no new one */
	KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], 64, false, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, fi_recv(t.ep[1], t.buf[1], 64, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->nrx), size);
	KUNIT_EXPECT_EQ(test, READ_ONCE(container_of(t.ep[0], struct rxm_ep,
						     ep)->nrx), 0);
	rt_teardown(test, &t);
}

/* ---- RMA ---- */

/* An RMA call of endpoint 0 to endpoint 1, again while -EAGAIN. */
static ssize_t rt_rma(struct ktr_rdm *t, bool write, void *buf, size_t len,
		      u64 raddr, u64 key, void *context)
{
	unsigned long end = jiffies + msecs_to_jiffies(RT_TIMEOUT);
	ssize_t ret;

	do {
		ret = write ? fi_write(t->ep[0], buf, len, NULL, t->addr[1],
				       raddr, key, context) :
			      fi_read(t->ep[0], buf, len, NULL, t->addr[1],
				      raddr, key, context);
		if (ret != -EAGAIN)
			return ret;
		usleep_range(500, 1000);
	} while (time_before(jiffies, end));
	return ret;
}

/*
 * Endpoint 0 writes @len bytes of buf[0] to endpoint 1's region at @raddr
 * until a write completes without error (a connection that was ended
 * fails the writes posted on it before it is known to be down).
 */
static ssize_t rt_write_ok(struct ktr_rdm *t, size_t len, u64 raddr, u64 key)
{
	unsigned long end = jiffies + msecs_to_jiffies(RT_TIMEOUT);
	struct fi_cq_tagged_entry e;
	ssize_t ret;

	do {
		ret = rt_rma(t, true, t->buf[0], len, raddr, key, NULL);
		if (ret)
			return ret;
		ret = rt_comp(t->tx[0], &e, NULL, NULL);
		if (ret == 1)
			return 0;
	} while (time_before(jiffies, end));
	return ret;
}

/*
 * RMA on RDM endpoints: the infos, regions of the domain, writes and reads
 * of every size class (the first opens the connection), writes with
 * remote CQ data (a completion at the target naming its source, the
 * bounce buffer it consumed posted again), inject, bad calls, a refused
 * key (only that connection ends), and a domain that cannot close while a
 * region is open.
 */
static void rxm_rma_test(struct kunit *test)
{
	static const size_t sizes[] = { 1, 4096, RT_EAGER + 1, RT_BIG };
	struct fi_rma_iov rma[2] = {};
	struct fi_msg_rma m = {};
	struct fi_cq_tagged_entry e;
	struct fid_mr *mr;
	struct kvec kv;
	u64 key, base;
	fi_addr_t src;
	struct ktr_rdm t;
	size_t i;
	int k;

	rt_setup(test, &t, FI_MSG | FI_RMA | FI_SOURCE);
	KUNIT_EXPECT_EQ(test, t.info->caps & (FI_READ | FI_WRITE |
					      FI_REMOTE_READ | FI_REMOTE_WRITE),
			FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, t.info->domain_attr->mr_mode, FI_MR_PROV_KEY);
	KUNIT_EXPECT_EQ(test, t.info->domain_attr->mr_key_size, sizeof(u64));
	KUNIT_EXPECT_GE(test, t.info->tx_attr->rma_iov_limit, 1);
	KUNIT_ASSERT_EQ(test, fi_mr_reg(t.domain, t.buf[1], RT_BIG,
					FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0,
					0, &mr, &t), 0);
	key = fi_mr_key(mr);
	base = 0;	/* FI_MR_PROV_KEY without FI_MR_VIRT_ADDR: offsets */

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t len = sizes[i];

		rt_fill(t.buf[0], len, i);
		KUNIT_ASSERT_EQ(test, rt_rma(&t, true, t.buf[0], len, base, key,
					     &t), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.flags, FI_RMA | FI_WRITE);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&t);
		KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], t.buf[0], len), 0);

		rt_fill(t.buf[1], len, i + 100);
		memset(t.buf[0], 0, len);
		KUNIT_ASSERT_EQ(test, rt_rma(&t, false, t.buf[0], len, base,
					     key, &e), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.flags, FI_RMA | FI_READ);
		KUNIT_EXPECT_EQ(test, memcmp(t.buf[0], t.buf[1], len), 0);
	}

	/* remote CQ data: more writes than the connection has buffers */
	for (k = 0; k < 3; k++) {
		rt_fill(t.buf[0], 64, k);
		KUNIT_ASSERT_EQ(test, fi_writedata(t.ep[0], t.buf[0], 64, NULL,
						   0x1234567890ab0000ULL + k,
						   t.addr[1], base + 64 * k,
						   key, &t), 0);
		KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.flags, FI_RMA | FI_WRITE);
		KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, &src, NULL), 1);
		KUNIT_EXPECT_EQ(test, e.flags, FI_RMA | FI_REMOTE_WRITE |
				FI_REMOTE_CQ_DATA);
		KUNIT_EXPECT_EQ(test, e.data, 0x1234567890ab0000ULL + k);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, NULL);
		KUNIT_EXPECT_EQ(test, src, t.addr[0]);
		KUNIT_EXPECT_EQ(test, memcmp(t.buf[1] + 64 * k, t.buf[0], 64),
				0);
	}
	rt_one_msg(test, &t, 8);

	/* inject: no completion, the data there before a later read's */
	rt_fill(t.buf[0], 256, 7);
	KUNIT_EXPECT_EQ(test, fi_inject_write(t.ep[0], t.buf[0], 256,
					      t.addr[1], base + 100, key), 0);
	KUNIT_EXPECT_EQ(test, fi_inject_write(t.ep[0], t.buf[0], 257,
					      t.addr[1], base, key),
			-EMSGSIZE);
	KUNIT_ASSERT_EQ(test, fi_read(t.ep[0], t.buf[0] + 4096, 256, NULL,
				      t.addr[1], base + 100, key, NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.flags, FI_RMA | FI_READ);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[0] + 4096, t.buf[0], 256), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.tx[0], &e, 1), -EAGAIN);

	/* bad calls: nothing posted */
	KUNIT_EXPECT_EQ(test, fi_write(t.ep[0], t.buf[0], 8, NULL, 77, base,
				       key, NULL), -EINVAL);
	kv.iov_base = t.buf[0];
	kv.iov_len = 8;
	m.iov_type = FI_IOV_KVEC;
	m.msg_iov = &kv;
	m.iov_count = 1;
	m.addr = t.addr[1];
	m.rma_iov = rma;
	KUNIT_EXPECT_EQ(test, fi_writemsg(t.ep[0], &m, 0), -EINVAL);
	m.rma_iov_count = t.info->tx_attr->rma_iov_limit + 1;
	KUNIT_EXPECT_EQ(test, fi_writemsg(t.ep[0], &m, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.tx[0], &e, 1), -EAGAIN);

	/* a key the target refuses: that read fails, the peer is reached again */
	KUNIT_ASSERT_EQ(test, fi_read(t.ep[0], t.buf[0], 8, NULL, t.addr[1],
				      base, key ^ 1, NULL), 0);
	KUNIT_EXPECT_LT(test, rt_comp(t.tx[0], &e, NULL, NULL), 0);
	rt_fill(t.buf[0], 512, 9);
	KUNIT_EXPECT_EQ(test, rt_write_ok(&t, 512, base, key), 0);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], t.buf[0], 512), 0);

	/* the domain stays open while a region is */
	for (k = 0; k < 2; k++) {
		rt_close(test, &t.ep[k]->fid);
		t.ep[k] = NULL;
		rt_close(test, &t.tx[k]->fid);
		t.tx[k] = NULL;
		rt_close(test, &t.rx[k]->fid);
		t.rx[k] = NULL;
	}
	rt_close(test, &t.av->fid);
	t.av = NULL;
	KUNIT_EXPECT_EQ(test, fi_close(&t.domain->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, fi_close(&mr->fid), 0);
	rt_teardown(test, &t);
}

/* ---- the wire: a ksocket endpoint as libfabric's tcp under ofi_rxm ---- */

#define RT_PEER_PORT	4242	/* the name the peer says it listens on */

struct rt_peer {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_eq *eq;
	struct fid_cq *tx, *rx;
	struct fid_ep *ep;
	fi_addr_t fi_addr;	/* in the rxm endpoints' AV */
};

/* What the peer's claim() was told: it sends every message to a receive. */
static struct {
	unsigned int calls;
	struct fi_tagged_frame f;
} rt_claimed;

static int rt_claim(struct fid_ep *ep, const struct fi_tagged_frame *f,
		    struct fi_tagged_dest *d)
{
	rt_claimed.calls++;
	rt_claimed.f = *f;
	return FI_TAGGED_RX_POSTED;
}

static const struct fi_tagged_rx rt_claim_ops = { .claim = rt_claim };

/* The peer connects to rxm endpoint 1 with rxm's connection request. */
static void rt_peer_open(struct kunit *test, struct ktr_rdm *t,
			 struct rt_peer *p)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
	struct fi_eq_attr eq_attr = {};
	struct sockaddr_in name, self = {
		.sin_family = AF_INET,
		.sin_port = htons(RT_PEER_PORT),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct {
		struct fi_eq_cm_entry e;
		u8 data[FI_CM_DATA_MAX];
	} ev;
	struct fi_info *hints = fi_allocinfo(GFP_KERNEL);
	struct rxm_cm_req req;
	size_t len = sizeof(name);
	u32 event;

	memset(p, 0, sizeof(*p));
	memset(&rt_claimed, 0, sizeof(rt_claimed));
	KUNIT_ASSERT_NOT_NULL(test, hints);
	hints->caps = FI_MSG | FI_RMA;
	hints->ep_attr->type = FI_EP_MSG;
	hints->fabric_attr->prov_name = kstrdup("ksocket", GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, fi_getinfo(fi_version(), "127.0.0.1", "0",
					 FI_SOURCE, hints, &p->info), 0);
	fi_freeinfo(hints);
	KUNIT_ASSERT_EQ(test, fi_av_insert(t->av, &self, 1, &p->fi_addr, 0,
					   NULL), 1);
	KUNIT_ASSERT_EQ(test, fi_fabric(p->info->fabric_attr, &p->fabric,
					NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_domain(p->fabric, p->info, &p->domain, NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_eq_open(p->fabric, &eq_attr, &p->eq, NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_cq_open(p->domain, &cq_attr, &p->tx, NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_cq_open(p->domain, &cq_attr, &p->rx, NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_endpoint(p->domain, p->info, &p->ep, NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_setopt(&p->ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_TAGGED_RX, &rt_claim_ops,
					sizeof(rt_claim_ops)), 0);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(p->ep, &p->eq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(p->ep, &p->tx->fid, FI_SEND), 0);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(p->ep, &p->rx->fid, FI_RECV), 0);
	KUNIT_ASSERT_EQ(test, fi_enable(p->ep), 0);
	KUNIT_ASSERT_EQ(test, fi_getname(&t->ep[1]->fid, &name, &len), 0);
	rxm_cm_req_fill(&req, RT_PEER_PORT, RXM_FLOW_CTRL_OFF, 256, 7ULL << 32);
	KUNIT_ASSERT_EQ(test, fi_connect(p->ep, &name, &req, sizeof(req)), 0);
	KUNIT_ASSERT_GE(test, fi_eq_sread(p->eq, &event, &ev, sizeof(ev),
					  RT_TIMEOUT, 0),
			(ssize_t)(sizeof(ev.e) + sizeof(struct rxm_cm_accept)));
	KUNIT_ASSERT_EQ(test, event, FI_CONNECTED);
}

static void rt_peer_close(struct kunit *test, struct rt_peer *p)
{
	rt_close(test, p->ep ? &p->ep->fid : NULL);
	rt_close(test, p->tx ? &p->tx->fid : NULL);
	rt_close(test, p->rx ? &p->rx->fid : NULL);
	rt_close(test, p->eq ? &p->eq->fid : NULL);
	rt_close(test, p->domain ? &p->domain->fid : NULL);
	rt_close(test, p->fabric ? &p->fabric->fid : NULL);
	fi_freeinfo(p->info);
}

/* The peer sends a tagged message as libfabric's tcp does for its rxm. */
static void rt_peer_tsend(struct kunit *test, struct rt_peer *p,
			  const void *buf, size_t len, u64 tag)
{
	KUNIT_ASSERT_EQ(test, fi_tsenddata(p->ep, buf, len, NULL, 3,
					   FI_ADDR_UNSPEC, tag, NULL), 0);
}

/*
 * Tagged messages without rxm's header, both ways: placed in the receive
 * they match, waiting unexpected, cut off, larger than a bounce buffer
 * (in a buffer of their own, or held past big_unexp_bytes); the header
 * form still taken; and what rxm sends.
 */
static void rxm_tagged_wire_test(struct kunit *test)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct rxm_hdr hdr;
	struct kvec kv[2];
	struct rt_peer p;
	unsigned long end;
	fi_addr_t src;
	struct ktr_rdm t;
	struct rxm_ep *rep;
	unsigned long max;
	u8 *big;
	ssize_t ret;

	rt_setup(test, &t, FI_MSG | FI_TAGGED | FI_SOURCE);
	rep = container_of(t.ep[1], struct rxm_ep, ep);
	max = rep->big_max;
	rt_peer_open(test, &t, &p);
	big = t.buf[0];
	rt_fill(big, 20000, 3);

	/* placed straight in the receive it matches, with its data */
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1], 64, NULL,
				       FI_ADDR_UNSPEC, 0x55, 0, &t), 0);
	rt_peer_tsend(test, &p, big, 32, 0x55);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, &src, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.flags, FI_RECV | FI_TAGGED | FI_REMOTE_CQ_DATA);
	KUNIT_EXPECT_EQ(test, e.tag, 0x55);
	KUNIT_EXPECT_EQ(test, e.data, 3);
	KUNIT_EXPECT_EQ(test, e.len, 32);
	KUNIT_EXPECT_EQ(test, src, p.fi_addr);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], big, 32), 0);

	/* unexpected: it waits in a bounce buffer */
	rt_peer_tsend(test, &p, big + 1, 40, 0x56);
	msleep(50);
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1], 64, NULL,
				       FI_ADDR_UNSPEC, 0x56, 0, &t), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, &src, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.tag, 0x56);
	KUNIT_EXPECT_EQ(test, e.len, 40);
	KUNIT_EXPECT_EQ(test, e.data, 3);
	KUNIT_EXPECT_EQ(test, src, p.fi_addr);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], big + 1, 40), 0);

	/* a receive too short: what fits, EMSGSIZE */
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1], 8, NULL,
				       FI_ADDR_UNSPEC, 0x57, 0, &t), 0);
	rt_peer_tsend(test, &p, big, 32, 0x57);
	KUNIT_EXPECT_EQ(test, rt_comp(t.rx[1], &e, NULL, &err), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, err.len, 8);
	KUNIT_EXPECT_EQ(test, err.olen, 24);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)&t);

	/* an untagged message comes with rxm's header */
	rxm_hdr_fill(&hdr, RXM_EAGER, RXM_OP_MSG, 0, 0, 5, 0, 0, 0);
	kv[0].iov_base = &hdr;
	kv[0].iov_len = sizeof(hdr);
	kv[1].iov_base = "hello";
	kv[1].iov_len = 5;
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], 64, NULL,
				      FI_ADDR_UNSPEC, &t), 0);
	KUNIT_ASSERT_EQ(test, fi_sendv(p.ep, kv, NULL, 2, FI_ADDR_UNSPEC,
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.flags, FI_RECV | FI_MSG);
	KUNIT_EXPECT_EQ(test, e.len, 5);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], "hello", 5), 0);

	/*
	 * Larger than a bounce buffer and unexpected: it waits in a buffer
	 * of its own, and what follows is received meanwhile.
	 */
	rt_peer_tsend(test, &p, big, 20000, 0xa);
	rt_peer_tsend(test, &p, big + 2, 8, 0xb);
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1] + SZ_64K, 64, NULL,
				       FI_ADDR_UNSPEC, 0xb, 0, &p), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&p);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1] + SZ_64K, big + 2, 8), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&rep->big_bytes), 20000);
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1], 20000, NULL,
				       FI_ADDR_UNSPEC, 0xa, 0, &t), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&t);
	KUNIT_EXPECT_EQ(test, e.len, 20000);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], big, 20000), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&rep->big_bytes), 0);

	/*
	 * Past big_unexp_bytes: it holds its connection, and what follows
	 * waits behind it.
	 */
	rep->big_max = 0;
	rt_peer_tsend(test, &p, big, 20000, 0xa);
	rt_peer_tsend(test, &p, big + 2, 8, 0xb);
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1] + SZ_64K, 64, NULL,
				       FI_ADDR_UNSPEC, 0xb, 0, &p), 0);
	msleep(100);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.rx[1], &e, 1), -EAGAIN);
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1], 20000, NULL,
				       FI_ADDR_UNSPEC, 0xa, 0, &t), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&t);
	KUNIT_EXPECT_EQ(test, e.len, 20000);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], big, 20000), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&p);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1] + SZ_64K, big + 2, 8), 0);
	rep->big_max = max;

	/* rxm sends a tagged message without its header: the core's tag */
	KUNIT_ASSERT_EQ(test, fi_recv(p.ep, t.buf[1], RT_EAGER + 64, NULL,
				      FI_ADDR_UNSPEC, &p), 0);
	end = jiffies + msecs_to_jiffies(RT_TIMEOUT);
	do {
		ret = fi_tsend(t.ep[1], big, 40, NULL, p.fi_addr, 0x77, NULL);
		if (ret == -EAGAIN)
			usleep_range(500, 1000);
	} while (ret == -EAGAIN && time_before(jiffies, end));
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, rt_comp(p.rx, &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.flags, FI_RECV | FI_TAGGED);
	KUNIT_EXPECT_EQ(test, e.tag, 0x77);
	KUNIT_EXPECT_EQ(test, e.len, 40);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1], big, 40), 0);
	KUNIT_EXPECT_EQ(test, rt_claimed.calls, 1U);
	KUNIT_EXPECT_EQ(test, rt_claimed.f.tag, 0x77ULL);
	KUNIT_EXPECT_EQ(test, rt_claimed.f.len, 40);
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.flags, FI_SEND | FI_TAGGED);

	rt_teardown(test, &t);
	rt_peer_close(test, &p);
}

/* ---- sends to addresses the AV does not hold ---- */

/* Every send form answers -EINVAL for @dest. */
static void rt_expect_einval(struct kunit *test, struct ktr_rdm *t,
			     fi_addr_t dest)
{
	struct kvec kv = { .iov_base = t->buf[0], .iov_len = 8 };
	struct fi_msg m = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &kv,
		.iov_count = 1,
		.addr = dest,
	};
	struct fi_msg_tagged tm = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &kv,
		.iov_count = 1,
		.addr = dest,
		.tag = 1,
	};
	struct fid_ep *ep = t->ep[0];
	u8 *b = t->buf[0];

	KUNIT_EXPECT_EQ(test, fi_send(ep, b, 8, NULL, dest, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_send(ep, b, RT_EAGER + 1, NULL, dest, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_sendv(ep, &kv, NULL, 1, dest, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_sendmsg(ep, &m, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_inject(ep, b, 8, dest), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_senddata(ep, b, 8, NULL, 5, dest, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_injectdata(ep, b, 8, 5, dest), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_tsend(ep, b, 8, NULL, dest, 1, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_tsendv(ep, &kv, NULL, 1, dest, 1, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_tsendmsg(ep, &tm, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_tinject(ep, b, 8, dest, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_tsenddata(ep, b, 8, NULL, 5, dest, 1, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_tinjectdata(ep, b, 8, 5, dest, 1), -EINVAL);
}

/* Never handed out, FI_ADDR_NOTAVAIL, removed: -EINVAL, no completion. */
static void rxm_bad_addr_test(struct kunit *test)
{
	struct sockaddr_in gone = {
		.sin_family = AF_INET,
		.sin_port = htons(9),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct fi_cq_tagged_entry e;
	fi_addr_t addr;
	struct ktr_rdm t;

	rt_setup(test, &t, FI_MSG | FI_TAGGED | FI_SOURCE);
	KUNIT_ASSERT_EQ(test, fi_av_insert(t.av, &gone, 1, &addr, 0, NULL), 1);
	KUNIT_ASSERT_EQ(test, fi_av_remove(t.av, &addr, 1, 0), 0);
	rt_expect_einval(test, &t, 77);
	rt_expect_einval(test, &t, FI_ADDR_NOTAVAIL);
	rt_expect_einval(test, &t, addr);
	/* ... also once the removed peer's connection had been up */
	rt_one_msg(test, &t, 8);
	KUNIT_ASSERT_EQ(test, fi_av_remove(t.av, &t.addr[1], 1, 0), 0);
	rt_expect_einval(test, &t, t.addr[1]);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.tx[0], &e, 1), -EAGAIN);
	rt_teardown(test, &t);
}

/* ---- a peer removed from the AV with traffic in flight ---- */

#define RT_QUEUED	32	/* eager sends in flight at the removal */

/*
 * Endpoint 0 has eager sends, a rendezvous send waiting for its answer
 * and a receive directed to endpoint 1 in flight when endpoint 1 leaves
 * the AV: every one of them completes (the eager sends that had left
 * with success, the others and the directed receive with ECANCELED), a
 * receive from any source stays posted, endpoint 1 reaches endpoint 0
 * again (as FI_ADDR_NOTAVAIL), and once inserted again it is reached.
 */
static void rxm_av_remove_test(struct kunit *test)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	int rndv_ctx, dir_ctx, any_ctx, i, ok = 0, cancelled = 0;
	bool rndv_cancelled = false, sent = false;
	struct kvec kv = { .iov_len = 8 };
	struct fi_msg m = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &kv,
		.iov_count = 1,
	};
	struct sockaddr_in name;
	size_t len = sizeof(name);
	fi_addr_t src, again;
	struct ktr_rdm t;
	ssize_t ret;

	rt_setup(test, &t, FI_MSG | FI_TAGGED | FI_SOURCE | FI_DIRECTED_RECV);
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[0], t.buf[0] + RT_BIG / 2, 64, NULL,
				      t.addr[1], &dir_ctx), 0);
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[0], t.buf[0] + RT_BIG / 2 + 64, 64,
				      NULL, FI_ADDR_UNSPEC, &any_ctx), 0);
	/* endpoint 1 receives nothing: the sends pile up on the way */
	KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], RT_RNDV, false, 0,
				      &rndv_ctx), 0);
	for (i = 0; i < RT_QUEUED; i++)
		KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], RT_EAGER, false,
					      0, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_av_remove(t.av, &t.addr[1], 1, 0), 0);
	kv.iov_base = t.buf[1];
	m.addr = t.addr[0];

	KUNIT_EXPECT_EQ(test, rt_comp(t.rx[0], &e, NULL, &err), -ECANCELED);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)&dir_ctx);
	for (i = 0; i < RT_QUEUED + 1; i++) {
		ret = rt_comp(t.tx[0], &e, NULL, &err);
		if (ret == 1) {
			KUNIT_EXPECT_NULL(test, e.op_context);
			ok++;
			continue;
		}
		KUNIT_ASSERT_EQ(test, ret, -ECANCELED);
		if (err.op_context == &rndv_ctx)
			rndv_cancelled = true;
		else
			cancelled++;
	}
	KUNIT_EXPECT_TRUE(test, rndv_cancelled);
	KUNIT_EXPECT_EQ(test, ok + cancelled, RT_QUEUED);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.tx[0], &e, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.rx[0], &e, 1), -EAGAIN);

	/*
	 * Endpoint 1 still reaches endpoint 0, as a peer endpoint 0 does
	 * not know - once it has seen its old connection end: a send on
	 * that one is not delivered (it fails), and is sent again.
	 */
	for (i = 0; i < RT_TIMEOUT / 20 && !sent; i++) {
		ret = fi_sendmsg(t.ep[1], &m, FI_DELIVERY_COMPLETE);
		sent = !ret && rt_comp(t.tx[1], &e, NULL, NULL) == 1;
		if (!sent)
			msleep(20);
	}
	KUNIT_ASSERT_TRUE(test, sent);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[0], &e, &src, NULL), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&any_ctx);
	KUNIT_EXPECT_EQ(test, src, FI_ADDR_NOTAVAIL);

	/* inserted again, endpoint 1 is reached */
	KUNIT_ASSERT_EQ(test, fi_getname(&t.ep[1]->fid, &name, &len), 0);
	KUNIT_ASSERT_EQ(test, fi_av_insert(t.av, &name, 1, &again, 0, NULL), 1);
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[1], t.buf[1], 64, NULL,
				       FI_ADDR_UNSPEC, 9, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_sendto(&t, 0, again, t.buf[0], 8, true, 9,
					NULL), 0);
	KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[1], &e, &src, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.tag, 9);
	KUNIT_EXPECT_EQ(test, src, t.addr[0]);
	rt_teardown(test, &t);
}

/* ---- a raw peer: ksocket frames and rxm packets on a kernel socket ---- */

/**
 * struct rt_raw - a peer of endpoint 0 played by hand
 * @lsock: its listening socket, whose port is its name's
 * @sock: its connection to endpoint 0
 * @name: its name
 * @fi_addr: its name in the AV
 * @conn_id: endpoint 0's id of the connection (from its accept)
 */
struct rt_raw {
	struct socket *lsock;
	struct socket *sock;
	struct sockaddr_in name;
	fi_addr_t fi_addr;
	u64 conn_id;
};

/* A rendezvous request as it comes off the wire. */
struct rt_rndv_pkt {
	struct rxm_hdr hdr;
	struct rxm_rndv r;
} __packed;

static int rt_raw_send(struct socket *sock, const void *buf, size_t len)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {};

	return kernel_sendmsg(sock, &msg, &kv, 1, len);
}

static int rt_raw_recv(struct socket *sock, void *buf, size_t len)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {};

	return kernel_recvmsg(sock, &msg, &kv, 1, len, MSG_WAITALL);
}

static struct socket *rt_raw_socket(struct kunit *test)
{
	struct socket *sock;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &sock), 0);
	sock->sk->sk_rcvtimeo = msecs_to_jiffies(RT_TIMEOUT);
	sock->sk->sk_sndtimeo = msecs_to_jiffies(RT_TIMEOUT);
	return sock;
}

/* A listener on 127.0.0.1, any port: the kernel completes handshakes. */
static struct socket *rt_raw_listen(struct kunit *test,
				    struct sockaddr_in *name)
{
	struct socket *sock = rt_raw_socket(test);

	memset(name, 0, sizeof(*name));
	name->sin_family = AF_INET;
	name->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	KUNIT_ASSERT_EQ(test, kernel_bind(sock, (struct sockaddr *)name,
					  sizeof(*name)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(sock, 8), 0);
	KUNIT_ASSERT_EQ(test, kernel_getsockname(sock,
						 (struct sockaddr *)name),
			(int)sizeof(*name));
	return sock;
}

/* Send a ksocket control message of @type with @len bytes of data. */
static void rt_raw_ctrl_send(struct kunit *test, struct socket *sock, u8 type,
			     const void *data, size_t len)
{
	u8 buf[sizeof(struct ksock_ctrl_hdr) + 64] = {};
	struct ksock_ctrl_hdr *hdr = (struct ksock_ctrl_hdr *)buf;

	KUNIT_ASSERT_LE(test, len, (size_t)64);
	hdr->version = KSOCK_CTRL_VERSION;
	hdr->type = type;
	hdr->seg_size = cpu_to_be16(len);
	hdr->conn_data = 1;
	memcpy(buf + sizeof(*hdr), data, len);
	KUNIT_ASSERT_EQ(test, rt_raw_send(sock, buf, sizeof(*hdr) + len),
			(int)(sizeof(*hdr) + len));
}

/* Read a ksocket control message: its type and data; -EIO on failure. */
static int rt_raw_ctrl_recv(struct socket *sock, u8 *type, void *data,
			    size_t max)
{
	struct ksock_ctrl_hdr hdr;
	size_t len;

	if (rt_raw_recv(sock, &hdr, sizeof(hdr)) != sizeof(hdr))
		return -EIO;
	*type = hdr.type;
	len = be16_to_cpu(hdr.seg_size);
	if (len > max || (len && rt_raw_recv(sock, data, len) != len))
		return -EIO;
	return len;
}

/* Connect to endpoint 0 with a request carrying @cm (@len bytes). */
static struct socket *rt_raw_dial(struct kunit *test, struct ktr_rdm *t,
				  const void *cm, size_t len)
{
	struct socket *sock = rt_raw_socket(test);
	struct sockaddr_in name;
	size_t nlen = sizeof(name);

	KUNIT_ASSERT_EQ(test, fi_getname(&t->ep[0]->fid, &name, &nlen), 0);
	KUNIT_ASSERT_EQ(test, kernel_connect(sock, (struct sockaddr *)&name,
					     sizeof(name), 0), 0);
	rt_raw_ctrl_send(test, sock, KSOCK_CTRL_CONNREQ, cm, len);
	return sock;
}

/* The raw peer joins the AV and connects to endpoint 0, accepted. */
static void rt_raw_join(struct kunit *test, struct ktr_rdm *t, struct rt_raw *r)
{
	struct rxm_cm_accept acc;
	struct rxm_cm_req req;
	u8 type;

	r->lsock = rt_raw_listen(test, &r->name);
	KUNIT_ASSERT_EQ(test, fi_av_insert(t->av, &r->name, 1, &r->fi_addr, 0,
					   NULL), 1);
	rxm_cm_req_fill(&req, ntohs(r->name.sin_port), RXM_FLOW_CTRL_OFF, 16,
			7);
	r->sock = rt_raw_dial(test, t, &req, sizeof(req));
	KUNIT_ASSERT_EQ(test, rt_raw_ctrl_recv(r->sock, &type, &acc,
					       sizeof(acc)),
			(int)sizeof(acc));
	KUNIT_ASSERT_EQ(test, type, KSOCK_CTRL_CONNRESP);
	KUNIT_EXPECT_EQ(test, acc.flow_ctrl, RXM_FLOW_CTRL_OFF);
	r->conn_id = le64_to_cpu(acc.conn_id);
}

static void rt_raw_leave(struct rt_raw *r)
{
	if (r->sock)
		sock_release(r->sock);
	if (r->lsock)
		sock_release(r->lsock);
	memset(r, 0, sizeof(*r));
}

/* Send the rxm packet @pkt (@len bytes) in a ksocket message. */
static void rt_raw_pkt_send(struct kunit *test, struct socket *sock,
			    const void *pkt, size_t len)
{
	struct ksock_base_hdr hdr = {
		.version = KSOCK_PROTO_VERSION,
		.op = KSOCK_OP_MSG,
		.hdr_size = sizeof(hdr),
		.size = sizeof(hdr) + len,
	};
	struct kvec kv[2] = {
		{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)pkt, .iov_len = len },
	};
	struct msghdr msg = {};

	KUNIT_ASSERT_EQ(test, kernel_sendmsg(sock, &msg, kv, 2,
					     sizeof(hdr) + len),
			(int)(sizeof(hdr) + len));
}

/* Read the rxm packet of the next ksocket message; its length or -errno. */
static int rt_raw_pkt_recv(struct socket *sock, void *pkt, size_t max)
{
	struct ksock_base_hdr hdr;
	size_t len;

	if (rt_raw_recv(sock, &hdr, sizeof(hdr)) != sizeof(hdr))
		return -EIO;
	if (hdr.version != KSOCK_PROTO_VERSION || hdr.op != KSOCK_OP_MSG ||
	    hdr.hdr_size != sizeof(hdr) || hdr.size < sizeof(hdr))
		return -EPROTO;
	len = hdr.size - sizeof(hdr);
	if (len > max)
		return -EMSGSIZE;
	if (rt_raw_recv(sock, pkt, len) != len)
		return -EIO;
	return len;
}

/*
 * The raw peer itself, well behaved: an eager message each way, and a
 * rendezvous request of endpoint 0 answered - so that what the fault
 * tests break is the one thing they change.
 */
static void rxm_raw_peer_test(struct kunit *test)
{
	struct {
		struct rxm_hdr hdr;
		char data[8];
	} __packed in = {}, out;
	struct rt_rndv_pkt req;
	struct fi_cq_tagged_entry e;
	struct rt_raw r = {};
	struct rxm_hdr done;
	fi_addr_t src;
	struct ktr_rdm t;
	int ctx;

	rt_setup(test, &t, FI_MSG | FI_SOURCE);
	rt_raw_join(test, &t, &r);
	/* in: received with the raw peer's fi_addr */
	rxm_hdr_fill(&in.hdr, RXM_EAGER, RXM_OP_MSG, r.conn_id, 0,
		     sizeof(in.data), RXM_FLAG_CQ_DATA, 42, 0);
	memcpy(in.data, "raw rxm", 8);
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[0], t.buf[0], 64, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	rt_raw_pkt_send(test, r.sock, &in, sizeof(in));
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[0], &e, &src, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.len, 8);
	KUNIT_EXPECT_EQ(test, e.data, 42);
	KUNIT_EXPECT_EQ(test, src, r.fi_addr);
	KUNIT_EXPECT_STREQ(test, (char *)t.buf[0], "raw rxm");
	/* out: an eager packet with our conn id */
	KUNIT_ASSERT_EQ(test, rt_sendto(&t, 0, r.fi_addr, "pong", 5, false, 0,
					NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_raw_pkt_recv(r.sock, &out, sizeof(out)),
			(int)sizeof(out.hdr) + 5);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(&out, sizeof(out.hdr) + 5), 0);
	KUNIT_EXPECT_EQ(test, out.hdr.type, RXM_EAGER);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(out.hdr.conn_id), 7);
	KUNIT_EXPECT_STREQ(test, out.data, "pong");
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	/* a rendezvous request, answered: the send completes */
	KUNIT_ASSERT_EQ(test, rt_sendto(&t, 0, r.fi_addr, t.buf[0],
					RT_RNDV, false, 0, &ctx), 0);
	KUNIT_ASSERT_EQ(test, rt_raw_pkt_recv(r.sock, &req, sizeof(req)),
			(int)sizeof(req));
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(&req, sizeof(req)), 0);
	KUNIT_EXPECT_EQ(test, rxm_rndv_check(&req, sizeof(req)), 0);
	KUNIT_EXPECT_EQ(test, req.hdr.type, RXM_RNDV_REQ);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.tx[0], &e, 1), -EAGAIN);
	rxm_hdr_fill(&done, RXM_RNDV_RD_DONE, RXM_OP_MSG, r.conn_id,
		     le64_to_cpu(req.hdr.msg_id), 0, 0, 0, 0);
	rt_raw_pkt_send(test, r.sock, &done, sizeof(done));
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&ctx);
	rt_raw_leave(&r);
	rt_teardown(test, &t);
}

/* ---- segmented messages, as libfabric's rxm sends them over verbs ---- */

#define RT_SAR_SIZE	(2 * RT_EAGER + 100)	/* three segments */

/*
 * A message above the eager limit and at most the SAR limit goes to the
 * raw peer as segments: one msg_id, numbered, positioned, the payload in
 * order; the send completes once they went; the SAR limit plus one byte
 * goes by rendezvous (rxm_raw_peer_test).
 */
static void rxm_sar_send_test(struct kunit *test)
{
	size_t pkt_max = sizeof(struct rxm_hdr) + RT_EAGER, off = 0;
	u8 *pkt = kunit_kmalloc(test, pkt_max, GFP_KERNEL);
	struct fi_cq_tagged_entry e;
	struct rxm_hdr *hdr = (void *)pkt;
	struct rt_raw r = {};
	struct ktr_rdm t;
	u64 msg_id = 0;
	int ctx, len;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, pkt);
	rt_setup(test, &t, FI_MSG | FI_TAGGED);
	rt_raw_join(test, &t, &r);
	rt_fill(t.buf[0], RT_SAR_SIZE, 3);
	KUNIT_ASSERT_EQ(test, rt_sendto(&t, 0, r.fi_addr, t.buf[0],
					RT_SAR_SIZE, true, 0x77, &ctx), 0);
	for (i = 0; i < 3; i++) {
		len = rt_raw_pkt_recv(r.sock, pkt, pkt_max);
		KUNIT_ASSERT_GT(test, len, (int)sizeof(*hdr));
		KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, len), 0);
		KUNIT_EXPECT_EQ(test, hdr->type, RXM_SEGMENT);
		KUNIT_EXPECT_EQ(test, hdr->op, RXM_OP_TAGGED);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(hdr->tag), 0x77);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(hdr->conn_id), 7);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(hdr->size), RT_SAR_SIZE);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(hdr->seg_no), i);
		KUNIT_EXPECT_EQ(test, le16_to_cpu(hdr->seg_size),
				min_t(size_t, RT_EAGER, RT_SAR_SIZE - off));
		KUNIT_EXPECT_EQ(test, le16_to_cpu(hdr->seg_size) + sizeof(*hdr),
				(size_t)len);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(hdr->ctrl_data),
				!i ? RXM_SEG_FIRST : i == 2 ? RXM_SEG_LAST :
				RXM_SEG_MIDDLE);
		if (!i)
			msg_id = le64_to_cpu(hdr->msg_id);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(hdr->msg_id), msg_id);
		KUNIT_EXPECT_EQ(test, memcmp(hdr + 1, t.buf[0] + off,
					     len - sizeof(*hdr)), 0);
		off += len - sizeof(*hdr);
	}
	KUNIT_EXPECT_EQ(test, off, RT_SAR_SIZE);
	KUNIT_ASSERT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&ctx);
	KUNIT_EXPECT_EQ(test, e.len, RT_SAR_SIZE);
	rt_raw_leave(&r);
	rt_teardown(test, &t);
}

/* Send segment @seg_no of the message @data of @size bytes. */
static void rt_raw_seg_send(struct kunit *test, struct rt_raw *r, u8 op,
			    u64 msg_id, const u8 *data, size_t size,
			    u32 seg_no, u64 tag)
{
	size_t off = seg_no * RT_EAGER, len = min_t(size_t, size - off,
						    RT_EAGER);
	struct rxm_hdr *hdr;
	u8 pos;

	hdr = kunit_kmalloc(test, sizeof(*hdr) + len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hdr);
	pos = !seg_no ? RXM_SEG_FIRST :
	      off + len == size ? RXM_SEG_LAST : RXM_SEG_MIDDLE;
	rxm_hdr_fill(hdr, RXM_SEGMENT, op, r->conn_id, msg_id, size, 0, 0,
		     tag);
	hdr->seg_size = cpu_to_le16(len);
	hdr->seg_no = cpu_to_le32(seg_no);
	hdr->ctrl_data = cpu_to_le64(pos);
	memcpy(hdr + 1, data + off, len);
	rt_raw_pkt_send(test, r->sock, hdr, sizeof(*hdr) + len);
	kunit_kfree(test, hdr);
}

/*
 * The raw peer's eager message with @tag, received by endpoint 0: what it
 * sent before has arrived too (a connection keeps its order).
 */
static void rt_raw_sentinel(struct kunit *test, struct ktr_rdm *t,
			    struct rt_raw *r, u64 tag)
{
	struct {
		struct rxm_hdr hdr;
		char data[8];
	} __packed pkt;
	struct fi_cq_tagged_entry e;
	char got[8] = {};
	int ctx;

	KUNIT_ASSERT_EQ(test, fi_trecv(t->ep[0], got, sizeof(got), NULL,
				       FI_ADDR_UNSPEC, tag, 0, &ctx), 0);
	rxm_hdr_fill(&pkt.hdr, RXM_EAGER, RXM_OP_TAGGED, r->conn_id, 0,
		     sizeof(pkt.data), 0, 0, tag);
	memcpy(pkt.data, "in line", 8);
	rt_raw_pkt_send(test, r->sock, &pkt, sizeof(pkt));
	KUNIT_ASSERT_EQ(test, rt_comp(t->rx[0], &e, NULL, NULL), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&ctx);
	KUNIT_EXPECT_STREQ(test, got, "in line");
}

/*
 * Segmented messages from the raw peer: into a posted receive (straight
 * into it, over ksocket), whole or cut off by a short one; tagged and
 * waiting unexpected (peeked at their whole size) while segments are
 * still to come; cut off by a short receive; discarded while still
 * arriving, the connection going on; into a multi-receive buffer
 * cancelled meanwhile (the buffer completes after the message); and cut
 * by the connection's end.
 */
static void rxm_sar_test(struct kunit *test)
{
	u8 *msg = kunit_kmalloc(test, RT_SAR_SIZE, GFP_KERNEL);
	struct fi_msg_tagged m = {};
	struct fi_msg mm = {};
	struct kvec kv;
	int mctx;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct rt_raw r = {};
	fi_addr_t src;
	struct ktr_rdm t;
	int i, ctx;

	KUNIT_ASSERT_NOT_NULL(test, msg);
	rt_fill(msg, RT_SAR_SIZE, 3);
	rt_setup(test, &t, FI_MSG | FI_TAGGED | FI_SOURCE | FI_MULTI_RECV);
	rt_raw_join(test, &t, &r);

	/* into a posted receive, segment by segment */
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[0], t.buf[0], RT_BIG, NULL,
				      FI_ADDR_UNSPEC, &ctx), 0);
	for (i = 0; i < 3; i++)
		rt_raw_seg_send(test, &r, RXM_OP_MSG, 1, msg, RT_SAR_SIZE, i,
				0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[0], &e, &src, NULL), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&ctx);
	KUNIT_EXPECT_EQ(test, e.len, RT_SAR_SIZE);
	KUNIT_EXPECT_EQ(test, src, r.fi_addr);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[0], msg, RT_SAR_SIZE), 0);

	/* into a posted receive too short for it: cut off, EMSGSIZE */
	memset(t.buf[0], 0, RT_SAR_SIZE);
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[0], t.buf[0], RT_EAGER + 10, NULL,
				      FI_ADDR_UNSPEC, &ctx), 0);
	for (i = 0; i < 3; i++)
		rt_raw_seg_send(test, &r, RXM_OP_MSG, 7, msg, RT_SAR_SIZE, i,
				0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[0], &e, NULL, &err), -EMSGSIZE);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)&ctx);
	KUNIT_EXPECT_EQ(test, err.olen, RT_SAR_SIZE - (RT_EAGER + 10));
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[0], msg, RT_EAGER + 10), 0);
	KUNIT_EXPECT_EQ(test, t.buf[0][RT_EAGER + 10], 0);

	/* tagged, two segments waiting: peeked, taken, the last goes on */
	memset(t.buf[0], 0, RT_SAR_SIZE);
	for (i = 0; i < 2; i++)
		rt_raw_seg_send(test, &r, RXM_OP_TAGGED, 2, msg, RT_SAR_SIZE,
				i, 77);
	rt_raw_sentinel(test, &t, &r, 90);
	m.addr = FI_ADDR_UNSPEC;
	m.tag = 77;
	m.context = &ctx;
	KUNIT_ASSERT_EQ(test, fi_trecvmsg(t.ep[0], &m, FI_PEEK), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[0], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.len, RT_SAR_SIZE);
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[0], t.buf[0], RT_BIG, NULL,
				       FI_ADDR_UNSPEC, 77, 0, &ctx), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.rx[0], &e, 1), -EAGAIN);
	rt_raw_seg_send(test, &r, RXM_OP_TAGGED, 2, msg, RT_SAR_SIZE, 2, 77);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[0], &e, &src, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.len, RT_SAR_SIZE);
	KUNIT_EXPECT_EQ(test, e.tag, 77);
	KUNIT_EXPECT_EQ(test, src, r.fi_addr);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[0], msg, RT_SAR_SIZE), 0);

	/* all of it waiting, taken by a receive too short for it */
	for (i = 0; i < 3; i++)
		rt_raw_seg_send(test, &r, RXM_OP_TAGGED, 3, msg, RT_SAR_SIZE,
				i, 78);
	rt_raw_sentinel(test, &t, &r, 91);
	memset(t.buf[0], 0, RT_SAR_SIZE);
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[0], t.buf[0], RT_EAGER + 10, NULL,
				       FI_ADDR_UNSPEC, 78, 0, &ctx), 0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[0], &e, NULL, &err), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, err.olen, RT_SAR_SIZE - (RT_EAGER + 10));
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[0], msg, RT_EAGER + 10), 0);
	KUNIT_EXPECT_EQ(test, t.buf[0][RT_EAGER + 10], 0);

	/* discarded with a segment still to come: the next message is read */
	for (i = 0; i < 2; i++)
		rt_raw_seg_send(test, &r, RXM_OP_TAGGED, 4, msg, RT_SAR_SIZE,
				i, 79);
	rt_raw_sentinel(test, &t, &r, 92);
	m.tag = 79;
	KUNIT_ASSERT_EQ(test, fi_trecvmsg(t.ep[0], &m, FI_PEEK | FI_DISCARD),
			0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[0], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.len, 0);
	rt_raw_seg_send(test, &r, RXM_OP_TAGGED, 4, msg, RT_SAR_SIZE, 2, 79);
	rt_raw_sentinel(test, &t, &r, 93);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.rx[0], &e, 1), -EAGAIN);

	/*
	 * a multi-receive buffer cancelled while a message is still coming
	 * into it: the message completes there, then the buffer ECANCELED
	 */
	kv.iov_base = t.buf[0];
	kv.iov_len = 4 * RT_SAR_SIZE;
	mm.iov_type = FI_IOV_KVEC;
	mm.msg_iov = &kv;
	mm.iov_count = 1;
	mm.addr = FI_ADDR_UNSPEC;
	mm.context = &mctx;
	memset(t.buf[0], 0, RT_SAR_SIZE);
	KUNIT_ASSERT_EQ(test, fi_recvmsg(t.ep[0], &mm, FI_MULTI_RECV), 0);
	rt_raw_seg_send(test, &r, RXM_OP_MSG, 6, msg, RT_SAR_SIZE, 0, 0);
	rt_raw_sentinel(test, &t, &r, 95);
	KUNIT_ASSERT_EQ(test, fi_cancel(&t.ep[0]->fid, &mctx), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.rx[0], &e, 1), -EAGAIN);
	for (i = 1; i < 3; i++)
		rt_raw_seg_send(test, &r, RXM_OP_MSG, 6, msg, RT_SAR_SIZE, i,
				0);
	KUNIT_ASSERT_EQ(test, rt_comp(t.rx[0], &e, NULL, NULL), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&mctx);
	KUNIT_EXPECT_EQ(test, e.len, RT_SAR_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, e.buf, (void *)t.buf[0]);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[0], msg, RT_SAR_SIZE), 0);
	KUNIT_EXPECT_EQ(test, rt_comp(t.rx[0], &e, NULL, &err), -ECANCELED);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)&mctx);
	KUNIT_EXPECT_TRUE(test, err.flags & FI_MULTI_RECV);

	/* the connection ends after the first segment: ECONNRESET */
	KUNIT_ASSERT_EQ(test, fi_trecv(t.ep[0], t.buf[0], RT_BIG, NULL,
				       FI_ADDR_UNSPEC, 81, 0, &ctx), 0);
	rt_raw_seg_send(test, &r, RXM_OP_TAGGED, 5, msg, RT_SAR_SIZE, 0, 81);
	rt_raw_sentinel(test, &t, &r, 94);
	rt_raw_leave(&r);
	KUNIT_EXPECT_EQ(test, rt_comp(t.rx[0], &e, NULL, &err), -ECONNRESET);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)&ctx);
	rt_teardown(test, &t);
}

/* A malformed packet; every field left 0 takes its valid value. */
struct rt_bad {
	const char *name;
	u8 type;
	u8 op;
	u8 ctrl_version;
	u8 op_version;
	u32 flags;
	u32 payload;		/* eager and others: bytes after the header */
	s32 size_delta;		/* eager: the size says this much more */
	u32 sent;		/* bytes of the packet sent, 0: all */
	u8 count;		/* rendezvous: entries */
	s32 len_delta;		/* rendezvous: added to the first length */
	u64 size;		/* rendezvous: the message's size, 0: 20000 */
	int msg_id;		/* read done: 0 the raw peer's request's,
				 * 1 unknown, 2 endpoint 1's
				 */
	u64 ctrl_data;		/* segment: its position */
};

static const struct rt_bad rt_bad_cases[] = {
	{ .name = "ctrl version 3", .ctrl_version = 3, .payload = 8 },
	{ .name = "op version 3", .op_version = 3, .payload = 8 },
	{ .name = "type 9", .type = 9, .payload = 8 },
	{ .name = "type 255", .type = 255 },
	{ .name = "segment, no position", .type = RXM_SEGMENT, .payload = 8 },
	{ .name = "segment, first as large as its message",
	  .type = RXM_SEGMENT, .payload = 8, .ctrl_data = RXM_SEG_FIRST },
	{ .name = "segment, middle without a first", .type = RXM_SEGMENT,
	  .payload = 8, .size_delta = 100, .ctrl_data = RXM_SEG_MIDDLE },
	{ .name = "segment, nine segments", .type = RXM_SEGMENT,
	  .payload = 8, .size_delta = 8 * RXM_EAGER_LIMIT,
	  .ctrl_data = RXM_SEG_FIRST },
	{ .name = "atomic", .type = RXM_ATOMIC, .op = RXM_OP_ATOMIC,
	  .payload = 8 },
	{ .name = "credit", .type = RXM_CREDIT },
	{ .name = "write done", .type = RXM_RNDV_WR_DONE },
	{ .name = "op 5", .op = 5, .payload = 8 },
	{ .name = "unknown flag", .flags = BIT(3), .payload = 8 },
	{ .name = "size above the frame", .payload = 8, .size_delta = 1 },
	{ .name = "size below the frame", .payload = 8, .size_delta = -1 },
	{ .name = "above the eager limit", .payload = RXM_EAGER_LIMIT + 1 },
	{ .name = "shorter than a header", .payload = 8, .sent = 40 },
	{ .name = "rendezvous, no entry", .type = RXM_RNDV_REQ },
	{ .name = "rendezvous, 5 entries", .type = RXM_RNDV_REQ, .count = 5 },
	{ .name = "rendezvous, lengths short", .type = RXM_RNDV_REQ,
	  .count = 2, .len_delta = -1 },
	{ .name = "rendezvous, lengths long", .type = RXM_RNDV_REQ,
	  .count = 2, .len_delta = 1 },
	{ .name = "rendezvous, entries cut", .type = RXM_RNDV_REQ, .count = 1,
	  .sent = sizeof(struct rxm_hdr) + 50 },
	{ .name = "rendezvous, trailing bytes", .type = RXM_RNDV_REQ,
	  .count = 1, .payload = sizeof(struct rxm_rndv) + 8 },
	{ .name = "rendezvous above max_msg_size", .type = RXM_RNDV_REQ,
	  .count = 1, .size = SZ_1G + 1ULL },
	{ .name = "read done, unknown msg_id", .type = RXM_RNDV_RD_DONE,
	  .msg_id = 1 },
	{ .name = "read done of another connection",
	  .type = RXM_RNDV_RD_DONE, .msg_id = 2 },
	{ .name = "read done with a payload", .type = RXM_RNDV_RD_DONE,
	  .payload = 8 },
};

static void rt_bad_desc(const struct rt_bad *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rt_bad, rt_bad_cases, rt_bad_desc);

/* Build @c's packet in @pkt; returns the bytes to send. */
static size_t rt_bad_build(const struct rt_bad *c, const struct rt_raw *r,
			   u64 own_id, u8 *pkt)
{
	struct rxm_hdr *hdr = (struct rxm_hdr *)pkt;
	struct rxm_rndv *rndv = (struct rxm_rndv *)(hdr + 1);
	size_t payload = c->payload;
	u64 size = payload + c->size_delta, msg_id = 0;
	unsigned int i, n;

	if (c->type == RXM_RNDV_REQ) {
		size = c->size ? c->size : 20000;
		payload = c->payload ? c->payload : sizeof(*rndv);
		rndv->count = c->count;
		n = min_t(unsigned int, c->count, RXM_RNDV_IOV_MAX);
		for (i = 0; i < n; i++)
			rndv->iov[i].len = cpu_to_le64(size / n +
						       (i ? 0 : size % n));
		if (n)
			rndv->iov[0].len = cpu_to_le64(size / n + size % n +
						       c->len_delta);
	} else if (c->type == RXM_RNDV_RD_DONE) {
		size = 0;
		msg_id = c->msg_id == 0 ? own_id : c->msg_id == 1 ? 1000 : 0;
	}
	rxm_hdr_fill(hdr, c->type, c->op, r->conn_id, msg_id, size, c->flags,
		     0, 0);
	if (c->ctrl_version)
		hdr->ctrl_version = c->ctrl_version;
	if (c->op_version)
		hdr->op_version = c->op_version;
	if (c->type == RXM_SEGMENT) {
		hdr->seg_size = cpu_to_le16(payload);
		hdr->ctrl_data = cpu_to_le64(c->ctrl_data);
	}
	return c->sent ? c->sent : sizeof(*hdr) + payload;
}

/*
 * Endpoint 0 has a rendezvous send to endpoint 1 and one to the raw peer
 * waiting for their answers when the raw peer sends a malformed packet:
 * the raw peer's connection ends (its send completes with EPROTO, its
 * socket is closed), endpoint 1's send is untouched and completes once
 * endpoint 1 receives.
 */
static void rxm_malformed_test(struct kunit *test)
{
	const struct rt_bad *c = test->param_value;
	u8 *pkt = kunit_kzalloc(test, sizeof(struct rxm_hdr) + 2 * RT_EAGER,
				GFP_KERNEL);
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct rt_rndv_pkt req;
	struct rt_raw r = {};
	int ctx1, ctxr;
	struct ktr_rdm t;
	size_t len;
	u8 byte;

	KUNIT_ASSERT_NOT_NULL(test, pkt);
	rt_setup(test, &t, FI_MSG | FI_SOURCE);
	rt_raw_join(test, &t, &r);
	KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], RT_RNDV, false, 0,
				      &ctx1), 0);
	KUNIT_ASSERT_EQ(test, rt_sendto(&t, 0, r.fi_addr, t.buf[0],
					RT_RNDV, false, 0, &ctxr), 0);
	KUNIT_ASSERT_EQ(test, rt_raw_pkt_recv(r.sock, &req, sizeof(req)),
			(int)sizeof(req));
	KUNIT_ASSERT_EQ(test, req.hdr.type, RXM_RNDV_REQ);
	/* msg_ids are handed out from 0: endpoint 1's send has 0 */
	KUNIT_ASSERT_EQ(test, le64_to_cpu(req.hdr.msg_id), 1);

	len = rt_bad_build(c, &r, le64_to_cpu(req.hdr.msg_id), pkt);
	rt_raw_pkt_send(test, r.sock, pkt, len);
	KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, &err), -EPROTO);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)&ctxr);
	KUNIT_EXPECT_LE(test, rt_raw_recv(r.sock, &byte, 1), 0);

	KUNIT_EXPECT_EQ(test, fi_cq_read(t.tx[0], &e, 1), -EAGAIN);
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], RT_BIG, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_EXPECT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.len, RT_RNDV);
	KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&ctx1);
	rt_raw_leave(&r);
	rt_teardown(test, &t);
}

/* A peer's request with CM data rxm cannot take: refused, nothing kept. */
static void rxm_bad_cm_test(struct kunit *test)
{
	struct fi_cq_tagged_entry e;
	struct rxm_cm_reject rej;
	struct rxm_cm_req req;
	struct socket *sock;
	int i, len;
	u8 type, byte;
	struct ktr_rdm t;

	rt_setup(test, &t, FI_MSG | FI_SOURCE);
	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[0], t.buf[0], 64, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	for (i = 0; i < 6; i++) {
		rxm_cm_req_fill(&req, 9, RXM_FLOW_CTRL_OFF, 16, 7);
		len = sizeof(req);
		switch (i) {
		case 0:
			req.version = 2;
			break;
		case 1:
			req.endianness = 1;
			break;
		case 2:
			req.ctrl_version = 3;
			break;
		case 3:
			req.eager_limit = cpu_to_le32(8192);
			break;
		case 4:
			len = 10;
			break;
		default:
			len = 0;
			break;
		}
		sock = rt_raw_dial(test, &t, &req, len);
		KUNIT_EXPECT_EQ(test, rt_raw_ctrl_recv(sock, &type, &rej,
						       sizeof(rej)),
				(int)sizeof(rej));
		KUNIT_EXPECT_EQ(test, type, KSOCK_CTRL_NACK);
		KUNIT_EXPECT_EQ(test, rej.version, RXM_CM_VERSION);
		KUNIT_EXPECT_EQ(test, rej.reason, RXM_REJECT_REFUSED);
		KUNIT_EXPECT_LE(test, rt_raw_recv(sock, &byte, 1), 0);
		sock_release(sock);
	}
	/* endpoint 0 is still served */
	KUNIT_ASSERT_EQ(test, rt_send(&t, 1, t.buf[1], 8, false, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, rt_comp(t.tx[1], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, rt_comp(t.rx[0], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, fi_cq_read(t.rx[0], &e, 1), -EAGAIN);
	rt_teardown(test, &t);
}

/*
 * net's CM data at a ksocket;net endpoint: rxm's request, or one too
 * short, is refused with net's reject (its own CM data: version 0, its
 * port); a good request is answered with the request's bytes and the
 * endpoint's id; the endpoint is still served.
 */
static void rxm_net_bad_cm_test(struct kunit *test)
{
	struct rxm_net_cm ncm, got;
	struct sockaddr_in name;
	struct rxm_cm_req req;
	size_t nlen = sizeof(name);
	struct socket *sock;
	struct ktr_rdm t;
	u8 type, byte;
	int i;

	rt_net_setup(test, &t);
	KUNIT_ASSERT_EQ(test, fi_getname(&t.ep[0]->fid, &name, &nlen), 0);
	rxm_cm_req_fill(&req, 9, RXM_FLOW_CTRL_OFF, 16, 7);
	for (i = 0; i < 2; i++) {
		sock = rt_raw_dial(test, &t, &req, i ? 4 : sizeof(req));
		KUNIT_EXPECT_EQ(test, rt_raw_ctrl_recv(sock, &type, &got,
						       sizeof(got)),
				(int)sizeof(got));
		KUNIT_EXPECT_EQ(test, type, KSOCK_CTRL_NACK);
		KUNIT_EXPECT_EQ(test, rxm_net_cm_check(&got, sizeof(got)), 0);
		KUNIT_EXPECT_EQ(test, be16_to_cpu(got.port),
				ntohs(name.sin_port));
		KUNIT_EXPECT_LE(test, rt_raw_recv(sock, &byte, 1), 0);
		sock_release(sock);
	}
	rxm_net_cm_fill(&ncm, 9, 0x5150);
	sock = rt_raw_dial(test, &t, &ncm, sizeof(ncm));
	KUNIT_EXPECT_EQ(test, rt_raw_ctrl_recv(sock, &type, &got, sizeof(got)),
			(int)sizeof(got));
	KUNIT_EXPECT_EQ(test, type, KSOCK_CTRL_CONNRESP);
	KUNIT_EXPECT_EQ(test, got.version, RXM_NET_CM_VERSION);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(got.port), 9);
	sock_release(sock);
	/* endpoint 0 is still served */
	rt_one_msg(test, &t, 8);
	rt_teardown(test, &t);
}

/* Accept endpoint 0's next connection on @lsock and read its request. */
static struct socket *rt_raw_take(struct kunit *test, struct ktr_rdm *t,
				  struct socket *lsock)
{
	struct sockaddr_in name;
	size_t nlen = sizeof(name);
	struct rxm_cm_req req;
	struct socket *sock;
	u8 type;

	KUNIT_ASSERT_EQ(test, fi_getname(&t->ep[0]->fid, &name, &nlen), 0);
	KUNIT_ASSERT_EQ(test, kernel_accept(lsock, &sock, 0), 0);
	sock->sk->sk_rcvtimeo = msecs_to_jiffies(RT_TIMEOUT);
	sock->sk->sk_sndtimeo = msecs_to_jiffies(RT_TIMEOUT);
	KUNIT_EXPECT_EQ(test, rt_raw_ctrl_recv(sock, &type, &req, sizeof(req)),
			(int)sizeof(req));
	KUNIT_EXPECT_EQ(test, type, KSOCK_CTRL_CONNREQ);
	KUNIT_EXPECT_EQ(test, rxm_cm_req_check(&req, sizeof(req)), 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(req.port), ntohs(name.sin_port));
	return sock;
}

/*
 * Endpoint 0's next attempt to @addr, taken on @lsock and answered with
 * a control message of @type carrying @len bytes of @data: the answer of
 * the send that follows.  The connection is left in *@sock.
 */
static ssize_t rt_raw_attempt(struct kunit *test, struct ktr_rdm *t,
			      struct socket *lsock, fi_addr_t addr, u8 type,
			      const void *data, size_t len,
			      struct socket **sock)
{
	KUNIT_EXPECT_EQ(test, fi_send(t->ep[0], "abc", 4, NULL, addr, NULL),
			-EAGAIN);
	*sock = rt_raw_take(test, t, lsock);
	rt_raw_ctrl_send(test, *sock, type, data, len);
	return rt_sendto(t, 0, addr, "abc", 4, false, 0, NULL);
}

/*
 * Endpoint 0 connects to a raw listener: an accept without rxm's CM
 * data fails the attempt with EPROTO, a plain reject with ECONNREFUSED -
 * each answered to the next send, once - and a good accept carries the
 * message.
 */
static void rxm_bad_accept_test(struct kunit *test)
{
	struct rxm_cm_accept acc = { .conn_id = cpu_to_le64(5) };
	struct rxm_cm_reject rej = { .version = RXM_CM_VERSION,
				     .reason = RXM_REJECT_REFUSED };
	struct {
		struct rxm_hdr hdr;
		char data[4];
	} __packed out;
	struct fi_cq_tagged_entry e;
	struct sockaddr_in name;
	struct socket *lsock, *sock;
	fi_addr_t addr;
	struct ktr_rdm t;

	rt_setup(test, &t, FI_MSG | FI_SOURCE);
	lsock = rt_raw_listen(test, &name);
	KUNIT_ASSERT_EQ(test, fi_av_insert(t.av, &name, 1, &addr, 0, NULL), 1);

	KUNIT_EXPECT_EQ(test, rt_raw_attempt(test, &t, lsock, addr,
					     KSOCK_CTRL_CONNRESP, &acc, 4,
					     &sock), -EPROTO);
	sock_release(sock);
	KUNIT_EXPECT_EQ(test, rt_raw_attempt(test, &t, lsock, addr,
					     KSOCK_CTRL_NACK, &rej,
					     sizeof(rej), &sock),
			-ECONNREFUSED);
	sock_release(sock);
	KUNIT_EXPECT_EQ(test, rt_raw_attempt(test, &t, lsock, addr,
					     KSOCK_CTRL_CONNRESP, &acc,
					     sizeof(acc), &sock), 0);
	KUNIT_EXPECT_EQ(test, rt_raw_pkt_recv(sock, &out, sizeof(out)),
			(int)sizeof(out));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(out.hdr.conn_id), 5);
	KUNIT_EXPECT_STREQ(test, out.data, "abc");
	KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	sock_release(sock);
	sock_release(lsock);
	rt_teardown(test, &t);
}

/*
 * A peer that accepts TCP connections but never answers rxm's request:
 * with FI_OPT_CONNECT_TIMEOUT_MS set, the send after the attempt's
 * deadline answers -ETIMEDOUT, the next one tries again; endpoint 1 is
 * served all the while.
 */
static void rxm_connect_timeout_test(struct kunit *test)
{
	size_t ms = RT_SHORT, len = sizeof(ms);
	struct fi_cq_tagged_entry e;
	struct sockaddr_in name;
	struct socket *lsock, *sock;
	fi_addr_t addr;
	struct ktr_rdm t;
	u8 byte;

	rt_setup(test, &t, FI_MSG | FI_SOURCE);
	lsock = rt_raw_listen(test, &name);
	KUNIT_ASSERT_EQ(test, fi_av_insert(t.av, &name, 1, &addr, 0, NULL), 1);
	KUNIT_ASSERT_EQ(test, fi_setopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_CONNECT_TIMEOUT_MS, &ms,
					sizeof(ms)), 0);
	ms = 0;
	KUNIT_ASSERT_EQ(test, fi_getopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_CONNECT_TIMEOUT_MS, &ms, &len),
			0);
	KUNIT_EXPECT_EQ(test, ms, RT_SHORT);

	KUNIT_EXPECT_EQ(test, rt_sendto(&t, 0, addr, "abc", 4, false, 0, NULL),
			-ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, fi_send(t.ep[0], "abc", 4, NULL, addr, NULL),
			-EAGAIN);
	/* the listener has the first attempt's request, and then its end */
	sock = rt_raw_take(test, &t, lsock);
	KUNIT_EXPECT_LE(test, rt_raw_recv(sock, &byte, 1), 0);
	sock_release(sock);

	KUNIT_ASSERT_EQ(test, fi_recv(t.ep[1], t.buf[1], 64, NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, rt_send(&t, 0, t.buf[0], 8, false, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, rt_comp(t.rx[1], &e, NULL, NULL), 1);
	rt_teardown(test, &t);
	sock_release(lsock);
}

/*
 * Endpoint 0's attempt is rejected as "already connected" - it lost a
 * simultaneous connect - and the peer's own request never comes: sends
 * answer -EAGAIN until FI_OPT_CONNECT_TIMEOUT_MS has passed, then
 * -ETIMEDOUT once; the next send connects again.
 */
static void rxm_lost_connect_test(struct kunit *test)
{
	struct rxm_cm_accept acc = { .conn_id = cpu_to_le64(6) };
	struct rxm_cm_reject rej = { .version = RXM_CM_VERSION,
				     .reason = RXM_REJECT_ALREADY };
	struct fi_cq_tagged_entry e;
	struct sockaddr_in name;
	struct socket *lsock, *sock;
	size_t ms = RT_SHORT;
	fi_addr_t addr;
	struct ktr_rdm t;

	rt_setup(test, &t, FI_MSG | FI_SOURCE);
	KUNIT_ASSERT_EQ(test, fi_setopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_CONNECT_TIMEOUT_MS, &ms,
					sizeof(ms)), 0);
	lsock = rt_raw_listen(test, &name);
	KUNIT_ASSERT_EQ(test, fi_av_insert(t.av, &name, 1, &addr, 0, NULL), 1);

	KUNIT_EXPECT_EQ(test, rt_raw_attempt(test, &t, lsock, addr,
					     KSOCK_CTRL_NACK, &rej,
					     sizeof(rej), &sock), -ETIMEDOUT);
	sock_release(sock);
	KUNIT_EXPECT_EQ(test, rt_raw_attempt(test, &t, lsock, addr,
					     KSOCK_CTRL_CONNRESP, &acc,
					     sizeof(acc), &sock), 0);
	KUNIT_EXPECT_EQ(test, rt_comp(t.tx[0], &e, NULL, NULL), 1);
	sock_release(sock);
	rt_teardown(test, &t);
	sock_release(lsock);
}

static struct kunit_case rxm_cases[] = {
	KUNIT_CASE(rxm_getinfo_test),
	KUNIT_CASE(rxm_msg_test),
	KUNIT_CASE_PARAM(rxm_net_test, rt_net_gen_params),
	KUNIT_CASE(rxm_adopt_test),
	KUNIT_CASE(rxm_rndv_test),
	KUNIT_CASE(rxm_rndv_backlog_test),
	KUNIT_CASE(rxm_rx_entries_test),
	KUNIT_CASE(rxm_bufs_grow_test),
	KUNIT_CASE(rxm_rma_test),
	KUNIT_CASE(rxm_tagged_test),
	KUNIT_CASE(rxm_tagged_wire_test),
	KUNIT_CASE(rxm_recv_kinds_test),
	KUNIT_CASE(rxm_simultaneous_test),
	KUNIT_CASE(rxm_ipv6_test),
	KUNIT_CASE(rxm_may_sleep_test),
	KUNIT_CASE(rxm_bad_addr_test),
	KUNIT_CASE(rxm_av_remove_test),
	KUNIT_CASE(rxm_raw_peer_test),
	KUNIT_CASE(rxm_sar_test),
	KUNIT_CASE(rxm_sar_send_test),
	KUNIT_CASE_PARAM(rxm_malformed_test, rt_bad_gen_params),
	KUNIT_CASE(rxm_bad_cm_test),
	KUNIT_CASE_PARAM(rxm_net_bad_cm_test, rt_net_gen_params),
	KUNIT_CASE(rxm_bad_accept_test),
	KUNIT_CASE(rxm_connect_timeout_test),
	KUNIT_CASE(rxm_lost_connect_test),
	{}
};

static struct kunit_suite rxm_suite = {
	.name = "kofi_rxm",
	.suite_init = kofi_test_loopback_up,
	.test_cases = rxm_cases,
};

kunit_test_suite(rxm_suite);

MODULE_DESCRIPTION("KUnit tests of the kOFI rxm provider");
MODULE_LICENSE("Dual BSD/GPL");
