#!/usr/bin/env python3
"""Tests of application_case.py (python3 ci/application_case_test.py)."""
import contextlib
import io
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import application_case as ac  # noqa: E402

# A stand-in for the check: what it answers for --device cpu and for the default device comes
# from FAKE_ANSWERS ({"cpu": [exit, report or text], "default": [...]}); it adds its arguments
# to the file FAKE_CALLS names, a JSON list a line.
FAKE_CHECK = """#!{python}
import json, os, sys
answers = json.loads(os.environ["FAKE_ANSWERS"])
with open(os.environ["FAKE_CALLS"], "a") as calls:
    calls.write(json.dumps(sys.argv[1:]) + "\\n")
code, report = answers["cpu" if "cpu" in sys.argv else "default"]
assert sys.argv[-2] in ("--import", "--weights", "--dtype") or sys.argv[-1] == "--compile"
print(report if isinstance(report, str) else json.dumps(report))
print("kernodeck-diagnostic: a verdict line", file=sys.stderr)
sys.exit(code)
"""


def report(code, stage, error_type=None, message="what happened. What to do.", extensions=None,
           weights=None):
    application = None
    if extensions is not None or weights is not None:
        application = {"extensions": extensions or [], "weights": weights or []}
    return {"tool": {"name": "kernodeck-diagnostic"}, "code": code, "stage": stage,
            "status": "passed" if stage == "complete" else "failed", "message": message,
            "pytorch": {"version": "2.15.0+cu132"}, "application": application,
            "error": {"type": error_type} if error_type else None}


TORCHVISION = [{"module": "torchvision", "distribution": "torchvision", "version": "0.29.2",
                "requires_torch": ">=2.14.0", "imported": True}]
CPU_PASS = [0, report("CPU_CHECK_PASSED", "complete", extensions=TORCHVISION)]
GPU_PASS = [0, report("GPU_CHECK_PASSED", "complete", extensions=TORCHVISION)]
NO_GPU = [6, report("GPU_UNAVAILABLE", "device", "NoDriver", "No usable GPU.")]
FOR_OTHER_TORCH = report("EXTENSION_IMPORT_FAILED", "application", "ExtensionForOtherTorch",
                         "torchvision is made for torch==2.9.1. Let pip choose.")


