"""Reads a kernodeck-junit report back through junitparser, a real JUnit consumer, and checks
what a dashboard would show of the sample cases: every count, name, verdict and message.

usage: consumer_check.py sample REPORT     the sample, published without a variant
       consumer_check.py variants REPORT   the sample published with --variant a and with
                                           --variant b, then the two merged (--merge)
       consumer_check.py certified REPORT SUMMARY RECORDS
                                           the sample published as a certificate (the check's
                                           reports, --source-root, --hide-prefix) and its
                                           summary.md;
                                           RECORDS: the folder of the cases' records of the
                                           run, where each case's declaration must come from

Run by consumer_test.sh with the Python of the tools venv, where ./ci/setup --junit-consumer
installs junitparser.
"""

import json
import pathlib
import re
import sys

from junitparser import Attr, Error, Failure, JUnitXml, Skipped, SystemOut

# The element a dashboard keys a verdict on; a case with none of them passed.
VERDICTS = {Failure: "failure", Error: "error", Skipped: "skipped"}

# verdict: "pass" or the element a dashboard keys on; fields: what that element must say, a
# value it must equal or a test its text must pass ("text" is the element's body).
WANT = {
    "cli/usage_ok": ("pass", {}),
    "cli/report_mismatch": ("failure", {
        "type": "assertion",
        "message": lambda m: m.startswith(
            'expected code "no_gpu" but the report said <cuda_ok> & more'),
        "text": lambda t: (
            'expected code "no_gpu" but the report said <cuda_ok> & more\n'
            "command: kernodeck-diagnostic --device cuda\nstderr tail: ]]> bell" in t
            and "here, 5 \u00b5s" in t),
    }),
    "cli/needs_gpu": ("skipped", {"message": "no GPU on this runner"}),
    "probe/healthy": ("pass", {}),
    "probe/segfault": ("error", {
        "type": "crash",
        "message": lambda m: "crashed or was killed" in m,
        "text": lambda t: "[ RUN      ] probe.run/segfault" in t,
    }),
    "probe/hang_forever": ("error", {
        "type": "timeout",
        "message": lambda m: "CTest's TIMEOUT of 2 s" in m,
    }),
    "probe/dirty_exit": ("error", {
        "type": "abnormal-exit",
        "message": lambda m: "exited abnormally after its assertions" in m,
    }),
    "SampleUnit/Holds": ("pass", {}),
    "script/pass": ("pass", {}),
    "script/fail": ("failure", {
        "type": "exit-status",
        "message": "failed (CTest): exit code 3, expected 0",
    }),
    "script/skip": ("skipped", {
        "message": "SKIP_RETURN_CODE=77: no nvidia-smi on this runner",
    }),
    "script/missing": ("error", {
        "type": "not-run",
        "message": "CTest did not run the test: Unable to find executable",
    }),
}
LAYERS = ["cli", "probe", "SampleUnit", "script"]
CLASS_PREFIX = "kernodeck."
VARIANTS = ["a", "b"]
VARIANT_PROPERTY = "kernodeck.variant"

problems = []


def expect(ok, what):
    if not ok:
        problems.append(what)


def finish(done):
    if problems:
        print("junit.consumer: FAILED:\n  " + "\n  ".join(problems), file=sys.stderr)
        sys.exit(1)
    print(f"junit.consumer: junitparser read {done} as expected")


def written(element, name):
    """The attribute as the report wrote it. junitparser's count attributes compute a missing
    count from the cases instead, which would hide a report that leaves one out."""
    return Attr(name).__get__(element, type(element))


def read(path):
    report = JUnitXml.fromfile(path)
    suites = list(report)
    for key in ("tests", "failures", "errors"):
        expect(written(report, key) is not None, f"<testsuites> has no {key}")
    for suite in suites:
        for key in ("tests", "failures", "errors", "skipped"):
            expect(written(suite, key) is not None, f"{suite.name}: no {key}")
    if problems:
        finish("")
    return report, suites


