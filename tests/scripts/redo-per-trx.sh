#!/usr/bin/env bash
# bench/redo-per-trx end to end, and the less-redo patches seen in the redo
# a real server writes: 100 autocommit updates with the binary log and
# gtid_mode=ON, the redo read back by record type over exactly their LSN
# range (bench/redo-types, parsed to the last byte: nothing unparsed).
#  - Steady: each prepare writes the XID as one 36-byte string (patch 0013,
#    a 24-byte binlog XID and its 12 header bytes) and no 128-byte string;
#    each commit writes its GTID as a string of its encoded length (0014;
#    not always 19 bytes: the test counts 16 to 30), file addresses as
#    6-byte strings (0015), and the history node's two adjacent addresses
#    as one 12-byte string (0017).
#  - vanilla, where `make vanilla` was run: the stock 128-byte XID string
#    and 64-byte GTID string instead, so the checks tell the two apart.
# 77 without a Steady build.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

name=redo-per-trx
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
eval "$(python3 "$ROOT/harness/server.py" find --server steady)"   # MYSQLD, CLIENT
[[ -x $MYSQLD ]] || { echo "$name: SKIP: no mysqld at $MYSQLD"; exit 77; }
W=$(mktemp -d /tmp/$name.XXXXXX)
trap 'rm -rf "$W"' EXIT
fail() { echo "$name: FAILED: $*"; exit 1; }
N=100

# strings FILE LEN [MAX]: MLOG_WRITE_STRING records of LEN (to MAX) bytes in a redo-types table
strings() {
  awk -v lo="$2" -v hi="${3:-$2}" '$1 ~ /^len=[0-9]+$/ { n = substr($1, 5) + 0; if (n >= lo && n <= hi) c += $2 }
    END { print c + 0 }' "$1"
}

run() {
  local server=$1 out=$W/$1
  "$ROOT/bench/redo-per-trx" --server "$server" --gtid ON --trx "$N" --out "$out" >"$W/$server.log" 2>&1 \
    || { tail -20 "$W/$server.log"; fail "bench/redo-per-trx --server $server"; }
  local t=$out/redo-types.txt
  [[ -s $t && -s $out/redo-offsets.txt ]] || fail "$server: no redo-types.txt or redo-offsets.txt"
  grep -q "records cut by the range's ends: 0" "$t" || fail "$server: records cut at the range's ends"
  ! grep -q "unparsed" "$t" || fail "$server: unparsed redo: $(grep unparsed "$t")"
  grep -qE '^ +(len=[0-9]+ )?off=[0-9]+ ' "$out/redo-offsets.txt" || fail "$server: no page offsets in redo-offsets.txt"
  local per
  per=$(sed -n 's/.*bytes_per_trx=\([0-9]*\).*/\1/p' "$out/lsns")
  ((per > 300 && per < 2000)) || fail "$server: $per redo bytes per update transaction"
  echo "$name: $server: $per B/trx; strings of 128: $(strings "$t" 128), 64: $(strings "$t" 64), 36: $(strings "$t" 36), 16-30: $(strings "$t" 16 30), 6: $(strings "$t" 6), 12: $(strings "$t" 12)"
}

run steady
t=$W/steady/redo-types.txt
(($(strings "$t" 36) >= N)) || fail "Steady: $(strings "$t" 36) XID strings of 36 bytes for $N prepares (patch 0013)"
(($(strings "$t" 128) == 0)) || fail "Steady: $(strings "$t" 128) XID strings of 128 bytes (patch 0013 not in effect)"
(($(strings "$t" 16 30) >= N)) || fail "Steady: $(strings "$t" 16 30) GTID strings of 16-30 bytes for $N commits (patch 0014)"
addr=$(($(strings "$t" 6) + $(strings "$t" 12)))   # two adjacent addresses are one 12-byte string (0017)
((addr >= N)) || fail "Steady: $addr file-address strings (6 bytes, or 12 for two adjacent) for $N commits (patch 0015)"
(($(strings "$t" 12) >= N)) || fail "Steady: $(strings "$t" 12) strings of 12 bytes for $N commits: the history node's two addresses not one record (patch 0017)"

eval "$(python3 "$ROOT/harness/server.py" find --server vanilla)"
if [[ -x $MYSQLD ]]; then
  run vanilla
  t=$W/vanilla/redo-types.txt
  (($(strings "$t" 128) >= N)) || fail "vanilla: $(strings "$t" 128) XID strings of 128 bytes for $N prepares"
  (($(strings "$t" 64) >= N)) || fail "vanilla: $(strings "$t" 64) GTID strings of 64 bytes for $N commits"
else
  echo "$name: vanilla not built (make vanilla): the stock side not checked"
fi
echo "$name: OK"
