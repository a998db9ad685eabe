#!/usr/bin/env python3
"""What ci/gpu-proof writes and checks about a proof's OUT folder (standard library only:
the GPU machine has no package registry; and application_case.py beside it, as the kit's tools/
holds it, for the application cases' names).

  gpu_proof_report.py summary OUT COMMIT CTEST_STATUS SECONDS JUNIT_COUNTS [ASKED...]
      prints summary.txt: the suite's counts and, for each hand run, what a reviewer
      looks for (code, exit, device and its name, loss, synchronized, allocator figures,
      stage timings, the host check's driver); for each application case of KIT/run (ASKED:
      --import MODULE and --weights FILE, as application_case.py asked prints them), what its
      report says (a module's distribution and version, the torch it requires; a file's format,
      tensors and bytes; the code and cause).
  gpu_proof_report.py scrub OUT MACHINE_JSON VALUE=PLACEHOLDER...
      replaces each VALUE in every file under OUT, and this machine's HOME and host name (the
      latter only as a whole word) as MACHINE_JSON (kernodeck-machine strings) gives them by
      {home} and {host}, then fails if one is left.
  gpu_proof_report.py relocate TREE OLD=NEW...
      rewrites every CTest file (*.cmake) under TREE with each OLD folder replaced by its NEW,
      as a new file where it was a link (the kit it links into is never changed).
  gpu_proof_report.py hand-verdict OUT RUN POINTER=VALUE...
      the hand run RUN's report (OUT/hand/RUN.json) holds each field as given ("null",
      "true", a number or a string; an array's item by its index); exit 1 naming each that
      does not.
  gpu_proof_report.py case-verdict OUT LAYER.NAME passed|failed [WORDS...]
      junit.xml holds the case kernodeck.LAYER NAME once, with that verdict; a failed one's
      failure and its row in summary.md contain each of WORDS, and its row names a cause.
      Exit 1 naming what does not hold.
  gpu_proof_report.py case-report-verdict OUT LAYER.NAME POINTER=VALUE...
      the case's report (OUT/cases/LAYER.NAME.json) holds each field as hand-verdict has it.
  gpu_proof_report.py dry-run-verdict OUT RUN_STATUS LIMIT REQUIREMENTS [CUDA]
      the dry run's verdict: every failed case is a GPU case failing because this runner
      has no GPU (or no CUDA/HIP libtorch, or no nvidia-smi: the reasons of the requirements
      that the program REQUIREMENTS, kernodeck-requirements, says are a failure here only
      because a GPU is declared), there is at least one, and nothing else failed or errored; the certificate is learned from the real probe's
      reports; the hand runs and the summary exist, and the run took at most LIMIT
      seconds. With CUDA (the wheel's CUDA version), the certificate and every hand run
      see backend cuda and that version, and no GPU: every hand run but --device cpu is
      GPU_UNAVAILABLE, that one CPU_CHECK_PASSED. Privacy is kernodeck-evidence's to judge
      (ci/gpu-proof runs it after this). The --device cpu hand run must also verify the loss,
      196, and name the gradient's source (autograd or explicit).
  gpu_proof_report.py failed-verdict OUT CODE TYPE WORDS
      the verdict of a kit run in an image it cannot certify (no torch, a damaged torch): the
      run failed (junit.xml holds a failing certificate), and the default and --device cpu
      hand runs and at least one case's report answer CODE with error.type TYPE and a
      message (error.message) that contains WORDS.
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import application_case

HAND_RUNS = ["default", "host-check", "cpu", "cuda-visible-devices-empty", "device-index-1"]


def hand_line(out, name):
    folder = pathlib.Path(out) / "hand"
    exit_code = (folder / f"{name}.exit").read_text().strip() if (folder / f"{name}.exit").exists() else "?"
    try:
        report = json.loads((folder / f"{name}.json").read_text())
    except (OSError, ValueError):
        return f"{name:28} exit {exit_code:3}  (no report on stdout)"
    execution = report.get("execution") or {}
    pytorch = report.get("pytorch") or {}
    parts = [f"{report.get('code')} (stage {report.get('stage')})",
             f"libtorch {pytorch.get('version')} backend {pytorch.get('backend')}"
             f" cuda {pytorch.get('cuda')} visible {pytorch.get('visible_device_count')}"]
    if execution.get("device"):
        name_part = execution.get("device_name")
        if name_part and execution.get("capability"):
            name_part += f", capability {execution['capability']}"
        parts.append(f"ran on {execution['device']}" + (f" ({name_part})" if name_part else ""))
    if execution.get("loss") is not None:
        parts.append(f"loss {execution['loss']:g}")
    if execution.get("gradient_source"):
        parts.append(f"gradient {execution['gradient_source']}")
    if execution.get("synchronized") is not None:
        parts.append(f"synchronized {str(execution['synchronized']).lower()}")
    memory = execution.get("memory")
    if memory:
        parts.append(f"allocated {memory.get('allocated_bytes')} B, reserved {memory.get('reserved_bytes')} B")
    timings = execution.get("timings_ms") or {}
    if timings:
        parts.append("ms: " + ", ".join(f"{k} {v}" for k, v in timings.items() if v is not None))
    host = report.get("host")
    if host:
        parts.append(f"host check {host.get('status')}: driver {host.get('driver_version')},"
                     f" {host.get('memory_total_mib')} MiB")
    if report.get("error"):
        parts.append(f"error {report['error'].get('type')}: {report['error'].get('message')}")
    return f"{name:28} exit {exit_code:3}  " + "; ".join(parts)


def case_line(out, stem, shown, facts):
    """What an application case answered, from its report OUT/cases/STEM.json: its code and
    stage, what `facts` (report -> [part]) says of it, and its error with the message."""
    try:
        report = json.loads((pathlib.Path(out) / "cases" / f"{stem}.json").read_text())
    except (OSError, ValueError):
        return f"{shown:28} (no report)"
    parts = [f"{report.get('code')} (stage {report.get('stage')})", *facts(report)]
    if report.get("error"):
        parts.append(f"error {report['error'].get('type')}: {report.get('message')}")
    return f"{shown:28} " + "; ".join(parts)


def application_line(out, module):
    """What the application case of MODULE (KIT/run --import) answered."""
    def facts(report):
        extensions = (report.get("application") or {}).get("extensions") or []
        entry = next((e for e in extensions if e.get("module") == module), {})
        made = " ".join(str(entry[k]) for k in ("distribution", "version") if entry.get(k))
        parts = [made or "no distribution"]
        if entry.get("requires_torch"):
            parts.append(f"requires torch{entry['requires_torch']}")
        if entry.get("imported") is not None:
            parts.append("imported" if entry["imported"] else "not imported")
        return parts
    return case_line(out, f"application.{module}", module, facts)


def weights_line(out, case_id):
    """What the application case CASE_ID of a weights file (KIT/run --weights) answered."""
    def facts(report):
        entry = (((report.get("application") or {}).get("weights")) or [{}])[0]
        parts = [str(entry["format"])] if entry.get("format") else []
        if entry.get("tensors") is not None:
            dtypes = ", ".join(str(d) for d in entry.get("dtypes") or [])
            parts.append(f"{entry['tensors']} tensors" + (f" ({dtypes})" if dtypes else "") +
                         f", {entry.get('bytes')} bytes")
        if entry.get("verified") is not None:
            parts.append("verified" if entry["verified"] else "not verified")
        return parts
    return case_line(out, f"application.{case_id}", case_id, facts)


def compile_line(out, case):
    """What the case of torch.compile (KIT/run --compile) answered."""
    def facts(report):
        compiled = (report.get("execution") or {}).get("compile") or {}
        parts = [f"backend {compiled.get('backend')}",
                 "verified" if compiled.get("verified") else "not verified"]
        if compiled.get("seconds") is not None:
            parts.append(f"{compiled['seconds']} s")
        return parts
    return case_line(out, f"{case.layer}.{case.id}", case.shown, facts)


def precision_line(out, case):
    """What the case of a precision (KIT/run --dtype) answered."""
    def facts(report):
        entry = next((p for p in (report.get("application") or {}).get("precisions") or []
                      if p.get("dtype") == case.asked), {})
        if not entry:
            return []
        return [f"on {entry.get('device')}",
                "verified" if entry.get("verified") else "not verified"]
    return case_line(out, f"{case.layer}.{case.id}", case.shown, facts)


def summary(out, commit, status, seconds, counts, *asked):
    print(f"kernodeck-diagnostic GPU proof (commit {commit})")
    print(f"conformance suite, KERNODECK_EXPECT_GPU=1: {counts} (ctest exit {status})")
    print("hand runs:")
    for name in HAND_RUNS:
        print("  " + hand_line(out, name))
    cases = application_case.asked(application_case.parse(asked))
    if cases:
        print("application cases (--import, --weights, --dtype, --compile; their reports in "
              "cases/):")
        lines = {"--import": lambda case: application_line(out, case.asked),
                 "--weights": lambda case: weights_line(out, case.id),
                 "--dtype": lambda case: precision_line(out, case),
                 "--compile": lambda case: compile_line(out, case)}
        for case in cases:
            print("  " + lines[case.option](case))
    print(f"run time: {seconds} s")


class Replacements:
    """Each value replaced by its own text in one pass, the longest first (a folder inside
    another is replaced as itself, and nothing put in is replaced again); a value of one
    character, or "/", is passed over."""

    def __init__(self, values):  # [(value, replacement, whole_word)]
        self.values = sorted(((v, new, word) for v, new, word in values
                              if len(v) >= 2 and v != "/"), key=lambda r: -len(r[0]))
        parts = []
        for value, _, word in self.values:
            pattern = re.escape(value)
            if word:
                pattern = r"(?<![A-Za-z0-9_.-])" + pattern + r"(?![A-Za-z0-9_-])"
            parts.append(f"({pattern})")
        self.pattern = re.compile("|".join(parts)) if parts else None
        self.alone = [re.compile(part) for part in parts]

    def apply(self, text):
        if self.pattern is None:
            return text
        return self.pattern.sub(lambda m: self.values[m.lastindex - 1][1], text)

    def left(self, text):
        """The first value still in `text`, or None."""
        return next((value for (value, _, _), alone in zip(self.values, self.alone)
                     if alone.search(text)), None)


def pairs_of(arguments):
    return [(value, new, False) for value, _, new in (a.rpartition("=") for a in arguments)]


def scrub(out, machine_json, pairs):
    machine = json.loads(pathlib.Path(machine_json).read_text())
    replacements = Replacements(pairs_of(pairs) + [(machine.get("home") or "", "{home}", False),
                                                   (machine.get("host") or "", "{host}", True)])
    for path in pathlib.Path(out).rglob("*"):
        if not path.is_file():
            continue
        text = path.read_text(errors="surrogateescape")
        new = replacements.apply(text)
        if new != text:
            path.write_text(new, errors="surrogateescape")
        left = replacements.left(new)
        if left is not None:
            sys.exit(f"gpu_proof_report: {left!r} is still in {path}")


def relocate(tree, pairs):
    replacements = Replacements(pairs_of(pairs))
    for path in sorted(pathlib.Path(tree).rglob("*.cmake")):
        text = path.read_text(errors="surrogateescape")
        path.unlink()  # a link into the kit: the new text is this tree's own file
        path.write_text(replacements.apply(text), errors="surrogateescape")


def gpu_reasons(requirements):
    """The reasons of the requirements unmet here that fail a case only because the runner
    declared a GPU (a GPU, a CUDA or HIP libtorch, nvidia-smi), as the requirements program
    (kernodeck-requirements --json) gives them."""
    def fatal(declared):
        env = dict(os.environ, KERNODECK_EXPECT_GPU="1" if declared else "0")
        rows = json.loads(subprocess.run([requirements, "--json"], env=env, check=True,
                                         capture_output=True, text=True).stdout)
        return {row["name"]: row["reason"] for row in rows if row["fatal"]}
    always = fatal(False)
    return sorted(reason for name, reason in fatal(True).items() if name not in always)


def case_problems(root, reasons):
    """The cases that failed for another reason than the missing GPU, and the GPU cases."""
    gpu_failures, other, certificates = [], [], []
    for case in root.iter("testcase"):
        name = f"{case.get('classname')}.{case.get('name')}"
        if case.get("classname") == "kernodeck.certificate":
            # The run's certificate fails with the GPU cases; it is checked below.
            certificates.append(case)
            continue
        for verdict in ("failure", "error"):
            element = case.find(verdict)
            if element is None:
                continue
            text = (element.get("message") or "") + "\n" + (element.text or "")
            if verdict == "failure" and any(reason in text for reason in reasons):
                gpu_failures.append(name)
            else:
                other.append(f"{name} ({verdict}: {element.get('message')})")
    problems = []
    if not gpu_failures:
        problems.append("no GPU case failed: KERNODECK_EXPECT_GPU=1 did not turn a missing GPU into a failure")
    if len(certificates) != 1 or certificates[0].find("failure") is None:
        problems.append("junit.xml does not hold one failing certificate case (kernodeck.certificate)")
    elif "the runner declared a GPU: yes" not in (certificates[0].find("failure").text or ""):
        problems.append("the certificate does not say the runner declared a GPU")
    if other:
        problems.append("cases failed for another reason than the missing GPU: " + "; ".join(other))
    return gpu_failures, problems


def certificate_problems(root, cuda):
    """What the certificate learned from the cases' reports: something, and with CUDA, that."""
    suite = next((s for s in root.iter("testsuite") if s.get("name") == "certificate"), None)
    found = {p.get("name"): p.get("value") for p in suite.iter("property")} if suite is not None else {}
    problems = []
    real = re.search(r"\((\d+) by the real probe\)", found.get("kernodeck.case_reports", ""))
    if not real or real.group(1) == "0":
        problems.append("the certificate was learned from no report of the real probe "
                        f"(kernodeck.case_reports: {found.get('kernodeck.case_reports')}): "
                        "the cases' reports did not reach OUT/cases")
    if found.get("kernodeck.libtorch.version", "unknown") == "unknown":
        problems.append("the certificate names no libtorch version")
    if cuda:
        for name, want in (("kernodeck.backend", "cuda"), ("kernodeck.cuda.version", cuda)):
            if found.get(name) != want:
                problems.append(f"the certificate's {name} is {found.get(name)}, not {want}")
    return problems


