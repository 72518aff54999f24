#!/bin/sh
# test_tui.sh: the live view driven in tmux (send-keys, capture-pane): the tree of a spawned
# workload with its pids and names, the verdict line, collapse sums, sorting, resize to
# 80x24 and 40x12 without garbage, help, the exit notice, quitting with q and with SIGTERM
# with the terminal restored, NO_COLOR; and non-terminal output giving the plain report.
#
# Every wait polls the screen for the expected text with a timeout: no fixed sleeps.

. "$CPW_SRCDIR/tests/integration/tap.sh"

plan 25


SOCK="cpw-test-$$"
WORKLOADS=""
cleanup() {
	[ -n "$TMUX_BIN" ] && "$TMUX_BIN" -L "$SOCK" kill-server >/dev/null 2>&1
	for p in $WORKLOADS; do
		kill "$p" 2>/dev/null
	done
	remove_scratch
}
trap cleanup EXIT

# Plain report when stdout is not a terminal (no tmux needed).
"$CPW_WORKLOADS/sleeper" 30 & SPID=$!
WORKLOADS="$WORKLOADS $SPID"
"$CPW" --pid "$SPID" --duration 1 >"$SCRATCH/plain.txt" 2>"$SCRATCH/plain.err"
rc=$?
if [ "$rc" = 0 ] && grep -q '^Verdict:' "$SCRATCH/plain.txt"; then
	ok "non-terminal stdout: the plain report"
else
	not_ok "non-terminal stdout: the plain report" "rc=$rc $(head -5 "$SCRATCH/plain.txt" "$SCRATCH/plain.err")"
fi
if LC_ALL=C grep -q "$(printf '\033')" "$SCRATCH/plain.txt"; then
	not_ok "non-terminal stdout: no escape sequences" "$(LC_ALL=C grep -n "$(printf '\033')" "$SCRATCH/plain.txt" | head -3 | cat -v)"
else
	ok "non-terminal stdout: no escape sequences"
fi
kill "$SPID" 2>/dev/null

if [ -z "$TMUX_BIN" ] || ! [ -x "$TMUX_BIN" ]; then
	i=2
	while [ $i -lt 24 ]; do
		missing "live view in tmux" tmux
		i=$((i + 1))
	done
	done_testing
fi

. "$CPW_SRCDIR/tests/integration/tmux_pane.sh"

# children PID N: the pids of PID's children once it has N (all of spin_tree's, so that
# none outlives the test: one left running holds the test's output open until it ends).
children() {
	_i=0
	while [ $_i -lt 100 ]; do
		_c=$(cat "/proc/$1/task/$1/children" 2>/dev/null)
		[ "$(echo $_c | wc -w)" -ge "$2" ] && { echo $_c; return 0; }
		sleep 0.05
		_i=$((_i + 1))
	done
	echo $_c
	return 1
}
# same_modes SESSION: stty -a before and after agree, but for the size line (resized).
same_modes() {
	sed 1d "$SCRATCH/$1.stty.before" >"$SCRATCH/$1.modes.before"
	sed 1d "$SCRATCH/$1.stty.after" >"$SCRATCH/$1.modes.after"
	cmp -s "$SCRATCH/$1.modes.before" "$SCRATCH/$1.modes.after"
}
# The table's data rows (PID first) on the current screen.
rows() { grep -E '^ *[0-9]+ [A-Z] ' "$SCRATCH/screen"; }
# start SESSION W H ENV PID: cperfwatch --pid PID in a fresh pane, with the terminal modes
# saved before and after, and its exit status printed.
start() {
	cat >"$SCRATCH/$1.sh" <<EOF
stty -a >"$SCRATCH/$1.stty.before"
env LC_ALL=C.UTF-8 $4 sh -c 'echo \$\$ >"\$0"; exec "\$@"' "$SCRATCH/$1.pid" "$CPW" --pid $5
echo "CPW-EXIT=\$?"
stty -a >"$SCRATCH/$1.stty.after"
exec sleep 600
EOF
	T new-session -d -s "$1" -x "$2" -y "$3" "sh $SCRATCH/$1.sh"
}

