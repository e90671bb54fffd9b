// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the rds provider's header (providers/rds/krds_proto.h) - its
 * layout byte for byte, what a received header says, which messages are
 * refused (short, foreign, another version, unknown flags) - and the
 * rules of its receive path that need no peer: which unexpected messages
 * may wait, and how much of a message a receive takes.  Everything tested
 * is a static inline: this suite needs no module.
 */
#include <kunit/test.h>
#include "../providers/rds/krds_proto.h"

/* tagged, with CQ data: tag 0x0102030405060708, data 0x1122334455667788 */
static const u8 krdst_wire[24] = {
	'k', 'R', 'D', 'S', 1, 3, 0, 0,
	0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
};

static void krdst_hdr_layout_test(struct kunit *test)
{
	struct krds_hdr hdr;
	static const u8 plain[24] = { 'k', 'R', 'D', 'S', 1, 0 };

	KUNIT_EXPECT_EQ(test, sizeof(hdr), 24);
	krds_hdr_fill(&hdr, true, 0x0102030405060708ULL, true,
		      0x1122334455667788ULL);
	KUNIT_EXPECT_MEMEQ(test, &hdr, krdst_wire, sizeof(krdst_wire));
	/* a message: tag and data are sent as 0 whatever the caller gave */
	krds_hdr_fill(&hdr, false, 0x99, false, 0x77);
	KUNIT_EXPECT_MEMEQ(test, &hdr, plain, sizeof(plain));
}

static void krdst_hdr_parse_test(struct kunit *test)
{
	struct krds_msg_desc d;
	struct krds_hdr hdr;

	KUNIT_ASSERT_EQ(test, krds_hdr_parse(krdst_wire, 24, 24 + 100, &d), 0);
	KUNIT_EXPECT_EQ(test, d.flags, FI_TAGGED | FI_REMOTE_CQ_DATA);
	KUNIT_EXPECT_EQ(test, d.tag, 0x0102030405060708ULL);
	KUNIT_EXPECT_EQ(test, d.data, 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, d.len, 100);

	/* a message with data; a tagged message without; a bare header */
	krds_hdr_fill(&hdr, false, 5, true, 42);
	KUNIT_ASSERT_EQ(test, krds_hdr_parse(&hdr, 24, 24, &d), 0);
	KUNIT_EXPECT_EQ(test, d.flags, FI_MSG | FI_REMOTE_CQ_DATA);
	KUNIT_EXPECT_EQ(test, d.tag, 0);
	KUNIT_EXPECT_EQ(test, d.data, 42);
	KUNIT_EXPECT_EQ(test, d.len, 0);
	krds_hdr_fill(&hdr, true, ~0ULL, false, 42);
	KUNIT_ASSERT_EQ(test, krds_hdr_parse(&hdr, 24, 24 + 1, &d), 0);
	KUNIT_EXPECT_EQ(test, d.flags, FI_TAGGED);
	KUNIT_EXPECT_EQ(test, d.tag, ~0ULL);
	KUNIT_EXPECT_EQ(test, d.data, 0);
	KUNIT_EXPECT_EQ(test, d.len, 1);

	/* unused fields are ignored: reserved, an untagged tag, lone data */
	memcpy(&hdr, krdst_wire, sizeof(hdr));
	hdr.flags = 0;
	hdr.reserved = cpu_to_le16(0xffff);
	KUNIT_ASSERT_EQ(test, krds_hdr_parse(&hdr, 24, 24, &d), 0);
	KUNIT_EXPECT_EQ(test, d.flags, FI_MSG);
	KUNIT_EXPECT_EQ(test, d.tag, 0);
	KUNIT_EXPECT_EQ(test, d.data, 0);
}

