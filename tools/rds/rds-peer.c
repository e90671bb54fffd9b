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
 * -r ping instead sends RDS pings to PEER (its kernel answers them) once a
 * second until one is answered or -t SECONDS pass: RDS/TCP then has its
 * connection to PEER, made from this host.  ADDR and PEER are IPv4 or
 * IPv6 addresses ("[fd00::1]:4000" or "fd00::1:4000").
 *
 * -R sets the receive buffer of -r echo for the burst (8 MiB before it;
 * the kernel doubles it, and RDS marks the port congested once more than
 * half the doubled buffer - RCVBUF bytes - wait in the socket), and -d
 * makes -r echo wait before it receives the burst until its port is
 * congested (at most MS), then a second more, so that a sender meets
 * RDS's congestion control; -g makes it take the burst's messages GAP ms
 * apart, so that the port's congestion changes slowly: RDS/TCP sends
 * congestion updates on any of its paths, and two sent close together
 * can arrive in the wrong order.  -c prints RDS's counter NAME of
 * this host (as "NAME VALUE") and exits.  -I prints RDS's state on this
 * host - its IPv6-form connections, TCP sockets, messages on send queues
 * and counters that are not zero, one per line - and exits.
 *
 * usage: rds-peer -r send|echo|ping -b ADDR:PORT -p PEER:PPORT [-T tcp|ib]
 *                 [-s SIZE,SIZE...] [-i ITERS] [-n BURST] [-z BURST_SIZE]
 *                 [-t SECONDS] [-R RCVBUF] [-d MS] [-g GAP]
 *        rds-peer -c NAME
 *        rds-peer -I
 * Exits 0 when every message was verified (the ping answered), 1
 * otherwise.
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
static unsigned int burst_delay_ms, burst_gap_ms;
static int burst_rcvbuf;
static struct sockaddr_in6 peer;
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

/* @in4 as the IPv4-mapped address of @sin6. */
static void set_v4mapped(struct sockaddr_in6 *sin6, const struct in_addr *in4)
{
	memset(&sin6->sin6_addr, 0, sizeof(sin6->sin6_addr));
	sin6->sin6_addr.s6_addr[10] = 0xff;
	sin6->sin6_addr.s6_addr[11] = 0xff;
	memcpy(&sin6->sin6_addr.s6_addr[12], in4, sizeof(*in4));
}

/*
 * ADDR:PORT into @sin6, ADDR an IPv4 address (as an IPv4-mapped one,
 * which RDS takes for IPv4) or an IPv6 address, in brackets or not.
 */
static int parse_addr(const char *s, struct sockaddr_in6 *sin6)
{
	char host[INET6_ADDRSTRLEN + 2], *h = host;
	const char *colon = strrchr(s, ':');
	struct in_addr in4;
	size_t n;

	if (!colon || colon - s >= (int)sizeof(host))
		return -1;
	n = colon - s;
	memcpy(host, s, n);
	host[n] = '\0';
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		host[n - 1] = '\0';
		h++;
	}
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(atoi(colon + 1));
	if (inet_pton(AF_INET, h, &in4) == 1) {
		set_v4mapped(sin6, &in4);
		return 0;
	}
	return inet_pton(AF_INET6, h, &sin6->sin6_addr) == 1 ? 0 : -1;
}

/* @ss, a sockaddr_in or sockaddr_in6 from RDS, in the form of parse_addr(). */
static void to_in6(const struct sockaddr_storage *ss, struct sockaddr_in6 *out)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

	if (ss->ss_family == AF_INET6) {
		memcpy(out, ss, sizeof(*out));
		return;
	}
	memset(out, 0, sizeof(*out));
	out->sin6_family = AF_INET6;
	out->sin6_port = sin->sin_port;
	set_v4mapped(out, &sin->sin_addr);
}

/* ADDR:PORT of @sin6 as text, in a static buffer. */
static const char *addr_str(const struct sockaddr_in6 *sin6)
{
	static char buf[INET6_ADDRSTRLEN + 8];
	char a[INET6_ADDRSTRLEN];

	snprintf(buf, sizeof(buf), "[%s]:%u",
		 inet_ntop(AF_INET6, &sin6->sin6_addr, a, sizeof(a)) ? a : "?",
		 ntohs(sin6->sin6_port));
	return buf;
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
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	struct sockaddr_in6 from;
	size_t len = msg_size(k), i;
	ssize_t n;

	n = recvfrom(fd, rxbuf, MAX_SIZE, MSG_TRUNC, (struct sockaddr *)&ss,
		     &sslen);
	if (n < 0) {
		fprintf(stderr, "message %u: recvfrom: %s\n", k,
			strerror(errno));
		return -1;
	}
	to_in6(&ss, &from);
	if ((size_t)n != len ||
	    memcmp(&from.sin6_addr, &peer.sin6_addr, sizeof(from.sin6_addr)) ||
	    from.sin6_port != peer.sin6_port) {
		fprintf(stderr, "message %u: %zd bytes (want %zu) from %s\n",
			k, n, len, addr_str(&from));
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

/* RDS's counter @name of this host into *@value. */
static int get_counter(int fd, const char *name, unsigned long long *value)
{
	struct rds_info_counter *c;
	socklen_t len = 0;
	unsigned int i;

	/* The first call fails with ENOSPC and says the size needed. */
	getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, NULL, &len);
	c = malloc(len ? len : 1);
	if (!c || getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, c, &len) < 0) {
		perror("RDS_INFO_COUNTERS");
		free(c);
		return -1;
	}
	for (i = 0; i < len / sizeof(*c); i++) {
		if (!strncmp((char *)c[i].name, name, sizeof(c[i].name))) {
			*value = c[i].value;
			free(c);
			return 0;
		}
	}
	fprintf(stderr, "no RDS counter %s\n", name);
	free(c);
	return -1;
}

