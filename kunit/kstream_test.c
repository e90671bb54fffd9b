// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: the kstream engine over ksocket on loopback.
 *
 * The rsockets protocol logic alone (connection data, immediates, credits,
 * chunk sizes), then real streams: getinfo, connection, stream semantics,
 * partial reads and writes, FI_PEEK on both sides, ring wrap-around with
 * small rings, credit exhaustion and the bytes it leaves queued, several
 * MiB checked byte for byte, the vector forms, shutdown variants,
 * settings, a send's FI_MAY_SLEEP reaching ksocket, and a raw ksocket
 * endpoint playing a peer that sends nonsense: each must end the stream
 * with an error, never a splat.
 *
 * Only exported symbols are used (the suite is also built as a module);
 * the credit and may-sleep tests read the engine's counters (kstream.h)
 * to count the writes and their completions.  kofi_ksocket and
 * kofi_kstream must be loaded or built in.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/bvec.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>
#include <kofi/fabric.h>
#include <kofi/fi_domain.h>
#include <kofi/fi_endpoint.h>
#include <kofi/fi_cm.h>
#include <kofi/fi_eq.h>
#include <kofi/fi_rma.h>
#include <kofi/fi_errno.h>
#include <kofi/kstream.h>
#include <kofi/ib_verbs.h>
#include "../providers/kstream/kstream.h"
#include "kofi_test_net.h"

#define KS_TIMEOUT	5000	/* ms, every wait */

struct ks_cm_entry {
	struct fi_eq_cm_entry e;
	u8 data[FI_CM_DATA_MAX];
};

/* Settings applied to both endpoints before connecting; 0: default. */
struct ks_opts {
	size_t sbuf;
	size_t rbuf;
	size_t rq;
	size_t iomap;
	size_t may_sleep;	/* FI_OPT_DATA_MAY_SLEEP */
};

struct ks {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_eq *seq;
	struct fid_eq *ceq;
	struct fid_pep *pep;
	struct fid_ep *sep;
	struct fid_ep *cep;
	struct sockaddr_in addr;
};

static void ks_close(struct kunit *test, struct fid *fid)
{
	if (fid)
		KUNIT_EXPECT_EQ(test, fi_close(fid), 0);
}

static void ks_teardown(struct kunit *test, struct ks *t)
{
	ks_close(test, t->cep ? &t->cep->fid : NULL);
	ks_close(test, t->sep ? &t->sep->fid : NULL);
	ks_close(test, t->pep ? &t->pep->fid : NULL);
	ks_close(test, t->ceq ? &t->ceq->fid : NULL);
	ks_close(test, t->seq ? &t->seq->fid : NULL);
	ks_close(test, t->domain ? &t->domain->fid : NULL);
	ks_close(test, t->fabric ? &t->fabric->fid : NULL);
	fi_freeinfo(t->info);
	memset(t, 0, sizeof(*t));
}

static struct fi_info *ks_hints(const char *prov, enum fi_ep_type type)
{
	struct fi_info *hints = fi_allocinfo(GFP_KERNEL);

	if (!hints)
		return NULL;
	hints->ep_attr->type = type;
	hints->fabric_attr->prov_name = kstrdup(prov, GFP_KERNEL);
	if (!hints->fabric_attr->prov_name) {
		fi_freeinfo(hints);
		return NULL;
	}
	return hints;
}

static int ks_event(struct fid_eq *eq, struct ks_cm_entry *entry,
		    ssize_t *len)
{
	struct fi_eq_err_entry err = {};
	u32 event;
	ssize_t ret;

	ret = fi_eq_sread(eq, &event, entry, sizeof(*entry), KS_TIMEOUT, 0);
	if (len)
		*len = ret;
	if (ret == -FI_EAVAIL) {
		if (fi_eq_readerr(eq, &err, 0) < 0)
			return -EIO;
		return -err.err;
	}
	if (ret < 0)
		return ret;
	return event;
}

static void ks_setopts(struct kunit *test, struct fid_ep *ep,
		       const struct ks_opts *o)
{
	if (!o)
		return;
	if (o->sbuf)
		KUNIT_ASSERT_EQ(test, fi_setopt(&ep->fid, FI_OPT_ENDPOINT,
						FI_OPT_SEND_BUF_SIZE, &o->sbuf,
						sizeof(size_t)), 0);
	if (o->rbuf)
		KUNIT_ASSERT_EQ(test, fi_setopt(&ep->fid, FI_OPT_ENDPOINT,
						FI_OPT_RECV_BUF_SIZE, &o->rbuf,
						sizeof(size_t)), 0);
	if (o->rq)
		KUNIT_ASSERT_EQ(test, fi_setopt(&ep->fid, FI_OPT_ENDPOINT,
						FI_OPT_RX_SIZE, &o->rq,
						sizeof(size_t)), 0);
	if (o->iomap)
		KUNIT_ASSERT_EQ(test, fi_setopt(&ep->fid, FI_OPT_ENDPOINT,
						FI_OPT_KSTREAM_IOMAPSIZE,
						&o->iomap, sizeof(size_t)), 0);
	if (o->may_sleep)
		KUNIT_ASSERT_EQ(test, fi_setopt(&ep->fid, FI_OPT_ENDPOINT,
						FI_OPT_DATA_MAY_SLEEP,
						&o->may_sleep, sizeof(size_t)),
				0);
}

