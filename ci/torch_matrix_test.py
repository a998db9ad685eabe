#!/usr/bin/env python3
"""Unit tests of ci/torch_matrix.py on small synthetic matrices (standard library only)."""
import contextlib
import copy
import io
import json
import os
import pathlib
import socket
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import torch_matrix as tm  # noqa: E402


def run(**fields):
    base = {"exit_code": 0, "code": "CPU_CHECK_PASSED", "stage": "complete", "error_type": None,
            "probe": "python", "version": None, "backend": "cuda", "cuda": "13.0",
            "product_verified": True, "gradient_verified": True, "gradient_source": "autograd",
            "loss": 196.0, "timings_ms": {"load": 300.0, "device_init": 0.1, "compute": 5.0},
            "wall_s": 0.6}
    return {**base, **fields}


GPU_UNAVAILABLE = dict(exit_code=6, code="GPU_UNAVAILABLE", stage="device", error_type="NoDriver",
                       product_verified=None, gradient_verified=None, gradient_source=None,
                       loss=None)


def row(torch, cuda="13.0", **cpu):
    old = tm.version_key(torch)[:2] < (2, 10)
    return {"torch": torch, "cuda": cuda, "stable_abi": None if old else torch[:4],
            "accumulate_grad_schema": "accumulate_grad_(Tensor variable, Tensor new_grad) -> ()",
            "exports": {name: not old for name in tm.EXPORTS},
            "runs": {"cpu": run(version=torch, cuda=cuda, **cpu),
                     "default": run(version=torch, cuda=cuda, **GPU_UNAVAILABLE)}}


def matrix(*rows):
    return {"check_commit": "e934b3b", "date": "2025-12-01", "probe": "python",
            "rows": list(rows)}


GOOD = matrix(row("1.13.1", cuda="11.7"), row("2.10.0", cuda="12.8"), row("2.15.0", cuda="13.0"))


class Check(unittest.TestCase):
    def test_a_consistent_matrix_passes(self):
        self.assertEqual(tm.problems(GOOD), [])

    def test_a_wrong_loss_and_a_missing_field_are_named(self):
        broken = copy.deepcopy(GOOD)
        broken["rows"][1]["runs"]["cpu"]["loss"] = 195.0
        del broken["rows"][2]["runs"]["default"]["stage"]
        self.assertEqual(tm.problems(broken),
                         ["torch 2.10.0: runs.cpu.loss: 195.0, expected 196.0",
                          "torch 2.15.0: missing runs.default.stage"])

    def test_an_old_release_must_pass_through_its_interpreter(self):
        broken = copy.deepcopy(GOOD)
        broken["rows"][0]["runs"]["cpu"] = run(
            exit_code=4, code="TORCH_IMPORT_FAILED", stage="import", error_type="StableAbiTooOld",
            probe="stable_abi", version="1.13.1", cuda="11.7", product_verified=None,
            gradient_verified=None, gradient_source=None, loss=None)
        found = tm.problems(broken)
        self.assertIn("torch 1.13.1: runs.cpu.probe: 'stable_abi', expected 'python'", found)
        self.assertIn("torch 1.13.1: runs.cpu.code: 'TORCH_IMPORT_FAILED', expected "
                      "'CPU_CHECK_PASSED'", found)
        self.assertIn("torch 1.13.1: runs.cpu.error_type: 'StableAbiTooOld', expected None", found)

    def test_a_crash_a_cuda_mismatch_and_another_gradient_source_fail(self):
        broken = matrix(row("2.11.0", gradient_source="explicit"))
        broken["rows"][0]["runs"]["default"].update(exit_code=-11, code=None, stage=None, cuda="12.6",
                                                    version="2.15.0")
        self.assertEqual(tm.problems(broken), [
            "torch 2.11.0: runs.cpu.gradient_source: 'explicit', expected 'autograd'",
            "torch 2.11.0: runs.default.code: None, expected 'GPU_UNAVAILABLE'",
            "torch 2.11.0: runs.default.exit_code: -11, expected 6",
            "torch 2.11.0: runs.default.stage: None, expected 'device'",
            "torch 2.11.0: runs.default.version: '2.15.0', expected '2.11.0'",
            "torch 2.11.0: runs.default.cuda: '12.6', expected '13.0'"])

    def test_versions_must_be_unique_and_sorted(self):
        self.assertEqual(tm.problems(matrix(row("2.11.0"), row("2.10.0"))),
                         ["the matrix: versions not unique and sorted"])
        self.assertEqual(tm.problems(matrix(row("2.10.0"), row("2.10.0"))),
                         ["the matrix: versions not unique and sorted"])
        self.assertEqual(tm.problems(matrix(row("2.9.1"), row("2.10.0"), row("2.12.1"))), [])

    def test_an_empty_matrix_fails(self):
        self.assertEqual(tm.problems({"rows": []}), ["the matrix has no rows"])
        self.assertEqual(tm.problems(matrix("2.10.0")), ["row 0: not an object"])

    def test_the_command_exits_1_naming_the_row(self):
        broken = copy.deepcopy(GOOD)
        broken["rows"][2]["runs"]["cpu"]["product_verified"] = False
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "m.json"
            path.write_text(json.dumps(broken))
            with contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertEqual(tm.main(["check", str(path)]), 1)
            self.assertIn("torch 2.15.0: runs.cpu.product_verified: False, expected True",
                          err.getvalue())
            path.write_text(json.dumps(GOOD))
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(tm.main(["check", str(path)]), 0)
            self.assertIn("3 releases, consistent", out.getvalue())


