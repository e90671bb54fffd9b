#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one or two QEMU guests (TCG) on a kernel, run a test script from
# tools/vm/tests in each, and report the result.
#
# The guests get the base initramfs of their kernel (mkinitramfs.sh) plus
# a second archive with kOFI's modules built for that kernel and the test
# scripts.  In two-guest mode the guests are joined by a virtual Ethernet
# link (a QEMU datagram netdev over two Unix sockets), each with its own
# address and an rxe device on its NIC.  Every guest has a hard timeout.
#
# A run passes when every guest reached the end of its script with exit
# status 0, printed at least one KOFI-PASS line and no KOFI-FAIL line, and
# its console holds no kernel report (tools/scan-splats.sh).
#
# usage: tools/vm/run.sh [-k SERIES] [-n GUESTS] [-t SECONDS] [-q] TEST
#   -k  kernel: 6.1 (default), 6.12 or debug
#   -n  number of guests: 1 (default) or 2
#   -t  timeout per guest in seconds (default 300, 900 on debug)
#   -q  print only failures and the summary line
# Prints each check and a last line "vm SERIES TEST: N passed, N failed".

set -uo pipefail
. "$(dirname "$0")/../lib.sh"

series=6.1 guests=1 timeout= quiet=0
while getopts k:n:t:q opt; do
	case $opt in
	k) series=$OPTARG ;;
	n) guests=$OPTARG ;;
	t) timeout=$OPTARG ;;
	q) quiet=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
test=${1:?usage: $0 [-k SERIES] [-n GUESTS] [-t SECONDS] TEST}
[ -x "$KOFI_TOP/tools/vm/tests/$test.sh" ] || kofi_die "no test $test"
case $guests in 1|2) ;; *) kofi_die "-n must be 1 or 2" ;; esac

mem=1024
# No CPU vulnerability mitigations: on the guests' Intel CPU model the
# kernel would isolate its page tables, and every CR3 switch empties
# TCG's translation cache of guest addresses (latency 2.4 times worse).
cmdline="console=ttyS0 loglevel=5 panic=-1 mitigations=off"
if [ "$series" = debug ]; then
	mem=2048
	timeout=${timeout:-900}
	# The sanitizers make this kernel slow under TCG: interpreting the
	# ACPI _PRT method for PCI interrupt routing can hit ACPICA's loop
	# timeout, leaving devices without interrupts, so PCI routing comes
	# from the BIOS PIRQ table (acpi=off instead upsets early interrupt
	# setup); and RCU's stall timeout is raised from 21 s so that a guest
	# starved of host CPU is not reported as stalled, while a real lockup
	# still is.
	cmdline+=" pci=noacpi rcupdate.rcu_cpu_stall_timeout=300"
	boot_limit=${boot_limit:-300}
fi
timeout=${timeout:-300}
# Seconds a guest may take to print KOFI-BOOTED (~10 under TCG).
boot_limit=${boot_limit:-120}

kver=$(kofi_kver "$series") || kofi_die "kernel $series not set up"
# Two runs of one test on one kernel would share its log files.
kofi_lock "vm-$series-$test"
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

# The per-run archive: modules under /kofi/modules, tests under /kofi/tests.
mkdir -p "$work/root/kofi/modules" "$work/root/kofi/tests"
find "$KOFI_CACHE/build/$series" -name '*.ko' \
	-exec cp {} "$work/root/kofi/modules/" \;
