#!/bin/sh
# contrib/bench/scaling.sh: CPU per sample for trees of 10, 100, 500 and 1000 sleeping
# processes at 0.1 s, and whether it grows linearly (target: the cost per process stays
# within 1.5x of the 100-process figure up to 1000: no quadratic step hides in the loop).
#
#   sh contrib/bench/scaling.sh BUILD_DIR [--quick|--full]
. "$(dirname "$0")/lib.sh"
bench_init "$@"

LONG=5 SHORT=1 SIZES="10 100 500 1000"
[ "$MODE" = quick ] && LONG=3
[ "$MODE" = full ] && LONG=10 SIZES="10 100 500 1000 2000"

hr "scaling: cperfwatch CPU per sample against tree size (${LONG} s and ${SHORT} s watches at 0.1 s)"
printf '%8s %12s %12s %12s %10s\n' "procs" "ms/sample" "us/process" "x per-proc@100" "peak KiB"
: >"$TMPD/fit"
base=""
worst=0
for n in $SIZES; do
	root=$(tree_start "$n")
	long=$(cpw_watch "$root" "$LONG")
	short=$(cpw_watch "$root" "$SHORT")
	tree_stop "$root"
	m=$(marginal "$long" "$short")
	per=$(calc "$m * 1000 / $n")
	[ "$n" = 100 ] && base=$per
	rel="-"
	if [ -n "$base" ]; then
		rel=$(printf '%.2f' "$(calc "$per / $base")")
		[ "$(verdict "$rel" '<=' "$worst")" = ok ] || worst=$rel
	fi
	printf '%8d %12.3f %12.2f %12s %10s\n' "$n" "$m" "$per" "$rel" "$(echo "$long" | cut -d' ' -f3)"
	echo "$n $m" >>"$TMPD/fit"
done
# Least squares ms = a + b * n, and how far the worst point is from the line.
awk '{ x[NR] = $1; y[NR] = $2; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 }
END {
	b = (NR * sxy - sx * sy) / (NR * sxx - sx * sx); a = (sy - b * sx) / NR
	for (i = 1; i <= NR; i++) {
		r = y[i] - (a + b * x[i]); if (r < 0) r = -r
		if (r > worst) worst = r
	}
	printf "linear fit: %.3f ms + %.2f us per process; largest residual %.3f ms\n", a, b * 1000, worst
}' "$TMPD/fit"
summary "scaling 100 -> max tree: cost per process, worst / at 100" "$(printf '%.2fx' "$worst")" "<= 1.5x" \
	"$(verdict "$worst" '<=' 1.5)"
