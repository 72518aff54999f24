#!/usr/bin/python3
"""calibration.py: is the verdict's confidence calibrated? (doc/classification.md, 4)

Over a corpus of cases with a known class, a verdict given confidence c should be right
about c of the time. The corpus is every fixture of tests/fixtures/metrics (their
expected class; the edge_* fixtures that sit a hair either side of a threshold are left
out with --no-edges) plus, with --runs, real runs of the workloads under build/cperfwatch
(their class is the ground truth of tests/integration/test_verdicts.sh). Prints each case,
the Brier score (mean of (confidence - right)^2: 0 is perfect, 0.25 is a coin at 0.5) and
a reliability table: per confidence bin, how many cases, their mean confidence and how
many were right.

    contrib/bench/calibration.py [BUILD_DIR=build] [--runs] [--no-edges]
"""
import json
import os
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fixture_cases(build, edges):
    env = dict(os.environ, CPW_CALIBRATION="1")
    out = subprocess.run([os.path.join(build, "tests/unit/test_classify")], env=env,
                         capture_output=True, text=True, check=False).stdout
    for line in out.splitlines():
        if not line.startswith("# calibration "):
            continue
        name, *kv = line[len("# calibration "):].split()
        if not edges and name.startswith("edge_"):
            continue
        d = dict(x.split("=", 1) for x in kv)
        yield name, d["expected"], d["got"], float(d["confidence"])


def run_cases(build):
    w = os.path.join(build, "tests/workloads")
    py = "/usr/bin/python3"
    tmp = tempfile.mkdtemp(prefix="cpw-calib.")
    cases = [
        ("run:spin", "cpu-bound", [w + "/spin", "1.5"]),
        ("run:spin_threads", "cpu-bound", [w + "/spin_threads", str(len(os.sched_getaffinity(0))), "1.5"]),
        ("run:spin_tree", "cpu-bound", [w + "/spin_tree", "2", "1.5"]),
        ("run:busy.py", "cpu-bound", [py, SRC + "/tests/workloads/busy.py", "1.5"]),
        ("run:mutex_threads", "cpu-bound", [w + "/mutex_threads", "4", "1.5"]),
        ("run:gil_threads", "cpu-bound", [py, SRC + "/tests/workloads/gil_threads.py", "4", "1.5"]),
        ("run:fault_churn", "memory-bound", [w + "/fault_churn", "1.5"]),
        ("run:sleeper", "waiting", [w + "/sleeper", "1.5"]),
        ("run:pipe_reader", "waiting", [w + "/pipe_reader", "1.5"]),
        ("run:fsync_loop", "io-bound", [w + "/fsync_loop", "/var/tmp", "1.5"]),
        ("run:direct_read", "io-bound", [w + "/direct_read", "/var/tmp", "64", "1.5", "128"]),
    ]
    for name, want, cmd in cases:
        out = os.path.join(tmp, "r.json")
        subprocess.run([os.path.join(build, "cperfwatch"), "--json", "-o", out, "--"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        try:
            v = json.load(open(out))["verdict"]
        except (OSError, ValueError, KeyError):
            print("# %s: no report" % name)
            continue
        yield name, want, v["class"], float(v["confidence"])


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    build = args[0] if args else os.path.join(SRC, "build")
    cases = list(fixture_cases(build, "--no-edges" not in sys.argv))
    if "--runs" in sys.argv:
        cases += list(run_cases(build))
    if not cases:
        sys.exit("calibration.py: no cases (is %s built?)" % build)
    brier = 0.0
    bins = [(0.0, 0.5), (0.5, 0.6), (0.6, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.01)]
    table = {b: [0, 0.0, 0] for b in bins}
    for name, want, got, conf in cases:
        right = 1 if want == got else 0
        brier += (conf - right) ** 2
        for b in bins:
            if b[0] <= conf < b[1]:
                table[b][0] += 1
                table[b][1] += conf
                table[b][2] += right
        print("%-34s expected %-12s got %-12s confidence %.2f %s"
              % (name, want, got, conf, "" if right else "WRONG"))
    print()
    print("cases %d, right %d, Brier score %.4f"
          % (len(cases), sum(1 for c in cases if c[1] == c[2]), brier / len(cases)))
    print("%-11s %5s %10s %8s" % ("confidence", "cases", "mean conf", "right"))
    for b in bins:
        n, s, r = table[b]
        if n:
            print("%.1f-%.1f    %5d %10.2f %7.0f%%" % (b[0], min(b[1], 1.0), n, s / n, 100.0 * r / n))


if __name__ == "__main__":
    main()
