#!/bin/sh
# test_ci_examples.sh: the CI examples under contrib/ci/ work. Both YAML files parse; the
# test step of each, taken out of the YAML and run in a scratch directory with the built
# cperfwatch and a stand-in `make check`, exits 0 and leaves a JSON report that validates
# (and, for GitLab, a metrics report); with a budget made small enough to break, it exits
# 124 and says so; and every jq command of contrib/ci/README.md runs on a sample report.
#
# Needs python3-yaml to read the YAML, bash (the runners' shell) and jq; what is missing
# makes its cases skip, saying so (fail, where CI=true).

. "$CPW_SRCDIR/tests/integration/tap.sh"

CI="$CPW_SRCDIR/contrib/ci"
NTESTS=6

plan $NTESTS

# 1: YAML; also extracts each example's test step into $SCRATCH/{github,gitlab}.sh
if ! /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
	missing_all "CI examples" python3-yaml
fi
if /usr/bin/python3 - "$CI" "$SCRATCH" >"$SCRATCH/yaml.out" 2>&1 <<'EOF'
import sys, yaml
ci, out = sys.argv[1], sys.argv[2]
gh = yaml.safe_load(open(ci + "/github-actions.yml"))
steps = [s for s in gh["jobs"]["test"]["steps"] if "cperfwatch --max-wall" in s.get("run", "")]
assert len(steps) == 1, "github-actions.yml: no single step runs cperfwatch with budgets"
assert any(s.get("if") == "always()" and "upload-artifact" in s.get("uses", "")
           for s in gh["jobs"]["test"]["steps"]), "github-actions.yml: the report is not always kept"
open(out + "/github.sh", "w").write(steps[0]["run"])
gl = yaml.safe_load(open(ci + "/gitlab-ci.yml"))
job = gl["tests-under-cperfwatch"]
assert job["artifacts"]["when"] == "always" and "cperfwatch.json" in job["artifacts"]["paths"], \
    "gitlab-ci.yml: the report is not always kept"
open(out + "/gitlab.sh", "w").write("\n".join(job["script"]) + "\n")
EOF
then
	ok "both CI examples are valid YAML and keep the report"
else
	not_ok "both CI examples are valid YAML and keep the report" "$(cat "$SCRATCH/yaml.out")"
fi

command -v bash >/dev/null 2>&1 || missing_all "CI examples" bash
command -v jq >/dev/null 2>&1 || missing_all "CI examples" jq

# 2: README's jq commands, on a sample report (main.json and cperfwatch.json)
mkdir -p "$SCRATCH/readme"
# (with a broken budget, so that the command listing those has something to print)
jq '.budgets[0].result = "broken"' "$CPW_FIXTURES/json/valid-run.json" >"$SCRATCH/readme/cperfwatch.json"
cp "$CPW_FIXTURES/json/valid-run.json" "$SCRATCH/readme/main.json"
# Each command: an indented line starting with "jq", plus the more-indented lines after it
# (and those after a trailing backslash).
awk '/^    jq / { if (cmd != "") print cmd "\n#--"; cmd = substr($0, 5); next }
     cmd != "" && /^       / { cmd = cmd "\n" substr($0, 5); next }
     { if (cmd != "") print cmd "\n#--"; cmd = "" }
     END { if (cmd != "") print cmd "\n#--" }' "$CI/README.md" >"$SCRATCH/readme/commands"
n=0 bad=""
: >"$SCRATCH/readme/cmd"
while IFS= read -r line; do
	if [ "$line" = "#--" ]; then
		n=$((n + 1))
		if ! (cd "$SCRATCH/readme" && bash ./cmd) >"$SCRATCH/readme/out" 2>&1 || ! [ -s "$SCRATCH/readme/out" ]; then
			bad="$bad
$(cat "$SCRATCH/readme/cmd"): $(cat "$SCRATCH/readme/out")"
		fi
		: >"$SCRATCH/readme/cmd"
	else
		printf '%s\n' "$line" >>"$SCRATCH/readme/cmd"
	fi
done <"$SCRATCH/readme/commands"
if [ $n -lt 5 ]; then
	not_ok "README's jq commands run on a sample report" "only $n jq commands found"
elif [ -n "$bad" ]; then
	not_ok "README's jq commands run on a sample report" "failed or printed nothing:$bad"
else
	ok "README's jq commands run on a sample report ($n commands)"
fi

if [ ! -x "$CPW" ]; then
	for what in "GitHub step passes" "GitHub step reports a broken budget" "GitLab job passes" \
		"GitLab job reports a broken budget"; do
		not_ok "$what" "$CPW is not built"
	done
	done_testing
fi

