#!/usr/bin/env python3
"""The check's house as docs/architecture.md lays it out, held on every run: check/ at its top
holds only main.cpp, its CMakeLists.txt, its README.md and folders; each of its folders but the
tests' opens with a README.md that says what lives there; no file in it is over 700 lines.

  house.py SOURCE_ROOT

Prints each problem on stderr and exits 1, or says that the house holds.
"""
import sys
from pathlib import Path

TOP_FILES = {"main.cpp", "CMakeLists.txt", "README.md"}
MAX_LINES = 700


def problems(check):
    """What does not hold of the folder `check` (a Path), one sentence each."""
    found = []
    for entry in sorted(check.iterdir()):
        if entry.is_file() and entry.name not in TOP_FILES:
            found.append(f"check/{entry.name} lies at the top of check/: it belongs in the "
                         "folder of its layer (run/, stages/<stage>/, causes/, facts/, probe/)")
    for folder in sorted(p for p in check.rglob("*") if p.is_dir()):
        name = folder.relative_to(check.parent).as_posix()
        if folder.name != "tests" and not (folder / "README.md").is_file():
            found.append(f"{name}/ has no README.md saying what lives there")
    for path in sorted(p for p in check.rglob("*") if p.is_file()):
        with open(path, "rb") as f:
            lines = sum(1 for _ in f)
        if lines > MAX_LINES:
            found.append(f"{path.relative_to(check.parent).as_posix()} has {lines} lines, over "
                         f"{MAX_LINES}: split it by what it covers")
    return found


def main(argv):
    if len(argv) != 2:
        print("usage: house.py SOURCE_ROOT", file=sys.stderr)
        return 2
    check = Path(argv[1]) / "check"
    found = problems(check)
    for problem in found:
        print(f"ci/house: {problem}", file=sys.stderr)
    if found:
        return 1
    print(f"ci/house: check/ holds only {', '.join(sorted(TOP_FILES))} and folders at its top, "
          f"each folder says what lives there, no file is over {MAX_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
