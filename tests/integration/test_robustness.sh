#!/bin/sh
# test_robustness.sh: every bad input gets exactly one line on stderr and exit status 125,
# with no crash, nothing on stdout and the command never started: unknown options, a
# an empty command, bad values for every option (negative, zero, huge, not a
# number, a bad unit), a pid that does not exist, one not ours, an unwritable -o path, a
# full disk (/dev/full), a broken pipe and a closed standard stream.
. "$CPW_SRCDIR/tests/integration/tap.sh"

AS=''                      # a prefix to run cperfwatch as another user
BIN=$CPW
M="$SCRATCH/ran"            # created by the command: must never exist after misuse
HUGE=$(printf '9%.0s' $(seq 400))  # overflows a double
NOPID=4194303
while [ -e "/proc/$NOPID" ]; do NOPID=$((NOPID - 1)); done

# bad LABEL ARG... : exit 125, one line starting "cperfwatch: ", stdout empty, no command.
bad() {
	_label=$1; shift
	rm -f "$M"
	# shellcheck disable=SC2086 # AS is a command prefix with arguments, or empty
	$AS "$BIN" "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
	_rc=$?
	_lines=$(wc -l <"$SCRATCH/err")
	if [ "$_rc" = 125 ] && [ "$_lines" = 1 ] && grep -q '^cperfwatch: ' "$SCRATCH/err" &&
		[ ! -s "$SCRATCH/out" ] && [ ! -e "$M" ]; then
		ok "$_label: $(cut -c1-100 "$SCRATCH/err")"
	else
		not_ok "$_label" "exit $_rc, $_lines stderr line(s), stdout $(wc -c <"$SCRATCH/out") bytes, command ran: $([ -e "$M" ] && echo yes || echo no)
$(head -n 5 "$SCRATCH/err")"
	fi
}

sleep 30 &
SLEEPER=$!
trap 'kill $SLEEPER 2>/dev/null; remove_scratch' EXIT

plan 92

# --- the command line ---
bad "unknown long option" --bogus -- touch "$M"
bad "unknown short option" -x -- touch "$M"
bad "unknown option after valid ones" --json --frobnicate -- touch "$M"
# '--' is optional (as for GNU time): the first word that is no option starts the command.
rm -f "$M"
"$CPW" -o /dev/null touch "$M" 2>"$SCRATCH/nodash.err"
check "no '--': the command runs, as with time" test -e "$M" -a ! -s "$SCRATCH/nodash.err"
rm -f "$M"
bad "no arguments at all"
bad "'--' and no command" --
bad "empty command name" -- ''
bad "--pid together with a command" --pid "$SLEEPER" -- touch "$M"
bad "--duration in run mode" -d 1 -- touch "$M"
bad "--wait-all in attach mode" --wait-all --pid "$SLEEPER"
bad "--list-events with a command" --list-events -- touch "$M"
bad "option value missing at the end (-i)" -i
bad "option value missing at the end (--format)" --format
bad "-o with an empty name" -o '' -- touch "$M"
bad "-e with an empty list" -e '' -- touch "$M"

# --- numbers and units, option by option ---
for v in -1 0 "$HUGE" abc '' 5ms 10xs 2h 1e3 0x10 inf nan 1.2.3 ' 1'; do
	bad "-i '$(echo "$v" | cut -c1-12)'" -i "$v" -- touch "$M"
done
for v in -1 0 "$HUGE" 99999999999 abc '' 3parsecs; do
	bad "-d '$(echo "$v" | cut -c1-12)'" -d "$v" --pid "$SLEEPER"
done
for v in -1 0 "$HUGE" 99999999999 abc '' 12x +5 0x10; do
	bad "--pid '$(echo "$v" | cut -c1-12)'" --pid "$v"
done
for opt in --max-wall --max-cpu; do
	for v in -1 0 "$HUGE" abc '' 5parsecs; do
		bad "$opt '$(echo "$v" | cut -c1-12)'" "$opt" "$v" -- touch "$M"
	done
done
for v in -1 0 "$HUGE" 99999999T abc '' 5X 1e9; do
	bad "--max-rss '$(echo "$v" | cut -c1-12)'" --max-rss "$v" -- touch "$M"
done
for v in '' bogus ',' 'cpu-bound,,' ',io-bound' 'cpu-bound,bogus' CPU-BOUND; do
	bad "--fail-on '$v'" --fail-on "$v" -- touch "$M"
done
for v in xml '' JSON; do
	bad "--format '$v'" --format "$v" -- touch "$M"
done

# --- processes that cannot be watched ---
bad "--pid of a process that does not exist ($NOPID)" --pid "$NOPID"

