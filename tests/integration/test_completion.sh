#!/bin/sh
# test_completion.sh: contrib/bash-completion/cperfwatch, sourced into a clean bash and
# called the way bash calls it (COMP_WORDS, COMP_CWORD, then _cperfwatch), completes
# options, verdict classes after --fail-on (also inside a comma list and after '='), event
# names from --list-events, pids, output files and commands after '--'; its options are the
# ones --help lists, and the event names it offers are accepted by the real binary.

. "$CPW_SRCDIR/tests/integration/tap.sh"

COMPLETION="$CPW_SRCDIR/contrib/bash-completion/cperfwatch"
NTESTS=14

plan $NTESTS

command -v bash >/dev/null 2>&1 || missing_all "bash completion" bash

# complete WORD...: what the completion offers for the last WORD, sorted, one per line.
# The first WORD is the program as typed (cperfwatch, or a path to one).
complete_words() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	bash --norc --noprofile -c '
		. "$1" || exit 3
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_cperfwatch "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		if ((${#COMPREPLY[@]})); then printf "%s\n" "${COMPREPLY[@]}"; fi' \
		_ "$COMPLETION" "$@" 2>"$SCRATCH/complete.err" | LC_ALL=C sort
}

# expect LABEL EXPECTED WORD...: the completions are exactly EXPECTED (space-separated).
expect() {
	_label=$1 _want=$(printf '%s\n' "$2" | tr ' ' '\n' | LC_ALL=C sort)
	shift 2
	_got=$(complete_words "$@")
	if [ "$_got" = "$_want" ]; then
		ok "$_label"
	else
		not_ok "$_label" "words: $*
wanted: $(printf '%s' "$_want" | tr '\n' ' ')
got: $(printf '%s' "$_got" | tr '\n' ' ') $(cat "$SCRATCH/complete.err")"
	fi
}

# expect_has LABEL WORD-WANTED WORD...: WORD-WANTED is among the completions.
expect_has() {
	_label=$1 _want=$2
	shift 2
	if complete_words "$@" | grep -qxF -- "$_want"; then
		ok "$_label"
	else
		not_ok "$_label" "words: $*
wanted $_want among: $(complete_words "$@" | head -n 20 | tr '\n' ' ') $(cat "$SCRATCH/complete.err")"
	fi
}

# 1
if bash --norc --noprofile -c '. "$1" && complete -p cperfwatch' _ "$COMPLETION" >"$SCRATCH/out" 2>&1 &&
	grep -q -- '-F _cperfwatch' "$SCRATCH/out"; then
	ok "the file sources cleanly and registers _cperfwatch"
else
	not_ok "the file sources cleanly and registers _cperfwatch" "$(cat "$SCRATCH/out")"
fi

# 2-6: options and verdict classes
expect "--fa completes to --fail-on" "--fail-on" cperfwatch --fa
expect "--fail-on cpu offers the two cpu classes" "cpu-bound cpu-starved" cperfwatch --fail-on cpu
expect "a comma list keeps its head" "thrashing,io-bound" cperfwatch --fail-on thrashing,io
expect "--fail-on=mem, split at '=' by bash" "memory-bound" cperfwatch --fail-on = mem
expect "--format=js, not split" "--format=json" cperfwatch --format=js

# 7-8: events from --list-events (a stand-in lister in the real output's shape)
cat >"$SCRATCH/fakecpw" <<'EOF'
#!/bin/sh
[ "$1" = --list-events ] || exit 125
cat <<'LIST'
# hardware PMU: none visible (virtual machine?): only software events will count; the default set's hardware events are reported <not supported>
# default set: task-clock,page-faults,major-faults,cycles
perf: perf_events generic PMU (2 events)
  perf::CYCLES
  perf::PERF_COUNT_HW_CACHE_L1D
  perf::PERF_COUNT_HW_CACHE_L1D:READ
LIST
EOF
chmod +x "$SCRATCH/fakecpw"
expect "-e perf::PERF offers the PMU's events and umasks" \
	"perf::PERF_COUNT_HW_CACHE_L1D perf::PERF_COUNT_HW_CACHE_L1D:READ" "$SCRATCH/fakecpw" -e perf::PERF
expect "-e task-clock,pa completes from the default set" "task-clock,page-faults" \
	"$SCRATCH/fakecpw" -e task-clock,pa

# 9: pids
sleep 30 &
sleeper=$!
expect_has "--pid offers a running pid" "$sleeper" cperfwatch --pid "$sleeper"
kill "$sleeper" 2>/dev/null
wait "$sleeper" 2>/dev/null

# 10-12: files and commands
: >"$SCRATCH/report.json"
expect "-o completes a file name" "$SCRATCH/report.json" cperfwatch -o "$SCRATCH/rep"
expect_has "the word after -- is a command" "echo" cperfwatch -j -- ech
expect_has "later words after -- are the command's (files here)" "$SCRATCH/report.json" \
	cperfwatch -- ls "$SCRATCH/rep"

# 13-14: against the real binary
if [ ! -x "$CPW" ]; then
	not_ok "the options offered are --help's" "$CPW is not built"
	not_ok "event names offered are accepted by cperfwatch -e" "$CPW is not built"
	done_testing
fi

"$CPW" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | LC_ALL=C sort -u >"$SCRATCH/help.long"
complete_words "$CPW" --  | grep -v -- '^--$' | LC_ALL=C sort -u >"$SCRATCH/offered.long"
if [ -s "$SCRATCH/help.long" ] && cmp -s "$SCRATCH/help.long" "$SCRATCH/offered.long"; then
	ok "the options offered are --help's"
else
	not_ok "the options offered are --help's" "$(diff "$SCRATCH/help.long" "$SCRATCH/offered.long")"
fi

# Two names from the default set and the first PMU-qualified one: each must be a name that
# cperfwatch -e accepts (an unknown name exits 125; one that cannot count here is fine).
complete_words "$CPW" -e "" >"$SCRATCH/events"
{ head -n 2 "$SCRATCH/events"; grep -m 1 '::' "$SCRATCH/events"; } >"$SCRATCH/picked"
bad=""
while read -r ev; do
	"$CPW" -e "$ev" -o "$SCRATCH/ev.txt" -- /bin/true >/dev/null 2>"$SCRATCH/ev.err" ||
		bad="$bad $ev ($(head -n 1 "$SCRATCH/ev.err"))"
done <"$SCRATCH/picked"
if [ ! -s "$SCRATCH/picked" ]; then
	not_ok "event names offered are accepted by cperfwatch -e" "no event offered; --list-events: $("$CPW" --list-events 2>&1 | head -n 5)"
elif [ -n "$bad" ]; then
	not_ok "event names offered are accepted by cperfwatch -e" "refused:$bad"
else
	ok "event names offered are accepted by cperfwatch -e ($(tr '\n' ' ' <"$SCRATCH/picked"))"
fi

done_testing
