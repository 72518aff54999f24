#!/bin/sh
# test_tui_signals.sh: a signal to cperfwatch while the live view is up gives the terminal
# back: the alternate screen left and the cursor shown (tmux's own account of the pane:
# #{alternate_on}, #{cursor_flag}), whatever the signal.
#  - attach mode: SIGQUIT, SIGUSR1 and SIGALRM end the watch as SIGTERM does (status 0,
#    the report written);
#  - a fault (SIGSEGV, SIGABRT): cperfwatch dies of it, and no temporary file is left;
#  - run mode: SIGUSR1 is forwarded, and cperfwatch, told to stop, does not wait for q on
#    the final view; a fault kills the command with it;
#  - `timeout 3 cperfwatch --tui -- sleep 20` returns in time: without --foreground
#    cperfwatch is in the terminal's background (it was stopped by SIGTTOU), with it the
#    final view waited for q.
. "$CPW_SRCDIR/tests/integration/tap.sh"

ATTACH_SIGS="QUIT USR1 ALRM SEGV ABRT"
N=$((5 * 2 + 2 * 2 + 3))
plan $N
if [ -z "$TMUX_BIN" ] || ! [ -x "$TMUX_BIN" ]; then
	missing_all "live view and signals" tmux
fi
PY=/usr/bin/python3
[ -x "$PY" ] || missing_all "live view and signals" python3
SOCK="cpw-tuisig-$$"
. "$CPW_SRCDIR/tests/integration/tmux_pane.sh"
trap 'T kill-server >/dev/null 2>&1; remove_scratch' EXIT

eval "$("$PY" -c '
import signal, sys
for n in sys.argv[1:]:
    print("SIG_%s=%d" % (n, int(getattr(signal, "SIG" + n))))' $ATTACH_SIGS)"

# pane FORMAT SESSION: one of tmux's figures for the pane.
pane() { T display -p -t "$2" "$1" 2>/dev/null; }
# until_pane FORMAT VALUE SESSION [SECONDS]: polls until the figure is VALUE.
until_pane() {
	_i=0
	while [ "$(pane "$1" "$3")" != "$2" ]; do
		_i=$((_i + 1))
		[ $_i -ge $((${4:-10} * 10)) ] && return 1
		sleep 0.1
	done
}
# until_file FILE [SECONDS]
until_file() {
	_i=0
	while ! [ -s "$1" ]; do
		_i=$((_i + 1))
		[ $_i -ge $((${2:-10} * 10)) ] && return 1
		sleep 0.1
	done
}
# in_pane NAME COMMAND...: runs COMMAND (cperfwatch, exec'd so that its pid is in
# $SCRATCH/NAME.pid) in a new pane that stays after it, with its status in NAME.rc.
in_pane() {
	_name=$1
	shift
	# ASan builds: the sanitizer's handlers of SEGV, BUS and FPE (which cperfwatch's hands
	# a fault on to) would report a kill as a crash and exit 1; the default action is tested.
	printf '%s\n' "ulimit -c 0" \
		"ASAN_OPTIONS='${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0:handle_sigfpe=0'" \
		"export ASAN_OPTIONS" "echo \$\$ >'$SCRATCH/$_name.pid'" "exec $*" >"$SCRATCH/$_name.sh"
	T new-session -d -s "$_name" -x 120 -y 30 \
		"sh '$SCRATCH/$_name.sh'; echo \$? >'$SCRATCH/$_name.rc'; sleep 60"
}
# restored NAME: the pane left the alternate screen and shows its cursor.
restored() {
	test "$(pane '#{alternate_on}' "$1")" = 0 && test "$(pane '#{cursor_flag}' "$1")" = 1
}
# signal_view LABEL NAME N: waits for the view in pane NAME, sends signal N to its
# cperfwatch and waits for its status (rc). Fails, saying so twice, where no view opened.
signal_view() {
	if ! until_pane '#{alternate_on}' 1 "$2"; then
		not_ok "$1: the view opened" "$(screen "$2"; show)"
		not_ok "$1: the report or a clean death" "no view"
		return 1
	fi
	sleep 0.3
	kill -"$3" "$(cat "$SCRATCH/$2.pid")"
	until_file "$SCRATCH/$2.rc" 5
	rc=$(cat "$SCRATCH/$2.rc" 2>/dev/null)
}
leftovers() { ls -A "$SCRATCH/o" | grep '^\.'; }
gone() { ! [ -e "/proc/$1" ] || [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" = Z ]; }
mkdir "$SCRATCH/o"
# A session that stays, so that the server does not exit (and race the next new-session)
# each time a test's session is killed.
T new-session -d -s keep -x 80 -y 24 "sleep 600"

# --- attach mode ---
sleep 60 &
target=$!
for sig in $ATTACH_SIGS; do
	n=$(eval echo "\$SIG_$sig")
	name=a$sig
	in_pane "$name" "'$CPW' -i 100ms --pid $target -o '$SCRATCH/o/$name.txt'"
	signal_view "attach, SIG$sig" "$name" "$n" || continue
	check "attach, SIG$sig: the terminal is restored (alternate screen $(pane '#{alternate_on}' "$name"), cursor $(pane '#{cursor_flag}' "$name"))" \
		restored "$name"
	case $sig in
	SEGV | ABRT)
		left=$(leftovers)
		check "attach, SIG$sig: cperfwatch dies of it ($rc = $((128 + n))), no temporary file ($left)" \
			sh -c "test '$rc' = $((128 + n)) && test -z '$left'"
		;;
	*)
		check "attach, SIG$sig: ends the watch as SIGTERM does: status 0 ($rc), the report written" \
			sh -c "test '$rc' = 0 && grep -q '^Verdict' '$SCRATCH/o/$name.txt'"
		;;
	esac
	T kill-session -t "$name" 2>/dev/null
