#!/bin/sh
# contrib/bench/run-all.sh: every benchmark of cperfwatch's overhead in one go, then one
# summary table with the machine described. About 6 minutes by default.
#
#   sh contrib/bench/run-all.sh BUILD_DIR [--quick|--full] [--profile]
#
# --quick: fewer rounds and shorter watches (about 2 minutes, rougher figures).
# --full:  more rounds, and the 10-minute memory watch the issue asks for (about 20 min).
# --profile: also run profile.sh (the per-file price list, syscall counts, perf profile).
# Needs: cc, top (procps), /usr/bin/time (time); optional: htop and tmux (htop figures),
# perf (linux-perf: reference start-up and the profile), strace. Root is not required,
# but as root cperfwatch also runs its command in a cgroup, which the start-up figures show.
# Keep the machine otherwise idle: the figures are CPU times and medians, yet a busy
# machine still widens every spread.
dir=$(dirname "$0")
[ $# -ge 1 ] || { echo "usage: sh $0 BUILD_DIR [--quick|--full] [--profile]" >&2; exit 2; }
build=$1
shift
mode="" profile=no
for a in "$@"; do
	case "$a" in
	--quick | --full) mode=$a ;;
	--profile) profile=yes ;;
	*) echo "unknown option $a" >&2; exit 2 ;;
	esac
done

. "$dir/lib.sh"
bench_init "$build" ${mode:+"$mode"}
BENCH_SUMMARY=$TMPD/summary
BENCH_BIN=$BB
export BENCH_SUMMARY BENCH_BIN
: >"$BENCH_SUMMARY"

echo "cperfwatch overhead benchmarks (${mode:-default} run), $(date -u '+%Y-%m-%d %H:%M UTC')"
machine
start=$(date +%s)
for b in startup runmode sampling threads scaling memory; do
	sh "$dir/$b.sh" "$BUILD" ${mode:+"$mode"} || echo "($b.sh failed: exit $?)"
done
[ $profile = yes ] && sh "$dir/profile.sh" "$BUILD" ${mode:+"$mode"}

hr "summary ($(($(date +%s) - start)) s)"
machine
awk -F'|' 'BEGIN { printf "%-62s %-16s %-12s %s\n", "target", "measured", "goal", "verdict" }
	{ printf "%-62s %-16s %-12s %s\n", $1, $2, $3, $4 }' "$BENCH_SUMMARY"
