#!/usr/bin/env bash
# The relocatable tarball (scripts/package tarball) is a server a DBA can
# run: built from the current build, unpacked into a scratch directory, its
# binaries carry no path into the build tree; as a non-root user its mysqld
# initialises a datadir the upstream way (a generated root password in the
# error log), starts from the unpacked tree, takes a client that must change
# that password, loads a plugin and a component from its own lib/plugin,
# creates an encrypted table through component_keyring_file loaded from a
# manifest, and stops cleanly on SHUTDOWN. Skips (77) when the complete build is
# missing.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${STEADY_CACHE:-$HOME/.cache/steady}
BUILD=$CACHE/build/steady
name=package-tarball
skip() { echo "$name: SKIP: $*"; exit 77; }
fail() { echo "$name: FAILED: $*"; [[ -f ${W:-}/err.log ]] && tail -20 "$W/err.log"; exit 1; }
# shellcheck source=lib/installed.sh
. "$HERE/tests/scripts/lib/installed.sh"

[[ -x $BUILD/runtime_output_directory/mysqld && -f $BUILD/cmake_install.cmake ]] ||
  skip "no build in $BUILD (make build)"
W=$(mktemp -d /tmp/$name.XXXXXX)
pid=
cleanup() { set +e; [[ -n $pid ]] && kill -9 "$pid" 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
chmod 755 "$W"

tarball=$("$HERE/scripts/package" tarball --fast --out "$W/out" | tail -1)
[[ $(basename "$tarball") =~ ^mysql-9\.7\.2-steady-linux-glibc[0-9]+\.[0-9]+-[a-z0-9_]+\.tar\.xz$ ]] ||
  fail "tarball name $(basename "$tarball") is not like Oracle's generic Linux tarballs"
tar -C "$W" -xf "$tarball"
top=$W/$(basename "$tarball" .tar.xz)
for f in bin/mysqld bin/mysql bin/mysqladmin bin/mysqldump bin/mysqlbinlog \
         lib/plugin/semisync_source.so lib/plugin/group_replication.so \
         lib/plugin/mysql_clone.so lib/plugin/component_classic_hashing.so \
         lib/plugin/component_keyring_file.so share/english/errmsg.sys \
         support-files/my.cnf.steady-example; do
  [[ -e $top/$f ]] || fail "$f missing from the tarball"
done
[[ ! -e $top/mysql-test ]] || fail "the tarball carries the mysql-test tree"
no_build_paths "$top"

# Relocatable: move the unpacked tree after unpacking, as a DBA may.
mv "$top" "$W/steady"
top=$W/steady
give_to_server_user "$W"
cat > "$W/my.cnf" <<EOF
[mysqld]
basedir=$top
datadir=$W/data
socket=$W/s.sock
mysqlx_socket=$W/x.sock
skip_networking=ON
log_error=$W/err.log
pid_file=$W/mysqld.pid
innodb_buffer_pool_size=64M
innodb_redo_log_capacity=32M
EOF
chmod 644 "$W/my.cnf"
as_server_user "$top/bin/mysqld" --defaults-file="$W/my.cnf" --initialize ||
  fail "mysqld --initialize"
password=$(sed -n 's/.*A temporary password is generated for root@localhost: //p' "$W/err.log")
[[ -n $password ]] || fail "no generated root password in the error log"

# Encryption at rest: component_keyring_file loaded from a manifest next to
# mysqld, its configuration in the plugin directory (upstream's layout).
printf '{ "components": "file://component_keyring_file" }\n' > "$top/bin/mysqld.my"
printf '{ "path": "%s/keyring", "read_only": false }\n' "$W" > "$top/lib/plugin/component_keyring_file.cnf"
chmod 644 "$top/bin/mysqld.my" "$top/lib/plugin/component_keyring_file.cnf"

"${AS_SERVER_USER[@]}" "$top/bin/mysqld" --defaults-file="$W/my.cnf" >"$W/out.log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do
  [[ -S $W/s.sock ]] && "$top/bin/mysqladmin" -uroot -p"$password" -S "$W/s.sock" ping >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || fail "mysqld exited while starting"
  sleep 0.5
done
# The generated password is expired: nothing but ALTER USER is allowed.
if "$top/bin/mysql" -uroot -p"$password" -S "$W/s.sock" -e 'SELECT 1' >/dev/null 2>&1; then
  fail "the generated root password is not expired"
fi
"$top/bin/mysql" -uroot -p"$password" -S "$W/s.sock" --connect-expired-password \
  -e "ALTER USER root@localhost IDENTIFIED BY 'steady-test-pw'" 2>/dev/null || fail "ALTER USER"
ps -o user= -p "$pid" | grep -qx "$SERVER_USER" || fail "mysqld does not run as $SERVER_USER"
printf '[client]\nuser=root\npassword=steady-test-pw\n' > "$W/client.cnf"
auth=--defaults-extra-file=$W/client.cnf
check_installed_server "$top/bin/mysql" "$W/s.sock" "$auth"
enc=$("$top/bin/mysql" "$auth" -S "$W/s.sock" -N -e "
  SELECT STATUS_VALUE FROM performance_schema.keyring_component_status WHERE STATUS_KEY = 'Component_status';
  CREATE DATABASE enc; CREATE TABLE enc.t (a INT) ENCRYPTION = 'Y'; INSERT INTO enc.t VALUES (42);
  SELECT a FROM enc.t; SELECT CREATE_OPTIONS FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'enc'" 2>"$W/enc.err") ||
  fail "encrypted table with component_keyring_file: $(cat "$W/enc.err")"
[[ $(echo $enc) == "Active 42 ENCRYPTION='Y'" ]] || fail "keyring/encryption gave: $enc"
[[ -s $W/keyring ]] || fail "the keyring file was not written"
"$top/bin/mysqladmin" "$auth" -S "$W/s.sock" shutdown || fail "mysqladmin shutdown"
rc=0; wait "$pid" || rc=$?
pid=
((rc == 0)) || fail "mysqld exited with $rc after SHUTDOWN"
grep -q "Shutdown complete" "$W/err.log" || fail "no 'Shutdown complete' in the error log"
echo "$name: OK ($(du -m "$tarball" | cut -f1) MB tarball, server ran as $SERVER_USER from a moved tree)"
