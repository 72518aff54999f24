#!/bin/sh
# test_gpu.sh: the GPU side scripted by a fake libnvidia-ml.so.1 (tests/gpu/fake_nvml.c,
# built by make check), loaded by the real binary through LD_LIBRARY_PATH, on real
# workloads:
#   - spin, its device busy 97%: gpu-bound, the host's verdict the secondary; the GPU
#     section, the JSON gpu object (schema-valid) and the OpenMetrics families;
#   - sh -c 'spin | cat', cat holding an idle device: starved by its input pipeline;
#   - spin holding an idle device: starved by the host;
#   - device memory at 95%: the memory finding;
#   - nvmlInit failing, nvmlDeviceGetCount failing, a library without
#     nvmlDeviceGetCount, an older driver's functions: a note with the reason, no crash,
#     the host's own verdict;
#   - no library at all: no GPU section, no note;
#   - a host computing beside threads named as CUDA's own helpers, which poll a socket
#     all their lives (a real H100 showed them): starved by the host, the holder
#     cpu-bound, never "waiting on communication";
#   - a holder waiting on a socket its child feeds: a TCP one is waiting on
#     communication, a unix-domain one (a DataLoader's hand-over) is not;
#   - spin computing 4 s, its GPU idle until 1.6 s, then busy 97% (the script rewritten
#     while it runs): the timeline's gpu_busy column follows, and the run has a gpu-bound
#     phase after a phase that is not (a training run's start is CPU work);
#     --plot draws a GPU panel;
#   - the live view (tmux): the header's gpu figures and the gpu-bound verdict;
#   - a device with GPM (Hopper's): its SMs' activity and occupancy in the GPU section and
#     the JSON; one without: none (null);
#   - NVML naming the tree's processes by PIDs this namespace does not have (a container):
#     a note that says so, no GPU verdict; where one process of the tree maps the CUDA
#     driver (a file called libcuda.so.1 here), it is paired with NVML's one PID; of
#     several that map it (forked workers), the one with CUDA's event thread;
#   - blocking sync (tests/gpu/gpu_sync through a fake libcuda.so.1, tests/gpu/fake_cuda.c):
#     the host sleeps on a futex inside the driver, beside its cuda-EvtHandlr thread: the
#     gpu wait kind and gpu-bound; the same host sleeping on a lock of its own: a lock.
. "$CPW_SRCDIR/tests/integration/tap.sh"

W=$CPW_WORKLOADS
FAKE=$CPW_BUILDDIR/tests/gpu
plan 50

if [ ! -f "$FAKE/current/libnvidia-ml.so.1" ]; then
	skip_all "the fake NVML is not built (make check builds it)"
fi

script() { printf '%s\n' "$@" >"$SCRATCH/nvml"; }
# watch LIBDIR ARGS...: the report (text unless ARGS say otherwise) in $SCRATCH/out.
watch() {
	lib=$1
	shift
	CPW_FAKE_NVML="$SCRATCH/nvml" CPERFWATCH_NVML="$FAKE/${lib%%:*}/libnvidia-ml.so.1" \
		LD_LIBRARY_PATH="$FAKE/$lib" "$CPW" -o "$SCRATCH/out" "$@" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
	echo $? >"$SCRATCH/rc"
}
has() { # label file text
	if grep -qF -- "$3" "$2"; then ok "$1"; else not_ok "$1" "no '$3' in: $(cat "$2")"; fi
}
# jq_ok LABEL FILTER SHOW: ok where jq -e FILTER holds of the report, else not ok with
# jq -c SHOW of it (missing without jq).
jq_ok() {
	if ! command -v jq >/dev/null 2>&1; then
		missing "$1" jq
	elif jq -e "$2" "$SCRATCH/out" >/dev/null; then
		ok "$1"
	else
		not_ok "$1" "$(jq -c "$3" "$SCRATCH/out")"
	fi
}
hasnt() {
	if grep -qF -- "$3" "$2"; then not_ok "$1" "'$3' in: $(cat "$2")"; else ok "$1"; fi
}

