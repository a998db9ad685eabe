#!/usr/bin/env bash
# The test docs.evidence: every folder under docs/evidence/ holds against the
# contract (kernodeck-evidence) and its junit.xml validates against the JUnit
# schema. No folder at all is fine: no evidence has been committed yet.
#   harness/evidence_folders.sh KERNODECK_EVIDENCE JUNIT_XSD
set -euo pipefail
checker=$1 xsd=$2
cd "$(dirname "$0")/.."
command -v xmllint >/dev/null || { echo "evidence_folders: xmllint is missing" >&2; exit 1; }

shopt -s nullglob
folders=()
for folder in docs/evidence/*/; do folders+=("${folder%/}"); done

status=0
"$checker" --allow-none "${folders[@]}" || status=1
for folder in "${folders[@]}"; do
  # A missing junit.xml is already one of kernodeck-evidence's problems.
  if [[ -f $folder/junit.xml ]]; then
    xmllint --noout --schema "$xsd" "$folder/junit.xml" || status=1
  fi
done
exit "$status"
