#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The rds provider over RDS/IB (rds_rdma) on the guests' soft-RoCE devices
# (rxe0): the rds sample with domain=ib exchanges verified messages of 0 B
# to 1 MiB and a back-to-back burst with rds-peer -T ib in both
# directions; every message's length, data and source are checked, and
# rxe0's packet counter shows that RDS/IB carried them.  Kernel to kernel
# over the ib domain (kofi_rds transport=ib): the pingpong sample with
# tagged messages (header endpoints), over the guests' IPv6 addresses,
# and with RMA writes (remote CQ data) and reads, data verified.  An
# address no RDMA device has gets no "ib" info.  rmmod rds_rdma is
# refused while an endpoint uses it and works once none does; fi_getinfo()
# then has no ib info (the guests load no module on demand: an RDS/IB
# socket cannot be made).  Then the modules unload.
#
# Not on the debug kernel: there lockdep reports recursive locking of
# rdma_cm's handler_mutex whenever RDS/IB accepts a connection (RDS
# checks the new connection's address with a second rdma_cm ID, made and
# destroyed inside the listener's event handler) - a report about
# RDS/IB's own code, which kOFI cannot avoid: every connection has a
# passive side.
. ./lib.sh
. ./rds-lib.sh

# The schedule, shorter than the TCP test's: rxe is slow.
SCHED="iters=2 burst=16"
PEER_SCHED="-i 2 -n 16"
# rxe_rcvd: the packets rxe0 received.
rxe_rcvd() {
	rdma statistic show link rxe0/1 |
		sed -n 's/.* rcvd_pkts \([0-9]*\).*/\1/p'
}

# ib_received: rxe0 received since $ib_before at least the packets of the
# 1 MiB messages each guest receives (2 x 2 of them, 4 KiB a packet at
# most).
ib_received() {
	n=$(rxe_rcvd) && echo "rcvd_pkts $ib_before -> $n" &&
		[ "$n" -ge $((ib_before + 4 * 256)) ]
}

# no_ib_info: the sample asking for domain ib on the loopback address
# finds no info (-ENODATA).
no_ib_info() {
	insmod $M/kofi_sample_rds.ko role=send domain=ib addr=127.0.0.1 \
		peer=127.0.0.1 timeout_ms=5000
	r=$(cat /sys/module/kofi_sample_rds/parameters/result)
	rmmod kofi_sample_rds
	echo "result $r"
	[ "$r" = -61 ]
}

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check_output "rxe0 is ACTIVE" 'rxe0.*ACTIVE' rdma link show
rds_load rds_rdma
ib_before=$(rxe_rcvd)
check "rxe0's packet counter readable" test -n "$ib_before"

# 1. rds-peer sends, the sample echoes (guest 0).
if [ "$KOFI_HOST" = 0 ]; then
	check "sample endpoint bound over ib" sample_echo domain=ib \
		port=18101 peer_port=18102 $SCHED
	check "rmmod rds_rdma refused while an endpoint uses it" \
		refused_rmmod rds_rdma
	barrier "ib: user to kernel"
	check "sample echoed rds-peer's messages over ib, all verified" \
		echo_done
	unload_sample
else
	barrier "ib: user to kernel"
	check "rds-peer sent over ib, echoes verified" limited 300 rds-peer \
		-r send -T ib -b "$KOFI_SELF:18102" -p "$KOFI_PEER:18101" \
		$PEER_SCHED
fi
barrier "ib: user to kernel: done"

# 2. The sample sends (guest 1), rds-peer echoes.
if [ "$KOFI_HOST" = 0 ]; then
	limited 300 rds-peer -r echo -T ib -b "$KOFI_SELF:18111" \
		-p "$KOFI_PEER:18112" $PEER_SCHED > /tmp/rds-peer.out 2>&1 &
	echo_pid=$!
	check "rds-peer bound over ib" wait_for 60 grep -q 'rds-peer: echo' \
		/tmp/rds-peer.out
	barrier "ib: kernel to user"
	check "rds-peer echoed the sample's messages over ib, all verified" \
		peer_done
	say_cmd cat /tmp/rds-peer.out
else
	barrier "ib: kernel to user"
	check "sample sent to rds-peer over ib, echoes verified" sample_send \
		domain=ib port=18112 peer_port=18111 $SCHED
	unload_sample
fi
barrier "ib: kernel to user: done"

# 3. Kernel to kernel over the ib domain: header endpoints (tagged
# messages), IPv6, and RMA carried in messages.
check "rmmod kofi_rds" rmmod kofi_rds
check "insmod kofi_rds transport=ib" insmod $M/kofi_rds.ko transport=ib
if [ "$KOFI_HOST" = 0 ]; then
	peer="" peer6="addr=$KOFI_SELF6"
else
	peer="addr=$KOFI_PEER" peer6="addr=$KOFI_PEER6"
fi
check "IPv6 address usable" wait_for 30 ping -6 -c 1 -W 1 "$KOFI_PEER6"
from=$(dmesg | wc -l)
pp "ib: rdm pingpong, tagged" 18131 $peer prov=rds ep_type=rdm verify=1 \
	mode=tagged sizes=0,256,65536,1048552 iters=2
check_output "ib: tagged pingpong in the ib domain" "domain ib" \
	rows "$from" "domain"
from=$(dmesg | wc -l)
pp "ib: rdm pingpong, IPv6" 18132 $peer6 prov=rds ep_type=rdm verify=1 \
	sizes=0,64,65536,1048576 iters=2
check_output "ib: IPv6 pingpong in the ib domain" "domain ib" \
	rows "$from" "domain"
from=$(dmesg | wc -l)
pp "ib: rdm pingpong RMA write with CQ data" 18133 $peer prov=rds \
	ep_type=rdm verify=1 op=write sizes=1,65536,1048520 iters=2
pp "ib: rdm RMA read" 18134 $peer prov=rds ep_type=rdm verify=1 op=read \
	sizes=1,65536,1048520 iters=2
check_output "ib: RMA in the ib domain" "domain ib" rows "$from" "domain"

check "RDS/IB carried the messages" ib_received
check "no ib info for an address without an RDMA device" no_ib_info

# rds_rdma once no endpoint uses it.
check "rds_rdma unreferenced once the endpoints closed" \
	unreferenced rds_rdma
check "rmmod rds_rdma while idle" rmmod rds_rdma
check_output "rds still registered" rds cat /sys/kernel/debug/kofi/providers
insmod $M/kofi_sample_rds.ko role=echo domain=ib addr="$KOFI_SELF" \
	peer="$KOFI_PEER" port=18121 peer_port=18121 timeout_ms=1000
check "no ib info without rds_rdma: -ENODATA" result_is kofi_sample_rds -61
unload_sample
rds_unload
finish
