#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_verbs over soft-iWARP (siw) across the two-guest link (guest 0
# serving, guest 1 connecting), every transfer verified: rxe0 is deleted
# (rdma_cm would pick it for the address) and siw0 added on the NIC; then
# rping in both roles against the kOFI rping sample (its server RDMA-reads
# the client's buffer), the pingpong sample over ib_verbs with op=msg,
# op=write (no remote CQ data on iWARP: the sample notifies each write
# with a zero-byte message; fi_writedata() refused), op=read and op=msg
# over IPv6, no shared receive contexts (the srx sample's server finds
# none in the info), the bandwidth samples (kOFI's, raw verbs') paced by the
# receiver's grants (credits=1), kstream over ib_verbs in rsockets'
# iWARP mode (the stream samples kernel to kernel, IPv4 and IPv6),
# Debian's fi_pingpong -p verbs against the sample in both roles, and a
# clean unload (rxe0 back for the tests after it: siw-lib.sh).  Runs on
# the debug kernel (siw is one of its modules) and on 6.12, whose Debian
# build has no CONFIG_RDMA_SIW: there siw.ko is built from linux-source
# by tools/extra-modules.sh; 6.1 has no siw.
# The waits for listeners are long: the debug kernel under TCG starts
# userspace verbs programs slowly.
. ./lib.sh
. ./kstream-lib.sh
. ./siw-lib.sh

M=/kofi/modules
server=$KOFI_SELF server6=$KOFI_SELF6
[ "$KOFI_HOST" = 0 ] || server=$KOFI_PEER server6=$KOFI_PEER6
FIPP_ENV="FI_VERBS_IFACE=$KOFI_DEV FI_LOG_LEVEL=warn"

# sample_ok MODULE: it reports success; then unload it.
sample_ok() { r=$(result_of "$1") && rmmod "$1" && echo "result $r" && [ "$r" = 0 ]; }
rp() { insmod $M/kofi_sample_rping.ko "$@" && sample_ok kofi_sample_rping; }
pings_ok() {
	n=$(grep -c '^server ping data: rdma-ping-[0-9]*: [A-Za-z]' "$1")
	echo "$n pings"
	[ "$n" = "$2" ] && grep -q 'server DISCONNECT EVENT' "$1"
}

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
siw_up
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ib_verbs" insmod $M/kofi_ib_verbs.ko
# As kt_load (kstream-lib.sh): a lost wake-up fails a sample's wait.
check "insmod kofi_kstream" insmod $M/kofi_kstream.ko wake_up_interval=600000
barrier "siw0 up"

# 1. rping server, kOFI client.
if [ "$KOFI_HOST" = 0 ]; then
	rping -s -a "$server" -p 7174 -C 10 -V -v > /tmp/rping-s.out 2>&1 &
	rping_pid=$!
	wait_for 120 listening 7174 || fail "rping server is not listening"
fi
barrier "rping-server"
if [ "$KOFI_HOST" = 1 ]; then
	check "kOFI client -> rping -s: 10 validated pings" \
		rp addr="$server" port=7174 count=10 size=64 verbose=1
else
	wait "$rping_pid"
	check_output "rping -s served 10 pings from kOFI" '10 pings' \
		pings_ok /tmp/rping-s.out 10
fi
barrier "rping-server done"

# 2. kOFI server (RDMA READ into its sink), rping client.
if [ "$KOFI_HOST" = 0 ]; then
	insmod $M/kofi_sample_rping.ko server=1 addr="$server" port=7175 \
		count=10 size=128 verbose=1 > /tmp/kofi-s.out 2>&1 &
	kofi_pid=$!
	check "kOFI server listens" wait_for 60 listening 7175
fi
barrier "kofi-server"
if [ "$KOFI_HOST" = 1 ]; then
	check_output "rping -c -V -> kOFI server: 10 validated pings" \
		'ping data: rdma-ping-9' \
		limited 300 rping -c -a "$server" -p 7175 -C 10 -S 128 -V -v
