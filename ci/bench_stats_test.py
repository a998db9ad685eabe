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
    return {"command": "c", "mean": mean, "stddev": sd,
            "median": mean if median is None else median, "exit_codes": list(exit_codes)}


def timed(mean, sd, runs, median=None):
    """A result as hyperfine exports it, with the time of each of its runs."""
    timing = result(mean, sd, median, exit_codes=(0,) * runs)
    timing["times"] = [mean] * runs
    return timing


class BenchStats(unittest.TestCase):
    def run_main(self, results, roles, goal="1.10", gpu="", mode=""):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bench.json")
            with open(path, "w") as f:
                json.dump({"results": results}, f)
            out, err = io.StringIO(), io.StringIO()
            # GPU_NAME for the start-up comparison, MODULE for --import, nothing for --listing.
            named = [gpu] if mode not in ("--listing", "--backend", "--compile") else []
            argv = ([mode] if mode else []) + [path, goal] + named + roles
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = bench_stats.main(["bench_stats.py"] + argv)
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
        self.assertIn("check (GPU_UNAVAILABLE) / python = 0.47 ± 0.00 (medians: 0.47)",
                      lines)
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



class Listing(unittest.TestCase):
    ROLES = ["check_without=0", "check_with=0"]

    def run_main(self, results, limit="50"):
        return BenchStats.run_main(self, results, self.ROLES, limit, mode="--listing")

    def test_the_difference_of_the_means_with_its_standard_error_passes_under_the_limit(self):
        # σ 40 ms over 16 runs each: a standard error of sqrt(2 * 40² / 16) = 14.1 ms.
        status, out, _ = self.run_main([timed(1.2, 0.04, 16, median=1.19),
                                        timed(1.23, 0.04, 16, median=1.225)])
        self.assertEqual(status, bench_stats.WITHIN)
        self.assertEqual(out.splitlines(), [
            "check, without them    1200.0 ms ±   40.0 ms  (16 runs)",
            "check, with them       1230.0 ms ±   40.0 ms  (16 runs)",
            "the distributions added: +30.0 ms ± 14.1 ms (standard error; medians: +35.0 ms) "
            "(goal < 50 ms)"])

    def test_a_difference_of_the_limit_or_more_fails_and_noise_is_named(self):
        status, out, _ = self.run_main([timed(1.0, 0.001, 10), timed(1.05, 0.08, 10)])
        self.assertEqual(status, bench_stats.OVER)
        self.assertIn("warning: noisy run (σ above 5% of the mean: check, with them): rerun on a "
                      "quiet machine before trusting the difference", out)
        self.assertIn("the distributions added: +50.0 ms", out)

    def test_blocks_of_a_role_are_taken_together(self):
        # A B B A: the machine slowed down by 100 ms after the first two blocks; the difference
        # of the pooled means keeps what the distributions cost, 20 ms.
        def block(times):
            return {"mean": sum(times) / len(times), "stddev": 0.0, "median": times[0],
                    "exit_codes": [0] * len(times), "times": times}
        results = [block([1.0, 1.0]), block([1.02, 1.02]), block([1.12, 1.12]),
                   block([1.1, 1.1])]
        roles = ["check_without=0", "check_with=0", "check_with=0", "check_without=0"]
        status, out, _ = BenchStats.run_main(self, results, roles, "50", mode="--listing")
        self.assertEqual(status, bench_stats.WITHIN)
        lines = out.splitlines()
        self.assertEqual(lines[0], "check, without them    1050.0 ms ±   57.7 ms  (4 runs in 2 "
                                   "blocks)")
        self.assertEqual(lines[-1], "the distributions added: +20.0 ms ± 40.8 ms (standard error;"
                                    " medians: +20.0 ms) (goal < 50 ms)")
        # The start-up comparison gives each role once.
        with self.assertRaises(SystemExit):
            BenchStats.run_main(self, [result(0.6)] * 4, BenchStats.CPU + ["check_cpu=0"])

    def test_both_commands_are_needed_and_only_theirs(self):
        status, _, err = BenchStats.run_main(self, [timed(1.0, 0.01, 3)], ["check_with=0"], "50",
                                             mode="--listing")
        self.assertEqual((status, err), (bench_stats.UNREADABLE,
                                         "ci/bench: bench.json: no check_without command\n"))
        with self.assertRaises(SystemExit):
            BenchStats.run_main(self, [timed(1.0, 0.01, 3)], ["check_cpu=0"], "50",
                                mode="--listing")