/* Fabric, domain, EQs and a kstream listener on 127.0.0.1, any port. */
static void ks_listen(struct kunit *test, struct ks *t)
{
	struct fi_eq_attr eq_attr = {};
	struct fi_info *hints;
	size_t len = sizeof(t->addr);

	memset(t, 0, sizeof(*t));
	hints = ks_hints("ksocket;kstream", FI_EP_SOCK_STREAM);
	KUNIT_ASSERT_NOT_NULL(test, hints);
	KUNIT_ASSERT_EQ(test, fi_getinfo(fi_version(), "127.0.0.1", "0",
					 FI_SOURCE, hints, &t->info), 0);
	fi_freeinfo(hints);
	KUNIT_ASSERT_STREQ(test, t->info->fabric_attr->prov_name,
			   "ksocket;kstream");
	KUNIT_ASSERT_EQ(test, fi_fabric(t->info->fabric_attr, &t->fabric,
					NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_domain(t->fabric, t->info, &t->domain, NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_eq_open(t->fabric, &eq_attr, &t->seq, NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_eq_open(t->fabric, &eq_attr, &t->ceq, NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_passive_ep(t->fabric, t->info, &t->pep, NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_pep_bind(t->pep, &t->seq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, fi_listen(t->pep), 0);
	KUNIT_ASSERT_EQ(test, fi_getname(&t->pep->fid, &t->addr, &len), 0);
	KUNIT_ASSERT_NE(test, ntohs(t->addr.sin_port), 0);
}

/* Accept the next request on the listener as t->sep. */
static void ks_accept(struct kunit *test, struct ks *t,
		      const struct ks_opts *o)
{
	struct ks_cm_entry entry;
	ssize_t len;

	KUNIT_ASSERT_EQ(test, ks_event(t->seq, &entry, &len), FI_CONNREQ);
	KUNIT_EXPECT_PTR_EQ(test, entry.e.fid, &t->pep->fid);
	KUNIT_ASSERT_NOT_NULL(test, entry.e.info);
	KUNIT_EXPECT_EQ(test, entry.e.info->ep_attr->type, FI_EP_SOCK_STREAM);
	KUNIT_EXPECT_NOT_NULL(test, entry.e.info->handle);
	KUNIT_ASSERT_EQ(test, fi_endpoint(t->domain, entry.e.info, &t->sep,
					  NULL), 0);
	fi_freeinfo(entry.e.info);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(t->sep, &t->seq->fid, 0), 0);
	ks_setopts(test, t->sep, o);
	KUNIT_ASSERT_EQ(test, fi_accept(t->sep, NULL, 0), 0);
}

/* A connected pair: client t->cep, server t->sep. */
static void ks_connect(struct kunit *test, struct ks *t,
		       const struct ks_opts *o)
{
	struct ks_cm_entry entry;

	ks_listen(test, t);
	KUNIT_ASSERT_EQ(test, fi_endpoint(t->domain, t->info, &t->cep, NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(t->cep, &t->ceq->fid, 0), 0);
	ks_setopts(test, t->cep, o);
	KUNIT_ASSERT_EQ(test, fi_connect(t->cep, &t->addr, NULL, 0), 0);
	ks_accept(test, t, o);
	KUNIT_ASSERT_EQ(test, ks_event(t->seq, &entry, NULL), FI_CONNECTED);
	KUNIT_EXPECT_PTR_EQ(test, entry.e.fid, &t->sep->fid);
	KUNIT_ASSERT_EQ(test, ks_event(t->ceq, &entry, NULL), FI_CONNECTED);
	KUNIT_EXPECT_PTR_EQ(test, entry.e.fid, &t->cep->fid);
}

/* Wait until kstream_ep_poll(@ep) has one of @mask. */
static __poll_t ks_wait(struct fid_ep *ep, __poll_t mask)
{
	wait_queue_head_t *wq = NULL;

	if (fi_control(&ep->fid, FI_GETWAIT, &wq) || !wq)
		return 0;
	wait_event_timeout(*wq, kstream_ep_poll(ep) & mask,
			   msecs_to_jiffies(KS_TIMEOUT));
	return kstream_ep_poll(ep) & mask;
}

/* Wait until @rx is readable or @tx (if any) writable, polling. */
static void ks_wait_any(struct fid_ep *rx, struct fid_ep *tx)
{
	unsigned long end = jiffies + msecs_to_jiffies(KS_TIMEOUT);
	wait_queue_head_t *wq = NULL;

	if (fi_control(&rx->fid, FI_GETWAIT, &wq) || !wq)
		return;
	while (time_before(jiffies, end)) {
		if (wait_event_timeout(*wq, kstream_ep_poll(rx) &
				       (EPOLLIN | EPOLLERR),
				       msecs_to_jiffies(2)))
			return;
		if (tx && (kstream_ep_poll(tx) & (EPOLLOUT | EPOLLERR)))
			return;
	}
}

/* Receive exactly @len bytes (waiting as needed). */
static ssize_t ks_recv_all(struct fid_ep *ep, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = fi_recv(ep, buf + got, len - got, NULL, FI_ADDR_UNSPEC,
			    NULL);
		if (n > 0) {
			got += n;
			continue;
		}
		if (n != -EAGAIN)
			return n ? n : (ssize_t)got;
		if (!ks_wait(ep, EPOLLIN | EPOLLERR))
			return -ETIMEDOUT;
	}
	return got;
}

static void ks_fill(u8 *buf, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (u8)(i * 7 + seed + (i >> 13));
}

/* ---- protocol logic ---- */

static void kstream_proto_conn_test(struct kunit *test)
{
	struct kstream_conn_data c = {
		.version = KSTREAM_PROTO_VERSION,
		.flags = KSTREAM_CONN_FLAG_IOMAP,
		.credits = 384,
		.iomap_size = 0,
		.target_sgl_addr = 0x1122334455667788ULL,
		.target_sgl_key = 0xaabbccdd12345678ULL,
		.target_sgl_length = KSTREAM_SGL_SIZE,
		.data_buf = { .addr = 0x1000, .key = 0x9abcdef0,
			      .length = 16384 },
		.data_buf_key_hi = 0x0102030400000000ULL,
	};
	struct kstream_conn_data d;
	u8 buf[KSTREAM_CONN_LEN_EXT];

	/* The rsockets layout: 40 bytes, big-endian fields. */
	KUNIT_ASSERT_EQ(test, kstream_conn_pack(&c, buf, false),
			(size_t)KSTREAM_CONN_LEN);
	KUNIT_EXPECT_EQ(test, buf[0], 1);
	KUNIT_EXPECT_EQ(test, buf[1], KSTREAM_CONN_FLAG_IOMAP);
	KUNIT_EXPECT_EQ(test, buf[2], 0x01);	/* 384 = 0x0180 */
	KUNIT_EXPECT_EQ(test, buf[3], 0x80);
	KUNIT_EXPECT_EQ(test, buf[8], 0x11);
	KUNIT_EXPECT_EQ(test, buf[16], 0x12);	/* low key half, BE */
	KUNIT_EXPECT_EQ(test, buf[23], KSTREAM_SGL_SIZE);
	KUNIT_EXPECT_EQ(test, buf[24 + 6], 0x10);	/* 0x1000 */
	KUNIT_EXPECT_EQ(test, buf[36 + 2], 0x40);	/* 16384 */
	KUNIT_ASSERT_EQ(test, kstream_conn_unpack(buf, KSTREAM_CONN_LEN, &d),
			0);
	KUNIT_EXPECT_EQ(test, d.credits, 384);
	KUNIT_EXPECT_EQ(test, d.target_sgl_addr, c.target_sgl_addr);
	KUNIT_EXPECT_EQ(test, d.target_sgl_key, 0x12345678ULL);
	KUNIT_EXPECT_EQ(test, d.data_buf.addr, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, d.data_buf.key, 0x9abcdef0U);
	KUNIT_EXPECT_EQ(test, d.data_buf.length, 16384U);
	KUNIT_EXPECT_EQ(test, d.data_buf_key_hi, 0ULL);

	/* kOFI's extension carries 64-bit keys. */
	KUNIT_ASSERT_EQ(test, kstream_conn_pack(&c, buf, true),
			(size_t)KSTREAM_CONN_LEN_EXT);
	KUNIT_ASSERT_EQ(test, kstream_conn_unpack(buf, sizeof(buf), &d), 0);
	KUNIT_EXPECT_EQ(test, d.target_sgl_key, c.target_sgl_key);
	KUNIT_EXPECT_EQ(test, d.data_buf_key_hi, c.data_buf_key_hi);

	/* Refused: short, other version, bad SGL, empty ring. */
	KUNIT_EXPECT_EQ(test, kstream_conn_unpack(buf, 39, &d), -EPROTO);
	KUNIT_EXPECT_EQ(test, kstream_conn_unpack(NULL, 40, &d), -EPROTO);
	buf[0] = 2;
	KUNIT_EXPECT_EQ(test, kstream_conn_unpack(buf, 40, &d), -EOPNOTSUPP);
	buf[0] = 1;
	buf[23] = 3;
	KUNIT_EXPECT_EQ(test, kstream_conn_unpack(buf, 40, &d), -EPROTO);
	buf[23] = 2;
	memset(buf + 36, 0, 4);
	KUNIT_EXPECT_EQ(test, kstream_conn_unpack(buf, 40, &d), -EPROTO);

	/* iomap size scale. */
	KUNIT_EXPECT_EQ(test, kstream_iomap_scale(0), 0);
	KUNIT_EXPECT_EQ(test, kstream_iomap_scale(128), 128);
	KUNIT_EXPECT_EQ(test, kstream_iomap_scale(256), 0x81);
	KUNIT_EXPECT_EQ(test, kstream_iomap_unscale(0x81), 256U);
	KUNIT_EXPECT_EQ(test, kstream_iomap_unscale(0x7f), 127U);
	KUNIT_EXPECT_EQ(test, kstream_iomap_unscale(kstream_iomap_scale(1000)),
			768U);
}

static void kstream_proto_msg_test(struct kunit *test)
{
	u32 m = kstream_msg(KSTREAM_OP_SGL, 384);

	KUNIT_EXPECT_EQ(test, m, 0x80000180U);
	KUNIT_EXPECT_EQ(test, kstream_msg_op(m), (u32)KSTREAM_OP_SGL);
	KUNIT_EXPECT_EQ(test, kstream_msg_data(m), 384U);
	KUNIT_EXPECT_EQ(test, kstream_msg(KSTREAM_OP_CTRL,
					  KSTREAM_CTRL_SHUTDOWN), 0xe0000002U);
	KUNIT_EXPECT_EQ(test, kstream_msg(KSTREAM_OP_DATA, 65536), 65536U);
	KUNIT_EXPECT_EQ(test, kstream_msg(KSTREAM_OP_IOMAP_SGL, 3),
			0xc0000003U);
	KUNIT_EXPECT_TRUE(test, kstream_msg_valid(65536, 0));
	KUNIT_EXPECT_TRUE(test, kstream_msg_valid(m, 0));
	KUNIT_EXPECT_TRUE(test, kstream_msg_valid(0xe0000001U, 0));
	KUNIT_EXPECT_FALSE(test, kstream_msg_valid(0xe0000003U, 0));
	KUNIT_EXPECT_FALSE(test, kstream_msg_valid(0x20000000U, 0));
	KUNIT_EXPECT_FALSE(test, kstream_msg_valid(0x40000000U, 0));
	KUNIT_EXPECT_FALSE(test, kstream_msg_valid(0x60000000U, 0));
	KUNIT_EXPECT_FALSE(test, kstream_msg_valid(0xa0000000U, 0));
	KUNIT_EXPECT_FALSE(test, kstream_msg_valid(0xc0000000U, 0));
	KUNIT_EXPECT_TRUE(test, kstream_msg_valid(0xc0000000U, 1));
	KUNIT_EXPECT_FALSE(test, kstream_msg_valid(0xc0000001U, 1));
}

/*
 * rsockets' iWARP mode: the mode choice, the operations of each write, and
 * the message value of a send in the sender's host order.
 */
static void kstream_proto_msg_send_test(struct kunit *test)
{
	static const u8 le[] = { 0x03, 0x00, 0x00, 0xc0 };
	static const u8 be[] = { 0xc0, 0x00, 0x00, 0x03 };
	static const u32 vals[] = { 0, 1, 0x80000180U, 0xe0000002U, 65536 };
	u8 raw[] = { 0x10, 0x00, 0x00, 0x80 };
	u8 buf[KSTREAM_MSG_SIZE];
	size_t i;

	KUNIT_EXPECT_EQ(test, kstream_msg_mode_choose(true, 0),
			(int)KSTREAM_MSG_IMM);
	KUNIT_EXPECT_EQ(test, kstream_msg_mode_choose(true, 80),
			(int)KSTREAM_MSG_IMM);
	KUNIT_EXPECT_EQ(test, kstream_msg_mode_choose(false, 4),
			(int)KSTREAM_MSG_SEND);
	KUNIT_EXPECT_EQ(test, kstream_msg_mode_choose(false, 80),
			(int)KSTREAM_MSG_SEND);
	KUNIT_EXPECT_EQ(test, kstream_msg_mode_choose(false, 3), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, kstream_msg_mode_choose(false, 0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, kstream_wr_per_req(KSTREAM_MSG_IMM), 1U);
	KUNIT_EXPECT_EQ(test, kstream_wr_per_req(KSTREAM_MSG_SEND), 2U);

	/* Messages: one write with immediate, or the bytes' write and a send. */
	KUNIT_EXPECT_EQ(test, kstream_post_ops(KSTREAM_MSG_IMM, true, 0),
			(u32)(KSTREAM_POST_WRITE | KSTREAM_POST_IMM));
	KUNIT_EXPECT_EQ(test, kstream_post_ops(KSTREAM_MSG_IMM, true, 4096),
			(u32)(KSTREAM_POST_WRITE | KSTREAM_POST_IMM));
	KUNIT_EXPECT_EQ(test, kstream_post_ops(KSTREAM_MSG_SEND, true, 0),
			(u32)KSTREAM_POST_SEND);
	KUNIT_EXPECT_EQ(test, kstream_post_ops(KSTREAM_MSG_SEND, true, 16),
			(u32)(KSTREAM_POST_WRITE | KSTREAM_POST_SEND));
	/* Plain writes (keepalive, iowrite): a write in either mode. */
	KUNIT_EXPECT_EQ(test, kstream_post_ops(KSTREAM_MSG_SEND, false, 0),
			(u32)KSTREAM_POST_WRITE);
	KUNIT_EXPECT_EQ(test, kstream_post_ops(KSTREAM_MSG_SEND, false, 4096),
			(u32)KSTREAM_POST_WRITE);
	KUNIT_EXPECT_EQ(test, kstream_post_ops(KSTREAM_MSG_IMM, false, 0),
			(u32)KSTREAM_POST_WRITE);

	/* The value goes in this host's order, not big-endian. */
	kstream_msg_put(kstream_msg(KSTREAM_OP_IOMAP_SGL, 3), buf);
	KUNIT_EXPECT_MEMEQ(test, buf, kstream_host_is_net() ? be : le,
			   sizeof(buf));
	/* ... and is read in the order of the peer's NET flag. */
	KUNIT_EXPECT_EQ(test, kstream_msg_get(le, false), 0xc0000003U);
	KUNIT_EXPECT_EQ(test, kstream_msg_get(be, true), 0xc0000003U);
	KUNIT_EXPECT_EQ(test, kstream_msg_get(raw, false), 0x80000010U);
	KUNIT_EXPECT_EQ(test, kstream_msg_get(raw, true), 0x10000080U);
	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		kstream_msg_put(vals[i], buf);
		KUNIT_EXPECT_EQ(test, kstream_msg_get(buf,
						      kstream_host_is_net()),
				vals[i]);
	}
}

static void kstream_proto_credits_test(struct kunit *test)
{
	struct kstream_sge s = { .addr = 0x1000, .key = 1, .length = 4096 };

	KUNIT_EXPECT_TRUE(test, kstream_credits_ok(0, 0, 384));
	KUNIT_EXPECT_TRUE(test, kstream_credits_ok(10, 384, 394));
	KUNIT_EXPECT_TRUE(test, kstream_credits_ok(10, 394, 394));
	/* 16-bit wrap-around. */
	KUNIT_EXPECT_TRUE(test, kstream_credits_ok(0xfff0, 0xfff8, 0x0070));
	/* Backwards, or below what was already sent. */
	KUNIT_EXPECT_FALSE(test, kstream_credits_ok(10, 394, 390));
	KUNIT_EXPECT_FALSE(test, kstream_credits_ok(20, 10, 15));
	KUNIT_EXPECT_FALSE(test, kstream_credits_ok(0, 0, 0xfff0));

	KUNIT_EXPECT_TRUE(test, kstream_sge_valid(&s, 8192));
	KUNIT_EXPECT_FALSE(test, kstream_sge_valid(&s, 2048));
	s.addr = U64_MAX - 10;
	KUNIT_EXPECT_FALSE(test, kstream_sge_valid(&s, 8192));
	s.addr = 0;
	s.length = 0;
	KUNIT_EXPECT_FALSE(test, kstream_sge_valid(&s, 8192));
	s.length = 0x01020304;
	s.key = 0x0a0b0c0d;
	s.addr = 0x1122334455667788ULL;
	kstream_sge_swap(&s);
	KUNIT_EXPECT_EQ(test, s.length, 0x04030201U);
	KUNIT_EXPECT_EQ(test, s.key, 0x0d0c0b0aU);
	KUNIT_EXPECT_EQ(test, s.addr, 0x8877665544332211ULL);
}

static void kstream_curs_add_test(struct kunit *test)
{
	struct kstream_curs c = {};

	kstream_curs_add(4096, &c, 1000);
	KUNIT_EXPECT_EQ(test, c.count, 1000U);
	KUNIT_EXPECT_EQ(test, c.wrap, 0U);
	/* Reaching the ring's end exactly wraps to offset 0. */
	kstream_curs_add(4096, &c, 3096);
	KUNIT_EXPECT_EQ(test, c.count, 0U);
	KUNIT_EXPECT_EQ(test, c.wrap, 1U);
	/* Across the end. */
	c = (struct kstream_curs){ .wrap = 1, .count = 4000 };
	kstream_curs_add(4096, &c, 200);
	KUNIT_EXPECT_EQ(test, c.count, 104U);
	KUNIT_EXPECT_EQ(test, c.wrap, 2U);
	/* A whole ring moves only the round. */
	kstream_curs_add(4096, &c, 4096);
	KUNIT_EXPECT_EQ(test, c.count, 104U);
	KUNIT_EXPECT_EQ(test, c.wrap, 3U);
	/* Zero moves nothing. */
	kstream_curs_add(4096, &c, 0);
	KUNIT_EXPECT_EQ(test, c.count, 104U);
	KUNIT_EXPECT_EQ(test, c.wrap, 3U);
	/* The largest ring, no overflow of the offset's sum. */
	c = (struct kstream_curs){ .count = KSTREAM_BUF_MAX - 1 };
	kstream_curs_add(KSTREAM_BUF_MAX, &c, KSTREAM_BUF_MAX);
	KUNIT_EXPECT_EQ(test, c.count, KSTREAM_BUF_MAX - 1);
	KUNIT_EXPECT_EQ(test, c.wrap, 1U);
	/* The round counter wraps at 32 bits. */
	c = (struct kstream_curs){ .wrap = U32_MAX, .count = 10 };
	kstream_curs_add(16, &c, 6);
	KUNIT_EXPECT_EQ(test, c.count, 0U);
	KUNIT_EXPECT_EQ(test, c.wrap, 0U);
	/* kstream_curs_next() leaves its cursor alone. */
	c = (struct kstream_curs){ .wrap = 5, .count = 15 };
	KUNIT_EXPECT_EQ(test, kstream_curs_next(16, &c, 3).count, 2U);
	KUNIT_EXPECT_EQ(test, kstream_curs_next(16, &c, 3).wrap, 6U);
	KUNIT_EXPECT_EQ(test, c.count, 15U);
	KUNIT_EXPECT_EQ(test, c.wrap, 5U);
}

static void kstream_curs_diff_test(struct kunit *test)
{
	struct kstream_curs a = { .wrap = 7, .count = 100 };
	struct kstream_curs b = a;

	KUNIT_EXPECT_EQ(test, kstream_curs_diff(4096, &a, &b), 0U);
	b.count = 4095;
	KUNIT_EXPECT_EQ(test, kstream_curs_diff(4096, &a, &b), 3995U);
	/* Past the ring's end. */
	b = (struct kstream_curs){ .wrap = 8, .count = 50 };
	KUNIT_EXPECT_EQ(test, kstream_curs_diff(4096, &a, &b), 4046U);
	/* A full ring is not an empty one. */
	b = (struct kstream_curs){ .wrap = 8, .count = 100 };
	KUNIT_EXPECT_EQ(test, kstream_curs_diff(4096, &a, &b), 4096U);
	/* Across the 32-bit wrap of the round counter. */
	a = (struct kstream_curs){ .wrap = U32_MAX, .count = 4000 };
	b = (struct kstream_curs){ .wrap = 0, .count = 96 };
	KUNIT_EXPECT_EQ(test, kstream_curs_diff(4096, &a, &b), 192U);
	/* The sum of adds, whatever the start. */
	b = a;
	kstream_curs_add(4096, &b, 1000);
	kstream_curs_add(4096, &b, 2000);
	KUNIT_EXPECT_EQ(test, kstream_curs_diff(4096, &a, &b), 3000U);
}

static void kstream_curs_comp_test(struct kunit *test)
{
	struct kstream_curs a = { .wrap = 3, .count = 100 };
	struct kstream_curs b = a;

	KUNIT_EXPECT_EQ(test, kstream_curs_comp(&a, &b), 0);
	b.count = 101;
	KUNIT_EXPECT_EQ(test, kstream_curs_comp(&a, &b), 1);
	KUNIT_EXPECT_EQ(test, kstream_curs_comp(&b, &a), -1);
	/* A later round wins over a larger offset. */
	b = (struct kstream_curs){ .wrap = 4, .count = 0 };
	KUNIT_EXPECT_EQ(test, kstream_curs_comp(&a, &b), 1);
	KUNIT_EXPECT_EQ(test, kstream_curs_comp(&b, &a), -1);
	/* Across the 32-bit wrap: round 0 comes after round U32_MAX. */
	a = (struct kstream_curs){ .wrap = U32_MAX, .count = 4095 };
	b = (struct kstream_curs){ .wrap = 0, .count = 0 };
	KUNIT_EXPECT_EQ(test, kstream_curs_comp(&a, &b), 1);
	KUNIT_EXPECT_EQ(test, kstream_curs_comp(&b, &a), -1);
	/* Up to 2^31 - 1 rounds ahead. */
	b.wrap = U32_MAX + (u32)S32_MAX;
	KUNIT_EXPECT_EQ(test, kstream_curs_comp(&a, &b), 1);
	/* The wrap of a cursor moved past the ring's end is seen. */
	a = (struct kstream_curs){ .wrap = U32_MAX, .count = 4000 };
	b = kstream_curs_next(4096, &a, 200);
	KUNIT_EXPECT_EQ(test, b.wrap, 0U);
	KUNIT_EXPECT_EQ(test, kstream_curs_comp(&a, &b), 1);
}

static void kstream_proto_chunk_test(struct kunit *test)
{
	struct kstream_tx_state s = { .sbuf_avail = 1 << 20 };
	static const u32 want[] = { 2048, 4096, 8192, 16384, 32768, 65536,
				    65536 };
	struct kstream_tx_state c;
	u32 olen = KSTREAM_CHUNK_START;
	unsigned int i;

	/* A send copies 2 KiB, doubling up to 64 KiB. */
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ(test, kstream_tx_chunk(&s, 1 << 20, &olen),
				want[i]);
	/* The rest of a send goes in one piece if it fits. */
	olen = KSTREAM_CHUNK_START;
	KUNIT_EXPECT_EQ(test, kstream_tx_chunk(&s, 100, &olen), 100U);

	/* What the send buffer has free, nothing below the low-water mark. */
	c = (struct kstream_tx_state){ .sbuf_avail = 3000 };
	olen = 65536;
	KUNIT_EXPECT_EQ(test, kstream_tx_chunk(&c, 10000, &olen), 3000U);
	KUNIT_EXPECT_EQ(test, kstream_tx_chunk(&c, 10, &olen), 0U);
	c.sbuf_avail = 2047;
	KUNIT_EXPECT_EQ(test, kstream_tx_chunk(&c, 10, &olen), 0U);
	c.sbuf_avail = 2048;
	KUNIT_EXPECT_EQ(test, kstream_tx_chunk(&c, 10, &olen), 10U);

	/*
	 * The plan (FI_PEEK on send) is what the send buffer takes: the
	 * peer's ring, credits and send slots limit the writes, not the send.
	 */
	c = (struct kstream_tx_state){ .sbuf_avail = 32768 };
	KUNIT_EXPECT_EQ(test, kstream_tx_plan(&c, 1 << 20), (size_t)32768);
	c = (struct kstream_tx_state){ .sbuf_avail = 10000 };
	KUNIT_EXPECT_EQ(test, kstream_tx_plan(&c, 1 << 20), (size_t)10000);
	c = (struct kstream_tx_state){ .sbuf_avail = 4000 };
	KUNIT_EXPECT_EQ(test, kstream_tx_plan(&c, 1 << 20), (size_t)2048);
	/* A chunk size grown by earlier sends carries over (tx_olen). */
	c = (struct kstream_tx_state){ .olen = 65536, .sbuf_avail = 4000 };
	KUNIT_EXPECT_EQ(test, kstream_tx_plan(&c, 1 << 20), (size_t)4000);
}

static void kstream_proto_write_test(struct kunit *test)
{
	struct kstream_tx_state w;

	/* Never across a target entry; the next entry is used after. */
	w = (struct kstream_tx_state){ .sqe_avail = 9, .credits = 9,
				       .target = 3000, .target_next = 5000 };
	KUNIT_EXPECT_EQ(test, kstream_tx_write_size(&w, 10000), 3000U);
	KUNIT_EXPECT_EQ(test, kstream_tx_write_size(&w, 7000), 5000U);
	KUNIT_EXPECT_EQ(test, kstream_tx_write_size(&w, 2000), 0U);
	KUNIT_EXPECT_EQ(test, w.sqe_avail, 7U);
	KUNIT_EXPECT_EQ(test, w.credits, 7U);

	/* Queued bytes go in one write, up to KSTREAM_WRITE_MAX. */
	w = (struct kstream_tx_state){ .sqe_avail = 9, .credits = 9,
				       .target = 4 << 20 };
	KUNIT_EXPECT_EQ(test, kstream_tx_write_size(&w, 300000), 300000U);
	KUNIT_EXPECT_EQ(test, kstream_tx_write_size(&w, 3 << 20),
			KSTREAM_WRITE_MAX);

	/* No credit, no send slot or nothing queued: no write. */
	w = (struct kstream_tx_state){ .sqe_avail = 1, .credits = 0,
				       .target = 4096 };
	KUNIT_EXPECT_EQ(test, kstream_tx_write_size(&w, 10), 0U);
	w.credits = 1;
	w.sqe_avail = 0;
	KUNIT_EXPECT_EQ(test, kstream_tx_write_size(&w, 10), 0U);
	w.sqe_avail = 1;
	KUNIT_EXPECT_EQ(test, kstream_tx_write_size(&w, 0), 0U);
	KUNIT_EXPECT_EQ(test, kstream_tx_write_size(&w, 10), 10U);
	KUNIT_EXPECT_EQ(test, w.target, 4086U);
}

/* ---- getinfo ---- */

static void kstream_getinfo_test(struct kunit *test)
{
	struct fi_info *hints, *info, *cur;
	unsigned int n = 0;

	hints = ks_hints("kstream", FI_EP_SOCK_STREAM);
	KUNIT_ASSERT_NOT_NULL(test, hints);
	KUNIT_ASSERT_EQ(test, fi_getinfo(fi_version(), NULL, NULL, 0, hints,
					 &info), 0);
	for (cur = info; cur; cur = cur->next) {
		KUNIT_EXPECT_EQ(test, cur->ep_attr->type, FI_EP_SOCK_STREAM);
		KUNIT_EXPECT_EQ(test, cur->caps, FI_MSG | FI_SEND | FI_RECV);
		KUNIT_EXPECT_EQ(test, cur->domain_attr->mr_mode, 0U);
		KUNIT_EXPECT_EQ(test, cur->rx_attr->size, (size_t)384);
		KUNIT_EXPECT_NOT_NULL(test, strstr(cur->fabric_attr->prov_name,
						   ";kstream"));
		n += !strcmp(cur->fabric_attr->prov_name, "ksocket;kstream");
	}
	fi_freeinfo(info);
	/* One per address family of ksocket. */
	KUNIT_EXPECT_EQ(test, n, 2U);
	fi_freeinfo(hints);

	/* kstream offers no RMA and no MSG endpoints. */
	hints = ks_hints("ksocket;kstream", FI_EP_MSG);
	KUNIT_ASSERT_NOT_NULL(test, hints);
	KUNIT_EXPECT_EQ(test, fi_getinfo(fi_version(), NULL, NULL, 0, hints,
					 &info), -ENODATA);
	hints->ep_attr->type = FI_EP_SOCK_STREAM;
	hints->caps = FI_RMA;
	KUNIT_EXPECT_EQ(test, fi_getinfo(fi_version(), NULL, NULL, 0, hints,
					 &info), -ENODATA);
	fi_freeinfo(hints);
}

/* ---- stream semantics ---- */

static void kstream_stream_test(struct kunit *test)
{
	static const char msg[] = "the quick brown fox";
	struct ks t;
	char buf[64];
	size_t i;

	ks_connect(test, &t, NULL);
	KUNIT_EXPECT_EQ(test, fi_recv(t.sep, buf, sizeof(buf), NULL,
				      FI_ADDR_UNSPEC, NULL), -EAGAIN);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.cep, EPOLLOUT));
	KUNIT_EXPECT_FALSE(test, kstream_ep_poll(t.sep) & EPOLLIN);
	KUNIT_ASSERT_EQ(test, fi_send(t.cep, msg, sizeof(msg), NULL,
				      FI_ADDR_UNSPEC, NULL),
			(ssize_t)sizeof(msg));
	KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLIN));

	/* Partial reads: 3 bytes at a time. */
	memset(buf, 0, sizeof(buf));
	for (i = 0; i < sizeof(msg); i += 3)
		KUNIT_ASSERT_EQ(test, ks_recv_all(t.sep, buf + i,
						  min_t(size_t, 3,
							sizeof(msg) - i)),
				(ssize_t)min_t(size_t, 3, sizeof(msg) - i));
	KUNIT_EXPECT_STREQ(test, buf, msg);
	KUNIT_EXPECT_EQ(test, fi_recv(t.sep, buf, sizeof(buf), NULL,
				      FI_ADDR_UNSPEC, NULL), -EAGAIN);

	/* Both ways, several sends read as one stream. */
	KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLOUT));
	KUNIT_ASSERT_EQ(test, fi_send(t.sep, "abc", 3, NULL, FI_ADDR_UNSPEC,
				      NULL), 3);
	KUNIT_ASSERT_EQ(test, fi_send(t.sep, "defg", 4, NULL, FI_ADDR_UNSPEC,
				      NULL), 4);
	memset(buf, 0, sizeof(buf));
	KUNIT_ASSERT_EQ(test, ks_recv_all(t.cep, buf, 7), 7);
	KUNIT_EXPECT_STREQ(test, buf, "abcdefg");

	/* A zero-length send or receive does nothing. */
	KUNIT_EXPECT_EQ(test, fi_send(t.cep, buf, 0, NULL, FI_ADDR_UNSPEC,
				      NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_recv(t.cep, buf, 0, NULL, FI_ADDR_UNSPEC,
				      NULL), 0);
	ks_teardown(test, &t);
}

