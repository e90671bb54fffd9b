// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: raw connection data (FI_OPT_CM_DATA_RAW) and zero-length
 * receives consumed by RDMA writes with immediate data, the two things a
 * peer that is not kOFI (librdmacm's rsockets) needs from ib_verbs.
 *
 * Both sides set FI_OPT_CM_DATA_RAW (the server on its passive endpoint
 * before fi_listen(); the endpoint accepting its request inherits it) and
 * exchange 40 bytes of connection data laid out as rsockets' (version 1,
 * then a big-endian {addr, key, length} of a buffer, then a pattern):
 *
 *   client: fi_connect() with its 40 bytes; FI_CONNECTED must carry the
 *	server's 40 bytes, then zeros up to all that rdma_cm delivered;
 *	then three fi_writedata() into the server's buffer: 16 bytes with
 *	data 0x11223344, 0 bytes with data 0xe0000001, 8 bytes at offset 64
 *	with data 0x80000005; then it waits for a 0-byte message;
 *   server: FI_CONNREQ must carry the client's 40 bytes and zeros after;
 *	it posts a receive of its buffer, fi_recv(NULL, 0) and fi_recv(buf,
 *	0), accepts with its 40 bytes, and checks that each receive completes
 *	with FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA, the length and the
 *	data sent, and the written bytes; then it sends a 0-byte message.
 *
 * Before connecting or accepting, each side also checks the rules of the
 * endpoint's retry options (FI_OPT_RETRY_COUNT, FI_OPT_ACK_TIMEOUT: their
 * defaults logged, out of range and short values refused) and sets them
 * (client 6 and 19, server 5 and 18), then checks that a connected
 * endpoint keeps them and refuses a change (EISCONN); the passive
 * endpoint has no such option (ENOPROTOOPT).
 *
 * With reject=1 the server fi_reject()s with 40 bytes instead, and the
 * client expects ECONNREFUSED whose error data starts with them.  Each
 * side logs "cm data: N bytes" for what it received.
 *
 * The test runs in module init; its outcome (0, or a negative errno) is
 * the read-only parameter "result".  The server logs "listening on
 * ADDR:PORT" once it accepts connections.
 *
 * Example:  insmod kofi_sample_cmraw.ko server=1 addr=192.0.2.1 port=7300
 *           insmod kofi_sample_cmraw.ko addr=192.0.2.1 port=7300
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <kofi/ib_verbs.h>
#include "kofi_sample.h"

static bool server;
module_param(server, bool, 0444);
MODULE_PARM_DESC(server, "1: accept one connection; 0: connect");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "server: address to listen on; client: the server");

static char *port = "7300";
module_param(port, charp, 0444);
MODULE_PARM_DESC(port, "port (default 7300)");

static bool reject;
module_param(reject, bool, 0444);
MODULE_PARM_DESC(reject, "1: the server rejects (with data), the client expects it");

static int timeout_ms = 15000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of every wait in ms (default 15000)");

static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome: 0, or a negative errno");

#define CR_LEN		40
#define CR_BUF		4096
#define CR_NWRITES	3

/* Connection data, laid out as rsockets' rs_conn_data. */
struct cr_data {
	u8 version;
	u8 flags;
	u8 tag;		/* 'c' client, 's' server, 'r' reject */
	u8 reserved[5];
	__be64 addr;
	__be32 key;
	__be32 length;
	u8 fill[16];
} __packed;

static const struct {
	size_t off;
	size_t len;
	u32 data;
} cr_writes[CR_NWRITES] = {
	{ 0, 16, 0x11223344 },
	{ 0, 0, 0xe0000001 },
	{ 64, 8, 0x80000005 },
};

static void cr_build(struct cr_data *d, u8 tag, struct ks_conn *c)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->version = 1;
	d->flags = 2;
	d->tag = tag;
	if (c && c->mr) {
		d->addr = cpu_to_be64((uintptr_t)c->buf);
		d->key = cpu_to_be32((u32)fi_mr_key(c->mr));
		d->length = cpu_to_be32(CR_BUF);
	}
	for (i = 0; i < sizeof(d->fill); i++)
		d->fill[i] = ks_pattern(tag, i);
}

