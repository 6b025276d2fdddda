#!/usr/bin/env bash
# The shipped my.cnf (docs/my.cnf.example) with every Steady option turned
# on is safe for a stock server, and a datadir moves between the two:
#  1. every Steady option in the example carries the loose- prefix;
#  2. stock MySQL 9.7.2 (vanilla, built by `make vanilla`) initialises a
#     datadir and starts with that file, warning once per Steady option,
#     and a table is loaded;
#  3. Steady starts on the same datadir with the same file, every Steady
#     option in effect, the table's checksum unchanged; it writes more rows
#     and grows the table's tablespace with SET EXTENT_SIZE;
#  4. stock MySQL starts on it again: same checksum, CHECK TABLE clean,
#     and a Steady variable left in mysqld-auto.cnf by SET PERSIST only
#     makes it log a line;
#  5. the other way round: a datadir Steady creates (every option on,
#     grown by SET EXTENT_SIZE) is opened and written by stock MySQL and
#     then by Steady again, the data checked each time.
# Each server is started with --defaults-file, as a DBA would. Skips (77)
# without both builds.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
HARNESS=$HERE/harness
EXAMPLE=$HERE/docs/my.cnf.example
name=loose-options
skip() { echo "$name: SKIP: $*"; exit 77; }
fail() { echo "$name: FAILED: $*"; [[ -f $W/err.log ]] && tail -20 "$W/err.log"; exit 1; }

# shellcheck source=lib/mysqld.sh
. "$HERE/tests/scripts/lib/mysqld.sh"
find_both_servers
W=$(mktemp -d /tmp/$name.XXXXXX)
cleanup() { set +e; mysqld_kill_all; rm -rf "$W"; }
trap cleanup EXIT

