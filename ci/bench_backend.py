#!/usr/bin/env python3
"""What ci/bench --backend and ci/bench --compile time beside the check, and what they verify
first (the standard library, and torch for the commands that import it).

  bench_backend.py import PROBE
      (timed) loads the python probe's functions from PROBE (<build>/check/python_probe.py, the
      program the build joins from check/probe/python/: its text without its last line,
      `main()`, which is never run), then imports torch, and leaves
      through os._exit(0) as the probe does: an interpreter ready to compute the facts.
  bench_backend.py facts PROBE
      (timed) the same, then the facts of the backend's own libraries through the probe's own
      functions, as a run of the check computes them: backend_libraries(torch, distributions()).
  bench_backend.py memory PROBE FILE
      (timed) the same as import, then the memory facts of a run through the probe's own
      functions, as the check computes them: the resident memory at the three stages' ends, and
      FILE's bytes (weights_bytes, its header read) against what the process may use on the CPU
      (weights_memory: MemAvailable, the memory cgroups' room, the address-space limit); their
      answers to a channel that keeps them, never written.
  bench_backend.py memory-ms PROBE FILE RUNS
      the memory facts' own figure: in one interpreter that imported torch, the facts computed
      RUNS times as `memory` computes them, each timed alone; prints each run's milliseconds,
      then their median.
  bench_backend.py show PROBE
      the same facts as JSON on stdout.
  bench_backend.py same REPORT FACTS_JSON
      the check's report names the libraries the facts name, with the same versions: exit 0, or
      1 saying what differs.
  bench_backend.py embedded CHECK PROBE
      the check's executable holds PROBE's text as it is (kd_embed): the program its python
      probe runs is the one these commands load. Exit 0, or 1.
  bench_backend.py answered PYTHON PROBE RUNS
      the check's own figure: runs PROBE's program RUNS times as the check runs it (PYTHON -B -c
      PROGRAM cpu 0 ASKED, its answers on descriptor 3, a private folder of its own removed after
      each run) and prints the `ms` of each run's backend_libraries answer, then their median.
  bench_backend.py compile
      (timed) a user's script of the computation through torch.compile: its caches and temporary
      files in a new empty folder (TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR and TMPDIR set before
      torch comes, as the check does), import torch, compile the product and the loss (sum p)^2,
      run it, backward, read the gradient, check the numbers, remove the folder.

Exit 2 on a usage error, or a file that cannot be read.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

CALL = "main()"  # the probe's last line: the run itself
PRODUCT = [2.0, 2.0, 6.0, 4.0]
GRADIENT = [56.0, 28.0, 56.0, 28.0]
LOSS = 196.0
LIBRARIES = ("cudnn", "nccl", "miopen", "rccl")


class Unusable(Exception):
    pass


def probe_body(path):
    """PROBE's text without its last line, which must be the call of main()."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise Unusable(f"{path} cannot be read: {error}") from error
    body, _, last = text.rstrip("\n").rpartition("\n")
    if last.strip() != CALL:
        raise Unusable(f"{path} does not end with {CALL}: its functions cannot be loaded alone")
    return body


def probe_functions(path):
    """The probe's functions and constants, as its module defines them, main() never run."""
    namespace = {"__name__": "kernodeck_python_probe", "__file__": path}
    exec(compile(probe_body(path), path, "exec"), namespace)
    return namespace


class Kept:
    """A channel that keeps the probe's answers instead of writing them."""

    def __init__(self):
        self.answers = []

    def answer(self, call, **fields):
        self.answers.append((call, fields))


def facts(probe):
    """The backend libraries' facts, through the probe's own functions."""
    import torch
    return probe["backend_libraries"](torch, probe["distributions"]())


def same(report, found):
    """What differs between the check's report (pytorch.cudnn, .nccl, .miopen, .rccl) and the
    facts computed here: [] when nothing does."""
    pytorch = report.get("pytorch") or {}
    problems = []
    for name in LIBRARIES:
        reported, computed = pytorch.get(name), found.get(name)
        if (reported is None) != (computed is None):
            problems.append(f"{name}: the report has {'none' if reported is None else 'one'},"
                            f" the facts {'none' if computed is None else 'one'}")
            continue
        if reported is None:
            continue
        for key in ("compiled", "runtime"):
            if key in reported and reported[key] != computed.get(key, ""):
                problems.append(f"{name}.{key}: {reported[key]!r} in the report,"
                                f" {computed.get(key, '')!r} here")
    return problems


# kd_embed's parts (cmake/KernodeckEmbed.cmake): at most this many bytes, each whole lines.
EMBED_PART = 16384


def embed_parts(text):
    """The probe's text cut as kd_embed cuts it into the program's literals."""
    parts = []
    while len(text) > EMBED_PART:
        cut = text.rfind(b"\n", 0, EMBED_PART) + 1
        if cut == 0:
            raise Unusable("a line longer than kd_embed's parts")
        parts.append(text[:cut])
        text = text[cut:]
    return parts + [text]


def embedded(check, probe):
    """Whether the check's executable holds the probe's text as it is, in kd_embed's parts."""
    try:
        with open(probe, "rb") as f:
            text = f.read()
        with open(check, "rb") as f:
            program = f.read()
    except OSError as error:
        raise Unusable(f"cannot read: {error}") from error
    return all(part in program for part in embed_parts(text))


