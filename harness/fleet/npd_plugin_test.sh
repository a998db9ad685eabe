#!/usr/bin/env bash
# fleet.npd: the node-problem-detector plugin of ci/templates/node-problem-detector/ with real
# check runs (the built check and the fault probe, through check_wrapper.sh):
#   - its monitor config is what NPD accepts ("plugin": "custom", a rule whose path is the
#     plugin shipped beside it, a rule timeout within the global one and above the health
#     check's own worst case, a default condition for the permanent rule);
#   - installed as an operator does (the plugin and kernodeck-healthcheck in one folder):
#     every GPU passes → 0; one GPU fails → 1 with the verdict; a check that times out on its
#     own → 1 (TIMEOUT is a verdict); the check missing → 2; a check killed by the health
#     check's outer limit → 2; many verdicts → 1, cut to 80 characters; the health check
#     missing → 2; the cause the check named after the code and layer (a PTX too new, and, with
#     root and a v1 devices hierarchy, a node whose device-cgroup rules for the GPUs were lost,
#     for real); a module of the application that fails to import (KERNODECK_HEALTH_IMPORTS, for
#     real where an interpreter has torch) → 0, the image's fault after the node's pass, never
#     NonOK. Every message is at most 80 characters.
#
#   npd_plugin_test.sh CHECK FAULT_PROBE SOURCE_ROOT
set -euo pipefail
# shellcheck source=harness/fleet/health_lib.sh
source "$(dirname "$0")/health_lib.sh"
npd=$root/ci/templates/node-problem-detector
config=$npd/kernodeck-monitor.json

