#!/bin/sh
# contrib/bench/profile.sh: where a sample of a 500-process tree spends its time.
#
# 1. The price of each /proc read per process (contrib/bench/proccost: CPU microseconds
#    per process per sample), for the files the sampler reads and for the cheaper ways
#    (pread on a kept descriptor, /proc/PID instead of task/TID).
# 2. The system calls of one attach watch, counted with strace -c, per sample and process.
# 3. A CPU profile of the same watch with perf record (software cpu-clock, which works
#    without a hardware PMU; needs perf and root or perf_event_paranoid <= 1): the hottest
#    cperfwatch functions (inclusive) and kernel functions (self).
#
#   sh contrib/bench/profile.sh BUILD_DIR [--quick|--full]
. "$(dirname "$0")/lib.sh"
bench_init "$@"

ROUNDS=20 SECS=5
[ "$MODE" = quick ] && ROUNDS=5 SECS=3
if pkg-config --exists libproc2 2>/dev/null; then
	# shellcheck disable=SC2046
	bench_build proccost proccost.c -DHAVE_LIBPROC2 $(pkg-config --cflags --libs libproc2)
else
	bench_build proccost proccost.c
fi

root=$(tree_start 500)
hr "price of each /proc read, 500 single-threaded sleepers ($ROUNDS passes)"
# shellcheck disable=SC2046
"$BB/proccost" "$ROUNDS" $(tree_pids "$root")

if command -v strace >/dev/null 2>&1; then
	hr "system calls of a ${SECS} s watch of the 500 (strace -c; strace slows it, so fewer samples)"
	strace -c -o "$TMPD/strace" "$CPW" --pid "$root" --duration "$SECS" --no-tui --json -o "$TMPD/s.json"
	n=$(json_samples "$TMPD/s.json")
	echo "samples: $n"
	awk -v n="$n" 'BEGIN { printf "%-18s %10s %14s %8s\n", "syscall", "calls", "per proc+sample", "errors" }
		$1 ~ /^[0-9.]+$/ && NF >= 5 {
			name = $NF; calls = $4; err = (NF == 6) ? $5 : 0
			if (calls > 500) printf "%-18s %10d %14.2f %8d\n", name, calls, calls / (n * 500), err }' "$TMPD/strace"
else
	echo "(strace not installed: apt install strace)"
fi

if command -v perf >/dev/null 2>&1 &&
	perf record -q -e cpu-clock -o "$TMPD/probe.data" true >/dev/null 2>&1; then
	hr "CPU profile of a ${SECS} s watch of the 500 (perf record -e cpu-clock, DWARF call graphs)"
	perf record -q -e cpu-clock -F 1000 --call-graph dwarf,16384 -o "$TMPD/perf.data" \
		"$CPW" --pid "$root" --duration "$SECS" --no-tui -o /dev/null >/dev/null 2>&1
	echo "-- cperfwatch and library functions, inclusive (children) --"
	perf report -i "$TMPD/perf.data" --children --sort sym --stdio -g none 2>/dev/null |
		grep '\[\.\]' | grep -v ' 0x0000' | head -25
	echo "-- kernel functions, self --"
	perf report -i "$TMPD/perf.data" --no-children --sort sym --stdio -g none 2>/dev/null |
		grep '\[k\]' | head -15
	echo "-- by shared object, self --"
	perf report -i "$TMPD/perf.data" --no-children --sort dso --stdio -g none 2>/dev/null |
		grep '%' | head -8
else
	echo "(perf record not available or not permitted: install linux-perf, run as root)"
fi
tree_stop "$root"
