#!/bin/sh
# test_prometheus_engines.sh: --format prometheus as the Prometheus tools read it:
# promtool check metrics passes it clean; node_exporter's textfile collector keeps its
# types and reports no scrape error; a Pushgateway takes it from -o - through curl. Each
# daemon is started here on 127.0.0.1 with a free port, bounded by timeout, and stopped by
# its pid; nothing but 127.0.0.1 is contacted.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 9

PIDS=""
stop_daemons() {
	for pid in $PIDS; do kill "$pid" 2>/dev/null; done
	for pid in $PIDS; do wait "$pid" 2>/dev/null; done
	PIDS=""
	remove_scratch
}
trap stop_daemons EXIT INT TERM

free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# Waits (at most 10 s) until http://127.0.0.1:$1$2 answers.
wait_http() {
	i=0
	while [ $i -lt 100 ]; do
		curl -fsS --max-time 1 "http://127.0.0.1:$1$2" >/dev/null 2>&1 && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

PROM="$SCRATCH/r.prom"
"$CPW" --format prometheus --label job=fleet_test --label 'note=a "quoted" \ value' \
	-o "$PROM" -- "$CPW_WORKLOADS/spin" 0.3
check "a prometheus report is written" test -s "$PROM"

# 2: promtool, the Prometheus project's own linter.
if command -v promtool >/dev/null 2>&1; then
	if promtool check metrics <"$PROM" >"$SCRATCH/promtool.out" 2>&1; then
		ok "promtool check metrics passes it clean"
	else
		not_ok "promtool check metrics passes it clean" "$(cat "$SCRATCH/promtool.out")"
	fi
else
	missing "promtool check metrics passes it clean" prometheus
fi

# 3-5: node_exporter's textfile collector, the usual way per-job figures reach Prometheus.
if command -v prometheus-node-exporter >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; then
	mkdir "$SCRATCH/textfile"
	"$CPW" --format prometheus -o "$SCRATCH/textfile/job.prom" -- "$CPW_WORKLOADS/spin" 0.2
	port=$(free_port)
	timeout 60 prometheus-node-exporter --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$SCRATCH/textfile" \
		--web.listen-address="127.0.0.1:$port" >"$SCRATCH/ne.log" 2>&1 &
	PIDS="$PIDS $!"
	if wait_http "$port" /metrics && curl -fsS --max-time 5 "http://127.0.0.1:$port/metrics" >"$SCRATCH/ne.metrics"; then
		check "node_exporter: node_textfile_scrape_error 0" grep -qx 'node_textfile_scrape_error 0' "$SCRATCH/ne.metrics"
		check "node_exporter keeps the counter's type" \
			grep -qx '# TYPE cperfwatch_user_cpu_seconds_total counter' "$SCRATCH/ne.metrics"
		check "node_exporter serves the sample" \
			grep -q '^cperfwatch_user_cpu_seconds_total{command="spin",mode="run"} ' "$SCRATCH/ne.metrics"
	else
		not_ok "node_exporter answers on 127.0.0.1:$port" "$(tail -n 20 "$SCRATCH/ne.log")"
		skip "node_exporter keeps the counter's type" "node_exporter did not answer"
		skip "node_exporter serves the sample" "node_exporter did not answer"
	fi
else
	missing "node_exporter's textfile collector 3" prometheus-node-exporter
	missing "node_exporter's textfile collector 4" prometheus-node-exporter
	missing "node_exporter's textfile collector 5" prometheus-node-exporter
fi

# 6-8: a Pushgateway, fed from standard output (-o -) through curl.
if command -v prometheus-pushgateway >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; then
	port=$(free_port)
	timeout 60 prometheus-pushgateway --web.listen-address="127.0.0.1:$port" >"$SCRATCH/pg.log" 2>&1 &
	PIDS="$PIDS $!"
	if wait_http "$port" /metrics; then
		"$CPW" --format prometheus -o - -- "$CPW_WORKLOADS/spin" 0.2 |
			curl -fsS --max-time 5 --data-binary @- "http://127.0.0.1:$port/metrics/job/cpw_test" \
			>"$SCRATCH/push.out" 2>&1
		check "the Pushgateway accepts the push" test $? -eq 0
		curl -fsS --max-time 5 "http://127.0.0.1:$port/metrics" >"$SCRATCH/pg.metrics"
		check "the Pushgateway keeps the counter's type" \
			grep -qx '# TYPE cperfwatch_user_cpu_seconds_total counter' "$SCRATCH/pg.metrics"
		check "the Pushgateway serves the sample under its job" \
			grep -q '^cperfwatch_user_cpu_seconds_total{.*job="cpw_test".*} ' "$SCRATCH/pg.metrics"
	else
		not_ok "the Pushgateway answers on 127.0.0.1:$port" "$(tail -n 20 "$SCRATCH/pg.log")"
		skip "the Pushgateway keeps the counter's type" "the Pushgateway did not answer"
		skip "the Pushgateway serves the sample under its job" "the Pushgateway did not answer"
	fi
else
	missing "a Pushgateway 6" prometheus-pushgateway
	missing "a Pushgateway 7" prometheus-pushgateway
	missing "a Pushgateway 8" prometheus-pushgateway
fi

# 9: the daemons are gone once stopped.
pids=$PIDS
for pid in $pids; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
PIDS=""
left=""
for pid in $pids; do kill -0 "$pid" 2>/dev/null && left="$left $pid"; done
check "no daemon outlives the test" test -z "$left"
done_testing
