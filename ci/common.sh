# Shared by ci/'s scripts and the kit's run (ci/kit/run carries it; sourced, not run): configure
# and build with a CMake preset against one libtorch, and turn a CTest run into
# JUnit.
#
# A variant names the libtorch (docs/suite.md, "Two libtorch variants"):
#   debian   Debian's libtorch-dev 1.13, CPU only     build-debian/, reports/debian/
#   pypi     PyPI's torch wheel (CUDA), .tools/venv    build-pypi/,   reports/pypi/
#   (empty)  the image's own libtorch                  build/,        reports/
# and one more build of Debian's libtorch, not a libtorch of its own:
#   asan     the sanitizers' build (clang-14), with the fuzz targets  build-asan/, reports/asan/
# and one build of no libtorch at all, the process library alone (process/):
#   tsan     ThreadSanitizer (clang-14): util, the supervisor, its tests  build-tsan/, reports/tsan/

# kd_needed_libraries FILE...: the shared libraries the FILEs need beyond the C library and
# GCC's runtime, which every Linux machine has: what ci/gpu-proof's kit carries.
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

# The image's own libtorch, as CMake arguments (one a line, none for CMake's own search):
# KERNODECK_TORCH_PREFIX (a libtorch folder or its CMake prefix), else KERNODECK_TORCH_DIR (a torch
# package, a libtorch archive or a folder holding libtorch.so), else the interpreter
# KERNODECK_TORCH_PYTHON names, else python3 on PATH where it has a torch package. The builds here
# and the kit's compiled probe (ci/kit/run, which carries this file) find it alike.
kd_own_torch_args() {
  if [[ -n "${KERNODECK_TORCH_PREFIX:-}" ]]; then
    echo "-DCMAKE_PREFIX_PATH=$KERNODECK_TORCH_PREFIX"
  elif [[ -n "${KERNODECK_TORCH_DIR:-}" ]]; then
    echo "-DKERNODECK_TORCH_DIR=$KERNODECK_TORCH_DIR"
  elif [[ -n "${KERNODECK_TORCH_PYTHON:-}" ]]; then
    echo "-DKERNODECK_TORCH_PYTHON=$KERNODECK_TORCH_PYTHON"
  elif [[ -n $(kd_torch_site python3 2>/dev/null) ]]; then
    echo "-DKERNODECK_TORCH_PYTHON=$(command -v python3)"
  fi
}

# kd_torch_site PYTHON: the folder holding PYTHON's torch package (its site-packages), found as its
# `import torch` would find it, never imported; "" where it has none. Fails where PYTHON does not
# run.
kd_torch_site() {
  "$1" -c 'import importlib.util as u, os; s = u.find_spec("torch")
print(os.path.dirname(list(s.submodule_search_locations)[0]) if s else "")'
}

# kd_torch_wheel_entries PYTHON SITE: the entries of SITE (a site-packages folder) that the torch
# wheel and the distributions it requires installed, one a line ("torch", "typing_extensions.py",
# "sympy-1.14.0.dist-info"): what an image or an environment that installed torch with pip holds
# of it. Read from the distributions' metadata (Requires-Dist, RECORD) by PYTHON.
kd_torch_wheel_entries() {
  "$1" - "$2" <<'PY'
import importlib.metadata as m, re, sys
def norm(name): return re.sub(r"[-_.]+", "-", name).lower()
dists = {norm(d.metadata["Name"]): d for d in m.distributions(path=[sys.argv[1]])}
todo, seen = ["torch"], set()
while todo:
    name = norm(todo.pop())
    if name in seen or name not in dists:
        continue
    seen.add(name)
    for requirement in dists[name].requires or []:
        if "extra ==" not in requirement:
            todo.append(re.split(r"[ ;<>=!~\[(]", requirement, maxsplit=1)[0])
entries = {f.parts[0] for name in seen for f in dists[name].files or []}
print("\n".join(sorted(e for e in entries if e not in ("..", "__pycache__"))))
PY
}

# kd_torch_cuda SITE: the CUDA version of the torch package in SITE, as its torch/version.py states
# it ("" for a build without CUDA).
kd_torch_cuda() {
  sed -n "s/^cuda[^=]*= *'\([^']*\)'.*/\1/p" "$1/torch/version.py"
}

# The run's own report tests (suites/CMakeLists.txt: conformance.report*, the fixture
# kernodeck_report), which every CTest run of ci/ leaves out: the report is published from
# CTest's own JUnit instead (kd_ctest, ci/coverage, ci/kit/run).
KD_OWN_REPORT_FILTER=(-E '^conformance\.report' -FA '^kernodeck_report$')

