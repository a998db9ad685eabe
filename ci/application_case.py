#!/usr/bin/env python3
"""The application cases of KIT/run OUT --import MODULE... and of ci/conformance
(KERNODECK_IMPORTS): one case per module of the application, named after it, run by CTest with
the conformance suite, so that the certificate (junit.xml, summary.md, index.html) holds it as it
holds every case, through the same report tool. Standard library only: the image under test may
hold nothing else.

  application_case.py names MODULE...
      prints each MODULE once, in the order given; exit 2 naming the first that is not a module's
      dotted Python name (the check's own rule), so that KIT/run refuses it before it writes
      anything.
  application_case.py register TREE CHECK OUT MODULE...
      adds the case application.import/MODULE of each MODULE to TREE, the run's copy of CTest's
      files or a build tree whose next configure writes them anew (its suites/ folder; labels conformance and application, so that the suite's CTest
      run runs it among its own cases), each running `run`. They come first: CTest starts them
      before the suite's cases, so that a run stopped by its time limit has certified them.
      In the certificate its classname is kernodeck.application and its name MODULE; a MODULE
      named as one of the suite's own cases of that layer is refused (exit 2).
  application_case.py run CHECK OUT MODULE
      the case: the check CHECK run twice, --device cpu --import MODULE then --import MODULE on
      the default device, in this process's environment (the image's python3 and torch, or the
      interpreter KERNODECK_TORCH_PYTHON names). The case fails when a run failed in the
      application layer (the module's import: its cause, error.type, and the report's message
      say why and what to do), or when the --device cpu run did not reach that layer (the layer
      that broke is named; its own cases answer for it). The default device failing before the
      application layer (no GPU, a GPU the suite's device cases fail for) leaves the verdict to
      the --device cpu run. The report the verdict rests on is OUT/cases/application.MODULE.json
      (the --device cpu run's, unless only the default device's run failed in the application
      layer), the other run's beside it (application.MODULE.default-run.json or
      application.MODULE.cpu-run.json: a '-' is never in a module's name). It prints what each run
      answered and, last, the verdict in one line, which the certificate quotes. Exit 0 when the
      case passed, 1 when it failed.
"""
import json
import os
import pathlib
import re
import signal
import subprocess
import sys

LAYER = "application"
# The case's CTest name, as the suite names its own ("<layer>.run/<id>"); the certificate's
# classname is the part before the first '.', its name the part after the last '/'.
CASE_NAME = LAYER + ".import/{module}"
# The check's own rule for --import (check/cli.cpp, is_module_name).
MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
MODULE_NAME_LIMIT = 200
# Two runs of the check, each within its own 30 s worker limit and as long again for its look at
# damaged files after a failure; CTest stops the case after this many seconds.
CASE_TIMEOUT_S = 180
RUN_TIMEOUT_S = 80
# The ways the case runs the check: the name in its report's file name, the arguments before
# --import MODULE, and how its lines name it.
RUNS = (("cpu-run", ["--device", "cpu"], "--device cpu --import {module}"),
        ("default-run", [], "--import {module} (the default device)"))


def names(modules):
    """Each module once, in order; a ValueError naming the first that is not a module's name."""
    seen = []
    for module in modules:
        if len(module) > MODULE_NAME_LIMIT or not MODULE_NAME.fullmatch(module):
            raise ValueError(f"--import takes a module's dotted Python name (torchvision, "
                             f"torchvision.ops), not '{module}'")
        if module not in seen:
            seen.append(module)
    return seen


def bracket(text):
    """`text` as one CMake bracket argument, whatever it holds."""
    level = 1
    # The argument ends at the first "]=...=]" of its level, which must be the one put after it.
    while (text + f"]{'=' * level}]").find(f"]{'=' * level}]") != len(text):
        level += 1
    return f"[{'=' * level}[{text}]{'=' * level}]"


def ctest_lines(program, python, check, out, module):
    """The add_test and set_tests_properties lines of MODULE's case."""
    name = bracket(CASE_NAME.format(module=module))
    command = " ".join(bracket(part) for part in (python, program, "run", check, out, module))
    return (f"add_test({name} {command})\n"
            f"set_tests_properties({name} PROPERTIES LABELS {bracket('conformance;' + LAYER)} "
            f"TIMEOUT {CASE_TIMEOUT_S})\n")


def suite_case_ids(suites):
    """The ids of the suite's own cases of the layer (add_test([=[application.run/ID]=] ...)):
    in the certificate a module's case of the same name would stand for one of them."""
    found = set()
    for path in pathlib.Path(suites).glob("*.cmake"):
        found.update(re.findall(r"add_test\(\[=*\[" + LAYER + r"\.run/([^]]+)\]",
                                path.read_text(errors="replace")))
    return found


def register(tree, check, out, modules):
    testfile = pathlib.Path(tree) / "suites" / "CTestTestfile.cmake"
    if not testfile.is_file():
        raise FileNotFoundError(f"{testfile} is not there: the kit's suite has no suites/ folder")
    taken = sorted(set(modules) & suite_case_ids(testfile.parent))
    if taken:
        raise ValueError(f"--import {taken[0]}: the suite has a case of that name in the {LAYER} "
                         "layer, whose certificate entry and report the module's would take")
    program = os.path.abspath(__file__)
    cases = "".join(ctest_lines(program, sys.executable, check, out, module) for module in modules)
    testfile.write_text("# The application cases of this run (KIT/run --import).\n" + cases +
                        testfile.read_text())


