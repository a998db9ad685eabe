#!/usr/bin/env bash
# fleet.healthcheck: ci/templates/slurm/kernodeck-healthcheck on simulated GPUs (the real check
# with the fault probe, through check_wrapper.sh), a recording scontrol standing in for Slurm:
#   1. eight GPUs checked at once: every check starts before any ends (each waits for its peers;
#      run one after another, the first waits alone); nothing drained; the metrics file
#      (KERNODECK_HEALTH_TEXTFILE_DIR from the configuration file) passes promtool check metrics,
#      one sample per GPU, and replaced the earlier file by a rename (a new inode, nothing else
#      left in the folder);
#   2. one GPU the driver does not have (index 3 of 3): drained once, "kernodeck
#      DEVICE_INDEX_INVALID(7) device gpu 3"; its metrics say so, with labels holding no path or
#      environment value;
#   3. several GPUs failing differently: one drain, the verdicts grouped in the order of their
#      first GPU;
#   4. a check stuck in the driver (it ignores SIGTERM) on one GPU: the other GPU's check ends on
#      its own at once, the stuck one is killed by its outer limit, "no report (exit 137) gpu 1",
#      and no process of it is left;
#   5. a metrics folder where kernodeck.prom cannot be replaced: the verdict and the drain stand,
#      the failure is said, and no temporary file is left;
#   6. settings that make no sense (a module's name that is a path, an --import the check
#      refuses), and an scontrol that fails: exit 2, nothing drained;
#   7. the cause the check names after the code and layer: a PTX too new on one GPU, "kernodeck
#      RUNTIME_ERROR(9) compute PtxTooNew gpu 1";
#   8. a node whose containers lost their device-cgroup rules, for real (root and a v1 devices
#      hierarchy; said and passed over without them): the GPUs' nodes at mode 0666 in a private
#      /dev, the health check in a devices cgroup of a container's rules without the GPUs', every
#      GPU "kernodeck GPU_UNAVAILABLE(6) device DeviceCgroupDenied gpu 0,1";
#   9. the application's modules (KERNODECK_HEALTH_IMPORTS), for real where an interpreter has
#      torch (said and passed over without one): a module that fails to import on every GPU
#      (EXTENSION_IMPORT_FAILED, 13, the image's fault) drains nothing and exits 0, said on
#      stderr, 13 in the metrics; beside a node fault on another GPU, the drain names the node
#      fault alone.
#
#   healthcheck_test.sh CHECK FAULT_PROBE SOURCE_ROOT
set -euo pipefail
# shellcheck source=harness/fleet/health_lib.sh
source "$(dirname "$0")/health_lib.sh"
command -v promtool >/dev/null || skip "promtool is not installed (./ci/setup --prometheus)"

# 1. Eight GPUs at once.
mkdir "$work/textfile"
echo 'kernodeck_check_last_run_timestamp_seconds 1' >"$work/textfile/kernodeck.prom"
before=$(stat -c %i "$work/textfile/kernodeck.prom")
echo "KERNODECK_HEALTH_TEXTFILE_DIR=$work/textfile" >"$work/healthcheck.conf"
started=$SECONDS
run_health parallel KERNODECK_HEALTH_CONF="$work/healthcheck.conf" KERNODECK_HEALTH_GPUS=8 \
  KERNODECK_FAULT=gpus=8 KD_WRAP_RECORD="$work/parallel.record" KD_WRAP_BARRIER=8
expect "8 passing GPUs: exit (stderr: $(cat "$work/parallel.err"))" "$status" 0
expect "8 passing GPUs: scontrol calls" "$(scontrol_calls)" ""
starts=$(grep -c '^start ' "$work/parallel.record")
expect "checks started" "$starts" 8
last_start=$(awk '$1 == "start" { print $3 }' "$work/parallel.record" | sort -n | tail -n 1)
first_end=$(awk '$1 == "end" { print $3 }' "$work/parallel.record" | sort -n | head -n 1)
awk -v s="$last_start" -v e="$first_end" 'BEGIN { exit !(s < e) }' ||
  fail "the checks ran one after another, not at once: $(sort -k3n "$work/parallel.record" | tr '\n' ';')"
