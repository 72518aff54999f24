#!/bin/sh
# contrib/bench/hotspots.sh: what the hotspots cost, against perf record in the same go: a
# CPU-bound program of ~2 s (contrib/bench/burn) run bare, under cperfwatch --no-hotspots,
# under cperfwatch (sampling on, the default), and under `perf record -F 99 -e cpu-clock`,
# in alternating order. Printed: the program's own CPU change, each tool's own CPU (its
# total minus the program's), the hotspots' share of the program (cperfwatch minus
# cperfwatch --no-hotspots) against the 1 % target, and the CPU per sample of each
# tool. Then a pure-Python loop and a pool of 4 Python workers (their stacks read too):
# the command's CPU plus cperfwatch's against the command alone, where the command's part is
# what its samples cost it, each at the price sampcost.c measures (a whole run against a bare
# one cannot show ~0.3 % here: two bare runs differ by 3-10 %). Also a command of ~0.1 s: a
# run shorter than 0.5 s must pay nothing (never armed).
#
#   sh contrib/bench/hotspots.sh BUILD_DIR [--quick|--full]
# shellcheck disable=SC2046 # set -- $(stats) splits the four figures on purpose
. "$(dirname "$0")/lib.sh"
bench_init "$@"
ROUNDS=10
[ "$MODE" = quick ] && ROUNDS=3
[ "$MODE" = full ] && ROUNDS=30
PERF=$(command -v perf || true)
bench_build sampcost sampcost.c

"$BB/timeit" -o "$TMPD/cal" -- "$BB/burn" 200
m=$(awk '{ m = int(200 * 2 / $2); print (m < 1) ? 1 : m }' "$TMPD/cal")
machine
# What a sample costs the program: the interrupt that takes it runs on the program's CPU,
# charged to it. sampcost samples itself at 999 a second in alternate ~20 ms chunks of the
# same work (the median of five runs of 150 pairs: one run alone varies from 7 to 40 us
# here, as the host's speed does).
: >"$TMPD/sampcost"
for i in 1 2 3 4 5; do
	"$BB/sampcost" 999 150 >"$TMPD/sc" || { echo "sampcost: no cpu-clock sampling here" >&2; break; }
	awk '{ print $4 }' "$TMPD/sc" >>"$TMPD/sampcost"
done
per_sample=0
[ -s "$TMPD/sampcost" ] && per_sample=$(median <"$TMPD/sampcost")
printf '%-44s %.1f us (sampcost.c: 999 Hz, 5 x 150 paired chunks; %s)\n' \
	"a cpu-clock sample's cost to the program" "$per_sample" "$(tr '\n' ' ' <"$TMPD/sampcost")"
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
	run on "$CPW" -o "$TMPD/on.txt" --
	sed -n 's/^Hotspots (\([0-9]*\) cpu-clock samples.*/\1/p' "$TMPD/on.txt" >>"$TMPD/samples_on"
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
# The program's part two ways: its own CPU against the bare runs' (what the run shows, within
# the runs' spread) and its samples at sampcost's price (what they cost, the Python rows' way).
total=$(calc "($on / 10 / $bare) + ($(median <"$TMPD/cpu_on") / $bare - 1) * 100")
priced=$(calc "($on / 10 / $bare) + $ns * $per_sample / 1e4 / $bare")
printf '%-44s %+.2f %%, %+.2f %% with the samples priced (target <= 1 %%)\n' \
	"command + cperfwatch CPU vs the command alone" "$total" "$priced"
if [ -s "$TMPD/perf" ]; then
	np=$(median <"$TMPD/samples_perf")
	printf '%-44s %.1f us each (%s samples)\n' "perf record -F 99: own CPU per sample" \
		"$(calc "$(median <"$TMPD/perf") * 1000 / ($np > 0 ? $np : 1)")" "$np"
fi
# Python: the stacks are read from outside (process_vm_readv), on top of the samples. For a
# pure-Python loop of ~2 s and a pool of 4 worker processes (fixed work), cperfwatch's own
# CPU is its total (timeit: it and its children) less the command's: the watched command
# is a second timeit that runs the loop, whose wait4 gives the loop's CPU exactly and which
# gives its own, so that the command's run-to-run spread (3-7 % here) cancels out. The
# report is the default one (text, -o /dev/null); --json is measured too: it names each
# process's user through libproc2 (loaded with dlopen, ~2 ms once).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || true)
if [ -n "$PY" ]; then
	cat >"$TMPD/loop.py" <<'PYEOF'
