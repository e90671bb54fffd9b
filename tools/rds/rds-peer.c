// SPDX-License-Identifier: GPL-2.0
/*
 * rds-peer: a userspace AF_RDS peer of the kOFI rds provider's sample
 * (samples/kofi_sample_rds.c), built on the host and carried into the test
 * guests by tools/vm/mkinitramfs.sh.
 *
 * It binds an RDS socket over TCP (or, with -T ib, over InfiniBand: any
 * RDMA device, soft-RoCE included) to ADDR:PORT and follows the sample's
 * schedule with the peer PEER:PPORT: message k (from 0) has sizes[k / iters]
 * bytes for the first nsizes * iters messages, then burst_size bytes for
 * burst more, and byte i of it is the samples' pattern of k.  -r send
 * sends each message of the first part and waits for its echo, then sends
 * the burst and receives its echoes; -r echo receives every message and
 * sends it back.  Every message's length, data and sender are checked.
 * At the end the sender sends one more message, of 0 bytes, that the echo
 * side waits for and does not echo: closing an RDS socket drops what it
 * has not yet transmitted, so the echo side closes only once the sender
 * has all its echoes, and the sender lingers a second before it closes.
 *
 * -R sets the receive buffer (RDS marks the port congested above half of
 * it) and -d makes -r echo sleep before it receives the burst, so that a
 * sender meets RDS's congestion control.  -c prints RDS's counter NAME of
 * this host (as "NAME VALUE") and exits.
 *
 * usage: rds-peer -r send|echo -b ADDR:PORT -p PEER:PPORT [-T tcp|ib]
 *                 [-s SIZE,SIZE...] [-i ITERS] [-n BURST] [-z BURST_SIZE]
 *                 [-t SECONDS] [-R RCVBUF] [-d MS]
 *        rds-peer -c NAME
 * Exits 0 when every message was verified, 1 otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef AF_RDS
#define AF_RDS			21
#endif
#ifndef SOL_RDS
#define SOL_RDS			276
#endif
#define MAX_SIZE		(1024 * 1024)
#define SOCK_BUF		(8 * MAX_SIZE)
#define NSIZES_MAX		16

static unsigned int sizes[NSIZES_MAX] = { 0, 1, 64, 4096, 65536, 1048576 };
static unsigned int nsizes = 6, iters = 4, burst = 32, burst_size = 65536;
static unsigned int burst_delay_ms;
static struct sockaddr_in peer;
static unsigned char *txbuf, *rxbuf;

/* Message @k's size; the last message, after the burst, is empty. */
static size_t msg_size(unsigned int k)
{
	if (k < nsizes * iters)
		return sizes[k / iters];
	return k < nsizes * iters + burst ? burst_size : 0;
}

/* Byte @i of message @k: as ks_pattern() of samples/kofi_sample.h. */
static unsigned char pattern(unsigned int k, size_t i)
{
	static const char alphabet[] =
		"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

	return alphabet[(k * 7 + i) % (sizeof(alphabet) - 1)];
}

static int parse_addr(const char *s, struct sockaddr_in *sin)
{
	char host[64];
	const char *colon = strrchr(s, ':');

	if (!colon || colon - s >= (int)sizeof(host))
		return -1;
	memcpy(host, s, colon - s);
	host[colon - s] = '\0';
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(atoi(colon + 1));
	return inet_pton(AF_INET, host, &sin->sin_addr) == 1 ? 0 : -1;
}

static int send_msg(int fd, const unsigned char *buf, size_t len,
		    unsigned int k)
{
	ssize_t n = sendto(fd, buf, len, 0, (struct sockaddr *)&peer,
			   sizeof(peer));

	if (n != (ssize_t)len) {
		fprintf(stderr, "message %u: sendto: %zd (%s)\n", k, n,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Receive message @k into rxbuf and check its length, data and sender. */
static int recv_msg(int fd, unsigned int k)
{
	struct sockaddr_in from;
	socklen_t fromlen = sizeof(from);
	size_t len = msg_size(k), i;
	ssize_t n;

	n = recvfrom(fd, rxbuf, MAX_SIZE, MSG_TRUNC, (struct sockaddr *)&from,
		     &fromlen);
	if (n < 0) {
		fprintf(stderr, "message %u: recvfrom: %s\n", k,
			strerror(errno));
		return -1;
	}
	if ((size_t)n != len || from.sin_addr.s_addr != peer.sin_addr.s_addr ||
	    from.sin_port != peer.sin_port) {
		fprintf(stderr, "message %u: %zd bytes (want %zu) from %s:%u\n",
			k, n, len, inet_ntoa(from.sin_addr),
			ntohs(from.sin_port));
		return -1;
	}
	for (i = 0; i < len; i++) {
		if (rxbuf[i] != pattern(k, i)) {
			fprintf(stderr, "message %u: bad data at byte %zu\n",
				k, i);
			return -1;
		}
	}
	return 0;
}

static void fill(unsigned char *buf, size_t len, unsigned int k)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pattern(k, i);
}

static int run_send(int fd)
{
	unsigned int k, n = nsizes * iters;

	for (k = 0; k < n; k++) {
		fill(txbuf, msg_size(k), k);
		if (send_msg(fd, txbuf, msg_size(k), k) || recv_msg(fd, k))
			return -1;
	}
	for (; k < n + burst; k++) {
		fill(txbuf, burst_size, k);
		if (send_msg(fd, txbuf, burst_size, k))
			return -1;
	}
	for (k = n; k < n + burst; k++)
		if (recv_msg(fd, k))
			return -1;
	if (send_msg(fd, txbuf, 0, k))
		return -1;
	sleep(1);
	return 0;
}

static int run_echo(int fd)
{
	unsigned int k;

	for (k = 0; k < nsizes * iters + burst; k++) {
		if (k == nsizes * iters && burst_delay_ms)
			usleep(burst_delay_ms * 1000);
		if (recv_msg(fd, k) || send_msg(fd, rxbuf, msg_size(k), k))
			return -1;
	}
	return recv_msg(fd, k);
}

/* Print RDS's counter @name of this host. */
static int print_counter(int fd, const char *name)
{
	struct rds_info_counter *c;
	socklen_t len = 0;
	unsigned int i;

	/* The first call fails with ENOSPC and says the size needed. */
	getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, NULL, &len);
	c = malloc(len ? len : 1);
	if (!c || getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, c, &len) < 0) {
		perror("RDS_INFO_COUNTERS");
		return -1;
	}
	for (i = 0; i < len / sizeof(*c); i++) {
		if (!strncmp((char *)c[i].name, name, sizeof(c[i].name))) {
			printf("%s %llu\n", name,
			       (unsigned long long)c[i].value);
			free(c);
			return 0;
		}
	}
	fprintf(stderr, "no RDS counter %s\n", name);
	free(c);
	return -1;
}

