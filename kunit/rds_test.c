// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: the rds provider over RDS/TCP on loopback.
 *
 * Three FI_EP_RDM endpoints of the domain "tcp" bound to 127.0.0.1 (or
 * ::1; RDS carries what one sends another on this host by its loopback
 * transport),
 * each in one address vector: endpoint 0 receives, endpoints 1 and 2
 * send.  Receive matching on FI_MSG-only endpoints and on header
 * endpoints (FI_TAGGED): directed receives, multi-receive buffers and
 * FI_OPT_MIN_MULTI_RECV, fi_cancel(), fi_av_remove() of a source (and
 * its insertion again) and of a lost peer host, closing an endpoint with
 * receives posted, and the calls refused.  RMA carried in messages:
 * writes and reads up to the largest, into kvec and page regions, remote
 * CQ data, inject, and every refusal the target answers.
 *
 * Only exported symbols are used (the suite is also built as a module);
 * kofi_rds, rds and rds_tcp must be loaded or built in.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kofi/fabric.h>
#include <kofi/fi_av.h>
#include <kofi/fi_cm.h>
#include <kofi/fi_domain.h>
#include <kofi/fi_endpoint.h>
#include <kofi/fi_eq.h>
#include <kofi/fi_errno.h>
#include <kofi/fi_rma.h>
#include <kofi/fi_tagged.h>
#include "kofi_test_net.h"
#include "kofi_test_rdm.h"

#define RDT_EPS		3
#define RDT_BUF		4096
#define RDT_TIMEOUT	5000	/* ms, every wait for a completion */
#define RDT_SETTLE	100	/* ms for a message to reach its endpoint */

/* The objects of rds's FI_EP_RDM endpoints on @node for @caps, less @drop. */
static void rdt_setup_node(struct kunit *test, struct ktr_rdm *t,
			   const char *node, u64 caps, u64 drop)
{
	const struct ktr_rdm_attr attr = {
		.prov = "rds",
		.domain = "tcp",
		.node = node,
		.caps = caps,
		.drop = drop,
		.eps = RDT_EPS,
		.buf_size = RDT_BUF,
	};

	ktr_rdm_open(test, t, &attr);
}

/*
 * Three enabled endpoints on 127.0.0.1 of the info for @caps, less the
 * caps @drop, each with one CQ and named in the AV.
 */
static void rdt_setup(struct kunit *test, struct ktr_rdm *t, u64 caps,
		      u64 drop)
{
	rdt_setup_node(test, t, "127.0.0.1", caps, drop);
}

/* The infos of rds over RDS/TCP on 127.0.0.1 for @caps, best first. */
static struct fi_info *rdt_getinfo(struct kunit *test, u64 caps)
{
	return ktr_rdm_getinfo(test, "rds", "tcp", "127.0.0.1", caps);
}

/*
 * Read one completion of @cq into @e and its source into @src; -errno of
 * an error entry (@err filled in), -EAGAIN if none came in time.
 */
static ssize_t rdt_comp(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
			fi_addr_t *src, struct fi_cq_err_entry *err)
{
	return ktr_rdm_comp(cq, e, src, err, RDT_TIMEOUT);
}

/* No completion waits on @cq. */
static void rdt_no_comp(struct kunit *test, struct fid_cq *cq)
{
	struct fi_cq_tagged_entry e;

	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, &e, 1), -EAGAIN);
}

/*
 * Endpoint @from sends endpoint 0 @len bytes of @fill (tagged with @tag
 * on a header endpoint if @tagged), and the send completes; then the
 * message has time to arrive.
 */
static void rdt_send(struct kunit *test, struct ktr_rdm *t, int from,
		     u8 fill, size_t len, bool tagged, u64 tag)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	fi_addr_t src;

	memset(t->buf[from], fill, len);
	if (tagged)
		KUNIT_ASSERT_EQ(test, fi_tsend(t->ep[from], t->buf[from], len,
					       NULL, t->addr[0], tag, NULL),
				0);
	else
		KUNIT_ASSERT_EQ(test, fi_send(t->ep[from], t->buf[from], len,
					      NULL, t->addr[0], NULL), 0);
	KUNIT_ASSERT_EQ(test, rdt_comp(t->cq[from], &e, &src, &err), 1);
	KUNIT_EXPECT_TRUE(test, e.flags & FI_SEND);
	msleep(RDT_SETTLE);
}

/* Endpoint 0 receives @len bytes into @buf from @src (any: FI_ADDR_UNSPEC). */
static void rdt_recv(struct kunit *test, struct ktr_rdm *t, void *buf,
		     size_t len, fi_addr_t src, bool tagged, void *context)
{
	if (tagged)
		KUNIT_ASSERT_EQ(test, fi_trecv(t->ep[0], buf, len, NULL, src, 0,
					       ~0ULL, context), 0);
	else
		KUNIT_ASSERT_EQ(test, fi_recv(t->ep[0], buf, len, NULL, src,
					      context), 0);
}

/*
 * Endpoint 0's next completion: a receive of @context that took @len
 * bytes of @fill from endpoint @from.
 */
static void rdt_expect_recv(struct kunit *test, struct ktr_rdm *t,
			    void *context, int from, u8 fill, size_t len)
{
	struct fi_cq_tagged_entry e = {};
	struct fi_cq_err_entry err;
	fi_addr_t src = FI_ADDR_NOTAVAIL;

	KUNIT_ASSERT_EQ(test, rdt_comp(t->cq[0], &e, &src, &err), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, context);
	KUNIT_EXPECT_TRUE(test, e.flags & FI_RECV);
	KUNIT_EXPECT_EQ(test, e.len, len);
	KUNIT_EXPECT_EQ(test, src, t->addr[from]);
	KUNIT_EXPECT_EQ(test, ((u8 *)context)[0], fill);
	KUNIT_EXPECT_EQ(test, ((u8 *)context)[len - 1], fill);
}

/* FI_MSG-only endpoints, or header endpoints (FI_TAGGED). */
static const bool rdt_hdr_params[] = { false, true };

