# tap.sh: sourced by the integration tests; a minimal TAP producer.
#
#   . "$CPW_SRCDIR/tests/integration/tap.sh"
#   plan 3
#   ok "label"                  # a pass
#   not_ok "label" "why"        # a failure, with a diagnostic
#   check "label" test -s file  # ok when the command succeeds
#   skip "label" "why"          # a skip, always with a reason
#   skip_all "label" "why"      # skip every test the plan has left, then exit
#   done_testing                # exits 1 if anything failed
#
# Each test runs in a private scratch directory ($SCRATCH) removed on exit.

: "${CPW:?run through make check (CPW is unset)}"
_tap_n=0
_tap_failed=0
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/cpw-test.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

plan() { _tap_plan=$1; echo "1..$1"; }
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1"; }
not_ok() {
	_tap_n=$((_tap_n + 1)); _tap_failed=1
	echo "not ok $_tap_n - $1"
	[ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/# /'
	return 0
}
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"; }
# Each remaining test is numbered in its label, so the counts stay those of a full run.
skip_all() {
	while [ "$_tap_n" -lt "${_tap_plan:-0}" ]; do skip "$1 $((_tap_n + 1))" "$2"; done
	done_testing
}
check() {
	_label=$1; shift
	if "$@" >"$SCRATCH/.check.out" 2>&1; then ok "$_label"; else not_ok "$_label" "$(tail -n 20 "$SCRATCH/.check.out")"; fi
}
# Compares two numbers: within REL (fraction) of each other.
close_to() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a > b ? a : b); exit !(d <= r * m + 1e-9) }'; }
is_root() { [ "$(id -u)" = 0 ]; }
# strace is installed and may trace here (containers often forbid ptrace).
can_strace() { command -v strace >/dev/null 2>&1 && strace -f -qq -o /dev/null true 2>/dev/null; }
done_testing() { exit "$_tap_failed"; }
# Validates a cperfwatch JSON document against doc/cperfwatch.schema.json (python3-jsonschema).
validate_json() { python3 "$CPW_SRCDIR/tests/integration/validate_json.py" "$CPW_SRCDIR/doc/cperfwatch.schema.json" "$@"; }
