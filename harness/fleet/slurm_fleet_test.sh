#!/usr/bin/env bash
# The fleet on a real Slurm cluster, on this machine: one controller and three compute nodes
# (Debian's slurmctld, slurmd and munge), one of them broken for real; see slurm_cluster.sh for
# what is asserted. The cluster lives in its own PID, network and mount namespaces: whatever
# ends this test (its end, a failure, CTest's TIMEOUT killing it), the kernel ends every
# process of the cluster with it, and this script checks that none is left.
#
#   slurm_fleet_test.sh CHECK JUNIT SOURCE_ROOT
# Exit 77 (skipped, with the reason) where the daemons or the namespaces are not available.
set -euo pipefail
check=$1 junit=$2 root=$3
skip() {
  echo "skipped: $*"
  exit 77
}
for tool in slurmctld slurmd munged sbatch scontrol sinfo unshare setpriv ip jq xmllint mknod; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (./ci/setup --slurm installs it)"
done
[[ $(id -u) == 0 ]] || skip "slurmd and the namespaces need root; this runs as $(id -un)"
# setpriv: when this script dies, however (CTest's TIMEOUT kills it), unshare is killed, and
# with it (--kill-child) the namespace's first process and so every process in it.
ns=(setpriv --pdeathsig KILL unshare --pid --net --mount --uts --fork --kill-child --mount-proc)
if ! why=$("${ns[@]}" true 2>&1); then
  skip "cannot make PID, network, mount and UTS namespaces here: $why"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/kd-slurm-fleet.XXXXXX")
inner=
cleanup() {
  if [[ -n $inner ]]; then kill -KILL "$inner" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

"${ns[@]}" bash "$root/harness/fleet/slurm_cluster.sh" "$work" "$check" "$junit" "$root" &
inner=$!
# The namespace, to look for survivors once it is over.
pid_ns=
for _ in $(seq 50); do
  child=$(cat "/proc/$inner/task/$inner/children" 2>/dev/null || true)
  child=${child%% *}
  if [[ -n $child ]] && pid_ns=$(readlink "/proc/$child/ns/pid" 2>/dev/null) &&
     [[ $pid_ns != "$(readlink /proc/self/ns/pid)" ]]; then
    break
  fi
  pid_ns=
  sleep 0.1
done
status=0
wait "$inner" || status=$?
inner=
[[ -n $pid_ns ]] || { echo "FAILED: the cluster's PID namespace was never seen"; exit 1; }
survivors=()
for d in /proc/[0-9]*; do
  [[ $(readlink "$d/ns/pid" 2>/dev/null) == "$pid_ns" ]] && survivors+=("${d#/proc/}")
done
if ((${#survivors[@]} > 0)); then
  echo "FAILED: processes of the cluster still running: ${survivors[*]}"
  ps -o pid,args -p "$(IFS=,; echo "${survivors[*]}")" || true
  exit 1
fi
echo "no process of the cluster's namespace is left ($pid_ns)"
exit "$status"
