#!/usr/bin/env python3
"""The figures and the verdict of ci/bench, from hyperfine's JSON export (standard library only).

  bench_stats.py BENCH_JSON GOAL GPU_NAME ROLE=EXIT...
      the start-up comparison. One ROLE=EXIT per timed command, in hyperfine's order: the
      command's role (floor_cpu, floor_exit, check_cpu, floor_gpu, check_gpu, python,
      check_python, python_script; the first three always) and the exit code each of its runs
      must end with. GPU_NAME is the GPU library's name (libtorch_cuda), "" for a CPU-only
      libtorch. Within the goal when check/floor, as printed, is at most GOAL.
  bench_stats.py --listing BENCH_JSON LIMIT_MS ROLE=EXIT...
      the listing of the distributions (ci/bench --application): the roles check_without and
      check_with, the check in an environment without and with the distributions added. Within
      the goal when the difference of the means, as printed, is under LIMIT_MS.
  bench_stats.py --import BENCH_JSON GOAL MODULE ROLE=EXIT...
      a module imported by the check (ci/bench --application): the roles python_torch,
      python_both (python -c "import torch" and "import torch, MODULE"), check_plain and
      check_import (the check without and with --import MODULE). Within the goal when what
      --import adds to the check, over what the module adds to Python, as printed, is at most GOAL.
  bench_stats.py --weights BENCH_JSON SAMPLES_DIR RSS_LIMIT_MIB LIMIT_S ROLE=EXIT...
      weights files opened by the check (ci/bench --weights): the roles check_bare,
      check_safetensors and check_torch_zip, the check without --weights, with a safetensors file
      and with torch.save's zip archive. SAMPLES_DIR holds K.jsonl for the K-th command in
      hyperfine's order, one line per run as ci/bench_weights.py run writes it (the peak resident
      memory of the check's processes, the bytes of each file in the page cache after the run),
      its warm-up runs first. Within the goal when each file adds, as printed, at most LIMIT_S
      seconds to the mean time and at most RSS_LIMIT_MIB MiB to the peak resident memory (the
      largest of its runs over the median of the runs without weights).
  bench_stats.py --backend BENCH_JSON LIMIT_MS ROLE=EXIT...
      the facts of the backend's own libraries (ci/bench --backend): the roles python_import and
      python_facts, an interpreter importing torch with the python probe's functions loaded,
      without and with computing the facts through them. Within the goal when the difference of
      the means, as printed, is under LIMIT_MS.
  bench_stats.py --compile BENCH_JSON GOAL ROLE=EXIT...
      --compile (ci/bench --compile): the roles check_compile (the check --compile) and
      python_compile (a Python script compiling and running the same computation, its caches as
      cold). Within the goal when the ratio of the means, as printed, is at most GOAL.
  bench_stats.py --precision BENCH_JSON LIMIT_MS COUNT ROLE=EXIT...
      --dtype (ci/bench --precision): the roles check_float32 (the check --device cpu) and
      check_precisions (the same with COUNT precisions asked). Within the goal when the
      difference of the means over COUNT, as printed, is under LIMIT_MS.
  bench_stats.py --memory BENCH_JSON LIMIT_MS ROLE=EXIT...
      the memory facts of a run (ci/bench --memory): the roles python_import and python_memory,
      as --backend's, with the memory facts in place of the backend's. Within the goal when the
      difference of the means, as printed, is under LIMIT_MS.
  bench_stats.py --limit BENCH_JSON SAMPLES_DIR RSS_LIMIT_MIB LIMIT_S ROLE=EXIT...
      weights past a memory cgroup's limit (ci/bench --limit): the roles check_bare (exit 0)
      and check_limited (the check --weights, OUT_OF_MEMORY: exit 9), their samples as --weights'.
      Within the goal when the difference of the means is under LIMIT_S and the largest peak RSS
      with the weights under RSS_LIMIT_MIB over the median without.
  In these eight a role may come more than once: its command was timed in blocks (given to
  hyperfine again later in the run, every other block in the reverse order: A B B A A B B A),
  whose runs are taken together, so that a machine that slows down or speeds up during the run
  weighs alike on both sides of a difference.

Prints the figures; exits 0 within the goal, 1 over it, 2 when a run did not end as expected (the
figures are discarded), 3 when the export cannot be read or gives nothing to compare.
The differences of means carry their standard error (the σ of each command over the square root
of its runs); the ratios of the start-up comparison carry the spread of their two σ.
"""
import json
import math
import os
import statistics
import sys

