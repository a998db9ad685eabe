#!/usr/bin/env bash
# ci/bench --application [BUILD_DIR]: what the application layer of the python probe costs, in
# real virtual environments of the build's torch wheel (python -m venv, the wheel's entries
# linked into its site-packages: torch and the distributions it requires, as ci/wheel-test makes
# them). Two measurements, each one hyperfine run of its commands side by side:
#
#   listing  `kernodeck-diagnostic --device cpu` in the environment of the wheel alone, and in the
#            same environment with KERNODECK_BENCH_DISTRIBUTIONS (200) more installed
#            distributions, made as pip leaves them by ci/bench_distributions.py (one in ten
#            requires torch, and the check lists it). Goal: the difference of the means under
#            KERNODECK_BENCH_LISTING_MS (50).
#   import   in the environment of the wheel with torchvision, pillow and numpy (the newest
#            <name>-<version> folder of each under KERNODECK_BENCH_EXTENSIONS, .tools/extensions,
#            as pip install --target leaves them: ./ci/setup --torch pypi), four commands:
#            python -c 'import torch', python -c 'import torch, torchvision', the check
#            --device cpu, and the check --device cpu --import torchvision. Goal: what --import
#            adds to the check at most KERNODECK_BENCH_IMPORT_GOAL (1.10) times what the import
#            of torchvision adds to python.
#   weights  (ci/bench --weights; not by default: it writes 2 x 2 GiB) one state_dict of float32
#            tensors of KERNODECK_BENCH_WEIGHTS_MIB (2048) MiB written with torch.save (big.pt) and
#            with safetensors.torch.save_file (big.safetensors) by ci/bench_weights.py into a
#            folder of TMPDIR, removed at the end; in the wheel's environment with safetensors
#            (the newest under KERNODECK_BENCH_EXTENSIONS; numpy too for the writer), three
#            commands: the check --device cpu, with --weights big.safetensors, with --weights
#            big.pt. Both files leave the page cache before every run (hyperfine --prepare), so a
#            run that reads their data pays for it; each run goes through ci/bench_weights.py run,
#            which records the peak resident memory of the check's processes and how much of each
#            file is in the page cache after it. Goal: each file adds at most
#            KERNODECK_BENCH_WEIGHTS_SECONDS (3) to the mean time, and its largest peak RSS is at
#            most KERNODECK_BENCH_WEIGHTS_RSS_MIB (128) over the median without weights.
#   backend  (ci/bench --backend) what the facts of the backend's own libraries (cuDNN, NCCL: the
#            pytorch block's cudnn and nccl) add to a run: in the wheel's environment, an
#            interpreter loading the python probe's functions and importing torch, without and with
#            computing the facts through the probe's own backend_libraries (ci/bench_backend.py;
#            the check's executable must hold that probe's text, and its report the same facts).
#            Goal: the difference of the means under KERNODECK_BENCH_BACKEND_MS (20). The check's
#            own figure (the `ms` of the probe's backend_libraries answer, the median of
#            KERNODECK_BENCH_BACKEND_ANSWERS (20) runs) is printed beside it.
#   precision (ci/bench --precision) the check --device cpu, and the same with --dtype float16
#            --dtype bfloat16 --dtype float8_e4m3fn --dtype float64, in the wheel's environment.
#            Goal: each precision adds under KERNODECK_BENCH_PRECISION_MS (50) (the difference of
#            the means over four).
#   memory   (ci/bench --memory) what the memory facts add to a run: an interpreter loading the
#            python probe's functions and importing torch, without and with the facts computed
#            through them (the three stages' resident memory, and a weights file's bytes against
#            what the process may use: ci/bench_backend.py memory), side by side; and the facts'
#            own figure, the median of KERNODECK_BENCH_BACKEND_ANSWERS (20) runs of them timed
#            alone in one interpreter (ci/bench_backend.py memory-ms), which a start of torch
#            (a σ of hundreds of ms here) cannot hide. Goal: that median under
#            KERNODECK_BENCH_MEMORY_MS (10); the difference of the means is shown beside it.
#   limit    (ci/bench --limit; root, a memory cgroup) the check --device cpu, and the same with
#            --weights of KERNODECK_BENCH_LIMIT_WEIGHTS_MIB (2048; a safetensors file of one float32
#            tensor, its data a hole), each started in a memory cgroup of the bench's own of
#            KERNODECK_BENCH_LIMIT_MIB (1536) (v1's memory.limit_in_bytes, or v2's memory.max where
#            this process's cgroup offers the memory controller to its children), where the check
#            answers OUT_OF_MEMORY (exit 9) before loading them; each run through
#            ci/bench_weights.py run for its peak resident memory. Goal: at most
#            KERNODECK_BENCH_LIMIT_SECONDS (1) added to the mean time, and the largest peak RSS with
#            the weights at most KERNODECK_BENCH_WEIGHTS_RSS_MIB (128) over the median without.
#   compile  (ci/bench --compile) the check --device cpu --compile against a Python script that
#            compiles and runs the same computation with the same torch through torch.compile
#            (ci/bench_backend.py compile), each with its caches in a new empty folder, in the
#            wheel's environment; KERNODECK_BENCH_COMPILE_RUNS (8) runs of each in the same
#            blocks. Goal: the ratio of the means at most KERNODECK_BENCH_COMPILE_GOAL (1.10).
#
# BUILD_DIR as for ci/bench (the variant's, KERNODECK_TORCH); the build must name its Python
# (KERNODECK_TORCH_PYTHON, the pypi variant), or KERNODECK_BENCH_PYTHON names one with a torch
# wheel. kernodeck-diagnostic is built there, unless KERNODECK_CHECK names the check to time.
# KERNODECK_BENCH_MEASURE (listing, import, weights, backend, precision, memory, compile; default
# listing import),
# KERNODECK_BENCH_RUNS (40: the runs of each command, in KERNODECK_BENCH_BLOCKS (4) blocks of an
# equal share, every other block in the reverse order: A B B A A B B A), KERNODECK_BENCH_WARMUP (1,
# before each block; each command has run once before timing). Needs hyperfine (./ci/setup
# --bench). Results: reports/bench-listing.{json,md,csv}, reports/bench-import.{json,md,csv},
# reports/bench-weights.{json,md,csv} (the samples of its runs in reports/bench-weights-samples/),
# reports/bench-backend.*, reports/bench-compile.*, the figures (ci/bench_stats.py --listing,
# --import, --weights, --backend, --compile) and a verdict line for each; exit
# 0 within every goal, 1 over one, 2 when something could not be measured. A measurement, not a
# test.
set -euo pipefail
die() {
  echo "ci/bench --application: $*" >&2
  exit 2
}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=ci/common.sh
source ci/common.sh
[[ $# -le 1 ]] || die "usage: ci/bench --application [BUILD_DIR]"
variant=${KERNODECK_TORCH:-}
kd_check_variant "$variant"
build_dir=${1:-$(kd_build_dir "$variant")}
runs=${KERNODECK_BENCH_RUNS:-40}
blocks=${KERNODECK_BENCH_BLOCKS:-4}
warmup=${KERNODECK_BENCH_WARMUP:-1}
count=${KERNODECK_BENCH_DISTRIBUTIONS:-200}
limit_ms=${KERNODECK_BENCH_LISTING_MS:-50}
goal=${KERNODECK_BENCH_IMPORT_GOAL:-1.10}
extensions=${KERNODECK_BENCH_EXTENSIONS:-.tools/extensions}
measure=${KERNODECK_BENCH_MEASURE:-listing import}
weights_mib=${KERNODECK_BENCH_WEIGHTS_MIB:-2048}
rss_limit=${KERNODECK_BENCH_WEIGHTS_RSS_MIB:-128}
seconds_limit=${KERNODECK_BENCH_WEIGHTS_SECONDS:-3}
backend_ms=${KERNODECK_BENCH_BACKEND_MS:-20}
precision_ms=${KERNODECK_BENCH_PRECISION_MS:-50}
limit_mib=${KERNODECK_BENCH_LIMIT_MIB:-1536}
limit_weights_mib=${KERNODECK_BENCH_LIMIT_WEIGHTS_MIB:-2048}
limit_seconds=${KERNODECK_BENCH_LIMIT_SECONDS:-1}
memory_ms=${KERNODECK_BENCH_MEMORY_MS:-10}
answers=${KERNODECK_BENCH_BACKEND_ANSWERS:-20}
compile_runs=${KERNODECK_BENCH_COMPILE_RUNS:-8}
compile_goal=${KERNODECK_BENCH_COMPILE_GOAL:-1.10}
[[ $runs =~ ^[1-9][0-9]*$ && $warmup =~ ^[0-9]+$ ]] || die "runs and warmup must be integers"
[[ $blocks =~ ^[1-9][0-9]*$ && $((blocks % 2)) -eq 0 && $blocks -le $runs ]] ||
  die "KERNODECK_BENCH_BLOCKS must be even (mirrored pairs), and no more than the runs"
[[ $count =~ ^[1-9][0-9]*$ ]] || die "KERNODECK_BENCH_DISTRIBUTIONS must be a positive integer"
[[ $limit_ms =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "KERNODECK_BENCH_LISTING_MS must be milliseconds"
[[ $goal =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
  die "KERNODECK_BENCH_IMPORT_GOAL must be a number such as 1.10"
[[ $weights_mib =~ ^[1-9][0-9]*$ ]] || die "KERNODECK_BENCH_WEIGHTS_MIB must be a positive integer"
[[ $rss_limit =~ ^[0-9]+(\.[0-9]+)?$ && $seconds_limit =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
  die "KERNODECK_BENCH_WEIGHTS_RSS_MIB and KERNODECK_BENCH_WEIGHTS_SECONDS must be numbers"
[[ $backend_ms =~ ^[0-9]+(\.[0-9]+)?$ && $compile_goal =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
  die "KERNODECK_BENCH_BACKEND_MS and KERNODECK_BENCH_COMPILE_GOAL must be numbers"
[[ $answers =~ ^[1-9][0-9]*$ && $compile_runs =~ ^[1-9][0-9]*$ ]] ||
  die "KERNODECK_BENCH_BACKEND_ANSWERS and KERNODECK_BENCH_COMPILE_RUNS must be positive integers"
for m in $measure; do
  [[ $m =~ ^(listing|import|weights|backend|precision|memory|limit|compile)$ ]] ||
    die "KERNODECK_BENCH_MEASURE names listing, import, weights, backend, precision, memory," \
        "limit, compile or some of them"
done
command -v hyperfine >/dev/null || die "hyperfine is required: run ./ci/setup --bench"
# The environments are made here: nothing from the caller's may reach them.
unset KERNODECK_PROBE_MODULE KERNODECK_TORCH_DIR PYTHONPATH PYTHONHOME PYTHONSTARTUP

# The build dir gives the check and its Python unless both are named.
if [[ -z ${KERNODECK_CHECK:-} || -z ${KERNODECK_BENCH_PYTHON:-} ]] &&
   [[ ! -f $build_dir/CMakeCache.txt ]]; then
  args=()
  if [[ -z $variant ]]; then mapfile -t args < <(kd_own_torch_args); fi
  cmake --preset "$(kd_preset "$variant")" -B "$build_dir" "${args[@]}" >/dev/null
fi
[[ -n ${KERNODECK_CHECK:-} ]] || cmake --build "$build_dir" --target kernodeck-diagnostic
check=$(realpath "${KERNODECK_CHECK:-$build_dir/bin/kernodeck-diagnostic}")
[[ -x $check ]] || die "$check is not an executable"
python=${KERNODECK_BENCH_PYTHON:-$(sed -n 's/^KERNODECK_TORCH_PYTHON:[A-Z]*=//p' \
                                     "$build_dir/CMakeCache.txt")}
[[ -n $python ]] || die "the build names no Python (KERNODECK_TORCH_PYTHON, the pypi variant):" \
                        "KERNODECK_BENCH_PYTHON names one with a torch wheel"
[[ -x $python ]] || die "$python is not an executable"
wheel_site=$(kd_torch_site "$python") || die "$python does not run"
[[ -n $wheel_site && -d $wheel_site/torch ]] || die "$python has no torch package"
mapfile -t wheel < <(kd_torch_wheel_entries "$python" "$wheel_site")
[[ ${#wheel[@]} -gt 0 ]] || die "no torch wheel found in $wheel_site (no torch-*.dist-info?)"

work=$(mktemp -d "${TMPDIR:-/tmp}/kd-bench-application.XXXXXX")
trap 'rm -rf "$work"' EXIT

site_of() {  # site_of ENV: its site-packages
  "$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'
}
# make_env ENV: a virtual environment of $python's base interpreter, the wheel's entries linked.
make_env() {
  local site entry
  "$python" -m venv --without-pip "$1" || die "$python -m venv $1 failed"
  site=$(site_of "$1")
  for entry in "${wheel[@]}"; do ln -s "$wheel_site/$entry" "$site/$entry"; done
}
dist_infos() {  # dist_infos SITE: how many distributions it holds
  find -L "$1" -mindepth 1 -maxdepth 1 \( -name '*.dist-info' -o -name '*.egg-info' \) | wc -l
}
# run_check ENV REPORT ARGS...: the check with ENV's interpreter; passes through its python
# probe, or dies.
run_check() {
  local env=$1 report=$2 status=0
  shift 2
  KERNODECK_TORCH_PYTHON=$env/bin/python "$check" "$@" >"$report" 2>/dev/null || status=$?
  if [[ $status -ne 0 ]] || ! grep -q '"probe": "python"' "$report"; then
    die "the check ($*) in $env gave exit $status, or no python probe; run it alone to see why"
  fi
}
# hyperfine -N splits command lines itself; single quotes protect paths.
quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
checked() {  # checked ENV ARGS...: the check's command line with ENV's interpreter
  local env=$1
  shift
  echo "env KERNODECK_TORCH_PYTHON=$(quote "$env/bin/python") $(quote "$check") $*"
}
# timed NAME BENCH_STATS_ARGS... -- ROLE LABEL COMMAND...: one hyperfine run into
# reports/bench-NAME.* of the commands in $blocks blocks of an equal share of the runs, every
# other block in the reverse order (A B B A A B B A): hyperfine times all the runs of a command
# before the next, and a machine shared with other work drifts, which would weigh on one side of
# a difference; mirrored blocks weigh it on both. Then the figures, and the verdict
# (ci/bench_stats.py's exit status: 0, 1, 2 or 3) in `verdict`. Where the caller sets them,
# `prepare` runs before every run (hyperfine --prepare), and each command runs as
# "$wrap $samples/K.jsonl -- COMMAND", K its place in hyperfine's order.
timed() {
  local name=$1 stats=() roles=() labels=() commands=() args=() extra=() command b i k n
  shift
  while [[ $1 != -- ]]; do stats+=("$1"); shift; done
  shift
  while [[ $# -gt 0 ]]; do roles+=("$1"); labels+=("$2"); commands+=("$3"); shift 3; done
  n=${#roles[@]}
  for ((b = 0; b < blocks; b++)); do
    for ((k = 0; k < n; k++)); do
      i=$((b % 2 == 0 ? k : n - 1 - k))
      # A role given as ROLE=EXIT ends with that exit status (OUT_OF_MEMORY: 9), else 0.
      if [[ ${roles[i]} == *=* ]]; then stats+=("${roles[i]}"); else stats+=("${roles[i]}=0"); fi
      command=${commands[i]}
      if [[ -n ${wrap:-} ]]; then
        command="$wrap $(quote "$samples/$((${#args[@]} / 3 + 1)).jsonl") -- $command"
      fi
      args+=(-n "${labels[i]} [$((b + 1))]" "$command")
    done
  done
  if [[ -n ${prepare:-} ]]; then extra=(--prepare "$prepare"); fi
  if [[ " ${roles[*]}" == *=* ]]; then extra+=(--ignore-failure); fi
  rm -f "reports/bench-$name".{json,md,csv}
  hyperfine -N --warmup "$warmup" --runs "$(((runs + blocks - 1) / blocks))" "${extra[@]}" \
    --export-json "reports/bench-$name.json" --export-markdown "reports/bench-$name.md" \
    --export-csv "reports/bench-$name.csv" "${args[@]}" || die "hyperfine failed ($name)"
  python3 ci/bench_stats.py "${stats[@]}" || verdict=$?
}

measure_listing() {
  local bare=$work/bare many=$work/many site expected listed missing
  make_env "$bare"
  make_env "$many"
  site=$(site_of "$many")
  expected=$("$many/bin/python" ci/bench_distributions.py make "$site" "$count") ||
    die "could not make the distributions in $site"
  echo "listing: $(dist_infos "$(site_of "$bare")") distributions in the wheel's environment," \
       "$(dist_infos "$site") in the other, $(wc -l <<<"$expected") of the $count added" \
       "requiring torch"
  run_check "$bare" "$work/bare.json" --device cpu
  run_check "$many" "$work/many.json" --device cpu
  listed=$(python3 ci/bench_distributions.py listed "$work/many.json")
  missing=$(comm -23 <(sort <<<"$expected") <(sort <<<"$listed"))
  [[ -z $missing ]] || die "the check did not list $(wc -l <<<"$missing") of the distributions" \
                           "that require torch (the first: $(head -n 1 <<<"$missing"))"
  timed listing --listing "reports/bench-listing.json" "$limit_ms" -- \
    check_without "check --device cpu, the wheel alone" "$(checked "$bare" --device cpu)" \
    check_with "check --device cpu, $count distributions more" "$(checked "$many" --device cpu)"
}

# The newest <name>-<version> folder of KERNODECK_BENCH_EXTENSIONS.
newest() {
  local found
  found=$(find -L "$extensions" -mindepth 1 -maxdepth 1 -type d -name "$1-[0-9]*" | sort -V |
          tail -n 1)
  [[ -n $found ]] || die "no $extensions/$1-<version>: run ./ci/setup --torch pypi"
  realpath "$found"
}

# link_into ENV FOLDER...: the entries of each FOLDER (as pip install --target leaves them) linked
# into ENV's site-packages.
link_into() {
  local site folder entry
  site=$(site_of "$1")
  shift
  for folder in "$@"; do
    for entry in "$folder"/*; do
      # bin/ holds the console scripts --target leaves beside the packages.
      [[ $(basename "$entry") != bin && ! -e $site/$(basename "$entry") ]] || continue
      ln -s "$entry" "$site/$(basename "$entry")"
    done
  done
}

measure_import() {
  local app=$work/app folder py torchvision pillow numpy
  torchvision=$(newest torchvision)
  pillow=$(newest pillow)
  numpy=$(newest numpy)
  make_env "$app"
  for folder in "$torchvision" "$pillow" "$numpy"; do echo "import: $(basename "$folder")"; done
  link_into "$app" "$torchvision" "$pillow" "$numpy"
  py=$app/bin/python
  "$py" -c 'import torch, torchvision' 2>/dev/null ||
    die "$py -c 'import torch, torchvision' failed (a torchvision made for another torch?)"
  run_check "$app" "$work/app.json" --device cpu --import torchvision
  grep -q '"imported": true' "$work/app.json" ||
    die "the check did not import torchvision ($work/app.json)"
  timed import --import "reports/bench-import.json" "$goal" torchvision -- \
    python_torch "python -c 'import torch'" "$(quote "$py") -c 'import torch'" \
    python_both "python -c 'import torch, torchvision'" \
    "$(quote "$py") -c 'import torch, torchvision'" \
    check_plain "check --device cpu" "$(checked "$app" --device cpu)" \
    check_import "check --device cpu --import torchvision" \
    "$(checked "$app" --device cpu --import torchvision)"
}

measure_weights() {
  local app=$work/weights-app writer=$work/weights-writer files=$work/weights safetensors numpy
  local st pt tensors bytes free_kib shown file kind wrapper wrap prepare samples
  safetensors=$(newest safetensors)
  numpy=$(newest numpy)
  make_env "$app"
  link_into "$app" "$safetensors"
  make_env "$writer"
  link_into "$writer" "$safetensors" "$numpy"
  "$app/bin/python" -c 'import safetensors' 2>/dev/null ||
    die "$app/bin/python cannot import $(basename "$safetensors")"
  mkdir "$files"
  free_kib=$(df -Pk "$files" | awk 'NR == 2 { print $4 }')
  [[ $free_kib -ge $(((2 * weights_mib + 64) * 1024)) ]] ||
    die "$((free_kib / 1024)) MiB free in $files, for 2 x $weights_mib MiB of weights (TMPDIR" \
        "names another folder)"
  echo "weights: writing 2 x $weights_mib MiB into $files ($(stat -f -c %T "$files"))," \
       "$(basename "$safetensors"), $(basename "$numpy") for its writer"
  read -r tensors bytes < <("$writer/bin/python" ci/bench_weights.py make "$files" \
                            "$weights_mib") ||
    die "$writer/bin/python ci/bench_weights.py make $files $weights_mib failed; run it to see why"
  st=$files/big.safetensors pt=$files/big.pt
  echo "weights: $tensors float32 tensors, $bytes bytes, in each of big.safetensors and big.pt;" \
       "in the page cache once written:"
  python3 ci/bench_weights.py cached "$st" "$pt" | sed 's/^/  /'
  # A run that reads the data must find it on the disk, not in the page cache: both files leave
  # the cache before every run (a file system that keeps them, a tmpfs, is refused).
  python3 ci/bench_weights.py evict "$st" "$pt" ||
    die "the page cache keeps the weights in $files: TMPDIR names a folder on a disk"
  run_check "$app" "$work/bare.json" --device cpu
  for file in "$st" "$pt"; do
    kind=safetensors
    [[ $file == "$st" ]] || kind=torch_zip
    python3 ci/bench_weights.py evict "$st" "$pt" || die "could not evict the weights"
    run_check "$app" "$work/$kind.json" --device cpu --weights "$file"
    python3 ci/bench_weights.py verify "$work/$kind.json" "$kind" "$tensors" "$bytes" ||
      die "the check did not open $(basename "$file") as expected ($work/$kind.json)"
    shown=$(python3 ci/bench_weights.py cached "$file")
    echo "weights: the check opened $(basename "$file") (verified), the file out of the page" \
         "cache; after it, ${shown#*: }"
  done
  # The wrapper runs under the interpreter itself: a launcher's start (pyenv's shim) would add
  # its noise to every run.
  wrapper=$(python3 -c 'import sys; print(sys.executable)')
  samples=$root/reports/bench-weights-samples
  rm -rf "$samples"
  mkdir -p "$samples"
  wrap="$(quote "$wrapper") $(quote "$root/ci/bench_weights.py") run --cached $(quote "$st")"
  wrap+=" --cached $(quote "$pt")"
  prepare="$(quote "$wrapper") $(quote "$root/ci/bench_weights.py") evict $(quote "$st")"
  prepare+=" $(quote "$pt")"
  timed weights --weights "reports/bench-weights.json" "$samples" "$rss_limit" \
    "$seconds_limit" -- \
    check_bare "check --device cpu" "$(checked "$app" --device cpu)" \
    check_safetensors "check --device cpu --weights big.safetensors" \
    "$(checked "$app" --device cpu --weights "$(quote "$st")")" \
    check_torch_zip "check --device cpu --weights big.pt" \
    "$(checked "$app" --device cpu --weights "$(quote "$pt")")"
}

measure_backend() {
  # The python probe as the build joined it from its sections (check/CMakeLists.txt), the
  # program the check embeds.
  local env=$work/backend py probe=$build_dir/check/python_probe.py figures
  [[ -f $probe ]] || die "$probe is not there: configure $build_dir (ci/bench configures it)"
  make_env "$env"
  py=$env/bin/python
  python3 ci/bench_backend.py embedded "$check" "$probe" ||
    die "$check does not hold $probe as it is: rebuild it, or name the check built from it"
  run_check "$env" "$work/backend.json" --device cpu
  "$py" ci/bench_backend.py show "$probe" >"$work/facts.json" ||
    die "$py ci/bench_backend.py show failed; run it to see why"
  python3 ci/bench_backend.py same "$work/backend.json" "$work/facts.json" ||
    die "the check's report and the facts computed here differ (above)"
  echo "backend: the facts, as the check reports them:" \
       "$(python3 -c 'import json, sys; print(json.dumps({k: v for k, v in json.load(sys.stdin).items() if k in ("cudnn", "nccl", "miopen", "rccl")}, sort_keys=True))' <"$work/facts.json")"
  figures=$(python3 ci/bench_backend.py answered "$py" "$probe" "$answers") ||
    die "the probe's own backend_libraries figure could not be read"
  echo "backend: the probe's own answer (backend_libraries' ms, $answers runs): $(head -n 1 <<<"$figures");" \
       "median $(tail -n 1 <<<"$figures") ms"
  timed backend --backend "reports/bench-backend.json" "$backend_ms" -- \
    python_import "python: import torch, the probe's functions" \
    "$(quote "$py") $(quote "$root/ci/bench_backend.py") import $(quote "$probe")" \
    python_facts "python: the same, then the backend's facts" \
    "$(quote "$py") $(quote "$root/ci/bench_backend.py") facts $(quote "$probe")"
}

measure_precision() {
  local env=$work/precision dtypes=(float16 bfloat16 float8_e4m3fn float64) asked=() d
  make_env "$env"
  for d in "${dtypes[@]}"; do asked+=(--dtype "$d"); done
  run_check "$env" "$work/precision.json" --device cpu "${asked[@]}"
  [[ $(grep -c '"verified": true' "$work/precision.json") -ge ${#dtypes[@]} ]] ||
    die "the check did not verify the ${#dtypes[@]} precisions ($work/precision.json)"
  timed precision --precision "reports/bench-precision.json" "$precision_ms" "${#dtypes[@]}" -- \
    check_float32 "check --device cpu" "$(checked "$env" --device cpu)" \
    check_precisions "check --device cpu, ${#dtypes[@]} precisions" \
    "$(checked "$env" --device cpu "${asked[*]}")"
}

measure_memory() {
  local env=$work/memory py probe=$build_dir/check/python_probe.py file=$work/model.safetensors
  local figures own
  [[ -f $probe ]] || die "$probe is not there: configure $build_dir (ci/bench configures it)"
  make_env "$env"
  py=$env/bin/python
  python3 ci/bench_backend.py embedded "$check" "$probe" ||
    die "$check does not hold $probe as it is: rebuild it, or name the check built from it"
  # A safetensors file of one float32 tensor of 2 by 2: its header is what is read.
  python3 -c 'import json, struct, sys
h = json.dumps({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}).encode()
open(sys.argv[1], "wb").write(struct.pack("<Q", len(h)) + h + bytes(16))' "$file"
  "$py" ci/bench_backend.py memory "$probe" "$file" ||
    die "$py ci/bench_backend.py memory failed; run it to see why"
  figures=$("$py" ci/bench_backend.py memory-ms "$probe" "$file" "$answers") ||
    die "the memory facts' own figure could not be taken"
  own=$(tail -n 1 <<<"$figures")
  echo "memory: the facts' own figure ($answers runs, ms): $(head -n 1 <<<"$figures"); median $own ms" \
       "(goal < $memory_ms ms)"
  timed memory --memory "reports/bench-memory.json" "$memory_ms" -- \
    python_import "python: import torch, the probe's functions" \
    "$(quote "$py") $(quote "$root/ci/bench_backend.py") import $(quote "$probe")" \
    python_memory "python: the same, then the memory facts" \
    "$(quote "$py") $(quote "$root/ci/bench_backend.py") memory $(quote "$probe") $(quote "$file")"
  # The verdict rests on the facts' own figure; the side-by-side difference is shown with its
  # error, which a run that misbehaved (2, 3) still decides.
  if ((verdict < 2)); then
    verdict=0
    python3 -c 'import sys; sys.exit(float(sys.argv[1]) >= float(sys.argv[2]))' "$own" \
      "$memory_ms" || verdict=1
  fi
}

# A memory cgroup of the bench's own of $1 MiB, its folder on stdout: a child of this process's
# (v1's memory hierarchy, or v2's where it offers the memory controller to its children).
memory_group() {
  local path folder
  path=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
  if [[ -n $path && -d /sys/fs/cgroup/memory$path ]]; then
    folder=/sys/fs/cgroup/memory$path/kd-bench-$$
    mkdir "$folder" && echo $(($1 << 20)) >"$folder/memory.limit_in_bytes" || return 1
  else
    path=$(awk -F: '$1 == 0 { print $3 }' /proc/self/cgroup)
    grep -qw memory "/sys/fs/cgroup$path/cgroup.subtree_control" 2>/dev/null || return 1
    folder=/sys/fs/cgroup$path/kd-bench-$$
    mkdir "$folder" && echo $(($1 << 20)) >"$folder/memory.max" || return 1
  fi
  echo "$folder"
}

measure_limit() {
  local env=$work/limit file=$work/limit.safetensors group wrapper in_group
  make_env "$env"
  group=$(memory_group "$limit_mib") ||
    die "no memory cgroup of $limit_mib MiB could be made here (needs root, and cgroup v1's" \
        "memory hierarchy or v2's memory controller offered to this process's children)"
  trap 'rmdir "$group" 2>/dev/null || true' RETURN
  python3 -c 'import json, struct, sys
size = int(sys.argv[2]) << 20
h = json.dumps({"w": {"dtype": "F32", "shape": [size // 4 // 1024, 1024],
                      "data_offsets": [0, size]}}).encode()
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h)
    f.truncate(8 + len(h) + size)' "$file" "$limit_weights_mib"
  # The command, started in the group: sh enters it, then becomes the check.
  in_group="sh -c $(quote "echo \$\$ >$group/cgroup.procs && exec \"\$0\" \"\$@\"")"
  KERNODECK_TORCH_PYTHON=$env/bin/python sh -c "echo \$\$ >$group/cgroup.procs && exec \"\$0\" \"\$@\"" \
    "$check" --device cpu --weights "$file" >"$work/limit.json" 2>/dev/null || true
  grep -q '"type": "WeightsExceedMemory"' "$work/limit.json" ||
    die "the check did not answer WeightsExceedMemory in the group ($work/limit.json)"
  echo "limit: $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["message"].split(". ")[0])' "$work/limit.json")"
  wrapper=$(python3 -c 'import sys; print(sys.executable)')
  samples=$root/reports/bench-limit-samples
  rm -rf "$samples"
  mkdir -p "$samples"
  wrap="$(quote "$wrapper") $(quote "$root/ci/bench_weights.py") run"
  timed limit --limit "reports/bench-limit.json" "$samples" "$rss_limit" "$limit_seconds" -- \
    check_bare "check --device cpu, in the group" \
    "$in_group $(checked "$env" --device cpu)" \
    check_limited=9 "check --weights ($limit_weights_mib MiB), in the group" \
    "$in_group $(checked "$env" --device cpu --weights "$(quote "$file")")"
}

measure_compile() {
  local env=$work/compile py
  make_env "$env"
  py=$env/bin/python
  "$py" ci/bench_backend.py compile || die "$py ci/bench_backend.py compile failed"
  run_check "$env" "$work/compile.json" --device cpu --compile --timeout 120
  grep -q '"verified": true' "$work/compile.json" ||
    die "the check did not verify the compiled computation ($work/compile.json)"
  warmup=0 runs=$compile_runs timed compile --compile "reports/bench-compile.json" "$compile_goal" -- \
    check_compile "check --device cpu --compile" \
    "$(checked "$env" --device cpu --compile --timeout 120)" \
    python_compile "python: import torch, compile, run" \
    "$(quote "$py") $(quote "$root/ci/bench_backend.py") compile"
}

mkdir -p reports
worst=0
for m in $measure; do
  verdict=0
  case $m in
    listing) measure_listing ;;
    import) measure_import ;;
    weights) measure_weights ;;
    backend) measure_backend ;;
    precision) measure_precision ;;
    memory) measure_memory ;;
    limit) measure_limit ;;
    compile) measure_compile ;;
  esac
  status=$verdict
  case $status in
    0) echo "$m: within the goal" ;;
    1) echo "$m: OVER THE GOAL (rerun on a quiet machine before concluding)" ;;
    2) echo "$m: a timed command did not end as it did before timing: the figures are discarded" ;;
    *) echo "$m: the figures could not be read" ;;
  esac
  if [[ $status -ge 2 ]]; then
    worst=2
  elif [[ $status -eq 1 && $worst -eq 0 ]]; then
    worst=1
  fi
done
exit "$worst"
