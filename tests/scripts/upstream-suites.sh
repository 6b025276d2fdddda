#!/usr/bin/env bash
# Unit tests of scripts/upstream-suites (issue 22: MySQL's own mtr suites on
# Steady vs vanilla): parsing mtr's output (combinations, retries, skipped,
# disabled, fails with their diagnostics, shutdown_report, the summary),
# the CSV round trip, the Steady-only diff and exit status, the command
# line against a fake mtr, and --user (mtr as an ordinary user; the parts
# that switch users run only as root).  Runs, from the repository root,
#   python3 -m unittest discover -s scripts/tests -v
# in seconds, with no build and no server.  Exit 0 when every test passes,
# 1 otherwise.
set -euo pipefail

if [[ ${1:-} == --help || ${1:-} == -h ]]; then sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
cd "$HERE"
if PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -s scripts/tests -v; then
  exit 0
fi
echo "upstream-suites: unit tests FAILED" >&2
exit 1
