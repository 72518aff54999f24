#!/bin/sh
# contrib/bench/stability.sh: does the same run get the same answer (issue 27, item 6)?
#
# Runs each case of issue 27 N times, on a quiet machine and then beside
# `stress-ng --cpu 1 --cpu-load 30`, with --json, and prints for each case and condition
# how often the runs agree on the phases (their classes in order), on the headline
# verdict and on the verdict of each process (its name and class), the most common answer
# of each and the others, and how far each phase's cut lies from the nearest process event (a start or an
# exit of a process of the tree, the root aside): the largest distance and the median.
#
#   sh contrib/bench/stability.sh BUILD_DIR [--quick|--full]
#
# N is STABILITY_RUNS (default 10; --quick 3; --full 20); STABILITY_CASES and
# STABILITY_CONDITIONS ("quiet loaded") pick a part. The cases:
#   dd-python   sh -c "dd if=BIG of=/dev/null bs=4k count=40000 iflag=direct; python3 busy.py 2"
#   sleep-spin-fsync  sh -c "sleep 1.5; spin 2; fsync_loop DIR 2"
#   gil         python3 gil_threads.py 4 2
#   julia       python3 busy.py 3 (single-threaded pure Python)
#   taskset     taskset -c CPU spin_threads 3 2
#   composite   sh -c "sleep 1; dd ...; python3 busy.py 1.5; python3 gil_threads.py 4 1.5"
# BIG and the fsync file live in a directory on a block device (O_DIRECT is refused on
# tmpfs): STABILITY_DIR, else the current directory. stress-ng must be installed for the
# loaded condition (apt-get install stress-ng); without it that condition is skipped, and
# says so. The workloads are tests/workloads/, compiled here with cc.
. "$(dirname "$0")/lib.sh"
bench_init "$@"

RUNS=${STABILITY_RUNS:-10}
[ "$MODE" = quick ] && RUNS=${STABILITY_RUNS:-3}
[ "$MODE" = full ] && RUNS=${STABILITY_RUNS:-20}
case "$RUNS" in ''|*[!0-9]*|0) echo "STABILITY_RUNS must be a positive whole number, not '$RUNS'" >&2; exit 2 ;; esac

WL="$SRC/../../tests/workloads"
for w in spin fsync_loop spin_threads; do
	bench_build "$w" "../../tests/workloads/$w.c" -I"$WL" -pthread
done
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
command -v taskset >/dev/null 2>&1 || { echo "stability: taskset (util-linux) is missing" >&2; exit 2; }

IO_DIR=$(mktemp -d "${STABILITY_DIR:-.}/cpwstab.XXXXXX") || { echo "stability: cannot make a directory in ${STABILITY_DIR:-.}" >&2; exit 2; }
BIG="$IO_DIR/big.dat"
if ! dd if=/dev/zero of="$BIG" bs=1M count=160 oflag=direct status=none 2>/dev/null; then
	rm -rf "$IO_DIR"
	echo "stability: $IO_DIR refuses O_DIRECT (tmpfs?): set STABILITY_DIR to a directory on a block device" >&2
	exit 2
fi
STRESS=
stability_cleanup() {
	[ -n "$STRESS" ] && kill "$STRESS" 2>/dev/null && wait "$STRESS" 2>/dev/null
	rm -rf "$IO_DIR"
	bench_cleanup
}
trap stability_cleanup EXIT
CPU0=$("$PY" -c 'import os; print(min(os.sched_getaffinity(0)))')

case_cmd() {
	case "$1" in
	dd-python) echo "dd if='$BIG' of=/dev/null bs=4k count=40000 iflag=direct status=none; '$PY' '$WL/busy.py' 2" ;;
	sleep-spin-fsync) echo "sleep 1.5; '$BB/spin' 2; '$BB/fsync_loop' '$IO_DIR' 2" ;;
	gil) echo "exec '$PY' '$WL/gil_threads.py' 4 2" ;;
	julia) echo "exec '$PY' '$WL/busy.py' 3" ;;
	taskset) echo "exec taskset -c $CPU0 '$BB/spin_threads' 3 2" ;;
	composite) echo "sleep 1; dd if='$BIG' of=/dev/null bs=4k count=20000 iflag=direct status=none; '$PY' '$WL/busy.py' 1.5; '$PY' '$WL/gil_threads.py' 4 1.5" ;;
	esac
}
CASES=${STABILITY_CASES:-"dd-python sleep-spin-fsync gil julia taskset composite"}

