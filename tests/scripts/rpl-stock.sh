#!/usr/bin/env bash
# Asynchronous replication between Steady and stock MySQL 9.7.2 (vanilla,
# built by `make vanilla`), both directions, GTIDs on, durable settings.
# Steady runs with the adaptive commit wait and device-paced flushing on
# (the options in loose- form, so the stock server shares the file). For
# each direction: 8 clients commit 4000 single-row transactions on the
# source while it runs ALTER TABLESPACE ... SET EXTENT_SIZE (a Steady
# source) on the table; the replica must apply everything, keep both
# replication threads running, end with the same CHECKSUM TABLE and no
# GTID of its own, and (Steady source) its file must keep its own size,
# since the statement is not replicated. With --semisync (run by
# rpl-stock-semisync.sh) the same, semi-synchronously: the source loads
# semisync_source.so, the replica semisync_replica.so, semi-sync is turned on
# at the source once the replica is connected, the source's timeout is 10
# minutes (so it never quietly falls back to asynchronous), and every
# one of the 4000 commits must be acknowledged by the replica
# (Rpl_semi_sync_source_no_tx 0, yes_tx counts the acknowledged group
# commits). Without --semisync, a Steady source then creates a stored
# procedure whose text names a Steady variable: the stock replica stops with 1193 and the
# fix docs/upgrade-and-downgrade.md gives resumes it. Skips (77) without
# both builds (with --semisync: without their plugins).
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
semisync=0
[[ ${1:-} == --semisync ]] && semisync=1

HERE=$(cd "$(dirname "$0")/../.." && pwd)
HARNESS=$HERE/harness
name=rpl-stock
((semisync)) && name=rpl-stock-semisync
skip() { echo "$name: SKIP: $*"; exit 77; }
fail() { echo "$name: FAILED: $*"; exit 1; }

# shellcheck source=lib/mysqld.sh
. "$HERE/tests/scripts/lib/mysqld.sh"
find_both_servers
if ((semisync)); then
  for b in "$STEADY_BASE" "$VANILLA_BASE"; do
    [[ -f $(plugin_dir_of "$b")/semisync_source.so ]] || skip "no semisync plugins in $b (make build / make vanilla build the complete server)"
  done
fi
W=$(mktemp -d /tmp/$name.XXXXXX)
cleanup() { set +e; mysqld_kill_all; [[ -n ${KEEP:-} ]] && echo "kept $W" || rm -rf "$W"; }
trap cleanup EXIT

# make_server DIR KIND SERVER_ID: a datadir initialised by KIND (steady or
# vanilla) and its my.cnf; prints nothing.
make_server() {
  local dir=$1 kind=$2 id=$3 bin base
  mkdir -p "$dir"
  durable_cnf "$dir" "$(free_port)" "$id" >"$dir/my.cnf"
  if [[ $kind == steady ]]; then bin=$STEADY base=$STEADY_BASE; else bin=$VANILLA base=$VANILLA_BASE; fi
  if ((semisync)); then
    cat >>"$dir/my.cnf" <<EOF
plugin_dir = $(plugin_dir_of "$base")
plugin_load_add = semisync_source.so
plugin_load_add = semisync_replica.so
loose-rpl_semi_sync_replica_enabled = $( ((id == 2)) && echo ON || echo OFF)
loose-rpl_semi_sync_source_timeout = 600000
EOF
  fi
  "$bin" --defaults-file="$dir/my.cnf" --basedir="$base" --initialize-insecure >"$dir/init.log" 2>&1 \
    || { cat "$dir/init.log"; fail "$kind --initialize-insecure"; }
}

port_of() { sed -n 's/^port = //p' "$1/my.cnf"; }

replica_field() {  # DIR FIELD: a field of SHOW REPLICA STATUS
  "$MYSQL" -uroot -S "$1/s.sock" --vertical -e 'SHOW REPLICA STATUS' | sed -n "s/^ *$2: //p"
}

