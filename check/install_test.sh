#!/usr/bin/env bash
# Installs the check into a prefix, moves the prefix elsewhere, and certifies
# the moved copy with conformance cases: it must find its probe module
# relative to itself, from wherever it lies.
# It also runs the installed check once with the default device, which on a
# machine without a GPU must answer as its libtorch implies: GPU_BACKEND_ABSENT
# for a CPU-only libtorch, GPU_UNAVAILABLE with the cuda backend for a CUDA one.
#   install_test.sh CMAKE BUILD_DIR CONFORMANCE_COMPUTE_SUITE BACKEND
set -euo pipefail
cmake=$1 build=$2 suite=$3 backend=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cmake" --install "$build" --prefix "$tmp/first" >/dev/null
mv "$tmp/first" "$tmp/moved"
check="$tmp/moved/bin/kernodeck-diagnostic"
[[ -x "$check" ]] || { echo "FAIL: no bin/kernodeck-diagnostic in the installation" >&2; exit 1; }

# Only the program and its probe module are installed.
extra=$(cd "$tmp/moved" && find . -type f | grep -v -e '^./bin/kernodeck-diagnostic$' \
          -e '/kernodeck-diagnostic/libkernodeck_probe_torch.so$' || true)
if [[ -n "$extra" ]]; then
  echo "FAIL: the installation holds more than the check and its probe:" >&2
  echo "$extra" >&2
  exit 1
fi

cases='compute.run/cpu_pass_real_libtorch:compute.run/wrong_product:compute.run/worker_crash'
out=$(KERNODECK_CHECK="$check" KERNODECK_REPORTS_DIR="$tmp/reports" "$suite" --gtest_color=no \
        --gtest_filter="$cases" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
# A filter that matched nothing would pass silently: require all three.
grep -q '^\[  PASSED  \] 3 tests' <<<"$out" || { echo "FAIL: expected 3 cases to pass" >&2; exit 1; }

# The default device, as a user would first run it.
if compgen -G '/dev/nvidia[0-9]*' >/dev/null || [[ -e /dev/kfd ]]; then
  echo "default device: not asserted, this machine has a GPU"
  exit 0
fi
case $backend in
  none) want_code=GPU_BACKEND_ABSENT want_exit=5 ;;
  cuda | rocm) want_code=GPU_UNAVAILABLE want_exit=6 ;;
  *) echo "FAIL: unknown backend '$backend'" >&2; exit 1 ;;
esac
status=0
report=$("$check") || status=$?
code=$(sed -n 's/^  "code": "\(.*\)",$/\1/p' <<<"$report")
declared=$(sed -n 's/^    "backend": "\(.*\)",$/\1/p' <<<"$report")
if [[ $status != "$want_exit" || $code != "$want_code" || $declared != "$backend" ]]; then
  echo "FAIL: the installed check's default run answered exit $status, code '$code', backend" \
       "'$declared'; expected exit $want_exit, $want_code, backend $backend:" >&2
  echo "$report" >&2
  exit 1
fi
echo "default device: exit $status, $code, backend $declared"
