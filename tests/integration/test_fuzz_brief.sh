#!/bin/sh
# test_fuzz_brief.sh: the fuzz targets of tests/fuzz, briefly.
#  - Every target's corpus (seeds and the regression inputs fuzzing once found) is replayed
#    by its plain driver, built by make check with the normal compiler (and ASan in an
#    --enable-asan build): this runs everywhere.
#  - Where clang can link libFuzzer, contrib/fuzz.sh builds each target with ASan+UBSan
#    from the parser sources and fuzzes it for 1 s (18 targets: 2 s each cost CI 18 s more); a crasher is kept under
#    $CPW_BUILDDIR/tests/fuzz/found/TARGET/ (copy it into tests/fuzz/corpus/TARGET/
#    regressions/ once the bug is fixed). Skips, saying why, without clang or libFuzzer.
#    In a sanitizer build this part is left to the plain build's run: the targets are the
#    same.
# Longer runs: contrib/fuzz.sh 300.
. "$CPW_SRCDIR/tests/integration/tap.sh"

TARGETS="stat schedstat status io pidlist psi vmstat taskstats cgroup escape waits outname merge elf perfmap drm proc_events pyframes"
set -- $TARGETS
# contrib/fuzz.sh builds its targets with clang's ASan+UBSan from the sources, whatever this
# build is: the same fuzzing in the --enable-asan build's run would repeat the plain one's
# (85 s of CI's time). There only the corpora are replayed, by this build's own drivers.
FUZZ=yes
if ldd "$CPW" 2>/dev/null | grep -q 'libasan\|libtsan'; then
	FUZZ=no
	plan $#
else
	plan $(($# * 2))
fi

for t in $TARGETS; do
	drv="$CPW_BUILDDIR/tests/fuzz/replay_$t"
	if [ ! -x "$drv" ]; then
		not_ok "replay $t corpus" "$drv is not built"
		continue
	fi
	if "$drv" "$CPW_SRCDIR/tests/fuzz/corpus/$t" >"$SCRATCH/replay.$t" 2>&1; then
		ok "replay $t corpus: $(tail -n 1 "$SCRATCH/replay.$t")"
	else
		not_ok "replay $t corpus" "$(tail -n 20 "$SCRATCH/replay.$t")"
	fi
done

if [ "$FUZZ" = no ]; then
	echo "# libFuzzer: the plain build's run of this test fuzzes the targets (the same ASan+UBSan builds)"
	done_testing
fi
found="$CPW_BUILDDIR/tests/fuzz/found"
sh "$CPW_SRCDIR/contrib/fuzz.sh" -b "$SCRATCH/fuzz" -s "$found" 1 >"$SCRATCH/fuzz.out" 2>"$SCRATCH/fuzz.err"
rc=$?
if [ "$rc" = 77 ]; then
	# fuzz.sh says 77 only where clang or its libFuzzer runtime is not installed.
	head -n 1 "$SCRATCH/fuzz.err" | sed 's/^/# /'
	for t in $TARGETS; do missing "libFuzzer $t" "clang libclang-rt-14-dev"; done
	done_testing
fi
for t in $TARGETS; do
	line=$(grep "^[A-Z]* $t:" "$SCRATCH/fuzz.out")
	case $line in
	PASS*) ok "libFuzzer ${line#PASS }" ;;
	FAIL*) not_ok "libFuzzer ${line#FAIL }" "$(grep -F "[$t]" "$SCRATCH/fuzz.err" | tail -n 25)" ;;
	*) not_ok "libFuzzer $t: no result" "$(tail -n 20 "$SCRATCH/fuzz.err")" ;;
	esac
done
done_testing
