#!/usr/bin/env bash
# junit.consumer: runs the sample cases through a throw-away CTest project, publishes the result
# with kernodeck-junit publish, validates it against junit-10.xsd and reads it back with
# junitparser, a real JUnit consumer (consumer_check.py), checking every count, name and message
# a dashboard would show; then does the same for two variants of the run merged into one report
# (--variant, --merge). junitparser comes from TOOLS_DIR/venv (./ci/setup --junit-consumer).
#
# Then the run is published once more as a certificate (the check's reports in its cases/,
# --source-root, --hide-prefix): the properties, the certificate's case, the reasons first and
# where each case is declared (as GoogleTest recorded it), no path of this machine, and the
# Markdown summary, read as dashboards read them.
#
# usage: consumer_test.sh SAMPLE KERNODECK_JUNIT XSD TOOLS_DIR CTEST SOURCE_ROOT
set -euo pipefail

if [[ $# -ne 6 ]]; then
  echo "usage: $0 SAMPLE KERNODECK_JUNIT XSD TOOLS_DIR CTEST SOURCE_ROOT" >&2
  exit 2
fi
sample=$1 tool=$2 xsd=$3 tools=$4 ctest=$5 source_root=$6

# A missing consumer is a broken setup, not a reason to skip: the report would go unchecked.
JUNITPARSER_VERSION=5.0.3
missing() {
  echo "junit.consumer: FAILED: $1 is missing; run ./ci/setup --junit-consumer" >&2
  exit 1
}
command -v xmllint >/dev/null 2>&1 || missing "xmllint (Debian package libxml2-utils)"
python=$tools/venv/bin/python
[[ -x $python ]] || missing "the Python venv $tools/venv"
version=$("$python" -c 'import junitparser; print(junitparser.version)' 2>/dev/null) ||
  missing "junitparser (PyPI, in $tools/venv)"
if [[ $version != "$JUNITPARSER_VERSION" ]]; then
  echo "junit.consumer: FAILED: $tools/venv has junitparser $version, the checks are written" \
    "for $JUNITPARSER_VERSION; run ./ci/setup --junit-consumer" >&2
  exit 1
fi
checker=$(dirname "$0")/consumer_check.py
for file in "$sample" "$tool" "$xsd" "$ctest" "$checker"; do
  [[ -e $file ]] || { echo "junit.consumer: FAILED: $file does not exist" >&2; exit 1; }
done
# CTest resolves a relative program against the throw-away project, not against here.
sample=$(realpath "$sample") tool=$(realpath "$tool") xsd=$(realpath "$xsd")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
project=$work/project records=$work/case-records
mkdir -p "$project" "$records"
bash_path=$(command -v bash)

# The same command line gtest_discover_tests generates for the suites (their EXTRA_ARGS), so the
# records land in subfolders exactly as theirs do.
gtest_test() {
  local name=$1 extra=${2:-}
  cat >>"$project/CTestTestfile.cmake" <<EOF
add_test([=[$name]=] "$sample" "--gtest_filter=$name" "--gtest_also_run_disabled_tests"
         "--case-records=$records")
set_tests_properties([=[$name]=] PROPERTIES SKIP_REGULAR_EXPRESSION [=[\[  SKIPPED \]]=] $extra)
EOF
}
script_test() {
  local name=$1 code=$2 extra=${3:-}
  cat >>"$project/CTestTestfile.cmake" <<EOF
add_test([=[$name]=] "$bash_path" "-c" [=[$code]=])
EOF
  [[ -z $extra ]] || echo "set_tests_properties([=[$name]=] PROPERTIES $extra)" \
    >>"$project/CTestTestfile.cmake"
}

: >"$project/CTestTestfile.cmake"
gtest_test cli.run/usage_ok
gtest_test cli.run/report_mismatch
gtest_test cli.run/needs_gpu
gtest_test probe.run/healthy
gtest_test probe.run/segfault
gtest_test probe.run/hang_forever "TIMEOUT 2"
gtest_test probe.run/dirty_exit
gtest_test SampleUnit.Holds
script_test script.pass 'echo fine'
script_test script.fail 'echo "checked the report"; echo "exit code 3, expected 0"; exit 3'
script_test script.skip 'echo "no nvidia-smi on this runner"; exit 77' "SKIP_RETURN_CODE 77"
echo 'add_test([=[script.missing]=] "/nonexistent/kernodeck-no-such-program")' \
  >>"$project/CTestTestfile.cmake"

# ctest exits non-zero: half the sample fails on purpose.
"$ctest" --test-dir "$project" -j 2 --output-junit "$work/ctest-junit.xml" \
  >"$work/ctest.log" 2>&1 || true
"$ctest" --test-dir "$project" --show-only=json-v1 >"$work/ctest-tests.json"
if [[ ! -s $work/ctest-junit.xml ]]; then
  cat "$work/ctest.log" >&2
  echo "junit.consumer: FAILED: ctest wrote no JUnit" >&2
  exit 1
fi

# publish REPORTS ARGS...: the run (or, with --merge, the reports) published into REPORTS.
publish() {
  local reports=$1
  shift
  "$tool" publish --reports "$reports" --source-root "$source_root" "$@"
}
run=(--ctest-junit "$work/ctest-junit.xml" --case-records "$records" --ctest-tests "$work/ctest-tests.json")

summary=$(publish "$work/plain" "${run[@]}" --title sample 2>"$work/plain.err") ||
  { cat "$work/plain.err" >&2; echo "junit.consumer: FAILED: publish failed" >&2; exit 1; }
# The sample's 12 cases and the certificate's, which fails: a case failed.
expected_summary="tests=13 passed=4 failures=3 errors=4 skipped=2"
if [[ $summary != "$expected_summary" ]]; then
  echo "junit.consumer: FAILED: summary '$summary', expected '$expected_summary'" >&2
  cat "$work/plain/junit.xml" >&2
  exit 1
fi

if ! xmllint --noout --schema "$xsd" "$work/plain/junit.xml"; then
  cat "$work/plain/junit.xml" >&2
  echo "junit.consumer: FAILED: the report does not validate against junit-10.xsd" >&2
  exit 1
fi

"$python" "$checker" sample "$work/plain/junit.xml"

# The certificate. The check's own reports of the run: a real GPU pass with the host check, a
# real CPU pass, a fault-injection report whose simulated GPU must not be taken for the
# machine's, and a file that is no report.
cases=$work/certified/cases
mkdir -p "$cases"
report() {  # report FILE PROBE DEVICE CODE DEVICE_NAME HOST [GRADIENT_SOURCE]
  cat >"$cases/$1" <<EOF
{"schema_version": 1, "tool": {"name": "kernodeck-diagnostic", "version": "1.0.0", "probe": "$2"},
 "code": "$4", "requested": {"device": "$3"},
 "pytorch": {"version": "2.15.0", "cuda": "13.2", "hip": null, "backend": "cuda",
             "gpu_available": true, "visible_device_count": $([[ $3 == cuda ]] && echo 2 || echo null)},
 "execution": {"device_name": $5, "capability": $([[ $5 == null ]] && echo null || echo '"9.0"'),
               "gradient_verified": true, "gradient_source": "${7:-autograd}"},
 "host": $6}
EOF
}
report device.gpu_pass_index_0.json libtorch cuda GPU_CHECK_PASSED '"NVIDIA H200"' null
report host.nvidia_smi_real.json libtorch cuda GPU_CHECK_PASSED '"NVIDIA H200"' \
  '{"tool": "nvidia-smi", "status": "ok", "driver_version": "570.86.15", "memory_total_mib": 1}'
report compute.cpu_pass.json stable_abi cpu CPU_CHECK_PASSED null null
report device.simulated.json override cuda GPU_CHECK_PASSED '"Kernodeck Simulated GPU"' \
  '{"tool": "nvidia-smi", "status": "ok", "driver_version": "999.1", "memory_total_mib": 1}' explicit
echo 'not a report' >"$cases/device.simulated.stderr.json"
# A source tree where GoogleTest's file (compiled in the project's real tree) is found by its
# relative path, and a table that names two cases on its lines 3 and 4: where a case is
# declared comes from GoogleTest, never from such a text.
src=$work/src
mkdir -p "$src/suites" "$src/reporting"
: >"$src/reporting/sample_cases.cpp"
printf '// the sample table\nstd::vector<Case> cases() {\n  return {Case("report_mismatch", "cli"),\n          host_case("needs_gpu", "cli")};\n}\n' \
  >"$src/suites/sample_cases.cpp"
build_root=$(dirname "$(dirname "$tool")")
summary=$(KERNODECK_EXPECT_GPU=1 "$tool" publish --reports "$work/certified" "${run[@]}" \
  --title sample --commit 0123456789ab --source-root "$src" \
  --hide-prefix "$source_root" --hide-prefix "$build_root" 2>"$work/certified.err")
expected_certified="tests=13 passed=4 failures=3 errors=4 skipped=2"
if [[ $summary != "$expected_certified" ]] || ! grep -q "device.simulated.stderr.json" "$work/certified.err"; then
  cat "$work/certified.err" >&2
  echo "junit.consumer: FAILED: certified summary '$summary', expected '$expected_certified'" \
    "and a note about the file that is no report" >&2
  exit 1
fi
if ! xmllint --noout --schema "$xsd" "$work/certified/junit.xml"; then
  cat "$work/certified/junit.xml" >&2
  echo "junit.consumer: FAILED: the certified report does not validate against junit-10.xsd" >&2
  exit 1
fi
"$python" "$checker" certified "$work/certified/junit.xml" "$work/certified/summary.md" "$records"

# Two build variants certified in separate CTest runs end in one report: the same run published
# with --variant a and --variant b, then merged.
# Each variant's folder holds its own JSON report of the case cli.report_mismatch, which the
# merged HTML page must show under that variant's case.
for variant in a b; do
  mkdir -p "$work/$variant/cases"
  echo "{\"schema_version\": 1, \"seen_by\": \"variant-$variant\"}" \
    >"$work/$variant/cases/cli.report_mismatch.json"
  summary=$(publish "$work/$variant" "${run[@]}" --variant "$variant" --title sample \
    2>"$work/$variant.err")
  cp "$work/$variant/junit.xml" "$work/junit-$variant.xml"
  if [[ $summary != "$expected_summary" ]]; then
    echo "junit.consumer: FAILED: --variant $variant: summary '$summary'" >&2
    exit 1
  fi
done
summary=$(publish "$work/merged" --merge "$work/a/junit.xml" "$work/b/junit.xml" \
  --title sample-variants 2>"$work/merge.err")
expected_merged="tests=26 passed=8 failures=6 errors=8 skipped=4"
if [[ $summary != "$expected_merged" ]] || grep -q "warning" "$work/merge.err"; then
  cat "$work/merge.err" >&2
  echo "junit.consumer: FAILED: merged summary '$summary', expected '$expected_merged'" >&2
  exit 1
fi
if ! xmllint --noout --schema "$xsd" "$work/merged/junit.xml"; then
  cat "$work/merged/junit.xml" >&2
  echo "junit.consumer: FAILED: the merged report does not validate against junit-10.xsd" >&2
  exit 1
fi
"$python" "$checker" variants "$work/merged/junit.xml"
for variant in a b; do
  shown=$(sed -n "/data-case=\"cli.report_mismatch\".*data-variant=\"$variant\"/,/^<\/div>$/p" \
    "$work/merged/index.html")
  if ! grep -q "variant-$variant" <<<"$shown"; then
    echo "junit.consumer: FAILED: the merged HTML does not show variant $variant's own JSON" \
      "report under its case cli.report_mismatch; it shows:" >&2
    echo "${shown:-(no such case)}" >&2
    exit 1
  fi
done

# --merge takes reports this tool wrote, and only them.
status=0
publish "$work/refused" --merge "$work/junit-a.xml" --ctest-junit "$work/ctest-junit.xml" \
  >/dev/null 2>&1 || status=$?
if [[ $status != 2 ]]; then
  echo "junit.consumer: FAILED: --merge with --ctest-junit exited $status, expected 2" >&2
  exit 1
fi
status=0
publish "$work/refused" --merge "$work/junit-a.xml" "$work/ctest-junit.xml" \
  >/dev/null 2>"$work/refused.err" || status=$?
if [[ $status != 1 ]] || ! grep -qF "$work/ctest-junit.xml is not a report" "$work/refused.err" ||
   [[ -e $work/refused/junit.xml ]]; then
  cat "$work/refused.err" >&2
  echo "junit.consumer: FAILED: merging CTest's own JUnit exited $status, expected 1" \
    "naming the file and writing nothing" >&2
  exit 1
fi
echo "junit.consumer: the merged two-variant report and the refusals are as expected"
