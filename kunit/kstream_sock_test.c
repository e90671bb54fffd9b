// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: the socket-like kstream calls over ksocket on loopback, and
 * who they wake.
 *
 * A caller blocked in a socket-like call takes the core's completions
 * itself, and a transmit completion wakes it only if something waits for
 * one (KSTREAM_TX_WAITERS): a reader needs none.  Each case here has a
 * reader blocked on the socket while the stream can only go on once a
 * transmit completion is taken - bytes queued without a free send slot,
 * a SHUTDOWN behind them, a writer out of send buffer - and the peer's
 * side can only answer once that happened.  Nothing else wakes the reader
 * before its time is up: the peer's ring updates come only after half of
 * a large ring, and the waits (KSS_WAIT_MS) are shorter than the
 * re-check slice of a blocked call (the module parameter
 * wake_up_interval, 5 s by default).  A lost wake-up fails the case.
 *
 * Only exported symbols are used (the suite is also built as a module);
 * the engine's kstream_ep.pollers is read to know that the reader sleeps.
 * kofi_ksocket and kofi_kstream must be loaded or built in.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/fcntl.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <kofi/kstream.h>
#include "../providers/kstream/kstream.h"
#include "kofi_test_net.h"

#define KSS_WAIT_MS	4000	/* below wake_up_interval's default 5 s */
/* The smallest send queue: 12 data slots besides the control slots. */
#define KSS_SQSIZE	16

/* A connected pair over ksocket: client c, server s. */
struct kss_pair {
	struct kstream_sock *l;
	struct kstream_sock *c;
	struct kstream_sock *s;
};

/* A thread blocked on the client: a reader or a writer. */
struct kss_thread {
	struct kstream_sock *ks;
	void *buf;
	size_t len;
	int ret;
	struct completion done;
};

static void kss_opt(struct kunit *test, struct kstream_sock *ks, int level,
		    int name, int val)
{
	KUNIT_ASSERT_EQ(test, kstream_setsockopt(ks, level, name,
						 KERNEL_SOCKPTR(&val),
						 sizeof(val)), 0);
}

static void kss_timeouts(struct kunit *test, struct kstream_sock *ks)
{
	struct __kernel_sock_timeval tv = {
		.tv_sec = KSS_WAIT_MS / 1000,
		.tv_usec = (KSS_WAIT_MS % 1000) * 1000,
	};

	KUNIT_ASSERT_EQ(test, kstream_setsockopt(ks, SOL_SOCKET,
						 SO_RCVTIMEO_NEW,
						 KERNEL_SOCKPTR(&tv),
						 sizeof(tv)), 0);
	KUNIT_ASSERT_EQ(test, kstream_setsockopt(ks, SOL_SOCKET,
						 SO_SNDTIMEO_NEW,
						 KERNEL_SOCKPTR(&tv),
						 sizeof(tv)), 0);
}

/* KUnit action: release what kss_connect() created, at the test's end. */
static void kss_release(void *arg)
{
	struct kss_pair *p = arg;

	if (p->c)
		kstream_release(p->c);
	if (p->s)
		kstream_release(p->s);
	if (p->l)
		kstream_release(p->l);
}

/* KUnit action: free a buffer of kss_begin(). */
static void kss_vfree(void *buf)
{
	vfree(buf);
}

/*
 * Connect over 127.0.0.1: the client with a send buffer of 2 x @sndbuf
 * and a send queue of @sqsize (0: the default), the server (through its
 * listener) with a receive ring of 2 x @rcvbuf.  The sockets are released
 * when the test ends.
 */
