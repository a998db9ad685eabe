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
                           "stages/stage.hpp": '#include "facts/outcome.hpp"\n',
                           "stages/compute/compute.cpp":
                               '#include "stages/stage.hpp"\n#include "util/text.hpp"\n',
                           "stages/compile/README.md": "",
                           "stages/compile/compile.cpp": '#include "../stage.hpp"\n',
                           "facts/README.md": "", "facts/outcome.hpp": "",
                           "tests/cli_test.cpp": '#include "run/cli.cpp"\n'}.items():
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

    def include(self, path, name):
        with open(self.check / path, "a") as f:
            f.write(f'#include "{name}"\n')

    def test_arrows_down_and_to_the_stages_own_files_are_counted(self):
        self.assertEqual(sorted(house.arrows(self.check)),
                         [("stages/compile/compile.cpp", "stages/stage.hpp"),
                          ("stages/compute/compute.cpp", "stages/stage.hpp"),
                          ("stages/stage.hpp", "facts/outcome.hpp")])

    def test_an_arrow_up_is_named(self):
        self.include("facts/outcome.hpp", "run/cli.cpp")
        self.assertEqual(house.problems(self.check),
                         ["check/facts/outcome.hpp includes check/run/cli.cpp: an arrow up (run "
                          "lies above facts); move what both need down"])

    def test_a_stage_reaching_into_another_is_named(self):
        self.include("stages/compile/compile.cpp", "stages/compute/compute.cpp")
        self.assertEqual(house.problems(self.check),
                         ["check/stages/compile/compile.cpp includes check/stages/compute/"
                          "compute.cpp: the compile stage's folder reaches into the compute "
                          "stage's; move what both need to stages/ or below"])

    def test_the_stages_own_file_reaching_into_a_stage_is_named(self):
        self.include("stages/stage.hpp", "compute/compute.cpp")
        self.assertEqual(house.problems(self.check),
                         ["check/stages/stage.hpp includes check/stages/compute/compute.cpp: "
                          "stages/'s own file reaches into the compute stage's; move what both "
                          "need to stages/ or below", "a circle of includes: stages/stage.hpp "
                          "-> stages/compute/compute.cpp -> stages/stage.hpp"])

    def test_a_circle_inside_one_folder_is_named(self):
        (self.check / "facts" / "a.hpp").write_text('#include "outcome.hpp"\n')
        self.include("facts/outcome.hpp", "facts/a.hpp")
        self.assertEqual(house.problems(self.check),
                         ["a circle of includes: facts/a.hpp -> facts/outcome.hpp -> "
                          "facts/a.hpp"])

    def test_a_folder_that_is_no_layer_is_named(self):
        (self.check / "helpers").mkdir()
        (self.check / "helpers" / "README.md").write_text("")
        self.assertEqual(house.problems(self.check),
                         ["check/helpers/ is none of the layers (run/, stages/, causes/, facts/, "
                          "probe/): its files belong in one of them"])

    def test_main_says_why_and_fails(self):
        (self.check / "worker.cpp").write_text("")
        self.assertEqual(house.main(["house.py", self.scratch.name]), 1)
        (self.check / "worker.cpp").unlink()
        self.assertEqual(house.main(["house.py", self.scratch.name]), 0)


if __name__ == "__main__":
    unittest.main()
