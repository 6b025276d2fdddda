#!/usr/bin/env bash
# ALTER TABLESPACE ... SET EXTENT_SIZE beside DML and DDL on a slow device:
# the tablespace's data file on a loop file system capped at 4,000 write
# IOPS (cgroup-v1 blkio), the rest of the datadir (redo, binary log) on the
# host disk. The file system is ext4 without extents (as ext3), where
# posix_fallocate() fails on O_DIRECT files and each 64 MiB chunk is
# written as zeros in 4 KiB requests, so that each chunk takes seconds.
#  1. Inserts that allocate pages in the tablespace while chunks are
#     written: none waits for a chunk (the file grows with no tablespace
#     latch and no page 0 latch held). The slowest insert must take less
#     than half the mean chunk time; holding the latch through the IO, as
#     autoextension does, makes an insert wait up to a whole chunk.
#  2. The metadata-lock pileup and the documented advice: a RENAME TABLE
#     (an online schema change's cut-over) waits behind the statement, and
#     DML queues behind it. With a short lock_wait_timeout on the RENAME,
#     it fails with 1205 after that timeout and the queued insert completes
#     right after, while the statement is still running; the statement then
#     completes.
# Needs root, loop devices and cgroup-v1 blkio throttling; skips (77) with
# the reason otherwise.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HARNESS=$(cd "$(dirname "$0")/../../harness" && pwd)   # mysqld and loop devices: harness/
eval "$(python3 "$HARNESS/server.py" find --server steady)"   # MYSQLD, CLIENT
MYSQL=$CLIENT
name=prealloc-concurrency
IOPS=${PREALLOC_CAP_IOPS:-4000}
skip() { echo "$name: SKIP: $*"; exit 77; }
[[ -x $MYSQLD ]] || skip "no mysqld at $MYSQLD"
[[ $(id -u) -eq 0 ]] || skip "needs root for losetup, mount and cgroups"

W=$(mktemp -d /tmp/$name.XXXXXX)
MNT=$W/mnt
ID=$name-$$ pid=
cleanup() {
  set +e  # undo everything even when a step fails
  [[ -n $pid ]] && python3 "$HARNESS/server.py" stop --how kill --pid "$pid"
  python3 "$HARNESS/device.py" down --id "$ID"
  rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "$name: FAILED: $*"; [[ -f $W/err.log ]] && tail -20 "$W/err.log"; exit 1; }

# shellcheck source=lib/loopfs.sh
. "$(dirname "$0")/lib/loopfs.sh"
loop_up "$ID" "$MNT" --size-gb 4 --write-iops "$IOPS" --fs ext4-noextent
[[ -n $CGROUP ]] || skip "no blkio cgroup for the write cap"

srv=(--server steady --datadir "$W/data" --log-error "$W/err.log" --quiet)
opts=(--innodb-buffer-pool-size=256M --innodb-redo-log-capacity=256M
  --innodb-directories="$MNT" --skip-networking --log-bin=binlog
  --innodb-extend-and-initialize=ON --innodb-flush-method=O_DIRECT)
server_init
server_start
# Every thread of mysqld under the write cap: only the capped device is slow.
echo "$pid" >"$CGROUP/cgroup.procs"

q() { "$MYSQL" -uroot -S "$W/s.sock" -N -e "$1"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# Runs statement $1 and prints its latency in ms; its error number (0: none)
# goes to file $2.
timed() {
  local t0 t1 out e=0
  t0=$(now_ms)
  out=$("$MYSQL" -uroot -S "$W/s.sock" -N -e "$1" 2>&1) || e=$(sed -n 's/^ERROR \([0-9]*\).*/\1/p' <<<"$out" | head -1)
  t1=$(now_ms)
  echo "${e:-1}" >"$2"
  echo $((t1 - t0))
}
ROW="(REPEAT('a', 255), REPEAT('b', 255), REPEAT('c', 255))"
# 60 rows of about 780 bytes: about three new pages of the tablespace.
INSERT_PAGES="INSERT INTO d.t (a, b, c) SELECT a, b, c FROM d.seed"

q "CREATE DATABASE d;
   CREATE TABLESPACE ts ADD DATAFILE '$MNT/ts.ibd';
   CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY,
     a CHAR(255), b CHAR(255), c CHAR(255)) TABLESPACE ts;
   CREATE TABLE d.seed (a CHAR(255), b CHAR(255), c CHAR(255));
   INSERT INTO d.seed VALUES $ROW;"
for _ in 1 2 3 4 5 6; do q "INSERT INTO d.seed SELECT * FROM d.seed"; done
q "DELETE FROM d.seed LIMIT 4"   # 60 rows
[[ -f $MNT/ts.ibd ]] || fail "ts.ibd is not on the capped file system"

