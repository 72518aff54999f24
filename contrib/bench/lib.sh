# contrib/bench/lib.sh: what the benchmark scripts share (sourced, not run): finding the
# build, compiling the helper programs, starting and ending process trees, medians, and
# the summary table. POSIX sh; awk does the arithmetic.
#
# Every script takes the build directory as its first argument (where `make` built
# cperfwatch) and accepts --quick (fewer rounds) and --full (the long runs the issue asks
# for). BENCH_SUMMARY, when set, names a file that collects one summary row per target.

bench_usage() {
	echo "usage: sh $0 BUILD_DIR [--quick|--full]" >&2
	exit 2
}

# bench_init BUILD_DIR [--quick|--full]: sets CPW, BB (helper binaries), MODE, SRC, TMPD.
# shellcheck disable=SC2034 # MODE is read by the scripts that source this file
bench_init() {
	[ $# -ge 1 ] || bench_usage
	BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "no build directory '$1'" >&2; exit 2; }
	MODE=default
	case "${2:-}" in
	--quick) MODE=quick ;;
	--full) MODE=full ;;
	"") ;;
	*) bench_usage ;;
	esac
	SRC=${BENCH_SRC:-$(cd "$(dirname "$0")" && pwd)}
	CPW=${CPW:-$BUILD/cperfwatch}
	[ -x "$CPW" ] || { echo "no cperfwatch in $BUILD: run make there first" >&2; exit 2; }
	TMPD=$(mktemp -d "${TMPDIR:-/tmp}/cpwbench.XXXXXX")
	# Helpers are built in a temporary directory (nothing to clean in the build tree);
	# run-all.sh passes its own in BENCH_BIN so that they are built once.
	BB=${BENCH_BIN:-$TMPD/bin}
	mkdir -p "$BB"
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM HUP
	bench_build timeit timeit.c
	bench_build proctree proctree.c
	bench_build burn burn.c
}

# bench_build NAME SOURCE [CFLAGS...]: compiles a helper when it is missing or older.
bench_build() {
	name=$1 source=$2
	shift 2
	if [ ! -x "$BB/$name" ] || [ -n "$(find "$SRC/$source" -newer "$BB/$name")" ]; then
		${CC:-cc} -std=gnu11 -O2 -Wall -o "$BB/$name" "$SRC/$source" "$@" ||
			{ echo "cannot build $name" >&2; exit 2; }
	fi
}

# The roots of the trees we started, in a file: tree_start runs in a command substitution.
bench_cleanup() {
	if [ -n "${TMPD:-}" ] && [ -f "$TMPD/trees" ]; then
		while read -r root; do
			group_kill "$root"
		done <"$TMPD/trees"
	fi
	[ -n "${TMPD:-}" ] && rm -rf "$TMPD"
}

# tree_start N: prints the root pid of a new tree of N sleeping processes.
tree_start() {
	root=$("$BB/proctree" "$1") || { echo "cannot start a tree of $1 processes" >&2; exit 2; }
	echo "$root" >>"$TMPD/trees"
	echo "$root"
}

# group_kill PGID: SIGKILL to a process group (dash's kill builtin takes no negative pid).
group_kill() {
	env kill -s KILL -- "-$1" 2>/dev/null
}

# alive PID: true while PID exists and is not a zombie.
alive() {
	[ -r "/proc/$1/stat" ] && ! awk '{ sub(/.*\) /, ""); exit ($1 == "Z") ? 0 : 1 }' "/proc/$1/stat" 2>/dev/null
}

# tree_stop ROOT: kills the tree's process group and waits until its root is gone.
tree_stop() {
	group_kill "$1"
	i=0
	while [ $i -lt 50 ] && alive "$1"; do
		sleep 0.1
		i=$((i + 1))
	done
}

# tree_pids ROOT: the pids of the tree (its process group), one per line.
tree_pids() {
	ps -e -o pid=,pgid= | awk -v g="$1" '$2 == g { print $1 }'
}

# stats: reads numbers, one per line; prints "median min max n".
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan nan nan 0"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.6g %.6g %.6g %d\n", m, v[1], v[NR], NR }'
}

# median: reads numbers, prints the median only.
median() { stats | cut -d' ' -f1; }

# calc EXPR: evaluates an awk expression.
calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }

# json_samples FILE: the number of samples in a cperfwatch JSON report.
json_samples() {
	grep -o '"samples": *[0-9]*' "$1" | head -1 | grep -o '[0-9]*$'
}

# proc_cpu_s PID: user+system seconds of a live process.
proc_cpu_s() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"
}

# proc_status_kib PID KEY: a kB line of /proc/PID/status (VmRSS, VmHWM).
proc_status_kib() {
	awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"
}

# verdict VALUE OP LIMIT: "ok" or "MISSED" (OP is <= or >=).
verdict() {
	awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN {
		if (v == "nan" || v == "") { print "n/a"; exit }
		ok = (op == "<=") ? (v + 0 <= l + 0) : (v + 0 >= l + 0)
		print ok ? "ok" : "MISSED" }'
}

