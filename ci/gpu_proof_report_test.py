#!/usr/bin/env python3
"""Tests of gpu_proof_report.py (python3 ci/gpu_proof_report_test.py)."""
import contextlib
import io
import json
import os
import pathlib
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_proof_report as gpr  # noqa: E402

# A stand-in for kernodeck-requirements --json: the GPU is fatal only where one is declared; the
# probe module is missing, which fails a case whatever the runner declared.
REQUIREMENTS = """#!/usr/bin/env python3
import json, os
declared = os.environ.get("KERNODECK_EXPECT_GPU") == "1"
print(json.dumps([
    {"name": "gpu", "met": False, "fatal": declared, "reason": "needs a GPU; none (no /dev/x)"},
    {"name": "no-gpu", "met": True, "fatal": False, "reason": ""},
    {"name": "cuda-backend", "met": False, "fatal": False, "reason": "needs a CUDA libtorch"},
    {"name": "probe-module", "met": False, "fatal": True, "reason": "needs the probe module"},
]))
"""


class Folder(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self._dir.name)

    def tearDown(self):
        self._dir.cleanup()


class Replacements(unittest.TestCase):
    def test_one_pass_the_longest_first_and_nothing_put_in_is_replaced_again(self):
        r = gpr.Replacements([("/w/src", "/kit/src", False), ("/w/src/build", "/tmp/tree", False),
                              ("/tmp", "{tmp}", False)])
        self.assertEqual(r.apply("/w/src/build/x /w/src/y"), "/tmp/tree/x /kit/src/y")

    def test_values_are_text_not_patterns(self):
        r = gpr.Replacements([("/a.b|c&d", "/x&y|z", False)])
        self.assertEqual(r.apply("/a.b|c&d/f /aXb|c&d"), "/x&y|z/f /aXb|c&d")

    def test_a_name_is_replaced_as_a_whole_word_only(self):
        r = gpr.Replacements([("vm", "{host}", True)])
        self.assertEqual(r.apply("vm kvm vm-2 on vm."), "{host} kvm vm-2 on {host}.")
        self.assertIsNone(r.left("kvm vm-2"))
        self.assertEqual(r.left("on vm"), "vm")

    def test_a_value_of_one_character_or_the_root_is_passed_over(self):
        r = gpr.Replacements([("/", "{home}", False), ("x", "{host}", True)])
        self.assertEqual(r.apply("/x y"), "/x y")


class Relocate(Folder):
    def test_ctest_files_are_rewritten_as_the_trees_own_and_the_kit_is_left_alone(self):
        kit, tree = self.root / "kit", self.root / "tree"
        (kit / "sub").mkdir(parents=True)
        (tree / "sub").mkdir(parents=True)
        text = 'add_test(a "/pack/build/suites/a" "/pack/src/reports")\n'
        (kit / "sub" / "CTestTestfile.cmake").write_text(text)
        (kit / "sub" / "program").write_text("/pack/build")
        for name in ("CTestTestfile.cmake", "program"):
            (tree / "sub" / name).symlink_to(kit / "sub" / name)
        gpr.relocate(tree, ["/pack/src/reports=/o&ut", "/pack/build=/t|ree", "/pack/src=/kit/src"])
        rewritten = tree / "sub" / "CTestTestfile.cmake"
        self.assertFalse(rewritten.is_symlink())
        self.assertEqual(rewritten.read_text(), 'add_test(a "/t|ree/suites/a" "/o&ut")\n')
        self.assertEqual((kit / "sub" / "CTestTestfile.cmake").read_text(), text)
        self.assertTrue((tree / "sub" / "program").is_symlink())


class Scrub(Folder):
    def scrub(self, text, machine):
        (self.root / "out").mkdir()
        (self.root / "out" / "summary.txt").write_text(text)
        (self.root / "machine.json").write_text(json.dumps(machine))
        gpr.scrub(self.root / "out", self.root / "machine.json", [f"{self.root}/out={{out}}"])
        return (self.root / "out" / "summary.txt").read_text()

    def test_the_machines_home_and_host_name_from_kernodeck_machine(self):
        text = f"{self.root}/out/cases in /home/me/x on box, not boxes\n"
        self.assertEqual(self.scrub(text, {"home": "/home/me", "host": "box", "user": "me"}),
                         "{out}/cases in {home}/x on {host}, not boxes\n")

    def test_no_home_no_host_leaves_the_rest(self):
        self.assertEqual(self.scrub("on box\n", {"home": "", "host": "", "user": ""}), "on box\n")


