#!/bin/sh
# test_tui_phases.sh: the live view shows the phases so far, driven in tmux: a run that
# reads with O_DIRECT for 1.5 s and then computes for 2 s, watched with --tui and NO_COLOR.
# Once the command has ended (the view holds its last screen):
#   - the row under the sparklines marks two phases, 1s then 2s, ending in the sparklines'
#     last column, with about as many 1s as there were samples in the first phase;
#   - the list of phases says io-bound, then cpu-bound (or cpu-starved where other load
#     takes the CPUs);
#   - at 120x40 a phase row under each column of sparklines; at 40x12 no sparklines but
#     the list, no line wider than 40; no colours anywhere;
#   - q gives the report, whose Phases section has the same two phases;
#   - the table's title row is on the same line with one phase as with two;
#   - the advice on screen (400 columns wide, so that it is whole) is the report's: the
#     phases refine both (the cores of the cpu-bound phase, not of the whole run);
#   - v opens the verdict so far whole (100x50): its advice, wrapped in the box, is the
#     same advice.
#
# The spin lasts 4 s so that the run's own verdict is clear of a threshold: beside 1.5 s
# of reads, 2 s of spin put it at 56% CPU, mixed by the margin, and a run whose reads took
# longer was io-bound in the report while the view, from its samples, said mixed (CI's ASan
# run, tests 8-9).
# The run needs a directory on a real block device (O_DIRECT is refused on tmpfs), and is
# tried up to three times: on a busy machine a phase can come out otherwise. Every wait
# polls the screen with a timeout; the tmux server is killed at the end.

. "$CPW_SRCDIR/tests/integration/tap.sh"

plan 9