import sys
def work(n):
    s = 0
    for i in range(n):
        s += i % 7
    return s
if __name__ == "__main__":
    n, procs = int(sys.argv[1]), int(sys.argv[2])
    if procs == 1:
        work(n)
    else:
        import multiprocessing
        with multiprocessing.Pool(procs) as pool:
            pool.map(work, [n // (2 * procs)] * (2 * procs))
PYEOF
	"$BB/timeit" -o "$TMPD/pycal" -- "$PY" "$TMPD/loop.py" 2000000 1
	pn=$(awk '{ n = int(2000000 * 2 / ($2 + $3)); print (n < 1000) ? 1000 : n }' "$TMPD/pycal")
	own_share() { # CPERFWATCH_OPTION...: cperfwatch's own CPU over the command's, in %, for one
		# watched run, then what the command's samples cost it (the report's count at
		# per_sample each; 0 where the report is not text or has no samples)
		: >"$TMPD/pyt" && : >"$TMPD/pyc" && : >"$TMPD/py.txt"
		"$BB/timeit" -q -o "$TMPD/pyt" -- "$CPW" "$@" -- "$BB/timeit" -o "$TMPD/pyc" -- "$PY" "$TMPD/loop.py" \
			"$((pn * scale))" "$procs"
		ns=$(sed -n 's/^Hotspots (\([0-9]*\) cpu-clock samples.*/\1/p' "$TMPD/py.txt")
		awk -v ns="${ns:-0}" -v us="$per_sample" 'NR == FNR { all = $2 + $3; next }
			{ cmd = $2 + $3; printf "%.4f %.4f\n", 100 * (all - cmd - $6) / cmd, ns * us / 1e4 / cmd }' \
			"$TMPD/pyt" "$TMPD/pyc"
	}
	# The pool's ~2 s of CPU take ~1.1 s on two cores, so what cperfwatch pays once (taking
	# on five processes, their waits, the start and the report) weighs twice what it does in
	# the loop; the same pool with twice the work (~2 s of wall time) shows that part.
	for config in "1 1" "4 1" "4 2"; do
		procs=${config% *} scale=${config#* }
		: >"$TMPD/py_on" && : >"$TMPD/py_off" && : >"$TMPD/py_json"
		r=0
		while [ $r -lt $ROUNDS ]; do
			own_share -o "$TMPD/py.txt" >>"$TMPD/py_on"
			own_share --no-hotspots -o /dev/null | cut -d' ' -f1 >>"$TMPD/py_off"
			own_share -j -o "$TMPD/py.json" | cut -d' ' -f1 >>"$TMPD/py_json"
			r=$((r + 1))
		done
		cut -d' ' -f1 "$TMPD/py_on" >"$TMPD/py_own"
		set -- $(stats <"$TMPD/py_own")
		sampled=$(cut -d' ' -f2 "$TMPD/py_on" | median)
		all=$(calc "$1 + $sampled")
		label="Python loop, one process, ~2 s of CPU"
		[ "$procs" = 4 ] && label="Python pool of 4 workers, ~2 s of CPU"
		[ "$scale" = 2 ] && label="Python pool of 4, ~4 s of CPU (~2 s of wall)"
		printf '%-44s +%.2f %% = cperfwatch +%.2f %% (min %.2f, max %.2f; --no-hotspots +%.2f %%; --json +%.2f %%)\n' \
			"$label" "$all" "$1" "$2" "$3" "$(median <"$TMPD/py_off")" "$(median <"$TMPD/py_json")"
		printf '%-44s + the command'"'"'s samples +%.2f %% (target: the sum <= 1 %%)\n' "" "$sampled"
		summary "hotspots: $label, command + cperfwatch CPU" "$(printf '+%.2f %%' "$all")" "<= 1 %" \
			"$(verdict "$all" '<=' 1)"
	done
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
summary "hotspots: command + cperfwatch CPU, ~2 s C program" "$(printf '%+.2f %%' "$priced")" "<= 1 %" \
	"$(verdict "$priced" '<=' 1)"
