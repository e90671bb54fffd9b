#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The pingpong sample over ib_verbs across the two-guest link (guest 0
# serving, guest 1 connecting): messages, RMA writes with remote CQ data
# and RMA reads, every transfer verified; then the raw-verbs baseline
# sample's pingpong and bandwidth exchanges, verified too.  (The 64 KiB
# read once failed after its first 4 KiB on 6.1: the sample's server wrote
# the data to be read after the sync that lets the client read, and the
# previous size's data, the same pattern, made the first 4 KiB look
# right.)
. ./lib.sh

M=/kofi/modules
pp_result() { cat /sys/module/kofi_sample_pingpong/parameters/result; }
pp_ok() { r=$(pp_result) && rmmod kofi_sample_pingpong && echo "result $r" && [ "$r" = 0 ]; }
show_rows() {
	dmesg | tail -n +"$(($1 + 1))" | grep 'kofi_sample_pingpong:' |
		sed 's/^\[[^]]*\] //' | while IFS= read -r l; do say "$l"; done
}

# pp NAME PORT ARGS...: one pingpong run over ib_verbs.
pp() {
	pp_name=$1 pp_port=$2
	shift 2
	from=$(dmesg | wc -l)
	if [ "$KOFI_HOST" = 0 ]; then
		insmod $M/kofi_sample_pingpong.ko prov=ib_verbs role=server \
			addr="$KOFI_SELF" port="$pp_port" "$@" > /tmp/pp.out 2>&1 &
		pid=$!
		wait_for 30 listening "$pp_port" ||
			fail "$pp_name: server is not listening"
		barrier "$pp_name"
		wait "$pid"
		check "$pp_name: server" pp_ok
	else
		barrier "$pp_name"
		check "$pp_name: client" sh -c "insmod $M/kofi_sample_pingpong.ko prov=ib_verbs \
			role=client addr=$KOFI_PEER port=$pp_port $* && \
			r=\$(cat /sys/module/kofi_sample_pingpong/parameters/result) && \
			rmmod kofi_sample_pingpong && [ \$r = 0 ]"
		show_rows "$from"
	fi
	barrier "$pp_name: done"
}

vb_ok() {
	r=$(cat /sys/module/kofi_sample_verbs/parameters/result) &&
		rmmod kofi_sample_verbs && echo "result $r" && [ "$r" = 0 ]
}
vb_client() { insmod $M/kofi_sample_verbs.ko role=client addr="$KOFI_PEER" "$@" && vb_ok; }

# vb NAME PORT ARGS...: one run of the raw-verbs baseline.
vb() {
	vb_name=$1 vb_port=$2
	shift 2
	from=$(dmesg | wc -l)
	if [ "$KOFI_HOST" = 0 ]; then
		insmod $M/kofi_sample_verbs.ko role=server addr="$KOFI_SELF" \
			port="$vb_port" "$@" > /tmp/vb.out 2>&1 &
		pid=$!
		wait_for 30 listening "$vb_port" ||
			fail "$vb_name: server is not listening"
		barrier "$vb_name"
		wait "$pid"
		check "$vb_name: server" vb_ok
	else
		barrier "$vb_name"
		check "$vb_name: client" vb_client port="$vb_port" "$@"
		dmesg | tail -n +"$((from + 1))" | grep 'kofi_sample_verbs:' |
			sed 's/^\[[^]]*\] //' | while IFS= read -r l; do say "$l"; done
	fi
	barrier "$vb_name: done"
}

[ -e $M/kofi_sample_pingpong.ko ] || { fail "no kofi_sample_pingpong module"; finish; }
check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
check "insmod kofi" insmod $M/kofi.ko
check "insmod kofi_ib_verbs" insmod $M/kofi_ib_verbs.ko

# Fewer round trips on the sanitizer kernel; the same sizes and modes.
N=$(scaled 50 10)
pp "ib_verbs msg" 7471 op=msg sizes=64,4096,65536 iters=$N
pp "ib_verbs write" 7472 op=write sizes=64,4096,65536 iters=$N
pp "ib_verbs read" 7473 op=read sizes=64,4096,65536 iters=$N
# The raw-verbs baseline of make bench (samples/kofi_sample_verbs.c, no
# kOFI): the same message exchanges, every message verified.
vb "verbs pingpong" 7474 mode=pingpong sizes=64,4096,65536 iters=$N
vb "verbs bandwidth" 7475 mode=bandwidth sizes=4096,65536 iters=$((N * 4))

check "rmmod kofi_ib_verbs" rmmod kofi_ib_verbs
check "rmmod kofi" rmmod kofi
finish