static void rdt_hdr_desc(const bool *hdr, char *desc)
{
	strscpy(desc, *hdr ? "header" : "bare", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rdt_hdr, rdt_hdr_params, rdt_hdr_desc);

static u64 rdt_caps(struct kunit *test)
{
	const bool *hdr = test->param_value;

	return FI_MSG | FI_SOURCE | FI_DIRECTED_RECV | FI_MULTI_RECV |
	       (*hdr ? FI_TAGGED : 0);
}

/* The infos offer directed receive and multi-receive, to receives only. */
static void rds_getinfo_test(struct kunit *test)
{
	struct fi_info *info = rdt_getinfo(test, FI_MSG | FI_DIRECTED_RECV |
					   FI_MULTI_RECV);
	struct fi_info *i;
	int n = 0;

	for (i = info; i; i = i->next, n++) {
		KUNIT_EXPECT_TRUE(test, i->caps & FI_DIRECTED_RECV);
		KUNIT_EXPECT_TRUE(test, i->caps & FI_MULTI_RECV);
		KUNIT_EXPECT_TRUE(test, i->rx_attr->caps & FI_DIRECTED_RECV);
		KUNIT_EXPECT_TRUE(test, i->rx_attr->caps & FI_MULTI_RECV);
		KUNIT_EXPECT_FALSE(test, i->tx_attr->caps &
				   (FI_DIRECTED_RECV | FI_MULTI_RECV));
	}
	/* the bare info first, then the header one, then the RMA one */
	KUNIT_EXPECT_EQ(test, n, 3);
	KUNIT_EXPECT_FALSE(test, info->caps & (FI_TAGGED | FI_RMA));
	KUNIT_EXPECT_TRUE(test, info->next->caps & FI_TAGGED);
	KUNIT_EXPECT_FALSE(test, info->next->caps & FI_RMA);
	KUNIT_EXPECT_TRUE(test, info->next->next->caps & FI_RMA);
	fi_freeinfo(info);
}

/*
 * Endpoints 1 and 2 send one message each, 1 first; a receive directed to
 * endpoint 2 takes 2's, then a receive of any source takes 1's.
 */
static void rdt_directed(struct kunit *test, struct ktr_rdm *t, bool tagged)
{
	u8 *rx = t->buf[0];

	rdt_recv(test, t, rx, 64, t->addr[2], tagged, rx);
	rdt_send(test, t, 1, 'a', 10, tagged, 1);
	rdt_no_comp(test, t->cq[0]);
	rdt_send(test, t, 2, 'b', 20, tagged, 2);
	rdt_expect_recv(test, t, rx, 2, 'b', 20);
	rdt_recv(test, t, rx + 64, 64, FI_ADDR_UNSPEC, tagged, rx + 64);
	rdt_expect_recv(test, t, rx + 64, 1, 'a', 10);
	rdt_no_comp(test, t->cq[0]);
}

/*
 * Endpoints 1 and 2 send one message each, 1 first; a receive directed to
 * endpoint 2 takes 2's, then a receive of any source takes 1's, which
 * waited.  Without FI_DIRECTED_RECV the source of a receive does not
 * count: the same receive takes 1's message.
 */
static void rds_directed_test(struct kunit *test)
{
	bool tagged = *(const bool *)test->param_value;
	u8 *rx;
	struct ktr_rdm t;

	rdt_setup(test, &t, rdt_caps(test), 0);
	rdt_directed(test, &t, tagged);
	ktr_rdm_close(test, &t);

	rdt_setup(test, &t, rdt_caps(test), FI_DIRECTED_RECV);
	rx = t.buf[0];
	rdt_recv(test, &t, rx, 64, t.addr[2], tagged, rx);
	rdt_send(test, &t, 1, 'a', 10, tagged, 1);
	rdt_expect_recv(test, &t, rx, 1, 'a', 10);
	ktr_rdm_close(test, &t);
}

/*
 * Messages sent before any receive is posted: a bare endpoint leaves them
 * in the socket, a header endpoint keeps them as unexpected; either way
 * each receive posted later takes the next one, in order, and nothing
 * else completes.
 */
static void rds_late_recv_test(struct kunit *test)
{
	bool tagged = *(const bool *)test->param_value;
	struct ktr_rdm t;
	int i;
	u8 *rx;

	rdt_setup(test, &t, rdt_caps(test), 0);
	rx = t.buf[0];
	for (i = 0; i < 3; i++)
		rdt_send(test, &t, 1, 'a' + i, 10 + i, tagged, 1);
	rdt_no_comp(test, t.cq[0]);
	for (i = 0; i < 3; i++) {
		rdt_recv(test, &t, rx + 64 * i, 64, FI_ADDR_UNSPEC, tagged,
			 rx + 64 * i);
		rdt_expect_recv(test, &t, rx + 64 * i, 1, 'a' + i, 10 + i);
	}
	rdt_no_comp(test, t.cq[0]);
	ktr_rdm_close(test, &t);
}

/*
 * The same over IPv6 (::1): an info of FI_SOCKADDR_IN6, endpoints named
 * by struct sockaddr_in6, a directed receive taking its source's message
 * and a receive of any source the other's, each source told; then
 * fi_av_remove() of a source with a receive directed to it cancels that
 * receive.
 */
static void rds_ipv6_test(struct kunit *test)
{
	bool tagged = *(const bool *)test->param_value;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	fi_addr_t src;
	struct ktr_rdm t;
	u8 *rx;

	rdt_setup_node(test, &t, "::1", rdt_caps(test), 0);
	KUNIT_EXPECT_EQ(test, t.info->addr_format, FI_SOCKADDR_IN6);
	rdt_directed(test, &t, tagged);
	rx = t.buf[0];
	rdt_recv(test, &t, rx + 128, 64, t.addr[1], tagged, rx + 128);
	KUNIT_ASSERT_EQ(test, fi_av_remove(t.av, &t.addr[1], 1, 0), 0);
	KUNIT_EXPECT_EQ(test, rdt_comp(t.cq[0], &e, &src, &err), -ECANCELED);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)(rx + 128));
	rdt_no_comp(test, t.cq[0]);
	ktr_rdm_close(test, &t);
}

/*
 * Endpoint 0's next completion: an error entry of @code for the receive of
 * @context, with FI_MULTI_RECV if @multi; in @err.
 */
static void rdt_expect_err(struct kunit *test, struct ktr_rdm *t,
			   void *context, int code, bool multi,
			   struct fi_cq_err_entry *err)
{
	struct fi_cq_tagged_entry e;
	fi_addr_t src;

