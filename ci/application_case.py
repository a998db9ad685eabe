#!/usr/bin/env python3
"""The application cases of KIT/run OUT --import MODULE... --weights FILE... --dtype NAME...
--compile and of ci/conformance (KERNODECK_IMPORTS, KERNODECK_WEIGHTS, KERNODECK_DTYPES,
KERNODECK_COMPILE): one case per module of the application, one per weights file it loads, one
per precision it computes in and one for torch.compile, run by CTest with the conformance suite, so that the certificate (junit.xml,
summary.md, index.html) holds each as it holds every case, through the same report tool. Standard
library only: the image under test may hold nothing else.

ASKED below is what the check is asked, as its own options say it: --import MODULE,
--weights FILE and --dtype NAME, each repeatable, and --compile, in any order.

  application_case.py asked ASKED...
      prints ASKED as the cases take it, one word a line: each module once, in the order given;
      each file once, as an absolute path (a relative one is taken from the folder this runs in,
      as the check would take it there). Exit 2 naming the first that cannot be asked: a module
      that is not a module's dotted Python name (the check's own rule); an empty file name, one
      ending in '/' or whose base name is '.' or '..' (a folder's), one with a control character,
      or two files of one base name (the base name names the file's case); so that KIT/run
      refuses it before it writes anything. --compile is printed once, alone on its line.
  application_case.py register TREE CHECK OUT ASKED...
      adds the case of each module and file to TREE, the run's copy of CTest's files or a build
      tree whose next configure writes them anew (its suites/ folder; labels conformance and
      application, so that the suite's CTest run runs it among its own cases), each running
      `run`. They come first: CTest starts them before the suite's cases, so that a run stopped by
      its time limit has certified them. A module's case is application.import/MODULE, in the
      certificate classname kernodeck.application and name MODULE; a file's is
      application.weights/weights-NAME (NAME its base name), name weights-NAME: a '-' is never in
      a module's name, so no file's case takes a module's. A case named as one of the suite's own
      cases of that layer is refused (exit 2).
  application_case.py run CHECK OUT --import MODULE
      MODULE's case: the check CHECK run twice, --device cpu --import MODULE then --import MODULE
      on the default device, in this process's environment (the image's python3 and torch, or the
      interpreter KERNODECK_TORCH_PYTHON names). The case fails when a run failed in the
      application layer (the module's import: its cause, error.type, and the report's message
      say why and what to do), or when the --device cpu run did not reach that layer (the layer
      that broke is named; its own cases answer for it). The default device failing before the
      application layer (no GPU, a GPU the suite's device cases fail for) leaves the verdict to
      the --device cpu run. The report the verdict rests on is OUT/cases/application.MODULE.json
      (the --device cpu run's, unless only the default device's run failed in the application
      layer), the other run's beside it (application.MODULE.default-run.json or
      application.MODULE.cpu-run.json: a '-' is never in a module's name).
  application_case.py run CHECK OUT --compile
      torch.compile's case, compile.kit/torch_compile (in the certificate kernodeck.compile,
      torch_compile): the check run twice, --device cpu --compile (inductor's C++ toolchain) then
      --compile on the default device (triton's on a GPU), each within COMPILE_RUN_TIMEOUT_S,
      weighed as a module's runs are, in the compile layer: the case fails when a run failed at
      stage compile (COMPILE_FAILED: what the toolchain lacks, and what to install) or the
      --device cpu run did not reach it. Its report is OUT/cases/compile.torch_compile.json.
  application_case.py run CHECK OUT --dtype NAME
      NAME's case, application.dtype/dtype-NAME (in the certificate kernodeck.application,
      dtype-NAME): the check run twice, --dtype NAME on the default device then --device cpu
      --dtype NAME; the verdict rests on the default device's run where it reached the
      application layer (a GPU: where the application computes in NAME), else on the CPU's. The
      case fails when that run failed in the application layer (a precision the GPU or this torch
      cannot compute in, its cause and next action; wrong numbers) or did not reach it, and passes
      when the report lists NAME verified. Its report is OUT/cases/application.dtype-NAME.json.
  application_case.py run CHECK OUT --weights FILE
      FILE's case: the check run once, --device cpu --weights FILE, without the modules asked
      (each case asks one thing). The check opens weights on the CPU whatever the device
      (map_location="cpu"), so a run on the default device would read the file again and say
      nothing more of it. The case fails when the run failed in the application layer (the file:
      its cause and message, WEIGHTS_UNUSABLE) or did not reach it, and passes when the report
      lists the file verified. Its report is OUT/cases/application.weights-NAME.json. Its lines
      name the file by its base name, as the check's report does: its folder is the machine's.
  Each case prints what each run of the check answered and, last, the verdict in one line, which
  the certificate quotes. Exit 0 when the case passed, 1 when it failed.
"""
import json
import os
import pathlib
import re
import signal
import subprocess
import sys

