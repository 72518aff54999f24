#!/bin/sh
# test_streams.sh: the report and COMMAND's own output (issue 29, item 3). In run mode
# COMMAND shares cperfwatch's standard streams: with -o - its stdout output comes before
# the report, and one line on stderr says so at the start (where stdout is not a terminal,
# nor the same file as stderr); the README's Pushgateway recipe (-o FILE, then push) gives
# a file promtool accepts even when COMMAND prints on stdout. A JSON or metrics report on
# stderr (no -o) follows COMMAND's own stderr: one line at the start says so where stderr
# is a terminal, and none where it is a file (it would land in the JSON).

. "$CPW_SRCDIR/tests/integration/tap.sh"

plan 7

NOTICE='cperfwatch: the report goes to standard output, which COMMAND shares: what COMMAND prints there comes first (-o FILE keeps them apart)'

# 1: -o - into a pipe: the notice, once, first on stderr; COMMAND's line before the report.
"$CPW" --format prometheus -o - sh -c 'echo batch says hello' 2>"$SCRATCH/err" | cat >"$SCRATCH/out"
label="-o - into a pipe: one line on stderr says stdout is shared; COMMAND's output first"
if [ "$(head -n 1 "$SCRATCH/err")" != "$NOTICE" ] || [ "$(grep -c 'report goes' "$SCRATCH/err")" -ne 1 ]; then
	not_ok "$label" "stderr: $(cat "$SCRATCH/err")"
elif [ "$(head -n 1 "$SCRATCH/out")" != "batch says hello" ] || ! grep -q '^# TYPE cperfwatch_wall_seconds' "$SCRATCH/out"; then
	not_ok "$label" "stdout: $(head -n 3 "$SCRATCH/out")"
else
	ok "$label"
fi

# 2: 2>&1: the notice would land in the same stream: none.
"$CPW" --format prometheus -o - true 2>&1 | cat >"$SCRATCH/both"
if grep -q 'report goes' "$SCRATCH/both" || ! head -n 1 "$SCRATCH/both" | grep -q '^# HELP'; then
	not_ok "-o - with 2>&1: no notice in the stream" "$(head -n 3 "$SCRATCH/both")"
else
	ok "-o - with 2>&1: no notice in the stream"
fi

# 3: stdout a terminal: a person sees both; no notice.
if command -v script >/dev/null 2>&1; then
	script -qec "\"$CPW\" -o - true" /dev/null >"$SCRATCH/tty" 2>&1 </dev/null
	if grep -q 'report goes' "$SCRATCH/tty" || ! grep -q 'Command being timed' "$SCRATCH/tty"; then
		not_ok "-o - on a terminal: no notice" "$(head -n 5 "$SCRATCH/tty")"
	else
		ok "-o - on a terminal: no notice"
	fi
else
	missing "-o - on a terminal: no notice" util-linux
fi

# 4: the README's recipe: -o FILE, then push. COMMAND's stdout stays apart.
"$CPW" --format prometheus -o "$SCRATCH/batch.prom" sh -c 'echo batch says hello' >"$SCRATCH/out4" 2>"$SCRATCH/err4"
label="README's Pushgateway recipe: -o batch.prom holds metrics alone, stderr quiet"
if [ "$(cat "$SCRATCH/out4")" != "batch says hello" ] || [ -s "$SCRATCH/err4" ]; then
	not_ok "$label" "stdout: $(cat "$SCRATCH/out4"); stderr: $(cat "$SCRATCH/err4")"
elif command -v promtool >/dev/null 2>&1; then
	if promtool check metrics <"$SCRATCH/batch.prom" >"$SCRATCH/promtool" 2>&1; then
		ok "$label (promtool check metrics passes)"
	else
		not_ok "$label" "promtool: $(head -n 5 "$SCRATCH/promtool")"
	fi
elif grep -qv '^#\|^cperfwatch_' "$SCRATCH/batch.prom"; then
	not_ok "$label" "a line that is no metric: $(grep -v '^#\|^cperfwatch_' "$SCRATCH/batch.prom" | head -n 2)"
else
	missing "$label (promtool)" prometheus
fi

# 5: attach mode: the target shares nothing with cperfwatch: no notice.
sleep 5 &
target=$!
"$CPW" --no-tui -d 200ms -o - --pid "$target" 2>"$SCRATCH/err5" | cat >/dev/null
kill "$target" 2>/dev/null
wait "$target" 2>/dev/null
if grep -q 'report goes' "$SCRATCH/err5"; then
	not_ok "attach mode -o - into a pipe: no notice" "$(cat "$SCRATCH/err5")"
else
	ok "attach mode -o - into a pipe: no notice"
fi

# 6: --json without -o on a terminal: said at the start, before COMMAND's stderr.
if command -v script >/dev/null 2>&1; then
	script -qec "\"$CPW\" --json sh -c 'echo warning >&2'" /dev/null >"$SCRATCH/tty6" 2>&1 </dev/null
	if head -n 1 "$SCRATCH/tty6" | grep -q 'cperfwatch: the JSON report goes to standard error when COMMAND ends, after what COMMAND writes there' &&
		grep -q '"schema"' "$SCRATCH/tty6"; then
		ok "--json to stderr on a terminal: one line says COMMAND's stderr comes first"
	else
		not_ok "--json to stderr on a terminal: one line says COMMAND's stderr comes first" "$(head -n 3 "$SCRATCH/tty6")"
	fi
else
	missing "--json to stderr on a terminal: one line says COMMAND's stderr comes first" util-linux
fi

# 7: --json without -o into a file: no line (it would be in the JSON); a silent COMMAND
# leaves a file that parses.
"$CPW" --json true 2>"$SCRATCH/r7.json"
if python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$SCRATCH/r7.json" 2>/dev/null; then
	ok "--json to stderr as a file: no line, the JSON parses"
else
	not_ok "--json to stderr as a file: no line, the JSON parses" "$(head -n 2 "$SCRATCH/r7.json")"
fi

done_testing