/*
 * One 64-byte send on an idle stream over ksocket, with @flags, and
 * whether the completion of its write was signalled (kstream_ep.kicks)
 * by the time the send returned; the bytes are read and checked.
 */
static bool ks_send_inline(struct kunit *test, struct ks *t, u64 flags,
			   u8 seed)
{
	struct kstream_ep *kep = kstream_ep(t->cep);
	u8 sbuf[64], rbuf[64];
	struct kvec kv = { .iov_base = sbuf, .iov_len = sizeof(sbuf) };
	struct fi_msg m = { .iov_type = FI_IOV_KVEC, .msg_iov = &kv,
			    .iov_count = 1, .addr = FI_ADDR_UNSPEC };
	bool signalled;
	int kicks;

	ks_fill(sbuf, sizeof(sbuf), seed);
	KUNIT_EXPECT_TRUE(test, ks_wait(t->cep, EPOLLOUT));
	kicks = atomic_read(&kep->kicks);
	KUNIT_EXPECT_EQ(test, fi_sendmsg(t->cep, &m, flags),
			(ssize_t)sizeof(sbuf));
	signalled = atomic_read(&kep->kicks) != kicks;
	KUNIT_EXPECT_EQ(test, ks_recv_all(t->sep, rbuf, sizeof(rbuf)),
			(ssize_t)sizeof(rbuf));
	KUNIT_EXPECT_EQ(test, memcmp(rbuf, sbuf, sizeof(sbuf)), 0);
	return signalled;
}