def hand_problems(out, cuda):
    """Each hand run left a report; with CUDA, each sees the wheel's CUDA and no GPU."""
    problems = []
    for name in HAND_RUNS:
        try:
            report = json.loads((out / "hand" / f"{name}.json").read_text())
        except (OSError, ValueError):
            problems.append(f"hand run {name} left no report")
            continue
        if not cuda:
            continue
        pytorch = report.get("pytorch") or {}
        execution = report.get("execution") or {}
        if name == "cpu" and (execution.get("loss") != 196 or
                              execution.get("gradient_source") not in ("autograd", "explicit")):
            problems.append(f"hand run cpu shows loss {execution.get('loss')} and gradient source "
                            f"{execution.get('gradient_source')}; expected 196 and its source named")
        want = "CPU_CHECK_PASSED" if name == "cpu" else "GPU_UNAVAILABLE"
        seen = (report.get("code"), pytorch.get("backend"), pytorch.get("cuda"))
        if seen != (want, "cuda", cuda):
            problems.append(f"hand run {name} answered code {seen[0]}, backend {seen[1]}, CUDA "
                            f"{seen[2]}; expected {want}, backend cuda, CUDA {cuda}")
    return problems


def dry_run_verdict(out, run_status, limit, requirements, cuda=None):
    out = pathlib.Path(out)
    try:
        root = ET.parse(out / "junit.xml").getroot()
    except (OSError, ET.ParseError) as e:
        sys.exit(f"gpu-proof dry run: FAILED: no readable junit.xml: {e}")
    gpu_failures, problems = case_problems(root, gpu_reasons(requirements))
    problems += certificate_problems(root, cuda)
    for name in ("summary.md", "index.html"):
        if not (out / name).exists():
            problems.append(f"{name} is missing")
    if run_status != "1":
        problems.append(f"ci/gpu-proof run exited {run_status}; with failing GPU cases it must exit 1")
    problems += hand_problems(out, cuda)
    summary_text = (out / "summary.txt").read_text() if (out / "summary.txt").exists() else ""
    if "hand runs:" not in summary_text:
        problems.append("summary.txt is missing or incomplete")
    took = re.search(r"^run time: (\d+) s", summary_text, re.M)
    if not took or int(took.group(1)) > int(limit):
        problems.append(f"the run took {took.group(1) if took else 'an unknown time'} s; "
                        f"ci/gpu-proof allows it {limit} s")
    if problems:
        sys.exit("gpu-proof dry run: FAILED:\n  " + "\n  ".join(problems))
    print(f"gpu-proof dry run: as expected, {len(gpu_failures)} GPU cases failed because this "
          f"runner has no GPU, nothing else failed; the hand runs and summary.txt are there; "
          f"the run took {took.group(1)} s of its {limit}"
          + (f"; backend cuda, CUDA {cuda}, seen by the certificate and every hand run" if cuda else ""))


