// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI KUnit: the shared event and completion queues, in the manner of
 * fabtests' eq_test and cq_test: sizes, write/read round trips, FI_PEEK,
 * error entries, overrun, sread timeouts and wake-ups, callbacks, atomic
 * context, and queues run across the wrap of their 32-bit positions; the
 * callback CQ (FI_CQ_CALLBACK), whose completions go to a struct fi_cqe.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include "kofi_test.h"
#include "../kofi/kofi_core.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

struct kq_waiter {
	struct fid_eq *eq;
	struct fid_cq *cq;
	int timeout;
	ssize_t ret;
	u32 event;
	struct fi_eq_entry entry;
	struct fi_cq_data_entry comp[4];
	size_t threshold;
	struct completion started;
	struct completion done;
};

static int kq_eq_sleeper(void *arg)
{
	struct kq_waiter *w = arg;

	complete(&w->started);
	w->ret = fi_eq_sread(w->eq, &w->event, &w->entry, sizeof(w->entry),
			     w->timeout, 0);
	complete(&w->done);
	return 0;
}

static int kq_cq_sleeper(void *arg)
{
	struct kq_waiter *w = arg;

	complete(&w->started);
	w->ret = fi_cq_sread(w->cq, w->comp, ARRAY_SIZE(w->comp),
			     w->threshold ? &w->threshold : NULL, w->timeout);
	complete(&w->done);
	return 0;
}

static struct kq_waiter *kq_start(struct kunit *test, int (*fn)(void *),
				  struct fid_eq *eq, struct fid_cq *cq,
				  int timeout)
{
	struct kq_waiter *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->eq = eq;
	w->cq = cq;
	w->timeout = timeout;
	init_completion(&w->started);
	init_completion(&w->done);
	t = kthread_run(fn, w, "kq_sleeper");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&w->started);
	return w;
}

static bool kq_wait(struct kq_waiter *w)
{
	return wait_for_completion_timeout(&w->done, msecs_to_jiffies(5000));
}

static int kq_suite_init(struct kunit_suite *suite)
{
	return ktp_register_all();
}

static void kq_suite_exit(struct kunit_suite *suite)
{
	ktp_deregister_all();
}

/* ---------------- EQ ---------------- */

static atomic_t kq_eq_events;
static void *kq_eq_ctx;

static void kq_eq_handler(struct fid_eq *eq, void *context)
{
	kq_eq_ctx = context;
	atomic_inc(&kq_eq_events);
}

static void ke_open_test(struct kunit *test)
{
	struct fi_eq_attr attr = {};
	struct ktp_stack s;
	struct fid_eq *eq;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_eq_open(s.fabric, &attr, &eq, NULL), 0);
	KUNIT_EXPECT_EQ(test, attr.size, (size_t)FI_EQ_DEFAULT_SIZE);
	KUNIT_EXPECT_EQ(test, eq->fid.fclass, (u32)FI_CLASS_EQ);
	KUNIT_EXPECT_EQ(test, fi_close(&eq->fid), 0);
	attr.size = FI_EQ_MAX_SIZE + 1;
	KUNIT_EXPECT_EQ(test, fi_eq_open(s.fabric, &attr, &eq, NULL), -EINVAL);
	attr.size = 1;
	attr.flags = 1;
	KUNIT_EXPECT_EQ(test, fi_eq_open(s.fabric, &attr, &eq, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_eq_open(s.fabric, NULL, &eq, NULL), -EINVAL);
	ktp_stack_close(test, &s);
}

static void ke_write_read_test(struct kunit *test)
{
	struct fi_eq_entry in = { .context = test, .data = 42 }, out;
	struct fi_eq_err_entry err = {};
	struct ktp_stack s;
	u32 event = 99;

	ktp_stack_open(test, &s, false);
	KUNIT_EXPECT_EQ(test, fi_eq_read(s.eq, &event, &out, sizeof(out), 0),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, fi_eq_readerr(s.eq, &err, 0), -EAGAIN);

	in.fid = &s.fabric->fid;
	KUNIT_EXPECT_EQ(test, fi_eq_write(s.eq, FI_NOTIFY, &in, sizeof(in), 0),
			(ssize_t)sizeof(in));
	/* FI_PEEK leaves it there */
	memset(&out, 0, sizeof(out));
	KUNIT_EXPECT_EQ(test, fi_eq_read(s.eq, &event, &out, sizeof(out),
					 FI_PEEK), (ssize_t)sizeof(out));
	KUNIT_EXPECT_EQ(test, fi_eq_read(s.eq, &event, &out, sizeof(out),
					 FI_PEEK), (ssize_t)sizeof(out));
	/* too small a buffer: refused, event kept */
	KUNIT_EXPECT_EQ(test, fi_eq_read(s.eq, &event, &out, 4, 0), -EMSGSIZE);
	memset(&out, 0, sizeof(out));
	KUNIT_EXPECT_EQ(test, fi_eq_read(s.eq, &event, &out, sizeof(out), 0),
			(ssize_t)sizeof(out));
	KUNIT_EXPECT_EQ(test, event, (u32)FI_NOTIFY);
	KUNIT_EXPECT_PTR_EQ(test, out.fid, &s.fabric->fid);
	KUNIT_EXPECT_PTR_EQ(test, out.context, (void *)test);
	KUNIT_EXPECT_EQ(test, out.data, 42ULL);
	KUNIT_EXPECT_EQ(test, fi_eq_read(s.eq, &event, &out, sizeof(out), 0),
			-EAGAIN);
	ktp_stack_close(test, &s);
}

