#!/usr/bin/env python3
"""Tests of house.py (python3 ci/house_test.py)."""
import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import house  # noqa: E402


class House(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.check = Path(self.scratch.name) / "check"
        for path, text in {"main.cpp": "", "CMakeLists.txt": "", "README.md": "",
                           "run/README.md": "", "run/cli.cpp": "x\n" * house.MAX_LINES,
                           "stages/README.md": "", "stages/compute/README.md": "",
                           "tests/cli_test.cpp": ""}.items():
            (self.check / path).parent.mkdir(parents=True, exist_ok=True)
            (self.check / path).write_text(text)

    def tearDown(self):
        self.scratch.cleanup()

    def test_a_house_by_layer_holds(self):
        self.assertEqual(house.problems(self.check), [])

    def test_a_source_file_at_the_top_is_named(self):
        (self.check / "worker.cpp").write_text("")
        self.assertEqual(len(house.problems(self.check)), 1)
        self.assertIn("check/worker.cpp lies at the top", house.problems(self.check)[0])

    def test_a_folder_without_its_readme_is_named(self):
        (self.check / "stages" / "compute" / "README.md").unlink()
        self.assertEqual(house.problems(self.check),
                         ["check/stages/compute/ has no README.md saying what lives there"])

    def test_a_file_over_the_limit_is_named_with_its_lines(self):
        (self.check / "tests" / "cli_test.cpp").write_text("x\n" * (house.MAX_LINES + 1))
        self.assertEqual(house.problems(self.check),
                         [f"check/tests/cli_test.cpp has {house.MAX_LINES + 1} lines, over "
                          f"{house.MAX_LINES}: split it by what it covers"])

    def test_main_says_why_and_fails(self):
        (self.check / "worker.cpp").write_text("")
        self.assertEqual(house.main(["house.py", self.scratch.name]), 1)
        (self.check / "worker.cpp").unlink()
        self.assertEqual(house.main(["house.py", self.scratch.name]), 0)


if __name__ == "__main__":
    unittest.main()
