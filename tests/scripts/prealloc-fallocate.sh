#!/usr/bin/env bash
# ALTER TABLESPACE ... SET EXTENT_SIZE reserves space with posix_fallocate()
# and writes no zeros, with innodb_extend_and_initialize=ON (the default);
# zeros only where posix_fallocate() fails. Measured as the bytes the loop
# device holding the data file was asked to write (/sys/block/loopN/stat):
#  1. ext4: SET EXTENT_SIZE = 1G writes less than 32 MiB, and the file's
#     1 GiB is allocated on disk (a load into it cannot meet a full disk).
#  2. The same server's autoextension (AUTOEXTEND_SIZE = 64M) of another
#     tablespace on that file system still writes its zeros: only the
#     statement's extensions skip them.
#  3. ext4 without extents (as ext3: posix_fallocate() fails with EINVAL on
#     an O_DIRECT file): SET EXTENT_SIZE = 256M succeeds and writes the
#     256 MiB of zeros.
# Needs root and loop devices; skips (77) with the reason otherwise.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HARNESS=$(cd "$(dirname "$0")/../../harness" && pwd)   # mysqld and loop devices: harness/
eval "$(python3 "$HARNESS/server.py" find --server steady)"   # MYSQLD, CLIENT
MYSQL=$CLIENT
name=prealloc-fallocate
skip() { echo "$name: SKIP: $*"; exit 77; }
[[ -x $MYSQLD ]] || skip "no mysqld at $MYSQLD"
[[ $(id -u) -eq 0 ]] || skip "needs root for losetup and mount"

W=$(mktemp -d /tmp/$name.XXXXXX)
ID=$name-$$ pid=
cleanup() {
  set +e  # undo everything even when a step fails
  [[ -n $pid ]] && python3 "$HARNESS/server.py" stop --how kill --pid "$pid"
  python3 "$HARNESS/device.py" down --id "$ID"
  python3 "$HARNESS/device.py" down --id "$ID-ne"
  rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "$name: FAILED: $*"; [[ -f $W/err.log ]] && tail -20 "$W/err.log"; exit 1; }

# shellcheck source=lib/loopfs.sh
. "$(dirname "$0")/lib/loopfs.sh"
loop_up "$ID-ne" "$W/ne" --size-gb 1 --fs ext4-noextent
NE_LOOP=$LOOP
loop_up "$ID" "$W/mnt" --size-gb 2
MNT=$W/mnt

# Bytes the loop device $1 has been asked to write so far.
written() { echo $(( $(awk '{print $7}' "/sys/block/$(basename "$1")/stat") * 512 )); }
mib() { echo $(( $1 / 1048576 )); }

srv=(--server steady --datadir "$W/data" --log-error "$W/err.log" --quiet)
opts=(--innodb-buffer-pool-size=128M --innodb-redo-log-capacity=128M
  --innodb-directories="$MNT;$W/ne" --skip-networking
  --innodb-extend-and-initialize=ON --innodb-flush-method=O_DIRECT)
server_init
server_start
q() { "$MYSQL" -uroot -S "$W/s.sock" -N -e "$1"; }
[[ $(q "SELECT @@innodb_extend_and_initialize") == 1 ]] || fail "innodb_extend_and_initialize is not ON"

# 1. ext4: the statement reserves 1 GiB and writes no zeros.
q "CREATE DATABASE d;
   CREATE TABLESPACE ts ADD DATAFILE '$MNT/ts.ibd';
   CREATE TABLE d.t (id INT PRIMARY KEY, a CHAR(255)) TABLESPACE ts;
   INSERT INTO d.t VALUES (1, 'a')"
sync
w0=$(written "$LOOP")
q "ALTER TABLESPACE ts SET EXTENT_SIZE = 1G" || fail "SET EXTENT_SIZE = 1G"
sync
w1=$(written "$LOOP")
size=$(stat -c %s "$MNT/ts.ibd")
alloc=$(( $(stat -c %b "$MNT/ts.ibd") * $(stat -c %B "$MNT/ts.ibd") ))
((size == 1073741824)) || fail "ts.ibd is $size bytes, not 1 GiB"
((alloc >= 1073741824)) || fail "ts.ibd has $alloc bytes allocated: the space is not reserved"
(( w1 - w0 < 32 * 1048576 )) || fail "SET EXTENT_SIZE = 1G wrote $(mib $((w1 - w0))) MiB to the device: zeros written"
echo "$name: ext4, SET EXTENT_SIZE = 1G: $(mib "$alloc") MiB allocated, $(mib $((w1 - w0))) MiB written"

# 2. Autoextension on the same file system still writes zeros (ON): a new
#    general tablespace with AUTOEXTEND_SIZE = 64M grows to 64 MiB for its
#    first table's few rows: at least 3/4 of the growth must be written.
q "CREATE TABLESPACE ts2 ADD DATAFILE '$MNT/ts2.ibd';
   ALTER TABLESPACE ts2 AUTOEXTEND_SIZE = 64M"
sync
s0=$(stat -c %s "$MNT/ts2.ibd")
w2=$(written "$LOOP")
q "CREATE TABLE d.u (id INT AUTO_INCREMENT PRIMARY KEY, a CHAR(255)) TABLESPACE ts2;
   INSERT INTO d.u (a) VALUES (REPEAT('x', 255))"
for _ in $(seq 1 10); do q "INSERT INTO d.u (a) SELECT a FROM d.u"; done
sync
s1=$(stat -c %s "$MNT/ts2.ibd")
w3=$(written "$LOOP")
(( s1 >= 64 * 1048576 && s1 - s0 >= 48 * 1048576 )) || fail "ts2.ibd grew from $s0 to $s1 bytes: no AUTOEXTEND_SIZE step"
(( (w3 - w2) * 4 >= (s1 - s0) * 3 )) || fail "autoextension by $(mib $((s1 - s0))) MiB wrote only $(mib $((w3 - w2))) MiB: no zeros"
echo "$name: ext4, autoextension by $(mib $((s1 - s0))) MiB for 1,024 rows: $(mib $((w3 - w2))) MiB written (zeros)"

# 3. Where posix_fallocate() fails, zeros.
q "CREATE TABLESPACE ts3 ADD DATAFILE '$W/ne/ts3.ibd';
   CREATE TABLE d.v (id INT PRIMARY KEY) TABLESPACE ts3"
sync
w4=$(written "$NE_LOOP")
q "ALTER TABLESPACE ts3 SET EXTENT_SIZE = 256M" || fail "SET EXTENT_SIZE = 256M on ext4 without extents"
sync
w5=$(written "$NE_LOOP")
size=$(stat -c %s "$W/ne/ts3.ibd")
((size == 268435456)) || fail "ts3.ibd is $size bytes, not 256 MiB"
(( w5 - w4 >= 240 * 1048576 )) || fail "SET EXTENT_SIZE = 256M without fallocate() wrote $(mib $((w5 - w4))) MiB: no zeros"
echo "$name: ext4 without extents, SET EXTENT_SIZE = 256M: $(mib $((w5 - w4))) MiB written (zeros): PASS"
