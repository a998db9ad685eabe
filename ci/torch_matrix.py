#!/usr/bin/env python3
"""The check's certificate against torch releases from PyPI, each imported by its own
interpreter (the python probe; not part of CI: the `check` subcommand is what a CI test runs).
Standard library only.

  torch_matrix.py run --check-dir DIR --out FILE --scan-tool EVIDENCE [--versions A,B,...]
                      [--work DIR]
      for each version, one at a time: a fresh virtual environment, `pip install
      torch==VERSION` (PyPI's default Linux wheel, a CUDA build), the check DIR/bin/
      kernodeck-diagnostic run with `--device cpu` and with the default device in a clean
      environment, one row recorded, the environment deleted. FILE is rewritten after
      every version, and only once the build's kernodeck-evidence (EVIDENCE) finds nothing
      of this machine in it; each run's report and stderr stay in WORK/logs/.
  torch_matrix.py check FILE [--scan-tool EVIDENCE]
      every row complete and as the contract expects of every release: through the python
      probe a CPU pass with the autograd gradient and, with no GPU here, GPU_UNAVAILABLE with
      the CUDA the wheel declares; exit 1
      naming each broken row and field (and, with EVIDENCE, what of this machine it names).
  torch_matrix.py markdown FILE
      the matrix as a Markdown table (docs/gpu-runners.md).
"""
import argparse
import datetime
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
# The newest patch of each release with a wheel for this machine's Python (cp311).
DEFAULT_VERSIONS = ["1.13.1", "2.0.1", "2.1.2", "2.2.2", "2.3.1", "2.4.1", "2.5.1", "2.6.0", "2.7.1",
                    "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.1", "2.13.0", "2.14.1", "2.15.0"]
PROBE = "python"  # the interpreter's own import serves every release
RUNS = {"cpu": ["--device", "cpu"], "default": []}
RUN_FIELDS = ["exit_code", "code", "stage", "error_type", "probe", "version", "backend", "cuda",
              "product_verified", "gradient_verified", "gradient_source", "loss",
              "timings_ms", "wall_s"]
ROW_FIELDS = ["torch", "cuda", "stable_abi", "accumulate_grad_schema", "exports", "runs"]
EXPORTS = ["torch_call_dispatcher", "torch_exception_get_what_without_backtrace",
           "torch_new_stable_ivalue", "torch_set_requires_grad"]

# Asked of a virtual environment's python: torch's version, CUDA version, and the stable
# ABI version libtorch_cpu reports, (major<<56)|(minor<<48)|..., or null without it (a fact
# of the release, for the stable probe, which serves a torch folder named without an
# interpreter from 2.10 on).
FACTS = r"""
import ctypes, json, os, torch
lib = ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))
try:
    fn = lib.aoti_torch_abi_version
    fn.restype = ctypes.c_uint64
    v = fn()
    abi = "%d.%d" % (v >> 56, (v >> 48) & 0xFF)
except AttributeError:
    abi = None
print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda, "stable_abi": abi,
                  "lib": os.path.join(os.path.dirname(torch.__file__), "lib")}))
"""


def version_key(text):
    """(2, 12, 1) of "2.12.1" or "2.12.1+cu130"."""
    return tuple(int(p) for p in text.split("+")[0].split("."))


def run_record(report, exit_code, wall_s):
    """One run's row fields from the check's report (None where there is no report)."""
    report = report or {}
    pytorch, execution = report.get("pytorch") or {}, report.get("execution") or {}
    return {"exit_code": exit_code, "code": report.get("code"), "stage": report.get("stage"),
            "error_type": (report.get("error") or {}).get("type"),
            "probe": (report.get("tool") or {}).get("probe"),
            "version": pytorch.get("version"), "backend": pytorch.get("backend"),
            "cuda": pytorch.get("cuda"),
            "product_verified": execution.get("product_verified"),
            "gradient_verified": execution.get("gradient_verified"),
            "gradient_source": execution.get("gradient_source"), "loss": execution.get("loss"),
            "timings_ms": execution.get("timings_ms"), "wall_s": round(wall_s, 2)}


def library_facts(lib_dir):
    """The accumulate_grad_ schema in libtorch_cpu.so and which stable functions it exports."""
    cpu = os.path.join(lib_dir, "libtorch_cpu.so")
    grep = subprocess.run(["grep", "-a", "-o", r'accumulate_grad_([^"]*) -> [A-Za-z?()]*', cpu],
                          capture_output=True, text=True, errors="replace")
    schema = grep.stdout.splitlines()[0] if grep.stdout else None
    nm = subprocess.run(["nm", "-D", "--defined-only", cpu], capture_output=True, text=True,
                        check=True)
    defined = {line.split()[-1] for line in nm.stdout.splitlines() if line.strip()}
    return schema, {name: name in defined for name in EXPORTS}