	KUNIT_ASSERT_EQ(test, rdt_comp(t->cq[0], &e, &src, err), -code);
	KUNIT_EXPECT_PTR_EQ(test, err->op_context, context);
	KUNIT_EXPECT_TRUE(test, err->flags & FI_RECV);
	KUNIT_EXPECT_EQ(test, !!(err->flags & FI_MULTI_RECV), multi);
}

/* Post a multi-receive buffer of @len bytes at @buf on endpoint 0. */
static int rdt_recv_multi(struct ktr_rdm *t, void *buf, size_t len,
			  bool tagged)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct fi_msg_tagged tm = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &kv,
		.iov_count = 1,
		.addr = FI_ADDR_UNSPEC,
		.ignore = ~0ULL,
		.context = buf,
	};
	struct fi_msg m = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &kv,
		.iov_count = 1,
		.addr = FI_ADDR_UNSPEC,
		.context = buf,
	};

	if (tagged)
		return fi_trecvmsg(t->ep[0], &tm, FI_MULTI_RECV);
	return fi_recvmsg(t->ep[0], &m, FI_MULTI_RECV);
}

/*
 * Endpoint 0's next completion: the message of @len bytes of @fill from
 * endpoint @from at @at in the multi-receive buffer @buf, the last one
 * (FI_MULTI_RECV) if @last.
 */
static void rdt_expect_multi(struct kunit *test, struct ktr_rdm *t, u8 *buf,
			     u8 *at, int from, u8 fill, size_t len, bool last)
{
	struct fi_cq_tagged_entry e = {};
	struct fi_cq_err_entry err;
	fi_addr_t src = FI_ADDR_NOTAVAIL;

	KUNIT_ASSERT_EQ(test, rdt_comp(t->cq[0], &e, &src, &err), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)buf);
	KUNIT_EXPECT_PTR_EQ(test, e.buf, (void *)at);
	KUNIT_EXPECT_EQ(test, e.len, len);
	KUNIT_EXPECT_EQ(test, !!(e.flags & FI_MULTI_RECV), last);
	KUNIT_EXPECT_EQ(test, src, t->addr[from]);
	KUNIT_EXPECT_EQ(test, at[0], fill);
	KUNIT_EXPECT_EQ(test, at[len - 1], fill);
}

/*
 * A 1000-byte multi-receive buffer with FI_OPT_MIN_MULTI_RECV 300 takes
 * messages of 200 bytes one after the other and is released with the
 * fourth (200 bytes left); the fifth goes to the next receive.  On a
 * header endpoint two of them waited as unexpected before the buffer was
 * posted, and a tagged buffer does the same.  A message longer than what
 * is left is cut, with EMSGSIZE, and releases the buffer.
 */
static void rds_multi_recv_test(struct kunit *test)
{
	bool hdr = *(const bool *)test->param_value;
	size_t min = 0, len = sizeof(min);
	int i, early = hdr ? 2 : 0, pass;
	struct fi_cq_err_entry err;
	struct ktr_rdm t;
	u8 *rx;

	rdt_setup(test, &t, rdt_caps(test), 0);
	rx = t.buf[0];
	KUNIT_ASSERT_EQ(test, fi_getopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_MIN_MULTI_RECV, &min, &len), 0);
	KUNIT_EXPECT_EQ(test, len, sizeof(min));
	KUNIT_EXPECT_EQ(test, min, 16384);
	min = 300;
	KUNIT_ASSERT_EQ(test, fi_setopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_MIN_MULTI_RECV, &min, len), 0);
	min = 0;
	KUNIT_ASSERT_EQ(test, fi_getopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_MIN_MULTI_RECV, &min, &len), 0);
	KUNIT_EXPECT_EQ(test, min, 300);

	for (pass = 0; pass < (hdr ? 2 : 1); pass++) {
		bool tagged = pass;

		memset(rx, 0, RDT_BUF);
		for (i = 0; i < early; i++)
			rdt_send(test, &t, 1 + i % 2, 'a' + i, 200, tagged, 7);
		KUNIT_ASSERT_EQ(test, rdt_recv_multi(&t, rx, 1000, tagged), 0);
		for (i = 0; i < early; i++)
			rdt_expect_multi(test, &t, rx, rx + 200 * i, 1 + i % 2,
					 'a' + i, 200, false);
		for (i = early; i < 4; i++) {
			rdt_send(test, &t, 1 + i % 2, 'a' + i, 200, tagged, 7);
			rdt_expect_multi(test, &t, rx, rx + 200 * i, 1 + i % 2,
					 'a' + i, 200, i == 3);
		}
		rdt_send(test, &t, 1, 'e', 100, tagged, 7);
		rdt_no_comp(test, t.cq[0]);
		KUNIT_EXPECT_EQ(test, rx[800], 0);
		rdt_recv(test, &t, rx + 1024, 128, FI_ADDR_UNSPEC, tagged,
			 rx + 1024);
		rdt_expect_recv(test, &t, rx + 1024, 1, 'e', 100);

		/* 900 bytes where 800 are left: cut, and the buffer released */
		KUNIT_ASSERT_EQ(test, rdt_recv_multi(&t, rx, 1000, tagged), 0);
		rdt_send(test, &t, 2, 'f', 200, tagged, 7);
		rdt_expect_multi(test, &t, rx, rx, 2, 'f', 200, false);
		rdt_send(test, &t, 1, 'g', 900, tagged, 7);
		rdt_expect_err(test, &t, rx, EMSGSIZE, true, &err);
		KUNIT_EXPECT_EQ(test, err.len, 800);
		KUNIT_EXPECT_EQ(test, err.olen, 100);
		KUNIT_EXPECT_EQ(test, rx[999], 'g');
		KUNIT_EXPECT_EQ(test, fi_cancel(&t.ep[0]->fid, rx), -ENOENT);
	}
	ktr_rdm_close(test, &t);
}

/* rdt_setup() of rdt_caps(), endpoint 0's FI_OPT_MIN_MULTI_RECV @min. */
static void rdt_setup_min(struct kunit *test, struct ktr_rdm *t,
			  size_t min)
{
	rdt_setup(test, t, rdt_caps(test), 0);
	KUNIT_ASSERT_EQ(test, fi_setopt(&t->ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_MIN_MULTI_RECV, &min,
					sizeof(min)), 0);
}

