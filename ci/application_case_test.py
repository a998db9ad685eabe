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
# from FAKE_ANSWERS ({"cpu": [exit, report or text], "default": [...]}).
FAKE_CHECK = """#!{python}
import json, os, sys
answers = json.loads(os.environ["FAKE_ANSWERS"])
code, report = answers["cpu" if "cpu" in sys.argv else "default"]
assert sys.argv[-2] == "--import"
print(report if isinstance(report, str) else json.dumps(report))
print("kernodeck-diagnostic: a verdict line", file=sys.stderr)
sys.exit(code)
"""


def report(code, stage, error_type=None, message="what happened. What to do.", extensions=None):
    return {"tool": {"name": "kernodeck-diagnostic"}, "code": code, "stage": stage,
            "status": "passed" if stage == "complete" else "failed", "message": message,
            "pytorch": {"version": "2.15.0+cu132"},
            "application": {"extensions": extensions} if extensions is not None else None,
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
            self.assertEqual(ac.main(["application_case.py", "names", "ok", "not ok"]), 2)
        self.assertEqual(err.getvalue().count("\n"), 1)
        self.assertIn("not 'not ok'", err.getvalue())


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
        ac.register(self.tree, "/k it/bin/check", "/o]=]ut", ["torchvision", "torchvision.ops"])
        text = (self.tree / "suites" / "CTestTestfile.cmake").read_text()
        self.assertIn("add_test([=[application.import/torchvision]=] ", text)
        self.assertTrue(text.startswith("# The application cases"))
        self.assertTrue(text.endswith('PROPERTIES LABELS "conformance")\n'))
        self.assertIn("[=[run]=] [=[/k it/bin/check]=] [==[/o]=]ut]==] [=[torchvision.ops]=])",
                      text)
        self.assertEqual(text.count(f"TIMEOUT {ac.CASE_TIMEOUT_S})"), 2)

    @unittest.skipIf(shutil.which("ctest") is None, "no ctest on PATH")
    def test_ctest_lists_them_with_the_conformance_label(self):
        ac.register(self.tree, "/kit/bin/check", "/out", ["torchvision", "torchvision.ops"])
        listed = json.loads(subprocess.run(
            ["ctest", "--test-dir", str(self.tree), "-L", "^conformance$", "--show-only=json-v1"],
            check=True, capture_output=True, text=True).stdout)["tests"]
        self.assertEqual([t["name"] for t in listed],
                         ["application.import/torchvision", "application.import/torchvision.ops"])
        self.assertEqual(listed[1]["command"][1:],
                         [ac.__file__, "run", "/kit/bin/check", "/out", "torchvision.ops"])
        labels = {p["name"]: p["value"] for p in listed[0]["properties"]}["LABELS"]
        self.assertEqual(sorted(labels), ["application", "conformance"])

    def test_a_module_named_as_a_case_of_the_suites_layer_is_refused(self):
        (self.tree / "suites" / "conformance_application[1]_tests.cmake").write_text(
            "add_test([=[application.run/kd_case]=]  /suite/conformance_application)\n")
        with self.assertRaisesRegex(ValueError, "--import kd_case: the suite has a case"):
            ac.register(self.tree, "/kit/bin/check", "/out", ["torchvision", "kd_case"])
        ac.register(self.tree, "/kit/bin/check", "/out", ["kd_case2"])

    def test_a_tree_without_the_suite_is_refused(self):
        (self.tree / "suites" / "CTestTestfile.cmake").unlink()
        with self.assertRaises(FileNotFoundError):
            ac.register(self.tree, "/kit/bin/check", "/out", ["torchvision"])


class RunCase(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self._dir.name)
        self.check = self.root / "check"
        self.check.write_text(FAKE_CHECK.format(python=sys.executable))
        self.check.chmod(0o755)

    def tearDown(self):
        self._dir.cleanup()
        os.environ.pop("FAKE_ANSWERS", None)

    def run_case(self, cpu, default):
        os.environ["FAKE_ANSWERS"] = json.dumps({"cpu": cpu, "default": default})
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = ac.run_case(str(self.check), str(self.root / "out"), "torchvision")
        files = sorted(p.name for p in (self.root / "out" / "cases").iterdir())
        return status, out.getvalue().splitlines(), files

    def own_report(self):
        own = self.root / "out" / "cases" / "application.torchvision.json"
        return json.loads(own.read_text())

    def test_imported_on_both_devices_passes(self):
        status, lines, files = self.run_case(CPU_PASS, GPU_PASS)
        self.assertEqual(status, 0)
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


if __name__ == "__main__":
    unittest.main()
