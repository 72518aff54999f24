#!/bin/sh
# test_slurm_merge.sh: cperfwatch under Slurm's srun, one report per task named with %r
# (SLURM_PROCID), then --merge: the straggler (the task given more work) is named and every
# task is in the table. The test starts a one-node cluster of its own: munged with a key and
# socket in $SCRATCH, slurmctld and slurmd in the foreground on free ports of 127.0.0.1,
# configured by a slurm.conf in $SCRATCH (passed as SLURM_CONF; /etc/slurm and the system's
# munge key are never read). Each daemon runs under timeout and is stopped by its pid, in
# the reverse order of their start (munged last: a slurmstepd still reporting its step's end
# needs it), after the job has left the queue; what is left of the test's processes (found
# by the SLURM_CONF in their environment) is killed by pid on exit.
. "$CPW_SRCDIR/tests/integration/tap.sh"
plan 8

PIDS="" # newest first
stop_daemons() {
	for pid in $PIDS; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null # timeout -k 5: KILLed 5 s after the TERM it passes on
	done
	PIDS=""
}
kill_leftovers() {
	[ -n "${CONF:-}" ] || return 0
	for p in $(ours); do kill -KILL "${p#/proc/}" 2>/dev/null; done
}
trap 'stop_daemons; kill_leftovers; remove_scratch' EXIT INT TERM

for tool in munged munge slurmctld slurmd srun sinfo; do
	command -v $tool >/dev/null 2>&1 && continue
	case $tool in munge*) pkg=munge ;; *) pkg=slurm-wlm ;; esac
	missing_all "srun and --merge" $pkg
done
is_root || skip_all "srun and --merge" "slurmd runs jobs as their user: it needs root"

free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# Processes started with this test's slurm.conf in their environment (slurmstepd too).
# One grep reads them all; it does not carry SLURM_CONF itself (this shell never exports it).
ours() {
	grep -lzx "SLURM_CONF=$CONF" /proc/[0-9]*/environ 2>/dev/null | sed 's|/environ$||'
}
none_left() { [ -z "$(ours)" ]; }
# Runs CMD... until it succeeds or SECONDS have passed (then fails).
wait_until() {
	_end=$(($(date +%s) + $1)); shift
	until "$@"; do
		[ "$(date +%s)" -lt $_end ] || return 1
		sleep 0.2
	done
}
# A client command on this test's cluster, bounded.
sl() { SLURM_CONF=$CONF timeout 10 "$@"; }
node_idle() { [ "$(sl sinfo -h -N -o %t 2>/dev/null)" = idle ]; }
munge_answers() { munge -S "$MUNGE_SOCKET" -n 2>/dev/null | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1; }
# srun returns when the tasks end; the step's end then goes from slurmstepd to slurmctld.
# Settled: the queue is empty and no slurmstepd of ours runs.
settled() {
	[ -z "$(sl squeue -h 2>&1)" ] || return 1
	for p in $(ours); do grep -q '^Name:[[:space:]]*slurmstepd' "$p/status" 2>/dev/null && return 1; done
	return 0
}

cd "$SCRATCH" || exit 1
CONF=$SCRATCH/slurm.conf
NODE=$(hostname -s)
mkdir munge state spool
head -c 1024 /dev/urandom >munge/munge.key
chmod 600 munge/munge.key
MUNGE_SOCKET=$SCRATCH/munge/socket

# 1: munged on a socket of its own.
SLURM_CONF=$CONF timeout -k 5 90 munged --foreground --force --socket="$MUNGE_SOCKET" \
	--key-file="$SCRATCH/munge/munge.key" --pid-file="$SCRATCH/munge/munged.pid" \
	--log-file="$SCRATCH/munge/munged.log" --seed-file="$SCRATCH/munge/munged.seed" \
	>munged.out 2>&1 &
PIDS="$! $PIDS"
if ! wait_until 10 munge_answers; then
	not_ok "munged answers on its socket" "$(tail -n 20 munged.out)"
	skip_all "srun and --merge" "munged did not start"
fi
ok "munged answers on its socket"

# 2: slurmctld and slurmd, one node of nproc CPUs, one partition, no accounting.
cat >"$CONF" <<EOF
ClusterName=cpwtest
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$SCRATCH/state
SlurmdSpoolDir=$SCRATCH/spool
SlurmctldPidFile=$SCRATCH/slurmctld.pid
SlurmdPidFile=$SCRATCH/slurmd.pid
SlurmctldLogFile=$SCRATCH/slurmctld.log
SlurmdLogFile=$SCRATCH/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$NODE Default=YES MaxTime=5 State=UP
EOF
SLURM_CONF=$CONF timeout -k 5 90 slurmctld -D -i >slurmctld.out 2>&1 &
PIDS="$! $PIDS"
SLURM_CONF=$CONF timeout -k 5 90 slurmd -D -N "$NODE" >slurmd.out 2>&1 &
PIDS="$! $PIDS"
if ! wait_until 20 node_idle; then
	not_ok "slurmctld and slurmd: the node is idle" \
		"sinfo: $(sl sinfo -N 2>&1); $(tail -n 10 slurmctld.out slurmd.out)"
	skip_all "srun and --merge" "the node did not come up"
fi
ok "slurmctld and slurmd: the node is idle"

# 3-7: srun -n 3 (overcommitted: the node may have fewer CPUs). Task 2 spins 1.2 s, the
# others 0.3 s: task 2 is the straggler.
cat >work.sh <<'SH'
#!/bin/sh
if [ "$SLURM_PROCID" = 2 ]; then exec "$1" 1.2; else exec "$1" 0.3; fi
SH
chmod +x work.sh
SLURM_CONF=$CONF timeout -k 5 30 srun --overcommit -n 3 -t 1 -D "$SCRATCH" \
	"$CPW" --json -o 'job.%r.json' -- ./work.sh "$CPW_WORKLOADS/spin" >srun.out 2>&1
rc=$?
if [ $rc -eq 0 ] && [ -s job.0.json ] && [ -s job.1.json ] && [ -s job.2.json ]; then
	ok "srun -n 3: one report per task (job.0.json job.1.json job.2.json)"
else
	not_ok "srun -n 3: one report per task (job.0.json job.1.json job.2.json)" \
		"exit $rc: $(ls; tail -n 20 srun.out slurmd.out)"
fi
check "each report carries its rank and this host" sh -c 'for r in 0 1 2; do
	grep -q "\"rank\": $r," job.$r.json && grep -q "\"host\": \"$1\"" job.$r.json || exit 1; done' - "$NODE"

"$CPW" --merge job.*.json >merge.txt 2>merge.err
check "--merge exits 0" test $? -eq 0
check "--merge names task 2 as the straggler" grep -q "straggler: rank 2 (.*) finished last" merge.txt
check "--merge lists every task" sh -c "[ \$(grep -cE '^  [^ ]+ +[0-2] ' merge.txt) -eq 3 ]"

# 8: the job leaves the queue, every daemon stops, and nothing started with this
# slurm.conf is left (slurmstepd included).
wait_until 20 settled
was=$?
stop_daemons
wait_until 10 none_left
left=$(ours)
if [ $was -eq 0 ] && [ -z "$left" ]; then
	ok "the job ended, every daemon stopped, none left"
else
	not_ok "the job ended, every daemon stopped, none left" "queue: $(sl squeue 2>&1); left: $(
		for p in $left; do tr '\0' ' ' <"$p/cmdline"; echo; done)"
fi
done_testing