static int parse_sizes(char *s)
{
	char *tok;

	nsizes = 0;
	for (tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		if (nsizes == NSIZES_MAX)
			return -1;
		sizes[nsizes] = strtoul(tok, NULL, 0);
		if (sizes[nsizes++] > MAX_SIZE)
			return -1;
	}
	return nsizes ? 0 : -1;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"%s: -r send|echo -b ADDR:PORT -p PEER:PPORT [-T tcp|ib] [-s SIZES] [-i ITERS] [-n BURST] [-z BURST_SIZE] [-t SECONDS] [-R RCVBUF] [-d MS] | -c NAME\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	int fd, opt, val, rcvbuf = SOCK_BUF, transport = RDS_TRANS_TCP, ret;
	struct timeval tv = { .tv_sec = 60 };
	struct sockaddr_in self;
	const char *role = NULL, *counter = NULL;
	int have_self = 0, have_peer = 0;

	while ((opt = getopt(argc, argv, "r:b:p:T:s:i:n:z:t:R:d:c:")) != -1) {
		switch (opt) {
		case 'r':
			role = optarg;
			break;
		case 'b':
			if (parse_addr(optarg, &self))
				usage(argv[0]);
			have_self = 1;
			break;
		case 'p':
			if (parse_addr(optarg, &peer))
				usage(argv[0]);
			have_peer = 1;
			break;
		case 'T':
			if (!strcmp(optarg, "tcp"))
				transport = RDS_TRANS_TCP;
			else if (!strcmp(optarg, "ib"))
				transport = RDS_TRANS_IB;
			else
				usage(argv[0]);
			break;
		case 's':
			if (parse_sizes(optarg))
				usage(argv[0]);
			break;
		case 'i':
			iters = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			burst = strtoul(optarg, NULL, 0);
			break;
		case 'z':
			burst_size = strtoul(optarg, NULL, 0);
			break;
		case 't':
			tv.tv_sec = strtoul(optarg, NULL, 0);
			break;
		case 'R':
			rcvbuf = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			burst_delay_ms = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			counter = optarg;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (counter) {
		fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
		if (fd < 0) {
			perror("socket(AF_RDS)");
			return 1;
		}
		ret = print_counter(fd, counter);
		close(fd);
		return ret ? 1 : 0;
	}
	if (!role || !have_self || !have_peer || burst_size > MAX_SIZE ||
	    (strcmp(role, "send") && strcmp(role, "echo")))
		usage(argv[0]);
	txbuf = malloc(MAX_SIZE);
	rxbuf = malloc(MAX_SIZE);
	if (!txbuf || !rxbuf)
		return 1;
	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (fd < 0) {
		perror("socket(AF_RDS)");
		return 1;
	}
	/* The transport before bind; buffers for 1 MiB messages. */
	val = SOCK_BUF;
	if (setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &transport,
		       sizeof(transport)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &val, sizeof(val)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))) {
		perror("setsockopt");
		return 1;
	}
	if (bind(fd, (struct sockaddr *)&self, sizeof(self))) {
		perror("bind");
		return 1;
	}
	printf("rds-peer: %s over %s, %u sizes x %u, burst %u x %u\n", role,
	       transport == RDS_TRANS_IB ? "ib" : "tcp", nsizes, iters, burst,
	       burst_size);
	fflush(stdout);
	ret = !strcmp(role, "send") ? run_send(fd) : run_echo(fd);
	close(fd);
	printf("rds-peer: %s\n", ret ? "FAILED" : "every message verified");
	return ret ? 1 : 0;
}