# One line per run: the phases, the verdict, the processes' verdicts, and each cut's
# distance to the nearest process event.
cat >"$TMPD/one.py" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
phases = doc.get("phases") or []
procs = doc.get("processes") or []
root = doc.get("pid")
events = []
for p in procs:
    if p.get("pid") == root:
        continue
    for k in ("first_seen_s", "exited_s"):
        if isinstance(p.get(k), (int, float)):
            events.append(p[k])
cuts = [ph["end_s"] for ph in phases[:-1]]
dist = [min(abs(c - e) for e in events) if events else float("nan") for c in cuts]
pv = [(p.get("first_seen_s") or 0, "%s:%s" % (p["command"], p["verdict"]["class"]))
      for p in procs if p.get("verdict")]
print("phases=%s" % ",".join(ph["class"] for ph in phases), end="\t")
print("verdict=%s" % (doc.get("verdict") or {}).get("class"), end="\t")
print("processes=%s" % ",".join(x[1] for x in sorted(pv)), end="\t")
print("cuts=%s" % ",".join("%.2f" % d for d in dist))
PYEOF

# agree FIELD FILE: "k/N most-common-value", then the other answers, "; also k value".
agree() {
	cut -f"$1" "$2" | sort | uniq -c | sort -rn |
		awk -v n="$(wc -l <"$2")" '{ c = $1; $1 = ""; sub(/^ [a-z]*=/, "")
			if (NR == 1) printf "%d/%d %s", c, n, $0; else printf "; also %d %s", c, $0 }'
}

run_case() { # NAME CONDITION
	out="$TMPD/$1.$2"
	: >"$out"
	i=0
	while [ $i -lt "$RUNS" ]; do
		rm -f "$TMPD/r.json"
		"$CPW" --json -o "$TMPD/r.json" -- sh -c "$(case_cmd "$1")" >/dev/null 2>"$TMPD/r.err"
		if [ -s "$TMPD/r.json" ]; then
			"$PY" "$TMPD/one.py" "$TMPD/r.json" >>"$out"
		else
			printf 'phases=(no report)\tverdict=(no report)\tprocesses=(no report)\tcuts=\n' >>"$out"
		fi
		i=$((i + 1))
	done
	cuts=$(cut -f4 "$out" | sed 's/^cuts=//' | tr ',' '\n' | grep -E '^[0-9.]+$' | sort -n)
	if [ -n "$cuts" ]; then
		cmax=$(printf '%s\n' "$cuts" | tail -1)
		cmed=$(printf '%s\n' "$cuts" | median)
		within=$(printf '%s\n' "$cuts" | awk '$1 <= 0.3 { n++ } END { printf "%d/%d", n, NR }')
		cutline="max $cmax s, median $cmed s, within 0.3 s: $within"
	else
		cutline="no cuts (one phase)"
	fi
	printf '%-17s %-7s phases %s\n' "$1" "$2" "$(agree 1 "$out")"
	printf '%-17s %-7s verdict %s\n' "" "" "$(agree 2 "$out")"
	printf '%-17s %-7s processes %s\n' "" "" "$(agree 3 "$out")"
	printf '%-17s %-7s cuts to events: %s\n' "" "" "$cutline"
}

CONDITIONS=${STABILITY_CONDITIONS:-"quiet loaded"}
hr "stability: each case $RUNS times, $CONDITIONS (beside stress-ng --cpu 1 --cpu-load 30)"
for c in $CASES; do
	case " $CONDITIONS " in *" quiet "*) run_case "$c" quiet ;; esac
done
case " $CONDITIONS " in *" loaded "*) ;; *) exit 0 ;; esac
if command -v stress-ng >/dev/null 2>&1; then
	stress-ng --cpu 1 --cpu-load 30 --quiet >/dev/null 2>&1 &
	STRESS=$!
	sleep 1
	for c in $CASES; do
		run_case "$c" loaded
	done
	kill "$STRESS" 2>/dev/null
	wait "$STRESS" 2>/dev/null
	STRESS=
else
	echo "loaded: skipped, stress-ng is not installed (apt-get install stress-ng)"
fi
