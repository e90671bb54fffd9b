// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI sample: rping's protocol over kOFI, from the kernel.
 *
 * Interoperates with librdmacm's rping (rdma-core's rping -s / rping -c):
 * each ping, the client advertises its source buffer ({__be64 address,
 * __be32 rkey, __be32 size}, 16 bytes), the server RDMA READs it and sends
 * a 16-byte "go ahead"; the client advertises its sink buffer, the server
 * RDMA WRITEs what it read into it and sends "go ahead"; with validate=1
 * the client compares source and sink.  The payload is rping's:
 * "rdma-ping-%d: " then 'A'..'z' cycling, the start letter advancing each
 * ping, the last byte NUL.  Like rping, a receive that is not exactly 16
 * bytes is refused, and the client disconnects at the end; the server
 * serves one client until it disconnects.
 *
 * Between kOFI peers, cm_data is sent with fi_connect(), fi_accept() or
 * (reject=1) fi_reject() and the receiver logs it: "connection request
 * data '...'", "connected, data '...'", or for a rejected client
 * "connection error 111 (...), data '...'".
 *
 * With hold_ms, the server keeps the connection request for that long
 * before it opens the endpoint and accepts ("connection request held for
 * N ms" when it starts holding): time for the tests to end the request
 * under it (the peer giving up, the device going away).  With eq_full_ms,
 * the server fills its EQ with user events before it listens and reads
 * them only that many ms later ("EQ full: emptied in N ms"), so that the
 * request comes to a full EQ: it must be the next event after them.
 *
 * The test runs in module init: insmod returns once it is over.  The
 * outcome - 0 if every ping succeeded (and validated), a negative errno
 * otherwise - is the read-only parameter "result".  The server logs
 * "listening on ADDR:PORT" once it accepts connections.
 *
 * Example:  insmod kofi_sample_rping.ko server=1 addr=192.0.2.1 port=7174
 *           insmod kofi_sample_rping.ko addr=192.0.2.1 port=7174 count=10
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <kofi/fabric.h>
#include <kofi/fi_domain.h>
#include <kofi/fi_endpoint.h>
#include <kofi/fi_cm.h>
#include <kofi/fi_eq.h>
#include <kofi/fi_rma.h>
#include <kofi/fi_errno.h>
#include <kofi/ib_verbs.h>

static char *prov = "ib_verbs";
module_param(prov, charp, 0444);
MODULE_PARM_DESC(prov, "provider name (default ib_verbs)");

static bool server;
module_param(server, bool, 0444);
MODULE_PARM_DESC(server, "1: serve one client (rping -s); 0: client (rping -c)");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "server: address to listen on (default any); client: the server");

static char *port = "7174";
module_param(port, charp, 0444);
MODULE_PARM_DESC(port, "port (default 7174, rping's)");

static unsigned int count = 10;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "pings (client: sent, 0 = until the connection fails; server: expected, 0 = any) (default 10)");

static unsigned int linger_ms;
module_param(linger_ms, uint, 0444);
MODULE_PARM_DESC(linger_ms,
		 "client: after the pings, keep the idle connection up to this long and report how it ended (default 0)");

static unsigned int keepalive_ms;
module_param(keepalive_ms, uint, 0444);
MODULE_PARM_DESC(keepalive_ms,
		 "non-zero: set the endpoint's keepalive interval with fi_setopt(FI_OPT_KEEPALIVE_MS) (default 0: the provider's)");

static unsigned int size = 64;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "ping size in bytes, 26..65536 (default 64)");

static bool validate = true;
module_param(validate, bool, 0444);
MODULE_PARM_DESC(validate, "client: compare sink with source after each ping (default 1)");

static bool verbose;
module_param(verbose, bool, 0444);
MODULE_PARM_DESC(verbose, "log the ping data (default 0)");

static char *cm_data;
module_param(cm_data, charp, 0444);
MODULE_PARM_DESC(cm_data,
		 "connection data to send with fi_connect() / fi_accept() / fi_reject() (kOFI peers log it)");

static bool reject;
module_param(reject, bool, 0444);
MODULE_PARM_DESC(reject, "server: reject the connection request (with cm_data) and end");

static unsigned int hold_ms;
module_param(hold_ms, uint, 0444);
MODULE_PARM_DESC(hold_ms, "server: hold the connection request this long before accepting it (default 0)");

