#!/usr/bin/env bash
# Installs the check into a prefix, moves the prefix elsewhere, and certifies
# the moved copy with conformance cases: it must find its probe module
# relative to itself, from wherever it lies.
#   install_test.sh CMAKE BUILD_DIR CONFORMANCE_COMPUTE_SUITE
set -euo pipefail
cmake=$1 build=$2 suite=$3
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
