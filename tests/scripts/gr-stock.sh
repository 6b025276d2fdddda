#!/usr/bin/env bash
# Group Replication with Steady and stock MySQL 9.7.2 (vanilla, built by
# `make vanilla`) in one single-primary group of three on this host: a
# Steady member (adaptive commit wait and device-paced flushing on)
# bootstraps the group, a stock member and a second Steady member join
# through distributed recovery; 8 clients commit 2000 transactions on the
# Steady primary, the primary role moves to the stock member
# (group_replication_set_as_primary), 2000 more are committed there; after
# each phase all three members are ONLINE, every secondary has applied
# everything and CHECKSUM TABLE agrees. Then the second Steady member, a
# super_read_only secondary, is preallocated with SET EXTENT_SIZE (no GTID
# made), the primary role moves to it, and 8,192 rows load into the space it
# holds and replicate. Skips (77) without both builds or their
# group_replication.so.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
HARNESS=$HERE/harness
name=gr-stock
skip() { echo "$name: SKIP: $*"; exit 77; }
fail() { echo "$name: FAILED: $*"; for d in "${W:-/nonexistent}"/*/; do [[ -f $d/err.log ]] && { echo "--- $d"; grep -E "ERROR|\[Repl\]" "$d/err.log" | tail -8; }; done; exit 1; }

# shellcheck source=lib/mysqld.sh
. "$HERE/tests/scripts/lib/mysqld.sh"
find_both_servers
for b in "$STEADY_BASE" "$VANILLA_BASE"; do
  [[ -f $(plugin_dir_of "$b")/group_replication.so ]] || skip "no group_replication.so in $b (make build / make vanilla)"
done
W=$(mktemp -d /tmp/$name.XXXXXX)
cleanup() { set +e; mysqld_kill_all; [[ -n ${KEEP:-} ]] && echo "kept $W" || rm -rf "$W"; }
trap cleanup EXIT

GROUP=5e1f7a00-5eed-4c0d-9a7b-000000000097
A=$W/steady B=$W/stock C=$W/steady2
sql_port_A=$(free_port) sql_port_B=$(free_port) sql_port_C=$(free_port)
gr_port_A=$(free_port) gr_port_B=$(free_port) gr_port_C=$(free_port)

# member DIR KIND ID SQL_PORT GR_PORT
member() {
  local dir=$1 kind=$2 id=$3 port=$4 gport=$5 bin base
  mkdir -p "$dir"
  if [[ $kind == steady ]]; then bin=$STEADY base=$STEADY_BASE; else bin=$VANILLA base=$VANILLA_BASE; fi
  { durable_cnf "$dir" "$port" "$id"
    cat <<EOF
report_host = 127.0.0.1
report_port = $port
plugin_dir = $(plugin_dir_of "$base")
# loose-: --initialize does not load plugins.
plugin_load_add = group_replication.so
loose-group_replication_group_name = $GROUP
loose-group_replication_start_on_boot = OFF
loose-group_replication_local_address = 127.0.0.1:$gport
loose-group_replication_group_seeds = 127.0.0.1:$gr_port_A,127.0.0.1:$gr_port_B,127.0.0.1:$gr_port_C
loose-group_replication_recovery_use_ssl = ON
EOF
  } >"$dir/my.cnf"
  "$bin" --defaults-file="$dir/my.cnf" --basedir="$base" --initialize-insecure >"$dir/init.log" 2>&1 \
    || { cat "$dir/init.log"; fail "$kind --initialize-insecure"; }
  start_kind "$dir" "$kind"
  check_kind "$dir" "$kind"
  sqlq "$dir" "SET SQL_LOG_BIN = 0;
    CREATE USER repl@'%' IDENTIFIED BY 'repl-pass';
    GRANT REPLICATION SLAVE, CONNECTION_ADMIN, BACKUP_ADMIN, GROUP_REPLICATION_STREAM ON *.* TO repl@'%';
    SET SQL_LOG_BIN = 1;
    CHANGE REPLICATION SOURCE TO SOURCE_USER = 'repl', SOURCE_PASSWORD = 'repl-pass'
      FOR CHANNEL 'group_replication_recovery';"
}

online_members() {  # DIR: members ONLINE as DIR's server sees them
  sqlq "$1" "SELECT COUNT(*) FROM performance_schema.replication_group_members WHERE MEMBER_STATE = 'ONLINE'"
}

primary_port() {  # DIR
  sqlq "$1" "SELECT MEMBER_PORT FROM performance_schema.replication_group_members WHERE MEMBER_ROLE = 'PRIMARY'"
}

wait_online() {  # N members ONLINE as every member sees it, within 120 s
  local i
  for i in $(seq 1 240); do
    [[ $(online_members "$A") == "$1" && $(online_members "$B") == "$1" && $(online_members "$C") == "$1" ]] && return 0
    sleep 0.5
  done
  fail "not $1 members ONLINE (steady sees $(online_members "$A"), stock $(online_members "$B"), steady2 $(online_members "$C"))"
}

# load DIR CLIENT_BASE: 8 clients x 250 autocommit inserts
load() {
  local c pids=()
  for c in $(seq 1 8); do
    for _ in $(seq 1 250); do echo "INSERT INTO d.t (client, pad) VALUES ($((c + $2)), REPEAT('x', 100));"; done >"$W/load-$c.sql"
    "$MYSQL" -uroot -S "$1/s.sock" <"$W/load-$c.sql" & pids+=($!)
  done
  for c in "${pids[@]}"; do wait "$c" || fail "a load client failed on $1"; done
}

# same PRIMARY SECONDARY ROWS: the secondary has applied everything
same() {
  local gtids
  gtids=$(sqlq "$1" "SELECT @@GLOBAL.gtid_executed")
  [[ $(sqlq "$2" "SELECT WAIT_FOR_EXECUTED_GTID_SET('$gtids', 120)") == 0 ]] || fail "$2 did not apply $gtids"
  [[ $(sqlq "$2" "SELECT COUNT(*) FROM d.t") == "$3" ]] || fail "$2 has $(sqlq "$2" "SELECT COUNT(*) FROM d.t") rows, not $3"
  [[ $(sqlq "$1" "CHECKSUM TABLE d.t" | cut -f2) == $(sqlq "$2" "CHECKSUM TABLE d.t" | cut -f2) ]] || fail "checksums differ"
}

member "$A" steady 1 "$sql_port_A" "$gr_port_A"
member "$B" vanilla 2 "$sql_port_B" "$gr_port_B"
member "$C" steady 3 "$sql_port_C" "$gr_port_C"
sqlq "$A" "SET GLOBAL group_replication_bootstrap_group = ON; START GROUP_REPLICATION;
           SET GLOBAL group_replication_bootstrap_group = OFF;"
sqlq "$A" "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT,
           client INT NOT NULL, pad CHAR(100) NOT NULL)"
sqlq "$B" "START GROUP_REPLICATION" || fail "the stock member could not join"
sqlq "$C" "START GROUP_REPLICATION" || fail "the second Steady member could not join"
wait_online 3
[[ $(primary_port "$A") == "$sql_port_A" ]] || fail "Steady is not the primary"
load "$A" 0
same "$A" "$B" 2000
same "$A" "$C" 2000
echo "$name: Steady primary, stock and Steady secondaries: 2000 transactions applied, 3 ONLINE, same checksum"

uuid_B=$(sqlq "$B" "SELECT @@server_uuid")
sqlq "$A" "SELECT group_replication_set_as_primary('$uuid_B')" >/dev/null || fail "set_as_primary"
for _ in $(seq 1 60); do [[ $(primary_port "$A") == "$sql_port_B" ]] && break; sleep 0.5; done
[[ $(primary_port "$A") == "$sql_port_B" ]] || fail "the primary role did not move to the stock member"
load "$B" 100
wait_online 3
same "$B" "$A" 4000
same "$B" "$C" 4000
waits=$(sqlq "$A" "SHOW GLOBAL STATUS LIKE 'Binlog_group_commit_adaptive_waits'" | cut -f2)
echo "$name: stock primary, two Steady secondaries: 2000 more applied, 3 ONLINE, same checksum ($waits adaptive commit waits on the first Steady member)"

# Preallocate a secondary (super_read_only, as Group Replication keeps it),
# then fail over to it and load into the space it holds.
sqlq "$B" "CREATE TABLE d.bulk (id INT PRIMARY KEY AUTO_INCREMENT, pad CHAR(200) NOT NULL)"
same "$B" "$C" 4000
[[ $(sqlq "$C" "SELECT @@GLOBAL.super_read_only") == 1 ]] || fail "the Steady secondary is not super_read_only"
gtids_C=$(sqlq "$C" "SELECT @@GLOBAL.gtid_executed")
sqlq "$C" "ALTER TABLESPACE \`d/bulk\` SET EXTENT_SIZE = 256M" || fail "SET EXTENT_SIZE on the super_read_only secondary"
bulk_size() { sqlq "$1" "SELECT FILE_SIZE FROM information_schema.INNODB_TABLESPACES WHERE NAME = 'd/bulk'"; }
[[ $(bulk_size "$C") == 268435456 ]] || fail "the secondary's d/bulk is $(bulk_size "$C") bytes, not 256M"
[[ $(sqlq "$C" "SELECT @@GLOBAL.gtid_executed") == "$gtids_C" ]] || fail "SET EXTENT_SIZE made a GTID on the secondary"
wait_online 3
uuid_C=$(sqlq "$C" "SELECT @@server_uuid")
sqlq "$B" "SELECT group_replication_set_as_primary('$uuid_C')" >/dev/null || fail "set_as_primary to the preallocated member"
for _ in $(seq 1 60); do [[ $(primary_port "$B") == "$sql_port_C" ]] && break; sleep 0.5; done
[[ $(primary_port "$B") == "$sql_port_C" ]] || fail "the primary role did not move to the preallocated member"
sqlq "$C" "INSERT INTO d.bulk (pad) VALUES (REPEAT('b', 200));"
for _ in $(seq 1 13); do sqlq "$C" "INSERT INTO d.bulk (pad) SELECT pad FROM d.bulk"; done
[[ $(bulk_size "$C") == 268435456 ]] || fail "the load into the preallocated member grew its file to $(bulk_size "$C")"
wait_online 3
for d in "$A" "$B"; do
  gtids=$(sqlq "$C" "SELECT @@GLOBAL.gtid_executed")
  [[ $(sqlq "$d" "SELECT WAIT_FOR_EXECUTED_GTID_SET('$gtids', 120)") == 0 ]] || fail "$d did not apply $gtids"
  [[ $(sqlq "$d" "CHECKSUM TABLE d.bulk" | cut -f2) == $(sqlq "$C" "CHECKSUM TABLE d.bulk" | cut -f2) ]] || fail "d.bulk differs on $d"
done
rows=$(sqlq "$C" "SELECT COUNT(*) FROM d.bulk")
echo "$name: SET EXTENT_SIZE = 256M on a super_read_only Steady secondary: no GTID; after failover to it $rows rows loaded into the preallocated file (size unchanged), same on all 3"

for d in "$C" "$B" "$A"; do sqlq "$d" "STOP GROUP_REPLICATION"; done
for d in "$C" "$B" "$A"; do mysqld_stop "$d"; done
echo "$name: PASS"
