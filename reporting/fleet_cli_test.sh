#!/usr/bin/env bash
# junit.fleet: kernodeck-junit fleet on reports the real check writes (two passes on the CPU,
# one made through the fault-injection seam, one expected and missing, and, where the check's
# python probe has a torch to import, a module of the application that fails to import): the
# report validates against junit-10.xsd and says what each unit did, the application layer where
# the check walks it; the command line refuses what it must.
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
# A module no environment has, asked with --import: EXTENSION_IMPORT_FAILED (13) at the
# application layer, from the python probe of the check's own interpreter (a check built against a
# torch wheel) or of Debian's python3-torch; a check without either says so (2 or 3) and n5 is
# left out.
application=""
for python in "" /usr/bin/python3; do
  status=0
  KERNODECK_TORCH_PYTHON=$python "$check" --device cpu --import kd_fleet_absent_module \
    --output "$work/reports/n5.0.json" >/dev/null 2>&1 || status=$?
  if [[ $status == 13 ]]; then
    application="the check's own"
    [[ -z $python ]] || application=$python
    echo n5.0 >>"$work/expected"
    break
  fi
  rm -f "$work/reports/n5.0.json"
done

counts=$("$junit" fleet "$work/reports" --expect-file "$work/expected" --title "fleet test" \
           --output "$work/junit.xml" --summary "$work/summary.md" --html "$work/index.html" \
           2>"$work/stderr") || fail "kernodeck-junit fleet failed: $(cat "$work/stderr")"
if [[ -n $application ]]; then
  [[ $counts == "tests=6 passed=2 failures=2 errors=2 skipped=0" ]] ||
    fail "counts: $counts (expected the certificate and n5 failing, n3 and n4 errors, n1 and n2 passing)"
else
  [[ $counts == "tests=5 passed=2 failures=1 errors=2 skipped=0" ]] ||
    fail "counts: $counts (expected the certificate failing, n3 and n4 errors, n1 and n2 passing)"
fi
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
if [[ -n $application ]]; then
  [[ $(xpath "string(//testsuite[@name='n5']/testcase/failure/@message)") == "EXTENSION_IMPORT_FAILED(13) application: kd_fleet_absent_module is not installed"* ]] ||
    fail "n5 does not fail at the application layer: $(xpath "//testsuite[@name='n5']")"
  grep -q '^| application | 1 | n5.0 EXTENSION_IMPORT_FAILED(13) |$' "$work/summary.md" ||
    fail "summary.md does not show n5 failing at the application layer: $(cat "$work/summary.md")"
  grep -q 'data-layer="application" data-state="failed"><strong>application</strong>: failed (GPUs: 2 passed, 1 failed here' "$work/index.html" ||
    fail "index.html's ladder does not count n5 at the application layer: $(grep -A7 'id="ladder"' "$work/index.html")"
  echo "junit.fleet: a module failing to import ($application python probe): the application layer"
else
  echo "junit.fleet: a module failing to import not run here: no python probe with torch (the check's own, or /usr/bin/python3 with Debian's python3-torch)"
fi

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
usage "--expect with publish" publish --reports "$work" --source-root "$work" --case-records "$work" --expect n1.0
usage "fleet with --merge" fleet "$work/reports" --expect n1.0 --merge "$work/junit.xml"
usage "fleet with --cases" fleet "$work/reports" --expect n1.0 --cases "$work/reports"
status=0
"$junit" fleet "$work/reports" --expect "n1" --output "$work/x.xml" >/dev/null 2>&1 || status=$?
[[ $status == 1 ]] || fail "an expected name without a unit: exit $status, not 1"
status=0
"$junit" fleet "$work/absent" --expect n1.0 --output "$work/x.xml" >/dev/null 2>&1 || status=$?
[[ $status == 1 ]] || fail "a missing folder: exit $status, not 1"
echo "junit.fleet: passed ($counts)"
