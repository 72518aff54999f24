#!/bin/sh
# contrib/bench/threads.sh: sampling one process with many idle threads (a thread pool).
#
# One process with 4,000 threads blocked in pause(), watched at 0.1 s for 5 s: how many of
# the 50 samples cperfwatch takes (target: at least 45) and its CPU against
# `top -H -b -d 0.1 -n 50 -p PID`, which lists the same threads as many times (target:
# at most 0.3x). Both are run in alternation; medians over the rounds.
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
: >"$TMPD/cpw.cpu" && : >"$TMPD/cpw.n" && : >"$TMPD/top.cpu"
rep=0
while [ $rep -lt $REPS ]; do
	set -- $(cpw_watch "$pid" 5 -i 0.1)
	echo "$1" >>"$TMPD/cpw.cpu"
	echo "$2" >>"$TMPD/cpw.n"
	set -- $(top_watch 50 -H -p "$pid")
	echo "$1" >>"$TMPD/top.cpu"
	rep=$((rep + 1))
done
cpw_cpu=$(median <"$TMPD/cpw.cpu")
top_cpu=$(median <"$TMPD/top.cpu")
samples=$(median <"$TMPD/cpw.n")
ratio=$(calc "$cpw_cpu / $top_cpu")
printf '%-44s %10s %10s\n' "" "cpu_s" "samples"
printf '%-44s %10.3f %10s\n' "cperfwatch --pid (5 s at 0.1 s)" "$cpw_cpu" "$samples"
printf '%-44s %10.3f %10s\n' "top -H -b -d 0.1 -n 50 -p PID" "$top_cpu" 50
echo "samples taken: $samples of 50 (target >= 45): $(verdict "$samples" '>=' 45)"
echo "CPU: ${ratio}x top -H (target <= 0.3x): $(verdict "$ratio" '<=' 0.3)"
summary "samples of 50, $have idle threads" "$samples" ">= 45" "$(verdict "$samples" '>=' 45)"
summary "CPU vs top -H, $have idle threads" "${ratio}x" "<= 0.3x" "$(verdict "$ratio" '<=' 0.3)"