def answers(report, code, error_type, words):
    error = report.get("error") or {}
    return (report.get("code") == code and error.get("type") == error_type
            and words in (error.get("message") or ""))


def failed_verdict(out, code, error_type, words):
    out = pathlib.Path(out)
    problems = []
    try:
        root = ET.parse(out / "junit.xml").getroot()
        certificate = next((c for c in root.iter("testcase")
                            if c.get("classname") == "kernodeck.certificate"), None)
        if certificate is None or certificate.find("failure") is None:
            problems.append("junit.xml holds no failing certificate case")
    except (OSError, ET.ParseError) as e:
        problems.append(f"no readable junit.xml: {e}")
    for name in ("default", "cpu"):
        try:
            report = json.loads((out / "hand" / f"{name}.json").read_text())
        except (OSError, ValueError):
            problems.append(f"hand run {name} left no report")
            continue
        if not answers(report, code, error_type, words):
            error = report.get("error") or {}
            problems.append(f"hand run {name} answered {report.get('code')} "
                            f"({error.get('type')}: {error.get('message')}); expected {code} "
                            f"({error_type}) with '{words}'")
    met = [p.name for p in (out / "cases").glob("*.json")
           if answers(json.loads(p.read_text()), code, error_type, words)]
    if not met:
        problems.append(f"no case's report answers {code} ({error_type}) with '{words}'")
    if problems:
        sys.exit("kit run: FAILED:\n  " + "\n  ".join(problems))
    print(f"kit run: the certificate failed, and the hand runs and {len(met)} case reports "
          f"name {code} ({error_type}): '{words}'")