"$CPW_WORKLOADS/spin_tree" 2 120 & WP=$!
WORKLOADS="$WORKLOADS $WP"
KIDS=$(children "$WP" 2)
WORKLOADS="$WORKLOADS $KIDS"
K1=${KIDS%% *}
view_started=$(date +%s.%N)
start one 120 40 "" "$WP"

# 3: the tree with pids and names.
if wait_for one "^ *$K1 [A-Z] .*spin_tree" && grep -Eq "^ *$WP [A-Z] .*spin_tree" "$SCRATCH/screen" &&
	grep -q "pid $WP (spin_tree)" "$SCRATCH/screen"; then
	ok "the tree's pids and names appear"
else
	not_ok "the tree's pids and names appear" "$(show)"
fi
# 4: the verdict line with a class and confidence, and the header figures.
if grep -Eq '^verdict: (cpu-bound|memory-bound|io-bound|thrashing|waiting|cpu-starved|mixed|unknown) \([0-9]+%\)' "$SCRATCH/screen" &&
	grep -Eq '^cores [0-9.]+/[0-9.?]+  rss ' "$SCRATCH/screen"; then
	ok "header: verdict with confidence, cores, rss"
else
	not_ok "header: verdict with confidence, cores, rss" "$(show)"
fi
# 5: the children are indented under the parent in tree mode.
if grep -Eq "^ *$K1 [A-Z] .*(├─|└─|\|-|\`-)" "$SCRATCH/screen"; then
	ok "tree mode indents the children"
else
	not_ok "tree mode indents the children" "$(show)"
fi

# 6-7: collapse the parent (the first row, selected at start): its CPU% is the tree's.
T send-keys -t one c
if wait_for one "^ *$WP [A-Z] .*\[\+\].*\(3 procs\)"; then
	ok "c collapses the parent, counting its subtree"
else
	not_ok "c collapses the parent, counting its subtree" "$(show)"
fi
# Header and row come from the same sample: poll until they agree (a loaded machine may
# leave an interval with no CPU at all).
collapsed_sum_ok() {
	row_cpu=$(rows | awk -v p="$WP" '$1 == p { print $4 }')
	cores=$(sed -n 's/^cores \([0-9.]*\)\/.*/\1/p' "$SCRATCH/screen")
	[ -n "$row_cpu" ] && [ -n "$cores" ] &&
		awk -v r="$row_cpu" -v c="$cores" 'BEGIN { d = r - 100 * c; if (d < 0) d = -d; exit !(d <= 1.5 && r > 5) }'
}
until_ok() {
	_deadline=$(( $(date +%s) + 10 ))
	while :; do
		screen "$1"
		"$2" && return 0
		[ "$(date +%s)" -ge "$_deadline" ] && return 1
		sleep 0.1
	done
}
if until_ok one collapsed_sum_ok; then
	ok "collapsed CPU% is the subtree's sum ($row_cpu% vs tree ${cores} cores)"
else
	not_ok "collapsed CPU% is the subtree's sum" "row=$row_cpu cores=$cores
$(show)"
fi
T send-keys -t one Enter
if wait_for one "^ *$K1 [A-Z] " && ! grep -q '(3 procs)' "$SCRATCH/screen"; then
	ok "Enter expands it again"
else
	not_ok "Enter expands it again" "$(show)"
fi

# 9-10: flat mode sorted by PID (parent first), then by CPU% (the idle parent last).
T send-keys -t one t
wait_gone one "COMMAND \(tree\)" >/dev/null
screen one
if [ "$(rows | head -1 | awk '{ print $1 }')" = "$WP" ]; then
	ok "flat, by PID: the parent first"
else
	not_ok "flat, by PID: the parent first" "$(show)"
fi
T send-keys -t one '>' '>' '>' # past S and WAIT
parent_last() {
	grep -Eq 'CPU%(▾|\*)' "$SCRATCH/screen" &&
		[ "$(rows | tail -1 | awk '{ print $1 }')" = "$WP" ] &&
		[ "$(rows | head -1 | awk '{ print $1 }')" != "$WP" ]
}
if until_ok one parent_last; then
	ok "> > > sorts by CPU%: the idle parent last"
else
	not_ok "> > > sorts by CPU%: the idle parent last" "$(show)"
fi

