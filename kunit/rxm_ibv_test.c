// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: rxm over ib_verbs, the parts that need no device - rxm's CM data
 * inside libfabric verbs' connection data (one size byte, then the data,
 * as ib_verbs builds and parses it: providers/ib_verbs/ibv_logic.h) byte
 * for byte as libfabric's verbs;ofi_rxm sends it, and the limits of an
 * rxm info over a core that registers memory by its pages
 * (kofi/rdm/rxm_proto.h).  Everything tested is a static inline:
 * this suite needs no module.
 */
#include <kunit/test.h>
#include "../providers/ib_verbs/ibv_logic.h"
#include "../kofi/rdm/rxm_proto.h"

/* The connection request in rdma_cm's private data: 24, then the 24 bytes. */
static void rxmit_cm_req_test(struct kunit *test)
{
	/* port 7471, flow control off, rx_size 256, conn_id 7 */
	static const u8 wire[25] = {
		24,
		1, 2, 4, 3, 0x2f, 0x1d, 2, 0,
		0x00, 0x40, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
		7, 0, 0, 0, 0, 0, 0, 0,
	};
	u8 priv[IBV_CM_RAW_REQ_MAX] = {};
	struct rxm_cm_req req;
	const void *data;
	size_t len;

	rxm_cm_req_fill(&req, 7471, RXM_FLOW_CTRL_OFF, 256, 7);
	KUNIT_EXPECT_LE(test, sizeof(req), (size_t)IBV_CM_DATA_MAX);
	KUNIT_EXPECT_EQ(test, ibv_cm_data_pack(priv, &req, sizeof(req)),
			(int)sizeof(wire));
	KUNIT_EXPECT_MEMEQ(test, priv, wire, sizeof(wire));
	/* as it arrives: the IB CM's 56 bytes, zero padded */
	data = ibv_cm_data_unpack(priv, sizeof(priv), &len);
	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_EXPECT_EQ(test, len, sizeof(req));
	KUNIT_EXPECT_EQ(test, rxm_cm_req_check(data, len), 0);
	/* libfabric's request says "peer on": taken, and answered off */
	priv[1 + 6] = RXM_FLOW_CTRL_ON;
	data = ibv_cm_data_unpack(priv, sizeof(priv), &len);
	KUNIT_EXPECT_EQ(test, rxm_cm_req_check(data, len), 0);
	/* a size byte that promises more than arrived: no data at all */
	priv[0] = 57;
	KUNIT_EXPECT_NULL(test, ibv_cm_data_unpack(priv, sizeof(priv), &len));
	KUNIT_EXPECT_EQ(test, len, 0);
	KUNIT_EXPECT_EQ(test, rxm_cm_req_check(NULL, 0), -EPROTO);
	/* a request cut short by its size byte */
	priv[0] = 23;
	data = ibv_cm_data_unpack(priv, sizeof(priv), &len);
	KUNIT_EXPECT_EQ(test, rxm_cm_req_check(data, len), -EPROTO);
}

/* The accept (16 bytes) and the reject (2) behind the size byte. */
static void rxmit_cm_accept_reject_test(struct kunit *test)
{
	static const u8 acc_wire[17] = {
		16,
		0x2a, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x01, 0x00, 0x00, RXM_FLOW_CTRL_OFF, 0, 0, 0,
	};
	static const u8 rej_wire[3] = { 2, 1, RXM_REJECT_ALREADY };
	struct rxm_cm_accept acc = {
		.conn_id = cpu_to_le64(42),
		.rx_size = cpu_to_le32(256),
		.flow_ctrl = RXM_FLOW_CTRL_OFF,
	};
	struct rxm_cm_reject rej = {
		.version = RXM_CM_VERSION,
		.reason = RXM_REJECT_ALREADY,
	};
	u8 priv[IBV_CM_RAW_REP_MAX] = {};
	const void *data;
	size_t len;

	KUNIT_EXPECT_EQ(test, ibv_cm_data_pack(priv, &acc, sizeof(acc)),
			(int)sizeof(acc_wire));
	KUNIT_EXPECT_MEMEQ(test, priv, acc_wire, sizeof(acc_wire));
	data = ibv_cm_data_unpack(priv, sizeof(priv), &len);
	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_EXPECT_EQ(test, len, sizeof(acc));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(((const struct rxm_cm_accept *)
					   data)->conn_id), 42);

	memset(priv, 0, sizeof(priv));
	KUNIT_EXPECT_EQ(test, ibv_cm_data_pack(priv, &rej, sizeof(rej)),
			(int)sizeof(rej_wire));
	KUNIT_EXPECT_MEMEQ(test, priv, rej_wire, sizeof(rej_wire));
	/* a REJ's private data arrives as 148 bytes, zero padded */
	data = ibv_cm_data_unpack(priv, IBV_CM_RAW_REJ_MAX, &len);
	KUNIT_EXPECT_EQ(test, rxm_cm_reject_reason(data, len),
			RXM_REJECT_ALREADY);
	/* a reject without data (the core's own): not rxm's */
	memset(priv, 0, sizeof(priv));
	data = ibv_cm_data_unpack(priv, IBV_CM_RAW_REJ_MAX, &len);
	KUNIT_EXPECT_EQ(test, rxm_cm_reject_reason(data, len), -EPROTO);
}