def field_problems(report, expectations, what):
    """What of `expectations` (POINTER=VALUE: a JSON pointer, an array's item by its index, and
    its value as text: "null", "true", a number or a string) `report` does not hold."""
    problems = []
    for expectation in expectations:
        pointer, _, want = expectation.partition("=")
        value = report
        for key in pointer.strip("/").split("/"):
            if isinstance(value, list) and key.isdigit() and int(key) < len(value):
                value = value[int(key)]
            else:
                value = value.get(key) if isinstance(value, dict) else None
        seen = "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
        if seen != want:
            problems.append(f"{what}: {pointer} is {seen!r}, expected {want!r}")
    return problems


def hand_verdict(out, run, expectations):
    """The hand run RUN's report holds each POINTER=VALUE of `expectations` (field_problems);
    exit 1 naming each that it does not."""
    try:
        report = json.loads((pathlib.Path(out) / "hand" / f"{run}.json").read_text())
    except (OSError, ValueError) as e:
        sys.exit(f"kit run: FAILED: hand run {run} left no report: {e}")
    problems = field_problems(report, expectations, f"hand run {run}")
    if problems:
        sys.exit("kit run: FAILED:\n  " + "\n  ".join(problems))
    print(f"kit run: hand run {run} holds {', '.join(expectations)}")