/*
 * fi_cancel() of a posted receive: an ECANCELED error entry with its
 * context; it takes no message, the receive posted after it does.  A
 * multi-receive buffer that took a message is cancelled with
 * FI_MULTI_RECV.  A context not posted (any more) is -ENOENT.
 */
static void rds_cancel_test(struct kunit *test)
{
	bool tagged = *(const bool *)test->param_value;
	struct fi_cq_err_entry err;
	struct ktr_rdm t;
	u8 *rx;

	rdt_setup_min(test, &t, 100);
	rx = t.buf[0];
	KUNIT_EXPECT_EQ(test, fi_cancel(&t.ep[0]->fid, rx), -ENOENT);
	rdt_recv(test, &t, rx, 64, FI_ADDR_UNSPEC, tagged, rx);
	KUNIT_ASSERT_EQ(test, fi_cancel(&t.ep[0]->fid, rx), 0);
	rdt_expect_err(test, &t, rx, ECANCELED, false, &err);
	KUNIT_EXPECT_EQ(test, fi_cancel(&t.ep[0]->fid, rx), -ENOENT);
	rdt_send(test, &t, 1, 'a', 10, tagged, 1);
	rdt_no_comp(test, t.cq[0]);
	KUNIT_EXPECT_EQ(test, rx[0], 0);
	rdt_recv(test, &t, rx + 64, 64, FI_ADDR_UNSPEC, tagged, rx + 64);
	rdt_expect_recv(test, &t, rx + 64, 1, 'a', 10);

	KUNIT_ASSERT_EQ(test, rdt_recv_multi(&t, rx + 256, 1000, tagged), 0);
	rdt_send(test, &t, 2, 'b', 20, tagged, 1);
	rdt_expect_multi(test, &t, rx + 256, rx + 256, 2, 'b', 20, false);
	KUNIT_ASSERT_EQ(test, fi_cancel(&t.ep[0]->fid, rx + 256), 0);
	rdt_expect_err(test, &t, rx + 256, ECANCELED, true, &err);
	KUNIT_EXPECT_EQ(test, fi_cancel(&t.ep[0]->fid, rx + 256), -ENOENT);
	rdt_send(test, &t, 2, 'c', 30, tagged, 1);
	rdt_no_comp(test, t.cq[0]);
	KUNIT_EXPECT_EQ(test, rx[256 + 20], 0);
	rdt_recv(test, &t, rx + 64, 64, FI_ADDR_UNSPEC, tagged, rx + 64);
	rdt_expect_recv(test, &t, rx + 64, 2, 'c', 30);
	ktr_rdm_close(test, &t);
}

/*
 * fi_av_remove() of endpoint 2: the receive directed to it completes with
 * ECANCELED and its context; the receive of any source posted after it
 * stays posted and takes endpoint 1's message.
 */
static void rds_av_remove_test(struct kunit *test)
{
	bool tagged = *(const bool *)test->param_value;
	struct fi_cq_err_entry err;
	u8 *directed, *any;
	struct ktr_rdm t;

	rdt_setup(test, &t, rdt_caps(test), 0);
	directed = t.buf[0];
	any = t.buf[0] + 64;
	rdt_recv(test, &t, directed, 64, t.addr[2], tagged, directed);
	rdt_recv(test, &t, any, 64, FI_ADDR_UNSPEC, tagged, any);
	rdt_no_comp(test, t.cq[0]);
	KUNIT_ASSERT_EQ(test, fi_av_remove(t.av, &t.addr[2], 1, 0), 0);
	rdt_expect_err(test, &t, directed, ECANCELED, false, &err);
	KUNIT_EXPECT_EQ(test, fi_cancel(&t.ep[0]->fid, directed), -ENOENT);
	rdt_no_comp(test, t.cq[0]);
	rdt_send(test, &t, 1, 'a', 10, tagged, 1);
	rdt_expect_recv(test, &t, any, 1, 'a', 10);
	KUNIT_EXPECT_EQ(test, directed[0], 0);
	rdt_no_comp(test, t.cq[0]);
	ktr_rdm_close(test, &t);
}

/*
 * Endpoint 2 removed from the AV and inserted again: the AV hands out a
 * handle for it, and a receive directed to that handle takes endpoint 2's
 * message, whose source is the new handle.
 */
static void rds_av_reinsert_test(struct kunit *test)
{
	bool tagged = *(const bool *)test->param_value;
	struct sockaddr_in name;
	size_t len = sizeof(name);
	fi_addr_t again;
	u8 *rx;
	struct ktr_rdm t;

	rdt_setup(test, &t, rdt_caps(test), 0);
	rx = t.buf[0];
	KUNIT_ASSERT_EQ(test, fi_getname(&t.ep[2]->fid, &name, &len), 0);
	KUNIT_ASSERT_EQ(test, fi_av_remove(t.av, &t.addr[2], 1, 0), 0);
	KUNIT_ASSERT_EQ(test, fi_av_insert(t.av, &name, 1, &again, 0, NULL),
			1);
	t.addr[2] = again;
	rdt_recv(test, &t, rx, 64, again, tagged, rx);
	rdt_send(test, &t, 2, 'c', 30, tagged, 3);
	rdt_expect_recv(test, &t, rx, 2, 'c', 30);
	rdt_no_comp(test, t.cq[0]);
	ktr_rdm_close(test, &t);
}

/*
 * A peer host that went away (an address no route reaches): RDS holds
 * what endpoint 1 sent it, and with 2 MiB of it unacknowledged the socket
 * refuses every send, whatever its destination - a third 1 MiB send and a
 * send to endpoint 0 wait.  fi_av_remove() of the lost peer completes
 * the waiting send to it with ECANCELED and has RDS drop what it holds:
 * the send to endpoint 0 goes on and arrives.
 */
