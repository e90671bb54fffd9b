// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the ib_verbs provider's logic that needs no device - queue
 * credit accounting, rdma_cm event and work completion mapping, what
 * events do to a pending connection request and to a QP, the CM
 * data format, the page layout of FRWR regions.  Everything tested is a
 * static inline of providers/ib_verbs/ibv_logic.h, so this suite uses no
 * symbol of kofi_ib_verbs.ko.
 */
#include <kunit/test.h>
#include "../providers/ib_verbs/ibv_logic.h"

static void ibvt_credit_test(struct kunit *test)
{
	struct ibv_credit c;
	unsigned int i;

	ibv_credit_init(&c, 4);
	KUNIT_EXPECT_TRUE(test, ibv_credit_idle(&c));
	/* A credit already returned cannot be returned again. */
	KUNIT_EXPECT_FALSE(test, ibv_credit_put(&c, 1));
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_TRUE(test, ibv_credit_take(&c, 1));
	/* Full: the fifth post is refused and nothing changes. */
	KUNIT_EXPECT_FALSE(test, ibv_credit_take(&c, 1));
	KUNIT_EXPECT_EQ(test, c.avail, 0U);
	KUNIT_EXPECT_FALSE(test, ibv_credit_idle(&c));
	KUNIT_EXPECT_TRUE(test, ibv_credit_put(&c, 1));
	KUNIT_EXPECT_TRUE(test, ibv_credit_take(&c, 1));
	KUNIT_EXPECT_FALSE(test, ibv_credit_take(&c, 1));
	/* Taking several is all or nothing. */
	KUNIT_EXPECT_TRUE(test, ibv_credit_put(&c, 3));
	KUNIT_EXPECT_FALSE(test, ibv_credit_take(&c, 4));
	KUNIT_EXPECT_EQ(test, c.avail, 3U);
	KUNIT_EXPECT_TRUE(test, ibv_credit_take(&c, 3));
	KUNIT_EXPECT_FALSE(test, ibv_credit_put(&c, 5));
	KUNIT_EXPECT_TRUE(test, ibv_credit_put(&c, 4));
	KUNIT_EXPECT_TRUE(test, ibv_credit_idle(&c));
}

static void ibvt_cm_errno_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ibv_cm_errno(RDMA_CM_EVENT_REJECTED, 28),
			-ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, ibv_cm_errno(RDMA_CM_EVENT_UNREACHABLE,
					   -ETIMEDOUT), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, ibv_cm_errno(RDMA_CM_EVENT_UNREACHABLE, 0),
			-EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, ibv_cm_errno(RDMA_CM_EVENT_ADDR_ERROR,
					   -ENETUNREACH), -ENETUNREACH);
	/* A status that is no errno gets the event's default. */
	KUNIT_EXPECT_EQ(test, ibv_cm_errno(RDMA_CM_EVENT_ADDR_ERROR, 5),
			-EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, ibv_cm_errno(RDMA_CM_EVENT_ADDR_ERROR, -100000),
			-EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, ibv_cm_errno(RDMA_CM_EVENT_ROUTE_ERROR, 0),
			-ENETUNREACH);
	KUNIT_EXPECT_EQ(test, ibv_cm_errno(RDMA_CM_EVENT_CONNECT_ERROR, 0),
			-ECONNRESET);
	KUNIT_EXPECT_EQ(test, ibv_cm_errno(RDMA_CM_EVENT_DISCONNECTED, 0),
			-ECONNRESET);
	KUNIT_EXPECT_EQ(test, ibv_cm_errno(RDMA_CM_EVENT_DEVICE_REMOVAL, 0),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, ibv_cm_errno(RDMA_CM_EVENT_ADDR_CHANGE, 0),
			-EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, ibv_cm_errno(RDMA_CM_EVENT_ESTABLISHED, 0),
			-EIO);
}

static void ibvt_connreq_errno_test(struct kunit *test)
{
	static const enum rdma_cm_event_type keep[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED,
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_CONNECT_RESPONSE,
		RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_TIMEWAIT_EXIT,
		RDMA_CM_EVENT_MULTICAST_JOIN, RDMA_CM_EVENT_MULTICAST_ERROR,
	};
	unsigned int i;

	/* The device going away, apart from everything the peer does. */
	KUNIT_EXPECT_EQ(test, ibv_connreq_errno(RDMA_CM_EVENT_DEVICE_REMOVAL),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, ibv_connreq_errno(RDMA_CM_EVENT_REJECTED),
			-ECONNABORTED);
	KUNIT_EXPECT_EQ(test, ibv_connreq_errno(RDMA_CM_EVENT_DISCONNECTED),
			-ECONNABORTED);
	KUNIT_EXPECT_EQ(test, ibv_connreq_errno(RDMA_CM_EVENT_CONNECT_ERROR),
			-ECONNABORTED);
	KUNIT_EXPECT_EQ(test, ibv_connreq_errno(RDMA_CM_EVENT_UNREACHABLE),
			-ECONNABORTED);
	KUNIT_EXPECT_EQ(test, ibv_connreq_errno(RDMA_CM_EVENT_ADDR_CHANGE),
			-ECONNABORTED);
	/* Events that cannot end a request leave it valid. */
	for (i = 0; i < ARRAY_SIZE(keep); i++)
		KUNIT_EXPECT_EQ(test, ibv_connreq_errno(keep[i]), 0);
}

