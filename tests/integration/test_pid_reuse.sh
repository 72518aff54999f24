#!/bin/sh
# test_pid_reuse.sh: a pid reused by a process outside the tree is not taken into the
# report (issue 30, item 2). Exit records (taskstats, root) name a process by its pid;
# the session matches them by the time the process began too.
#
# The target (python3, asleep) ends while watched with a 4 s interval; its pid is given at
# once to another python3 (ns_last_pid), which starts a child that spins 0.3 s, and lives
# on past the next sample. The child's exit record names the target's pid as its parent:
# it used to be taken into the tree, and the next sample watched the other python3 as the
# target, with CPU the target never used.

. "$CPW_SRCDIR/tests/integration/tap.sh"

plan 2

json_get() { /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

if ! is_root; then
	skip_all "needs root (taskstats exit records, ns_last_pid)"
fi
if [ ! -w /proc/sys/kernel/ns_last_pid ]; then
	skip_all "no writable /proc/sys/kernel/ns_last_pid (pid namespace)"
fi

# Starts a python3 on the pid given, when it is free, that has a child spin 0.5 s and then
# lives 2 s more (past the next sample); prints its pid.
cat >"$SCRATCH/reuse.py" <<'PY'
import os, sys
want = int(sys.argv[1])
with open("/proc/sys/kernel/ns_last_pid", "w") as f:
    f.write(str(want - 1))
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, "-c",
             "import os, time, subprocess, sys\n"
             "subprocess.run([sys.executable, '-c', 'import time\\nt = time.process_time()\\n"
             "while time.process_time() - t < 0.3: pass'])\n"
             "time.sleep(4)"])
print(pid, flush=True)
PY

tries=0
reused=no
while [ $tries -lt 3 ] && [ $reused = no ]; do
	tries=$((tries + 1))
	/usr/bin/python3 -c 'import time; time.sleep(1.0)' &
	target=$!
	"$CPW" --pid "$target" --interval 4 --no-tui --json -o "$SCRATCH/reuse.json" 2>"$SCRATCH/reuse.err" &
	cpw=$!
	wait "$target"
	got=$(/usr/bin/python3 "$SCRATCH/reuse.py" "$target")
	wait "$cpw"
	while kill -0 "$got" 2>/dev/null; do sleep 0.1; done
	if [ "$got" = "$target" ]; then
		reused=yes
	else
		echo "# try $tries: the pid went to another process ($got, wanted $target)"
	fi
done
if [ $reused = no ]; then
	skip "attach: a reused pid's exit record is not the target's" "the pid could not be given again at once"
	skip "attach: the report is still written" "the pid could not be given again at once"
	done_testing
fi
cpu=$(json_get "$SCRATCH/reuse.json" 'd["time"]["user_s"] + d["time"]["sys_s"]' 2>/dev/null)
echo "# the target slept; CPU in the report: $cpu s (the other python3 spun 0.3 s on its pid)"
if [ -n "$cpu" ] && awk -v c="$cpu" 'BEGIN { exit !(c < 0.15) }'; then
	ok "attach: a reused pid's exit record is not the target's ($cpu s of CPU)"
else
	not_ok "attach: a reused pid's exit record is not the target's" "CPU $cpu s; $(cat "$SCRATCH/reuse.err")"
fi
if validate_json "$SCRATCH/reuse.json" >/dev/null 2>&1; then
	ok "attach: the report is still written"
else
	not_ok "attach: the report is still written" "$(cat "$SCRATCH/reuse.err")"
fi
done_testing
