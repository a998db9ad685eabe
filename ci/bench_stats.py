#!/usr/bin/env python3
"""The figures and the verdict of ci/bench, from hyperfine's JSON export (standard library only).

  bench_stats.py BENCH_JSON GOAL GPU_NAME ROLE=EXIT...

One ROLE=EXIT per timed command, in hyperfine's order: the command's role (floor_cpu, floor_exit,
check_cpu, floor_gpu, check_gpu, python, check_python, python_script; the first three always)
and the exit code each of its
runs must end with. GPU_NAME is the GPU library's name (libtorch_cuda), "" for a CPU-only
libtorch. Prints the figures and the ratios; exits 0 when check/floor, as printed, is within
GOAL, 1 over it, 2 when a run did not end as expected (the figures are discarded), 3 when the
export cannot be read.
"""
import json
import math
import sys

ROLES = ("floor_cpu", "floor_exit", "check_cpu", "floor_gpu", "check_gpu", "python",
         "check_python", "python_script")
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


def figures(results, roles, goal, gpu):
    """(lines, within the goal) of the timed commands, by role."""
    stats = {}
    for role, result in zip(roles, results):
        try:
            mean, sd, median = (float(result[key]) for key in ("mean", "stddev", "median"))
        except (KeyError, TypeError, ValueError) as error:
            raise Unreadable(f"no figures for {role}: {error}") from error
        if mean <= 0:
            raise Unreadable(f"the mean of {role} is {mean}")
        stats[role] = (mean, sd, median)
    for role in ("floor_cpu", "floor_exit", "check_cpu"):
        if role not in stats:
            raise Unreadable(f"no {role} command")
    goal_floor = "floor_gpu" if "floor_gpu" in stats else "floor_cpu"
    names = {"floor_cpu": "libtorch_cpu floor", "floor_gpu": f"{gpu} floor"}
    mean = {role: s[0] for role, s in stats.items()}
    lines, noisy = [], []

    def figure(label, role, against=None):
        m, sd, _ = stats[role]
        line = f"{label:<28} {m * 1000:8.1f} ms ± {sd * 1000:6.1f} ms"
        if against:
            line += f"  ({(m - mean[against]) * 1000:+.1f} ms against the {names[against]})"
        lines.append(line)
        if sd / m > 0.05:
            noisy.append(label)

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
        lines.append(f"warning: noisy run (σ above 5% of the mean: {', '.join(noisy)}): rerun on a"
                     " quiet machine before trusting the ratios")
    if goal_floor != "floor_cpu":
        lines.append(f"goal: check --device cpu against the {gpu} floor (the library its probe"
                     " links)")
    lines.append(f"medians: check/floor = {stats['check_cpu'][2] / stats[goal_floor][2]:.2f}")
    lines.append(f"check/floor = {ratio('check_cpu', goal_floor):.2f} ± "
                 f"{spread('check_cpu', goal_floor):.2f} (goal <= {goal:.2f})")
    # The printed (rounded) ratio is compared, so that the verdict agrees with the line.
    return lines, float(f"{ratio('check_cpu', goal_floor):.2f}") <= goal


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__)
    path, goal, gpu = argv[1], float(argv[2]), argv[3]
    roles, expected = [], []
    for pair in argv[4:]:
        role, _, code = pair.partition("=")
        if role not in ROLES or role in roles or not code.lstrip("-").isdigit():
            sys.exit(f"bench_stats: not a ROLE=EXIT of a new role: {pair!r}")
        roles.append(role)
        expected.append(int(code))
    try:
        with open(path) as f:
            results = json.load(f)["results"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"ci/bench: {path} cannot be read: {error}", file=sys.stderr)
        return UNREADABLE
    problems = exit_code_problems(results, expected, path)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return MISBEHAVED
    try:
        lines, within = figures(results, roles, goal, gpu)
    except Unreadable as error:
        print(f"ci/bench: {path}: {error}", file=sys.stderr)
        return UNREADABLE
    print("\n".join(lines))
    return WITHIN if within else OVER


if __name__ == "__main__":
    sys.exit(main(sys.argv))