static void ibvt_qp_action_test(struct kunit *test)
{
	static const enum ib_event_type fail[] = {
		IB_EVENT_QP_FATAL, IB_EVENT_QP_REQ_ERR, IB_EVENT_QP_ACCESS_ERR,
	};
	static const enum ib_event_type ignore[] = {
		IB_EVENT_SQ_DRAINED, IB_EVENT_PATH_MIG, IB_EVENT_PATH_MIG_ERR,
		IB_EVENT_QP_LAST_WQE_REACHED, IB_EVENT_CQ_ERR,
		IB_EVENT_PORT_ERR, IB_EVENT_DEVICE_FATAL,
	};
	unsigned int i;

	KUNIT_EXPECT_EQ(test, ibv_qp_action(IB_EVENT_COMM_EST), IBV_QP_NOTIFY);
	KUNIT_EXPECT_EQ(test, ibv_qp_errno(IB_EVENT_COMM_EST), 0);
	for (i = 0; i < ARRAY_SIZE(fail); i++) {
		/* Never 0: ibv_qp_event() keeps the first in an atomic_t. */
		KUNIT_EXPECT_NE(test, (int)fail[i], 0);
		KUNIT_EXPECT_EQ(test, ibv_qp_action(fail[i]), IBV_QP_FAIL);
		KUNIT_EXPECT_EQ(test, ibv_qp_errno(fail[i]), -EIO);
	}
	for (i = 0; i < ARRAY_SIZE(ignore); i++) {
		KUNIT_EXPECT_EQ(test, ibv_qp_action(ignore[i]), IBV_QP_IGNORE);
		KUNIT_EXPECT_EQ(test, ibv_qp_errno(ignore[i]), 0);
	}
}

static void ibvt_wc_errno_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ibv_wc_errno(IB_WC_SUCCESS), 0);
	KUNIT_EXPECT_EQ(test, ibv_wc_errno(IB_WC_WR_FLUSH_ERR), -ECANCELED);
	KUNIT_EXPECT_EQ(test, ibv_wc_errno(IB_WC_LOC_LEN_ERR), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, ibv_wc_errno(IB_WC_REM_ACCESS_ERR), -EACCES);
	KUNIT_EXPECT_EQ(test, ibv_wc_errno(IB_WC_LOC_PROT_ERR), -EACCES);
	KUNIT_EXPECT_EQ(test, ibv_wc_errno(IB_WC_REM_INV_REQ_ERR),
			-EREMOTEIO);
	KUNIT_EXPECT_EQ(test, ibv_wc_errno(IB_WC_RETRY_EXC_ERR), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, ibv_wc_errno(IB_WC_RNR_RETRY_EXC_ERR),
			-ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, ibv_wc_errno(IB_WC_REM_ABORT_ERR), -ECONNRESET);
	KUNIT_EXPECT_EQ(test, ibv_wc_errno(IB_WC_FATAL_ERR), -EIO);
	KUNIT_EXPECT_EQ(test, ibv_wc_errno(IB_WC_GENERAL_ERR), -EIO);
}

