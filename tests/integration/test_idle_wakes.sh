#!/bin/sh
# test_idle_wakes.sh: an idle process costs the reader one read a sample (its schedstat:
# source/proc/proc_reader.c hands on its last stat, io and threads), so what it does when
# it wakes must still be counted in full. A Python process watched in attach mode sleeps
# for 1.5 s (fifteen idle samples), forks a child that spins, then touches 48 MB (faults),
# spins and writes 4 MB with an fsync, and sleeps again: still alive when the watch ends,
# so every figure comes from the samples, not from an exit record. The report must count
# its faults, CPU and bytes written, and list the child it forked after looking idle, with
# the CPU each says it used (getrusage; a busy host stretches the spins, not the counts).

. "$CPW_SRCDIR/tests/integration/tap.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
JSON=$SCRATCH/idle.json

plan 4

"$PY" - "$SCRATCH/w.dat" <<'EOF2' &
import os, resource, sys, time
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
def spin(s):
    t = cpu()
    while cpu() - t < s:
        pass
def done(name, cpu0):
    with open(sys.argv[1] + name + ".tmp", "w") as f:
        f.write("%.6f\n" % (cpu() - cpu0))
    os.rename(sys.argv[1] + name + ".tmp", sys.argv[1] + name)
time.sleep(1.5)
c0 = cpu()
if os.fork() == 0:
    c0 = cpu()
    spin(0.2)
    done(".child", c0)
    time.sleep(30)
    os._exit(0)
x = bytearray(48 * 1024 * 1024)
for i in range(0, len(x), 4096):
    x[i] = 1
spin(0.2)
with open(sys.argv[1], "wb") as f:
    f.write(b"x" * 4000000)
    f.flush()
    os.fsync(f.fileno())
done(".parent", c0)
time.sleep(30)
EOF2
PID=$!
"$CPW" --pid "$PID" --duration 6 --json -o "$JSON" >"$SCRATCH/cpw.out" 2>&1
rc=$?
pkill -KILL -P "$PID" 2>/dev/null
kill -KILL "$PID" 2>/dev/null
wait "$PID" 2>/dev/null

if [ "$rc" -ne 0 ] || ! [ -s "$JSON" ]; then
	not_ok "cperfwatch --pid watches the idle process and writes JSON" "exit $rc: $(tail -n 5 "$SCRATCH/cpw.out")"
	not_ok "its faults, CPU and bytes written after 1.5 s idle are counted" "no report"
	not_ok "the child it forked after looking idle is listed, with its CPU" "no report"
	not_ok "the report is valid" "no report"
	done_testing
fi
ok "cperfwatch --pid watches the idle process and writes JSON"
if ! [ -s "$SCRATCH/w.dat.parent" ] || ! [ -s "$SCRATCH/w.dat.child" ]; then
	skip "its faults, CPU and bytes written after 1.5 s idle are counted" "host too busy: not done in 6 s"
	skip "the child it forked after looking idle is listed, with its CPU" "host too busy: not done in 6 s"
	if validate_json "$JSON" >/dev/null 2>&1; then ok "the report is valid"; else not_ok "the report is valid" "see $JSON"; fi
	done_testing
fi
PCPU=$(cat "$SCRATCH/w.dat.parent") CCPU=$(cat "$SCRATCH/w.dat.child")

# One line: the parent's minor faults, CPU seconds, bytes written; the child's CPU seconds.
FIGS=$("$PY" - "$JSON" "$PID" <<'EOF2'
import json, sys
procs = json.load(open(sys.argv[1]))["processes"]
pid = int(sys.argv[2])
top = [p for p in procs if p["pid"] == pid]
kids = [p for p in procs if p["ppid"] == pid]
if not top:
    print("none 0 0 0 0")
else:
    p = top[0]
    print(p["minor_faults"], p["oncpu_s"], p["write_bytes"], len(kids), kids[0]["oncpu_s"] if kids else 0)
EOF2
)
# shellcheck disable=SC2086 # the fields of one line
set -- $FIGS
# CPU: at least what it says it used after the sleep (getrusage counts in ticks: 20 ms slack).
if [ "$1" != none ] && [ "$1" -ge 10000 ] && awk -v c="$2" -v s="$PCPU" 'BEGIN { exit !(c >= s - 0.02) }' &&
	[ "$3" -ge 3900000 ]; then
	ok "its faults, CPU and bytes written after 1.5 s idle are counted"
else
	not_ok "its faults, CPU and bytes written after 1.5 s idle are counted" \
		"minor faults $1 (>= 10000), on CPU $2 s (>= $PCPU - 0.02), written $3 bytes (>= 3900000)"
fi
if [ "${4:-0}" -ge 1 ] && awk -v c="$5" -v s="$CCPU" 'BEGIN { exit !(c >= s - 0.02) }'; then
	ok "the child it forked after looking idle is listed, with its CPU"
else
	not_ok "the child it forked after looking idle is listed, with its CPU" "children $4, child on CPU $5 s (>= $CCPU - 0.02)"
fi
if validate_json "$JSON" >"$SCRATCH/v.out" 2>&1; then
	ok "the report is valid"
else
	not_ok "the report is valid" "$(head -5 "$SCRATCH/v.out")"
fi
done_testing
