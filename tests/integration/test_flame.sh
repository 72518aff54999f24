#!/bin/sh
# test_flame.sh: --flame FILE on the real binary. A run of tests/workloads/two_funcs (two
# functions called from main, 3 to 1, frame pointers kept) draws a flame graph that is
# well-formed XML, names the hot function, and adds up: the root as wide as the graph and
# as many samples as the report's, every frame inside its caller, its width its share of
# the samples, the callees' samples at most their caller's, hot_path wider than
# cold_path; the stacks the same as --folded's. It renders (rsvg-convert). A path that
# cannot be written fails before the command starts (one line, status 125); one that
# goes away while the command runs costs the picture only: one line that gives the
# command's own status, status 125, the report whole.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 9
W=$CPW_WORKLOADS
PY=/usr/bin/python3
[ -x "$PY" ] || missing_all "the flame graph is checked with python3" python3

"$CPW" -j -o "$SCRATCH/r.json" --flame "$SCRATCH/f.svg" --folded "$SCRATCH/f.txt" -- "$W/two_funcs" 2.5
rc=$?
check "a run with --flame: status 0, the picture written" sh -c "test $rc = 0 && test -s '$SCRATCH/f.svg'"

# The frames: (name, samples, x, y, width), from each <g>'s title and rect.
cat >"$SCRATCH/frames.py" <<'PY'
import json, re, sys
import xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
def frames(path):
    out = []
    for g in ET.parse(path).getroot().iter(NS + "g"):
        title, rect = g.find(NS + "title"), g.find(NS + "rect")
        m = re.fullmatch(r"(.*) \((\d+) samples?, ([\d.]+)%\)", title.text)
        out.append((m.group(1), int(m.group(2)), float(rect.get("x")), float(rect.get("y")),
                    float(rect.get("width"))))
    return out
PY
J() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
FR() { # EXPRESSION over f, the frames of f.svg (and d, the JSON report)
	"$PY" -c "import sys; sys.path.insert(0, sys.argv[1]); from frames import frames; import json
f = frames(sys.argv[2]); d = json.load(open(sys.argv[3])); print($1)" "$SCRATCH" "$SCRATCH/f.svg" "$SCRATCH/r.json"
}

check "the picture is well-formed XML (python3's xml.etree)" \
	"$PY" -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$SCRATCH/f.svg"
check "the hot function is drawn, with its samples on hover: hot_path wider than cold_path" \
	test "$(FR "sum(s for n, s, *_ in f if n == 'hot_path') > sum(s for n, s, *_ in f if n == 'cold_path') > 0")" = True
samples=$(J "$SCRATCH/r.json" "d['hotspots']['samples']")
check "the root: all the report's samples ($samples), as wide as the graph (1180 px)" \
	test "$(FR "[(n, s, x, w) for n, s, x, y, w in f if n == 'all'] == [('all', d['hotspots']['samples'], 10.0, 1180.0)]")" = True
# Every frame stands on its caller (the frame one row below that holds its x), inside it;
# the callees of a frame have at most its samples; widths are samples * 1180 / total.
cat >"$SCRATCH/addup.py" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from frames import frames
f = frames(sys.argv[2])
total = next(s for n, s, x, y, w in f if n == "all")
bad = []
for n, s, x, y, w in f:
    if abs(w - s * 1180 / total) > 0.06:
        bad.append(("width", n, s, w))
    if n == "all":
        continue
    callers = [c for c in f if c[3] == y + 16 and c[2] - 0.06 <= x and x + w <= c[2] + c[4] + 0.06]
    if len(callers) != 1:
        bad.append(("no caller", n, x, y))
        continue
    c = callers[0]
    kids = [k for k in f if k[3] == y and c[2] - 0.06 <= k[2] and k[2] + k[4] <= c[2] + c[4] + 0.06]
    if sum(k[1] for k in kids) > c[1]:
        bad.append(("callees over their caller", c[0], c[1], sum(k[1] for k in kids)))
print(bad or "ok")
PY
check "the widths add up: each frame on its caller, inside it, as wide as its share" \
	test "$("$PY" "$SCRATCH/addup.py" "$SCRATCH" "$SCRATCH/f.svg")" = ok
# The folded stacks that reach main through hot_path: their samples are hot_path's frame's
# (two_funcs;...;main;hot_path: merged under one main).
check "the same stacks as --folded: hot_path's samples" test \
	"$(awk '/;hot_path( |;)/ { s += $NF } END { print s + 0 }' "$SCRATCH/f.txt")" = \
	"$(FR "sum(s for n, s, *_ in f if n == 'hot_path')")"
if command -v rsvg-convert >/dev/null 2>&1; then
	check "the picture renders (rsvg-convert)" rsvg-convert -o "$SCRATCH/f.png" "$SCRATCH/f.svg"
else
	missing "the picture renders (rsvg-convert)" librsvg2-bin
fi

# A path that cannot be written: one line, status 125, and the command never ran.
"$CPW" --flame "$SCRATCH/no/such/dir/f.svg" -- sh -c ": >'$SCRATCH/ran'" 2>"$SCRATCH/bad.err"
rc=$?
if [ $rc = 125 ] && [ "$(wc -l <"$SCRATCH/bad.err")" = 1 ] && [ ! -e "$SCRATCH/ran" ]; then
	ok "a bad --flame path: one line, status 125, before the command starts"
else
	not_ok "a bad --flame path: one line, status 125, before the command starts" \
		"status $rc: $(cat "$SCRATCH/bad.err")"
fi
# Its directory goes while the command runs: the picture cannot be made, the report is.
mkdir "$SCRATCH/gone"
"$CPW" -o "$SCRATCH/g.txt" --flame "$SCRATCH/gone/f.svg" -- sh -c "rm -r '$SCRATCH/gone'; exit 3" \
	2>"$SCRATCH/gone.err"
rc=$?
check "a --flame path gone by the end: one line, status 125, the report whole" sh -c "
	{ test $rc = 125 && test \"\$(wc -l <'$SCRATCH/gone.err')\" = 1 &&
	  grep -q '^cperfwatch: cannot write the flame graph (the command exited with status 3): ' '$SCRATCH/gone.err' &&
	  grep -q '^Verdict: ' '$SCRATCH/g.txt'; } || { echo 'status $rc'; cat '$SCRATCH/gone.err'; exit 1; }"
done_testing
