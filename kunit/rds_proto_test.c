// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the rds provider's header (providers/rds/krds_proto.h) - its
 * layout byte for byte, what a received header says, which messages are
 * refused (short, foreign, another version, unknown flags) - the RMA
 * header behind it (layout, what each op may carry, the statuses and the
 * errnos they become, operation ids) and the rules of its receive path
 * that need no peer: which unexpected messages may wait, and how much of
 * a message a receive takes.  Everything tested
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
	/* each unknown flag; RMA on a tagged message (bit 2 on bits 0-1) */
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

/* a write with CQ data 0x55: id 0x00020001, key 0x0a0b, 16 bytes at 0x1000 */
static const u8 krdst_rma_wire[56] = {
	'k', 'R', 'D', 'S', 1, 6, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	0x55, 0, 0, 0, 0, 0, 0, 0,
	1, 0, 0, 0, 0x01, 0x00, 0x02, 0x00,
	0x0b, 0x0a, 0, 0, 0, 0, 0, 0,
	0x00, 0x10, 0, 0, 0, 0, 0, 0,
	16, 0, 0, 0, 0, 0, 0, 0,
};

static void krdst_rma_layout_test(struct kunit *test)
{
	struct krds_rma_frame f;

	KUNIT_EXPECT_EQ(test, sizeof(struct krds_rma_hdr), 32);
	KUNIT_EXPECT_EQ(test, sizeof(f), 56);
	krds_rma_fill(&f, KRDS_RMA_WRITE, KRDS_RMA_OK, 0x00020001, 0x0a0b,
		      0x1000, 16, true, 0x55);
	KUNIT_EXPECT_MEMEQ(test, &f, krdst_rma_wire, sizeof(krdst_rma_wire));
	/* an answer: status, no CQ data whatever the caller gave */
	krds_rma_fill(&f, KRDS_RMA_READ_DATA, KRDS_RMA_RANGE, 7, 0, 0, 9,
		      false, 0x55);
	KUNIT_EXPECT_EQ(test, f.hdr.flags, KRDS_HDR_RMA);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(f.hdr.data), 0);
	KUNIT_EXPECT_EQ(test, f.rma.op, KRDS_RMA_READ_DATA);
	KUNIT_EXPECT_EQ(test, f.rma.status, KRDS_RMA_RANGE);
}

/* Parse @f, a frame of 56 + @data bytes, as the receive path does. */
static int krdst_rma_parse(struct kunit *test, const struct krds_rma_frame *f,
			   size_t data, struct krds_msg_desc *d,
			   struct krds_rma_desc *rd)
{
	int ret = krds_hdr_parse(f, 24, 56 + data, d);

	if (ret)
		return ret;
	KUNIT_EXPECT_TRUE(test, d->flags & FI_RMA);
	return krds_rma_parse(f, sizeof(*f), d, rd);
}

