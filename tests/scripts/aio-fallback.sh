#!/usr/bin/env bash
# innodb_aio_pending_ios_per_thread safety: when io_setup() fails part way
# through creating the AIO contexts (EAGAIN, as when another process took the
# kernel's fs.aio-max-nr budget), the server must still start, on simulated
# AIO, after destroying every context it had created. An LD_PRELOAD shim
# makes the 4th io_setup() call fail. Skips (77) without a built mysqld.
set -euo pipefail

HERE=$(cd "$(dirname "$0")/../.." && pwd)
HARNESS=$HERE/harness   # mysqld is initialised and started by harness/server.py
eval "$(python3 "$HARNESS/server.py" find --server steady)"   # MYSQLD, CLIENT
MYSQL=$CLIENT
[[ -x $MYSQLD ]] || { echo "aio-fallback: SKIP: no mysqld at $MYSQLD"; exit 77; }
command -v cc >/dev/null || { echo "aio-fallback: SKIP: no C compiler"; exit 77; }

W=$(mktemp -d /tmp/aio-fallback.XXXXXX)
pid=
cleanup() { set +e; [[ -n $pid ]] && python3 "$HARNESS/server.py" stop --how kill --pid "$pid"; rm -rf "$W"; }
trap cleanup EXIT
fail() { echo "aio-fallback: FAILED: $*"; [[ -f $W/err.log ]] && tail -20 "$W/err.log"; exit 1; }

cc -shared -fPIC -O2 -o "$W/shim.so" "$HERE/tests/scripts/io_setup_shim.c" -ldl
srv=(--server steady --datadir "$W/data" --log-error "$W/err.log" --quiet)
opts=(--log-error-verbosity=3 --innodb-buffer-pool-size=64M --skip-log-bin
  --innodb-aio-pending-ios-per-thread=1024)
python3 "$HARNESS/server.py" init "${srv[@]}" -- "${opts[@]}" >/dev/null 2>&1 || fail "initialize"
rm -f "$W/err.log"

before=$(cat /proc/sys/fs/aio-nr)
# The probe context and two segment contexts succeed, the third segment fails.
rc=0
out=$(python3 "$HARNESS/server.py" start "${srv[@]}" --socket "$W/s.sock" --timeout 60 \
        --env STEADY_IO_SETUP_OK_CALLS=3 --env LD_PRELOAD="$W/shim.so" \
        -- "${opts[@]}" --skip-networking) || rc=$?
case $rc in
  0) eval "$out"; pid=$PID ;;
  1) fail "mysqld exited instead of falling back" ;;
  *) fail "server did not come up" ;;
esac
q() { "$MYSQL" -uroot -S "$W/s.sock" -N -e "$1"; }

grep -q 'Linux native AIO setup failed with 1024 slots per segment; released the io_setup() contexts already created and falling back to simulated AIO' "$W/err.log" \
  || fail "no fallback warning in the error log"
grep -q 'slots per segment (innodb_aio_pending_ios_per_thread) = .* slots, simulated AIO' "$W/err.log" \
  || fail "no startup line saying simulated AIO"
[[ $(q 'SELECT @@innodb_use_native_aio') == 0 ]] || fail "innodb_use_native_aio still ON"
"$MYSQL" -uroot -S "$W/s.sock" -E -e 'SHOW ENGINE INNODB STATUS' \
  | grep -q 'AIO slots per I/O thread: 1024, simulated AIO' \
  || fail "SHOW ENGINE INNODB STATUS does not show simulated AIO"
# Every context created before the failure was destroyed: the server holds
# no io_setup() events now (other processes may move aio-nr, so allow no
# more than they could: compare with the value before the start).
after=$(cat /proc/sys/fs/aio-nr)
(( after <= before )) || fail "fs.aio-nr went from $before to $after: contexts leaked"
q "CREATE DATABASE d; CREATE TABLE d.t (a INT PRIMARY KEY, b CHAR(100)) ENGINE=InnoDB;
   INSERT INTO d.t VALUES (1,'x'),(2,'y'),(3,'z'); CHECK TABLE d.t" | grep -q 'status	OK' \
  || fail "writes on simulated AIO"
python3 "$HARNESS/server.py" stop --how sql --socket "$W/s.sock" --pid "$pid" >/dev/null 2>&1 || true
pid=
echo "aio-fallback: server started on simulated AIO after io_setup() EAGAIN, fs.aio-nr $before -> $after: PASS"
