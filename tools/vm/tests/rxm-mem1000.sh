#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# What an idle RDM connection costs, measured with 1000 of them in one
# guest, over ksocket;rxm and then over ksocket's own FI_EP_RDM, with the
# reliable-datagram sample's fan-in (kofi_sample_rds prov=... hold=1,
# Documentation/rxm.rst).
#
# Guest 1 opens 1000 endpoints (role=fanin-send, ports 18511..19510),
# each sending one 64-byte message to the one endpoint of guest 0
# (role=fanin-recv, port 18501; 20501 and 20511.. for ksocket's own),
# which thus holds 1000 connections, and
# takes the messages in one multi-receive buffer, so that none waits as
# unexpected.  With hold=1 the sample allocates what it needs before the
# measurement starts, and everything stays open until it is unloaded.
#
# Each guest reads /proc/meminfo, once the caches are dropped, at two
# points: guest 0 with its endpoint open and idle, and again holding the
# 1000 connections idle (every message received, the receiver's empty
# answers sent a second before); guest 1 before it opens its endpoints,
# and again with the 1000 endpoints and their connections idle.  What
# free memory lost in between, divided by 1000, is the cost of a
# connection (guest 0) and of an endpoint with its listener and
# connection (guest 1).  The first must be at most 64 KiB.  The second snapshot waits out
# ksocket's idle timer (KSOCK_IDLE_MS, 0.5 s, to twice that after the
# last send), after which an idle socket no longer keeps the page
# fragment of up to 32 KiB TCP copies sent data into.  Both costs are
# shown, with the share of slab and vmalloc memory.  Each guest also
# checks that it holds exactly the 1000 TCP connections.
. ./lib.sh
. ./rds-lib.sh

N=1000
# An idle connection's bound, in bytes
CAP=65536

# mem_snap NAME: /proc/meminfo now, once the caches are dropped, in
# /tmp/mem-NAME, with a line Free: MemFree and the free pages the CPUs'
# page lists hold (/proc/zoneinfo's counts), which MemFree leaves out:
# right after boot they hold tens of MiB, and return them over seconds.
mem_snap() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	cat /proc/meminfo > "/tmp/mem-$1"
	_kofi_free=$(awk '$1 == "MemFree:" { f = $2 } $1 == "count:" { n += $2 }
		END { printf "Free: %d kB", f + n * 4 }' "/tmp/mem-$1" \
		/proc/zoneinfo) && echo "$_kofi_free" >> "/tmp/mem-$1"
}

# mem_per FIELD A B: bytes per connection FIELD of /proc/meminfo grew by
# from snapshot A to B (Free: what it shrank by).
mem_per() {
	awk -v f="$1:" -v n=$N '$1 == f { v[FILENAME] = $2 }
		END {
			d = v[ARGV[2]] - v[ARGV[1]]
			if (f == "Free:") d = -d
			printf "%d", d * 1024 / n
		}' "/tmp/mem-$2" "/tmp/mem-$3"
}

# mem_say WHAT A B: show the memory taken per WHAT from A to B.
mem_say() {
	say "$1: $(mem_per Free "$2" "$3") bytes of free memory" \
		"(slab $(mem_per Slab "$2" "$3")," \
		"vmalloc $(mem_per VmallocUsed "$2" "$3")), $N of them"
}

# conns PORT: there are exactly N established TCP connections from or
# to port PORT here.
conns() {
	_h=$(printf '%04X' "$1")
	_a="[0-9A-F]+:[0-9A-F]{4}"
	_n=$(grep -c -E "^ *[0-9]+: ([0-9A-F]+:$_h $_a|$_a [0-9A-F]+:$_h) 01 " \
		/proc/net/tcp)
	echo "$_n established"
	[ "$_n" = $N ]
}

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ksocket" insmod $M/kofi_ksocket.ko
check "insmod kofi_rxm" insmod $M/kofi_rxm.ko

# mem_run PROV RPORT SPORT: the measurement over provider PROV, the
# receiver on RPORT, the senders on SPORT and up.
mem_run() {
	MPROV=$1 RPORT=$2 SPORT=$3
	MEM="prov=$MPROV hold=1 eps=$N burst=1 burst_size=64"
	MEM="$MEM timeout_ms=120000"
	if [ "$KOFI_HOST" = 0 ]; then
		check "$MPROV: receiving endpoint bound" sample_start fanin-recv \
			port=$RPORT peer_port=$SPORT $MEM
		mem_snap idle
		barrier "$MPROV: measured before"
		check "$MPROV: the $N senders' messages arrived, verified" echo_done
		sleep 1
		mem_snap loaded
		check_output "$MPROV: $N connections on the receiving endpoint" \
			"^$N established" conns $RPORT
		mem_say "$MPROV: receiver, per connection" idle loaded
		per=$(mem_per Free idle loaded)
		check "$MPROV: an idle connection costs at most 64 KiB ($per bytes)" \
			[ "$per" -le $CAP ]
	else
		check "$MPROV: sending endpoints prepared" sample_start fanin-send \
			port=$SPORT peer_port=$RPORT $MEM
		mem_snap idle
		barrier "$MPROV: measured before"
		echo 0 > /sys/module/kofi_sample_rds/parameters/hold
		check "$MPROV: $N endpoints sent, the receiver confirmed" echo_done
		sleep 1
		mem_snap loaded
		check_output "$MPROV: $N connections of the sending endpoints" \
			"^$N established" conns $RPORT
		mem_say "$MPROV: sender, per endpoint and its connection" idle loaded
		say_cmd sh -c "dmesg | grep 'kofi_sample_rds:' | sed 's/^\[[^]]*\] //'"
	fi
	barrier "$MPROV: measured after"
	unload_sample
	barrier "$MPROV: unloaded"
}

mem_run "ksocket;rxm" 18501 18511
mem_run ksocket 20501 20511

check "rmmod kofi_rxm" rmmod kofi_rxm
check "rmmod kofi_ksocket" rmmod kofi_ksocket
check "rmmod kofi" rmmod kofi
finish
