#!/usr/bin/env python3
"""The catalog of conformance cases as a Markdown table (ci/catalog), from the built suites' own
listings: GoogleTest's JSON (--gtest_list_tests --gtest_output=json), whose value parameter is
"<layer>.<id> guards: <promise>" and whose file is the case's, relative to the source root.

  catalog_table.py SOURCE_ROOT LISTING_JSON...
"""
import json
import os
import sys


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
    if len(argv) < 2:
        sys.exit(__doc__)
    listings = []
    for path in argv[2:]:
        with open(path) as f:
            listings.append(json.load(f))
    print(table(argv[1], listings))


if __name__ == "__main__":
    main(sys.argv)