static void ke_error_test(struct kunit *test)
{
	static const u8 reject[8] = "reject!";
	struct fi_eq_err_entry err;
	struct fi_eq_entry out;
	struct ktp_stack s;
	u8 data[8], got[16];
	u32 event;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, kofi_eq_write_event(s.eq, FI_CONNECTED,
						  &s.fabric->fid, NULL, 1), 0);
	memcpy(data, reject, sizeof(data));
	KUNIT_ASSERT_EQ(test, kofi_eq_write_err(s.eq, &s.fabric->fid, test,
						-ECONNREFUSED, 7, data,
						sizeof(data)), 0);
	/* the entry keeps a copy of the error data */
	memset(data, 0, sizeof(data));
	KUNIT_ASSERT_EQ(test, kofi_eq_write_event(s.eq, FI_SHUTDOWN,
						  &s.fabric->fid, NULL, 2), 0);

	/* readerr with a completion at the head: nothing */
	KUNIT_EXPECT_EQ(test, fi_eq_readerr(s.eq, &err, 0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fi_eq_read(s.eq, &event, &out, sizeof(out), 0),
			(ssize_t)sizeof(out));
	KUNIT_EXPECT_EQ(test, event, (u32)FI_CONNECTED);
	KUNIT_EXPECT_EQ(test, fi_eq_read(s.eq, &event, &out, sizeof(out), 0),
			-FI_EAVAIL);

	memset(&err, 0, sizeof(err));
	memset(got, 0, sizeof(got));
	err.err_data = got;
	err.err_data_size = sizeof(got);
	KUNIT_EXPECT_EQ(test, fi_eq_readerr(s.eq, &err, FI_PEEK),
			(ssize_t)sizeof(err));
	KUNIT_EXPECT_EQ(test, err.err, ECONNREFUSED);
	err.err_data = NULL;
	err.err_data_size = 0;
	KUNIT_EXPECT_EQ(test, fi_eq_readerr(s.eq, &err, 0),
			(ssize_t)sizeof(err));
	KUNIT_EXPECT_EQ(test, err.err, ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, err.prov_errno, 7);
	KUNIT_EXPECT_PTR_EQ(test, err.context, (void *)test);
	KUNIT_EXPECT_NULL(test, err.err_data);
	KUNIT_EXPECT_EQ(test, err.err_data_size, 0UL);
	KUNIT_EXPECT_EQ(test, memcmp(got, reject, sizeof(reject)), 0);

	KUNIT_EXPECT_EQ(test, fi_eq_read(s.eq, &event, &out, sizeof(out), 0),
			(ssize_t)sizeof(out));
	KUNIT_EXPECT_EQ(test, event, (u32)FI_SHUTDOWN);
	KUNIT_EXPECT_EQ(test, out.data, 2ULL);

	/*
	 * No memory for the error data: the entry is lost and reported as
	 * such; an error entry without data allocates nothing.
	 */
	kofi_eq_test_fail_alloc(s.eq, 1);
	KUNIT_EXPECT_EQ(test, kofi_eq_write_err(s.eq, NULL, NULL, EIO, 0, NULL,
						0), 0);
	KUNIT_EXPECT_EQ(test, kofi_eq_write_err(s.eq, NULL, NULL, EIO, 0,
						reject, sizeof(reject)),
			-ENOMEM);
	memset(&err, 0, sizeof(err));
	err.err_data = got;
	err.err_data_size = sizeof(got);
	KUNIT_EXPECT_EQ(test, fi_eq_readerr(s.eq, &err, 0),
			(ssize_t)sizeof(err));
	KUNIT_EXPECT_EQ(test, err.err, EIO);
	KUNIT_EXPECT_NULL(test, err.err_data);
	KUNIT_EXPECT_EQ(test, fi_eq_readerr(s.eq, &err, 0),
			(ssize_t)sizeof(err));
	KUNIT_EXPECT_EQ(test, err.err, EOVERFLOW);
	KUNIT_EXPECT_EQ(test, err.prov_errno, 1);
	KUNIT_EXPECT_EQ(test, fi_eq_readerr(s.eq, &err, 0), -EAGAIN);

	KUNIT_EXPECT_EQ(test, kofi_eq_write_err(s.eq, NULL, NULL, 0, 0, NULL,
						0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kofi_eq_write_err(s.eq, NULL, NULL, EIO, 0, data,
						FI_ERR_DATA_MAX + 1), -EINVAL);
	ktp_stack_close(test, &s);
}

static void ke_overrun_test(struct kunit *test)
{
	struct fi_eq_attr attr = { .size = 4 };
	struct fi_eq_entry e = {}, out;
	struct fi_eq_err_entry err = {};
	struct ktp_stack s;
	struct fid_eq *eq;
	u32 event;
	int i;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_eq_open(s.fabric, &attr, &eq, NULL), 0);
	for (i = 0; i < 4; i++) {
		e.data = i;
		KUNIT_EXPECT_EQ(test, fi_eq_write(eq, FI_NOTIFY, &e, sizeof(e),
						  0), (ssize_t)sizeof(e));
	}
	/* a user write into a full EQ is refused, nothing lost */
	KUNIT_EXPECT_EQ(test, fi_eq_write(eq, FI_NOTIFY, &e, sizeof(e), 0),
			-EAGAIN);
	/* an offered event is refused, nothing lost or reported */
	KUNIT_EXPECT_EQ(test, kofi_eq_offer_cm(eq, FI_CONNECTED, NULL, NULL,
					       NULL, 0), -EAGAIN);
	/* a provider event is lost, and that is reported */
	KUNIT_EXPECT_EQ(test, kofi_eq_write_event(eq, FI_NOTIFY, NULL, NULL,
						  9), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, kofi_eq_write_event(eq, FI_NOTIFY, NULL, NULL,
						  9), -EOVERFLOW);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, fi_eq_read(eq, &event, &out, sizeof(out),
						 0), (ssize_t)sizeof(out));
		KUNIT_EXPECT_EQ(test, out.data, (u64)i);
	}
	KUNIT_EXPECT_EQ(test, fi_eq_read(eq, &event, &out, sizeof(out), 0),
			-FI_EAVAIL);
	KUNIT_EXPECT_EQ(test, fi_eq_readerr(eq, &err, 0), (ssize_t)sizeof(err));
	KUNIT_EXPECT_EQ(test, err.err, EOVERFLOW);
	KUNIT_EXPECT_EQ(test, err.prov_errno, 2);
	KUNIT_EXPECT_EQ(test, fi_eq_read(eq, &event, &out, sizeof(out), 0),
			-EAGAIN);
	/* usable again */
	KUNIT_EXPECT_EQ(test, kofi_eq_write_event(eq, FI_NOTIFY, NULL, NULL,
						  5), 0);
	KUNIT_EXPECT_EQ(test, fi_eq_read(eq, &event, &out, sizeof(out), 0),
			(ssize_t)sizeof(out));
	KUNIT_EXPECT_EQ(test, fi_close(&eq->fid), 0);
	ktp_stack_close(test, &s);
}

static void ke_cm_entry_test(struct kunit *test)
{
	struct {
		struct fi_eq_cm_entry cm;
		u8 data[32];
	} out;
	struct ktp_stack s;
	u8 data[10] = "0123456789";
	u32 event;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, kofi_eq_write_cm(s.eq, FI_CONNECTED,
					       &s.fabric->fid, NULL, data,
					       sizeof(data)), 0);
	KUNIT_EXPECT_EQ(test, fi_eq_read(s.eq, &event, &out, sizeof(out), 0),
			(ssize_t)(sizeof(out.cm) + sizeof(data)));
	KUNIT_EXPECT_EQ(test, event, (u32)FI_CONNECTED);
	KUNIT_EXPECT_EQ(test, memcmp(out.cm.data, data, sizeof(data)), 0);
	KUNIT_EXPECT_EQ(test, kofi_eq_write_cm(s.eq, FI_CONNECTED, NULL, NULL,
					       data, FI_CM_DATA_MAX + 1),
			-EINVAL);
	ktp_stack_close(test, &s);
}

/*
 * Connection data lives in memory allocated with its entry: every length
 * from none to FI_CM_DATA_MAX round trips through a small EQ, and a
 * writer whose copy cannot be allocated is told so - a provider's event
 * counted as lost, an offered event or a user write left out - with
 * nothing queued in its place.  Entries never read are freed at close
 * (kmemleak watches).
 */
