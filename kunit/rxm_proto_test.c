// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: rxm's wire format (kofi/rdm/rxm_proto.h) - the CM data of
 * a connection request byte for byte as libfabric 1.17's ofi_rxm sends
 * it, the checks of a peer's request, reject and packet headers
 * (malformed ones refused), net's CM data, and the name order of
 * simultaneous connects.
 * Everything tested is a static inline: this suite needs no module.
 */
#include <kunit/test.h>
#include <kofi/sockaddr.h>
#include "../kofi/rdm/rxm_proto.h"

static void rxmt_cm_req_test(struct kunit *test)
{
	/* port 7471, flow control off, rx_size 256, conn_id 0x1234 << 32 */
	static const u8 wire[24] = {
		1, 2, 4, 3, 0x2f, 0x1d, 2, 0,
		0x00, 0x40, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x34, 0x12, 0x00, 0x00,
	};
	struct rxm_cm_req req;
	u8 bad[24];
	int i;

	rxm_cm_req_fill(&req, 7471, RXM_FLOW_CTRL_OFF, 256,
			0x1234ULL << 32);
	KUNIT_EXPECT_MEMEQ(test, &req, wire, sizeof(wire));
	KUNIT_EXPECT_EQ(test, rxm_cm_req_check(wire, sizeof(wire)), 0);
	/* longer CM data (a transport's padding) is fine */
	KUNIT_EXPECT_EQ(test, rxm_cm_req_check(&req, sizeof(req)), 0);
	KUNIT_EXPECT_EQ(test, rxm_cm_req_check(wire, 23), -EPROTO);
	KUNIT_EXPECT_EQ(test, rxm_cm_req_check(NULL, 24), -EPROTO);
	/* each of version, byte order, ctrl and op version, eager limit */
	for (i = 0; i < 4; i++) {
		memcpy(bad, wire, sizeof(bad));
		bad[i]++;
		KUNIT_EXPECT_EQ(test, rxm_cm_req_check(bad, sizeof(bad)),
				-EPROTONOSUPPORT);
	}
	memcpy(bad, wire, sizeof(bad));
	bad[9] = 0x80;		/* eager limit 32768 */
	KUNIT_EXPECT_EQ(test, rxm_cm_req_check(bad, sizeof(bad)),
			-EPROTONOSUPPORT);
	/* flow control and rx_size are the requester's business */
	memcpy(bad, wire, sizeof(bad));
	bad[6] = RXM_FLOW_CTRL_ON;
	bad[12] = 0x80;
	KUNIT_EXPECT_EQ(test, rxm_cm_req_check(bad, sizeof(bad)), 0);
}

static void rxmt_cm_reject_test(struct kunit *test)
{
	static const u8 already[2] = { 1, 2 };
	static const u8 other[2] = { 2, 1 };

	KUNIT_EXPECT_EQ(test, rxm_cm_reject_reason(already, 2),
			RXM_REJECT_ALREADY);
	KUNIT_EXPECT_EQ(test, rxm_cm_reject_reason(already, 1), -EPROTO);
	KUNIT_EXPECT_EQ(test, rxm_cm_reject_reason(other, 2), -EPROTO);
	KUNIT_EXPECT_EQ(test, rxm_cm_reject_reason(NULL, 0), -EPROTO);
}

/* net's CM data: as libfabric's net sends it, and the checks of a peer's. */
static void rxmt_net_cm_test(struct kunit *test)
{
	/* version 0, port 7471, pid 0x01020304: big-endian */
	static const u8 wire[8] = { 0, 0, 0x1d, 0x2f, 1, 2, 3, 4 };
	struct rxm_cm_req req;
	struct rxm_net_cm cm;
	u8 bad[8];

	rxm_net_cm_fill(&cm, 7471, 0x01020304);
	KUNIT_EXPECT_MEMEQ(test, &cm, wire, sizeof(wire));
	KUNIT_EXPECT_EQ(test, rxm_net_cm_check(wire, sizeof(wire)), 0);
	KUNIT_EXPECT_EQ(test, rxm_net_cm_check(wire, 7), -EPROTO);
	KUNIT_EXPECT_EQ(test, rxm_net_cm_check(NULL, 8), -EPROTO);
	memcpy(bad, wire, sizeof(bad));
	bad[0] = 1;
	KUNIT_EXPECT_EQ(test, rxm_net_cm_check(bad, sizeof(bad)),
			-EPROTONOSUPPORT);
	/* an rxm request is no net CM data */
	rxm_cm_req_fill(&req, 7471, RXM_FLOW_CTRL_OFF, 256, 1);
	KUNIT_EXPECT_EQ(test, rxm_net_cm_check(&req, sizeof(req)),
			-EPROTONOSUPPORT);
}

