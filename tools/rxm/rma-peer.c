// SPDX-License-Identifier: GPL-2.0
/*
 * rma-peer: a userspace libfabric peer of the kOFI pingpong sample's RMA
 * modes over reliable datagrams (samples/kofi_sample_pingpong.c,
 * ep_type=rdm op=write or op=read), built on the host against Debian's
 * libfabric and carried into the test guests by tools/vm/mkinitramfs.sh.
 *
 * It speaks the sample's schedule with libfabric's own FI_EP_RDM provider
 * (-p "tcp;ofi_rxm" or "verbs;ofi_rxm"), as the server (-s, listening for
 * the control connection on -P PORT) or the client (-c ADDR):
 *  - the control connection: the server sends its endpoint's name (be32
 *    length, u32 address format, the name), the client answers with its
 *    own; each inserts the other into its AV;
 *  - keys: the client sends {u64 address, u64 key} of its buffer (the
 *    address 0 unless the domain has FI_MR_VIRT_ADDR), the server answers
 *    with its own;
 *  - per size: a zero-byte message each way (client first), then
 *    op=write: -I times, the client fi_writedata()s message k into the
 *    second half of the server's buffer with remote CQ data k, the server
 *    checks it and writes message k + 1 back the same way (k counts up by
 *    two across sizes); op=read: the server fills the first half of its
 *    buffer with message 0 before the exchange, the client fi_read()s it
 *    -I times and checks it, and a zero-byte message each way ends the
 *    size;
 *  - a last zero-byte message each way, then each side shuts down its half
 *    of the control connection and waits for the other's; rma-peer then
 *    progresses for 200 ms before it closes (drain()).
 * Message k is the samples' pattern: byte i is
 * alphabet[((k * 7) % 62 + i) % 62].  Every transfer is checked; the
 * first error ends the run with exit status 1.
 *
 * usage: rma-peer -p PROV (-s | -c ADDR) [-P PORT] [-o write|read]
 *                 [-S SIZE,...] [-I ITERS] [-b ADDR]
 * -b binds the endpoint to ADDR (the server; the client binds it to its
 * end of the control connection).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#define ALPHABET "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define PERIOD (sizeof(ALPHABET) - 1)
#define MAX_SIZES 64
#define TIMEOUT_S 60

static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_ep *ep;
static struct fid_av *av;
static struct fid_cq *txcq, *rxcq;
static struct fid_mr *mr;
static struct fi_info *info;
static uint8_t *buf;
static size_t half;
static void *desc;
static fi_addr_t peer;
static uint64_t raddr, rkey;
static struct fi_context2 tx_ctx, rx_ctx;
static bool server;

static void die(const char *what, long ret)
{
	fprintf(stderr, "rma-peer: %s: %ld (%s)\n", what, ret,
		ret < 0 ? fi_strerror((int)-ret) : "");
	exit(1);
}

static char pattern(unsigned int k, size_t i)
{
	return ALPHABET[((k * 7) % PERIOD + i) % PERIOD];
}

static void fill(uint8_t *p, size_t len, unsigned int k)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern(k, i);
}

static void check(const uint8_t *p, size_t len, unsigned int k,
		  const char *what)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] != pattern(k, i)) {
			fprintf(stderr,
				"rma-peer: %s: data error: message %u, size %zu, byte %zu\n",
				what, k, len, i);
			exit(1);
		}
	}
}

/* Wait for one completion on @cq; libfabric progresses in the read. */
static void cq_wait(struct fid_cq *cq, struct fi_cq_data_entry *e,
		    const char *what)
{
	time_t end = time(NULL) + TIMEOUT_S;
	struct fi_cq_err_entry err = {};
	ssize_t n;

	for (;;) {
		n = fi_cq_read(cq, e, 1);
		if (n == 1)
			return;
		if (n == -FI_EAVAIL) {
			fi_cq_readerr(cq, &err, 0);
			fprintf(stderr, "rma-peer: %s: completion error %d (%s)\n",
				what, err.err, fi_strerror(err.err));
			exit(1);
		}
		if (n != -FI_EAGAIN)
			die(what, n);
		if (time(NULL) > end)
			die(what, -FI_ETIMEDOUT);
	}
}