class Backend(unittest.TestCase):
    ROLES = ["python_import=0", "python_facts=0"]

    def run_main(self, results, limit="20"):
        return BenchStats.run_main(self, results, self.ROLES, limit, mode="--backend")

    def test_what_the_facts_add_to_the_interpreter_under_the_limit(self):
        status, out, _ = self.run_main([timed(1.2, 0.03, 20), timed(1.212, 0.03, 20)])
        self.assertEqual(status, bench_stats.WITHIN)
        self.assertEqual(out.splitlines()[-1], "the backend's facts added: +12.0 ms ± 9.5 ms "
                                               "(standard error; medians: +12.0 ms) (goal < 20 ms)")

    def test_the_limit_or_more_is_over(self):
        status, out, _ = self.run_main([timed(1.2, 0.01, 20), timed(1.22, 0.01, 20)])
        self.assertEqual(status, bench_stats.OVER)
        self.assertIn("the backend's facts added: +20.0 ms", out)


class Compile(unittest.TestCase):
    ROLES = ["check_compile=0", "python_compile=0"]

    def run_main(self, results, goal="1.10"):
        return BenchStats.run_main(self, results, self.ROLES, goal, mode="--compile")

    def test_the_ratio_of_the_means_within_the_goal(self):
        status, out, _ = self.run_main([timed(19.4, 0.4, 4), timed(20.0, 0.4, 4)])
        self.assertEqual(status, bench_stats.WITHIN)
        self.assertIn("check --compile / the script = 0.97 ± 0.01", out.splitlines()[-1])
        self.assertIn("runs from 19.4 to 19.4 s", out.splitlines()[0])

    def test_over_the_goal_fails(self):
        status, out, _ = self.run_main([timed(23.0, 0.2, 4), timed(20.0, 0.2, 4)])
        self.assertEqual(status, bench_stats.OVER)
        self.assertIn("check --compile / the script = 1.15", out)

    def test_a_run_that_failed_discards_the_figures(self):
        failed = timed(20.0, 0.2, 4)
        failed["exit_codes"] = [0, 16, 0, 0]
        status, _, _ = self.run_main([failed, timed(20.0, 0.2, 4)])
        self.assertEqual(status, bench_stats.MISBEHAVED)


