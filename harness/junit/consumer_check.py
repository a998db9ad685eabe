"""Reads a kernodeck-junit report back through junitparser, a real JUnit consumer, and checks
what a dashboard would show of the sample cases: every count, name, verdict and message.

usage: consumer_check.py sample REPORT     the sample, converted without a variant
       consumer_check.py variants REPORT   the sample converted with --variant a and with
                                           --variant b, then the two merged (--merge)

Run by consumer_test.sh with the Python of the tools venv, where ./ci/setup --junit-consumer
installs junitparser.
"""

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
            expect(case.classname == layer, f"{case.name}: classname {case.classname}")
            expect(case.classname != case.name, f"{case.name}: classname equals name")
            cases[f"{case.classname}/{case.name}"] = case
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
            expect(not any(isinstance(part, SystemOut) for part in case),
                   f"{key}: output attached to a pass")
            continue
        expect(found == [verdict], f"{key}: expected {verdict}, got {found}")
        element = next((r for r in case.result if VERDICTS[type(r)] == verdict), None)
        for field, check in fields.items():
            value = getattr(element, field) if element is not None else None
            ok = check(value) if isinstance(value, str) and callable(check) else value == check
            expect(isinstance(value, str) and ok, f"{key}: {verdict} {field} = {value!r}")
        if verdict != "skipped":
            expect(bool(case.system_out), f"{key}: no system-out")


def check_sample(path):
    report, suites = read(path)
    expect(report.name == "sample", f"title {report.name}")
    expect(report.tests == 12, f"tests {report.tests}")
    expect(report.failures == 2, f"failures {report.failures}")
    expect(report.errors == 4, f"errors {report.errors}")
    expect([s.name for s in suites] == LAYERS, f"suites {[s.name for s in suites]}")
    skipped = sum(s.skipped for s in suites)
    expect(skipped == 2, f"skipped {skipped}")
    for suite in suites:
        properties = [(p.name, p.value) for p in suite.properties()]
        expect(not properties, f"{suite.name}: properties {properties} without a variant")
    check_cases(check_suites(suites))
    finish("all 12 cases")


def check_variants(path):
    report, suites = read(path)
    expect(report.name == "sample-variants", f"title {report.name}")
    expect(report.tests == 24, f"tests {report.tests}")
    expect(report.failures == 4, f"failures {report.failures}")
    expect(report.errors == 8, f"errors {report.errors}")
    names = [s.name for s in suites]
    expect(names == [f"{layer} [{v}]" for v in VARIANTS for layer in LAYERS], f"suites {names}")
    skipped = sum(s.skipped for s in suites)
    expect(skipped == 4, f"skipped {skipped}")
    of_variant = {v: [] for v in VARIANTS}
    for suite in suites:
        properties = [(p.name, p.value) for p in suite.properties()]
        variant = next((v for v in VARIANTS if properties == [(VARIANT_PROPERTY, v)]), None)
        if variant is None:
            problems.append(f"{suite.name}: properties {properties}")
        else:
            expect(suite.name.endswith(f" [{variant}]"), f"{suite.name}: variant {variant}")
            of_variant[variant].append(suite)
    # Each variant holds the very cases of the sample, under the same classnames and names.
    for variant, tagged in of_variant.items():
        check_cases(check_suites(tagged, variant), variant)
    finish("all 24 cases of both variants")


def main(argv):
    checks = {"sample": check_sample, "variants": check_variants}
    if len(argv) != 3 or argv[1] not in checks:
        print(f"usage: {argv[0]} sample|variants REPORT", file=sys.stderr)
        return 2
    checks[argv[1]](argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
