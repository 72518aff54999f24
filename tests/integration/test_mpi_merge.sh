#!/bin/sh
# test_mpi_merge.sh: cperfwatch under OpenMPI's mpirun, one report per rank named with %r,
# then --merge: the straggler (the rank given more work) is named, every rank is in the
# table, and a report cut short is named while the rest are merged. Bounded by timeout.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 7
if ! command -v mpirun >/dev/null 2>&1; then
	missing_all "mpirun and --merge" openmpi-bin
fi

cd "$SCRATCH" || exit 1
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
