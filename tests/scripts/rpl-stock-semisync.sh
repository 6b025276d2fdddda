#!/usr/bin/env bash
# Semi-synchronous replication between Steady and stock MySQL 9.7.2, both
# directions: tests/scripts/rpl-stock.sh --semisync (see its --help).
set -euo pipefail
if [[ ${1:-} == --help ]]; then sed -n '2,3p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
exec bash "$(dirname "$0")/rpl-stock.sh" --semisync