LAYER = "application"
# The check's own rule for --import (check/run/cli.cpp, is_module_name).
MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
MODULE_NAME_LIMIT = 200
# Up to two runs of the check (a module's case), each within its own 30 s worker limit and as
# long again for its look at damaged files after a failure; CTest stops the case after this many
# seconds.
CASE_TIMEOUT_S = 180
RUN_TIMEOUT_S = 80
# A first torch.compile takes tens of seconds on a small machine (README, --compile): the check
# is given this less 20 s as its --timeout, the most it takes (120).
COMPILE_RUN_TIMEOUT_S = 140


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


def not_reached(layer, default):
    """What a case passed on the CPU says of its default device's run that stopped before
    `layer`: the layer it stopped in answers for it."""
    return (f"; the default device did not reach the {layer} layer ({default.answer()}): the "
            f"cases of layer {default.field('stage')} answer for it")


class Module:
    """A module of the application (--import MODULE): its case imports it."""
    option = "--import"
    layer = LAYER
    run_timeout_s, case_timeout_s = RUN_TIMEOUT_S, CASE_TIMEOUT_S
    # The case's CTest name, as the suite names its own ("<layer>.run/<id>"); the certificate's
    # classname is the part before the first '.', its name (the case's id) the part after the
    # last '/'.
    ctest = LAYER + ".import/{id}"
    # The ways the case runs the check: the name in its report's file name, the arguments before
    # --import MODULE, and how its lines name it.
    runs = (("cpu-run", ["--device", "cpu"], "--device cpu --import {shown}"),
            ("default-run", [], "--import {shown} (the default device)"))
    done = "imported"

    def __init__(self, module):
        self.asked = self.id = self.shown = names([module])[0]

    def arguments(self):
        return [self.option, self.asked]

    def intro(self):
        return (f"the check imports {self.shown} after its computation, in the interpreter and "
                f"torch it ran it with, once with --device cpu, once with the default device")

    def certified(self, cpu, default):
        """(passed, decisive run, line) of the runs that reached the layer without failing."""
        line = f"{self.shown} imported: {imported_words(cpu, self.asked)}, with --device cpu"
        if default.passed():
            return True, cpu, line + " and with the default device"
        return True, cpu, line + not_reached(LAYER, default)


def _utf8(text):
    """Whether `text` can be written as UTF-8 (an argument that is not holds lone surrogates)."""
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


