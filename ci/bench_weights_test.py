#!/usr/bin/env python3
"""Tests of bench_weights.py (python3 ci/bench_weights_test.py)."""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_weights  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_weights.py")
MIB = 1 << 20


def run_main(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = bench_weights.main(["bench_weights.py"] + argv)
    return status, out.getvalue(), err.getvalue()


class Plan(unittest.TestCase):
    def test_2_gib_is_32_weights_of_64_mib_each_with_its_bias(self):
        shapes = bench_weights.plan(2048)
        self.assertEqual(shapes[:2], [("layers.0.weight", (4096, 4096)),
                                      ("layers.0.bias", (4096,))])
        self.assertEqual(shapes[-1], ("layers.31.bias", (4096,)))
        self.assertEqual(bench_weights.size_of(shapes), (64, 2048 * MIB + 32 * 4096 * 4))

    def test_a_size_that_is_no_multiple_of_a_weight_cuts_the_last_one(self):
        shapes = bench_weights.plan(100)
        self.assertEqual(shapes, [("layers.0.weight", (4096, 4096)), ("layers.0.bias", (4096,)),
                                  ("layers.1.weight", (2304, 4096)), ("layers.1.bias", (2304,))])
        self.assertEqual(bench_weights.size_of(shapes), (4, 100 * MIB + 6400 * 4))


class PageCache(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.folder.name, "data.bin")
        with open(self.path, "wb") as f:
            f.write(os.urandom(3 * MIB + 100))

    def tearDown(self):
        self.folder.cleanup()

    def test_a_file_read_is_in_the_cache_and_evicted_leaves_it(self):
        with open(self.path, "rb") as f:
            f.read()
        self.assertEqual(bench_weights.resident(self.path), (3 * MIB + 100, 3 * MIB + 100))
        if bench_weights.evict(self.path) > 0:
            self.skipTest("this file system keeps its files in memory (a tmpfs?)")
        self.assertEqual(bench_weights.resident(self.path)[0], 0)
        self.assertEqual(run_main(["evict", self.path])[0], 0)
        status, out, _ = run_main(["cached", self.path])
        self.assertEqual((status, out), (0, "data.bin: 0 KiB of 3.0 MiB in the page cache\n"))

    def test_an_empty_or_missing_file(self):
        empty = os.path.join(self.folder.name, "empty")
        open(empty, "w").close()
        self.assertEqual(bench_weights.resident(empty), (0, 0))
        self.assertEqual(run_main(["cached", empty + ".missing"])[0], 2)


class Run(unittest.TestCase):
    """run, in a process of its own as ci/bench_application.sh runs it: ru_maxrss of a process's
    children is the largest since it started."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.folder.name, "samples.jsonl")

    def tearDown(self):
        self.folder.cleanup()

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, "run", *args], capture_output=True,
                              text=True).returncode

    def samples(self):
        with open(self.log, encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def test_the_peak_of_a_grandchild_counts_and_its_exit_status_passes(self):
        # The shell waits for the interpreter it starts, as the check waits for its worker.
        touch = f"{sys.executable} -c 'data = b\"x\" * (96 << 20); raise SystemExit(3)'"
        self.assertEqual(self.run_script("--cached", SCRIPT, self.log, "--", "sh", "-c", touch), 3)
        self.assertEqual(self.run_script(self.log, "--", "true"), 0)
        first, second = self.samples()
        self.assertEqual(first["exit"], 3)
        self.assertGreaterEqual(first["maxrss_kib"], 96 * 1024)
        self.assertEqual(list(first["cached"]), ["bench_weights.py"])
        self.assertEqual(first["cached"]["bench_weights.py"][1], os.path.getsize(SCRIPT))
        self.assertLess(second["maxrss_kib"], 96 * 1024)
        self.assertEqual((second["exit"], second["cached"]), (0, {}))

    def test_a_signal_is_128_and_its_number_and_a_missing_program_127(self):
        self.assertEqual(self.run_script(self.log, "--", "sh", "-c", "kill -TERM $$"), 128 + 15)
        self.assertEqual(self.run_script(self.log, "--", "/nonexistent/program"), 127)
        self.assertEqual([s["exit"] for s in self.samples()], [-15, 127])

    def test_usage_errors(self):
        for argv in (["run", self.log], ["run", "--", "true"], ["run", "--cached", self.log, "--",
                                                                "true"],
                     ["run", "--other", "x", self.log, "--", "true"], ["make", "/tmp", "0"]):
            self.assertEqual(run_main(argv)[0], 2, argv)
        self.assertFalse(os.path.exists(self.log))


class Verify(unittest.TestCase):
    WEIGHTS = {"file": "big.pt", "format": "torch_zip", "tensors": 64, "bytes": 2048,
               "dtypes": ["float32"], "verified": True, "seconds": 0.01}

    def verify(self, weights):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "report.json")
            with open(path, "w") as f:
                json.dump({"application": {"extensions": [], "weights": weights}}, f)
            return run_main(["verify", path, "torch_zip", "64", "2048"])

    def test_one_verified_file_of_the_format_and_size(self):
        self.assertEqual(self.verify([self.WEIGHTS]), (0, "", ""))

    def test_what_differs_is_said(self):
        wrong = dict(self.WEIGHTS, format="safetensors", verified=False)
        self.assertEqual(self.verify([wrong]), (1, "", "bench_weights: big.pt: format "
                                                "'safetensors' (not 'torch_zip'), verified False"
                                                " (not True)\n"))
        self.assertEqual(self.verify([])[2], "bench_weights: the report lists 0 weights files,"
                                             " not 1\n")
        self.assertEqual(run_main(["verify", "/nonexistent.json", "torch_zip", "1", "2"])[0], 2)


if __name__ == "__main__":
    unittest.main()