static void krdst_rma_parse_test(struct kunit *test)
{
	struct krds_rma_desc rd;
	struct krds_msg_desc d;
	struct krds_rma_frame f;

	memcpy(&f, krdst_rma_wire, sizeof(f));
	KUNIT_ASSERT_EQ(test, krdst_rma_parse(test, &f, 16, &d, &rd), 0);
	KUNIT_EXPECT_EQ(test, d.flags, FI_RMA | FI_REMOTE_CQ_DATA);
	KUNIT_EXPECT_EQ(test, d.data, 0x55);
	KUNIT_EXPECT_EQ(test, d.len, 16);
	KUNIT_EXPECT_EQ(test, rd.op, KRDS_RMA_WRITE);
	KUNIT_EXPECT_EQ(test, rd.status, KRDS_RMA_OK);
	KUNIT_EXPECT_EQ(test, rd.id, 0x00020001);
	KUNIT_EXPECT_EQ(test, rd.key, 0x0a0b);
	KUNIT_EXPECT_EQ(test, rd.addr, 0x1000);
	KUNIT_EXPECT_EQ(test, rd.len, 16);
	/* a write whose data is not the length it names */
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 15, &d, &rd), -EPROTO);
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 17, &d, &rd), -EPROTO);

	/* a read carries no data, and no CQ data */
	krds_rma_fill(&f, KRDS_RMA_READ, KRDS_RMA_OK, 1, 2, 3, 4096, false, 0);
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 0, &d, &rd), 0);
	KUNIT_EXPECT_EQ(test, rd.len, 4096);
	KUNIT_EXPECT_EQ(test, d.len, 0);
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 1, &d, &rd), -EPROTO);
	krds_rma_fill(&f, KRDS_RMA_READ, KRDS_RMA_OK, 1, 2, 3, 4096, true, 9);
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 0, &d, &rd), -EPROTO);
	/* a request has no status */
	krds_rma_fill(&f, KRDS_RMA_READ, KRDS_RMA_NOKEY, 1, 2, 3, 8, false, 0);
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 0, &d, &rd), -EPROTO);

	/* a read's answer: the data asked for, or none with an error */
	krds_rma_fill(&f, KRDS_RMA_READ_DATA, KRDS_RMA_OK, 1, 0, 0, 100, false,
		      0);
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 100, &d, &rd), 0);
	KUNIT_EXPECT_EQ(test, d.len, 100);
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 99, &d, &rd), -EPROTO);
	krds_rma_fill(&f, KRDS_RMA_READ_DATA, KRDS_RMA_ACCESS, 1, 0, 0, 100,
		      false, 0);
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 0, &d, &rd), 0);
	KUNIT_EXPECT_EQ(test, rd.status, KRDS_RMA_ACCESS);
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 100, &d, &rd), -EPROTO);
	/* a write's answer carries nothing */
	krds_rma_fill(&f, KRDS_RMA_WRITE_ACK, KRDS_RMA_OK, 1, 0, 0, 100, false,
		      0);
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 0, &d, &rd), 0);
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 1, &d, &rd), -EPROTO);

	/* unknown ops and statuses */
	f.rma.op = 0;
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 0, &d, &rd), -EPROTO);
	f.rma.op = 5;
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 0, &d, &rd), -EPROTO);
	f.rma.op = KRDS_RMA_WRITE_ACK;
	f.rma.status = KRDS_RMA_STATUS_MAX + 1;
	KUNIT_EXPECT_EQ(test, krdst_rma_parse(test, &f, 0, &d, &rd), -EPROTO);

	/* shorter than the RMA header, in what was read or in all */
	krds_rma_fill(&f, KRDS_RMA_WRITE_ACK, KRDS_RMA_OK, 1, 0, 0, 0, false,
		      0);
	KUNIT_ASSERT_EQ(test, krds_hdr_parse(&f, 24, 55, &d), 0);
	KUNIT_EXPECT_EQ(test, krds_rma_parse(&f, 55, &d, &rd), -EBADMSG);
	KUNIT_ASSERT_EQ(test, krds_hdr_parse(&f, 24, 56, &d), 0);
	KUNIT_EXPECT_EQ(test, krds_rma_parse(&f, 40, &d, &rd), -EBADMSG);
}

static void krdst_rma_status_test(struct kunit *test)
{
	static const int errs[] = { 0, -ENOKEY, -EACCES, -ERANGE, -EOPNOTSUPP,
				    -EIO };
	unsigned int i;

	/* each outcome travels and comes back as itself */
	for (i = 0; i < ARRAY_SIZE(errs); i++)
		KUNIT_EXPECT_EQ(test, -krds_rma_errno(krds_rma_status(errs[i])),
				errs[i]);
	/* any other failure is an I/O error */
	KUNIT_EXPECT_EQ(test, krds_rma_status(-ENOMEM), KRDS_RMA_IO);
	KUNIT_EXPECT_EQ(test, krds_rma_errno(KRDS_RMA_STATUS_MAX + 1), EPROTO);
}

static void krdst_rma_id_test(struct kunit *test)
{
	u32 id = krds_rma_id(4095, 0xffff);

	KUNIT_EXPECT_EQ(test, id, 0xffff0fff);
	KUNIT_EXPECT_EQ(test, krds_rma_id_slot(id), 4095);
	/* the same slot's next operation has another id */
	KUNIT_EXPECT_NE(test, krds_rma_id(4095, 0), id);
	KUNIT_EXPECT_EQ(test, krds_rma_id_slot(krds_rma_id(4095, 0)), 4095);
}

static struct kunit_case rds_proto_cases[] = {
	KUNIT_CASE(krdst_hdr_layout_test),
	KUNIT_CASE(krdst_hdr_parse_test),
	KUNIT_CASE(krdst_hdr_refused_test),
	KUNIT_CASE(krdst_rma_layout_test),
	KUNIT_CASE(krdst_rma_parse_test),
	KUNIT_CASE(krdst_rma_status_test),
	KUNIT_CASE(krdst_rma_id_test),
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