else
	wait "$kofi_pid"
	check "kOFI server served 10 pings from rping" sample_ok kofi_sample_rping
fi
barrier "kofi-server done"

# 3. The pingpong sample.
pp "ib_verbs msg" 7471 prov=ib_verbs addr="$server" op=msg \
	sizes=64,4096,65536 iters=10
from_write=$(dmesg | wc -l)
pp "ib_verbs write" 7472 prov=ib_verbs addr="$server" op=write \
	sizes=64,4096,65536 iters=10
check_output "writes notified by a message: no FI_REMOTE_CQ_DATA offered" \
	'writes notified by a zero-byte message' \
	sh -c "dmesg | tail -n +$((from_write + 1))"
pp "ib_verbs read" 7473 prov=ib_verbs addr="$server" op=read \
	sizes=64,4096,65536 iters=10
# No shared receive contexts on iWARP: the srx sample's server finds
# max_ep_srx_ctx 0 in the info and stops before it accepts anyone.
if [ "$KOFI_HOST" = 0 ]; then
	check_output "no shared receive contexts on iWARP" 'result -95' \
		sh -c "insmod $M/kofi_sample_srx.ko role=server addr=$server port=7479 && \
		       sed 's/^/result /' /sys/module/kofi_sample_srx/parameters/result"
	rmmod kofi_sample_srx
fi

check "IPv6 address usable" wait_for 30 ping -6 -c 1 -W 1 "$KOFI_PEER6"
pp "ib_verbs msg IPv6" 7474 prov=ib_verbs addr="$server6" op=msg \
	sizes=64,65536 iters=10
# fi_writedata() all the same: refused with -EOPNOTSUPP (-95), nothing
# posted; the server then sees the connection end.
if [ "$KOFI_HOST" = 0 ]; then
	insmod $M/kofi_sample_pingpong.ko prov=ib_verbs role=server \
		addr="$KOFI_SELF" port=7476 op=write writedata=1 sizes=64 \
		iters=1 > /tmp/pp.out 2>&1 &
	pid=$!
	wait_for 60 listening 7476 || fail "writedata: server is not listening"
	barrier "writedata"
	wait "$pid"
	rmmod kofi_sample_pingpong
else
	barrier "writedata"
	from=$(dmesg | wc -l)
	insmod $M/kofi_sample_pingpong.ko prov=ib_verbs role=client \
		addr="$KOFI_PEER" port=7476 op=write writedata=1 sizes=64 iters=1
	r=$(result_of kofi_sample_pingpong)
	rmmod kofi_sample_pingpong
	rows "$from" 'kofi_sample_pingpong:'
	check "fi_writedata() on siw0: -EOPNOTSUPP" [ "$r" = -95 ]
fi
barrier "writedata: done"
# The bandwidth samples with credits=1, kOFI's and the raw-verbs baseline
# of make bench: 64 sends in flight against 4 receives posted, paced by
# the server's grants (without them the first send that finds no
# receive posted ends the connection), every message verified.
pair kofi_sample_bandwidth "ib_verbs bandwidth, credits" 7477 \
	prov=ib_verbs addr="$server" op=msg credits=1 rx_slots=4 \
	sizes=4096,65536 iters=$(scaled 256 128)
pair kofi_sample_verbs "verbs bandwidth, credits" 7478 addr="$server" \
	mode=bandwidth credits=1 rx_slots=4 sizes=4096,65536 \
	iters=$(scaled 256 128)

# 4. kstream over siw0, in rsockets' iWARP mode (writes, then 4-byte
# sends): the stream samples kernel to kernel as kstream-ibv.sh runs them
# over soft-RoCE, every byte verified, over IPv4 and IPv6.  Not rstream
# or riostream against them: a peer on rsockets may write into a new
# connection's memory before ib_verbs on iWARP has registered it
# (Documentation/kstream.rst, Limitations).
check_output "ib_verbs;kstream is registered" kstream \
	cat /sys/kernel/debug/kofi/providers