class Names(unittest.TestCase):
    def test_each_module_once_in_the_order_given(self):
        self.assertEqual(ac.names(["torchvision", "torchvision.ops", "_x1", "torchvision"]),
                         ["torchvision", "torchvision.ops", "_x1"])

    def test_what_the_check_refuses_is_refused(self):
        for wrong in ("", "torch vision", "1x", "a..b", "a.", ".a", "a-b", "a/b", "é", "a" * 201):
            with self.subTest(wrong=wrong), self.assertRaisesRegex(ValueError, "dotted Python"):
                ac.names(["torchvision", wrong])

    def test_a_usage_error_is_exit_2_on_one_line(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(ac.main(["application_case.py", "asked", "--import", "ok",
                                      "--import", "not ok"]), 2)
        self.assertEqual(err.getvalue().count("\n"), 1)
        self.assertIn("not 'not ok'", err.getvalue())


def cases(*words, cwd="/app"):
    return ac.asked(ac.parse(words), cwd)


class Asked(unittest.TestCase):
    def test_modules_and_files_each_once_in_the_order_given_files_as_absolute_paths(self):
        self.assertEqual(ac.words_of(cases(
            "--import", "torchvision", "--weights", "model.safetensors",
            "--weights", "/w/./a//b.pt",
            "--import", "torchvision", "--weights", "/app/model.safetensors",
            "--weights", "./model.safetensors")),
            ["--import", "torchvision", "--weights", "/app/model.safetensors",
             "--weights", "/w/a/b.pt"])

    def test_a_relative_file_is_taken_from_the_folder_this_runs_in_its_dotdot_kept(self):
        self.assertEqual(ac.words_of(cases("--weights", "m.pt", cwd=None)),
                         ["--weights", os.path.join(os.getcwd(), "m.pt")])
        self.assertEqual(cases("--weights", "../w/m.pt", cwd="/app/x")[0].asked,
                         "/app/x/../w/m.pt")

    def test_a_files_case_is_named_weights_and_its_base_name_never_a_modules_name(self):
        module, weights = cases("--import", "model.safetensors", "--weights",
                                "/models/model.safetensors")
        self.assertEqual((module.id, weights.id),
                         ("model.safetensors", "weights-model.safetensors"))
        self.assertEqual(weights.ctest.format(id=weights.id),
                         "application.weights/weights-model.safetensors")
        self.assertIsNone(ac.MODULE_NAME.fullmatch(weights.id))

    def test_what_names_no_file_is_refused(self):
        for wrong, words in (("", "needs a file name"), ("models/", "names a folder"),
                             (".", "names a folder"), ("a/..", "names a folder"),
                             ("/", "names a folder"), ("a\nb.pt", "control characters"),
                             ("a\tb.pt", "control characters"),
                             ("a\udcffb.pt", "control characters")):
            with self.subTest(wrong=wrong), self.assertRaisesRegex(ValueError, words):
                cases("--weights", "ok.pt", "--weights", wrong)

    def test_two_files_of_one_base_name_are_refused(self):
        with self.assertRaisesRegex(ValueError, "--weights /a/model.pt and /app/b/model.pt: "
                                                "two files of one base name"):
            cases("--weights", "/a/model.pt", "--weights", "b/model.pt")

    def test_words_that_ask_nothing_are_refused(self):
        for words in (["torchvision"], ["--import"], ["--weights=m.pt"]):
            with self.subTest(words=words), self.assertRaises(ValueError):
                ac.parse(words)

    def test_asked_prints_a_word_a_line_and_refuses_in_one_line(self):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(ac.main(["application_case.py", "asked", "--weights", "/m/a.pt",
                                      "--import", "PIL"]), 0)
        self.assertEqual(out.getvalue(), "--weights\n/m/a.pt\n--import\nPIL\n")
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(ac.main(["application_case.py", "asked", "--weights", ""]), 2)
        self.assertEqual(err.getvalue(), "application_case.py: --weights needs a file name\n")


class Register(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.tree = pathlib.Path(self._dir.name) / "tree"
        (self.tree / "suites").mkdir(parents=True)
        (self.tree / "CTestTestfile.cmake").write_text('subdirs("suites")\n')
        (self.tree / "suites" / "CTestTestfile.cmake").write_text(
            'set_directory_properties(PROPERTIES LABELS "conformance")\n')

    def tearDown(self):
        self._dir.cleanup()

    def test_a_bracket_argument_holds_any_text(self):
        self.assertEqual(ac.bracket("/a b;c"), "[=[/a b;c]=]")
        self.assertEqual(ac.bracket("x]=]y]==]"), "[===[x]=]y]==]]===]")
        self.assertEqual(ac.bracket("x]="), "[==[x]=]==]")

    def test_one_case_per_module_in_the_suites_folder(self):
        ac.register(self.tree, "/k it/bin/check", "/o]=]ut",
                    cases("--import", "torchvision", "--import", "torchvision.ops"))
        text = (self.tree / "suites" / "CTestTestfile.cmake").read_text()
        self.assertIn("add_test([=[application.import/torchvision]=] ", text)
        self.assertTrue(text.startswith("# The application cases"))
        self.assertTrue(text.endswith('PROPERTIES LABELS "conformance")\n'))
        self.assertIn("[=[run]=] [=[/k it/bin/check]=] [==[/o]=]ut]==] [=[--import]=] "
                      "[=[torchvision.ops]=])", text)
        self.assertEqual(text.count(f"TIMEOUT {ac.CASE_TIMEOUT_S})"), 2)

    def test_one_case_per_weights_file_beside_the_modules(self):
        ac.register(self.tree, "/kit/bin/check", "/out",
                    cases("--weights", "/m]=]/model.safetensors", "--import", "PIL"))
        text = (self.tree / "suites" / "CTestTestfile.cmake").read_text()
        self.assertIn("add_test([=[application.weights/weights-model.safetensors]=] ", text)
        self.assertIn("[=[run]=] [=[/kit/bin/check]=] [=[/out]=] [=[--weights]=] "
                      "[==[/m]=]/model.safetensors]==])", text)
        self.assertLess(text.index("weights-model.safetensors"), text.index("import/PIL"))

    @unittest.skipIf(shutil.which("ctest") is None, "no ctest on PATH")
    def test_ctest_lists_them_with_the_conformance_label(self):
        ac.register(self.tree, "/kit/bin/check", "/out",
                    cases("--import", "torchvision", "--import", "torchvision.ops",
                          "--weights", "/models/model v1.safetensors"))
        listed = json.loads(subprocess.run(
            ["ctest", "--test-dir", str(self.tree), "-L", "^conformance$", "--show-only=json-v1"],
            check=True, capture_output=True, text=True).stdout)["tests"]
        self.assertEqual([t["name"] for t in listed],
                         ["application.import/torchvision", "application.import/torchvision.ops",
                          "application.weights/weights-model v1.safetensors"])
        self.assertEqual(listed[1]["command"][1:],
                         [ac.__file__, "run", "/kit/bin/check", "/out", "--import",
                          "torchvision.ops"])
        self.assertEqual(listed[2]["command"][1:],
                         [ac.__file__, "run", "/kit/bin/check", "/out", "--weights",
                          "/models/model v1.safetensors"])
        for case in listed:
            labels = {p["name"]: p["value"] for p in case["properties"]}["LABELS"]
            self.assertEqual(sorted(labels), ["application", "conformance"])

    def test_a_module_named_as_a_case_of_the_suites_layer_is_refused(self):
        (self.tree / "suites" / "conformance_application[1]_tests.cmake").write_text(
            "add_test([=[application.run/kd_case]=]  /suite/conformance_application)\n")
        with self.assertRaisesRegex(ValueError, "--import kd_case: the suite has a case"):
            ac.register(self.tree, "/kit/bin/check", "/out",
                        cases("--import", "torchvision", "--import", "kd_case"))
        ac.register(self.tree, "/kit/bin/check", "/out", cases("--import", "kd_case2"))

    def test_a_tree_without_the_suite_is_refused(self):
        (self.tree / "suites" / "CTestTestfile.cmake").unlink()
        with self.assertRaises(FileNotFoundError):
            ac.register(self.tree, "/kit/bin/check", "/out", cases("--import", "torchvision"))

    def test_register_takes_what_asked_printed(self):
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(ac.main(["application_case.py", "register", str(self.tree),
                                      "/kit/bin/check", "/out", "--import", "PIL",
                                      "--weights", "/m/a.pt"]), 0)
        text = (self.tree / "suites" / "CTestTestfile.cmake").read_text()
        self.assertIn("[=[application.import/PIL]=]", text)
        self.assertIn("[=[application.weights/weights-a.pt]=]", text)


class CompileRegister(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.tree = pathlib.Path(self._dir.name)
        (self.tree / "suites").mkdir()
        (self.tree / "suites" / "CTestTestfile.cmake").write_text("")

    def tearDown(self):
        self._dir.cleanup()

    def test_compile_is_asked_once_alone_on_its_line(self):
        self.assertEqual(ac.words_of(cases("--compile", "--import", "PIL", "--compile")),
                         ["--compile", "--import", "PIL"])

    def test_its_case_is_of_the_compile_layer_with_room_for_two_compiles(self):
        ac.register(self.tree, "/kit/bin/check", "/out", cases("--import", "PIL", "--compile"))
        text = (self.tree / "suites" / "CTestTestfile.cmake").read_text()
        self.assertIn("add_test([=[compile.kit/torch_compile]=] ", text)
        self.assertIn("[=[run]=] [=[/kit/bin/check]=] [=[/out]=] [=[--compile]=])", text)
        self.assertIn('LABELS [=[conformance;compile]=] TIMEOUT '
                      f'{2 * ac.COMPILE_RUN_TIMEOUT_S + 20})', text)

    def test_a_case_of_the_suites_compile_layer_is_no_module(self):
        (self.tree / "suites" / "conformance_compile[1]_tests.cmake").write_text(
            "add_test([=[compile.run/torch_compile]=]  /suite/conformance_compile)\n")
        with self.assertRaisesRegex(ValueError, "--compile torch_compile: the suite has a case "
                                                "of that name in the compile layer"):
            ac.register(self.tree, "/kit/bin/check", "/out", cases("--compile"))
        ac.register(self.tree, "/kit/bin/check", "/out", cases("--import", "torch_compile"))


class CheckStandIn(unittest.TestCase):
    """A case run with the stand-in for the check."""

    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self._dir.name)
        self.check = self.root / "check"
        self.check.write_text(FAKE_CHECK.format(python=sys.executable))
        self.check.chmod(0o755)
        os.environ["FAKE_CALLS"] = str(self.root / "calls")

    def tearDown(self):
        self._dir.cleanup()
        os.environ.pop("FAKE_ANSWERS", None)
        os.environ.pop("FAKE_CALLS", None)

    def run_case(self, cpu, default, asked=("--import", "torchvision")):
        os.environ["FAKE_ANSWERS"] = json.dumps({"cpu": cpu, "default": default})
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = ac.run_case(str(self.check), str(self.root / "out"), cases(*asked)[0])
        files = sorted(p.name for p in (self.root / "out" / "cases").iterdir())
        return status, out.getvalue().splitlines(), files

    def calls(self):
        return [json.loads(line) for line in (self.root / "calls").read_text().splitlines()]


class RunCase(CheckStandIn):
    def own_report(self):
        own = self.root / "out" / "cases" / "application.torchvision.json"
        return json.loads(own.read_text())

    def test_imported_on_both_devices_passes(self):
        status, lines, files = self.run_case(CPU_PASS, GPU_PASS)
        self.assertEqual(status, 0)
        self.assertEqual(self.calls(), [["--device", "cpu", "--import", "torchvision"],
                                        ["--import", "torchvision"]])
        self.assertEqual(lines[-1], "torchvision imported: torchvision 0.29.2 (requires "
                                    "torch>=2.14.0) with torch 2.15.0+cu132, with --device cpu "
                                    "and with the default device")
        self.assertEqual(files, ["application.torchvision.default-run.json",
                                 "application.torchvision.json"])
        self.assertEqual(self.own_report()["code"], "CPU_CHECK_PASSED")

    def test_a_default_device_that_stops_before_the_layer_leaves_the_verdict_to_the_cpu(self):
        status, lines, _ = self.run_case(CPU_PASS, NO_GPU)
        self.assertEqual(status, 0)
        self.assertIn("--import torchvision (the default device): exit 6, GPU_UNAVAILABLE at "
                      "stage device (NoDriver); report "
                      "cases/application.torchvision.default-run.json", lines)
        self.assertIn("  before the application layer: not this case's to answer for", lines)
        self.assertTrue(lines[-1].endswith("; the default device did not reach the application "
                                           "layer (exit 6, GPU_UNAVAILABLE at stage device "
                                           "(NoDriver)): the cases of layer device answer for it"))

    def test_an_import_that_fails_fails_the_case_with_its_cause_and_message(self):
        status, lines, files = self.run_case([13, FOR_OTHER_TORCH], NO_GPU)
        self.assertEqual(status, 1)
        self.assertEqual(lines[-1], "torchvision failed in layer application, "
                                    "ExtensionForOtherTorch: torchvision is made for "
                                    "torch==2.9.1. Let pip choose.")
        self.assertIn("--device cpu --import torchvision: exit 13, EXTENSION_IMPORT_FAILED at "
                      "stage application (ExtensionForOtherTorch); report "
                      "cases/application.torchvision.json", lines)
        self.assertEqual(self.own_report()["error"]["type"], "ExtensionForOtherTorch")
        self.assertEqual(files, ["application.torchvision.default-run.json",
                                 "application.torchvision.json"])

    def test_an_import_failing_with_the_default_device_only_makes_its_report_the_cases(self):
        status, lines, files = self.run_case(CPU_PASS, [13, FOR_OTHER_TORCH])
        self.assertEqual(status, 1)
        self.assertTrue(lines[-1].startswith("torchvision failed in layer application, "
                                             "ExtensionForOtherTorch: "))
        self.assertEqual(files, ["application.torchvision.cpu-run.json",
                                 "application.torchvision.json"])
        self.assertEqual(self.own_report()["code"], "EXTENSION_IMPORT_FAILED")

    def test_a_check_failing_before_the_layer_fails_the_case_naming_that_layer(self):
        missing = report("TORCH_MISSING", "import", "TorchPackageMissing", "No torch.")
        status, lines, _ = self.run_case([3, missing], [3, missing])
        self.assertEqual(status, 1)
        self.assertEqual(lines[-1], "torchvision was not imported: the check failed before the "
                                    "application layer, in layer import, TorchPackageMissing: "
                                    "No torch.")

    def test_a_run_that_left_no_report_fails_the_case_and_writes_none(self):
        status, lines, files = self.run_case(CPU_PASS, [1, "Segmentation fault"])
        self.assertEqual(status, 1)
        self.assertEqual(lines[-1], "torchvision was not certified: the check left no report "
                                    "(--import torchvision (the default device): exit 1, no "
                                    "report on standard output (standard error: "
                                    "kernodeck-diagnostic: a verdict line))")
        self.assertEqual(files, ["application.torchvision.json"])


MODEL = [{"file": "model.safetensors", "format": "safetensors", "tensors": 2, "bytes": 30,
          "dtypes": ["float16", "float32"], "verified": True, "seconds": 0.0002}]
LFS_POINTER = report("WEIGHTS_UNUSABLE", "application", "WeightsGitLfsPointer",
                     "The weights file model.safetensors is a Git LFS pointer. Fetch it.",
                     weights=[dict(MODEL[0], format="git_lfs_pointer", tensors=None, bytes=None,
                                   dtypes=[], verified=False)])
WEIGHTS = ("--weights", "/models/v1/model.safetensors")


class WeightsCase(CheckStandIn):
    def own_report(self):
        own = self.root / "out" / "cases" / "application.weights-model.safetensors.json"
        return json.loads(own.read_text())

    def test_a_verified_file_passes_from_one_run_on_the_cpu_alone(self):
        status, lines, files = self.run_case([0, report("CPU_CHECK_PASSED", "complete",
                                                        weights=MODEL)], None, WEIGHTS)
        self.assertEqual(status, 0)
        self.assertEqual(self.calls(), [["--device", "cpu", "--weights",
                                         "/models/v1/model.safetensors"]])
        self.assertEqual(lines[-1], "model.safetensors verified: safetensors, 2 tensors "
                                    "(float16, float32), 30 bytes, with torch 2.15.0+cu132, "
                                    "with --device cpu")
        self.assertIn("--device cpu --weights .../model.safetensors: exit 0, CPU_CHECK_PASSED at "
                      "stage complete; report cases/application.weights-model.safetensors.json",
                      lines)
        self.assertEqual(files, ["application.weights-model.safetensors.json"])
        self.assertEqual(self.own_report()["code"], "CPU_CHECK_PASSED")

    def test_a_file_that_cannot_be_used_fails_with_its_cause_and_message(self):
        status, lines, files = self.run_case([14, LFS_POINTER], None, WEIGHTS)
        self.assertEqual(status, 1)
        self.assertEqual(lines[-1], "model.safetensors failed in layer application, "
                                    "WeightsGitLfsPointer: The weights file model.safetensors is "
                                    "a Git LFS pointer. Fetch it.")
        self.assertEqual(files, ["application.weights-model.safetensors.json"])
        self.assertEqual(self.own_report()["error"]["type"], "WeightsGitLfsPointer")

    def test_a_check_failing_before_the_layer_fails_the_case_naming_that_layer(self):
        missing = report("TORCH_MISSING", "import", "TorchPackageMissing", "No torch.")
        status, lines, _ = self.run_case([3, missing], None, WEIGHTS)
        self.assertEqual(status, 1)
        self.assertEqual(lines[-1], "model.safetensors was not opened: the check failed before "
                                    "the application layer, in layer import, "
                                    "TorchPackageMissing: No torch.")

    def test_a_pass_that_does_not_list_the_file_verified_fails(self):
        status, lines, _ = self.run_case([0, report("CPU_CHECK_PASSED", "complete", weights=[])],
                                         None, WEIGHTS)
        self.assertEqual(status, 1)
        self.assertTrue(lines[-1].startswith("model.safetensors was not verified: "))

    def test_a_run_that_left_no_report_fails_the_case_and_writes_none(self):
        status, lines, files = self.run_case([1, "Segmentation fault"], None, WEIGHTS)
        self.assertEqual(status, 1)
        self.assertEqual(lines[-1], "model.safetensors was not certified: the check left no "
                                    "report (--device cpu --weights .../model.safetensors: exit "
                                    "1, no report on standard output (standard error: "
                                    "kernodeck-diagnostic: a verdict line))")
        self.assertEqual(files, [])

    def test_its_lines_never_name_the_files_folder(self):
        _, lines, _ = self.run_case([14, LFS_POINTER], None, WEIGHTS)
        self.assertNotIn("/models/v1", "\n".join(lines))


COMPILED = {"backend": "inductor", "seconds": 21.4, "verified": True}
NO_CXX = report("COMPILE_FAILED", "compile", "CompileNoCxxCompiler",
                "torch.compile failed: inductor found no working C++ compiler. Install one.")


class CompileCase(CheckStandIn):
    def test_compiled_on_the_cpu_passes_when_the_default_device_stops_before(self):
        cpu = report("CPU_CHECK_PASSED", "complete")
        cpu["execution"] = {"device": "cpu", "compile": COMPILED}
        status, lines, files = self.run_case([0, cpu], NO_GPU, ("--compile",))
        self.assertEqual(status, 0)
        self.assertEqual(self.calls()[0], ["--device", "cpu", "--timeout",
                                           str(ac.COMPILE_RUN_TIMEOUT_S - 20), "--compile"])
        self.assertEqual(lines[-1][:66], "torch.compile verified: backend inductor, 21.4 s with "
                                         "--device cpu")
        self.assertIn("the cases of layer device answer for it", lines[-1])
        self.assertEqual(files, ["compile.torch_compile.default-run.json",
                                 "compile.torch_compile.json"])

    def test_its_timeout_is_one_the_check_accepts(self):
        # The check's --timeout is 5 to 120 (CONTRACT.md); more is a usage error, no report.
        self.assertTrue(5 <= int(ac.Compiled.timeout[1]) <= 120)

    def test_a_compile_without_its_toolchain_fails_with_its_cause_and_message(self):
        status, lines, files = self.run_case([16, NO_CXX], NO_GPU, ("--compile",))
        self.assertEqual(status, 1)
        self.assertEqual(lines[-1], "torch.compile failed in layer compile, CompileNoCxxCompiler:"
                                    " torch.compile failed: inductor found no working C++ "
                                    "compiler. Install one.")
        self.assertIn("compile.torch_compile.json", files)

def precision_report(code, stage, device, verified=True, error_type=None):
    r = report(code, stage, error_type, "what happened. What to do.", extensions=[])
    r["application"]["precisions"] = [{"dtype": "bfloat16", "device": device,
                                        "verified": verified, "seconds": 0.001}]
    return r


class PrecisionCase(CheckStandIn):
    def test_verified_on_the_gpu_passes_on_the_default_devices_run(self):
        gpu = [0, precision_report("GPU_CHECK_PASSED", "complete", "cuda:0")]
        cpu = [0, precision_report("CPU_CHECK_PASSED", "complete", "cpu")]
        status, lines, files = self.run_case(cpu, gpu, ("--dtype", "bfloat16"))
        self.assertEqual(status, 0)
        self.assertEqual(self.calls(), [["--dtype", "bfloat16"],
                                        ["--device", "cpu", "--dtype", "bfloat16"]])
        self.assertEqual(lines[-1], "bfloat16 verified on cuda:0 with torch 2.15.0+cu132")
        self.assertEqual(files, ["application.dtype-bfloat16.cpu-run.json",
                                 "application.dtype-bfloat16.json"])

    def test_without_a_gpu_the_cpu_run_decides_and_says_so(self):
        cpu = [0, precision_report("CPU_CHECK_PASSED", "complete", "cpu")]
        status, lines, _ = self.run_case(cpu, NO_GPU, ("--dtype", "bfloat16"))
        self.assertEqual(status, 0)
        self.assertTrue(lines[-1].startswith("bfloat16 verified on cpu with torch"))
        self.assertIn("the cases of layer device answer for it", lines[-1])

    def test_a_gpu_without_the_kernel_fails_even_where_the_cpu_computes(self):
        gpu = [9, precision_report("RUNTIME_ERROR", "application", "cuda:0", False,
                                   "PrecisionKernelMissing")]
        cpu = [0, precision_report("CPU_CHECK_PASSED", "complete", "cpu")]
        status, lines, _ = self.run_case(cpu, gpu, ("--dtype", "bfloat16"))
        self.assertEqual(status, 1)
        self.assertEqual(lines[-1], "bfloat16 failed in layer application (--dtype bfloat16 (the "
                                    "default device)), PrecisionKernelMissing: what happened. "
                                    "What to do.")

    def test_a_name_the_check_refuses_is_refused(self):
        with self.assertRaisesRegex(ValueError, "--dtype takes one of float16"):
            cases("--dtype", "half")


if __name__ == "__main__":
    unittest.main()
