#!/usr/bin/env bash
# The redo capacity Steady takes when innodb_redo_log_capacity is not set
# (patch 0016, storage/innobase/include/log0capacity_default.h):
#  1. a 512 MiB buffer pool on the host disk: 512 MiB of redo, shown as the
#     variable's value and default, and the redo files resized to it;
#  2. the same datadir with a 64 MiB pool: the stock 100 MiB;
#  3. innodb_redo_log_capacity set: exactly what is set;
#  4. a 1 GiB pool whose datadir is on a 1 GiB file system: at most a
#     quarter of the room there, never below 100 MiB, and the same again on
#     a restart (the room counts the redo files already there).
# Stock MySQL takes 100 MiB in 1, 2 and 4. Needs root and a loop device for
# 4 (skipped with the reason otherwise); 77 without a Steady build.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

name=redo-capacity-default
HARNESS=$(cd "$(dirname "$0")/../../harness" && pwd)
eval "$(python3 "$HARNESS/server.py" find --server steady)"   # MYSQLD, CLIENT
skip() { echo "$name: SKIP: $*"; exit 77; }
[[ -x $MYSQLD ]] || skip "no mysqld at $MYSQLD"

W=$(mktemp -d /tmp/$name.XXXXXX)
ID=$name-$$ pid= sock=
cleanup() {
  set +e
  [[ -n $pid ]] && python3 "$HARNESS/server.py" stop --how kill --pid "$pid" >/dev/null 2>&1
  python3 "$HARNESS/device.py" down --id "$ID" >/dev/null 2>&1
  rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "$name: FAILED: $*"; [[ -f $W/err.log ]] && tail -20 "$W/err.log"; exit 1; }
MiB=$((1024 * 1024))

# start DATADIR mysqld-options...
start() {
  local data=$1 out rc=0; shift
  sock=$W/s.sock
  out=$(python3 "$HARNESS/server.py" start --server steady --datadir "$data" --log-error "$W/err.log" \
          --socket "$sock" --timeout 120 --quiet -- --skip-networking "$@") || rc=$?
  ((rc == 0)) || fail "mysqld did not start ($rc) with $*"
  eval "$out"; pid=$PID
}
stop() { python3 "$HARNESS/server.py" stop --how sql --socket "$sock" --pid "$pid" >/dev/null 2>&1; pid=; }
q() { "$CLIENT" -uroot -S "$sock" -N -e "$1"; }
capacity() { q "SELECT @@GLOBAL.innodb_redo_log_capacity"; }
default_of() { q "SET GLOBAL innodb_redo_log_capacity = DEFAULT; SELECT @@GLOBAL.innodb_redo_log_capacity"; }
redo_bytes() { du -sb --apparent-size "$1/#innodb_redo" | cut -f1; }
init() {
  python3 "$HARNESS/server.py" init --server steady --datadir "$1" --log-error "$W/err.log" --quiet -- \
    "${@:2}" >/dev/null 2>&1 || fail "initialize $1"
}

# 1. 512 MiB pool, nothing set.
init "$W/data" --innodb-buffer-pool-size=512M
start "$W/data" --innodb-buffer-pool-size=512M
c=$(capacity)
((c == 512 * MiB)) || fail "512 MiB pool, capacity not set: $((c / MiB)) MiB of redo, expected 512"
src=$(q "SELECT VARIABLE_SOURCE FROM performance_schema.variables_info WHERE VARIABLE_NAME = 'innodb_redo_log_capacity'")
[[ $src == COMPILED ]] || fail "the variable's source is $src, not COMPILED"
((c == $(default_of))) || fail "SET GLOBAL ... = DEFAULT does not return to the chosen capacity"
stop
r=$(redo_bytes "$W/data")
((r > 400 * MiB)) || fail "the redo files hold $((r / MiB)) MiB, not resized to 512 MiB"
echo "$name: 512 MiB pool: 512 MiB of redo (the default; files $((r / MiB)) MiB)"

# 2. 64 MiB pool: stock's 100 MiB.
start "$W/data" --innodb-buffer-pool-size=64M
c=$(capacity)
((c == 100 * MiB)) || fail "64 MiB pool: $((c / MiB)) MiB of redo, expected the stock 100"
stop
echo "$name: 64 MiB pool: 100 MiB of redo"

# 3. Set: untouched.
start "$W/data" --innodb-buffer-pool-size=512M --innodb-redo-log-capacity=200M
c=$(capacity)
((c == 200 * MiB)) || fail "innodb_redo_log_capacity=200M gave $((c / MiB)) MiB"
stop
echo "$name: innodb_redo_log_capacity=200M: 200 MiB"

# 4. A 1 GiB file system holding the datadir.
[[ $(id -u) -eq 0 ]] || skip "the small file system needs root for losetup and mount (cases 1-3 passed)"
rc=0
dev=$(python3 "$HARNESS/device.py" up --id "$ID" --owner-pid $$ --size-gb 1 --no-direct-io \
        --fs ext4 --image "$W/fs.img" --mount "$W/mnt" 2>"$W/up.err") || rc=$?
case $rc in
  0) eval "$dev" ;;
  77) skip "$(sed 's/^device.py: cannot make the device here: //' "$W/up.err") (cases 1-3 passed)" ;;
  *) grep -q 'no free loop device' "$W/up.err" && skip "no free loop device (cases 1-3 passed)"
     fail "$(cat "$W/up.err")" ;;
esac
total=$(df -B1 --output=size "$W/mnt" | tail -1)
init "$W/mnt/data" --innodb-buffer-pool-size=1G
start "$W/mnt/data" --innodb-buffer-pool-size=1G
c=$(capacity)
((c >= 100 * MiB && c <= total / 4 && c < 1024 * MiB)) \
  || fail "1 GiB pool on a $((total / MiB)) MiB file system: $((c / MiB)) MiB of redo, expected 100 MiB to a quarter of it"
stop
start "$W/mnt/data" --innodb-buffer-pool-size=1G
c2=$(capacity)
stop
# Within 8 MiB: the datadir's other files may grow a little between starts;
# leaving the redo files out of the room would shrink it by their whole size.
((c2 > c - 8 * MiB && c2 < c + 8 * MiB)) \
  || fail "restart on the small file system changed the capacity: $((c / MiB)) then $((c2 / MiB)) MiB"
echo "$name: 1 GiB pool on a $((total / MiB)) MiB file system: $((c / MiB)) MiB of redo, $((c2 / MiB)) MiB after a restart"
echo "$name: OK"
