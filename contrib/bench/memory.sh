#!/bin/sh
# contrib/bench/memory.sh: cperfwatch's own memory while it watches a tree of 500
# processes. Target 1: its peak RSS is below htop's watching the same 500: both live views
# in the same tmux set-up, VmHWM read from /proc (skipped when htop or tmux is missing);
# the --no-tui text and --json reports are compared too. Target 2: it stays flat over a
# long watch: RSS sampled every few seconds over 60 s (--full: the 10 minutes the issue
# asks for); flat means the last reading is within 5 % (and 256 KiB) of the first one
# taken after the warm-up, since the history ring is bounded (the run's timeline, 220 KiB,
# is touched as it fills over its first 512 samples: part of that growth). Target 3: the run's
# timeline stays flat too: one process watched at --interval 10ms for the same time takes
# ten times more samples than the timeline's 512 points (they merge pairwise when full),
# with the same flatness rule.
#
#   sh contrib/bench/memory.sh BUILD_DIR [--quick|--full]
. "$(dirname "$0")/lib.sh"
bench_init "$@"

WATCH=60 STEP=5
[ "$MODE" = quick ] && WATCH=20 STEP=2
[ "$MODE" = full ] && WATCH=600 STEP=30

root=$(tree_start 500)
all=$(tree_pids "$root" | paste -sd, -)

hr "memory: watching 500 processes for $WATCH s (RSS every $STEP s)"
# Under timeit, whose wait4 gives the peak of the whole run, report writing included.
: >"$TMPD/m.t"
"$BB/timeit" -q -o "$TMPD/m.t" -- "$CPW" --pid "$root" --duration "$WATCH" --no-tui -o /dev/null &
tp=$!
t=0
: >"$TMPD/rss"
printf '%8s %10s %10s %12s\n' "time_s" "VmRSS_KiB" "VmHWM_KiB" "RssAnon_KiB"
sleep 1
cpw=$(cut -d' ' -f1 "/proc/$tp/task/$tp/children" 2>/dev/null)
[ -n "$cpw" ] || { echo "memory: cperfwatch did not start" >&2; exit 1; }
while alive "$cpw" && [ $t -lt "$WATCH" ]; do
	rss=$(proc_status_kib "$cpw" VmRSS)
	hwm=$(proc_status_kib "$cpw" VmHWM)
	anon=$(proc_status_kib "$cpw" RssAnon)
	[ -n "$rss" ] || break
	printf '%8d %10s %10s %12s\n' "$((t + 1))" "$rss" "$hwm" "$anon"
	echo "$rss $hwm $anon" >>"$TMPD/rss"
	sleep "$STEP"
	t=$((t + STEP))
done
wait "$tp"
peak=$(awk '{ if ($2 > m) m = $2 } END { print m }' "$TMPD/rss")
end_peak=$(cut -d' ' -f4 "$TMPD/m.t")
[ "${end_peak:-0}" -gt "$peak" ] && peak=$end_peak
first=$(sed -n 2p "$TMPD/rss" | cut -d' ' -f1)
[ -n "$first" ] || first=$(head -1 "$TMPD/rss" | cut -d' ' -f1)
last=$(tail -1 "$TMPD/rss" | cut -d' ' -f1)
growth=$(calc "$last - $first")
limit=$(calc "($first * 0.05 > 256) ? $first * 0.05 : 256")
echo "RSS after warm-up $first KiB, at the end $last KiB (growth $growth KiB); peak of the whole run, report included, $peak KiB"
summary "memory: RSS growth over a $WATCH s watch of 500" "${growth} KiB" "<= ${limit} KiB" \
	"$(verdict "$growth" '<=' "$limit")"

# Like for like with htop: cperfwatch's live view (attach mode's default on a terminal) in
# the same tmux set-up; then the JSON report, which also names users through libproc2.
v=$(view_watch cperfwatch 5 "$CPW" --pid "$root" -i 0.1)
vpeak=$(echo "$v" | cut -d' ' -f2) vanon=$(echo "$v" | cut -d' ' -f3)
: >"$TMPD/j.t"
"$BB/timeit" -q -o "$TMPD/j.t" -- "$CPW" --pid "$root" --duration 5 --no-tui --json -o /dev/null
jpeak=$(cut -d' ' -f4 "$TMPD/j.t")
h=$(htop_watch 5 "$all")
if [ -n "$h" ] && [ -n "$v" ]; then
	hpeak=$(echo "$h" | cut -d' ' -f3)
	hanon=$(echo "$h" | cut -d' ' -f4)
	echo "htop -p (the same 500): VmHWM $hpeak KiB, RssAnon $hanon KiB"
	echo "cperfwatch live view:   VmHWM $vpeak KiB, RssAnon $vanon KiB"
	echo "cperfwatch --no-tui: text report $peak KiB, --json report $jpeak KiB"
	summary "memory: private (RssAnon) cperfwatch view / htop (500 processes)" "$vanon / $hanon KiB" \
		"(info)" "-"
	summary "memory: peak RSS, cperfwatch's live view / htop's (500 processes)" "$vpeak / $hpeak KiB" \
		"below htop" "$(verdict "$vpeak" '<=' "$hpeak")"
	summary "memory: peak RSS, --no-tui text report / htop's" "$peak / $hpeak KiB" "below htop" \
		"$(verdict "$peak" '<=' "$hpeak")"
	summary "memory: peak RSS, --json report (libproc2 loaded) / htop's" "$jpeak / $hpeak KiB" \
		"below htop" "$(verdict "$jpeak" '<=' "$hpeak")"
else
	echo "(htop or the live view: not measured: needs htop and tmux)"
	summary "memory: cperfwatch peak RSS, text / json (500 processes)" "$peak / $jpeak KiB" "below htop" "n/a"
fi
tree_stop "$root"

# Target 3: the timeline, compacted again and again, keeps its memory.
hr "memory: one process watched at 10 ms for $WATCH s (the timeline compacts ~$((WATCH * 100 / 512))x)"
sleep 100000 &
sleeper=$!
echo "$sleeper" >>"$TMPD/trees"
"$CPW" --pid "$sleeper" --duration "$WATCH" --interval 10ms --no-tui --json -o "$TMPD/tl.json" &
cp=$!
sleep 1
t=1
: >"$TMPD/tl.rss"
while alive "$cp" && [ $t -lt "$WATCH" ]; do
	rss=$(proc_status_kib "$cp" VmRSS)
	[ -n "$rss" ] && echo "$rss" >>"$TMPD/tl.rss"
	sleep "$STEP"
	t=$((t + STEP))
done
wait "$cp"
kill "$sleeper" 2>/dev/null
points=$(jq -r '.timeline.points' "$TMPD/tl.json" 2>/dev/null)
stride=$(jq -r '.timeline.samples_per_point' "$TMPD/tl.json" 2>/dev/null)
first=$(sed -n 2p "$TMPD/tl.rss")
[ -n "$first" ] || first=$(head -1 "$TMPD/tl.rss")
last=$(tail -1 "$TMPD/tl.rss")
growth=$(calc "$last - $first")
limit=$(calc "($first * 0.05 > 256) ? $first * 0.05 : 256")
echo "RSS after warm-up $first KiB, at the end $last KiB (growth $growth KiB); timeline: $points points of $stride samples"
summary "memory: RSS growth, a $WATCH s watch at 10 ms (timeline compacted)" "${growth} KiB" \
	"<= ${limit} KiB" "$(verdict "$growth" '<=' "$limit")"