# The monitor config, as NPD's custom plugin monitor reads and validates it.
seconds() {  # seconds DURATION: NPD's "90s" or "5m" in seconds
  [[ $1 =~ ^([0-9]+)(s|m)$ ]] || fail "a duration NPD reads, but not this test: $1"
  if [[ ${BASH_REMATCH[2]} == m ]]; then echo $((BASH_REMATCH[1] * 60)); else echo "${BASH_REMATCH[1]}"; fi
}
expect "plugin" "$(jq -r .plugin "$config")" custom
expect "rules" "$(jq '.rules | length' "$config")" 1
plugin_name=$(jq -r '.rules[0].path' "$config")
plugin_name=${plugin_name##*/}
[[ -x $npd/$plugin_name ]] || fail "the rule's plugin $plugin_name is not an executable beside the config"
global=$(seconds "$(jq -r .pluginConfig.timeout "$config")")
rule=$(seconds "$(jq -r .rules[0].timeout "$config")")
((rule <= global)) || fail "the rule's timeout ($rule s) is over the global one ($global s): NPD refuses it"
# The health check's worst case: its default --timeout, the outer grace, then SIGKILL 5 s later.
defaults=$(sed -n 's/^timeout_s=${KERNODECK_HEALTH_TIMEOUT:-\([0-9]*\)}$/\1/p; s/^grace_s=${KERNODECK_HEALTH_GRACE:-\([0-9]*\)}$/\1/p' \
             "$healthcheck" | paste -sd+)
worst=$((defaults + 5))
((worst > 20 && rule > worst)) || fail "the rule's timeout ($rule s) does not cover the health check's worst case ($worst s)"
expect "max_output_length" "$(jq .pluginConfig.max_output_length "$config")" 80
condition=$(jq -r '.rules[0].condition' "$config")
expect "the default condition of the permanent rule" \
  "$(jq -r --arg c "$condition" '[.conditions[] | select(.type == $c)] | length' "$config")" 1
echo "config: plugin custom, rule $plugin_name, timeout $rule s > the health check's $worst s"

# Installed as an operator does: the plugin and the health check side by side.
mkdir "$work/plugin"
cp "$npd/$plugin_name" "$healthcheck" "$work/plugin/"
plugin() {  # plugin CASE [VAR=VALUE...]: $status, $message
  local name=$1
  shift
  status=0
  message=$(env "${health_env[@]}" "$@" "$work/plugin/$plugin_name" 2>"$work/$name.err") || status=$?
  ((${#message} <= 80)) || fail "$name: a message of ${#message} characters: $message"
  [[ $message != *$'\n'* ]] || fail "$name: more than one line: $message"
}

plugin passed KERNODECK_HEALTH_GPUS=4 KERNODECK_FAULT=gpus=4
expect "every GPU passed: exit" "$status" 0
expect "every GPU passed: message" "$message" "kernodeck passed: 4 GPU(s)"

plugin failed KERNODECK_HEALTH_GPUS=4 KERNODECK_FAULT=gpus=3
expect "one GPU failed: exit" "$status" 1
expect "one GPU failed: message" "$message" "kernodeck DEVICE_INDEX_INVALID(7) device gpu 3"

plugin timeout KERNODECK_HEALTH_GPUS=2 KERNODECK_FAULT=gpus=2 KD_WRAP_FAULT_0=gpus=2,hang=compute \
  KERNODECK_HEALTH_TIMEOUT=5
expect "the check's own timeout: exit" "$status" 1
expect "the check's own timeout: message" "$message" "kernodeck TIMEOUT(10) compute gpu 0"

plugin missing KERNODECK_HEALTH_GPUS=2 KERNODECK_CHECK="$work/no-such-check"
expect "the check missing: exit" "$status" 2
expect "the check missing: message" "$message" "kernodeck no report (exit 127) gpu 0,1"

started=$SECONDS
plugin killed KERNODECK_HEALTH_GPUS=2 KERNODECK_FAULT=gpus=2 KD_WRAP_FAULT_1=stuck \
  KERNODECK_HEALTH_TIMEOUT=5 KERNODECK_HEALTH_GRACE=1
expect "a check killed by the outer limit: exit" "$status" 2
expect "a check killed by the outer limit: message" "$message" "kernodeck no report (exit 137) gpu 1"
echo "killed by the outer limit after $((SECONDS - started)) s"

plugin long KERNODECK_HEALTH_GPUS=12 KERNODECK_FAULT=gpus=4 \
  KD_WRAP_FAULT_1=gpus=4,backend=none KD_WRAP_FAULT_2=gpus=4,available=0
expect "many verdicts: exit" "$status" 1
full="kernodeck GPU_BACKEND_ABSENT(5) backend gpu 1; GPU_UNAVAILABLE(6) device gpu 2; DEVICE_INDEX_INVALID(7) device gpu 4,5,6,7,8,9,10,11"
expect "many verdicts: message" "$message" "${full:0:77}..."

plugin cause KERNODECK_HEALTH_GPUS=2 KERNODECK_FAULT=gpus=2 KD_WRAP_FAULT_1=gpus=2,gpu_fault=222
expect "a cause named: exit" "$status" 1
expect "a cause named: message" "$message" "kernodeck RUNTIME_ERROR(9) compute PtxTooNew gpu 1"

if lost_device_rules 8; then
  status=0
  message=$("${lost_rules[@]}" env "${health_env[@]}" KERNODECK_HEALTH_GPUS=8 \
              KERNODECK_FAULT=gpus=8,gpu_init=999 "$work/plugin/$plugin_name" 2>"$work/lost.err") ||
    status=$?
  expect "lost device rules: exit (stderr: $(cat "$work/lost.err"))" "$status" 1
  expect "lost device rules: message" "$message" \
    "kernodeck GPU_UNAVAILABLE(6) device DeviceCgroupDenied gpu 0,1,2,3,4,5,6,7"
  ((${#message} <= 80)) || fail "lost device rules: a message of ${#message} characters"
  echo "lost device-cgroup rules on 8 GPUs: '$message' (${#message} characters)"
else
  echo "lost device-cgroup rules not run here: $lost_rules_why"
fi

if find_torch_python; then
  plugin image KERNODECK_HEALTH_GPUS=1 KERNODECK_HEALTH_TIMEOUT=60 \
    KERNODECK_HEALTH_IMPORTS="$absent_module" KD_WRAP_FAULT=python KD_WRAP_PYTHON="$torch_python"
  expect "a module failing to import: exit (stderr: $(cat "$work/image.err"))" "$status" 0
  full="kernodeck passed: 1 GPU(s); image: EXTENSION_IMPORT_FAILED(13) application ExtensionNotInstalled"
  expect "a module failing to import: message" "$message" "${full:0:77}..."
  echo "a module failing to import: OK, '$message'"
else
  echo "a module failing to import not run here: $torch_python_why"
fi

rm "$work/plugin/kernodeck-healthcheck"
plugin no-healthcheck PATH=/usr/bin:/bin KERNODECK_HEALTH_GPUS=1
expect "the health check missing: exit" "$status" 2
[[ $message == "kernodeck-healthcheck not found"* ]] || fail "the health check missing: message '$message'"

left=$(ours)
[[ -z $left ]] || fail "processes of the checks left running: $(ps -o pid,args -p "${left// /,}")"
echo "plugin: 0 passed, 1 with the verdict (also TIMEOUT), 2 for the check missing or killed and for no health check; messages within 80 characters"
echo "passed"
