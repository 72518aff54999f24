#!/bin/sh
# contrib/bench/startup.sh: start-up cost. `cperfwatch -- true` against `/usr/bin/time -v
# true` (target: at most 1.5x its wall time), with `perf stat` for reference, run in
# alternation; prints medians and the ratio. Also `--no-cgroup`, to show what the cgroup
# set-up costs on its own.
#
# Both reports go to standard error, and what that costs depends on where it goes: GNU
# time writes its ~25 lines one write at a time, cperfwatch its report in one. So the
# rounds run twice: with the output thrown away (/dev/null, where a write costs nearly
# nothing) and with it read from a pipe, as a CI log, a pager or `2>&1 | tee` takes it.
#
# Then a few cold starts, 1.2 s apart: the first per-task perf event after a quiet second
# makes the kernel wait for an RCU grace period (it enables the scheduler's perf hooks and
# turns them off again a second after the last event closes), a cost perf stat shares
# and that back-to-back rounds hide.
#
#   sh contrib/bench/startup.sh BUILD_DIR [--quick|--full]
. "$(dirname "$0")/lib.sh"
bench_init "$@"

ROUNDS=30
COLD=4
[ "$MODE" = quick ] && ROUNDS=10 && COLD=2
[ "$MODE" = full ] && ROUNDS=100 && COLD=8

have_perf=no
if command -v perf >/dev/null 2>&1 && perf stat -e task-clock true >/dev/null 2>&1; then
	have_perf=yes
fi
time_bin=/usr/bin/time
[ -x "$time_bin" ] || { echo "startup: $time_bin is missing (apt install time)" >&2; exit 2; }

# wall FILE: the median wall time (s) of a timeit file.
wall() { cut -d' ' -f1 "$1" | median; }

# row LABEL FILE: median wall and CPU in ms, and the ratio to time_med (/usr/bin/time's).
row() {
	[ -s "$2" ] || return 0
	set -- "$1" "$(cut -d' ' -f1 "$2" | stats)" "$(awk '{ print $2 + $3 }' "$2" | median)"
	med=$(echo "$2" | cut -d' ' -f1)
	min=$(echo "$2" | cut -d' ' -f2)
	printf '%-36s %10.2f %10.2f %10.2f %12.2f\n' "$1" "$(calc "$med * 1000")" "$(calc "$min * 1000")" \
		"$(calc "$3 * 1000")" "$(calc "$med / $time_med")"
}
header() { printf '%-36s %10s %10s %10s %12s\n' "command" "wall_ms" "min_ms" "cpu_ms" "x time -v"; }

# rounds TIMEIT_FLAG LABEL: the alternating rounds with the output sent by TIMEIT_FLAG
# (-q: /dev/null, -p: a pipe), their table and summary lines.
rounds() {
	flag=$1 where=$2
	hr "start-up, output to $where: a command that does nothing ($ROUNDS alternating rounds)"
	: >"$TMPD/cpw" && : >"$TMPD/cpwnc" && : >"$TMPD/time" && : >"$TMPD/perf" && : >"$TMPD/bare"
	r=0
	while [ $r -lt $ROUNDS ]; do
		"$BB/timeit" $flag -o "$TMPD/cpw" -- "$CPW" -- true
		"$BB/timeit" $flag -o "$TMPD/time" -- "$time_bin" -v true
		"$BB/timeit" $flag -o "$TMPD/cpwnc" -- "$CPW" --no-cgroup -- true
		[ $have_perf = yes ] && "$BB/timeit" $flag -o "$TMPD/perf" -- perf stat -e task-clock true
		"$BB/timeit" $flag -o "$TMPD/bare" -- true
		r=$((r + 1))
	done
	time_med=$(wall "$TMPD/time")
	header
	row "true (bare)" "$TMPD/bare"
	row "/usr/bin/time -v true" "$TMPD/time"
	row "cperfwatch -- true" "$TMPD/cpw"
	row "cperfwatch --no-cgroup -- true" "$TMPD/cpwnc"
	[ $have_perf = yes ] && row "perf stat -e task-clock true" "$TMPD/perf"
	[ $have_perf = no ] && echo "(perf stat: not installed or not permitted; apt install linux-perf)"

	ratio=$(calc "$(wall "$TMPD/cpw") / $time_med")
	summary "start-up, output to $where: cperfwatch -- true / time -v true" \
		"$(printf '%.2fx' "$ratio")" "<= 1.5x" "$(verdict "$ratio" '<=' 1.5)"
	ratio_nc=$(calc "$(wall "$TMPD/cpwnc") / $time_med")
	summary "start-up, output to $where, --no-cgroup" "$(printf '%.2fx' "$ratio_nc")" "<= 1.5x" \
		"$(verdict "$ratio_nc" '<=' 1.5)"
}
rounds -q /dev/null
rounds -p "a pipe"

hr "cold start-up: output to a pipe, each run 1.2 s after the last ($COLD rounds)"
: >"$TMPD/ccpw" && : >"$TMPD/ctime" && : >"$TMPD/cperf"
r=0
while [ $r -lt $COLD ]; do
	sleep 1.2
	"$BB/timeit" -p -o "$TMPD/ccpw" -- "$CPW" -- true
	sleep 1.2
	"$BB/timeit" -p -o "$TMPD/ctime" -- "$time_bin" -v true
	if [ $have_perf = yes ]; then
		sleep 1.2
		"$BB/timeit" -p -o "$TMPD/cperf" -- perf stat -e task-clock true
	fi
	r=$((r + 1))
done
time_med=$(wall "$TMPD/ctime")
header
row "/usr/bin/time -v true, cold" "$TMPD/ctime"
row "cperfwatch -- true, cold" "$TMPD/ccpw"
[ $have_perf = yes ] && row "perf stat -e task-clock true, cold" "$TMPD/cperf"
ratio_cold=$(calc "$(wall "$TMPD/ccpw") / $time_med")
summary "start-up, cold (1.2 s apart; info)" "$(printf '%.2fx' "$ratio_cold")" "(info)" "-"
