#!/bin/sh
# contrib/valgrind.sh: runs cperfwatch's main paths under valgrind (memcheck, full leak
# check) and says, path by path, whether valgrind found an error or a leak.
#
#   contrib/valgrind.sh [CPERFWATCH]     (default: ./cperfwatch, then cperfwatch on PATH)
#
# Paths: run mode (text; JSON to a file) on a small workload, attach mode for 1 s on a
# sleeping process (text; JSON), the report to a full disk, --help, --version and a bad
# option. Only cperfwatch is checked: the commands it runs are not traced.
# Prints one line per path, "PASS name" or "FAIL name: ...", with valgrind's log on stderr
# for a failure. Exit status: 0 clean, 1 an error or leak, 77 cannot run here (no valgrind,
# or a binary built with AddressSanitizer, which cannot run under valgrind).
set -u

bin=${1:-}
if [ -z "$bin" ]; then
	if [ -x ./cperfwatch ]; then bin=./cperfwatch; else bin=$(command -v cperfwatch || true); fi
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
	echo "valgrind.sh: no cperfwatch binary (give its path)" >&2
	exit 2
fi
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind.sh: valgrind not found (apt-get install valgrind)" >&2
	exit 77
fi
if ldd "$bin" 2>/dev/null | grep -q 'libasan' || nm "$bin" 2>/dev/null | grep -q '__asan_init'; then
	echo "valgrind.sh: $bin is built with AddressSanitizer (--enable-asan): valgrind cannot run it" >&2
	exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/cpw-valgrind.XXXXXX") || exit 1
sleep 60 &
sleeper=$!
trap 'kill $sleeper 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# Leaks of every kind but "still reachable" (the dynamic loader's own) count as errors.
VG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 --track-fds=no"
status=0

# vg NAME EXPECTED_STATUS ARG...: runs cperfwatch under valgrind with ARG.
vg() {
	name=$1 expect=$2
	shift 2
	log="$work/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_').log"
	# shellcheck disable=SC2086 # VG is a command with options
	$VG --log-file="$log" "$bin" "$@" >"$work/out" 2>"$work/err" </dev/null
	rc=$?
	if [ "$rc" = 99 ] || [ -s "$log" ]; then
		echo "FAIL $name: valgrind reports errors or leaks (status $rc)"
		sed "s/^/[$name] /" "$log" >&2
		status=1
	elif [ "$rc" != "$expect" ]; then
		echo "FAIL $name: status $rc, expected $expect"
		sed "s/^/[$name] /" "$work/err" >&2
		status=1
	else
		echo "PASS $name"
	fi
}

workload='i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done; sleep 0.2'
vg "run mode, text" 0 -i 50ms -- sh -c "$workload"
vg "run mode, JSON to a file" 0 --json -i 50ms -o "$work/run.json" -- sh -c "$workload"
vg "run mode, a command that fails" 3 -- sh -c 'exit 3'
vg "run mode, a command not found" 127 -- "$work/does-not-exist"
vg "attach mode, text, 1 s" 0 -i 100ms -d 1 --pid "$sleeper"
vg "attach mode, JSON, 1 s" 0 --json -i 100ms -d 1 --pid "$sleeper"
vg "report to a full disk" 125 --json -o /dev/full -- true
vg "--help" 0 --help
vg "--version" 0 --version
vg "a bad option" 125 --bogus -- true
vg "a bad value" 125 --max-rss 12parsecs -- true
exit $status