ROLES = ("floor_cpu", "floor_exit", "check_cpu", "floor_gpu", "check_gpu", "python",
         "check_python", "python_script")
LISTING_ROLES = ("check_without", "check_with")
IMPORT_ROLES = ("python_torch", "python_both", "check_plain", "check_import")
BACKEND_ROLES = ("python_import", "python_facts")
COMPILE_ROLES = ("check_compile", "python_compile")
PRECISION_ROLES = ("check_float32", "check_precisions")
LIMIT_ROLES = ("check_bare", "check_limited")
MEMORY_ROLES = ("python_import", "python_memory")
WEIGHTS_ROLES = ("check_bare", "check_safetensors", "check_torch_zip")
# What each role of --weights is, in the figures.
WEIGHTS_LABELS = {"check_bare": "check, without weights",
                  "check_safetensors": "check --weights, safetensors",
                  "check_torch_zip": "check --weights, torch.save zip"}
WITHIN, OVER, MISBEHAVED, UNREADABLE = 0, 1, 2, 3


class Unreadable(Exception):
    pass


def exit_code_problems(results, expected, shown):
    """Each command whose runs did not all end with its expected exit code, as ci/bench says it."""
    if len(results) != len(expected):
        return [f"ci/bench: {shown} lists {len(results)} commands, not {len(expected)}"]
    problems = []
    for k, (result, want) in enumerate(zip(results, expected), start=1):
        codes = result.get("exit_codes") or []
        wrong = [str(code) for code in codes if code != want]
        if not codes:
            problems.append(f"ci/bench: no exit code for command {k} in {shown}")
        elif wrong:
            problems.append(f"ci/bench: command {k} exited with {' '.join(wrong)} where {want}"
                            " was expected")
    return problems


def stats_of(results, roles, needed):
    """{role: (mean, σ, median, runs, blocks)} of the timed commands, in seconds; Unreadable
    without figures or without one of the roles `needed`. A role timed in several blocks (its
    command given to hyperfine more than once) has the figures of all its runs together."""
    blocks = {}
    for role, result in zip(roles, results):
        blocks.setdefault(role, []).append(result)
    stats = {}
    for role, timed in blocks.items():
        try:
            if len(timed) == 1:
                mean, sd, median = (float(timed[0][key]) for key in ("mean", "stddev", "median"))
                runs = len(timed[0].get("times") or timed[0]["exit_codes"])
            else:
                times = [float(t) for result in timed for t in result["times"]]
                mean, sd = statistics.mean(times), statistics.stdev(times)
                median, runs = statistics.median(times), len(times)
        except (KeyError, TypeError, ValueError, statistics.StatisticsError) as error:
            raise Unreadable(f"no figures for {role}: {error}") from error
        if mean <= 0:
            raise Unreadable(f"the mean of {role} is {mean}")
        stats[role] = (mean, sd, median, runs, len(timed))
    for role in needed:
        if role not in stats:
            raise Unreadable(f"no {role} command")
    return stats


def figure_line(label, stat, noisy, width=28):
    """One command's mean ± σ; its label joins `noisy` when σ is above 5% of the mean."""
    mean, sd = stat[0], stat[1]
    if sd / mean > 0.05:
        noisy.append(label)
    return f"{label:<{width}} {mean * 1000:8.1f} ms ± {sd * 1000:6.1f} ms"


