#!/bin/sh
# test_verdicts.sh: the ground truth of the classifier. Runs cperfwatch on each workload of
# tests/workloads (each stresses one resource) and asserts verdict.class in the JSON report:
#
#   spin, spin_threads, spin_tree, busy.py   cpu-bound
#   fault_churn                              memory-bound (page-fault dominated)
#   pointer_chase                            cpu-bound without a PMU, memory-bound with one
#   fsync_loop, direct_read                  io-bound (on a real block device, not tmpfs)
#   sleeper, pipe_reader                     waiting
#   spin_threads 1 + an outside hog, pinned  cpu-starved
#   spin_threads 4 pinned to one core        cpu-bound, and says it oversubscribes
#   thrash in a 64 MiB memory cgroup         thrashing (root and a memory cgroup needed)
#
# Every case also prints its key metrics as TAP diagnostics, so the suite's log shows what
# drove each verdict; a wrong verdict prints the verdict and its evidence. Each JSON
# document is validated against the schema where the validator exists.

. "$CPW_SRCDIR/tests/integration/tap.sh"

W=$CPW_WORKLOADS
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
HOG_PID=
IO_DIR=
CG=
PIN=
IN_CGROUP=
BUSY_OK=

cleanup() {
	[ -n "$HOG_PID" ] && kill "$HOG_PID" 2>/dev/null && wait "$HOG_PID" 2>/dev/null
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		# Children first (cperfwatch's own, should it have left one), then ours.
		find "$CG" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
		rmdir "$CG" 2>/dev/null
	fi
	[ -n "$IO_DIR" ] && rm -rf "$IO_DIR"
	remove_scratch
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# Reads the report: class, a one-line metrics summary, the evidence, a text search.
cat >"$SCRATCH/report.py" <<'EOF'
import json, sys

def get(d, *path):
    for k in path:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d

def fmt(v):
    if v is None:
        return "null"
    if isinstance(v, float):
        return "%.3g" % v
    return str(v)

what, path = sys.argv[1], sys.argv[2]
with open(path) as f:
    doc = json.load(f)
v = doc.get("verdict") or {}
if what == "class":
    print(v.get("class", ""))
elif what == "confidence":
    print(v.get("confidence", 0))
elif what == "counter":
    print(get(doc, "counters", sys.argv[3], "status") or "")
elif what == "names":
    # The class is the verdict's secondary, or one of the two a "mixed" finding names.
    want = sys.argv[3]
    sys.exit(0 if v.get("secondary") == want or
             any(want in f for f in v.get("findings") or []) else 1)
elif what == "mentions":
    words = json.dumps([v.get("evidence"), v.get("findings"), v.get("advice")]).lower()
    sys.exit(0 if sys.argv[3].lower() in words else 1)
elif what == "outside":
    # Busy cores outside the tree during the run: host busy time less the tree's CPU.
    ticks, hz = float(sys.argv[3]), float(sys.argv[4])
    t = doc.get("time") or {}
    wall = t.get("wall_s") or 0
    tree = (t.get("user_s") or 0) + (t.get("sys_s") or 0)
    print("%.2f" % (max(0.0, ticks / hz - tree) / wall if wall > 0 else 0))
elif what == "summary":
    fields = [
        ("class", v.get("class")), ("conf", v.get("confidence")), ("second", v.get("secondary")),
        ("wall", get(doc, "time", "wall_s")), ("user", get(doc, "time", "user_s")),
        ("sys", get(doc, "time", "sys_s")),
        ("cores", "%s/%s" % (fmt(get(doc, "parallelism", "cores_used")),
                             fmt(get(doc, "parallelism", "cores_available")))),
        ("R", get(doc, "threads", "running")), ("runnable", get(doc, "threads", "runnable")),
        ("D", get(doc, "threads", "disk_wait")),
        ("Dother", get(doc, "threads", "uninterruptible_other")),
        ("S", get(doc, "threads", "sleeping")), ("samples", get(doc, "threads", "samples")),
        ("oncpu", get(doc, "threads", "oncpu_s")), ("rqwait", get(doc, "threads", "runqueue_wait_s")),
        ("avg_runnable", get(doc, "threads", "avg_runnable")),
        ("majflt", get(doc, "memory", "major_faults")), ("minflt", get(doc, "memory", "minor_faults")),
        ("refaults", get(doc, "memory", "refaults")), ("limit_kib", get(doc, "memory", "memory_limit_kib")),
        ("fs_in", get(doc, "io", "fs_inputs")), ("fs_out", get(doc, "io", "fs_outputs")),
        ("read_B", get(doc, "io", "read_bytes")), ("write_B", get(doc, "io", "write_bytes")),
        ("psi", get(doc, "pressure", "scope")),
        ("psi_cpu", get(doc, "pressure", "cpu_some_s")), ("psi_io_full", get(doc, "pressure", "io_full_s")),
        ("psi_mem_some", get(doc, "pressure", "memory_some_s")),
        ("psi_mem_full", get(doc, "pressure", "memory_full_s")),
        ("instr", get(doc, "counters", "instructions", "status")),
        ("procs", len(doc.get("processes") or [])),
    ]
    print(" ".join("%s=%s" % (k, fmt(x)) for k, x in fields))
    for f in v.get("findings") or []:
        print("finding: %s" % f)
elif what == "evidence":
    print("verdict: %s (confidence %s, secondary %s)"
          % (v.get("class"), fmt(v.get("confidence")), fmt(v.get("secondary"))))
    for e in v.get("evidence") or []:
        print("  %s = %s (threshold %s, %s): %s" % (e.get("metric"), fmt(e.get("value")),
              fmt(e.get("threshold")), e.get("source"), e.get("text")))
    for f in v.get("findings") or []:
        print("  finding: %s" % f)
    for n in doc.get("notes") or []:
        print("  note: %s" % n)
EOF
report() { "$PY" "$SCRATCH/report.py" "$@"; }

# cpw NAME CMD...: runs CMD under cperfwatch with the report in $SCRATCH/NAME.json.
# With PIN=CPU, cperfwatch (and so its command) is pinned to that CPU; with IN_CGROUP=DIR,
# a shell moves itself into that cgroup and becomes cperfwatch there.
cpw() {
	_name=$1; shift
	rm -f "$SCRATCH/$_name.json"
	set -- "$CPW" --json -o "$SCRATCH/$_name.json" -- "$@"
	[ -n "${PIN:-}" ] && set -- taskset -c "$PIN" "$@"
	# shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
	[ -n "${IN_CGROUP:-}" ] &&
		set -- sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$IN_CGROUP" "$@"
	"$@" >"$SCRATCH/$_name.out" 2>&1
}

# expect NAME CLASS CMD...: runs CMD, checks the report's JSON and its class.
# Two TAP results: the JSON (exit status, schema) and the verdict. Other CPU load on the
# host (busy cores outside the tree, from /proc/stat) is printed with the metrics. With
# BUSY_OK="CLASS...", those classes are also accepted when the host was busy and the report
# still names the expected class as secondary (or in a "mixed" finding), as a skip that
# says so: a spinning tree that loses CPUs to other programs is cpu-starved, rightly.
expect() {
	_name=$1 _want=$2; shift 2
	_t0=$(host_busy_ticks)
	cpw "$_name" "$@"
	_rc=$?
	_t1=$(host_busy_ticks)
	_json=$SCRATCH/$_name.json
	if [ "$_rc" -ne 0 ] || ! [ -s "$_json" ]; then
		not_ok "$_name: cperfwatch exits 0 and writes the JSON report" \
			"exit $_rc; output: $(tail -n 5 "$SCRATCH/$_name.out")"
		not_ok "$_name: verdict is $_want" "no report"
		return
	fi
	if [ "$HAVE_VALIDATOR" = yes ]; then
		if validate_json "$_json" >"$SCRATCH/$_name.val" 2>&1; then
			ok "$_name: JSON report is valid"
		else
			not_ok "$_name: JSON report is valid" "$(tail -n 10 "$SCRATCH/$_name.val")"
		fi
	else
		ok "$_name: cperfwatch exits 0 and writes the JSON report"
	fi
	_outside=$(report outside "$_json" $((_t1 - _t0)) "$CLK_TCK")
	report summary "$_json" | sed 's/^/# /'
	echo "# host load outside the tree: $_outside busy cores"
	_got=$(report class "$_json")
	if [ "$_got" = "$_want" ]; then
		ok "$_name: verdict is $_want"
	elif [ -n "$_got" ] && case " ${BUSY_OK:-} " in *" $_got "*) true ;; *) false ;; esac &&
		awk -v o="$_outside" 'BEGIN { exit !(o >= 0.25) }' &&
		report names "$_json" "$_want"; then
		skip "$_name: verdict is $_want" \
			"the host was busy ($_outside cores of other load): $_got, naming $_want, is right then"
	else
		not_ok "$_name: verdict is $_want (got '$_got')" "$(report evidence "$_json")"
	fi
}

