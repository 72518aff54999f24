#!/bin/sh
# test_process_verdict.sh: a verdict per process (issue 27, item 3), end to end, on the
# composite run sh -c "sleep 1; dd if=F of=/dev/null iflag=direct ...; python3
# gil_threads.py 4 2":
#   - JSON (valid against the schema): processes[].verdict for sleep, dd and python3, null
#     for the shell, which only waits for its children; each its own class: sleep waiting
#     on a timer, dd io-bound reading F, python3 cpu-bound with "4 threads take turns on the
#     GIL" (beside other load, cpu-starved, the finding still names the GIL); the tree's
#     advice never says "parallelise (threads";
#   - text: a "Processes" section, a line for each of the three;
#   - the live view (tmux, 200 columns): a CLASS column, "wait", "io" and "cpu" in the rows
#     of sleep, dd and python3 once the command has ended.
# A host busy with other work starves dd and the threads (cpu-starved is right then): the
# class checks of such a run are skips that say so, as in test_threads_verdict.sh. The run
# needs a directory on a block device (O_DIRECT is refused on tmpfs).

. "$CPW_SRCDIR/tests/integration/tap.sh"

plan 9

SOCK="cpw-pverdict-$$"
IO_DIR=
cleanup() {
	[ -n "$TMUX_BIN" ] && "$TMUX_BIN" -L "$SOCK" kill-server >/dev/null 2>&1
	[ -n "$IO_DIR" ] && rm -rf "$IO_DIR"
	remove_scratch
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if ! IO_DIR=$(block_dir); then
	IO_DIR=
	skip_all "a verdict per process" "no writable directory on a block device (only tmpfs)"
fi
F="$IO_DIR/big.dat"
if ! dd if=/dev/zero of="$F" bs=1M count=64 oflag=direct status=none 2>/dev/null; then
	skip_all "a verdict per process" "$IO_DIR refuses O_DIRECT"
fi
CMD="sleep 1; dd if='$F' of=/dev/null bs=4k count=12000 iflag=direct status=none; '$PY' '$CPW_SRCDIR/tests/workloads/gil_threads.py' 4 2"

# q WHAT FILE: reads the JSON report.
cat >"$SCRATCH/q.py" <<'PYEOF'
import json, sys
what, path = sys.argv[1], sys.argv[2]
doc = json.load(open(path))
procs = doc.get("processes") or []
def by(comm):
    for p in procs:
        if p.get("command") == comm and p.get("verdict"):
            return p
    return None
if what == "class":          # q class FILE COMM
    p = by(sys.argv[3])
    print(p["verdict"]["class"] if p else "none")
elif what == "finding":      # q finding FILE COMM TEXT
    p = by(sys.argv[3])
    sys.exit(0 if p and sys.argv[4] in p["verdict"]["finding"] else 1)
elif what == "runq":         # q runq FILE COMM: its run-queue share
    p = by(sys.argv[3])
    print(p["verdict"]["shares"]["runqueue"] if p else 0)
elif what == "shell_null":   # the shell: no verdict
    sys.exit(0 if all(p.get("verdict") is None for p in procs if p.get("command") == "sh") else 1)
elif what == "texts":        # the sentences, one a line
    for p in procs:
        if p.get("verdict"):
            v = p["verdict"]
            print("%s: %s" % (v["class"], v["finding"]))
elif what == "advice":
    print((doc.get("verdict") or {}).get("advice", ""))
elif what == "show":
    for p in procs:
        if p.get("verdict"):
            print("%s %s" % (p["verdict"]["class"], p["verdict"]["text"]))
PYEOF
q() { "$PY" "$SCRATCH/q.py" "$@"; }

# The run, with the host's other load measured around it (busy cores outside the tree).
t0=$(host_busy_ticks)
"$CPW" --no-cgroup --json -o "$SCRATCH/r.json" -- sh -c "$CMD" >"$SCRATCH/r.out" 2>&1
t1=$(host_busy_ticks)
OUTSIDE=$("$PY" - "$SCRATCH/r.json" $((t1 - t0)) "$(getconf CLK_TCK)" <<'PYEOF'
import json, sys
try:
    t = json.load(open(sys.argv[1])).get("time") or {}
except (OSError, ValueError):
    t = {}
wall = t.get("wall_s") or 0
tree = (t.get("user_s") or 0) + (t.get("sys_s") or 0)
print("%.2f" % (max(0.0, float(sys.argv[2]) / float(sys.argv[3]) - tree) / wall if wall > 0 else 0))
PYEOF
)
q show "$SCRATCH/r.json" 2>/dev/null | sed 's/^/# /'
echo "# host load outside the tree: $OUTSIDE busy cores"
busy_host() { awk -v o="$OUTSIDE" 'BEGIN { exit !(o >= 0.25) }'; }

# 1: valid, a verdict for the three, none for the shell (dd, starved by a busy host, may
# not have been busy long enough to matter).
if validate_json "$SCRATCH/r.json" >"$SCRATCH/v.out" 2>&1 && q shell_null "$SCRATCH/r.json" &&
	[ "$(q class "$SCRATCH/r.json" sleep)" != none ] &&
	{ [ "$(q class "$SCRATCH/r.json" dd)" != none ] || busy_host; } &&
	[ "$(q class "$SCRATCH/r.json" python3)" != none ]; then
	ok "JSON: valid; processes[].verdict for sleep, dd, python3; null for the shell"
else
	not_ok "JSON: valid; processes[].verdict for sleep, dd, python3; null for the shell" \
		"$(cat "$SCRATCH/v.out"; tail -n 5 "$SCRATCH/r.out")"
fi

# 2-5: each its own class and finding.
expect() { # COMM CLASS FINDING
	_got=$(q class "$SCRATCH/r.json" "$1")
	if [ "$_got" = "$2" ] && q finding "$SCRATCH/r.json" "$1" "$3"; then
		ok "$1: $2, '$3'"
	elif busy_host; then
		skip "$1: $2, '$3'" "the host was busy ($OUTSIDE cores of other load): $_got"
	else
		not_ok "$1: $2, '$3' (got $_got)" "$(q texts "$SCRATCH/r.json")"
	fi
}
expect sleep waiting "mostly on a timer"
expect dd io-bound "reads"
expect python3 cpu-bound "4 threads take turns on the GIL"
# Beside other load the turns come slower (cpu-starved then), but they are still turns.
if q finding "$SCRATCH/r.json" python3 "4 threads take turns on the GIL"; then
	ok "python3: the finding names the GIL, quiet or loaded"
else
	not_ok "python3: the finding names the GIL, quiet or loaded" "$(q texts "$SCRATCH/r.json")"
fi

# 6: the tree's advice holds for python3.
if q advice "$SCRATCH/r.json" | grep -q 'parallelise (threads'; then
	not_ok "advice never 'parallelise (threads' with a Python process in the tree" "$(q advice "$SCRATCH/r.json")"
else
	ok "advice never 'parallelise (threads' with a Python process in the tree"
fi

# 7: the text report: a Processes section with the JSON's sentences.
"$CPW" --no-cgroup -o "$SCRATCH/r.txt" -- sh -c "$CMD" >"$SCRATCH/t.out" 2>&1
sed -n '/^Processes:/,/^[A-Z]/p' "$SCRATCH/r.txt" | grep '^	' >"$SCRATCH/section"
if grep -Eq '^	sleep \(pid [0-9]+\), [0-9.]+-[0-9.]+ s: [a-z-]+ \([0-9]+%\): ' "$SCRATCH/section" &&
	grep -Eq '^	dd \(pid [0-9]+\), ' "$SCRATCH/section" && grep -Eq '^	python3 \(pid [0-9]+\), ' "$SCRATCH/section" &&
	! grep -Eq '^	sh \(pid' "$SCRATCH/section"; then
	ok "text: a Processes section, a line for sleep, dd and python3, none for the shell"
else
	not_ok "text: a Processes section, a line for sleep, dd and python3, none for the shell" "$(cat "$SCRATCH/r.txt")"
fi

# 8-9: the live view: a CLASS column with each process's class once the command has ended.
if [ -z "$TMUX_BIN" ] || ! [ -x "$TMUX_BIN" ]; then
	missing "live view: the CLASS column" tmux
	missing "live view: wait, io and cpu in the rows of sleep, dd, python3" tmux
	done_testing
fi
. "$CPW_SRCDIR/tests/integration/tmux_pane.sh"
cat >"$SCRATCH/view.sh" <<EOF
env LC_ALL=C.UTF-8 NO_COLOR=1 "$CPW" --no-cgroup --tui -- sh -c "$(printf '%s' "$CMD" | sed 's/"/\\"/g')"
exec sleep 600
EOF
T new-session -d -s view -x 200 -y 50 "sh $SCRATCH/view.sh"
if wait_for view 'the command exited' 60 && grep -Eq ' PID.* CLASS .*COMMAND' "$SCRATCH/screen"; then
	ok "live view: the CLASS column"
else
	not_ok "live view: the CLASS column" "$(show)"
fi
# row_class ERE: the CLASS cell of the row whose command starts with ERE (after the tree's
# branch marks), the column just before COMMAND.
row_class() { grep -Eo " (cpu|mem|io|thrsh|wait|starv|mixed|\?|-) +[^a-zA-Z/]*$1" "$SCRATCH/screen" | head -1 | awk '{ print $1 }'; }
s_c=$(row_class 'sleep 1') d_c=$(row_class 'dd if=') p_c=$(row_class 'python3 ')
if [ "$s_c" = wait ] && [ "$d_c" = io ] && [ "$p_c" = cpu ]; then
	ok "live view: wait, io and cpu in the rows of sleep, dd, python3"
elif busy_host && [ -n "$s_c" ] && [ -n "$d_c" ] && [ -n "$p_c" ]; then
	skip "live view: wait, io and cpu in the rows of sleep, dd, python3" "the host was busy: $s_c $d_c $p_c"
else
	not_ok "live view: wait, io and cpu in the rows of sleep, dd, python3 (got '$s_c' '$d_c' '$p_c')" "$(show)"
fi

done_testing