# 11-13: resize: every line within the width, header and table title still there, and the
# columns and sparklines chosen for that size.
for size in 80x24 40x12 120x40; do
	w=${size%x*}
	h=${size#*x}
	case $size in
	80x24) expect='^RSS ' ;;          # one sparkline per line
	40x12) expect=' PID +S +CPU%' ;;  # few columns, no sparklines
	*) expect='^CPU .* RSS ' ;;       # two sparklines per line
	esac
	# Poll until the pane has the new size (asking again: tmux may drop a resize that
	# comes right after another) and the view has redrawn into it.
	_ok=1
	_deadline=$(( $(date +%s) + 10 ))
	while :; do
		if [ "$(T display-message -p -t one '#{pane_width}x#{pane_height}')" != "$size" ]; then
			T resize-window -t one -x "$w" -y "$h"
			sleep 0.1
			continue
		fi
		screen one
		lines=$(wc -l <"$SCRATCH/screen")
		widest=$(LC_ALL=C.UTF-8 wc -L <"$SCRATCH/screen")
		if [ "$lines" -le "$h" ] && [ "$widest" -le "$w" ] && head -1 "$SCRATCH/screen" | grep -q "^cperfwatch pid $WP" &&
			grep -q ' PID.* COMMAND' "$SCRATCH/screen" && rows | grep -q "^ *$WP " &&
			grep -Eq "$expect" "$SCRATCH/screen" &&
			{ [ "$w" -gt 40 ] || ! grep -q 'CSW/s' "$SCRATCH/screen"; }; then
			_ok=0
			break
		fi
		[ "$(date +%s)" -ge "$_deadline" ] && break
		sleep 0.1
	done
	if [ $_ok = 0 ]; then
		ok "resize to $size: no line wider than $w, header, table and layout for the size"
	else
		not_ok "resize to $size: no line wider than $w, header, table and layout for the size" "lines=$lines widest=$widest
$(show)"
	fi
done

# 14: colours where the terminal has them (tmux's TERM does).
T capture-pane -p -e -t one >"$SCRATCH/escapes"
if grep -Eq '\[([0-9;]*;)?(3[0-7]|4[0-7])(;[0-9;]*)?m' "$SCRATCH/escapes"; then
	ok "colours on a colour terminal"
else
	not_ok "colours on a colour terminal" "$(cat -v "$SCRATCH/escapes" | head -5)"
fi

# 15: help.
T send-keys -t one h
if wait_for one 'cperfwatch live view: keys' && T send-keys -t one x && wait_gone one 'live view: keys'; then
	ok "h shows the help, any key closes it"
else
	not_ok "h shows the help, any key closes it" "$(show)"
fi

# 15: the exit notice, with the final figures kept.
kill $KIDS "$WP" 2>/dev/null
wait "$WP" 2>/dev/null
target_gone=$(date +%s.%N)
if wait_for one "process $WP exited" && rows | grep -q "^ *$WP "; then
	ok "the exit notice, final rows kept"
else
	not_ok "the exit notice, final rows kept" "$(show)"
fi

# 16-18: q gives the terminal back and prints the report there. It is pressed 2 s after
# the notice: the watch ended with the target, and the report must say so.
sleep 2
T send-keys -t one q
if wait_for one '^CPW-EXIT=0' 10 history; then
	ok "q quits with status 0"
else
	not_ok "q quits with status 0" "$(show)"
fi
watched=$(sed -n 's/.*figures cover the \([0-9.]*\) s watched.*/\1/p' "$SCRATCH/screen" | head -1)
most=$(awk -v a="$view_started" -v b="$target_gone" 'BEGIN { printf "%.1f", b - a + 0.5 }')
if grep -q '^Verdict:' "$SCRATCH/screen" && [ -n "$watched" ] &&
	awk -v w="$watched" -v m="$most" 'BEGIN { exit !(w <= m) }' &&
	! grep -q 'q quit  h help' "$SCRATCH/screen"; then
	ok "the report is printed on the restored terminal, not in the view; it covers the watch, not the final view (${watched} s, target gone after ${most} s)"
else
	not_ok "the report is printed on the restored terminal, not in the view; it covers the watch, not the final view" \
		"watched ${watched:-?} s, at most $most s: $(show)"
