# Shared by tests/scripts/*.sh that start stock and Steady mysqld side by
# side with --defaults-file, as a DBA would (harness/server.py starts with
# --no-defaults). Source it; it defines:
#   mysqld_start DIR BASEDIR MYSQLD   start mysqld with DIR/my.cnf, wait until
#                                     DIR/s.sock answers; sets PIDS[DIR]
#   mysqld_stop DIR                   SHUTDOWN and wait for the process
#   mysqld_kill_all                   kill -9 every server started (cleanup)
#   sqlq DIR SQL                      run SQL on DIR's server, tab-separated,
#                                     no column names
#   find_both_servers                 STEADY, STEADY_BASE, VANILLA,
#                                     VANILLA_BASE and MYSQL (Steady's client)
#                                     from harness/server.py; skip() unless
#                                     both builds exist
#   free_port                         a free TCP port on 127.0.0.1
#   start_kind DIR steady|vanilla     mysqld_start with that build
#   check_kind DIR steady|vanilla     fail unless that server answers in DIR
#   plugin_dir_of BASEDIR             a build tree's plugin directory
#   durable_cnf DIR PORT SERVER_ID    the [mysqld] lines every side-by-side
#                                     test server shares (files in DIR,
#                                     127.0.0.1:PORT, no X plugin, GTIDs,
#                                     binlog, sync_binlog=1, trx_commit=1,
#                                     small memory, Steady's adaptive commit
#                                     wait and device pacing on, loose-)
# Needs HARNESS (harness/), skip() and fail() functions in the caller.

declare -A PIDS=()

mysqld_start() {
  local dir=$1 base=$2 bin=$3 i
  "$bin" --defaults-file="$dir/my.cnf" --basedir="$base" >"$dir/out.log" 2>&1 &
  PIDS[$dir]=$!
  for i in $(seq 1 240); do
    "$MYSQL" -uroot -S "$dir/s.sock" -e 'SELECT 1' >/dev/null 2>&1 && return 0
    kill -0 "${PIDS[$dir]}" 2>/dev/null || { tail -20 "$dir/err.log" 2>/dev/null; fail "$bin exited while starting ($dir)"; }
    sleep 0.5
  done
  fail "$bin did not answer within 120 s ($dir)"
}

mysqld_stop() {
  local dir=$1
  "$MYSQL" -uroot -S "$dir/s.sock" -e 'SHUTDOWN' || fail "SHUTDOWN ($dir)"
  wait "${PIDS[$dir]}" || true
  unset "PIDS[$dir]"
}

mysqld_kill_all() {
  local d
  for d in "${!PIDS[@]}"; do kill -9 "${PIDS[$d]}" 2>/dev/null || true; done
}

sqlq() { "$MYSQL" -uroot -S "$1/s.sock" -N -e "$2"; }

find_both_servers() {
  eval "$(python3 "$HARNESS/server.py" find --server steady)"
  STEADY=$MYSQLD STEADY_BASE=$BASEDIR MYSQL=$CLIENT
  eval "$(python3 "$HARNESS/server.py" find --server vanilla)"
  VANILLA=$MYSQLD VANILLA_BASE=$BASEDIR
  [[ -x $STEADY ]] || skip "no Steady mysqld at $STEADY"
  [[ -x $VANILLA ]] || skip "no vanilla mysqld at $VANILLA (make vanilla)"
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

start_kind() {
  if [[ $2 == steady ]]; then mysqld_start "$1" "$STEADY_BASE" "$STEADY"
  else mysqld_start "$1" "$VANILLA_BASE" "$VANILLA"; fi
}

check_kind() {
  local v
  v=$(sqlq "$1" "SELECT VERSION()")
  if [[ $2 == steady ]]; then [[ $v == *steady* ]] || fail "$1 runs $v, not Steady"
  else [[ $v != *steady* ]] || fail "$1 runs $v, not stock MySQL"; fi
}

plugin_dir_of() { echo "$1/plugin_output_directory"; }

durable_cnf() {
  cat <<EOF
[mysqld]
datadir = $1/data
socket = $1/s.sock
pid-file = $1/mysqld.pid
log-error = $1/err.log
# Servers side by side: none claims X Protocol port 33060.
loose-mysqlx = OFF
port = $2
bind_address = 127.0.0.1
server_id = $3
gtid_mode = ON
enforce_gtid_consistency = ON
log_bin = binlog
sync_binlog = 1
innodb_flush_log_at_trx_commit = 1
innodb_buffer_pool_size = 128M
innodb_redo_log_capacity = 64M
innodb_flush_method = fsync
user = $(id -un)
loose-binlog_group_commit_sync_adaptive = ON
loose-innodb_adaptive_flushing_device_pacing = ON
EOF
}
