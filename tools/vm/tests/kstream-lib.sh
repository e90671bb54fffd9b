# SPDX-License-Identifier: GPL-2.0
# Helpers for the kstream VM tests, the kstream demo part and the kstream
# benchmark; source after lib.sh.  Guest 0 serves, guest 1 connects.
# The samples are kofi_sample_stream_echo (server) and
# kofi_sample_stream_tput (client); librdmacm's rstream may take either
# role.

KT_M=/kofi/modules
KT_ECHO=kofi_sample_stream_echo
KT_TPUT=kofi_sample_stream_tput

kt_echo_ok() { wait "$kt_server_pid"; result_ok $KT_ECHO; }
kt_tput_ok() { insmod "$KT_M/$KT_TPUT.ko" "$@" && result_ok $KT_TPUT; }

# kt_rows FROM MODULE: MODULE's log lines after dmesg line FROM, into
# /tmp/kt_rows (without the timestamp).
kt_rows() {
	dmesg | awk -v from="$1" -v pat="$2:" '
	NR > from && index($0, pat) { sub(/^\[[^]]*\] /, ""); print }' > /tmp/kt_rows
}

# kt_pair NAME PORT "ECHO ARGS" "TPUT ARGS": the echo sample on guest 0,
# the throughput sample on guest 1 (port and, on guest 1, the address of
# guest 0 are added; "addr6" in TPUT ARGS selects guest 0's IPv6
# address), one check per guest.  NAME is a barrier name too.  The
# client's rows are left in /tmp/kt_rows.
kt_pair() {
	_kt_name=$1 _kt_port=$2 _kt_eargs=$3 _kt_targs=$4
	_kt_from=$(dmesg | wc -l)
	if [ "$KOFI_HOST" = 0 ]; then
		# shellcheck disable=SC2086
		insmod "$KT_M/$KT_ECHO.ko" port="$_kt_port" $_kt_eargs \
			> /tmp/kt_server.out 2>&1 &
		kt_server_pid=$!
		wait_for 60 listening "$_kt_port" ||
			fail "$_kt_name: echo server is not listening"
		barrier "$_kt_name"
		check "$_kt_name: echo server" kt_echo_ok
		kt_rows "$_kt_from" $KT_ECHO
		rmmod $KT_ECHO 2> /dev/null
	else
		_kt_to=$KOFI_PEER
		case " $_kt_targs " in
		*" addr6 "*)
			_kt_to=$KOFI_PEER6
			_kt_targs=$(echo " $_kt_targs " | sed 's/ addr6 / /')
			;;
		esac
		barrier "$_kt_name"
		# shellcheck disable=SC2086
		check "$_kt_name: client" kt_tput_ok addr="$_kt_to" \
			port="$_kt_port" $_kt_targs
		kt_rows "$_kt_from" $KT_TPUT
		rmmod $KT_TPUT 2> /dev/null
	fi
	barrier "$_kt_name: done"
}

# kt_show: say the rows of the last kt_pair.
kt_show() { while IFS= read -r _kt_l; do say "$_kt_l"; done < /tmp/kt_rows; }

# kt_rowcount PATTERN: rows of the last kt_pair whose test name matches.
kt_rowcount() { grep -c -E ": $1 " /tmp/kt_rows; }

# kt_column NAME N: field N of the row of test NAME (field 1 is the
# module name), from the last kt_pair.
kt_column() {
	awk -v s="$1" -v n="$2" '$2 == s { v = $n } END { print v }' /tmp/kt_rows
}

# kt_load PROVIDER: kofi, the core provider and kstream.  A blocked
# socket-like call looks at the stream again every wake_up_interval
# however it is woken, which would hide a lost wake-up behind a delay of
# that slice (5 s by default); the tests make it 10 minutes, so that a
# lost wake-up fails the sample waiting for it (60 s limit per wait).
kt_load() {
	check "insmod kofi" insmod $KT_M/kofi.ko
	check "insmod kofi_$1" insmod "$KT_M/kofi_$1.ko"
	check "insmod kofi_kstream" insmod $KT_M/kofi_kstream.ko \
		wake_up_interval=600000
	check_output "$1;kstream is registered" kstream \
		cat /sys/kernel/debug/kofi/providers
}

# kt_unload PROVIDER: the reverse of kt_load, one check each.
kt_unload() {
	check "rmmod kofi_kstream" rmmod kofi_kstream
	check "rmmod kofi_$1" rmmod "kofi_$1"
	check "rmmod kofi" rmmod kofi
}