P="prov=ib_verbs"
kt_pair "kstream IPv4 echo" 7511 "$P addr=$KOFI_SELF connections=3" \
	"$P sizes=1,64,65536 count=$(scaled 20 8) iters=2"
[ "$KOFI_HOST" = 1 ] && check "kstream IPv4 echo: three rows" \
	[ "$(kt_rowcount '[0-9.kmg]+_bw')" = 3 ] && kt_show
check "IPv6 address usable" wait_for 30 ping -6 -c 1 -W 1 "$KOFI_PEER6"
kt_pair "kstream IPv6 echo" 7512 "$P addr=$KOFI_SELF6" \
	"$P addr6 sizes=4096 count=20 iters=2"
[ "$KOFI_HOST" = 1 ] && check "kstream IPv6 echo: one row" \
	[ "$(kt_rowcount 4k_bw)" = 1 ] && kt_show
kt_pair "kstream one-way 1 MiB" 7513 "$P addr=$KOFI_SELF echo=0" \
	"$P oneway=1 sizes=1048576 count=4 iters=$(scaled 2 1)"
[ "$KOFI_HOST" = 1 ] && check "kstream one-way: one row" \
	[ "$(kt_rowcount 1m_oneway)" = 1 ] && kt_show
kt_pair "kstream small buffers" 7514 \
	"$P addr=$KOFI_SELF bufsize=2048 connections=2" \
	"$P bufsize=2048 sizes=3000,65536 count=10 iters=2"
[ "$KOFI_HOST" = 0 ] && check "kstream small buffers: echo server verified" \
	grep -q "bytes echoed, verified" /tmp/kt_rows

# 5. Debian's fi_pingpong -p verbs (libsiw) against the sample, one size.
fipp_ok() {
	! grep -q 'Error at iteration' /tmp/fipp.out &&
		grep -q '^4k ' /tmp/fipp.out
}
fipp_args="-p verbs -e msg -I 10 -S 4096 -c"
fipp_wait() { wait "$fipp_pid" && fipp_ok; }
fipp_client() {
	limited 300 env $FIPP_ENV fi_pingpong $fipp_args "$KOFI_PEER" \
		> /tmp/fipp.out 2>&1 && fipp_ok
}
kernel_client() {
	insmod $M/kofi_sample_pingpong.ko prov=ib_verbs fipp=1 role=client \
		addr="$KOFI_PEER" sizes=4096 iters=10 &&
		sample_ok kofi_sample_pingpong
}
if [ "$KOFI_HOST" = 0 ]; then
	limited 300 env $FIPP_ENV fi_pingpong $fipp_args > /tmp/fipp.out 2>&1 &
	fipp_pid=$!
	wait_for 120 listening 47592 || fail "fi_pingpong server: not listening"
	barrier "fipp server up"
	check "fi_pingpong -p verbs server vs kernel client: 4 KiB, verified" \
		fipp_wait
else
	barrier "fipp server up"
	from=$(dmesg | wc -l)
	check "kernel client vs fi_pingpong -p verbs server" kernel_client
	rows "$from" 'kofi_sample_pingpong:'
fi
barrier "fipp part 1 done"
if [ "$KOFI_HOST" = 0 ]; then
	check "fi_pingpong's port free" wait_for 60 cm_port_free 47592
	insmod $M/kofi_sample_pingpong.ko prov=ib_verbs fipp=1 role=server \
		addr="$KOFI_SELF" sizes=4096 iters=10 > /tmp/server.out 2>&1 &
	server_pid=$!
	wait_for 60 listening 47592 || fail "kernel server: not listening"
	barrier "kernel server up"
	wait "$server_pid"
	check "kernel server vs fi_pingpong -p verbs client" \
		sample_ok kofi_sample_pingpong
else
	barrier "kernel server up"
	check "fi_pingpong -p verbs client vs kernel server: 4 KiB, verified" \
		fipp_client
fi
barrier "fipp part 2 done"

check "rmmod kofi_kstream" rmmod kofi_kstream
check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
siw_down
finish
