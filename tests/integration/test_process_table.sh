#!/bin/sh
# test_process_table.sh: processes told apart (issue 29, items 4 and 8). A pytest-like
# runner starts three cases through a pyenv-style shim: bash that runs a dozen command
# substitutions (readlink, basename, subshells) and then execs python3 case.py NAME SECONDS.
#
#   the text table shows each case's arguments with its start, end and duration, the slow
#   case's duration is the longest; the shims' helpers are folded into one line under each
#   case (no readlink or basename row); the PYTHON column and JSON processes[].python give
#   the version of /usr/bin/python3; the plot has no lane for a helper; a phase names its
#   main process by its arguments; a wrapper that only waits for its one child (sh -c
#   'python3 ...; true') is one row, the child's, "via" the wrapper's arguments, where a
#   shell that runs two children in turn keeps its own row; a lone Python process, which has
#   no table, has its version on the Tree line.

. "$CPW_SRCDIR/tests/integration/tap.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || { skip_all "process table" "no /usr/bin/python3"; }
plan 12
want=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

cat >"$SCRATCH/case.py" <<'PYEOF'
import sys, time
time.sleep(float(sys.argv[2]))
PYEOF
cat >"$SCRATCH/shim" <<EOF2
#!/bin/bash
# What pyenv's shim does before it runs python: look the version up, in subshells.
for i in 1 2 3 4; do
	v=\$(readlink -f /usr/bin/python3)
	d=\$(basename "\$v")
	w=\$( (echo "\$d") )
done
exec $PY "\$@"
EOF2
chmod +x "$SCRATCH/shim"
cat >"$SCRATCH/runner" <<EOF2
#!/bin/bash
"$SCRATCH/shim" "$SCRATCH/case.py" test_fast 0.3
"$SCRATCH/shim" "$SCRATCH/case.py" test_slow 1.5
"$SCRATCH/shim" "$SCRATCH/case.py" test_mid 0.6
EOF2
chmod +x "$SCRATCH/runner"

"$CPW" -o "$SCRATCH/r.txt" --plot "$SCRATCH/r.svg" -- "$SCRATCH/runner"
sed -n '/PID/,/^Thread states/p' "$SCRATCH/r.txt" | sed 's/^/# /'
table=$(sed -n '/PID/,/^Thread states/p' "$SCRATCH/r.txt")

n=$(printf '%s\n' "$table" | grep -c "python3 .*case.py test_")
if [ "$n" = 3 ]; then ok "each case is one row with its arguments"; else not_ok "each case is one row with its arguments ($n rows)"; fi

# DUR_S is the 5th column of a row.
dur() { printf '%s\n' "$table" | awk -v c="$1" '$0 ~ "case.py " c " " { print $5 }'; }
fast=$(dur test_fast) slow=$(dur test_slow) mid=$(dur test_mid)
echo "# durations: fast=$fast slow=$slow mid=$mid"
if awk -v f="$fast" -v s="$slow" -v m="$mid" 'BEGIN { exit !(s >= 1.3 && s <= 2.5 && f < s && m < s && f != "" && m != "") }'; then
	ok "the slow case has the longest duration"
else
	not_ok "the slow case has the longest duration"
fi
if printf '%s\n' "$table" | head -1 | grep -q "START_S *END_S *DUR_S"; then ok "start, end and duration columns"
else not_ok "start, end and duration columns" "$(printf '%s\n' "$table" | head -1)"; fi

rows() { printf '%s\n' "$table" | grep -E '^	 *[0-9]+ +[0-9]+ '; }
if rows | grep -Eq '  (readlink|basename|shim)( |$)'; then
	not_ok "no row for a shim's helper" "$(rows | grep -E 'readlink|basename|shim')"
else
	ok "no row for a shim's helper"
fi
n=$(printf '%s\n' "$table" | grep -c "short-lived helpers")
if [ "$n" -ge 3 ]; then ok "the helpers folded into one line under each case ($n)"; else not_ok "the helpers folded into one line under each case ($n)"; fi