class WeightsFile:
    """A weights file of the application (--weights FILE): its case opens it as the application
    loads it. `asked` is its absolute path; the case's lines and id name its base name only."""
    option = "--weights"
    layer = LAYER
    run_timeout_s, case_timeout_s = RUN_TIMEOUT_S, CASE_TIMEOUT_S
    ctest = LAYER + ".weights/{id}"
    runs = (("cpu-run", ["--device", "cpu"], "--device cpu --weights .../{shown}"),)
    done = "opened"

    def __init__(self, path, cwd=None):
        if not path:
            raise ValueError("--weights needs a file name")
        if any(ord(c) < 32 or ord(c) == 127 for c in path) or not _utf8(path):
            raise ValueError(f"--weights takes a file's path in UTF-8 without control "
                             f"characters, not {path!r}")
        self.shown = path.rstrip("/").rpartition("/")[2]
        if path.endswith("/") or self.shown in ("", ".", ".."):
            raise ValueError(f"--weights takes a weights file's path, not '{path}', which names "
                             "a folder")
        absolute = path if path.startswith("/") else f"{cwd or os.getcwd()}/{path}"
        # '.' and repeated '/' dropped; '..' kept: the system resolves it through links as written.
        self.asked = "/" + "/".join(p for p in absolute.split("/") if p not in ("", "."))
        self.id = "weights-" + self.shown

    def arguments(self):
        return [self.option, self.asked]

    def intro(self):
        return (f"the check opens the weights file {self.shown} after its computation, as the "
                f"application loads it, in the interpreter and torch it ran it with, with "
                f"--device cpu (weights are opened on the CPU whatever the device)")

    def certified(self, cpu):
        entry = ((cpu.field(LAYER) or {}).get("weights") or [{}])[0]
        if entry.get("verified") is not True:
            return False, cpu, (f"{self.shown} was not verified: the check passed, and its "
                                f"report's {LAYER}.weights does not list the file verified")
        dtypes = ", ".join(str(d) for d in entry.get("dtypes") or [])
        torch = (cpu.field("pytorch") or {}).get("version")
        return True, cpu, (f"{self.shown} verified: {entry.get('format')}, "
                           f"{entry.get('tensors')} tensors" + (f" ({dtypes})" if dtypes else "")
                           + f", {entry.get('bytes')} bytes"
                           + (f", with torch {torch}" if torch else "") + ", with --device cpu")


class Compiled:
    """torch.compile (--compile): its case runs the computation through it, as the application
    does at its start, with the image's toolchain."""
    option = "--compile"
    layer = "compile"
    run_timeout_s, case_timeout_s = COMPILE_RUN_TIMEOUT_S, 2 * COMPILE_RUN_TIMEOUT_S + 20
    ctest = "compile.kit/{id}"
    timeout = ["--timeout", str(COMPILE_RUN_TIMEOUT_S - 20)]
    runs = (("cpu-run", ["--device", "cpu", *timeout], "--device cpu --compile"),
            ("default-run", timeout, "--compile (the default device)"))
    done = "compiled"

    def __init__(self, _=""):
        self.asked, self.id, self.shown = "", "torch_compile", "torch.compile"

    def arguments(self):
        return [self.option]

    def intro(self):
        return ("the check runs its computation a second time through torch.compile after the "
                "eager one, in the interpreter and torch it ran it with, with the image's "
                "toolchain: once with --device cpu (inductor's C++), once with the default device "
                "(triton on a GPU)")

    def certified(self, cpu, default):
        def words(run):
            compiled = (run.field("execution") or {}).get("compile") or {}
            return f"backend {compiled.get('backend')}, {compiled.get('seconds')} s"
        line = f"torch.compile verified: {words(cpu)} with --device cpu"
        if default.passed():
            device = (default.field("execution") or {}).get("device")
            return True, cpu, line + f"; {words(default)} with the default device ({device})"
        return True, cpu, line + not_reached(self.layer, default)


# The check's --dtype names (check/run/cli.hpp, kPrecisions).
PRECISIONS = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float32", "float64")


class Precision:
    """A precision of the application (--dtype NAME): its case has the check compute in it after
    its computation, on the default device (the GPU: where the application computes), or with
    --device cpu where the default device does not reach the application layer (no GPU: the
    device's own cases answer for it)."""
    option = "--dtype"
    layer = LAYER
    run_timeout_s, case_timeout_s = RUN_TIMEOUT_S, CASE_TIMEOUT_S
    ctest = LAYER + ".dtype/{id}"
    runs = (("default-run", [], "--dtype {shown} (the default device)"),
            ("cpu-run", ["--device", "cpu"], "--device cpu --dtype {shown}"))
    done = "computed in"

    def __init__(self, name):
        if name not in PRECISIONS:
            raise ValueError(f"--dtype takes one of {', '.join(PRECISIONS)}, not '{name}'")
        self.asked = self.shown = name
        self.id = "dtype-" + name

    def arguments(self):
        return [self.option, self.asked]

    def intro(self):
        return (f"the check computes in {self.shown} after its computation, product, loss and "
                f"gradient verified, on the default device, or with --device cpu where the "
                f"default device does not reach the application layer")

    def judge(self, default, cpu):
        """(passed, decisive run, line): the default device's run where it reached the layer,
        else the --device cpu run's."""
        reached = default.report is not None and (default.passed() or
                                                  default.failed_in(LAYER))
        run = default if reached else cpu
        short = shortfall(self, (run,), named=True)
        if short:
            return short
        entry = next((p for p in (run.field(LAYER) or {}).get("precisions") or []
                      if p.get("dtype") == self.asked), {})
        if entry.get("verified") is not True:
            return False, run, (f"{self.shown} was not verified: the check passed, and its "
                                f"report's {LAYER}.precisions does not list it verified")
        torch = (run.field("pytorch") or {}).get("version")
        line = (f"{self.shown} verified on {entry.get('device')}"
                + (f" with torch {torch}" if torch else ""))
        return True, run, line + ("" if reached else not_reached(LAYER, default))