# clear NAME: a clear case (issue 19: a pure spin, a pure sleep, O_DIRECT reads) of the
# report in $SCRATCH/NAME.json gets a confidence of 0.9 or more, when its class was right.
clear() {
	_conf=$(report confidence "$SCRATCH/$1.json" 2>/dev/null)
	if [ -z "$_conf" ] || [ "$_got" != "$_want" ]; then
		skip "$1: a clear case, confidence >= 0.9" "the verdict was not $_want"
	elif awk -v c="$_conf" 'BEGIN { exit !(c >= 0.9) }'; then
		ok "$1: a clear case, confidence >= 0.9 ($_conf)"
	elif awk -v o="$_outside" 'BEGIN { exit !(o >= 0.25) }'; then
		# Beside other load a sleeper's wakes queue for a CPU: 0.80 once, CI beside two
		# other sessions. The case is clear on a quiet host.
		skip "$1: a clear case, confidence >= 0.9" "the host was busy ($_outside cores of other load): $_conf"
	else
		not_ok "$1: a clear case, confidence >= 0.9 (got $_conf)" "$(report evidence "$SCRATCH/$1.json")"
	fi
}

# The writable memory cgroup parent for the thrash case: prints "v1 DIR" or "v2 DIR".
memory_cgroup_root() {
	if [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ] && [ -w /sys/fs/cgroup/memory ]; then
		echo "v1 /sys/fs/cgroup/memory"
		return 0
	fi
	_v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -n "$_v2" ] && grep -qw memory "$_v2/cgroup.controllers" 2>/dev/null && [ -w "$_v2" ]; then
		echo "v2 $_v2"
		return 0
	fi
	return 1
}

