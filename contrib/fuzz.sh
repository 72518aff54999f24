#!/bin/sh
# contrib/fuzz.sh: builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan)
# straight from the parser sources, replays each target's corpus, then fuzzes each for a
# while. An input that crashes or breaks an invariant is kept as a regression input under
# tests/fuzz/corpus/TARGET/regressions/, which `make check` replays from then on.
#
#   contrib/fuzz.sh [OPTIONS] [SECONDS [TARGET...]]
#     SECONDS            fuzzing time per target (default 60); 0 only replays the corpus
#     TARGET             stat schedstat status io pidlist psi vmstat taskstats cgroup escape waits merge outname elf perfmap drm proc_events pyframes
#                        (default: all)
#     -b DIR             build and work in DIR (kept); default a temporary directory
#     -s DIR             keep crashers under DIR/TARGET/ instead of the source tree
#     -j N               targets fuzzed at the same time (default: the number of CPUs)
#
# Prints one line per target, "PASS TARGET: ..." or "FAIL TARGET: ...", details on stderr.
# Exit status: 0 all passed, 1 a target failed (crasher kept), 77 clang or libFuzzer is
# missing (install clang and libclang-rt-14-dev, or set CLANG).
#
# New interesting inputs grow a working corpus in the build directory, not the tree: seeds
# stay small and reviewed. To keep a useful one, copy it into tests/fuzz/corpus/TARGET/.
set -u

ALL_TARGETS="stat schedstat status io pidlist psi vmstat taskstats cgroup escape waits outname merge elf perfmap drm proc_events pyframes"
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
CLANG=${CLANG:-clang}
build_dir=
save_dir=
jobs=$(nproc 2>/dev/null || echo 2)

while getopts b:s:j: opt; do
	case $opt in
	b) build_dir=$OPTARG ;;
	s) save_dir=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) echo "usage: $0 [-b DIR] [-s DIR] [-j N] [SECONDS [TARGET...]]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-$ALL_TARGETS}
case $seconds in *[!0-9]* | '') echo "fuzz.sh: SECONDS must be a whole number" >&2; exit 2 ;; esac
for t in $targets; do
	[ -f "$SRCDIR/tests/fuzz/fuzz_$t.c" ] || { echo "fuzz.sh: no target '$t' (targets: $ALL_TARGETS)" >&2; exit 2; }
done

if [ -z "$build_dir" ]; then
	build_dir=$(mktemp -d "${TMPDIR:-/tmp}/cpw-fuzz.XXXXXX") || exit 1
	trap 'rm -rf "$build_dir"' EXIT
	trap 'exit 130' INT TERM
fi
mkdir -p "$build_dir" || exit 1

# Can this clang build a libFuzzer binary at all?
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n%s\n' \
	'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
	>"$build_dir/probe.c"
if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "fuzz.sh: $CLANG not found (apt-get install clang libclang-rt-14-dev)" >&2
	exit 77
fi
if ! "$CLANG" -fsanitize=fuzzer,address,undefined -o "$build_dir/probe" "$build_dir/probe.c" \
	>"$build_dir/probe.log" 2>&1; then
	echo "fuzz.sh: $CLANG cannot link libFuzzer (apt-get install libclang-rt-14-dev):" >&2
	tail -n 3 "$build_dir/probe.log" >&2
	exit 77
fi

# The parsers only need _GNU_SOURCE from config.h: a minimal one keeps this script
# independent of any configured build.
printf '#define _GNU_SOURCE 1\n#define PACKAGE_VERSION "fuzz"\n' >"$build_dir/config.h"
PARSERS="src/source/proc/proc_parse.c src/util/escape.c src/source/kernel/psi.c src/source/kernel/vmstat.c
	src/source/kernel/taskstats_parse.c src/source/cgroup/cgroup_path.c src/source/cgroup/cgroup_read.c
	src/source/cgroup/cgroup.c src/source/kernel/kfile.c
	src/source/waits/wait_parse.c src/source/waits/wait_kind.c src/util/outname.c
	src/source/reports/job_read.c
	src/source/elf/elf_symbols.c src/source/elf/perf_map.c src/source/sample/sample_parse.c
	src/source/sample/sample_maps.c src/source/sample/kallsyms.c src/source/elf/elf_file.c
	src/source/elf/dwarf_lines.c
	src/source/gpu/drm_fdinfo.c src/source/kernel/proc_events_parse.c
	src/source/python/python_frames.c src/source/python/python_layout.c src/source/python/python_lines.c"