static void ke_cm_data_test(struct kunit *test)
{
	static const size_t lens[] = { 0, 1, 8, 9, 100, FI_CM_DATA_MAX };
	struct fi_eq_attr attr = { .size = 2 };
	struct fi_eq_err_entry err = {};
	struct fi_eq_cm_entry *out, *in;
	size_t outlen = sizeof(*out) + FI_CM_DATA_MAX;
	struct ktp_stack s;
	struct fid_eq *eq;
	u8 *data;
	u32 event;
	size_t i;

	out = kunit_kzalloc(test, outlen, GFP_KERNEL);
	in = kunit_kzalloc(test, outlen, GFP_KERNEL);
	data = kunit_kzalloc(test, FI_CM_DATA_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, data);
	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_eq_open(s.fabric, &attr, &eq, NULL), 0);

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(data, 0xa0 + i, FI_CM_DATA_MAX);
		KUNIT_ASSERT_EQ(test, kofi_eq_write_cm(eq, FI_CONNECTED,
						       &s.fabric->fid, NULL,
						       data, lens[i]), 0);
		/* the queued copy, not the writer's buffer, is read */
		memset(data, 0, FI_CM_DATA_MAX);
		KUNIT_EXPECT_EQ(test, fi_eq_read(eq, &event, out,
						 sizeof(*out) + lens[i] - 1,
						 0),
				-EMSGSIZE);
		memset(out, 0, outlen);
		KUNIT_EXPECT_EQ(test, fi_eq_read(eq, &event, out, outlen,
						 FI_PEEK),
				(ssize_t)(sizeof(*out) + lens[i]));
		memset(out, 0, outlen);
		KUNIT_EXPECT_EQ(test, fi_eq_read(eq, &event, out, outlen, 0),
				(ssize_t)(sizeof(*out) + lens[i]));
		KUNIT_EXPECT_EQ(test, event, (u32)FI_CONNECTED);
		KUNIT_EXPECT_PTR_EQ(test, out->fid, &s.fabric->fid);
		memset(data, 0xa0 + i, lens[i]);
		KUNIT_EXPECT_EQ(test, memcmp(out->data, data, lens[i]), 0);
	}

	/* a user's entry longer than the slot keeps its tail too */
	in->fid = &s.fabric->fid;
	memset(in->data, 0x5c, FI_CM_DATA_MAX);
	KUNIT_EXPECT_EQ(test, fi_eq_write(eq, FI_NOTIFY, in, outlen, 0),
			(ssize_t)outlen);
	memset(out, 0, outlen);
	KUNIT_EXPECT_EQ(test, fi_eq_read(eq, &event, out, outlen, 0),
			(ssize_t)outlen);
	KUNIT_EXPECT_EQ(test, memcmp(out, in, outlen), 0);

	/* no memory for the copy: nothing queued, nothing lost */
	kofi_eq_test_fail_alloc(eq, 2);
	KUNIT_EXPECT_EQ(test, kofi_eq_offer_cm(eq, FI_CONNREQ, NULL, NULL,
					       data, 4), -ENOMEM);
	KUNIT_EXPECT_EQ(test, fi_eq_write(eq, FI_NOTIFY, in, outlen, 0),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, fi_eq_read(eq, &event, out, outlen, 0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fi_eq_readerr(eq, &err, 0), -EAGAIN);

	/* a provider's event without its copy is lost, and that is reported */
	KUNIT_ASSERT_EQ(test, kofi_eq_write_cm(eq, FI_CONNECTED, NULL, NULL,
					       data, 4), 0);
	kofi_eq_test_fail_alloc(eq, 1);
	KUNIT_EXPECT_EQ(test, kofi_eq_write_cm(eq, FI_CONNECTED, NULL, NULL,
					       data, 4), -ENOMEM);
	/* ... and the queue takes nothing more until that has been read */
	KUNIT_EXPECT_EQ(test, kofi_eq_write_cm(eq, FI_SHUTDOWN, NULL, NULL,
					       NULL, 0), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, fi_eq_read(eq, &event, out, outlen, 0),
			(ssize_t)(sizeof(*out) + 4));
	KUNIT_EXPECT_EQ(test, fi_eq_read(eq, &event, out, outlen, 0),
			-FI_EAVAIL);
	KUNIT_EXPECT_EQ(test, fi_eq_readerr(eq, &err, 0), (ssize_t)sizeof(err));
	KUNIT_EXPECT_EQ(test, err.err, EOVERFLOW);
	KUNIT_EXPECT_EQ(test, err.prov_errno, 2);

	/* entries with data left unread are freed at close */
	KUNIT_EXPECT_EQ(test, kofi_eq_write_cm(eq, FI_CONNECTED, NULL, NULL,
					       data, FI_CM_DATA_MAX), 0);
	KUNIT_EXPECT_EQ(test, fi_eq_write(eq, FI_NOTIFY, in, outlen, 0),
			(ssize_t)outlen);
	KUNIT_EXPECT_EQ(test, fi_close(&eq->fid), 0);
	ktp_stack_close(test, &s);
}

static int kq_connreq_closes;

static int kq_connreq_close(struct fid *fid)
{
	kq_connreq_closes++;
	return 0;
}

static const struct fi_ops kq_connreq_ops = { .close = kq_connreq_close };

/* Unread FI_CONNREQ events are released at close (kmemleak watches). */
static void ke_connreq_release_test(struct kunit *test)
{
	struct fid *handle = kunit_kzalloc(test, sizeof(*handle), GFP_KERNEL);
	struct fi_eq_attr attr = { .size = 4 };
	struct fi_info *info;
	struct ktp_stack s;
	struct fid_eq *eq;

	KUNIT_ASSERT_NOT_NULL(test, handle);
	kofi_fid_init(handle, FI_CLASS_CONNREQ, &kq_connreq_ops, NULL);
	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_eq_open(s.fabric, &attr, &eq, NULL), 0);
	info = fi_allocinfo(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	info->handle = handle;
	kq_connreq_closes = 0;
	KUNIT_ASSERT_EQ(test, kofi_eq_write_cm(eq, FI_CONNREQ, &s.fabric->fid,
					       info, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&eq->fid), 0);
	KUNIT_EXPECT_EQ(test, kq_connreq_closes, 1);
	KUNIT_EXPECT_TRUE(test, kofi_fid_closed(handle));
	ktp_stack_close(test, &s);
}

static void ke_sread_timeout_test(struct kunit *test)
{
	struct fi_eq_entry out;
	struct ktp_stack s;
	ktime_t t0;
	s64 ms;
	u32 event;

	ktp_stack_open(test, &s, false);
	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, fi_eq_sread(s.eq, &event, &out, sizeof(out), 100,
					  0), -EAGAIN);
	ms = ktime_ms_delta(ktime_get(), t0);
	KUNIT_EXPECT_GE(test, ms, 90);
	KUNIT_EXPECT_LT(test, ms, 5000);
	/* timeout 0 does not wait */
	KUNIT_EXPECT_EQ(test, fi_eq_sread(s.eq, &event, &out, sizeof(out), 0,
					  0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fi_eq_sread(s.eq, &event, &out, sizeof(out), -2,
					  0), -EINVAL);
	ktp_stack_close(test, &s);
}

static void ke_sread_wake_test(struct kunit *test)
{
	struct fi_eq_entry e = { .data = 77 };
	struct kq_waiter *w;
	struct ktp_stack s;

	ktp_stack_open(test, &s, false);
	w = kq_start(test, kq_eq_sleeper, s.eq, NULL, -1);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&w->done));
	KUNIT_EXPECT_EQ(test, fi_eq_write(s.eq, FI_NOTIFY, &e, sizeof(e), 0),
			(ssize_t)sizeof(e));
	KUNIT_ASSERT_TRUE(test, kq_wait(w));
	KUNIT_EXPECT_EQ(test, w->ret, (ssize_t)sizeof(e));
	KUNIT_EXPECT_EQ(test, w->event, (u32)FI_NOTIFY);
	KUNIT_EXPECT_EQ(test, w->entry.data, 77ULL);
	ktp_stack_close(test, &s);
}

static void ke_handler_test(struct kunit *test)
{
	struct fi_eq_attr attr = { .size = 4, .event_handler = kq_eq_handler };
	struct ktp_stack s;
	struct fid_eq *eq;
	int ctx;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_eq_open(s.fabric, &attr, &eq, &ctx), 0);
	atomic_set(&kq_eq_events, 0);
	kq_eq_ctx = NULL;
	KUNIT_EXPECT_EQ(test, kofi_eq_write_event(eq, FI_NOTIFY, NULL, NULL,
						  0), 0);
	KUNIT_EXPECT_EQ(test, kofi_eq_write_err(eq, NULL, NULL, EIO, 0, NULL,
						0), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kq_eq_events), 2);
	KUNIT_EXPECT_PTR_EQ(test, kq_eq_ctx, (void *)&ctx);
	KUNIT_EXPECT_EQ(test, fi_close(&eq->fid), 0);
	ktp_stack_close(test, &s);
}

/* ---------------- CQ ---------------- */

static atomic_t kq_cq_calls;
static void *kq_cq_ctx;

static void kq_cq_handler(struct fid_cq *cq, void *context)
{
	struct fi_cq_entry e;

	kq_cq_ctx = context;
	atomic_inc(&kq_cq_calls);
	/* reading from the callback (softirq-safe) must work */
	if (fi_cq_read(cq, &e, 1) == 1 && e.op_context == (void *)1)
		atomic_inc(&kq_cq_calls);
}

static void kc_open_test(struct kunit *test)
{
	struct fi_cq_attr attr = {};
	struct ktp_stack s;
	struct fid_cq *cq;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), 0);
	KUNIT_EXPECT_EQ(test, attr.size, (size_t)FI_CQ_DEFAULT_SIZE);
	KUNIT_EXPECT_EQ(test, attr.format, FI_CQ_FORMAT_CONTEXT);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);
	attr.size = 1;
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);
	attr.size = FI_CQ_MAX_SIZE + 1;
	KUNIT_EXPECT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), -EINVAL);
	attr.size = 8;
	attr.format = 42;
	KUNIT_EXPECT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), -EINVAL);
	attr.format = FI_CQ_FORMAT_MSG;
	attr.wait_cond = 7;
	KUNIT_EXPECT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), -EINVAL);
	attr.wait_cond = 0;
	attr.flags = ~FI_CQ_CALLBACK;
	KUNIT_EXPECT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), -EINVAL);
	ktp_stack_close(test, &s);
}

