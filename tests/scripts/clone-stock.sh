#!/usr/bin/env bash
# Clone between Steady and stock MySQL 9.7.2 (vanilla, built by `make
# vanilla`), both directions, with the clone plugin as a DBA uses it:
# the recipient runs CLONE INSTANCE FROM the donor over TCP while 4 clients
# keep committing on the donor. The donor's table `d.t` is loaded and
# updated first (so its pages and undo logs hold what Steady's redo and undo
# writes leave), `d.live` takes the concurrent commits. The recipient is
# started again on the cloned datadir (a server without a supervisor stops
# after the clone) and must recover it: `d.t` has the donor's CHECKSUM TABLE,
# `d.live` holds, for each client, a gap-free prefix of what that client
# committed (each client commits one row at a time, in order; across clients
# a row with a higher AUTO_INCREMENT id may commit first, so ids may have
# gaps at the clone point), CHECK TABLE passes, and the server accepts new
# writes. Skips (77) without both builds
# or without the clone plugin.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
HARNESS=$HERE/harness
name=clone-stock
skip() { echo "$name: SKIP: $*"; exit 77; }
fail() { echo "$name: FAILED: $*"; exit 1; }

# shellcheck source=lib/mysqld.sh
. "$HERE/tests/scripts/lib/mysqld.sh"
find_both_servers
for b in "$STEADY_BASE" "$VANILLA_BASE"; do
  [[ -f $(plugin_dir_of "$b")/mysql_clone.so ]] || skip "no clone plugin in $b (make build / make vanilla build the complete server)"
done
W=$(mktemp -d /tmp/$name.XXXXXX)
cleanup() { set +e; mysqld_kill_all; [[ -n ${KEEP:-} ]] && echo "kept $W" || rm -rf "$W"; }
trap cleanup EXIT

# make_server DIR KIND SERVER_ID
make_server() {
  local dir=$1 kind=$2 id=$3 bin base
  mkdir -p "$dir"
  if [[ $kind == steady ]]; then bin=$STEADY base=$STEADY_BASE; else bin=$VANILLA base=$VANILLA_BASE; fi
  { durable_cnf "$dir" "$(free_port)" "$id"
    echo "plugin_dir = $(plugin_dir_of "$base")"
    echo "plugin_load_add = mysql_clone.so"
  } >"$dir/my.cnf"
  "$bin" --defaults-file="$dir/my.cnf" --basedir="$base" --initialize-insecure >"$dir/init.log" 2>&1 \
    || { cat "$dir/init.log"; fail "$kind --initialize-insecure"; }
}

port_of() { sed -n 's/^port = //p' "$1/my.cnf"; }

# clone_pair DONOR_KIND RECIPIENT_KIND
clone_pair() {
  local dk=$1 rk=$2 D=$W/$1-to-$2/donor R=$W/$1-to-$2/recipient
  make_server "$D" "$dk" 1
  make_server "$R" "$rk" 2
  start_kind "$D" "$dk"
  start_kind "$R" "$rk"
  check_kind "$D" "$dk"
  check_kind "$R" "$rk"

  sqlq "$D" "CREATE USER donor@'127.0.0.1' IDENTIFIED BY 'donor-pass';
             GRANT BACKUP_ADMIN ON *.* TO donor@'127.0.0.1';
             CREATE DATABASE d;
             CREATE TABLE d.t (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, KEY (k));
             CREATE TABLE d.live (id INT PRIMARY KEY AUTO_INCREMENT, client INT NOT NULL, seq INT NOT NULL);
             SET SESSION cte_max_recursion_depth = 20000;
             INSERT INTO d.t WITH RECURSIVE s (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 20000)
               SELECT n, n % 977, REPEAT(CHAR(65 + n % 26), 120) FROM s;"
  local i
  for i in $(seq 1 300); do echo "UPDATE d.t SET c = 'u$i', k = k + 1 WHERE id = $(( (i * 61) % 20000 + 1 ));"; done \
    | "$MYSQL" -uroot -S "$D/s.sock" || fail "$dk donor: updates"
  local sum
  sum=$(sqlq "$D" "CHECKSUM TABLE d.t" | cut -f2)

  # 4 clients commit into d.live until the clone is over.
  local c pids=()
  touch "$W/go"
  for c in 1 2 3 4; do
    ( s=0
      while [[ -e $W/go ]]; do
        for _ in $(seq 1 50); do s=$((s + 1)); echo "INSERT INTO d.live (client, seq) VALUES ($c, $s);"; done
      done | "$MYSQL" -uroot -S "$D/s.sock" 2>/dev/null ) & pids+=($!)
  done
  sleep 1

  sqlq "$R" "SET GLOBAL clone_valid_donor_list = '127.0.0.1:$(port_of "$D")'"
  local out rc=0
  out=$("$MYSQL" -uroot -S "$R/s.sock" -N -e \
    "CLONE INSTANCE FROM donor@'127.0.0.1':$(port_of "$D") IDENTIFIED BY 'donor-pass'" 2>&1) || rc=$?
  rm -f "$W/go"
  for c in "${pids[@]}"; do wait "$c" || true; done
  # Without a supervisor (mysqld_safe, systemd) the recipient stops after a
  # successful clone and says so (ER_CLONE_NO_RESTART... 3707); anything
  # else is a failed clone.
  if ((rc != 0)) && [[ $out != *3707* ]]; then
    tail -20 "$R/err.log"
    fail "$dk -> $rk: CLONE INSTANCE: $out"
  fi
  wait "${PIDS[$R]}" 2>/dev/null || true
  unset "PIDS[$R]"
  local committed
  committed=$(sqlq "$D" "SELECT COUNT(*) FROM d.live")

  start_kind "$R" "$rk"
  check_kind "$R" "$rk"
  [[ $(sqlq "$R" "CHECKSUM TABLE d.t" | cut -f2) == "$sum" ]] || fail "$dk -> $rk: d.t differs from the donor's"
  local n gaps
  n=$(sqlq "$R" "SELECT COUNT(*) FROM d.live")
  gaps=$(sqlq "$R" "SELECT COUNT(*) FROM (SELECT client FROM d.live GROUP BY client
                      HAVING COUNT(*) <> MAX(seq) OR MIN(seq) <> 1) g")
  ((gaps == 0 && n > 0 && n <= committed)) \
    || fail "$dk -> $rk: d.live has $n rows, $gaps client(s) with a gap in their own sequence, donor committed $committed (a gap, or nothing cloned)"
  for tb in d.t d.live; do
    [[ $(sqlq "$R" "CHECK TABLE $tb" | cut -f4) == OK ]] || fail "$dk -> $rk: CHECK TABLE $tb"
  done
  sqlq "$R" "INSERT INTO d.live (client, seq) VALUES (0, 1); UPDATE d.t SET k = k + 1 WHERE id = 1" \
    || fail "$dk -> $rk: the clone does not take writes"
  mysqld_stop "$R"
  mysqld_stop "$D"
  echo "$name: $dk -> $rk: cloned under load; d.t has the donor's checksum, d.live $n of the donor's $committed rows, no client's sequence with a gap, CHECK TABLE OK, writes accepted"
}

clone_pair steady vanilla
clone_pair vanilla steady
echo "$name: PASS"
