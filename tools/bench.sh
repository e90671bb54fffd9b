#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: run every benchmark part (tools/vm/tests/*-bench.sh) on two
# guests and print its measurements as a table, with each provider's ratio
# to the baseline measured in the same VM run.
#
# A part prints lines "bench PROVIDER METRIC VALUE UNIT" (as KOFI-SAY
# lines); each provider is compared with its baselines measured in the
# same part: ksocket with "tcp" (the raw kernel TCP sample; targets:
# latency <= 1.10x, bandwidth >= 0.95x), ib_verbs with "verbs" (the
# raw-verbs sample; targets: latency <= 1.03x, bandwidth >= 0.97x),
# "ib_verbs-siw" with "verbs-siw" (the same over soft-iWARP, on kernels
# with siw, bandwidth with both samples paced by the receiver's grants;
# targets as for ib_verbs),
# "ksocket;rxm" and "ksocket-rdm" (reliable datagrams: ksocket's own) with
# "ksocket-msg" (connected endpoints of ksocket; targets as for
# ksocket), "ib_verbs;rxm" with
# "ib_verbs-msg" (connected endpoints of ib_verbs; latency <= 1.10x,
# bandwidth >= 0.95x, as over ksocket), "kofi-rdm" (the kernel's
# RDM latency) with "user-rdm" (libfabric's fi_pingpong -e rdm; no
# target), rds with "rds-raw" (the raw kernel RDS sample; targets:
# latency <= 1.05x, bandwidth >= 0.95x), and "ksocket;rxm" with "rds-raw"
# too (no target: which reliable datagrams to choose).  Every ratio is
# PROVIDER/BASELINE: for a time (usec) lower is better, for a rate (MB/s)
# higher is better; each line says which.  Parts with baselines of their
# own (kstream) print their "ratio A/B ..." lines themselves, in the same
# form.
#
# Benchmarks are reports, not tests: the exit status only says whether
# every part ran to completion.
#
# usage: tools/bench.sh [-k SERIES] [PART...]  run (default: 6.1, all parts)
#        tools/bench.sh [-k SERIES] -s         summary of the last run's
#                                              saved measurements only

set -uo pipefail
. "$(dirname "$0")/lib.sh"

usage() { sed -n 's/^# \{0,1\}//; /^usage:/,/^$/p' "$0" | sed '$d'; }

series=6.1
summary_only=0
while getopts k:sh opt; do
	case $opt in
	k) series=$OPTARG ;;
	s) summary_only=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

out=$KOFI_CACHE/logs/bench-$series.txt
rc=0
if [ $summary_only = 1 ]; then
	[ -e "$out" ] || kofi_die "no saved measurements ($out): run tools/bench.sh first"
