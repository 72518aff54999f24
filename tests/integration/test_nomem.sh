#!/bin/sh
# test_nomem.sh: memory running out while the JSON report is built (ulimit -v) ends in one
# line on stderr and a documented status, never in json-c's assertion (134) or a crash
# (139), and the command's own status is never lost: 7 where the report was written, else
# 125 with the command's status in the line.
#
# The window where the command runs but the report cannot be built lies between the limit
# the whole run needs and the one the command's start needs (3.8-12.8 MB on Debian 12 amd64
# today; it was 100 KB wide once), and where it lies depends on the build. The test finds
# it: it steps down from a limit where everything works, coarsely until the report fails,
# then through the window to where the command no longer even starts: 4 KB at a time at
# both edges, 64 KB across the middle. Bounded in time.
. "$CPW_SRCDIR/tests/integration/tap.sh"

PY=/usr/bin/python3
plan 7

if ldd "$CPW" 2>/dev/null | grep -q 'libasan\|libtsan'; then
	skip_all "ulimit -v" "a sanitizer build reserves terabytes of address space"
fi
[ -x "$PY" ] || missing_all "ulimit -v" python3

cd "$SCRATCH" || exit 1
DEADLINE=$(($(date +%s) + 90))

# One run under a limit of $1 KB: sets rc, ran (the command started: yes/no) and lines
# (what cperfwatch said on stderr), and logs it.
run_at() {
	rm -f r.json ran
	(ulimit -v "$1" && exec "$CPW" --json -o r.json -- sh -c ': >ran; exit 7') >out 2>err
	rc=$?
	if [ -e ran ]; then ran=yes; else ran=no; fi
	lines=$(wc -l <err)
	echo "$1 KB: exit $rc, command ran: $ran, $(head -n 1 err)" >>sweep.log
}

# A limit where it all works, from 16 MB up.
top=16384
while run_at $top; [ "$rc" != 7 ] && [ $top -lt 1048576 ]; do top=$((top * 2)); done
if [ "$rc" != 7 ]; then
	skip_all "ulimit -v" "no limit up to 1 GB where the run works: $(head -n 1 err)"
fi
ok "the run works under ulimit -v $top KB"

# Coarse steps down to the first limit where the report is not written.
lim=$top
while [ "$rc" = 7 ] && [ $lim -gt 1024 ] && [ "$(date +%s)" -lt "$DEADLINE" ]; do
	good=$lim
	lim=$((lim - 64))
	run_at $lim
done
: >verdicts
# One fine step at $1 KB: a line of verdicts.
judge_at() {
	run_at "$1"
	temps=$(ls -A | grep -c '^\.r\.json\.')
	report=bad
	if [ "$rc" = 7 ] && "$PY" -c '
import json, sys
d = json.load(open("r.json"))
sys.exit(0 if d["exit"]["code"] == 7 else 1)' 2>/dev/null; then
		report=good
	fi
	echo "$1 $rc $ran $lines $temps $report" >>verdicts
}
# The window's two edges get 4 KB steps, where an allocation of the report or of the
# command's start fails first; the middle of the window (several MB, as the binary and its
# libraries grew) gets 64 KB ones: each limit there fails the same way, and 4 KB steps
# across it all took the whole 90 s.
lim=$good
while [ $lim -gt $((good - 80)) ] && [ $lim -gt 1024 ] && [ "$(date +%s)" -lt "$DEADLINE" ]; do
	judge_at $lim
	[ "$ran" = no ] && break
	lim=$((lim - 4))
done
while [ "$ran" = yes ] && [ $lim -gt 1024 ] && [ "$(date +%s)" -lt "$DEADLINE" ]; do
	last_ran=$lim
	lim=$((lim - 64))
	judge_at $lim
done
if [ "$ran" = no ]; then
	lim=$((last_ran - 4))
	while [ $lim -gt $((last_ran - 64)) ] && [ "$(date +%s)" -lt "$DEADLINE" ]; do
		judge_at $lim
		[ "$ran" = no ] && break
		lim=$((lim - 4))
	done
fi

# verdicts: LIMIT STATUS RAN LINES TEMPS REPORT, one line per fine step.
check "no run ended on a signal (134: json-c's assertion, 139: a crash)" \
	sh -c "! awk '\$2 >= 128' verdicts | grep . || { cat sweep.log; false; }"
# The last step, where the command did not start, may end in the command's own failure to
# load under the limit (the dynamic loader's 127, or 126): that status is the command's.
check "each run exited 7 or 125 (with one line), or the command could not load" \
	sh -c "! awk '!(\$2 == 7 || (\$2 == 125 \&\& \$4 == 1) || (\$3 == \"no\" \&\& (\$2 == 126 || \$2 == 127)))' verdicts | grep . || { cat sweep.log; false; }"
check "each 7 left a whole report, the command's exit code in it" \
	sh -c "! awk '\$2 == 7 && \$6 != \"good\"' verdicts | grep ."
check "no temporary file was left behind" sh -c "! awk '\$5 != 0' verdicts | grep ."
failed_after=$(awk '$2 == 125 && $3 == "yes"' verdicts | wc -l)
if [ "$failed_after" -gt 0 ]; then
	check "where the report failed after the command ran, the line gives its status 7" \
		sh -c "! grep 'exit 125, command ran: yes' sweep.log | grep -v 'exited with status 7'"
	ok "the window was found: $failed_after limit(s) where the command ran and the report failed ($(awk '$2 == 125 && $3 == "yes" {print $1}' verdicts | sed -n '1p;$p' | tr '\n' ' ')KB)"
else
	skip "the failure line gives the command's status" "no limit hit the window on this build"
	skip "the window was found" "no limit between $good KB and $lim KB let the command run and failed the report"
fi

done_testing