if printf '%s\n' "$table" | grep -q "PYTHON" && printf '%s\n' "$table" | grep "case.py test_slow" | grep -q " $want "; then
	ok "the PYTHON column shows $want"
else
	not_ok "the PYTHON column shows $want"
fi

"$CPW" --json -o "$SCRATCH/r.json" -- "$SCRATCH/runner"
set -- $("$PY" -c 'import json,sys
d = json.load(open(sys.argv[1]))
c = [p.get("python") for p in d["processes"] if p["command"] == "python3" and "case.py" in p["cmdline"]]
r = [p.get("python") for p in d["processes"] if p["cmdline"].endswith("/runner")]
print(",".join(map(str, c)), ",".join(map(str, r)))' "$SCRATCH/r.json" 2>&1)
echo "# processes[].python: cases $1, runner $2"
if [ "$1" = "$want,$want,$want" ] && [ "$2" = None ]; then ok "JSON processes[].python"
else not_ok "JSON processes[].python"; fi

# The plot's lanes: the cases, never a helper.
if [ -s "$SCRATCH/r.svg" ] && ! grep -Eq '>(readlink|basename)<' "$SCRATCH/r.svg"; then
	ok "the plot has no lane for a helper"
else
	not_ok "the plot has no lane for a helper" "$(grep -Eo 'class="ytick">[^<]*' "$SCRATCH/r.svg" | head)"
fi
# Phases: the busy phase's main process by its arguments.
cat >"$SCRATCH/busy.py" <<'PYEOF'
import sys, time
t = time.time()
while time.time() - t < float(sys.argv[1]):
    pass
PYEOF
"$CPW" -o "$SCRATCH/ph.txt" -- /bin/sh -c "sleep 0.8; $PY $SCRATCH/busy.py 1.5 --phase-marker"
sed -n '/^Phases/,/^Timeline/p' "$SCRATCH/ph.txt" | sed 's/^/# /'
if sed -n '/^Phases/,/^Timeline/p' "$SCRATCH/ph.txt" | grep -q "python3 .*busy.py 1.5 --phase-marker (pid [0-9]*)"; then
	ok "a phase names its main process by its arguments"
else
	not_ok "a phase names its main process by its arguments"
fi
# The shell above ran sleep, then python: two children, its own row.
if sed -n '/PID  *PPID/,/^Memory/p' "$SCRATCH/ph.txt" | grep -Eq "^	 +[0-9]+ +[0-9]+ .*  sh -c sleep 0.8"; then
	ok "a shell that runs two children in turn keeps its own row"
else
	not_ok "a shell that runs two children in turn keeps its own row" "$(sed -n '/PID  *PPID/,/^Memory/p' "$SCRATCH/ph.txt")"
fi
"$CPW" -o "$SCRATCH/wrap.txt" -- /bin/sh -c "$PY $SCRATCH/busy.py 0.6 --wrapped; true"
table=$(sed -n '/PID  *PPID/,/^Memory/p' "$SCRATCH/wrap.txt")
if [ "$(printf '%s\n' "$table" | grep -c '^	 *[0-9]')" = 1 ] &&
	printf '%s\n' "$table" | grep -Eq "busy.py 0.6 --wrapped \(via sh -c .*, pid [0-9]+\)\$"; then
	ok "a wrapper that only waits for its child folds into the child's row"
else
	not_ok "a wrapper that only waits for its child folds into the child's row" "$table"
fi
# One process: no table, so no PYTHON column; the Tree line gives the version (item 8).
"$CPW" -o "$SCRATCH/lone.txt" -- "$PY" "$SCRATCH/busy.py" 0.4
if grep -Eq "^Tree: 1 process seen, .*; Python $want\$" "$SCRATCH/lone.txt"; then
	ok "a lone Python process: its version ends the Tree line ($want)"
else
	not_ok "a lone Python process: its version ends the Tree line ($want)" "$(grep '^Tree' "$SCRATCH/lone.txt")"
fi
done_testing
