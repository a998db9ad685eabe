#!/usr/bin/env python3
"""The check's house as docs/architecture.md lays it out, held on every run: check/ at its top
holds only main.cpp, its CMakeLists.txt, its README.md and folders; each of its folders but the
tests' opens with a README.md that says what lives there; no file in it is over 700 lines; and
its include arrows (#include "...", the tests' left out) only go down the layers, main.cpp, run/,
stages/, causes/, facts/, probe/: none up, none from one stage's folder into another's or from
stages/'s own files into a stage's, no circle.

  house.py SOURCE_ROOT

Prints each problem on stderr and exits 1, or says that the house holds, with its figures.
"""
import re
import sys
from pathlib import Path

TOP_FILES = {"main.cpp", "CMakeLists.txt", "README.md"}
MAX_LINES = 700
# The layers from the top down; tests/ sees them all and is not one.
LAYERS = ["main.cpp", "run", "stages", "causes", "facts", "probe"]
SOURCES = {".cpp", ".hpp", ".h", ".c"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(check):
    """check/'s C and C++ files but the tests', in order."""
    return sorted(p for p in check.rglob("*")
                  if p.suffix in SOURCES and p.relative_to(check).parts[0] != "tests")


def arrows(check):
    """Each (includer, included) pair of sources(check), as paths relative to check/; an include
    resolves beside its file, then from check/ (the include root), and one that names no file of
    check/ (util/, kd/) is not the house's."""
    found = []
    for path in sources(check):
        rel = path.relative_to(check)
        for name in INCLUDE.findall(path.read_text(errors="replace")):
            for target in (path.parent / name, check / name):
                if target.is_file():
                    found.append((rel.as_posix(),
                                  target.resolve().relative_to(check.resolve()).as_posix()))
                    break
    return found


def room(rel):
    """(the layer's rank, the stage's folder or None) of a path relative to check/."""
    parts = rel.split("/")
    if parts[0] not in LAYERS:
        return None, None
    stage = parts[1] if parts[0] == "stages" and len(parts) > 2 else None
    return LAYERS.index(parts[0]), stage


def arrow_problems(check, pairs):
    found = []
    for top in sorted(p.name for p in check.iterdir() if p.is_dir()):
        if top not in LAYERS and top != "tests":
            found.append(f"check/{top}/ is none of the layers ({'/, '.join(LAYERS[1:])}/): "
                         "its files belong in one of them")
    for includer, included in pairs:
        (rank, stage), (down_rank, down_stage) = room(includer), room(included)
        if rank is None or down_rank is None:
            continue
        if down_rank < rank:
            found.append(f"check/{includer} includes check/{included}: an arrow up "
                         f"({LAYERS[down_rank]} lies above {LAYERS[rank]}); move what both "
                         "need down")
        elif rank == down_rank and down_stage is not None and stage != down_stage:
            whose = f"the {stage} stage's folder" if stage else "stages/'s own file"
            found.append(f"check/{includer} includes check/{included}: {whose} reaches into "
                         f"the {down_stage} stage's; move what both need to stages/ or below")
    found += [f"a circle of includes: {' -> '.join(circle)}" for circle in circles(pairs)]
    return found


def circles(pairs):
    """Each circle of includes, once, from the file first met on it."""
    graph = {}
    for includer, included in pairs:
        graph.setdefault(includer, []).append(included)
    state, found, path = {}, [], []

    def visit(node):
        state[node] = "open"
        path.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == "open":
                found.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def problems(check, pairs=None):
    """What does not hold of the folder `check` (a Path), one sentence each; `pairs` its
    arrows(check) when the caller has them."""
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
    return found + arrow_problems(check, arrows(check) if pairs is None else pairs)


def figures(check, pairs):
    """Files and lines of sources(check), and its include arrows `pairs` (arrows(check))."""
    files = sources(check)
    lines = sum(len(p.read_bytes().splitlines()) for p in files)
    return f"{len(files)} source files, {lines} lines, {len(pairs)} include arrows"


def main(argv):
    if len(argv) != 2:
        print("usage: house.py SOURCE_ROOT", file=sys.stderr)
        return 2
    check = Path(argv[1]) / "check"
    pairs = arrows(check)
    found = problems(check, pairs)
    for problem in found:
        print(f"ci/house: {problem}", file=sys.stderr)
    if found:
        return 1
    print(f"ci/house: check/ holds only {', '.join(sorted(TOP_FILES))} and folders at its top, "
          f"each folder says what lives there, no file is over {MAX_LINES} lines, every include "
          f"arrow goes down the layers ({figures(check, pairs)}, none up, none between two "
          "stages, no circle)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
