#!/usr/bin/env bash
# junit.html: the HTML certificate as a browser shows it. Four sample cases (a pass, a failure,
# a skip, a pass with its JSON report) and a folder of the check's reports with known facts go
# through kernodeck-junit publish with the build's cause catalogue (causes.json, kernodeck-causes
# --json); headless Chromium renders the page, and the DOM it built must hold the exact counts
# kernodeck-junit printed, the environment's values, the ladder, the embedded JSON report, the
# failed case's cause and next action as the catalogue words them, and one row of the causes
# section per cause of the catalogue, the one met linked to its case, those of the application
# layer among them; a passed case's warning on its case, linked to its cause. Then a screenshot:
# REPORTS_DIR/certificate.png. Fails, never skips, without chromium (./ci/setup --html).
#
# usage: html_test.sh SAMPLE KERNODECK_JUNIT SOURCE_ROOT REPORTS_DIR CAUSES_JSON
set -euo pipefail

if [[ $# -ne 5 ]]; then
  echo "usage: $0 SAMPLE KERNODECK_JUNIT SOURCE_ROOT REPORTS_DIR CAUSES_JSON" >&2
  exit 2
fi
sample=$(realpath "$1") tool=$(realpath "$2") source_root=$(realpath "$3") reports_dir=$4
causes=$(realpath "$5")
chromium=$(command -v chromium || true)
if [[ -z $chromium ]]; then
  echo "junit.html: FAILED: chromium is missing; run ./ci/setup --html" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/records" "$work/cases" "$work/browser"
failed=0
fail() {
  echo "junit.html: FAILED: $*" >&2
  failed=1
}

# The sample cases, each leaving its record (as the suites' cases do).
for name in cli.run/usage_ok cli.run/report_mismatch cli.run/needs_gpu probe.run/healthy; do
  "$sample" "--gtest_filter=$name" "--case-records=$work/records" >/dev/null 2>&1 || true
done
# The check's report of one case, by the real probe: the environment's facts, and a warning
# of the application stage, which leaves the case passed.
cat >"$work/cases/cli.usage_ok.json" <<'EOF'
{"tool": {"name": "kernodeck-diagnostic", "version": "9.8.7", "probe": "libtorch"},
 "status": "passed", "code": "GPU_CHECK_PASSED", "exit_code": 0, "requested": {"device": "cuda"},
 "pytorch": {"version": "2.15.0", "cuda": "13.2", "hip": null, "backend": "cuda",
             "visible_device_count": 1},
 "execution": {"device_name": "NVIDIA Sample <GPU>", "capability": "9.0"}, "host": null,
 "warnings": [{"stage": "application", "type": "ExtensionForOtherTorch",
               "message": "torchvision (torchvision 0.24.1) is made for torch==2.9.1, and this environment's torch is 2.15.0+cu132 (CUDA 13.2). Let pip choose the torchvision release made for this torch: python -m pip install --upgrade \"torch==2.15.0\" torchvision <b>, with this environment's python."}]}
EOF
# The failed case's report names a cause of the catalogue (the fault-injecting probe's: no fact
# of the machine comes from it).
cat >"$work/cases/cli.report_mismatch.json" <<'EOF'
{"tool": {"name": "kernodeck-diagnostic", "version": "9.8.7", "probe": "kd_fault_probe"},
 "status": "failed", "code": "GPU_UNAVAILABLE", "exit_code": 6, "stage": "device",
 "message": "No usable GPU in this process: the device nodes are there, but CUDA_VISIBLE_DEVICES=\"\" leaves no GPU visible.",
 "requested": {"device": "cuda"}, "error": {"type": "GpusHidden", "message": "no CUDA GPUs are available"}}
EOF

# The work folder as the reports folder: its cases/ the check's reports, index.html the page.
counts=$(KERNODECK_EXPECT_GPU=1 "$tool" publish --reports "$work" --case-records "$work/records" \
  --title html-sample --variant sample --commit 0123abcd --source-root "$source_root" \
  --hide-prefix "$work" --causes "$causes" 2>"$work/junit.err")
expected="tests=5 passed=2 failures=2 errors=0 skipped=1"
[[ $counts == "$expected" ]] || fail "kernodeck-junit printed '$counts', expected '$expected'"
[[ -s $work/index.html ]] || { cat "$work/junit.err" >&2; fail "no index.html"; exit 1; }

browse() {  # browse ARGS...: headless Chromium on the page, a private profile, bounded.
  timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/browser" "$@" "file://$work/index.html"
}
if ! browse --dump-dom >"$work/dom.html" 2>"$work/chromium.log"; then
  cat "$work/chromium.log" >&2
  fail "chromium could not render index.html"
  exit 1
fi

# What the rendered DOM says: the <main> element's counts, each environment row, each ladder
# rung, the cases' verdicts, the embedded JSON reports, each case's cause with its next action,
# and the causes section's rows, the cases each links to and the ids they link to.
python3 - "$work/dom.html" >"$work/dom.txt" <<'EOF'
import html.parser, sys

class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.out, self.row, self.cell, self.in_json = [], None, None, False
        self.case, self.text, self.cause_row = None, None, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and a.get("class") == "case":
            self.case = a.get("data-case")
            self.out.append(f"anchor {a.get('id')}={self.case}")
        if tag == "div" and a.get("class") == "cause":
            self.out.append(f"case {self.case} cause={a.get('data-cause')}")
        if tag == "div" and a.get("class") in ("next-action", "warning"):
            self.text = ""
        if tag == "div" and a.get("class") == "warning":
            self.out.append(f"case {self.case} warning={a.get('data-warning-type')}")
        if tag == "p" and a.get("id") == "warnings":
            self.out.append(f"warnings={a.get('data-warnings')}")
        if tag == "section" and a.get("id") == "causes":
            self.out.append(f"causes section={a.get('data-causes')} met={a.get('data-met')}")
        if tag == "tr" and "data-cause" in a:
            self.cause_row = a["data-cause"]
            self.out.append(f"cause row {a['data-cause']} met={a.get('data-met')}")
        if tag == "a" and self.cause_row and a.get("href", "").startswith("#case-"):
            self.out.append(f"cause {self.cause_row} links {a['href'][1:]}")
        if tag == "main" and a.get("id") == "certificate":
            for key in ("data-tests", "data-passed", "data-failed", "data-errors", "data-skipped"):
                self.out.append(f"{key[5:]}={a.get(key)}")
        if tag == "tr" and "data-property" in a:
            self.row = a["data-property"]
        if tag == "td" and self.row:
            self.cell = ""
        if tag == "li" and "data-state" in a:
            self.out.append(f"layer {a.get('data-layer')}={a['data-state']}")
        if tag == "div" and "data-verdict" in a:
            self.out.append(f"case {a.get('data-case')}={a['data-verdict']}")
        if tag == "details" and a.get("class") == "json":
            self.in_json = True
    def handle_endtag(self, tag):
        if tag == "div" and self.text is not None:
            self.out.append(f"case {self.case} {self.text}")
            self.text = None
        if tag == "tr":
            self.cause_row = None
        if tag == "td" and self.row and self.cell is not None:
            self.out.append(f"env {self.row}={self.cell}")
            self.cell = None
        if tag == "tr":
            self.row = None
        if tag == "details":
            self.in_json = False
    def handle_data(self, data):
        if self.text is not None:
            self.text += data
        if self.cell is not None:
            self.cell += data
        if self.in_json and "NVIDIA Sample <GPU>" in data:
            self.out.append("json embedded")

dom = Dom()
dom.feed(open(sys.argv[1], encoding="utf-8").read())
print("\n".join(dom.out))
EOF

expect() {  # expect LINE: the DOM holds exactly this line
  grep -qxF -- "$1" "$work/dom.txt" || fail "the DOM does not say '$1'"
}
for kv in $counts; do expect "${kv/failures=/failed=}"; done
expect "tests=5"
expect "passed=2"
expect "failed=2"
expect "skipped=1"
expect "env kernodeck.check.version=9.8.7"
expect "env kernodeck.check.commit=0123abcd"
expect "env kernodeck.libtorch.version=2.15.0"
expect "env kernodeck.cuda.version=13.2"
expect "env kernodeck.gpu.model=NVIDIA Sample <GPU>"
expect "env kernodeck.gpu.declared=yes"
expect "layer import=not run"
expect "layer compute=not run"
expect "layer application=not run"
expect "case cli.usage_ok=passed"
expect "case cli.report_mismatch=failed"
expect "case cli.needs_gpu=skipped"
expect "case probe.healthy=passed"
expect "json embedded"
# The passed case's warning; it stays passed, and the run is counted as before (above).
expect "warnings=1"
expect "case cli.usage_ok warning=ExtensionForOtherTorch"
[[ $(grep -c ' warning=' "$work/dom.txt") == 1 ]] || fail "not one case shows a warning"
# The catalogue's words for the failed case's cause, and one row per cause of the catalogue.
python3 - "$causes" >"$work/causes.txt" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1], encoding="utf-8"))
hidden = [r for r in rows if r["error_type"] == "GpusHidden"]
other_torch = [r for r in rows if r["error_type"] == "ExtensionForOtherTorch"]
print(len(rows))
print(hidden[0]["key"] if hidden else "(GpusHidden is not in the catalogue)")
print(hidden[0]["next_action"] if hidden else "")
print(other_torch[0]["key"] if other_torch else "(ExtensionForOtherTorch is not in the catalogue)")
print(other_torch[0]["title"] if other_torch else "")
print(" ".join(r["key"] for r in rows if r["stage"] == "application"))
EOF
{ read -r rows; read -r hidden; read -r next_action; read -r other_torch; read -r other_title
  read -r application; } <"$work/causes.txt"
