#!/bin/sh
# test_schema.sh: doc/cperfwatch.schema.json is a valid JSON Schema, accepts the sample
# documents under tests/fixtures/json/valid-*.json, rejects each invalid-*.json for the
# reason its name gives, and accepts what the built cperfwatch writes with --json (run
# mode on success, on a signal and with a broken budget, and attach mode).
#
# Needs python3-jsonschema; without it every case is skipped, saying so (fails, where CI=true).

. "$CPW_SRCDIR/tests/integration/tap.sh"

SCHEMA="$CPW_SRCDIR/doc/cperfwatch.schema.json"
FIX="$CPW_FIXTURES/json"

# The invalid samples and the place in the document the validator must blame: a document
# rejected for some other, accidental reason would not prove the rule works.
INVALID="invalid-class.json:/verdict/class
invalid-no-schema.json:'schema' is a required property
invalid-counter-status.json:/counters/cycles/status
invalid-counter-zero.json:/counters/cycles/value
invalid-share.json:/threads/running
invalid-budget-result.json:/budgets/0/result"

plan 15

# json_get FILE EXPR: prints EXPR evaluated on the document d (a Python expression).
json_get() {
	/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

if ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	missing_all "schema checks" python3-jsonschema
fi

# 1: the schema itself
check "the schema is a valid JSON Schema" \
	/usr/bin/python3 "$CPW_SRCDIR/tests/integration/validate_json.py" --check-schema "$SCHEMA"

# 2-3: hand-written valid documents
for f in valid-run.json valid-attach-nulls.json; do
	check "sample $f validates" validate_json "$FIX/$f"
done

# 4-9: invalid documents fail, blamed on the right place
while IFS=: read -r f blame; do
	label="sample $f is rejected at $blame"
	if validate_json "$FIX/$f" >"$SCRATCH/out" 2>&1; then
		not_ok "$label" "it was accepted"
	elif ! grep -qF -- "$blame" "$SCRATCH/out"; then
		not_ok "$label" "rejected for another reason: $(cat "$SCRATCH/out")"
	else
		ok "$label"
	fi
done <<EOF
$INVALID
EOF

# 10: a file that is not JSON at all is refused, naming the file
printf '{"schema": "cperfwatch/1",' >"$SCRATCH/truncated.json"
if validate_json "$SCRATCH/truncated.json" >"$SCRATCH/out" 2>&1; then
	not_ok "a truncated document is refused" "it was accepted"
elif grep -q 'truncated.json: not JSON' "$SCRATCH/out"; then
	ok "a truncated document is refused"
else
	not_ok "a truncated document is refused" "$(cat "$SCRATCH/out")"
fi

# 11-15: documents from the real binary
if [ ! -x "$CPW" ]; then
	for what in "run mode, stderr" "run mode, -o FILE" "a signal" "a broken budget" "attach mode"; do
		not_ok "cperfwatch --json ($what) validates" "$CPW is not built"
	done
	done_testing
fi

# Run mode writes its report on stderr: with --json that is the whole of stderr.
"$CPW" --json -- /bin/true >"$SCRATCH/true.out" 2>"$SCRATCH/true.json"
rc=$?
if [ $rc -ne 0 ]; then
	not_ok "cperfwatch --json -- /bin/true validates" "exit status $rc: $(head -n 5 "$SCRATCH/true.json")"
elif ! validate_json "$SCRATCH/true.json" >"$SCRATCH/out" 2>&1; then
	not_ok "cperfwatch --json -- /bin/true validates" "$(cat "$SCRATCH/out")"
else
	ok "cperfwatch --json -- /bin/true validates"
fi

"$CPW" --json -o "$SCRATCH/false.json" -- /bin/false 2>"$SCRATCH/err"
rc=$?
if [ $rc -ne 1 ]; then
	not_ok "cperfwatch --json -o FILE -- /bin/false validates, exit.code 1" "exit status $rc: $(head -n 5 "$SCRATCH/err")"
elif ! validate_json "$SCRATCH/false.json" >"$SCRATCH/out" 2>&1; then
	not_ok "cperfwatch --json -o FILE -- /bin/false validates, exit.code 1" "$(cat "$SCRATCH/out")"
elif [ "$(json_get "$SCRATCH/false.json" 'd["exit"]["code"]')" != 1 ]; then
	not_ok "cperfwatch --json -o FILE -- /bin/false validates, exit.code 1" "exit: $(json_get "$SCRATCH/false.json" 'd["exit"]')"
else
	ok "cperfwatch --json -o FILE -- /bin/false validates, exit.code 1"
fi

# shellcheck disable=SC2016 # $$ is for the inner shell
"$CPW" --json -o "$SCRATCH/signal.json" -- /bin/sh -c 'kill -TERM $$' 2>"$SCRATCH/err"
rc=$?
if [ $rc -ne 143 ]; then
	not_ok "a command killed by SIGTERM: document validates, exit.signal 15" "exit status $rc: $(head -n 5 "$SCRATCH/err")"
elif ! validate_json "$SCRATCH/signal.json" >"$SCRATCH/out" 2>&1; then
	not_ok "a command killed by SIGTERM: document validates, exit.signal 15" "$(cat "$SCRATCH/out")"
elif [ "$(json_get "$SCRATCH/signal.json" 'd["exit"]["signal"]')" != 15 ]; then
	not_ok "a command killed by SIGTERM: document validates, exit.signal 15" "exit: $(json_get "$SCRATCH/signal.json" 'd["exit"]')"
else
	ok "a command killed by SIGTERM: document validates, exit.signal 15"
fi

# A broken budget: exit 124 and a budgets entry saying so.
"$CPW" --json -o "$SCRATCH/budget.json" --max-wall 10ms -- /bin/sleep 0.2 2>"$SCRATCH/err"
rc=$?
label="--max-wall 10ms on sleep 0.2: exit 124, document validates, budget broken"
if [ $rc -ne 124 ]; then
	not_ok "$label" "exit status $rc: $(head -n 5 "$SCRATCH/err")"
elif ! validate_json "$SCRATCH/budget.json" >"$SCRATCH/out" 2>&1; then
	not_ok "$label" "$(cat "$SCRATCH/out")"
elif [ "$(json_get "$SCRATCH/budget.json" '[b["result"] for b in d.get("budgets", []) if b["name"] == "max-wall"]')" != "['broken']" ]; then
	not_ok "$label" "budgets: $(json_get "$SCRATCH/budget.json" 'd.get("budgets")')"
else
	ok "$label"
fi

# Attach mode, bounded by --duration, no live view.
sleep 5 &
target=$!
"$CPW" --json --no-tui -d 300ms -o "$SCRATCH/attach.json" --pid "$target" 2>"$SCRATCH/err"
rc=$?
kill "$target" 2>/dev/null
wait "$target" 2>/dev/null
label="attach mode --json -d 300ms: document validates, mode attach"
if [ $rc -ne 0 ]; then
	not_ok "$label" "exit status $rc: $(head -n 5 "$SCRATCH/err")"
elif ! validate_json "$SCRATCH/attach.json" >"$SCRATCH/out" 2>&1; then
	not_ok "$label" "$(cat "$SCRATCH/out")"
elif [ "$(json_get "$SCRATCH/attach.json" 'd["mode"]')" != attach ]; then
	not_ok "$label" "mode: $(json_get "$SCRATCH/attach.json" 'd["mode"]')"
else
	ok "$label"
fi

done_testing
