#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Interoperability with userspace libfabric over RDMA: Debian's fi_pingpong
# over its verbs provider (librdmacm and the rxe user driver) against the
# kernel pingpong sample over ib_verbs (fi_pingpong mode), across the two
# guests' rxe0 devices, data verified on both sides (-c / verify=1).  First
# fi_pingpong serves on guest 0 and the kernel connects from guest 1, then
# the kernel serves on guest 0 and fi_pingpong connects from guest 1.  The
# fabric connection carries libfabric's verbs connection data (one size
# byte, no user data); the control exchange is fi_pingpong's TCP channel.
. ./lib.sh

M=/kofi/modules
SIZES=64,256,1024,4096,65536,1048576
ITERS=$(scaled 10 3)
# fi_pingpong's verbs provider: the interface of rxe0, warnings logged.
FIPP_ENV="FI_VERBS_IFACE=$KOFI_DEV FI_LOG_LEVEL=warn"

# fipp_ok: fi_pingpong's output in /tmp/fipp.out has every size's row,
# up to 1 MiB, and no data verification error.
fipp_ok() {
	! grep -q 'Error at iteration' /tmp/fipp.out &&
		grep -q '^64 ' /tmp/fipp.out && grep -q '^1m ' /tmp/fipp.out
}
# fipp ARGS...: run Debian's fi_pingpong over verbs, output in /tmp/fipp.out.
fipp() {
	limited 240 env $FIPP_ENV fi_pingpong -p verbs -e msg -I $ITERS \
		-c "$@" > /tmp/fipp.out 2>&1 && fipp_ok
}
fipp_wait() { wait "$fipp_pid" && fipp_ok; }
kernel_client() {
	insmod $M/kofi_sample_pingpong.ko prov=ib_verbs fipp=1 role=client \
		addr="$KOFI_PEER" sizes=$SIZES iters=$ITERS && result_ok kofi_sample_pingpong
}
kernel_server_wait() { wait "$server_pid" && result_ok kofi_sample_pingpong; }

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check_output "rxe0 is ACTIVE" 'rxe0.*ACTIVE' rdma link show
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ib_verbs" insmod $M/kofi_ib_verbs.ko

# 1. fi_pingpong serves, the kernel connects.
if [ "$KOFI_HOST" = 0 ]; then
	limited 240 env $FIPP_ENV fi_pingpong -p verbs -e msg -I $ITERS -c \
		> /tmp/fipp.out 2>&1 &
	fipp_pid=$!
	wait_for 30 listening 47592 || fail "fi_pingpong server: not listening"
	barrier "fipp server up"
	check "fi_pingpong -p verbs server vs kernel client" fipp_wait
	say_cmd cat /tmp/fipp.out
else
	barrier "fipp server up"
	from=$(dmesg | wc -l)
	check "kernel client vs fi_pingpong -p verbs server" kernel_client
	rows "$from" 'kofi_sample_pingpong:'
	rmmod kofi_sample_pingpong
fi
barrier "part 1 done"

# 2. The kernel serves, fi_pingpong connects.
if [ "$KOFI_HOST" = 0 ]; then
	check "fi_pingpong's port free" wait_for 60 cm_port_free 47592
	from=$(dmesg | wc -l)
	insmod $M/kofi_sample_pingpong.ko prov=ib_verbs fipp=1 role=server \
		addr="$KOFI_SELF" sizes=$SIZES iters=$ITERS \
		> /tmp/server.out 2>&1 &
	server_pid=$!
	wait_for 30 listening 47592 || fail "kernel server: not listening"
	barrier "kernel server up"
	check "kernel server vs fi_pingpong -p verbs client" kernel_server_wait
	rows "$from" 'kofi_sample_pingpong:'
	rmmod kofi_sample_pingpong
else
	barrier "kernel server up"
	check "fi_pingpong -p verbs client vs kernel server" fipp "$KOFI_PEER"
	say_cmd cat /tmp/fipp.out
fi
barrier "part 2 done"

check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