# steady_variable_in_replicated_text SOURCE REPLICA: a replicated statement
# whose text names a Steady variable stops a stock replica's SQL thread with
# ER_UNKNOWN_SYSTEM_VARIABLE (1193), as any unknown variable does; the fix in
# docs/upgrade-and-downgrade.md (the same object in a stock form, committed
# under the failed transaction's GTID) lets replication go on.
steady_variable_in_replicated_text() {
  local S=$1 R=$2 before obj_gtid errno
  before=$(sqlq "$S" "SELECT @@GLOBAL.gtid_executed")
  sqlq "$S" "CREATE PROCEDURE d.reserve_pct() SELECT @@GLOBAL.innodb_extent_size_min_free_pct AS pct"
  obj_gtid=$(sqlq "$S" "SELECT GTID_SUBTRACT(@@GLOBAL.gtid_executed, '$before')")
  sqlq "$S" "INSERT INTO d.t (client, pad) VALUES (99, 'after the procedure')"
  local i
  for i in $(seq 1 120); do
    errno=$(replica_field "$R" Last_SQL_Errno)
    [[ $errno != 0 && -n $errno ]] && break
    sleep 0.5
  done
  [[ $errno == 1193 ]] || fail "steady -> vanilla: a procedure naming a Steady variable gave SQL error '$errno', not 1193"
  [[ $(replica_field "$R" Replica_SQL_Running) == No ]] || fail "the replica's SQL thread still runs after 1193"
  # The statement fails while it is parsed, before the applier looks at its
  # GTID, so committing the GTID alone does not skip it: the relay log's
  # copy goes too (RESET REPLICA keeps the source settings, and
  # auto-positioning fetches only what the replica has not executed).
  sqlq "$R" "STOP REPLICA;
             SET GTID_NEXT = '$obj_gtid';
             CREATE PROCEDURE d.reserve_pct() SELECT NULL AS pct;
             SET GTID_NEXT = 'AUTOMATIC';
             RESET REPLICA;
             START REPLICA;"
  local gtids
  gtids=$(sqlq "$S" "SELECT @@GLOBAL.gtid_executed")
  [[ $(sqlq "$R" "SELECT WAIT_FOR_EXECUTED_GTID_SET('$gtids', 60)") == 0 ]] \
    || fail "steady -> vanilla: the replica did not resume after the fix: $(replica_field "$R" Last_SQL_Error)"
  [[ $(sqlq "$R" "SELECT COUNT(*) FROM d.t WHERE client = 99") == 1 ]] || fail "the row after the procedure is not on the replica"
}