static void kss_connect(struct kunit *test, struct kss_pair *p, int sndbuf,
			int rcvbuf, int sqsize)
{
	struct sockaddr_in addr = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct sockaddr_storage name = {};

	memset(p, 0, sizeof(*p));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kss_release, p),
			0);
	KUNIT_ASSERT_EQ(test, kstream_sock_create(AF_INET, "ksocket",
						  &p->l), 0);
	kss_opt(test, p->l, SOL_SOCKET, SO_RCVBUF, rcvbuf);
	kss_timeouts(test, p->l);
	KUNIT_ASSERT_EQ(test, kstream_bind(p->l, (struct sockaddr *)&addr,
					   sizeof(addr)), 0);
	KUNIT_ASSERT_EQ(test, kstream_listen(p->l, 1), 0);
	KUNIT_ASSERT_EQ(test, kstream_getname(p->l, (struct sockaddr *)&name,
					      0), (int)sizeof(addr));
	addr.sin_port = ((struct sockaddr_in *)&name)->sin_port;
	KUNIT_ASSERT_NE(test, ntohs(addr.sin_port), 0);
	KUNIT_ASSERT_EQ(test, kstream_sock_create(AF_INET, "ksocket",
						  &p->c), 0);
	kss_opt(test, p->c, SOL_SOCKET, SO_SNDBUF, sndbuf);
	if (sqsize)
		kss_opt(test, p->c, KSTREAM_SOL_RDMA, KSTREAM_SQSIZE, sqsize);
	kss_timeouts(test, p->c);
	KUNIT_ASSERT_EQ(test, kstream_connect(p->c, (struct sockaddr *)&addr,
					      sizeof(addr), O_NONBLOCK),
			-EINPROGRESS);
	KUNIT_ASSERT_EQ(test, kstream_accept(p->l, &p->s, 0), 0);
	KUNIT_ASSERT_EQ(test, kstream_wait(p->c, EPOLLOUT,
					   msecs_to_jiffies(KSS_WAIT_MS)),
			(__force int)EPOLLOUT);
}

static int kss_xfer(struct kstream_sock *ks, void *buf, size_t len,
		    bool send, int flags)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = send ? flags : 0 };
	int ret;

	iov_iter_kvec(&msg.msg_iter, send ? ITER_SOURCE : ITER_DEST, &kv, 1,
		      len);
	while (msg_data_left(&msg)) {
		ret = send ? kstream_sendmsg(ks, &msg) :
			     kstream_recvmsg(ks, &msg, flags);
		if (ret <= 0)
			return ret ? ret : -ECONNRESET;
	}
	return len;
}

static int kss_reader(void *arg)
{
	struct kss_thread *t = arg;

	t->ret = kstream_wait(t->ks, EPOLLIN, msecs_to_jiffies(KSS_WAIT_MS));
	kthread_complete_and_exit(&t->done, 0);
}

static int kss_writer(void *arg)
{
	struct kss_thread *t = arg;

	t->ret = kss_xfer(t->ks, t->buf, t->len, true, 0);
	kthread_complete_and_exit(&t->done, 0);
}

static void kss_start(struct kunit *test, struct kss_thread *t,
		      int (*fn)(void *), const char *name)
{
	struct task_struct *task;

	init_completion(&t->done);
	task = kthread_run(fn, t, "%s", name);
	if (IS_ERR(task)) {
		t->ret = PTR_ERR(task);
		complete(&t->done);
	}
}

/* Wait until @n callers wait on the socket's stream. */
static bool kss_pollers(struct kstream_sock *ks, int n)
{
	struct kstream_ep *kep = kstream_ep(kstream_sock_ep(ks));
	unsigned long end = jiffies + msecs_to_jiffies(KSS_WAIT_MS);

	while (atomic_read(&kep->pollers) < n) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(1000, 2000);
	}
	return true;
}

static void kss_fill(u8 *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (u8)(i * 7 + i / 251);
}

/* A case: a connected pair, a reader blocked on the client, two buffers. */
struct kss_case {
	struct kss_pair p;
	struct kss_thread reader;
	u8 *sent;
	u8 *buf;
	size_t len;
};

static u8 *kss_vmalloc(struct kunit *test, size_t len)
{
	u8 *buf = vmalloc(len);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kss_vfree, buf),
			0);
	return buf;
}

/*
 * Set a case up: @len bytes to send (filled) and as many to receive them
 * into, a pair as kss_connect() makes it, and a reader blocked on the
 * client.  Everything is released when the test ends.
 */
