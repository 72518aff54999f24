#!/bin/sh
# test_mpi_merge.sh: cperfwatch under OpenMPI's mpirun, one report per rank named with %r,
# then --merge: the straggler (the rank given more work) is named, every rank is in the
# table, and a report cut short is named while the rest are merged. Bounded by timeout.
# Then --merge of report files made here from a fixture (no mpirun needed): files left out
# past the notes are counted, long file names give no Prometheus series twice (promtool),
# and nonsense (a negative or huge figure, a report holding only its schema, trailing
# garbage, two documents) is refused with one line naming the file and the key, and 125.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 18

cd "$SCRATCH" || exit 1
R0=$CPW_FIXTURES/json/job-rank0.json
R1=$CPW_FIXTURES/json/job-rank1.json

# 20 reports cut short and one whole: 16 named, the other 4 counted.
mkdir cut
for i in $(seq 10 29); do head -c 300 "$R1" >cut/c$i.json; done
"$CPW" --merge "$R0" cut/*.json >cut.txt 2>cut.err
check "--merge of 20 reports cut short: 16 named, '... and 4 more' (text)" sh -c \
	"[ \$(grep -c 'is cut short' cut.txt) -eq 16 ] && grep -q '^  - \\.\\.\\. and 4 more files cut short: left out of the merge\$' cut.txt"
"$CPW" --merge --json "$R0" cut/*.json >cut.json 2>cut.err
if command -v jq >/dev/null 2>&1; then
	check "--merge of 20 reports cut short: counted in JSON (notes, left_out.cut_short)" sh -c \
		"jq -e '(.left_out.cut_short == 20) and (.notes | map(select(startswith(\"... and 4 more files cut short\"))) | length == 1)' cut.json"
else
	missing "--merge of 20 reports cut short: counted in JSON" jq
fi

# Two reports without a rank, whose long paths differ only at the end: one series each.
long=$SCRATCH/$(printf '%0240d' 0 | tr 0 d)
mkdir "$long"
sed 's/"rank": 0/"rank": null/' "$R0" >"$long/a.json"
sed 's/"rank": 0/"rank": null/' "$R0" >"$long/b.json"
"$CPW" --merge --format prometheus "$long/a.json" "$long/b.json" >long.prom 2>long.err
check "--merge --format prometheus of two long paths: no series twice" sh -c \
	"[ \$(grep -c '^cperfwatch_rank_wall_seconds{' long.prom) -eq 2 ] && [ -z \"\$(grep -v '^#' long.prom | sed 's/ [^ ]*\$//' | sort | uniq -d)\" ]"
if command -v promtool >/dev/null 2>&1; then
	check "--merge --format prometheus of two long paths: promtool check metrics" sh -c \
		"promtool check metrics <long.prom >promtool.out 2>&1 || { cat promtool.out; exit 1; }"
else
	missing "--merge --format prometheus of two long paths: promtool check metrics" prometheus
fi

# Nonsense: refused with one line that names the file and the key, and 125.
sed 's/"wall_s": 2.0/"wall_s": -3/' "$R0" >negative.json
sed 's/"wall_s": 2.0/"wall_s": 1.7e308/' "$R0" >huge.json
printf '{"schema": "cperfwatch/1"}\n' >schema-only.json
{ cat "$R0"; echo garbage; } >trailing.json
cat "$R0" "$R0" >two.json
refused() { # FILE WHAT: --merge of R1 and FILE exits 125 with one line holding WHAT
	"$CPW" --merge "$R1" "$1" >/dev/null 2>refused.err
	rc=$?
	if [ $rc -eq 125 ] && [ "$(wc -l <refused.err)" -eq 1 ] && grep -qF "$2" refused.err; then
		ok "--merge refuses $1: one line, 125"
	else
		not_ok "--merge refuses $1: one line, 125" "exit $rc: $(cat refused.err)"
	fi
}
refused negative.json "negative.json: time.wall_s is -3"
refused huge.json "huge.json: time.wall_s is 1.7e+308"
refused schema-only.json "schema-only.json: no host"
refused trailing.json "trailing.json: more follows the JSON document at byte"
refused two.json "two.json: more follows the JSON document at byte"
# Control bytes in a file name are escaped in the line.
esc=$(printf 'r\033]2;PWNED\007.json')
cp negative.json "$esc"
"$CPW" --merge "$R1" "$esc" >/dev/null 2>refused.err
check "--merge: control bytes of a file name escaped in its refusal" sh -c \
	"grep -qF 'r\\x1b]2;PWNED\\x07.json: time.wall_s' refused.err && ! grep -q \"\$(printf '\\033')\" refused.err"
"$CPW" --merge "$R1" "no such $esc" >/dev/null 2>refused.err
check "--merge: control bytes of an unreadable file's name escaped" sh -c \
	"grep -qF 'no such r\\x1b]2;PWNED\\x07.json' refused.err && ! grep -q \"\$(printf '\\033')\" refused.err"

if ! command -v mpirun >/dev/null 2>&1; then
	for t in 1 2 3 4 5 6 7; do missing "mpirun and --merge ($t)" openmpi-bin; done
	done_testing
fi
# Rank 2 spins 1.2 s, the others 0.3 s: rank 2 is the straggler.
cat >work.sh <<'SH'
#!/bin/sh
if [ "$OMPI_COMM_WORLD_RANK" = 2 ]; then exec "$1" 1.2; else exec "$1" 0.3; fi
SH
chmod +x work.sh
# OpenMPI wants a writable home and temporary directory; no network beyond loopback.
HOME=$SCRATCH OMPI_MCA_btl=self OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo \
	timeout 120 mpirun --allow-run-as-root --oversubscribe -n 3 \
	"$CPW" --json -o 'r.%r.json' -- ./work.sh "$CPW_WORKLOADS/spin" >mpirun.out 2>&1
rc=$?
if [ $rc -eq 0 ] && [ -s r.0.json ] && [ -s r.1.json ] && [ -s r.2.json ]; then
	ok "mpirun -n 3: one report per rank (r.0.json r.1.json r.2.json)"
else
	not_ok "mpirun -n 3: one report per rank (r.0.json r.1.json r.2.json)" "exit $rc: $(ls -a; tail -n 20 mpirun.out)"
fi
check "each report carries its rank" sh -c 'grep -q "\"rank\": 2" r.2.json && grep -q "\"rank\": 0" r.0.json'

"$CPW" --merge r.0.json r.1.json r.2.json >merge.txt 2>merge.err
check "--merge exits 0" test $? -eq 0
check "--merge names rank 2 as the straggler" grep -q "straggler: rank 2 (.*) finished last" merge.txt
check "--merge lists every rank" sh -c "[ \$(grep -cE '^  [^ ]+ +[0-2] ' merge.txt) -eq 3 ]"

head -c 300 r.1.json >cut.json
"$CPW" --json --merge r.0.json cut.json r.2.json >merge.json 2>merge.err
check "a report cut short is named, the rest merged" sh -c \
	"grep -q 'cut.json is cut short' merge.json && grep -q '\"ranks\": 2' merge.json"
"$CPW" --merge r.0.json work.sh >/dev/null 2>merge.err
rc=$?
check "what is not a report: one line, 125" sh -c "[ $rc -eq 125 ] && [ \$(wc -l <merge.err) -eq 1 ]"
done_testing
