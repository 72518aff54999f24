#!/bin/sh
# test_signals.sh: signals to cperfwatch in each mode.
#  - run mode: SIGTERM and SIGHUP are passed on to the command, whose exit status is still
#    reported; SIGINT sent to cperfwatch alone is ignored (a Ctrl-C reaches the command
#    through the terminal's process group: the command decides), so the command carries on
#    and the report comes when it ends; what cperfwatch inherited ignored (nohup's SIGHUP,
#    a background job's SIGINT and SIGQUIT, a trap '') the command starts with ignored;
#  - attach mode: SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGUSR1 end the watch cleanly with the report so far
#    (valid JSON with --json), status 0, and the watched process is left alone;
#  - the live view restores the terminal when a signal ends it;
#  - run mode, every other signal whose default would end cperfwatch (USR1, USR2, ALRM,
#    VTALRM, PROF, XCPU, XFSZ, STKFLT, PWR, IO, the real-time ones) is forwarded as SIGTERM
#    is: the report is written, the status is the command's, no temporary file is left;
#  - run mode, a fault (SEGV, ABRT, TRAP, SYS, BUS, FPE, ILL) and SIGKILL: cperfwatch dies
#    of it, leaving no temporary file and the command not running on unwatched.
. "$CPW_SRCDIR/tests/integration/tap.sh"

H="$CPW_BUILDDIR/tests/integration/robust_helper"
PY=/usr/bin/python3
ASYNC="USR1 USR2 ALRM VTALRM PROF XCPU XFSZ STKFLT PWR IO RTMIN RTMAX"
FAULTS="SEGV ABRT TRAP SYS BUS FPE ILL"
N=$((23 + 12 + 7 + 1 + 4 + 3))
plan $N

[ -x "$PY" ] || missing_all "signals" python3
if [ ! -x "$H" ]; then
	while [ "$_tap_n" -lt "$_tap_plan" ]; do not_ok "signals $((_tap_n + 1))" "$H is not built"; done
	done_testing
fi

# json_exit FILE: prints "code signal" from a report, or fails when it is not valid JSON.
json_exit() {
	"$PY" -c 'import json,sys; e=json.load(open(sys.argv[1]))["exit"]; print(e["code"], e["signal"])' "$1"
}

# Waits until the helper has installed its handlers (it creates its file then).
wait_for() { for _i in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }

# --- run mode: TERM and HUP are forwarded ---
for sig in TERM HUP; do
	f="$SCRATCH/got.$sig"
	"$CPW" --json -o "$SCRATCH/run.$sig.json" -- "$H" signals "$f" 10 &
	cpw=$!
	wait_for "$f"
	sleep 0.2
	kill -"$sig" "$cpw"
	wait "$cpw"
	rc=$?
	case $sig in TERM) signum=15 ;; HUP) signum=1 ;; esac
	check "run mode, SIG$sig: the command got it" grep -qx "$sig" "$f"
	check "run mode, SIG$sig: cperfwatch exits with the command's status ($rc = $((10 + signum)))" \
		test "$rc" = $((10 + signum))
	v=$(json_exit "$SCRATCH/run.$sig.json")
	check "run mode, SIG$sig: the JSON report holds that exit code ($v)" test "$v" = "$((10 + signum)) None"
done

# --- run mode: SIGINT to cperfwatch alone is ignored ---
f="$SCRATCH/got.INT"
start=$(date +%s.%N)
"$CPW" --json -o "$SCRATCH/run.INT.json" -- "$H" signals "$f" 1.5 &
cpw=$!
wait_for "$f"
sleep 0.2
kill -INT "$cpw"
wait "$cpw"
rc=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
check "run mode, SIGINT to cperfwatch alone: the command did not get it" sh -c "! grep -q INT '$f'"
check "run mode, SIGINT: the command ran to its end (${took}s >= 1.5 s), status 0 ($rc)" \
	sh -c "test $rc = 0 && echo '$took >= 1.45' | bc | grep -qx 1"
v=$(json_exit "$SCRATCH/run.INT.json")
check "run mode, SIGINT: the report is there when it ends ($v)" test "$v" = "0 None"

