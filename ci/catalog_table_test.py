#!/usr/bin/env python3
"""Tests of catalog_table.py (python3 ci/catalog_table_test.py)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import catalog_table  # noqa: E402


def listing(*tests):
    return {"testsuites": [{"testsuite": [{"value_param": v, "file": f} for v, f in tests]}]}


class CatalogTable(unittest.TestCase):
    def test_a_row_per_case_with_its_promise_and_file(self):
        text = catalog_table.table("/src", [
            listing(("device.no_gpu guards: no GPU is a failure", "/src/suites/device_cases.cpp")),
            listing(("import.gone guards: a | in words", "suites/import_cases.cpp"))])
        self.assertEqual(text.splitlines(), [
            "| case | guards | declared in |", "|---|---|---|",
            "| `device.no_gpu` | no GPU is a failure | `suites/device_cases.cpp` |",
            "| `import.gone` | a | in words | `suites/import_cases.cpp` |"])

    def test_the_promise_is_what_follows_the_first_guards(self):
        rows = list(catalog_table.rows("/src", listing(
            ("a.b guards: what guards: means", "/src/x.cpp"))))
        self.assertEqual(rows, ["| `a.b` | what guards: means | `x.cpp` |"])


if __name__ == "__main__":
    unittest.main()
