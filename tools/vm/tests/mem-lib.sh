# SPDX-License-Identifier: GPL-2.0
# What idle RDM connections cost: the memory snapshots and the fan-in of
# the reliable-datagram sample (kofi_sample_rds hold=1) that rxm-mem1000
# and rxm-mem-ibv measure with.  Set N (connections), CAP (bytes an idle
# connection may cost) and MEM_TCP (1: check that exactly N TCP
# connections are up) before mem_run.
. ./rds-lib.sh

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
		[ "$MEM_TCP" = 1 ] &&
			check_output "$MPROV: $N connections on the receiving endpoint" \
				"^$N established" conns $RPORT
		mem_say "$MPROV: receiver, per connection" idle loaded
		per=$(mem_per Free idle loaded)
		check "$MPROV: an idle connection costs at most $((CAP / 1024)) KiB ($per bytes)" \
			[ "$per" -le "$CAP" ]
	else
		check "$MPROV: sending endpoints prepared" sample_start fanin-send \
			port=$SPORT peer_port=$RPORT $MEM
		mem_snap idle
		barrier "$MPROV: measured before"
		echo 0 > /sys/module/kofi_sample_rds/parameters/hold
		check "$MPROV: $N endpoints sent, the receiver confirmed" echo_done
		sleep 1
		mem_snap loaded
		[ "$MEM_TCP" = 1 ] &&
			check_output "$MPROV: $N connections of the sending endpoints" \
				"^$N established" conns $RPORT
		mem_say "$MPROV: sender, per endpoint and its connection" idle loaded
		say_cmd sh -c "dmesg | grep 'kofi_sample_rds:' | sed 's/^\[[^]]*\] //'"
	fi
	barrier "$MPROV: measured after"
	unload_sample
	barrier "$MPROV: unloaded"
}

