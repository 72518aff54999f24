#!/bin/sh
# test_phases.sh: the phases of real runs, in the text report, the JSON report and the plot.
#
#   direct_read (O_DIRECT) then spin     two phases, not cpu-bound then cpu-bound, the
#                                        boundary within 0.5 s of the reader's exit
#                                        and its pressure columns add up to the run's
#   sleeper, spin, then fsync_loop       three phases in that order: waiting (on a timer,
#                                        in the timeline's wait columns too), cpu (bound,
#                                        or starved where other load takes the CPUs), io
#
# Both need a directory on a real block device (O_DIRECT and fdatasync are refused or free
# on tmpfs). A run is tried up to three times: on a machine that other jobs keep busy, a
# phase can come out cpu-starved and swallow its neighbour (which is then the truth). The JSON is validated against the schema where the validator exists.

. "$CPW_SRCDIR/tests/integration/tap.sh"

W=$CPW_WORKLOADS
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
IO_DIR=

cleanup() {
	[ -n "$IO_DIR" ] && rm -rf "$IO_DIR"
	remove_scratch
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# phases.py FILE WHAT...: checks on the JSON report; prints what it saw on failure.
cat >"$SCRATCH/phases.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
what = sys.argv[2]
ph = d.get("phases") or []
seen = " | ".join("%.2f-%.2f %s %s" % (p["start_s"], p["end_s"], p["class"],
                  (p["processes"] or [{"command": "-"}])[0]["command"]) for p in ph)
def fail(why):
    print(why + "; phases: " + seen)
    sys.exit(1)
if what == "reader":
    # Two phases: the reader's (not computing), then spin's, cut near the reader's exit.
    if len(ph) != 2:
        fail("want 2 phases")
    if ph[0]["class"] in ("cpu-bound", "memory-bound", "cpu-starved") \
            or ph[1]["class"] not in ("cpu-bound", "cpu-starved"):
        fail("want a non-cpu phase, then cpu-bound")
    if ph[1]["processes"][0]["command"] != "spin":
        fail("the second phase's main process is not spin")
    exits = [p["exited_s"] for p in d["processes"] if p["command"] == "direct_read"]
    if not exits or abs(exits[0] - ph[0]["end_s"]) > 0.5:
        fail("boundary %.2f s, reader exit %s" % (ph[0]["end_s"], exits))
    print("boundary %.2f s, reader exited %.2f s" % (ph[0]["end_s"], exits[0]))
elif what == "three":
    classes = [p["class"] for p in ph]
    if len(ph) != 3 or classes[0] != "waiting" or classes[1] not in ("cpu-bound", "cpu-starved") \
            or classes[2] not in ("io-bound", "waiting") \
            or ph[2]["processes"][0]["command"] != "fsync_loop":
        fail("want waiting, cpu, then fsync_loop's phase")
    # The waiting phase says on what: sleeper's nanosleep (sh's wait4 for it aside).
    if ph[0].get("wait_kind") != "timer" or "timer" not in ph[0]["evidence"]:
        fail("the waiting phase's wait kind is %s (%s), not timer" % (ph[0].get("wait_kind"), ph[0]["evidence"]))
    t = d["timeline"]
    if sum(t["wait_timer_s"]) < 0.5:
        fail("the timeline's wait_timer_s adds up to %.2f s" % sum(t["wait_timer_s"]))
    print(seen)
elif what == "timeline":
    t = d["timeline"]
    n = t["points"]
    if not (0 < n <= 512) or any(len(t[k]) != n for k in ("t_s", "dt_s", "cpu_user_s", "threads_running")):
        fail("timeline columns of %d points" % n)
    cpu = sum(t["cpu_user_s"]) + sum(t["cpu_sys_s"])
    want = d["time"]["user_s"] + d["time"]["sys_s"]
    if abs(cpu - want) > 0.15 * want + 0.05:
        fail("timeline CPU %.2f s against rusage %.2f s" % (cpu, want))
    print("timeline: %d points, CPU %.2f s (rusage %.2f s)" % (n, cpu, want))
elif what == "pressure":
    # Every point has its stall seconds, from the run's own pressure files: they add up to
    # the whole run's, less what came after the last sample.
    t, whole = d["timeline"], d["pressure"]
    scope = "the command's cgroup" if whole["scope"] == "cgroup" else "system-wide"
    for col, key in (("psi_cpu_some_s", "cpu_some_s"), ("psi_io_some_s", "io_some_s"),
                     ("psi_mem_some_s", "memory_some_s")):
        if any(v is None for v in t[col]):
            fail("%s has nulls: %s" % (col, t[col]))
        if not t["units"][col].endswith(scope):
            fail("%s's unit '%s' does not name the scope %s" % (col, t["units"][col], scope))
        s, w = sum(t[col]), whole[key]
        if s > w + 0.01 or (w > 0.2 and s < 0.5 * w):
            fail("%s adds up to %.3f s, the whole run's is %.3f s" % (col, s, w))
    print("pressure: %s; io %.2f of %.2f s" % (scope, sum(t["psi_io_some_s"]), whole["io_some_s"]))
EOF

plan 13

if ! IO_DIR=$(block_dir); then
	IO_DIR=
	skip_all "phases" "no writable directory on a block device (only tmpfs)"
fi

# 1. O_DIRECT reads, then computing.
for try in 1 2 3; do
	"$CPW" --json -o "$SCRATCH/reader.json" -- sh -c \
		"'$W/direct_read' '$IO_DIR' 32 1.5 1024 && '$W/spin' 2" 2>"$SCRATCH/reader.err"
	"$PY" "$SCRATCH/phases.py" "$SCRATCH/reader.json" reader >/dev/null && break
done
check "direct_read then spin: two phases, cut within 0.5 s of the reader's exit" \
	"$PY" "$SCRATCH/phases.py" "$SCRATCH/reader.json" reader
check "direct_read then spin: the timeline's CPU adds up to rusage" \
	"$PY" "$SCRATCH/phases.py" "$SCRATCH/reader.json" timeline
if [ -r /proc/pressure/io ]; then
	check "direct_read then spin: the timeline's pressure adds up to the run's" \
		"$PY" "$SCRATCH/phases.py" "$SCRATCH/reader.json" pressure
else
	skip "direct_read then spin: the timeline's pressure adds up to the run's" "no PSI in this kernel"
fi
if "$PY" -c 'import jsonschema' 2>/dev/null; then
	check "direct_read then spin: the JSON report fits the schema" validate_json "$SCRATCH/reader.json"
else
	missing "direct_read then spin: the JSON report fits the schema" python3-jsonschema
fi

# other_load T0 T1 FILE: busy cores of the host outside the run whose text report is FILE,
# over the ticks T0..T1 (/proc/stat): the CPU time the report gives, taken off.
other_load() {
	awk -v t="$(($2 - $1))" -v hz="$(getconf CLK_TCK)" -F': ' '
		/^\tUser time \(seconds\)/ { cpu += $2 } /^\tSystem time \(seconds\)/ { cpu += $2 }
		/^\tElapsed \(wall clock\)/ { n = split($2, a, ":"); wall = a[n] + (n > 1 ? 60 * a[n - 1] : 0) }
		END { o = wall > 0 ? (t / hz - cpu) / wall : 0; printf "%.2f", o < 0 ? 0 : o }' "$3"
}

# 2. Sleep, spin, fsync: the text report, with a plot beside it. Where other programs
# keep the host's CPUs busy, spin is rightly cpu-starved, and so is fsync_loop between its
# flushes: one starved phase from 1 s on is then the truth (a skip that says so).
for try in 1 2 3; do
	t0=$(host_busy_ticks)
	"$CPW" -o "$SCRATCH/three.txt" --plot "$SCRATCH/three.svg" -- sh -c \
		"'$W/sleeper' 1 && '$W/spin' 1 && '$W/fsync_loop' '$IO_DIR' 1.5" 2>"$SCRATCH/three.err"
	t1=$(host_busy_ticks)
	grep -q '^Phases: 3' "$SCRATCH/three.txt" && break
done
busy=$(other_load "$t0" "$t1" "$SCRATCH/three.txt")
echo "# host load outside the run: $busy busy cores"
starved_by_load() {
	awk -v o="$busy" 'BEGIN { exit !(o >= 0.25) }' &&
		grep -q '^	\[2\] 1\.[0-9]-.* cpu-starved ' "$SCRATCH/three.txt"
}
if starved_by_load && ! grep -q '^Phases: 3' "$SCRATCH/three.txt"; then
	skip "sleep, spin, fsync: three phases in order in the text report" \
		"the host was busy ($busy cores of other load): spin and fsync_loop were cpu-starved, one phase"
elif grep -q '^Phases: 3' "$SCRATCH/three.txt" &&
   grep -q '^	\[1\] 0\.0-.* waiting .*sleeper' "$SCRATCH/three.txt" &&
   grep -Eq '^	\[3\] .* (io-bound|waiting) .*fsync_loop' "$SCRATCH/three.txt" &&
   grep -q '^	phase  |1*2*3*|$' "$SCRATCH/three.txt"; then
	ok "sleep, spin, fsync: three phases in order in the text report"
else
	not_ok "sleep, spin, fsync: three phases in order in the text report" \
		"$(sed -n '/^Phases/,/^Verdict/p' "$SCRATCH/three.txt")"
fi
for try in 1 2 3; do
	t0=$(host_busy_ticks)
	"$CPW" --json -o "$SCRATCH/three.json" -- sh -c \
		"'$W/sleeper' 1 && '$W/spin' 1 && '$W/fsync_loop' '$IO_DIR' 1.5" 2>>"$SCRATCH/three.err"
	t1=$(host_busy_ticks)
	"$PY" "$SCRATCH/phases.py" "$SCRATCH/three.json" three >/dev/null && break
done
json_busy=$("$PY" -c 'import json, sys
d = json.load(open(sys.argv[1])); t = d["time"]; hz = float(sys.argv[3])
o = (float(sys.argv[2]) / hz - t["user_s"] - t["sys_s"]) / t["wall_s"]
print("%.2f" % max(0.0, o))' "$SCRATCH/three.json" $((t1 - t0)) "$(getconf CLK_TCK)" 2>/dev/null || echo 0)
if ! "$PY" "$SCRATCH/phases.py" "$SCRATCH/three.json" three >/dev/null &&
   awk -v o="$json_busy" 'BEGIN { exit !(o >= 0.25) }' &&
   "$PY" -c 'import json, sys; p = json.load(open(sys.argv[1]))["phases"]; sys.exit(0 if any(x["class"] == "cpu-starved" for x in p) else 1)' "$SCRATCH/three.json"; then
	skip "sleep, spin, fsync: three phases in order in JSON" \
		"the host was busy ($json_busy cores of other load): cpu-starved phases are right then"
else
	check "sleep, spin, fsync: three phases in order in JSON" \
		"$PY" "$SCRATCH/phases.py" "$SCRATCH/three.json" three
fi
# 3. The plot of the text run.
if command -v xmllint >/dev/null 2>&1; then
	check "the plot is well-formed XML" xmllint --noout "$SCRATCH/three.svg"
else
	missing "the plot is well-formed XML" libxml2-utils
fi
if command -v rsvg-convert >/dev/null 2>&1; then
	check "the plot renders" rsvg-convert -o "$SCRATCH/three.png" "$SCRATCH/three.svg"
else
	missing "the plot renders" librsvg2-bin
fi
if starved_by_load && ! grep -q '>\[3\]' "$SCRATCH/three.svg"; then
	skip "the plot names its phases" "the host was busy ($busy cores of other load): two phases"
elif grep -q '>\[1\] waiting<' "$SCRATCH/three.svg" && grep -q '>\[2\] cpu-' "$SCRATCH/three.svg" &&
   grep -Eq '>\[3\] (io-bound|waiting)<' "$SCRATCH/three.svg"; then
	ok "the plot names its phases"
else
	not_ok "the plot names its phases" "$(grep -o '>\[[0-9]\][^<]*<' "$SCRATCH/three.svg")"
fi
# The sleeper's wait (a timer) is in the panel of what the waiting threads waited on.
if grep -q '>Waiting threads by what they wait on (stacked)<' "$SCRATCH/three.svg" &&
   grep -q 'class="wk3"' "$SCRATCH/three.svg" && grep -q '>timer</text>' "$SCRATCH/three.svg"; then
	ok "the plot shows what the waiting threads waited on: the timer"
else
	not_ok "the plot shows what the waiting threads waited on: the timer" \
		"$(grep -o 'Waiting threads[^<]*<\|class="wk[0-9]"\|>[a-z-]*</text>' "$SCRATCH/three.svg" | sort | uniq -c)"
fi

# 4. A bad --plot path: one line, status 125, and the command never ran.
"$CPW" --plot "$SCRATCH/no/such/dir/p.svg" -- sh -c ": >'$SCRATCH/ran'" 2>"$SCRATCH/bad.err"
rc=$?
if [ "$rc" = 125 ] && [ "$(wc -l <"$SCRATCH/bad.err")" = 1 ] && ! [ -e "$SCRATCH/ran" ]; then
	ok "a bad --plot path: one line, status 125, before the command starts"
else
	not_ok "a bad --plot path: one line, status 125, before the command starts" \
		"status $rc, ran: $([ -e "$SCRATCH/ran" ] && echo yes || echo no), $(cat "$SCRATCH/bad.err")"
fi
# A run that fails leaves the previous plot as it was (the plot is written whole, then
# renamed into place, as -o's report is), and no temporary file beside it.
mkdir "$SCRATCH/keep"
echo previous >"$SCRATCH/keep/run.svg"
"$CPW" --plot "$SCRATCH/keep/run.svg" -o /dev/null -- "$SCRATCH/no-such-command" 2>/dev/null
rc=$?
if [ $rc -eq 127 ] && [ "$(cat "$SCRATCH/keep/run.svg")" = previous ] &&
   [ "$(ls -A "$SCRATCH/keep")" = run.svg ]; then
	ok "a failed run keeps the previous plot, and leaves no temporary file"
else
	not_ok "a failed run keeps the previous plot, and leaves no temporary file" \
		"status $rc; $(ls -A "$SCRATCH/keep"); $(head -c 40 "$SCRATCH/keep/run.svg")"
fi

# 5. Attach mode draws too.
"$W/spin" 1.5 &
SPIN=$!
t0=$(host_busy_ticks)
"$CPW" --no-tui --pid "$SPIN" -o "$SCRATCH/attach.txt" --plot "$SCRATCH/attach.svg"
t1=$(host_busy_ticks)
wait "$SPIN"
attach_busy=$(other_load "$t0" "$t1" "$SCRATCH/attach.txt")
if grep -q '>\[1\] cpu-starved<' "$SCRATCH/attach.svg" && grep -q '^Phases: one' "$SCRATCH/attach.txt" &&
   awk -v o="$attach_busy" 'BEGIN { exit !(o >= 0.25) }'; then
	skip "attach mode: the plot and the report show one cpu-bound phase" \
		"the host was busy ($attach_busy cores of other load): one cpu-starved phase, right then"
elif grep -q '>\[1\] cpu-bound<' "$SCRATCH/attach.svg" && grep -q '^Phases: one' "$SCRATCH/attach.txt"; then
	ok "attach mode: the plot and the report show one cpu-bound phase"
else
	not_ok "attach mode: the plot and the report show one cpu-bound phase" \
		"$(sed -n '/^Phases/,/^Verdict/p' "$SCRATCH/attach.txt")"
fi
done_testing