# summary WHAT VALUE TARGET VERDICT: one row of the final table. A --quick run has too few
# rounds to resolve targets of 1 % or a few tenths of a ratio: its verdicts say "(rough)".
summary() {
	set -- "$1" "$2" "$3" "$4$([ "${MODE:-}" = quick ] && [ "$4" != - ] && echo " (rough)")"
	[ -n "${BENCH_SUMMARY:-}" ] && printf '%s|%s|%s|%s\n' "$1" "$2" "$3" "$4" >>"$BENCH_SUMMARY"
	return 0
}

# nprocs: how many processes the machine holds now.
nprocs() {
	set -- /proc/[0-9]*
	echo $#
}

# machine: one paragraph that says where the figures come from.
machine() {
	model=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	echo "machine: $(nproc) CPUs ($model), kernel $(uname -r), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
	echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg), $(nprocs) processes; $("$CPW" --version 2>/dev/null | head -1)"
}

# hr TITLE: a section header.
hr() {
	printf '\n== %s ==\n' "$1"
}

# cpw_watch PID SECONDS [OPTION...]: attaches cperfwatch to PID for SECONDS; prints
# "cpu_s samples maxrss_kib" (CPU and peak RSS of cperfwatch itself, from wait4).
cpw_watch() {
	pid=$1 secs=$2
	shift 2
	: >"$TMPD/w.t"
	"$BB/timeit" -q -o "$TMPD/w.t" -- "$CPW" --pid "$pid" --duration "$secs" --no-tui --json \
		-o "$TMPD/w.json" "$@"
	awk -v n="$(json_samples "$TMPD/w.json")" '{ printf "%.6f %d %d\n", $2 + $3, n, $4 }' "$TMPD/w.t"
}

# top_watch ITERATIONS [OPTION...]: top in batch mode at 0.1 s; prints "cpu_s iterations
# maxrss_kib".
top_watch() {
	n=$1
	shift
	: >"$TMPD/t.t"
	"$BB/timeit" -q -o "$TMPD/t.t" -- top -b -d 0.1 -n "$n" "$@"
	awk -v n="$n" '{ printf "%.6f %d %d\n", $2 + $3, n, $4 }' "$TMPD/t.t"
}

# marginal LONG SHORT: from two "cpu samples ..." lines, the CPU per extra sample in ms
# (start-up and report cancel out).
marginal() {
	echo "$1 $2" | awk '{ d = $2 - $5; printf "%.4f", (d > 0) ? ($1 - $4) * 1000 / d : 0 }'
}

# per_sample LINE: CPU per sample in ms, start-up included.
per_sample() {
	echo "$1" | awk '{ printf "%.4f", ($2 > 0) ? $1 * 1000 / $2 : 0 }'
}

# view_watch COMM SECONDS COMMAND...: runs a live view (htop, or cperfwatch's own) in a
# detached tmux pane of a private tmux server, 200x50, for SECONDS; its CPU, VmHWM and
# RssAnon are read from /proc just before it is stopped. COMM is the name the pane's
# process must have once started. Prints "cpu_s maxrss_kib anon_kib", or nothing when tmux
# (or the command) is missing.
view_watch() {
	command -v tmux >/dev/null 2>&1 && command -v "$3" >/dev/null 2>&1 || return 0
	vcomm=$1 vsecs=$2
	shift 2
	sock=cpwbench$$
	tmux -L "$sock" -f /dev/null new-session -d -x 200 -y 50 "exec $*" || return 0
	sleep 0.5
	hp=$(tmux -L "$sock" list-panes -F '#{pane_pid}' 2>/dev/null | head -1)
	sp=$(tmux -L "$sock" display -p '#{pid}' 2>/dev/null)
	if [ -n "$hp" ] && [ "$(cat "/proc/$hp/comm" 2>/dev/null)" = "$vcomm" ]; then
		c0=$(proc_cpu_s "$hp")
		sleep "$vsecs"
		c1=$(proc_cpu_s "$hp")
		hwm=$(proc_status_kib "$hp" VmHWM)
		anon=$(proc_status_kib "$hp" RssAnon)
		kill "$hp" 2>/dev/null
		awk -v a="$c0" -v b="$c1" -v h="$hwm" -v n="$anon" 'BEGIN { printf "%.6f %d %d\n", b - a, h, n }'
	fi
	[ -n "$sp" ] && kill "$sp" 2>/dev/null
	return 0
}

# htop_watch SECONDS PIDLIST: htop at -d 1 (0.1 s) on PIDLIST through view_watch. Prints
# "cpu_s refreshes maxrss_kib anon_kib", where refreshes is SECONDS / 0.1: htop does not
# count them, so this is an approximation (an upper bound: a refresh that runs late makes
# fewer). Prints nothing when htop or tmux is missing.
htop_watch() {
	v=$(view_watch htop "$1" htop -d 1 -p "$2")
	[ -n "$v" ] && echo "$v" | awk -v s="$1" '{ printf "%s %d %s %s\n", $1, s / 0.1, $2, $3 }'
	return 0
}