SOCK="cpw-phases-$$"
IO_DIR=
cleanup() {
	[ -n "$TMUX_BIN" ] && "$TMUX_BIN" -L "$SOCK" kill-server >/dev/null 2>&1
	[ -n "$IO_DIR" ] && rm -rf "$IO_DIR"
	remove_scratch
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

if [ -z "$TMUX_BIN" ] || ! [ -x "$TMUX_BIN" ]; then
	missing_all "phases in the live view" tmux
fi
if ! IO_DIR=$(block_dir); then
	IO_DIR=
	skip_all "phases in the live view" "no writable directory on a block device (only tmpfs)"
fi

. "$CPW_SRCDIR/tests/integration/tmux_pane.sh"

LIST='^phases: \[1\] 0\.0-[0-9.]+ s io-bound  \[2\] [0-9.]+-[0-9.]+ s (cpu-bound|cpu-starved)$'
W=$CPW_WORKLOADS
cat >"$SCRATCH/run.sh" <<EOF
env LC_ALL=C.UTF-8 NO_COLOR=1 "$CPW" --no-cgroup --tui -- sh -c "'$W/direct_read' '$IO_DIR' 64 1.5 256; '$W/spin' 4"
echo "CPW-EXIT=\$?"
exec sleep 600
EOF
for try in 1 2 3; do
	T kill-session -t run >/dev/null 2>&1
	T new-session -d -s run -x 80 -y 24 "sh $SCRATCH/run.sh"
	: >"$SCRATCH/early"
	wait_for run '^phases: \[1\] 0\.0 s- ' 10 && cp "$SCRATCH/screen" "$SCRATCH/early"
	wait_for run 'the command exited' 30 || break
	grep -Eq "$LIST" "$SCRATCH/screen" && break
done
cp "$SCRATCH/screen" "$SCRATCH/final"

# 1-2: the phase row and the list at 80x24.
ph_row=$(grep -E '^PH ' "$SCRATCH/final")
cpu_row=$(grep -E '^CPU ' "$SCRATCH/final")
if printf '%s\n' "$ph_row" | grep -Eq '^PH   +1+2+$'; then
	# Its last mark in the sparklines' last column: as wide as the CPU row without its figure.
	ph_w=$(printf '%s' "$ph_row" | LC_ALL=C.UTF-8 wc -m)
	cpu_w=$(printf '%s' "$cpu_row" | sed 's/ [^ ]*$//' | LC_ALL=C.UTF-8 wc -m)
	ones=$(printf '%s' "$ph_row" | tr -cd 1 | wc -c)
	end1=$(sed -n 's/^phases: \[1\] 0\.0-\([0-9.]*\) s.*/\1/p' "$SCRATCH/final")
	# One column per 100 ms sample: the 1s cover the first phase, give or take 3 samples.
	if [ "$ph_w" = "$cpu_w" ] && [ -n "$end1" ] &&
		awk -v n="$ones" -v e="$end1" 'BEGIN { d = n * 0.1 - e; if (d < 0) d = -d; exit !(d <= 0.3) }'; then
		ok "the phase row marks 1s then 2s under the sparklines' columns ($ones 1s, first phase ends at $end1 s)"
	else
		not_ok "the phase row marks 1s then 2s under the sparklines' columns" \
			"row $ph_w cells, CPU sparkline $cpu_w; $ones 1s, phase 1 ends at ${end1:-?} s
$(sed 's/^/  | /' "$SCRATCH/final")"
	fi
else
	not_ok "the phase row marks 1s then 2s under the sparklines' columns" "$(sed 's/^/  | /' "$SCRATCH/final")"
fi
if grep -Eq "$LIST" "$SCRATCH/final"; then
	ok "the list of phases: io-bound, then cpu-bound"
else
	not_ok "the list of phases: io-bound, then cpu-bound" "$(sed 's/^/  | /' "$SCRATCH/final")"
fi

# 3: the table does not move when the second phase appears: its title row is where it was
# while there was one phase. The sort mark after PID is a character of several bytes
# (the view runs under C.UTF-8), and grep here may run in the C locale (a fresh root entered
# with env -i has no LANG), where . is one byte: match the mark as "not a blank".
title_line() { grep -nE '^ +PID[^ ]* S ' "$1" | head -1 | cut -d: -f1; }
early_at=$(title_line "$SCRATCH/early") final_at=$(title_line "$SCRATCH/final")
if [ -n "$early_at" ] && [ "$early_at" = "$final_at" ]; then
	ok "the table stays on line $early_at from one phase to two"
else
	not_ok "the table stays where it was from one phase to two" \
		"one phase: line ${early_at:-none}, two: line ${final_at:-none}
$(sed 's/^/  | /' "$SCRATCH/early")"
fi

# 4: two columns of sparklines, a phase row under each, the same marks in both. Each column
# is ~45 samples wide here (4.5 s): where the run took longer than the first phase and
# those, the first phase has scrolled out of both (CI once: reads of 0.6 s, 5.6 s in all).
if resize run 120x40 '^CPU .* RSS ' && [ "$(grep -Ec '^PH   +(1*2+) +PH   +\1$' "$SCRATCH/screen")" = 1 ] &&
	grep -Eq "$LIST" "$SCRATCH/screen"; then
	ok "at 120x40: a phase row under each column of sparklines"
else
	not_ok "at 120x40: a phase row under each column of sparklines" "$(show)"
fi

# 5: 40x12: no sparklines, the list cut to the width, nothing wider.
if resize run 40x12 '^phases: ' && ! grep -q '^CPU ' "$SCRATCH/screen" &&
	[ "$(LC_ALL=C.UTF-8 wc -L <"$SCRATCH/screen")" -le 40 ] && grep -q ' PID' "$SCRATCH/screen" &&
	grep -Eq '^phases: (\.\.\. )?\[2\] [0-9.]+-[0-9.]+ s cpu-' "$SCRATCH/screen"; then
	ok "at 40x12: the list of phases, newest first to stay, within 40 columns"
else
	not_ok "at 40x12: the list of phases, newest first to stay, within 40 columns" "$(show)"
fi

# 6: NO_COLOR: no colour escapes on the phase lines or anywhere.
if resize run 80x24 '^PH ' && T capture-pane -p -e -t run >"$SCRATCH/escapes" && ! grep -Eq '\[([0-9;]*;)?(3[0-7]|4[0-7])(;[0-9;]*)?m' "$SCRATCH/escapes"; then
	ok "NO_COLOR: the phases drawn without colours"
else
	not_ok "NO_COLOR: the phases drawn without colours" "$(cat -v "$SCRATCH/escapes" | head -12)"
fi

# The advice line whole, for 8.
resize run 700x24 '^advice: ' && sed -n 's/^advice: //p' "$SCRATCH/screen" | sed 's/ *$//' >"$SCRATCH/live_advice"
# v: the verdict panel, its advice lines joined again, for 9; any key closes it.
: >"$SCRATCH/panel_advice"
if resize run 100x50 '^advice: '; then
	T send-keys -t run v
	if wait_for run '^ +verdict so far: ' 5; then
		cp "$SCRATCH/screen" "$SCRATCH/panel"
		sed -n '/^ *advice:   /,/(any key closes)/p' "$SCRATCH/panel" | grep -v '(any key closes)' |
			sed 's/^ *//; s/ *$//' | tr '\n' ' ' | sed 's/^advice: *//; s/ *$//' >"$SCRATCH/panel_advice"
	fi
	T send-keys -t run x
	wait_gone run '^ +verdict so far: ' 5
fi

# 7: q: the report's Phases section says the same.
T send-keys -t run q
if wait_for run '^CPW-EXIT=0' 10 history && grep -q '^Phases: 2 ' "$SCRATCH/screen" &&
	grep -Eq '^[[:space:]]+\[1\] 0\.0-[0-9.]+ s +io-bound ' "$SCRATCH/screen"; then
	ok "q: the report has the same two phases"
else
	not_ok "q: the report has the same two phases" "$(show)"
fi

# 8: the advice the view showed last is the report's: the same words, and figures within
# 0.15 of each other (the view's come from the samples, the report's from wait4 at the
# end: 0.94 and 0.95 cores may round apart; the whole run's 0.6 against the phase's 0.9
# may not); a percentage (the Hotspots' share of the CPU in a function, which the view
# names from the samples so far) within 10 points.
T capture-pane -p -J -t run -S -400 | sed -n 's/^[[:space:]]*Advice: //p' | sed 's/ *$//' >"$SCRATCH/report_advice"
# The Hotspots' function is named with its file, and where DWARF has it its line, which
# is read only when the watch ends (source/elf/dwarf_lines.c): "main (spin)" in the view,
# "main (spin.c:8)" in the report. The file is left out of the comparison.
unfile() { sed -E 's/ in ([^ ]+) \([^)]*\):/ in \1 (FILE):/g' "$1"; }
numbers() { unfile "$1" | grep -Eo '[0-9]+(\.[0-9]+)?%?' | tr '\n' ' '; }
words() { unfile "$1" | sed -E 's/[0-9]+(\.[0-9]+)?/N/g'; }
same_advice() {
	[ -s "$SCRATCH/live_advice" ] && [ "$(words "$SCRATCH/live_advice")" = "$(words "$SCRATCH/report_advice")" ] &&
		awk -v a="$(numbers "$SCRATCH/live_advice")" -v b="$(numbers "$SCRATCH/report_advice")" 'BEGIN {
			n = split(a, x, " "); m = split(b, y, " "); if (n != m) exit 1
			for (i = 1; i <= n; i++) {
				tol = (x[i] ~ /%$/ && y[i] ~ /%$/) ? 10 : 0.15
				d = (x[i] + 0) - (y[i] + 0); if (d > tol || d < -tol) exit 1 } }'
}
if same_advice; then
	ok "the live view's last advice is the report's"
else
	not_ok "the live view's last advice is the report's" \
		"view:   $(cat "$SCRATCH/live_advice")
report: $(cat "$SCRATCH/report_advice")"
fi

# 9: v: the panel's advice, wrapped over several lines, is the report's advice.
cp "$SCRATCH/panel_advice" "$SCRATCH/live_advice"
if same_advice; then
	ok "v: the verdict panel holds the whole advice, wrapped"
else
	not_ok "v: the verdict panel holds the whole advice, wrapped" \
		"panel:  $(cat "$SCRATCH/panel_advice")
report: $(cat "$SCRATCH/report_advice")
$(sed 's/^/  | /' "$SCRATCH/panel" 2>/dev/null)"
fi

done_testing
