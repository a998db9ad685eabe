#!/usr/bin/env bash
# junit.publish: kernodeck-junit publish, the one pipeline from a run to its published reports,
# run as ci/ and CTest's cleanup step run it, on a PATH without xmllint:
#   - a run of sample cases: junit.xml, summary.md, index.html, the commit git tells, the GPU
#     declared, the temporary folder hidden, and each check's verdict printed: the schema, the
#     skips' reasons (xmllint, with the usual PATH, agrees afterwards);
#   - a report the schema refuses and a case skipped without a reason each fail the command
#     (exit 1) with the reason, and the other checks still run;
#   - a case's text and a check's report that name this machine (its host, HOME, the source root,
#     the temporary folder) are published under the privacy rule: none of it in junit.xml,
#     summary.md or index.html, each shown as its stand-in; --commit is taken as given;
#   - --causes (the build's causes.json) puts the catalogue into index.html; without it the
#     pipeline says that the pages name no cause; one it cannot read fails the command;
#   - a passed case whose report has a warning stays passed, and junit.xml, summary.md and
#     index.html each show the warning, as does the merge of that report;
#   - usage errors exit 2.
#
# usage: publish_test.sh SAMPLE KERNODECK_JUNIT SOURCE_ROOT CAUSES_JSON
set -euo pipefail