def certify(version, check_dir, work, logs):
    """Installs torch==version in a fresh environment under work, runs the check, deletes it."""
    venv = work / f"venv-{version}"
    shutil.rmtree(venv, ignore_errors=True)
    try:
        return certify_in(venv, version, check_dir, work, logs)
    finally:
        size = subprocess.run(["du", "-sh", str(venv)], capture_output=True, text=True).stdout
        print(f"  environment {size.split()[0] if size else '?'}; deleting it", flush=True)
        shutil.rmtree(venv, ignore_errors=True)


def certify_in(venv, version, check_dir, work, logs):
    subprocess.run(["/usr/bin/python3", "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    with open(logs / f"{version}-pip.log", "w") as log:
        subprocess.run([python, "-m", "pip", "install", "--no-cache-dir", "--disable-pip-version-check",
                        f"torch=={version}"], stdout=log, stderr=subprocess.STDOUT, check=True)
    facts = json.loads(subprocess.run([python, "-c", FACTS], capture_output=True, text=True,
                                      check=True).stdout.splitlines()[-1])
    schema, exports = library_facts(facts["lib"])
    row = {"torch": facts["torch"], "cuda": facts["cuda"], "stable_abi": facts["stable_abi"],
           "accumulate_grad_schema": schema, "exports": exports, "runs": {}}
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/"),
           "KERNODECK_TORCH_PYTHON": python}
    for name, args in RUNS.items():
        start = time.monotonic()
        proc = subprocess.run([str(check_dir / "bin" / "kernodeck-diagnostic"), *args], env=env,
                              cwd=work, capture_output=True, text=True, timeout=600)
        wall = time.monotonic() - start
        (logs / f"{version}-{name}.json").write_text(proc.stdout)
        (logs / f"{version}-{name}.err").write_text(proc.stderr)
        try:
            report = json.loads(proc.stdout)
        except ValueError:
            report = None
        row["runs"][name] = run_record(report, proc.returncode, wall)
        print(f"  {name}: exit {proc.returncode} {row['runs'][name]['code']} in {wall:.1f} s",
              flush=True)
    return row


def machine_problems(path, scan_tool):
    """What of this machine (its HOME, host and user names, the checkout's folder, and any path,
    address or GPU UUID) the file at `path` names, as kernodeck-evidence --published finds it,
    the scanner every published report is held against; empty when nothing."""
    with tempfile.TemporaryDirectory(prefix="torch-matrix-scan-") as folder:
        shutil.copy(path, pathlib.Path(folder) / pathlib.Path(path).name)
        scan = subprocess.run([scan_tool, "--published", "--this-machine", "--machine-path",
                               str(REPO), folder], capture_output=True, text=True)
    if scan.returncode == 0:
        return ""
    return (scan.stdout + scan.stderr).replace(folder + os.sep, "").strip() or \
        f"{scan_tool} exited {scan.returncode}"


def write_matrix(path, rows, commit, scan_tool):
    document = {"check_commit": commit, "date": datetime.date.today().isoformat(),
                "probe": PROBE, "rows": sorted(rows, key=lambda r: version_key(r["torch"]))}
    destination = pathlib.Path(path).resolve()
    with tempfile.NamedTemporaryFile("w", dir=destination.parent, prefix=".torch-matrix-",
                                     suffix=".json", delete=False) as new:
        new.write(json.dumps(document, indent=2) + "\n")
    found = machine_problems(new.name, scan_tool)
    if found:
        os.unlink(new.name)
        raise SystemExit(f"torch-matrix: the matrix would name this machine; not written:\n{found}")
    os.replace(new.name, destination)


def command_run(args):
    check_dir = pathlib.Path(args.check_dir).resolve()
    work = pathlib.Path(args.work).resolve()
    logs = work / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()
    rows, failed = [], []
    for version in args.versions.split(","):
        print(f"torch {version}", flush=True)
        start = time.monotonic()
        try:
            rows.append(certify(version, check_dir, work, logs))
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, ValueError) as e:
            print(f"  not certified: {e}", flush=True)
            failed.append(version)
        print(f"  {time.monotonic() - start:.0f} s for torch {version}", flush=True)
        write_matrix(args.out, rows, commit, args.scan_tool)
    if failed:
        print(f"torch-matrix: no row for {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def problems(document):
    """Each broken row and field of a matrix, as "torch VERSION: field: what"; [] if none."""
    found = []
    rows = document.get("rows") if isinstance(document, dict) else None
    if not isinstance(rows, list) or not rows:
        return ["the matrix has no rows"]
    for key in ["check_commit", "date"]:
        if not document.get(key):
            found.append(f"the matrix: {key} missing")
    versions = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            found.append(f"row {i}: not an object")
            continue
        name = f"torch {row.get('torch', f'row {i}')}"
        missing = [f for f in ROW_FIELDS if f not in row]
        missing += [f"runs.{r}.{f}" for r in RUNS for f in RUN_FIELDS
                    if f not in ((row.get("runs") or {}).get(r) or {})]
        if missing:
            found.append(f"{name}: missing {', '.join(missing)}")
            continue
        try:
            versions.append(version_key(row["torch"]))
        except (AttributeError, ValueError):
            found.append(f"{name}: torch: not a version")
            continue
        found += [f"{name}: {what}" for what in row_problems(row)]
    if versions != sorted(set(versions)):
        found.append("the matrix: versions not unique and sorted")
    return found


def row_problems(row):
    """What is wrong with one complete row for its release: every release passes on the CPU
    with the autograd gradient, and without a GPU answers GPU_UNAVAILABLE with its CUDA."""
    want = {"cpu": {"code": "CPU_CHECK_PASSED", "exit_code": 0, "stage": "complete",
                    "error_type": None, "version": row["torch"], "product_verified": True,
                    "gradient_verified": True, "loss": 196.0, "gradient_source": "autograd"},
            "default": {"code": "GPU_UNAVAILABLE", "exit_code": 6, "stage": "device",
                        "version": row["torch"], "backend": "cuda", "cuda": row["cuda"]}}
    found = []
    for name, fields in want.items():
        run = row["runs"][name]
        for field, value in {"probe": PROBE, **fields}.items():
            if run[field] != value:
                found.append(f"runs.{name}.{field}: {run[field]!r}, expected {value!r}")
    if not row["cuda"]:
        found.append("cuda: none for a CUDA wheel")
    return found


def command_check(args):
    try:
        document = json.loads(pathlib.Path(args.file).read_text())
    except (OSError, ValueError) as e:
        print(f"torch-matrix: {args.file}: {e}", file=sys.stderr)
        return 1
    found = problems(document)
    if args.scan_tool:
        leaked = machine_problems(args.file, args.scan_tool)
        found += [f"names this machine: {leaked}"] if leaked else []
    for line in found:
        print(f"{args.file}: {line}", file=sys.stderr)
    if not found:
        print(f"{args.file}: {len(document['rows'])} releases, consistent")
    return 1 if found else 0


def outcome(run):
    text = f"{run['code']} ({run['exit_code']})"
    return text + (f", {run['error_type']}" if run["error_type"] else "")


def gradient_words(run):
    if run["gradient_verified"] is None:
        return "—"
    verified = "verified" if run["gradient_verified"] else "**wrong**"
    return f"{verified}, {run['gradient_source'] or 'unknown'}"


def markdown(document):
    lines = [f"Check at commit `{document['check_commit']}`, {document['date']}, python probe "
             "(each release imported by its own interpreter); no GPU on the machine, so the "
             "default device is expected to be `GPU_UNAVAILABLE`.",
             "",
             "| torch | CUDA | `--device cpu` | product | loss | gradient | default device "
             "| cpu run |",
             "|---|---|---|---|---|---|---|---|"]
    yes = {True: "verified", False: "**wrong**", None: "—"}
    for row in document["rows"]:
        cpu, default = row["runs"]["cpu"], row["runs"]["default"]
        loss = "—" if cpu["loss"] is None else f"{cpu['loss']:g}"
        lines.append(f"| {row['torch']} | {row['cuda'] or '—'} "
                     f"| {outcome(cpu)} | {yes[cpu['product_verified']]} | {loss} "
                     f"| {gradient_words(cpu)} | {outcome(default)} | {cpu['wall_s']:.1f} s |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="torch-matrix",
                                     description="The check against torch releases from PyPI.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("--check-dir", required=True)
    run.add_argument("--out", required=True)
    run.add_argument("--versions", default=",".join(DEFAULT_VERSIONS))
    run.add_argument("--work", default=str(REPO / ".tools" / "torch-matrix"))
    check = sub.add_parser("check")
    check.add_argument("file")
    for command in (run, check):
        command.add_argument("--scan-tool", default=os.environ.get("KERNODECK_EVIDENCE"),
                             help="kernodeck-evidence, which finds this machine in a file "
                                  "(default: $KERNODECK_EVIDENCE)")
    sub.add_parser("markdown").add_argument("file")
    args = parser.parse_args(argv)
    if args.command == "run" and not args.scan_tool:
        parser.error("run needs --scan-tool (or KERNODECK_EVIDENCE): kernodeck-evidence of a "
                     "build, which keeps this machine out of the matrix")
    if args.command == "run":
        return command_run(args)
    if args.command == "check":
        return command_check(args)
    print(markdown(json.loads(pathlib.Path(args.file).read_text())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
