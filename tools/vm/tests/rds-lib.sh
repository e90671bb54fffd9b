# SPDX-License-Identifier: GPL-2.0
# Helpers of the rds tests (the rds sample and rds-peer); source it after
# lib.sh.

M=/kofi/modules
K=/lib/modules/$(uname -r)

# rds_load MODULE...: load the kernel's RDS modules named (rds first)
# that are not loaded yet, then kOFI and its rds provider, one check each.
rds_load() {
	for _kofi_m in rds "$@"; do
		module_loaded "$_kofi_m" ||
			check "insmod $_kofi_m" insmod "$K/$_kofi_m.ko"
	done
	check "insmod kofi" insmod $M/kofi.ko
	check "insmod kofi_rds" insmod $M/kofi_rds.ko
	check_output "rds is registered" rds cat /sys/kernel/debug/kofi/providers
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