cp "$KOFI_TOP"/tools/vm/tests/* "$work/root/kofi/tests/"
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/run.cpio.gz"
cat "$base" "$work/run.cpio.gz" > "$work/initrd"

# launch: boot every guest in the background (pids in pids[]).
launch() {
	pids=()
	for h in $(seq 0 $((guests - 1))); do
		log=$logs/vm-$series-$test-h$h.log
		mkdir -p "$logs"
		: > "$log"
		net=()
		if [ "$guests" -eq 2 ]; then
			# Unix datagram sockets: no host TCP (whose Nagle and
			# delayed ACKs add ~20 ms to a small exchange), and a
			# full peer socket makes QEMU queue the frame and
			# retry instead of dropping it, as a host UDP socket
			# does; lost frames made guest TCP retransmit at
			# random and the benchmarks noisy.
			sock="local.type=unix,local.path=$work/net$h"
			sock+=",remote.type=unix,remote.path=$work/net$((1 - h))"
			net=(-netdev "dgram,id=n0,$sock"
			     -device "virtio-net-pci,netdev=n0,mac=52:54:00:6b:6f:0$h")
		fi
		# A CPU model of the SSE4.2 era, not "max", which turns on what
		# TCG emulates newest (5-level paging, AVX2, BMI, ADX, PKU).
		# Nehalem has no fast string moves (ERMS, FSRM), which TCG runs
		# one byte per trip through translated code: the kernel copies
		# with rep movsq.
		timeout --kill-after=10 "$timeout" qemu-system-x86_64 \
			-accel tcg -cpu Nehalem -smp 2 -m "$mem" \
			-nodefaults -no-reboot -display none -monitor none \
			-serial "file:$log" "${net[@]}" \
			-kernel "$kernel" -initrd "$work/initrd" \
			-append "$cmdline kofi_test=$test kofi_host=$h kofi_hosts=$guests" \
			> "$work/qemu-$h.out" 2>&1 &
		pids+=($!)
	done
}

# wait_guests: wait for every guest (exit codes in qrcs[]) and strip the
# serial console's CR LF line ends.
wait_guests() {
	local h
	qrcs=()
	for h in $(seq 0 $((guests - 1))); do
		wait "${pids[$h]}"
		qrcs[$h]=$?
		sed -i 's/\r$//' "$logs/vm-$series-$test-h$h.log"
	done
	pids=()
}

# boot_watch: wait until every guest has printed KOFI-BOOTED or ended.
# Return 1, having stopped the guests, if one is still silent after
# $boot_limit seconds.
boot_watch() {
	local h log t=$SECONDS silent

	while :; do
		silent=
		for h in $(seq 0 $((guests - 1))); do
			log=$logs/vm-$series-$test-h$h.log
			grep -a -q '^KOFI-BOOTED' "$log" && continue
			kill -0 "${pids[$h]}" 2>/dev/null && silent=$h
		done
		[ -z "$silent" ] && return 0
		[ $((SECONDS - t)) -ge "$boot_limit" ] && break
		sleep 1
	done
	log=$logs/vm-$series-$test-h$silent.log
	echo "  NOTE host$silent: not booted after ${boot_limit}s, before any kOFI code ran; its console ends:"
	tail -n 3 "$log" | tr -d '\r' | sed 's/^/    /'
	stop_guests
	wait_guests
	return 1
}

# boot_report: a kernel report before KOFI-BOOTED, i.e. while the stock
# kernel and its own modules were coming up and before any kOFI code ran.
boot_report() {
	local h log
	for h in $(seq 0 $((guests - 1))); do
		log=$logs/vm-$series-$test-h$h.log
		sed '/^KOFI-BOOTED/q' "$log" > "$log.boot"
		if ! "$KOFI_TOP/tools/scan-splats.sh" "$log.boot" > "$log.boot.out"; then
			echo "  NOTE host$h: the kernel reported this while booting, before any kOFI code ran:"
			sed 's/^/    /' "$log.boot.out" | head -n 40
			return 0
		fi
	done
	return 1
}

# emulator_report: a guest's register dump with EFLAGS bits that no x86
# CPU sets (tools/vm/emulator-fault.sh): the emulator broke that guest.
emulator_report() {
	local h line
	for h in $(seq 0 $((guests - 1))); do
		if line=$("$KOFI_TOP/tools/vm/emulator-fault.sh" \
			  "$logs/vm-$series-$test-h$h.log"); then
			echo "  NOTE host$h: a fault of the emulator, not of the guest:"
			echo "    $line"
			return 0
		fi
	done
	return 1
}

# QEMU's TCG now and then stalls a guest early in the stock kernel's
# boot (its console stops in PCI set-up).  Such a boot says nothing about
# kOFI: it is shown and the guests boot once more; a second one fails the
# run by its timeout.
launch
if ! boot_watch; then
	echo "  NOTE: booting the guests again"
	launch
fi
wait_guests
# The sanitizer kernel under TCG now and then reports while booting (an
# early interrupt during CPU identification).  Such a boot says nothing
# about kOFI: it is shown above and the guests boot once more; a second
# one fails the run like any other report.
if boot_report; then
	echo "  NOTE: booting the guests again"
	launch
	wait_guests
fi
# QEMU's TCG now and then corrupts a guest CPU's EFLAGS or runs a
# breakpoint the kernel's code patching had removed (see
# tools/vm/emulator-fault.sh) and the guest oopses.  Such a run says
# nothing about kOFI: it is shown above and the test runs once more; a
# second report of any kind fails the run.
if emulator_report; then
	echo "  NOTE: running the test again"
	launch
	wait_guests
fi

passed=0 failed=0
for h in $(seq 0 $((guests - 1))); do
	qrc=${qrcs[$h]}
	log=$logs/vm-$series-$test-h$h.log
	tag="host$h"
	if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
		echo "  FAIL $tag: timed out after ${timeout}s (log: $log)"
		failed=$((failed + 1))
	fi
	p=$(grep -a -c '^KOFI-PASS: ' "$log")
	f=$(grep -a -c '^KOFI-FAIL: ' "$log")
	if [ $quiet -eq 0 ]; then
		grep -a -E '^KOFI-(PASS|FAIL|SAY): ' "$log" |
			sed -e "s/^KOFI-SAY: /  $tag| /" \
			    -e "s/^KOFI-\([A-Z]*\): /  \1 $tag: /"
	else
		grep -a -E '^KOFI-FAIL: ' "$log" | sed "s/^KOFI-FAIL: /  FAIL $tag: /"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	done_line=$(grep -a '^KOFI-DONE ' "$log" | tail -n1)
	if [ "$done_line" != "KOFI-DONE rc=0" ]; then
		echo "  FAIL $tag: script did not finish cleanly (${done_line:-no KOFI-DONE}; log: $log)"
		failed=$((failed + 1))
	elif [ "$p" -eq 0 ]; then
		echo "  FAIL $tag: no check passed (log: $log)"
		failed=$((failed + 1))
	fi
	if ! "$KOFI_TOP/tools/scan-splats.sh" "$log"; then
		echo "  FAIL $tag: kernel reports in the console log"
		failed=$((failed + 1))
	fi
	if [ -s "$work/qemu-$h.out" ] && [ $quiet -eq 0 ]; then
		sed 's/^/  qemu: /' "$work/qemu-$h.out"
	fi
done

echo "vm $series $test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
