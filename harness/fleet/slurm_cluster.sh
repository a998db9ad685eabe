#!/usr/bin/env bash
# The inside of slurm_fleet_test.sh, run as the first process of its own PID, network, mount
# and UTS namespaces (no port or name shared with the machine, and the end of this script ends
# every process it started). Starts munged, slurmctld (kd-ctl) and three slurmd (kd1, kd2,
# kd3), each with its own address and name, breaks kd3 for real (libtorch_cpu truncated in
# kd3's own mount namespace: every process kd3's slurmd starts sees it), then:
#   1. submits ci/templates/slurm/kernodeck-fleet.sbatch (one task per node, --device cpu) and
#      asserts the merged JUnit: kd1 and kd2 pass, kd3 fails with TORCH_IMPORT_FAILED(4) import;
#   2. turns on ci/templates/slurm/kernodeck-healthcheck as slurmd's HealthCheckProgram and
#      asserts that exactly kd3 is drained, with reason "kernodeck TORCH_IMPORT_FAILED(4) import
#      CorruptLibrary" (the cause the check named);
#   3. stops the daemons and asserts that no process of the cluster is left.
#
#   slurm_cluster.sh WORK CHECK JUNIT SOURCE_ROOT
set -euo pipefail
work=$1 check=$2 junit=$3 root=$4
mkdir -p "$work/log" "$work/state" "$work/shared" "$work/dev" "$work"/spool/kd{1,2,3}
chmod 711 "$work"
templates=$root/ci/templates/slurm
started=$SECONDS
say() { echo "[$((SECONDS - started)) s] $*"; }
fail() {
  echo "FAILED: $*" >&2
  for f in "$work"/log/*.log "$work"/log/munged.out; do
    [[ -s $f ]] || continue
    echo "---- last lines of ${f##*/}:" >&2
    tail -n 15 "$f" >&2
  done
  exit 1
}

# A network of its own: a veth pair inside this namespace carries an address for the controller
# and one per node (slurmd binds with AI_ADDRCONFIG, which ignores loopback alone), with host
# names from a hosts file bound over /etc/hosts in this mount namespace only.
ip link set lo up
ip link add kd-a type veth peer name kd-b
ip link set kd-a up
ip link set kd-b up
ip addr add 10.77.0.1/24 dev kd-a
for n in 1 2 3; do ip addr add "10.77.0.1$n/24" dev kd-a; done
hostname kd-ctl
printf '127.0.0.1 localhost\n10.77.0.1 kd-ctl\n10.77.0.11 kd1\n10.77.0.12 kd2\n10.77.0.13 kd3\n' \
  >"$work/hosts"
mount --bind "$work/hosts" /etc/hosts

# Munge: its own key, socket and files, all in the work folder.
dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge.key"
munged --foreground --force --socket="$work/munge.socket" --key-file="$work/munge.key" \
  --log-file="$work/log/munged.log" --pid-file="$work/munged.pid" \
  --seed-file="$work/munged.seed" >"$work/log/munged.out" 2>&1 &
daemons=($!)

# One GPU per node, as a GRES the scheduler hands out (CUDA_VISIBLE_DEVICES): a character
# device standing in for /dev/nvidia0, so the template's --gpus-per-task=1 runs unchanged.
mknod "$work/dev/nvidia0" c 1 3
cat >"$work/slurm.conf" <<CONF
ClusterName=kdfleet
SlurmctldHost=kd-ctl(10.77.0.1)
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
AuthInfo=socket=$work/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.%n.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
GresTypes=gpu
NodeName=kd1 NodeHostname=kd1 NodeAddr=10.77.0.11 Port=6821 CPUs=1 Gres=gpu:1 State=UNKNOWN
NodeName=kd2 NodeHostname=kd2 NodeAddr=10.77.0.12 Port=6822 CPUs=1 Gres=gpu:1 State=UNKNOWN
NodeName=kd3 NodeHostname=kd3 NodeAddr=10.77.0.13 Port=6823 CPUs=1 Gres=gpu:1 State=UNKNOWN
PartitionName=gpu Nodes=kd[1-3] Default=YES MaxTime=10 State=UP
CONF
echo "NodeName=kd[1-3] Name=gpu File=$work/dev/nvidia0" >"$work/gres.conf"
export SLURM_CONF=$work/slurm.conf
# The cluster's clients and jobs find nothing of the machine's own Slurm set-up.
unset SLURM_JOB_ID SLURM_JOBID

slurmctld -D -i >"$work/log/slurmctld.out" 2>&1 &
daemons+=($!)
for node in kd1 kd2; do
  slurmd -D -N "$node" >"$work/log/slurmd.$node.out" 2>&1 &
  daemons+=($!)
done
# kd3: a half-installed libtorch, seen by kd3's slurmd and everything it starts.
torch_cpu=$(ldconfig -p | awk '/libtorch_cpu\.so/ { found = $NF } END { print found }')
[[ -n $torch_cpu ]] || fail "libtorch_cpu is not in the loader cache: nothing to break on kd3"
: >"$work/truncated"
unshare --mount bash -c 'mount --bind "$1" "$2" && exec slurmd -D -N kd3' _ \
  "$work/truncated" "$(readlink -f "$torch_cpu")" >"$work/log/slurmd.kd3.out" 2>&1 &
daemons+=($!)

