# shellcheck shell=bash
# Sourced by the health check's tests (healthcheck_test.sh, npd_plugin_test.sh,
# prometheus_test.sh): the real check behind check_wrapper.sh with the fault probe, a recording
# scontrol, a work folder removed at exit, and assertions that print what they saw.
#
#   source health_lib.sh CHECK FAULT_PROBE SOURCE_ROOT
# Sets: check probe root healthcheck wrapper work absent_module; health_env (the settings every
# case starts from); run_health (runs the health check with health_env and more VAR=VALUE);
# find_torch_python (an interpreter for the application layer).
check=$1 probe=$2 root=$3
healthcheck=$root/ci/templates/slurm/kernodeck-healthcheck
wrapper=$root/harness/fleet/check_wrapper.sh
skip() {
  echo "skipped: $*"
  exit 77
}
fail() {
  echo "FAILED: $*" >&2
  exit 1
}
for tool in jq timeout; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (./ci/setup --prometheus installs it)"
done
work=$(mktemp -d "${TMPDIR:-/tmp}/kd-health-test.XXXXXX")
on_exit=()
cleanup() {
  local step
  for step in "${on_exit[@]}"; do eval "$step"; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# scontrol as the health check calls it: each call appended to $work/scontrol.calls, one line,
# its arguments separated by "|"; SCONTROL_EXIT makes it fail.
cat >"$work/scontrol" <<'SH'
#!/usr/bin/env bash
(IFS='|'; echo "$*") >>"${0%/*}/scontrol.calls"
exit "${SCONTROL_EXIT:-0}"
SH
chmod +x "$work/scontrol"

# The settings of every case: the machine's own configuration file is never read, the check is
# the wrapper around the real one, with the fault probe simulating the GPUs.
health_env=(
  KERNODECK_HEALTH_CONF=/nonexistent/kernodeck-healthcheck.conf
  KERNODECK_HEALTH_NODE=gpu-node-7 SCONTROL="$work/scontrol"
  KERNODECK_CHECK="$wrapper" KD_WRAP_CHECK="$check" KERNODECK_PROBE_MODULE="$probe"
  KERNODECK_HEALTH_DEVICE=cuda KERNODECK_HEALTH_TIMEOUT=10
)
# run_health CASE [VAR=VALUE...] [-- ARGS]: the health check's exit status in $status, its stdout
# in $work/CASE.out and stderr in $work/CASE.err; scontrol's calls restart for each case. With
# health_wrap set (an argv prefix, lost_device_rules's), the health check runs through it.
health_wrap=()
run_health() {
  local name=$1 vars=() args=()
  shift
  while (($# > 0)) && [[ $1 != -- ]]; do vars+=("$1"); shift; done
  if (($# > 0)); then shift; args=("$@"); fi
  rm -f "$work/scontrol.calls"
  # shellcheck disable=SC2034  # read by the tests that source this file
  status=0
  "${health_wrap[@]}" env "${health_env[@]}" "${vars[@]}" "$healthcheck" "${args[@]}" \
    >"$work/$name.out" 2>"$work/$name.err" || status=$?
}
# The scontrol calls of the last case, as one text.
scontrol_calls() { cat "$work/scontrol.calls" 2>/dev/null; }
# expect WHAT GOT WANT
expect() {
  [[ $2 == "$3" ]] || fail "$1: got '$2', expected '$3'"
}
# The sample of METRIC{LABELS} in FILE ("" if none).
sample() { awk -v key="$2" '$1 == key { print $2 }' "$1"; }
# Processes whose environment holds this test's work folder (every check it started has it).
ours() {
  local pid out=()
  for pid in /proc/[0-9]*; do
    pid=${pid#/proc/}
    [[ $pid != "$$" && $pid != "$BASHPID" ]] || continue
    { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qF "$work" && out+=("$pid")
  done
  echo "${out[*]}"
}
# An interpreter whose torch the python probe imports, in $torch_python, for the application
# layer (--import), which the fault probe, a compiled probe, never reaches: Debian's
# /usr/bin/python3 with its python3-torch (./ci/setup --torch pypi installs it), else the venv's
# wheel. find_torch_python returns 1, with the reason in $torch_python_why, where there is none.
# shellcheck disable=SC2034  # read by the tests that source this file
find_torch_python() {
  local candidate
  torch_python="" torch_python_why=""
  for candidate in /usr/bin/python3 "$root/.tools/venv/bin/python"; do
    if [[ -x $candidate ]] && "$candidate" -c 'import torch' >/dev/null 2>&1; then
      torch_python=$candidate
      return 0
    fi
  done
  torch_python_why="no interpreter with torch (/usr/bin/python3 with Debian's python3-torch: ./ci/setup --torch pypi)"
  return 1
}
# A module that no environment has: its --import fails at the application layer.
# shellcheck disable=SC2034  # read by the tests that source this file
absent_module=kd_fleet_absent_module
# The argv prefix, in $lost_rules, that runs a command as on a node whose containers lost their
# device-cgroup rules for the GPUs (systemctl daemon-reload with the systemd cgroup driver):
# /dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidia0-N at mode 0666 in a private /dev (a mount
# namespace), and the command in a child of this process's v1 devices cgroup that allows what
# runc allows every container and nothing of the GPUs'. lost_device_rules GPUS returns 1, with
# the reason in $lost_rules_why, where this cannot be made (not root, no v1 devices hierarchy).
lost_device_rules() {
  local gpus=$1 own home i
  lost_rules=() lost_rules_why=""
  if [[ $(id -u) != 0 ]]; then lost_rules_why="making device nodes and a devices cgroup needs root"; return 1; fi
  own=$(awk -F: '$2 ~ /(^|,)devices(,|$)/ { print $3 }' /proc/self/cgroup)
  home=/sys/fs/cgroup/devices${own%/}
  if [[ -z $own || ! -e $home/cgroup.procs ]]; then
    lost_rules_why="no cgroup v1 devices hierarchy holding this process's cgroup at /sys/fs/cgroup/devices"
    return 1
  fi
  local cg=$home/kd-health-$$
  mkdir "$cg" && echo a >"$cg/devices.deny" || { lost_rules_why="cannot make $cg"; return 1; }
  on_exit+=("rmdir '$cg' 2>/dev/null || true")
  local rule
  for rule in 'c *:* m' 'b *:* m' 'c 1:3 rwm' 'c 1:5 rwm' 'c 1:7 rwm' 'c 1:8 rwm' 'c 1:9 rwm' \
    'c 5:0 rwm' 'c 5:1 rwm' 'c 5:2 rwm' 'c 136:* rwm' 'c 10:200 rwm'; do
    echo "$rule" >"$cg/devices.allow"
  done
  local dev=$work/private-dev
  local nodes="mknod -m 0666 $dev/nvidiactl c 195 255; mknod -m 0666 $dev/nvidia-uvm c 508 0"
  mkdir -p "$dev"
  for ((i = 0; i < gpus; i++)); do nodes+="; mknod -m 0666 $dev/nvidia$i c 195 $i"; done
  cat >"$work/lost-rules.sh" <<SH
set -e
mount -t tmpfs -o mode=0755 kd-dev '$dev'
for n in null:3 zero:5 full:7 random:8 urandom:9; do mknod -m 0666 "$dev/\${n%:*}" c 1 "\${n#*:}"; done
mknod -m 0666 '$dev/tty' c 5 0
mkdir -m 1777 '$dev/shm'
ln -s /proc/self/fd '$dev/fd'
$nodes
mount --bind '$dev' /dev
echo \$\$ >'$cg/cgroup.procs'
set +e
"\$@"
rc=\$?
echo \$\$ >'$home/cgroup.procs'
exit \$rc
SH
  lost_rules=(unshare --mount --propagation private bash "$work/lost-rules.sh")
}