/*
 * The caller's promise that it may sleep, per send (FI_MAY_SLEEP) or for
 * the endpoint (FI_OPT_DATA_MAY_SLEEP), reaches ksocket with the write
 * the send posts: on an idle stream ksocket sends it from the caller,
 * whose call returns with the write's completion signalled.
 */
static void kstream_may_sleep_test(struct kunit *test)
{
	struct ks_opts o = { .may_sleep = 1 };
	size_t v = 0, len = sizeof(v);
	struct ks t;
	int i;

	ks_connect(test, &t, NULL);
	KUNIT_EXPECT_EQ(test, fi_getopt(&t.cep->fid, FI_OPT_ENDPOINT,
					FI_OPT_DATA_MAY_SLEEP, &v, &len), 0);
	KUNIT_EXPECT_EQ(test, v, (size_t)0);
	/*
	 * ksocket's work may still be finishing the connection, its transmit
	 * engine busy, when the first send comes: data only for that one.
	 */
	ks_send_inline(test, &t, 0, 8);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_TRUE_MSG(test, ks_send_inline(test, &t,
							   FI_MAY_SLEEP, i),
				      "send %d", i);
	/* without a promise the write may or may not be done: data only */
	ks_send_inline(test, &t, 0, 9);
	ks_teardown(test, &t);

	ks_connect(test, &t, &o);
	len = sizeof(v);
	KUNIT_EXPECT_EQ(test, fi_getopt(&t.cep->fid, FI_OPT_ENDPOINT,
					FI_OPT_DATA_MAY_SLEEP, &v, &len), 0);
	KUNIT_EXPECT_EQ(test, v, (size_t)1);
	KUNIT_EXPECT_EQ(test, fi_setopt(&t.cep->fid, FI_OPT_ENDPOINT,
					FI_OPT_DATA_MAY_SLEEP, &v,
					sizeof(v)), -EISCONN);
	ks_send_inline(test, &t, 0, 8);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_TRUE_MSG(test, ks_send_inline(test, &t, 0, i),
				      "send %d", i);
	ks_teardown(test, &t);
}

static void kstream_peek_test(struct kunit *test)
{
	struct kvec kv;
	struct fi_msg m = { .iov_type = FI_IOV_KVEC, .msg_iov = &kv,
			    .iov_count = 1, .addr = FI_ADDR_UNSPEC };
	size_t big = 1 << 20;
	struct ks t;
	char buf[32];
	u8 *src;
	ssize_t n;

	ks_connect(test, &t, NULL);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.cep, EPOLLOUT));
	KUNIT_ASSERT_EQ(test, fi_send(t.cep, "hello world", 11, NULL,
				      FI_ADDR_UNSPEC, NULL), 11);
	/* Peek until all 11 bytes are there; they stay. */
	kv.iov_base = buf;
	kv.iov_len = sizeof(buf);
	do {
		KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLIN));
		n = fi_recvmsg(t.sep, &m, FI_PEEK);
	} while (n > 0 && n < 11);
	KUNIT_ASSERT_EQ(test, n, 11);
	kv.iov_len = 5;
	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_EQ(test, fi_recvmsg(t.sep, &m, FI_PEEK), 5);
	KUNIT_EXPECT_STREQ(test, buf, "hello");
	memset(buf, 0, sizeof(buf));
	KUNIT_ASSERT_EQ(test, fi_recv(t.sep, buf, sizeof(buf), NULL,
				      FI_ADDR_UNSPEC, NULL), 11);
	KUNIT_EXPECT_STREQ(test, buf, "hello world");

	/* Peek on send: how much would go, nothing is sent. */
	src = vzalloc(big);
	KUNIT_ASSERT_NOT_NULL(test, src);
	kv.iov_base = src;
	kv.iov_len = big;
	KUNIT_ASSERT_TRUE(test, ks_wait(t.cep, EPOLLOUT));
	n = fi_sendmsg(t.cep, &m, FI_PEEK);
	KUNIT_EXPECT_GT(test, n, 0);
	KUNIT_EXPECT_LE(test, n, (ssize_t)32768);
	KUNIT_EXPECT_EQ(test, fi_sendmsg(t.cep, &m, FI_PEEK), n);
	msleep(50);
	KUNIT_EXPECT_EQ(test, fi_recv(t.sep, buf, sizeof(buf), NULL,
				      FI_ADDR_UNSPEC, NULL), -EAGAIN);
	/* No inject, no remote CQ data, no RMA on a stream: nothing goes. */
	KUNIT_EXPECT_EQ(test, fi_inject(t.cep, src, 1, FI_ADDR_UNSPEC),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_senddata(t.cep, src, 1, NULL, 1,
					  FI_ADDR_UNSPEC, NULL), -FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_injectdata(t.cep, src, 1, 1, FI_ADDR_UNSPEC),
			-FI_ENOSYS);
	KUNIT_EXPECT_EQ(test, fi_write(t.cep, src, 1, NULL, FI_ADDR_UNSPEC, 0,
				       0, NULL), -FI_ENOSYS);
	/* Nothing is ever outstanding: nothing to cancel. */
	KUNIT_EXPECT_EQ(test, fi_cancel(&t.cep->fid, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, fi_cancel(&t.sep->fid, buf), -ENOENT);
	KUNIT_EXPECT_EQ(test, fi_sendmsg(t.cep, &m, FI_PEEK), n);
	/* A real send takes exactly what the peek said. */
	KUNIT_EXPECT_EQ(test, fi_sendmsg(t.cep, &m, 0), n);
	vfree(src);
	ks_teardown(test, &t);
}

/* Move @total bytes @tx -> @rx in pieces, verify every byte. */
static void ks_xfer(struct kunit *test, struct fid_ep *tx, struct fid_ep *rx,
		    size_t total, size_t spiece, size_t rpiece)
{
	unsigned long deadline = jiffies + 60 * HZ;
	size_t sent = 0, got = 0;
	u8 *src, *dst;
	ssize_t n;

	src = vmalloc(total);
	dst = vzalloc(total);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	ks_fill(src, total, (u8)total);
	while (got < total && time_before(jiffies, deadline)) {
		if (sent < total) {
			n = fi_send(tx, src + sent, min(spiece, total - sent),
				    NULL, FI_ADDR_UNSPEC, NULL);
			if (n > 0)
				sent += n;
			else if (n != -EAGAIN)
				break;
		}
		n = fi_recv(rx, dst + got, min(rpiece, total - got), NULL,
			    FI_ADDR_UNSPEC, NULL);
		if (n > 0) {
			got += n;
			continue;
		}
		if (n != -EAGAIN)
			break;
		ks_wait_any(rx, sent < total ? tx : NULL);
	}
	KUNIT_EXPECT_EQ(test, sent, total);
	KUNIT_EXPECT_EQ(test, got, total);
	KUNIT_EXPECT_EQ(test, memcmp(src, dst, total), 0);
	vfree(src);
	vfree(dst);
}

static void kstream_wrap_test(struct kunit *test)
{
	const struct ks_opts o = { .sbuf = 4096, .rbuf = 4096, .rq = 16 };
	size_t v;
	size_t len = sizeof(v);
	struct ks t;

	ks_connect(test, &t, &o);
	KUNIT_ASSERT_EQ(test, fi_getopt(&t.sep->fid, FI_OPT_ENDPOINT,
					FI_OPT_RECV_BUF_SIZE, &v, &len), 0);
	KUNIT_EXPECT_EQ(test, v, (size_t)4096);
	/* 2 KiB ring halves: the ring wraps over a hundred times. */
	ks_xfer(test, t.cep, t.sep, 300000, 3000, 1000);
	ks_xfer(test, t.sep, t.cep, 300000, 1777, 4096);
	ks_teardown(test, &t);
}

static void kstream_large_test(struct kunit *test)
{
	struct ks t;

	ks_connect(test, &t, NULL);
	ks_xfer(test, t.cep, t.sep, 4 << 20, 1 << 20, 1 << 20);
	ks_xfer(test, t.sep, t.cep, 3 << 20, 100000, 65536);
	ks_teardown(test, &t);
}

/*
 * rsockets' iWARP mode over ksocket (the test hook drops its remote CQ
 * data): writes followed by 4-byte sends, 4-byte receive buffers, no
 * write before the peer was heard.  Small rings, so that ring updates
 * and credits go many times both ways.
 */
static void ks_msg_send_off(void *unused)
{
	kstream_test_set_msg_send(false);
}