/*
 * The order of names that decides a simultaneous connect, and sameness
 * (kofi_sockaddr_cmp(), kofi_sockaddr_equal()), IPv4 and IPv6.
 */
static void rxmt_name_cmp_test(struct kunit *test)
{
	union kofi_sockaddr a = { .in = { .sin_family = AF_INET,
			.sin_addr.s_addr = htonl(0xc0000201),
			.sin_port = htons(7471) } };
	union kofi_sockaddr b = a;

	KUNIT_EXPECT_EQ(test, kofi_sockaddr_cmp(&a, &b), 0);
	KUNIT_EXPECT_TRUE(test, kofi_sockaddr_equal(&a, &b));
	/* the address counts first, big-endian: 192.0.2.1 < 192.0.2.2 */
	b.in.sin_addr.s_addr = htonl(0xc0000202);
	b.in.sin_port = htons(1);
	KUNIT_EXPECT_LT(test, kofi_sockaddr_cmp(&a, &b), 0);
	KUNIT_EXPECT_GT(test, kofi_sockaddr_cmp(&b, &a), 0);
	KUNIT_EXPECT_FALSE(test, kofi_sockaddr_equal(&a, &b));
	/* then the port: 256 > 1, although its first byte is lower */
	b = a;
	a.in.sin_port = htons(256);
	b.in.sin_port = htons(1);
	KUNIT_EXPECT_GT(test, kofi_sockaddr_cmp(&a, &b), 0);
	KUNIT_EXPECT_FALSE(test, kofi_sockaddr_equal(&a, &b));
	/* sin_zero does not count */
	b = a;
	b.in.sin_zero[3] = 1;
	KUNIT_EXPECT_TRUE(test, kofi_sockaddr_equal(&a, &b));

	/* IPv6: fd00::2 > fd00::1 whatever the ports; then the port */
	memset(&a, 0, sizeof(a));
	a.in6.sin6_family = AF_INET6;
	a.in6.sin6_addr.s6_addr[0] = 0xfd;
	a.in6.sin6_addr.s6_addr[15] = 1;
	a.in6.sin6_port = htons(9000);
	b = a;
	b.in6.sin6_addr.s6_addr[15] = 2;
	b.in6.sin6_port = htons(1);
	KUNIT_EXPECT_LT(test, kofi_sockaddr_cmp(&a, &b), 0);
	KUNIT_EXPECT_GT(test, kofi_sockaddr_cmp(&b, &a), 0);
	b = a;
	b.in6.sin6_port = htons(9001);
	KUNIT_EXPECT_LT(test, kofi_sockaddr_cmp(&a, &b), 0);
	KUNIT_EXPECT_EQ(test, kofi_sockaddr_port(&b), 9001);
	kofi_sockaddr_set_port(&b, 9000);
	KUNIT_EXPECT_EQ(test, kofi_sockaddr_cmp(&a, &b), 0);
	/* the flow label does not count, the scope id does */
	b.in6.sin6_flowinfo = htonl(5);
	KUNIT_EXPECT_TRUE(test, kofi_sockaddr_equal(&a, &b));
	b.in6.sin6_scope_id = 2;
	KUNIT_EXPECT_FALSE(test, kofi_sockaddr_equal(&a, &b));
	/* lengths: by family, never beyond what was given */
	KUNIT_EXPECT_EQ(test, kofi_sockaddr_len(&a.sa, sizeof(a)),
			sizeof(struct sockaddr_in6));
	KUNIT_EXPECT_EQ(test, kofi_sockaddr_len(&a.sa,
						sizeof(struct sockaddr_in)), 0);
	KUNIT_EXPECT_EQ(test, kofi_sockaddr_len(NULL, sizeof(a)), 0);
	a.sa.sa_family = AF_UNIX;
	KUNIT_EXPECT_EQ(test, kofi_sockaddr_len(&a.sa, sizeof(a)), 0);
}

