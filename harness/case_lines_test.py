#!/usr/bin/env python3
"""Tests of case_lines.py's rule: a case is at its own line when its id, or all of it but the
index a loop appends (at least 8 characters), is written as a literal within the window."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import case_lines  # noqa: E402

SOURCE = """\
Case helper(const std::string& id) {
  return Case(id)
      .args({"--device", "cpu"});
}
std::vector<Case> cases() {
  return {
      Case("plain_case").guards("x"),
      helper("made_by_helper"),
      Case("gpu_pass_index_" + std::to_string(0)),
  };
}
std::vector<Case> cuts(const std::string& id) {
  return {helper(id + "_cut_at_half")};
}
std::vector<Case> more() { return cuts("damaged_libc10"); }
"""


class CaseLines(unittest.TestCase):
    def misplaced(self, cases, window=0):
        with tempfile.TemporaryDirectory() as root:
            with open(os.path.join(root, "cases.cpp"), "w") as f:
                f.write(SOURCE)
            return case_lines.misplaced(cases, root, window)

    def test_a_case_at_its_id_or_the_start_a_loop_completes(self):
        self.assertEqual(self.misplaced([("plain_case", "cases.cpp", 7),
                                         ("made_by_helper", "cases.cpp", 8),
                                         ("gpu_pass_index_0", "cases.cpp", 9)]), [])

    def test_a_case_at_its_helpers_line_fails(self):
        problems = self.misplaced([("made_by_helper", "cases.cpp", 2)])
        self.assertEqual(len(problems), 1)
        self.assertIn("cases.cpp:2: case made_by_helper", problems[0])

    def test_a_start_a_helper_completes_with_words_is_no_name(self):
        problems = self.misplaced([("damaged_libc10_cut_at_half", "cases.cpp", 15)])
        self.assertEqual(len(problems), 1)
        self.assertIn("cases.cpp:15: case damaged_libc10_cut_at_half", problems[0])

    def test_a_short_literal_is_no_start_of_an_id(self):
        self.assertEqual(len(self.misplaced([("cpu_case", "cases.cpp", 3)])), 1)

    def test_the_window_counts_lines_either_side(self):
        self.assertEqual(self.misplaced([("plain_case", "cases.cpp", 5)], window=2), [])
        self.assertEqual(len(self.misplaced([("plain_case", "cases.cpp", 4)], window=2)), 1)

    def test_an_unreadable_file_fails(self):
        self.assertEqual(len(self.misplaced([("plain_case", "missing.cpp", 1)])), 1)


if __name__ == "__main__":
    unittest.main()