/* Connect @t in the iWARP mode (the test hook), both ends in it. */
static void ks_connect_msg_send(struct kunit *test, struct ks *t)
{
	const struct ks_opts o = { .sbuf = 4096, .rbuf = 4096, .rq = 16 };

	kstream_test_set_msg_send(true);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ks_msg_send_off,
							NULL), 0);
	ks_connect(test, t, &o);
	kstream_test_set_msg_send(false);
	KUNIT_EXPECT_EQ(test, kstream_ep(t->cep)->mode, KSTREAM_MSG_SEND);
	KUNIT_EXPECT_EQ(test, kstream_ep(t->sep)->mode, KSTREAM_MSG_SEND);
}

/* Both ends of @t heard each other and have no error; tear it down. */
static void ks_msg_send_done(struct kunit *test, struct ks *t)
{
	KUNIT_EXPECT_TRUE(test, kstream_ep(t->cep)->peer_heard);
	KUNIT_EXPECT_TRUE(test, kstream_ep(t->sep)->peer_heard);
	KUNIT_EXPECT_EQ(test, kstream_ep_error(t->cep), 0);
	KUNIT_EXPECT_EQ(test, kstream_ep_error(t->sep), 0);
	ks_teardown(test, t);
}

static void kstream_msg_send_test(struct kunit *test)
{
	struct ks t;

	ks_connect_msg_send(test, &t);
	ks_xfer(test, t.cep, t.sep, 300000, 3000, 1000);
	ks_xfer(test, t.sep, t.cep, 300000, 1777, 4096);
	ks_xfer(test, t.cep, t.sep, 2 << 20, 1 << 20, 65536);
	ks_msg_send_done(test, &t);
}

/*
 * The iWARP mode with the connecting side's first two hellos lost (as
 * soft-iWARP's accepting side can leave one unread): it sends its hello
 * again until the peer is heard, and the stream goes on.
 */
static void ks_hellos_kept(void *unused)
{
	kstream_test_lose_hellos(0);
}

static void kstream_hello_lost_test(struct kunit *test)
{
	struct ks t;

	kstream_test_lose_hellos(2);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ks_hellos_kept,
							NULL), 0);
	ks_connect_msg_send(test, &t);
	ks_xfer(test, t.cep, t.sep, 30000, 3000, 1000);
	ks_xfer(test, t.sep, t.cep, 30000, 1777, 4096);
	kstream_test_lose_hellos(0);
	ks_msg_send_done(test, &t);
}

/* Two senders and two readers on one stream, each in its own thread. */
#define KS_CONC_BYTES	SZ_1M
#define KS_CONC_PIECE	SZ_16K

struct ks_conc {
	struct fid_ep *ep;
	wait_queue_head_t *wq;		/* @ep's (FI_GETWAIT) */
	atomic_long_t *total;		/* bytes both readers received */
	u8 val;				/* sender: the byte it sends */
	long count[3];			/* reader: bytes 0x5a, 0xa5, others */
	int err;
	struct completion done;
};

static int ks_conc_send(void *arg)
{
	struct ks_conc *c = arg;
	size_t sent = 0, piece;
	ssize_t n;
	u8 *buf;

	buf = kmalloc(KS_CONC_PIECE, GFP_KERNEL);
	if (!buf) {
		c->err = -ENOMEM;
		kthread_complete_and_exit(&c->done, 0);
	}
	memset(buf, c->val, KS_CONC_PIECE);
	while (sent < KS_CONC_BYTES) {
		piece = min_t(size_t, 1000 + sent % (KS_CONC_PIECE - 1000),
			      KS_CONC_BYTES - sent);
		n = fi_send(c->ep, buf, piece, NULL, FI_ADDR_UNSPEC, NULL);
		if (n > 0) {
			sent += n;
			continue;
		}
		if (n != -EAGAIN) {
			c->err = n ? n : -EIO;
			break;
		}
		/* The other sender may take the room first: try again. */
		if (!wait_event_timeout(*c->wq, kstream_ep_poll(c->ep) &
					(EPOLLOUT | EPOLLERR),
					msecs_to_jiffies(KS_TIMEOUT))) {
			c->err = -ETIMEDOUT;
			break;
		}
	}
	kfree(buf);
	kthread_complete_and_exit(&c->done, 0);
}

static int ks_conc_recv(void *arg)
{
	const long all = 2 * KS_CONC_BYTES;
	struct ks_conc *c = arg;
	ssize_t n, i;
	u8 *buf;

	buf = kmalloc(KS_CONC_PIECE, GFP_KERNEL);
	if (!buf) {
		c->err = -ENOMEM;
		kthread_complete_and_exit(&c->done, 0);
	}
	while (atomic_long_read(c->total) < all) {
		n = fi_recv(c->ep, buf, 7000, NULL, FI_ADDR_UNSPEC, NULL);
		if (n > 0) {
			for (i = 0; i < n; i++)
				c->count[buf[i] == 0x5a ? 0 :
					 buf[i] == 0xa5 ? 1 : 2]++;
			/* The other reader may be waiting for more. */
			if (atomic_long_add_return(n, c->total) >= all)
				wake_up_all(c->wq);
			continue;
		}
		if (n != -EAGAIN) {
			c->err = n ? n : -EPIPE;
			break;
		}
		if (!wait_event_timeout(*c->wq,
					(kstream_ep_poll(c->ep) &
					 (EPOLLIN | EPOLLERR)) ||
					atomic_long_read(c->total) >= all,
					msecs_to_jiffies(KS_TIMEOUT))) {
			c->err = -ETIMEDOUT;
			break;
		}
	}
	kfree(buf);
	kthread_complete_and_exit(&c->done, 0);
}

/*
 * Concurrent calls on one stream: a send copies into the send buffer and
 * a receive out of the ring with the endpoint lock dropped, so each must
 * keep its direction while it copies, and a call it turned away must be
 * woken when it is done.  Every byte arrives once, none is garbled, and
 * no thread is left waiting.
 */
static void kstream_concurrent_test(struct kunit *test)
{
	atomic_long_t total = ATOMIC_LONG_INIT(0);
	wait_queue_head_t *swq = NULL, *cwq = NULL;
	struct task_struct *task;
	struct ks_conc c[4] = {};
	struct ks t;
	int i;

	ks_connect(test, &t, NULL);
	KUNIT_ASSERT_EQ(test, fi_control(&t.sep->fid, FI_GETWAIT, &swq), 0);
	KUNIT_ASSERT_EQ(test, fi_control(&t.cep->fid, FI_GETWAIT, &cwq), 0);
	for (i = 0; i < 4; i++) {
		c[i].ep = i < 2 ? t.cep : t.sep;
		c[i].wq = i < 2 ? cwq : swq;
		c[i].total = &total;
		c[i].val = i ? 0xa5 : 0x5a;
		init_completion(&c[i].done);
		task = kthread_run(i < 2 ? ks_conc_send : ks_conc_recv, &c[i],
				   "ks_conc%d", i);
		if (IS_ERR(task)) {
			c[i].err = PTR_ERR(task);
			complete(&c[i].done);
		}
	}
	for (i = 0; i < 4; i++) {
		wait_for_completion(&c[i].done);
		KUNIT_EXPECT_EQ_MSG(test, c[i].err, 0, "thread %d", i);
	}
	KUNIT_EXPECT_EQ(test, c[2].count[0] + c[3].count[0],
			(long)KS_CONC_BYTES);
	KUNIT_EXPECT_EQ(test, c[2].count[1] + c[3].count[1],
			(long)KS_CONC_BYTES);
	KUNIT_EXPECT_EQ(test, c[2].count[2] + c[3].count[2], 0L);
	/* Both readers got some: they did run side by side. */
	KUNIT_EXPECT_GT(test, c[2].count[0] + c[2].count[1], 0L);
	KUNIT_EXPECT_GT(test, c[3].count[0] + c[3].count[1], 0L);
	ks_teardown(test, &t);
}

/* Bytes the receiver has now, without taking them. */
static ssize_t ks_peek(struct fid_ep *ep, char *buf, size_t len)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct fi_msg m = { .iov_type = FI_IOV_KVEC, .msg_iov = &kv,
			    .iov_count = 1, .addr = FI_ADDR_UNSPEC };

	return fi_recvmsg(ep, &m, FI_PEEK);
}

static void kstream_credits_test(struct kunit *test)
{
	const struct ks_opts o = { .rq = 16 };
	unsigned long deadline;
	struct kstream_ep *kep;
	struct ks t;
	char buf[64];
	unsigned int i;
	u16 seq;

	ks_connect(test, &t, &o);
	kep = kstream_ep(t.cep);
	/* The peer's first ring update brings the credits. */
	deadline = jiffies + msecs_to_jiffies(KS_TIMEOUT);
	while (READ_ONCE(kep->sseq_comp) != 16 &&
	       time_before(jiffies, deadline))
		msleep(20);
	KUNIT_ASSERT_EQ(test, READ_ONCE(kep->sseq_comp), 16);
	/*
	 * One write per send while the 16 credits last; the sends after
	 * them are taken into the send buffer and wait there.
	 */
	for (i = 0; i < 40; i++) {
		buf[0] = 'a' + i;
		KUNIT_ASSERT_EQ(test, fi_send(t.cep, buf, 1, NULL,
					      FI_ADDR_UNSPEC, NULL), 1);
	}
	KUNIT_EXPECT_TRUE(test, kstream_ep_poll(t.cep) & EPOLLOUT);
	deadline = jiffies + msecs_to_jiffies(KS_TIMEOUT);
	while (ks_peek(t.sep, buf, sizeof(buf)) < 16 &&
	       time_before(jiffies, deadline))
		msleep(20);
	msleep(50);
	KUNIT_EXPECT_EQ(test, ks_peek(t.sep, buf, sizeof(buf)), 16);
	spin_lock_bh(&kep->lock);
	seq = kep->sseq_no;
	KUNIT_EXPECT_EQ(test, kstream_sbuf_queued(kep), 24U);
	spin_unlock_bh(&kep->lock);
	KUNIT_EXPECT_EQ(test, seq, 16);

	/* Reading gives the credits back: the 24 bytes go in one write. */
	KUNIT_ASSERT_EQ(test, ks_recv_all(t.sep, buf, 16), 16);
	for (i = 0; i < 16; i++)
		KUNIT_EXPECT_EQ(test, buf[i], (char)('a' + i));
	KUNIT_ASSERT_EQ(test, ks_recv_all(t.sep, buf, 24), 24);
	for (i = 0; i < 24; i++)
		KUNIT_EXPECT_EQ(test, buf[i], (char)('a' + 16 + i));
	spin_lock_bh(&kep->lock);
	KUNIT_EXPECT_EQ(test, kep->sseq_no, (u16)(seq + 1));
	KUNIT_EXPECT_EQ(test, kstream_sbuf_queued(kep), 0U);
	spin_unlock_bh(&kep->lock);

	/* With credits back, a send is written at once again. */
	KUNIT_EXPECT_EQ(test, fi_send(t.cep, "y", 1, NULL, FI_ADDR_UNSPEC,
				      NULL), 1);
	KUNIT_ASSERT_EQ(test, ks_recv_all(t.sep, buf, 1), 1);
	KUNIT_EXPECT_EQ(test, buf[0], 'y');
	KUNIT_EXPECT_EQ(test, READ_ONCE(kep->sseq_no), (u16)(seq + 2));
	ks_teardown(test, &t);
}

