#!/bin/sh
# test_tree_accounting.sh: cperfwatch accounts for a whole process tree. spin_tree 2 (a
# parent that waits for two spinning children) must show the parent and both children in
# `processes`, each with its pid and ppid; the tree's user+sys must match the sum over
# `processes`, and match what GNU time reports for the same run (GNU time wraps cperfwatch:
# it sums every waited-for descendant, so it sees the tree plus cperfwatch's own small
# share; comparing one run keeps a busy host's noise out).
#
# An fsync'd 1 MiB write by a child that exits at once, on a block device (issue 29, item 6):
# the text's "Storage: ... written" and JSON io.write_bytes are at least the MiB and agree
# with "File system outputs" (512-byte blocks), in the command's cgroup and without one.

. "$CPW_SRCDIR/tests/integration/tap.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
JSON=$SCRATCH/tree.json
SECS=1.5

plan 8

if [ -n "$GNU_TIME" ] && [ -x "$GNU_TIME" ]; then
	"$GNU_TIME" -f '%U %S' -o "$SCRATCH/time.out" \
		"$CPW" --json -o "$JSON" -- "$CPW_WORKLOADS/spin_tree" 2 "$SECS" >"$SCRATCH/cpw.out" 2>&1
else
	"$CPW" --json -o "$JSON" -- "$CPW_WORKLOADS/spin_tree" 2 "$SECS" >"$SCRATCH/cpw.out" 2>&1
fi
rc=$?
if [ "$rc" -ne 0 ] || ! [ -s "$JSON" ]; then
	not_ok "cperfwatch runs spin_tree 2 and writes JSON" "exit $rc: $(tail -n 5 "$SCRATCH/cpw.out")"
	for t in "processes lists the parent and its two children" \
		"tree user+sys matches the sum over processes" \
		"tree user+sys matches GNU time" \
		"the children did the work, not the parent" \
		"children's ppid is the parent's pid"; do
		not_ok "$t" "no report"
	done
	done_testing
fi
ok "cperfwatch runs spin_tree 2 and writes JSON"

# One line of figures: tree cpu, sum over processes, process count, spin_tree processes,
# children whose ppid is the top pid, and the top pid itself.
FIGS=$("$PY" - "$JSON" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
t = doc["time"]
procs = doc.get("processes") or []
tree = (t.get("user_s") or 0) + (t.get("sys_s") or 0)
summed = sum((p.get("user_s") or 0) + (p.get("sys_s") or 0) for p in procs)
top = doc.get("pid")
spinners = [p for p in procs if (p.get("command") or "").startswith("spin_tree")]
kids = [p for p in spinners if p.get("ppid") == top and p.get("pid") != top]
has_top = any(p.get("pid") == top for p in spinners)
cpu = lambda p: (p.get("user_s") or 0) + (p.get("sys_s") or 0)
# The parent only waits; each child spins for the same time, so each has a fair share.
parent_cpu = sum(cpu(p) for p in spinners if p.get("pid") == top)
split_ok = len(kids) == 2 and tree > 0 and parent_cpu <= 0.05 * tree + 0.02 and \
    all(cpu(k) >= 0.25 * tree for k in kids)
print("%.3f %.3f %d %d %d %d %d %d" % (tree, summed, len(procs), len(spinners), len(kids), top or 0,
                                       has_top, split_ok))
for p in procs:
    print("# process pid=%s ppid=%s command=%s user_s=%s sys_s=%s" % (
        p.get("pid"), p.get("ppid"), p.get("command"), p.get("user_s"), p.get("sys_s")), file=sys.stderr)
EOF
) 2>"$SCRATCH/procs.txt"
cat "$SCRATCH/procs.txt"
# shellcheck disable=SC2086 # split the figures into fields
set -- $FIGS
TREE=$1 SUMMED=$2 NPROCS=$3 NSPIN=$4 NKIDS=$5 TOP=$6 HAS_TOP=$7 SPLIT_OK=$8
echo "# tree user+sys=$TREE, sum over processes=$SUMMED, processes=$NPROCS (spin_tree: $NSPIN), top pid $TOP"

if [ "$NSPIN" = 3 ] && [ "$HAS_TOP" = 1 ]; then
	ok "processes lists the parent and its two children"
else
	not_ok "processes lists the parent and its two children" "$(cat "$SCRATCH/procs.txt")"
