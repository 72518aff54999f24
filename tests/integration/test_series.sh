#!/bin/sh
# test_series.sh: --series FILE (issue 29, item 11) writes each sample as it is taken, one
# JSON object a line: readable while the job runs, and after a SIGKILL of cperfwatch every
# line written so far is there, whole and valid. A path that is a symlink or a FIFO is
# refused before the command starts, without blocking.

. "$CPW_SRCDIR/tests/integration/tap.sh"

plan 5

# A job that grows by 2 MiB every 50 ms for ~4 s: the series shows the climb.
cat >"$SCRATCH/grow.py" <<'PY'
import time
held = []
for _ in range(80):
    held.append(bytearray(2 << 20))
    time.sleep(0.05)
PY

# check_lines FILE MIN: every line is one JSON object with the series' keys, t_s rising,
# at least MIN lines, the file ending in a newline; prints the last rss_kib_max.
check_lines() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
path, least = sys.argv[1], int(sys.argv[2])
data = open(path, "rb").read()
if not data.endswith(b"\n"):
    sys.exit("the file does not end with a whole line")
keys = {"unix_time_ms", "t_s", "dt_s", "cpu_user_s", "cpu_sys_s", "rss_kib_max", "read_bytes",
        "write_bytes", "threads_running", "wait_timer_s", "processes_alive", "top"}
last_t, rss = -1, None
lines = data.decode().splitlines()
for n, line in enumerate(lines, 1):
    d = json.loads(line)
    missing = keys - d.keys()
    if missing:
        sys.exit("line %d lacks %s" % (n, sorted(missing)))
    if d["t_s"] <= last_t:
        sys.exit("line %d: t_s %s after %s" % (n, d["t_s"], last_t))
    last_t, rss = d["t_s"], d["rss_kib_max"]
if len(lines) < least:
    sys.exit("%d lines, expected at least %d" % (len(lines), least))
print(len(lines), rss)
PY
}

# 1-2: read while the job runs, then after SIGKILL of cperfwatch.
"$CPW" --series "$SCRATCH/s.jsonl" -o "$SCRATCH/r.txt" /usr/bin/python3 "$SCRATCH/grow.py" 2>"$SCRATCH/err" &
cpw=$!
sleep 1.5
if out=$(check_lines "$SCRATCH/s.jsonl" 8 2>&1); then
	ok "read while the job runs: $out (lines, last tree RSS KiB), each a whole JSON object"
else
	not_ok "read while the job runs: whole JSON lines" "$out"
fi
sleep 0.5
kill -KILL "$cpw"
wait "$cpw" 2>/dev/null
early_rss=$(sed -n 3p "$SCRATCH/s.jsonl" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["rss_kib_max"])')
if ! out=$(check_lines "$SCRATCH/s.jsonl" 15 2>&1); then
	not_ok "after SIGKILL of cperfwatch at 2 s: the lines so far, each valid" "$out"
elif [ -e "$SCRATCH/r.txt" ]; then
	not_ok "after SIGKILL of cperfwatch at 2 s: the lines so far, each valid" "a report was written"
elif ! awk -v a="$early_rss" -v b="${out#* }" 'BEGIN { exit !(b > a + 10240) }'; then
	not_ok "after SIGKILL of cperfwatch at 2 s: the lines so far, each valid" "no climb: $early_rss -> ${out#* } KiB"
else
	ok "after SIGKILL of cperfwatch at 2 s: $out (lines, last tree RSS KiB), each valid, the climb from $early_rss KiB there"
fi
pkill -f "$SCRATCH/grow.py" 2>/dev/null

# 3: a run to its end: one line per sample, the report as usual.
"$CPW" --series "$SCRATCH/full.jsonl" --json -o "$SCRATCH/full.json" -i 50ms /bin/sleep 0.5 2>"$SCRATCH/err"
rc=$?
n=$(wc -l <"$SCRATCH/full.jsonl")
if [ $rc -ne 0 ]; then
	not_ok "a whole run: one line per sample" "exit $rc: $(cat "$SCRATCH/err")"
elif ! out=$(check_lines "$SCRATCH/full.jsonl" 8 2>&1); then
	not_ok "a whole run: one line per sample" "$out"
elif [ "$n" -gt 14 ]; then
	not_ok "a whole run: one line per sample" "$n lines for 0.5 s at 50 ms"
else
	ok "a whole run at -i 50ms for 0.5 s: $n lines"
fi

# 4: a symlink, a FIFO (with no reader: it must not block), a directory: refused before
# the command runs, one line, 125.
ln -s "$SCRATCH/elsewhere" "$SCRATCH/link"
mkfifo "$SCRATCH/fifo"
mkdir "$SCRATCH/dir"
bad=""
for target in link fifo dir; do
	timeout 10 "$CPW" --series "$SCRATCH/$target" -o /dev/null touch "$SCRATCH/ran.$target" 2>"$SCRATCH/err.$target"
	rc=$?
	if [ $rc -ne 125 ] || [ -e "$SCRATCH/ran.$target" ] || [ "$(wc -l <"$SCRATCH/err.$target")" -ne 1 ] ||
		! grep -q "^cperfwatch: cannot open series file '$SCRATCH/$target'" "$SCRATCH/err.$target"; then
		bad="$bad $target (exit $rc: $(cat "$SCRATCH/err.$target"))"
	fi
done
if [ -n "$bad" ] || [ -e "$SCRATCH/elsewhere" ]; then
	not_ok "a symlink, a FIFO, a directory: refused at once, one line, 125, command not run" "$bad"
else
	ok "a symlink, a FIFO, a directory: refused at once, one line, 125, command not run"
fi

# 5: attach mode writes its samples too.
sleep 5 &
target=$!
"$CPW" --no-tui -d 500ms --series "$SCRATCH/attach.jsonl" -o /dev/null --pid "$target" 2>"$SCRATCH/err"
rc=$?
kill "$target" 2>/dev/null
wait "$target" 2>/dev/null
if [ $rc -ne 0 ] || ! out=$(check_lines "$SCRATCH/attach.jsonl" 3 2>&1); then
	not_ok "attach mode -d 500ms: its samples as lines" "exit $rc: $out $(cat "$SCRATCH/err")"
else
	ok "attach mode -d 500ms: $out"
fi

done_testing
