#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# Interoperability with userspace libfabric: Debian's fi_pingpong over its
# tcp provider against the kernel pingpong sample over ksocket (fi_pingpong
# mode), data verified on both sides (-c / verify=1).  First userspace
# serves on guest 0 and the kernel connects from guest 1, then the kernel
# serves on guest 0 and fi_pingpong connects from guest 1.
. ./lib.sh

M=/kofi/modules
SIZES=64,256,1024,4096,65536,1048576
ITERS=$(scaled 10 3)

# fi_pingpong ARGS...: run Debian's fi_pingpong, output in /tmp/fipp.out;
# fails on a non-zero status or a data verification error.
fipp() {
	limited 120 fi_pingpong -p tcp -e msg -I $ITERS -c "$@" > /tmp/fipp.out 2>&1
	rc=$?
	! grep -q 'Error at iteration' /tmp/fipp.out && [ $rc = 0 ] &&
		grep -q '^1m ' /tmp/fipp.out
}
fipp_wait() { wait "$fipp_pid" && ! grep -q 'Error at iteration' /tmp/fipp.out &&
	grep -q '^1m ' /tmp/fipp.out; }
kernel_client() {
	insmod $M/kofi_sample_pingpong.ko fipp=1 role=client addr="$KOFI_PEER" \
		sizes=$SIZES iters=$ITERS && result_ok kofi_sample_pingpong
}
kernel_server_wait() { wait "$server_pid" && result_ok kofi_sample_pingpong; }

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ksocket" insmod $M/kofi_ksocket.ko

# 1. fi_pingpong serves, the kernel connects.
if [ "$KOFI_HOST" = 0 ]; then
	limited 120 env FI_TCP_IFACE="$KOFI_DEV" fi_pingpong -p tcp -e msg \
		-I $ITERS -c > /tmp/fipp.out 2>&1 &
	fipp_pid=$!
	wait_for 30 listening 47592 || fail "fi_pingpong server: not listening"
	barrier "fipp server up"
	check "fi_pingpong server vs kernel client" fipp_wait
	say_cmd cat /tmp/fipp.out
else
	barrier "fipp server up"
	from=$(dmesg | wc -l)
	check "kernel client vs fi_pingpong server" kernel_client
	rows "$from" 'kofi_sample_pingpong:'
	rmmod kofi_sample_pingpong
fi
barrier "part 1 done"

# 2. The kernel serves, fi_pingpong connects.
if [ "$KOFI_HOST" = 0 ]; then
	insmod $M/kofi_sample_pingpong.ko fipp=1 role=server addr="$KOFI_SELF" \
		sizes=$SIZES iters=$ITERS > /tmp/server.out 2>&1 &
	server_pid=$!
	wait_for 30 listening 47592 || fail "kernel server: not listening"
	barrier "kernel server up"
	check "kernel server vs fi_pingpong client" kernel_server_wait
	rmmod kofi_sample_pingpong
else
	barrier "kernel server up"
	check "fi_pingpong client vs kernel server" fipp "$KOFI_PEER"
	say_cmd cat /tmp/fipp.out
fi
barrier "part 2 done"

check "rmmod kofi_ksocket" rmmod kofi_ksocket
check "rmmod kofi" rmmod kofi
finish