def runs_line(label, stat, noisy, width):
    """figure_line with its runs, and its blocks where there are several."""
    runs, blocks = stat[3], stat[4]
    return (figure_line(label, stat, noisy, width) +
            (f"  ({runs} runs in {blocks} blocks)" if blocks > 1 else f"  ({runs} runs)"))


def noise_line(noisy, what="the ratios"):
    return (f"warning: noisy run (σ above 5% of the mean: {', '.join(noisy)}): rerun on a quiet"
            f" machine before trusting {what}")


def difference(stats, a, b):
    """(mean of a - mean of b, its standard error, median of a - median of b), in seconds."""
    (ma, sa, meda, na), (mb, sb, medb, nb) = stats[a][:4], stats[b][:4]
    return ma - mb, math.sqrt(sa * sa / na + sb * sb / nb), meda - medb


def figures(results, roles, goal, gpu):
    """(lines, within the goal) of the timed commands, by role."""
    stats = {role: s[:3] for role, s in
             stats_of(results, roles, ("floor_cpu", "floor_exit", "check_cpu")).items()}
    goal_floor = "floor_gpu" if "floor_gpu" in stats else "floor_cpu"
    names = {"floor_cpu": "libtorch_cpu floor", "floor_gpu": f"{gpu} floor"}
    mean = {role: s[0] for role, s in stats.items()}
    lines, noisy = [], []

    def figure(label, role, against=None):
        line = figure_line(label, stats[role], noisy)
        if against:
            added = (mean[role] - mean[against]) * 1000
            line += f"  ({added:+.1f} ms against the {names[against]})"
        lines.append(line)

    def ratio(a, b):
        return mean[a] / mean[b]

    def spread(a, b):
        return ratio(a, b) * math.sqrt((stats[a][1] / mean[a]) ** 2 + (stats[b][1] / mean[b]) ** 2)

    def show(label, a, b, note=""):
        lines.append(f"{label} = {ratio(a, b):.2f} ± {spread(a, b):.2f} "
                     f"(medians: {stats[a][2] / stats[b][2]:.2f}){note}")

    figure("floor (libtorch_cpu)", "floor_cpu")
    if "floor_gpu" in stats:
        figure(f"floor ({gpu})", "floor_gpu")
    figure("check --device cpu", "check_cpu", goal_floor)
    if "check_gpu" in stats:
        figure("check (GPU_UNAVAILABLE)", "check_gpu", "floor_gpu")
    if "python" in stats:
        figure("python (import torch)", "python")
    if "check_python" in stats:
        figure("check --device cpu (python probe)", "check_python")
    if "python_script" in stats:
        figure("python (import, product, backward)", "python_script")
    lines.append("libtorch exit handlers, not paid by the check: "
                 f"{(mean['floor_exit'] - mean['floor_cpu']) * 1000:+.1f} ms "
                 f"(floor with exit: {mean['floor_exit'] * 1000:.1f} ms)")
    if goal_floor != "floor_cpu":
        show("check --device cpu / libtorch_cpu floor", "check_cpu", "floor_cpu",
             f" (reference only: the probe loads {gpu} whatever the device)")
    if "check_gpu" in stats:
        show(f"check (GPU_UNAVAILABLE) / {gpu} floor", "check_gpu", "floor_gpu")
        if "python" in stats:
            show("check (GPU_UNAVAILABLE) / python", "check_gpu", "python")
    if "check_python" in stats and "python_script" in stats:
        show("check --device cpu (python probe) / the same in a python script", "check_python",
             "python_script", " (aim: no slower)")
    if noisy:
        lines.append(noise_line(noisy))
    if goal_floor != "floor_cpu":
        lines.append(f"goal: check --device cpu against the {gpu} floor (the library its probe"
                     " links)")
    lines.append(f"medians: check/floor = {stats['check_cpu'][2] / stats[goal_floor][2]:.2f}")
    lines.append(f"check/floor = {ratio('check_cpu', goal_floor):.2f} ± "
                 f"{spread('check_cpu', goal_floor):.2f} (goal <= {goal:.2f})")
    # The printed (rounded) ratio is compared, so that the verdict agrees with the line.
    return lines, float(f"{ratio('check_cpu', goal_floor):.2f}") <= goal


