# Shared by ci/conformance, ci/test and ci/bench (sourced, not run): configure
# and build with a CMake preset against one libtorch, and turn a CTest run into
# JUnit.
#
# A variant names the libtorch (docs/suite.md, "Two libtorch variants"):
#   debian   Debian's libtorch-dev 1.13, CPU only     build-debian/, reports/debian/
#   pypi     PyPI's torch wheel (CUDA), .tools/venv    build-pypi/,   reports/pypi/
#   (empty)  the image's own libtorch                  build/,        reports/
# and one more build of Debian's libtorch, not a libtorch of its own:
#   asan     the sanitizers' build (clang-14), with the fuzz targets  build-asan/, reports/asan/

# kd_needed_libraries FILE...: the shared libraries the FILEs need beyond the C library and
# GCC's runtime, which every Linux machine has: what ci/gpu-proof's kit carries, and what its
# rehearsal (ci/as-gpu-machine) takes away.
kd_needed_libraries() {
  ldd "$@" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
    grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux[^/]*)\.so' || true
}

kd_check_variant() {
  case "$1" in
    asan) echo "ci: asan is not a libtorch variant: it goes with debian" >&2; exit 2 ;;
    debian | pypi | "") ;;
    *) echo "ci: KERNODECK_TORCH must be debian or pypi, not '$1'" >&2; exit 2 ;;
  esac
}
kd_preset() { echo "${1:-default}"; }
kd_build_dir() { echo "build${1:+-$1}"; }
kd_reports_dir() { echo "reports${1:+/$1}"; }

# The image's own libtorch: KERNODECK_TORCH_PREFIX (a libtorch folder or its
# CMake prefix), else python3's torch package, else Debian's.
kd_own_torch_args() {
  if [[ -n "${KERNODECK_TORCH_PREFIX:-}" ]]; then
    echo "-DCMAKE_PREFIX_PATH=$KERNODECK_TORCH_PREFIX"
  elif python3 -c 'import importlib.util as u, sys; sys.exit(u.find_spec("torch") is None)' \
         >/dev/null 2>&1; then
    echo "-DKERNODECK_TORCH_PYTHON=$(command -v python3)"
  fi
}

kd_build() {  # kd_build VARIANT
  local variant=$1 args=()
  if [[ -z $variant ]]; then
    mapfile -t args < <(kd_own_torch_args)
  fi
  cmake --preset "$(kd_preset "$variant")" "${args[@]}" >/dev/null
  cmake --build --preset "$(kd_preset "$variant")"
}

# Parallel jobs: most cases wait on a child process, so more jobs than cores.
kd_jobs() {
  echo "${KERNODECK_JOBS:-$(($(nproc) * 4))}"
}

kd_validate_junit() {
  xmllint --noout --schema harness/junit/junit-10.xsd "$1" || return
  # Every skip says why: a skip whose only text is CTest's (the regex that matched GoogleTest's
  # "[  SKIPPED ]") or the converter's "no reason given" comes from a GTEST_SKIP() without one.
  local bare
  bare=$(xmllint --xpath '//testcase[skipped[starts-with(@message, "SKIP_REGULAR_EXPRESSION_MATCHED")
           or @message = "skipped by the test (no reason given)"]]/@name' "$1" 2>/dev/null) || true
  if [[ -n $bare ]]; then
    echo "ci: FAILED: $1: cases skipped without a reason (give GTEST_SKIP() one):" $bare >&2
    return 1
  fi
}

