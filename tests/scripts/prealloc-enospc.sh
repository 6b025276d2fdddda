#!/usr/bin/env bash
# Out of space, on small loop-device filesystems holding one table's data
# file each (DATA DIRECTORY), the rest of the datadir on the host disk:
#  1. On a 2 GB filesystem, ALTER TABLESPACE ... SET EXTENT_SIZE = 10G is
#     refused before the file grows, with ER_STEADY_PREALLOC_NO_SPACE
#     naming the free and requested sizes; the file, the binary log and the
#     other tablespace are untouched, and a growth that fits still works
#     (and is allocated: fallocate, not a sparse file).
#  2. On a 96 MiB filesystem (320 MiB for xfs, its smallest), a write load
#     until it is full: clients get 1114, no acknowledged row is lost, and
#     once space is freed (a scratch file is removed) writes and
#     preallocation resume without a restart; after a restart every
#     acknowledged row is still there.
# The file systems are ext4, or xfs with PREALLOC_FS=xfs (prealloc-xfs.sh).
# Needs root and loop devices (and mkfs.xfs for xfs); skips (77) with the
# reason otherwise.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HARNESS=$(cd "$(dirname "$0")/../../harness" && pwd)   # mysqld and loop devices: harness/
eval "$(python3 "$HARNESS/server.py" find --server steady)"   # MYSQLD, CLIENT
MYSQL=$CLIENT
FS=${PREALLOC_FS:-ext4}
name=prealloc-enospc-$FS
case $FS in
  ext4) small_gb=0.09375 ;;     # 96 MiB
  xfs) small_gb=0.3125 ;;       # 320 MiB: mkfs.xfs refuses less than 300 MiB
  *) echo "$name: PREALLOC_FS must be ext4 or xfs" >&2; exit 2 ;;
esac
skip() { echo "$name: SKIP: $*"; exit 77; }
[[ -x $MYSQLD ]] || skip "no mysqld at $MYSQLD"
[[ $(id -u) -eq 0 ]] || skip "needs root for losetup and mount"

W=$(mktemp -d /tmp/$name.XXXXXX)
MNT=$W/mnt BIG=$W/big
ID=$name-$$ pid=
cleanup() {
  set +e  # undo everything even when a step fails
  [[ -n $pid ]] && python3 "$HARNESS/server.py" stop --how kill --pid "$pid"
  python3 "$HARNESS/device.py" down --id "$ID"
  python3 "$HARNESS/device.py" down --id "$ID-2g"
  rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "$name: FAILED: $*"; [[ -f $W/err.log ]] && tail -20 "$W/err.log"; exit 1; }

# shellcheck source=lib/loopfs.sh
. "$(dirname "$0")/lib/loopfs.sh"
# A small file system on a loop device, through the host page cache.
loop_up "$ID" "$MNT" --size-gb "$small_gb" --no-direct-io --fs "$FS"
# A 2 GB file system (sparse image) for the refusal.
loop_up "$ID-2g" "$BIG" --size-gb 2 --no-direct-io --fs "$FS"
# 8 MiB of scratch data to free later.
dd if=/dev/zero of="$MNT/scratch" bs=1M count=8 status=none

srv=(--server steady --datadir "$W/data" --log-error "$W/err.log" --quiet)
opts=(--innodb-buffer-pool-size=64M --innodb-redo-log-capacity=32M --innodb-directories="$MNT;$BIG"
  --skip-networking --log-bin=binlog)
server_init

# Clean shutdown; returns once mysqld is gone.
shutdown() {
  python3 "$HARNESS/server.py" stop --how sql --socket "$W/s.sock" --pid "$pid" >/dev/null 2>&1 || true
  pid=
}
q() { "$MYSQL" -uroot -S "$W/s.sock" -N -e "$1"; }
# Runs a statement, prints the client's error number (0 on success).
errno_of() {
  local out
  if out=$("$MYSQL" -uroot -S "$W/s.sock" -N -e "$1" 2>&1); then echo 0; return; fi
  sed -n 's/^ERROR \([0-9]*\).*/\1/p' <<<"$out" | head -1
}
file_size() { q "SELECT FILE_SIZE FROM information_schema.INNODB_TABLESPACES WHERE NAME = '$1'"; }

server_start
q "CREATE DATABASE d;
   CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, pad CHAR(200) NOT NULL)
     DATA DIRECTORY = '$MNT';
   INSERT INTO d.t (pad) VALUES (REPEAT('a', 200));"
for _ in $(seq 1 11); do q "INSERT INTO d.t (pad) SELECT pad FROM d.t"; done
rows=$(q "SELECT COUNT(*) FROM d.t")
# Rows to copy, on the host disk: every INSERT below adds exactly its LIMIT.
q "CREATE TABLE d.seed (pad CHAR(200) NOT NULL) SELECT pad FROM d.t LIMIT 2000"
[[ $(q "SELECT COUNT(*) FROM d.seed") == 2000 ]] || fail "seed table"

[[ -f $MNT/d/t.ibd ]] || fail "the table's file is not on the loop filesystem"

# 1. SET EXTENT_SIZE = 10G on a 2 GB filesystem: refused before a byte.
q "CREATE TABLE d.b (id INT PRIMARY KEY, pad CHAR(200)) DATA DIRECTORY = '$BIG';
   INSERT INTO d.b VALUES (1, 'b')"