# 1. Busy: gpu-bound.
script "device NVIDIA_Fake_H100 81559 30000 97" "proc spin 0 30000 95"
watch current -- "$W/spin" 2
has "busy: the verdict is gpu-bound" "$SCRATCH/out" "Verdict: gpu-bound"
has "busy: the host's verdict is the secondary (cpu-bound, or cpu-starved on a loaded machine)" "$SCRATCH/out" "), then cpu-"
has "busy: the GPU section names the device and its busy share" "$SCRATCH/out" "GPU 0 NVIDIA Fake H100: busy 97% of the run"
has "busy: the GPU section names spin and its SM share" "$SCRATCH/out" "spin: SM 95%, memory 30000 MiB"
has "busy: the text timeline has a gpu row" "$SCRATCH/out" "0-100% busy (the GPUs the tree holds)"
has "busy: one phase, the run's (the first reading covers the half second before it)" "$SCRATCH/out" "Phases: one (the whole run is gpu-bound"
watch current --json -- "$W/spin" 1
if command -v jq >/dev/null 2>&1; then
	if jq -e '.verdict.class == "gpu-bound" and .gpu.source == "nvml" and (.gpu.devices[0].busy_share | . > 0.96 and . < 0.98)
		and .gpu.processes[0].comm == "spin" and .gpu.processes[0].memory_bytes == 31457280000' \
		"$SCRATCH/out" >/dev/null; then
		ok "busy: JSON gpu {devices, processes}"
	else
		not_ok "busy: JSON gpu {devices, processes}" "$(jq -c '.gpu, .verdict.class' "$SCRATCH/out")"
	fi
else
	missing "busy: JSON gpu {devices, processes}" jq
fi
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	if validate_json "$SCRATCH/out" >"$SCRATCH/valid" 2>&1; then ok "busy: the JSON report is schema-valid"
	else not_ok "busy: the JSON report is schema-valid" "$(cat "$SCRATCH/valid")"; fi
else
	missing "busy: the JSON report is schema-valid" python3-jsonschema
fi
watch current --format openmetrics -- "$W/spin" 1
has "busy: OpenMetrics cperfwatch_gpu_busy_ratio" "$SCRATCH/out" 'cperfwatch_gpu_busy_ratio{command="spin",mode="run",gpu="0",name="NVIDIA Fake H100"} 0.97'
has "busy: OpenMetrics cperfwatch_gpu_process_sm_ratio" "$SCRATCH/out" 'cperfwatch_gpu_process_sm_ratio{command="spin",mode="run",gpu="0",pid="'

# 2. Idle while the feeder computes: starved by the input pipeline.
script "device NVIDIA_Fake_H100 81559 2000 5" "proc cat 0 2000 4"
watch current -- sh -c "'$W/spin' 2 | cat"
has "pipeline: starved by its input pipeline, the feeder named" "$SCRATCH/out" "starved by its input pipeline, cat waits on a pipe fed by spin (pid"
has "pipeline: the advice says more data-loader workers" "$SCRATCH/out" "more data-loader workers"

# 3. Idle while the holder computes: starved by the host.
script "device NVIDIA_Fake_H100 81559 2000 5" "proc spin 0 2000 4"
watch current -- "$W/spin" 2
has "host: starved by the host" "$SCRATCH/out" "starved by the host, spin (pid"
hasnt "host: the verdict is the host's, not gpu-bound" "$SCRATCH/out" "Verdict: gpu-bound"

# 4. Memory nearly full.
script "device NVIDIA_Fake_H100 1000 950 97" "proc spin 0 900 95"
watch current -- "$W/spin" 1
has "memory: 95% full is a finding" "$SCRATCH/out" "GPU memory is 95% full"

# 5. Errors and versions: a note, never a crash.
script "device NVIDIA_Fake_H100 81559 2000 97" "proc spin 0 2000 95" "fail nvmlInit 9"
watch current -- "$W/spin" 1
has "nvmlInit failing: a note with the reason" "$SCRATCH/out" "GPU: not read: nvmlInit failed: Driver Not Loaded (9)"
script "device NVIDIA_Fake_H100 81559 2000 97" "proc spin 0 2000 95" "fail nvmlDeviceGetCount 999"
watch current -- "$W/spin" 1
has "nvmlDeviceGetCount failing: a note, the host's verdict" "$SCRATCH/out" "GPU: nvmlDeviceGetCount failed: Unknown Error (999)"
watch broken -- "$W/spin" 1
has "a missing symbol: a note naming it" "$SCRATCH/out" "GPU: not read: libnvidia-ml.so.1 lacks nvmlDeviceGetCount"
script "device NVIDIA_Fake_H100 81559 2000 97" "proc spin 0 2000 95"
watch old -- "$W/spin" 2
has "an older driver: a note, the device still read" "$SCRATCH/out" "an older driver: compute processes through the first version"
has "an older driver: gpu-bound from what it gives" "$SCRATCH/out" "Verdict: gpu-bound"
has "an older driver: memory from the first version's layout, no SM share" "$SCRATCH/out" "spin: SM N/A, memory 2000 MiB"