class Import(unittest.TestCase):
    ROLES = ["python_torch=0", "python_both=0", "check_plain=0", "check_import=0"]

    def run_main(self, results, goal="1.10"):
        return BenchStats.run_main(self, results, self.ROLES, goal, gpu="torchvision",
                                   mode="--import")

    def test_what_import_adds_to_the_check_against_what_it_adds_to_python(self):
        results = [timed(2.0, 0.05, 25), timed(3.0, 0.05, 25, median=2.9),
                   timed(1.5, 0.05, 25), timed(2.4, 0.05, 25, median=2.45)]
        status, out, _ = self.run_main(results)
        self.assertEqual(status, bench_stats.WITHIN)
        self.assertEqual(out.splitlines(), [
            "python -c 'import torch'                2000.0 ms ±   50.0 ms  (25 runs)",
            "python -c 'import torch, torchvision'   3000.0 ms ±   50.0 ms  (25 runs)",
            "check                                   1500.0 ms ±   50.0 ms  (25 runs)",
            "check --import torchvision              2400.0 ms ±   50.0 ms  (25 runs)",
            "torchvision in python adds +1000.0 ms ± 14.1 ms (standard error; medians: +900.0 ms)",
            "--import torchvision adds +900.0 ms ± 14.1 ms (standard error; medians: +950.0 ms)",
            "--import torchvision / torchvision in python = 0.90 ± 0.02 (medians: 1.06) "
            "(goal <= 1.10)"])

    def test_over_the_goal_fails_and_the_printed_ratio_decides(self):
        # --import adds 1104 ms where python adds 1000: 1.104 prints as 1.10, within the goal.
        results = [timed(2.0, 0.01, 5), timed(3.0, 0.01, 5), timed(1.5, 0.01, 5),
                   timed(2.604, 0.01, 5)]
        status, out, _ = self.run_main(results)
        self.assertEqual(status, bench_stats.WITHIN)
        self.assertIn("--import torchvision / torchvision in python = 1.10 ", out)
        results[3] = timed(2.7, 0.01, 5)
        status, out, _ = self.run_main(results)
        self.assertEqual(status, bench_stats.OVER)
        self.assertIn("--import torchvision / torchvision in python = 1.20 ", out)

    def test_a_module_that_costs_python_nothing_gives_nothing_to_compare(self):
        results = [timed(2.0, 0.01, 5), timed(1.99, 0.01, 5), timed(1.5, 0.01, 5),
                   timed(1.6, 0.01, 5)]
        status, _, err = self.run_main(results)
        self.assertEqual((status, err), (bench_stats.UNREADABLE,
                                         "ci/bench: bench.json: importing torchvision added "
                                         "nothing to python's mean: no cost to compare with\n"))

    def test_a_run_that_failed_discards_the_figures(self):
        results = [timed(2.0, 0.01, 2), timed(3.0, 0.01, 2), timed(1.5, 0.01, 2),
                   result(2.4, exit_codes=(0, 13))]
        status, out, err = self.run_main(results)
        self.assertEqual((status, out), (bench_stats.MISBEHAVED, ""))
        self.assertEqual(err, "ci/bench: command 4 exited with 13 where 0 was expected\n")