/* Drive progress while a post answers -FI_EAGAIN. */
static void progress(void)
{
	fi_cq_read(txcq, NULL, 0);
	fi_cq_read(rxcq, NULL, 0);
}

/*
 * Post with @call, progressing while it answers -FI_EAGAIN (an RDM
 * endpoint does until its connection is up), for TIMEOUT_S at most; the
 * first other answer of @call ends the run as @what.
 */
#define POST(what, call) do {						\
	time_t end_ = time(NULL) + TIMEOUT_S;				\
	ssize_t ret_;							\
									\
	while ((ret_ = (call)) == -FI_EAGAIN && time(NULL) <= end_)	\
		progress();						\
	if (ret_)							\
		die(what, ret_);					\
} while (0)

static void post_recv(void)
{
	POST("fi_recv", fi_recv(ep, buf + half, half, desc, FI_ADDR_UNSPEC,
				&rx_ctx));
}

static void send_wait(size_t len)
{
	struct fi_cq_data_entry e;

	POST("fi_send", fi_send(ep, buf, len, desc, peer, &tx_ctx));
	cq_wait(txcq, &e, "send");
}

/* A message of exactly @len bytes; the receive posted again if @repost. */
static void recv_wait(size_t len, bool repost)
{
	struct fi_cq_data_entry e;

	cq_wait(rxcq, &e, "receive");
	if (!(e.flags & FI_RECV) || e.len != len) {
		fprintf(stderr,
			"rma-peer: received flags %llx, %zu bytes, expected a message of %zu\n",
			(unsigned long long)e.flags, e.len, len);
		exit(1);
	}
	if (repost)
		post_recv();
}

static void sync_peer(bool last)
{
	if (!server) {
		send_wait(0);
		recv_wait(0, !last);
	} else {
		recv_wait(0, !last);
		send_wait(0);
	}
}

static void write_to_peer(size_t len, unsigned int k)
{
	struct fi_cq_data_entry e;

	fill(buf, len, k);
	POST("fi_writedata", fi_writedata(ep, buf, len, desc, k, peer,
					  raddr + half, rkey, &tx_ctx));
	cq_wait(txcq, &e, "write");
}

static void written(size_t len, unsigned int k)
{
	struct fi_cq_data_entry e;

	cq_wait(rxcq, &e, "write notification");
	if (!(e.flags & FI_REMOTE_CQ_DATA) || e.data != k) {
		fprintf(stderr,
			"rma-peer: write notification: flags %llx data %llu, expected %u\n",
			(unsigned long long)e.flags,
			(unsigned long long)e.data, k);
		exit(1);
	}
	check(buf + half, len, k, "write");
}

static void read_from_peer(size_t len)
{
	struct fi_cq_data_entry e;

	memset(buf + half, 0, len);
	POST("fi_read", fi_read(ep, buf + half, len, desc, peer, raddr, rkey,
				&tx_ctx));
	cq_wait(txcq, &e, "read");
	check(buf + half, len, 0, "read");
}

static void xsend(int fd, const void *p, size_t len)
{
	if (send(fd, p, len, MSG_NOSIGNAL) != (ssize_t)len)
		die("control send", -errno);
}

static void xrecv(int fd, void *p, size_t len)
{
	if (recv(fd, p, len, MSG_WAITALL) != (ssize_t)len)
		die("control receive", -errno);
}

static void send_name(int fd)
{
	char name[128];
	size_t len = sizeof(name);
	uint32_t blen, fmt = info->addr_format;
	int ret;

	ret = fi_getname(&ep->fid, name, &len);
	if (ret)
		die("fi_getname", ret);
	blen = htonl(len);
	xsend(fd, &blen, sizeof(blen));
	xsend(fd, &fmt, sizeof(fmt));
	xsend(fd, name, len);
}

static void recv_name_insert(int fd)
{
	char name[128] = {};
	uint32_t blen, fmt;
	int ret;

	xrecv(fd, &blen, sizeof(blen));
	xrecv(fd, &fmt, sizeof(fmt));
	blen = ntohl(blen);
	if (!blen || blen > sizeof(name))
		die("peer's name length", blen);
	xrecv(fd, name, blen);
	ret = fi_av_insert(av, name, 1, &peer, 0, NULL);
	if (ret != 1)
		die("fi_av_insert", ret);
}