KINDS = {kind.option: kind for kind in (Module, WeightsFile, Compiled, Precision)}


def parse(words):
    """The (option, value) pairs of ASKED words (--compile's value ""); a ValueError for any
    other word."""
    words, pairs = list(words), []
    while words:
        option = words.pop(0)
        if option not in KINDS:
            raise ValueError(f"'{option}' is neither --import MODULE, --weights FILE, "
                             "--dtype NAME nor --compile")
        if option == Compiled.option:
            pairs.append((option, ""))
            continue
        if not words:
            raise ValueError(f"{option} needs a value")
        pairs.append((option, words.pop(0)))
    return pairs


def asked(pairs, cwd=None):
    """The case of each (option, value), each asked once, in order; a ValueError naming the first
    that cannot be asked, or two files whose cases would have one name."""
    cases = []
    for option, value in pairs:
        case = WeightsFile(value, cwd) if option == WeightsFile.option else KINDS[option](value)
        same = next((c for c in cases if c.id == case.id), None)
        if same is None:
            cases.append(case)
        elif same.asked != case.asked:
            raise ValueError(f"--weights {same.asked} and {case.asked}: two files of one base "
                             f"name, which names a file's case; certify them in separate runs, "
                             f"or under different names")
    return cases


def words_of(cases):
    """The ASKED words of `cases`, as `asked` prints them."""
    return [word for case in cases for word in case.arguments()]


def bracket(text):
    """`text` as one CMake bracket argument, whatever it holds."""
    level = 1
    # The argument ends at the first "]=...=]" of its level, which must be the one put after it.
    while (text + f"]{'=' * level}]").find(f"]{'=' * level}]") != len(text):
        level += 1
    return f"[{'=' * level}[{text}]{'=' * level}]"


def ctest_lines(program, python, check, out, case):
    """The add_test and set_tests_properties lines of the case."""
    name = bracket(case.ctest.format(id=case.id))
    command = " ".join(bracket(part) for part in
                       (python, program, "run", check, out, *case.arguments()))
    timeout = case.case_timeout_s
    return (f"add_test({name} {command})\n"
            f"set_tests_properties({name} PROPERTIES LABELS "
            f"{bracket('conformance;' + case.layer)} TIMEOUT {timeout})\n")


def suite_case_ids(suites):
    """The (layer, id) of the suite's own cases (add_test([=[application.run/ID]=] ...)): in the
    certificate a case of the same layer and id would stand for one of them."""
    found = set()
    for path in pathlib.Path(suites).glob("*.cmake"):
        found.update(re.findall(r"add_test\(\[=*\[([a-z_]+)\.run/([^]]+)\]",
                                path.read_text(errors="replace")))
    return found


def register(tree, check, out, cases):
    testfile = pathlib.Path(tree) / "suites" / "CTestTestfile.cmake"
    if not testfile.is_file():
        raise FileNotFoundError(f"{testfile} is not there: the kit's suite has no suites/ folder")
    ids = suite_case_ids(testfile.parent)
    taken = next((case for case in cases if (case.layer, case.id) in ids), None)
    if taken:
        raise ValueError(f"{taken.option} {taken.id}: the suite has a case of that name in the "
                         f"{taken.layer} layer, whose certificate entry and report this one's "
                         "would take")
    program = os.path.abspath(__file__)
    lines = "".join(ctest_lines(program, sys.executable, check, out, case) for case in cases)
    testfile.write_text("# The application cases of this run (KIT/run --import, --weights, "
                        "--dtype, --compile).\n" +
                        lines + testfile.read_text())


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

    def failed_in(self, layer):
        return not self.passed() and self.field("stage") == layer

    def answer(self):
        """What the run answered, in one line without its message."""
        if self.report is None:
            return (f"exit {self.code}, no report on standard output"
                    + (f" (standard error: {self.stderr_line})" if self.stderr_line else ""))
        cause = f" ({self.error('type')})" if self.error("type") else ""
        return (f"exit {self.code}, {self.field('code')} at stage {self.field('stage')}{cause}")