static void kc_formats_test(struct kunit *test)
{
	struct fi_cq_attr attr = { .size = 8 };
	struct fi_cq_data_entry d;
	struct fi_cq_msg_entry m[2];
	struct fi_cq_entry c[3];
	fi_addr_t src[2];
	struct ktp_stack s;
	struct fid_cq *cq;

	ktp_stack_open(test, &s, false);

	attr.format = FI_CQ_FORMAT_CONTEXT;
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), 0);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, (void *)1, FI_SEND, 10, NULL,
					    0), 0);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, (void *)2, FI_SEND, 10, NULL,
					    0), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, c, 3), 2);
	KUNIT_EXPECT_PTR_EQ(test, c[0].op_context, (void *)1);
	KUNIT_EXPECT_PTR_EQ(test, c[1].op_context, (void *)2);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);

	attr.format = FI_CQ_FORMAT_MSG;
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), 0);
	KUNIT_EXPECT_EQ(test, kofi_cq_write_src(cq, (void *)3,
						FI_RECV | FI_MSG, 33, NULL, 0,
						5), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_readfrom(cq, m, 2, src), 1);
	KUNIT_EXPECT_PTR_EQ(test, m[0].op_context, (void *)3);
	KUNIT_EXPECT_EQ(test, m[0].flags, FI_RECV | FI_MSG);
	KUNIT_EXPECT_EQ(test, m[0].len, 33UL);
	KUNIT_EXPECT_EQ(test, src[0], 5ULL);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);

	attr.format = FI_CQ_FORMAT_DATA;
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), 0);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, (void *)4,
					    FI_RECV | FI_REMOTE_CQ_DATA, 7,
					    (void *)8, 0xabcd), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, &d, 1), 1);
	KUNIT_EXPECT_PTR_EQ(test, d.op_context, (void *)4);
	KUNIT_EXPECT_EQ(test, d.flags, FI_RECV | FI_REMOTE_CQ_DATA);
	KUNIT_EXPECT_EQ(test, d.len, 7UL);
	KUNIT_EXPECT_PTR_EQ(test, d.buf, (void *)8);
	KUNIT_EXPECT_EQ(test, d.data, 0xabcdULL);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, &d, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);
	ktp_stack_close(test, &s);
}

static void kc_batch_test(struct kunit *test)
{
	struct fi_cq_data_entry c[16];
	struct ktp_stack s;
	int i;

	ktp_stack_open(test, &s, false);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, kofi_cq_write(s.cq, (void *)(long)i, 0, 0,
						    NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, c, 4), 4);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, c, 16), 6);
	KUNIT_EXPECT_PTR_EQ(test, c[5].op_context, (void *)9);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, c, 16), -EAGAIN);
	ktp_stack_close(test, &s);
}

static void kc_error_test(struct kunit *test)
{
	struct fi_cq_data_entry c[4];
	struct fi_cq_err_entry err;
	struct ktp_stack s;

	ktp_stack_open(test, &s, false);
	KUNIT_EXPECT_EQ(test, fi_cq_readerr(s.cq, &err, 0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(s.cq, (void *)1, FI_SEND, 0, NULL,
					    0), 0);
	KUNIT_EXPECT_EQ(test, kofi_cq_write_err(s.cq, (void *)2,
						FI_RECV | FI_MSG, -EMSGSIZE,
						3, 64, 16), 0);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(s.cq, (void *)3, FI_SEND, 0, NULL,
					    0), 0);
	/* successes before the error are returned first */
	KUNIT_EXPECT_EQ(test, fi_cq_readerr(s.cq, &err, 0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, c, 4), 1);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, c, 4), -FI_EAVAIL);
	KUNIT_EXPECT_EQ(test, fi_cq_readerr(s.cq, &err, FI_PEEK), 1);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, c, 4), -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	KUNIT_EXPECT_EQ(test, fi_cq_readerr(s.cq, &err, 0), 1);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)2);
	KUNIT_EXPECT_EQ(test, err.err, EMSGSIZE);
	KUNIT_EXPECT_EQ(test, err.prov_errno, 3);
	KUNIT_EXPECT_EQ(test, err.len, 64UL);
	KUNIT_EXPECT_EQ(test, err.olen, 16UL);
	KUNIT_EXPECT_EQ(test, err.flags, FI_RECV | FI_MSG);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, c, 4), 1);
	KUNIT_EXPECT_PTR_EQ(test, c[0].op_context, (void *)3);
	KUNIT_EXPECT_EQ(test, kofi_cq_write_err(s.cq, NULL, 0, 0, 0, 0, 0),
			-EINVAL);
	ktp_stack_close(test, &s);
}

/*
 * kofi_cq_write_comp(): one record, a success read with its source and
 * tag, an error (errno stored positive) read with every field but the
 * source; INT_MIN refused.
 */
static void kc_comp_test(struct kunit *test)
{
	struct fi_cq_attr attr = { .size = 4, .format = FI_CQ_FORMAT_TAGGED };
	struct kofi_comp ok = {
		.op_context = (void *)1,
		.flags = FI_RECV | FI_TAGGED | FI_REMOTE_CQ_DATA,
		.len = 12,
		.buf = (void *)8,
		.data = 0xd,
		.tag = 0x7a9,
		.src = 5,
	};
	struct kofi_comp bad = {
		.op_context = (void *)2,
		.flags = FI_RECV | FI_TAGGED,
		.len = 64,
		.data = 0xe,
		.tag = 0x7b0,
		.src = 6,
		.olen = 16,
		.err = -EMSGSIZE,
		.prov_errno = 3,
	};
	struct fi_cq_tagged_entry t;
	struct fi_cq_err_entry err;
	struct ktp_stack s;
	struct fid_cq *cq;
	fi_addr_t src;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), 0);
	KUNIT_EXPECT_EQ(test, kofi_cq_write_comp(cq, &ok), 0);
	KUNIT_EXPECT_EQ(test, kofi_cq_write_comp(cq, &bad), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_readfrom(cq, &t, 1, &src), 1);
	KUNIT_EXPECT_PTR_EQ(test, t.op_context, (void *)1);
	KUNIT_EXPECT_EQ(test, t.flags, ok.flags);
	KUNIT_EXPECT_EQ(test, t.len, 12UL);
	KUNIT_EXPECT_PTR_EQ(test, t.buf, (void *)8);
	KUNIT_EXPECT_EQ(test, t.data, 0xdULL);
	KUNIT_EXPECT_EQ(test, t.tag, 0x7a9ULL);
	KUNIT_EXPECT_EQ(test, src, (fi_addr_t)5);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, &t, 1), -FI_EAVAIL);
	KUNIT_EXPECT_EQ(test, fi_cq_readerr(cq, &err, 0), 1);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)2);
	KUNIT_EXPECT_EQ(test, err.flags, bad.flags);
	KUNIT_EXPECT_EQ(test, err.err, EMSGSIZE);
	KUNIT_EXPECT_EQ(test, err.prov_errno, 3);
	KUNIT_EXPECT_EQ(test, err.len, 64UL);
	KUNIT_EXPECT_EQ(test, err.olen, 16UL);
	KUNIT_EXPECT_EQ(test, err.data, 0xeULL);
	KUNIT_EXPECT_EQ(test, err.tag, 0x7b0ULL);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, &t, 1), -EAGAIN);
	bad.err = INT_MIN;
	KUNIT_EXPECT_EQ(test, kofi_cq_write_comp(cq, &bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, kofi_cq_write_comp(NULL, &ok), -EINVAL);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, &t, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);
	ktp_stack_close(test, &s);
}