def added_figures(results, roles, limit_ms, rows, what, width):
    """(lines, within the goal): what the second of `rows` ((label, role) each, the command
    without then with what is measured) adds to the first, `what` naming it; the labels are
    `width` wide."""
    stats = stats_of(results, roles, [role for _, role in rows])
    lines, noisy = [], []
    for label, role in rows:
        lines.append(runs_line(label, stats[role], noisy, width))
    if noisy:
        lines.append(noise_line(noisy, "the difference"))
    added, error, medians = difference(stats, rows[1][1], rows[0][1])
    lines.append(f"{what} added: {added * 1000:+.1f} ms ± {error * 1000:.1f} ms"
                 f" (standard error; medians: {medians * 1000:+.1f} ms) (goal < {limit_ms:g} ms)")
    # The printed (rounded) difference is compared, so that the verdict agrees with the line.
    return lines, float(f"{added * 1000:.1f}") < limit_ms


def listing_figures(results, roles, limit_ms):
    """(lines, within the goal): what the distributions added cost the check."""
    return added_figures(results, roles, limit_ms, (("check, without them", "check_without"),
                                                    ("check, with them", "check_with")),
                         "the distributions", 20)


def backend_figures(results, roles, limit_ms):
    """(lines, within the goal): what computing the backend libraries' facts adds to an
    interpreter that imported torch with the python probe's functions."""
    return added_figures(results, roles, limit_ms,
                         (("python: import torch, the probe's functions", "python_import"),
                          ("the same, then the backend's facts", "python_facts")),
                         "the backend's facts", 46)


def precision_figures(results, roles, limit_ms, count):
    """(lines, within the goal): what `count` precisions asked with --dtype add to the check,
    and each one's share of it."""
    lines, _ = added_figures(results, roles, limit_ms * count,
                             (("check --device cpu", "check_float32"),
                              (f"the same, {count} precisions", "check_precisions")),
                             f"{count} precisions", 30)
    stats = stats_of(results, roles, PRECISION_ROLES)
    added, _, _ = difference(stats, "check_precisions", "check_float32")
    each = added * 1000 / count
    lines.append(f"each precision added: {each:+.1f} ms (goal < {limit_ms:g} ms)")
    return lines, float(f"{each:.1f}") < limit_ms


def memory_figures(results, roles, limit_ms):
    """(lines, within the goal): what the memory facts of a run (three stages' resident memory,
    the weights against the room left) add to an interpreter that imported torch."""
    return added_figures(results, roles, limit_ms,
                         (("python: import torch, the probe's functions", "python_import"),
                          ("the same, then the memory facts", "python_memory")),
                         "the memory facts", 46)


def import_figures(results, roles, goal, module):
    """(lines, within the goal): what --import `module` adds to the check against what the
    module's import adds to Python."""
    stats = stats_of(results, roles, IMPORT_ROLES)
    lines, noisy = [], []
    labels = (("python -c 'import torch'", "python_torch"),
              (f"python -c 'import torch, {module}'", "python_both"),
              ("check", "check_plain"), (f"check --import {module}", "check_import"))
    width = max(len(label) for label, _ in labels)
    for label, role in labels:
        lines.append(runs_line(label, stats[role], noisy, width))
    if noisy:
        lines.append(noise_line(noisy))
    python, python_error, python_medians = difference(stats, "python_both", "python_torch")
    check, check_error, check_medians = difference(stats, "check_import", "check_plain")
    for label, added, error, medians in ((f"{module} in python", python, python_error,
                                          python_medians),
                                         (f"--import {module}", check, check_error, check_medians)):
        lines.append(f"{label} adds {added * 1000:+.1f} ms ± {error * 1000:.1f} ms"
                     f" (standard error; medians: {medians * 1000:+.1f} ms)")
    if python <= 0:
        raise Unreadable(f"importing {module} added nothing to python's mean: no cost to compare"
                         " with")
    ratio = check / python
    spread = math.hypot(check_error / python, check * python_error / python ** 2)
    medians = f"{check_medians / python_medians:.2f}" if python_medians > 0 else "none"
    lines.append(f"--import {module} / {module} in python = {ratio:.2f} ± {spread:.2f} (medians: "
                 f"{medians}) (goal <= {goal:.2f})")
    return lines, float(f"{ratio:.2f}") <= goal