/* Received data: the peer's 40 bytes with @tag, then only zeros. */
static int cr_check(const u8 *data, size_t len, u8 tag)
{
	const struct cr_data *d = (const struct cr_data *)data;
	size_t i;

	pr_info("cm data: %zu bytes\n", len);
	if (len < CR_LEN || d->version != 1 || d->tag != tag) {
		pr_err("cm data: bad header (len %zu)\n", len);
		return -EBADMSG;
	}
	if (ks_check(d->fill, sizeof(d->fill), tag)) {
		pr_err("cm data: bad pattern\n");
		return -EBADMSG;
	}
	for (i = CR_LEN; i < len; i++)
		if (data[i]) {
			pr_err("cm data: byte %zu is not padding\n", i);
			return -EBADMSG;
		}
	return 0;
}

static int cr_opt(struct fid *fid, int name, size_t *val)
{
	size_t len = sizeof(*val);

	return fi_getopt(fid, FI_OPT_ENDPOINT, name, val, &len);
}

/* Set FI_OPT_CM_DATA_RAW on @fid and check what getopt says. */
static int cr_set_raw(struct fid *fid, size_t want_size)
{
	size_t one = 1, val = 0;
	int ret;

	ret = fi_setopt(fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_RAW, &one, 1);
	if (ret != -EINVAL) {
		pr_err("setopt with a short value: %d\n", ret);
		return ret ? ret : -EPROTO;
	}
	ret = fi_setopt(fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_RAW, &one,
			sizeof(one));
	if (!ret)
		ret = cr_opt(fid, FI_OPT_CM_DATA_RAW, &val);
	if (!ret && val != 1)
		ret = -EPROTO;
	if (!ret)
		ret = cr_opt(fid, FI_OPT_CM_DATA_SIZE, &val);
	if (!ret && val != want_size) {
		pr_err("FI_OPT_CM_DATA_SIZE %zu, expected %zu\n", val,
		       want_size);
		ret = -EPROTO;
	}
	return ret;
}

/*
 * The connection's retry options (FI_OPT_RETRY_COUNT, FI_OPT_ACK_TIMEOUT).
 * Before fi_connect() or fi_accept(): they start as the module parameters
 * (logged for the test to compare), refuse values out of range and a
 * short value, and take @rc and @at.  Once connected (@connected): they
 * hold @rc and @at and refuse any change.
 */
static int cr_retry_opts(struct fid *fid, bool connected, size_t rc,
			 size_t at)
{
	size_t big_rc = 8, big_at = 32, v_rc, v_at;
	int ret, ret2;

	ret = cr_opt(fid, FI_OPT_RETRY_COUNT, &v_rc);
	if (!ret)
		ret = cr_opt(fid, FI_OPT_ACK_TIMEOUT, &v_at);
	if (ret)
		return ret;
	if (connected) {
		ret = fi_setopt(fid, FI_OPT_ENDPOINT, FI_OPT_RETRY_COUNT, &rc,
				sizeof(rc));
		ret2 = fi_setopt(fid, FI_OPT_ENDPOINT, FI_OPT_ACK_TIMEOUT, &at,
				 sizeof(at));
		if (v_rc != rc || v_at != at || ret != -EISCONN ||
		    ret2 != -EISCONN) {
			pr_err("retry options when connected: %zu %zu, set: %d %d\n",
			       v_rc, v_at, ret, ret2);
			return -EPROTO;
		}
		pr_info("retry options when connected: retry_count %zu ack_timeout %zu, fixed\n",
			v_rc, v_at);
		return 0;
	}
	pr_info("retry options: default retry_count %zu ack_timeout %zu\n",
		v_rc, v_at);
	ret = fi_setopt(fid, FI_OPT_ENDPOINT, FI_OPT_RETRY_COUNT, &big_rc,
			sizeof(big_rc));
	ret2 = fi_setopt(fid, FI_OPT_ENDPOINT, FI_OPT_ACK_TIMEOUT, &big_at,
			 sizeof(big_at));
	if (ret != -EINVAL || ret2 != -EINVAL ||
	    fi_setopt(fid, FI_OPT_ENDPOINT, FI_OPT_RETRY_COUNT, &rc, 1) !=
	    -EINVAL) {
		pr_err("retry options out of range: %d %d\n", ret, ret2);
		return -EPROTO;
	}
	v_rc = rc;
	v_at = at;
	ret = ks_retry_opts(fid, &v_rc, &v_at);
	if (!ret && (v_rc != rc || v_at != at))
		ret = -EPROTO;
	if (ret)
		pr_err("retry options %zu %zu: %d, read %zu %zu\n", rc, at,
		       ret, v_rc, v_at);
	return ret;
}