static void kstream_vectors_test(struct kunit *test)
{
	u8 *a = kunit_kzalloc(test, 100, GFP_KERNEL);
	u8 *b = kunit_kzalloc(test, 300, GFP_KERNEL);
	u8 *c = kunit_kzalloc(test, 50, GFP_KERNEL);
	u8 *out = kunit_kzalloc(test, 450, GFP_KERNEL);
	u8 *in = kunit_kzalloc(test, 450, GFP_KERNEL);
	struct kvec kv[3] = { { a, 100 }, { b, 300 }, { c, 50 } };
	struct scatterlist sg[2];
	struct bio_vec bv[2];
	struct page *page;
	struct fi_msg m = { .addr = FI_ADDR_UNSPEC };
	struct ks t;

	KUNIT_ASSERT_TRUE(test, a && b && c && out && in);
	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	ks_fill(a, 100, 1);
	ks_fill(b, 300, 2);
	ks_fill(c, 50, 3);
	memcpy(out, a, 100);
	memcpy(out + 100, b, 300);
	memcpy(out + 400, c, 50);
	ks_connect(test, &t, NULL);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.cep, EPOLLOUT));

	/* sendv, recv of it all. */
	KUNIT_ASSERT_EQ(test, fi_sendv(t.cep, kv, NULL, 3, FI_ADDR_UNSPEC,
				       NULL), 450);
	KUNIT_ASSERT_EQ(test, ks_recv_all(t.sep, in, 450), 450);
	KUNIT_EXPECT_EQ(test, memcmp(in, out, 450), 0);

	/* send, recvv into three pieces. */
	memset(a, 0, 100);
	memset(b, 0, 300);
	memset(c, 0, 50);
	KUNIT_ASSERT_EQ(test, fi_send(t.cep, out, 450, NULL, FI_ADDR_UNSPEC,
				      NULL), 450);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLIN));
	msleep(50);
	KUNIT_ASSERT_EQ(test, fi_recvv(t.sep, kv, NULL, 3, FI_ADDR_UNSPEC,
				       NULL), 450);
	KUNIT_EXPECT_EQ(test, memcmp(a, out, 100), 0);
	KUNIT_EXPECT_EQ(test, memcmp(b, out + 100, 300), 0);
	KUNIT_EXPECT_EQ(test, memcmp(c, out + 400, 50), 0);

	/* bio_vec out, scatterlist in. */
	memcpy(page_address(page), out, 450);
	bv[0].bv_page = page;
	bv[0].bv_len = 200;
	bv[0].bv_offset = 0;
	bv[1].bv_page = page;
	bv[1].bv_len = 250;
	bv[1].bv_offset = 200;
	m.iov_type = FI_IOV_BVEC;
	m.msg_bvec = bv;
	m.iov_count = 2;
	KUNIT_ASSERT_EQ(test, fi_sendmsg(t.cep, &m, 0), 450);
	sg_init_table(sg, 2);
	memset(in, 0, 450);
	sg_set_buf(&sg[0], in, 123);
	sg_set_buf(&sg[1], in + 123, 327);
	m.iov_type = FI_IOV_SG;
	m.msg_sg = sg;
	KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLIN));
	msleep(50);
	KUNIT_ASSERT_EQ(test, fi_recvmsg(t.sep, &m, 0), 450);
	KUNIT_EXPECT_EQ(test, memcmp(in, out, 450), 0);
	ks_teardown(test, &t);
	__free_page(page);
}

/* ---- shutdown ---- */

/* Expect an endpoint's state and its peer's, read under its lock. */
static void ks_expect_states(struct kunit *test, struct fid_ep *ep,
			     enum kstream_state state, enum kstream_peer peer)
{
	struct kstream_ep *kep = kstream_ep(ep);

	spin_lock_bh(&kep->lock);
	KUNIT_EXPECT_EQ(test, kep->state, state);
	KUNIT_EXPECT_EQ(test, kep->peer_state, peer);
	spin_unlock_bh(&kep->lock);
}

static void kstream_shutdown_wr_test(struct kunit *test)
{
	struct ks t;
	char buf[16];

	ks_connect(test, &t, NULL);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.cep, EPOLLOUT));
	KUNIT_ASSERT_EQ(test, fi_send(t.cep, "abc", 3, NULL, FI_ADDR_UNSPEC,
				      NULL), 3);
	KUNIT_ASSERT_EQ(test, kstream_ep_shutdown(t.cep, SHUT_WR), 0);
	KUNIT_EXPECT_EQ(test, fi_send(t.cep, "d", 1, NULL, FI_ADDR_UNSPEC,
				      NULL), -EPIPE);
	/* The server reads the data, then the end of the stream. */
	KUNIT_ASSERT_EQ(test, ks_recv_all(t.sep, buf, 3), 3);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "abc", 3), 0);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLRDHUP));
	KUNIT_EXPECT_EQ(test, fi_recv(t.sep, buf, sizeof(buf), NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_EXPECT_FALSE(test, kstream_ep_poll(t.sep) & EPOLLERR);
	ks_expect_states(test, t.sep, KSTREAM_CONNECTED, KSTREAM_PEER_SHUT);
	ks_expect_states(test, t.cep, KSTREAM_CONNECTED, KSTREAM_PEER_OPEN);
	/* The other direction still works. */
	KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLOUT));
	KUNIT_ASSERT_EQ(test, fi_send(t.sep, "xyz", 3, NULL, FI_ADDR_UNSPEC,
				      NULL), 3);
	KUNIT_ASSERT_EQ(test, ks_recv_all(t.cep, buf, 3), 3);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "xyz", 3), 0);
	KUNIT_EXPECT_EQ(test, kstream_ep_error(t.sep), 0);
	ks_teardown(test, &t);
}

static void kstream_shutdown_rdwr_test(struct kunit *test)
{
	struct ks_cm_entry entry;
	struct ks t;
	char buf[16];

	ks_connect(test, &t, NULL);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.cep, EPOLLOUT));
	KUNIT_ASSERT_EQ(test, fi_send(t.cep, "bye", 3, NULL, FI_ADDR_UNSPEC,
				      NULL), 3);
	KUNIT_ASSERT_EQ(test, fi_shutdown(t.cep, 0), 0);
	KUNIT_EXPECT_EQ(test, ks_event(t.ceq, &entry, NULL), FI_SHUTDOWN);
	/* Orderly: the data, then 0, FI_SHUTDOWN without an error. */
	KUNIT_ASSERT_EQ(test, ks_recv_all(t.sep, buf, 3), 3);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "bye", 3), 0);
	KUNIT_EXPECT_EQ(test, ks_event(t.seq, &entry, NULL), FI_SHUTDOWN);
	KUNIT_EXPECT_PTR_EQ(test, entry.e.fid, &t.sep->fid);
	KUNIT_EXPECT_EQ(test, fi_recv(t.sep, buf, sizeof(buf), NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_send(t.sep, "x", 1, NULL, FI_ADDR_UNSPEC,
				      NULL), -ECONNRESET);
	KUNIT_EXPECT_TRUE(test, kstream_ep_poll(t.sep) & EPOLLHUP);
	KUNIT_EXPECT_EQ(test, fi_recv(t.cep, buf, sizeof(buf), NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	/* Both connections down; the server saw the client's DISCONNECT. */
	ks_expect_states(test, t.sep, KSTREAM_DOWN, KSTREAM_PEER_GONE);
	ks_expect_states(test, t.cep, KSTREAM_DOWN, KSTREAM_PEER_OPEN);
	ks_teardown(test, &t);
}

static void kstream_shutdown_rd_test(struct kunit *test)
{
	struct ks t;
	char buf[16];

	ks_connect(test, &t, NULL);
	KUNIT_EXPECT_EQ(test, kstream_ep_shutdown(t.sep, 7), -EINVAL);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.cep, EPOLLOUT));
	KUNIT_ASSERT_EQ(test, kstream_ep_shutdown(t.sep, SHUT_RD), 0);
	KUNIT_EXPECT_EQ(test, fi_recv(t.sep, buf, sizeof(buf), NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	/* Local only: the server still sends, the client still reads. */
	KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLOUT));
	KUNIT_ASSERT_EQ(test, fi_send(t.sep, "ok", 2, NULL, FI_ADDR_UNSPEC,
				      NULL), 2);
	KUNIT_ASSERT_EQ(test, ks_recv_all(t.cep, buf, 2), 2);
	/* Closing with the stream up sends DISCONNECT. */
	KUNIT_EXPECT_EQ(test, fi_close(&t.cep->fid), 0);
	t.cep = NULL;
	KUNIT_EXPECT_TRUE(test, ks_wait(t.sep, EPOLLHUP));
	KUNIT_EXPECT_EQ(test, fi_send(t.sep, "x", 1, NULL, FI_ADDR_UNSPEC,
				      NULL), -ECONNRESET);
	ks_teardown(test, &t);
}

static void ks_count(void *arg)
{
	atomic_inc(arg);
}

static void kstream_keepalive_test(struct kunit *test)
{
	size_t one = 1, v = 0, len = sizeof(v);
	atomic_t notified = ATOMIC_INIT(0);
	struct ks_cm_entry entry;
	struct ks t;
	char buf[4];
	int i;

	/* Keepalives every second on an idle client. */
	ks_listen(test, &t);
	KUNIT_ASSERT_EQ(test, fi_endpoint(t.domain, t.info, &t.cep, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(t.cep, &t.ceq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, fi_setopt(&t.cep->fid, FI_OPT_ENDPOINT,
					FI_OPT_KSTREAM_KEEPALIVE, &one,
					sizeof(one)), 0);
	KUNIT_ASSERT_EQ(test, fi_getopt(&t.cep->fid, FI_OPT_ENDPOINT,
					FI_OPT_KSTREAM_KEEPALIVE, &v, &len), 0);
	KUNIT_EXPECT_EQ(test, v, (size_t)1);
	KUNIT_ASSERT_EQ(test, fi_connect(t.cep, &t.addr, NULL, 0), 0);
	ks_accept(test, &t, NULL);
	KUNIT_ASSERT_EQ(test, ks_event(t.seq, &entry, NULL), FI_CONNECTED);
	KUNIT_ASSERT_EQ(test, ks_event(t.ceq, &entry, NULL), FI_CONNECTED);
	kstream_ep_set_notify(t.sep, ks_count, &notified);

	/* Idle for a while: the keepalives harm neither side. */
	msleep(2500);
	KUNIT_EXPECT_EQ(test, kstream_ep_error(t.cep), 0);
	KUNIT_EXPECT_EQ(test, kstream_ep_error(t.sep), 0);
	KUNIT_EXPECT_FALSE(test, kstream_ep_poll(t.sep) & EPOLLIN);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.cep, EPOLLOUT));
	KUNIT_ASSERT_EQ(test, fi_send(t.cep, "ka", 2, NULL, FI_ADDR_UNSPEC,
				      NULL), 2);
	KUNIT_ASSERT_EQ(test, ks_recv_all(t.sep, buf, 2), 2);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "ka", 2), 0);
	/*
	 * The readiness hook saw the data arrive: it runs after the waiters
	 * are woken (kstream_wake()), so the reader may get there first.
	 */
	for (i = 0; i < 50 && !atomic_read(&notified); i++)
		msleep(20);
	KUNIT_EXPECT_GT(test, atomic_read(&notified), 0);
	kstream_ep_set_notify(t.sep, NULL, NULL);
	ks_teardown(test, &t);
}

/* ---- settings ---- */

