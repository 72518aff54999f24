#!/bin/sh
# test_tui_hot.sh: f in the live view, the top functions so far, driven in tmux:
#   - attached (--pid) to a program that spends its time in one function (hot_spin_fn),
#     f opens a panel that names it with its self% (most of the samples), its file and its
#     process (pid), under a line of the samples and their rate and one of the kinds of
#     code; f again closes it, and so does Esc;
#   - at 40x12 the panel still names the function and its share, within 40 columns;
#   - in the C locale (no UTF-8) the panel is ASCII only;
#   - run mode with a 3 s interval: before the sampler arms (0.5 s in, at a sample) the
#     panel says it is not armed yet; after, it names the function;
#   - --no-hotspots: the panel says why there is nothing, in one line;
#   - the help lists f.
# Where this machine cannot sample (perf_event_paranoid, seccomp), the panel must say why
# and the tests that need samples are skipped. Every wait polls the screen with a timeout.

. "$CPW_SRCDIR/tests/integration/tap.sh"

plan 9

SOCK="cpw-hot-$$"
cleanup() {
	[ -n "$TMUX_BIN" ] && "$TMUX_BIN" -L "$SOCK" kill-server >/dev/null 2>&1
	[ -n "${HOT_PID:-}" ] && kill "$HOT_PID" 2>/dev/null
	remove_scratch
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

if [ -z "$TMUX_BIN" ] || ! [ -x "$TMUX_BIN" ]; then
	missing_all "top functions in the live view" tmux
fi
cat >"$SCRATCH/hot.c" <<'C'
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
__attribute__((noinline)) void hot_spin_fn(unsigned long n)
{ unsigned long x = sink; for (unsigned long i = 0; i < n; i++) x = x * 6364136223846793005ul + i; sink = x; }
int main(int argc, char **argv)
{ double end = now() + (argc > 1 ? atof(argv[1]) : 2); while (now() < end) hot_spin_fn(1000000); return 0; }
C
if ! cc -O2 -o "$SCRATCH/hot" "$SCRATCH/hot.c"; then
	skip_all "top functions in the live view" "no C compiler"
fi

. "$CPW_SRCDIR/tests/integration/tmux_pane.sh"

# The panel's row of the hot function: its self% (a figure), total%, its name.
ROW='^ +[0-9]+\.[0-9] +[0-9]+\.[0-9] +hot_spin_fn'
# The hot function's self%, from the current screen.
self_pct() { grep -E "$ROW" "$SCRATCH/screen" | head -1 | awk '{ print $1 }'; }
# open_view SESSION LOCALE HEADER ARGS...: cperfwatch ARGS at 80x24 in a new session, f pressed
# once its header (ERE) is drawn.
open_view() {
	_s=$1 _l=$2 _h=$3
	shift 3
	T new-session -d -s "$_s" -x 80 -y 24 "env LC_ALL=$_l '$CPW' $*; exec sleep 600"
	wait_for "$_s" "$_h" 10
	T send-keys -t "$_s" f
}
# expect LABEL COMMAND...: ok when COMMAND succeeds, else not ok with the screen.
expect() {
	_label=$1
	shift
	if "$@"; then ok "$_label"; else not_ok "$_label" "$(show)"; fi
}
# sampled_expect LABEL COMMAND...: expect, skipped where this machine cannot sample.
sampled_expect() {
	if [ -z "$sampled" ]; then skip "$1" "this machine cannot sample"; else expect "$@"; fi
}
ascii_screen() { ! LC_ALL=C grep -q '[^ -~]' "$SCRATCH/screen"; }

"$SCRATCH/hot" 120 &
HOT_PID=$!
# 1-2: f opens the panel; it names the function once it has samples.
open_view att C.UTF-8 "^cperfwatch pid $HOT_PID " --tui --pid "$HOT_PID"
sampled=yes
if wait_for att 'top functions( so far)?:' 10 && grep -q 'top functions: not sampled: ' "$SCRATCH/screen"; then
	sampled=
	why=$(grep -o 'top functions: not sampled: .*' "$SCRATCH/screen" | sed 's/ *$//')
	ok "f: the panel says why there are no functions: ${why#top functions: }"
	skip "the panel names the hot function" "this machine cannot sample: ${why#top functions: not sampled: }"
elif wait_for att "$ROW" 10; then
	cp "$SCRATCH/screen" "$SCRATCH/panel"
	ok "f: the panel names the hot function"
	p=$(self_pct)
	if grep -Eq '^ +top functions so far: [0-9]+ cpu-clock samples at [0-9]+ Hz, from [0-9.]+ s' "$SCRATCH/panel" &&
		grep -Eq '^ +by kind of code: native [0-9]+%' "$SCRATCH/panel" &&
		grep -Eq '^ +self% total%  function +file +process' "$SCRATCH/panel" &&
		grep -Eq "$ROW +hot +hot \\($HOT_PID\\)" "$SCRATCH/panel" &&
		awk -v p="$p" 'BEGIN { exit !(p >= 50) }'; then
		ok "its self% ($p), file and process (pid), under the samples, their rate and the kinds of code"
	else
		not_ok "its self%, file and process (pid), under the samples, their rate and the kinds of code" \
			"$(sed 's/^/  | /' "$SCRATCH/panel")"
	fi
else
	not_ok "f: the panel names the hot function" "$(show)"
	skip "its self%, file and process" "no panel"
fi

# 3: f again closes it, Esc too; the table is back.
T send-keys -t att f
expect "f again closes the panel, and so does Esc" eval "wait_gone att 'top functions' 5 &&
	grep -q ' PID' '$SCRATCH/screen' && T send-keys -t att f && wait_for att 'top functions' 5 &&
	T send-keys -t att Escape && wait_gone att 'top functions' 5"

# 4: 40x12: still the function and its share, nothing wider than 40 columns.
T send-keys -t att f
sampled_expect "at 40x12: the function and its share within 40 columns" \
	eval 'resize att 40x12 "$ROW" && [ "$(LC_ALL=C.UTF-8 wc -L <"$SCRATCH/screen")" -le 40 ]'

# 5: the help lists f.
resize att 80x24 'f or Esc closes'
T send-keys -t att h
expect "the help lists f" wait_for att '^ +f +the top functions so far' 5
T send-keys -t att q

# 6: the C locale: the panel (and all of the screen) in ASCII.
open_view c C "^cperfwatch pid $HOT_PID " --tui --pid "$HOT_PID"
sampled_expect "the C locale: the panel in ASCII" eval 'wait_for c "$ROW" 10 && ascii_screen'
T send-keys -t c q

# 7-8: run mode, a sample every 3 s: not armed yet at first; the function after.
open_view run C.UTF-8 '^cperfwatch ' --no-cgroup --tui -i 3s -- "$SCRATCH/hot" 30
expect "run mode: before the sampler arms, the panel says so" \
	wait_for run '^ +top functions: sampling not armed yet \(it starts 0\.5 s into the run\)' 5
sampled_expect "run mode: the function once armed" wait_for run "$ROW" 15
T kill-session -t run

# 9: --no-hotspots: why, in one line.
open_view off C.UTF-8 '^cperfwatch ' --no-cgroup --tui --no-hotspots -- "$SCRATCH/hot" 30
expect "--no-hotspots: the panel says why in one line" eval \
	'wait_for off "^ +top functions: not sampled \(--no-hotspots\) *\$" 5 && [ "$(grep -c "top functions" "$SCRATCH/screen")" = 1 ]'
T kill-session -t off

done_testing
