#!/usr/bin/env python3
"""Every case at its own line: each case of the built suites, as GoogleTest lists it (its file
and line, which Case(id, Where) records, layer_test.cpp), must be declared within a few lines of
where its id is written in that file. A helper that makes cases without taking and passing on a
`Where` records its own line for all of them, where no id is written, and this fails.

The id is written as a string literal: the whole id, or, for a loop over an index, all of it but
the number the loop appends ("gpu_pass_index_" + std::to_string(k)), at least MIN_PREFIX
characters. Any other start of an id is not its name: a helper that completes ids ("damaged_libc10"
and its cuts) puts every case it makes at one line that names none of them.

    harness/case_lines.py SOURCE_DIR SUITES_DIR [--window N]
"""
import argparse
import os
import re
import sys

# The built suites' listings, asked in one place (ci/catalog_table.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ci"))
import catalog_table  # noqa: E402

LITERAL = re.compile(r'"([A-Za-z0-9_]+)"')
MIN_PREFIX = 8


def listed_cases(suites_dir):
    """(id, file, line) of every case of every conformance_* program in suites_dir."""
    try:
        listings = catalog_table.suite_listings(suites_dir)
    except ValueError as e:
        sys.exit(f"case_lines: {e}")
    return [(test["name"].removeprefix("run/"), test["file"], int(test["line"]))
            for listing in listings for group in listing["testsuites"]
            for test in group["testsuite"]]


def names_the_id(literal, case):
    index = case[len(literal):]
    return literal == case or (len(literal) >= MIN_PREFIX and case.startswith(literal)
                               and index.isascii() and index.isdigit())


def misplaced(cases, source_dir, window):
    """A line of text for each case whose id is not written within `window` lines of its line."""
    sources = {}
    problems = []
    for case, file, line in cases:
        path = file if os.path.isabs(file) else os.path.join(source_dir, file)
        if path not in sources:
            try:
                with open(path, encoding="utf-8") as f:
                    sources[path] = f.read().split("\n")
            except OSError as e:
                problems.append(f"{file}:{line}: case {case}: cannot read its file ({e})")
                continue
        text = sources[path]
        near = text[max(0, line - 1 - window):line + window]
        if not any(names_the_id(lit, case) for row in near for lit in LITERAL.findall(row)):
            problems.append(f"{file}:{line}: case {case} is recorded here, but its id is not "
                            f"written within {window} lines: the helper that made it takes no "
                            f"Where, or does not pass it on, or completes an id of which this "
                            f"line writes only the start")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source_dir")
    parser.add_argument("suites_dir")
    parser.add_argument("--window", type=int, default=5)
    args = parser.parse_args()
    cases = listed_cases(args.suites_dir)
    problems = misplaced(cases, args.source_dir, args.window)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"case_lines: {len(problems)} of {len(cases)} cases are not at their own line",
              file=sys.stderr)
        return 1
    print(f"case_lines: each of {len(cases)} cases is declared where its id is written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
