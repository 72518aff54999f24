#!/bin/sh
# contrib/bench/threads.sh: sampling one process with many idle threads (a thread pool).
#
# One process with 4,000 threads blocked in pause(), watched at 0.1 s for 5 s: how many of
# the 50 samples cperfwatch takes (target: at least 45) and its CPU against
# `top -H -b -d 0.1 -n 50 -p PID`, which lists the same threads as many times (target:
# at most 0.2x). Both are run in alternation; medians over the rounds. The whole runs
# include each one's first pass over the threads (for cperfwatch in attach mode: every
# thread's files opened, its wait probed, its counters armed); the marginal rows take a
# 1 s watch (10 of top's iterations) from the 5 s one, which leaves the steady cost of a
# sample.
#
#   sh contrib/bench/threads.sh BUILD_DIR [--quick|--full]
. "$(dirname "$0")/lib.sh"
bench_init "$@"
bench_build threads threads.c -pthread

NTHREADS=${BENCH_THREADS:-4000}
REPS=3
[ "$MODE" = quick ] && REPS=1
[ "$MODE" = full ] && REPS=7

pid=$("$BB/threads" "$NTHREADS") || { echo "threads: could not start $NTHREADS threads" >&2; exit 2; }
echo "$pid" >>"$TMPD/trees"
have=$(ls "/proc/$pid/task" | wc -l)

hr "one process with $have idle threads, watched at 0.1 s for 5 s ($REPS rounds)"
: >"$TMPD/cpw.cpu" && : >"$TMPD/cpw.n" && : >"$TMPD/top.cpu" && : >"$TMPD/cpw.m" && : >"$TMPD/top.m"
rep=0
while [ $rep -lt $REPS ]; do
	long=$(cpw_watch "$pid" 5 -i 0.1)
	short=$(cpw_watch "$pid" 1 -i 0.1)
	# shellcheck disable=SC2086 # the fields of one line
	set -- $long
	echo "$1" >>"$TMPD/cpw.cpu"
	echo "$2" >>"$TMPD/cpw.n"
	marginal "$long" "$short" >>"$TMPD/cpw.m" && echo >>"$TMPD/cpw.m"
	long=$(top_watch 50 -H -p "$pid")
	short=$(top_watch 10 -H -p "$pid")
	echo "${long%% *}" >>"$TMPD/top.cpu"
	marginal "$long" "$short" >>"$TMPD/top.m" && echo >>"$TMPD/top.m"
	rep=$((rep + 1))
done
cpw_cpu=$(median <"$TMPD/cpw.cpu")
top_cpu=$(median <"$TMPD/top.cpu")
samples=$(median <"$TMPD/cpw.n")
ratio=$(calc "$cpw_cpu / $top_cpu")
cpw_m=$(median <"$TMPD/cpw.m")
top_m=$(median <"$TMPD/top.m")
mratio=$(calc "$cpw_m / $top_m")
printf '%-44s %10s %10s %10s\n' "" "cpu_s" "samples" "min..max"
printf '%-44s %10.3f %10s %10s\n' "cperfwatch --pid (5 s at 0.1 s)" "$cpw_cpu" "$samples" "$(stats <"$TMPD/cpw.cpu" | awk '{ printf "%.2f..%.2f", $2, $3 }')"
printf '%-44s %10.3f %10s %10s\n' "top -H -b -d 0.1 -n 50 -p PID" "$top_cpu" 50 "$(stats <"$TMPD/top.cpu" | awk '{ printf "%.2f..%.2f", $2, $3 }')"
printf '%-44s %10.3f %10s\n' "cperfwatch, marginal ms/sample" "$cpw_m" "-"
printf '%-44s %10.3f %10s\n' "top -H, marginal ms/iteration" "$top_m" "-"
echo "samples taken: $samples of 50 (target >= 45): $(verdict "$samples" '>=' 45)"
echo "CPU: ${ratio}x top -H (target <= 0.2x): $(verdict "$ratio" '<=' 0.2)"
echo "CPU per sample, marginal: ${mratio}x top -H: $(verdict "$mratio" '<=' 0.2)"
summary "samples of 50, $have idle threads" "$samples" ">= 45" "$(verdict "$samples" '>=' 45)"
summary "CPU vs top -H, $have idle threads" "${ratio}x" "<= 0.2x" "$(verdict "$ratio" '<=' 0.2)"
summary "CPU per sample vs top -H, marginal" "$(printf '%.2fx' "$mratio")" "(info)" "-"