fi
if [ -s "$SCRATCH/one.stty.after" ] && same_modes one; then
	ok "terminal modes restored after q"
else
	not_ok "terminal modes restored after q" "$(diff "$SCRATCH/one.modes.before" "$SCRATCH/one.modes.after" 2>&1)"
fi

# 19-22: SIGTERM, with NO_COLOR set.
"$CPW_WORKLOADS/spin_tree" 1 120 & WP2=$!
WORKLOADS="$WORKLOADS $WP2"
KIDS2=$(children "$WP2" 1)
WORKLOADS="$WORKLOADS $KIDS2"
start two 100 30 "NO_COLOR=1" "$WP2"
if wait_for two "^ *$WP2 [A-Z] "; then
	T capture-pane -p -e -t two >"$SCRATCH/escapes"
	if grep -Eq '\[([0-9;]*;)?(3[0-7]|4[0-7])(;[0-9;]*)?m' "$SCRATCH/escapes"; then
		not_ok "NO_COLOR: no colours" "$(cat -v "$SCRATCH/escapes" | head -5)"
	else
		ok "NO_COLOR: no colours"
	fi
else
	not_ok "NO_COLOR: no colours" "the view did not start: $(show)"
fi
CPID=$(cat "$SCRATCH/two.pid" 2>/dev/null)
kill -TERM "$CPID" 2>/dev/null
if wait_for two '^CPW-EXIT=0' 10 history; then
	ok "SIGTERM ends the view with status 0"
else
	not_ok "SIGTERM ends the view with status 0" "$(show)"
fi
if grep -q 'stopped by signal 15' "$SCRATCH/screen" && ! grep -q 'q quit  h help' "$SCRATCH/screen"; then
	ok "after SIGTERM the report is on the restored terminal"
else
	not_ok "after SIGTERM the report is on the restored terminal" "$(show)"
fi
if [ -s "$SCRATCH/two.stty.after" ] && same_modes two; then
	ok "terminal modes restored after SIGTERM"
else
	not_ok "terminal modes restored after SIGTERM" "$(diff "$SCRATCH/two.modes.before" "$SCRATCH/two.modes.after" 2>&1)"
fi

# 24: run mode with --tui (and --wait-all, whose wall time runs until the end of the watch):
# the exit notice holds the view; q, 2 s later, gives the report, which still says how long
# the command ran (0.5 s, not 2.5 s) and how it ended.
cat >"$SCRATCH/three.sh" <<EOF
env LC_ALL=C.UTF-8 "$CPW" --no-cgroup --tui --wait-all -- sh -c 'sleep 0.5; exit 3'
echo "CPW-EXIT=\$?"
exec sleep 600
EOF
T new-session -d -s three -x 120 -y 40 "sh $SCRATCH/three.sh"
if wait_for three 'exited with status 3' && sleep 2 && T send-keys -t three q &&
	wait_for three '^CPW-EXIT=3' 10 history &&
	grep -q 'Exit status: 3' "$SCRATCH/screen" &&
	grep -Eq 'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): 0:0[01]\.' "$SCRATCH/screen"; then
	ok "run mode: the exit notice, then on q the report of the run, not of the wait (exit 3)"
else
	not_ok "run mode: the exit notice, then on q the report of the run, not of the wait" "$(show)"
fi

# 25: the header names the target as it is now: a shell that execs python is python (the
# shell waits 1.5 s first, so that a view slow to open, under ASan, still sees it).
cat >"$SCRATCH/four.sh" <<EOF
env LC_ALL=C.UTF-8 NO_COLOR=1 "$CPW" --no-cgroup --tui -- sh -c 'sleep 1.5; exec sleep 2.5'
echo "CPW-EXIT=\$?"
exec sleep 600
EOF
T new-session -d -s four -x 100 -y 24 "sh $SCRATCH/four.sh"
if wait_for four '^cperfwatch pid [0-9]+ \(sh\) ' 5 && wait_for four '^cperfwatch pid [0-9]+ \(sleep\) ' 5; then
	ok "the header follows the target's exec: sh, then sleep"
else
	not_ok "the header follows the target's exec: sh, then sleep" "$(show)"
fi
T send-keys -t four q

done_testing
