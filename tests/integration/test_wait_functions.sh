#!/bin/sh
# test_wait_functions.sh: off-CPU time by Python function (issue 26, part 6): the wait
# probe's waits joined with the waiting thread's Python stack, on workloads whose truth is
# known by construction (tests/workloads/netwait.py, gil_threads.py):
# - a TCP client waiting on a slow local server (a child, on a port the kernel picks):
#   "fetch (netwait.py:N) waited ~2 s on TCP 127.0.0.1:PORT (called from main ...)", N the
#   line of its recv (the line a frame is at, from its code's location table), in
#   text and JSON (waits.kinds.network.functions), the document valid; on Debian's 3.11
#   and pyenv's 3.12 and 3.13 (skipped with the reason where this machine has none);
# - a pipe: drain() waiting on the pipe its child writes; a file: sync() in fsync;
# - Python threads on the GIL: the function they wait in (spin, at the lines of its loop)
#   among the lock waits;
# - 92 Python processes in turn, more than the stack reader keeps: the last still named;
# - a function whose location table is longer than the first read of it: its line;
# - attach mode on a client already waiting: fetch named;
# - a C program waiting (sleeper) and --no-hotspots: no function named, nothing invented;
# - the verdict per process names them: the client's wait, the threads' turns on the GIL.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 16
W=$CPW_SRCDIR/tests/workloads
PYENV=${PYENV_ROOT:-/root/.pyenv}/versions
J() { /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# The line of FILE where TEXT is first: the line a frame waits at.
line_at() { grep -nF -- "$1" "$W/$2" | head -n 1 | cut -d: -f1; }
FETCH="fetch (netwait.py:$(line_at 'return s.recv(64)' netwait.py))"
DRAIN="drain (netwait.py:$(line_at 'return os.read(fd, 64)' netwait.py))"
# The GIL takes a thread where the loop lets it go (a backward jump, a call): any line of
# spin's, its rows summed.
SPIN="spin (gil_threads.py:*"
# The functions of one kind: "FUNCTION|TARGET|CALLER|SECONDS" a line.
fns() { J "$1" "'\\n'.join('%s|%s|%s|%.2f' % (f['function'], f['target'], f['caller'], f['thread_s']) for f in (d['waits']['kinds'].get('$2') or {}).get('functions', []))"; }
# fn_waited FILE KIND FUNCTION TARGET_PREFIX MIN_S: FUNCTION waited at least MIN_S on KIND
# at a target starting with TARGET_PREFIX (None: no target); FUNCTION ending in * is a
# prefix, its rows summed.
fn_waited() {
	fns "$1" "$2" | awk -F'|' -v f="$3" -v t="$4" -v m="$5" '
		function named(s) { return substr(f, length(f)) == "*" ? substr(s, 1, length(f) - 1) == substr(f, 1, length(f) - 1) : s == f }
		named($1) && substr($2, 1, length(t)) == t { sum += $4 } END { exit !(sum >= m) }' ||
		{ echo "# no $3 on $2 '$4' >= $5 s in:"; fns "$1" "$2" | sed 's/^/# /'; return 1; }
}

caller_and_valid() { fns "$1" network | grep -q '|main (netwait.py:[0-9]*)|' && validate_json "$1"; }

# The interpreter of version V: Debian's /usr/bin/python3 for 3.11, pyenv's builds for
# 3.12 and 3.13; "" where this machine has none.
python_of() {
	if [ "$1" = 3.11 ]; then
		[ "$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = 3.11 ] &&
			echo /usr/bin/python3
	else
		ls -d "$PYENV"/$1.*/bin/python$1 2>/dev/null | tail -n 1
	fi
}

# A TCP client on each version: fetch named on its target; on 3.11 its caller too, and the
# document valid.
for v in 3.11 3.12 3.13; do
	py=$(python_of $v)
	label=py3${v#3.}
	if [ -z "$py" ] || ! [ -x "$py" ]; then
		skip "$label: fetch" "no Python $v here (/usr/bin/python3 for 3.11, $PYENV/$v.*/bin/python$v: the pyenv builds, bound into CI's root where the host has them)"
		[ $v = 3.11 ] && skip "$label: caller, schema" "no Python 3.11 here"
		continue
	fi
	"$CPW" -j -o "$SCRATCH/$label.json" -- "$py" "$W/netwait.py" tcp 2
	check "$label: a TCP client waiting on a slow local server: $FETCH waited >= 1.6 s on TCP 127.0.0.1:PORT" \
		fn_waited "$SCRATCH/$label.json" network "$FETCH" "TCP 127.0.0.1:" 1.6
	[ $v = 3.11 ] && check "$label: its caller is main, and the JSON document is valid against the schema" \
		caller_and_valid "$SCRATCH/$label.json"
done

# --- the text report says it in one line ---
"$CPW" -o "$SCRATCH/tcp.txt" -- /usr/bin/python3 "$W/netwait.py" tcp 2
check "text: '$FETCH waited N s on TCP 127.0.0.1:PORT (called from main ...)' under network" \
	sh -c "sed -n '/^Waits/,/By process/p' '$SCRATCH/tcp.txt' | grep -Eq '^[[:space:]]+fetch \\(netwait\\.py:[0-9]+\\) waited [0-9.]+ s on TCP 127\\.0\\.0\\.1:[0-9]+ \\(called from main \\(netwait\\.py:[0-9]+\\)\\)'"

# --- a pipe ---
"$CPW" -j -o "$SCRATCH/pipe.json" -- /usr/bin/python3 "$W/netwait.py" pipe 2
check "a pipe: $DRAIN waited >= 1.5 s on the pipe its child writes" \
	fn_waited "$SCRATCH/pipe.json" pipe "$DRAIN" "pipe from python3 (pid " 1.5
check "the child's sleep is named too (a timer, no target)" \
	fn_waited "$SCRATCH/pipe.json" timer "main.<locals>.<lambda> (netwait.py:$(grep -n lambda "$W/netwait.py" | cut -d: -f1))" None 1.5

# --- a file: fsync on a block device (the build tree's; tmpfs never waits) ---
SYNC="sync (netwait.py:$(line_at 'os.fsync(f.fileno())' netwait.py))"
F=$CPW_BUILDDIR/wait_functions.$$.tmp
if [ "$(stat -f -c %T "$CPW_BUILDDIR")" = tmpfs ]; then
	skip "a file: $SYNC named on its disk waits" "the build tree is on tmpfs: fsync does not wait"
else
	"$CPW" -j -o "$SCRATCH/file.json" -- /usr/bin/python3 "$W/netwait.py" file 2 "$F"
	rm -f "$F"
	disk=$(J "$SCRATCH/file.json" "(d['waits']['kinds'].get('disk') or {}).get('thread_s', 0)")
	if awk -v s="$disk" 'BEGIN { exit !(s >= 0.3) }'; then
		check "a file: $SYNC waited on $F (disk, >= a third of the disk waits)" \
			fn_waited "$SCRATCH/file.json" disk "$SYNC" "$F" "$(awk -v s="$disk" 'BEGIN { print s / 3 }')"
	else
		skip "a file: $SYNC named on its disk waits" "fsync hardly waited here (${disk} s of disk waits in 2 s)"
	fi
fi

# --- Python threads on the GIL ---
"$CPW" -j -o "$SCRATCH/gil.json" -- /usr/bin/python3 "$W/gil_threads.py" 4 2
check "threads on the GIL: $SPIN waited on the lock (>= 1 s)" fn_waited "$SCRATCH/gil.json" lock "$SPIN" None 1

# --- more Python processes over the run than the stack reader keeps (64): 3 batches of 30
# children that wait on a pipe, then one more: the last is still named (ended ones make room) ---
cat >"$SCRATCH/many.py" <<'PY'
import os, time
def batch_wait(r):
    return os.read(r, 1)
def last_wait(r):
    return os.read(r, 1)
def child(fn):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w); fn(r); os._exit(0)
    os.close(r)
    return pid, w
for b in range(3):
    kids = [child(batch_wait) for i in range(30)]
    time.sleep(0.6)
    for pid, w in kids: os.close(w)
    for pid, w in kids: os.waitpid(pid, 0)
pid, w = child(last_wait)
time.sleep(1.0); os.close(w); os.waitpid(pid, 0)
PY
"$CPW" -j -o "$SCRATCH/many.json" -- /usr/bin/python3 "$SCRATCH/many.py"
check "92 Python processes in turn: the last one's wait is named (last_wait (many.py:5), >= 0.7 s)" \
	fn_waited "$SCRATCH/many.json" pipe "last_wait (many.py:5)" "pipe from python3 (pid " 0.7

# --- a long function: its location table (~7 KB) is longer than the first read takes ---
/usr/bin/python3 - >"$SCRATCH/long.py" <<'PY'
print("import os\ndef long_one(r):\n    x = 0")
for i in range(200):
    print("    x += %d * (x %% 7) + len(str(%d))" % (i, i))
print("    os.read(r, 1)\n    return x\nr, w = os.pipe()\npid = os.fork()\nif pid == 0:\n"
      "    import time; time.sleep(1.2); os._exit(0)\nos.close(w)\nlong_one(r)\nos.waitpid(pid, 0)")
PY
"$CPW" -j -o "$SCRATCH/long.json" -- /usr/bin/python3 "$SCRATCH/long.py"
check "a function with a 7 KB location table: long_one (long.py:204) named at its read (>= 0.8 s)" \
	fn_waited "$SCRATCH/long.json" pipe "long_one (long.py:204)" "pipe" 0.8

# --- attach mode, on a client already waiting ---
/usr/bin/python3 "$W/netwait.py" tcp 4 &
pid=$!
sleep 0.5
"$CPW" -j -p "$pid" -d 2 -o "$SCRATCH/attach.json"
wait "$pid"
check "attach mode: $FETCH named (>= 1.2 s on TCP 127.0.0.1:PORT)" \
	fn_waited "$SCRATCH/attach.json" network "$FETCH" "TCP 127.0.0.1:" 1.2

# --- nothing invented: a C program's waits, and --no-hotspots ---
"$CPW" -j -o "$SCRATCH/c.json" -- "$CPW_WORKLOADS/sleeper" 1
check "a C program waiting (sleeper): waits counted, no Python function" \
	test "$(J "$SCRATCH/c.json" "d['waits']['total_thread_s'] > 0.5 and not any(k['functions'] for k in d['waits']['kinds'].values())")" = True
"$CPW" -j --no-hotspots -o "$SCRATCH/nohot.json" -- /usr/bin/python3 "$W/netwait.py" tcp 1
check "--no-hotspots: no stack reader, no function named" \
	test "$(J "$SCRATCH/nohot.json" "d['waits']['total_thread_s'] > 0.5 and not any(k['functions'] for k in d['waits']['kinds'].values())")" = True

# --- the verdict per process names them ---
# pv_has FILE TEXT: a process's verdict has TEXT in its finding.
pv_has() { J "$1" "any('$2' in ((p.get('verdict') or {}).get('finding') or '') for p in d['processes'])" | grep -q True ||
	{ echo "# findings:"; J "$1" "[(p.get('verdict') or {}).get('finding') for p in d['processes']]" | sed 's/^/# /'; return 1; }; }
if [ -f "$SCRATCH/py311.json" ]; then
	check "the client's verdict: '... mostly on network: TCP 127.0.0.1:PORT, in $FETCH'" \
		pv_has "$SCRATCH/py311.json" ", in $FETCH"
else
	skip "the client's verdict" "no Python 3.11 here"
fi
# Beside other load the threads may not be found taking turns: then there is no such finding.
if pv_has "$SCRATCH/gil.json" "take turns on the GIL" >/dev/null; then
	check "the GIL's: '4 threads take turns on the GIL, ..., in ${SPIN%\*}N)'" pv_has "$SCRATCH/gil.json" ", in ${SPIN%\*}"
else
	skip "the GIL's finding names $SPIN" "no finding of turns on the GIL this run (a loaded host)"
fi
