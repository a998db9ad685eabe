#!/usr/bin/env bash
# fleet.kubernetes: the scripts the Kubernetes templates run in their containers, taken from the
# YAML as the kubelet would run them (bash -c), with the real check and the fault probe as
# kernodeck-diagnostic on PATH (through check_wrapper.sh):
#   - the fleet Job's container (kernodeck-fleet-job.yaml): its node's GPUs checked at once (each
#     check waits for its peers), one report per GPU, and the exit code the podFailurePolicy acts
#     on: the image fault's even when a node fault came first; a second pod on the same volume
#     (a retry) writes its reports anew;
#   - the init container (kernodeck-init-container.yaml): the one-line verdict in the
#     termination message file, "kernodeck CODE(N) layer[ gpu K]: message", and its exit code;
#     a cause's words and next action in it, within the kubelet's 4096 bytes (a PTX too new, and,
#     with root and a v1 devices hierarchy, a node whose device-cgroup rules were lost, for real);
#   - both with the application's modules (IMPORTS), for real where an interpreter has torch: a
#     module that fails to import is EXTENSION_IMPORT_FAILED, exit 13, an image fault, which the
#     fleet pod exits with over a node fault on another GPU, and which is what FailJob acts on.
# What was not run: a cluster, the kubelet, the device plugin (docs/fleets.md).
#
#   kubernetes_scripts_test.sh CHECK FAULT_PROBE SOURCE_ROOT TOOLS_DIR
set -euo pipefail
# shellcheck source=harness/fleet/health_lib.sh
source "$(dirname "$0")/health_lib.sh"
python=$4/venv/bin/python
[[ -x $python ]] || fail "$python is missing (./ci/setup --junit-consumer): the templates' scripts would go unrun"
templates=$root/ci/templates/kubernetes

# The container scripts, as written in the templates.
"$python" - "$templates" "$work" <<'PY' || fail "could not read the containers' scripts from the templates"
import sys
from pathlib import Path
from ruamel.yaml import YAML
templates, work = Path(sys.argv[1]), Path(sys.argv[2])
def pod(name):
    return YAML(typ="safe").load((templates / name).read_text())["spec"]["template"]["spec"]
fleet = [c for c in pod("kernodeck-fleet-job.yaml")["containers"] if c["name"] == "check"][0]
(work / "fleet-job.sh").write_text(fleet["args"][0])
init = pod("kernodeck-init-container.yaml")["initContainers"][0]
(work / "init-container.sh").write_text(init["args"][0])
# The exit codes each Job fails at once on, one line per template.
def fail_job(name):
    rules = YAML(typ="safe").load((templates / name).read_text())["spec"]["podFailurePolicy"]["rules"]
    return [r["onExitCodes"]["values"] for r in rules if r.get("action") == "FailJob"][0]
(work / "fail-job").write_text("".join(
    " ".join(map(str, fail_job(name))) + "\n"
    for name in ("kernodeck-fleet-job.yaml", "kernodeck-init-container.yaml")))
PY
mkdir "$work/bin" "$work/reports"
ln -s "$wrapper" "$work/bin/kernodeck-diagnostic"
pod_wrap=()  # an argv prefix for the pod's script (lost_device_rules's)
in_pod() {  # in_pod SCRIPT CASE VAR=VALUE...: $status; stdout and stderr in $work/CASE.{out,err}
  local script=$1 name=$2
  shift 2
  status=0
  "${pod_wrap[@]}" env PATH="$work/bin:$PATH" KD_WRAP_CHECK="$check" KERNODECK_PROBE_MODULE="$probe" \
    "$@" bash -c "$(cat "$work/$script.sh")" >"$work/$name.out" 2>"$work/$name.err" || status=$?
}

# The fleet Job: four GPUs at once; GPU 1 a node fault (6), GPU 2 an image fault (5).
fleet_pod() {
  in_pod fleet-job "$1" NODE_NAME=node-a GPUS=4 REPORTS="$work/reports" KERNODECK_FAULT=gpus=4 \
    KD_WRAP_FAULT_1=gpus=4,available=0 KD_WRAP_FAULT_2=gpus=4,backend=none \
    KD_WRAP_RECORD="$work/$1.record" KD_WRAP_BARRIER=4
}
fleet_pod fleet
expect "the fleet pod's exit (the image fault first)" "$status" 5
last_start=$(awk '$1 == "start" { print $3 }' "$work/fleet.record" | sort -n | tail -n 1)
first_end=$(awk '$1 == "end" { print $3 }' "$work/fleet.record" | sort -n | head -n 1)
awk -v s="$last_start" -v e="$first_end" 'BEGIN { exit !(s < e) }' ||
  fail "the fleet pod checked its GPUs one after another: $(sort -k3n "$work/fleet.record" | tr '\n' ';')"
codes=$(for g in 0 1 2 3; do jq -r .code "$work/reports/node-a.$g.json"; done | paste -sd' ')
expect "the reports" "$codes" "GPU_CHECK_PASSED GPU_UNAVAILABLE GPU_BACKEND_ABSENT GPU_CHECK_PASSED"
# A retry on the same volume: the check never overwrites, so each GPU's old report must go first.
echo '{"stale": true}' >"$work/reports/node-a.0.json"
fleet_pod retry
expect "a retried pod's exit" "$status" 5
expect "a retried pod's report of GPU 0" "$(jq -r .code "$work/reports/node-a.0.json")" GPU_CHECK_PASSED
expect "the retried pod's reports" "$(ls "$work/reports" | paste -sd' ')" \
  "node-a.0.json node-a.1.json node-a.2.json node-a.3.json"