static struct kss_case *kss_begin(struct kunit *test, size_t len, int sndbuf,
				  int rcvbuf, int sqsize)
{
	struct kss_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->len = len;
	c->sent = kss_vmalloc(test, len);
	c->buf = kss_vmalloc(test, len);
	kss_fill(c->sent, len);
	kss_connect(test, &c->p, sndbuf, rcvbuf, sqsize);
	c->reader.ks = c->p.c;
	kss_start(test, &c->reader, kss_reader, "kss_reader");
	KUNIT_EXPECT_TRUE(test, kss_pollers(c->p.c, 1));
	return c;
}

/*
 * The peer reads the case's bytes (and the end of the stream if @eof),
 * checks them and answers one byte; the reader blocked on the client must
 * be woken by it.
 */
static void kss_answer(struct kunit *test, struct kss_case *c, bool eof)
{
	struct kss_pair *p = &c->p;
	u8 one = 0x5a;

	KUNIT_EXPECT_EQ(test, kss_xfer(p->s, c->buf, c->len, false,
				       MSG_WAITALL), (int)c->len);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf, c->sent, c->len), 0);
	if (eof)
		KUNIT_EXPECT_EQ(test, kss_xfer(p->s, c->buf, 1, false, 0),
				-ECONNRESET);
	KUNIT_EXPECT_EQ(test, kss_xfer(p->s, &one, 1, true, 0), 1);
	wait_for_completion(&c->reader.done);
	KUNIT_EXPECT_GT(test, c->reader.ret, 0);
	KUNIT_EXPECT_TRUE(test, c->reader.ret & (__force int)EPOLLIN);
	one = 0;
	KUNIT_EXPECT_EQ(test, kss_xfer(p->c, &one, 1, false, MSG_DONTWAIT), 1);
	KUNIT_EXPECT_EQ(test, one, 0x5a);
}

/*
 * Bytes queued without a free send slot: a nonblocking send leaves 1 MiB
 * in the send buffer, more than 12 send slots take at once, while a
 * reader sleeps on the socket; with @shut, SHUT_WR follows, its SHUTDOWN
 * behind them.  Each transmit completion must be taken for the rest to
 * go.
 */
static void kss_queued(struct kunit *test, bool shut)
{
	struct kss_case *c = kss_begin(test, SZ_1M, SZ_1M, SZ_1M, KSS_SQSIZE);

	KUNIT_EXPECT_EQ(test, kss_xfer(c->p.c, c->sent, c->len, true,
				       MSG_DONTWAIT), (int)c->len);
	if (shut)
		KUNIT_EXPECT_EQ(test, kstream_shutdown(c->p.c, SHUT_WR), 0);
	kss_answer(test, c, shut);
}

static void kstream_sock_queued_test(struct kunit *test)
{
	kss_queued(test, false);
}

static void kstream_sock_shutdown_queued_test(struct kunit *test)
{
	kss_queued(test, true);
}

/*
 * A writer blocked for send buffer room (64 KiB for 512 KiB) while a reader
 * sleeps on the same socket: only transmit completions give it room.
 */
static void kstream_sock_writer_test(struct kunit *test)
{
	struct kss_case *c = kss_begin(test, SZ_512K, SZ_32K, SZ_1M, 0);
	struct kss_thread writer = {
		.ks = c->p.c,
		.buf = c->sent,
		.len = c->len,
	};

	kss_start(test, &writer, kss_writer, "kss_writer");
	kss_answer(test, c, false);
	wait_for_completion(&writer.done);
	KUNIT_EXPECT_EQ(test, writer.ret, (int)c->len);
}

static struct kunit_case kstream_sock_cases[] = {
	KUNIT_CASE(kstream_sock_queued_test),
	KUNIT_CASE(kstream_sock_shutdown_queued_test),
	KUNIT_CASE(kstream_sock_writer_test),
	{}
};

static struct kunit_suite kstream_sock_suite = {
	.name = "kofi_kstream_sock",
	.suite_init = kofi_test_loopback_up,
	.test_cases = kstream_sock_cases,
};

kunit_test_suite(kstream_sock_suite);

MODULE_DESCRIPTION("kOFI KUnit: kstream's socket-like calls over ksocket");
MODULE_LICENSE("Dual BSD/GPL");