static unsigned int eq_full_ms;
module_param(eq_full_ms, uint, 0444);
MODULE_PARM_DESC(eq_full_ms, "server: listen with the EQ full of user events, and read them only this many ms later (default 0)");

static int result = -EINPROGRESS;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "outcome: 0, or the negative errno of the failure (read only)");

static int timeout_ms = 30000;
module_param(timeout_ms, int, 0444);
MODULE_PARM_DESC(timeout_ms, "limit of every wait in ms (default 30000)");

#define RP_ADV_LEN	16
#define RP_MIN_SIZE	26

struct rp_adv {
	__be64 buf;
	__be32 rkey;
	__be32 size;
} __packed;

struct rp {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_eq *eq;
	struct fid_cq *txcq;
	struct fid_cq *rxcq;
	struct fid_pep *pep;
	struct fid_ep *ep;
	struct fid_mr *start_mr;
	struct fid_mr *rdma_mr;
	char *start_buf;	/* client: source */
	char *rdma_buf;		/* client: sink; server: read/write buffer */
	struct rp_adv *recv_buf;
	struct rp_adv *send_buf;
	unsigned int pings;
};

static int rp_cq_wait(struct fid_cq *cq, struct fi_cq_data_entry *e)
{
	struct fi_cq_err_entry err;
	ssize_t ret;

	ret = fi_cq_sread(cq, e, 1, NULL, timeout_ms);
	if (ret == 1)
		return 0;
	if (ret == -FI_EAVAIL && fi_cq_readerr(cq, &err, 0) == 1)
		return -err.err;
	return ret == -EAGAIN ? -ETIMEDOUT : ret;
}

/*
 * Wait for EQ event @want; *@datalen gets the bytes of connection data
 * that came with it.  An error entry is logged with its error data.
 */
static int rp_eq_wait(struct rp *r, u32 want, struct fi_eq_cm_entry *entry,
		      size_t len, size_t *datalen)
{
	struct fi_eq_err_entry err = {};
	char edata[FI_ERR_DATA_MAX];
	u32 event;
	ssize_t ret;

	*datalen = 0;
	ret = fi_eq_sread(r->eq, &event, entry, len, timeout_ms, 0);
	if (ret == -FI_EAVAIL) {
		err.err_data = edata;
		err.err_data_size = sizeof(edata);
		if (fi_eq_readerr(r->eq, &err, 0) > 0) {
			pr_err("connection error %d (%s), data '%.*s'\n",
			       err.err, fi_strerror(err.err),
			       (int)(err.err_data ? err.err_data_size : 0),
			       edata);
			return -err.err;
		}
	}
	if (ret < 0)
		return ret == -EAGAIN ? -ETIMEDOUT : ret;
	*datalen = ret - sizeof(*entry);
	if (event != want) {
		if (event == FI_CONNREQ)
			fi_freeinfo(entry->info);
		pr_err("EQ event %u, expected %u\n", event, want);
		return -EPROTO;
	}
	return 0;
}

/*
 * After a failed transfer: the connection event that explains it, if one
 * arrives within 5 s (FI_SHUTDOWN, or an error entry such as ENODEV when
 * the device went away or ETIMEDOUT when the peer vanished).
 */
static int rp_eq_report(struct rp *r, int ret)
{
	struct fi_eq_err_entry err = {};
	struct fi_eq_cm_entry e;
	u32 event;
	ssize_t n;

	n = fi_eq_sread(r->eq, &event, &e, sizeof(e), 5000, 0);
	if (n == -FI_EAVAIL && fi_eq_readerr(r->eq, &err, 0) > 0) {
		pr_info("connection error %d (%s)\n", err.err,
			fi_strerror(err.err));
		return -err.err;
	}
	if (n >= 0 && event == FI_SHUTDOWN)
		pr_info("connection shut down\n");
	return ret;
}