static void rds_lost_host_test(struct kunit *test)
{
	struct sockaddr_in lost = {
		.sin_family = AF_INET,
		.sin_port = htons(18999),
		.sin_addr.s_addr = htonl(0xc6336401),	/* 198.51.100.1 */
	};
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	fi_addr_t dead, src;
	u8 *big, *rx;
	struct ktr_rdm t;
	int i;

	big = kunit_kzalloc(test, SZ_1M, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	rdt_setup(test, &t, FI_MSG | FI_SOURCE, 0);
	KUNIT_ASSERT_EQ(test, fi_av_insert(t.av, &lost, 1, &dead, 0, NULL), 1);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, fi_send(t.ep[1], big, SZ_1M, NULL, dead,
					      &big[i]), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, rdt_comp(t.cq[1], &e, &src, &err), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&big[i]);
	}
	rx = t.buf[0];
	rdt_recv(test, &t, rx, 64, FI_ADDR_UNSPEC, false, rx);
	memset(t.buf[1], 'x', 64);
	KUNIT_ASSERT_EQ(test, fi_send(t.ep[1], t.buf[1], 64, NULL, t.addr[0],
				      t.buf[1]), 0);
	msleep(RDT_SETTLE);
	rdt_no_comp(test, t.cq[1]);
	rdt_no_comp(test, t.cq[0]);

	KUNIT_ASSERT_EQ(test, fi_av_remove(t.av, &dead, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, rdt_comp(t.cq[1], &e, &src, &err), -ECANCELED);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)&big[2]);
	KUNIT_EXPECT_TRUE(test, err.flags & FI_SEND);
	KUNIT_ASSERT_EQ(test, rdt_comp(t.cq[1], &e, &src, &err), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)t.buf[1]);
	rdt_expect_recv(test, &t, rx, 1, 'x', 64);
	rdt_no_comp(test, t.cq[1]);
	ktr_rdm_close(test, &t);
}

/*
 * Closing endpoint 0 completes its multi-receive buffer, which took one
 * message, with ECANCELED and FI_MULTI_RECV, and the receive posted after
 * it with ECANCELED alone, on the CQ that stays open.
 */
static void rds_close_multi_test(struct kunit *test)
{
	bool tagged = *(const bool *)test->param_value;
	struct fi_cq_err_entry err;
	u8 *multi, *plain;
	struct ktr_rdm t;

	rdt_setup_min(test, &t, 100);
	multi = t.buf[0];
	plain = t.buf[0] + 1024;
	KUNIT_ASSERT_EQ(test, rdt_recv_multi(&t, multi, 1000, tagged), 0);
	rdt_send(test, &t, 1, 'a', 20, tagged, 1);
	rdt_expect_multi(test, &t, multi, multi, 1, 'a', 20, false);
	rdt_recv(test, &t, plain, 64, FI_ADDR_UNSPEC, tagged, plain);
	rdt_no_comp(test, t.cq[0]);
	ktr_rdm_close_ep(test, &t, 0);
	rdt_expect_err(test, &t, multi, ECANCELED, true, &err);
	rdt_expect_err(test, &t, plain, ECANCELED, false, &err);
	rdt_no_comp(test, t.cq[0]);
	ktr_rdm_close(test, &t);
}

/*
 * FI_OPT_DATA_MAY_SLEEP, set before fi_enable(), reads back and is fixed
 * from then on (-EBUSY); with it, messages both ways between two
 * endpoints with a send and a receive CQ each, the receiver waiting in
 * fi_cq_sread() (which runs the endpoint's progress), every message
 * verified.
 */
static void rds_may_sleep_test(struct kunit *test)
{
	const struct ktr_rdm_attr attr = {
		.prov = "rds",
		.domain = "tcp",
		.node = "127.0.0.1",
		.caps = rdt_caps(test),
		.eps = 2,
		.split_cq = true,
		.buf_size = RDT_BUF,
		.may_sleep = true,
	};
	struct fi_cq_tagged_entry e;
	size_t v = 0, len = sizeof(v);
	int i, from, to;
	struct ktr_rdm t;
	fi_addr_t src;

	ktr_rdm_open(test, &t, &attr);
	KUNIT_EXPECT_EQ(test, fi_getopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_DATA_MAY_SLEEP, &v, &len), 0);
	KUNIT_EXPECT_EQ(test, v, 1);
	v = 0;
	KUNIT_EXPECT_EQ(test, fi_setopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_DATA_MAY_SLEEP, &v, len),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, fi_getopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_DATA_MAY_SLEEP, &v, &len), 0);
	KUNIT_EXPECT_EQ(test, v, 1);

	for (i = 0; i < 40; i++) {
		from = i & 1;
		to = !from;
		memset(t.buf[to], 0, 1000);
		KUNIT_ASSERT_EQ(test, fi_recv(t.ep[to], t.buf[to], 1000, NULL,
					      FI_ADDR_UNSPEC, t.buf[to]), 0);
		memset(t.buf[from], 'a' + i % 26, 1000);
		KUNIT_ASSERT_EQ(test, fi_send(t.ep[from], t.buf[from],
					      100 + i, NULL, t.addr[to],
					      t.buf[from]), 0);
		KUNIT_ASSERT_EQ(test, rdt_comp(t.rx[to], &e, &src, NULL), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, t.buf[to]);
		KUNIT_EXPECT_EQ(test, e.len, 100 + i);
		KUNIT_EXPECT_EQ(test, src, t.addr[from]);
		KUNIT_EXPECT_EQ(test, t.buf[to][0], 'a' + i % 26);
		KUNIT_EXPECT_EQ(test, t.buf[to][99 + i], 'a' + i % 26);
		KUNIT_EXPECT_EQ(test, t.buf[to][100 + i], 0);
		KUNIT_ASSERT_EQ(test, rdt_comp(t.tx[from], &e, NULL, NULL), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, t.buf[from]);
	}
	rdt_no_comp(test, t.rx[0]);
	rdt_no_comp(test, t.rx[1]);
	ktr_rdm_close(test, &t);
}