static void ibvt_cm_data_test(struct kunit *test)
{
	u8 buf[IBV_CM_HDR_SIZE + IBV_CM_DATA_MAX + 8];
	u8 data[IBV_CM_DATA_MAX + 1];
	u8 padded[56] = {};
	const u8 *p;
	size_t len;
	unsigned int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = i + 1;
	/* No data: the size byte alone, as fi_pingpong sends. */
	KUNIT_EXPECT_EQ(test, ibv_cm_data_pack(buf, NULL, 0), 1);
	KUNIT_EXPECT_EQ(test, buf[0], 0);
	KUNIT_EXPECT_EQ(test, ibv_cm_data_pack(buf, data, 3), 4);
	KUNIT_EXPECT_EQ(test, buf[0], 3);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 1, data, 3), 0);
	KUNIT_EXPECT_EQ(test, ibv_cm_data_pack(buf, data, IBV_CM_DATA_MAX),
			IBV_CM_DATA_MAX + 1);
	KUNIT_EXPECT_EQ(test, ibv_cm_data_pack(buf, data, IBV_CM_DATA_MAX + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ibv_cm_data_pack(buf, NULL, 2), -EINVAL);

	/* Received data is padded by the transport (56 bytes for a REQ). */
	memcpy(padded, buf, IBV_CM_DATA_MAX + 1);
	p = ibv_cm_data_unpack(padded, sizeof(padded), &len);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, len, (size_t)IBV_CM_DATA_MAX);
	KUNIT_EXPECT_EQ(test, memcmp(p, data, len), 0);

	padded[0] = 0;	/* an rping peer: zeros */
	KUNIT_EXPECT_NULL(test, ibv_cm_data_unpack(padded, sizeof(padded),
						   &len));
	KUNIT_EXPECT_EQ(test, len, 0);
	KUNIT_EXPECT_NULL(test, ibv_cm_data_unpack(NULL, 10, &len));
	KUNIT_EXPECT_NULL(test, ibv_cm_data_unpack(padded, 0, &len));
	/* A size byte beyond what arrived, or beyond the maximum: no data. */
	padded[0] = 10;
	KUNIT_EXPECT_NULL(test, ibv_cm_data_unpack(padded, 10, &len));
	KUNIT_EXPECT_EQ(test, len, 0);
	KUNIT_EXPECT_NOT_NULL(test, ibv_cm_data_unpack(padded, 11, &len));
	KUNIT_EXPECT_EQ(test, len, 10);
	padded[0] = IBV_CM_DATA_MAX + 1;
	KUNIT_EXPECT_NULL(test, ibv_cm_data_unpack(padded, sizeof(padded),
						   &len));
}

static void ibvt_cm_raw_test(struct kunit *test)
{
	u8 data[IBV_CM_RAW_REP_MAX + 1], buf[IBV_CM_RAW_REP_MAX + 1];
	const void *p;
	size_t len;
	int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = i + 1;
	/* Raw: the bytes as given, no size byte, up to the message's limit. */
	KUNIT_EXPECT_EQ(test, ibv_cm_data_build(buf, data, 40, true,
						IBV_CM_RAW_REQ_MAX), 40);
	KUNIT_EXPECT_EQ(test, memcmp(buf, data, 40), 0);
	KUNIT_EXPECT_EQ(test, ibv_cm_data_build(buf, data, IBV_CM_RAW_REQ_MAX,
						true, IBV_CM_RAW_REQ_MAX),
			IBV_CM_RAW_REQ_MAX);
	KUNIT_EXPECT_EQ(test, ibv_cm_data_build(buf, data,
						IBV_CM_RAW_REQ_MAX + 1, true,
						IBV_CM_RAW_REQ_MAX), -EINVAL);
	KUNIT_EXPECT_EQ(test, ibv_cm_data_build(buf, data, IBV_CM_RAW_REP_MAX,
						true, IBV_CM_RAW_REP_MAX),
			IBV_CM_RAW_REP_MAX);
	KUNIT_EXPECT_EQ(test, ibv_cm_data_build(buf, data, IBV_CM_RAW_REJ_MAX + 1,
						true, IBV_CM_RAW_REJ_MAX), -EINVAL);
	KUNIT_EXPECT_EQ(test, ibv_cm_data_build(buf, NULL, 0, true,
						IBV_CM_RAW_REQ_MAX), 0);
	KUNIT_EXPECT_EQ(test, ibv_cm_data_build(buf, NULL, 1, true,
						IBV_CM_RAW_REQ_MAX), -EINVAL);
	/* Not raw: libfabric's format, whatever the raw limit. */
	KUNIT_EXPECT_EQ(test, ibv_cm_data_build(buf, data, 40, false,
						IBV_CM_RAW_REP_MAX), 41);
	KUNIT_EXPECT_EQ(test, buf[0], 40);
	KUNIT_EXPECT_EQ(test, ibv_cm_data_build(buf, data, 56, false,
						IBV_CM_RAW_REP_MAX), -EINVAL);

	/* Raw receive: every byte delivered, padding included. */
	p = ibv_cm_data_get(data, 56, true, 256, &len);
	KUNIT_EXPECT_PTR_EQ(test, p, (const void *)data);
	KUNIT_EXPECT_EQ(test, len, 56);
	p = ibv_cm_data_get(data, IBV_CM_RAW_REP_MAX, true, 100, &len);
	KUNIT_EXPECT_EQ(test, len, 100);
	KUNIT_EXPECT_NULL(test, ibv_cm_data_get(NULL, 56, true, 256, &len));
	KUNIT_EXPECT_EQ(test, len, 0);
	KUNIT_EXPECT_NULL(test, ibv_cm_data_get(data, 0, true, 256, &len));
	/* Not raw: the size byte decides (data[0] is 1). */
	p = ibv_cm_data_get(data, 56, false, 256, &len);
	KUNIT_EXPECT_PTR_EQ(test, p, (const void *)(data + 1));
	KUNIT_EXPECT_EQ(test, len, 1);
}

