#!/usr/bin/env bash
# Docs stay true to the tree: every path they cite exists, nothing points
# outside the repository, every result is reachable from docs/bench/index.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/../.." && pwd)
exec python3 "$HERE/tests/docs/check-links"