def compile_figures(results, roles, goal):
    """(lines, within the goal): the check --compile against a Python script compiling and
    running the same computation, as the ratio of the means with its standard error."""
    stats = stats_of(results, roles, COMPILE_ROLES)
    lines, noisy = [], []
    labels = (("check --device cpu --compile", "check_compile"),
              ("python: import torch, compile, run", "python_compile"))
    for label, role in labels:
        # A few runs of about 25 s: how far apart they are says more than σ alone.
        times = [float(t) for r, result in zip(roles, results) if r == role
                 for t in result.get("times") or [result["mean"]]]
        lines.append(runs_line(label, stats[role], noisy, 36) +
                     f"  σ {stats[role][1] / stats[role][0] * 100:.1f}% of the mean, runs from"
                     f" {min(times):.1f} to {max(times):.1f} s")
    if noisy:
        lines.append(noise_line(noisy, "the ratio"))
    added, error, medians = difference(stats, "check_compile", "python_compile")
    lines.append(f"the check adds {added * 1000:+.1f} ms ± {error * 1000:.1f} ms (standard error;"
                 f" medians: {medians * 1000:+.1f} ms)")
    check, python = stats["check_compile"], stats["python_compile"]
    ratio = check[0] / python[0]
    spread = ratio * math.hypot(check[1] / math.sqrt(check[3]) / check[0],
                                python[1] / math.sqrt(python[3]) / python[0])
    lines.append(f"check --compile / the script = {ratio:.2f} ± {spread:.2f} (standard error;"
                 f" medians: {check[2] / python[2]:.2f}) (goal <= {goal:.2f})")
    # The printed (rounded) ratio is compared, so that the verdict agrees with the line.
    return lines, float(f"{ratio:.2f}") <= goal


def samples_of(results, folder):
    """The samples of the timed runs of each command, in hyperfine's order: the last lines of
    FOLDER/K.jsonl for the K-th command (its warm-up runs come first)."""
    samples = []
    for k, result in enumerate(results, start=1):
        path = os.path.join(folder, f"{k}.jsonl")
        runs = len(result.get("exit_codes") or [])
        try:
            with open(path, encoding="utf-8") as f:
                lines = [json.loads(line) for line in f if line.strip()]
        except (OSError, ValueError) as error:
            raise Unreadable(f"the samples of command {k} cannot be read: {error}") from error
        if not all(isinstance(line, dict) for line in lines):
            raise Unreadable(f"a sample of command {k} is not an object")
        if len(lines) < runs:
            raise Unreadable(f"{len(lines)} samples of command {k} for its {runs} runs")
        samples.append(lines[len(lines) - runs:])
    return samples


def sample_problems(samples, expected):
    """Each command whose samples did not all end with its expected exit code."""
    problems = []
    for k, (runs, want) in enumerate(zip(samples, expected), start=1):
        wrong = [str(run.get("exit")) for run in runs if run.get("exit") != want]
        if wrong:
            problems.append(f"ci/bench: command {k} exited with {' '.join(wrong)} where {want}"
                            " was expected (its samples)")
    return problems


def size_shown(count):
    """A number of bytes as the figures print it."""
    return f"{count / 1024:.0f} KiB" if count < 1 << 20 else f"{count / (1 << 20):.1f} MiB"


