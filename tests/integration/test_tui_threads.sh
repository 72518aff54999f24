#!/bin/sh
# test_tui_threads.sh: H in the live view, driven in tmux: a row per thread under a process
# with several, as htop's H. gil_threads.py runs 4 Python threads that take turns on the
# GIL for 6 s, watched with --tui and NO_COLOR at 100x30:
#   - before H, one row for the python process (THR 5);
#   - after H, 5 thread rows under it (its main thread and the 4 workers): each with its
#     own tid, a branch, the thread's name, CPU% of its own, "-" in the process-only
#     columns, and the lock most of them wait on at any moment;
#   - the selection moved onto a thread row stays on that thread across refreshes;
#   - H again: the thread rows are gone.
# Every wait polls the screen with a timeout; the tmux server is killed at the end.

. "$CPW_SRCDIR/tests/integration/tap.sh"

plan 4

SOCK="cpw-threads-$$"
cleanup() {
	[ -n "$TMUX_BIN" ] && "$TMUX_BIN" -L "$SOCK" kill-server >/dev/null 2>&1
	remove_scratch
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

if [ -z "$TMUX_BIN" ] || ! [ -x "$TMUX_BIN" ]; then
	missing_all "thread rows in the live view" tmux
fi
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

. "$CPW_SRCDIR/tests/integration/tmux_pane.sh"

cat >"$SCRATCH/run.sh" <<EOF
env LC_ALL=C.UTF-8 NO_COLOR=1 "$CPW" --tui -- "$PY" "$CPW_SRCDIR/tests/workloads/gil_threads.py" 4 6
echo "CPW-EXIT=\$?"
exec sleep 600
EOF
T new-session -d -s run -x 100 -y 30 "sh $SCRATCH/run.sh"

# A thread row: TID, state, wait (or -), CPU%, then "-" in RSS.. TIME+ (the process-only
# columns that fit), a branch and the name.
THREAD_ROW='^ +[0-9]+ [A-Z] [a-z-]+ +[0-9.]+( +-){4,} +(├─|└─)python3'

# 1: before H, the process alone.
if wait_for run '^ +[0-9]+ [A-Z] .* 5 +[0-9]+:[0-9]{2}\.[0-9]{2} python3' 10 && ! grep -Eq "$THREAD_ROW" "$SCRATCH/screen"; then
	ok "before H: one row for the process, 5 threads"
else
	not_ok "before H: one row for the process, 5 threads" "$(show)"
fi

# 2: H: a row per thread, their tids distinct, at least one waiting on the lock.
T send-keys -t run H
if wait_for run "$THREAD_ROW" 5 && sleep 1 && screen run &&
	[ "$(grep -Ec "$THREAD_ROW" "$SCRATCH/screen")" -eq 5 ] &&
	[ "$(grep -E "$THREAD_ROW" "$SCRATCH/screen" | awk '{ print $1 }' | sort -u | wc -l)" -eq 5 ] &&
	grep -E "$THREAD_ROW" "$SCRATCH/screen" | grep -q ' lock '; then
	ok "H: five thread rows under the process, distinct tids, the lock among their waits"
else
	not_ok "H: five thread rows under the process, distinct tids, the lock among their waits" "$(show)"
fi

# 3: the selection, moved down onto the third row (a thread), stays on that thread while
# the rows re-sort by CPU% over 1.5 s of refreshes.
T send-keys -t run Down Down
sleep 0.5
T capture-pane -p -e -t run >"$SCRATCH/sel1"
tid1=$(grep -a "$(printf '\033')\[7m" "$SCRATCH/sel1" | sed 's/\x1b\[[0-9;]*m//g' | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[A-Z]$/ { print $1; exit }')
sleep 1.5
T capture-pane -p -e -t run >"$SCRATCH/sel2"
tid2=$(grep -a "$(printf '\033')\[7m" "$SCRATCH/sel2" | sed 's/\x1b\[[0-9;]*m//g' | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[A-Z]$/ { print $1; exit }')
if [ -n "$tid1" ] && [ "$tid1" = "$tid2" ] && grep -Eq "^ +$tid1 [A-Z] .*(├─|└─)python3" "$SCRATCH/screen"; then
	ok "the selection stays on thread $tid1 across refreshes"
else
	not_ok "the selection stays on the thread it was moved to" "first $tid1, then $tid2
$(show)"
fi

# 4: H again: the thread rows are gone.
T send-keys -t run H
if wait_gone run "$THREAD_ROW" 5; then
	ok "H again: no thread rows"
else
	not_ok "H again: no thread rows" "$(show)"
fi

T send-keys -t run q
wait_for run '^CPW-EXIT=' 15 history >/dev/null
done_testing
