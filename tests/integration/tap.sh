# tap.sh: sourced by the integration tests; a minimal TAP producer.
#
#   . "$CPW_SRCDIR/tests/integration/tap.sh"
#   plan 3
#   ok "label"                  # a pass
#   not_ok "label" "why"        # a failure, with a diagnostic
#   check "label" test -s file  # ok when the command succeeds
#   skip "label" "why"          # a skip, always with a reason
#   skip_all "label" "why"      # skip every test the plan has left, then exit
#   missing "label" "package"   # a tool the tests use is not installed: a skip, but a
#                               # failure where CI=true (contrib/bootstrap.sh installs it)
#   missing_all "label" "pkg"   # the same for every test the plan has left, then exit
#   dir=$(public_copy FILE...)  # copies for another user to run, in a 755 directory
#   dir=$(block_dir)            # a new directory on a real block device, or fails
#   done_testing                # exits 1 if anything failed
#
# Each test runs in a private scratch directory ($SCRATCH) removed on exit (remove_scratch,
# which a test's own EXIT trap must call).

: "${CPW:?run through make check (CPW is unset)}"
_tap_n=0
_tap_failed=0
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/cpw-test.XXXXXX")
# Removes the scratch directories; a test that sets its own EXIT trap calls it there.
remove_scratch() { rm -rf "$SCRATCH" "$SCRATCH-public"; }
trap remove_scratch EXIT

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
# A package the tests use is missing. On a developer's machine that is a skip that names
# the package; in CI (CI=true) it is a bug of contrib/bootstrap.sh, which installs every
# tool a test runs, so it fails. Skips stay only for what the kernel or hardware lacks.
missing() {
	if [ "${CI:-}" = true ]; then
		not_ok "$1" "$2 is not installed: contrib/bootstrap.sh must install it"
	else
		skip "$1" "$2 is not installed (apt-get install $2)"
	fi
}
missing_all() {
	while [ "$_tap_n" -lt "${_tap_plan:-0}" ]; do missing "$1 $((_tap_n + 1))" "$2"; done
	done_testing
}
check() {
	_label=$1; shift
	if "$@" >"$SCRATCH/.check.out" 2>&1; then ok "$_label"; else not_ok "$_label" "$(tail -n 20 "$SCRATCH/.check.out")"; fi
}
# Compares two numbers: within REL (fraction) of each other.
close_to() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a > b ? a : b); exit !(d <= r * m + 1e-9) }'; }
# Test tools are looked up when the test runs, not when configure ran: a build configured
# before they were installed still finds them.
GNU_TIME=
for _t in /usr/bin/time /bin/time; do [ -x "$_t" ] && { GNU_TIME=$_t; break; }; done
TMUX_BIN=$(command -v tmux 2>/dev/null)
is_root() { [ "$(id -u)" = 0 ]; }
# CPU time the whole host spent busy so far, in clock ticks (user nice system irq softirq
# steal), from the first line of /proc/stat.
host_busy_ticks() {
	read -r _c _u _n _s _i _w _q _sq _st _rest </proc/stat
	echo $((_u + _n + _s + _q + _sq + _st))
}
# outside_load REPORT.json T0 T1: the busy cores of other load during a run, from the
# host's busy ticks around it (host_busy_ticks) less the tree's own CPU, over its wall time.
outside_load() {
	/usr/bin/python3 - "$1" $(($3 - $2)) "$(getconf CLK_TCK)" <<'PYEOF'
import json, sys
try:
    t = json.load(open(sys.argv[1])).get("time") or {}
except (OSError, ValueError):
    t = {}
wall = t.get("wall_s") or 0
tree = (t.get("user_s") or 0) + (t.get("sys_s") or 0)
busy = float(sys.argv[2]) / float(sys.argv[3])
print("%.2f" % (max(0.0, busy - tree) / wall if wall > 0 else 0))
PYEOF
}
# strace is installed and may trace here (containers often forbid ptrace).
can_strace() { command -v strace >/dev/null 2>&1 && strace -f -qq -o /dev/null true 2>/dev/null; }
# Why strace cannot be used here: the package is missing (a failure in CI), or the kernel
# or a container forbids tracing (a skip). Call only where can_strace failed.
skip_strace() { # label
	if command -v strace >/dev/null 2>&1; then
		skip "$1" "strace may not trace here (ptrace is forbidden)"
	else
		missing "$1" strace
	fi
}
# Copies FILE... into a directory that every user may read and enter (mode 755) and prints
# its path: a program run as another user (nobody) must not be run from the checkout or the
# build tree, which may sit under a 0700 home such as /root. The directory is named after
# $SCRATCH, so the exit trap removes it: callers run this in $(...), a subshell, where no
# variable it set would survive. It is made new (mkdir fails on one already there) and
# must be ours.
public_copy() {
	_pub=$SCRATCH-public
	if [ ! -d "$_pub" ]; then
		mkdir -m 755 "$_pub" || return 1
	fi
	[ -O "$_pub" ] || return 1
	cp "$@" "$_pub/" && chmod -R a+rX "$_pub" && echo "$_pub"
}
# block_dir: prints a new directory on a real block device (fdatasync and O_DIRECT are
# free or refused on tmpfs), for the caller to remove; fails where there is none.
block_dir() {
	for d in "$CPW_BUILDDIR" /var/tmp "${TMPDIR:-/tmp}"; do
		if ! [ -d "$d" ] || ! [ -w "$d" ]; then continue; fi
		case $(stat -f -c %T "$d" 2>/dev/null) in
		tmpfs | ramfs | "") continue ;;
		esac
		mktemp -d "$d/cpw-io.XXXXXX" && return 0
	done
	return 1
}
done_testing() { exit "$_tap_failed"; }
# Validates a cperfwatch JSON document against doc/cperfwatch.schema.json (python3-jsonschema).
validate_json() { /usr/bin/python3 "$CPW_SRCDIR/tests/integration/validate_json.py" "$CPW_SRCDIR/doc/cperfwatch.schema.json" "$@"; }