static void kc_overrun_test(struct kunit *test)
{
	struct fi_cq_attr attr = { .size = 4 };
	struct fi_cq_err_entry err;
	struct fi_cq_entry c[8];
	struct ktp_stack s;
	struct fid_cq *cq;
	int i;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), 0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, NULL, 0, 0, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, NULL, 0, 0, NULL, 0),
			-EOVERFLOW);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, c, 2), 2);
	/* still overrun until reported: no silent reuse of the free slots */
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, NULL, 0, 0, NULL, 0),
			-EOVERFLOW);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, c, 8), 2);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, c, 8), -FI_EAVAIL);
	KUNIT_EXPECT_EQ(test, fi_cq_readerr(cq, &err, 0), 1);
	KUNIT_EXPECT_EQ(test, err.err, EOVERFLOW);
	KUNIT_EXPECT_EQ(test, err.prov_errno, 2);
	KUNIT_EXPECT_NULL(test, err.op_context);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, c, 8), -EAGAIN);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, (void *)5, 0, 0, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, c, 8), 1);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);
	ktp_stack_close(test, &s);
}

static void kc_sread_timeout_test(struct kunit *test)
{
	struct fi_cq_data_entry c;
	struct ktp_stack s;
	ktime_t t0;
	s64 ms;

	ktp_stack_open(test, &s, false);
	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, fi_cq_sread(s.cq, &c, 1, NULL, 100), -EAGAIN);
	ms = ktime_ms_delta(ktime_get(), t0);
	KUNIT_EXPECT_GE(test, ms, 90);
	KUNIT_EXPECT_LT(test, ms, 5000);
	KUNIT_EXPECT_EQ(test, fi_cq_sread(s.cq, &c, 1, NULL, 0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fi_cq_sread(s.cq, &c, 1, NULL, -2), -EINVAL);
	ktp_stack_close(test, &s);
}

static void kc_signal_test(struct kunit *test)
{
	struct fi_cq_data_entry c;
	struct kq_waiter *w;
	struct ktp_stack s;
	ktime_t t0;

	ktp_stack_open(test, &s, false);
	w = kq_start(test, kq_cq_sleeper, NULL, s.cq, -1);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&w->done));
	KUNIT_EXPECT_EQ(test, fi_cq_signal(s.cq), 0);
	KUNIT_ASSERT_TRUE(test, kq_wait(w));
	KUNIT_EXPECT_EQ(test, w->ret, -EAGAIN);

	/* a signal with nobody asleep is kept for the next sread */
	KUNIT_EXPECT_EQ(test, fi_cq_signal(s.cq), 0);
	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, fi_cq_sread(s.cq, &c, 1, NULL, 2000), -EAGAIN);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 1000);
	ktp_stack_close(test, &s);
}

static void kc_sread_wake_test(struct kunit *test)
{
	struct kq_waiter *w;
	struct ktp_stack s;

	ktp_stack_open(test, &s, false);
	w = kq_start(test, kq_cq_sleeper, NULL, s.cq, 5000);
	msleep(50);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(s.cq, (void *)7, FI_SEND, 0, NULL,
					    0), 0);
	KUNIT_ASSERT_TRUE(test, kq_wait(w));
	KUNIT_EXPECT_EQ(test, w->ret, 1);
	KUNIT_EXPECT_PTR_EQ(test, w->comp[0].op_context, (void *)7);
	ktp_stack_close(test, &s);
}

static void kc_threshold_test(struct kunit *test)
{
	struct fi_cq_attr attr = { .size = 8, .format = FI_CQ_FORMAT_DATA,
				   .wait_cond = FI_CQ_COND_THRESHOLD };
	struct kq_waiter *w;
	struct ktp_stack s;
	struct fid_cq *cq;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), 0);
	/* without a cond, one entry is enough */
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, NULL, 0, 0, NULL, 0), 0);
	w = kq_start(test, kq_cq_sleeper, NULL, cq, 5000);
	KUNIT_ASSERT_TRUE(test, kq_wait(w));
	KUNIT_EXPECT_EQ(test, w->ret, 1);

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	w->cq = cq;
	w->timeout = 5000;
	w->threshold = 3;
	init_completion(&w->started);
	init_completion(&w->done);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(kq_cq_sleeper, w,
						    "kq_thresh")));
	wait_for_completion(&w->started);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, NULL, 0, 0, NULL, 0), 0);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&w->done));
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, NULL, 0, 0, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, NULL, 0, 0, NULL, 0), 0);
	KUNIT_ASSERT_TRUE(test, kq_wait(w));
	KUNIT_EXPECT_EQ(test, w->ret, 3);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);
	ktp_stack_close(test, &s);
}

/*
 * Progress run by a CQ's waiter: each run writes one completion whose
 * context is the task that ran it; a run may wait at a gate.
 */
struct kc_prog {
	struct kofi_cq_progress p;
	struct fid_cq *cq;
	struct completion *gate;
	struct completion in_run;
	atomic_t runs;
	atomic_t defers;
};

static void kc_prog_run(struct kofi_cq_progress *p)
{
	struct kc_prog *g = container_of(p, struct kc_prog, p);

	atomic_inc(&g->runs);
	kofi_cq_write(g->cq, current, FI_RECV, 0, NULL, 0);
	complete(&g->in_run);
	if (g->gate)
		wait_for_completion(g->gate);
}

static void kc_prog_defer(struct kofi_cq_progress *p)
{
	atomic_inc(&container_of(p, struct kc_prog, p)->defers);
}

static void kc_prog_init(struct kc_prog *g, struct fid_cq *cq,
			 struct completion *gate)
{
	kofi_cq_progress_init(&g->p, kc_prog_run, kc_prog_defer);
	g->cq = cq;
	g->gate = gate;
	init_completion(&g->in_run);
	atomic_set(&g->runs, 0);
	atomic_set(&g->defers, 0);
}

struct kc_stop {
	struct fid_cq *cq;
	struct kofi_cq_progress *p;
	struct completion done;
};

static int kc_stopper(void *arg)
{
	struct kc_stop *st = arg;

	kofi_cq_progress_stop(st->cq, st->p);
	complete(&st->done);
	return 0;
}

/* kq_start() of kq_cq_sleeper(), and its task. */
static struct kq_waiter *kc_start_driver(struct kunit *test,
					 struct fid_cq *cq, int timeout,
					 struct task_struct **task)
{
	struct kq_waiter *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->cq = cq;
	w->timeout = timeout;
	init_completion(&w->started);
	init_completion(&w->done);
	*task = kthread_run(kq_cq_sleeper, w, "kq_driver");
	KUNIT_ASSERT_FALSE(test, IS_ERR(*task));
	wait_for_completion(&w->started);
	msleep(50);	/* in fi_cq_sread() */
	return w;
}

/*
 * kofi_cq_progress_kick(): without a thread in fi_cq_sread() it answers
 * false and nothing runs; with one, that thread runs the progress and
 * returns the completion it wrote; once it left, false again.  A kick
 * while the thread runs progress waits for its next pass: if the thread
 * leaves first, the progress is deferred, never lost or run twice.
 * kofi_cq_progress_stop() waits for a run in progress.
 */