/* The header's layout: each field at its offset, little-endian. */
static void rxmt_hdr_layout_test(struct kunit *test)
{
	struct rxm_hdr hdr;
	u8 *b = (u8 *)&hdr;

	rxm_hdr_fill(&hdr, RXM_EAGER, RXM_OP_TAGGED, 0x11, 0x2233, 5,
		     RXM_FLAG_CQ_DATA, 0x44, 1234);
	KUNIT_EXPECT_EQ(test, b[0], 4);
	KUNIT_EXPECT_EQ(test, b[1], RXM_EAGER);
	KUNIT_EXPECT_EQ(test, b[8], 0x11);
	KUNIT_EXPECT_EQ(test, b[16], 0x33);
	KUNIT_EXPECT_EQ(test, b[17], 0x22);
	KUNIT_EXPECT_EQ(test, b[32], 2);
	KUNIT_EXPECT_EQ(test, b[34], RXM_OP_TAGGED);
	KUNIT_EXPECT_EQ(test, b[38], 0x02);	/* 1 << 17 */
	KUNIT_EXPECT_EQ(test, b[40], 5);
	KUNIT_EXPECT_EQ(test, b[48], 0x44);
	KUNIT_EXPECT_EQ(test, b[56], 1234 & 0xff);
	KUNIT_EXPECT_EQ(test, b[57], 1234 >> 8);
}

static void rxmt_hdr_check_test(struct kunit *test)
{
	struct {
		struct rxm_hdr hdr;
		u8 payload[RXM_EAGER_LIMIT + 1];
	} *pkt;
	const size_t h = sizeof(struct rxm_hdr);

	pkt = kunit_kzalloc(test, sizeof(*pkt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);

	rxm_hdr_fill(&pkt->hdr, RXM_EAGER, RXM_OP_MSG, 1, 2, 5, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h + 5), 0);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h + 4), -EPROTO);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h - 1), -EPROTO);
	/* eager at the limit, and one byte over it */
	pkt->hdr.size = cpu_to_le64(RXM_EAGER_LIMIT);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h + RXM_EAGER_LIMIT), 0);
	pkt->hdr.size = cpu_to_le64(RXM_EAGER_LIMIT + 1);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h + RXM_EAGER_LIMIT + 1),
			-EPROTO);
	/* versions, type, operation, flags */
	rxm_hdr_fill(&pkt->hdr, RXM_EAGER, RXM_OP_MSG, 1, 2, 0, 0, 0, 0);
	pkt->hdr.ctrl_version = 3;
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h), -EPROTO);
	pkt->hdr.ctrl_version = RXM_CTRL_VERSION;
	pkt->hdr.op_version = RXM_OP_VERSION_CM;
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h), -EPROTO);
	pkt->hdr.op_version = RXM_OP_VERSION_HDR;
	pkt->hdr.type = RXM_PKT_TYPES;
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h), -EPROTO);
	pkt->hdr.type = RXM_EAGER;
	pkt->hdr.op = RXM_OP_ATOMIC;
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h), -EPROTO);
	pkt->hdr.op = RXM_OP_MSG;
	pkt->hdr.flags = cpu_to_le32(RXM_FLAG_CQ_DATA | BIT(3));
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h), -EPROTO);
	pkt->hdr.flags = cpu_to_le32(RXM_FLAG_CQ_DATA);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h), 0);
	/* a credit grant carries no message fields and no payload */
	rxm_hdr_fill(&pkt->hdr, RXM_CREDIT, 0xff, 1, 2, 0, 0, 0, 0);
	pkt->hdr.ctrl_data = cpu_to_le64(64);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h), 0);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h + 1), -EPROTO);
	/* a "read done" answer is the header alone */
	rxm_hdr_fill(&pkt->hdr, RXM_RNDV_RD_DONE, RXM_OP_MSG, 1, 2, 0, 0, 0,
		     0);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h), 0);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h + 1), -EPROTO);

	/* segments: size of all, seg_size of this one, a position */
	rxm_hdr_fill(&pkt->hdr, RXM_SEGMENT, RXM_OP_MSG, 1, 2,
		     3 * RXM_EAGER_LIMIT, 0, 0, 0);
	pkt->hdr.seg_size = cpu_to_le16(RXM_EAGER_LIMIT);
	pkt->hdr.ctrl_data = cpu_to_le64(RXM_SEG_FIRST);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h + RXM_EAGER_LIMIT), 0);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h + 100), -EPROTO);
	pkt->hdr.ctrl_data = 0;
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h + RXM_EAGER_LIMIT),
			-EPROTO);
	pkt->hdr.ctrl_data = cpu_to_le64(RXM_SEG_LAST);
	pkt->hdr.seg_no = cpu_to_le32(RXM_MAX_SEGMENTS);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h + RXM_EAGER_LIMIT),
			-EPROTO);
	pkt->hdr.seg_no = cpu_to_le32(2);
	pkt->hdr.size = cpu_to_le64((RXM_MAX_SEGMENTS + 1) * RXM_EAGER_LIMIT);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(pkt, h + RXM_EAGER_LIMIT),
			-EPROTO);
}