# kd_build VARIANT [TARGET...]: configures and builds the variant, every target or only the
# TARGETs named (ci/conformance: kernodeck_conformance, what the conformance run needs).
# Where ccache is installed (ci/setup), the build trees of this clone compile through one cache,
# .tools/ccache/ (kd_compiler_cache): a file compiled alike in build/ and build-debian/ (the same
# libtorch, the same flags) is compiled once.
kd_build() {
  local variant=$1 args=() targets=()
  shift
  if [[ -z $variant ]]; then
    mapfile -t args < <(kd_own_torch_args)
  fi
  if command -v ccache >/dev/null; then
    kd_compiler_cache
    args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  if (($# > 0)); then targets=(--target "$@"); fi
  cmake --preset "$(kd_preset "$variant")" "${args[@]}" >/dev/null
  cmake --build --preset "$(kd_preset "$variant")" "${targets[@]}"
}

# kd_compiler_cache: ccache's settings for the builds of this clone (the current folder), in the
# environment of the builds started after it. One cache in .tools/ccache/, 4 GiB at most;
# paths under the clone hashed relative to the build tree (base_dir), so that build/,
# build-debian/, build-pypi/ and build-asan/, siblings, share what they compile alike; the build
# tree's own folder left out of the hash (the line tables name the files relative to it, and
# __FILE__ is the project's relative path: cmake/KernodeckBuildCost.cmake); the precompiled
# headers used as ccache documents (their defines and times not compared). ccache -s
# --dir .tools/ccache says what it saved.
kd_compiler_cache() {
  export CCACHE_DIR=$PWD/.tools/ccache CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
  export CCACHE_MAXSIZE=4G CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
}

# Parallel jobs: most cases wait on a child process, so more jobs than cores.
kd_jobs() {
  echo "${KERNODECK_JOBS:-$(($(nproc) * 4))}"
}

# kd_ctest VARIANT [LABEL_REGEX]: runs the variant's tests (all without a label), then publishes
# the run with kernodeck-junit publish (reporting/publish.hpp), the pipeline CTest's own cleanup
# step runs too: <reports>/junit.xml (with the certificate learned from the check's own reports
# in <reports>/cases, the commit git tells, KERNODECK_EXPECT_GPU), <reports>/summary.md and
# <reports>/index.html from CTest's JUnit and the cases' records (each failed case's cause from the
# build's causes.json, the check's cause catalogue), every text with this machine's folders and
# names replaced (the privacy rule); then it says that the report validates against
# junit-10.xsd and that every skip has a reason, or fails. CTest's raw results and the cases'
# records, which name the machine's paths, stay in the build tree (ctest-junit.xml,
# ctest-tests.json, case-records/). Returns ctest's status, or 1 when publishing failed.
kd_ctest() {
  local variant=$1 labels=${2:-} status=0
  local build reports raw filter=() spec=() named=()
  build=$(kd_build_dir "$variant")
  reports=$(kd_reports_dir "$variant")
  raw=$PWD/$build
  if [[ -n "$labels" ]]; then filter=(-L "$labels"); fi
  filter+=("${KD_OWN_REPORT_FILTER[@]}")
  if [[ -n "${KERNODECK_RESOURCE_SPEC:-}" ]]; then
    spec=(--resource-spec-file "$KERNODECK_RESOURCE_SPEC")
  fi
  if [[ -n "$variant" ]]; then named=(--variant "$variant"); fi
  # gtest/, ctest-junit.xml and ctest-tests.json: where older runs left the raw results.
  rm -rf "$raw/case-records" "$reports/cases" "$reports/gtest" "$reports/ctest-junit.xml" \
    "$reports/ctest-tests.json"
  mkdir -p "$raw/case-records" "$reports"
  local which=${variant:-own}
  echo "ci: testing the $which libtorch ($build/)"
  ctest --test-dir "$build" "${filter[@]}" -j "$(kd_jobs)" "${spec[@]}" \
    --output-on-failure --output-junit "$raw/ctest-junit.xml" || status=$?
  ctest --test-dir "$build" "${filter[@]}" --show-only=json-v1 >"$raw/ctest-tests.json"
  "$build/reporting/kernodeck-junit" publish --reports "$reports" --case-records "$raw/case-records" \
    --ctest-junit "$raw/ctest-junit.xml" --ctest-tests "$raw/ctest-tests.json" "${named[@]}" \
    --causes "$build/causes.json" --source-root "$PWD" --machine-path "$(realpath "$build")" ||
    status=1
  return "$status"
}

# kd_merge_junit BUILD_DIR VARIANT...: one reports/junit.xml (with summary.md and index.html) of
# the variants' reports, published as kd_ctest publishes each: the same pipeline and checks, for
# the whole reports/. Prints the merged counts on stdout, the checks' verdicts on stderr.
# Callers run it where errexit does not reach (a command substitution, after ||): its status is
# the pipeline's, kept by hand.
kd_merge_junit() {
  local build=$1 inputs=() status=0
  shift
  for variant in "$@"; do inputs+=("$(kd_reports_dir "$variant")/junit.xml"); done
  "$build/reporting/kernodeck-junit" publish --reports reports --merge "${inputs[@]}" \
    --causes "$build/causes.json" --source-root "$PWD" --machine-path "$(realpath "$build")" ||
    status=1
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

# kd_tsan_build: the tsan build, process/ configured alone (its preset tsan) into build-tsan/.
kd_tsan_build() {
  cmake -S process --preset tsan >/dev/null
  cmake --build "$(kd_build_dir tsan)"
}

# kd_tsan_ctest: the tsan build's tests through kd_ctest tsan (reports/tsan/). That build makes no
# report tool of its own: the debian build's kernodeck-junit and causes.json are linked in where
# kd_ctest looks for them. A race ends its test program with exit code 86
# (sanitizers/options.c), so it fails as a test. Half the jobs of the variants, as the asan run.
kd_tsan_ctest() {
  local build tools
  build=$(kd_build_dir tsan)
  tools=$PWD/$(kd_build_dir debian)/reporting
  mkdir -p "$build/reporting"
  ln -sfn "$tools/kernodeck-junit" "$build/reporting/kernodeck-junit"
  ln -sfn "$tools/../causes.json" "$build/causes.json"
  KERNODECK_JOBS=${KERNODECK_JOBS:-$(($(nproc) * 2))} kd_ctest tsan
}
