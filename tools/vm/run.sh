#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one or two QEMU guests (TCG) on a kernel, run a sequence of test
# scripts from tools/vm/tests in that boot, and report each test's result.
#
# The guests get the base initramfs of their kernel (mkinitramfs.sh) plus
# a second archive with kOFI's modules built for that kernel and the test
# scripts.  In two-guest mode the guests are joined by a virtual Ethernet
# link (a QEMU datagram netdev over two Unix sockets), each with its own
# address and an rxe device on its NIC.
#
# The guest's init (tools/vm/init) runs the tests one after the other,
# each in its own console section, and after each one unloads kOFI's
# modules and dumps the kernel log.  On the debug kernel the last test of
# a boot is the harness's own kmemleak@NAME: a kmemleak scan of what the
# tests before it left behind (two scans take ~12 s there, too slow to
# follow every test).  A test is judged on its own section only (tools/vm/judge.sh): it passes when
# every guest's section ends with exit status 0, holds at least one
# KOFI-PASS line, no KOFI-FAIL line and no kernel report
# (tools/scan-splats.sh).  A test that fails, or runs past its time (the
# guests are then stopped), ends the boot: the tests after it run in a
# fresh boot, so that a guest a test left broken judges no other test.
#
# usage: tools/vm/run.sh [-k SERIES] [-n GUESTS] [-t SECONDS] [-q] TEST...
#        tools/vm/run.sh [-k SERIES] [-t SECONDS] [-q] -g GROUP
#        tools/vm/run.sh [-k SERIES] -l
#   -k  kernel: 6.1 (default), 6.12 or debug
#   -n  number of guests: 1 (default) or 2
#   -g  run the tests of GROUP of tools/vm/tests.list that run on SERIES
#       (with the group's number of guests), as make check does
#   -l  list the groups on SERIES: "GROUP GUESTS TEST..." per line
#   -t  time each test may take, in seconds (default 300, 900 on debug)
#   -q  print only failures and the result lines
#   -h  this help
# Prints each check, per test a line "vm SERIES TEST: N passed, N failed,
# Ns", then "vm SERIES NAME: N boots (Ns to boot), Ns outside the tests",
# a last line "vm SERIES NAME: N passed, N failed" (NAME: the group, or
# the tests joined by "+").

set -uo pipefail
. "$(dirname "$0")/../lib.sh"

usage() { sed -n '/^# usage:/,/^# the tests joined/s/^# \{0,1\}//p' "$0"; }

# list_groups SERIES: the groups of tools/vm/tests.list whose tests run on
# SERIES, in the list's order: "GROUP GUESTS TEST..." per line.  A line
# is "GUESTS TEST [@GROUP] [KERNEL...]"; a test without @GROUP is a group
# of its own, named after it.  A group boots as many guests as its
# tests need at most.  On debug each group ends with the harness's test
# kmemleak@GROUP.
list_groups() {
	awk -v s="$1" '
	/^[ \t]*(#|$)/ { next }
	{
		g = $2; ks = ""
		for (i = 3; i <= NF; i++)
			if ($i ~ /^@/) g = substr($i, 2); else ks = ks " " $i
		if (ks != "" && index(ks " ", " " s " ") == 0) next
		if (!(g in n)) order[++ng] = g
		if ($1 > n[g]) n[g] = $1
		list[g] = list[g] " " $2
	}
	END {
		for (i = 1; i <= ng; i++) {
			g = order[i]
			print g, n[g] list[g] (s == "debug" ? " kmemleak@" g : "")
		}
	}' "$KOFI_TOP/tools/vm/tests.list"
}

series=6.1 guests=1 timeout='' quiet=0 group='' list=0
while getopts k:n:t:g:qlh opt; do
	case $opt in
	k) series=$OPTARG ;;
	n) guests=$OPTARG ;;
	t) timeout=$OPTARG ;;
	g) group=$OPTARG ;;
	q) quiet=1 ;;
	l) list=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $list -eq 1 ]; then
	list_groups "$series"
	exit