# The merge reader parses with json-c.
JSONC_LIBS=$(pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
CFLAGS_FUZZ="-g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

# One target: build, replay its corpus, fuzz. Writes its result line to $build_dir/T.result.
run_target() {
	t=$1
	exe="$build_dir/fuzz_$t"
	log="$build_dir/fuzz_$t.log"
	corpus="$SRCDIR/tests/fuzz/corpus/$t"
	work="$build_dir/work_$t"
	crashes="$build_dir/crashes_$t"
	mkdir -p "$work" "$crashes"
	rm -f "$crashes"/*
	# shellcheck disable=SC2086 # word splitting of the flag list is meant
	if ! (cd "$SRCDIR" && "$CLANG" $CFLAGS_FUZZ -I"$build_dir" -Isrc -Itests/fuzz \
		-o "$exe" "tests/fuzz/fuzz_$t.c" "$build_dir/parsers.a" $JSONC_LIBS -lm) >"$log" 2>&1; then
		echo "FAIL $t: does not build: $(grep -m1 error "$log")" >"$build_dir/$t.result"
		return
	fi
	ncorpus=$(find "$corpus" -type f 2>/dev/null | wc -l)
	# -runs=0 executes every corpus input once (regressions included) and stops.
	if ! "$exe" -runs=0 -artifact_prefix="$crashes/" "$corpus" >>"$log" 2>&1; then
		keep_crashers "$t"
		echo "FAIL $t: an input of the corpus fails again: $(find_error "$log")" >"$build_dir/$t.result"
		return
	fi
	if [ "$seconds" -gt 0 ] && ! "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$crashes/" "$work" "$corpus" >>"$log" 2>&1; then
		keep_crashers "$t"
		echo "FAIL $t: found a crasher, kept as ${kept# }: $(find_error "$log")" >"$build_dir/$t.result"
		return
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	echo "PASS $t: $ncorpus corpus inputs replayed, ${runs:-0} runs in ${seconds} s without a finding" \
		>"$build_dir/$t.result"
}

find_error() {
	grep -m1 -E 'ERROR: |runtime error|invariant broken|deadly signal|timeout' "$1" | cut -c1-200
}

# Copies what libFuzzer left in the crash directory into the regression corpus.
keep_crashers() {
	t=$1
	dest=${save_dir:+$save_dir/$t}
	dest=${dest:-$SRCDIR/tests/fuzz/corpus/$t/regressions}
	kept=
	for f in "$build_dir/crashes_$t"/*; do
		[ -f "$f" ] || continue
		mkdir -p "$dest" && cp "$f" "$dest/" && kept="$kept $dest/$(basename "$f")"
	done
	kept=${kept:- (none written)}
}

# The parsers, compiled once for every target (-fsanitize=fuzzer-no-link: coverage
# instrumentation without libFuzzer's main).
rm -f "$build_dir/parsers.a"
objs=
for s in $PARSERS; do
	o="$build_dir/$(basename "$s" .c).o"
	objs="$objs $o"
	# shellcheck disable=SC2086
	(cd "$SRCDIR" && "$CLANG" $CFLAGS_FUZZ -fsanitize=fuzzer-no-link -I"$build_dir" -Isrc \
		-Isrc/source -c -o "$o" "$s") >"$o.log" 2>&1 &
done
wait
for o in $objs; do
	[ -f "$o" ] || { echo "FAIL build: $(grep -m1 error "$o.log")"; cat "$o.log" >&2; exit 1; }
done
# shellcheck disable=SC2086
ar rcs "$build_dir/parsers.a" $objs || exit 1

# Runs the targets $jobs at a time.
set -- $targets
while [ $# -gt 0 ]; do
	i=0
	while [ $# -gt 0 ] && [ "$i" -lt "$jobs" ]; do
		run_target "$1" &
		shift
		i=$((i + 1))
	done
	wait
done

status=0
for t in $targets; do
	if [ -f "$build_dir/$t.result" ]; then
		cat "$build_dir/$t.result"
	else
		echo "FAIL $t: no result (interrupted?)"
	fi
	grep -q '^PASS' "$build_dir/$t.result" 2>/dev/null || {
		status=1
		[ -f "$build_dir/fuzz_$t.log" ] && tail -n 30 "$build_dir/fuzz_$t.log" | sed "s/^/[$t] /" >&2
	}
done
exit $status
