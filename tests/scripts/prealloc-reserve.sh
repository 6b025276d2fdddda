#!/usr/bin/env bash
# The free-space reserve of ALTER TABLESPACE ... SET EXTENT_SIZE on a real
# file system that fills: one 2 GB loop file system holds the whole datadir
# (tablespaces, binary log, redo log), while a durable insert load (one row
# per transaction, sync_binlog=1) runs the whole time. The file system is
# ext4 without extents (as ext3): posix_fallocate() fails on O_DIRECT files
# and InnoDB writes each chunk as zeros, the case in which an unchecked
# extension fills the disk. Its writes are capped at 4,000 IOPS (cgroup-v1
# blkio), so that a chunk takes seconds and a file made beside the statement
# takes its space between two of the statement's checks.
#  1. Two statements at once on two general tablespaces, each fitting alone
#     but not both: one grows to its size, the other is refused with
#     ER_STEADY_PREALLOC_RESERVE (9507) for the first one's claim; neither
#     meets a full disk (9503).
#  2. A file growing beside a statement (as a binary log or a load does):
#     the statement stops at the reserve with 9507 and keeps what it grew.
# After each part the file system still has the reserve
# (innodb_extent_size_min_free_pct) free and the load never failed. At the
# end every acknowledged row is present, before and after a restart.
# Needs root, loop devices and cgroup-v1 blkio throttling; skips (77) with
# the reason otherwise.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HARNESS=$(cd "$(dirname "$0")/../../harness" && pwd)   # mysqld and loop devices: harness/
eval "$(python3 "$HARNESS/server.py" find --server steady)"   # MYSQLD, CLIENT
MYSQL=$CLIENT
name=prealloc-reserve
skip() { echo "$name: SKIP: $*"; exit 77; }
[[ -x $MYSQLD ]] || skip "no mysqld at $MYSQLD"
[[ $(id -u) -eq 0 ]] || skip "needs root for losetup and mount"

W=$(mktemp -d /tmp/$name.XXXXXX)
MNT=$W/mnt
ID=$name-$$ pid= loadpid=
cleanup() {
  set +e  # undo everything even when a step fails
  touch "$W/stop"
  # mysqld first: on a full disk a client of the load can hang in its commit.
  [[ -n $pid ]] && python3 "$HARNESS/server.py" stop --how kill --pid "$pid"
  [[ -n $loadpid ]] && { kill "$loadpid"; wait "$loadpid"; } 2>/dev/null
  python3 "$HARNESS/device.py" down --id "$ID"
  rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "$name: FAILED: $*"; [[ -f $W/err.log ]] && tail -20 "$W/err.log"; exit 1; }

# shellcheck source=lib/loopfs.sh
. "$(dirname "$0")/lib/loopfs.sh"
loop_up "$ID" "$MNT" --size-gb 2 --fs ext4-noextent --write-iops 4000
[[ -n $CGROUP ]] || skip "no blkio cgroup for the write cap"

DATA=$MNT/data
srv=(--server steady --datadir "$DATA" --log-error "$W/err.log" --quiet)
opts=(--innodb-buffer-pool-size=64M --innodb-redo-log-capacity=64M
  --skip-networking --log-bin=binlog --sync-binlog=1
  --innodb-flush-log-at-trx-commit=1 --innodb-extend-and-initialize=ON)
server_init
q() { "$MYSQL" -uroot -S "$W/s.sock" -N -e "$1"; }
avail() { df -B1 --output=avail "$MNT" | tail -1 | tr -d ' '; }
# The reserve as the server computes it: 5 % of f_blocks, rounded up.
read -r blocks bsize < <(stat -f -c '%b %S' "$MNT")
total=$((blocks * bsize))
reserve=$(( (total * 5 + 99) / 100 ))
mib() { echo $(( $1 / 1048576 )); }

# Runs one SET EXTENT_SIZE, leaving its error number (0: success) in $W/$1.rc.
prealloc() {
  local out e=0
  out=$("$MYSQL" -uroot -S "$W/s.sock" -N -e "ALTER TABLESPACE $1 SET EXTENT_SIZE = $2" 2>&1) \
    || e=$(sed -n 's/^ERROR \([0-9]*\).*/\1/p' <<<"$out" | head -1)
  echo "$out" >"$W/$1.out"
  echo "${e:-1}" >"$W/$1.rc"
}

# One row per transaction until $W/stop exists; every id the server
# acknowledged goes to $W/acked, every failure to $W/load.failed.
load() {
  local i=0
  while [[ ! -e $W/stop ]]; do
    i=$((i + 1))
    if "$MYSQL" -uroot -S "$W/s.sock" -N -e "INSERT INTO d.load VALUES ($i, REPEAT('x', 200))" \
        2>>"$W/load.failed"; then
      echo "$i" >>"$W/acked"
    fi
  done
}
check_load() {
  [[ ! -s $W/load.failed ]] || fail "the load failed ($1): $(head -3 "$W/load.failed")"
  q 'SELECT 1' >/dev/null || fail "server died ($1)"
}
check_reserve() {
  local a
  a=$(avail)
  ((a >= reserve)) || fail "$1: $(mib "$a") MiB free, less than the $(mib "$reserve") MiB reserve"
  echo "$name: $1: $(mib "$a") MiB free, reserve $(mib "$reserve") MiB kept"
}