def check_suites(suites, variant=None):
    """Each suite's counts against its cases, each case under its layer (the suite's name, less
    " [variant]"); returns the cases by "classname/name"."""
    suffix = f" [{variant}]" if variant else ""
    cases = {}
    for suite in suites:
        layer = suite.name.removesuffix(suffix)
        listed = list(suite)
        expect(suite.tests == len(listed), f"{suite.name}: tests {suite.tests} != {len(listed)}")
        expect(suite.failures == sum(c.is_failure for c in listed), f"{suite.name}: failures")
        expect(suite.errors == sum(c.is_error for c in listed), f"{suite.name}: errors")
        expect(suite.skipped == sum(c.is_skipped for c in listed), f"{suite.name}: skipped")
        for case in listed:
            expect(case.classname == CLASS_PREFIX + layer, f"{case.name}: classname {case.classname}")
            expect(case.classname != case.name, f"{case.name}: classname equals name")
            cases[f"{layer}/{case.name}"] = case
    return cases


def check_cases(cases, variant=None):
    label = f"[{variant}] " if variant else ""
    expect(len(cases) == len(WANT), f"{label}distinct cases {len(cases)}")
    for name, (verdict, fields) in WANT.items():
        key = label + name
        case = cases.get(name)
        if case is None:
            problems.append(f"{key}: missing")
            continue
        found = [VERDICTS[type(result)] for result in case.result]
        if verdict == "pass":
            expect(not found, f"{key}: expected a pass, got {found}")
            # A pass says what it guards and where it is declared, nothing of its output.
            head = ("Promise: ", "Case declared at ")
            told = [line for part in case if isinstance(part, SystemOut)
                    for line in (part.text or "").split("\n") if line]
            expect(all(line.startswith(head) for line in told),
                   f"{key}: output attached to a pass: {told!r}")
            # A GoogleTest case knows its file and line; a plain script does not.
            expect(name.startswith("script/")
                   or any(line.startswith("Case declared at ") for line in told),
                   f"{key}: a pass does not say where it is declared: {told!r}")
            continue
        expect(found == [verdict], f"{key}: expected {verdict}, got {found}")
        element = next((r for r in case.result if VERDICTS[type(r)] == verdict), None)
        for field, check in fields.items():
            value = getattr(element, field) if element is not None else None
            ok = check(value) if isinstance(value, str) and callable(check) else value == check
            expect(isinstance(value, str) and ok, f"{key}: {verdict} {field} = {value!r}")
        if verdict != "skipped":
            expect(bool(case.system_out), f"{key}: no system-out")


def check_certificate_case(suite, variant=None):
    """The certificate's suite: one case, failed since a case of the sample failed."""
    name = f"certificate [{variant}]" if variant else "certificate"
    expect(suite.name == name, f"first suite {suite.name}, not {name}")
    cases = list(suite)
    expect(len(cases) == 1 and cases[0].classname == CLASS_PREFIX + "certificate"
           and [VERDICTS[type(r)] for r in cases[0].result] == ["failure"],
           f"{suite.name}: not the certificate's failed case")


def check_sample(path):
    report, suites = read(path)
    expect(report.name == "sample", f"title {report.name}")
    expect(report.tests == 13, f"tests {report.tests}")
    expect(report.failures == 3, f"failures {report.failures}")
    expect(report.errors == 4, f"errors {report.errors}")
    expect([s.name for s in suites] == ["certificate"] + LAYERS,
           f"suites {[s.name for s in suites]}")
    skipped = sum(s.skipped for s in suites)
    expect(skipped == 2, f"skipped {skipped}")
    for suite in suites:
        names = [p.name for p in suite.properties()]
        expect(VARIANT_PROPERTY not in names, f"{suite.name}: a variant in {names} without one")
    if suites:
        check_certificate_case(suites[0])
    check_cases(check_suites(suites[1:]))
    finish("all 12 cases and the certificate's")


