#!/usr/bin/env bash
# Stands in KERNODECK_CHECK for the fleet tests: one GPU's check, run by the health check with
# --device-index K among the check's own options. Records when it starts and ends, can wait for
# its peers, and then runs the real check, with the fault probe's faults chosen for its GPU:
#
#   KD_WRAP_CHECK    the real check (required)
#   KD_WRAP_RECORD   a file to append "start K SECONDS" and "end K SECONDS" to (EPOCHREALTIME)
#   KD_WRAP_BARRIER  N: once started, wait (up to 10 s, for a loaded machine) until N checks have
#                    started; run one after another, the first waits alone and the test sees it
#   KD_WRAP_FAULT_K  KERNODECK_FAULT for GPU K (else KD_WRAP_FAULT, else the environment's), or
#                    "stuck": ignore SIGTERM and never end, as a process stuck in the driver, or
#                    "python": the real check with the python probe of KD_WRAP_PYTHON (an
#                    interpreter with torch) on the CPU, where the --import of the check's options
#                    reaches the application layer for real
# The fault probe is a compiled probe, which refuses --import (a usage error) and never reaches the
# application layer: for it, the --import options are left out.
set -uo pipefail
index=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [[ ${args[i]} == --device-index ]] && index=${args[i + 1]:-}
done
[[ $index =~ ^[0-9]+$ ]] || { echo "check_wrapper: no --device-index in: $*" >&2; exit 2; }
now() { echo "${EPOCHREALTIME/,/.}"; }
record() { [[ -z ${KD_WRAP_RECORD:-} ]] || echo "$1 $index $(now)" >>"$KD_WRAP_RECORD"; }

record start
if [[ -n ${KD_WRAP_BARRIER:-} && -n ${KD_WRAP_RECORD:-} ]]; then
  for _ in $(seq 200); do
    (($(grep -c '^start ' "$KD_WRAP_RECORD") >= KD_WRAP_BARRIER)) && break
    sleep 0.05
  done
fi
fault_var=KD_WRAP_FAULT_$index
fault=${!fault_var:-${KD_WRAP_FAULT:-${KERNODECK_FAULT:-}}}
if [[ $fault == stuck ]]; then
  trap '' TERM  # sleep inherits the ignored SIGTERM: only SIGKILL ends this
  sleep 600
  exit 0
fi
check=${KD_WRAP_CHECK:?KD_WRAP_CHECK names the real check}
own=()  # the options as given, but --device for the python probe's run and --import for the others
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --device) [[ $fault == python ]] || own+=(--device "${args[i + 1]}"); i=$((i + 1)) ;;
    --import) [[ $fault != python ]] || own+=(--import "${args[i + 1]}"); i=$((i + 1)) ;;
    *) own+=("${args[i]}") ;;
  esac
done
if [[ $fault == python ]]; then
  KERNODECK_FAULT="" KERNODECK_PROBE_MODULE="" \
    KERNODECK_TORCH_PYTHON=${KD_WRAP_PYTHON:?KD_WRAP_PYTHON names an interpreter with torch} \
    "$check" --device cpu "${own[@]}"
else
  KERNODECK_FAULT=$fault "$check" "${own[@]}"
fi
status=$?
record end
exit "$status"
