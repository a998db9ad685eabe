#!/usr/bin/env python3
"""Tests of bench_stats.py (python3 ci/bench_stats_test.py)."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_stats  # noqa: E402


def result(mean, sd=0.001, median=None, exit_codes=(0, 0, 0)):
    return {"command": "c", "mean": mean, "stddev": sd, "median": mean if median is None else median,
            "exit_codes": list(exit_codes)}


class BenchStats(unittest.TestCase):
    def run_main(self, results, roles, goal="1.10", gpu=""):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bench.json")
            with open(path, "w") as f:
                json.dump({"results": results}, f)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = bench_stats.main(["bench_stats.py", path, goal, gpu] + roles)
            return status, out.getvalue(), err.getvalue().replace(path, "bench.json")

    CPU = ["floor_cpu=0", "floor_exit=0", "check_cpu=0"]

    def test_the_cpu_comparison_prints_its_figures_and_passes_within_the_goal(self):
        status, out, _ = self.run_main([result(0.6), result(0.65), result(0.63)], self.CPU)
        self.assertEqual(status, bench_stats.WITHIN)
        self.assertEqual(out.splitlines(), [
            "floor (libtorch_cpu)            600.0 ms ±    1.0 ms",
            "check --device cpu              630.0 ms ±    1.0 ms  (+30.0 ms against the "
            "libtorch_cpu floor)",
            "libtorch exit handlers, not paid by the check: +50.0 ms (floor with exit: 650.0 ms)",
            "medians: check/floor = 1.05",
            "check/floor = 1.05 ± 0.00 (goal <= 1.10)"])

    def test_over_the_goal_fails(self):
        status, out, _ = self.run_main([result(0.5), result(0.55), result(0.6)], self.CPU)
        self.assertEqual(status, bench_stats.OVER)
        self.assertIn("check/floor = 1.20", out)

    def test_the_printed_ratio_decides(self):
        # 1.104 prints as 1.10: within a goal of 1.10, as the line says.
        status, out, _ = self.run_main([result(1.0), result(1.0), result(1.104)], self.CPU)
        self.assertIn("check/floor = 1.10 ", out)
        self.assertEqual(status, bench_stats.WITHIN)

    def test_a_gpu_library_makes_its_floor_the_goals(self):
        roles = self.CPU + ["floor_gpu=0", "check_gpu=6", "python=0"]
        results = [result(0.6), result(0.62), result(0.9), result(0.85),
                   result(0.95, exit_codes=(6, 6)), result(2.0)]
        status, out, _ = self.run_main(results, roles, gpu="libtorch_cuda")
        self.assertEqual(status, bench_stats.WITHIN)
        lines = out.splitlines()
        self.assertIn("floor (libtorch_cuda)           850.0 ms ±    1.0 ms", lines)
        self.assertIn("check (GPU_UNAVAILABLE)         950.0 ms ±    1.0 ms  (+100.0 ms against "
                      "the libtorch_cuda floor)", lines)
        self.assertIn("check --device cpu / libtorch_cpu floor = 1.50 ± 0.00 (medians: 1.50) "
                      "(reference only: the probe loads libtorch_cuda whatever the device)", lines)
        self.assertIn("check (GPU_UNAVAILABLE) / python = 0.47 ± 0.00 (medians: 0.47)", lines)
        self.assertIn("goal: check --device cpu against the libtorch_cuda floor (the library its "
                      "probe links)", lines)
        self.assertEqual(lines[-1], "check/floor = 1.06 ± 0.00 (goal <= 1.10)")

    def test_a_noisy_run_is_named(self):
        _, out, _ = self.run_main([result(0.6, sd=0.06), result(0.65), result(0.63)], self.CPU)
        self.assertIn("warning: noisy run (σ above 5% of the mean: floor (libtorch_cpu)): rerun on "
                      "a quiet machine before trusting the ratios", out)

    def test_a_run_ending_otherwise_than_expected_discards_the_figures(self):
        results = [result(0.6), result(0.65, exit_codes=(0, 1, 1)), result(0.63)]
        status, out, err = self.run_main(results, self.CPU)
        self.assertEqual(status, bench_stats.MISBEHAVED)
        self.assertEqual(out, "")
        self.assertEqual(err, "ci/bench: command 2 exited with 1 1 where 0 was expected\n")

    def test_a_command_without_exit_codes_or_a_missing_command_is_refused(self):
        status, _, err = self.run_main([result(0.6), result(0.65, exit_codes=()), result(0.6)],
                                       self.CPU)
        self.assertEqual((status, err), (bench_stats.MISBEHAVED,
                                         "ci/bench: no exit code for command 2 in bench.json\n"))
        status, _, err = self.run_main([result(0.6), result(0.65)], self.CPU)
        self.assertEqual((status, err), (bench_stats.MISBEHAVED,
                                         "ci/bench: bench.json lists 2 commands, not 3\n"))

    def test_a_zero_mean_or_no_export_is_unreadable(self):
        status, _, _ = self.run_main([result(0.0), result(0.65), result(0.6)], self.CPU)
        self.assertEqual(status, bench_stats.UNREADABLE)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = bench_stats.main(["bench_stats.py", "/nonexistent/bench.json", "1.1", ""]
                                      + self.CPU)
        self.assertEqual(status, bench_stats.UNREADABLE)


if __name__ == "__main__":
    unittest.main()