class Run:
    """One run of the check: its arguments, exit status, report (a dict, or None) and stdout."""

    def __init__(self, label, code, stdout, stderr):
        self.label, self.code, self.stdout = label, code, stdout
        self.stderr_line = next((line.strip() for line in reversed(stderr.splitlines())
                                 if line.strip()), "")
        try:
            report = json.loads(stdout)
        except ValueError:
            report = None
        ours = isinstance(report, dict) and (report.get("tool") or {}).get("name") == \
            "kernodeck-diagnostic"
        self.report = report if ours else None

    def field(self, name):
        return self.report.get(name) if self.report else None

    def error(self, name):
        return ((self.field("error") or {}).get(name)) if self.report else None

    def passed(self):
        return self.code == 0 and self.field("status") == "passed"

    def failed_in_application(self):
        return not self.passed() and self.field("stage") == LAYER

    def answer(self):
        """What the run answered, in one line without its message."""
        if self.report is None:
            return (f"exit {self.code}, no report on standard output"
                    + (f" (standard error: {self.stderr_line})" if self.stderr_line else ""))
        cause = f" ({self.error('type')})" if self.error("type") else ""
        return (f"exit {self.code}, {self.field('code')} at stage {self.field('stage')}{cause}")


def run_check(check, module, device_args, label):
    """The check with DEVICE_ARGS --import MODULE; a run that outlives RUN_TIMEOUT_S is ended as
    an interrupt ends it (SIGTERM: the check ends its worker), then killed."""
    process = subprocess.Popen([check, *device_args, "--import", module],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, errors="replace")
    try:
        stdout, stderr = process.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGTERM)
        try:
            stdout, stderr = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            stdout, stderr = process.communicate()
        stderr += f"\nstopped by the application case after {RUN_TIMEOUT_S} s"
    return Run(label.format(module=module), process.returncode, stdout, stderr)


def extension_of(run, module):
    """MODULE's entry in the run's application.extensions, or {}."""
    application = run.field("application") or {}
    return next((e for e in application.get("extensions") or [] if e.get("module") == module), {})


def imported_words(run, module):
    """'torchvision 0.29.2 (requires torch>=2.14.0) with torch 2.15.0+cu132'."""
    entry = extension_of(run, module)
    made = " ".join(str(entry[k]) for k in ("distribution", "version") if entry.get(k))
    words = made or "no distribution"
    if entry.get("requires_torch"):
        words += f" (requires torch{entry['requires_torch']})"
    torch = (run.field("pytorch") or {}).get("version")
    return words + (f" with torch {torch}" if torch else "")


def verdict(module, cpu, default):
    """(passed, the run the verdict rests on, the verdict's line)."""
    for run in (cpu, default):
        if run.failed_in_application():
            return False, run, (f"{module} failed in layer {LAYER}, {run.error('type')}: "
                                f"{run.field('message')}")
    for run in (cpu, default):
        if run.report is None:  # the case's report is then the other run's, where it left one
            return False, cpu if cpu.report else default, (
                f"{module} was not certified: the check left no report "
                f"({run.label}: {run.answer()})")
    if not cpu.passed():
        return False, cpu, (f"{module} was not imported: the check failed before the "
                            f"{LAYER} layer, in layer {cpu.field('stage')}, "
                            f"{cpu.error('type') or cpu.field('code')}: {cpu.field('message')}")
    line = f"{module} imported: {imported_words(cpu, module)}, with --device cpu"
    if default.passed():
        return True, cpu, line + " and with the default device"
    return True, cpu, (line + f"; the default device did not reach the {LAYER} layer "
                       f"({default.answer()}): the cases of layer {default.field('stage')} "
                       f"answer for it")


def report_names(module, decisive, runs):
    """Each run's report file name: the decisive run's is the case's own."""
    own = f"{LAYER}.{module}"
    return {name: f"{own}.json" if run is decisive else f"{own}.{name}.json"
            for name, run in runs.items()}


def run_case(check, out, module):
    runs = {name: run_check(check, module, args, label) for name, args, label in RUNS}
    passed, decisive, line = verdict(module, runs["cpu-run"], runs["default-run"])
    files = report_names(module, decisive, runs)
    cases = pathlib.Path(out) / "cases"
    cases.mkdir(parents=True, exist_ok=True)
    print(f"the check imports {module} after its computation, in the interpreter and torch it "
          f"ran it with, once with --device cpu, once with the default device")
    for name, run in runs.items():
        shown = f"report cases/{files[name]}" if run.report else "no report"
        print(f"{run.label}: {run.answer()}; {shown}")
        if run.report:
            (cases / files[name]).write_text(run.stdout)
            print(f"  {run.field('message')}")
        if run.report and run is not runs["cpu-run"] and not run.passed() and \
                not run.failed_in_application():
            print(f"  before the {LAYER} layer: not this case's to answer for")
    print(line)
    return 0 if passed else 1


def main(argv):
    try:
        if len(argv) >= 2 and argv[1] == "names":
            print("\n".join(names(argv[2:])))
        elif len(argv) >= 5 and argv[1] == "register":
            register(argv[2], argv[3], argv[4], names(argv[5:]))
        elif len(argv) == 5 and argv[1] == "run":
            return run_case(argv[2], argv[3], argv[4])
        else:
            sys.exit(__doc__)
    except (ValueError, OSError) as e:
        print(f"{os.path.basename(argv[0])}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
