#!/bin/sh
# contrib/bench/startup.sh: start-up cost. `cperfwatch -- true` against `/usr/bin/time -v
# true` (target: at most 1.5x its wall time), with `perf stat` for reference, run in
# alternation; prints medians and the ratio. Also `--no-cgroup`, to show what the cgroup
# set-up costs on its own.
#
#   sh contrib/bench/startup.sh BUILD_DIR [--quick|--full]
. "$(dirname "$0")/lib.sh"
bench_init "$@"

ROUNDS=30
[ "$MODE" = quick ] && ROUNDS=10
[ "$MODE" = full ] && ROUNDS=100

have_perf=no
if command -v perf >/dev/null 2>&1 && perf stat -e task-clock true >/dev/null 2>&1; then
	have_perf=yes
fi
time_bin=/usr/bin/time
[ -x "$time_bin" ] || { echo "startup: $time_bin is missing (apt install time)" >&2; exit 2; }

hr "start-up: wall time of a command that does nothing ($ROUNDS alternating rounds)"
: >"$TMPD/cpw" && : >"$TMPD/cpwnc" && : >"$TMPD/time" && : >"$TMPD/perf" && : >"$TMPD/bare"
r=0
while [ $r -lt $ROUNDS ]; do
	"$BB/timeit" -q -o "$TMPD/cpw" -- "$CPW" -- true
	"$BB/timeit" -q -o "$TMPD/time" -- "$time_bin" -v true
	"$BB/timeit" -q -o "$TMPD/cpwnc" -- "$CPW" --no-cgroup -- true
	[ $have_perf = yes ] && "$BB/timeit" -q -o "$TMPD/perf" -- perf stat -e task-clock true
	"$BB/timeit" -q -o "$TMPD/bare" -- true
	r=$((r + 1))
done

# row LABEL FILE: median wall and CPU in ms, and the ratio to /usr/bin/time.
time_med=$(cut -d' ' -f1 "$TMPD/time" | median)
printf '%-36s %10s %10s %10s %12s\n' "command" "wall_ms" "min_ms" "cpu_ms" "x time -v"
row() {
	[ -s "$2" ] || return 0
	set -- "$1" "$(cut -d' ' -f1 "$2" | stats)" "$(awk '{ print $2 + $3 }' "$2" | median)"
	med=$(echo "$2" | cut -d' ' -f1)
	min=$(echo "$2" | cut -d' ' -f2)
	printf '%-36s %10.2f %10.2f %10.2f %12.2f\n' "$1" "$(calc "$med * 1000")" "$(calc "$min * 1000")" \
		"$(calc "$3 * 1000")" "$(calc "$med / $time_med")"
}
row "true (bare)" "$TMPD/bare"
row "/usr/bin/time -v true" "$TMPD/time"
row "cperfwatch -- true" "$TMPD/cpw"
row "cperfwatch --no-cgroup -- true" "$TMPD/cpwnc"
[ $have_perf = yes ] && row "perf stat -e task-clock true" "$TMPD/perf"
[ $have_perf = no ] && echo "(perf stat: not installed or not permitted; apt install linux-perf)"

cpw_med=$(cut -d' ' -f1 "$TMPD/cpw" | median)
ratio=$(calc "$cpw_med / $time_med")
summary "start-up: cperfwatch -- true / time -v true (wall)" "$(printf '%.2fx' "$ratio")" "<= 1.5x" \
	"$(verdict "$ratio" '<=' 1.5)"
ratio_nc=$(calc "$(cut -d' ' -f1 "$TMPD/cpwnc" | median) / $time_med")
summary "start-up with --no-cgroup (wall)" "$(printf '%.2fx' "$ratio_nc")" "<= 1.5x" \
	"$(verdict "$ratio_nc" '<=' 1.5)"