/* Print RDS's counter @name of this host. */
static int print_counter(int fd, const char *name)
{
	unsigned long long value;

	if (get_counter(fd, name, &value))
		return -1;
	printf("%s %llu\n", name, value);
	return 0;
}

/*
 * Before the burst (-d): wait until RDS marked a port of this host
 * congested - its counter cong_update_queued grows - for at most
 * burst_delay_ms, then a second more, in which the sender's sends to the
 * port are refused.  Waiting for the congestion instead of a fixed time
 * makes it certain however slowly the sender's messages come.
 */
static int wait_congested(int fd)
{
	unsigned long long start, now;
	unsigned int waited;

	if (get_counter(fd, "cong_update_queued", &start))
		return -1;
	for (waited = 0; waited < burst_delay_ms; waited += 10) {
		if (get_counter(fd, "cong_update_queued", &now))
			return -1;
		if (now > start)
			break;
		usleep(10000);
	}
	printf("rds-peer: %s after %u ms\n",
	       waited < burst_delay_ms ? "congested" : "not congested",
	       waited);
	fflush(stdout);
	sleep(1);
	return 0;
}

/* Before the burst: its receive buffer (-R), then wait for congestion (-d). */
static int start_burst(int fd)
{
	if (burst_rcvbuf &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &burst_rcvbuf,
		       sizeof(burst_rcvbuf))) {
		perror("SO_RCVBUFFORCE");
		return -1;
	}
	return burst_delay_ms ? wait_congested(fd) : 0;
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
		if (k == nsizes * iters && start_burst(fd))
			return -1;
		if (k >= nsizes * iters && burst_gap_ms)
			usleep(burst_gap_ms * 1000);
		if (recv_msg(fd, k) || send_msg(fd, rxbuf, msg_size(k), k))
			return -1;
	}
	return recv_msg(fd, k);
}

/*
 * Send RDS pings - empty messages to port 0 of the peer, which its kernel
 * answers from port 0 - once a second until one is answered or @secs
 * pass.  Each is sent without waiting: a blocking send of a new
 * connection's first message may wait for the peer without a bound.
 */
static int run_ping(int fd, unsigned int secs)
{
	struct timeval one = { .tv_sec = 1 };
	struct sockaddr_storage ss;
	struct sockaddr_in6 from;
	socklen_t sslen;
	unsigned int i;
	char c;

	peer.sin6_port = 0;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &one, sizeof(one))) {
		perror("SO_RCVTIMEO");
		return -1;
	}
	for (i = 0; i < secs; i++) {
		if (sendto(fd, &c, 0, MSG_DONTWAIT, (struct sockaddr *)&peer,
			   sizeof(peer)) < 0 && errno != EAGAIN &&
		    errno != ENOBUFS) {
			perror("sendto");
			return -1;
		}
		sslen = sizeof(ss);
		if (recvfrom(fd, &c, sizeof(c), 0, (struct sockaddr *)&ss,
			     &sslen) < 0)
			continue;
		to_in6(&ss, &from);
		if (!memcmp(&from.sin6_addr, &peer.sin6_addr,
			    sizeof(from.sin6_addr)) && !from.sin6_port) {
			printf("rds-peer: %s answered ping %u\n",
			       addr_str(&peer), i + 1);
			return 0;
		}
	}
	fprintf(stderr, "rds-peer: no answer from %s in %u s\n",
		addr_str(&peer), secs);
	return -1;
}

/*
 * RDS's table @opt of this host, in a buffer of its own that the caller
 * frees; *@len is its length in bytes and *@each an entry's.
 */
static void *get_info(int fd, int opt, socklen_t *len, int *each)
{
	void *buf = NULL;
	int n;

	*len = 0;
	for (;;) {
		n = getsockopt(fd, SOL_RDS, opt, buf, len);
		if (n >= 0) {
			*each = n;
			return buf;
		}
		free(buf);
		if (errno != ENOSPC)
			return NULL;
		/* The table may grow between the two calls. */
		*len += 4096;
		buf = calloc(1, *len);
		if (!buf)
			return NULL;
	}
}

