#!/usr/bin/env bash
# junit.fleet: kernodeck-junit fleet on reports the real check writes (two passes on the CPU,
# one made through the fault-injection seam, one expected and missing): the report validates
# against junit-10.xsd and says what each unit did; the command line refuses what it must.
#
#   fleet_cli_test.sh CHECK FAULT_PROBE JUNIT XSD
set -euo pipefail
check=$1 fault_probe=$2 junit=$3 xsd=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/kd-junit-fleet.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAILED: $*" >&2
  exit 1
}
command -v xmllint >/dev/null || fail "xmllint is missing (./ci/setup installs libxml2-utils)"

mkdir "$work/reports"
for node in n1 n2; do
  "$check" --device cpu --output "$work/reports/$node.0.json" >/dev/null ||
    fail "the check failed on the CPU: $(cat "$work/reports/$node.0.json" 2>/dev/null)"
done
# A pass that a fault probe made is a simulation, never a GPU's verdict.
KERNODECK_PROBE_MODULE=$fault_probe "$check" --device cpu --output "$work/reports/n3.0.json" \
  >/dev/null || true
printf '# every GPU of the job\nn1.0\nn2.0\nn3.0\nn4.0\n' >"$work/expected"

counts=$("$junit" fleet "$work/reports" --expect-file "$work/expected" --title "fleet test" \
           --output "$work/junit.xml" --summary "$work/summary.md" --html "$work/index.html" \
           2>"$work/stderr") || fail "kernodeck-junit fleet failed: $(cat "$work/stderr")"
[[ $counts == "tests=5 passed=2 failures=1 errors=2 skipped=0" ]] ||
  fail "counts: $counts (expected the certificate failing, n3 and n4 errors, n1 and n2 passing)"
xmllint --noout --schema "$xsd" "$work/junit.xml" || fail "junit.xml does not validate"
xpath() { xmllint --xpath "$1" "$work/junit.xml"; }
[[ $(xpath "string(//testsuite[@name='n3']/testcase/error/@type)") == fault-injection ]] ||
  fail "n3 is not a fault-injection error: $(xpath "//testsuite[@name='n3']")"
[[ $(xpath "string(//testsuite[@name='n4']/testcase/error/@type)") == missing-report ]] ||
  fail "n4 is not a missing-report error: $(xpath "//testsuite[@name='n4']")"
[[ $(xpath "string(//testsuite[@name='n1']/testcase/system-out)") == "CPU_CHECK_PASSED(0) complete: "* ]] ||
  fail "n1 did not pass: $(xpath "//testsuite[@name='n1']")"
grep -q '^| n4 | failing | 1 | 0 | 0 | 1 | no report |$' "$work/summary.md" ||
  fail "summary.md lacks n4's row: $(cat "$work/summary.md")"
grep -q 'id="fleet"' "$work/index.html" || fail "index.html has no fleet view"

# Usage: a verb is required, the expected units too, and fleet takes none of publish's options.
usage() {  # usage WHY ARGS...: kernodeck-junit must exit 2
  local why=$1 status=0
  shift
  "$junit" "$@" --output "$work/x.xml" >/dev/null 2>&1 || status=$?
  [[ $status == 2 ]] || fail "$why: exit $status, not 2"
}
usage "no verb" --expect n1.0
usage "the old --fleet form" --fleet "$work/reports" --expect n1.0
usage "fleet without --expect" fleet "$work/reports"
usage "fleet without its folder" fleet --expect n1.0
usage "--expect with publish" publish --reports "$work" --source-root "$work" --gtest-xml "$work" --expect n1.0
usage "fleet with --merge" fleet "$work/reports" --expect n1.0 --merge "$work/junit.xml"
usage "fleet with --cases" fleet "$work/reports" --expect n1.0 --cases "$work/reports"
status=0
"$junit" fleet "$work/reports" --expect "n1" --output "$work/x.xml" >/dev/null 2>&1 || status=$?
[[ $status == 1 ]] || fail "an expected name without a unit: exit $status, not 1"
status=0
"$junit" fleet "$work/absent" --expect n1.0 --output "$work/x.xml" >/dev/null 2>&1 || status=$?
[[ $status == 1 ]] || fail "a missing folder: exit $status, not 1"
echo "junit.fleet: passed ($counts)"
