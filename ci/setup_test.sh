#!/usr/bin/env bash
# ci.setup_room: ./ci/setup asks for the room its large downloads take before pip runs out of it.
# The real script, copied into a fresh tree (no .tools/ yet), installs torch for the pypi variant
# with its temporary folder on a file system of 16 MiB (a tmpfs in a mount namespace of its own):
# it must stop before downloading anything and say what needs the room, where, and what is free,
# instead of pip's "No space left on device" after minutes of download.
#   setup_test.sh REPO
set -uo pipefail
repo=$(realpath "$1")
if [[ $(id -u) != 0 ]] || ! unshare -m true 2>/dev/null; then
  echo "skipped: a tmpfs in a mount namespace of its own needs root (unshare -m)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/ci" "$tmp/small" "$tmp/bin"
cp "$repo/ci/setup" "$tmp/tree/ci/setup"
# The Debian packages are ./ci/setup --torch pypi's first step; a test installs none.
printf '#!/bin/sh\necho "apt-get: not from this test" >&2\nexit 100\n' >"$tmp/bin/apt-get"
chmod +x "$tmp/bin/apt-get"
PATH="$tmp/bin:$PATH" unshare -m bash -c '
  mount -t tmpfs -o size=16m tmpfs "$1/small" &&
  TMPDIR="$1/small" "$1/tree/ci/setup" --torch pypi' _ "$tmp" >"$tmp/out" 2>&1
status=$?
if grep -q "apt-get: not from this test" "$tmp/out"; then
  echo "skipped: Debian packages of ./ci/setup --torch pypi are missing here:" \
       "$(grep -m1 '^ci/setup: installing ' "$tmp/out" | cut -d' ' -f3-)"
  exit 77
fi
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
[[ $status == 1 ]] || fail "ci/setup exited $status, not 1"
grep -q "ci/setup: FAILED: installing torch==[0-9.]* needs about 9 GiB free in $tmp/small" \
  "$tmp/out" || fail "no line saying what needs the room and where"
grep -Eq "; [0-9]+ MiB free there" "$tmp/out" || fail "no line saying what is free"
if grep "installing torch==" "$tmp/out" | grep -vq FAILED; then fail "pip was started"; fi
[[ ! -e $(echo "$tmp"/tree/.tools/venv/lib/python3*/site-packages/torch) ]] ||
  fail "torch was installed"
if ((failures > 0)); then
  echo "ci/setup said:" >&2
  cat "$tmp/out" >&2
  exit 1
fi
echo "ci/setup stopped before the download: $(grep FAILED "$tmp/out")"
