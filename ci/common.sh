# Shared by ci/conformance and ci/test (sourced, not run): configure and
# build with the CMake preset, against the libtorch this machine has, and
# turn a CTest run into reports/junit.xml.

# The image's own libtorch when there is one: a pip wheel (torch's CMake
# prefix) or KERNODECK_TORCH_PREFIX; else Debian's libtorch-dev.
kd_torch_prefix() {
  if [[ -n "${KERNODECK_TORCH_PREFIX:-}" ]]; then
    echo "$KERNODECK_TORCH_PREFIX"
  elif python3 -c 'import torch' >/dev/null 2>&1; then
    python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'
  fi
}

kd_build() {
  local prefix
  prefix=$(kd_torch_prefix)
  cmake --preset default ${prefix:+"-DCMAKE_PREFIX_PATH=$prefix"} >/dev/null
  cmake --build --preset default
}

# Parallel jobs: most cases wait on a child process, so more jobs than cores.
kd_jobs() {
  echo "${KERNODECK_JOBS:-$(($(nproc) * 4))}"
}

# kd_ctest [LABEL_REGEX]: runs the tests (all without a label), then writes reports/junit.xml from
# CTest's JUnit and GoogleTest's XML, and validates it. Returns ctest's status.
kd_ctest() {
  local labels=${1:-} status=0
  local filter=()
  if [[ -n "$labels" ]]; then filter=(-L "$labels"); fi
  rm -rf reports/gtest reports/cases
  mkdir -p reports/gtest
  local spec=()
  if [[ -n "${KERNODECK_RESOURCE_SPEC:-}" ]]; then
    spec=(--resource-spec-file "$KERNODECK_RESOURCE_SPEC")
  fi
  ctest --test-dir build "${filter[@]}" -j "$(kd_jobs)" "${spec[@]}" \
    --output-on-failure --output-junit "$PWD/reports/ctest-junit.xml" || status=$?
  ctest --test-dir build "${filter[@]}" --show-only=json-v1 >reports/ctest-tests.json
  build/harness/junit/kernodeck-junit --ctest-junit reports/ctest-junit.xml \
    --gtest-xml reports/gtest --ctest-tests reports/ctest-tests.json \
    --output reports/junit.xml --title kernodeck-diagnostic
  xmllint --noout --schema harness/junit/junit-10.xsd reports/junit.xml
  return "$status"
}