# --- run mode: Ctrl-C at a terminal reaches the whole process group ---
if command -v setsid >/dev/null 2>&1; then
	f="$SCRATCH/got.INTgroup"
	setsid "$CPW" --json -o "$SCRATCH/run.INTgroup.json" -- "$H" signals "$f" 1.5 &
	cpw=$!
	wait_for "$f"
	sleep 0.2
	env kill -INT -- -"$cpw" # the kill program: the shell's may not take a group
	wait "$cpw"
	rc=$?
	check "run mode, SIGINT to the process group: the command got it and decided ($rc)" \
		sh -c "grep -qx INT '$f' && test $rc = 0"
	v=$(json_exit "$SCRATCH/run.INTgroup.json")
	check "run mode, SIGINT to the process group: cperfwatch survived to report ($v)" test "$v" = "0 None"
else
	missing "run mode, SIGINT to the process group" util-linux
	missing "run mode, SIGINT to the process group: report" util-linux
fi

# --- run mode: a command killed by a signal ---
"$CPW" --json -o "$SCRATCH/killed.json" -- sh -c 'kill -TERM $$' 2>/dev/null
rc=$?
check "run mode, the command dies of SIGTERM: status 143 ($rc)" test "$rc" = 143
v=$(json_exit "$SCRATCH/killed.json")
check "run mode, the command dies of SIGTERM: the report says signal 15 ($v)" test "$v" = "None 15"

# --- run mode: what cperfwatch inherited ignored, the command starts with ignored ---
# (nohup's SIGHUP, a background job's SIGINT and SIGQUIT; the command was once started with
# each of them at its default and died of a hangup nohup had asked to ignore.)
"$CPW" --json -o "$SCRATCH/ign.json" -- sh -c 'kill -INT $$; kill -QUIT $$; echo alive' \
	>"$SCRATCH/ign.out" 2>/dev/null &
wait $! # (a shell's background job: it starts with SIGINT and SIGQUIT ignored)
rc=$?
check "run mode, SIGINT and SIGQUIT inherited ignored (a background job): the command ignores them too (status $rc, $(cat "$SCRATCH/ign.out"))" \
	test "$rc" = 0 -a "$(cat "$SCRATCH/ign.out")" = alive
nohup "$CPW" -o "$SCRATCH/nohup.txt" -- sh -c 'kill -HUP $$; kill -TERM $$; echo alive' >"$SCRATCH/hup.out" 2>/dev/null </dev/null
rc=$?
check "run mode under nohup: the command ignores SIGHUP (status $rc, $(cat "$SCRATCH/hup.out"))" \
	test "$rc" = 143 -a "$(cat "$SCRATCH/hup.out")" = ""
sh -c 'trap "" HUP TERM; exec "$0" -o "$1" -- sh -c "kill -HUP \$\$; kill -TERM \$\$; echo alive"' \
	"$CPW" "$SCRATCH/trap.txt" >"$SCRATCH/trap.out" 2>/dev/null </dev/null
rc=$?
check "run mode, SIGHUP and SIGTERM inherited ignored: the command ignores both (status $rc, $(cat "$SCRATCH/trap.out"))" \
	test "$rc" = 0 -a "$(cat "$SCRATCH/trap.out")" = alive

# --- run mode: every other signal that would end cperfwatch ---
ulimit -c 0 # the faults below dump no core
# ASan builds: the sanitizer's own handlers of SEGV, BUS and FPE (which cperfwatch's hands
# a fault on to) would report a kill as a crash and exit 1; the default action is tested.
NO_SAN_FAULTS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0:handle_sigfpe=0"
# The signals' numbers on this machine (the shell's kill knows few names).
eval "$("$PY" -c '
import signal, sys
for n in sys.argv[1:]:
    print("SIG_%s=%d" % (n, int(getattr(signal, "SIG" + n))))' $ASYNC $FAULTS)"
