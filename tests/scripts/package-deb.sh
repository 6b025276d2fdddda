#!/usr/bin/env bash
# The Debian packages (scripts/package deb) hold a server that runs the way
# its systemd unit and maintainer script run it. Without touching the host's
# packages: the set (steady-server, -client, -common, and the -dbgsym of
# server and client) is built from the build with Debian's layout (make
# deb) and checked (each
# package takes the place of its kind, the client has no maintainer script
# and no server file, mysqld is stripped and its debug information is under
# its build ID in steady-server-dbgsym, control
# fields, conffile /etc/mysql/steady.cnf offered as the my.cnf alternative,
# unit Type=notify as user mysql, files at Debian's paths, the same paths
# and the package's version compiled into mysqld,
# no RPATH into the build tree); its payload is unpacked into a scratch
# root, its steady.cnf re-rooted there; the datadir is initialised
# with the postinst's own command (root@localhost by auth_socket, from the
# packaged SQL file); the unit's ExecStart runs as a non-root user with
# NOTIFY_SOCKET set, and must send READY=1; root logs in without a password
# over the socket, plugins and components load from /usr/lib/mysql/plugin;
# LOAD DATA INFILE works from the packaged secure_file_priv directory;
# SIGTERM (systemd's stop) shuts it down cleanly with STOPPING=1. Its
# maintainer scripts run in tests/scripts/deb-maintscripts.sh.
# Installing the package on a real host: docs/install.md. Skips (77) when
# the build with Debian's layout or dpkg-deb is missing.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${STEADY_CACHE:-$HOME/.cache/steady}
BUILD=${STEADY_DEB_BUILD:-$CACHE/build-deb/steady}
name=package-deb
skip() { echo "$name: SKIP: $*"; exit 77; }
fail() { echo "$name: FAILED: $*"; [[ -f ${R:-}/var/log/mysql/error.log ]] && tail -20 "$R/var/log/mysql/error.log"; exit 1; }
# shellcheck source=lib/installed.sh
. "$HERE/tests/scripts/lib/installed.sh"

[[ -x $BUILD/runtime_output_directory/mysqld && -f $BUILD/cmake_install.cmake ]] ||
  skip "no build with Debian's layout in $BUILD (make deb)"
command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null || skip "dpkg-deb/dpkg-shlibdeps missing (dpkg-dev)"
W=$(mktemp -d /tmp/$name.XXXXXX)
pid= lpid=
cleanup() { set +e; [[ -n $pid ]] && kill -9 "$pid" 2>/dev/null; [[ -n $lpid ]] && kill "$lpid" 2>/dev/null; [[ -n ${KEEP:-} ]] || rm -rf "$W"; }
trap cleanup EXIT
chmod 755 "$W"