# 1. Steady's options in the example: the commented "# loose-name = value"
# lines. Any Steady option without the prefix is an error.
mapfile -t steady_opts < <(sed -n 's/^# \(loose-[a-z_]*\) *= *\(.*\)$/\1 = \2/p' "$EXAMPLE")
((${#steady_opts[@]} >= 5)) || fail "found only ${#steady_opts[@]} loose- options in $EXAMPLE"
for v in innodb_aio_pending_ios_per_thread innodb_adaptive_flushing_device_pacing \
         innodb_adaptive_flushing_device_latency_pct innodb_adaptive_flushing_device_capacity_max \
         innodb_extent_size_min_free_pct binlog_group_commit_sync_adaptive \
         binlog_group_commit_sync_adaptive_max_delay; do
  grep -qE "^#? *loose-$v *=" "$EXAMPLE" || fail "$v is not in $EXAMPLE in loose- form"
  if grep -qE "^#? *$v *=" "$EXAMPLE"; then fail "$v appears without loose- in $EXAMPLE"; fi
done

# The example as a DBA would use it, Steady options uncommented, and the
# paths and sizes of this test appended (later lines win).
{
  grep -vE '^\s*(#|$)' "$EXAMPLE"
  printf '%s\n' "${steady_opts[@]}"
  cat <<EOF
datadir = $W/data
socket = $W/s.sock
pid-file = $W/mysqld.pid
log-error = $W/err.log
skip-networking
innodb_buffer_pool_size = 128M
innodb_redo_log_capacity = 64M
innodb_flush_method = fsync
user = $(id -un)
EOF
} >"$W/my.cnf"

start() { mysqld_start "$W" "$1" "$2"; }  # basedir mysqld
stop() { mysqld_stop "$W"; }
q() { sqlq "$W" "$1"; }
checksum() { q "CHECKSUM TABLE d.t" | cut -f2; }

# 2. Stock MySQL initialises and starts with the file.
"$VANILLA" --defaults-file="$W/my.cnf" --basedir="$VANILLA_BASE" --initialize-insecure \
  >"$W/init.log" 2>&1 || { cat "$W/init.log"; fail "vanilla --initialize-insecure"; }
: >"$W/err.log"
start "$VANILLA_BASE" "$VANILLA"
[[ $(q "SELECT VERSION()") != *steady* ]] || fail "the stock server reports a Steady version"
unknown=$(grep -c "unknown variable 'loose-" "$W/err.log" || true)
((unknown == ${#steady_opts[@]})) || fail "vanilla warned about $unknown unknown loose- options, expected ${#steady_opts[@]}"
q "CREATE DATABASE d;
   CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, pad CHAR(100) NOT NULL);
   INSERT INTO d.t (pad) VALUES ('stock');"
for _ in $(seq 1 12); do q "INSERT INTO d.t (pad) SELECT pad FROM d.t"; done
sum1=$(checksum)
stop
echo "$name: vanilla started with the example (${#steady_opts[@]} loose- options ignored with a warning), loaded 4096 rows"

# 3. Steady on the same datadir, same file: the options are in effect.
: >"$W/err.log"
start "$STEADY_BASE" "$STEADY"
[[ $(q "SELECT VERSION()") == *steady* ]] || fail "not the Steady server"
if grep -q "unknown variable" "$W/err.log"; then fail "Steady does not know: $(grep 'unknown variable' "$W/err.log")"; fi
for o in "${steady_opts[@]}"; do
  var=${o%% *}; var=${var#loose-}; want=${o##* }
  case $want in ON) want=1 ;; OFF) want=0 ;; esac
  got=$(q "SELECT @@GLOBAL.$var")
  [[ $got == "$want" ]] || fail "@@$var is $got, the file says $want"
done
[[ $(checksum) == "$sum1" ]] || fail "checksum changed when Steady opened the stock datadir"
# A DBA who SET PERSISTs a Steady variable leaves it in mysqld-auto.cnf.
q "SET PERSIST innodb_adaptive_flushing_device_latency_pct = 300"
q "INSERT INTO d.t (pad) SELECT 'steady' FROM d.t LIMIT 1000;
   ALTER TABLESPACE \`d/t\` SET EXTENT_SIZE = 32M;"
[[ $(q "SELECT FILE_SIZE FROM information_schema.INNODB_TABLESPACES WHERE NAME = 'd/t'") == 33554432 ]] \
  || fail "SET EXTENT_SIZE did not grow the table to 32M"
sum2=$(checksum)
stop
echo "$name: Steady started on it with every option in effect, same checksum; wrote 1000 rows, grew d/t to 32M"

# 4. And back to stock MySQL.
: >"$W/err.log"
start "$VANILLA_BASE" "$VANILLA"
[[ $(checksum) == "$sum2" ]] || fail "checksum changed when vanilla reopened the datadir"
[[ $(q "SELECT COUNT(*) FROM d.t") == 5096 ]] || fail "row count after the round trip"
q "CHECK TABLE d.t" | grep -q 'status	OK' || fail "CHECK TABLE on vanilla after Steady"
[[ $(q "SELECT FILE_SIZE FROM information_schema.INNODB_TABLESPACES WHERE NAME = 'd/t'") == 33554432 ]] \
  || fail "the preallocated size did not survive the downgrade"
if grep -E '\[ERROR\]' "$W/err.log"; then fail "errors in vanilla's log after Steady"; fi
persisted=$(grep "innodb_adaptive_flushing_device_latency_pct" "$W/err.log" | grep -v "loose-" | head -1 | sed 's/^.*\] //')
[[ -n $persisted ]] || fail "vanilla said nothing about the persisted Steady variable"
stop
echo "$name: vanilla reopened it: 5096 rows, same checksum, CHECK TABLE OK, 32M kept; on the SET PERSIST of a Steady variable it logged: $persisted"

# 5. The other way round: a datadir Steady creates with every option on,
# loaded and grown by SET EXTENT_SIZE, opened and written by stock MySQL,
# then by Steady again. (A later datadir line wins.)
echo "datadir = $W/data2" >>"$W/my.cnf"
"$STEADY" --defaults-file="$W/my.cnf" --basedir="$STEADY_BASE" --initialize-insecure \
  >"$W/init2.log" 2>&1 || { cat "$W/init2.log"; fail "steady --initialize-insecure"; }
: >"$W/err.log"
start "$STEADY_BASE" "$STEADY"
q "CREATE DATABASE d;
   CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, pad CHAR(100) NOT NULL);
   INSERT INTO d.t (pad) VALUES ('steady');
   ALTER TABLESPACE \`d/t\` SET EXTENT_SIZE = 32M;"
for _ in $(seq 1 12); do q "INSERT INTO d.t (pad) SELECT pad FROM d.t"; done
sum3=$(checksum)
stop
: >"$W/err.log"
start "$VANILLA_BASE" "$VANILLA"
[[ $(checksum) == "$sum3" ]] || fail "checksum changed when vanilla opened Steady's datadir"
q "CHECK TABLE d.t" | grep -q 'status	OK' || fail "CHECK TABLE on vanilla, Steady's datadir"
[[ $(q "SELECT FILE_SIZE FROM information_schema.INNODB_TABLESPACES WHERE NAME = 'd/t'") == 33554432 ]] \
  || fail "the preallocated size of Steady's datadir did not survive on vanilla"
q "INSERT INTO d.t (pad) SELECT 'stock' FROM d.t LIMIT 1000"
sum4=$(checksum)
if grep -E '\[ERROR\]' "$W/err.log"; then fail "errors in vanilla's log on Steady's datadir"; fi
stop
: >"$W/err.log"
start "$STEADY_BASE" "$STEADY"
[[ $(checksum) == "$sum4" ]] || fail "checksum changed when Steady reopened its datadir after vanilla"
[[ $(q "SELECT COUNT(*) FROM d.t") == 5096 ]] || fail "row count after Steady -> stock -> Steady"
q "CHECK TABLE d.t" | grep -q 'status	OK' || fail "CHECK TABLE on Steady after vanilla"
stop
echo "$name: a Steady datadir (every option on, d/t grown to 32M) opened and written by vanilla, then by Steady: 5096 rows, same checksums, CHECK TABLE OK"
echo "$name: PASS"