fi
if [ -n "$group" ]; then
	line=$(list_groups "$series" | awk -v g="$group" '$1 == g') || exit 1
	[ -n "$line" ] || kofi_die "no group $group on $series in tools/vm/tests.list"
	read -r _ guests line <<< "$line"
	read -r -a tests <<< "$line"
	name=$group
else
	[ $# -gt 0 ] || { usage >&2; exit 2; }
	tests=("$@")
	name=$(IFS=+; echo "${tests[*]}")
	[ "$series" = debug ] && tests+=("kmemleak@$name")
fi
for t in "${tests[@]}"; do
	[ "${t%%@*}" = kmemleak ] && continue
	[ -x "$KOFI_TOP/tools/vm/tests/$t.sh" ] || kofi_die "no test $t"
done
# A test is judged by its name's section (judge.sh): one of each per boot.
dup=$(printf '%s\n' "${tests[@]}" | sort | uniq -d | head -n1)
[ -z "$dup" ] || kofi_die "test $dup given twice: run it again in a run of its own"
case $guests in 1|2) ;; *) kofi_die "-n must be 1 or 2" ;; esac

# 1 GiB for every kernel.  On the debug kernel, kmemleak's scans after
# each test read every page's struct page: an idle 2 GiB guest takes 8 s
# per scan, a 1 GiB one 5.5 s, and KASAN's shadow (1/8) still fits.
mem=1024
# No CPU vulnerability mitigations: on the guests' Intel CPU model the
# kernel would isolate its page tables, and every CR3 switch empties
# TCG's translation cache of guest addresses (latency 2.4 times worse).
cmdline="console=ttyS0 loglevel=5 panic=-1 mitigations=off"
if [ "$series" = debug ]; then
	timeout=${timeout:-900}
	# The sanitizers make this kernel slow under TCG: interpreting the
	# ACPI _PRT method for PCI interrupt routing can hit ACPICA's loop
	# timeout, leaving devices without interrupts, so PCI routing comes
	# from the BIOS PIRQ table (acpi=off instead upsets early interrupt
	# setup); and RCU's stall timeout is raised from 21 s so that a guest
	# starved of host CPU is not reported as stalled, while a real lockup
	# still is.
	cmdline+=" pci=noacpi rcupdate.rcu_cpu_stall_timeout=300"
	# Tests scale their iteration counts down on it (lib.sh: scaled).
	cmdline+=" kofi_sanitized=1"
	boot_limit=${boot_limit:-300}
fi
timeout=${timeout:-300}
# Seconds a guest may take to print KOFI-BOOTED (~10 under TCG).
boot_limit=${boot_limit:-120}

kver=$(kofi_kver "$series") || kofi_die "kernel $series not set up"
# Two runs of one test on one kernel would share its log files.
for t in $(printf '%s\n' "${tests[@]}" "$name" | sort -u); do
	kofi_lock "vm-$series-$t"
done
kernel=$(kofi_kroot "$series")/boot/vmlinuz-$kver
[ -f "$kernel" ] || kofi_die "no kernel image $kernel"
base=$("$KOFI_TOP/tools/vm/mkinitramfs.sh" "$series") || exit 1
"$KOFI_TOP/tools/build.sh" "$series" > /dev/null || exit 1

logs=$KOFI_CACHE/logs
work=$(mktemp -d)
pids=()
# stop_guests: end every guest still running (pids[]).
stop_guests() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
}
cleanup() {
	stop_guests
	rm -rf "$work"
}
trap cleanup EXIT

# link_mtu TEST...: the MTU of the guests' link for a boot running the
# TESTs: 9000 if every one says "# kofi-link-mtu: 9000" (bulk data over
# TCP, where jumbo frames cut the per-packet cost of TCG), else 1500.
link_mtu() {
	local t
	for t in "$@"; do
		[ "${t%%@*}" = kmemleak ] && continue
		grep -qx '# kofi-link-mtu: 9000' \
			"$KOFI_TOP/tools/vm/tests/$t.sh" || { echo 1500; return; }
	done
	echo 9000
}