# pair SOURCE_KIND REPLICA_KIND
pair() {
  local src_kind=$1 rep_kind=$2 S=$W/$1-to-$2/source R=$W/$1-to-$2/replica
  make_server "$S" "$src_kind" 1
  make_server "$R" "$rep_kind" 2
  start_kind "$S" "$src_kind"
  start_kind "$R" "$rep_kind"
  check_kind "$S" "$src_kind"
  check_kind "$R" "$rep_kind"

  sqlq "$S" "CREATE USER repl@'127.0.0.1' IDENTIFIED BY 'repl-pass';
             GRANT REPLICATION SLAVE ON *.* TO repl@'127.0.0.1';
             CREATE DATABASE d;
             CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, client INT NOT NULL,
                               pad CHAR(100) NOT NULL);"
  sqlq "$R" "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '127.0.0.1', SOURCE_PORT = $(port_of "$S"),
               SOURCE_USER = 'repl', SOURCE_PASSWORD = 'repl-pass', SOURCE_AUTO_POSITION = 1,
               SOURCE_SSL = 1;
             START REPLICA;"
  if ((semisync)); then
    # On only once the replica is there: with no replica a semi-sync
    # source waits the whole timeout on every commit.
    local i
    for i in $(seq 1 120); do
      [[ $(sqlq "$S" "SELECT COUNT(*) FROM performance_schema.processlist WHERE COMMAND LIKE 'Binlog Dump%'") == 1 ]] && break
      sleep 0.5
    done
    sqlq "$S" "SET GLOBAL rpl_semi_sync_source_enabled = ON"
    for i in $(seq 1 120); do
      [[ $(sqlq "$S" "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_source_clients'" | cut -f2) == 1 ]] && break
      sleep 0.5
    done
    [[ $(sqlq "$S" "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_source_clients'" | cut -f2) == 1 ]] ||
      fail "$src_kind -> $rep_kind: the replica did not connect as a semi-sync client"
  fi

  # 8 clients x 500 autocommit inserts; a Steady source preallocates the
  # table meanwhile.
  local c pids=()
  for c in $(seq 1 8); do
    for _ in $(seq 1 500); do echo "INSERT INTO d.t (client, pad) VALUES ($c, REPEAT('x', 100));"; done >"$W/load-$c.sql"
    "$MYSQL" -uroot -S "$S/s.sock" <"$W/load-$c.sql" & pids+=($!)
  done
  if [[ $src_kind == steady ]]; then
    sqlq "$S" 'ALTER TABLESPACE `d/t` SET EXTENT_SIZE = 64M' || fail "SET EXTENT_SIZE on the source"
  fi
  for c in "${pids[@]}"; do wait "$c" || fail "a load client failed"; done
  [[ $(sqlq "$S" "SELECT COUNT(*) FROM d.t") == 4000 ]] || fail "source rows"

  local gtids
  gtids=$(sqlq "$S" "SELECT @@GLOBAL.gtid_executed")
  [[ $(sqlq "$R" "SELECT WAIT_FOR_EXECUTED_GTID_SET('$gtids', 120)") == 0 ]] \
    || fail "$src_kind -> $rep_kind: the replica did not catch up (IO: $(replica_field "$R" Last_IO_Error); SQL: $(replica_field "$R" Last_SQL_Error))"
  [[ $(replica_field "$R" Replica_IO_Running) == Yes && $(replica_field "$R" Replica_SQL_Running) == Yes ]] \
    || fail "$src_kind -> $rep_kind: replication threads stopped: $(replica_field "$R" Last_Error)"
  [[ $(sqlq "$S" "CHECKSUM TABLE d.t" | cut -f2) == $(sqlq "$R" "CHECKSUM TABLE d.t" | cut -f2) ]] \
    || fail "$src_kind -> $rep_kind: checksums differ"
  [[ $(sqlq "$R" "SELECT GTID_SUBSET(@@GLOBAL.gtid_executed, '$gtids')") == 1 ]] \
    || fail "$src_kind -> $rep_kind: the replica has GTIDs of its own"
  local note=""
  if ((semisync)); then
    local yes no status
    status=$(sqlq "$S" "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_source_status'" | cut -f2)
    yes=$(sqlq "$S" "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_source_yes_tx'" | cut -f2)
    no=$(sqlq "$S" "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_source_no_tx'" | cut -f2)
    [[ $status == ON ]] || fail "$src_kind -> $rep_kind: semi-sync is $status on the source"
    # yes_tx counts acknowledged waits: one per binary log group commit,
    # not per transaction. no_tx 0 with a 10-minute timeout means no commit
    # went without an acknowledgement.
    ((yes >= 1 && no == 0)) || fail "$src_kind -> $rep_kind: $yes acknowledged waits, $no commits not acknowledged"
    [[ $(sqlq "$R" "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_replica_status'" | cut -f2) == ON ]] ||
      fail "$src_kind -> $rep_kind: semi-sync is off on the replica"
    note+="; semi-sync: $yes group commits acknowledged by the replica, 0 commits without"
  fi
  if [[ $src_kind == steady ]]; then
    local s_size r_size
    s_size=$(sqlq "$S" "SELECT FILE_SIZE FROM information_schema.INNODB_TABLESPACES WHERE NAME = 'd/t'")
    r_size=$(sqlq "$R" "SELECT FILE_SIZE FROM information_schema.INNODB_TABLESPACES WHERE NAME = 'd/t'")
    [[ $s_size == 67108864 ]] || fail "the source's table is $s_size bytes, not 64M"
    ((r_size < s_size)) || fail "the replica's file grew to $r_size: SET EXTENT_SIZE was replicated"
    note+="; SET EXTENT_SIZE grew the source's file to 64M and was not replicated (replica file $r_size bytes)"
    local waits
    waits=$(sqlq "$S" "SHOW GLOBAL STATUS LIKE 'Binlog_group_commit_adaptive_waits'" | cut -f2)
    note+="; $waits adaptive commit waits on the source"
  fi
  if [[ $src_kind == steady ]] && ((semisync == 0)); then
    steady_variable_in_replicated_text "$S" "$R"
    note+="; a stored procedure naming a Steady variable stopped the stock replica with 1193, and the documented fix resumed it"
  fi
  sqlq "$R" "STOP REPLICA"
  mysqld_stop "$R"
  mysqld_stop "$S"
  echo "$name: $src_kind -> $rep_kind: 4000 transactions applied, threads running, same checksum, no errant GTID$note"
}

pair steady vanilla
pair vanilla steady
echo "$name: PASS"