static void krdst_hdr_refused_test(struct kunit *test)
{
	struct krds_msg_desc d = {};
	u8 bad[24];
	int i;

	/* shorter than the header, in what was read or in all */
	KUNIT_EXPECT_EQ(test, krds_hdr_parse(krdst_wire, 23, 24, &d), -EBADMSG);
	KUNIT_EXPECT_EQ(test, krds_hdr_parse(krdst_wire, 24, 23, &d), -EBADMSG);
	KUNIT_EXPECT_EQ(test, krds_hdr_parse(krdst_wire, 0, 0, &d), -EBADMSG);
	KUNIT_EXPECT_EQ(test, krds_hdr_parse(NULL, 24, 24, &d), -EBADMSG);
	/* any magic byte wrong: a foreign message */
	for (i = 0; i < 4; i++) {
		memcpy(bad, krdst_wire, sizeof(bad));
		bad[i] ^= 0x20;
		KUNIT_EXPECT_EQ(test, krds_hdr_parse(bad, 24, 24, &d),
				-EBADMSG);
	}
	/* another version */
	memcpy(bad, krdst_wire, sizeof(bad));
	bad[4] = 2;
	KUNIT_EXPECT_EQ(test, krds_hdr_parse(bad, 24, 24, &d),
			-EPROTONOSUPPORT);
	bad[4] = 0;
	KUNIT_EXPECT_EQ(test, krds_hdr_parse(bad, 24, 24, &d),
			-EPROTONOSUPPORT);
	/* each unknown flag */
	for (i = 2; i < 8; i++) {
		memcpy(bad, krdst_wire, sizeof(bad));
		bad[5] |= BIT(i);
		KUNIT_EXPECT_EQ(test, krds_hdr_parse(bad, 24, 24, &d), -EPROTO);
	}
	/* nothing was described by a refused header */
	KUNIT_EXPECT_EQ(test, d.len, 0);
	KUNIT_EXPECT_EQ(test, d.flags, 0);
}

static void krdst_ux_room_test(struct kunit *test)
{
	/* the count bound, whatever the bytes */
	KUNIT_EXPECT_TRUE(test, krds_ux_room(255, 256, 0, 4096, 1));
	KUNIT_EXPECT_FALSE(test, krds_ux_room(256, 256, 0, 4096, 1));
	KUNIT_EXPECT_FALSE(test, krds_ux_room(0, 0, 0, 4096, 0));
	/* the byte bound: up to the limit exactly */
	KUNIT_EXPECT_TRUE(test, krds_ux_room(1, 256, 4000, 4096, 96));
	KUNIT_EXPECT_FALSE(test, krds_ux_room(1, 256, 4000, 4096, 97));
	KUNIT_EXPECT_FALSE(test, krds_ux_room(1, 256, 4096, 4096, 1));
	KUNIT_EXPECT_TRUE(test, krds_ux_room(1, 256, 4096, 4096, 0));
	/* no wrap-around of a huge length */
	KUNIT_EXPECT_FALSE(test, krds_ux_room(1, 256, 1, 4096, SIZE_MAX));
	/* one message of any size when none waits */
	KUNIT_EXPECT_TRUE(test, krds_ux_room(0, 256, 0, 4096, 8192));
}

static void krdst_rx_truncated_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, krds_rx_truncated(0, 0), 0);
	KUNIT_EXPECT_EQ(test, krds_rx_truncated(100, 100), 0);
	KUNIT_EXPECT_EQ(test, krds_rx_truncated(99, 100), 0);
	KUNIT_EXPECT_EQ(test, krds_rx_truncated(101, 100), 1);
	KUNIT_EXPECT_EQ(test, krds_rx_truncated(1048552, 0), 1048552);
}

static struct kunit_case rds_proto_cases[] = {
	KUNIT_CASE(krdst_hdr_layout_test),
	KUNIT_CASE(krdst_hdr_parse_test),
	KUNIT_CASE(krdst_hdr_refused_test),
	KUNIT_CASE(krdst_ux_room_test),
	KUNIT_CASE(krdst_rx_truncated_test),
	{}
};

static struct kunit_suite rds_proto_suite = {
	.name = "rds_proto",
	.test_cases = rds_proto_cases,
};

kunit_test_suite(rds_proto_suite);

MODULE_DESCRIPTION("KUnit tests of the rds provider's header");
MODULE_LICENSE("Dual BSD/GPL");
