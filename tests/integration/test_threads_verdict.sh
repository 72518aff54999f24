#!/bin/sh
# test_threads_verdict.sh: how threads share the CPUs, end to end (issue 19, items 4 and 5).
#
#   mutex_threads 4        C threads computing under one mutex: cpu-bound, "4 threads,
#                          about one core at a time: they take turns on a lock", advice to
#                          shorten critical sections, never "parallelise"
#   gil_threads.py 4       Python threads: the same finding naming the GIL and the function
#                          they run (spin), advice to use
#                          processes or code that releases the GIL, never threads
#   taskset -c CPU spin_threads 2
#                          a command that narrows its own CPUs: cpu-bound, the finding "the
#                          command limited itself to CPU N", never "cpu-starved ... from
#                          other load" (the /proc reader samples each thread's
#                          Cpus_allowed_list)
#   busy_with_helpers.py 2 a main thread computing beside two helper threads that wake every
#                          20 ms (a DataLoader worker's feeder and listener): the process's
#                          own verdict is cpu-bound, not "waiting" (2 of its 3 threads wait)
#
# A host busy with other work starves these threads (cpu-starved is right then): such a
# run is a skip that says so, as in test_verdicts.sh.

. "$CPW_SRCDIR/tests/integration/tap.sh"

W=$CPW_WORKLOADS
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

cat >"$SCRATCH/q.py" <<'PYEOF'
import json, sys
what, path = sys.argv[1], sys.argv[2]
with open(path) as f:
    doc = json.load(f)
v = doc.get("verdict") or {}
if what == "class":
    print(v.get("class", ""))
elif what == "finding":
    sys.exit(0 if any(sys.argv[3] in f for f in v.get("findings") or []) else 1)
elif what == "advice":
    sys.exit(0 if sys.argv[3] in (v.get("advice") or "") else 1)
elif what == "pclass":
    mine = [p for p in doc.get("processes") or [] if sys.argv[3] in (p.get("cmdline") or "")]
    print(((mine[0].get("verdict") or {}).get("class") or "") if mine else "")
elif what == "show":
    print("class %s confidence %s" % (v.get("class"), v.get("confidence")))
    for e in v.get("evidence") or []:
        print("  evidence: %s" % e.get("text"))
    for f in v.get("findings") or []:
        print("  finding: %s" % f)
    print("  advice: %s" % v.get("advice"))
PYEOF
q() { "$PY" "$SCRATCH/q.py" "$@"; }

# run NAME CMD...: the JSON report in $SCRATCH/NAME.json; OUTSIDE = busy cores of other load.
run() {
	_name=$1; shift
	_t0=$(host_busy_ticks)
	"$CPW" --json -o "$SCRATCH/$_name.json" -- "$@" >"$SCRATCH/$_name.out" 2>&1
	_rc=$?
	_t1=$(host_busy_ticks)
	OUTSIDE=$(outside_load "$SCRATCH/$_name.json" "$_t0" "$_t1")
	q show "$SCRATCH/$_name.json" 2>/dev/null | sed 's/^/# /'
	echo "# host load outside the tree: $OUTSIDE busy cores"
	return $_rc
}

busy_host() { awk -v o="$OUTSIDE" 'BEGIN { exit !(o >= 0.25) }'; }

# expect_turns NAME FINDING ADVICE NOT_ADVICE CMD...: four results.
expect_turns() {
	_name=$1 _finding=$2 _advice=$3 _not=$4; shift 4
	if ! run "$_name" "$@" || ! [ -s "$SCRATCH/$_name.json" ]; then
		for _l in class finding advice "no contrary advice"; do
			not_ok "$_name: $_l" "$(tail -n 5 "$SCRATCH/$_name.out")"
		done
		return
	fi
	_got=$(q class "$SCRATCH/$_name.json")
	if [ "$_got" != cpu-bound ] && busy_host; then
		for _l in class finding advice "no contrary advice"; do
			skip "$_name: $_l" "the host was busy ($OUTSIDE cores of other load): $_got"
		done
		return
	fi
	if [ "$_got" = cpu-bound ]; then ok "$_name: class is cpu-bound"
	else not_ok "$_name: class is cpu-bound (got $_got)"; fi
	if q finding "$SCRATCH/$_name.json" "$_finding"; then ok "$_name: finding '$_finding'"
	else not_ok "$_name: finding '$_finding'"; fi
	if q advice "$SCRATCH/$_name.json" "$_advice"; then ok "$_name: advice '$_advice'"
	else not_ok "$_name: advice '$_advice'"; fi
	if q advice "$SCRATCH/$_name.json" "$_not"; then not_ok "$_name: advice never '$_not'"
	else ok "$_name: advice never '$_not'"; fi
}

NCPU=$("$PY" -c 'import os; print(len(os.sched_getaffinity(0)))')
plan 12

if [ "$NCPU" -lt 2 ]; then
	skip_all "threads" "one usable CPU: taking turns cannot be told from having one core"
fi

expect_turns mutex_threads "4 threads, about one core at a time: they take turns on a lock" \
	"Shorten the critical sections" "parallelise" "$W/mutex_threads" 4 1.5
expect_turns gil_threads "they take turns on a lock, Python's global interpreter lock (GIL), running spin (gil_threads.py:" \
	"ProcessPoolExecutor" "parallelise (threads" "$PY" "$CPW_SRCDIR/tests/workloads/gil_threads.py" 4 1.5

# --- a command that narrows its own CPUs ---------------------------------------------
CPU0=$("$PY" -c 'import os; print(min(os.sched_getaffinity(0)))')
if command -v taskset >/dev/null 2>&1; then
	run narrowed taskset -c "$CPU0" "$W/spin_threads" 2 1.5
	_got=$(q class "$SCRATCH/narrowed.json" 2>/dev/null)
	if [ "$_got" = cpu-bound ]; then ok "narrowed: class is cpu-bound, not cpu-starved"
	else not_ok "narrowed: class is cpu-bound, not cpu-starved (got $_got)"; fi
	if q finding "$SCRATCH/narrowed.json" "the command limited itself to CPU $CPU0"; then
		ok "narrowed: finding 'the command limited itself to CPU $CPU0'"
	else not_ok "narrowed: finding 'the command limited itself to CPU $CPU0'"; fi
	if q advice "$SCRATCH/narrowed.json" "other load"; then
		not_ok "narrowed: advice never blames other load"
	else ok "narrowed: advice never blames other load"; fi
else
	missing "narrowed: class" util-linux
	missing "narrowed: finding" util-linux
	missing "narrowed: advice" util-linux
fi

# --- a process that computes beside its helper threads --------------------------------
run helpers "$PY" "$CPW_SRCDIR/tests/workloads/busy_with_helpers.py" 2
_got=$(q pclass "$SCRATCH/helpers.json" busy_with_helpers.py 2>/dev/null)
if [ "$_got" = cpu-bound ]; then
	ok "helpers: the process computing beside its helper threads is cpu-bound"
elif busy_host; then
	skip "helpers: the process computing beside its helper threads is cpu-bound" \
		"the host was busy ($OUTSIDE cores of other load): $_got"
else
	not_ok "helpers: the process computing beside its helper threads is cpu-bound (got $_got)"
fi

done_testing
