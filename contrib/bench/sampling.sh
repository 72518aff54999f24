#!/bin/sh
# contrib/bench/sampling.sh: what one sample costs in CPU, side by side with top and htop.
#
# 1. A tree of 500 sleeping processes watched at 0.1 s: `cperfwatch --pid ROOT` against
#    `top -b -d 0.1` over the whole system (which reads those 500 and the rest), against
#    `top -b -p` on 20 of them (top -p takes at most 20 pids), and htop -p on all 500 when
#    htop and tmux are installed. Target: cperfwatch at most a fifth of top's CPU per sample.
# 2. One sleeping process on a machine that also holds the 500: `cperfwatch --pid PID`
#    against `top -b -d 0.1 -p PID`. Target: no more than top.
#
# CPU per sample is given two ways: "marginal", the difference between a long and a short
# watch divided by the difference in samples (start-up and the report cancel out: the
# steady cost), and "with start-up", the long watch's CPU over its samples. Memory peaks
# (wait4's max RSS, htop's VmHWM) are printed too; memory.sh checks the target.
#
#   sh contrib/bench/sampling.sh BUILD_DIR [--quick|--full]
. "$(dirname "$0")/lib.sh"
bench_init "$@"

REPS=2 LONG=10 SHORT=1
[ "$MODE" = quick ] && REPS=1 LONG=5
[ "$MODE" = full ] && REPS=5
N=$((LONG * 10)) NS=$((SHORT * 10))
[ "$(awk '{print $1}' /proc/sys/kernel/pid_max)" -gt 1200 ] || { echo "pid_max too low" >&2; exit 2; }

root=$(tree_start 500)
tree_pids "$root" >"$TMPD/pids"
first20=$(head -20 "$TMPD/pids" | paste -sd, -)
all=$(paste -sd, - <"$TMPD/pids")
nsys=$(nprocs)

hr "sampling a tree of 500 processes at 0.1 s ($REPS rounds of ${LONG} s and ${SHORT} s watches; $nsys processes on the machine)"
: >"$TMPD/cpw.m" && : >"$TMPD/cpw.s" && : >"$TMPD/top.m" && : >"$TMPD/top.s" && : >"$TMPD/top20.m"
: >"$TMPD/htop.m" && : >"$TMPD/cpw.rss" && : >"$TMPD/htop.rss" && : >"$TMPD/top.rss"
rep=0
while [ $rep -lt $REPS ]; do
	long=$(cpw_watch "$root" "$LONG")
	short=$(cpw_watch "$root" "$SHORT")
	marginal "$long" "$short" >>"$TMPD/cpw.m" && echo >>"$TMPD/cpw.m"
	per_sample "$long" >>"$TMPD/cpw.s" && echo >>"$TMPD/cpw.s"
	echo "$long" | cut -d' ' -f3 >>"$TMPD/cpw.rss"

	long=$(top_watch "$N")
	short=$(top_watch "$NS")
	marginal "$long" "$short" >>"$TMPD/top.m" && echo >>"$TMPD/top.m"
	per_sample "$long" >>"$TMPD/top.s" && echo >>"$TMPD/top.s"
	echo "$long" | cut -d' ' -f3 >>"$TMPD/top.rss"

	long=$(top_watch "$N" -p "$first20")
	short=$(top_watch "$NS" -p "$first20")
	marginal "$long" "$short" >>"$TMPD/top20.m" && echo >>"$TMPD/top20.m"

	h=$(htop_watch "$LONG" "$all")
	if [ -n "$h" ]; then
		per_sample "$h" >>"$TMPD/htop.m" && echo >>"$TMPD/htop.m"
		echo "$h" | cut -d' ' -f3 >>"$TMPD/htop.rss"
	fi
	rep=$((rep + 1))
done

