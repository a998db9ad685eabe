#!/usr/bin/env bash
# Installs the check into a prefix, moves the prefix elsewhere, and certifies
# the moved copy with conformance cases: it must find its probe module
# relative to itself, from wherever it lies.
# It also runs the installed check once with the default device, which on a
# machine without a GPU must answer as its libtorch implies: GPU_BACKEND_ABSENT
# for a CPU-only libtorch, GPU_UNAVAILABLE with the cuda backend for a CUDA one; and through
# DEFAULT_PROBE, the probe its build calls for with no variable set: libtorch (the compiled
# probe) for a libtorch's build, python for a build against a torch wheel through its
# interpreter, which it keeps (runtime.torch_source python_of_build).
# Then, with the compiled probe taken away, the check against the same torch, found each way a
# TORCH_VARIABLE names: KERNODECK_TORCH_PYTHON=... is the python probe (the interpreter's own
# import), which passes on the CPU with the autograd gradient on every release;
# KERNODECK_TORCH_DIR=... is the stable probe, which passes on a torch from 2.10 with the
# autograd gradient and refuses an older one (Debian's 1.13) with StableAbiTooOld.
#   install_test.sh CMAKE BUILD_DIR CONFORMANCE_COMPUTE_SUITE BACKEND DEFAULT_PROBE TORCH_VARIABLE...
set -euo pipefail
cmake=$1 build=$2 suite=$3 backend=$4 default_probe=$5
shift 5
torch_variables=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cmake" --install "$build" --prefix "$tmp/first" >/dev/null
mv "$tmp/first" "$tmp/moved"
check="$tmp/moved/bin/kernodeck-diagnostic"
[[ -x "$check" ]] || { echo "FAIL: no bin/kernodeck-diagnostic in the installation" >&2; exit 1; }

# Only the program and its two probe modules are installed.
extra=$(cd "$tmp/moved" && find . -type f | grep -v -e '^./bin/kernodeck-diagnostic$' \
          -e '/kernodeck-diagnostic/libkernodeck_probe_torch.so$' \
          -e '/kernodeck-diagnostic/libkernodeck_probe_stable.so$' || true)
if [[ -n "$extra" ]]; then
  echo "FAIL: the installation holds more than the check and its probes:" >&2
  echo "$extra" >&2
  exit 1
fi

# The report's field at a JSON pointer ("/error/type"), as text ("null" for null).
field() {
  python3 -c 'import json, sys
v = json.loads(sys.stdin.read())
for k in sys.argv[1].strip("/").split("/"): v = v[k]
print("null" if v is None else str(v).lower() if isinstance(v, bool) else v)' "$1"
}

# Without the compiled probe, as the kit and the wheel install the check: the probe a torch
# variable calls for, against the same torch.
without_compiled_probe() {
  local torch_variable=$1 report status=0 probe version want got
  report=$(env "$torch_variable" "$check" --device cpu 2>/dev/null) || status=$?
  probe=$(field /tool/probe <<<"$report")
  version=$(field /pytorch/version <<<"$report")
  local expected_probe=stable_abi
  [[ $torch_variable == KERNODECK_TORCH_PYTHON=* ]] && expected_probe=python
  if [[ $probe != "$expected_probe" ]]; then
    echo "FAIL: without the compiled probe, ${torch_variable%%=*} served the check with" \
         "'$probe', not the $expected_probe probe" >&2
    exit 1
  fi
  local major=0 minor=0
  if [[ $version =~ ^([0-9]+)\.([0-9]+) ]]; then major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}; fi
  if [[ $probe == python ]] || ((major > 2 || (major == 2 && minor >= 10))); then
    want="0 CPU_CHECK_PASSED autograd true 196.0"
    got="$status $(field /code <<<"$report") $(field /execution/gradient_source <<<"$report")"
    got+=" $(field /execution/gradient_verified <<<"$report") $(field /execution/loss <<<"$report")"
  else
    want="4 TORCH_IMPORT_FAILED StableAbiTooOld"
    got="$status $(field /code <<<"$report") $(field /error/type <<<"$report")"
  fi
  if [[ $got != "$want" ]]; then
    echo "FAIL: the $probe probe on libtorch $version (${torch_variable%%=*}) answered '$got'," \
         "expected '$want':" >&2
    echo "$report" >&2
    exit 1
  fi
  echo "$probe probe (${torch_variable%%=*}), --device cpu, libtorch $version: $got"
}

cases='compute.run/cpu_pass_real_libtorch:compute.run/wrong_product:compute.run/worker_crash'
out=$(KERNODECK_CHECK="$check" KERNODECK_REPORTS_DIR="$tmp/reports" "$suite" --gtest_color=no \
        --gtest_filter="$cases" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
# A filter that matched nothing would pass silently: require all three.
grep -q '^\[  PASSED  \] 3 tests' <<<"$out" || { echo "FAIL: expected 3 cases to pass" >&2; exit 1; }

# The default device, as a user would first run it.
if compgen -G '/dev/nvidia[0-9]*' >/dev/null || [[ -e /dev/kfd ]]; then
  echo "default device: not asserted, this machine has a GPU"
  rm "$tmp/moved/lib/kernodeck-diagnostic/libkernodeck_probe_torch.so"
  for torch_variable in "${torch_variables[@]}"; do without_compiled_probe "$torch_variable"; done
  exit 0
fi
case $backend in
  none) want_code=GPU_BACKEND_ABSENT want_exit=5 ;;
  cuda | rocm) want_code=GPU_UNAVAILABLE want_exit=6 ;;
  *) echo "FAIL: unknown backend '$backend'" >&2; exit 1 ;;
esac
status=0
report=$("$check") || status=$?
code=$(field /code <<<"$report")
declared=$(field /pytorch/backend <<<"$report")
probe=$(field /tool/probe <<<"$report")
source=$(field /runtime/torch_source <<<"$report")
want_source=null
[[ $default_probe == python ]] && want_source=python_of_build
if [[ $status != "$want_exit" || $code != "$want_code" || $declared != "$backend" ||
      $probe != "$default_probe" || $source != "$want_source" ]]; then
  echo "FAIL: the installed check's default run answered exit $status, code '$code', backend" \
       "'$declared', probe '$probe', torch_source '$source'; expected exit $want_exit," \
       "$want_code, backend $backend, probe $default_probe, torch_source $want_source:" >&2
  echo "$report" >&2
  exit 1
fi
echo "default device: exit $status, $code, backend $declared, probe $probe ($source)"
rm "$tmp/moved/lib/kernodeck-diagnostic/libkernodeck_probe_torch.so"
for torch_variable in "${torch_variables[@]}"; do without_compiled_probe "$torch_variable"; done