def check_variants(path):
    report, suites = read(path)
    expect(report.name == "sample-variants", f"title {report.name}")
    expect(report.tests == 26, f"tests {report.tests}")
    expect(report.failures == 6, f"failures {report.failures}")
    expect(report.errors == 8, f"errors {report.errors}")
    names = [s.name for s in suites]
    expect(names == [f"{layer} [{v}]" for v in VARIANTS for layer in ["certificate"] + LAYERS],
           f"suites {names}")
    skipped = sum(s.skipped for s in suites)
    expect(skipped == 4, f"skipped {skipped}")
    of_variant = {v: [] for v in VARIANTS}
    for suite in suites:
        properties = [(p.name, p.value) for p in suite.properties()]
        # The variant first, then the certificate's facts, on every suite.
        variant = next((v for v in VARIANTS if properties[:1] == [(VARIANT_PROPERTY, v)]), None)
        if variant is None:
            problems.append(f"{suite.name}: properties {properties}")
        elif suite.name == f"certificate [{variant}]":
            check_certificate_case(suite, variant)
        else:
            expect(suite.name.endswith(f" [{variant}]"), f"{suite.name}: variant {variant}")
            of_variant[variant].append(suite)
    # Each variant holds the very cases of the sample, under the same classnames and names.
    for variant, tagged in of_variant.items():
        check_cases(check_suites(tagged, variant), variant)
    finish("all 24 cases of both variants and their certificates")


# What the check's reports of consumer_test.sh say: only the real probe's count.
PROPERTIES = [
    ("kernodeck.check.version", "1.0.0"),
    ("kernodeck.check.commit", "0123456789ab"),
    ("kernodeck.libtorch.version", "2.15.0"),
    ("kernodeck.backend", "cuda"),
    ("kernodeck.cuda.version", "13.2"),
    ("kernodeck.hip.version", "none"),
    ("kernodeck.probe", "libtorch, stable_abi"),
    ("kernodeck.gradient.source", "autograd"),
    ("kernodeck.gpu.model", "NVIDIA H200"),
    ("kernodeck.gpu.capability", "9.0"),
    ("kernodeck.gpu.count", "2"),
    ("kernodeck.driver.version", "570.86.15"),
    ("kernodeck.gpu.declared", "yes"),
    ("kernodeck.case_reports", "4 (3 by the real probe)"),
]
# A path of this machine: where sources, builds and temporary folders live.
MACHINE_PATH = re.compile(r"(?<![\w<])/(?:tmp|work|root|home)/")


def recorded_places(records_dir):
    """The line each case's record gives for it, by full name."""
    places = {}
    for path in pathlib.Path(records_dir).rglob("*.json"):
        record = json.loads(path.read_text())
        if record.get("line"):
            places[record["name"]] = str(record["line"])
    return places


def check_declarations(cases, records_dir):
    """Where each case is declared: where GoogleTest says it is, as the case's record gives it
    (written when it starts, so also for a case that died), never a table's text."""
    declared = recorded_places(records_dir)
    where = {name: f"Case declared at reporting/sample_cases.cpp:{declared[name]}"
             for name in ("cli.run/report_mismatch", "cli.run/needs_gpu", "probe.run/healthy")}
    expect(where["cli.run/report_mismatch"] != where["cli.run/needs_gpu"],
           f"two cli cases registered on their own lines share one: {where}")
    mismatch = cases.get("cli/report_mismatch")
    text = mismatch.result[0].text if mismatch is not None and mismatch.result else ""
    expect("reporting/sample_cases.cpp:" in text, f"cli/report_mismatch: no relative location")
    expect(text.rstrip().endswith(where["cli.run/report_mismatch"]),
           f"cli/report_mismatch: declaration {text[-80:]!r}, not {where['cli.run/report_mismatch']!r}")
    skip = cases.get("cli/needs_gpu")
    text = skip.result[0].text if skip is not None and skip.result else ""
    lines = text.split("\n")
    expect(len(lines) == 3 and lines[0] == "no GPU on this runner"
           and re.fullmatch(r"Skipped at reporting/sample_cases\.cpp:\d+", lines[1])
           and lines[2] == where["cli.run/needs_gpu"],
           f"cli/needs_gpu: skip body {text!r}")
    # The segfault wrote no XML: its place is its mark's, the TEST_P every probe case shares.
    segfault = cases.get("probe/segfault")
    text = segfault.result[0].text if segfault is not None and segfault.result else ""
    expect(text.rstrip().endswith(where["probe.run/healthy"]),
           f"probe/segfault: declaration {text[-80:]!r}, not {where['probe.run/healthy']!r}")
    expect("suites/sample_cases.cpp" not in text and "suites/sample_cases.cpp" not in
           (mismatch.result[0].text if mismatch is not None and mismatch.result else ""),
           "a declaration found by searching the source tree's text")