static void ibvt_imm_test(struct kunit *test)
{
	__be32 imm = ibv_imm_data(0xe0000001);
	const u8 *b = (const u8 *)&imm;

	/* Network byte order on the wire: what be32toh() at the peer reads. */
	KUNIT_EXPECT_EQ(test, b[0], 0xe0);
	KUNIT_EXPECT_EQ(test, b[1], 0x00);
	KUNIT_EXPECT_EQ(test, b[2], 0x00);
	KUNIT_EXPECT_EQ(test, b[3], 0x01);
	imm = ibv_imm_data(0x11223344);
	KUNIT_EXPECT_EQ(test, b[0], 0x11);
	KUNIT_EXPECT_EQ(test, b[3], 0x44);
	/* cq_data_size 4: the upper half of a 64-bit value is not sent. */
	KUNIT_EXPECT_EQ(test, be32_to_cpu(ibv_imm_data(0x1234567811223344ULL)),
			0x11223344U);
}

static void ibvt_mr_pages_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ibv_mr_pages(0x1000, 0, 4096), 0UL);
	KUNIT_EXPECT_EQ(test, ibv_mr_pages(0x1000, 1, 4096), 1UL);
	KUNIT_EXPECT_EQ(test, ibv_mr_pages(0x1000, 4096, 4096), 1UL);
	KUNIT_EXPECT_EQ(test, ibv_mr_pages(0x1000, 4097, 4096), 2UL);
	KUNIT_EXPECT_EQ(test, ibv_mr_pages(0x1fff, 2, 4096), 2UL);
	KUNIT_EXPECT_EQ(test, ibv_mr_pages(0x10, 8192, 4096), 3UL);
	KUNIT_EXPECT_EQ(test, ibv_mr_pages(0x10, 65536, 65536), 2UL);

	/* One segment: anything non-empty. */
	KUNIT_EXPECT_TRUE(test, ibv_mr_vec_ok(0, 1, 0x123, 10, 4096));
	KUNIT_EXPECT_FALSE(test, ibv_mr_vec_ok(0, 1, 0x123, 0, 4096));
	/* First of several: may start anywhere, must end on a page. */
	KUNIT_EXPECT_TRUE(test, ibv_mr_vec_ok(0, 3, 0x1100, 0xf00, 4096));
	KUNIT_EXPECT_FALSE(test, ibv_mr_vec_ok(0, 3, 0x1100, 0xe00, 4096));
	/* Middle: page aligned at both ends. */
	KUNIT_EXPECT_TRUE(test, ibv_mr_vec_ok(1, 3, 0x5000, 0x2000, 4096));
	KUNIT_EXPECT_FALSE(test, ibv_mr_vec_ok(1, 3, 0x5010, 0x2000, 4096));
	KUNIT_EXPECT_FALSE(test, ibv_mr_vec_ok(1, 3, 0x5000, 0x2010, 4096));
	/* Last: starts on a page, ends anywhere. */
	KUNIT_EXPECT_TRUE(test, ibv_mr_vec_ok(2, 3, 0x9000, 0x10, 4096));
	KUNIT_EXPECT_FALSE(test, ibv_mr_vec_ok(2, 3, 0x9008, 0x10, 4096));
}

static struct kunit_case ibvt_cases[] = {
	KUNIT_CASE(ibvt_credit_test),
	KUNIT_CASE(ibvt_cm_errno_test),
	KUNIT_CASE(ibvt_connreq_errno_test),
	KUNIT_CASE(ibvt_qp_action_test),
	KUNIT_CASE(ibvt_wc_errno_test),
	KUNIT_CASE(ibvt_cm_data_test),
	KUNIT_CASE(ibvt_cm_raw_test),
	KUNIT_CASE(ibvt_imm_test),
	KUNIT_CASE(ibvt_mr_pages_test),
	{}
};

static struct kunit_suite ibvt_suite = {
	.name = "kofi_ib_verbs_logic",
	.test_cases = ibvt_cases,
};

kunit_test_suite(ibvt_suite);

MODULE_DESCRIPTION("KUnit tests of the kOFI ib_verbs provider's logic");
MODULE_LICENSE("Dual BSD/GPL");