[[ $rows -gt 0 ]] || fail "the catalogue $causes holds no cause"
# The warning's words as the report has them, its type linked to the catalogue's cause, whose row
# it marks as met.
expect "case cli.usage_ok Warning, application stage: ExtensionForOtherTorch ($other_title): torchvision (torchvision 0.24.1) is made for torch==2.9.1, and this environment's torch is 2.15.0+cu132 (CUDA 13.2). Let pip choose the torchvision release made for this torch: python -m pip install --upgrade \"torch==2.15.0\" torchvision <b>, with this environment's python."
expect "cause row $other_torch met=1"
# Each cause of the application layer has its row.
[[ -n $application ]] || fail "the catalogue $causes holds no cause of the application layer"
for key in $application; do
  grep -q "^cause row $key met=" "$work/dom.txt" || fail "the causes section has no row $key"
done
expect "causes section=$rows met=2"
[[ $(grep -c '^cause row ' "$work/dom.txt") == "$rows" ]] ||
  fail "the causes section has $(grep -c '^cause row ' "$work/dom.txt") rows, the catalogue $rows"
expect "case cli.report_mismatch cause=$hidden"
expect "case cli.report_mismatch Next action: $next_action"
expect "cause row $hidden met=1"
[[ $(grep -c '^cause row .* met=0$' "$work/dom.txt") == $((rows - 2)) ]] ||
  fail "other causes than $hidden and $other_torch are marked as met"
