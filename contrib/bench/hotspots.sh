#!/bin/sh
# contrib/bench/hotspots.sh: what the hotspots cost, against perf record in the same go: a
# CPU-bound program of ~2 s (contrib/bench/burn) run bare, under cperfwatch --no-hotspots,
# under cperfwatch (sampling on, the default), and under `perf record -F 99 -e cpu-clock`,
# in alternating order. Printed: the program's own CPU change, each tool's own CPU (its
# total minus the program's), the hotspots' share of the program (cperfwatch minus
# cperfwatch --no-hotspots) against the 1 % target, and the CPU per sample of each
# tool. Also a command of ~0.1 s: a run shorter than 0.5 s must pay nothing (never armed).
#
#   sh contrib/bench/hotspots.sh BUILD_DIR [--quick|--full]
# shellcheck disable=SC2046 # set -- $(stats) splits the four figures on purpose
. "$(dirname "$0")/lib.sh"
bench_init "$@"
ROUNDS=10
[ "$MODE" = quick ] && ROUNDS=3
[ "$MODE" = full ] && ROUNDS=30
PERF=$(command -v perf || true)

"$BB/timeit" -o "$TMPD/cal" -- "$BB/burn" 200
m=$(awk '{ m = int(200 * 2 / $2); print (m < 1) ? 1 : m }' "$TMPD/cal")
machine
hr "hotspots: burn $m (~2 s), $ROUNDS rounds: bare, --no-hotspots, default, perf record -F 99"
for f in bare off on perf samples_on samples_perf cpu_bare cpu_off cpu_on cpu_perf; do : >"$TMPD/$f"; done
run() { # NAME COMMAND...: appends the tool's own CPU (ms) and the program's CPU (s)
	name=$1
	shift
	: >"$TMPD/t" && : >"$TMPD/c"
	"$BB/timeit" -q -o "$TMPD/t" -- "$@" "$BB/burn" "$m" "$TMPD/c"
	own=$(cat "$TMPD/c")
	echo "$own" >>"$TMPD/cpu_$name"
	awk -v own="$own" '{ printf "%.6f\n", ($2 + $3 - own) * 1000 }' "$TMPD/t" >>"$TMPD/$name"
}
r=0
while [ $r -lt $ROUNDS ]; do
	run bare
	run off "$CPW" --no-hotspots -o /dev/null --
	run on "$CPW" -j -o "$TMPD/on.json" --
	grep -o '"samples": *[0-9]*' "$TMPD/on.json" | sed -n 2p | grep -o '[0-9]*$' >>"$TMPD/samples_on"
	if [ -n "$PERF" ]; then
		run perf "$PERF" record -q -F 99 -e cpu-clock -o "$TMPD/perf.data" --
		"$PERF" script -i "$TMPD/perf.data" -F ip 2>/dev/null | wc -l >>"$TMPD/samples_perf"
	fi
	r=$((r + 1))
done
bare=$(median <"$TMPD/cpu_bare")
for t in off on perf; do
	[ -s "$TMPD/$t" ] || continue
	set -- $(stats <"$TMPD/$t")
	printf '%-44s %7.1f ms (min %.1f, max %.1f) = %.2f %% of the program\n' "own CPU: $t" "$1" "$2" "$3" \
		"$(calc "$1 / 10 / $bare")"
	printf '%-44s %+.2f %%\n' "program's own CPU under $t" "$(calc "($(median <"$TMPD/cpu_$t") / $bare - 1) * 100")"
done
off=$(median <"$TMPD/off") on=$(median <"$TMPD/on")
ns=$(median <"$TMPD/samples_on")
hot=$(calc "($on - $off) / 10 / $bare")
printf '%-44s %.2f %% (%s samples; %.1f us each)\n' "hotspots' own CPU (on - off)" "$hot" "$ns" \
	"$(calc "($on - $off) * 1000 / ($ns > 0 ? $ns : 1)")"
total=$(calc "($on / 10 / $bare) + ($(median <"$TMPD/cpu_on") / $bare - 1) * 100")
printf '%-44s %+.2f %% (target <= 1 %%)\n' "command + cperfwatch CPU vs the command alone" "$total"
if [ -s "$TMPD/perf" ]; then
	np=$(median <"$TMPD/samples_perf")
	printf '%-44s %.1f us each (%s samples)\n' "perf record -F 99: own CPU per sample" \
		"$(calc "$(median <"$TMPD/perf") * 1000 / ($np > 0 ? $np : 1)")" "$np"
fi
hr "a command of ~0.1 s: never armed"
: >"$TMPD/short_on" && : >"$TMPD/short_off"
short=$(calc "int($m / 20) + 1")
r=0
while [ $r -lt $ROUNDS ]; do
	"$BB/timeit" -q -o "$TMPD/short_off" -- "$CPW" --no-hotspots -o /dev/null -- "$BB/burn" "$short"
	"$BB/timeit" -q -o "$TMPD/short_on" -- "$CPW" -o /dev/null -- "$BB/burn" "$short"
	r=$((r + 1))
done
printf '%-44s %.4f s with, %.4f s without\n' "wall, median" "$(cut -d' ' -f1 "$TMPD/short_on" | median)" \
	"$(cut -d' ' -f1 "$TMPD/short_off" | median)"
summary "hotspots: command + cperfwatch CPU, ~2 s program" "$(printf '%+.2f %%' "$total")" "<= 1 %" \
	"$(verdict "$total" '<=' 1)"