def run_check(check, arguments, label, limit_s=RUN_TIMEOUT_S):
    """The check with ARGUMENTS; a run that outlives `limit_s` is ended as an interrupt ends
    it (SIGTERM: the check ends its worker), then killed."""
    process = subprocess.Popen([check, *arguments],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, errors="replace")
    try:
        stdout, stderr = process.communicate(timeout=limit_s)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGTERM)
        try:
            stdout, stderr = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            stdout, stderr = process.communicate()
        stderr += f"\nstopped by the application case after {limit_s} s"
    return Run(label, process.returncode, stdout, stderr)


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


def shortfall(case, runs, named=False):
    """(False, the run the verdict rests on, the verdict's line) for the first way the runs fall
    short before the case's own judgement: one failed in the layer, one left no report, the first
    failed before the layer; None where none did. `named`: the line names the run that failed in
    the layer."""
    first, shown, layer = runs[0], case.shown, case.layer
    for run in runs:
        if run.failed_in(layer):
            which = f" ({run.label})" if named else ""
            return False, run, (f"{shown} failed in layer {layer}{which}, {run.error('type')}: "
                                f"{run.field('message')}")
    for run in runs:
        if run.report is None:  # the case's report is then another run's, where one left it
            return False, next((r for r in runs if r.report), first), (
                f"{shown} was not certified: the check left no report "
                f"({run.label}: {run.answer()})")
    if not first.passed():
        return False, first, (f"{shown} was not {case.done}: the check failed before the "
                              f"{layer} layer, in layer {first.field('stage')}, "
                              f"{first.error('type') or first.field('code')}: "
                              f"{first.field('message')}")
    return None


def verdict(case, *runs):
    """(passed, the run the verdict rests on, the verdict's line), of the case's runs in the
    order of its `runs`: the first is the --device cpu run."""
    if hasattr(case, "judge"):
        return case.judge(*runs)
    return shortfall(case, runs) or case.certified(*runs)


def report_names(case, decisive, runs):
    """Each run's report file name: the decisive run's is the case's own."""
    own = f"{case.layer}.{case.id}"
    return {name: f"{own}.json" if run is decisive else f"{own}.{name}.json"
            for name, run in runs.items()}


def run_case(check, out, case):
    runs = {name: run_check(check, [*args, *case.arguments()], label.format(shown=case.shown),
                            case.run_timeout_s)
            for name, args, label in case.runs}
    passed, decisive, line = verdict(case, *runs.values())
    files = report_names(case, decisive, runs)
    cases = pathlib.Path(out) / "cases"
    cases.mkdir(parents=True, exist_ok=True)
    print(case.intro())
    first = next(iter(runs.values()))
    for name, run in runs.items():
        shown = f"report cases/{files[name]}" if run.report else "no report"
        print(f"{run.label}: {run.answer()}; {shown}")
        if run.report:
            (cases / files[name]).write_text(run.stdout)
            print(f"  {run.field('message')}")
        if run.report and run is not first and not run.passed() and \
                not run.failed_in(case.layer):
            print(f"  before the {case.layer} layer: not this case's to answer for")
    print(line)
    return 0 if passed else 1


def main(argv):
    try:
        if len(argv) >= 2 and argv[1] == "asked":
            print("\n".join(words_of(asked(parse(argv[2:])))))
        elif len(argv) >= 5 and argv[1] == "register":
            register(argv[2], argv[3], argv[4], asked(parse(argv[5:])))
        elif len(argv) in (5, 6) and argv[1] == "run" and len(asked(parse(argv[4:]))) == 1:
            return run_case(argv[2], argv[3], asked(parse(argv[4:]))[0])
        else:
            sys.exit(__doc__)
    except (ValueError, OSError) as e:
        print(f"{os.path.basename(argv[0])}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