def limit_figures(results, roles, samples, rss_limit, limit_s):
    """(lines, within the goal): what weights past the memory cgroup's limit add to the check's
    time and peak resident memory, where it answers OUT_OF_MEMORY before loading them."""
    stats = stats_of(results, roles, LIMIT_ROLES)
    pooled = {role: [] for role in LIMIT_ROLES}
    for role, runs in zip(roles, samples):
        pooled[role] += runs
    labels = {"check_bare": "check, without weights",
              "check_limited": "check --weights, past the limit"}
    lines, noisy = [], []
    for role in LIMIT_ROLES:
        lines.append(runs_line(labels[role], stats[role], noisy, 32))
    if noisy:
        lines.append(noise_line(noisy, "the difference"))
    try:
        peaks = {role: [run["maxrss_kib"] / 1024 for run in pooled[role]] for role in LIMIT_ROLES}
        bare, most = statistics.median(peaks["check_bare"]), max(peaks["check_limited"])
    except (KeyError, TypeError, statistics.StatisticsError) as error:
        raise Unreadable(f"no peak RSS: {error!r}") from error
    added, error, medians = difference(stats, "check_limited", "check_bare")
    lines.append(f"the weights past the limit added: {added:+.3f} s ± {error:.3f} s (standard "
                 f"error; medians: {medians:+.3f} s) (goal < {limit_s:g} s)")
    lines.append(f"peak RSS: without weights median {bare:.1f} MiB, with them at most "
                 f"{most:.1f} MiB: {most - bare:+.1f} MiB (goal < {rss_limit:g} MiB)")
    return lines, float(f"{added:.3f}") < limit_s and most - bare < rss_limit


def weights_figures(results, roles, samples, rss_limit, limit_s):
    """(lines, within the goal): what each weights file adds to the check's time and to its peak
    resident memory, and how much of each file a run brought into the page cache."""
    stats = stats_of(results, roles, WEIGHTS_ROLES)
    pooled = {role: [] for role in WEIGHTS_ROLES}
    for role, runs in zip(roles, samples):
        pooled[role] += runs
    lines, noisy = [], []
    width = max(len(label) for label in WEIGHTS_LABELS.values())
    rss = {}
    for role in WEIGHTS_ROLES:
        lines.append(runs_line(WEIGHTS_LABELS[role], stats[role], noisy, width))
    for role in WEIGHTS_ROLES:
        try:
            peaks = [run["maxrss_kib"] / 1024 for run in pooled[role]]
            rss[role] = (statistics.median(peaks), max(peaks))
        except (KeyError, TypeError, statistics.StatisticsError) as error:
            raise Unreadable(f"no peak RSS for {role}: {error!r}") from error
        lines.append(f"{WEIGHTS_LABELS[role]:<{width}}   peak RSS: median {rss[role][0]:.1f} MiB,"
                     f" max {rss[role][1]:.1f} MiB")
    for role in WEIGHTS_ROLES:
        most = {}
        try:
            for run in pooled[role]:
                for name, (cached, size) in (run.get("cached") or {}).items():
                    most[name] = (max(cached, most.get(name, (0, 0))[0]), size)
        except (AttributeError, TypeError, ValueError) as error:
            raise Unreadable(f"no page cache figures for {role}: {error!r}") from error
        if most:
            files = ", ".join(f"{name} {size_shown(cached)} of {size_shown(size)}"
                              for name, (cached, size) in sorted(most.items()))
            lines.append(f"{WEIGHTS_LABELS[role]:<{width}}   in the page cache after a run, at"
                         f" most: {files}")
    if noisy:
        lines.append(noise_line(noisy, "the differences"))
    within = True
    for role, label in (("check_safetensors", "the safetensors file"),
                        ("check_torch_zip", "the torch.save zip")):
        added, error, medians = difference(stats, role, "check_bare")
        lines.append(f"{label} adds {added * 1000:+.1f} ms ± {error * 1000:.1f} ms (standard"
                     f" error; medians: {medians * 1000:+.1f} ms) (limit {limit_s * 1000:g} ms)")
        grown = rss[role][1] - rss["check_bare"][0]
        lines.append(f"{label} adds {grown:+.1f} MiB of peak RSS (its max over the median without;"
                     f" medians: {rss[role][0] - rss['check_bare'][0]:+.1f} MiB)"
                     f" (limit {rss_limit:g} MiB)")
        # The printed (rounded) figures are compared, so that the verdict agrees with the lines.
        within = (within and float(f"{added * 1000:.1f}") <= limit_s * 1000 and
                  float(f"{grown:.1f}") <= rss_limit)
    return lines, within


