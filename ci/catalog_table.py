#!/usr/bin/env python3
"""The catalog of conformance cases as a Markdown table (ci/catalog), from the built suites' own
listings: GoogleTest's JSON (--gtest_list_tests --gtest_output=json), whose value parameter is
"<layer>.<id> guards: <promise>" and whose file is the case's, relative to the source root.
suite_listings() is the one place that asks the built suites for them (harness/case_lines.py
too).

  catalog_table.py SOURCE_ROOT SUITES_DIR
"""
import glob
import json
import os
import subprocess
import sys
import tempfile


def suite_listings(suites_dir):
    """The parsed listing of each conformance_* program in suites_dir, in name order; a
    ValueError when there is none."""
    suites = sorted(p for p in glob.glob(os.path.join(suites_dir, "conformance_*"))
                    if os.path.isfile(p) and os.access(p, os.X_OK))
    if not suites:
        raise ValueError(f"no suites under {suites_dir}")
    listings = []
    with tempfile.TemporaryDirectory() as folder:
        for suite in suites:
            out = os.path.join(folder, os.path.basename(suite) + ".json")
            subprocess.run([suite, "--gtest_list_tests", f"--gtest_output=json:{out}"],
                           check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                listings.append(json.load(f))
    return listings


def rows(root, listing):
    """The table's rows of one suite's listing (a parsed JSON document)."""
    for suite in listing["testsuites"]:
        for test in suite["testsuite"]:
            case, _, promise = test["value_param"].partition(" guards: ")
            # The harness records a case's file relative to the source root.
            where = os.path.relpath(test["file"], root) if os.path.isabs(test["file"]) else test["file"]
            yield f"| `{case}` | {promise} | `{where}` |"


def table(root, listings):
    lines = ["| case | guards | declared in |", "|---|---|---|"]
    for listing in listings:
        lines.extend(rows(root, listing))
    return "\n".join(lines)


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    try:
        listings = suite_listings(argv[2])
    except ValueError as e:
        sys.exit(f"ci/catalog: {e}")
    print(table(argv[1], listings))


if __name__ == "__main__":
    main(sys.argv)