HAVE_VALIDATOR=no
[ -f "$CPW_SRCDIR/tests/integration/validate_json.py" ] &&
	[ -f "$CPW_SRCDIR/doc/cperfwatch.schema.json" ] && HAVE_VALIDATOR=yes
NCPU=$(nproc)
CLK_TCK=$(getconf CLK_TCK)
# The first CPU we may use, for the pinned cases.
CPU0=$("$PY" -c 'import os; print(min(os.sched_getaffinity(0)))')

plan 30

# --- cpu-bound ------------------------------------------------------------------------
# On a host busy with other work (a parallel make check), spinners that want every CPU
# are starved by it: that verdict is accepted then, as a skip that says so.
BUSY_OK=cpu-starved
expect spin cpu-bound "$W/spin" 1.5
clear spin
expect spin_threads cpu-bound "$W/spin_threads" "$NCPU" 1.5
expect spin_tree cpu-bound "$W/spin_tree" 2 1.5
expect busy.py cpu-bound "$PY" "$CPW_SRCDIR/tests/workloads/busy.py" 1.5

# --- memory ---------------------------------------------------------------------------
expect fault_churn memory-bound "$W/fault_churn" 1.5
# Without hardware counters a pointer chase is only user time: cpu-bound (the report says
# memory stalls are not observable). With a PMU the cache misses show: memory-bound.
PMU=
cpw pointer_chase.probe "$W/spin" 0.1
case $(report counter "$SCRATCH/pointer_chase.probe.json" instructions 2>/dev/null) in
counted | multiplexed) PMU=yes ;;
not-supported | not-permitted) PMU=no ;;
esac
if [ -z "$PMU" ]; then
	if command -v perf >/dev/null 2>&1 &&
		perf stat -x, -e instructions true 2>&1 | grep -q '^[0-9]'; then
		PMU=yes
	else
		PMU=no
	fi
fi
echo "# hardware counters: $PMU"
if [ "$PMU" = yes ]; then
	expect pointer_chase memory-bound "$W/pointer_chase" 128 1.5
else
	expect pointer_chase cpu-bound "$W/pointer_chase" 128 1.5
fi

# --- io -------------------------------------------------------------------------------
# On a busy host the loop also waits for a CPU between flushes: mixed or starved, naming io.
BUSY_OK="cpu-starved mixed"
if IO_DIR=$(block_dir); then
	echo "# IO directory: $IO_DIR ($(stat -f -c %T "$IO_DIR"))"
	expect fsync_loop io-bound "$W/fsync_loop" "$IO_DIR" 1.5
	# A 1 MiB dry run: exit 3 means the file system refuses O_DIRECT.
	"$W/direct_read" "$IO_DIR" 1 0 4 2>"$SCRATCH/direct_probe.err"
	if [ $? -eq 3 ]; then
		skip "direct_read: JSON report" "$(cat "$SCRATCH/direct_probe.err")"
		skip "direct_read: verdict is io-bound" "$(cat "$SCRATCH/direct_probe.err")"
		skip "direct_read: a clear case, confidence >= 0.9" "$(cat "$SCRATCH/direct_probe.err")"
	else
		# 128 KiB random reads: each waits on the device longer than its syscall costs.
		expect direct_read io-bound "$W/direct_read" "$IO_DIR" 64 1.5 128
		clear direct_read
	fi
