#!/usr/bin/env bash
# fleet.prometheus: the metrics and the alert end to end, with Debian's real daemons on
# 127.0.0.1 (free ports picked here, nothing on another address):
#   1. kernodeck-healthcheck on a node of four GPUs of which the driver has three (the real check
#      with the fault probe): GPU 3 fails with DEVICE_INDEX_INVALID, its metrics go to the
#      textfile folder;
#   2. prometheus-node-exporter (the textfile collector alone, on that folder) serves them, with
#      no textfile error;
#   3. prometheus scrapes it every second and evaluates the shipped rules
#      (ci/templates/prometheus/kernodeck-rules.yml, unchanged) every second: exactly GPU 3 has
#      kernodeck_check_passed 0 of four GPUs, and KernodeckGpuCheckFailed is pending or firing
#      for GPU 3 alone, with its code, layer and fault (the node's); KernodeckCheckStale is not;
#   4. every process it started is gone afterwards (killed by its pid, waited for, checked in
#      /proc); under setpriv --pdeathsig the daemons also die if this script is killed.
#
#   prometheus_test.sh CHECK FAULT_PROBE SOURCE_ROOT
set -euo pipefail
# shellcheck source=harness/fleet/health_lib.sh
source "$(dirname "$0")/health_lib.sh"
for tool in prometheus prometheus-node-exporter promtool curl setpriv python3; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (./ci/setup --prometheus)"
done
rules=$root/ci/templates/prometheus/kernodeck-rules.yml

daemons=()
stop_daemons() {
  local pid
  for pid in "${daemons[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${daemons[@]}"; do wait "$pid" 2>/dev/null || true; done
}
on_exit+=(stop_daemons)
# A port nothing listens on now (the kernel picks it; a daemon that then fails to bind it says so).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# start NAME COMMAND...: in the background, its output in $work/NAME.log, ended with this script.
start() {
  local name=$1
  shift
  setpriv --pdeathsig KILL "$@" >"$work/$name.log" 2>&1 &
  daemons+=($!)
}
wait_for() {  # wait_for SECONDS WHAT COMMAND...
  local limit=$1 what=$2 deadline
  shift 2
  deadline=$((SECONDS + limit))
  until "$@"; do
    if ((SECONDS >= deadline)); then
      for log in "$work"/*.log; do echo "---- ${log##*/}:" >&2; tail -n 20 "$log" >&2; done
      fail "$what, not within $limit s"
    fi
    sleep 0.5
  done
}

# 1. The health check.
mkdir "$work/textfile"
run_health node KERNODECK_HEALTH_TEXTFILE_DIR="$work/textfile" KERNODECK_HEALTH_GPUS=4 \
  KERNODECK_FAULT=gpus=3
expect "the health check's exit (stderr: $(cat "$work/node.err"))" "$status" 1
echo "1. health check: $(scontrol_calls | sed 's/.*Reason=//')"

# 2. node_exporter on the textfile folder.
exporter=127.0.0.1:$(free_port)
start node-exporter prometheus-node-exporter --web.listen-address="$exporter" \
  --collector.disable-defaults --collector.textfile --collector.textfile.directory="$work/textfile"
exported() { curl -fsS "http://$exporter/metrics" >"$work/exported.txt" 2>/dev/null; }
wait_for 20 "node_exporter serving on $exporter" exported
grep -qx 'kernodeck_check_passed{gpu="3"} 0' "$work/exported.txt" ||
  fail "node_exporter does not serve GPU 3's failure: $(grep kernodeck "$work/exported.txt")"
grep -qx 'node_textfile_scrape_error 0' "$work/exported.txt" ||
  fail "node_exporter could not read the textfile folder: $(grep node_textfile "$work/exported.txt")"
echo "2. node_exporter on $exporter serves $(grep -c '^kernodeck_' "$work/exported.txt") kernodeck samples"

# 3. Prometheus scraping it, with the shipped rules.
server=127.0.0.1:$(free_port)
cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $rules
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["$exporter"]
YML
promtool check config "$work/prometheus.yml" >"$work/check-config.txt" ||
  fail "promtool check config: $(cat "$work/check-config.txt")"
start prometheus prometheus --config.file="$work/prometheus.yml" \
  --storage.tsdb.path="$work/tsdb" --web.listen-address="$server"
api() { curl -fsS "http://$server/api/v1/$1" 2>/dev/null; }
query() { curl -fsS "http://$server/api/v1/query" --data-urlencode "query=$1" 2>/dev/null; }
alerts() {
  api alerts | jq -c '[.data.alerts[] | select(.labels.alertname | startswith("Kernodeck"))
                      | {name: .labels.alertname, state, gpu: .labels.gpu, code: .labels.code,
                         layer: .labels.layer, fault: .labels.fault}]' >"$work/alerts.json" 2>/dev/null &&
    [[ $(jq length "$work/alerts.json") -gt 0 ]]
}
wait_for 60 "an alert from Prometheus on $server" alerts
expect "the alerts" "$(jq -c 'map(del(.state))' "$work/alerts.json")" \
  '[{"name":"KernodeckGpuCheckFailed","gpu":"3","code":"DEVICE_INDEX_INVALID","layer":"device","fault":"node"}]'
state=$(jq -r '.[0].state' "$work/alerts.json")
[[ $state == pending || $state == firing ]] || fail "KernodeckGpuCheckFailed is $state"
expect "GPUs scraped" "$(query 'count(kernodeck_check_passed)' | jq -r '.data.result[0].value[1]')" 4
expect "GPUs failed" "$(query 'kernodeck_check_passed == 0' | jq -c '[.data.result[].metric.gpu]')" '["3"]'
expect "exit code of GPU 3" \
  "$(query 'kernodeck_check_exit_code{gpu="3"}' | jq -r '.data.result[0].value[1]')" 7
loaded=$(api rules | jq -c '[.data.groups[].rules[] | select(.health == "ok") | .name] | sort')
expect "the shipped rules, loaded and evaluated" "$loaded" '["KernodeckCheckStale","KernodeckGpuCheckFailed"]'
echo "3. Prometheus on $server: KernodeckGpuCheckFailed $state for GPU 3 alone (DEVICE_INDEX_INVALID, device, the node's fault)"

# 4. Nothing left.
pids=("${daemons[@]}")
stop_daemons
daemons=()
for pid in "${pids[@]}"; do
  [[ ! -e /proc/$pid ]] || fail "process $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline")) is still there"
done
left=$(ours)
[[ -z $left ]] || fail "processes of the checks left running: $left"
echo "4. node_exporter and Prometheus stopped (pids ${pids[*]}), no process left"
echo "passed"
