#!/usr/bin/env bash
# ci/bench --healthcheck [BUILD_DIR]: times ci/templates/slurm/kernodeck-healthcheck on a node of
# one GPU and on a node of eight, the GPUs simulated by the fault probe: starting each device
# takes KERNODECK_BENCH_DELAY_MS (2000, as a CUDA context takes seconds), then the check passes.
# The eight GPUs are checked at once: the goal is eight within KERNODECK_BENCH_GOAL (1.5) times
# one. For reference, the same eight checks one after another (what the health check did before)
# are timed too; KERNODECK_BENCH_SEQUENTIAL=0 leaves them out.
#
# BUILD_DIR as for ci/bench (the variant's, KERNODECK_TORCH); kernodeck-diagnostic and the fault
# probe are built there. KERNODECK_BENCH_RUNS (5), KERNODECK_BENCH_WARMUP (1). Needs hyperfine
# (./ci/setup --bench) and jq. Results: reports/bench-healthcheck.{json,md} and a verdict line;
# exit 0 within the goal, 1 over it, 2 when nothing could be measured. A measurement, not a test.
set -euo pipefail
die() {
  echo "ci/bench --healthcheck: $*" >&2
  exit 2
}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=ci/common.sh
source ci/common.sh
[[ $# -le 1 ]] || die "usage: ci/bench --healthcheck [BUILD_DIR]"
variant=${KERNODECK_TORCH:-}
kd_check_variant "$variant"
build_dir=${1:-$(kd_build_dir "$variant")}
runs=${KERNODECK_BENCH_RUNS:-5}
warmup=${KERNODECK_BENCH_WARMUP:-1}
goal=${KERNODECK_BENCH_GOAL:-1.5}
delay=${KERNODECK_BENCH_DELAY_MS:-2000}
sequential=${KERNODECK_BENCH_SEQUENTIAL:-1}
[[ $runs =~ ^[1-9][0-9]*$ && $warmup =~ ^[0-9]+$ ]] || die "runs and warmup must be integers"
[[ $goal =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "KERNODECK_BENCH_GOAL must be a number such as 1.5"
[[ $delay =~ ^[0-9]+$ ]] || die "KERNODECK_BENCH_DELAY_MS must be milliseconds"
for tool in hyperfine jq; do
  command -v "$tool" >/dev/null || die "$tool is required: run ./ci/setup --bench --prometheus"
done
if [[ ! -f $build_dir/CMakeCache.txt ]]; then
  args=()
  if [[ -z $variant ]]; then mapfile -t args < <(kd_own_torch_args); fi
  cmake --preset "$(kd_preset "$variant")" -B "$build_dir" "${args[@]}" >/dev/null
fi
cmake --build "$build_dir" --target kernodeck-diagnostic kd_fault_probe
check=$build_dir/bin/kernodeck-diagnostic
probe=$build_dir/fixtures/libkd_fault_probe.so
[[ -x $check && -f $probe ]] || die "$check or $probe was not built"

healthcheck=$root/ci/templates/slurm/kernodeck-healthcheck
textfile=$(mktemp -d "${TMPDIR:-/tmp}/kd-bench-health.XXXXXX")
trap 'rm -rf "$textfile"' EXIT
# SCONTROL=false: a GPU that failed would make the health check try to drain, fail, exit 2, and
# hyperfine stop: only passing runs are timed.
settings=(env KERNODECK_HEALTH_CONF=/nonexistent KERNODECK_CHECK="$check" KERNODECK_PROBE_MODULE="$probe"
          KERNODECK_FAULT="gpus=8,delay=$delay" KERNODECK_HEALTH_DEVICE=cuda SCONTROL=false
          KERNODECK_HEALTH_TEXTFILE_DIR="$textfile")
# hyperfine -N splits its command lines as a shell would: each word quoted.
line() { printf '%q ' "$@"; }
commands=(-n "kernodeck-healthcheck, 1 GPU" "$(line "${settings[@]}" KERNODECK_HEALTH_GPUS=1 "$healthcheck")"
          -n "kernodeck-healthcheck, 8 GPUs" "$(line "${settings[@]}" KERNODECK_HEALTH_GPUS=8 "$healthcheck")")
if [[ $sequential == 1 ]]; then
  one=$(line env KERNODECK_PROBE_MODULE="$probe" KERNODECK_FAULT="gpus=8,delay=$delay" "$check" --timeout 20)
  commands+=(-n "8 GPUs one after another (reference)"
             "$(line bash -c "for i in 0 1 2 3 4 5 6 7; do $one --device-index \$i >/dev/null || exit; done")")
fi
for gpus in 1 8; do
  "${settings[@]}" KERNODECK_HEALTH_GPUS=$gpus "$healthcheck" >/dev/null ||
    die "the health check did not pass on $gpus simulated GPUs; run it alone to see why"
done

mkdir -p reports
hyperfine -N --warmup "$warmup" --runs "$runs" --export-json reports/bench-healthcheck.json \
  --export-markdown reports/bench-healthcheck.md "${commands[@]}" || die "hyperfine failed"
jq -r --argjson goal "$goal" '
  .results as $r | ($r[1].mean / $r[0].mean) as $ratio
  | ($r[] | "\(.command): \(.mean * 1000 | round) ms ± \(.stddev * 1000 | round) ms"),
    "8 GPUs / 1 GPU = \($ratio * 100 | round / 100) (goal <= \($goal))",
    if ($ratio * 100 | round / 100) <= $goal then "within the goal" else "OVER THE GOAL" end
' reports/bench-healthcheck.json | tee "$textfile/verdict"
[[ $(tail -n 1 "$textfile/verdict") == "within the goal" ]]