static void kstream_options_test(struct kunit *test)
{
	static const struct { int name; size_t val; int err; } bad[] = {
		{ FI_OPT_SEND_BUF_SIZE, 100, -EINVAL },
		{ FI_OPT_SEND_BUF_SIZE, 1UL << 30, -EINVAL },
		{ FI_OPT_RECV_BUF_SIZE, 0, -EINVAL },
		{ FI_OPT_TX_SIZE, 8, -EINVAL },
		{ FI_OPT_RX_SIZE, 70000, -EINVAL },
		{ FI_OPT_KSTREAM_INLINE, 1 << 20, -EINVAL },
		{ FI_OPT_KSTREAM_IOMAPSIZE, 1 << 20, -EINVAL },
		{ FI_OPT_KSTREAM_KEEPALIVE, 1 << 20, -EINVAL },
		{ FI_OPT_CM_DATA_RAW, 1, -ENOPROTOOPT },
		{ 999, 1, -ENOPROTOOPT },
	};
	size_t v = 8192, len = sizeof(v);
	struct fid_ep *ep;
	unsigned int i;
	u32 small = 8192;
	struct ks t;

	ks_listen(test, &t);
	KUNIT_ASSERT_EQ(test, fi_endpoint(t.domain, t.info, &ep, NULL), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, fi_setopt(&ep->fid, FI_OPT_ENDPOINT,
						    bad[i].name, &bad[i].val,
						    sizeof(size_t)),
				    bad[i].err, "case %u", i);
	KUNIT_EXPECT_EQ(test, fi_setopt(&ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_SEND_BUF_SIZE, &small,
					sizeof(small)), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_setopt(&ep->fid, 1, FI_OPT_SEND_BUF_SIZE, &v,
					sizeof(v)), -ENOPROTOOPT);
	KUNIT_EXPECT_EQ(test, fi_setopt(&ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_SEND_BUF_SIZE, &v, sizeof(v)),
			0);
	v = 0;
	KUNIT_EXPECT_EQ(test, fi_getopt(&ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_SEND_BUF_SIZE, &v, &len), 0);
	KUNIT_EXPECT_EQ(test, v, (size_t)8192);
	len = sizeof(v);
	KUNIT_EXPECT_EQ(test, fi_getopt(&ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_RX_SIZE, &v, &len), 0);
	KUNIT_EXPECT_EQ(test, v, (size_t)384);
	/* No EQ yet; kstream has no CQs. */
	KUNIT_EXPECT_EQ(test, fi_enable(ep), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &t.ceq->fid, 0), 0);
	KUNIT_EXPECT_EQ(test, fi_ep_bind(ep, &t.seq->fid, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, fi_enable(ep), 0);
	v = 8192;
	KUNIT_EXPECT_EQ(test, fi_setopt(&ep->fid, FI_OPT_ENDPOINT,
					FI_OPT_SEND_BUF_SIZE, &v, sizeof(v)),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, fi_recv(ep, &v, sizeof(v), NULL, FI_ADDR_UNSPEC,
				      NULL), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, fi_send(ep, &v, sizeof(v), NULL, FI_ADDR_UNSPEC,
				      NULL), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, fi_connect(ep, &t.addr, &v, sizeof(v)), -EINVAL);
	KUNIT_EXPECT_EQ(test, kstream_ep_shutdown(ep, SHUT_WR), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, fi_close(&ep->fid), 0);
	ks_teardown(test, &t);

	/* After the connection: -EISCONN. */
	ks_connect(test, &t, NULL);
	v = 8192;
	KUNIT_EXPECT_EQ(test, fi_setopt(&t.cep->fid, FI_OPT_ENDPOINT,
					FI_OPT_SEND_BUF_SIZE, &v, sizeof(v)),
			-EISCONN);
	KUNIT_EXPECT_EQ(test, fi_connect(t.cep, &t.addr, NULL, 0), -EISCONN);
	ks_teardown(test, &t);
}

/* ---- a raw ksocket peer sending nonsense ---- */

struct ks_raw {
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_eq *eq;
	struct fid_cq *cq;
	struct fid_ep *ep;
	struct fid_mr *mr;
	u8 *mem;		/* [0, 64): target SGL; [64, 64 + 4096): ring */
	struct kstream_conn_data peer;
};

static void ks_raw_close(struct kunit *test, struct ks_raw *r)
{
	ks_close(test, r->ep ? &r->ep->fid : NULL);
	ks_close(test, r->mr ? &r->mr->fid : NULL);
	ks_close(test, r->cq ? &r->cq->fid : NULL);
	ks_close(test, r->eq ? &r->eq->fid : NULL);
	ks_close(test, r->domain ? &r->domain->fid : NULL);
	ks_close(test, r->fabric ? &r->fabric->fid : NULL);
	kfree(r->mem);
	memset(r, 0, sizeof(*r));
}

/*
 * Connect a plain ksocket MSG endpoint to the kstream listener; it posts
 * @nrecv receives (without one, ksocket leaves what kstream sends unread).
 */
static int ks_raw_connect(struct kunit *test, struct ks *t, struct ks_raw *r,
			  u8 version, bool accept, unsigned int nrecv)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA };
	struct fi_eq_attr eq_attr = {};
	struct fi_info *hints, *info;
	struct kstream_conn_data c = {};
	struct fi_msg m = { .iov_type = FI_IOV_KVEC, .addr = FI_ADDR_UNSPEC };
	struct ks_cm_entry entry;
	u8 cm[KSTREAM_CONN_LEN_EXT];
	unsigned int i;
	ssize_t len;
	u64 key;
	int ret;

	memset(r, 0, sizeof(*r));
	hints = ks_hints("ksocket", FI_EP_MSG);
	KUNIT_ASSERT_NOT_NULL(test, hints);
	hints->caps = FI_MSG | FI_RMA;
	hints->addr_format = FI_SOCKADDR_IN;
	KUNIT_ASSERT_EQ(test, fi_getinfo(fi_version(), NULL, NULL, 0, hints,
					 &info), 0);
	fi_freeinfo(hints);
	KUNIT_ASSERT_EQ(test, fi_fabric(info->fabric_attr, &r->fabric, NULL),
			0);
	KUNIT_ASSERT_EQ(test, fi_domain(r->fabric, info, &r->domain, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_eq_open(r->fabric, &eq_attr, &r->eq, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_cq_open(r->domain, &cq_attr, &r->cq, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_endpoint(r->domain, info, &r->ep, NULL), 0);
	fi_freeinfo(info);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(r->ep, &r->eq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(r->ep, &r->cq->fid,
					 FI_SEND | FI_RECV), 0);
	KUNIT_ASSERT_EQ(test, fi_enable(r->ep), 0);
	r->mem = kzalloc(64 + 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->mem);
	KUNIT_ASSERT_EQ(test, fi_mr_reg(r->domain, r->mem, 64 + 4096,
					FI_REMOTE_WRITE | FI_WRITE, 0, 0, 0,
					&r->mr, NULL), 0);
	key = fi_mr_key(r->mr);
	for (i = 0; i < nrecv; i++)
		KUNIT_ASSERT_EQ(test, fi_recvmsg(r->ep, &m, 0), 0);
	c.version = version;
	c.flags = KSTREAM_CONN_FLAG_IOMAP;
	c.credits = 16;
	c.target_sgl_addr = 0;
	c.target_sgl_key = key;
	c.target_sgl_length = KSTREAM_SGL_SIZE;
	c.data_buf.addr = 64;
	c.data_buf.key = lower_32_bits(key);
	c.data_buf.length = 2048;
	c.data_buf_key_hi = key & ~0xffffffffULL;
	len = kstream_conn_pack(&c, cm, true);
	KUNIT_ASSERT_EQ(test, fi_connect(r->ep, &t->addr, cm, len), 0);
	if (!accept)
		return 0;
	if (version != KSTREAM_PROTO_VERSION)
		return ks_event(r->eq, &entry, NULL);
	ks_accept(test, t, NULL);
	ret = ks_event(r->eq, &entry, &len);
	if (ret != FI_CONNECTED)
		return ret;
	KUNIT_EXPECT_EQ(test, kstream_conn_unpack(entry.data, len -
						  sizeof(entry.e), &r->peer),
			0);
	KUNIT_EXPECT_EQ(test, ks_event(t->seq, &entry, NULL), FI_CONNECTED);
	return ret;
}

/* The raw peer sends an rsockets message without data: @op, @data. */
static int ks_raw_msg(struct ks_raw *r, u32 op, u32 data)
{
	return fi_writedata(r->ep, NULL, 0, NULL, kstream_msg(op, data),
			    FI_ADDR_UNSPEC, r->peer.target_sgl_addr,
			    r->peer.target_sgl_key, NULL);
}

struct ks_bad {
	const char *name;
	u32 imm;		/* immediate sent */
	u32 len;		/* bytes written into the kstream ring */
	bool vanish;		/* close the raw endpoint instead */
	int err;		/* error the stream must end with */
};

static const struct ks_bad ks_bad_cases[] = {
	{ "undefined op 1", 0x20000000, 1, false, EPROTO },
	{ "undefined op 5", 0xa0000000, 0, false, EPROTO },
	{ "CTRL 3", 0xe0000003, 0, false, EPROTO },
	{ "iomap update, no iomap", 0xc0000000, 0, false, EPROTO },
	{ "data beyond the ring", 0x00100000, 1, false, EPROTO },
	{ "credits going backwards", 0x8000fff0, 0, false, EPROTO },
	{ "peer vanishes", 0, 0, true, ECONNRESET },
};

static void ks_bad_desc(const struct ks_bad *b, char *desc)
{
	strscpy(desc, b->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ks_bad, ks_bad_cases, ks_bad_desc);

static void kstream_bad_peer_test(struct kunit *test)
{
	const struct ks_bad *b = test->param_value;
	struct ks_cm_entry entry;
	struct ks_raw r;
	struct ks t;
	u8 byte = 0x5a;
	char buf[8];

	ks_listen(test, &t);
	KUNIT_ASSERT_EQ(test, ks_raw_connect(test, &t, &r,
					     KSTREAM_PROTO_VERSION, true, 16),
			FI_CONNECTED);
	if (b->vanish) {
		KUNIT_EXPECT_EQ(test, fi_close(&r.ep->fid), 0);
		r.ep = NULL;
	} else {
		KUNIT_ASSERT_EQ(test, fi_writedata(r.ep, &byte, b->len, NULL,
						   b->imm, FI_ADDR_UNSPEC,
						   r.peer.data_buf.addr,
						   r.peer.data_buf_key_hi |
						   r.peer.data_buf.key, NULL),
				0);
	}
	KUNIT_EXPECT_TRUE(test, ks_wait(t.sep, EPOLLERR));
	KUNIT_EXPECT_EQ(test, fi_recv(t.sep, buf, sizeof(buf), NULL,
				      FI_ADDR_UNSPEC, NULL), -b->err);
	KUNIT_EXPECT_EQ(test, fi_send(t.sep, buf, 1, NULL, FI_ADDR_UNSPEC,
				      NULL), -b->err);
	KUNIT_EXPECT_EQ(test, kstream_ep_error(t.sep), -b->err);
	KUNIT_EXPECT_EQ(test, ks_event(t.seq, &entry, NULL), -b->err);
	ks_teardown(test, &t);
	ks_raw_close(test, &r);
}

static void kstream_bad_connreq_test(struct kunit *test)
{
	struct ks_cm_entry entry;
	struct ks_raw r;
	struct ks t;
	u32 event;

	ks_listen(test, &t);
	/* Another protocol version: rejected, the user never sees it. */
	KUNIT_EXPECT_EQ(test, ks_raw_connect(test, &t, &r, 2, true, 16),
			-ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, fi_eq_read(t.seq, &event, &entry, sizeof(entry),
					 0), -EAGAIN);
	ks_raw_close(test, &r);

	/* A request never read is rejected when its EQ closes. */
	KUNIT_EXPECT_EQ(test, ks_raw_connect(test, &t, &r,
					     KSTREAM_PROTO_VERSION, false, 16),
			0);
	KUNIT_EXPECT_EQ(test, fi_eq_sread(t.seq, &event, &entry, sizeof(entry),
					  KS_TIMEOUT, FI_PEEK),
			(ssize_t)sizeof(entry.e));
	KUNIT_EXPECT_EQ(test, event, FI_CONNREQ);
	ks_teardown(test, &t);
	KUNIT_EXPECT_NE(test, ks_event(r.eq, &entry, NULL), FI_CONNECTED);
	ks_raw_close(test, &r);
}

/*
 * The peer ends the stream in order (DISCONNECT after its data), then its
 * connection goes away while what we wrote is still unread there, so the
 * core connection ends in a reset.  The orderly end seen first wins: the
 * reader gets the data, then end of stream; the writer -EPIPE; the EQ
 * FI_SHUTDOWN without an error entry.
 */
static void kstream_disconnect_inflight_test(struct kunit *test)
{
	struct ks_cm_entry entry;
	u8 hi[2] = { 'h', 'i' };
	struct ks_raw r;
	struct ks t;
	char buf[8];

	ks_listen(test, &t);
	KUNIT_ASSERT_EQ(test, ks_raw_connect(test, &t, &r,
					     KSTREAM_PROTO_VERSION, true, 0),
			FI_CONNECTED);
	/* Credits for the server (no ring half: the connection gave one). */
	KUNIT_ASSERT_EQ(test, ks_raw_msg(&r, KSTREAM_OP_SGL, 16), 0);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLOUT));
	KUNIT_ASSERT_EQ(test, fi_send(t.sep, "abc", 3, NULL, FI_ADDR_UNSPEC,
				      NULL), 3);
	KUNIT_ASSERT_EQ(test, fi_writedata(r.ep, hi, sizeof(hi), NULL,
					   kstream_msg(KSTREAM_OP_DATA,
						       sizeof(hi)),
					   FI_ADDR_UNSPEC,
					   r.peer.data_buf.addr,
					   r.peer.data_buf_key_hi |
					   r.peer.data_buf.key, NULL), 0);
	KUNIT_ASSERT_EQ(test, ks_raw_msg(&r, KSTREAM_OP_CTRL,
					 KSTREAM_CTRL_DISCONNECT), 0);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLRDHUP));
	KUNIT_EXPECT_EQ(test, fi_close(&r.ep->fid), 0);
	r.ep = NULL;
	KUNIT_EXPECT_EQ(test, ks_event(t.seq, &entry, NULL), FI_SHUTDOWN);
	KUNIT_EXPECT_FALSE(test, kstream_ep_poll(t.sep) & EPOLLERR);
	KUNIT_EXPECT_EQ(test, ks_recv_all(t.sep, buf, 2), 2);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "hi", 2), 0);
	KUNIT_EXPECT_EQ(test, fi_recv(t.sep, buf, sizeof(buf), NULL,
				      FI_ADDR_UNSPEC, NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_send(t.sep, "d", 1, NULL, FI_ADDR_UNSPEC,
				      NULL), -EPIPE);
	KUNIT_EXPECT_EQ(test, kstream_ep_error(t.sep), 0);
	KUNIT_EXPECT_TRUE(test, kstream_ep_poll(t.sep) & EPOLLHUP);
	ks_teardown(test, &t);
	ks_raw_close(test, &r);
}

