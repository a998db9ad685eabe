#!/usr/bin/env python3
"""Tests of bench_distributions.py (python3 ci/bench_distributions_test.py)."""
import base64
import contextlib
import hashlib
import importlib
import importlib.metadata
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_distributions  # noqa: E402


def run_main(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = bench_distributions.main(["bench_distributions.py"] + argv)
    return status, out.getvalue(), err.getvalue()


class Make(unittest.TestCase):
    COUNT = 25

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.site = cls.folder.name
        cls.status, cls.out, _ = run_main(["make", cls.site, str(cls.COUNT)])
        cls.installed = {d.metadata["Name"]: d
                         for d in importlib.metadata.distributions(path=[cls.site])}

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def test_importlib_metadata_finds_each_with_its_name_and_version(self):
        self.assertEqual(self.status, 0)
        self.assertEqual(sorted(self.installed),
                         [f"bench-dist-{i:03d}" for i in range(self.COUNT)])
        self.assertEqual(self.installed["bench-dist-007"].version, "2.7.2")

    def test_each_dist_info_holds_what_pip_writes(self):
        for d in self.installed.values():
            info = next(f for f in d.files if f.name == "RECORD").locate().parent
            self.assertEqual(sorted(os.listdir(info)), ["INSTALLER", "METADATA", "RECORD",
                                                        "REQUESTED", "WHEEL", "top_level.txt"])
            self.assertEqual(d.read_text("INSTALLER"), "pip\n")
            self.assertEqual(d.read_text("top_level.txt").split(),
                             [d.metadata["Name"].replace("-", "_")])

    def test_the_record_lists_every_file_with_its_hash_and_size(self):
        d = self.installed["bench-dist-003"]
        on_disk = set()
        for root, _, files in os.walk(self.site):
            for name in files:
                path = os.path.relpath(os.path.join(root, name), self.site)
                if path.startswith(("bench_dist_003/", "bench_dist_003-")):
                    on_disk.add(path)
        self.assertEqual({str(f) for f in d.files}, on_disk)
        tag = sys.implementation.cache_tag
        self.assertIn(f"bench_dist_003/__pycache__/core.{tag}.pyc", on_disk)
        for f in d.files:
            if f.hash is None:
                continue
            data = f.locate().read_bytes()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            self.assertEqual((f.hash.mode, f.hash.value, f.size), ("sha256", digest, len(data)))

    def test_one_in_ten_requires_torch_unconditionally_and_is_printed(self):
        self.assertEqual(self.out.split(), ["bench-dist-000", "bench-dist-010", "bench-dist-020"])
        self.assertEqual(self.installed["bench-dist-010"].requires,
                         ["packaging", "pyyaml>=5.4", "torch (>=1.13)"])
        # Others name torch only with an extra, which does not make them require it.
        self.assertIn('torch>=2.0; extra == "torch"', self.installed["bench-dist-006"].requires)
        self.assertIn("Provides-Extra", self.installed["bench-dist-006"].metadata)

    def test_the_metadata_has_a_description_after_its_header(self):
        text = self.installed["bench-dist-001"].read_text("METADATA")
        header, _, body = text.partition("\n\n")
        self.assertIn("Requires-Dist: requests (>=2.25)", header.splitlines())
        self.assertTrue(body.startswith("# bench-dist-001\n"))

    def test_its_modules_import(self):
        sys.path.insert(0, self.site)
        try:
            module = importlib.import_module("bench_dist_004.core")
            self.assertEqual(module.value(), 41)
        finally:
            sys.path.remove(self.site)
            for name in [n for n in sys.modules if n.startswith("bench_dist_004")]:
                del sys.modules[name]


class Listed(unittest.TestCase):
    def test_the_distributions_of_the_report_s_extensions(self):
        report = {"application": {"extensions": [
            {"module": "torchvision", "distribution": "torchvision"},
            {"module": "missing", "distribution": None},
            {"module": "bench_dist_000", "distribution": "bench-dist-000"}]}}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "report.json")
            with open(path, "w") as f:
                json.dump(report, f)
            self.assertEqual(run_main(["listed", path])[:2], (0, "torchvision\nbench-dist-000\n"))
            with open(path, "w") as f:
                json.dump({"code": "CPU_CHECK_PASSED"}, f)
            self.assertEqual(run_main(["listed", path])[:2], (0, ""))

    def test_an_unreadable_report_or_a_usage_error_is_2(self):
        self.assertEqual(run_main(["listed", "/nonexistent/report.json"])[0], 2)
        self.assertEqual(run_main(["make", "/tmp"])[0], 2)


if __name__ == "__main__":
    unittest.main()