echo "1. eight GPUs at once in $((SECONDS - started)) s: the last start ($last_start) before the first end ($first_end)"
prom=$work/textfile/kernodeck.prom
promtool check metrics <"$prom" || fail "promtool check metrics rejects $prom: $(cat "$prom")"
[[ $(stat -c %i "$prom") != "$before" ]] || fail "kernodeck.prom was rewritten in place, not replaced"
expect "the textfile folder" "$(ls -A "$work/textfile")" kernodeck.prom
expect "passing GPUs" "$(grep -c '^kernodeck_check_passed{gpu="[0-7]"} 1$' "$prom")" 8
expect "info of GPU 5" "$(sample "$prom" 'kernodeck_check_info{gpu="5",code="GPU_CHECK_PASSED",layer="complete"}')" 1
[[ -n $(sample "$prom" 'kernodeck_check_stage_duration_seconds{gpu="7",stage="compute"}') ]] ||
  fail "no compute timing for GPU 7: $(cat "$prom")"
ran=$(sample "$prom" kernodeck_check_last_run_timestamp_seconds)
((ran >= $(date +%s) - 60)) || fail "last run timestamp $ran is not now"
echo "   metrics: $(grep -vc '^#' "$prom") samples, promtool check metrics clean, replaced by a rename"

# 2. One GPU the driver does not have.
run_health lost KERNODECK_HEALTH_TEXTFILE_DIR="$work/textfile" KERNODECK_HEALTH_GPUS=4 \
  KERNODECK_FAULT=gpus=3
expect "a lost GPU: exit" "$status" 1
expect "a lost GPU: the drain" "$(scontrol_calls)" \
  "update|NodeName=gpu-node-7|State=DRAIN|Reason=kernodeck DEVICE_INDEX_INVALID(7) device gpu 3"
expect "GPU 3 passed" "$(sample "$prom" 'kernodeck_check_passed{gpu="3"}')" 0
expect "GPU 2 passed" "$(sample "$prom" 'kernodeck_check_passed{gpu="2"}')" 1
expect "GPU 3 exit code" "$(sample "$prom" 'kernodeck_check_exit_code{gpu="3"}')" 7
expect "GPU 3 info" "$(sample "$prom" 'kernodeck_check_info{gpu="3",code="DEVICE_INDEX_INVALID",layer="device"}')" 1
promtool check metrics <"$prom" || fail "promtool check metrics rejects $prom"
# Every label: a GPU index, a code, a layer or a timing's name; nothing of this machine.
labels=$(grep -v '^#' "$prom" | sed -n 's/^[a-z_]*{\(.*\)} .*/\1/p' | tr ',' '\n' | sort -u)
bad=$(grep -Ev '^(gpu="[0-9]+"|code="[A-Z_]+"|layer="[a-z_]+"|stage="[a-z_]+")$' <<<"$labels" || true)
[[ -z $bad ]] || fail "labels that are not a GPU, code, layer or stage: $bad"
for secret in "$work" "$check" "$probe" gpu-node-7; do
  ! grep -qF "$secret" "$prom" || fail "the metrics hold '$secret'"
done
echo "2. a lost GPU: one drain, '$(scontrol_calls | sed 's/.*Reason=//')'; labels hold no path"

# 3. Several GPUs failing differently: one drain naming all of them.
run_health several KERNODECK_HEALTH_GPUS=5 KERNODECK_FAULT=gpus=4 \
  KD_WRAP_FAULT_1=gpus=4,available=0 KD_WRAP_FAULT_2=gpus=4,backend=none \
  KD_WRAP_FAULT_3=gpus=4,available=0
expect "several failing GPUs: exit" "$status" 1
expect "several failing GPUs: the one drain" "$(scontrol_calls)" \
  "update|NodeName=gpu-node-7|State=DRAIN|Reason=kernodeck GPU_UNAVAILABLE(6) device gpu 1,3; GPU_BACKEND_ABSENT(5) backend gpu 2; DEVICE_INDEX_INVALID(7) device gpu 4"
echo "3. several failing GPUs, one drain: $(scontrol_calls | sed 's/.*Reason=//')"