else
	parts=("$@")
	if [ ${#parts[@]} -eq 0 ]; then
		for f in "$KOFI_TOP"/tools/vm/tests/*-bench.sh; do
			[ -e "$f" ] && parts+=("$(basename "$f" .sh)")
		done
	fi
	[ ${#parts[@]} -gt 0 ] ||
		kofi_die "no benchmark parts (tools/vm/tests/*-bench.sh)"

	: > "$out"
	: > "$out.ratios"
	for part in "${parts[@]}"; do
		log=$KOFI_CACHE/logs/bench-$part-$series.log
		kofi_log "benchmark $part on $series"
		if ! "$KOFI_TOP/tools/vm/run.sh" -k "$series" -n 2 -t 1800 "$part" \
			> "$log" 2>&1; then
			kofi_log "$part did not complete (log: $log)"
			rc=1
		fi
		# A provider is compared with a baseline of its own part only.
		echo "part $part" >> "$out"
		grep -o 'bench [^ ]* [^ ]* [0-9][0-9.]* [^ ]*$' "$log" >> "$out"
		# Parts with their own baselines (kstream) print "ratio ..." lines.
		grep -o 'ratio [^ ]* [^ ]* .*$' "$log" >> "$out.ratios"
	done
fi

# Each round measures a provider next to its baseline, so the ratio is
# taken per round (the k-th value of a provider with the k-th of its
# baseline, both of the same part); the median of those ratios is
# compared with the target, as one disturbed round on a shared emulated
# host moves a mean a long way.
awk '
# compare(PROVIDER, BASELINE, LATENCY TARGET, BANDWIDTH TARGET); "-": none
function compare(p, b, l, w) {
	ncmp++; cp[ncmp] = p; cb[ncmp] = b; clat[ncmp] = l; cbw[ncmp] = w
}
BEGIN {
	compare("ksocket", "tcp", 1.10, 0.95)
	compare("ib_verbs", "verbs", 1.03, 0.97)
	compare("ib_verbs-siw", "verbs-siw", 1.03, 0.97)
	compare("ksocket;rxm", "ksocket-msg", 1.10, 0.95)
	compare("ksocket-rdm", "ksocket-msg", 1.10, 0.95)
	compare("ib_verbs;rxm", "ib_verbs-msg", 1.10, 0.95)
	compare("kofi-rdm", "user-rdm", "-", "-")
	compare("rds", "rds-raw", 1.05, 0.95)
	compare("ksocket;rxm", "rds-raw", "-", "-")
}
$1 == "part" { part = $2; next }
{
	if (!((part) in seen)) {
		seen[part] = 1; parts[++nparts] = part
	}
	if (!($3 in unit))
		mets[++nmets] = $3
	k = part SUBSEP $2 SUBSEP $3; n[k]++; val[k, n[k]] = $4; sum[k] += $4
	unit[$3] = $5
}
function median(a, cnt,    i, j, t) {
	for (i = 2; i <= cnt; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return cnt % 2 ? a[(cnt + 1) / 2] : (a[cnt / 2] + a[cnt / 2 + 1]) / 2
}
# One row: provider p against baseline b for metric m in part q, with
# the targets of comparison c.
function row(q, c, m,    p, b, k, bk, lower, cnt, lo, hi, i, t, how, med, ok) {
	p = cp[c]; b = cb[c]
	k = q SUBSEP p SUBSEP m; bk = q SUBSEP b SUBSEP m
	lower = unit[m] ~ /sec$/
	cnt = 0
	lo = 1e9; hi = 0
	for (i = 1; i <= n[k] && i <= n[bk]; i++) {
		if (val[bk, i] <= 0)
			continue
		r[++cnt] = val[k, i] / val[bk, i]
		lo = r[cnt] < lo ? r[cnt] : lo
		hi = r[cnt] > hi ? r[cnt] : hi
	}
	t = lower ? clat[c] : cbw[c]
	if (t == "-")
		how = sprintf("%s is better, no target",
			lower ? "lower" : "higher")
	else
		how = sprintf("%s is better, target %s %.2fx",
			lower ? "lower" : "higher",
			lower ? "<=" : ">=", t)
	if (!cnt) {
		printf "%-11s %-7s %9.2f %-6s %-11s %9s  %-23s %7s %6d %11s  %s: no baseline\n",
			p, m, sum[k] / n[k], unit[m], b, "-",
			p "/" b, "-", 0, "-", how
		return
	}
	med = median(r, cnt)
	ok = lower ? med <= t : med >= t
	printf "%-11s %-7s %9.2f %-6s %-11s %9.2f  %-23s %6.2fx %6d %5.2f-%.2fx  %s%s\n",
		p, m, sum[k] / n[k], unit[m], b, sum[bk] / n[bk],
		p "/" b, med, cnt, lo, hi, how,
		t == "-" ? "" : ok ? ": met" : ": not met"
}
END {
	printf "%-11s %-7s %9s %-6s %-11s %9s  %-23s %7s %6s %11s  %s\n",
		"provider", "metric", "mean", "unit", "base", "mean", "ratio",
		"median", "rounds", "range", "which way is better, target"
	# In each part, each provider against each of its baselines there;
	# a provider with none of them there gets one row "no baseline".
	for (i = 1; i <= nparts; i++)
		for (j = 1; j <= ncmp; j++)
			for (m = 1; m <= nmets; m++) {
				k = parts[i] SUBSEP cp[j] SUBSEP mets[m]
				if (!n[k])
					continue
				if (n[parts[i] SUBSEP cb[j] SUBSEP mets[m]]) {
					row(parts[i], j, mets[m])
					continue
				}
				for (c = 1; c <= ncmp; c++)
					if (cp[c] == cp[j] &&
					    n[parts[i] SUBSEP cb[c] SUBSEP mets[m]])
						break
				for (f = 1; f < j && cp[f] != cp[j]; f++)
					;
				if (c > ncmp && f == j)
					row(parts[i], j, mets[m])
			}
}' "$out"
[ -s "$out.ratios" ] && cat "$out.ratios"
kofi_log "raw measurements: $out"
exit $rc
