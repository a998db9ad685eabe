#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time (CTest test fuzz.<name>):
#   run_fuzzer.sh PROGRAM NAME SEEDS WORK_CORPUS RUNS SECONDS
# from the committed seeds (never written to) and a work corpus in the build tree. A crash,
# leak, timeout or broken property keeps the input in RUNS/<name>-crash-... and fails; so
# does a run that executed nothing. Prints the executions run and writes them to
# RUNS/<name>.execs; the whole log is RUNS/<name>.log.
set -euo pipefail
program=$1 name=$2 seeds=$3 work=$4 runs=$5 seconds=$6
mkdir -p "$work" "$runs"
log=$runs/$name.log
rm -f "$log" "$runs/$name.execs"
dict=()
if [[ -f $(dirname "$0")/$name.dict ]]; then dict=(-dict="$(dirname "$0")/$name.dict"); fi
status=0
"$program" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
  "${dict[@]}" -artifact_prefix="$runs/$name-" "$work" "$seeds" >"$log" 2>&1 || status=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
corpus=$(grep -o 'corp: [0-9]*/[0-9a-zA-Z]*' "$log" | tail -n 1 | cut -d' ' -f2)
if ((status != 0)); then
  echo "fuzz.$name: FAILED (exit $status) after ${execs:-an unknown number of} executions:" \
       "a crash, a leak or a broken property; the input is kept as $runs/$name-*."
  echo "---- end of $log ----"
  tail -n 60 "$log"
  exit 1
fi
if [[ -z $execs || $execs == 0 ]]; then
  echo "fuzz.$name: FAILED: the fuzzer executed no input (see $log)"
  tail -n 30 "$log"
  exit 1
fi
echo "$execs" >"$runs/$name.execs"
echo "fuzz.$name: $execs executions in ${seconds} s, corpus ${corpus:-?} (seeds: $(ls "$seeds" | wc -l)), no crash, leak or broken property"
