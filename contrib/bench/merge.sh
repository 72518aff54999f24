#!/bin/sh
# contrib/bench/merge.sh: `cperfwatch --merge` of a job of many ranks.
#
# Writes 10,000 and 100,000 rank reports (one small valid report,
# tests/fixtures/json/job-rank0.json, with its rank, host, wall and CPU times rewritten: 16
# ranks a host, walls spread over 2.00-2.96 s so that the medians have work to do) into a
# temporary directory, then times `cperfwatch --merge` of each job with the text, JSON and
# Prometheus writers, and prints the wall time, the time per rank and the peak memory.
# Merge mode was quadratic in the ranks (a sort per rank); it must stay O(n log n): the
# time per rank of 100,000 ranks within a small factor of that of 10,000.
#
# 100,000 file names are more than the kernel takes as one command line by default (a
# quarter of the stack limit: 2 MiB); the merge runs from the reports' directory with
# short names under a raised stack limit (`ulimit -s`), as a job of that size needs.
#
#   sh contrib/bench/merge.sh BUILD_DIR [--quick|--full]
#     --quick: 10,000 ranks only; --full: also 300,000
#     BENCH_MERGE_RANKS="N ..." overrides the sizes; BENCH_MERGE_TIMEOUT (s, default 600)
#     bounds each merge (an older, quadratic build would take ten minutes for 100,000);
#     BENCH_MERGE_FORMATS="text ..." the writers timed (default: text json prometheus).
. "$(dirname "$0")/lib.sh"
bench_init "$@"

SIZES=${BENCH_MERGE_RANKS:-}
if [ -z "$SIZES" ]; then
	SIZES="10000 100000"
	[ "$MODE" = quick ] && SIZES=10000
	[ "$MODE" = full ] && SIZES="10000 100000 300000"
fi
LIMIT=${BENCH_MERGE_TIMEOUT:-600}
FORMATS=${BENCH_MERGE_FORMATS:-text json prometheus}
FIXTURE=${BENCH_MERGE_FIXTURE:-$SRC/../../tests/fixtures/json/job-rank0.json}
[ -r "$FIXTURE" ] || { echo "merge: no fixture $FIXTURE" >&2; exit 2; }

# make_job N DIR: N reports DIR/N.json from the fixture (awk writes them all in one go).
make_job() {
	mkdir -p "$2" || exit 2
	awk -v n="$1" -v dir="$2" '
		{ line[NR] = $0 }
		END {
			for (r = 0; r < n; r++) {
				f = dir "/" r ".json"
				wall = 2 + (r * 37 % 97) / 100
				for (i = 1; i <= NR; i++) {
					s = line[i]
					if (s ~ /^  "rank":/) s = "  \"rank\": " r ","
					else if (s ~ /^  "host":/) s = sprintf("  \"host\": \"node%d\",", int(r / 16))
					else if (s ~ /"wall_s":/) s = sprintf("    \"wall_s\": %.2f,", wall)
					else if (s ~ /"user_s":/) s = sprintf("    \"user_s\": %.2f,", wall * 0.9)
					print s > f
				}
				close(f)
			}
		}' "$FIXTURE" || { echo "merge: cannot write $1 reports in $2" >&2; exit 2; }
}

hr "cperfwatch --merge of N rank reports (each ~1 KiB), limit ${LIMIT} s a merge"
printf '%-10s %-11s %10s %14s %12s %6s\n' ranks format wall_s "us per rank" maxrss_MiB exit
for n in $SIZES; do
	dir=$TMPD/job$n
	make_job "$n" "$dir"
	for fmt in $FORMATS; do
		: >"$TMPD/m.t"
		# The names are 0.json ... (n-1).json, given in rank order by seq.
		(cd "$dir" || exit 2
		 ulimit -s 65536 2>/dev/null || ulimit -s unlimited 2>/dev/null
		 # shellcheck disable=SC2046 # one argument per file is meant
		 "$BB/timeit" -q -o "$TMPD/m.t" -- timeout "$LIMIT" "$CPW" --merge --format "$fmt" \
			-o "$TMPD/merged.$fmt" -- $(seq -f '%.0f.json' 0 $((n - 1))))
		read -r wall _ _ rss status <"$TMPD/m.t" || { echo "merge: no timing for $n $fmt" >&2; continue; }
		[ "$status" = 124 ] && wall=">$LIMIT"
		printf '%-10s %-11s %10s %14s %12s %6s\n' "$n" "$fmt" "$wall" \
			"$(awk -v w="$wall" -v n="$n" 'BEGIN { if (w ~ />/) print "-"; else printf "%.2f", w * 1e6 / n }')" \
			"$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')" "$status"
		[ "$fmt" = text ] && summary "--merge of $n ranks (text), per rank" \
			"$(awk -v w="$wall" -v n="$n" 'BEGIN { if (w ~ />/) print w " s"; else printf "%.1f us", w * 1e6 / n }')" "-" "-"
	done
	rm -rf "$dir"
done
machine