# The commit the check is built from, when this is a git work tree ("+changes" when tracked files
# differ from it); nothing otherwise.
kd_commit() {
  local commit
  commit=$(git rev-parse --short=12 HEAD 2>/dev/null) || return 0
  if [[ -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then
    commit+="+changes"
  fi
  echo "$commit"
}

# kd_check_published BUILD_DIR DIR...: nothing in the published reports names this machine: no
# absolute path of it, not the checkout or the build tree, nor what --this-machine adds (HOME,
# the host name, the user name unless root). Prints each problem; fails on any.
kd_check_published() {
  local build=$1
  shift
  "$build/harness/kernodeck-evidence" --published --this-machine --machine-path "$PWD" \
    --machine-path "$(realpath "$build")" "$@"
}

# kd_ctest VARIANT [LABEL_REGEX]: runs the variant's tests (all without a label),
# then writes <reports>/junit.xml (with the certificate learned from the check's own reports in
# <reports>/cases), <reports>/summary.md and <reports>/index.html from CTest's JUnit and
# GoogleTest's XML, validates it and holds <reports> against the machine's details. CTest's and
# GoogleTest's raw results, which name the machine's paths, stay in the build tree
# (ctest-junit.xml, ctest-tests.json, gtest-xml/). Returns ctest's status.
kd_ctest() {
  local variant=$1 labels=${2:-} status=0
  local build reports raw filter=() spec=() named=()
  build=$(kd_build_dir "$variant")
  reports=$(kd_reports_dir "$variant")
  raw=$PWD/$build
  if [[ -n "$labels" ]]; then filter=(-L "$labels"); fi
  # The report is written below from CTest's own JUnit, so the run's own report tests
  # (suites/CMakeLists.txt, fixture kernodeck_report) are left out.
  filter+=(-E '^conformance\.report' -FA '^kernodeck_report$')
  if [[ -n "${KERNODECK_RESOURCE_SPEC:-}" ]]; then
    spec=(--resource-spec-file "$KERNODECK_RESOURCE_SPEC")
  fi
  if [[ -n "$variant" ]]; then named=(--variant "$variant"); fi
  # gtest/, ctest-junit.xml and ctest-tests.json: where older runs left the raw results.
  rm -rf "$raw/gtest-xml" "$reports/cases" "$reports/gtest" "$reports/ctest-junit.xml" \
    "$reports/ctest-tests.json"
  mkdir -p "$raw/gtest-xml" "$reports"
  local which=${variant:-own}
  echo "ci: testing the $which libtorch ($build/)"
  ctest --test-dir "$build" "${filter[@]}" -j "$(kd_jobs)" "${spec[@]}" \
    --output-on-failure --output-junit "$raw/ctest-junit.xml" || status=$?
  ctest --test-dir "$build" "${filter[@]}" --show-only=json-v1 >"$raw/ctest-tests.json"
  local commit certified=()
  commit=$(kd_commit)
  if [[ -n $commit ]]; then certified=(--commit "$commit"); fi
  mkdir -p "$reports/cases"
  "$build/harness/junit/kernodeck-junit" --ctest-junit "$raw/ctest-junit.xml" \
    --gtest-xml "$raw/gtest-xml" --ctest-tests "$raw/ctest-tests.json" \
    --output "$reports/junit.xml" --title kernodeck-diagnostic "${named[@]}" \
    --cases "$reports/cases" "${certified[@]}" \
    --gpu-declared "$([[ ${KERNODECK_EXPECT_GPU:-} == 1 ]] && echo yes || echo no)" \
    --source-root "$PWD" --hide-prefix "${TMPDIR:-/tmp}" --summary "$reports/summary.md" \
    --html "$reports/index.html"
  kd_validate_junit "$reports/junit.xml" || status=1
  kd_check_published "$build" "$reports" || status=1
  return "$status"
}

# kd_merge_junit BUILD_DIR VARIANT...: one reports/junit.xml (with summary.md and index.html) of
# the variants' reports.
# Callers run it where errexit does not reach (a command substitution, after ||): every step's
# status is kept by hand.
kd_merge_junit() {
  local build=$1 inputs=() status=0
  shift
  for variant in "$@"; do inputs+=("$(kd_reports_dir "$variant")/junit.xml"); done
  "$build/harness/junit/kernodeck-junit" --merge "${inputs[@]}" \
    --output reports/junit.xml --title kernodeck-diagnostic --summary reports/summary.md \
    --html reports/index.html --source-root "$PWD" || status=1
  kd_validate_junit reports/junit.xml || status=1
  kd_check_published "$build" reports >&2 || status=1
  return "$status"
}

# kd_asan_ctest: the asan build's unit tests, conformance suite and fuzz targets (kd_ctest asan),
# then what the sanitizers found in the check's own processes (build-asan/sanitizer-findings/:
# the check writes its findings there, a worker's stderr being cut to its last line) and the
# executions of each fuzz target (build-asan/fuzz/runs/). Returns non-zero when a test failed or a finding is there.
kd_asan_ctest() {
  local status=0 build
  build=$(kd_build_dir asan)
  rm -rf "$build"/sanitizer-findings/sanitizer-check.* "$build/fuzz/runs"
  # Where older runs left them, in the published folder.
  rm -rf "$(kd_reports_dir asan)/fuzz" "$(kd_reports_dir asan)"/sanitizer-check.*
  # Half the jobs of the variants: a sanitized libtorch load takes about twice the CPU, and the
  # suite's time bounds (a refusal within 0.3 s, a 7.5 s timeout that must pass) would starve.
  KERNODECK_JOBS=${KERNODECK_JOBS:-$(($(nproc) * 2))} kd_ctest asan '^(unit|conformance|fuzz)$' ||
    status=$?
  local finding
  for finding in "$build"/sanitizer-findings/sanitizer-check.*; do
    [[ -e $finding ]] || continue
    echo "ci: FAILED: the sanitizers found a defect in a run of the check: $finding" >&2
    sed -n '1,40p' "$finding" >&2
    status=1
  done
  local execs name
  for execs in "$build"/fuzz/runs/*.execs; do
    [[ -e $execs ]] || continue
    name=$(basename "$execs" .execs)
    echo "ci: fuzz.$name: $(cat "$execs") executions"
  done
  return "$status"
}
