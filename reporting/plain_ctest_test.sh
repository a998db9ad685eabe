#!/usr/bin/env bash
# junit.plain_ctest: a plain `ctest` run, with a name filter and -j, leaves the report of
# exactly the cases it ran. A throw-away CTest project holds the sample cases wired as the
# conformance suite is (suites/CMakeLists.txt): a record per case, every case
# requiring the fixture kernodeck_report, whose setup and cleanup tests run
# cmake/KernodeckConformanceReport.cmake. Two runs with different filters, on a PATH without
# xmllint: each report holds its own cases only, a case that crashed or hung is an error, the
# cleanup step says that the report validates against junit-10.xsd, and it does (xmllint,
# outside the runs, agrees), and the page holds the cause catalogue the step was given (CAUSES,
# the build's causes.json).
#
# usage: plain_ctest_test.sh SAMPLE KERNODECK_JUNIT CTEST CMAKE SOURCE_ROOT CAUSES_JSON
set -euo pipefail

if [[ $# -ne 6 ]]; then
  echo "usage: $0 SAMPLE KERNODECK_JUNIT CTEST CMAKE SOURCE_ROOT CAUSES_JSON" >&2
  exit 2
fi
sample=$(realpath "$1") tool=$(realpath "$2") ctest=$3 cmake=$4 source_root=$(realpath "$5")
causes=$(realpath "$6")
script=$source_root/cmake/KernodeckConformanceReport.cmake
xsd=$source_root/reporting/junit-10.xsd
command -v xmllint >/dev/null 2>&1 || {
  echo "junit.plain_ctest: FAILED: xmllint is missing; run ./ci/setup --junit-consumer" >&2
  exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
project=$work/project reports=$work/reports records=$work/case-records
mkdir -p "$project" "$reports"
failed=0
fail() {
  echo "junit.plain_ctest: FAILED: $*" >&2
  failed=1
}

{
  echo "add_test(conformance.report_start \"$cmake\" -DSTEP=start \"-DREPORTS=$reports\"" \
       "\"-DRECORDS=$records\" -P \"$script\")"
  echo "set_tests_properties(conformance.report_start PROPERTIES FIXTURES_SETUP kernodeck_report)"
  echo "add_test(conformance.report \"$cmake\" -DSTEP=report \"-DREPORTS=$reports\"" \
       "\"-DRECORDS=$records\" \"-DJUNIT=$tool\" \"-DSOURCE=$source_root\" \"-DCAUSES=$causes\"" \
       "-P \"$script\")"
  echo "set_tests_properties(conformance.report PROPERTIES FIXTURES_CLEANUP kernodeck_report)"
  # The same command line gtest_discover_tests generates for the suites (their EXTRA_ARGS).
  for name in cli.run/usage_ok cli.run/report_mismatch cli.run/needs_gpu probe.run/healthy \
              probe.run/segfault probe.run/hang_forever; do
    echo "add_test([=[$name]=] \"$sample\" \"--gtest_filter=$name\"" \
         "\"--gtest_also_run_disabled_tests\" \"--case-records=$records\")"
    echo "set_tests_properties([=[$name]=] PROPERTIES FIXTURES_REQUIRED kernodeck_report" \
         "TIMEOUT 3)"
  done
} >"$project/CTestTestfile.cmake"

# expect WHAT XPATH VALUE: what the XPath expression gives for reports/junit.xml.
expect() {
  local got
  got=$(xmllint --xpath "$2" "$reports/junit.xml" 2>/dev/null || echo "(none)")
  [[ $got == "$3" ]] || fail "$1: expected $3, got $got ($2)"
}

# The runs see git (the commit) and nothing else on PATH: no xmllint.
mkdir -p "$work/bin"
if git=$(command -v git); then ln -s "$git" "$work/bin/git"; fi
if PATH=$work/bin command -v xmllint >/dev/null 2>&1; then fail "xmllint is still on the bare PATH"; fi
# verdict RUN: the cleanup step of that run said the report validates (CTest keeps each test's
# output in LastTest.log).
verdict() {
  grep -qxF "kernodeck-junit: $reports/junit.xml validates against junit-10.xsd" \
    "$project/Testing/Temporary/LastTest.log" ||
    fail "$1: the cleanup step did not say that junit.xml validates against junit-10.xsd"
}

# 1. Three cli cases, and two probe cases that die without a verdict.
PATH=$work/bin "$ctest" --test-dir "$project" -j 4 -R 'cli\.run|segfault|hang_forever' \
  >"$work/run1.log" 2>&1 || true
if [[ ! -f $reports/junit.xml ]]; then
  cat "$work/run1.log" >&2
  echo "junit.plain_ctest: FAILED: the first run left no junit.xml" >&2
  exit 1
fi
verdict "run 1"
xmllint --noout --schema "$xsd" "$reports/junit.xml" || fail "run 1: junit.xml is not valid"
expect "run 1: cli cases" 'count(//testcase[@classname="kernodeck.cli"])' 3
expect "run 1: probe cases" 'count(//testcase[@classname="kernodeck.probe"])' 2
expect "run 1: failures" 'count(//testcase[@classname="kernodeck.cli"]/failure)' 1
expect "run 1: skips" 'count(//testcase[@name="needs_gpu"]/skipped)' 1
expect "run 1: segfault is an error" \
  'count(//testcase[@name="segfault"]/error[@type="crash"])' 1
expect "run 1: the hang is an error" \
  'count(//testcase[@name="hang_forever"]/error[@type="crash"])' 1
expect "run 1: the certificate fails" \
  'count(//testcase[@classname="kernodeck.certificate"]/failure)' 1
[[ -s $reports/summary.md ]] || fail "run 1: no summary.md"
grep -q segfault "$reports/summary.md" || fail "run 1: summary.md does not name segfault"
grep -q 'data-case="probe.segfault" data-verdict="error"' "$reports/index.html" ||
  fail "run 1: index.html does not show segfault as an error"
rows=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$causes")
grep -qF "<section id=\"causes\" data-causes=\"$rows\"" "$reports/index.html" ||
  fail "run 1: index.html does not hold the $rows causes of $causes"

# 2. Another selection: the report holds that case only, nothing of run 1.
PATH=$work/bin "$ctest" --test-dir "$project" -R 'probe\.run/healthy' >"$work/run2.log" 2>&1 ||
  fail "run 2: ctest failed: $(cat "$work/run2.log")"
verdict "run 2"
xmllint --noout --schema "$xsd" "$reports/junit.xml" || fail "run 2: junit.xml is not valid"
expect "run 2: cases besides the certificate" \
  'count(//testcase[@classname!="kernodeck.certificate"])' 1
expect "run 2: healthy passed" \
  'count(//testcase[@name="healthy"][not(failure) and not(error) and not(skipped)])' 1

if [[ $failed -ne 0 ]]; then
  echo "--- run 1 ---" >&2
  cat "$work/run1.log" >&2
  exit 1
fi
echo "junit.plain_ctest: both runs left the report of exactly their cases"
