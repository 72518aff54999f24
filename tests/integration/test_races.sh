#!/bin/sh
# test_races.sh: processes that come and go faster than the sampling are normal, not
# errors. A fork storm of thousands of short-lived processes (some orphaned) finishes, its
# totals match GNU time's, and no process is counted twice (the per-process CPU never adds
# up to more than the tree's total); a tree of 1000 sleeping processes is watched in both
# modes and every process appears once, with its parent in the tree.
. "$CPW_SRCDIR/tests/integration/tap.sh"

H="$CPW_BUILDDIR/tests/integration/robust_helper"
PY=/usr/bin/python3
STORM=3000
STORM_US=300

plan 13

[ -x "$PY" ] || missing_all "races" python3
if [ ! -x "$H" ]; then
	while [ "$_tap_n" -lt "$_tap_plan" ]; do not_ok "races $((_tap_n + 1))" "$H is not built"; done
	done_testing
fi

# Checks shared by every report: one entry per process, no negative figure, and the
# per-process CPU not above the tree's total (a process both sampled and reaped would
# push it over).
consistent() {
	"$PY" - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ps = d["processes"]
# A pid comes back only after pid_max more forks: with fewer processes than that, a pid
# listed twice is one process counted twice (say, once from its exit record and once
# more as a zombie found by a sample).
pid_max = int(open("/proc/sys/kernel/pid_max").read())
seen = {}
for p in ps:
    if p["pid"] in seen and len(ps) < pid_max // 2:
        raise AssertionError("process listed twice:\n  %r\n  %r" % (seen[p["pid"]], p))
    seen[p["pid"]] = p
    for k in ("user_s", "sys_s", "minor_faults", "major_faults", "max_rss_kib",
              "voluntary_ctxsw", "involuntary_ctxsw", "read_bytes", "write_bytes"):
        v = p.get(k)
        assert v is None or v >= 0, "%s went negative: %r" % (k, p)
total = d["time"]["user_s"] + d["time"]["sys_s"]
per = sum(p["user_s"] + p["sys_s"] for p in ps)
assert per <= total * 1.05 + 0.05, "per-process CPU %.3f s > tree total %.3f s" % (per, total)
print("%d processes, per-process CPU %.3f s, total %.3f s" % (len(ps), per, total))
EOF
}

# --- fork storm, against GNU time ---
if [ -n "$GNU_TIME" ] && [ -x "$GNU_TIME" ]; then
	"$GNU_TIME" -f '%e %U %S' -o "$SCRATCH/gnutime" "$H" storm $STORM $STORM_US
	gt_cpu=$(awk '{ print $2 + $3 }' "$SCRATCH/gnutime")
else
	gt_cpu=
fi
start=$(date +%s)
"$CPW" --json -i 20ms -o "$SCRATCH/storm.json" -- "$H" storm $STORM $STORM_US 2>"$SCRATCH/err"
rc=$?
took=$(($(date +%s) - start))
# (CI's ASan run on 3ddce41 had exit 1 in 1 s, the report whole: a miss says what was said.)
if [ "$rc" = 0 ] && [ "$took" -lt 20 ]; then
	ok "a fork storm of $STORM processes finishes: exit $rc in ${took}s"
else
	not_ok "a fork storm of $STORM processes finishes: exit $rc in ${took}s" "$(tail -n 5 "$SCRATCH/err")"
fi
check "its report is valid JSON, every process once, CPU not double counted" consistent "$SCRATCH/storm.json"
cpw_cpu=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["time"]["user_s"] + d["time"]["sys_s"])' "$SCRATCH/storm.json" 2>/dev/null)
if [ -n "$gt_cpu" ]; then
	# Two separate runs of the same storm: 35% plus 0.2 s covers fork timing noise.
	if awk -v a="${cpw_cpu:-0}" -v b="$gt_cpu" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.35 * b + 0.2) }'; then
		ok "storm CPU matches GNU time: cperfwatch ${cpw_cpu} s, GNU time ${gt_cpu} s"
	else
		not_ok "storm CPU matches GNU time" "cperfwatch ${cpw_cpu} s, GNU time ${gt_cpu} s"
	fi
else
	missing "storm CPU matches GNU time" time
fi
nproc_json=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["processes"]))' "$SCRATCH/storm.json" 2>/dev/null)
if is_root; then
	# As root, taskstats exit records catch the processes shorter than an interval.
	check "as root, nearly every storm process is listed ($nproc_json of $((STORM + 1)))" \
		sh -c "test ${nproc_json:-0} -ge $((STORM * 9 / 10)) && test ${nproc_json:-0} -le $((STORM + 1))"
else
	check "the storm's processes are listed at most once ($nproc_json of $((STORM + 1)))" \
		sh -c "test ${nproc_json:-0} -ge 1 && test ${nproc_json:-0} -le $((STORM + 1))"
fi

# --- a storm with orphans, waited for with --wait-all ---
"$CPW" --json -a -i 20ms -o "$SCRATCH/orphans.json" -- "$H" storm 1000 $STORM_US 10 2>"$SCRATCH/err"
rc=$?
check "a storm with 100 orphans under --wait-all: exit $rc" test "$rc" = 0
check "its report: every process once, CPU not double counted" consistent "$SCRATCH/orphans.json"
check "every orphan was waited for: none alive in the report" "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
alive = [p for p in d["processes"] if p["alive"]]
assert not alive and not d["descendants_running"], alive[:3]
assert len(d["processes"]) >= 1050 or "taskstats" in " ".join(d["notes"]), len(d["processes"])
' "$SCRATCH/orphans.json"

# --- a tree of 1000 sleeping processes ---
"$CPW" --json -o "$SCRATCH/tree.json" -- "$H" tree 1000 2 >"$SCRATCH/out" 2>"$SCRATCH/err"
rc=$?
check "run mode over a tree of 1000 processes: exit $rc, all made" sh -c "test $rc = 0 && grep -qx 'ready 1000' '$SCRATCH/out'"
check "its report: every process once, CPU not double counted" consistent "$SCRATCH/tree.json"
tree_ok() {
	"$PY" - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ps = d["processes"]
pids = {p["pid"] for p in ps}
outside = [p for p in ps if p["ppid"] not in pids]
assert len(ps) >= int(sys.argv[2]), "only %d processes listed" % len(ps)
assert len(outside) == 1, "%d processes have a parent outside the tree" % len(outside)
assert d["memory"]["tree_peak_rss_kib"] >= len(ps) * 100, d["memory"]
EOF
}
check "all 1000 listed, each with its parent in the tree" tree_ok "$SCRATCH/tree.json" 1000

"$H" tree 1000 3 >"$SCRATCH/ready" &
root=$!
for _ in $(seq 100); do grep -q ready "$SCRATCH/ready" 2>/dev/null && break; sleep 0.1; done
start=$(date +%s)
"$CPW" --json -d 1 --pid "$root" -o "$SCRATCH/attach.json" 2>"$SCRATCH/err"
rc=$?
took=$(($(date +%s) - start))
check "attach mode on a tree of 1000 for 1 s: exit $rc in ${took}s" sh -c "test $rc = 0 && test $took -le 4"
check "its report: every process once" consistent "$SCRATCH/attach.json"
check "all 1000 listed, each with its parent in the tree" tree_ok "$SCRATCH/attach.json" 1000
wait "$root" # the tree ends by itself, its processes each waiting for their children

done_testing
