#!/usr/bin/env bash
# ci.report_checks: the checks ci/common.sh runs on every published JUnit report hold where
# ./ci/test and ./ci/conformance call them, i.e. where errexit does not reach (a command
# substitution, a call followed by ||):
#   - a merged report that the schema refuses fails kd_merge_junit;
#   - a case skipped without a reason fails kd_validate_junit, which names the case;
#   - a report whose skips all say why passes.
#   common_test.sh REPO
set -uo pipefail
repo=$1
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
ln -s "$repo/reporting" reporting

# A JUnit report, valid against junit-10.xsd, with one skipped case whose <skipped> says $1.
report() {
  cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2" failures="0" errors="0" time="1.0">
  <testsuite name="unit" tests="2" failures="0" errors="0" skipped="1" time="1.0">
    <testcase name="runs" classname="kernodeck.unit" time="0.5"/>
    <testcase name="SkipsQuietly" classname="kernodeck.unit" time="0.5">
      <skipped message="$1"/>
    </testcase>
  </testsuite>
</testsuites>
EOF
}

# --- a skip must say why ---------------------------------------------------------------------
report "root may write into any folder" >reasoned.xml
out=$(kd_validate_junit reasoned.xml 2>&1) || fail "a report whose skip has a reason was refused: $out"

for bare in "SKIP_REGULAR_EXPRESSION_MATCHED: [  SKIPPED ] unit.SkipsQuietly (0 ms)" \
            "skipped by the test (no reason given)"; do
  report "$bare" >bare.xml
  if out=$(kd_validate_junit bare.xml 2>&1); then
    fail "a skip without a reason ('$bare') was accepted"
  elif [[ $out != *'SkipsQuietly'* ]]; then
    fail "the refusal of a skip without a reason does not name the case: $out"
  fi
done

# --- a merged report the schema refuses fails the merge, even inside $(...) -----------------
mkdir -p build/reporting reports/debian
# A stand-in for kernodeck-junit --merge that writes what the schema refuses.
cat >build/reporting/kernodeck-junit <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
  if [ "$1" = --output ]; then echo '<testsuites><bogus/></testsuites>' >"$2"; fi
  shift
done
EOF
chmod +x build/reporting/kernodeck-junit
kd_check_published() { return 0; }  # the machine's names are another test's concern
status=0
counts=$(kd_merge_junit build debian 2>/dev/null) || status=$?
[[ $status != 0 ]] || fail "kd_merge_junit succeeded although the merged report fails the schema"
: "$counts"

if ((failures > 0)); then
  echo "ci.report_checks: $failures failure(s)" >&2
  exit 1
fi
echo "ci.report_checks: every check holds"