echo "fleet Job: 4 GPUs at once, exit 5 (GPU_BACKEND_ABSENT on GPU 2 over GPU_UNAVAILABLE on GPU 1), a retry rewrites the reports"
in_pod fleet-job node-faults NODE_NAME=node-b GPUS=3 REPORTS="$work/reports" KERNODECK_FAULT=gpus=2
expect "a node fault alone: exit" "$status" 7

# The init container: the termination message.
message() { cat "$work/termination-log"; }
in_pod init-container passed GPUS=1 KERNODECK_FAULT=gpus=1 TERMINATION_LOG="$work/termination-log"
expect "init, passing: exit" "$status" 0
[[ $(message) == "kernodeck GPU_CHECK_PASSED(0) complete: "* ]] || fail "init, passing: '$(message)'"
in_pod init-container node GPUS=2 KERNODECK_FAULT=gpus=2 KD_WRAP_FAULT_1=gpus=2,available=0 \
  TERMINATION_LOG="$work/termination-log"
expect "init, GPU 1 unavailable: exit" "$status" 6
[[ $(message) == "kernodeck GPU_UNAVAILABLE(6) device gpu 1: "?* ]] || fail "init, GPU 1 unavailable: '$(message)'"
expect "init: lines in the termination message" "$(wc -l <"$work/termination-log")" 1
in_pod init-container image GPUS=1 KERNODECK_FAULT=backend=none TERMINATION_LOG="$work/termination-log"
expect "init, an image fault: exit" "$status" 5
[[ $(message) == "kernodeck GPU_BACKEND_ABSENT(5) backend: "?* ]] || fail "init, an image fault: '$(message)'"
# A cause's words reach the termination message whole, within the kubelet's 4096 bytes.
within_limit() { (($(wc -c <"$work/termination-log") <= 4096)) || fail "$1: the termination message passes 4096 bytes"; }
in_pod init-container cause GPUS=2 KERNODECK_FAULT=gpus=2 KD_WRAP_FAULT_1=gpus=2,gpu_fault=222 \
  TERMINATION_LOG="$work/termination-log"
expect "init, a PTX too new on GPU 1: exit" "$status" 9
[[ $(message) == "kernodeck RUNTIME_ERROR(9) compute gpu 1: "*"PTX was built by a newer CUDA toolchain than the driver supports"*"Update the GPU driver"* ]] ||
  fail "init, a PTX too new: '$(message)'"
within_limit "init, a PTX too new"
if lost_device_rules 2; then
  pod_wrap=("${lost_rules[@]}")
  in_pod init-container lost-rules GPUS=2 KERNODECK_FAULT=gpus=2,gpu_init=999 \
    TERMINATION_LOG="$work/termination-log"
  pod_wrap=()
  expect "init, lost device rules: exit (stderr: $(cat "$work/lost-rules.err"))" "$status" 6
  [[ $(message) == "kernodeck GPU_UNAVAILABLE(6) device gpu 0: "*"the kernel refuses them"*"EPERM"*"Recreate the container"* ]] ||
    fail "init, lost device rules: '$(message)'"
  within_limit "init, lost device rules"
  echo "init container, lost device-cgroup rules: $(wc -c <"$work/termination-log") bytes, '$(cut -c1-120 "$work/termination-log")...'"
else
  echo "init container, lost device-cgroup rules not run here: $lost_rules_why"
fi
# The application's modules: a module that fails to import on GPU 1 (the python probe's run) is
# the image's fault (13), exited with over GPU 0's node fault, and the Jobs fail at once on it.
if find_torch_python; then
  while read -r codes; do
    [[ " $codes " == *" 13 "* ]] || fail "FailJob acts on $codes, not on 13 (EXTENSION_IMPORT_FAILED)"
  done <"$work/fail-job"
  in_pod fleet-job imports NODE_NAME=node-c GPUS=3 REPORTS="$work/reports" IMPORTS="$absent_module" \
    KERNODECK_FAULT=gpus=3 KD_WRAP_FAULT_0=gpus=3,available=0 KD_WRAP_FAULT_1=python \
    KD_WRAP_PYTHON="$torch_python"
  expect "the fleet pod, a module failing to import: exit (the image fault first)" "$status" 13
  codes=$(for g in 0 1 2; do jq -r '"\(.code):\(.stage)"' "$work/reports/node-c.$g.json"; done | paste -sd' ')
  expect "the fleet pod's reports" "$codes" \
    "GPU_UNAVAILABLE:device EXTENSION_IMPORT_FAILED:application GPU_CHECK_PASSED:complete"
  in_pod init-container imports GPUS=2 IMPORTS="$absent_module" KERNODECK_FAULT=gpus=2 \
    KD_WRAP_FAULT_0=gpus=2,available=0 KD_WRAP_FAULT_1=python KD_WRAP_PYTHON="$torch_python" \
    TERMINATION_LOG="$work/termination-log"
  expect "init, a module failing to import: exit" "$status" 13
  [[ $(message) == "kernodeck EXTENSION_IMPORT_FAILED(13) application gpu 1: $absent_module is not installed"* ]] ||
    fail "init, a module failing to import: '$(message)'"
  echo "a module failing to import: the fleet pod exits 13 over GPU 0's 6, FailJob's $(paste -sd'|' "$work/fail-job"); init: '$(cut -c1-100 "$work/termination-log")...'"
else
  echo "the application's modules not run here: $torch_python_why"
fi
rm "$work/bin/kernodeck-diagnostic"
in_pod init-container missing GPUS=1 TERMINATION_LOG="$work/termination-log"
expect "init, no check: exit" "$status" 127
[[ $(message) == "kernodeck no verdict (exit 127): "* ]] || fail "init, no check: '$(message)'"
echo "init container: '$(sed -n 1p "$work/node.out")'"
echo "passed"