class GpuReasons(Folder):
    def test_the_reasons_fatal_only_because_a_gpu_is_declared(self):
        program = self.root / "requirements"
        program.write_text(REQUIREMENTS)
        program.chmod(0o755)
        self.assertEqual(gpr.gpu_reasons(str(program)), ["needs a GPU; none (no /dev/x)"])


class CaseProblems(unittest.TestCase):
    JUNIT = """<testsuites>
      <testsuite name="certificate"><testcase classname="kernodeck.certificate" name="image">
        <failure message="failed">the runner declared a GPU: yes</failure></testcase></testsuite>
      <testsuite name="device">
        <testcase classname="device" name="a"><failure message="x">
          device.a cannot run: needs a GPU; none (no /dev/x)</failure></testcase>
        <testcase classname="device" name="b"><failure message="wrong code">no</failure></testcase>
        <testcase classname="device" name="c"/>
      </testsuite></testsuites>"""

    def test_a_case_failing_for_a_gpu_reason_is_a_gpu_case_and_another_is_a_problem(self):
        failures, problems = gpr.case_problems(ET.fromstring(self.JUNIT),
                                               ["needs a GPU; none (no /dev/x)"])
        self.assertEqual(failures, ["device.a"])
        self.assertEqual(problems, ["cases failed for another reason than the missing GPU: "
                                    "device.b (failure: wrong code)"])