# 7. The driver's helper threads wait by design: not the host's waits.
script "device NVIDIA_Fake_H100 81559 2000 5" "proc python3 0 2000 4"
watch current -- /usr/bin/python3 "$CPW_SRCDIR/tests/workloads/busy_with_helpers.py" 2 cuda
has "driver helpers: starved by the host" "$SCRATCH/out" "starved by the host, python3 (pid"
hasnt "driver helpers: their polls are not waiting on communication" "$SCRATCH/out" "waiting on communication"
hasnt "driver helpers: the holder is not called waiting" "$SCRATCH/out" "0 s: waiting"

# 8. Communication is TCP's, not the host's own unix-domain sockets.
script "device NVIDIA_Fake_H100 81559 2000 5" "proc python3 0 2000 4"
watch current -- /usr/bin/python3 "$CPW_SRCDIR/tests/workloads/socket_holder.py" tcp 2
has "tcp: waiting on communication" "$SCRATCH/out" "waiting on communication, python3 waits on the network"
watch current -- /usr/bin/python3 "$CPW_SRCDIR/tests/workloads/socket_holder.py" unix 2
hasnt "unix-domain: not waiting on communication" "$SCRATCH/out" "waiting on communication"

# 9. The GPU in the timeline and the phases.
script "device NVIDIA_Fake_H100 81559 2000 0" "proc spin 0 2000 0"
(
	sleep 1.6
	printf '%s\n' "device NVIDIA_Fake_H100 81559 30000 97" "proc spin 0 30000 95" >"$SCRATCH/nvml.new"
	mv "$SCRATCH/nvml.new" "$SCRATCH/nvml"
) &
watch current --json --plot "$SCRATCH/plot.svg" -- "$W/spin" 4
wait
jq_ok "phases: the timeline's gpu_busy goes from idle to busy" \
	'[.timeline.gpu_busy[] | select(. != null)] | (min < 0.1 and max > 0.9)' '.timeline.gpu_busy'
jq_ok "phases: a gpu-bound phase after one that is not" \
	'.phases | length >= 2 and .[-1].class == "gpu-bound" and .[0].class != "gpu-bound"
		and .[-1].start_s > 1 and .[-1].start_s < 3.5' '[.phases[] | [.start_s, .end_s, .class]]'
jq_ok "phases: the verdict's findings name the gpu-bound phase" \
	'any(.verdict.findings[]; test("overall; .* s gpu-bound"))' '.verdict.findings'

if grep -q 'GPU (busy share of the GPUs the tree holds' "$SCRATCH/plot.svg" &&
	grep -q '<polyline class="gpu"' "$SCRATCH/plot.svg" &&
	grep -q 'class="subtitle">Phases: [a-z-]* overall; ' "$SCRATCH/plot.svg" &&
	{ ! command -v xmllint >/dev/null 2>&1 || xmllint --noout "$SCRATCH/plot.svg" 2>/dev/null; }; then
	ok "phases: --plot draws a GPU panel (well-formed), its subtitle the phases' finding"
else
	not_ok "phases: --plot draws a GPU panel (well-formed), its subtitle the phases' finding" "$(grep -c gpu "$SCRATCH/plot.svg" 2>&1)"
fi