struct ks_closer {
	struct fid_ep *ep;
	int ret;
	struct completion done;
};

static int ks_close_thread(void *arg)
{
	struct ks_closer *c = arg;

	c->ret = fi_close(&c->ep->fid);
	kthread_complete_and_exit(&c->done, 0);
}

/*
 * The peer sends DISCONNECT and keeps its connection (as rsockets does
 * while it waits for the DISCONNECT's completion): a close then keeps the
 * core connection until the peer ends it, sees that end (FI_SHUTDOWN) and
 * returns.
 */
static void kstream_disconnect_close_test(struct kunit *test)
{
	struct ks_closer c = { .ret = -EINPROGRESS };
	struct ks_cm_entry entry;
	struct task_struct *task;
	struct ks_raw r;
	struct ks t;

	ks_listen(test, &t);
	KUNIT_ASSERT_EQ(test, ks_raw_connect(test, &t, &r,
					     KSTREAM_PROTO_VERSION, true, 16),
			FI_CONNECTED);
	KUNIT_ASSERT_EQ(test, ks_raw_msg(&r, KSTREAM_OP_CTRL,
					 KSTREAM_CTRL_DISCONNECT), 0);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLRDHUP));
	c.ep = t.sep;
	t.sep = NULL;
	init_completion(&c.done);
	task = kthread_run(ks_close_thread, &c, "ks_close");
	if (IS_ERR(task)) {
		c.ret = fi_close(&c.ep->fid);
		complete(&c.done);
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(task));
	} else if (wait_for_completion_timeout(&c.done, HZ / 10)) {
		KUNIT_FAIL(test, "the close did not wait for the peer's");
		complete(&c.done);	/* for the wait below */
	}
	KUNIT_EXPECT_EQ(test, fi_close(&r.ep->fid), 0);
	r.ep = NULL;
	wait_for_completion(&c.done);
	KUNIT_EXPECT_EQ(test, c.ret, 0);
	KUNIT_EXPECT_EQ(test, ks_event(t.seq, &entry, NULL), FI_SHUTDOWN);
	KUNIT_EXPECT_PTR_EQ(test, entry.e.fid, &c.ep->fid);
	ks_teardown(test, &t);
	ks_raw_close(test, &r);
}

/* ---- direct placement ---- */

/*
 * The server maps a buffer in two pieces (both iomap slots the client
 * offers), the client writes at offsets into it: the bytes land there,
 * before the stream data sent after them; offsets outside, a third map
 * and a second unmap fail.
 */
static void kstream_iomap_test(struct kunit *test)
{
	const struct ks_opts o = { .iomap = 2 };
	u8 *dst = kunit_kzalloc(test, 3 * 4096, GFP_KERNEL);
	u8 *src = kunit_kmalloc(test, 8192, GFP_KERNEL);
	u8 *other = kunit_kzalloc(test, 4096, GFP_KERNEL);
	struct ks t;
	char buf[4];

	KUNIT_ASSERT_TRUE(test, dst && src && other);
	ks_fill(src, 8192, 9);
	ks_connect(test, &t, &o);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLOUT));
	KUNIT_EXPECT_EQ(test, kstream_ep_iomap(t.sep, dst, 8192, PROT_NONE, 0),
			(off_t)-EINVAL);
	KUNIT_EXPECT_EQ(test, kstream_ep_iomap(t.sep, dst, 8192, PROT_WRITE,
					       -2), (off_t)-EINVAL);
	KUNIT_ASSERT_EQ(test, kstream_ep_iomap(t.sep, dst, 8192, PROT_WRITE,
					       0x10000), (off_t)0x10000);
	KUNIT_EXPECT_EQ(test, kstream_ep_iomap(t.sep, other, 100, PROT_WRITE,
					       0x10000 + 100), (off_t)-EINVAL);
	KUNIT_ASSERT_EQ(test, kstream_ep_iomap(t.sep, dst + 8192, 4096,
					       PROT_WRITE, -1), (off_t)0x12000);
	KUNIT_EXPECT_EQ(test, kstream_ep_iomap(t.sep, other, 4096, PROT_WRITE,
					       -1), (off_t)-ENOSPC);
	/* Data sent after the maps: the client knows them once it has it. */
	KUNIT_ASSERT_EQ(test, fi_send(t.sep, "go", 2, NULL, FI_ADDR_UNSPEC,
				      NULL), 2);
	KUNIT_ASSERT_EQ(test, ks_recv_all(t.cep, buf, 2), 2);

	KUNIT_ASSERT_TRUE(test, ks_wait(t.cep, EPOLLOUT));
	KUNIT_EXPECT_EQ(test, kstream_ep_iowrite(t.cep, src, 5000,
						 0x10000 + 100), 5000);
	/* Across the two adjacent mappings (adjacent in memory too). */
	KUNIT_EXPECT_EQ(test, kstream_ep_iowrite(t.cep, src + 5000, 1000,
						 0x10000 + 8000), 1000);
	/* Up to the end of the last mapping. */
	KUNIT_EXPECT_EQ(test, kstream_ep_iowrite(t.cep, src, 500,
						 0x12000 + 4000), 96);
	KUNIT_EXPECT_EQ(test, kstream_ep_iowrite(t.cep, src, 10, 0x13000),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kstream_ep_iowrite(t.cep, src, 10, 0x10000 - 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kstream_ep_iowrite(t.cep, src, 10, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, kstream_ep_iowrite(t.sep, src, 10, 0x10000),
			-EINVAL);
	/* Stream data sent after the writes arrives after them. */
	KUNIT_ASSERT_EQ(test, fi_send(t.cep, "ok", 2, NULL, FI_ADDR_UNSPEC,
				      NULL), 2);
	KUNIT_ASSERT_EQ(test, ks_recv_all(t.sep, buf, 2), 2);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "ok", 2), 0);
	KUNIT_EXPECT_EQ(test, memcmp(dst + 100, src, 5000), 0);
	KUNIT_EXPECT_EQ(test, memcmp(dst + 8000, src + 5000, 1000), 0);
	KUNIT_EXPECT_EQ(test, memcmp(dst + 8192 + 4000, src, 96), 0);
	KUNIT_EXPECT_EQ(test, dst[99], 0);
	KUNIT_EXPECT_EQ(test, dst[5100], 0);
	KUNIT_EXPECT_EQ(test, dst[9000], 0);
	KUNIT_EXPECT_FALSE(test, kstream_ep_poll(t.sep) & EPOLLERR);

	/* Unmap: once; the slot is free again. */
	KUNIT_EXPECT_EQ(test, kstream_ep_iounmap(t.sep, dst + 8192, 4096), 0);
	KUNIT_EXPECT_EQ(test, kstream_ep_iounmap(t.sep, dst + 8192, 4096),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kstream_ep_iounmap(t.sep, dst, 4096), -EINVAL);
	KUNIT_EXPECT_EQ(test, kstream_ep_iomap(t.sep, other, 4096, PROT_WRITE,
					       -1), (off_t)0x12000);
	KUNIT_EXPECT_EQ(test, kstream_ep_iounmap(t.sep, other, 4096), 0);
	ks_teardown(test, &t);

	/* No slots offered by default. */
	ks_connect(test, &t, NULL);
	KUNIT_ASSERT_TRUE(test, ks_wait(t.sep, EPOLLOUT));
	KUNIT_EXPECT_EQ(test, kstream_ep_iomap(t.sep, dst, 4096, PROT_WRITE,
					       0), (off_t)-ENOSPC);
	KUNIT_EXPECT_EQ(test, kstream_ep_iowrite(t.cep, src, 10, 0), -EINVAL);
	ks_teardown(test, &t);
}

static struct kunit_case kstream_cases[] = {
	KUNIT_CASE(kstream_proto_conn_test),
	KUNIT_CASE(kstream_proto_msg_test),
	KUNIT_CASE(kstream_proto_msg_send_test),
	KUNIT_CASE(kstream_proto_credits_test),
	KUNIT_CASE(kstream_curs_add_test),
	KUNIT_CASE(kstream_curs_diff_test),
	KUNIT_CASE(kstream_curs_comp_test),
	KUNIT_CASE(kstream_proto_chunk_test),
	KUNIT_CASE(kstream_proto_write_test),
	KUNIT_CASE(kstream_getinfo_test),
	KUNIT_CASE(kstream_stream_test),
	KUNIT_CASE(kstream_peek_test),
	KUNIT_CASE(kstream_may_sleep_test),
	KUNIT_CASE(kstream_wrap_test),
	KUNIT_CASE(kstream_large_test),
	KUNIT_CASE_SLOW(kstream_msg_send_test),
	KUNIT_CASE(kstream_hello_lost_test),
	KUNIT_CASE(kstream_credits_test),
	KUNIT_CASE(kstream_concurrent_test),
	KUNIT_CASE(kstream_vectors_test),
	KUNIT_CASE(kstream_shutdown_wr_test),
	KUNIT_CASE(kstream_shutdown_rdwr_test),
	KUNIT_CASE(kstream_shutdown_rd_test),
	KUNIT_CASE(kstream_keepalive_test),
	KUNIT_CASE(kstream_options_test),
	KUNIT_CASE_PARAM(kstream_bad_peer_test, ks_bad_gen_params),
	KUNIT_CASE(kstream_bad_connreq_test),
	KUNIT_CASE(kstream_disconnect_inflight_test),
	KUNIT_CASE(kstream_disconnect_close_test),
	KUNIT_CASE(kstream_iomap_test),
	{}
};

static struct kunit_suite kstream_suite = {
	.name = "kofi_kstream",
	.suite_init = kofi_test_loopback_up,
	.test_cases = kstream_cases,
};

kunit_test_suite(kstream_suite);

MODULE_DESCRIPTION("KUnit tests for the kOFI kstream engine");
MODULE_LICENSE("Dual BSD/GPL");
