#!/usr/bin/env bash
# probe.without_toolkit: the probe module builds from a torch wheel alone, as in
# a runtime image (a `-runtime` tag: the wheel, no CUDA toolkit). In a private
# mount namespace every CUDA toolkit folder is covered by an empty one and nvcc
# leaves PATH; there
#   1. find_package(Torch) must fail (libtorch's usual complaint: its CUDA
#      detection wants a toolkit), which shows the toolkit is really gone;
#   2. the probe's own build (check/probe) must succeed, with libtorch_cuda and
#      libc10_cuda needed and nothing of the toolkit in its RUNPATH;
#   3. the real check, given that probe, answers with a CUDA backend.
#
# usage: without_toolkit_test.sh CMAKE PROBE_SOURCE_DIR TORCH_DIR CHECK
# Exit 77 (a skip, with its reason) where mount namespaces are refused.
set -euo pipefail
if [[ $# -ne 4 ]]; then
  echo "usage: $0 CMAKE PROBE_SOURCE_DIR TORCH_DIR CHECK" >&2
  exit 2
fi
cmake=$1 source=$2 torch=$3 check=$4

if [[ ${KD_INSIDE_NAMESPACE:-} != 1 ]]; then
  if ! unshare --user --map-root-user --mount true 2>/dev/null; then
    echo "skipped: needs user and mount namespaces (unshare --user --map-root-user --mount)," \
         "which this runner refuses"
    exit 77
  fi
  KD_INSIDE_NAMESPACE=1 exec unshare --user --map-root-user --mount bash "$0" "$@"
fi

fail() { echo "probe.without_toolkit: FAILED: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Every toolkit folder: /usr/local/cuda*, CUDA_HOME / CUDA_PATH, nvcc's. A
# toolkit is named by where its real header lives: a prefix that only links to
# it (/usr/local/include/cuda_runtime_api.h, a /usr/local/bin/nvcc wrapper)
# names the toolkit behind it, never itself, so /usr/local is never covered.
toolkits=()
for candidate in /usr/local/cuda* "${CUDA_HOME:-}" "${CUDA_PATH:-}" \
                 "$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /x/x/x)")")"; do
  header=$candidate/include/cuda_runtime_api.h
  [[ -n $candidate && -e $header ]] || continue
  toolkits+=("$(dirname "$(dirname "$(realpath "$header")")")")
done
mkdir "$work/empty"
mapfile -t toolkits < <(printf '%s\n' "${toolkits[@]}" | sort -u)
covered=()
for dir in "${toolkits[@]}"; do
  [[ -n $dir ]] || continue
  # A folder inside one already covered is gone with it.
  for done_dir in "${covered[@]}"; do [[ $dir == "$done_dir"/* ]] && continue 2; done
  mount --bind "$work/empty" "$dir"
  covered+=("$dir")
done
PATH=$(tr ':' '\n' <<<"$PATH" | grep -v -i cuda | paste -sd: -)
unset CUDA_HOME CUDA_PATH CUDA_ROOT CUDACXX CUDAToolkit_ROOT
echo "toolkit folders covered: ${covered[*]:-none found}"
# A wrapper left on PATH (/usr/local/bin/nvcc) now points at nothing.
if nvcc --version >/dev/null 2>&1; then fail "nvcc still runs: $(command -v nvcc)"; fi
if [[ -e /usr/local/cuda/include/cuda_runtime_api.h ]]; then fail "the toolkit's headers are still visible"; fi

# 1. libtorch's own CMake package needs the toolkit.
mkdir "$work/find-package"
cat >"$work/find-package/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.22)
project(find_torch LANGUAGES CXX)
find_package(Torch REQUIRED)
CMAKE
if "$cmake" -S "$work/find-package" -B "$work/find-package/build" \
     -DCMAKE_PREFIX_PATH="$torch/share/cmake" >"$work/find-package.log" 2>&1; then
  fail "find_package(Torch) succeeded, so the CUDA toolkit is not hidden"
fi
echo "find_package(Torch) without a toolkit fails, as expected:"
grep -m 3 -i -E "cuda|nvcc" "$work/find-package.log" | sed 's/^/  | /' || true

# 2. The probe's own build needs only the wheel.
if ! "$cmake" -S "$source" -B "$work/probe" -G Ninja -DKERNODECK_TORCH_DIR="$torch" \
       >"$work/probe.log" 2>&1 || ! "$cmake" --build "$work/probe" >>"$work/probe.log" 2>&1; then
  cat "$work/probe.log" >&2
  fail "the probe does not build from the wheel alone"
fi
probe=$(find "$work/probe" -name libkernodeck_probe_torch.so | head -1)
[[ -n $probe ]] || fail "the build made no libkernodeck_probe_torch.so"
dynamic=$(readelf -d "$probe")
for lib in libtorch_cuda.so libc10_cuda.so; do
  grep -q "NEEDED.*\[$lib\]" <<<"$dynamic" || fail "the probe does not need $lib:"$'\n'"$dynamic"
done
if grep -E "R(UN)?PATH" <<<"$dynamic" | grep -q -i "cuda/\|cuda-"; then
  fail "the probe's RUNPATH names a CUDA toolkit:"$'\n'"$dynamic"
fi
echo "built from the wheel alone: $(grep -c NEEDED <<<"$dynamic") libraries needed, libtorch_cuda among them"

# 3. The real check with that probe sees a CUDA libtorch.
report=$(KERNODECK_PROBE_MODULE=$probe "$check" 2>/dev/null || true)
grep -q '"backend": "cuda"' <<<"$report" || fail "the check with this probe reported:"$'\n'"$report"
echo "the check with this probe: $(grep -m1 '"code"' <<<"$report" | tr -d ' ,')"