/* @a (unaligned, in a packed RDS table) as text in @buf. */
static const char *addr6(const void *a, char *buf)
{
	struct in6_addr in6;

	memcpy(&in6, a, sizeof(in6));
	return inet_ntop(AF_INET6, &in6, buf, INET6_ADDRSTRLEN) ? buf : "?";
}

/* Entry @i of a table whose entries are @each bytes, copied to @out. */
static void *entry(const void *table, int i, int each, void *out, size_t n)
{
	memcpy(out, (const char *)table + (size_t)i * each,
	       each < (int)n ? (size_t)each : n);
	return out;
}

/* Print RDS's connections, TCP sockets, send queues and counters. */
static int print_state(int fd)
{
	char l[INET6_ADDRSTRLEN], f[INET6_ADDRSTRLEN];
	struct rds6_info_connection c;
	struct rds6_info_tcp_socket t;
	struct rds6_info_message m;
	struct rds_info_counter k;
	socklen_t len;
	int each, i;
	void *tab;

	tab = get_info(fd, RDS6_INFO_CONNECTIONS, &len, &each);
	for (i = 0; tab && each && i < (int)(len / each); i++) {
		entry(tab, i, each, &c, sizeof(c));
		printf("conn %s %s %.*s flags %#x tx_seq %llu rx_seq %llu\n",
		       addr6(&c.laddr, l), addr6(&c.faddr, f), TRANSNAMSIZ,
		       (char *)c.transport, c.flags,
		       (unsigned long long)c.next_tx_seq,
		       (unsigned long long)c.next_rx_seq);
	}
	free(tab);
	tab = get_info(fd, RDS6_INFO_TCP_SOCKETS, &len, &each);
	for (i = 0; tab && each && i < (int)(len / each); i++) {
		entry(tab, i, each, &t, sizeof(t));
		printf("tcp [%s]:%u [%s]:%u hdr_rem %llu data_rem %llu",
		       addr6(&t.local_addr, l), ntohs(t.local_port),
		       addr6(&t.peer_addr, f), ntohs(t.peer_port),
		       (unsigned long long)t.hdr_rem,
		       (unsigned long long)t.data_rem);
		printf(" sent_nxt %u expected_una %u seen_una %u\n",
		       t.last_sent_nxt, t.last_expected_una, t.last_seen_una);
	}
	free(tab);
	tab = get_info(fd, RDS6_INFO_SEND_MESSAGES, &len, &each);
	for (i = 0; tab && each && i < (int)(len / each); i++) {
		entry(tab, i, each, &m, sizeof(m));
		printf("queued seq %llu len %u [%s]:%u -> [%s]:%u\n",
		       (unsigned long long)m.seq, m.len, addr6(&m.laddr, l),
		       ntohs(m.lport), addr6(&m.faddr, f), ntohs(m.fport));
	}
	free(tab);
	tab = get_info(fd, RDS_INFO_COUNTERS, &len, &each);
	if (!tab || !each) {
		perror("RDS_INFO_COUNTERS");
		free(tab);
		return -1;
	}
	for (i = 0; i < (int)(len / each); i++) {
		entry(tab, i, each, &k, sizeof(k));
		if (k.value)
			printf("counter %.32s %llu\n", (char *)k.name,
			       (unsigned long long)k.value);
	}
	free(tab);
	return 0;
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
		"%s: -r send|echo|ping -b ADDR:PORT -p PEER:PPORT [-T tcp|ib] [-s SIZES] [-i ITERS] [-n BURST] [-z BURST_SIZE] [-t SECONDS] [-R RCVBUF] [-d MS] [-g GAP] | -c NAME | -I\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	int fd, opt, val, transport = RDS_TRANS_TCP, ret;
	struct timeval tv = { .tv_sec = 60 };
	struct sockaddr_in6 self;
	const char *role = NULL, *counter = NULL;
	int have_self = 0, have_peer = 0, state = 0;

	while ((opt = getopt(argc, argv, "r:b:p:T:s:i:n:z:t:R:d:g:c:I")) != -1) {
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
			burst_rcvbuf = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			burst_delay_ms = strtoul(optarg, NULL, 0);
			break;
		case 'g':
			burst_gap_ms = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			counter = optarg;
			break;
		case 'I':
			state = 1;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (counter || state) {
		fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
		if (fd < 0) {
			perror("socket(AF_RDS)");
			return 1;
		}
		ret = counter ? print_counter(fd, counter) : print_state(fd);
		close(fd);
		return ret ? 1 : 0;
	}
	if (!role || !have_self || !have_peer || burst_size > MAX_SIZE ||
	    (strcmp(role, "send") && strcmp(role, "echo") &&
	     strcmp(role, "ping")))
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
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &val, sizeof(val)) ||
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
	if (!strcmp(role, "ping")) {
		ret = run_ping(fd, tv.tv_sec);
		close(fd);
		return ret ? 1 : 0;
	}
	ret = !strcmp(role, "send") ? run_send(fd) : run_echo(fd);
	close(fd);
	printf("rds-peer: %s\n", ret ? "FAILED" : "every message verified");
	return ret ? 1 : 0;
}