def case_report_verdict(out, case, expectations):
    """The case's report (OUT/cases/CASE.json) holds each of `expectations` (field_problems)."""
    try:
        report = json.loads((pathlib.Path(out) / "cases" / f"{case}.json").read_text())
    except (OSError, ValueError) as e:
        sys.exit(f"kit run: FAILED: the case {case} left no report: {e}")
    problems = field_problems(report, expectations, f"the report of the case {case}")
    if problems:
        sys.exit("kit run: FAILED:\n  " + "\n  ".join(problems))
    print(f"kit run: the report of the case {case} holds {', '.join(expectations)}")


def case_problems_of(out, case, want, words):
    """What does not hold of the case LAYER.NAME in OUT's junit.xml and summary.md: one case
    kernodeck.LAYER NAME with the verdict `want`; a failed one's failure and summary row name
    each of `words`, and its row a cause."""
    layer, _, name = case.partition(".")
    shown = f"kernodeck.{layer}.{name}"
    try:
        root = ET.parse(pathlib.Path(out) / "junit.xml").getroot()
    except (OSError, ET.ParseError) as e:
        return [f"no readable junit.xml: {e}"]
    found = [c for c in root.iter("testcase")
             if c.get("classname") == f"kernodeck.{layer}" and c.get("name") == name]
    if len(found) != 1:
        return [f"junit.xml holds {len(found)} cases {shown}, not one"]
    verdicts = [v for v in ("failure", "error", "skipped") if found[0].find(v) is not None]
    seen = {"failure": "failed", "error": "errored", "skipped": "skipped"}.get(
        verdicts[0] if verdicts else "", "passed")
    if seen != want:
        element = found[0].find(verdicts[0]) if verdicts else None
        return [f"the case {shown} {seen}, expected {want}"
                + (f": {element.get('message')}" if element is not None else "")]
    if want != "failed":
        return []
    failure = found[0].find("failure")
    text = (failure.get("message") or "") + "\n" + (failure.text or "")
    problems = [f"the failure of {shown} does not name {w!r}" for w in words if w not in text]
    summary_path = pathlib.Path(out) / "summary.md"
    lines = summary_path.read_text().splitlines() if summary_path.exists() else []
    row = next((line for line in lines if f"| `{shown}` |" in line), None)
    if row is None:
        return problems + [f"summary.md has no row for {shown}"]
    problems += [f"the row of {shown} in summary.md does not name {w!r}" for w in words
                 if w not in row]
    if row.rstrip().endswith("| - |"):
        problems.append(f"the row of {shown} in summary.md names no cause")
    return problems