def parse_roles(pairs, allowed, blocks):
    """The roles and the exit codes of ROLE=EXIT arguments; exits on one that is not allowed, or
    that comes again where a role is not timed in `blocks`."""
    roles, expected = [], []
    for pair in pairs:
        role, _, code = pair.partition("=")
        if role not in allowed or (role in roles and not blocks) or not code.lstrip("-").isdigit():
            sys.exit(f"bench_stats: not a ROLE=EXIT of a new role: {pair!r}")
        roles.append(role)
        expected.append(int(code))
    return roles, expected


def main(argv):
    modes = {"--listing": (2, LISTING_ROLES), "--import": (3, IMPORT_ROLES),
             "--weights": (4, WEIGHTS_ROLES), "--backend": (2, BACKEND_ROLES),
             "--compile": (2, COMPILE_ROLES), "--precision": (3, PRECISION_ROLES),
             "--memory": (2, MEMORY_ROLES), "--limit": (4, LIMIT_ROLES)}
    mode = argv[1] if len(argv) > 1 and argv[1] in modes else ""
    args = argv[2:] if mode else argv[1:]
    named, allowed = modes.get(mode, (3, ROLES))  # the arguments before the roles, and the roles
    if len(args) <= named:
        sys.exit(__doc__)
    path = args[0]
    try:
        # --weights: the limits of the peak RSS (MiB) and of the time (s) after its samples
        sampled = mode in ("--weights", "--limit")
        goal = float(args[2] if sampled else args[1])
        limit_s = float(args[3]) if sampled else 0.0
    except ValueError:
        sys.exit(__doc__)
    roles, expected = parse_roles(args[named:], allowed, blocks=bool(mode))
    try:
        with open(path) as f:
            results = json.load(f)["results"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"ci/bench: {path} cannot be read: {error}", file=sys.stderr)
        return UNREADABLE
    problems = exit_code_problems(results, expected, path)
    try:
        samples = samples_of(results, args[1]) if sampled and not problems else []
        problems += sample_problems(samples, expected)
        if problems:
            print("\n".join(problems), file=sys.stderr)
            return MISBEHAVED
        if mode == "--listing":
            lines, within = listing_figures(results, roles, goal)
        elif mode == "--import":
            lines, within = import_figures(results, roles, goal, args[2])
        elif mode == "--weights":
            lines, within = weights_figures(results, roles, samples, goal, limit_s)
        elif mode == "--backend":
            lines, within = backend_figures(results, roles, goal)
        elif mode == "--compile":
            lines, within = compile_figures(results, roles, goal)
        elif mode == "--precision":
            lines, within = precision_figures(results, roles, goal, int(args[2]))
        elif mode == "--memory":
            lines, within = memory_figures(results, roles, goal)
        elif mode == "--limit":
            lines, within = limit_figures(results, roles, samples, goal, limit_s)
        else:
            lines, within = figures(results, roles, goal, args[2])
    except Unreadable as error:
        print(f"ci/bench: {path}: {error}", file=sys.stderr)
        return UNREADABLE
    print("\n".join(lines))
    return WITHIN if within else OVER


if __name__ == "__main__":
    sys.exit(main(sys.argv))