stop_daemons() {
  local pid
  for pid in "${daemons[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${daemons[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_daemons EXIT

wait_for() {  # wait_for SECONDS WHAT COMMAND...: polls COMMAND every half second
  local limit=$1 what=$2 deadline
  shift 2
  deadline=$((SECONDS + limit))
  until "$@"; do
    ((SECONDS < deadline)) || fail "$what, not within $limit s"
    sleep 0.5
  done
}
idle_nodes() { [[ $(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l) == 3 ]]; }
wait_for 60 "the three nodes idle" idle_nodes
say "cluster up: $(sinfo -h -N -o '%N %t' | tr '\n' ' ')"

# 1. The fleet job, as a cluster team submits it (the partition and sizes of this cluster).
export KERNODECK_SHARED=$work/shared KERNODECK_TASK=$templates/kernodeck-task \
  KERNODECK_JUNIT=$junit KERNODECK_CHECK=$check
job_status=0
timeout 120 sbatch --wait --nodes=3 --ntasks-per-node=1 --chdir="$work" --output="$work/log/job.log" \
  "$templates/kernodeck-fleet.sbatch" --device cpu --timeout 30 || job_status=$?
say "fleet job ended with $job_status"
cat "$work/log/job.log"
out=$(echo "$work"/shared/fleet-*)
[[ -f $out/junit.xml ]] || fail "the fleet job wrote no junit.xml (job exit $job_status)"
[[ $job_status != 0 ]] || fail "the fleet job succeeded although kd3 is broken"
xmllint --noout --schema "$root/reporting/junit-10.xsd" "$out/junit.xml" ||
  fail "junit.xml does not validate against junit-10.xsd"
xpath() { xmllint --xpath "$1" "$out/junit.xml"; }
for node in kd1 kd2; do
  [[ $(xpath "string(//testsuite[@name='$node']/@tests)") == 1 &&
     $(xpath "count(//testsuite[@name='$node']/testcase[not(failure|error|skipped)])") == 1 ]] ||
    fail "$node should pass: $(xpath "//testsuite[@name='$node']")"
done
failure=$(xpath "string(//testsuite[@name='kd3']/testcase[@name='0']/failure/@message)")
[[ $failure == "TORCH_IMPORT_FAILED(4) import: "* ]] ||
  fail "kd3 should fail with TORCH_IMPORT_FAILED(4) import; its case: $(xpath "//testsuite[@name='kd3']")"
[[ $(xpath "string(//testsuite[@name='kd3']/testcase/failure/@type)") == TORCH_IMPORT_FAILED ]] ||
  fail "kd3's failure type is not the code"
[[ $(xpath "string(/testsuites/@tests)") == 4 && $(xpath "string(/testsuites/@errors)") == 0 ]] ||
  fail "the report should hold three GPUs and the certificate, no error: $(head -c 600 "$out/junit.xml")"
grep -q '^| kd3 | failing | 1 | 0 | 1 | 0 | TORCH_IMPORT_FAILED(4) import |$' "$out/summary.md" ||
  fail "summary.md does not show kd3 failing at import: $(cat "$out/summary.md")"
say "merged JUnit: kd1, kd2 passed; kd3: $failure"

# 2. The health check, as slurmd runs it. slurmd gives it almost no environment: this site's
# settings come in through the wrapper.
cat >"$work/healthcheck" <<HC
#!/bin/sh
export SLURM_CONF=$SLURM_CONF KERNODECK_CHECK=$check KERNODECK_HEALTH_DEVICE=cpu \
  KERNODECK_HEALTH_TIMEOUT=20
"$templates/kernodeck-healthcheck" >>"$work/log/health.\$SLURMD_NODENAME.log" 2>&1
echo "exit \$?" >>"$work/log/health.\$SLURMD_NODENAME.log"
HC
chmod +x "$work/healthcheck"
printf 'HealthCheckProgram=%s\nHealthCheckInterval=5\nHealthCheckNodeState=ANY\n' \
  "$work/healthcheck" >>"$SLURM_CONF"
scontrol reconfigure
checked_all() {
  local node
  for node in kd1 kd2 kd3; do grep -q '^exit ' "$work/log/health.$node.log" 2>/dev/null || return 1; done
}
wait_for 60 "a health check on every node" checked_all
drained() { [[ $(sinfo -h -N -t drain,drng -o %N | sort -u) == kd3 ]]; }
wait_for 20 "kd3 drained" drained
reasons=$(sinfo -h -N -R -o '%N|%E' | sort -u)
[[ $reasons == "kd3|kernodeck TORCH_IMPORT_FAILED(4) import CorruptLibrary" ]] ||
  fail "exactly kd3 should be drained, for kernodeck TORCH_IMPORT_FAILED(4) import CorruptLibrary; sinfo -R says: $reasons"
states=$(sinfo -h -N -o '%N %t' | sort -u | tr '\n' ' ')
[[ $states == "kd1 idle kd2 idle kd3 drain " ]] || fail "node states: $states"
grep -q '^exit 0$' "$work/log/health.kd1.log" && grep -q '^exit 0$' "$work/log/health.kd2.log" ||
  fail "the health check did not pass on kd1 and kd2"
say "health check: $states; reason: ${reasons#*|}"

# 3. Nothing left: the daemons stop, and with them every process they started.
trap - EXIT
stop_daemons
# Every process of this PID namespace but this script and the listing itself.
ps -e -o pid=,ppid=,args= >"$work/processes"
left=$(awk -v me=$$ '$1 != me && !($2 == me && $3 == "ps")' "$work/processes")
[[ -z $left ]] || fail "still running after the daemons stopped: $left"
say "all daemons stopped, no process left"
