#!/usr/bin/env python3
"""Tests of gpu_proof_report.py (python3 ci/gpu_proof_report_test.py)."""
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


if __name__ == "__main__":
    unittest.main()