server_start
echo "$pid" >"$CGROUP/cgroup.procs"   # mysqld under the write cap
q "CREATE DATABASE d;
   CREATE TABLE d.load (id INT PRIMARY KEY, pad CHAR(200) NOT NULL);
   CREATE TABLESPACE ts1 ADD DATAFILE 'ts1.ibd';
   CREATE TABLESPACE ts2 ADD DATAFILE 'ts2.ibd';
   CREATE TABLESPACE ts3 ADD DATAFILE 'ts3.ibd';
   CREATE TABLE d.t1 (id INT PRIMARY KEY) TABLESPACE ts1;
   CREATE TABLE d.t2 (id INT PRIMARY KEY) TABLESPACE ts2;
   CREATE TABLE d.t3 (id INT PRIMARY KEY) TABLESPACE ts3;"
[[ -f $DATA/ts1.ibd ]] || fail "ts1.ibd is not on the loop file system"
load & loadpid=$!
sleep 1

# 1. Two statements at once, each fitting alone, not both.
room=$(( $(avail) - reserve ))
size=$(( room * 6 / 10 / 1048576 ))M
echo "$name: $(mib "$(avail)") MiB free; two statements of $size at once"
prealloc ts1 "$size" & p1=$!
prealloc ts2 "$size" & p2=$!
wait "$p1" "$p2"
r1=$(cat "$W/ts1.rc") r2=$(cat "$W/ts2.rc")
[[ $r1 != 9503 && $r2 != 9503 ]] || fail "a statement filled the disk: $(cat "$W/ts1.out" "$W/ts2.out")"
case "$r1 $r2" in
  "0 9507"|"9507 0") ;;
  *) fail "expected one success and one 9507, got ts1=$r1 ts2=$r2: $(cat "$W/ts1.out" "$W/ts2.out")" ;;
esac
refused=ts1; [[ $r2 == 9507 ]] && refused=ts2
grep -q 'claimed by other SET EXTENT_SIZE statements' "$W/$refused.out" \
  || fail "the refusal does not name the other claim: $(cat "$W/$refused.out")"
grep -qF "file system of '$DATA/$refused.ibd'" "$W/$refused.out" \
  || fail "the refusal does not name the data file by its absolute path: $(cat "$W/$refused.out")"
echo "$name: ts1=$r1 ts2=$r2; $(cat "$W/$refused.out")"
check_load "two statements"
check_reserve "two statements at once"

# 2. A file taking space while a statement runs.
room=$(( $(avail) - reserve ))
size=$(( room * 9 / 10 / 1048576 ))M
before=$(stat -c %s "$DATA/ts3.ibd")
prealloc ts3 "$size" & p3=$!
# Once the statement has grown by two chunks, take half of what is free.
took=
for _ in $(seq 1 3000); do
  if (( $(stat -c %s "$DATA/ts3.ibd") >= before + 128 * 1048576 )); then
    fallocate -x -l $(( $(avail) / 2 )) "$MNT/scratch" && took=y
    break
  fi
  kill -0 "$p3" 2>/dev/null || break
  sleep 0.01
done
wait "$p3"
r3=$(cat "$W/ts3.rc")
[[ -n $took ]] || fail "the statement ended ($r3) before the scratch file could be made"
[[ $r3 == 9507 ]] || fail "expected 9507 when space went during the statement, got $r3: $(cat "$W/ts3.out")"
grep -q 'stopped growing at' "$W/ts3.out" || fail "no size reached in: $(cat "$W/ts3.out")"
echo "$name: space taken mid-statement: $(cat "$W/ts3.out")"
check_load "space taken mid-statement"
check_reserve "space taken mid-statement"
q "CHECK TABLE d.t1, d.t2, d.t3" | grep -v 'status	OK' && fail "CHECK TABLE"

# Commits go on; every acknowledged row is there, and after a restart.
touch "$W/stop"; wait "$loadpid"; loadpid=
check_load "end"
acked=$(wc -l <"$W/acked")
((acked > 0)) || fail "the load acknowledged nothing"
[[ $(q "SELECT COUNT(*) FROM d.load") == "$acked" ]] || fail "$(q "SELECT COUNT(*) FROM d.load") rows, $acked acknowledged"
python3 "$HARNESS/server.py" stop --how sql --socket "$W/s.sock" --pid "$pid" >/dev/null 2>&1 || true
pid=
server_start
echo "$pid" >"$CGROUP/cgroup.procs"   # mysqld under the write cap
got=$(q "SELECT COUNT(*) FROM d.load")
[[ $got == "$acked" ]] || fail "after restart: $got rows, $acked acknowledged"
[[ $(q "SELECT COUNT(*) FROM d.load WHERE id IN ($(paste -sd, "$W/acked"))") == "$acked" ]] \
  || fail "an acknowledged id is missing"
if grep -E '\[ERROR\].*(Assertion|corrupt)' "$W/err.log"; then fail "assertion or corruption in the error log"; fi
echo "$name: $acked acknowledged single-row commits during both parts, all present after a restart: PASS"