static void kc_progress_test(struct kunit *test)
{
	struct kc_prog a, b;
	struct kc_stop st;
	struct completion gate;
	struct task_struct *task;
	struct fi_cq_entry e;
	struct kq_waiter *w;
	struct ktp_stack s;

	ktp_stack_open(test, &s, false);
	kc_prog_init(&a, s.cq, NULL);
	KUNIT_EXPECT_FALSE(test, kofi_cq_progress_kick(s.cq, &a.p));
	KUNIT_EXPECT_FALSE(test, kofi_cq_progress_kick(NULL, &a.p));
	KUNIT_EXPECT_EQ(test, atomic_read(&a.runs), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, &e, 1), -EAGAIN);

	/* the waiter runs it and returns its completion */
	w = kc_start_driver(test, s.cq, 5000, &task);
	KUNIT_EXPECT_TRUE(test, kofi_cq_progress_kick(s.cq, &a.p));
	KUNIT_ASSERT_TRUE(test, kq_wait(w));
	KUNIT_EXPECT_EQ(test, w->ret, 1);
	KUNIT_EXPECT_PTR_EQ(test, w->comp[0].op_context, (void *)task);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.defers), 0);
	KUNIT_EXPECT_FALSE(test, kofi_cq_progress_kick(s.cq, &a.p));

	/* kicked during a run: deferred when the waiter leaves */
	init_completion(&gate);
	kc_prog_init(&a, s.cq, &gate);
	kc_prog_init(&b, s.cq, NULL);
	w = kc_start_driver(test, s.cq, 5000, &task);
	KUNIT_EXPECT_TRUE(test, kofi_cq_progress_kick(s.cq, &a.p));
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&a.in_run,
							    HZ * 5));
	KUNIT_EXPECT_TRUE(test, kofi_cq_progress_kick(s.cq, &b.p));
	KUNIT_EXPECT_TRUE(test, kofi_cq_progress_kick(s.cq, &b.p));
	complete(&gate);
	KUNIT_ASSERT_TRUE(test, kq_wait(w));
	KUNIT_EXPECT_EQ(test, w->ret, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&b.runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&b.defers), 1);

	/* a stop waits for the run in progress */
	init_completion(&gate);
	kc_prog_init(&a, s.cq, &gate);
	w = kc_start_driver(test, s.cq, 5000, &task);
	KUNIT_EXPECT_TRUE(test, kofi_cq_progress_kick(s.cq, &a.p));
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&a.in_run,
							    HZ * 5));
	st.cq = s.cq;
	st.p = &a.p;
	init_completion(&st.done);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(kc_stopper, &st,
						    "kq_stopper")));
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&st.done));
	complete(&gate);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&st.done,
							    HZ * 5));
	KUNIT_ASSERT_TRUE(test, kq_wait(w));
	KUNIT_EXPECT_EQ(test, w->ret, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.runs), 1);
	ktp_stack_close(test, &s);
}

/* Completions written and read from atomic and softirq context. */
struct kc_timer {
	struct timer_list timer;
	struct fid_cq *cq;
	int ret;
};

static void kc_timer_fn(struct timer_list *t)
{
	struct kc_timer *kt = from_timer(kt, t, timer);

	WRITE_ONCE(kt->ret, kofi_cq_write(kt->cq, (void *)1, FI_SEND, 0, NULL,
					  0));
}

static void kc_atomic_test(struct kunit *test)
{
	struct fi_cq_attr attr = { .size = 8,
				   .comp_handler = kq_cq_handler };
	struct fi_cq_data_entry d;
	struct fi_cq_entry c;
	struct kc_timer kt;
	struct ktp_stack s;
	struct fid_cq *cq;
	unsigned long flags;
	spinlock_t lock;	/* stands for a provider's lock */
	int ctx, i;

	spin_lock_init(&lock);
	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &attr, &cq, &ctx), 0);

	/* under a spinlock with interrupts off */
	spin_lock_irqsave(&lock, flags);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(s.cq, (void *)9, 0, 0, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(s.cq, &d, 1), 1);
	spin_unlock_irqrestore(&lock, flags);

	/* from a timer (softirq); the handler reads the entry itself */
	atomic_set(&kq_cq_calls, 0);
	kq_cq_ctx = NULL;
	kt.cq = cq;
	kt.ret = -1;
	timer_setup_on_stack(&kt.timer, kc_timer_fn, 0);
	mod_timer(&kt.timer, jiffies + 1);
	/*
	 * Not fi_cq_sread(): woken by the write, it could take the entry
	 * before the handler does.  Wait for the timer to have run instead.
	 */
	for (i = 0; i < 50 && READ_ONCE(kt.ret) == -1; i++)
		msleep(20);
	del_timer_sync(&kt.timer);
	destroy_timer_on_stack(&kt.timer);
	KUNIT_EXPECT_EQ(test, kt.ret, 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, &c, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic_read(&kq_cq_calls), 2);
	KUNIT_EXPECT_PTR_EQ(test, kq_cq_ctx, (void *)&ctx);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);
	ktp_stack_close(test, &s);
}

/* ---------------- callback CQ ---------------- */

/* A request of a callback CQ's user, with what its done() saw. */
struct kc_cb_req {
	struct fi_cqe cqe;
	int calls;
	int seq;
	struct fid_cq *cq;
	struct fi_cq_err_entry comp;
	struct fid_ep *ep;	/* kc_cb_repost_done(): where to post */
	int repost;		/* sends still to post from done() */
	int post_ret;
	int depth;		/* deepest nesting of done() seen */
	struct kc_cb_req *recv;	/* a receive to post from done(), or NULL */
};

static int kc_cb_seq;
static int kc_cb_nesting;

static void kc_cb_done(struct fid_cq *cq, struct fi_cqe *cqe,
		       const struct fi_cq_err_entry *comp)
{
	struct kc_cb_req *r = container_of(cqe, struct kc_cb_req, cqe);

	r->calls++;
	r->seq = ++kc_cb_seq;
	r->cq = cq;
	r->comp = *comp;
}

static struct fid_cq *kc_cb_open(struct kunit *test, struct ktp_stack *s)
{
	struct fi_cq_attr attr = { .flags = FI_CQ_CALLBACK };
	struct fid_cq *cq;

	KUNIT_ASSERT_EQ(test, fi_cq_open(s->domain, &attr, &cq, NULL), 0);
	return cq;
}

/* An endpoint of kt_hw whose queues both complete to @cq. */
static struct fid_ep *kc_cb_ep(struct kunit *test, struct ktp_stack *s,
			       struct fid_cq *cq)
{
	struct fid_ep *ep;

	KUNIT_ASSERT_EQ(test, fi_endpoint(s->domain, s->info, &ep, NULL), 0);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(ep, &s->eq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, fi_ep_bind(ep, &cq->fid, FI_SEND | FI_RECV), 0);
	KUNIT_ASSERT_EQ(test, fi_enable(ep), 0);
	return ep;
}

static void kc_cb_handler(struct fid_cq *cq, void *context)
{
}

/* Opening one; every read call refused. */
static void kc_cb_open_test(struct kunit *test)
{
	struct fi_cq_attr attr = { .flags = FI_CQ_CALLBACK };
	struct fi_cq_data_entry c;
	struct fi_cq_err_entry err;
	fi_addr_t src;
	size_t thr = 1;
	struct ktp_stack s;
	struct fid_cq *cq;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), 0);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, &c, 1), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, fi_cq_readfrom(cq, &c, 1, &src), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, fi_cq_readerr(cq, &err, 0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, fi_cq_sread(cq, &c, 1, NULL, 0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, fi_cq_sread(cq, &c, 1, &thr, 100), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, fi_cq_sreadfrom(cq, &c, 1, &src, NULL, -1),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, fi_cq_signal(cq), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);

	/* no comp_handler with it, no other flag */
	attr.comp_handler = kc_cb_handler;
	KUNIT_EXPECT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kofi_cq_open_generic(s.domain, &attr, &cq, NULL),
			-EINVAL);
	attr.comp_handler = NULL;
	attr.flags = FI_CQ_CALLBACK << 1;
	KUNIT_EXPECT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kofi_cq_open_generic(s.domain, &attr, &cq, NULL),
			-EINVAL);
	ktp_stack_close(test, &s);
}