def case_verdict(out, case, want, words):
    problems = case_problems_of(out, case, want, words)
    if problems:
        sys.exit("kit run: FAILED:\n  " + "\n  ".join(problems))
    print(f"kit run: the case kernodeck.{case} {want}"
          + (f", naming {', '.join(words)}" if words else ""))


def main(argv):
    if len(argv) >= 7 and argv[1] == "summary":
        summary(*argv[2:])
    elif len(argv) >= 4 and argv[1] == "scrub":
        scrub(argv[2], argv[3], argv[4:])
    elif len(argv) >= 3 and argv[1] == "relocate":
        relocate(argv[2], argv[3:])
    elif len(argv) in (6, 7) and argv[1] == "dry-run-verdict":
        dry_run_verdict(*argv[2:])
    elif len(argv) == 6 and argv[1] == "failed-verdict":
        failed_verdict(*argv[2:])
    elif len(argv) >= 5 and argv[1] == "hand-verdict":
        hand_verdict(argv[2], argv[3], argv[4:])
    elif len(argv) >= 5 and argv[1] == "case-verdict" and argv[4] in ("passed", "failed"):
        case_verdict(argv[2], argv[3], argv[4], argv[5:])
    elif len(argv) >= 5 and argv[1] == "case-report-verdict":
        case_report_verdict(argv[2], argv[3], argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
