#!/bin/sh
# test_valgrind.sh: the main paths (run mode text and JSON, attach mode, --help, a bad
# option, a full disk) under valgrind with a full leak check, through contrib/valgrind.sh:
# one test per path. Skips, saying why, without valgrind or on an ASan build.
. "$CPW_SRCDIR/tests/integration/tap.sh"

N=11
plan $N
if grep -q -- '--enable-asan' "$CPW_BUILDDIR/config.log" 2>/dev/null ||
	ldd "$CPW" 2>/dev/null | grep -q libasan; then
	skip_all "valgrind path" "this build uses AddressSanitizer (--enable-asan), which cannot run under valgrind"
fi
command -v valgrind >/dev/null 2>&1 || missing_all "valgrind path" valgrind

sh "$CPW_SRCDIR/contrib/valgrind.sh" "$CPW" >"$SCRATCH/results" 2>"$SCRATCH/log"
rc=$?
if [ "$rc" = 77 ]; then
	skip_all "valgrind path" "$(head -n 1 "$SCRATCH/log")"
fi
n=0
while IFS= read -r line; do
	n=$((n + 1))
	case $line in
	PASS*) ok "valgrind: ${line#PASS }: no error, no leak" ;;
	*) not_ok "valgrind: ${line#FAIL }" "$(grep -F "[$(echo "$line" | sed 's/^FAIL \([^:]*\).*/\1/')]" "$SCRATCH/log" | head -n 30)" ;;
	esac
done <"$SCRATCH/results"
while [ $n -lt $N ]; do
	n=$((n + 1))
	not_ok "valgrind path $n produced no result" "$(tail -n 20 "$SCRATCH/log")"
done
done_testing