/* Successes and errors reach done() at once, with every field, unbounded. */
static void kc_cb_write_test(struct kunit *test)
{
	struct kc_cb_req r[3] = {}, bad = {}, many = { .cqe.done = kc_cb_done };
	struct ktp_stack s;
	struct fid_cq *cq;
	int i;

	for (i = 0; i < ARRAY_SIZE(r); i++)
		r[i].cqe.done = kc_cb_done;
	ktp_stack_open(test, &s, false);
	cq = kc_cb_open(test, &s);

	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, &r[0].cqe, FI_SEND | FI_MSG,
					    10, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, r[0].calls, 1);
	KUNIT_EXPECT_PTR_EQ(test, r[0].cq, cq);
	KUNIT_EXPECT_PTR_EQ(test, r[0].comp.op_context, (void *)&r[0].cqe);
	KUNIT_EXPECT_EQ(test, r[0].comp.err, 0);
	KUNIT_EXPECT_EQ(test, r[0].comp.flags, FI_SEND | FI_MSG);
	KUNIT_EXPECT_EQ(test, r[0].comp.len, 10UL);

	KUNIT_EXPECT_EQ(test, kofi_cq_write_src(cq, &r[1].cqe,
						FI_RECV | FI_REMOTE_CQ_DATA, 33,
						(void *)8, 0xabcd, 5), 0);
	KUNIT_EXPECT_EQ(test, r[1].calls, 1);
	KUNIT_EXPECT_EQ(test, r[1].comp.err, 0);
	KUNIT_EXPECT_EQ(test, r[1].comp.flags, FI_RECV | FI_REMOTE_CQ_DATA);
	KUNIT_EXPECT_EQ(test, r[1].comp.len, 33UL);
	KUNIT_EXPECT_PTR_EQ(test, r[1].comp.buf, (void *)8);
	KUNIT_EXPECT_EQ(test, r[1].comp.data, 0xabcdULL);

	KUNIT_EXPECT_EQ(test, kofi_cq_write_err(cq, &r[2].cqe, FI_RECV | FI_MSG,
						-EMSGSIZE, 3, 64, 16), 0);
	KUNIT_EXPECT_EQ(test, r[2].calls, 1);
	KUNIT_EXPECT_PTR_EQ(test, r[2].comp.op_context, (void *)&r[2].cqe);
	KUNIT_EXPECT_EQ(test, r[2].comp.err, EMSGSIZE);
	KUNIT_EXPECT_EQ(test, r[2].comp.prov_errno, 3);
	KUNIT_EXPECT_EQ(test, r[2].comp.len, 64UL);
	KUNIT_EXPECT_EQ(test, r[2].comp.olen, 16UL);
	KUNIT_EXPECT_EQ(test, r[2].comp.flags, FI_RECV | FI_MSG);
	KUNIT_EXPECT_EQ(test, kofi_cq_write_err(cq, &r[2].cqe, 0, 0, 0, 0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, r[2].calls, 1);

	/* no ring: nothing to overrun */
	for (i = 0; i < 2 * FI_CQ_DEFAULT_SIZE; i++)
		KUNIT_ASSERT_EQ(test, kofi_cq_write(cq, &many.cqe, FI_SEND, 0,
						    NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, many.calls, 2 * FI_CQ_DEFAULT_SIZE);

	/* a completion without a struct fi_cqe is refused, not called */
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, NULL, FI_SEND, 0, NULL, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kofi_cq_write(cq, &bad.cqe, FI_SEND, 0, NULL, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);
	ktp_stack_close(test, &s);
}

/* Operations outstanding at fi_close() of their endpoint: oplist flush. */
static void kc_cb_flush_test(struct kunit *test)
{
	struct kc_cb_req r[3] = {};
	struct ktp_stack s;
	struct fid_cq *cq;
	struct fid_ep *ep;
	char buf[3][8];
	int i;

	ktp_stack_open(test, &s, false);
	cq = kc_cb_open(test, &s);
	ep = kc_cb_ep(test, &s, cq);
	kc_cb_seq = 0;
	for (i = 0; i < ARRAY_SIZE(r); i++) {
		r[i].cqe.done = kc_cb_done;
		KUNIT_ASSERT_EQ(test, fi_recv(ep, buf[i], sizeof(buf[i]), NULL,
					      0, &r[i].cqe), 0);
	}
	for (i = 0; i < ARRAY_SIZE(r); i++)
		KUNIT_EXPECT_EQ(test, r[i].calls, 0);
	KUNIT_EXPECT_EQ(test, fi_close(&ep->fid), 0);
	for (i = 0; i < ARRAY_SIZE(r); i++) {
		KUNIT_EXPECT_EQ(test, r[i].calls, 1);
		KUNIT_EXPECT_EQ(test, r[i].seq, i + 1);
		KUNIT_EXPECT_PTR_EQ(test, r[i].cq, cq);
		KUNIT_EXPECT_PTR_EQ(test, r[i].comp.op_context,
				    (void *)&r[i].cqe);
		KUNIT_EXPECT_EQ(test, r[i].comp.err, ECANCELED);
		KUNIT_EXPECT_EQ(test, r[i].comp.flags, FI_RECV | FI_MSG);
	}
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);
	ktp_stack_close(test, &s);
}

/*
 * done() posts again from inside done(): kt_hw completes a send within
 * fi_send(), so each repost completes, nested, into the same CQ before the
 * post returns - which deadlocks (or lockdep reports it) if a lock of the
 * CQ is held around done().  The last send's done() posts a receive,
 * flushed at close.
 */
static void kc_cb_repost_done(struct fid_cq *cq, struct fi_cqe *cqe,
			      const struct fi_cq_err_entry *comp)
{
	struct kc_cb_req *r = container_of(cqe, struct kc_cb_req, cqe);
	static const char msg[] = "again";

	r->calls++;
	r->comp = *comp;
	kc_cb_nesting++;
	r->depth = max(r->depth, kc_cb_nesting);
	if (r->repost > 0) {
		r->repost--;
		r->post_ret = fi_send(r->ep, msg, sizeof(msg), NULL, 0,
				      &r->cqe);
	} else if (r->recv) {
		r->post_ret = fi_recv(r->ep, NULL, 0, NULL, 0,
				      &r->recv->cqe);
		r->recv = NULL;
	}
	kc_cb_nesting--;
}

static void kc_cb_repost_test(struct kunit *test)
{
	struct kc_cb_req r = { .cqe.done = kc_cb_repost_done, .repost = 3 };
	struct kc_cb_req rx = { .cqe.done = kc_cb_done };
	struct ktp_stack s;
	struct fid_cq *cq;
	struct fid_ep *ep;

	ktp_stack_open(test, &s, false);
	cq = kc_cb_open(test, &s);
	ep = kc_cb_ep(test, &s, cq);
	r.ep = ep;
	r.recv = &rx;
	kc_cb_nesting = 0;
	KUNIT_EXPECT_EQ(test, fi_send(ep, "x", 1, NULL, 0, &r.cqe), 0);
	KUNIT_EXPECT_EQ(test, r.calls, 4);
	KUNIT_EXPECT_EQ(test, r.depth, 4);
	KUNIT_EXPECT_EQ(test, r.repost, 0);
	KUNIT_EXPECT_EQ(test, r.post_ret, 0);
	KUNIT_EXPECT_EQ(test, r.comp.err, 0);
	KUNIT_EXPECT_EQ(test, r.comp.len, 6UL);
	KUNIT_EXPECT_EQ(test, r.comp.flags, FI_SEND | FI_MSG);
	KUNIT_EXPECT_NULL(test, r.recv);
	KUNIT_EXPECT_EQ(test, rx.calls, 0);
	KUNIT_EXPECT_EQ(test, fi_close(&ep->fid), 0);
	KUNIT_EXPECT_EQ(test, rx.calls, 1);
	KUNIT_EXPECT_EQ(test, rx.comp.err, ECANCELED);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);
	ktp_stack_close(test, &s);
}

/*
 * A queue whose size is not a power of two, started just below the wrap of
 * its 32-bit positions (kofi_eq_test_set_pos()), kept full across it: every
 * event must come back once, in order.  An unread FI_CONNREQ left across
 * the ring's end must still be released at close.
 */
#define KQ_WRAP_EQ_SIZE	5