if [[ $# -ne 4 ]]; then
  echo "usage: $0 SAMPLE KERNODECK_JUNIT SOURCE_ROOT CAUSES_JSON" >&2
  exit 2
fi
sample=$(realpath "$1") tool=$(realpath "$2") source_root=$(realpath "$3") causes=$(realpath "$4")
xsd=$source_root/reporting/junit-10.xsd
command -v xmllint >/dev/null 2>&1 || {
  echo "junit.publish: FAILED: xmllint is missing; run ./ci/setup --junit-consumer" >&2
  exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() {
  echo "junit.publish: FAILED: $*" >&2
  failed=1
}

# A PATH with git (the commit) and nothing else: no xmllint.
mkdir -p "$work/bin"
if git=$(command -v git); then ln -s "$git" "$work/bin/git"; fi
if PATH=$work/bin command -v xmllint >/dev/null 2>&1; then
  echo "junit.publish: FAILED: xmllint is still on the bare PATH" >&2
  exit 1
fi
# publish ARGS...: the pipeline on the bare PATH; its status, stdout and stderr in $status,
# $work/out and $work/err.
publish() {
  status=0
  env PATH="$work/bin" TMPDIR="$work" KERNODECK_EXPECT_GPU="${gpu:-}" \
    "$tool" publish "$@" >"$work/out" 2>"$work/err" || status=$?
}
said() {  # said TEXT: the last run printed this line on stderr
  grep -qxF -- "$1" "$work/err" || fail "expected '$1' on stderr, got: $(cat "$work/err")"
}

# The sample cases, each leaving its record (as the suites' cases do).
gx=$work/case-records
for name in cli.run/usage_ok cli.run/report_mismatch cli.run/needs_gpu probe.run/healthy; do
  "$sample" "--gtest_filter=$name" "--case-records=$gx" >/dev/null 2>&1 || true
done

# 1. A run: every file, and every verdict. The passed case cli.usage_ok's report has a warning.
reports=$work/reports
mkdir -p "$reports/cases"
warning="torchvision (torchvision 0.24.1) is made for torch==2.9.1, and this environment's torch is 2.15.0+cu132 (CUDA 13.2). Let pip choose the torchvision release made for this torch: python -m pip install --upgrade \"torch==2.15.0\" torchvision | <i>, with this environment's python."
python3 -c 'import json, sys
print(json.dumps({"tool": {"name": "kernodeck-diagnostic", "version": "1.0.0", "probe": "python"},
                  "status": "passed", "code": "CPU_CHECK_PASSED", "exit_code": 0,
                  "stage": "complete", "warnings": [{"stage": "application",
                  "type": "ExtensionForOtherTorch", "message": sys.argv[1]}]}))' "$warning" \
  >"$reports/cases/cli.usage_ok.json"
gpu=1 publish --reports "$reports" --case-records "$gx" --source-root "$source_root" --variant v \
  --causes "$causes"
[[ $status == 0 ]] || fail "a good run exited $status: $(cat "$work/err")"
[[ $(cat "$work/out") == "tests=5 passed=2 failures=2 errors=0 skipped=1" ]] ||
  fail "counts: $(cat "$work/out")"
said "kernodeck-junit: $reports/junit.xml validates against junit-10.xsd"
said "kernodeck-junit: every skip in $reports/junit.xml says why"
said "kernodeck-junit: $reports is written under the privacy rule: no folder or name of this machine in it"
for file in junit.xml summary.md index.html; do
  [[ -s $reports/$file ]] || fail "no $file"
done
xmllint --noout --schema "$xsd" "$reports/junit.xml" 2>"$work/xmllint" ||
  fail "xmllint disagrees: $(cat "$work/xmllint")"
commit=unknown
if [[ -n ${git:-} ]] && head=$(git -C "$source_root" rev-parse --short=12 HEAD 2>/dev/null); then
  commit=$head
  [[ -z $(git -C "$source_root" status --porcelain --untracked-files=no) ]] || commit+="+changes"
fi
property() {  # property NAME: its value on the first testsuite
  xmllint --xpath "string(//testsuite[1]/properties/property[@name='$1']/@value)" \
    "$reports/junit.xml"
}
[[ $(property kernodeck.check.commit) == "$commit" ]] ||
  fail "commit $(property kernodeck.check.commit), git says $commit"
[[ $(property kernodeck.gpu.declared) == yes ]] || fail "KERNODECK_EXPECT_GPU=1 is not declared"
[[ $(property kernodeck.variant) == v ]] || fail "variant $(property kernodeck.variant)"
grep -qF -- "$work" "$reports/junit.xml" "$reports/index.html" &&
  fail "the temporary folder $work is in the report"
grep -q 'Case declared at reporting/sample_cases.cpp:[0-9]' "$reports/junit.xml" ||
  fail "junit.xml does not say where the failing case is declared"
rows=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$causes")
grep -qF "<section id=\"causes\" data-causes=\"$rows\"" "$reports/index.html" ||
  fail "index.html does not hold the $rows causes of $causes"
grep -qF "| cause and next action |" "$reports/summary.md" || fail "summary.md has no cause column"
grep -qF "no cause catalogue" "$work/err" && fail "--causes was given, yet: $(cat "$work/err")"
# The warning: on the passed case in junit.xml, a row of summary.md, a line of the case on the
# page, each escaped as its file needs; the case still passed (the counts above). The same in the
# report merged from this one, whose page and summary read the cases/ beside it.
escaped() {  # escaped md|html TEXT: TEXT as a Markdown cell or HTML text writes it
  python3 -c 'import sys
text = sys.argv[2]
if sys.argv[1] == "md":
    text = text.replace("|", "\\|")
else:
    for a, b in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), (chr(34), "&quot;"), (chr(39), "&#39;")):
        text = text.replace(a, b)
print(text)' "$1" "$2"
}
shows_warning() {  # shows_warning REPORTS: each file of REPORTS shows the warning
  local out
  out=$(xmllint --xpath "string(//testcase[@name='usage_ok']/system-out)" "$1/junit.xml")
  grep -qxF -- "Warning: ExtensionForOtherTorch (application): $warning" <<<"$out" ||
    fail "$1/junit.xml does not show the warning on usage_ok: $out"
  [[ $(xmllint --xpath "count(//testcase[@name='usage_ok']/*[self::failure or self::error])" \
    "$1/junit.xml") == 0 ]] || fail "$1/junit.xml: usage_ok no longer passed"
  grep -qF -- "| \`kernodeck.cli.usage_ok\` | passed | application | \`ExtensionForOtherTorch\` | $(escaped md "$warning") |" \
    "$1/summary.md" || fail "$1/summary.md has no row of the warning: $(cat "$1/summary.md")"
  grep -qF "<code>ExtensionForOtherTorch</code> (<a href=\"#cause-extension_for_other_torch\">" \
    "$1/index.html" || fail "$1/index.html does not link the warning to its cause"
  grep -qF -- "$(escaped html "$warning")</div>" "$1/index.html" ||
    fail "$1/index.html does not show the warning"
}
shows_warning "$reports"
publish --reports "$work/merged-warning" --merge "$reports/junit.xml" --source-root "$source_root" \
  --causes "$causes"
[[ $status == 0 ]] || fail "the merge of the run exited $status: $(cat "$work/err")"
shows_warning "$work/merged-warning"

# 2. A case skipped without a reason fails the run, named; the other checks still run.
bare=$work/bare-records
mkdir -p "$bare"
cat >"$bare/cli.run.quiet.json" <<'EOF'
{"name": "cli.run/quiet", "started": "", "ended": true, "skipped": true, "skip": "", "time": 0}
EOF
publish --reports "$work/bare" --case-records "$bare" --source-root "$source_root"
[[ $status == 1 ]] || fail "a skip without a reason exited $status"
said "kernodeck-junit: FAILED: $work/bare/junit.xml: cases skipped without a reason (give GTEST_SKIP() one): kernodeck.cli.quiet"
said "kernodeck-junit: $work/bare is written under the privacy rule: no folder or name of this machine in it"
said "kernodeck-junit: no cause catalogue (--causes): summary.md and index.html name no cause"

# 3. A report the schema refuses. A merged input whose suite time is "-0", which junit-10.xsd's
#    time pattern does not allow, is refused as it is read, naming the file and why; two inputs
#    whose times are each near the largest number sum to more (infinity): the report written
#    then does not validate, and publish says so.
mkdir -p "$work/bad" "$work/huge"
sed 's/<testsuite name="cli \[v\]" \(.*\) time="[0-9.]*"/<testsuite name="cli [v]" \1 time="-0"/' \
  "$reports/junit.xml" >"$work/bad/junit.xml"
grep -q 'time="-0"' "$work/bad/junit.xml" || fail "could not make the refused report"
publish --reports "$work/refused" --merge "$work/bad/junit.xml" --source-root "$source_root"
[[ $status == 1 ]] || fail "a merged input the schema refuses exited $status"
grep -q "^kernodeck-junit: error: $work/bad/junit.xml is not a report kernodeck-junit wrote: it does not validate against junit-10.xsd: line [0-9]*: Element 'testsuite', attribute 'time': .*'-0'" "$work/err" ||
  fail "the refused input is not named with why: $(cat "$work/err")"
[[ ! -e $work/refused/junit.xml ]] || fail "a refused input still wrote junit.xml"
huge=1$(printf '0%.0s' {1..308})
sed "s/<testsuites \(.*\) time=\"[0-9.]*\"/<testsuites \1 time=\"$huge\"/" "$reports/junit.xml" \
  >"$work/huge/junit.xml"
grep -q "time=\"$huge\"" "$work/huge/junit.xml" || fail "could not make the huge report"
publish --reports "$work/merged" --merge "$work/huge/junit.xml" "$work/huge/junit.xml" \
  --source-root "$source_root"
[[ $status == 1 ]] || fail "a report the schema refuses exited $status"
said "kernodeck-junit: FAILED: $work/merged/junit.xml does not validate against junit-10.xsd:"
grep -q "^  line [0-9]*: Element 'testsuites', attribute 'time': .*'inf'" "$work/err" ||
  fail "the refusal does not say why: $(cat "$work/err")"

# 4. What names this machine is published under the privacy rule: a case's failure that names
#    its host, HOME, a file of the source root and the temporary folder, a check's report that
#    names the host and the check's output beside it, each shown as its stand-in (the files in
#    cases/ rewritten), and the host's name nowhere as a word.
host=$(cat /proc/sys/kernel/hostname)
home=/srv/ops-home-$$
named=$work/named-records
mkdir -p "$named" "$work/named/cases"
python3 -c 'import json, sys
host, home, root, tmp = sys.argv[1:]
print(json.dumps({"name": "cli.run/named", "started": "", "ended": True, "skipped": False,
                  "failures": [f"{root}/suites/cli_cases.cpp:84\nran on {host} as {home}/.cache "
                               f"with {tmp}/kd-case/out.json"], "time": 0}))' \
  "$host" "$home" "$source_root" "$work" >"$named/cli.run.named.json"
python3 -c 'import json, sys
print(json.dumps({"tool": {"name": "kernodeck-diagnostic", "version": "1.0.0", "probe": "python"},
                  "status": "failed", "code": "GPU_UNAVAILABLE", "exit_code": 6, "stage": "device",
                  "error": {"type": "GpusHidden", "message": "no GPU on " + sys.argv[1]}}))' \
  "$host" >"$work/named/cases/cli.named.json"
printf 'kernodeck-diagnostic on %s: wrote %s/out.json\n' "$host" "$home" \
  >"$work/named/cases/cli.named.stderr.txt"
HOME=$home publish --reports "$work/named" --case-records "$named" --source-root "$source_root"
[[ $status == 0 ]] || fail "a run naming this machine exited $status: $(cat "$work/err")"
said "kernodeck-junit: $work/named is written under the privacy rule: no folder or name of this machine in it"
for file in junit.xml summary.md index.html cases/cli.named.json cases/cli.named.stderr.txt; do
  grep -qwF -- "$host" "$work/named/$file" && fail "$file names the host $host"
  grep -qF -e "$home" -e "$source_root/" -e "$work/" "$work/named/$file" &&
    fail "$file names a folder of this machine: $(grep -oF -e "$home" -e "$source_root/" -e "$work/" "$work/named/$file" | head -1)"
done
grep -qF "suites/cli_cases.cpp:84" "$work/named/junit.xml" ||
  fail "the source root's file is not shown relative to it"
grep -qF "ran on &lt;redacted&gt; as &lt;home&gt;/.cache with &lt;$(basename "$work")&gt;/kd-case/out.json" \
  "$work/named/junit.xml" || fail "junit.xml does not show the stand-ins: $(cat "$work/named/junit.xml")"
grep -qF "no GPU on &lt;redacted&gt;" "$work/named/index.html" ||
  fail "index.html does not show the check's report with the host's stand-in"
[[ $(cat "$work/named/cases/cli.named.stderr.txt") == "kernodeck-diagnostic on <redacted>: wrote <home>/out.json" ]] ||
  fail "the case's output is not published with the stand-ins: $(cat "$work/named/cases/cli.named.stderr.txt")"

# 5. --commit is taken as given; outside a git tree without it, the commit is unknown.
mkdir -p "$work/src"
publish --reports "$work/kit" --case-records "$gx" --source-root "$work/src" --commit 0123456789ab
reports=$work/kit
[[ $(property kernodeck.check.commit) == 0123456789ab ]] ||
  fail "--commit: $(property kernodeck.check.commit)"
[[ $(property kernodeck.gpu.declared) == no ]] || fail "no GPU was declared"
publish --reports "$work/kit" --case-records "$gx" --source-root "$work/src"
[[ $(property kernodeck.check.commit) == unknown ]] ||
  fail "outside a git tree: $(property kernodeck.check.commit)"

# 6. A cause catalogue that cannot be read fails the run.
publish --reports "$work/nocauses" --case-records "$gx" --source-root "$source_root" \
  --causes "$work/absent.json"
[[ $status == 1 ]] || fail "an unreadable --causes exited $status"
said "kernodeck-junit: error: cannot read cause catalogue $work/absent.json"

# 7. Usage errors.
usage() {  # usage WHY ARGS...: exit 2
  local why=$1
  shift
  publish "$@"
  [[ $status == 2 ]] || fail "$why: exit $status, not 2"
}
usage "no run and no merge" --reports "$work/u" --source-root "$source_root"
usage "a run and a merge" --reports "$work/u" --source-root "$source_root" --case-records "$gx" \
  --merge "$work/bad/junit.xml"
usage "--variant with --merge" --reports "$work/u" --source-root "$source_root" --variant v \
  --merge "$work/bad/junit.xml"
# CTest's JUnit comes with its test list, which tells GoogleTest programs and timeouts apart.
usage "CTest's JUnit without its test list" --reports "$work/u" --source-root "$source_root" \
  --case-records "$gx" --ctest-junit "$work/ctest-junit.xml"
usage "no reports folder" --case-records "$gx" --source-root "$source_root"
usage "an option of the conversion" --reports "$work/u" --source-root "$source_root" \
  --case-records "$gx" --output "$work/u.xml"

if [[ $failed -ne 0 ]]; then exit 1; fi
echo "junit.publish: every check says its verdict, without xmllint, and fails with its reason"