# 10. The live view: the GPU in its header, its verdict the report's.
if [ -n "$TMUX_BIN" ] && [ -x "$TMUX_BIN" ]; then
	SOCK="cpw-gpu-$$"
	. "$CPW_SRCDIR/tests/integration/tmux_pane.sh"
	script "device NVIDIA_Fake_H100 81559 30000 97" "proc spin 0 30000 95"
	T new-session -d -s run -x 120 -y 30 "env CPW_FAKE_NVML='$SCRATCH/nvml' \
		CPERFWATCH_NVML='$FAKE/current/libnvidia-ml.so.1' NO_COLOR=1 '$CPW' --no-cgroup --tui -- '$W/spin' 5; sleep 60"
	if wait_for run '  gpu 97% mem 29G/80G' 10; then
		ok "live view: the header shows the GPU's busy share and memory"
	else
		not_ok "live view: the header shows the GPU's busy share and memory" "$(show)"
	fi
	if wait_for run '^verdict: gpu-bound' 5; then
		ok "live view: the verdict is gpu-bound, as the report's"
	else
		not_ok "live view: the verdict is gpu-bound, as the report's" "$(show)"
	fi
	T kill-server >/dev/null 2>&1
else
	missing "live view: the header shows the GPU's busy share and memory" tmux
	missing "live view: the verdict is gpu-bound, as the report's" tmux
fi

# 11. GPM: the SMs' activity and occupancy where the device has it.
script "device NVIDIA_Fake_H100 81559 30000 97" "proc spin 0 30000 95" "gpm 0 35 20"
watch current -- "$W/spin" 2
has "GPM: the GPU section gives the SMs' activity and occupancy" "$SCRATCH/out" "busy 97% of the run (peak 97%); SMs active 35%, occupancy 20%, memory"
watch current --json -- "$W/spin" 2
jq_ok "GPM: JSON sm_active_share and sm_occupancy_share" \
	'.gpu.devices[0] | .sm_active_share == 0.35 and .sm_occupancy_share == 0.2' '.gpu.devices[0]'
script "device NVIDIA_Fake_H100 81559 30000 97" "proc spin 0 30000 95" "gpm 0 35 20" "fail nvmlGpmQueryDeviceSupport 3"
watch current -- "$W/spin" 1
hasnt "GPM refused: no SM figures, the rest as before" "$SCRATCH/out" "SMs active"

# 12. From inside a container: NVML's PIDs are the host's.
script "device NVIDIA_Fake_H100 81559 30000 97" "proc spin 0 30000 95" "pidoffset 4200000"
watch current -- "$W/spin" 1
has "container: a note says NVML's PIDs are not this namespace's" "$SCRATCH/out" "GPU: NVML listed 1 process(es) by PIDs this PID namespace does not have"
hasnt "container: no GPU verdict from processes it cannot tell" "$SCRATCH/out" "Verdict: gpu-bound"

cat >"$SCRATCH/cuda_user.py" <<'PYEOF'
import mmap, os, sys, time
path = os.path.join(sys.argv[1], "libcuda.so.1")
with open(path, "wb") as f:
    f.write(b"\0" * 4096)
with open(path, "rb") as f:
    m = mmap.mmap(f.fileno(), 4096, prot=mmap.PROT_READ)
    end = time.monotonic() + float(sys.argv[2])
    while time.monotonic() < end:
        sum(range(1000))
PYEOF
script "device NVIDIA_Fake_H100 81559 30000 97" "proc python3 0 30000 95" "pidoffset 4200000"
watch current -- /usr/bin/python3 "$SCRATCH/cuda_user.py" "$SCRATCH" 2.5
has "container: NVML's one PID paired with the process that maps the CUDA driver" "$SCRATCH/out" "is taken for pid"
has "container, paired: the GPU verdict is made" "$SCRATCH/out" "Verdict: gpu-bound"
# A DataLoader's workers are forked after the driver is loaded: they map it too, but only
# the parent has a CUDA context, and with it the driver's event thread.
cat >"$SCRATCH/cuda_forker.py" <<'PYEOF'
import ctypes, mmap, os, sys, threading, time
path = os.path.join(sys.argv[1], "libcuda.so.1")
with open(path, "wb") as f:
    f.write(b"\0" * 4096)
f = open(path, "rb")
m = mmap.mmap(f.fileno(), 4096, prot=mmap.PROT_READ)
end = time.monotonic() + float(sys.argv[2])
def event_thread():
    ctypes.CDLL(None).prctl(15, b"cuda-EvtHandlr", 0, 0, 0)  # PR_SET_NAME
    time.sleep(end - time.monotonic() + 1)
kids = []
for _ in range(2):
    kid = os.fork()
    if kid == 0:  # a worker: another name, so that the fake NVML lists only its parent
        ctypes.CDLL(None).prctl(15, b"loader", 0, 0, 0)
        while time.monotonic() < end:
            sum(range(1000))
        os._exit(0)
    kids.append(kid)