cpw_m=$(median <"$TMPD/cpw.m")
top_m=$(median <"$TMPD/top.m")
printf '%-44s %9s %9s %11s %9s\n' "watcher (processes read per sample)" "ms/sample" "min..max" "us/process" "x top"
line() { # LABEL FILE PROCESSES
	[ -s "$2" ] || return 0
	set -- "$1" "$(stats <"$2")" "$3"
	med=${2%% *}
	printf '%-44s %9.3f %9s %11.2f %9.2f\n' "$1" "$med" \
		"$(echo "$2" | awk '{ printf "%.1f..%.1f", $2, $3 }')" "$(calc "$med * 1000 / $3")" \
		"$(calc "$med / $top_m")"
}
line "cperfwatch --pid ROOT, marginal (500)" "$TMPD/cpw.m" 500
line "cperfwatch --pid ROOT, with start-up (500)" "$TMPD/cpw.s" 500
line "top -b, whole system, marginal ($nsys)" "$TMPD/top.m" "$nsys"
line "top -b, whole system, with start-up ($nsys)" "$TMPD/top.s" "$nsys"
line "top -b -p (20 of the 500), marginal (20)" "$TMPD/top20.m" 20
if [ -s "$TMPD/htop.m" ]; then
	line "htop -d 1 -p (all 500; ~refreshes) (~$nsys)" "$TMPD/htop.m" "$nsys"
else
	echo "(htop: not measured: needs htop and tmux, apt install htop tmux)"
fi
printf 'peak RSS: cperfwatch %s KiB, top %s KiB' "$(median <"$TMPD/cpw.rss")" "$(median <"$TMPD/top.rss")"
[ -s "$TMPD/htop.rss" ] && printf ', htop %s KiB' "$(median <"$TMPD/htop.rss")"
echo
ratio=$(calc "$cpw_m / $top_m")
summary "sampling 500: cperfwatch / top -b CPU per sample" "$(printf '%.2fx' "$ratio")" "<= 0.2x" \
	"$(verdict "$ratio" '<=' 0.2)"
[ -s "$TMPD/htop.m" ] && summary "sampling 500: cperfwatch / htop CPU per refresh (approx.)" \
	"$(printf '%.2fx' "$(calc "$cpw_m / $(median <"$TMPD/htop.m")")")" "(info)" "-"

# 2. One process among the 500 others.
one=$(tree_start 1)
hr "sampling 1 process with $nsys others on the machine, at 0.1 s ($REPS rounds)"
: >"$TMPD/c1.m" && : >"$TMPD/c1.s" && : >"$TMPD/t1.m" && : >"$TMPD/t1.s"
rep=0
while [ $rep -lt $REPS ]; do
	long=$(cpw_watch "$one" "$LONG")
	short=$(cpw_watch "$one" "$SHORT")
	marginal "$long" "$short" >>"$TMPD/c1.m" && echo >>"$TMPD/c1.m"
	per_sample "$long" >>"$TMPD/c1.s" && echo >>"$TMPD/c1.s"
	long=$(top_watch "$N" -p "$one")
	short=$(top_watch "$NS" -p "$one")
	marginal "$long" "$short" >>"$TMPD/t1.m" && echo >>"$TMPD/t1.m"
	per_sample "$long" >>"$TMPD/t1.s" && echo >>"$TMPD/t1.s"
	rep=$((rep + 1))
done
top_m=$(median <"$TMPD/t1.m")
printf '%-44s %9s %9s %11s %9s\n' "watcher" "ms/sample" "min..max" "us/process" "x top -p"
line "cperfwatch --pid PID, marginal" "$TMPD/c1.m" 1
line "cperfwatch --pid PID, with start-up" "$TMPD/c1.s" 1
line "top -b -p PID, marginal" "$TMPD/t1.m" 1
line "top -b -p PID, with start-up" "$TMPD/t1.s" 1
ratio=$(calc "$(median <"$TMPD/c1.m") / $top_m")
summary "sampling 1 among $nsys: cperfwatch / top -b -p CPU per sample" "$(printf '%.2fx' "$ratio")" \
	"<= 1x" "$(verdict "$ratio" '<=' 1)"
tree_stop "$one"
tree_stop "$root"
