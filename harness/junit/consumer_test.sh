#!/usr/bin/env bash
# junit.consumer: runs the sample cases through a throw-away CTest project, converts the result
# with kernodeck-junit, validates it against junit-10.xsd and reads it back with junit2json, a
# real JUnit consumer, checking every count, name and message a dashboard would show.
#
# usage: consumer_test.sh SAMPLE KERNODECK_JUNIT XSD TOOLS_DIR CTEST
set -euo pipefail

if [[ $# -ne 5 ]]; then
  echo "usage: $0 SAMPLE KERNODECK_JUNIT XSD TOOLS_DIR CTEST" >&2
  exit 2
fi
sample=$1 tool=$2 xsd=$3 tools=$4 ctest=$5

# A missing consumer is a broken setup, not a reason to skip: the report would go unchecked.
missing() {
  echo "junit.consumer: FAILED: $1 is missing; run ./ci/setup" >&2
  exit 1
}
command -v xmllint >/dev/null 2>&1 || missing "xmllint (Debian package libxml2-utils)"
command -v node >/dev/null 2>&1 || missing "node (Debian package nodejs)"
junit2json=$tools/node_modules/.bin/junit2json
[[ -x $junit2json ]] || missing "junit2json (npm, under $tools)"
for file in "$sample" "$tool" "$xsd" "$ctest"; do
  [[ -e $file ]] || { echo "junit.consumer: FAILED: $file does not exist" >&2; exit 1; }
done
# CTest resolves a relative program against the throw-away project, not against here.
sample=$(realpath "$sample") tool=$(realpath "$tool") xsd=$(realpath "$xsd")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
project=$work/project gx=$work/gtest-xml
mkdir -p "$project" "$gx"
bash_path=$(command -v bash)

# The same command line gtest_discover_tests(XML_OUTPUT_DIR) generates, so the XML lands in
# subfolders exactly as it does for the suites.
gtest_test() {
  local name=$1 extra=${2:-}
  cat >>"$project/CTestTestfile.cmake" <<EOF
add_test([=[$name]=] "$sample" "--gtest_filter=$name" "--gtest_also_run_disabled_tests"
         "--gtest_output=xml:$gx/$name.xml")
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

summary=$("$tool" --ctest-junit "$work/ctest-junit.xml" --gtest-xml "$gx" \
  --ctest-tests "$work/ctest-tests.json" --output "$work/junit.xml" --title sample)
expected_summary="tests=12 passed=4 failures=2 errors=4 skipped=2"
if [[ $summary != "$expected_summary" ]]; then
  echo "junit.consumer: FAILED: summary '$summary', expected '$expected_summary'" >&2
  cat "$work/junit.xml" >&2
  exit 1
fi

if ! xmllint --noout --schema "$xsd" "$work/junit.xml"; then
  cat "$work/junit.xml" >&2
  echo "junit.consumer: FAILED: the report does not validate against junit-10.xsd" >&2
  exit 1
fi

"$junit2json" "$work/junit.xml" >"$work/junit.json"

node - "$work/junit.json" <<'EOF'
// Checks what junit2json made of the report, as a dashboard would read it.
const fs = require('fs');
const report = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const problems = [];
const expect = (ok, what) => { if (!ok) problems.push(what); };

expect(report.name === 'sample', `title ${report.name}`);
expect(report.tests === 12, `tests ${report.tests}`);
expect(report.failures === 2, `failures ${report.failures}`);
expect(report.errors === 4, `errors ${report.errors}`);
const suites = report.testsuite || [];
expect(JSON.stringify(suites.map(s => s.name)) ===
       JSON.stringify(['cli', 'probe', 'SampleUnit', 'script']),
       `suites ${suites.map(s => s.name)}`);
const skipped = suites.reduce((n, s) => n + s.skipped, 0);
expect(skipped === 2, `skipped ${skipped}`);

const cases = new Map();
for (const suite of suites) {
  const list = suite.testcase || [];
  const count = key => list.filter(c => c[key]).length;
  expect(suite.tests === list.length, `${suite.name}: tests ${suite.tests} != ${list.length}`);
  expect(suite.failures === count('failure'), `${suite.name}: failures`);
  expect(suite.errors === count('error'), `${suite.name}: errors`);
  expect(suite.skipped === count('skipped'), `${suite.name}: skipped`);
  for (const c of list) {
    expect(c.classname === suite.name, `${c.name}: classname ${c.classname}`);
    expect(c.classname !== c.name, `${c.name}: classname equals name`);
    cases.set(`${c.classname}/${c.name}`, c);
  }
}
expect(cases.size === 12, `distinct cases ${cases.size}`);

// verdict: 'pass' or the element a dashboard keys on; fields: what that element must say.
const want = {
  'cli/usage_ok': ['pass'],
  'cli/report_mismatch': ['failure', { type: 'assertion',
    message: m => m.startsWith('expected code "no_gpu" but the report said <cuda_ok> & more'),
    inner: t => t.includes('expected code "no_gpu" but the report said <cuda_ok> & more\n' +
                           'command: kernodeck-diagnostic --device cuda\nstderr tail: ]]> bell') &&
                t.includes('here, 5 \u00b5s') }],
  'cli/needs_gpu': ['skipped', { message: m => m === 'no GPU on this runner' }],
  'probe/healthy': ['pass'],
  'probe/segfault': ['error', { type: 'crash', message: m => m.includes('crashed or was killed'),
    inner: t => t.includes('[ RUN      ] probe.run/segfault') }],
  'probe/hang_forever': ['error', { type: 'timeout',
    message: m => m.includes("CTest's TIMEOUT of 2 s") }],
  'probe/dirty_exit': ['error', { type: 'abnormal-exit',
    message: m => m.includes('exited abnormally after its assertions') }],
  'SampleUnit/Holds': ['pass'],
  'script/pass': ['pass'],
  'script/fail': ['failure', { type: 'exit-status',
    message: m => m === 'failed (CTest): exit code 3, expected 0' }],
  'script/skip': ['skipped',
    { message: m => m === 'SKIP_RETURN_CODE=77: no nvidia-smi on this runner' }],
  'script/missing': ['error', { type: 'not-run',
    message: m => m === 'CTest did not run the test: Unable to find executable' }],
};
for (const [key, [verdict, fields]] of Object.entries(want)) {
  const c = cases.get(key);
  if (!c) { problems.push(`${key}: missing`); continue; }
  const present = ['failure', 'error', 'skipped'].filter(k => c[k]);
  if (verdict === 'pass') {
    expect(present.length === 0, `${key}: expected a pass, got ${present}`);
    expect(!c['system-out'], `${key}: output attached to a pass`);
    continue;
  }
  expect(present.length === 1 && present[0] === verdict,
         `${key}: expected ${verdict}, got ${present}`);
  const element = (c[verdict] || [])[0] || {};
  for (const [field, check] of Object.entries(fields)) {
    const ok = typeof check === 'function' ? check : value => value === check;
    expect(typeof element[field] === 'string' && ok(element[field]),
           `${key}: ${verdict} ${field} = ${JSON.stringify(element[field])}`);
  }
  if (verdict !== 'skipped') {
    expect(Array.isArray(c['system-out']) && c['system-out'].join('').length > 0,
           `${key}: no system-out`);
  }
}

if (problems.length) {
  console.error('junit.consumer: FAILED:\n  ' + problems.join('\n  '));
  process.exit(1);
}
console.log('junit.consumer: junit2json read all 12 cases as expected');
EOF