/* The control connection: the server accepts one on @port. */
static int ctrl_open(const char *addr, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	time_t end = time(NULL) + TIMEOUT_S;
	int fd, lfd, one = 1;

	if (server)
		hints.ai_flags = AI_PASSIVE;
	if (getaddrinfo(addr, port, &hints, &ai))
		die("getaddrinfo", -EINVAL);
	if (server) {
		lfd = socket(ai->ai_family, SOCK_STREAM, 0);
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd, ai->ai_addr, ai->ai_addrlen) || listen(lfd, 1))
			die("control listen", -errno);
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("control accept", -errno);
		close(lfd);
	} else {
		for (;;) {
			fd = socket(ai->ai_family, SOCK_STREAM, 0);
			if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
				break;
			close(fd);
			if (errno != ECONNREFUSED || time(NULL) > end)
				die("control connect", -errno);
			usleep(200000);
		}
	}
	freeaddrinfo(ai);
	return fd;
}

/* The numeric address of our end of @fd. */
static void ctrl_local(int fd, char *node, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) ||
	    getnameinfo((struct sockaddr *)&ss, sl, node, len, NULL, 0,
			NI_NUMERICHOST))
		die("getsockname", -errno);
}

static void open_fabric(const char *prov, const char *node)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fi_info *hints = fi_allocinfo();
	uint64_t offset = 0;
	int ret;

	if (!hints)
		die("fi_allocinfo", -FI_ENOMEM);
	hints->caps = FI_MSG | FI_RMA;
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	hints->ep_attr->type = FI_EP_RDM;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				      FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->fabric_attr->prov_name = strdup(prov);
	ret = fi_getinfo(FI_VERSION(1, 17), node, "0", FI_SOURCE, hints,
			 &info);
	fi_freeinfo(hints);
	if (ret)
		die("fi_getinfo", ret);
	printf("rma-peer: provider %s, domain %s, mr_mode 0x%x\n",
	       info->fabric_attr->prov_name, info->domain_attr->name,
	       info->domain_attr->mr_mode);
	ret = fi_fabric(info->fabric_attr, &fabric, NULL);
	if (!ret)
		ret = fi_domain(fabric, info, &domain, NULL);
	if (!ret)
		ret = fi_cq_open(domain, &cq_attr, &txcq, NULL);
	if (!ret)
		ret = fi_cq_open(domain, &cq_attr, &rxcq, NULL);
	if (!ret)
		ret = fi_av_open(domain, &av_attr, &av, NULL);
	if (!ret)
		ret = fi_endpoint(domain, info, &ep, NULL);
	if (!ret)
		ret = fi_ep_bind(ep, &txcq->fid, FI_TRANSMIT);
	if (!ret)
		ret = fi_ep_bind(ep, &rxcq->fid, FI_RECV);
	if (!ret)
		ret = fi_ep_bind(ep, &av->fid, 0);
	if (!ret)
		ret = fi_enable(ep);
	if (ret)
		die("endpoint setup", ret);
	buf = aligned_alloc(4096, (2 * half + 4095) & ~4095UL);
	if (!buf)
		die("buffer", -FI_ENOMEM);
	memset(buf, 0, 2 * half);
	if (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR)
		offset = (uintptr_t)buf;
	ret = fi_mr_reg(domain, buf, 2 * half,
			FI_SEND | FI_RECV | FI_READ | FI_WRITE |
			FI_REMOTE_READ | FI_REMOTE_WRITE, offset, 0, 0, &mr,
			NULL);
	if (ret)
		die("fi_mr_reg", ret);
	desc = fi_mr_desc(mr);
	post_recv();
}

/* Keys both ways, the client first; the receive is posted again. */
static void exchange_keys(void)
{
	uint64_t *tx = (uint64_t *)buf, *rx = (uint64_t *)(buf + half);

	tx[0] = info->domain_attr->mr_mode & FI_MR_VIRT_ADDR ?
		(uintptr_t)buf : 0;
	tx[1] = fi_mr_key(mr);
	if (!server)
		send_wait(2 * sizeof(uint64_t));
	recv_wait(2 * sizeof(uint64_t), false);
	raddr = rx[0];
	rkey = rx[1];
	post_recv();
	if (server)
		send_wait(2 * sizeof(uint64_t));
}