done
kill "$target" 2>/dev/null

# --- run mode ---
for sig in USR1 SEGV; do
	name=r$sig
	n=$(eval echo "\$SIG_$sig")
	rm -f "$SCRATCH/cmd.pid"
	in_pane "$name" "'$CPW' --tui -i 100ms -o '$SCRATCH/o/$name.txt' -- sh -c 'echo \$\$ >$SCRATCH/cmd.pid; exec sleep 30'"
	signal_view "run, SIG$sig" "$name" "$n" || continue
	cmd=$(cat "$SCRATCH/cmd.pid" 2>/dev/null)
	alive=no
	[ -n "$cmd" ] && ! gone "$cmd" && { alive=yes; kill -KILL "$cmd"; }
	check "run, SIG$sig: the terminal is restored with no wait for q (alternate screen $(pane '#{alternate_on}' "$name"), cursor $(pane '#{cursor_flag}' "$name"))" \
		restored "$name"
	left=$(leftovers)
	case $sig in
	SEGV)
		check "run, SIGSEGV: cperfwatch dies of it ($rc = $((128 + n))), the command with it ($alive), no temporary file ($left)" \
			sh -c "test '$rc' = $((128 + n)) && test $alive = no && test -z '$left'"
		;;
	*)
		check "run, SIG$sig: forwarded; the command's status ($rc = $((128 + n))) and the report" \
			sh -c "test '$rc' = $((128 + n)) && grep -q '^Verdict' '$SCRATCH/o/$name.txt'"
		;;
	esac
	T kill-session -t "$name" 2>/dev/null
done

# --- timeout: cperfwatch told to stop does not wait for q ---
# Plain timeout runs it in a process group of its own, in the terminal's background: no
# view then (setting the terminal's modes would stop it with SIGTTOU for good). With
# --foreground the view is up, and the forwarded SIGTERM ends the run with no wait for q.
for fg in "" --foreground; do
	name=timeout${fg:+fg}
	printf '%s\n' "start=\$(date +%s)" \
		"timeout $fg 3 '$CPW' --tui -i 100ms -o '$SCRATCH/o/$name.txt' -- sleep 20" \
		"echo \$? \$((\$(date +%s) - start)) >'$SCRATCH/$name.rc'" >"$SCRATCH/$name.sh"
	T new-session -d -s "$name" -x 120 -y 30 "sh '$SCRATCH/$name.sh'; sleep 60"
	until_file "$SCRATCH/$name.rc" 10
	rc=none took=?
	[ -s "$SCRATCH/$name.rc" ] && read -r rc took <"$SCRATCH/$name.rc"
	check "timeout $fg 3 cperfwatch --tui -- sleep 20: returns in time (status $rc, $took s), the report written" \
		sh -c "test '$rc' = 124 && test '$took' -le 5 && grep -q '^Verdict' '$SCRATCH/o/$name.txt'"
done
check "timeout --foreground: the terminal restored" restored timeoutfg

done_testing
