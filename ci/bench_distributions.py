#!/usr/bin/env python3
"""Installed distributions for ci/bench --application, made as pip leaves them (standard library
only), and what a report of the check listed of them.

  bench_distributions.py make SITE COUNT
      writes COUNT pure-Python distributions into SITE (a site-packages folder), each a
      <name>-<version>.dist-info (METADATA, WHEEL, INSTALLER, REQUESTED, top_level.txt, RECORD
      with the sha256 and size of every file) beside its package, whose modules are compiled to
      __pycache__ by the interpreter that runs this (as pip compiles them); one in TORCH_EVERY
      declares an unconditional requirement on torch, a few more only with an extra (which does
      not count), the rest other requirements. Prints the names of those that require torch, one
      a line.
  bench_distributions.py listed REPORT
      the distributions the check's JSON report lists in application.extensions, one a line.

Exit 0, or 2 on a usage error or a folder that cannot be written.
"""
import base64
import hashlib
import json
import os
import py_compile
import sys

TORCH_EVERY = 10
# What the ones that require torch write, in turn: the forms found on PyPI.
TORCH_REQUIREMENTS = ("torch>=2.0", "torch (>=1.13)", "torch",
                      'torch>=2.1; python_version >= "3.9"', "torch<3,>=2.2")
OTHER_REQUIREMENTS = ("numpy>=1.21", "requests (>=2.25)",
                      'typing-extensions; python_version < "3.11"', "packaging", "pyyaml>=5.4",
                      'rich; extra == "cli"', 'torch>=2.0; extra == "torch"')
DESCRIPTION = ("A distribution of the start-up benchmark: it declares its requirements as real "
               "ones do, and its long description follows the header as in any METADATA file."
               "\n\n") * 20
MODULE = ('"""{name}.{part}: a module of the benchmark."""\n\nVALUE = {value}\n\n\n'
          "def value():\n    return VALUE\n")


def name_of(index):
    return f"bench-dist-{index:03d}"


def module_of(index):
    return name_of(index).replace("-", "_")


def version_of(index):
    return f"{1 + index % 3}.{index % 17}.{index % 5}"


def requires_torch(index):
    return index % TORCH_EVERY == 0


def requirements_of(index):
    """The Requires-Dist lines of distribution `index`."""
    lines = [OTHER_REQUIREMENTS[(index + k) % len(OTHER_REQUIREMENTS)]
             for k in range(index % 4)]
    if requires_torch(index):
        lines = [line for line in lines if not line.startswith("torch")]
        lines.append(TORCH_REQUIREMENTS[(index // TORCH_EVERY) % len(TORCH_REQUIREMENTS)])
    return lines


def metadata_of(index):
    name = name_of(index)
    header = [("Metadata-Version", "2.1"), ("Name", name), ("Version", version_of(index)),
              ("Summary", f"{name}, one of the benchmark's installed distributions"),
              ("Home-page", f"https://example.org/{name}"), ("Author", "The benchmark"),
              ("License", "MIT"), ("Classifier", "Programming Language :: Python :: 3"),
              ("Classifier", "License :: OSI Approved :: MIT License"),
              ("Requires-Python", ">=3.8")]
    requirements = requirements_of(index)
    extras = sorted({line.split('extra == "', 1)[1].rstrip('"') for line in requirements
                     if 'extra == "' in line})
    header += [("Provides-Extra", extra) for extra in extras]
    header += [("Requires-Dist", line) for line in requirements]
    header.append(("Description-Content-Type", "text/markdown"))
    return "".join(f"{k}: {v}\n" for k, v in header) + "\n" + f"# {name}\n\n" + DESCRIPTION


def record_line(site, path):
    with open(os.path.join(site, path), "rb") as f:
        data = f.read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}\n"


def write(site, path, text):
    full = os.path.join(site, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def make_one(site, index):
    """Writes distribution `index` into `site` as pip installs its wheel."""
    module, version = module_of(index), version_of(index)
    info = f"{module}-{version}.dist-info"
    sources = [f"{module}/{part}.py" for part in ("__init__", "core", "util")]
    for k, path in enumerate(sources):
        part = os.path.basename(path)[:-3]
        write(site, path, MODULE.format(name=module, part=part, value=index * 10 + k))
    compiled = []
    for path in sources:
        # The path pip records: __pycache__/<module>.<cache tag>.pyc beside the source.
        folder, file = os.path.split(path)
        cached = f"{folder}/__pycache__/{file[:-3]}.{sys.implementation.cache_tag}.pyc"
        py_compile.compile(os.path.join(site, path), cfile=os.path.join(site, cached),
                           doraise=True)
        compiled.append(cached)
    write(site, f"{info}/METADATA", metadata_of(index))
    write(site, f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.43.0)\n"
                                 "Root-Is-Purelib: true\nTag: py3-none-any\n\n")
    write(site, f"{info}/INSTALLER", "pip\n")
    write(site, f"{info}/REQUESTED", "")
    write(site, f"{info}/top_level.txt", module + "\n")
    hashed = sources + [f"{info}/{n}" for n in ("INSTALLER", "METADATA", "REQUESTED", "WHEEL",
                                                 "top_level.txt")]
    lines = sorted([record_line(site, p) for p in hashed] + [f"{p},,\n" for p in compiled] +
                   [f"{info}/RECORD,,\n"])
    write(site, f"{info}/RECORD", "".join(lines))


def make(site, count):
    """Makes `count` distributions in `site`; the names of those that require torch."""
    for index in range(count):
        make_one(site, index)
    return [name_of(i) for i in range(count) if requires_torch(i)]


def listed(report):
    """The distributions a check's JSON report lists in application.extensions."""
    extensions = (report.get("application") or {}).get("extensions") or []
    return [e["distribution"] for e in extensions if isinstance(e, dict) and e.get("distribution")]


def main(argv):
    if len(argv) == 4 and argv[1] == "make" and argv[3].isdigit():
        try:
            names = make(argv[2], int(argv[3]))
        except OSError as error:
            print(f"bench_distributions: {error}", file=sys.stderr)
            return 2
        print("".join(name + "\n" for name in names), end="")
        return 0
    if len(argv) == 3 and argv[1] == "listed":
        try:
            with open(argv[2], encoding="utf-8") as f:
                names = listed(json.load(f))
        except (OSError, ValueError, AttributeError) as error:
            print(f"bench_distributions: {argv[2]}: {error}", file=sys.stderr)
            return 2
        print("".join(name + "\n" for name in names), end="")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