# solo_tests TEST...: those of the TESTs that tools/vm/tests.list gives one
# guest, when this boot has two: they run on host 0 alone (see
# tools/vm/init), comma-separated.
solo_tests() {
	local t out=
	[ "$guests" -eq 2 ] || return 0
	for t in "$@"; do
		[ "$(test_guests "$t")" = 1 ] && out+=${out:+,}$t
	done
	echo "$out"
}
# bystander HOST TEST: judge.sh's option -b if HOST only waited through
# TEST (host 1 while host 0 ran it alone): no check of its own is
# expected, its section is still judged.
bystander() {
	[ "$1" -gt 0 ] && [ -n "$(solo_tests "$2")" ] && echo -b
}
# test_guests TEST: the number of guests tools/vm/tests.list gives TEST.
test_guests() {
	awk -v t="$1" '$2 == t { print $1; exit }' "$KOFI_TOP/tools/vm/tests.list"
}

# launch: boot every guest on the tests todo[] in the background (pids
# in pids[]); boot number $boots, console logs in blog[].
launch() {
	local h tests_arg mtu solo
	tests_arg=$(IFS=,; echo "${todo[*]}")
	mtu=$(link_mtu "${todo[@]}")
	solo=$(solo_tests "${todo[@]}")
	pids=()
	for h in $(seq 0 $((guests - 1))); do
		blog[$h]=$logs/vm-$series-$name-boot$boots-h$h.log
		mkdir -p "$logs"
		: > "${blog[$h]}"
		net=()
		if [ "$guests" -eq 2 ]; then
			# Unix datagram sockets: no host TCP (whose Nagle and
			# delayed ACKs add ~20 ms to a small exchange), and a
			# full peer socket makes QEMU queue the frame and
			# retry instead of dropping it, as a host UDP socket
			# does; lost frames made guest TCP retransmit at
			# random and the benchmarks noisy.
			rm -f "$work/net$h"
			sock="local.type=unix,local.path=$work/net$h"
			sock+=",remote.type=unix,remote.path=$work/net$((1 - h))"
			net=(-netdev "dgram,id=n0,$sock"
			     -device "virtio-net-pci,netdev=n0,mac=52:54:00:6b:6f:0$h")
		fi
		# A CPU model of the SSE4.2 era, not "max", which turns on what
		# TCG emulates newest (5-level paging, AVX2, BMI, ADX, PKU).
		# Nehalem has no fast string moves (ERMS, FSRM), which TCG runs
		# one byte per trip through translated code: the kernel copies
		# with rep movsq.  The hard timeout is a backstop: each test's
		# time is watched by watch().
		timeout --kill-after=10 \
			$((boot_limit + ${#todo[@]} * (timeout + 60))) \
			qemu-system-x86_64 \
			-accel tcg -cpu Nehalem -smp 2 -m "$mem" \
			-nodefaults -no-reboot -display none -monitor none \
			-serial "file:${blog[$h]}" "${net[@]}" \
			-kernel "$kernel" -initrd "$initrd" \
			-append "$cmdline kofi_tests=$tests_arg kofi_host=$h kofi_hosts=$guests kofi_mtu=$mtu${solo:+ kofi_solo=$solo}" \
			> "$work/qemu-$h.out" 2>&1 &
		pids+=($!)
	done
}

# wait_guests: wait for every guest and strip the serial console's CR LF
# line ends.
wait_guests() {
	local h
	for h in $(seq 0 $((guests - 1))); do
		wait "${pids[$h]}"
		sed -i 's/\r$//' "${blog[$h]}"
	done
	pids=()
}

# boot_report: a kernel report before KOFI-BOOTED, i.e. while the stock
# kernel and its own modules were coming up and before any kOFI code ran.
boot_report() {
	local h log
	for h in $(seq 0 $((guests - 1))); do
		log=${blog[$h]}
		sed '/^KOFI-BOOTED/q' "$log" | tr -d '\r' > "$log.boot"
		if ! "$KOFI_TOP/tools/scan-splats.sh" "$log.boot" > "$log.boot.out"; then
			echo "  NOTE host$h: the kernel reported this while booting, before any kOFI code ran:"
			sed 's/^/    /' "$log.boot.out" | head -n 40
			return 0
		fi
	done
	return 1
}

# watch: follow the guests until they end.  Stop them early when one has
# not booted after $boot_limit seconds, reports while booting, ends a
# test that fails, or when a test runs longer than $timeout seconds.
# Sets outcome (done, noboot, bootreport, failed or timeout), late (the
# index in todo[] of the test that ran too long) and, per test index i
# that ended on every guest, took[i] (seconds from its first guest's
# KOFI-TEST-BEGIN to its last guest's KOFI-TEST-END).
watch() {
	local h log i b e t0=$SECONDS up=0 alive dead bad='' bad_at
	local gone_at=''
	local -a nb ne bootok
	local -A seen=()
	outcome="done" late=''
	took=() since=()
	for h in $(seq 0 $((guests - 1))); do nb[$h]=0 ne[$h]=0 bootok[$h]=0; done
	while :; do
		alive=0 dead=0
		for h in $(seq 0 $((guests - 1))); do
			log=${blog[$h]}
			if kill -0 "${pids[$h]}" 2> /dev/null; then
				alive=1
			elif ! grep -a -q '^KOFI-DONE' "$log"; then
				dead=1
			fi
			[ "${bootok[$h]}" = 1 ] ||
				! grep -a -q '^KOFI-BOOTED' "$log" || bootok[$h]=1
			b=$(grep -a -c '^KOFI-TEST-BEGIN ' "$log")
			# Only whole lines: the status is the last thing on it.
			e=$(grep -a -c -E '^KOFI-TEST-END [^ ]+ rc=[0-9]+' "$log")
			for ((i = nb[h]; i < b; i++)); do
				[ -n "${since[$i]:-}" ] || since[$i]=$SECONDS
			done
			nb[$h]=$b
			for ((i = ne[h]; i < e; i++)); do
				seen[$i]=$((${seen[$i]:-0} + 1))
				[ "${seen[$i]}" -eq "$guests" ] &&
					took[$i]=$((SECONDS - since[i]))
				[ -n "$bad" ] && continue
				# shellcheck disable=SC2046
				if ! "$KOFI_TOP/tools/vm/judge.sh" -q \
					$(bystander "$h" "${todo[$i]}") "$log" \
					"${todo[$i]}" "$work/section" > /dev/null; then
					outcome=failed bad=$i bad_at=$SECONDS
				fi
			done
			ne[$h]=$e
		done
		[ $alive -eq 0 ] && break
		# A guest ended before its tests did (it panicked): the others
		# would wait for it at their next barrier until it times out.
		# They get a few seconds to print what they have, no more.
		if [ $dead -eq 1 ]; then
			[ -n "$gone_at" ] || gone_at=$SECONDS
			[ $((SECONDS - gone_at)) -ge 5 ] && break
		fi
		# A test failed: the other guest may finish its part of it
		# (its own section then says how it went), not more.
		if [ -n "$bad" ]; then
			[ "${seen[$bad]:-0}" -eq "$guests" ] && break
			[ $((SECONDS - bad_at)) -ge 60 ] && break
		fi
		if [ $up -eq 0 ]; then
			up=1
			for h in $(seq 0 $((guests - 1))); do
				[ "${bootok[$h]}" = 1 ] || up=0
			done
			[ $up -eq 1 ] && boot_secs=$((boot_secs + SECONDS - t0))
			if [ $up -eq 1 ] && boot_report; then
				outcome=bootreport
				break
			fi
			if [ $up -eq 0 ] && [ $((SECONDS - t0)) -ge "$boot_limit" ]; then
				outcome=noboot
				break
			fi
		fi
		# The test running longest: the oldest one begun and not ended.
		for ((i = 0; i < ${#todo[@]}; i++)); do
			[ -n "${since[$i]:-}" ] || break
			[ "${seen[$i]:-0}" -eq "$guests" ] && continue
			if [ $((SECONDS - since[i])) -ge "$timeout" ]; then
				outcome=timeout late=$i
				break 2
			fi
			break
		done
		sleep 0.5
	done
	# A test cut short took until now.
	for ((i = 0; i < ${#todo[@]}; i++)); do
		[ -n "${since[$i]:-}" ] && [ -z "${took[$i]:-}" ] &&
			took[$i]=$((SECONDS - since[i]))
	done
	# Guests that ended (a test crashed them) before the loop saw them
	# booted; or that ended before booting (a panic, QEMU refusing to
	# start), which ran no test either.
	if [ $up -eq 0 ] && [ "$outcome" = "done" ]; then
		up=1
		for h in $(seq 0 $((guests - 1))); do
			grep -a -q '^KOFI-BOOTED' "${blog[$h]}" || up=0
		done
		if [ $up -eq 0 ]; then
			outcome=noboot
		elif boot_report; then
			outcome=bootreport
		fi
	fi
	stop_guests
	wait_guests
}

# boot_silent: show which guest never printed KOFI-BOOTED and how its
# console ends.
boot_silent() {
	local h
	for h in $(seq 0 $((guests - 1))); do
		grep -a -q '^KOFI-BOOTED' "${blog[$h]}" && continue
		echo "  NOTE host$h: not booted after ${boot_limit}s, before any kOFI code ran; its console ends:"
		tail -n 3 "${blog[$h]}" | sed 's/^/    /'
	done
}

# emulator_report TEST: a register dump with EFLAGS bits that no x86 CPU
# sets, or a removed breakpoint run (tools/vm/emulator-fault.sh), in
# TEST's section of a guest: the emulator broke that guest.
emulator_report() {
	local h line
	for h in $(seq 0 $((guests - 1))); do
		[ -s "$logs/vm-$series-$1-h$h.log" ] || continue
		if line=$("$KOFI_TOP/tools/vm/emulator-fault.sh" \
			  "$logs/vm-$series-$1-h$h.log"); then
			echo "  NOTE host$h: a fault of the emulator, not of the guest:"
			echo "    $line"
			return 0
		fi
	done
	return 1
}

# The per-run archive: modules under /kofi/modules, tests under
# /kofi/tests, appended to the base archive.  make check runs several
# groups per kernel with the same modules and scripts: the initrd is
# packed once for them, in ~/.cache/kofi/initrd (one unused for a day is
# removed).
mkdir -p "$work/root/kofi/modules" "$work/root/kofi/tests"
find "$KOFI_CACHE/build/$series" -name '*.ko' \
	-exec cp {} "$work/root/kofi/modules/" \;
cp "$KOFI_TOP"/tools/vm/tests/* "$work/root/kofi/tests/"
key=$( (sha1sum < "$base"; cd "$work/root" && find . -type f | sort |
	xargs sha1sum) | sha1sum | cut -c 1-16)
initrd=$KOFI_CACHE/initrd/$series-$key.img
mkdir -p "$KOFI_CACHE/initrd"
find "$KOFI_CACHE/initrd" -type f -mmin +1440 -delete
if [ ! -s "$initrd" ]; then
	(cd "$work/root" && find . | cpio -o -H newc --quiet) > "$work/run.cpio"
	cat "$base" "$work/run.cpio" > "$initrd.$$"
	mv "$initrd.$$" "$initrd"
fi
touch "$initrd"

run_start=$SECONDS
in_tests=0
passed=0 failed=0
boots=0 bad_boots=0 boot_secs=0
todo=("${tests[@]}")
qopt=()
[ $quiet -eq 1 ] && qopt=(-q)
declare -A emu_retried=()
rm -f "$logs/vm-$series-$name"-boot*-h*.log*
while [ ${#todo[@]} -gt 0 ]; do
	boots=$((boots + 1))
	launch
	watch
	# QEMU's TCG now and then stalls a guest early in the stock
	# kernel's boot (its console stops in PCI set-up), and the
	# sanitizer kernel under TCG now and then reports while booting (an
	# early interrupt during CPU identification).  Such a boot says
	# nothing about kOFI: it is shown and the guests boot once more; a
	# second one in a row fails the tests it was to run.
	case $outcome in
	noboot|bootreport)
		[ "$outcome" = noboot ] && boot_silent
		bad_boots=$((bad_boots + 1))
		if [ $bad_boots -lt 2 ]; then
			echo "  NOTE: booting the guests again"
			continue
		fi
		for t in "${todo[@]}"; do
			echo "  FAIL: $t did not run: the guests did not boot twice in a row"
			echo "vm $series $t: 0 passed, 1 failed, 0s"
			failed=$((failed + 1))
		done
		break
		;;
	esac
	bad_boots=0
	# What QEMU said, but for being stopped.
	if [ $quiet -eq 0 ]; then
		for h in $(seq 0 $((guests - 1))); do
			grep -v 'terminating on signal' "$work/qemu-$h.out" |
				sed "s/^/  qemu host$h: /"
		done
	fi
	# What went wrong while booting (a module of the kernel that did not
	# load, no rxe0) belongs to no test.
	for h in $(seq 0 $((guests - 1))); do
		f=$(sed '/^KOFI-BOOTED/q' "${blog[$h]}" | grep -a '^KOFI-FAIL: ' |
			sed "s/^KOFI-FAIL: /  FAIL host$h: /")
		[ -n "$f" ] || continue
		echo "$f"
		failed=$((failed + $(echo "$f" | wc -l)))
	done
	next=()
	for i in "${!todo[@]}"; do
		t=${todo[$i]}
		if [ ${#next[@]} -gt 0 ]; then
			next+=("$t")
			continue
		fi
		out=() rcs=() began=0
		for h in $(seq 0 $((guests - 1))); do
			# shellcheck disable=SC2046
			o=$("$KOFI_TOP/tools/vm/judge.sh" "${qopt[@]}" \
				$(bystander "$h" "$t") -t "host$h" "${blog[$h]}" "$t" \
				"$logs/vm-$series-$t-h$h.log")
			rcs[$h]=$?
			out[$h]=$o
			[ "${rcs[$h]}" -ne 2 ] && began=1
		done
		# QEMU's TCG now and then corrupts a guest CPU's EFLAGS or
		# runs a breakpoint the kernel's code patching had removed
		# (see tools/vm/emulator-fault.sh) and the guest oopses.  Such
		# a run says nothing about kOFI: it is shown and the test runs
		# once more in a fresh boot; a second report of any kind fails
		# it.
		if [ $began -eq 1 ] && [ -z "${emu_retried[$t]:-}" ] &&
		   emulator_report "$t"; then
			echo "  NOTE: running $t again"
			emu_retried[$t]=1
			next+=("$t")
			continue
		fi
		p=0 f=0
		for h in $(seq 0 $((guests - 1))); do
			if [ "${rcs[$h]}" -eq 2 ]; then
				echo "  FAIL host$h: $t never began (log: ${blog[$h]})"
				f=$((f + 1))
				continue
			fi
			echo "${out[$h]}" | sed '$d' | grep .
			counts=$(echo "${out[$h]}" | tail -n1 |
				sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
			if [ -z "$counts" ]; then
				echo "  FAIL host$h: $t could not be judged"
				counts="0 1"
			fi
			p=$((p + ${counts% *}))
			f=$((f + ${counts#* }))
		done
		if [ "$outcome" = timeout ] && [ "$late" = "$i" ]; then
			echo "  NOTE: $t ran longer than ${timeout}s; the guests were stopped"
		fi
		secs=${took[$i]:-0}
		in_tests=$((in_tests + secs))
		echo "vm $series $t: $p passed, $f failed, ${secs}s"
		passed=$((passed + p))
		failed=$((failed + f))
		# A failed test may have left the guests broken: the tests
		# after it run in a fresh boot.
		if [ "$f" -gt 0 ]; then
			for ((j = i + 1; j < ${#todo[@]}; j++)); do
				next+=("${todo[$j]}")
			done
			[ ${#next[@]} -gt 0 ] &&
				echo "  NOTE: ${next[*]} run in a fresh boot"
			break
		fi
	done
	todo=("${next[@]}")
done

echo "vm $series $name: $boots boots (${boot_secs}s to boot), $((SECONDS - run_start - in_tests))s outside the tests"
echo "vm $series $name: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
