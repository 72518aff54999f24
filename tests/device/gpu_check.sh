#!/bin/sh
# tests/device/gpu_check.sh: cperfwatch on a real NVIDIA GPU (an H100 or H200 host), the
# one check the fake NVML of tests/integration/test_gpu.sh cannot make. Two steps:
#
#   sh tests/device/gpu_check.sh build [DIR]
#       here, where the CUDA toolkit is: nvcc builds tests/device/gpu_work.cu into DIR
#       (default tests/device/bin), cudart linked statically, for sm_80, sm_90 and PTX, so
#       that the GPU machine needs only its driver.
#   sh tests/device/gpu_check.sh run CPERFWATCH [DIR]
#       there: runs each case under CPERFWATCH (the built binary) for SECONDS (default 8)
#       and checks
#         busy      a kernel loop that keeps the device busy      gpu-bound
#         host      tiny kernels fed by a CPU-heavy host loop      starved by the host
#         blocking  the busy loop with blocking sync               the gpu wait kind
#         pipeline  tiny kernels fed by 2 cpu-bound workers        starved by the input
#                   through pipes                                  pipeline
#       and, where python3 has torch with a CUDA device (tests/device/torch_work.py), for
#       TORCH_SECONDS (default 30: a training run's start, 10 s of importing torch and
#       making a CUDA context, is CPU work, and the device busy for most of the run is
#       the rule; splitting the run into phases by the GPU is still to be done):
#         torch-train   an MLP's forward and backward on the GPU   gpu-bound
#         torch-loader  a DataLoader with 2 workers at 20 ms of    starved by the input
#                       pure Python per item                       pipeline
#       printing each report's Hotspots, GPU, Processes and Verdict sections, the waits of
#       the blocking case by kind, and one PASS/FAIL line per case; exits 1 when a case
#       fails. The gpu_work cases run twice (JSON, text), the torch ones once (text):
#       about 8 x SECONDS + 2 x TORCH_SECONDS + start-up, well under 10 minutes.
#
# What driver 580 on an H100 showed (2026-11-27): CUDA's blocking sync sleeps on a futex
# that its cuda-EvtHandlr thread wakes, not in an ioctl on /dev/nvidia*. Since then the
# proc reader calls such a futex a gpu wait where the sleeping thread's stack returns into
# libcuda (doc/classification.md), and the blocking case checks that its target is "the
# CUDA driver (a blocking synchronize)"; that check has not yet run on a real GPU.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:-}
case $cmd in
build)
	dir=${2:-$here/bin}
	NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
	[ -x "$NVCC" ] || { echo "gpu_check: no nvcc (set NVCC)" >&2; exit 2; }
	mkdir -p "$dir" || exit 2
	"$NVCC" -O2 -cudart static \
		-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
		-gencode arch=compute_90,code=compute_90 \
		-o "$dir/gpu_work" "$here/gpu_work.cu" || exit 2
	echo "gpu_check: built $dir/gpu_work"
	;;
run)
	cpw=${2:-}
	dir=${3:-$here/bin}
	secs=${SECONDS_PER_CASE:-8}
	[ -x "$cpw" ] || { echo "gpu_check: run needs the cperfwatch binary" >&2; exit 2; }
	[ -x "$dir/gpu_work" ] || { echo "gpu_check: no $dir/gpu_work: run 'gpu_check.sh build' first" >&2; exit 2; }
	out=$(mktemp -d "${TMPDIR:-/tmp}/gpu_check.XXXXXX") || exit 2
	command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L
	failed=0
	# case_ NAME WANT PATTERN FILE CMD...: the text report in $out/NAME.txt and, where
	# JSON=1, the JSON one in $out/NAME.json; PASS when PATTERN is in FILE.
	case_() {
		name=$1 want=$2 pattern=$3 file=$4
		shift 4
		if [ "${JSON:-1}" = 1 ]; then
			"$cpw" -o "$out/$name.json" --json -- "$@" >"$out/$name.out" 2>"$out/$name.err"
		fi
		"$cpw" -o "$out/$name.txt" -- "$@" >>"$out/$name.out" 2>>"$out/$name.err"
		echo "=== $name ($*): want $want"
		sed -n '/^Hotspots/,/^Notes:/p' "$out/$name.txt" |
			grep -v '^Notes:'
		grep -v '^$' "$out/$name.err" | head -n 5 | sed 's/^/  (stderr) /'
		if grep -q -- "$pattern" "$out/$file"; then
			echo "PASS $name: $want"
		else
			echo "FAIL $name: $want (no '$pattern' in $file)"
			failed=1
		fi
	}
	case_ busy "gpu-bound" "^Verdict: gpu-bound" busy.txt "$dir/gpu_work" busy "$secs"
	case_ host "starved by the host" "starved by the host" host.txt "$dir/gpu_work" host "$secs"
	case_ blocking "gpu-bound with blocking sync" "^Verdict: gpu-bound" blocking.txt \
		"$dir/gpu_work" blocking "$secs"
	if grep -q "the CUDA driver (a blocking synchronize)" "$out/blocking.txt"; then
		echo "PASS blocking: the host's futex inside the driver is a gpu wait"
	else
		echo "FAIL blocking: no gpu wait on the CUDA driver (a blocking synchronize)"
		failed=1
	fi
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json, sys
w = json.load(open(sys.argv[1])).get("waits") or {}
print("  blocking: waits by kind (thread-seconds):", ", ".join("%s %.1f" % (k, v["thread_s"])
      for k, v in sorted((w.get("kinds") or {}).items())), "; idle by design %.1f" %
      (w.get("idle_by_design") or {}).get("thread_s", 0))' "$out/blocking.json"
	fi
	case_ pipeline "starved by the input pipeline" "starved by its input pipeline" pipeline.txt \
		"$dir/gpu_work" pipeline "$secs"
	for c in host pipeline; do
		if grep -q "waiting on communication" "$out/$c.txt"; then
			echo "FAIL $c: the CUDA driver's helper threads called waiting on communication"
			failed=1
		fi
	done
	PY=${PYTHON:-python3}
	tsecs=${TORCH_SECONDS:-30}
	if "$PY" -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
		JSON=0 case_ torch-train "gpu-bound" "^Verdict: gpu-bound" torch-train.txt \
			"$PY" "$here/torch_work.py" train "$tsecs"
		JSON=0 case_ torch-loader "starved by the input pipeline" "starved by its input pipeline" \
			torch-loader.txt "$PY" "$here/torch_work.py" loader "$tsecs"
	else
		echo "SKIP torch: $PY has no torch with a CUDA device"
	fi
	echo "gpu_check: reports kept in $out"
	exit $failed
	;;
*)
	echo "usage: gpu_check.sh build [DIR] | run CPERFWATCH [DIR]" >&2
	exit 2
	;;
esac