/* Keep the idle connection up to linger_ms and report how it ended. */
static int rp_linger(struct rp *r)
{
	struct fi_eq_err_entry err = {};
	struct fi_eq_cm_entry e;
	ktime_t start = ktime_get();
	u32 event;
	ssize_t n;

	n = fi_eq_sread(r->eq, &event, &e, sizeof(e), linger_ms, 0);
	if (n == -EAGAIN) {
		pr_info("connection idle for %u ms, still up\n", linger_ms);
		return 0;
	}
	if (n == -FI_EAVAIL && fi_eq_readerr(r->eq, &err, 0) > 0) {
		pr_info("connection error %d (%s) after %lld ms idle\n",
			err.err, fi_strerror(err.err),
			ktime_ms_delta(ktime_get(), start));
		return -err.err;
	}
	if (n >= 0 && event == FI_SHUTDOWN) {
		pr_info("connection shut down after %lld ms idle\n",
			ktime_ms_delta(ktime_get(), start));
		return -ECONNRESET;
	}
	return n < 0 ? n : -EPROTO;
}

static int rp_post_recv(struct rp *r)
{
	return fi_recv(r->ep, r->recv_buf, RP_ADV_LEN, NULL, FI_ADDR_UNSPEC,
		       r->recv_buf);
}

/* Wait for the next 16-byte message and repost the receive. */
static int rp_recv(struct rp *r)
{
	struct fi_cq_data_entry e;
	int ret;

	ret = rp_cq_wait(r->rxcq, &e);
	if (ret)
		return ret;
	if (e.len != RP_ADV_LEN) {
		pr_err("received bogus data, size %zu\n", e.len);
		return -EBADMSG;
	}
	return rp_post_recv(r);
}

static int rp_send(struct rp *r, u64 buf, u32 rkey, u32 len)
{
	struct fi_cq_data_entry e;
	int ret;

	r->send_buf->buf = cpu_to_be64(buf);
	r->send_buf->rkey = cpu_to_be32(rkey);
	r->send_buf->size = cpu_to_be32(len);
	ret = fi_send(r->ep, r->send_buf, RP_ADV_LEN, NULL, FI_ADDR_UNSPEC,
		      r->send_buf);
	if (ret)
		return ret;
	return rp_cq_wait(r->txcq, &e);
}

/* fi_setopt(FI_OPT_KEEPALIVE_MS), and read it back. */
static int rp_set_keepalive(struct rp *r)
{
	size_t ms = keepalive_ms, got = 0, len = sizeof(got);
	int ret;

	ret = fi_setopt(&r->ep->fid, FI_OPT_ENDPOINT, FI_OPT_KEEPALIVE_MS,
			&ms, sizeof(ms));
	if (!ret)
		ret = fi_getopt(&r->ep->fid, FI_OPT_ENDPOINT,
				FI_OPT_KEEPALIVE_MS, &got, &len);
	if (!ret && got != ms)
		ret = -EPROTO;
	if (ret)
		pr_err("FI_OPT_KEEPALIVE_MS: %d\n", ret);
	else
		pr_info("endpoint keepalive %zu ms\n", got);
	return ret;
}

static int rp_open_ep(struct rp *r)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA, .size = 64 };
	size_t may_sleep = 1;	/* every data call is made from module init */
	int ret;

	ret = fi_domain(r->fabric, r->info, &r->domain, NULL);
	if (!ret)
		ret = fi_cq_open(r->domain, &cq_attr, &r->txcq, NULL);
	if (!ret)
		ret = fi_cq_open(r->domain, &cq_attr, &r->rxcq, NULL);
	if (!ret)
		ret = fi_endpoint(r->domain, r->info, &r->ep, NULL);
	/* The endpoint consumed the connection request. */
	if (!ret)
		r->info->handle = NULL;
	if (!ret)
		ret = fi_setopt(&r->ep->fid, FI_OPT_ENDPOINT,
				FI_OPT_DATA_MAY_SLEEP, &may_sleep,
				sizeof(may_sleep));
	if (!ret)
		ret = fi_ep_bind(r->ep, &r->eq->fid, 0);
	if (!ret)
		ret = fi_ep_bind(r->ep, &r->txcq->fid, FI_SEND);
	if (!ret)
		ret = fi_ep_bind(r->ep, &r->rxcq->fid, FI_RECV);
	if (!ret)
		ret = fi_enable(r->ep);
	if (!ret && keepalive_ms)
		ret = rp_set_keepalive(r);
	if (ret)
		return ret;
	ret = fi_mr_reg(r->domain, r->rdma_buf, size,
			FI_READ | FI_WRITE | FI_REMOTE_WRITE,
			(uintptr_t)r->rdma_buf, 0, 0, &r->rdma_mr, NULL);
	if (!ret && !server)
		ret = fi_mr_reg(r->domain, r->start_buf, size,
				FI_REMOTE_READ, (uintptr_t)r->start_buf, 0, 0,
				&r->start_mr, NULL);
	if (ret)
		return ret;
	/* As rping: one receive posted before connecting. */
	return rp_post_recv(r);
}