class Weights(unittest.TestCase):
    # A B C C B A: each role in two blocks.
    ROLES = ["check_bare=0", "check_safetensors=0", "check_torch_zip=0",
             "check_torch_zip=0", "check_safetensors=0", "check_bare=0"]
    SIZE = 2148013640

    def sample(self, rss_mib, cached=None, exit_code=0):
        return {"exit": exit_code, "maxrss_kib": int(rss_mib * 1024),
                "cached": {"big.pt": [cached.get("big.pt", 0) if cached else 0, self.SIZE],
                           "big.safetensors": [cached.get("big.safetensors", 0) if cached else 0,
                                               self.SIZE]}}

    def run_main(self, results, samples, limits=("128", "3"), write=None):
        """--weights with `samples` (one list per command) as K.jsonl, each after a warm-up run
        whose figures must not count."""
        with tempfile.TemporaryDirectory() as d:
            folder = os.path.join(d, "samples")
            os.mkdir(folder)
            for k, runs in enumerate(samples, start=1):
                with open(os.path.join(folder, f"{k}.jsonl"), "w") as f:
                    warm_up = self.sample(4096, {"big.pt": self.SIZE})
                    f.write("".join(json.dumps(r) + "\n" for r in [warm_up] + runs))
            if write:
                write(folder)
            path = os.path.join(d, "bench.json")
            with open(path, "w") as f:
                json.dump({"results": results}, f)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = bench_stats.main(["bench_stats.py", "--weights", path, folder, *limits]
                                          + self.ROLES)
            return status, out.getvalue(), err.getvalue().replace(path, "bench.json")

    def figures(self, safetensors_rss=528.0, zip_rss=530.0, zip_mean=1.35):
        results = [timed(1.3, 0.05, 3), timed(1.31, 0.05, 3), timed(zip_mean, 0.05, 3),
                   timed(zip_mean, 0.05, 3), timed(1.31, 0.05, 3), timed(1.3, 0.05, 3)]
        bare = [self.sample(527.0), self.sample(527.5), self.sample(526.5)]
        safetensors = [self.sample(527.0, {"big.safetensors": 81920}),
                       self.sample(safetensors_rss, {"big.safetensors": 40960}),
                       self.sample(527.0)]
        torch_zip = [self.sample(527.0, {"big.pt": 622592}), self.sample(zip_rss),
                     self.sample(527.0)]
        return results, [bare, safetensors, torch_zip, torch_zip, safetensors, bare]

    def test_time_and_peak_rss_added_by_each_file_within_both_limits(self):
        status, out, _ = self.run_main(*self.figures())
        self.assertEqual(status, bench_stats.WITHIN)
        self.assertEqual(out.splitlines(), [
            "check, without weights            1300.0 ms ±    0.0 ms  (6 runs in 2 blocks)",
            "check --weights, safetensors      1310.0 ms ±    0.0 ms  (6 runs in 2 blocks)",
            "check --weights, torch.save zip   1350.0 ms ±    0.0 ms  (6 runs in 2 blocks)",
            "check, without weights            peak RSS: median 527.0 MiB, max 527.5 MiB",
            "check --weights, safetensors      peak RSS: median 527.0 MiB, max 528.0 MiB",
            "check --weights, torch.save zip   peak RSS: median 527.0 MiB, max 530.0 MiB",
            "check, without weights            in the page cache after a run, at most: big.pt "
            "0 KiB of 2048.5 MiB, big.safetensors 0 KiB of 2048.5 MiB",
            "check --weights, safetensors      in the page cache after a run, at most: big.pt "
            "0 KiB of 2048.5 MiB, big.safetensors 80 KiB of 2048.5 MiB",
            "check --weights, torch.save zip   in the page cache after a run, at most: big.pt "
            "608 KiB of 2048.5 MiB, big.safetensors 0 KiB of 2048.5 MiB",
            "the safetensors file adds +10.0 ms ± 0.0 ms (standard error; medians: +10.0 ms) "
            "(limit 3000 ms)",
            "the safetensors file adds +1.0 MiB of peak RSS (its max over the median without; "
            "medians: +0.0 MiB) (limit 128 MiB)",
            "the torch.save zip adds +50.0 ms ± 0.0 ms (standard error; medians: +50.0 ms) "
            "(limit 3000 ms)",
            "the torch.save zip adds +3.0 MiB of peak RSS (its max over the median without; "
            "medians: +0.0 MiB) (limit 128 MiB)"])

    def test_a_file_read_into_memory_is_over_the_rss_limit(self):
        # The printed figure decides: 128.04 MiB prints as 128.0, within.
        status, out, _ = self.run_main(*self.figures(zip_rss=527.0 + 128.04))
        self.assertEqual(status, bench_stats.WITHIN)
        self.assertIn("the torch.save zip adds +128.0 MiB of peak RSS", out)
        status, out, _ = self.run_main(*self.figures(safetensors_rss=527.0 + 2048))
        self.assertEqual(status, bench_stats.OVER)
        self.assertIn("the safetensors file adds +2048.0 MiB of peak RSS", out)

    def test_more_than_the_time_limit_is_over(self):
        status, out, _ = self.run_main(*self.figures(zip_mean=4.31))
        self.assertEqual(status, bench_stats.OVER)
        self.assertIn("the torch.save zip adds +3010.0 ms", out)

    def test_a_sample_that_failed_discards_the_figures_and_missing_ones_are_unreadable(self):
        results, samples = self.figures()
        samples[3] = samples[3][:2] + [self.sample(527.0, exit_code=1)]
        status, out, err = self.run_main(results, samples)
        self.assertEqual((status, out), (bench_stats.MISBEHAVED, ""))
        self.assertEqual(err, "ci/bench: command 4 exited with 1 where 0 was expected (its "
                              "samples)\n")
        results, samples = self.figures()

        def drop(folder):
            os.remove(os.path.join(folder, "5.jsonl"))
        status, _, err = self.run_main(results, samples, write=drop)
        self.assertEqual(status, bench_stats.UNREADABLE)
        self.assertIn("the samples of command 5 cannot be read", err)

        def short(folder):
            with open(os.path.join(folder, "2.jsonl"), "w") as f:
                f.write(json.dumps(self.sample(527.0)) + "\n")
        status, _, err = self.run_main(results, samples, write=short)
        self.assertEqual((status, err), (bench_stats.UNREADABLE,
                                         "ci/bench: bench.json: 1 samples of command 2 for its 3"
                                         " runs\n"))


if __name__ == "__main__":
    unittest.main()