class ApplicationCases(Folder):
    """What the kit writes and checks of its application cases (KIT/run --import, --weights)."""
    JUNIT = """<testsuites><testsuite name="application">
      <testcase classname="kernodeck.application" name="torchvision">
        <failure message="failed (CTest): torchvision failed in layer application, Other: x">
          torchvision is made for torch==2.9.1</failure></testcase>
      <testcase classname="kernodeck.application" name="numpy"/>
      <testcase classname="kernodeck.application" name="skipped"><skipped message="why"/></testcase>
      </testsuite></testsuites>"""
    SUMMARY = ("| - | `kernodeck.application.torchvision` | failed | failed (CTest): torchvision "
               "failed in layer application, Other: x torch==2.9.1 | made for another torch "
               "(`Other`): upgrade |\n")
    REPORT = {"code": "EXTENSION_IMPORT_FAILED", "stage": "application", "message": "Made for 2.9.",
              "error": {"type": "Other"},
              "application": {"extensions": [
                  {"module": "torchvision", "distribution": "torchvision", "version": "0.24.1",
                   "requires_torch": "==2.9.1", "imported": False}]}}

    def write(self, summary=SUMMARY):
        (self.root / "junit.xml").write_text(self.JUNIT)
        (self.root / "summary.md").write_text(summary)
        (self.root / "cases").mkdir()
        (self.root / "cases" / "application.torchvision.json").write_text(json.dumps(self.REPORT))

    def test_a_failed_case_names_its_words_in_junit_and_summary(self):
        self.write()
        self.assertEqual(gpr.case_problems_of(self.root, "application.torchvision", "failed",
                                              ["Other", "torch==2.9.1"]), [])
        self.assertEqual(gpr.case_problems_of(self.root, "application.torchvision", "failed",
                                              ["ExtensionForOtherTorch"]),
                         ["the failure of kernodeck.application.torchvision does not name "
                          "'ExtensionForOtherTorch'",
                          "the row of kernodeck.application.torchvision in summary.md does not "
                          "name 'ExtensionForOtherTorch'"])

    def test_a_row_without_a_cause_and_a_missing_row_are_problems(self):
        self.write(self.SUMMARY.replace("made for another torch (`Other`): upgrade", "-"))
        self.assertEqual(gpr.case_problems_of(self.root, "application.torchvision", "failed", []),
                         ["the row of kernodeck.application.torchvision in summary.md names no "
                          "cause"])
        (self.root / "summary.md").write_text("")
        self.assertEqual(gpr.case_problems_of(self.root, "application.torchvision", "failed", []),
                         ["summary.md has no row for kernodeck.application.torchvision"])

    def test_the_verdict_seen_must_be_the_one_wanted(self):
        self.write()
        self.assertEqual(gpr.case_problems_of(self.root, "application.numpy", "passed", []), [])
        self.assertEqual(gpr.case_problems_of(self.root, "application.skipped", "passed", []),
                         ["the case kernodeck.application.skipped skipped, expected passed: why"])
        self.assertEqual(gpr.case_problems_of(self.root, "application.torchvision", "passed", []),
                         ["the case kernodeck.application.torchvision failed, expected passed: "
                          "failed (CTest): torchvision failed in layer application, Other: x"])
        self.assertEqual(gpr.case_problems_of(self.root, "application.absent", "passed", []),
                         ["junit.xml holds 0 cases kernodeck.application.absent, not one"])

    def test_a_reports_fields_by_pointer_an_arrays_item_by_its_index(self):
        self.assertEqual(gpr.field_problems(self.REPORT, [
            "/application/extensions/0/version=0.24.1", "/application/extensions/0/imported=false",
            "/application/extensions/1/version=null", "/error/type=Other"], "r"), [])
        self.assertEqual(gpr.field_problems(self.REPORT, ["/code=CPU_CHECK_PASSED"], "r"),
                         ["r: /code is 'EXTENSION_IMPORT_FAILED', expected 'CPU_CHECK_PASSED'"])

    def test_the_summary_says_what_each_modules_case_answered(self):
        self.write()
        self.assertEqual(gpr.application_line(self.root, "torchvision"),
                         f"{'torchvision':28} EXTENSION_IMPORT_FAILED (stage application); "
                         "torchvision 0.24.1; requires torch==2.9.1; not imported; "
                         "error Other: Made for 2.9.")
        self.assertEqual(gpr.application_line(self.root, "numpy"), f"{'numpy':28} (no report)")

    def test_the_summary_says_what_each_weights_files_case_answered(self):
        self.write()
        model = {"file": "model.safetensors", "format": "safetensors", "tensors": 2, "bytes": 30,
                 "dtypes": ["float16", "float32"], "verified": True}
        pointer = dict(model, file="adapter.safetensors", format="git_lfs_pointer", tensors=None,
                       bytes=None, dtypes=[], verified=False)
        (self.root / "cases" / "application.weights-model.safetensors.json").write_text(
            json.dumps({"code": "CPU_CHECK_PASSED", "stage": "complete", "error": None,
                        "application": {"extensions": [], "weights": [model]}}))
        (self.root / "cases" / "application.weights-adapter.safetensors.json").write_text(
            json.dumps({"code": "WEIGHTS_UNUSABLE", "stage": "application",
                        "message": "A Git LFS pointer.", "error": {"type": "WeightsGitLfsPointer"},
                        "application": {"extensions": [], "weights": [pointer]}}))
        self.assertEqual(gpr.weights_line(self.root, "weights-model.safetensors"),
                         f"{'weights-model.safetensors':28} CPU_CHECK_PASSED (stage complete); "
                         "safetensors; 2 tensors (float16, float32), 30 bytes; verified")
        self.assertEqual(gpr.weights_line(self.root, "weights-adapter.safetensors"),
                         f"{'weights-adapter.safetensors':28} WEIGHTS_UNUSABLE (stage "
                         "application); git_lfs_pointer; not verified; error "
                         "WeightsGitLfsPointer: A Git LFS pointer.")
        self.assertEqual(gpr.weights_line(self.root, "weights-x.pt"),
                         f"{'weights-x.pt':28} (no report)")

    def test_the_summary_says_what_the_compile_case_answered(self):
        self.write()
        (self.root / "cases" / "compile.torch_compile.json").write_text(
            json.dumps({"code": "COMPILE_FAILED", "stage": "compile", "message": "No compiler.",
                        "error": {"type": "CompileNoCxxCompiler"},
                        "execution": {"compile": {"backend": "inductor", "seconds": 3.4,
                                                  "verified": False}}}))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            gpr.summary(self.root, "abc1234", "1", "12", "3 cases", "--compile")
        self.assertIn(f"  {'torch.compile':28} COMPILE_FAILED (stage compile); backend inductor; "
                      "not verified; 3.4 s; error CompileNoCxxCompiler: No compiler.",
                      out.getvalue().splitlines())

    def test_the_summary_lists_the_cases_asked_in_their_order(self):
        self.write()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            gpr.summary(self.root, "abc1234", "1", "12", "3 cases", "--weights",
                        "/models/model.safetensors", "--compile", "--import", "torchvision",
                        "--dtype", "bfloat16")
        lines = out.getvalue().splitlines()
        start = lines.index("application cases (--import, --weights, --dtype, --compile; their "
                            "reports in cases/):")
        self.assertEqual(lines[start + 1:start + 5],
                         [f"  {'weights-model.safetensors':28} (no report)",
                          f"  {'torch.compile':28} (no report)",
                          "  " + gpr.application_line(self.root, "torchvision"),
                          f"  {'bfloat16':28} (no report)"])
        self.assertEqual(lines[-1], "run time: 12 s")

    def test_a_summary_without_application_cases_has_no_such_section(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            gpr.summary(self.root, "abc1234", "0", "12", "3 cases")
        self.assertNotIn("application cases", out.getvalue())


if __name__ == "__main__":
    unittest.main()
