#!/bin/sh
# test_run_mode.sh: `cperfwatch -- COMMAND` end to end: exit statuses, the GNU time labels,
# stdio left to the command, -o, a two-process tree whose CPU adds up, an orphan counted
# with --wait-all, signals, and JSON that a real parser accepts; a command that fails at
# once (python3 nosuchfile.py) gets its status and a short report, not sixty lines; a
# typical single-process report (busy.py) keeps every time -v line in about 50 lines.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 32
W=$CPW_WORKLOADS
json_get() { # FILE EXPR: prints a Python expression over the document d
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# --- exit statuses ---
"$CPW" -o "$SCRATCH/r" -- true; check "exit 0 for a command that succeeds" test $? = 0
"$CPW" -o "$SCRATCH/r" -- sh -c 'exit 3'; check "the command's exit status (3)" test $? = 3
"$CPW" -o "$SCRATCH/r" -- sh -c 'kill -TERM $$'; check "128+15 when the command dies of SIGTERM" test $? = 143
printf '#!/bin/sh\n' > "$SCRATCH/noexec"; chmod -x "$SCRATCH/noexec"
"$CPW" -- "$SCRATCH/noexec" 2>"$SCRATCH/err"; rc=$?
check "126 when COMMAND cannot be run" test $rc = 126
check "126 comes with one line naming the command" sh -c "test \$(wc -l <'$SCRATCH/err') = 1 && grep -q 'cannot run' '$SCRATCH/err'"
"$CPW" -- no-such-command-cpw 2>"$SCRATCH/err"; rc=$?
check "127 when COMMAND is not found" test $rc = 127
"$CPW" --interval 1ms -- true 2>"$SCRATCH/err"; rc=$?
check "125 on misuse, with one line" sh -c "test $rc = 125 && test \$(wc -l <'$SCRATCH/err') = 1"
# A command that fails at once (issue 29 item 7): its status, every time -v line, and a
# verdict that says why there is no more (under 30 lines).
(cd "$SCRATCH" && "$CPW" -o "$SCRATCH/nf.txt" -- /usr/bin/python3 nosuchfile.py 2>/dev/null); rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$SCRATCH/nf.txt")" -le 30 ] && grep -q '^	Exit status: 2$' "$SCRATCH/nf.txt" &&
	grep -Eq '^Verdict: unknown: the command exited with status 2 after [0-9.]+ s, too short to judge' "$SCRATCH/nf.txt"; then
	ok "a command that fails at once: status 2, a short report ($(wc -l <"$SCRATCH/nf.txt") lines) that says so"
else
	not_ok "a command that fails at once: status 2, a short report that says so" "exit $rc; $(cat "$SCRATCH/nf.txt")"
fi

# --- the GNU time labels, in order, as GNU time prints them ---
if [ -x "${GNU_TIME:-}" ]; then
	"$GNU_TIME" -v true 2>"$SCRATCH/gnu" >/dev/null
	"$CPW" -- true 2>"$SCRATCH/ours" >/dev/null
	sed -n 's/^\t\([^:]*\):.*/\1/p' "$SCRATCH/gnu" > "$SCRATCH/gnu.labels"
	sed -n 's/^\t\([^:]*\):.*/\1/p' "$SCRATCH/ours" | head -n "$(wc -l < "$SCRATCH/gnu.labels")" > "$SCRATCH/ours.labels"
	check "every GNU time -v label, same order" diff -u "$SCRATCH/gnu.labels" "$SCRATCH/ours.labels"
	# A typical single-process report (issue 29's done-when): every label, about 50 lines.
	"$CPW" -o "$SCRATCH/busy.txt" -- /usr/bin/python3 "$CPW_SRCDIR/tests/workloads/busy.py" 1.5
	n=$(wc -l <"$SCRATCH/busy.txt")
	sed -n 's/^\t\([^:]*\):.*/\1/p' "$SCRATCH/busy.txt" | head -n "$(wc -l < "$SCRATCH/gnu.labels")" > "$SCRATCH/busy.labels"
	if diff -u "$SCRATCH/gnu.labels" "$SCRATCH/busy.labels" >"$SCRATCH/busy.diff" && [ "$n" -le 58 ]; then
		ok "busy.py 1.5: every GNU time -v label in a report of at most 58 lines ($n)"
	else
		not_ok "busy.py 1.5: every GNU time -v label in a report of at most 58 lines ($n)" "$(cat "$SCRATCH/busy.diff" "$SCRATCH/busy.txt")"
	fi
else
	missing "every GNU time -v label, same order" time
	missing "busy.py 1.5: every GNU time -v label in a report of at most 58 lines" time
fi

