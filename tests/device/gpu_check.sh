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
#       printing each report's Verdict and GPU sections and one PASS/FAIL line per case;
#       exits 1 when a case fails. About 4 x SECONDS + start-up: well under 10 minutes.
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
	# case NAME MODE WHAT: the text report in $out/NAME.txt, the JSON one in $out/NAME.json.
	case_() {
		name=$1 mode=$2 want=$3
		"$cpw" -o "$out/$name.json" --json -- "$dir/gpu_work" "$mode" "$secs" >/dev/null 2>"$out/$name.err"
		"$cpw" -o "$out/$name.txt" -- "$dir/gpu_work" "$mode" "$secs" >/dev/null 2>>"$out/$name.err"
		echo "=== $name ($mode, $secs s): want $want"
		sed -n '/^GPU (/,/^Verdict:/{/^Verdict:/!p}; /^Verdict:/,$p' "$out/$name.txt"
		grep -v '^$' "$out/$name.err" | head -n 5 | sed 's/^/  (stderr) /'
		if grep -q -- "$4" "$out/$5"; then
			echo "PASS $name: $want"
		else
			echo "FAIL $name: $want (no '$4' in $5)"
			failed=1
		fi
	}
	case_ busy busy "gpu-bound" "^Verdict: gpu-bound" busy.txt
	case_ host host "starved by the host" "starved by the host" host.txt
	case_ blocking blocking "the gpu wait kind" '"gpu": {' blocking.json
	case_ pipeline pipeline "starved by the input pipeline" "starved by its input pipeline" pipeline.txt
	echo "gpu_check: reports kept in $out"
	exit $failed
	;;
*)
	echo "usage: gpu_check.sh build [DIR] | run CPERFWATCH [DIR]" >&2
	exit 2
	;;
esac