class Records(unittest.TestCase):
    def test_a_run_without_a_report_keeps_its_exit_status(self):
        record = tm.run_record(None, -11, 1.234)
        self.assertEqual((record["exit_code"], record["code"], record["wall_s"]), (-11, None, 1.23))
        self.assertEqual(sorted(record), sorted(tm.RUN_FIELDS))

    def test_a_report_gives_its_fields(self):
        report = {"code": "CPU_CHECK_PASSED", "stage": "complete", "error": None,
                  "tool": {"probe": "stable_abi"}, "pytorch": {"backend": "cuda", "cuda": "12.8"},
                  "execution": {"product_verified": True, "gradient_verified": True, "loss": 196.0,
                                "gradient_source": "autograd", "timings_ms": {"load": 1.0}}}
        record = tm.run_record(report, 0, 0.5)
        self.assertEqual((record["cuda"], record["gradient_source"], record["error_type"]),
                         ("12.8", "autograd", None))

    @unittest.skipUnless(os.environ.get("KERNODECK_EVIDENCE"),
                         "needs KERNODECK_EVIDENCE, a build's kernodeck-evidence (CTest's "
                         "docs.torch_matrix sets it)")
    def test_a_matrix_that_names_this_machine_is_not_written(self):
        tool = os.environ["KERNODECK_EVIDENCE"]
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "matrix.json"
            tm.write_matrix(path, GOOD["rows"], "abc1234", tool)
            self.assertEqual(json.loads(path.read_text())["rows"], GOOD["rows"])
            self.assertEqual(tm.machine_problems(path, tool), "")
            leaking = json.loads(json.dumps(GOOD["rows"]))
            leaking[0]["accumulate_grad_schema"] = f"built on {socket.gethostname()} in {tm.REPO}"
            with self.assertRaises(SystemExit) as refused:
                tm.write_matrix(path, leaking, "abc1234", tool)
            self.assertIn("would name this machine", str(refused.exception))
            self.assertIn(str(tm.REPO), str(refused.exception))
            # The file written before stays as it was, and nothing else is left beside it.
            self.assertEqual(json.loads(path.read_text())["rows"], GOOD["rows"])
            self.assertEqual(os.listdir(folder), ["matrix.json"])

    def test_version_keys_order_numerically(self):
        self.assertLess(tm.version_key("2.9.1"), tm.version_key("2.10.0+cu128"))


class Markdown(unittest.TestCase):
    def test_each_release_is_a_line_of_the_table(self):
        lines = tm.markdown(GOOD).splitlines()
        self.assertEqual(len(lines), 4 + 3)
        self.assertIn("python probe", lines[0])
        self.assertTrue(lines[4].startswith("| 1.13.1 | 11.7 | CPU_CHECK_PASSED (0) |"))
        self.assertIn("verified, autograd", lines[6])
        self.assertIn("| 196 |", lines[6])
        self.assertIn("GPU_UNAVAILABLE (6), NoDriver", lines[6])

    def test_a_wrong_gradient_is_marked(self):
        document = matrix(row("2.11.0", gradient_verified=False))
        self.assertIn("**wrong**, autograd", tm.markdown(document))


if __name__ == "__main__":
    unittest.main()