/*
 * eq_full_ms: fill the EQ with user events, so that the connection
 * request comes to a full EQ (the provider holds it), and empty it only
 * after eq_full_ms; the request must then be the next event.
 */
static int rp_eq_fill(struct rp *r, size_t n)
{
	struct fi_eq_entry e = { .context = r };
	ssize_t ret;
	size_t i;

	for (i = 0; i < n; i++) {
		ret = fi_eq_write(r->eq, FI_NOTIFY, &e, sizeof(e), 0);
		if (ret != sizeof(e))
			return ret < 0 ? ret : -EIO;
	}
	return 0;
}

static int rp_eq_drain(struct rp *r, size_t n)
{
	struct fi_eq_entry e;
	u32 event;
	ssize_t ret;
	size_t i;

	pr_info("EQ full: emptied in %u ms\n", eq_full_ms);
	msleep(eq_full_ms);
	for (i = 0; i < n; i++) {
		ret = fi_eq_read(r->eq, &event, &e, sizeof(e), 0);
		if (ret != sizeof(e) || event != FI_NOTIFY || e.context != r) {
			pr_err("EQ entry %zu of %zu: %zd, event %u\n", i, n,
			       ret, event);
			return ret < 0 ? ret : -EPROTO;
		}
	}
	return 0;
}

static int rp_setup(struct rp *r)
{
	struct fi_eq_attr eq_attr = { .size = 16 };
	struct {
		struct fi_eq_cm_entry e;
		u8 data[FI_CM_DATA_MAX];
	} entry;
	size_t clen = cm_data ? strlen(cm_data) : 0;
	struct fi_info *hints;
	size_t alen = 64, dlen;
	u8 sa[64];
	int ret;

	hints = fi_allocinfo(GFP_KERNEL);
	if (!hints)
		return -ENOMEM;
	hints->caps = FI_MSG | FI_RMA;
	hints->ep_attr->type = FI_EP_MSG;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				      FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->fabric_attr->prov_name = kstrdup(prov, GFP_KERNEL);
	ret = hints->fabric_attr->prov_name ?
	      fi_getinfo(fi_version(), addr, port, server ? FI_SOURCE : 0,
			 hints, &r->info) : -ENOMEM;
	fi_freeinfo(hints);
	if (ret) {
		pr_err("fi_getinfo(%s): %d\n", prov, ret);
		return ret;
	}
	if (!(r->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR)) {
		pr_err("provider %s does not use virtual addresses\n", prov);
		return -EOPNOTSUPP;
	}
	ret = fi_fabric(r->info->fabric_attr, &r->fabric, NULL);
	if (!ret)
		ret = fi_eq_open(r->fabric, &eq_attr, &r->eq, NULL);
	if (ret)
		return ret;

	if (server) {
		ret = fi_passive_ep(r->fabric, r->info, &r->pep, NULL);
		if (!ret)
			ret = fi_pep_bind(r->pep, &r->eq->fid, 0);
		if (!ret && eq_full_ms)
			ret = rp_eq_fill(r, eq_attr.size);
		if (!ret)
			ret = fi_listen(r->pep);
		if (!ret)
			ret = fi_getname(&r->pep->fid, sa, &alen);
		if (ret) {
			pr_err("listen: %d\n", ret);
			return ret;
		}
		/* [IPv6]:port or IPv4:port */
		pr_info("listening on %pISpc\n", sa);
		if (eq_full_ms) {
			ret = rp_eq_drain(r, eq_attr.size);
			if (ret)
				return ret;
		}
		ret = rp_eq_wait(r, FI_CONNREQ, &entry.e, sizeof(entry), &dlen);
		if (ret)
			return ret;
		fi_freeinfo(r->info);
		r->info = entry.e.info;
		if (dlen)
			pr_info("connection request data '%.*s'\n", (int)dlen,
				entry.e.data);
		if (hold_ms) {
			pr_info("connection request held for %u ms\n", hold_ms);
			msleep(hold_ms);
		}
		if (reject) {
			ret = fi_reject(r->pep, r->info->handle, cm_data, clen);
			if (!ret)
				pr_info("connection request rejected\n");
			return ret ? ret : 1;
		}
		ret = rp_open_ep(r);
		if (ret) {
			pr_err("endpoint for the connection request: %d\n", ret);
			if (r->info->handle)
				fi_reject(r->pep, r->info->handle, NULL, 0);
			return ret;
		}
		ret = fi_accept(r->ep, cm_data, clen);
	} else {
		ret = rp_open_ep(r);
		if (!ret)
			ret = fi_connect(r->ep, r->info->dest_addr, cm_data,
					 clen);
	}
	if (ret)
		return ret;
	ret = rp_eq_wait(r, FI_CONNECTED, &entry.e, sizeof(entry), &dlen);
	if (!ret && dlen)
		pr_info("connected, data '%.*s'\n", (int)dlen, entry.e.data);
	return ret;
}

