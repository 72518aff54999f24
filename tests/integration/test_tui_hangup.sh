#!/bin/sh
# test_tui_hangup.sh: the live view must end when its terminal goes away, even holding the
# final figures of an exited target and with SIGHUP ignored (nohup, some job runners): a
# closed pty stays "readable" and a loop that does not notice spins at full CPU forever.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 2
if [ -z "$TMUX_BIN" ] || ! [ -x "$TMUX_BIN" ]; then
	missing "the view ends when its terminal is gone" tmux
	missing "it wrote the report it had" tmux
	done_testing
fi
SOCK="cpw-hangup-$$"
T() { "$TMUX_BIN" -L "$SOCK" -f /dev/null "$@"; }
trap 'T kill-server >/dev/null 2>&1; remove_scratch' EXIT

sleep 0.4 &
target=$!
# SIGHUP ignored before exec: cperfwatch must notice the dead terminal by itself.
{
	echo "trap '' HUP"
	echo "echo \$\$ > '$SCRATCH/pid'"
	# ASan builds: LeakSanitizer's exit-time stop of the process is a ptrace SIGSTOP, which
	# the SIGCONT of a terminal hang-up can cancel; both then wait on each other for ever.
	echo "ASAN_OPTIONS='${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0'; export ASAN_OPTIONS"
	echo "exec '$CPW' --pid $target -o '$SCRATCH/report.txt'"
} >"$SCRATCH/run.sh"
T new-session -d -s hang -x 100 -y 30 "sh $SCRATCH/run.sh"
i=0
while [ ! -s "$SCRATCH/pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
cpw=$(cat "$SCRATCH/pid" 2>/dev/null)
sleep 1.2 # the target has exited: the view holds its final figures, waiting for q
T kill-server >/dev/null 2>&1
i=0
while kill -0 "$cpw" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
if [ -n "$cpw" ] && kill -0 "$cpw" 2>/dev/null; then
	cpu=$(awk '{ print ($14 + $15) / 100 }' "/proc/$cpw/stat" 2>/dev/null)
	kill -KILL "$cpw"
	not_ok "the view ends when its terminal is gone" "still running 3 s after the terminal closed, CPU ${cpu:-?} s"
	not_ok "it wrote the report it had" "killed"
else
	ok "the view ends when its terminal is gone"
	check "it wrote the report it had" grep -q "Verdict:" "$SCRATCH/report.txt"
fi
done_testing