if is_root && command -v setpriv >/dev/null 2>&1; then
	# Another user's process: stat and status are world-readable, io is not. The watch
	# works; what cannot be read is N/A with the reason, never 0.
	pub=$(public_copy "$CPW")
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$pub/cperfwatch" --json -i 50ms -d 0.5 \
		--pid "$SLEEPER" >"$pub/notours.json" 2>"$SCRATCH/err"
	rc=$?
	check "attach to another user's process: exit 0 ($rc), nothing on stderr" \
		sh -c "test $rc = 0 && test ! -s '$SCRATCH/err'"
	check "its unreadable IO bytes are null, not 0, with the reason in notes" /usr/bin/python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["io"]["read_bytes"] is None and d["io"]["write_bytes"] is None, d["io"]
p = [p for p in d["processes"] if p["pid"] == int(sys.argv[2])]
assert p and p[0]["read_bytes"] is None, p
notes = " ".join(d["notes"])
assert re.search(r"\bio\b|I/O|IO ", notes, re.I) and re.search(r"permi|another user|not ours|EACCES", notes, re.I), notes
' "$pub/notours.json" "$SLEEPER"
elif is_root; then
	missing "attach to another user's process" util-linux
	missing "its unreadable IO bytes are null with the reason" util-linux
else
	skip "attach to another user's process" "needs root to run as nobody"
	skip "its unreadable IO bytes are null with the reason" "needs root to run as nobody"
fi

# --- where the report goes ---
bad "-o in a directory that does not exist" -o "$SCRATCH/no/such/dir/report" -- touch "$M"
bad "-o naming a directory" -o "$SCRATCH" -- touch "$M"
echo precious >"$SCRATCH/readonly"
chmod 444 "$SCRATCH/readonly"
if is_root; then
	if command -v setpriv >/dev/null 2>&1; then
		chmod 711 "$SCRATCH"
		AS="setpriv --reuid=nobody --regid=nogroup --clear-groups" BIN="$(public_copy "$CPW")/cperfwatch"
		bad "-o a read-only file (as nobody)" -o "$SCRATCH/readonly" -- /bin/true
		AS='' BIN=$CPW
	else
		missing "-o a read-only file (as nobody: root writes anyway)" util-linux
	fi
else
	bad "-o a read-only file" -o "$SCRATCH/readonly" -- touch "$M"
fi
check "the read-only file is untouched" grep -qx precious "$SCRATCH/readonly"

# A full disk: the report cannot be written; the failure is said and the status is 125.
full() {
	_label=$1; shift
	"$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
	_rc=$?
	if [ "$_rc" = 125 ] && [ "$(wc -l <"$SCRATCH/err")" = 1 ] &&
		grep -q '/dev/full' "$SCRATCH/err" && grep -qi 'space\|error' "$SCRATCH/err"; then
		ok "$_label: $(cat "$SCRATCH/err")"
	else
		not_ok "$_label" "exit $_rc; stderr: $(head -n 3 "$SCRATCH/err")"
	fi
}
full "-o /dev/full, run mode, text" "$CPW" -o /dev/full -- true
full "-o /dev/full, run mode, JSON" "$CPW" --json -o /dev/full -- true
full "-o /dev/full, run mode, the command's failure does not hide it" "$CPW" -o /dev/full -- sh -c 'exit 3'
full "-o /dev/full, attach mode" "$CPW" --json -d 0.3 -o /dev/full --pid "$SLEEPER"

# A broken pipe: the reader is gone before the report is written.
{ "$CPW" --json -- sleep 0.3 2>&1 >/dev/null; echo $? >"$SCRATCH/rc"; } | true
rc=$(cat "$SCRATCH/rc")
check "run mode, report into a broken pipe: status 125, no crash ($rc)" test "$rc" = 125
{ "$CPW" --json -i 50ms -d 0.3 --pid "$SLEEPER" 2>"$SCRATCH/err"; echo $? >"$SCRATCH/rc"; } | true
rc=$(cat "$SCRATCH/rc")
check "attach mode, report into a broken pipe: status 125 ($rc), one line" \
	sh -c "test $rc = 125 && test \$(wc -l <'$SCRATCH/err') = 1"

# A closed standard stream: the report must not land in whatever file takes its number.
"$CPW" --json -i 50ms -d 0.3 --pid "$SLEEPER" >&- 2>"$SCRATCH/err"
rc=$?
check "attach mode with stdout closed: status 125 ($rc), one line on stderr" \
	sh -c "test $rc = 125 && test \$(wc -l <'$SCRATCH/err') = 1"
"$CPW" --json -- true 2>&-
rc=$?
check "run mode with stderr closed: status 125 ($rc), not 0" test "$rc" = 125

# The command's own failures keep their documented codes.
"$CPW" -- "$SCRATCH/does-not-exist" 2>"$SCRATCH/err"
rc=$?
check "a command that does not exist: 127 ($rc), one line" sh -c "test $rc = 127 && test \$(wc -l <'$SCRATCH/err') = 1"
printf 'not a program\n' >"$SCRATCH/noexec"
chmod 644 "$SCRATCH/noexec"
"$CPW" -- "$SCRATCH/noexec" 2>"$SCRATCH/err"
rc=$?
check "a command that cannot be run: 126 ($rc), one line" sh -c "test $rc = 126 && test \$(wc -l <'$SCRATCH/err') = 1"

done_testing