# --- stdio belongs to the command; the report goes to stderr or -o ---
out=$(echo hello | "$CPW" -- cat 2>"$SCRATCH/err")
check "stdin and stdout reach the command untouched" test "$out" = hello
check "the report goes to stderr" grep -q "Command being timed" "$SCRATCH/err"
"$CPW" -o "$SCRATCH/report.txt" -- true 2>"$SCRATCH/err"
check "-o FILE holds the report, stderr stays quiet" sh -c "grep -q 'Exit status: 0' '$SCRATCH/report.txt' && test ! -s '$SCRATCH/err'"

# --- JSON ---
"$CPW" --json -o "$SCRATCH/r.json" -- "$W/spin" 0.5
check "JSON parses with Python's json" json_get "$SCRATCH/r.json" 'd["schema"]'
check "JSON exit code 0" test "$(json_get "$SCRATCH/r.json" 'd["exit"]["code"]')" = 0
if [ -f "$CPW_SRCDIR/doc/cperfwatch.schema.json" ] && [ -f "$CPW_SRCDIR/tests/integration/validate_json.py" ]; then
	check "JSON matches doc/cperfwatch.schema.json" validate_json "$SCRATCH/r.json"
else
	not_ok "JSON matches doc/cperfwatch.schema.json" "the schema or validate_json.py is not there"
fi
"$CPW" --json -o "$SCRATCH/sig.json" -- sh -c 'kill -KILL $$'
check "JSON of a killed command: signal 9, code null" test "$(json_get "$SCRATCH/sig.json" '(d["exit"]["signal"], d["exit"]["code"])')" = "(9, None)"

# --- a two-process tree: the CPU adds up ---
# GNU time runs inside the same run, so both measure the same processes even on a busy host.
if [ -x "${GNU_TIME:-}" ]; then
	"$CPW" --json -o "$SCRATCH/tree.json" -- "$GNU_TIME" -f '%U %S' -o "$SCRATCH/gnu.txt" \
		sh -c "\"$W/spin\" 0.6 & \"$W/spin\" 0.6; wait"
	gnu=$(awk '{ print $1 + $2 }' "$SCRATCH/gnu.txt")
else
	"$CPW" --json -o "$SCRATCH/tree.json" -- sh -c "\"$W/spin\" 0.6 & \"$W/spin\" 0.6; wait"
	gnu=1.2 # what two 0.6 s spinners use on an idle machine of 2 cores or more
fi
total=$(json_get "$SCRATCH/tree.json" 'd["time"]["user_s"] + d["time"]["sys_s"]')
parts=$(json_get "$SCRATCH/tree.json" 'sum(p["user_s"] + p["sys_s"] for p in d["processes"])')
check "tree CPU is both spinners, as GNU time saw them ($total vs $gnu)" close_to "$total" "$gnu" 0.1
check "per-process CPU adds up to the tree's ($parts vs $total)" close_to "$parts" "$total" 0.15
spins=$(json_get "$SCRATCH/tree.json" 'sum(1 for p in d["processes"] if p["command"] == "spin")')
check "both spinners listed as processes ($spins)" test "$spins" = 2
# libproc2 names each process's user when it first appears.
users=$(json_get "$SCRATCH/tree.json" '",".join(sorted(set(str(p.get("user")) for p in d["processes"] if p["command"] == "spin")))')
check "the spinners' user, through libproc2, is $(id -un) ($users)" test "$users" = "$(id -un)"

# --- a double-forked orphan ---
orphan="( \"$W/spin\" 0.8 & ) ; exit 0"
"$CPW" --json -o "$SCRATCH/orphan.json" -- sh -c "$orphan"
running=$(json_get "$SCRATCH/orphan.json" 'd["descendants_running"]')
check "without --wait-all, the orphan is reported as still running ($running)" test "$running" -ge 1
"$CPW" --wait-all --json -o "$SCRATCH/orphan2.json" -- sh -c "$orphan"
cpu=$(json_get "$SCRATCH/orphan2.json" 'd["time"]["user_s"] + d["time"]["sys_s"]')
own=$(json_get "$SCRATCH/orphan2.json" 'sum(p["user_s"] + p["sys_s"] for p in d["processes"] if p["command"] == "spin")')
check "with --wait-all, the orphan's CPU is in the tree's rusage ($cpu s, the orphan $own s)" \
	awk -v c="$cpu" -v o="$own" 'BEGIN { exit !(o > 0.1 && c >= 0.85 * o) }'
sleep 1 # let the first run's orphan finish