# 4. A check stuck in the driver on GPU 1: the outer limit (5 + 1 s, SIGKILL 5 s later) ends it.
started=$SECONDS
run_health stuck KERNODECK_HEALTH_GPUS=2 KERNODECK_FAULT=gpus=2 KERNODECK_HEALTH_TIMEOUT=5 \
  KERNODECK_HEALTH_GRACE=1 KD_WRAP_FAULT_1=stuck KD_WRAP_RECORD="$work/stuck.record"
took=$((SECONDS - started))
expect "a stuck check: exit" "$status" 1
expect "a stuck check: the drain" "$(scontrol_calls)" \
  "update|NodeName=gpu-node-7|State=DRAIN|Reason=kernodeck no report (exit 137) gpu 1"
((took >= 10 && took <= 40)) || fail "the stuck check took $took s, not its outer limit (11 s)"
gpu0=$(awk '$2 == 0 { t[$1] = $3 } END { printf "%.1f", t["end"] - t["start"] }' "$work/stuck.record")
awk -v t="$gpu0" 'BEGIN { exit !(t < 5) }' || fail "GPU 0's check took $gpu0 s, waiting for GPU 1's"
left=$(ours)
[[ -z $left ]] || fail "processes of the checks left running: $(ps -o pid,args -p "${left// /,}")"
echo "4. a stuck check: killed by its outer limit after $took s, GPU 0 done in $gpu0 s, no process left"

# 5. kernodeck.prom cannot be replaced (a folder stands there): the verdict stands all the same.
mkdir -p "$work/blocked/kernodeck.prom/inside"
run_health blocked KERNODECK_HEALTH_TEXTFILE_DIR="$work/blocked" KERNODECK_HEALTH_GPUS=4 \
  KERNODECK_FAULT=gpus=3
expect "metrics not written: exit" "$status" 1
expect "metrics not written: the drain" "$(scontrol_calls)" \
  "update|NodeName=gpu-node-7|State=DRAIN|Reason=kernodeck DEVICE_INDEX_INVALID(7) device gpu 3"
grep -q 'FAILED to write .*kernodeck.prom' "$work/blocked.err" ||
  fail "the failure to write the metrics is not said: $(cat "$work/blocked.err")"
expect "the blocked folder" "$(cd "$work/blocked" && find . -mindepth 1 | sort | tr '\n' ' ')" \
  "./kernodeck.prom ./kernodeck.prom/inside "
echo "5. kernodeck.prom blocked: the drain stands, the failure said, no temporary file left"

# 6. Nonsense settings, and a failing scontrol.
run_health nonsense KERNODECK_HEALTH_GPUS=eight
expect "KERNODECK_HEALTH_GPUS=eight: exit" "$status" 2
expect "KERNODECK_HEALTH_GPUS=eight: scontrol calls" "$(scontrol_calls)" ""
run_health timeout KERNODECK_HEALTH_GPUS=1 KERNODECK_HEALTH_TIMEOUT=200
expect "KERNODECK_HEALTH_TIMEOUT=200: exit" "$status" 2
run_health imports KERNODECK_HEALTH_GPUS=1 KERNODECK_HEALTH_IMPORTS="torchvision ../app"
expect "KERNODECK_HEALTH_IMPORTS naming a path: exit" "$status" 2
grep -q "KERNODECK_HEALTH_IMPORTS names '../app'" "$work/imports.err" ||
  fail "the module name refused is not said: $(cat "$work/imports.err")"
# The check itself refusing --import (the fault probe has no interpreter to import with): a usage
# error on every GPU, the settings' fault; nothing drained.
run_health refused KERNODECK_CHECK="$check" KERNODECK_HEALTH_GPUS=2 KERNODECK_FAULT=gpus=2 \
  KERNODECK_HEALTH_IMPORTS=torchvision
expect "--import refused by the check: exit" "$status" 2
expect "--import refused by the check: scontrol calls" "$(scontrol_calls)" ""
grep -q "the check refused its options: kernodeck-diagnostic: error: --import needs the interpreter" \
  "$work/refused.err" || fail "the check's refusal is not said: $(cat "$work/refused.err")"
run_health undrainable KERNODECK_HEALTH_GPUS=2 KERNODECK_FAULT=gpus=1 SCONTROL_EXIT=1
expect "scontrol failing: exit" "$status" 2
grep -q 'FAILED to drain gpu-node-7' "$work/undrainable.err" || fail "the failed drain is not said"
echo "6. nonsense settings and a failing scontrol: exit 2"

# 7. The cause after the code and the layer.
run_health cause KERNODECK_HEALTH_GPUS=2 KERNODECK_FAULT=gpus=2 KD_WRAP_FAULT_1=gpus=2,gpu_fault=222
expect "a PTX too new: exit" "$status" 1
expect "a PTX too new: the drain" "$(scontrol_calls)" \
  "update|NodeName=gpu-node-7|State=DRAIN|Reason=kernodeck RUNTIME_ERROR(9) compute PtxTooNew gpu 1"
echo "7. the cause named: $(scontrol_calls | sed 's/.*Reason=//')"

# 8. The device-cgroup rules of the GPUs lost, for real: the simulated driver's initialisation
# fails (999) and the check finds the nodes refused by the kernel (EPERM).
if lost_device_rules 2; then
  health_wrap=("${lost_rules[@]}")
  run_health lost-rules KERNODECK_HEALTH_GPUS=2 KERNODECK_FAULT=gpus=2,gpu_init=999
  health_wrap=()
  expect "lost device rules: exit (stderr: $(cat "$work/lost-rules.err"))" "$status" 1
  expect "lost device rules: the drain" "$(scontrol_calls)" \
    "update|NodeName=gpu-node-7|State=DRAIN|Reason=kernodeck GPU_UNAVAILABLE(6) device DeviceCgroupDenied gpu 0,1"
  echo "8. lost device-cgroup rules: $(scontrol_calls | sed 's/.*Reason=//')"
else
  echo "8. not run here: $lost_rules_why"
fi

# 9. A module of the application that fails to import: the check's python probe on the CPU for
# the GPUs whose fault is "python", asked by the health check to import a module no environment
# has. The image's fault, alike on every node: never a reason to drain.
if find_torch_python; then
  run_health image KERNODECK_HEALTH_TEXTFILE_DIR="$work/textfile" KERNODECK_HEALTH_GPUS=2 \
    KERNODECK_HEALTH_TIMEOUT=60 KERNODECK_HEALTH_IMPORTS="$absent_module" KD_WRAP_FAULT=python \
    KD_WRAP_PYTHON="$torch_python"
  expect "a module failing to import: exit (stderr: $(cat "$work/image.err"))" "$status" 0
  expect "a module failing to import: scontrol calls" "$(scontrol_calls)" ""
  said="kernodeck-healthcheck: not a reason to drain (the image's, alike on every node): kernodeck EXTENSION_IMPORT_FAILED(13) application ExtensionNotInstalled gpu 0,1"
  expect "a module failing to import: stderr" "$(cat "$work/image.err")" "$said"
  expect "GPU 1 exit code" "$(sample "$prom" 'kernodeck_check_exit_code{gpu="1"}')" 13
  expect "GPU 1 passed" "$(sample "$prom" 'kernodeck_check_passed{gpu="1"}')" 0
  expect "GPU 1 info" "$(sample "$prom" 'kernodeck_check_info{gpu="1",code="EXTENSION_IMPORT_FAILED",layer="application"}')" 1
  promtool check metrics <"$prom" || fail "promtool check metrics rejects $prom"
  run_health image-and-node KERNODECK_HEALTH_GPUS=2 KERNODECK_HEALTH_TIMEOUT=60 \
    KERNODECK_HEALTH_IMPORTS="$absent_module" KERNODECK_FAULT=gpus=2 KD_WRAP_FAULT_0=python \
    KD_WRAP_PYTHON="$torch_python" KD_WRAP_FAULT_1=gpus=2,available=0
  expect "a module failing to import beside a node fault: exit" "$status" 1
  expect "a module failing to import beside a node fault: the drain" "$(scontrol_calls)" \
    "update|NodeName=gpu-node-7|State=DRAIN|Reason=kernodeck GPU_UNAVAILABLE(6) device gpu 1"
  echo "9. a module failing to import: nothing drained ('$(sed 's/.*: kernodeck //' "$work/image.err")'); beside a node fault: $(scontrol_calls | sed 's/.*Reason=//')"
else
  echo "9. not run here: $torch_python_why"
fi
echo "passed"
