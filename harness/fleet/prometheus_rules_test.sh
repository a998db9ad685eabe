#!/usr/bin/env bash
# fleet.rules: ci/templates/prometheus/kernodeck-rules.yml is clean for promtool check rules, and
# its unit tests beside it (kernodeck-rules.test.yml) pass with promtool test rules.
#
#   prometheus_rules_test.sh SOURCE_ROOT
set -euo pipefail
command -v promtool >/dev/null || {
  echo "skipped: promtool is not installed (./ci/setup --prometheus installs Debian's prometheus)"
  exit 77
}
cd "$1/ci/templates/prometheus"
promtool check rules kernodeck-rules.yml
promtool test rules kernodeck-rules.test.yml