[[ -f $BIG/d/b.ibd ]] || fail "the second table's file is not on the 2 GB filesystem"
b_before=$(stat -c %s "$BIG/d/b.ibd") t_before=$(stat -c %s "$MNT/d/t.ibd")
used_before=$(df -B1 --output=used "$BIG" | tail -1)
binlog_before=$(q "SHOW BINARY LOG STATUS" | cut -f1,2)
out=$("$MYSQL" -uroot -S "$W/s.sock" -N -e "ALTER TABLESPACE \`d/b\` SET EXTENT_SIZE = 10G" 2>&1) && fail "10G on 2 GB was accepted"
[[ $out == *"ERROR 9502 "* ]] || fail "10G on 2 GB: expected ER_STEADY_PREALLOC_NO_SPACE (9502), got: $out"
[[ $out =~ needs\ ([0-9]+)\ more\ bytes.*has\ ([0-9]+)\ bytes\ free ]] || fail "no sizes in the message: $out"
need=${BASH_REMATCH[1]} free=${BASH_REMATCH[2]}
((need > 10 * 1024 * 1024 * 1024 - 200 * 1024 * 1024 && free < 2 * 1024 * 1024 * 1024)) \
  || fail "implausible sizes in the message: needs $need, free $free"
[[ $(stat -c %s "$BIG/d/b.ibd") == "$b_before" ]] || fail "the refused file grew"
[[ $(stat -c %s "$MNT/d/t.ibd") == "$t_before" ]] || fail "the other tablespace changed"
[[ $(df -B1 --output=used "$BIG" | tail -1) == "$used_before" ]] || fail "space was used on the 2 GB filesystem"
[[ $(q "SHOW BINARY LOG STATUS" | cut -f1,2) == "$binlog_before" ]] || fail "the refused statement reached the binary log"
q 'SELECT 1' >/dev/null || fail "server died after the refusal"
echo "$name: SET EXTENT_SIZE = 10G on 2 GB: ERROR 9502 (needs $need bytes, $free free), nothing written, binlog unchanged"
# What fits is still done: 1G on the same filesystem.
e=$(errno_of "ALTER TABLESPACE \`d/b\` SET EXTENT_SIZE = 1G")
[[ $e == 0 ]] || fail "SET EXTENT_SIZE = 1G on 2 GB failed with $e"
[[ $(file_size d/b) == 1073741824 ]] || fail "1G on 2 GB: file size $(file_size d/b)"
allocated=$(q "SELECT ALLOCATED_SIZE FROM information_schema.INNODB_TABLESPACES WHERE NAME = 'd/b'")
((allocated >= 1073741824)) || fail "1G on 2 GB: only $allocated bytes allocated (sparse?)"
echo "$name: SET EXTENT_SIZE = 1G on 2 GB $FS: file 1073741824 bytes, $allocated allocated"
q "CHECK TABLE d.b" | grep -q 'status	OK' || fail "CHECK TABLE after 1G"
# On the small filesystem the same guard refuses 1G.
e=$(errno_of "ALTER TABLESPACE \`d/t\` SET EXTENT_SIZE = 1G")
[[ $e == 9502 ]] || fail "SET EXTENT_SIZE = 1G on the small file system gave error '$e', expected 9502"
[[ $(stat -c %s "$MNT/d/t.ibd") == "$t_before" ]] || fail "the refused file on the small file system grew"

# 2. A write load until the filesystem is full.
acked=$rows
for _ in $(seq 1 4000); do
  e=$(errno_of "INSERT INTO d.t (pad) SELECT pad FROM d.seed")
  [[ $e == 0 ]] || break
  acked=$((acked + 2000))
done
[[ $e == 1114 ]] || fail "the write load ended with error '$e', expected 1114"
q 'SELECT 1' >/dev/null || fail "server died when the disk filled"
got=$(q "SELECT COUNT(*) FROM d.t")
[[ $got == "$acked" ]] || fail "after disk full: $got rows, $acked acknowledged"
echo "$name: write load until full: ERROR 1114 after $acked acknowledged rows, all present"

# Free space: writes and preallocation resume without a restart.
rm -f "$MNT/scratch"
e=$(errno_of "INSERT INTO d.t (pad) SELECT pad FROM d.seed LIMIT 1000")
[[ $e == 0 ]] || fail "writes did not resume after freeing space (error $e)"
acked=$((acked + 1000))
size2=$(file_size d/t)
# The little space freed is below the default 5% reserve: ask for
# none, so that only the free space itself limits the growth.
q "SET GLOBAL innodb_extent_size_min_free_pct = 0"
e=$(errno_of "ALTER TABLESPACE \`d/t\` SET EXTENT_SIZE = $((size2 + 2 * 1048576))")
[[ $e == 0 ]] || fail "SET EXTENT_SIZE after freeing space failed with $e"
q "CHECK TABLE d.t" | grep -q 'status	OK' || fail "CHECK TABLE after freeing space"

# Restart: every acknowledged row is durable.
shutdown
server_start
got=$(q "SELECT COUNT(*) FROM d.t")
[[ $got == "$acked" ]] || fail "after restart: $got rows, $acked acknowledged"
q "CHECK TABLE d.t" | grep -q 'status	OK' || fail "CHECK TABLE after restart"
if grep -E '\[ERROR\].*(Assertion|corrupt)' "$W/err.log"; then fail "assertion or corruption in the error log"; fi
shutdown
echo "$name: space freed: writes and SET EXTENT_SIZE resumed; after restart $acked rows, CHECK TABLE OK: PASS"