def answered_ms(lines):
    """The ms of the backend_libraries answer among the probe's answer lines; None without it."""
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if (isinstance(event, dict) and event.get("event") == "answer" and
                event.get("call") == "backend_libraries"):
            ms = event.get("ms")
            return float(ms) if isinstance(ms, (int, float)) else None
    return None


def run_probe(python, program):
    """One run of the probe's program as the check starts it; the ms of its backend_libraries
    answer."""
    folder = tempfile.mkdtemp(prefix="kernodeck-bench-")
    try:
        with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as answers:
            def answers_on_3():
                # dup2 onto itself (the file may be 3 already) keeps close-on-exec: cleared.
                os.dup2(answers.fileno(), 3)
                os.set_inheritable(3, True)
            status = subprocess.call(
                [python, "-B", "-c", program, "cpu", "0",
                 json.dumps({"private_folder": folder})],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                close_fds=False, preexec_fn=answers_on_3)
            answers.seek(0)
            lines = answers.read().splitlines()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    ms = answered_ms(lines)
    if status != 0 or ms is None or '{"event":"done"}' not in lines:
        raise Unusable(f"the probe ended with {status}, its backend_libraries answer"
                       f" {'missing' if ms is None else 'given'}")
    return ms


def fresh_caches():
    """A new empty folder for torch.compile's caches and temporary files, named as the check
    names its own before torch comes."""
    folder = tempfile.mkdtemp(prefix="kernodeck-bench-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(folder, "inductor")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(folder, "triton")
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = None  # tempfile reads TMPDIR again, as it would first in the probe
    return folder


def compiled_run():
    """A user's script: the product and the loss through torch.compile, the gradient."""
    import torch

    def step(a, b):
        p = a @ b
        return p, p.sum() ** 2

    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = torch.tensor([[2.0, 0.0], [0.0, 1.0]])
    p, loss = torch.compile(step)(a, b)
    loss.backward()
    return p.detach().reshape(-1).tolist(), loss.item(), a.grad.reshape(-1).tolist()


def main(argv):
    command, args = (argv[1], argv[2:]) if len(argv) > 1 else ("", [])
    arity = {"import": 1, "facts": 1, "show": 1, "same": 2, "embedded": 2, "answered": 3,
             "compile": 0, "memory": 2, "memory-ms": 3}
    if arity.get(command) != len(args):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        if command in ("import", "facts", "show", "memory"):
            probe = probe_functions(args[0])
            if command == "import":
                import torch  # noqa: F401
                os._exit(0)
            if command == "memory":
                import torch
                kept = Kept()
                for stage in ("import", "compute", "application"):
                    probe["stage_memory"](kept, torch, stage, False, 0)
                probe["weights_memory"](kept, torch, [args[1]], False, 0)
                if len(kept.answers) != 4 or kept.answers[-1][1].get("fits") is not True:
                    print(f"bench_backend: the memory facts were not all given: {kept.answers}",
                          file=sys.stderr)
                    os._exit(1)
                os._exit(0)
            found = facts(probe)
            if command == "facts":
                os._exit(0)
            print(json.dumps(found, indent=1, sort_keys=True))
        elif command == "memory-ms":
            if not args[2].isdigit() or int(args[2]) < 1:
                raise Unusable(f"not a number of runs: {args[2]!r}")
            probe = probe_functions(args[0])
            import time
            import torch
            figures = []
            for _ in range(int(args[2])):
                kept, start = Kept(), time.perf_counter()
                for stage in ("import", "compute", "application"):
                    probe["stage_memory"](kept, torch, stage, False, 0)
                probe["weights_memory"](kept, torch, [args[1]], False, 0)
                figures.append((time.perf_counter() - start) * 1000)
            print(" ".join(f"{ms:.2f}" for ms in figures))
            print(f"{statistics.median(figures):.2f}")
        elif command == "same":
            with open(args[0], encoding="utf-8") as f:
                report = json.load(f)
            with open(args[1], encoding="utf-8") as f:
                found = json.load(f)
            problems = same(report, found)
            print("\n".join(problems), file=sys.stderr, end="\n" if problems else "")
            return 1 if problems else 0
        elif command == "embedded":
            return 0 if embedded(args[0], args[1]) else 1
        elif command == "answered":
            python, runs = args[0], args[2]
            if not runs.isdigit() or int(runs) < 1:
                raise Unusable(f"not a number of runs: {runs!r}")
            probe_body(args[1])  # a probe that runs main() last
            with open(args[1], encoding="utf-8") as f:
                program = f.read()
            figures = [run_probe(python, program) for _ in range(int(runs))]
            print(" ".join(f"{ms:.1f}" for ms in figures))
            print(f"{statistics.median(figures):.1f}")
        else:
            folder = fresh_caches()
            try:
                product, loss, gradient = compiled_run()
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            if (product, loss, gradient) != (PRODUCT, LOSS, GRADIENT):
                print(f"bench_backend: wrong numbers: {product} {loss} {gradient}",
                      file=sys.stderr)
                return 1
    except (Unusable, OSError, ValueError) as error:
        print(f"bench_backend: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