# The met cause links to the failed case's element.
link=$(sed -n "s/^cause $hidden links //p" "$work/dom.txt")
[[ -n $link ]] && grep -qxF "anchor $link=cli.report_mismatch" "$work/dom.txt" ||
  fail "the row of $hidden does not link to cli.report_mismatch (links '$link')"
named=$(grep -c '^case .* cause=' "$work/dom.txt" || true)
[[ $named == 1 ]] || fail "$named cases name a cause, not one (cli.report_mismatch)"
if grep -qF -- "$work" "$work/index.html"; then fail "index.html holds the temporary folder's path"; fi

# The screenshot a reviewer looks at.
mkdir -p "$reports_dir"
rm -f "$reports_dir/certificate.png"
browse --screenshot="$reports_dir/certificate.png" --window-size=1280,4000 \
  >"$work/shot.log" 2>&1 || { cat "$work/shot.log" >&2; fail "chromium took no screenshot"; }
[[ -s $reports_dir/certificate.png ]] || fail "$reports_dir/certificate.png is missing or empty"
[[ $(head -c 8 "$reports_dir/certificate.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
  fail "$reports_dir/certificate.png is not a PNG"

if [[ $failed -ne 0 ]]; then
  echo "--- what the DOM said ---" >&2
  cat "$work/dom.txt" >&2
  exit 1
fi
echo "junit.html: the rendered certificate shows $counts and the environment;" \
     "screenshot $reports_dir/certificate.png"