static void rp_fill(char *buf, unsigned int ping, char *start)
{
	int cc = snprintf(buf, size, "rdma-ping-%d: ", ping);
	unsigned int i;
	char c = *start;

	for (i = cc; i < size; i++) {
		buf[i] = c;
		if (++c > 'z')
			c = 'A';
	}
	if (++*start > 'z')
		*start = 'A';
	buf[size - 1] = '\0';
}

static int rp_client(struct rp *r)
{
	char start = 'A';
	int ret = 0;

	for (r->pings = 0; !count || r->pings < count; r->pings++) {
		rp_fill(r->start_buf, r->pings, &start);
		memset(r->rdma_buf, 0, size);
		ret = rp_send(r, (uintptr_t)r->start_buf, fi_mr_key(r->start_mr),
			      size);
		if (!ret)
			ret = rp_recv(r);	/* read done, go ahead */
		if (!ret)
			ret = rp_send(r, (uintptr_t)r->rdma_buf,
				      fi_mr_key(r->rdma_mr), size);
		if (!ret)
			ret = rp_recv(r);	/* write done */
		if (ret) {
			pr_err("ping %u: %d (%s)\n", r->pings, ret,
			       fi_strerror(-ret));
			return rp_eq_report(r, ret);
		}
		if (validate && memcmp(r->start_buf, r->rdma_buf, size)) {
			pr_err("data mismatch!\n");
			return -EBADMSG;
		}
		if (verbose)
			pr_info("ping data: %s\n", r->rdma_buf);
	}
	if (!linger_ms)
		return 0;
	pr_info("%u pings done, idling\n", r->pings);
	return rp_linger(r);
}