# Runs SET EXTENT_SIZE on $1 to $2 MiB; leaves rc, output and ms in $W/prealloc.*.
prealloc_bg() {
  local t0 t1
  rm -f "$W/prealloc.rc"
  t0=$(now_ms)
  q "ALTER TABLESPACE $1 SET EXTENT_SIZE = $2M" >"$W/prealloc.out" 2>&1 && echo 0 >"$W/prealloc.rc" \
    || echo 1 >"$W/prealloc.rc"
  t1=$(now_ms)
  echo $((t1 - t0)) >"$W/prealloc.ms"
}
# Waits until data file $1 has grown by a chunk past $2 bytes.
wait_first_chunk() {
  for _ in $(seq 1 600); do
    (( $(stat -c %s "$1") >= $2 + 64 * 1048576 )) && return 0
    [[ -f $W/prealloc.rc ]] && fail "the statement ended before its first chunk: $(cat "$W/prealloc.out")"
    sleep 0.05
  done
  fail "the first chunk of $1 did not land within 30 s"
}

# 1. Inserts allocating pages while chunks are written.
SIZE_MB=768
base=$(stat -c %s "$MNT/ts.ibd")
prealloc_bg ts $SIZE_MB & ppid=$!
wait_first_chunk "$MNT/ts.ibd" "$base"
max=0 n=0
while kill -0 "$ppid" 2>/dev/null; do
  ms=$(timed "$INSERT_PAGES" "$W/ins.err")
  [[ $(cat "$W/ins.err") == 0 ]] || fail "insert during the statement: error $(cat "$W/ins.err")"
  ((ms > max)) && max=$ms
  n=$((n + 1))
done
wait "$ppid"
[[ $(cat "$W/prealloc.rc") == 0 ]] || fail "the statement failed: $(cat "$W/prealloc.out")"
total_ms=$(cat "$W/prealloc.ms")
chunks=$(( (SIZE_MB * 1048576 - base + 64 * 1048576 - 1) / (64 * 1048576) ))
chunk_ms=$((total_ms / chunks))
echo "$name: $SIZE_MB MiB in $chunks chunks at $IOPS write IOPS: ${total_ms} ms, ${chunk_ms} ms a chunk;" \
  "$n inserts of 60 rows beside it, slowest ${max} ms"
((chunk_ms >= 500)) || fail "a chunk took ${chunk_ms} ms: the cap is too loose to tell a latch wait from none"
((n >= 5)) || fail "only $n inserts ran beside the statement"
((max * 2 < chunk_ms)) || fail "an insert waited ${max} ms, at least half a chunk (${chunk_ms} ms)"

# 2. The metadata-lock pileup, with the advice followed.
q "CREATE TABLESPACE ts2 ADD DATAFILE '$MNT/ts2.ibd';
   CREATE TABLE d.u (id INT AUTO_INCREMENT PRIMARY KEY, a CHAR(255)) TABLESPACE ts2;
   INSERT INTO d.u (a) VALUES ('x')"
base=$(stat -c %s "$MNT/ts2.ibd")
prealloc_bg ts2 512 & ppid=$!
wait_first_chunk "$MNT/ts2.ibd" "$base"
timed "SET SESSION lock_wait_timeout = 2; RENAME TABLE d.u TO d.u_old" "$W/ddl.err" >"$W/ddl.ms" &
ddl=$!
sleep 0.5
dml_ms=$(timed "INSERT INTO d.u (a) VALUES ('y')" "$W/dml.err")
dml_err=$(cat "$W/dml.err")
wait "$ddl"
running=n; kill -0 "$ppid" 2>/dev/null && running=y
ddl_ms=$(cat "$W/ddl.ms") ddl_err=$(cat "$W/ddl.err")
wait "$ppid"
[[ $ddl_err == 1205 ]] || fail "the queued DDL ended with '$ddl_err', expected 1205 (ER_LOCK_WAIT_TIMEOUT)"
[[ $dml_err == 0 ]] || fail "the insert queued behind the DDL failed with $dml_err"
((ddl_ms >= 1900 && ddl_ms < 4000)) || fail "the DDL gave up after ${ddl_ms} ms, not about 2 s"
((dml_ms >= 1000)) || fail "the insert did not queue behind the DDL (${dml_ms} ms): no pileup to show"
((dml_ms < 3500)) || fail "the insert waited ${dml_ms} ms, past the DDL's timeout"
[[ $running == y ]] || fail "the statement ended before the DDL timed out: no pileup to show"
[[ $(cat "$W/prealloc.rc") == 0 ]] || fail "the statement failed: $(cat "$W/prealloc.out")"
[[ $(q "SELECT COUNT(*) FROM d.u") == 2 ]] || fail "rows of d.u"
echo "$name: DDL behind the statement: 1205 after ${ddl_ms} ms (lock_wait_timeout=2);" \
  "insert queued behind it done in ${dml_ms} ms; statement done in $(cat "$W/prealloc.ms") ms: PASS"