# --- signals: SIGTERM to cperfwatch goes to the command; the report still comes ---
"$CPW" -o "$SCRATCH/term.txt" -- sleep 5 &
cpw=$!
sleep 0.5
kill -TERM "$cpw"
wait "$cpw"; rc=$?
check "SIGTERM is forwarded: the command dies of it (143)" test $rc = 143
check "and the report is written" grep -q "Command terminated by signal 15" "$SCRATCH/term.txt"
# The child looks COMMAND up in PATH while it waits at the gate (launch.c); what runs must
# be what execvp would run.
mkdir -p "$SCRATCH/p1" "$SCRATCH/p2" "$SCRATCH/p3" "$SCRATCH/p4"
printf '#!/bin/sh\necho first\n' >"$SCRATCH/p1/cpwcmd"      # not executable: skipped
printf '#!/bin/sh\necho second\n' >"$SCRATCH/p2/cpwcmd" && chmod +x "$SCRATCH/p2/cpwcmd"
printf '#!/bin/sh\necho third\n' >"$SCRATCH/p4/cpwcmd" && chmod +x "$SCRATCH/p4/cpwcmd"
mkdir "$SCRATCH/p1/cpwdir"                                    # a directory: skipped
printf 'echo noshebang\n' >"$SCRATCH/p3/cpwsh" && chmod +x "$SCRATCH/p3/cpwsh"
out=$(PATH="$SCRATCH/p1:$SCRATCH/p2:$SCRATCH/p4:/usr/bin:/bin" "$CPW" --no-cgroup -o /dev/null -- cpwcmd 2>/dev/null)
check "PATH lookup skips a file that is not executable and takes the next in order (ran: $out)" test "$out" = second
out=$(cd "$SCRATCH/p3" && PATH=":/usr/bin:/bin" "$CPW" --no-cgroup -o /dev/null -- cpwsh 2>/dev/null)
check "an empty PATH entry is the current directory, and a script without #! runs with sh ($out)" \
	test "$out" = noshebang
PATH="$SCRATCH/p1:/usr/bin:/bin" "$CPW" --no-cgroup -o /dev/null -- cpwdir 2>"$SCRATCH/dir.err"; rc=$?
check "a directory in PATH is not run: 126 or 127 as execvp says (got $rc)" test $rc = 126 -o $rc = 127

# The report reaches an unbuffered standard error in one write, not one per line (GNU time
# makes ~25; on a terminal or a pipe each costs a few microseconds).
if can_strace; then
	strace -e trace=write -o "$SCRATCH/writes" "$CPW" --no-cgroup -- true 2>/dev/null
	# (Sanitizer builds add their own lines: LeakSanitizer does not run under strace.)
	n=$(grep '^write(2,' "$SCRATCH/writes" 2>/dev/null | grep -vc '^write(2, "==[0-9]*==')
	check "the text report is one write to standard error (made $n)" test "${n:-0}" = 1
else
	skip_strace "the text report is one write to standard error"
fi

# A sample between a child's ends asks nothing of the kernel about cperfwatch's own children
# (waitid after a SIGCHLD only) or its own pid (read once): each call there was a system
# call in every sample, ~15 us each just after a wake-up on our VMs.
if can_strace; then
	strace -e trace=waitid,getpid -o "$SCRATCH/own" "$CPW" --no-cgroup -o /dev/null -- sleep 1 2>/dev/null
	# Up to the last waitid (the one that finds no child left): a sanitizer's leak check
	# calls getpid after it.
	calls=$(awk '/^(waitid|getpid)\(/ { n++ } /^waitid\(/ { upto = n } END { print upto + 0 }' "$SCRATCH/own")
	check "a watch of sleep 1 (10 samples): waitid and getpid not in every sample ($calls calls)" \
		test "${calls:-99}" -le 10
else
	skip_strace "a watch of sleep 1: waitid and getpid not in every sample"
fi

# The command's groups are removed before the report is written (the kernel's clean-up of
# them overlaps the report), and the report still comes.
if ! can_strace; then
	skip_strace "the command's cgroups are removed before the report"
else
	strace -e trace=rmdir,write -o "$SCRATCH/order" "$CPW" -- true 2>/dev/null
	rmdirs=$(grep -c '^rmdir(.*cperfwatch-[0-9]*") = 0' "$SCRATCH/order")
	if [ "$rmdirs" = 0 ]; then
		skip "the command's cgroups are removed before the report" \
			"no cgroup of the command's own here (needs root and a writable cgroup hierarchy)"
	else
		check "the command's $rmdirs cgroup(s) are removed before the report is written" \
			awk '/^rmdir\(.*cperfwatch-/ { r = NR } /^write\(2, ".*Command being timed/ { w = NR }
			     END { exit !(r && w && r < w) }' "$SCRATCH/order"
	fi
fi

# `exec cperfwatch` at the end of a script: the shell's children reaped before the exec
# are not the command's (getrusage(RUSAGE_CHILDREN) survives exec and would count them).
sh -c "\"$W/spin\" 0.4; exec \"$CPW\" --no-cgroup --json -o \"$SCRATCH/exec.json\" -- true" 2>/dev/null
cpu=$(json_get "$SCRATCH/exec.json" 'd["time"]["user_s"] + d["time"]["sys_s"]' 2>/dev/null)
check "after exec, the CPU of the shell's earlier child is not the command's ($cpu s)" \
	awk -v c="${cpu:-9}" 'BEGIN { exit !(c < 0.1) }'
done_testing