/* A rendezvous request: 1 to 4 segments adding up to the size. */
static void rxmt_rndv_check_test(struct kunit *test)
{
	struct {
		struct rxm_hdr hdr;
		struct rxm_rndv r;
	} pkt = {};
	const size_t len = sizeof(pkt);

	KUNIT_EXPECT_EQ(test, sizeof(pkt.r), 104);
	KUNIT_EXPECT_EQ(test, offsetof(struct rxm_rndv, count), 96);
	rxm_hdr_fill(&pkt.hdr, RXM_RNDV_REQ, RXM_OP_TAGGED, 1, 2, 100000, 0,
		     0, 5);
	KUNIT_EXPECT_EQ(test, rxm_hdr_check(&pkt, len), 0);
	pkt.r.count = 2;
	pkt.r.iov[0].len = cpu_to_le64(60000);
	pkt.r.iov[1].len = cpu_to_le64(40000);
	KUNIT_EXPECT_EQ(test, rxm_rndv_check(&pkt, len), 0);
	KUNIT_EXPECT_EQ(test, rxm_rndv_check(&pkt, len - 1), -EPROTO);
	KUNIT_EXPECT_EQ(test, rxm_rndv_check(&pkt, len + 1), -EPROTO);
	pkt.r.iov[1].len = cpu_to_le64(39999);
	KUNIT_EXPECT_EQ(test, rxm_rndv_check(&pkt, len), -EPROTO);
	/* a length that would wrap the sum */
	pkt.r.iov[1].len = cpu_to_le64(U64_MAX - 59999);
	KUNIT_EXPECT_EQ(test, rxm_rndv_check(&pkt, len), -EPROTO);
	pkt.r.iov[1].len = cpu_to_le64(40000);
	pkt.r.count = 0;
	KUNIT_EXPECT_EQ(test, rxm_rndv_check(&pkt, len), -EPROTO);
	pkt.r.count = RXM_RNDV_IOV_MAX + 1;
	KUNIT_EXPECT_EQ(test, rxm_rndv_check(&pkt, len), -EPROTO);
}

static struct kunit_case rxm_proto_cases[] = {
	KUNIT_CASE(rxmt_cm_req_test),
	KUNIT_CASE(rxmt_cm_reject_test),
	KUNIT_CASE(rxmt_net_cm_test),
	KUNIT_CASE(rxmt_name_cmp_test),
	KUNIT_CASE(rxmt_hdr_layout_test),
	KUNIT_CASE(rxmt_hdr_check_test),
	KUNIT_CASE(rxmt_rndv_check_test),
	{}
};

static struct kunit_suite rxm_proto_suite = {
	.name = "rxm_proto",
	.test_cases = rxm_proto_cases,
};

kunit_test_suite(rxm_proto_suite);

MODULE_DESCRIPTION("KUnit tests of rxm's wire format");
MODULE_LICENSE("Dual BSD/GPL");
