#!/usr/bin/env bash
# Device-paced flushing must not keep the page cleaner busy on an idle
# server. With innodb_adaptive_flushing_device_pacing=ON the coordinator
# wakes up early for flush slices and LRU batches; it runs rounds only
# while the server is active, so a wake-up time that ran no round stays
# due. The first build with LRU rounds woke again at once, in a loop: idle
# after a load on a 32 MB pool, its coordinator used 88% of a core.
# This script loads a 32 MB pool with pacing ON (sysbench, ~70 MB of rows,
# 5 s of updates), waits 5 s, then measures the page cleaner
# coordinator's CPU over 10 idle seconds: at most 20 ticks (2% of a core)
# passes. Skips (77) without a built mysqld or sysbench.
# Usage: tests/scripts/pacing-idle-cpu.sh [--help]
set -euo pipefail
if [[ ${1:-} == --help ]]; then sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
HARNESS=$HERE/harness
eval "$(python3 "$HARNESS/server.py" find --server steady)"   # MYSQLD, CLIENT
MYSQL=$CLIENT
[[ -x $MYSQLD ]] || { echo "pacing-idle-cpu: SKIP: no mysqld at $MYSQLD"; exit 77; }
command -v sysbench >/dev/null || { echo "pacing-idle-cpu: SKIP: no sysbench (bench/install-deps)"; exit 77; }

W=$(mktemp -d /tmp/pacing-idle-cpu.XXXXXX)
pid=
cleanup() { set +e; [[ -n $pid ]] && python3 "$HARNESS/server.py" stop --how kill --pid "$pid"; rm -rf "$W"; }
trap cleanup EXIT
fail() { echo "pacing-idle-cpu: FAILED: $*"; [[ -f $W/err.log ]] && tail -20 "$W/err.log"; exit 1; }

srv=(--server steady --datadir "$W/data" --log-error "$W/err.log" --quiet)
opts=(--innodb-buffer-pool-size=32M --skip-log-bin
  --innodb-adaptive-flushing-device-pacing=ON)
python3 "$HARNESS/server.py" init "${srv[@]}" -- "${opts[@]}" >/dev/null 2>&1 || fail "initialize"
out=$(python3 "$HARNESS/server.py" start "${srv[@]}" --socket "$W/s.sock" --timeout 60 \
        -- "${opts[@]}" --skip-networking) || fail "server did not come up"
eval "$out"; pid=$PID
q() { "$MYSQL" -uroot -S "$W/s.sock" -N -e "$1"; }
q "CREATE DATABASE sbtest"
sb=(--mysql-socket="$W/s.sock" --mysql-user=root --tables=1 --table-size=300000)
sysbench oltp_update_non_index "${sb[@]}" prepare >/dev/null || fail "sysbench prepare"
sysbench oltp_update_non_index "${sb[@]}" --threads=4 --time=5 --rand-type=uniform run >/dev/null \
  || fail "sysbench run"
sleep 5

tid=
for t in /proc/"$pid"/task/*; do
  [[ $(cat "$t/comm" 2>/dev/null) == ib_pg_flush_co* ]] && { tid=${t##*/}; break; }
done
[[ -n $tid ]] || fail "no page cleaner coordinator thread (ib_pg_flush_co) in mysqld $pid"
ticks() { awk '{print $14 + $15}' /proc/"$pid"/task/"$tid"/stat; }
a=$(ticks); sleep 10; b=$(ticks)
used=$((b - a))
(( used <= 20 )) || fail "the page cleaner coordinator used $used ticks of CPU in 10 idle seconds (at most 20)"
python3 "$HARNESS/server.py" stop --how sql --socket "$W/s.sock" --pid "$pid" >/dev/null 2>&1 || true
pid=
echo "pacing-idle-cpu: page cleaner coordinator $used ticks in 10 idle seconds with device pacing ON: PASS"
