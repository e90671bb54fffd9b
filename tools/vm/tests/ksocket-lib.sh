# SPDX-License-Identifier: GPL-2.0
# Helpers for the ksocket VM tests, the ksocket demo part and the ksocket
# benchmark; source after lib.sh.  Guest 0 serves, guest 1 connects.

KS_M=/kofi/modules

# ks_result MODULE: the sample's outcome parameter is 0.
ks_result() {
	r=$(cat "/sys/module/$1/parameters/result") && echo "result $r" &&
		[ "$r" = 0 ]
}

ks_server_ok() { wait "$ks_server_pid" && ks_result "$ks_mod"; }
ks_client_ok() { insmod "$KS_M/$ks_mod.ko" "$@" && ks_result "$ks_mod"; }

# ks_pair NAME MODULE PORT ARGS...: run sample MODULE with ARGS on both
# guests (role and port added), one check per guest; NAME is also a
# barrier name, so no shell special characters.  The client's result
# lines (logged by the module) are left in /tmp/ks_rows.
ks_pair() {
	ks_name=$1 ks_mod=$2 ks_port=$3
	shift 3
	ks_from=$(dmesg | wc -l)
	if [ "$KOFI_HOST" = 0 ]; then
		insmod "$KS_M/$ks_mod.ko" role=server port="$ks_port" "$@" \
			> /tmp/ks_server.out 2>&1 &
		ks_server_pid=$!
		wait_for 60 listening "$ks_port" ||
			fail "$ks_name: server is not listening"
		barrier "$ks_name"
		check "$ks_name: server" ks_server_ok
	else
		barrier "$ks_name"
		check "$ks_name: client" ks_client_ok role=client \
			port="$ks_port" "$@"
	fi
	dmesg | tail -n +"$((ks_from + 1))" | grep "$ks_mod:" |
		sed 's/^\[[^]]*\] //' > /tmp/ks_rows
	rmmod "$ks_mod" 2> /dev/null
	barrier "$ks_name: done"
}

# ks_show: say the result lines of the last ks_pair.
ks_show() { while IFS= read -r l; do say "$l"; done < /tmp/ks_rows; }

# ks_column SIZE N: field N of the result row for SIZE (the first field is
# the module name), from the last ks_pair.
ks_column() {
	awk -v s="$1" -v n="$2" '$2 == s && $NF ~ /^[0-9.]+$/ { v = $n } END { print v }' /tmp/ks_rows
}