mapfile -t debs < <("$HERE/scripts/package" deb --fast --out "$W/out")
((${#debs[@]})) || fail "scripts/package deb made no package (its message is above)"
deb=${debs[-1]}
pkgfile() { local f; for f in "${debs[@]}"; do [[ $(basename "$f") == "$1"_* ]] && echo "$f"; done; return 0; }
[[ $(basename "$deb") =~ ^steady-server_9\.7\.2-steady[0-9]+_[a-z0-9]+\.deb$ ]] || fail "package file name $(basename "$deb")"
[[ $(basename -a "${debs[@]}" | sed 's/_.*//' | sort | paste -sd' ') == \
   "steady-client steady-client-dbgsym steady-common steady-server steady-server-dbgsym" ]] ||
  fail "the package set is $(basename -a "${debs[@]}" | paste -sd' ')"
cdeb=$(pkgfile steady-client) mdeb=$(pkgfile steady-common) ddeb=$(pkgfile steady-server-dbgsym)

# Control data.
dpkg-deb -e "$deb" "$W/control"
field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == steady-server ]] || fail "Package: $(field Package)"
[[ $(field Depends) == *libc6* && $(field Depends) == *adduser* ]] || fail "Depends lacks libc6/adduser: $(field Depends)"
[[ $(field Depends) == "steady-client (= $(field Version)), steady-common (= $(field Version)), "* ]] ||
  fail "steady-server does not depend on its own client and common packages: $(field Depends)"
[[ $(field Version) == "$(dpkg-parsechangelog -l "$HERE/dist/deb/changelog" -S Version)" && $(field Version) == 9.7.2-steady* ]] ||
  fail "Version $(field Version) is not dist/deb/changelog's 9.7.2-steadyN"
[[ $(field Maintainer) == *'<dev@steady-server.invalid>' && $(field Homepage) == https://steady-server.invalid/ ]] ||
  fail "Maintainer/Homepage: $(field Maintainer) / $(field Homepage)"
# Each package takes the place of the others' packages of its kind.
has() { [[ ", $(dpkg-deb -f "$1" "$2" | tr -d '\n'), " == *", $3, "* ]]; }
for p in mysql-server mysql-server-core mariadb-server mariadb-server-core mysql-community-server \
         mysql-community-server-core percona-server-server; do
  for f in Conflicts Replaces; do has "$deb" $f $p || fail "steady-server: $f lacks $p"; done
done
for p in mysql-client mysql-client-core mariadb-client mariadb-client-core mysql-community-client \
         mysql-community-client-core mysql-community-client-plugins percona-server-client; do
  for f in Conflicts Replaces; do has "$cdeb" $f $p || fail "steady-client: $f lacks $p"; done
done
for p in virtual-mysql-server default-mysql-server; do has "$deb" Provides $p || fail "steady-server: Provides lacks $p"; done
for p in virtual-mysql-client default-mysql-client; do has "$cdeb" Provides $p || fail "steady-client: Provides lacks $p"; done

# steady-client installs alone: no maintainer script (nothing to start), no
# server file, no dependency on the server, and its clients inside.
dpkg-deb -e "$cdeb" "$W/ccontrol"
ls "$W/ccontrol" | grep -qE '^(pre|post)(inst|rm)$' && fail "steady-client has maintainer scripts"
[[ $(dpkg-deb -f "$cdeb" Depends) == "steady-common (= $(field Version)), "*libc6* &&
   $(dpkg-deb -f "$cdeb" Depends) != *steady-server* && $(dpkg-deb -f "$cdeb" Depends) != *adduser* ]] ||
  fail "steady-client Depends: $(dpkg-deb -f "$cdeb" Depends)"
dpkg-deb -c "$cdeb" | awk '{print $NF}' > "$W/client.list"
dpkg-deb -c "$deb" | awk '{print $NF}' > "$W/server.list"
grep -q '^\./usr/sbin/' "$W/client.list" && fail "steady-client holds a server file"
for f in ./usr/bin/mysql ./usr/bin/mysqladmin ./usr/bin/mysqldump ./usr/bin/mysqlbinlog \
         ./usr/lib/mysql/plugin/authentication_ldap_sasl_client.so; do
  grep -qxF "$f" "$W/client.list" || fail "steady-client lacks $f"
  grep -qxF "$f" "$W/server.list" && fail "steady-server holds the client's $f too"
done
# steady-common: configuration only, for any architecture.
[[ $(dpkg-deb -f "$mdeb" Architecture) == all && $(dpkg-deb -f "$mdeb" Depends) == "mysql-common | mariadb-common" ]] ||
  fail "steady-common: Architecture $(dpkg-deb -f "$mdeb" Architecture), Depends $(dpkg-deb -f "$mdeb" Depends)"
dpkg-deb -e "$mdeb" "$W/mcontrol"
grep -qx /etc/mysql/conf.d/steady-client.cnf "$W/mcontrol/conffiles" || fail "steady-client.cnf is not a conffile"
# Debug symbols: mysqld is stripped, its debug information sits under its
# build ID in steady-server-dbgsym.
[[ $(dpkg-deb -f "$ddeb" Depends) == "steady-server (= $(field Version))" && $(dpkg-deb -f "$ddeb" Section) == debug ]] ||
  fail "steady-server-dbgsym: Depends $(dpkg-deb -f "$ddeb" Depends), Section $(dpkg-deb -f "$ddeb" Section)"
dpkg-deb -x "$ddeb" "$W/dbg"
grep -qx /etc/mysql/steady.cnf "$W/control/conffiles" || fail "/etc/mysql/steady.cnf is not a conffile"
grep -qx /etc/logrotate.d/mysql-server "$W/control/conffiles" || fail "/etc/logrotate.d/mysql-server is not a conffile"
if grep -qx /etc/mysql/my.cnf "$W/control/conffiles"; then fail "the package owns /etc/mysql/my.cnf, the alternative shared with mysql-common"; fi
grep -q 'update-alternatives --install /etc/mysql/my.cnf my.cnf /etc/mysql/steady.cnf' "$W/control/postinst" ||
  fail "postinst does not offer steady.cnf as the my.cnf alternative"
grep -q 'update-alternatives --remove my.cnf /etc/mysql/steady.cnf' "$W/control/prerm" ||
  fail "prerm does not withdraw the my.cnf alternative"
for s in preinst postinst prerm postrm; do
  sh -n "$W/control/$s" || fail "$s is not valid sh"
  grep -q '#STEADY_DATADIR_CHECK#\|@MYSQL_VERSION@' "$W/control/$s" && fail "$s was not assembled (scripts/package maintscripts)"
done

# Payload.
R=$W/root
for f in "$mdeb" "$cdeb" "$deb"; do dpkg-deb -x "$f" "$R"; done
id=$(readelf -n "$R/usr/sbin/mysqld" 2>/dev/null | sed -n 's/^ *Build ID: *//p')
[[ -n $id ]] || fail "mysqld has no build ID"
dbg=$W/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
[[ -f $dbg ]] || fail "no $dbg for mysqld's build ID $id"
readelf -S "$R/usr/sbin/mysqld" | grep -q '\.debug_info' && fail "the packaged mysqld is not stripped"
readelf -S "$dbg" | grep -q '\.debug_info' || fail "$dbg holds no .debug_info"
[[ " $(dpkg-deb -f "$ddeb" Build-Ids) " == *" $id "* ]] || fail "Build-Ids lacks mysqld's $id"
grep -qx 'socket                  = /run/mysqld/mysqld.sock' "$R/etc/mysql/conf.d/steady-client.cnf" &&
  grep -qx 'plugin_dir              = /usr/lib/mysql/plugin' "$R/etc/mysql/conf.d/steady-client.cnf" ||
  fail "steady-client.cnf lacks the socket or the plugin directory"
for f in usr/sbin/mysqld usr/bin/mysql usr/bin/mysqladmin usr/bin/mysqldump \
         usr/lib/mysql/plugin/auth_socket.so usr/lib/mysql/plugin/group_replication.so \
         usr/lib/mysql/plugin/component_classic_hashing.so usr/share/mysql/english/errmsg.sys \
         usr/share/mysql/charsets/Index.xml usr/share/mysql/steady-root-auth-socket.sql \
         etc/mysql/steady.cnf lib/systemd/system/mysql.service usr/lib/sysusers.d/steady-server.conf \
         etc/mysql/conf.d etc/mysql/mysql.conf.d etc/logrotate.d/mysql-server \
         usr/share/doc/steady-server/changelog.Debian.gz; do
  [[ -e $R/$f ]] || fail "$f missing from the package"
done
grep -q 'mysqladmin --defaults-file=/etc/mysql/debian.cnf' "$R/etc/logrotate.d/mysql-server" &&
  grep -q 'flush-logs' "$R/etc/logrotate.d/mysql-server" || fail "logrotate does not flush the logs through debian.cnf"
for l in '!includedir /etc/mysql/conf.d/' '!includedir /etc/mysql/mysql.conf.d/' \
         'secure_file_priv        = /var/lib/mysql-files' 'socket                  = /run/mysqld/mysqld.sock'; do
  grep -qxF "$l" "$R/etc/mysql/steady.cnf" || fail "steady.cnf lacks: $l"
done
unit=$R/lib/systemd/system/mysql.service
for l in Type=notify User=mysql ExecStart=/usr/sbin/mysqld Alias=mysqld.service; do
  grep -qx "$l" "$unit" || fail "unit lacks $l"
done
no_build_paths "$R/usr"
# Debian's layout is compiled in: with no my.cnf at all, mysqld's defaults
# are the package's paths (the messages are read from the scratch root only
# so that it can print them), and @@version carries the package's release.
# basedir is the parent of the directory mysqld runs from (/usr for
# /usr/sbin/mysqld, here the scratch root's usr/), and the plugin and
# character set directories are Debian's, under it; the others are absolute.
"$R/usr/sbin/mysqld" --no-defaults --lc-messages-dir="$R/usr/share/mysql" --verbose --help \
  2>/dev/null > "$W/defaults.txt" || fail "mysqld --no-defaults --verbose --help"
for l in "basedir $R/usr/" "plugin-dir $R/usr/lib/mysql/plugin/" 'socket /run/mysqld/mysqld.sock' \
         'secure-file-priv /var/lib/mysql-files' 'datadir /var/lib/mysql/' \
         "character-sets-dir $R/usr/share/mysql/charsets/"; do
  awk -v k="${l%% *}" '$1 == k { print $1, $2 }' "$W/defaults.txt" | grep -qxF "$l" ||
    fail "compiled-in default is not '$l': $(awk -v k="${l%% *}" '$1 == k' "$W/defaults.txt")"
done
"$R/usr/sbin/mysqld" --no-defaults --version | grep -q "Ver $(field Version) " ||
  fail "mysqld --version is not $(field Version): $("$R/usr/sbin/mysqld" --no-defaults --version)"

# The packaged steady.cnf, re-rooted into the scratch root; no user= line when
# not started as root (systemd's User= does that job).
sed -e "s#= /usr#= $R/usr#; s#= /var#= $R/var#; s#= /run#= $R/run#; s#= /tmp\$#= $W#" \
    -e '/^user /d' -e "s#^!includedir /etc/#!includedir $R/etc/#" \
    "$R/etc/mysql/steady.cnf" > "$W/my.cnf"
grep -q "$R/usr/lib/mysql/plugin" "$W/my.cnf" || fail "my.cnf has no plugin_dir under /usr/lib/mysql/plugin"
install -d "$R/var/lib/mysql" "$R/var/lib/mysql-files" "$R/var/log/mysql" "$R/run/mysqld" "$R/etc/mysql/conf.d"
# Free ports, through the conf.d directory my.cnf includes.
port=$((20000 + RANDOM % 20000))
printf '[mysqld]\nport=%s\nmysqlx_port=%s\n' "$port" $((port + 1)) > "$R/etc/mysql/conf.d/ports.cnf"
chmod 644 "$W/my.cnf"
# The postinst's initialisation command, with the packaged SQL file. A
# non-root tester also gets an auth_socket account of their own name.
init_sql=$R/usr/share/mysql/steady-root-auth-socket.sql
if [[ $SERVER_USER != nobody ]]; then
  cat "$init_sql" > "$W/init.sql"
  echo "CREATE USER '$(id -un)'@'localhost' IDENTIFIED WITH auth_socket; GRANT ALL ON *.* TO '$(id -un)'@'localhost' WITH GRANT OPTION;" >> "$W/init.sql"
  init_sql=$W/init.sql; client_user=$(id -un)
else
  client_user=root
fi
# (tests/scripts/deb-maintscripts.sh runs the postinst itself, with a stub mysqld.)
grep -qx 'CNF=/etc/mysql/steady.cnf' "$W/control/postinst" &&
  grep -q -- '--defaults-file="$R$CNF" --user=mysql' "$W/control/postinst" &&
  grep -q -- '--initialize-insecure' "$W/control/postinst" &&
  grep -q -- '--init-file="$R/usr/share/mysql/steady-root-auth-socket.sql"' "$W/control/postinst" ||
  fail "postinst no longer initialises with the packaged SQL file; update this test"
give_to_server_user "$W"
as_server_user "$R/usr/sbin/mysqld" --defaults-file="$W/my.cnf" --initialize-insecure --init-file="$init_sql" ||
  fail "initialisation as in postinst"

# Start as the unit does, with a systemd notification socket to listen on.
execstart=$(sed -n 's/^ExecStart=//p' "$unit")
notify_listen "$W/notify" "$W/notify.log"
lpid=$NOTIFY_PID
"${AS_SERVER_USER[@]}" env NOTIFY_SOCKET="$W/notify" MYSQLD_PARENT_PID=1 \
  "$R${execstart%% *}" --defaults-file="$W/my.cnf" >"$W/out.log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do
  grep -q 'READY=1' "$W/notify.log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || fail "mysqld exited while starting"
  sleep 0.5
done
grep -q 'READY=1' "$W/notify.log" || fail "no READY=1 on NOTIFY_SOCKET within 120 s (Type=notify would hang)"
sock=$R/run/mysqld/mysqld.sock
client=$R/usr/bin/mysql
if [[ $client_user == root ]]; then
  if "$client" -uroot -h127.0.0.1 -P"$port" -e 'SELECT 1' >/dev/null 2>&1; then fail "root logs in over TCP without a password"; fi
  [[ $("$client" -uroot -S "$sock" -N -e 'SELECT PLUGIN FROM mysql.user WHERE user="root" AND host="localhost"') == auth_socket ]] ||
    fail "root@localhost is not identified with auth_socket"
fi
ps -o user= -p "$pid" | grep -qx "$SERVER_USER" || fail "mysqld does not run as $SERVER_USER"
check_installed_server "$client" "$sock" -u"$client_user"
# LOAD DATA INFILE from the secure_file_priv directory of the packaged config.
printf '1\n2\n3\n' > "$R/var/lib/mysql-files/load.txt"
chmod 644 "$R/var/lib/mysql-files/load.txt"
[[ $("$client" -u"$client_user" -S "$sock" -N -e "SELECT @@secure_file_priv") == "$R/var/lib/mysql-files/" ]] ||
  fail "secure_file_priv is not the packaged /var/lib/mysql-files"
[[ $("$client" -u"$client_user" -S "$sock" -N -e "CREATE DATABASE load_test; CREATE TABLE load_test.t (a INT);
     LOAD DATA INFILE '$R/var/lib/mysql-files/load.txt' INTO TABLE load_test.t; SELECT SUM(a) FROM load_test.t; DROP DATABASE load_test") == 6 ]] ||
  fail "LOAD DATA INFILE from /var/lib/mysql-files"
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=
((rc == 0)) || fail "mysqld exited with $rc after SIGTERM"
grep -q 'STOPPING=1' "$W/notify.log" || fail "no STOPPING=1 notification"
grep -q "Shutdown complete" "$R/var/log/mysql/error.log" || fail "no 'Shutdown complete' in the error log"
echo "$name: OK ($(du -m "$deb" | cut -f1) MB .deb; unit's ExecStart sent READY=1 and STOPPING=1; root by auth_socket)"