static int cr_getinfo(struct ks_conn *c)
{
	struct fi_info *hints = ks_hints("ib_verbs");
	int ret;

	if (!hints)
		return -ENOMEM;
	ret = fi_getinfo(fi_version(), addr, port, server ? FI_SOURCE : 0,
			 hints, &c->info);
	fi_freeinfo(hints);
	if (ret)
		return ret;
	ret = fi_fabric(c->info->fabric_attr, &c->fabric, NULL);
	if (!ret) {
		struct fi_eq_attr eq_attr = {};

		ret = fi_eq_open(c->fabric, &eq_attr, &c->eq, NULL);
	}
	return ret;
}

static int cr_server(struct ks_conn *c)
{
	struct {
		struct fi_eq_cm_entry e;
		u8 data[FI_CM_DATA_MAX];
	} entry;
	struct fi_cq_data_entry ce;
	struct cr_data mine;
	size_t size = 1;
	u32 event;
	ssize_t n;
	int ret, i;

	ret = fi_passive_ep(c->fabric, c->info, &c->pep, NULL);
	if (!ret)
		ret = fi_pep_bind(c->pep, &c->eq->fid, 0);
	if (!ret)
		ret = cr_set_raw(&c->pep->fid, 148);
	/* A passive endpoint has no connection of its own to retry. */
	if (!ret && fi_setopt(&c->pep->fid, FI_OPT_ENDPOINT,
			      FI_OPT_RETRY_COUNT, &size, sizeof(size)) !=
		    -ENOPROTOOPT)
		ret = -EPROTO;
	if (!ret)
		ret = fi_listen(c->pep);
	if (ret)
		return ret;
	pr_info("listening on %s:%s\n", addr ? addr : "*", port);

	n = fi_eq_sread(c->eq, &event, &entry, sizeof(entry), timeout_ms, 0);
	if (n < 0 || event != FI_CONNREQ) {
		pr_err("no connection request: %zd\n", n);
		return n < 0 ? (int)n : -EPROTO;
	}
	fi_freeinfo(c->info);
	c->info = entry.e.info;
	ret = cr_check(entry.data, n - sizeof(entry.e), 'c');
	if (reject || ret) {
		cr_build(&mine, 'r', NULL);
		i = fi_reject(c->pep, c->info->handle, &mine, sizeof(mine));
		return ret ? ret : i;
	}
	ret = ks_open_active(c);
	if (ret) {
		fi_reject(c->pep, c->info->handle, NULL, 0);
		return ret;
	}
	/* Inherited from the passive endpoint; fi_accept() sends 196. */
	ret = cr_opt(&c->ep->fid, FI_OPT_CM_DATA_SIZE, &size);
	if (ret || size != 196) {
		pr_err("accepting endpoint is not raw: %d %zu\n", ret, size);
		return ret ? ret : -EPROTO;
	}
	ret = fi_recv(c->ep, NULL, 0, NULL, FI_ADDR_UNSPEC, NULL);
	if (!ret)
		ret = fi_recv(c->ep, ks_rx(c), 0, NULL, FI_ADDR_UNSPEC, NULL);
	if (!ret)
		ret = cr_retry_opts(&c->ep->fid, false, 5, 18);
	if (ret)
		return ret;
	cr_build(&mine, 's', c);
	ret = fi_accept(c->ep, &mine, sizeof(mine));
	if (!ret)
		ret = ks_eq_wait(c, FI_CONNECTED, &entry.e, sizeof(entry));
	if (!ret)
		ret = cr_retry_opts(&c->ep->fid, true, 5, 18);
	if (ret)
		return ret;

	for (i = 0; i < CR_NWRITES; i++) {
		ret = ks_cq_wait(c, c->rxcq, &ce);
		if (ret)
			return ret;
		if (ce.flags != (FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA) ||
		    ce.len != cr_writes[i].len || ce.data != cr_writes[i].data) {
			pr_err("write %d: flags %#llx len %zu data %#llx\n", i,
			       ce.flags, ce.len, ce.data);
			return -EBADMSG;
		}
		if (ks_check(c->buf + cr_writes[i].off, cr_writes[i].len, i)) {
			pr_err("write %d: wrong bytes\n", i);
			return -EBADMSG;
		}
	}
	pr_info("%d writes with data received\n", CR_NWRITES);
	/*
	 * The client closes once this last message is there.  A transport
	 * may complete a receive before it acknowledges it (soft-RoCE does),
	 * so the close can flush our send although it arrived: the client
	 * says whether it did.
	 */
	ret = ks_send_wait(c, 0);
	return ret == -ECANCELED ? 0 : ret;
}