def check_summary(summary_path):
    """The Markdown summary of the certified run."""
    with open(summary_path, encoding="utf-8") as f:
        summary = f.read()
    expect(summary.startswith("# sample: certificate\n"), f"summary starts {summary[:40]!r}")
    expect("sample 1.0.0 (commit 0123456789ab): NOT CERTIFIED" in summary, "summary: certificate")
    rows = [line for line in summary.splitlines() if line.startswith("| - | `kernodeck.")]
    expect(len(rows) == 8, f"summary: {len(rows)} rows of failures, errors and skips, not 8")
    for row in ("| - | `kernodeck.cli.needs_gpu` | skipped | no GPU on this runner |",
                "| - | `kernodeck.script.fail` | failed | failed (CTest): exit code 3, expected 0 |"):
        expect(row in summary, f"summary lacks {row!r}")
    expect(MACHINE_PATH.search(summary) is None, "summary: a path of this machine")


def check_certified(path, summary_path, records_dir):
    report, suites = read(path)
    expect(report.tests == 13, f"tests {report.tests}")
    expect(report.failures == 3, f"failures {report.failures}")
    expect(report.errors == 4, f"errors {report.errors}")
    names = [s.name for s in suites]
    expect(names == ["certificate"] + LAYERS, f"suites {names}")
    skipped = sum(s.skipped for s in suites)
    expect(skipped == 2, f"skipped {skipped}")
    for suite in suites:
        properties = [(p.name, p.value) for p in suite.properties()]
        expect(properties == PROPERTIES, f"{suite.name}: properties {properties}")
    certificate = list(suites[0])
    expect(len(certificate) == 1, f"certificate suite holds {len(certificate)} cases")
    case = certificate[0]
    expect(case.classname == CLASS_PREFIX + "certificate" and case.name == "certificate",
           f"certificate case {case.classname}/{case.name}")
    found = [VERDICTS[type(r)] for r in case.result]
    expect(found == ["failure"], f"certificate verdict {found}")
    if found == ["failure"]:
        failure = case.result[0]
        message = "not certified: 2 failures and 4 errors"
        expect(failure.message == message, f"certificate message {failure.message!r}")
        text = failure.text or ""
        expect(text.split("\n")[0] == message, f"certificate body starts {text[:60]!r}")
        for words in ("sample 1.0.0 (commit 0123456789ab): NOT CERTIFIED",
                      "libtorch 2.15.0 (backend cuda, CUDA 13.2, HIP none)",
                      "GPU: NVIDIA H200 (count 2, capability 9.0), driver 570.86.15; "
                      "the runner declared a GPU: yes",
                      "Result: 12 cases, 4 passed, 2 failed, 4 errors, 2 skipped",
                      "Per layer: cli 1 passed, 1 failed, 1 skipped; probe 1 passed, 3 errors; "
                      "SampleUnit 1 passed; script 1 passed, 1 failed, 1 error, 1 skipped."):
            expect(words in text, f"certificate body lacks {words!r}: {text!r}")
    # The sample's verdicts are those of the plain conversion.
    cases = check_suites(suites[1:])
    check_cases(cases)
    # Each skip, failure and error: its reason first, then where.
    for name in WANT:
        case = cases.get(name)
        for result in (case.result if case is not None else []):
            first = (result.text or "").split("\n")[0]
            expect(first == result.message, f"{name}: body starts {first!r}, message "
                                            f"{result.message!r}")
    check_declarations(cases, records_dir)
    with open(path, encoding="utf-8") as f:
        xml = f.read()
    leak = MACHINE_PATH.search(xml)
    expect(leak is None, f"a path of this machine: {xml[max(0, leak.start() - 40):leak.end() + 40]!r}"
           if leak else "")
    expect("Simulated" not in xml and "999.1" not in xml, "a simulated GPU taken for the machine's")

    check_summary(summary_path)
    finish("the certificate, its properties and the summary")


def main(argv):
    if len(argv) == 5 and argv[1] == "certified":
        check_certified(argv[2], argv[3], argv[4])
        return 0
    checks = {"sample": check_sample, "variants": check_variants}
    if len(argv) != 3 or argv[1] not in checks:
        print(f"usage: {argv[0]} sample|variants REPORT | certified REPORT SUMMARY RECORDS",
              file=sys.stderr)
        return 2
    checks[argv[1]](argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