else
	IO_DIR=
	skip "fsync_loop: JSON report" "no writable directory on a block device (only tmpfs)"
	skip "fsync_loop: verdict is io-bound" "no writable directory on a block device (only tmpfs)"
	skip "direct_read: JSON report" "no writable directory on a block device (only tmpfs)"
	skip "direct_read: verdict is io-bound" "no writable directory on a block device (only tmpfs)"
	skip "direct_read: a clear case, confidence >= 0.9" "no writable directory on a block device (only tmpfs)"
fi

BUSY_OK=

# --- waiting --------------------------------------------------------------------------
expect sleeper waiting "$W/sleeper" 1.5
clear sleeper
expect pipe_reader waiting "$W/pipe_reader" 1.5

# --- cpu-starved: an outside hog on the same CPU ---------------------------------------
taskset -c "$CPU0" "$W/spin" 30 &
HOG_PID=$!
sleep 0.2
PIN=$CPU0
expect competition cpu-starved "$W/spin_threads" 1 1.5
kill "$HOG_PID" 2>/dev/null
wait "$HOG_PID" 2>/dev/null
HOG_PID=

# --- oversubscribed: four threads on one CPU is the tree saturating what it may use -----
expect oversubscribed cpu-bound "$W/spin_threads" 4 1.5
PIN=
if [ -s "$SCRATCH/oversubscribed.json" ] &&
	report mentions "$SCRATCH/oversubscribed.json" oversubscri; then
	ok "oversubscribed: the report names the oversubscription"
else
	not_ok "oversubscribed: the report names the oversubscription" \
		"$(report evidence "$SCRATCH/oversubscribed.json" 2>&1)"
fi

# --- thrashing: a working set four times a memory cgroup's limit ----------------------
if ! is_root; then
	skip "thrash: JSON report" "needs root to make a memory cgroup"
	skip "thrash: verdict is thrashing" "needs root to make a memory cgroup"
elif [ -z "$IO_DIR" ]; then
	skip "thrash: JSON report" "no directory on a block device for its file"
	skip "thrash: verdict is thrashing" "no directory on a block device for its file"
elif ! CGROOT=$(memory_cgroup_root); then
	skip "thrash: JSON report" "no writable memory cgroup (v1 memory controller or v2 with memory)"
	skip "thrash: verdict is thrashing" "no writable memory cgroup (v1 memory controller or v2 with memory)"
else
	# The file is written outside the limit; the measured run starts cold (it drops the
	# file's cache itself) and reads 128 MiB at random through 64 MiB. (With 256 MiB the
	# kernel takes fewer of the page-ins for refaults of the working set: memory stalls
	# measured 10-17% of the run on a slower VM, at the 10% threshold; with 128 MiB, 18-23%.)
	"$W/thrash" "$IO_DIR/thrash.dat" 128 0 || echo "# thrash: could not write its 128 MiB file"
	CGVER=${CGROOT%% *}
	CG=${CGROOT#* }/cpw-thrash.$$
	LIMIT_FILE=memory.limit_in_bytes
	if [ "$CGVER" = v2 ]; then
		LIMIT_FILE=memory.max
		echo +memory >"${CGROOT#* }/cgroup.subtree_control" 2>/dev/null
	fi
	if mkdir "$CG" && echo $((64 << 20)) >"$CG/$LIMIT_FILE"; then
		echo "# memory cgroup: $CG ($CGVER, limit 64 MiB)"
		# cperfwatch runs inside; it makes its own child cgroup beneath, which inherits
		# the limit.
		IN_CGROUP=$CG
		expect thrash thrashing "$W/thrash" "$IO_DIR/thrash.dat" 128 2
		IN_CGROUP=
	else
		skip "thrash: JSON report" "could not make a memory cgroup with a limit under ${CGROOT#* }"
		skip "thrash: verdict is thrashing" "could not make a memory cgroup with a limit under ${CGROOT#* }"
	fi
fi

done_testing
