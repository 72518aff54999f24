#!/bin/sh
# test_python_refusals.sh: what the Python stack reader refuses, and says, where no share is
# measured (so it runs beside other such tests: Makefile.am's TOGETHER_TESTS):
# - a fake interpreter whose memory is garbage rewritten all the time, with the symbols a
#   reader starts from: read as 3.12, nothing crashes and no name comes from garbage; as
#   3.13, its _Py_DebugOffsets are refused with the reason;
# - an interpreter version not read (3.10): "Python 3.10: stacks not read" and why;
# - attach mode without the rights of ptrace (as nobody, on a process that made itself
#   non-dumpable after sampling was armed): the refusal said in Notes;
# - --no-hotspots: no stacks read.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 5
J() { /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# --- a fake interpreter: the symbols a reader starts from, over garbage rewritten all the
# time (pointers into itself among random words): nothing crashes, no name from garbage ---
cat >"$SCRATCH/fake.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define WORDS (1 << 16)
uint64_t _PyRuntime[WORDS];
uint64_t PyCode_Type[64], PyUnicode_Type[64];
#ifndef VERSION
#define VERSION 0x030C01F0
#endif
const unsigned long Py_Version = VERSION;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2);
	uint64_t x = 88172645463325252ull;
	while (now() < end) {
		for (int i = 0; i < WORDS; i++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			switch (x % 5) {
			case 0: _PyRuntime[i] = (uint64_t)(uintptr_t)&_PyRuntime[(x >> 8) % WORDS]; break;
			case 1: _PyRuntime[i] = (uint64_t)(uintptr_t)PyCode_Type; break;
			case 2: _PyRuntime[i] = (uint64_t)(uintptr_t)PyUnicode_Type; break;
			case 3: _PyRuntime[i] = (x >> 20) & 0xffff; break;
			default: _PyRuntime[i] = x;
			}
		}
		if (VERSION >= 0x030D0000)
			memcpy(_PyRuntime, "xdebugpy", 8);
	}
	return 0;
}
C
if cc -O1 -o "$SCRATCH/python3.12" "$SCRATCH/fake.c" && cc -O1 -DVERSION=0x030D00F0 -o "$SCRATCH/python3.13" "$SCRATCH/fake.c" &&
	cc -O1 -DVERSION=0x030A0DF0 -o "$SCRATCH/python3.10" "$SCRATCH/fake.c"; then
	"$CPW" -j -o "$SCRATCH/fake12.json" -- "$SCRATCH/python3.12" 3
	rc=$?
	# By kind: a native function with debug information has a FILE:LINE too (libc6-dbg's).
	check "garbage read as 3.12 frames: exit 0, no Python function named from it" \
		test "$rc $(J "$SCRATCH/fake12.json" "d['hotspots']['available'] and not [f for f in d['hotspots']['functions'] if f['kind'] == 'python']")" = "0 True"
	"$CPW" -o "$SCRATCH/fake13.txt" -- "$SCRATCH/python3.13" 3
	rc=$?
	check "garbage as 3.13's _Py_DebugOffsets: refused with its reason, exit 0" \
		sh -c "test $rc = 0 && grep -q 'Python 3.13: stacks not read: ' '$SCRATCH/fake13.txt'"
	"$CPW" -o "$SCRATCH/fake10.txt" -- "$SCRATCH/python3.10" 2
	check "an interpreter not read (3.10): 'Python 3.10: stacks not read' and why" \
		grep -q 'Python 3.10: stacks not read: its frame layout differs before 3.11' "$SCRATCH/fake10.txt"
else
	skip "fake 3.12" "no C compiler"; skip "fake 3.13" "no C compiler"; skip "fake 3.10" "no C compiler"
fi

# --- attach mode without the rights of ptrace: said so ---
cat >"$SCRATCH/nodump.py" <<'PY'
import ctypes, time
time.sleep(1.0)
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: not ours to read any more
def spin():
    end = time.monotonic() + 2.5
    while time.monotonic() < end:
        pass
spin()
PY
if ! is_root; then
	skip "attach mode without ptrace rights: the refusal noted" "needs root (to run both sides as nobody)"
elif ! command -v setpriv >/dev/null 2>&1; then
	missing "attach mode without ptrace rights: the refusal noted" util-linux
else
	pub=$(public_copy "$CPW" "$SCRATCH/nodump.py")
	setpriv --reuid=65534 --regid=65534 --clear-groups -- /usr/bin/python3 "$pub/nodump.py" &
	pypid=$!
	sleep 0.3
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$pub/cperfwatch" -p "$pypid" -d 3 >"$SCRATCH/nodump.txt" 2>&1
	wait "$pypid"
	if grep -q '^Hotspots: not sampled' "$SCRATCH/nodump.txt"; then
		skip "attach mode without ptrace rights: the refusal noted" "sampling itself is refused to nobody here ($(grep '^Hotspots' "$SCRATCH/nodump.txt"))"
	else
		check "attach mode without ptrace rights: the refusal noted" \
			grep -q 'Python stacks not read: reading the process.s memory was refused' "$SCRATCH/nodump.txt"
	fi
fi

"$CPW" -j -o "$SCRATCH/n.json" --no-hotspots -- /usr/bin/python3 -c 'import time; time.sleep(0.7)'
check "--no-hotspots: no Python stacks read (hotspots null)" test "$(J "$SCRATCH/n.json" "d['hotspots']")" = None
done_testing