static int rp_server(struct rp *r)
{
	struct {
		struct fi_eq_cm_entry e;
		u8 data[FI_CM_DATA_MAX];
	} entry;
	struct fi_cq_data_entry e;
	u32 rsize, rkey;
	size_t dlen;
	u64 raddr;
	int ret;

	for (r->pings = 0;; r->pings++) {
		ret = rp_recv(r);		/* source advert */
		if (ret == -ECANCELED || ret == -ECONNRESET)
			break;			/* flushed: disconnected */
		if (ret)
			goto err;
		raddr = be64_to_cpu(r->recv_buf->buf);
		rkey = be32_to_cpu(r->recv_buf->rkey);
		rsize = be32_to_cpu(r->recv_buf->size);
		if (rsize > size) {
			pr_err("ping %u: advertised %u bytes, buffer %u\n",
			       r->pings, rsize, size);
			return -EMSGSIZE;
		}
		ret = fi_read(r->ep, r->rdma_buf, rsize, fi_mr_desc(r->rdma_mr),
			      FI_ADDR_UNSPEC, raddr, rkey, r);
		if (!ret)
			ret = rp_cq_wait(r->txcq, &e);
		if (ret)
			goto err;
		r->rdma_buf[size - 1] = '\0';
		if (verbose)
			pr_info("server ping data: %s\n", r->rdma_buf);
		ret = rp_send(r, 0, 0, 0);	/* go ahead */
		if (!ret)
			ret = rp_recv(r);	/* sink advert */
		if (ret)
			goto err;
		raddr = be64_to_cpu(r->recv_buf->buf);
		rkey = be32_to_cpu(r->recv_buf->rkey);
		ret = fi_write(r->ep, r->rdma_buf, strlen(r->rdma_buf) + 1,
			       fi_mr_desc(r->rdma_mr), FI_ADDR_UNSPEC, raddr,
			       rkey, r);
		if (!ret)
			ret = rp_cq_wait(r->txcq, &e);
		if (!ret)
			ret = rp_send(r, 0, 0, 0);	/* go ahead */
		if (ret == -ECANCELED && count && r->pings + 1 == count) {
			/*
			 * The client disconnects once the last go-ahead is
			 * there.  A transport may complete a receive before
			 * it acknowledges it (soft-RoCE does), so that can
			 * flush our send although it arrived; rping's server
			 * ignores flushed completions too.  The client checks
			 * what it got.
			 */
			r->pings++;
			break;
		}
		if (ret)
			goto err;
	}
	ret = rp_eq_wait(r, FI_SHUTDOWN, &entry.e, sizeof(entry), &dlen);
	if (ret)
		return ret;
	pr_info("server DISCONNECT EVENT after %u pings\n", r->pings);
	if (count && r->pings != count)
		return -EPROTO;
	return 0;
err:
	pr_err("ping %u: %d (%s)\n", r->pings, ret, fi_strerror(-ret));
	return rp_eq_report(r, ret);
}

static void rp_close_fid(struct fid *fid)
{
	int ret;

	if (!fid)
		return;
	ret = fi_close(fid);
	if (ret)
		pr_err("fi_close(class %u): %d\n", fid->fclass, ret);
}

static void rp_close(struct rp *r)
{
	if (r->ep)
		fi_shutdown(r->ep, 0);
	rp_close_fid(r->ep ? &r->ep->fid : NULL);
	rp_close_fid(r->pep ? &r->pep->fid : NULL);
	rp_close_fid(r->start_mr ? &r->start_mr->fid : NULL);
	rp_close_fid(r->rdma_mr ? &r->rdma_mr->fid : NULL);
	rp_close_fid(r->rxcq ? &r->rxcq->fid : NULL);
	rp_close_fid(r->txcq ? &r->txcq->fid : NULL);
	rp_close_fid(r->eq ? &r->eq->fid : NULL);
	rp_close_fid(r->domain ? &r->domain->fid : NULL);
	rp_close_fid(r->fabric ? &r->fabric->fid : NULL);
	fi_freeinfo(r->info);
	kfree(r->start_buf);
	kfree(r->rdma_buf);
	kfree(r->recv_buf);
	kfree(r->send_buf);
}

static int __init rp_init(void)
{
	struct rp r = {};
	int ret;

	if (size < RP_MIN_SIZE || size > 65536 || (!server && !addr)) {
		result = -EINVAL;
		return 0;
	}
	r.start_buf = kzalloc(size, GFP_KERNEL);
	r.rdma_buf = kzalloc(size, GFP_KERNEL);
	r.recv_buf = kzalloc(RP_ADV_LEN, GFP_KERNEL);
	r.send_buf = kzalloc(RP_ADV_LEN, GFP_KERNEL);
	ret = -ENOMEM;
	if (r.start_buf && r.rdma_buf && r.recv_buf && r.send_buf)
		ret = rp_setup(&r);
	if (ret == 1)		/* server: rejected, as asked */
		ret = 0;
	else if (!ret)
		ret = server ? rp_server(&r) : rp_client(&r);
	if (ret)
		pr_err("%s over %s failed after %u pings: %d (%s)\n",
		       server ? "server" : "client", prov, r.pings, ret,
		       fi_strerror(-ret));
	else
		pr_info("%s over %s: %u pings ok\n",
			server ? "server" : "client", prov, r.pings);
	rp_close(&r);
	result = ret;
	return 0;
}

static void __exit rp_exit(void)
{
}

module_init(rp_init);
module_exit(rp_exit);

MODULE_DESCRIPTION("kOFI sample: rping's protocol (librdmacm interop) over any provider");
MODULE_LICENSE("Dual BSD/GPL");