fi
if [ "$NKIDS" = 2 ]; then
	ok "children's ppid is the parent's pid"
else
	not_ok "children's ppid is the parent's pid" "top pid $TOP; $(cat "$SCRATCH/procs.txt")"
fi
# Per-process figures come from /proc samples and wait4 at exit; 10% or 0.1 s covers
# the last sampling interval.
if close_to "$TREE" "$SUMMED" 0.10 || awk -v a="$TREE" -v b="$SUMMED" 'BEGIN { exit !(a - b < 0.1 && b - a < 0.1) }'; then
	ok "tree user+sys matches the sum over processes"
else
	not_ok "tree user+sys matches the sum over processes" "tree $TREE, sum $SUMMED"
fi
if [ "$SPLIT_OK" = 1 ]; then
	ok "the children did the work, not the parent"
else
	not_ok "the children did the work, not the parent" "$(cat "$SCRATCH/procs.txt")"
fi

if [ -z "$GNU_TIME" ]; then
	missing "tree user+sys matches GNU time" time
elif ! [ -s "$SCRATCH/time.out" ]; then
	not_ok "tree user+sys matches GNU time" "GNU time wrote nothing: $(tail -n 3 "$SCRATCH/cpw.out")"
else
	GT=$(awk '{ printf "%.3f", $1 + $2 }' "$SCRATCH/time.out")
	echo "# GNU time (around cperfwatch) user+sys=$GT"
	# GNU time also counts cperfwatch itself: the tree may be a little less, never more.
	if close_to "$TREE" "$GT" 0.10 && awk -v t="$TREE" -v g="$GT" 'BEGIN { exit !(t <= g + 0.02) }'; then
		ok "tree user+sys matches GNU time"
	else
		not_ok "tree user+sys matches GNU time" "cperfwatch $TREE s, GNU time $GT s"
	fi
fi

# An fsync'd write: storage written agrees with the file system outputs.
cat >"$SCRATCH/fsync.py" <<'PYEOF'
import os, sys
with open(sys.argv[1], "wb") as f:
    f.write(b"x" * 1048576)
    f.flush()
    os.fsync(f.fileno())
os.unlink(sys.argv[1])
PYEOF
if ! IO=$(block_dir); then
	skip "fsync'd write, --no-cgroup: text Storage written agrees with File system outputs" "no block device to write on"
	skip "fsync'd write: JSON io.write_bytes agrees with fs_outputs" "no block device to write on"
	done_testing
fi
FS="sleep 0.4; $PY $SCRATCH/fsync.py $IO/f; sleep 0.1"
"$CPW" --no-cgroup -o "$SCRATCH/fs.txt" -- /bin/sh -c "$FS"
set -- $(awk '/File system outputs:/ { b = $4 * 512 }
	/^Storage:/ { for (i = 1; i < NF; i++) if ($(i + 2) == "written") { v = $i; u = $(i + 1) } }
	END { m = u == "GiB" ? 1073741824 : u == "MiB" ? 1048576 : u == "KiB" ? 1024 : 1
		printf "%.0f %.0f", v * m, b }' "$SCRATCH/fs.txt")
if [ "${1:-0}" -ge 1000000 ] && close_to "$1" "${2:-0}" 0.10; then
	ok "fsync'd write, --no-cgroup: text Storage written agrees with File system outputs ($1 B, $2 B)"
else
	not_ok "fsync'd write, --no-cgroup: text Storage written agrees with File system outputs (${1:-?} B, ${2:-?} B)" \
		"$(grep -E 'File system outputs|^Storage' "$SCRATCH/fs.txt")"
fi
"$CPW" --json -o "$SCRATCH/fs.json" -- /bin/sh -c "$FS"
set -- $("$PY" -c 'import json, sys
io = json.load(open(sys.argv[1]))["io"]
print(io["write_bytes"] or 0, (io["fs_outputs"] or 0) * 512)' "$SCRATCH/fs.json")
if [ "${1:-0}" -ge 1000000 ] && close_to "$1" "${2:-0}" 0.10; then
	ok "fsync'd write: JSON io.write_bytes agrees with fs_outputs ($1 B, $2 B)"
else
	not_ok "fsync'd write: JSON io.write_bytes agrees with fs_outputs (${1:-?} B, ${2:-?} B)"
fi
rm -rf "$IO"
done_testing