static int cr_client(struct ks_conn *c)
{
	struct {
		struct fi_eq_cm_entry e;
		u8 data[FI_CM_DATA_MAX];
	} entry;
	u8 err_data[FI_ERR_DATA_MAX];
	struct fi_eq_err_entry err = {
		.err_data = err_data,
		.err_data_size = sizeof(err_data),
	};
	u8 big[57] = {};
	const struct cr_data *peer;
	struct fi_cq_data_entry ce;
	struct cr_data mine;
	u64 raddr, rkey;
	ssize_t n;
	u32 event;
	int ret, i;

	ret = ks_open_active(c);
	if (!ret)
		ret = cr_set_raw(&c->ep->fid, 56);
	if (!ret)
		ret = cr_retry_opts(&c->ep->fid, false, 6, 19);
	if (ret)
		return ret;
	ret = fi_connect(c->ep, c->info->dest_addr, big, sizeof(big));
	if (ret != -EINVAL) {
		pr_err("57 bytes of raw data: %d\n", ret);
		return ret ? ret : -EPROTO;
	}
	cr_build(&mine, 'c', c);
	ret = fi_connect(c->ep, c->info->dest_addr, &mine, sizeof(mine));
	if (ret)
		return ret;
	n = fi_eq_sread(c->eq, &event, &entry, sizeof(entry), timeout_ms, 0);
	if (n == -FI_EAVAIL && fi_eq_readerr(c->eq, &err, 0) > 0) {
		pr_info("connection error %d\n", err.err);
		if (!reject || err.err != ECONNREFUSED)
			return -err.err;
		return cr_check(err.err_data, err.err_data_size, 'r');
	}
	if (n < 0 || event != FI_CONNECTED) {
		pr_err("not connected: %zd, event %u\n", n, event);
		return n < 0 ? (int)n : -EPROTO;
	}
	if (reject)
		return -EPROTO;
	ret = cr_check(entry.data, n - sizeof(entry.e), 's');
	if (!ret)
		ret = cr_retry_opts(&c->ep->fid, true, 6, 19);
	if (ret)
		return ret;
	peer = (const struct cr_data *)entry.data;
	raddr = be64_to_cpu(peer->addr);
	rkey = be32_to_cpu(peer->key);

	for (i = 0; i < CR_NWRITES; i++) {
		u8 *src = ks_tx(c) + 256 * i;

		ks_fill(src, cr_writes[i].len, i);
		ret = fi_writedata(c->ep, cr_writes[i].len ? src : NULL,
				   cr_writes[i].len, c->desc, cr_writes[i].data,
				   FI_ADDR_UNSPEC, raddr + cr_writes[i].off,
				   rkey, NULL);
		if (!ret)
			ret = ks_cq_wait(c, c->txcq, &ce);
		if (ret) {
			pr_err("fi_writedata %d: %d\n", i, ret);
			return ret;
		}
	}
	/* The server's 0-byte message says it checked everything. */
	return ks_recv_wait(c, 0, false);
}

static int __init cr_init(void)
{
	struct ks_conn c = { .half = CR_BUF, .timeout_ms = timeout_ms };
	int ret;

	if (!server && !addr) {
		result = -EINVAL;
		return 0;
	}
	ret = cr_getinfo(&c);
	if (!ret)
		ret = server ? cr_server(&c) : cr_client(&c);
	if (ret)
		pr_err("%s failed: %d (%s)\n", server ? "server" : "client",
		       ret, fi_strerror(-ret));
	else
		pr_info("%s ok\n", server ? "server" : "client");
	ks_close(&c);
	result = ret;
	return 0;
}

static void __exit cr_exit(void)
{
}

module_init(cr_init);
module_exit(cr_exit);

MODULE_DESCRIPTION("kOFI sample: raw connection data and writes with immediate data over ib_verbs");
MODULE_LICENSE("Dual BSD/GPL");