/* What is refused: with -EINVAL, or -ENOPROTOOPT for an unknown option. */
static void rds_bad_calls_test(struct kunit *test)
{
	struct kvec kv[2] = {
		{ .iov_len = 100 }, { .iov_len = 100 },
	};
	struct fi_msg m = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = kv,
		.iov_count = 2,
		.addr = FI_ADDR_UNSPEC,
	};
	struct bio_vec bv = {};
	size_t v, len = sizeof(v);
	struct ktr_rdm t;

	rdt_setup(test, &t, FI_MSG | FI_DIRECTED_RECV | FI_MULTI_RECV, 0);
	kv[0].iov_base = t.buf[0];
	kv[1].iov_base = t.buf[0] + 100;
	m.context = t.buf[0];
	/* a multi-receive buffer is one kvec */
	KUNIT_EXPECT_EQ(test, fi_recvmsg(t.ep[0], &m, FI_MULTI_RECV), -EINVAL);
	bv.bv_page = virt_to_page(t.buf[0]);
	bv.bv_offset = offset_in_page(t.buf[0]);
	bv.bv_len = 100;
	m.iov_type = FI_IOV_BVEC;
	m.msg_bvec = &bv;
	m.iov_count = 1;
	KUNIT_EXPECT_EQ(test, fi_recvmsg(t.ep[0], &m, FI_MULTI_RECV), -EINVAL);
	/* nothing was posted */
	KUNIT_EXPECT_EQ(test, fi_cancel(&t.ep[0]->fid, t.buf[0]), -ENOENT);

	v = 0;
	KUNIT_EXPECT_EQ(test, fi_setopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_MIN_MULTI_RECV, &v, len),
			-EINVAL);
	v = 1024 * 1024 + 1;
	KUNIT_EXPECT_EQ(test, fi_setopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_MIN_MULTI_RECV, &v, len),
			-EINVAL);
	v = 100;
	KUNIT_EXPECT_EQ(test, fi_setopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_MIN_MULTI_RECV, &v, len - 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_setopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_CM_DATA_SIZE, &v, len),
			-ENOPROTOOPT);
	len = sizeof(v) - 1;
	KUNIT_EXPECT_EQ(test, fi_getopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_MIN_MULTI_RECV, &v, &len),
			-EINVAL);
	/* the refused values left the default */
	len = sizeof(v);
	KUNIT_EXPECT_EQ(test, fi_getopt(&t.ep[0]->fid, FI_OPT_ENDPOINT,
					FI_OPT_MIN_MULTI_RECV, &v, &len), 0);
	KUNIT_EXPECT_EQ(test, v, 16384);
	ktr_rdm_close(test, &t);
}

#define RDT_RMA_MAX	(1048576 - 56)	/* max_msg_size of the RMA info */

/* fi_writemsg() or fi_readmsg() of endpoint 0 with @flags, to endpoint 1. */
static ssize_t rdt_rma(struct ktr_rdm *t, bool write, void *buf, size_t len,
		       u64 raddr, size_t rlen, u64 key, size_t rma_cnt,
		       u64 flags)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct fi_rma_iov rma = { .addr = raddr, .len = rlen, .key = key };
	struct fi_msg_rma m = {
		.iov_type = FI_IOV_KVEC,
		.msg_iov = &kv,
		.iov_count = 1,
		.addr = t->addr[1],
		.rma_iov = &rma,
		.rma_iov_count = rma_cnt,
		.context = buf,
	};

	return write ? fi_writemsg(t->ep[0], &m, flags) :
		       fi_readmsg(t->ep[0], &m, flags);
}

/*
 * Endpoint 0 writes (or reads) @len bytes at @raddr of @key on endpoint 1
 * and waits for the completion: 1, or the negative errno of its error
 * entry (its flags then in @err).
 */
static ssize_t rdt_rma_wait(struct kunit *test, struct ktr_rdm *t, bool write,
			    void *buf, size_t len, u64 raddr, u64 key)
{
	struct fi_cq_tagged_entry e = {};
	struct fi_cq_err_entry err = {};
	ssize_t ret;

	KUNIT_EXPECT_EQ(test, rdt_rma(t, write, buf, len, raddr, len, key, 1,
				      0), 0);
	ret = rdt_comp(t->cq[0], &e, NULL, &err);
	if (ret == 1) {
		KUNIT_EXPECT_EQ(test, e.flags,
				FI_RMA | (write ? FI_WRITE : FI_READ));
		KUNIT_EXPECT_EQ(test, e.len, len);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, buf);
	} else {
		KUNIT_EXPECT_PTR_EQ(test, err.op_context, buf);
		KUNIT_EXPECT_EQ(test, err.flags,
				FI_RMA | (write ? FI_WRITE : FI_READ));
	}
	return ret;
}

static void rdt_pattern(u8 *buf, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (u8)(i * 7 + seed);
}

/* Writes and reads of every size class into endpoint 1's region @key. */
static void rdt_rma_sizes(struct kunit *test, struct ktr_rdm *t, u64 key)
{
	static const size_t sizes[] = { 1, 4096, 65536, RDT_RMA_MAX };
	u8 *src = t->buf[0], *dst = t->buf[1];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t len = sizes[i];

		rdt_pattern(src, len, i);
		KUNIT_ASSERT_EQ(test, rdt_rma_wait(test, t, true, src, len, 0,
						   key), 1);
		KUNIT_EXPECT_EQ(test, memcmp(dst, src, len), 0);
		rdt_pattern(dst, len, i + 100);
		memset(src, 0, len);
		KUNIT_ASSERT_EQ(test, rdt_rma_wait(test, t, false, src, len, 0,
						   key), 1);
		KUNIT_EXPECT_EQ(test, memcmp(src, dst, len), 0);
	}
}

/*
 * RMA on the RMA info's endpoints: what the info says, writes and reads
 * of every size up to the largest into a region of endpoint 1, remote CQ
 * data completing at the target with its source, inject, the calls
 * refused, and each refusal of the target as the initiator's error
 * entry: an unknown key, a range outside the region, an access the region
 * does not give, an endpoint that takes no RMA.
 */
