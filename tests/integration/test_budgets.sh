#!/bin/sh
# test_budgets.sh: budgets for CI (issue 29, item 9). --timeout stops the command and its
# whole tree as timeout(1) does (SIGTERM, then SIGKILL after --kill-after), writes the
# report saying so and exits 124; a broken budget with the report elsewhere than on stderr
# leaves one line on stderr; the JSON budgets carry numbers with their unit in the key.

. "$CPW_SRCDIR/tests/integration/tap.sh"

plan 8

# now: seconds since the epoch, with decimals.
now() { date +%s.%N; }
# left MARK: the processes still running whose command line holds MARK.
left() { pgrep -f -- "$1" | tr '\n' ' '; }
# stopped LABEL RC TOOK MIN MAX ERRFILE: the run was stopped: exit 124 after MIN..MAX s,
# nothing of the tree left. Says not_ok and fails otherwise.
stopped() {
	if [ "$2" -ne 124 ]; then
		not_ok "$1" "exit status $2: $(head -n 3 "$6")"
	elif ! awk -v t="$3" -v a="$4" -v b="$5" 'BEGIN { exit !(t >= a && t < b) }'; then
		not_ok "$1" "took ${3}s"
	elif [ -n "$(left 61.2900)" ]; then
		not_ok "$1" "still running: $(left 61.2900)"
		pkill -f 61.2900
	else
		return 0
	fi
	return 1
}
json_get() {
	/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# 1: a Python job that would run 60 s, with a child in a session of its own (not in the
# command's process group) and a busy thread: stopped at 1 s, the whole tree with it.
cat >"$SCRATCH/job.py" <<'PY'
import subprocess, sys, threading
subprocess.Popen(["sleep", "61.29001"], start_new_session=True)
threading.Thread(target=lambda: sum(i * i for i in range(10**10)), daemon=True).start()
subprocess.run(["sleep", "61.29002"])
PY
t0=$(now)
"$CPW" --timeout 1s -o "$SCRATCH/job.txt" /usr/bin/python3 "$SCRATCH/job.py" 2>"$SCRATCH/job.err"
rc=$?
t1=$(now)
sleep 0.2
label="--timeout 1s on a 60 s Python job: exit 124 within 3 s, no process of its tree left, the report says so"
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
if ! stopped "$label" $rc "$took" 1 3 "$SCRATCH/job.err"; then
	:
elif ! grep -q 'timeout: BROKEN (limit 1.000s' "$SCRATCH/job.txt"; then
	not_ok "$label" "no broken timeout budget in: $(grep -A3 Budgets "$SCRATCH/job.txt")"
elif ! grep -q 'stopped at the --timeout of 1.000s: SIGTERM to [3-9] processes' "$SCRATCH/job.txt"; then
	not_ok "$label" "notes: $(grep -A6 '^Notes' "$SCRATCH/job.txt")"
elif ! grep -qx 'cperfwatch: budget broken: timeout (limit 1.000s, measured 1\.[0-9]*s)' "$SCRATCH/job.err"; then
	not_ok "$label" "stderr: $(cat "$SCRATCH/job.err")"
else
	ok "$label (${took}s)"
fi

# 2: a tree that ignores SIGTERM: SIGKILL after --kill-after; JSON says signal 9.
t0=$(now)
"$CPW" --timeout 500ms --kill-after 500ms --json -o "$SCRATCH/kill.json" \
	sh -c 'trap "" TERM; sleep 61.29003 & sleep 61.29004' 2>"$SCRATCH/kill.err"
rc=$?
t1=$(now)
sleep 0.2
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
label="--timeout 500ms --kill-after 500ms on a tree ignoring SIGTERM: SIGKILL at ~1 s, exit 124, signal 9"
if ! stopped "$label" $rc "$took" 0.95 2.5 "$SCRATCH/kill.err"; then
	:
elif [ "$(json_get "$SCRATCH/kill.json" 'd["exit"]["signal"]')" != 9 ]; then
	not_ok "$label" "exit: $(json_get "$SCRATCH/kill.json" 'd["exit"]')"
elif ! json_get "$SCRATCH/kill.json" '[n for n in d["notes"] if "then SIGKILL to 3 still running 0.500s later" in n]' | grep -q SIGKILL; then
	not_ok "$label" "notes: $(json_get "$SCRATCH/kill.json" 'd["notes"]')"
else
	ok "$label (${took}s)"
fi

# 3: a command that ends in time is left alone: its status, the budget ok.
"$CPW" --timeout 10s --json -o "$SCRATCH/fast.json" sh -c 'exit 3' 2>"$SCRATCH/fast.err"
rc=$?
label="--timeout 10s on a command ending at once: its status (3), budget ok, stderr empty"
if [ $rc -ne 3 ]; then
	not_ok "$label" "exit status $rc: $(head -n 3 "$SCRATCH/fast.err")"
elif [ "$(json_get "$SCRATCH/fast.json" '[(b["name"], b["result"], b["limit_s"]) for b in d["budgets"]]')" != "[('timeout', 'ok', 10)]" ]; then
	not_ok "$label" "budgets: $(json_get "$SCRATCH/fast.json" 'd["budgets"]')"
elif [ -s "$SCRATCH/fast.err" ]; then
	not_ok "$label" "stderr: $(cat "$SCRATCH/fast.err")"
else
	ok "$label"
fi

# 4: --json -o with broken budgets: one line on stderr; numbers with units in the keys.
"$CPW" --json -o "$SCRATCH/b.json" --max-wall 10ms --max-rss 1K --fail-on waiting,unknown,cpu-bound,io-bound \
	sleep 0.2 2>"$SCRATCH/b.err"
rc=$?
label="--json -o, budgets broken: exit 124, one line on stderr, limit_s/value_s/limit_kib/value_kib numbers"
got=$(json_get "$SCRATCH/b.json" '[(b["name"], b.get("limit_s"), b.get("limit_kib"), type(b.get("value_s", b.get("value_kib", b.get("value_class")))).__name__) for b in d["budgets"]]')
if [ $rc -ne 124 ]; then
	not_ok "$label" "exit status $rc: $(head -n 3 "$SCRATCH/b.err")"
elif [ "$(wc -l <"$SCRATCH/b.err")" -ne 1 ] ||
	! grep -q '^cperfwatch: budget broken: max-wall (limit 0.010s, measured 0\.2[0-9]*s), max-rss (limit 1K, measured [0-9]*K)' "$SCRATCH/b.err"; then
	not_ok "$label" "stderr: $(cat "$SCRATCH/b.err")"
elif [ "$got" != "[('max-wall', 0.01, None, 'float'), ('max-rss', None, 1, 'int'), ('fail-on', None, None, 'str')]" ]; then
	not_ok "$label" "budgets: $got"
elif /usr/bin/python3 -c 'import jsonschema' 2>/dev/null && ! validate_json "$SCRATCH/b.json" >"$SCRATCH/v" 2>&1; then
	not_ok "$label" "schema: $(cat "$SCRATCH/v")"
else
	ok "$label"
fi

# 5: the report on stderr already says BROKEN: no second line there.
"$CPW" --max-wall 10ms sleep 0.1 2>"$SCRATCH/t.err"
rc=$?
label="text report on stderr, budget broken: exit 124, BROKEN in the report, no extra line"
if [ $rc -ne 124 ]; then
	not_ok "$label" "exit status $rc"
elif ! grep -q 'max-wall: BROKEN' "$SCRATCH/t.err" || grep -q '^cperfwatch: budget broken' "$SCRATCH/t.err"; then
	not_ok "$label" "$(grep -i budget "$SCRATCH/t.err")"
else
	ok "$label"
fi

# 6: --max-wall alone is judged at the end: the command runs its course.
t0=$(now)
"$CPW" --max-wall 100ms -o /dev/null sleep 0.6 2>"$SCRATCH/mw.err"
rc=$?
t1=$(now)
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
label="--max-wall alone does not stop the command (documented: --timeout does)"
if [ $rc -ne 124 ] || ! awk -v t="$took" 'BEGIN { exit !(t >= 0.6) }'; then
	not_ok "$label" "exit status $rc after ${took}s"
else
	ok "$label"
fi

# 7: --timeout is run mode's: attach mode and a stray --kill-after are refused.
"$CPW" --timeout 1s --pid $$ >/dev/null 2>"$SCRATCH/a.err"
rc=$?
"$CPW" --kill-after 1s true >/dev/null 2>"$SCRATCH/k.err"
rc2=$?
if [ $rc -ne 125 ] || [ $rc2 -ne 125 ] || [ "$(wc -l <"$SCRATCH/a.err")" -ne 1 ] ||
	! grep -q 'give --timeout too' "$SCRATCH/k.err"; then
	not_ok "--timeout with --pid, --kill-after alone: refused, one line, 125" "$rc $rc2: $(cat "$SCRATCH/a.err" "$SCRATCH/k.err")"
else
	ok "--timeout with --pid, --kill-after alone: refused, one line, 125"
fi

# 8: attach mode too: a broken budget with -o leaves its line on stderr.
sleep 5 &
target=$!
"$CPW" --no-tui -d 300ms --max-wall 10ms --json -o "$SCRATCH/attach.json" --pid "$target" 2>"$SCRATCH/at.err"
rc=$?
kill "$target" 2>/dev/null
wait "$target" 2>/dev/null
if [ $rc -ne 124 ] || [ "$(wc -l <"$SCRATCH/at.err")" -ne 1 ] ||
	! grep -q '^cperfwatch: budget broken: max-wall (limit 0.010s' "$SCRATCH/at.err"; then
	not_ok "attach mode, --json -o, budget broken: exit 124 and one line on stderr" "$rc: $(cat "$SCRATCH/at.err")"
else
	ok "attach mode, --json -o, budget broken: exit 124 and one line on stderr"
fi

done_testing
