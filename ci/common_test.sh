#!/usr/bin/env bash
# ci.report_checks: the checks ci/common.sh's pipeline (kernodeck-junit publish) runs on every
# published JUnit report hold where ./ci/test and ./ci/conformance call it, i.e. where errexit
# does not reach (a command substitution, a call followed by ||):
#   - a merged report that the schema refuses fails kd_merge_junit, which says why;
#   - a merged report with a case skipped without a reason fails kd_merge_junit, naming the case;
#   - a run whose case skipped without a reason fails kd_ctest, naming the case;
#   - a report whose skips all say why passes, and says so, its page naming the build's causes.
#   common_test.sh REPO KERNODECK_JUNIT CAUSES_JSON
set -uo pipefail
repo=$1 junit=$(realpath "$2") causes=$(realpath "$3")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# shellcheck source=ci/common.sh
source "$repo/ci/common.sh"
cd "$tmp" || exit 1
# A build tree holding the real kernodeck-junit and the cause catalogue, where ci/common.sh looks
# for them.
mkdir -p build/reporting reports/debian
ln -s "$junit" build/reporting/kernodeck-junit
ln -s "$causes" build/causes.json

# A JUnit report kernodeck-junit could have written, with one skipped case whose <skipped> says
# $1, and the time of its suite $2.
report() {
  cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="kernodeck-diagnostic" tests="2" failures="0" errors="0" time="1.000">
  <testsuite name="unit" tests="2" failures="0" errors="0" skipped="1" time="${2:-1.000}">
    <testcase name="runs" classname="kernodeck.unit" time="0.500"/>
    <testcase name="SkipsQuietly" classname="kernodeck.unit" time="0.500">
      <skipped message="$1"/>
    </testcase>
  </testsuite>
</testsuites>
EOF
}

# merge: kd_merge_junit of reports/debian/junit.xml inside $(...); its status in $status.
merge() {
  status=0
  counts=$(kd_merge_junit build debian 2>"$tmp/err") || status=$?
}

# --- a skip that says why passes -------------------------------------------------------------
report "root may write into any folder" >reports/debian/junit.xml
merge
[[ $status == 0 ]] || fail "a report whose skip has a reason was refused: $(cat "$tmp/err")"
[[ $counts == "tests=2 passed=1 failures=0 errors=0 skipped=1" ]] || fail "merged counts '$counts'"
grep -qxF "kernodeck-junit: reports/junit.xml validates against junit-10.xsd" "$tmp/err" ||
  fail "the merge does not say that its report validates: $(cat "$tmp/err")"
grep -q '<section id="causes" data-causes="[1-9]' reports/index.html ||
  fail "kd_merge_junit did not pass the build's causes.json:" \
       "$(grep -o '<section id="causes"[^>]*>' reports/index.html)"

# --- a skip must say why ---------------------------------------------------------------------
for bare in "SKIP_REGULAR_EXPRESSION_MATCHED: [  SKIPPED ] unit.SkipsQuietly (0 ms)" \
            "skipped by the test (no reason given)"; do
  report "$bare" >reports/debian/junit.xml
  merge
  if [[ $status == 0 ]]; then
    fail "a skip without a reason ('$bare') was accepted"
  elif ! grep -q 'skipped without a reason.*kernodeck\.unit\.SkipsQuietly' "$tmp/err"; then
    fail "the refusal of a skip without a reason does not name the case: $(cat "$tmp/err")"
  fi
done

# --- a merged report the schema refuses fails the merge, even inside $(...) -----------------
# The merge reads "-0" as a number of seconds; junit-10.xsd's time pattern does not allow it.
report "root may write into any folder" -0 >reports/debian/junit.xml
merge
if [[ $status == 0 ]]; then
  fail "kd_merge_junit succeeded although the merged report fails the schema"
elif ! grep -q "does not validate against junit-10.xsd" "$tmp/err"; then
  fail "the schema's refusal does not say so: $(cat "$tmp/err")"
fi

# --- a run whose case skips without a reason fails kd_ctest, even after || -----------------
# A CTest project whose one GoogleTest-shaped test leaves a record with a bare skip.
mkdir -p build/case-records
cat >build/CTestTestfile.cmake <<EOF
add_test(quiet.run/skips /bin/sh -c "printf '%s' '{\"name\": \"quiet.run/skips\", \"ended\": true, \"skipped\": true, \"skip\": \"\"}' >$tmp/build/case-records/quiet.json")
EOF
status=0
KERNODECK_JOBS=1 kd_ctest "" >"$tmp/out" 2>&1 || status=$?
if [[ $status == 0 ]]; then
  fail "kd_ctest succeeded although a case skipped without a reason: $(cat "$tmp/out")"
elif ! grep -q 'skipped without a reason.*kernodeck\.quiet\.skips' "$tmp/out"; then
  fail "kd_ctest's refusal does not name the case: $(cat "$tmp/out")"
fi

if ((failures > 0)); then
  echo "ci.report_checks: $failures failure(s)" >&2
  exit 1
fi
echo "ci.report_checks: every check holds"
