# SPDX-License-Identifier: GPL-2.0
# Helpers of the rds tests (the rds sample and rds-peer); source it after
# lib.sh.

M=/kofi/modules
K=/lib/modules/$(uname -r)

# RDS/TCP's paths between two addresses (RDS_MPATH_WORKERS of the
# guests' kernels).
RDS_TCP_PATHS=8

# rds_addr ADDR: ADDR as rds-peer -I prints it (IPv4 as IPv4-mapped).
rds_addr() {
	case $1 in
	*:*) echo "$1" ;;
	*) echo "::ffff:$1" ;;
	esac
}

# rds_tcp_paths_up SELF PEER: RDS/TCP has all its paths between this
# guest's SELF and PEER.
rds_tcp_paths_up() {
	n=$(rds-peer -I | grep "^tcp \[$(rds_addr "$1")\]:" |
		grep -c -F "[$(rds_addr "$2")]:")
	echo "$n of $RDS_TCP_PATHS paths"
	[ "$n" = "$RDS_TCP_PATHS" ]
}

# rds_tcp_connect SELF PEER: RDS/TCP's connection between this guest's
# SELF and the other's PEER, made from guest 0 (whose addresses are the
# smaller: .1, ::1) by an RDS ping before either guest sends, with every
# path up on both.  The guests' kernels can lose a message when the larger
# address makes the connection (Documentation/rds.rst, "Connection
# set-up on RDS/TCP").
rds_tcp_connect() {
	if [ "$KOFI_HOST" = 0 ]; then
		check "RDS/TCP connection to $2 made from $1" \
			rds-peer -r ping -b "$1:0" -p "$2:0" -t 60
	fi
	check "RDS/TCP's $RDS_TCP_PATHS paths to $2 up" \
		wait_for 60 rds_tcp_paths_up "$1" "$2"
	barrier "RDS/TCP connection"
}

# rds_load MODULE...: load the kernel's RDS modules named (rds first)
# that are not loaded yet, then kOFI and its rds provider, one check each.
# With rds_tcp in a two-guest run, the guests' RDS/TCP connection is made
# (rds_tcp_connect).
rds_load() {
	for _kofi_m in rds "$@"; do
		module_loaded "$_kofi_m" ||
			check "insmod $_kofi_m" insmod "$K/$_kofi_m.ko"
	done
	check "insmod kofi" insmod $M/kofi.ko
	check "insmod kofi_rds" insmod $M/kofi_rds.ko
	check_output "rds is registered" rds cat /sys/kernel/debug/kofi/providers
	case " $* " in
	*" rds_tcp "*)
		if [ "$KOFI_HOSTS" -gt 1 ]; then
			rds_tcp_connect "$KOFI_SELF" "$KOFI_PEER"
		fi
		;;
	esac
}

# rds_unload: unload the rds provider and kOFI, one check each.
rds_unload() {
	check "rmmod kofi_rds" rmmod kofi_rds
	check "rmmod kofi" rmmod kofi
}

echo_done() { wait "$echo_pid" && result_ok kofi_sample_rds; }
peer_done() { wait "$echo_pid"; }

# sample_bound SINCE ROLE: the sample of ROLE logged its endpoint after
# dmesg line SINCE.
sample_bound() {
	dmesg | tail -n +"$(($1 + 1))" | grep -q "kofi_sample_rds: $2 "
}

# sample_start ROLE ARGS...: start the sample of ROLE (echo, fanin-recv)
# in the background ($echo_pid) with ARGS; return once its endpoint is
# bound.
sample_start() {
	from=$(dmesg | wc -l)
	_kofi_role=$1
	shift
	insmod $M/kofi_sample_rds.ko role="$_kofi_role" addr="$KOFI_SELF" \
		peer="$KOFI_PEER" "$@" &
	echo_pid=$!
	wait_for 60 sample_bound "$from" "$_kofi_role"
}

sample_echo() { sample_start echo "$@"; }

# sample_run ROLE ARGS...: run the sample of ROLE (send, fanin-send) to
# the peer; show its log lines.
sample_run() {
	from=$(dmesg | wc -l)
	_kofi_role=$1
	shift
	insmod $M/kofi_sample_rds.ko role="$_kofi_role" addr="$KOFI_SELF" \
		peer="$KOFI_PEER" "$@" && result_ok kofi_sample_rds
	rc=$?
	dmesg | tail -n +"$((from + 1))" | grep 'kofi_sample_rds:' |
		sed 's/^\[[^]]*\] //' | while IFS= read -r l; do say "$l"; done
	return $rc
}

sample_send() { sample_run send "$@"; }

unload_sample() { rmmod kofi_sample_rds 2> /dev/null; }

# refused_rmmod MODULE: rmmod MODULE fails and MODULE stays loaded.
refused_rmmod() { ! rmmod "$1" && module_loaded "$1"; }

# result_is MODULE ERRNO: MODULE reports the result ERRNO.
result_is() {
	r=$(result_of "$1") && echo "result $r (want $2)" && [ "$r" = "$2" ]
}

# unreferenced MODULE: MODULE is loaded and nothing holds it.
unreferenced() {
	n=$(cat "/sys/module/$1/refcnt") && echo "$1 refcnt $n" &&
		[ "$n" = 0 ]
}

# rds_counter NAME: RDS's counter NAME of this host (transport counters
# of loaded transports included).
rds_counter() { n=$(rds-peer -c "$1") && echo "${n#* }"; }