# gone PID: the process has ended (or is a zombie that no one reaps).
gone() { ! [ -e "/proc/$1" ] || [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" = Z ]; }
# leftovers: the temporary files left in $SCRATCH/o (none, each time).
leftovers() { ls -A "$SCRATCH/o" | grep '^\.' ; }
mkdir "$SCRATCH/o"
# run_with SIG: runs a command that records its pid and sleeps, sends SIG to cperfwatch,
# and sets rc, cmd (the command's pid) and r (the report's path).
run_with() {
	r="$SCRATCH/o/run.$1.json"
	rm -f "$SCRATCH/cmd.pid"
	ASAN_OPTIONS=$NO_SAN_FAULTS "$CPW" --json -o "$r" -- sh -c "echo \$\$ >'$SCRATCH/cmd.pid'; exec sleep 30" 2>/dev/null &
	cpw=$!
	wait_for "$SCRATCH/cmd.pid"
	sleep 0.3
	eval "kill -\$SIG_$1 $cpw"
	wait "$cpw"
	rc=$?
	sleep 0.1
	cmd=$(cat "$SCRATCH/cmd.pid")
}
for sig in $ASYNC; do
	run_with "$sig"
	n=$(eval echo "\$SIG_$sig")
	v=$(json_exit "$r" 2>&1)
	left=$(leftovers)
	gone "$cmd" || kill -KILL "$cmd"
	check "run mode, SIG$sig ($n): forwarded, the command died of it; status $rc = $((128 + n)), the report says so ($v), no temporary file ($left)" \
		sh -c "test $rc = $((128 + n)) && test '$v' = 'None $n' && test -z '$left'"
done
for sig in $FAULTS; do
	run_with "$sig"
	n=$(eval echo "\$SIG_$sig")
	left=$(leftovers)
	alive=no
	gone "$cmd" || { alive=yes; kill -KILL "$cmd"; }
	check "run mode, SIG$sig ($n): cperfwatch dies of it ($rc = $((128 + n))), no temporary file ($left), the command does not run on ($alive)" \
		sh -c "test $rc = $((128 + n)) && test -z '$left' && test $alive = no"
done
# SIGKILL: no temporary file, even in the middle of a run (it is made at the report).
SIG_KILL=9
run_with KILL
left=$(leftovers)
alive=no
gone "$cmd" || { alive=yes; kill -KILL "$cmd"; }
check "run mode, SIGKILL: no temporary file beside -o ($left), the command does not run on ($alive)" \
	sh -c "test -z '$left' && test $alive = no && ! test -e '$r'"

# --- attach mode: each signal ends the watch with the report so far ---
sleep 30 &
target=$!
for sig in INT TERM HUP QUIT USR1; do
	"$CPW" --json -i 50ms --pid "$target" >"$SCRATCH/attach.$sig.json" 2>"$SCRATCH/err.$sig" &
	cpw=$!
	sleep 0.5
	start=$(date +%s.%N)
	kill -"$sig" "$cpw"
	wait "$cpw"
	rc=$?
	took=$(echo "$(date +%s.%N) - $start" | bc)
	check "attach mode, SIG$sig: ends promptly (${took}s) with status 0 ($rc)" \
		sh -c "test $rc = 0 && echo '$took < 1' | bc | grep -qx 1"
	check "attach mode, SIG$sig: valid JSON covering the time watched, saying why it stopped" "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "attach" and d["time"]["wall_s"] >= 0.3, d["time"]
assert any("signal" in n for n in d["notes"]), d["notes"]
' "$SCRATCH/attach.$sig.json"
done
check "attach mode: the watched process is left alone" kill -0 "$target"

"$CPW" -i 50ms --pid "$target" >"$SCRATCH/attach.txt" 2>&1 &
cpw=$!
sleep 0.4
kill -TERM "$cpw"
wait "$cpw"
rc=$?
check "attach mode, text, SIGTERM: status 0 ($rc) and a whole report" \
	sh -c "test $rc = 0 && grep -q '^Verdict' '$SCRATCH/attach.txt'"

# --- the live view gives the terminal back ---
if [ -n "$TMUX_BIN" ] && [ -x "$TMUX_BIN" ]; then
	sock="$SCRATCH/tmux.sock"
	"$TMUX_BIN" -S "$sock" new-session -d -x 120 -y 30 \
		"'$CPW' --tui -i 100ms --pid $target >'$SCRATCH/tui.txt' 2>&1; echo \$? >'$SCRATCH/tui.rc'; stty -a >'$SCRATCH/stty.txt'; sleep 10" 2>/dev/null
	sleep 1
	cpw=$(pgrep -f -n -- "--tui -i 100ms --pid $target")
	[ -n "$cpw" ] && kill -TERM "$cpw"
	for _ in $(seq 40); do [ -s "$SCRATCH/stty.txt" ] && break; sleep 0.05; done
	"$TMUX_BIN" -S "$sock" kill-server 2>/dev/null
	check "live view, SIGTERM: status 0 and the report after it" \
		sh -c "test \"\$(cat '$SCRATCH/tui.rc' 2>/dev/null)\" = 0 && grep -q 'Verdict' '$SCRATCH/tui.txt'"
	check "live view, SIGTERM: the terminal is back in its normal mode (echo, icanon)" \
		sh -c "grep -q ' echo ' '$SCRATCH/stty.txt' && grep -q ' icanon ' '$SCRATCH/stty.txt'"
else
	missing "live view, SIGTERM: report" tmux
	missing "live view, SIGTERM: terminal restored" tmux
fi
kill "$target" 2>/dev/null

done_testing
