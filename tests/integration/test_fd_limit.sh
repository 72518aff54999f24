#!/bin/sh
# test_fd_limit.sh: the open-files limit (issue 30, item 14). Under `ulimit -n 10` a
# watch of 200 threads took 1 sample in 3 s and said nothing: cperfwatch's held files had
# used the descriptors the samples needed. Now it raises its own soft limit to the hard one
# and refuses to start, in one line, where even the hard limit is too low; and the command
# still runs with the limit it was given.

. "$CPW_SRCDIR/tests/integration/tap.sh"

plan 6

command -v prlimit >/dev/null 2>&1 || missing_all "open-files limit" util-linux

cat >"$SCRATCH/threads.py" <<'PY'
import threading, time
ev = threading.Event()
ts = [threading.Thread(target=ev.wait) for _ in range(200)]
for t in ts: t.start()
time.sleep(2)
ev.set()
PY

# A hard limit of 9: refused before the command runs.
prlimit --nofile=9:9 -- "$CPW" -- sh -c "touch '$SCRATCH/ran'" 2>"$SCRATCH/low.err"
rc=$?
lines=$(wc -l <"$SCRATCH/low.err")
if [ "$rc" = 125 ] && [ "$lines" = 1 ] && grep -q "ulimit -n is 9" "$SCRATCH/low.err"; then
	ok "hard limit 9: one line and 125 ($(cat "$SCRATCH/low.err"))"
else
	not_ok "hard limit 9: one line and 125" "status $rc, $lines line(s): $(cat "$SCRATCH/low.err")"
fi
if [ ! -e "$SCRATCH/ran" ]; then
	ok "hard limit 9: the command is not run"
else
	not_ok "hard limit 9: the command is not run" "it ran"
fi

# A soft limit of 10 under a high hard one: the samples are all there.
prlimit --nofile=10:4096 -- "$CPW" --json -o "$SCRATCH/soft.json" -- /usr/bin/python3 "$SCRATCH/threads.py" 2>"$SCRATCH/soft.err"
samples=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads"]["samples"])' "$SCRATCH/soft.json" 2>/dev/null)
echo "# soft limit 10, 200 threads for 2 s: $samples samples"
if [ -n "$samples" ] && [ "$samples" -ge 10 ]; then
	ok "soft limit 10: every sample is taken ($samples in 2 s)"
else
	not_ok "soft limit 10: every sample is taken" "$samples samples; $(cat "$SCRATCH/soft.err")"
fi
if ! grep -q "could not be read" "$SCRATCH/soft.json"; then
	ok "soft limit 10: no sample failed"
else
	not_ok "soft limit 10: no sample failed" "$(grep -o '[^"]*could not be read[^"]*' "$SCRATCH/soft.json")"
fi

# A hard limit of 40 (above the least cperfwatch needs): nothing kept open, every sample.
prlimit --nofile=40:40 -- "$CPW" --json -o "$SCRATCH/hard40.json" -- /usr/bin/python3 "$SCRATCH/threads.py" 2>"$SCRATCH/hard40.err"
samples=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads"]["samples"])' "$SCRATCH/hard40.json" 2>/dev/null)
if [ -n "$samples" ] && [ "$samples" -ge 10 ] && ! grep -q "could not be read" "$SCRATCH/hard40.json"; then
	ok "hard limit 40: every sample is taken ($samples in 2 s)"
else
	not_ok "hard limit 40: every sample is taken" "$samples samples; $(cat "$SCRATCH/hard40.err")"
fi

# The command sees the limit it was given, not the one cperfwatch raised.
prlimit --nofile=10:4096 -- "$CPW" -o /dev/null -- cat /proc/self/limits >"$SCRATCH/child.limits"
soft=$(awk '/^Max open files/ { print $4 }' "$SCRATCH/child.limits")
if [ "$soft" = 10 ]; then
	ok "the command runs with the soft limit it was given (10)"
else
	not_ok "the command runs with the soft limit it was given (10)" "it had $soft"
fi
done_testing