threading.Thread(target=event_thread, daemon=True).start()
while time.monotonic() < end:
    sum(range(1000))
for k in kids:
    os.waitpid(k, 0)
PYEOF
script "device NVIDIA_Fake_H100 81559 30000 97" "proc python3 0 30000 95" "pidoffset 4200000"
watch current -- /usr/bin/python3 "$SCRATCH/cuda_forker.py" "$SCRATCH" 2.5
has "container, forked workers: NVML's PID paired with the process that has a CUDA context" "$SCRATCH/out" "is taken for pid"
has "container, forked workers: the GPU verdict is made" "$SCRATCH/out" "Verdict: gpu-bound"
# On the host, the tree's own PID listed beside one nobody has (a process that ended
# since NVML listed it): no pairing, no container note.
script "device NVIDIA_Fake_H100 81559 30000 97" "proc python3 0 30000 95" "ghost 4199999 0 100 5"
watch current -- /usr/bin/python3 "$SCRATCH/cuda_user.py" "$SCRATCH" 1
hasnt "host: a PID that ended is not paired with the tree's process" "$SCRATCH/out" "cperfwatch runs in a container"

# 13. Blocking sync: a futex slept on inside the CUDA driver is a wait on the GPU.
script "device NVIDIA_Fake_H100 81559 30000 97" "proc gpu_sync 0 30000 95"
watch "current:$FAKE/cuda" -- "$FAKE/gpu_sync" 2.5
has "blocking sync: the host's futex is a gpu wait" "$SCRATCH/out" "the CUDA driver (a blocking synchronize)"
has "blocking sync: gpu-bound" "$SCRATCH/out" "Verdict: gpu-bound"
has "blocking sync: the host waits on the GPU, in evidence" "$SCRATCH/out" "host threads wait on the GPU (in its driver)"
watch "current:$FAKE/cuda" --json -- "$FAKE/gpu_sync" 2
jq_ok "blocking sync: JSON waits, most on the gpu" '.waits.kinds.gpu.share > 0.5' '.waits.kinds'
watch "current:$FAKE/cuda" -- "$FAKE/gpu_sync" 2 own
hasnt "a lock of the host's own beside the driver's threads: no gpu wait" "$SCRATCH/out" "blocking synchronize"

# 6. No library: nothing, and the exit status is the command's.
LD_LIBRARY_PATH="$SCRATCH/none" "$CPW" -o "$SCRATCH/out" -- "$W/spin" 0.5 2>/dev/null
rc=$?
if [ "$rc" = 0 ] && ! grep -q "GPU" "$SCRATCH/out"; then ok "no library: no GPU section, no note"
else not_ok "no library: no GPU section, no note" "rc $rc: $(grep GPU "$SCRATCH/out")"; fi
# 7. No NVIDIA device node: the library is not looked for (the loader's search of every
# directory of its path was ~110 system calls in every run); one named by CPERFWATCH_NVML
# that is not there is said.
if [ -e /dev/nvidiactl ] || [ -e /dev/dxg ]; then
	skip "no device node: no search for libnvidia-ml.so.1" "this machine has an NVIDIA device node"
elif ! can_strace; then
	skip_strace "no device node: no search for libnvidia-ml.so.1"
else
	strace -f -qq -e trace=openat,open -o "$SCRATCH/trace" "$CPW" -o "$SCRATCH/out" -- "$W/spin" 0.3 2>/dev/null
	looked=$(grep -c 'libnvidia-ml' "$SCRATCH/trace")
	if [ "$looked" = 0 ] && grep -q 'openat' "$SCRATCH/trace"; then
		ok "no device node: no search for libnvidia-ml.so.1"
	else not_ok "no device node: no search for libnvidia-ml.so.1" "$looked opens of it"; fi
fi
CPERFWATCH_NVML="$SCRATCH/none/libnvidia-ml.so.1" "$CPW" -o "$SCRATCH/out" -- "$W/spin" 0.5 2>/dev/null
has "CPERFWATCH_NVML naming no file: a note that says so" "$SCRATCH/out" \
	"cannot open $SCRATCH/none/libnvidia-ml.so.1 (CPERFWATCH_NVML)"
done_testing