# A PATH with cperfwatch and a stand-in make whose "check" takes $FAKE_CHECK_SECONDS.
mkdir -p "$SCRATCH/bin"
ln -s "$CPW" "$SCRATCH/bin/cperfwatch"
cat >"$SCRATCH/bin/make" <<'EOF'
#!/bin/sh
sleep "${FAKE_CHECK_SECONDS:-0}"
EOF
chmod +x "$SCRATCH/bin/make"

# run_step NAME SCRIPT [SED-EXPR]: runs SCRIPT (edited by SED-EXPR) in a fresh directory
# under $SCRATCH/NAME, as the runners do (bash -e); leaves its exit status in $step_rc.
run_step() {
	rm -rf "${SCRATCH:?}/$1"
	mkdir -p "$SCRATCH/$1"
	sed -e "${3:-}" "$2" >"$SCRATCH/$1/step.sh"
	(cd "$SCRATCH/$1" && PATH="$SCRATCH/bin:$PATH" GITHUB_STEP_SUMMARY="$SCRATCH/$1/summary.md" \
		bash -e ./step.sh) >"$SCRATCH/$1/log" 2>&1
	step_rc=$?
}

# check_pass LABEL NAME EXTRA-FILE: the step exited 0, its report validates, EXTRA-FILE is there.
check_pass() {
	if [ "$step_rc" -ne 0 ]; then
		not_ok "$1" "exit status $step_rc: $(tail -n 20 "$SCRATCH/$2/log")"
	elif ! validate_json "$SCRATCH/$2/cperfwatch.json" >"$SCRATCH/out" 2>&1; then
		not_ok "$1" "$(cat "$SCRATCH/out")"
	elif ! grep -q 'verdict: ' "$SCRATCH/$2/$3"; then
		not_ok "$1" "no verdict line in $3: $(cat "$SCRATCH/$2/$3" 2>&1)"
	else
		ok "$1"
	fi
}

# check_budget LABEL NAME: the step exited 124 and said why.
check_budget() {
	if [ "$step_rc" -ne 124 ]; then
		not_ok "$1" "exit status $step_rc, not 124: $(tail -n 20 "$SCRATCH/$2/log")"
	elif ! grep -q 'broke a cperfwatch budget' "$SCRATCH/$2/log"; then
		not_ok "$1" "the log does not say so: $(tail -n 20 "$SCRATCH/$2/log")"
	else
		ok "$1"
	fi
}

SHRINK='s/--max-wall 20m/--max-wall 10ms/'

# 3-4: GitHub Actions
if [ -s "$SCRATCH/github.sh" ]; then
	FAKE_CHECK_SECONDS=0 run_step github "$SCRATCH/github.sh"
	check_pass "the GitHub test step passes and writes a valid report and summary" github summary.md
	FAKE_CHECK_SECONDS=0.3 run_step github-budget "$SCRATCH/github.sh" "$SHRINK"
	check_budget "the GitHub test step exits 124 on a broken budget" github-budget
else
	not_ok "the GitHub test step passes and writes a valid report and summary" "no step extracted"
	not_ok "the GitHub test step exits 124 on a broken budget" "no step extracted"
fi

# 5-6: GitLab CI
if [ -s "$SCRATCH/gitlab.sh" ]; then
	FAKE_CHECK_SECONDS=0 run_step gitlab "$SCRATCH/gitlab.sh"
	# The metrics report: the Prometheus text format, with the job's wall and CPU time.
	if [ "$step_rc" -eq 0 ] && ! /usr/bin/python3 - "$SCRATCH/gitlab/metrics.txt" >"$SCRATCH/metrics.out" 2>&1 <<'EOF'
import sys
from prometheus_client.parser import text_string_to_metric_families as prom
names = {s.name for f in prom(open(sys.argv[1]).read()) for s in f.samples}
for want in ("cperfwatch_job_wall_seconds", "cperfwatch_job_cpu_seconds_total"):
    assert want in names, "no %s in %s" % (want, sorted(names))
EOF
	then
		not_ok "the GitLab job passes and writes a valid report and metrics" \
			"$(cat "$SCRATCH/metrics.out"); metrics.txt: $(head -n 20 "$SCRATCH/gitlab/metrics.txt" 2>&1)"
	else
		check_pass "the GitLab job passes and writes a valid report and metrics" gitlab log
	fi
	FAKE_CHECK_SECONDS=0.3 run_step gitlab-budget "$SCRATCH/gitlab.sh" "$SHRINK"
	check_budget "the GitLab job exits 124 on a broken budget" gitlab-budget
else
	not_ok "the GitLab job passes and writes a valid report and metrics" "no script extracted"
	not_ok "the GitLab job exits 124 on a broken budget" "no script extracted"
fi

done_testing