/* The limits of an rxm info over its core. */
static void rxmit_limits_test(struct kunit *test)
{
	/* ib_verbs on rxe: 2 GiB messages, pages registered: 4 MiB */
	KUNIT_EXPECT_EQ(test, rxm_max_msg_size(1ULL << 31, true, true),
			(u64)SZ_4M);
	/* ksocket: up to 1 GiB */
	KUNIT_EXPECT_EQ(test, rxm_max_msg_size(1ULL << 31, true, false),
			(u64)SZ_1G);
	KUNIT_EXPECT_EQ(test, rxm_max_msg_size(SZ_64K, true, true),
			(u64)SZ_64K);
	/* without RMA: eager only, whatever the core takes */
	KUNIT_EXPECT_EQ(test, rxm_max_msg_size(1ULL << 31, false, true),
			(u64)RXM_EAGER_LIMIT);
	KUNIT_EXPECT_EQ(test, rxm_max_msg_size(100, true, false),
			(u64)RXM_EAGER_LIMIT);
	/* 1 MiB at the worst alignment: 257 pages, one page list of rxe */
	KUNIT_EXPECT_EQ(test, ibv_mr_pages(PAGE_SIZE - 1, RXM_REG_CHUNK,
					   PAGE_SIZE),
			RXM_REG_CHUNK / PAGE_SIZE + 1);

	/* remote CQ data: an RDMA write's immediate on ib_verbs */
	KUNIT_EXPECT_EQ(test, rxm_cq_data_size(4, true), 4);
	KUNIT_EXPECT_EQ(test, rxm_cq_data_size(8, true), 8);
	KUNIT_EXPECT_EQ(test, rxm_cq_data_size(16, true), 8);
	KUNIT_EXPECT_EQ(test, rxm_cq_data_size(0, false), 8);

	/* no SEND to a libfabric rxm over verbs above its 16448 bytes */
	KUNIT_EXPECT_EQ(test, RXM_PKT_MAX, 16448);

	/* reads: all segments at once, or one per segment (ib_verbs) */
	KUNIT_EXPECT_EQ(test, rxm_rd_per_read(4, 4), 4U);
	KUNIT_EXPECT_EQ(test, rxm_rd_per_read(3, 16), 3U);
	KUNIT_EXPECT_EQ(test, rxm_rd_per_read(1, 1), 1U);
	KUNIT_EXPECT_EQ(test, rxm_rd_per_read(4, 1), 1U);
	KUNIT_EXPECT_EQ(test, rxm_rd_per_read(4, 2), 1U);
}

/* A rendezvous's registrations over a core that registers pages. */
static void rxmit_pieces_test(struct kunit *test)
{
	struct kvec kv[4] = {
		{ .iov_len = SZ_4M },
		{ .iov_len = 0 },
		{ .iov_len = 1 },
	};

	/* 4 MiB in one entry: 4 pieces, the most a request carries */
	KUNIT_EXPECT_EQ(test, rxm_rndv_pieces(kv, 1, RXM_REG_CHUNK), 4U);
	KUNIT_EXPECT_EQ(test, rxm_rndv_pieces(kv, 1, RXM_REG_CHUNK),
			(unsigned int)RXM_RNDV_IOV_MAX);
	/* empty entries take none, a byte one */
	KUNIT_EXPECT_EQ(test, rxm_rndv_pieces(kv, 3, RXM_REG_CHUNK), 5U);
	KUNIT_EXPECT_EQ(test, rxm_rndv_pieces(&kv[1], 1, RXM_REG_CHUNK), 0U);
	/* each entry from its start: 2 x (1 MiB + 1) take 4 */
	kv[0].iov_len = SZ_1M + 1;
	kv[1].iov_len = SZ_1M + 1;
	KUNIT_EXPECT_EQ(test, rxm_rndv_pieces(kv, 2, RXM_REG_CHUNK), 4U);
	kv[0].iov_len = SZ_1M;
	KUNIT_EXPECT_EQ(test, rxm_rndv_pieces(kv, 2, RXM_REG_CHUNK), 3U);
	/* without page registration (ksocket): one per entry */
	kv[3].iov_len = SZ_1G;
	KUNIT_EXPECT_EQ(test, rxm_rndv_pieces(kv, 4, SIZE_MAX), 4U);
}

static struct kunit_case rxm_ibv_cases[] = {
	KUNIT_CASE(rxmit_cm_req_test),
	KUNIT_CASE(rxmit_cm_accept_reject_test),
	KUNIT_CASE(rxmit_limits_test),
	KUNIT_CASE(rxmit_pieces_test),
	{}
};

static struct kunit_suite rxm_ibv_suite = {
	.name = "rxm_ib_verbs",
	.test_cases = rxm_ibv_cases,
};

kunit_test_suite(rxm_ibv_suite);

MODULE_DESCRIPTION("KUnit tests of rxm over ib_verbs: CM data and limits");
MODULE_LICENSE("Dual BSD/GPL");