static void ke_wrap_test(struct kunit *test)
{
	struct fid *handle = kunit_kzalloc(test, sizeof(*handle), GFP_KERNEL);
	struct fi_eq_attr attr = { .size = KQ_WRAP_EQ_SIZE };
	struct fi_eq_entry e = {}, out;
	struct fi_info *info;
	struct ktp_stack s;
	struct fid_eq *eq;
	u64 next_in = 0, next_out = 0;
	u32 event;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, handle);
	kofi_fid_init(handle, FI_CLASS_CONNREQ, &kq_connreq_ops, NULL);
	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_eq_open(s.fabric, &attr, &eq, NULL), 0);
	kofi_eq_test_set_pos(eq, U32_MAX - 1);

	for (i = 0; i < KQ_WRAP_EQ_SIZE; i++)
		KUNIT_ASSERT_EQ(test, kofi_eq_write_event(eq, FI_NOTIFY, NULL,
							  NULL, next_in++), 0);
	KUNIT_EXPECT_EQ(test, fi_eq_write(eq, FI_NOTIFY, &e, sizeof(e), 0),
			-EAGAIN);
	/* one out, one in, three times round the ring */
	for (i = 0; i < 3 * KQ_WRAP_EQ_SIZE; i++) {
		KUNIT_ASSERT_EQ(test, fi_eq_read(eq, &event, &out, sizeof(out),
						 0), (ssize_t)sizeof(out));
		KUNIT_EXPECT_EQ(test, event, (u32)FI_NOTIFY);
		KUNIT_EXPECT_EQ(test, out.data, next_out++);
		KUNIT_ASSERT_EQ(test, kofi_eq_write_event(eq, FI_NOTIFY, NULL,
							  NULL, next_in++), 0);
	}
	while (next_out < next_in) {
		KUNIT_ASSERT_EQ(test, fi_eq_read(eq, &event, &out, sizeof(out),
						 0), (ssize_t)sizeof(out));
		KUNIT_EXPECT_EQ(test, out.data, next_out++);
	}
	KUNIT_EXPECT_EQ(test, fi_eq_read(eq, &event, &out, sizeof(out), 0),
			-EAGAIN);

	/* a connection request left in the queue across the ring's end */
	KUNIT_ASSERT_EQ(test, fi_close(&eq->fid), 0);
	KUNIT_ASSERT_EQ(test, fi_eq_open(s.fabric, &attr, &eq, NULL), 0);
	kofi_eq_test_set_pos(eq, U32_MAX - 1);
	info = fi_allocinfo(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	info->handle = handle;
	kq_connreq_closes = 0;
	KUNIT_ASSERT_EQ(test, kofi_eq_write_event(eq, FI_NOTIFY, NULL, NULL,
						  0), 0);
	KUNIT_ASSERT_EQ(test, kofi_eq_write_cm(eq, FI_CONNREQ, &s.fabric->fid,
					       info, NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, kofi_eq_write_event(eq, FI_NOTIFY, NULL, NULL,
						  2), 0);
	KUNIT_EXPECT_EQ(test, fi_close(&eq->fid), 0);
	KUNIT_EXPECT_EQ(test, kq_connreq_closes, 1);
	KUNIT_EXPECT_TRUE(test, kofi_fid_closed(handle));
	ktp_stack_close(test, &s);
}

/*
 * As ke_wrap_test() for the CQ: size 7, started three entries before the
 * wrap of the positions, kept full across it, read one by one and in
 * batches that span the ring's end.
 */
#define KQ_WRAP_CQ_SIZE	7

static void kc_wrap_test(struct kunit *test)
{
	struct fi_cq_attr attr = { .size = KQ_WRAP_CQ_SIZE,
				   .format = FI_CQ_FORMAT_DATA };
	struct fi_cq_data_entry c[KQ_WRAP_CQ_SIZE];
	struct fi_cq_err_entry err;
	u64 next_in = 0, next_out = 0;
	struct ktp_stack s;
	struct fid_cq *cq;
	ssize_t n;
	int i, j;

	ktp_stack_open(test, &s, false);
	KUNIT_ASSERT_EQ(test, fi_cq_open(s.domain, &attr, &cq, NULL), 0);
	kofi_cq_test_set_pos(cq, U32_MAX - 2);

	for (i = 0; i < KQ_WRAP_CQ_SIZE; i++, next_in++)
		KUNIT_ASSERT_EQ(test, kofi_cq_write(cq, (void *)(long)next_in,
						    FI_SEND, next_in, NULL,
						    next_in), 0);
	for (i = 0; i < 3 * KQ_WRAP_CQ_SIZE; i++, next_in++) {
		KUNIT_ASSERT_EQ(test, fi_cq_read(cq, c, 1), 1);
		KUNIT_EXPECT_PTR_EQ(test, c[0].op_context,
				    (void *)(long)next_out);
		KUNIT_EXPECT_EQ(test, c[0].data, next_out);
		next_out++;
		KUNIT_ASSERT_EQ(test, kofi_cq_write(cq, (void *)(long)next_in,
						    FI_SEND, next_in, NULL,
						    next_in), 0);
	}
	/* a whole ring in one read, then half of one twice */
	for (j = 0; j < 3; j++) {
		n = fi_cq_read(cq, c, j ? KQ_WRAP_CQ_SIZE / 2 :
					   KQ_WRAP_CQ_SIZE);
		KUNIT_ASSERT_EQ(test, n, (ssize_t)(j ? KQ_WRAP_CQ_SIZE / 2 :
							KQ_WRAP_CQ_SIZE));
		for (i = 0; i < n; i++, next_out++) {
			KUNIT_EXPECT_PTR_EQ(test, c[i].op_context,
					    (void *)(long)next_out);
			KUNIT_EXPECT_EQ(test, c[i].len, (size_t)next_out);
			KUNIT_EXPECT_EQ(test, c[i].data, next_out);
		}
		for (i = 0; i < n; i++, next_in++)
			KUNIT_ASSERT_EQ(test,
					kofi_cq_write(cq, (void *)(long)next_in,
						      FI_SEND, next_in, NULL,
						      next_in), 0);
	}
	/* an error entry in the middle of the ring's end */
	KUNIT_ASSERT_EQ(test, fi_cq_read(cq, c, 1), 1);
	KUNIT_EXPECT_EQ(test, c[0].data, next_out);
	next_out++;
	KUNIT_ASSERT_EQ(test, kofi_cq_write_err(cq, (void *)(long)next_in,
						FI_RECV, EIO, 0, 0, 0), 0);
	next_in++;
	while (next_out < next_in - 1) {
		KUNIT_ASSERT_EQ(test, fi_cq_read(cq, c, 1), 1);
		KUNIT_EXPECT_EQ(test, c[0].data, next_out);
		next_out++;
	}
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, c, 1), -FI_EAVAIL);
	KUNIT_ASSERT_EQ(test, fi_cq_readerr(cq, &err, 0), 1);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)(long)next_out);
	KUNIT_EXPECT_EQ(test, err.err, EIO);
	KUNIT_EXPECT_EQ(test, fi_cq_read(cq, c, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fi_close(&cq->fid), 0);
	ktp_stack_close(test, &s);
}

static struct kunit_case kofi_eq_cases[] = {
	KUNIT_CASE(ke_open_test),
	KUNIT_CASE(ke_write_read_test),
	KUNIT_CASE(ke_error_test),
	KUNIT_CASE(ke_overrun_test),
	KUNIT_CASE(ke_cm_entry_test),
	KUNIT_CASE(ke_cm_data_test),
	KUNIT_CASE(ke_connreq_release_test),
	KUNIT_CASE(ke_sread_timeout_test),
	KUNIT_CASE(ke_sread_wake_test),
	KUNIT_CASE(ke_handler_test),
	KUNIT_CASE(ke_wrap_test),
	{}
};

struct kunit_suite kofi_eq_suite = {
	.name = "kofi_eq",
	.suite_init = kq_suite_init,
	.suite_exit = kq_suite_exit,
	.test_cases = kofi_eq_cases,
};

static struct kunit_case kofi_cq_cases[] = {
	KUNIT_CASE(kc_open_test),
	KUNIT_CASE(kc_formats_test),
	KUNIT_CASE(kc_batch_test),
	KUNIT_CASE(kc_error_test),
	KUNIT_CASE(kc_comp_test),
	KUNIT_CASE(kc_overrun_test),
	KUNIT_CASE(kc_sread_timeout_test),
	KUNIT_CASE(kc_signal_test),
	KUNIT_CASE(kc_sread_wake_test),
	KUNIT_CASE(kc_threshold_test),
	KUNIT_CASE(kc_progress_test),
	KUNIT_CASE(kc_atomic_test),
	KUNIT_CASE(kc_wrap_test),
	KUNIT_CASE(kc_cb_open_test),
	KUNIT_CASE(kc_cb_write_test),
	KUNIT_CASE(kc_cb_flush_test),
	KUNIT_CASE(kc_cb_repost_test),
	{}
};

struct kunit_suite kofi_cq_suite = {
	.name = "kofi_cq",
	.suite_init = kq_suite_init,
	.suite_exit = kq_suite_exit,
	.test_cases = kofi_cq_cases,
};