static void rds_rma_test(struct kunit *test)
{
	const struct ktr_rdm_attr attr = {
		.prov = "rds",
		.domain = "tcp",
		.node = "127.0.0.1",
		.caps = FI_MSG | FI_RMA | FI_SOURCE,
		.eps = 2,
		.buf_size = SZ_1M,
	};
	struct fi_cq_tagged_entry e = {};
	struct fid_mr *mr, *ro;
	struct ktr_rdm t, t2;
	char name[64];
	size_t namelen = sizeof(name);
	fi_addr_t src, other;
	u64 key, ro_key;

	ktr_rdm_open(test, &t, &attr);
	KUNIT_EXPECT_EQ(test, t.info->caps & (FI_READ | FI_WRITE |
					      FI_REMOTE_READ | FI_REMOTE_WRITE |
					      FI_TAGGED | FI_REMOTE_CQ_DATA),
			FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE |
			FI_TAGGED | FI_REMOTE_CQ_DATA);
	KUNIT_EXPECT_EQ(test, t.info->tx_attr->caps &
			(FI_REMOTE_READ | FI_REMOTE_WRITE), 0);
	KUNIT_EXPECT_EQ(test, t.info->rx_attr->caps & (FI_READ | FI_WRITE), 0);
	KUNIT_EXPECT_EQ(test, t.info->domain_attr->mr_mode, FI_MR_PROV_KEY);
	KUNIT_EXPECT_EQ(test, t.info->domain_attr->mr_key_size, sizeof(u64));
	KUNIT_EXPECT_EQ(test, t.info->ep_attr->max_msg_size, RDT_RMA_MAX);
	KUNIT_EXPECT_EQ(test, t.info->tx_attr->rma_iov_limit, 1);
	KUNIT_ASSERT_EQ(test, fi_mr_reg(t.domain, t.buf[1], SZ_1M,
					FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0,
					0, &mr, NULL), 0);
	key = fi_mr_key(mr);
	rdt_rma_sizes(test, &t, key);

	/* remote CQ data: a completion at the target, no receive used up */
	rdt_pattern(t.buf[0], 64, 3);
	KUNIT_ASSERT_EQ(test, fi_writedata(t.ep[0], t.buf[0], 64, NULL,
					   0x1234567890abcdefULL, t.addr[1],
					   128, key, t.buf[0]), 0);
	KUNIT_ASSERT_EQ(test, rdt_comp(t.cq[0], &e, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.flags, FI_RMA | FI_WRITE);
	src = FI_ADDR_NOTAVAIL;
	KUNIT_ASSERT_EQ(test, rdt_comp(t.cq[1], &e, &src, NULL), 1);
	KUNIT_EXPECT_EQ(test, e.flags, FI_RMA | FI_REMOTE_WRITE |
			FI_REMOTE_CQ_DATA);
	KUNIT_EXPECT_EQ(test, e.data, 0x1234567890abcdefULL);
	KUNIT_EXPECT_EQ(test, e.len, 64);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, NULL);
	KUNIT_EXPECT_EQ(test, src, t.addr[0]);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[1] + 128, t.buf[0], 64), 0);
	rdt_no_comp(test, t.cq[1]);

	/* inject: no completion; a read after it sees its data */
	rdt_pattern(t.buf[0], 256, 9);
	KUNIT_EXPECT_EQ(test, fi_inject_write(t.ep[0], t.buf[0], 256,
					      t.addr[1], 1000, key), 0);
	KUNIT_EXPECT_EQ(test, fi_inject_write(t.ep[0], t.buf[0], 257,
					      t.addr[1], 1000, key), -EMSGSIZE);
	KUNIT_ASSERT_EQ(test, rdt_rma_wait(test, &t, false, t.buf[0] + 4096,
					   256, 1000, key), 1);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[0] + 4096, t.buf[0], 256), 0);
	rdt_no_comp(test, t.cq[0]);

	/* calls refused, nothing posted */
	KUNIT_EXPECT_EQ(test, fi_write(t.ep[0], t.buf[0], 8, NULL, 77, 0, key,
				       NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdt_rma(&t, true, t.buf[0], 8, 0, 8, key, 0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rdt_rma(&t, true, t.buf[0], 8, 0, 8, key, 2, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rdt_rma(&t, true, t.buf[0], 8, 0, 9, key, 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rdt_rma(&t, false, t.buf[0], 8, 0, 8, key, 1,
				      FI_INJECT), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdt_rma(&t, true, t.buf[0], RDT_RMA_MAX + 1, 0,
				      RDT_RMA_MAX + 1, key, 1, 0), -EMSGSIZE);
	rdt_no_comp(test, t.cq[0]);

	/* the target's refusals, each the initiator's error entry */
	KUNIT_EXPECT_EQ(test, rdt_rma_wait(test, &t, false, t.buf[0], 8, 0,
					   key ^ 1), -ENOKEY);
	KUNIT_EXPECT_EQ(test, rdt_rma_wait(test, &t, true, t.buf[0], 8,
					   SZ_1M - 4, key), -ERANGE);
	KUNIT_ASSERT_EQ(test, fi_mr_reg(t.domain, t.buf[1], 4096,
					FI_REMOTE_READ, 0, 0, 0, &ro, NULL), 0);
	ro_key = fi_mr_key(ro);
	KUNIT_EXPECT_EQ(test, rdt_rma_wait(test, &t, true, t.buf[0], 8, 0,
					   ro_key), -EACCES);
	KUNIT_EXPECT_EQ(test, rdt_rma_wait(test, &t, false, t.buf[0], 8, 0,
					   ro_key), 1);
	KUNIT_EXPECT_EQ(test, fi_close(&ro->fid), 0);
	/* a closed region's key is unknown */
	KUNIT_EXPECT_EQ(test, rdt_rma_wait(test, &t, false, t.buf[0], 8, 0,
					   ro_key), -ENOKEY);

	/* a header endpoint without FI_RMA answers that it takes none */
	rdt_setup(test, &t2, FI_MSG | FI_TAGGED, 0);
	KUNIT_ASSERT_EQ(test, fi_getname(&t2.ep[0]->fid, name, &namelen), 0);
	KUNIT_ASSERT_EQ(test, fi_av_insert(t.av, name, 1, &other, 0, NULL), 1);
	KUNIT_ASSERT_EQ(test, fi_write(t.ep[0], t.buf[0], 8, NULL, other, 0,
				       key, t.buf[0]), 0);
	KUNIT_EXPECT_EQ(test, rdt_comp(t.cq[0], &e, NULL, NULL), -EOPNOTSUPP);
	ktr_rdm_close(test, &t2);

	/* the endpoints go on after refusals */
	rdt_rma_sizes(test, &t, key);
	KUNIT_EXPECT_EQ(test, fi_close(&mr->fid), 0);
	ktr_rdm_close(test, &t);
}

/*
 * A region of two pages registered as bio_vecs: a write across the page
 * boundary lands in both, and a read brings it back.
 */
static void rds_rma_pages_test(struct kunit *test)
{
	const struct ktr_rdm_attr attr = {
		.prov = "rds",
		.domain = "tcp",
		.node = "127.0.0.1",
		.caps = FI_RMA,
		.eps = 2,
		.buf_size = 3 * PAGE_SIZE,
	};
	struct page *pg[2] = {};
	struct bio_vec bv[2];
	struct fi_mr_attr ma = {
		.iov_type = FI_IOV_BVEC,
		.mr_bvec = bv,
		.iov_count = 2,
		.access = FI_REMOTE_READ | FI_REMOTE_WRITE,
		.offset = 0x10000,
	};
	size_t len = PAGE_SIZE + 40, at = PAGE_SIZE - 50;
	struct fid_mr *mr;
	struct ktr_rdm t;
	int i;

	for (i = 0; i < 2; i++) {
		pg[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, pg[i]);
		bv[i].bv_page = pg[i];
		bv[i].bv_offset = 0;
		bv[i].bv_len = PAGE_SIZE;
	}
	ktr_rdm_open(test, &t, &attr);
	KUNIT_ASSERT_EQ(test, fi_mr_regattr(t.domain, &ma, 0, &mr), 0);
	rdt_pattern(t.buf[0], len, 5);
	/* addresses start at the registration's offset */
	KUNIT_EXPECT_EQ(test, rdt_rma_wait(test, &t, true, t.buf[0], len,
					   0x10000 + at, fi_mr_key(mr)), 1);
	KUNIT_EXPECT_EQ(test, memcmp(page_address(pg[0]) + at, t.buf[0], 50),
			0);
	KUNIT_EXPECT_EQ(test, memcmp(page_address(pg[1]), t.buf[0] + 50,
				     len - 50), 0);
	KUNIT_EXPECT_EQ(test, rdt_rma_wait(test, &t, false, t.buf[0] + len,
					   len, 0x10000 + at, fi_mr_key(mr)),
			1);
	KUNIT_EXPECT_EQ(test, memcmp(t.buf[0] + len, t.buf[0], len), 0);
	KUNIT_EXPECT_EQ(test, rdt_rma_wait(test, &t, true, t.buf[0], 8,
					   0x10000 + 2 * PAGE_SIZE - 4,
					   fi_mr_key(mr)), -ERANGE);
	KUNIT_EXPECT_EQ(test, fi_close(&mr->fid), 0);
	ktr_rdm_close(test, &t);
	for (i = 0; i < 2; i++)
		__free_page(pg[i]);
}

/*
 * RMA operations whose answer cannot come (their target's endpoint is
 * closed: RDS drops what it is sent): fi_av_remove() of the target ends
 * one with ECANCELED at once, and one left waiting ends with ETIMEDOUT
 * after the module's rma_timeout_ms (the harnesses set 3 s; the wait
 * allows the default 30 s).  The endpoint goes on.
 */
static void rds_rma_lost_test(struct kunit *test)
{
	const struct ktr_rdm_attr attr = {
		.prov = "rds",
		.domain = "tcp",
		.node = "127.0.0.1",
		.caps = FI_RMA,
		.eps = 3,
		.buf_size = 4096,
	};
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	size_t namelen = 64;
	struct fid_mr *mr;
	struct ktr_rdm t;
	fi_addr_t gone;
	char name[64];

	ktr_rdm_open(test, &t, &attr);
	KUNIT_ASSERT_EQ(test, fi_mr_reg(t.domain, t.buf[1], 4096,
					FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0,
					0, &mr, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_getname(&t.ep[2]->fid, name, &namelen), 0);
	gone = t.addr[2];
	ktr_rdm_close_ep(test, &t, 2);

	KUNIT_ASSERT_EQ(test, fi_read(t.ep[0], t.buf[0], 8, NULL, gone, 0,
				      fi_mr_key(mr), t.buf[0]), 0);
	msleep(RDT_SETTLE);
	rdt_no_comp(test, t.cq[0]);
	KUNIT_ASSERT_EQ(test, fi_av_remove(t.av, &gone, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, rdt_comp(t.cq[0], &e, NULL, &err), -ECANCELED);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)t.buf[0]);
	KUNIT_EXPECT_EQ(test, err.flags, FI_RMA | FI_READ);

	KUNIT_ASSERT_EQ(test, fi_av_insert(t.av, name, 1, &gone, 0, NULL), 1);
	KUNIT_ASSERT_EQ(test, fi_write(t.ep[0], t.buf[0], 8, NULL, gone, 0,
				       fi_mr_key(mr), t.buf[0] + 8), 0);
	KUNIT_EXPECT_EQ(test, ktr_rdm_comp(t.cq[0], &e, NULL, &err, 40000),
			-ETIMEDOUT);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)(t.buf[0] + 8));
	KUNIT_EXPECT_EQ(test, err.flags, FI_RMA | FI_WRITE);

	KUNIT_EXPECT_EQ(test, rdt_rma_wait(test, &t, false, t.buf[0], 8, 0,
					   fi_mr_key(mr)), 1);
	rdt_no_comp(test, t.cq[0]);
	KUNIT_EXPECT_EQ(test, fi_close(&mr->fid), 0);
	ktr_rdm_close(test, &t);
}

static struct kunit_case rds_cases[] = {
	KUNIT_CASE(rds_getinfo_test),
	KUNIT_CASE_PARAM(rds_directed_test, rdt_hdr_gen_params),
	KUNIT_CASE_PARAM(rds_late_recv_test, rdt_hdr_gen_params),
	KUNIT_CASE_PARAM(rds_ipv6_test, rdt_hdr_gen_params),
	KUNIT_CASE_PARAM(rds_multi_recv_test, rdt_hdr_gen_params),
	KUNIT_CASE_PARAM(rds_cancel_test, rdt_hdr_gen_params),
	KUNIT_CASE_PARAM(rds_av_remove_test, rdt_hdr_gen_params),
	KUNIT_CASE_PARAM(rds_av_reinsert_test, rdt_hdr_gen_params),
	KUNIT_CASE(rds_lost_host_test),
	KUNIT_CASE_PARAM(rds_close_multi_test, rdt_hdr_gen_params),
	KUNIT_CASE_PARAM(rds_may_sleep_test, rdt_hdr_gen_params),
	KUNIT_CASE(rds_bad_calls_test),
	KUNIT_CASE(rds_rma_test),
	KUNIT_CASE(rds_rma_pages_test),
	KUNIT_CASE(rds_rma_lost_test),
	{}
};

static struct kunit_suite rds_suite = {
	.name = "kofi_rds",
	.suite_init = kofi_test_loopback_up,
	.test_cases = rds_cases,
};

kunit_test_suite(rds_suite);

MODULE_DESCRIPTION("KUnit tests of the kOFI rds provider");
MODULE_LICENSE("Dual BSD/GPL");