/*
 * Progress for a while before closing: libfabric 1.17's rxm closes a
 * connection's verbs endpoint before it handles what is left in its CQ,
 * and a credit grant the peer sent after our last read of the CQ would
 * then be handed to the closed endpoint (a crash in fi_close()).
 */
static void drain(void)
{
	struct timespec ts = { .tv_nsec = 1000000 };
	int i;

	for (i = 0; i < 200; i++) {
		progress();
		nanosleep(&ts, NULL);
	}
}

/* Shut down our half of the control connection; wait for the peer's. */
static void ctrl_end(int fd)
{
	char c[16];

	shutdown(fd, SHUT_WR);
	while (recv(fd, c, sizeof(c), 0) > 0)
		;
	close(fd);
}

int main(int argc, char **argv)
{
	const char *prov = NULL, *addr = NULL, *bind_addr = NULL;
	const char *port = "7471", *op = "write";
	char *sizes_arg = strdup("1,4096,65536"), *s;
	unsigned int sizes[MAX_SIZES], nsizes = 0, iters = 4, i, j, k = 0;
	char local[NI_MAXHOST];
	int fd, c;

	while ((c = getopt(argc, argv, "p:sc:P:o:S:I:b:")) != -1) {
		switch (c) {
		case 'p':
			prov = optarg;
			break;
		case 's':
			server = true;
			break;
		case 'c':
			addr = optarg;
			break;
		case 'P':
			port = optarg;
			break;
		case 'o':
			op = optarg;
			break;
		case 'S':
			sizes_arg = optarg;
			break;
		case 'I':
			iters = atoi(optarg);
			break;
		case 'b':
			bind_addr = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!prov || server == !!addr ||
	    (strcmp(op, "write") && strcmp(op, "read"))) {
		fprintf(stderr,
			"usage: rma-peer -p PROV (-s | -c ADDR) [-P PORT] [-o write|read] [-S SIZE,...] [-I ITERS] [-b ADDR]\n");
		return 2;
	}
	for (s = strtok(sizes_arg, ","); s && nsizes < MAX_SIZES;
	     s = strtok(NULL, ",")) {
		sizes[nsizes] = strtoul(s, NULL, 0);
		if (sizes[nsizes] > half)
			half = sizes[nsizes];
		nsizes++;
	}
	if (half < 64)
		half = 64;
	fd = ctrl_open(server ? bind_addr : addr, port);
	if (!server || !bind_addr)
		ctrl_local(fd, local, sizeof(local));
	open_fabric(prov, server && bind_addr ? bind_addr : local);
	if (server) {
		send_name(fd);
		recv_name_insert(fd);
	} else {
		recv_name_insert(fd);
		send_name(fd);
	}
	exchange_keys();
	for (i = 0; i < nsizes; i++) {
		size_t len = sizes[i];

		if (!strcmp(op, "read") && server)
			fill(buf, len, 0);
		sync_peer(false);
		if (!strcmp(op, "read")) {
			for (j = 0; j < iters && !server; j++)
				read_from_peer(len);
			sync_peer(false);
		} else {
			for (j = 0; j < iters; j++, k += 2) {
				if (!server) {
					write_to_peer(len, k);
					written(len, k + 1);
				} else {
					written(len, k);
					write_to_peer(len, k + 1);
				}
			}
		}
		printf("rma-peer: %s %zu bytes x %u: ok\n", op, len, iters);
	}
	sync_peer(true);
	ctrl_end(fd);
	drain();
	fi_close(&ep->fid);
	fi_close(&mr->fid);
	fi_close(&av->fid);
	fi_close(&rxcq->fid);
	fi_close(&txcq->fid);
	fi_close(&domain->fid);
	fi_close(&fabric->fid);
	fi_freeinfo(info);
	printf("rma-peer: %s done\n", server ? "server" : "client");
	return 0;
}
