#!/usr/bin/env bash
# The steady-server package's maintainer scripts, executed (not grepped) the
# way dpkg runs them, in scratch roots: the scripts as scripts/package
# assembles them into the .deb, the real deb-systemd-helper and
# deb-systemd-invoke (they honour the root through DPKG_ROOT), stub
# systemctl, mysqld, adduser, getent, chown and update-alternatives on PATH
# that record what they are asked. STEADY_DEB_TEST_ROOT points the scripts
# at each scratch root. Cases:
#   install on no datadir and on one holding only lost+found: initialised
#     (mysqld --initialize-insecure --user=mysql with the packaged SQL file),
#     debian.cnf (root by socket), /var/lib/mysql-files, unit enabled, started;
#   a MariaDB datadir, a newer MySQL's, MySQL 8.0's, files without mysql/:
#     preinst and postinst refuse, the datadir is byte for byte as it was,
#     mysqld never runs;
#   a MySQL 8.4 datadir (from mysql_upgrade_history, and from mysql.ibd's
#     page 0 alone): said to be upgraded one way, flag file with 8.4.x;
#   a start that fails: postinst exits non-zero and prints the error log's tail;
#   upgrade from 9.7.2-1: the server stopped before, started after; a service
#     the admin disabled stays disabled and is not started;
#   remove, then purge: the datadir, mysql-files and debian.cnf kept, the
#     logs gone, my.cnf alternative withdrawn, the unit's state purged;
#     purge with STEADY_PURGE_DATADIR=yes or the flag file removes the data,
#     but never a MariaDB datadir;
#   no systemd running: configured, not started, told how to start.
# Needs no build. Skips (77) without dpkg or init-system-helpers.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
name=deb-maintscripts
skip() { echo "$name: SKIP: $*"; exit 77; }
fail() {
  echo "$name: FAILED: [$case] $*"
  [[ -f ${OUT:-} ]] && { echo "--- output of the last script:"; tail -30 "$OUT"; }
  exit 1
}

command -v dpkg >/dev/null || skip "no dpkg"
for c in deb-systemd-helper deb-systemd-invoke; do
  command -v $c >/dev/null || skip "no $c (init-system-helpers)"
done
W=$(mktemp -d /tmp/$name.XXXXXX)
cleanup() { [[ -n ${KEEP:-} ]] || rm -rf "$W"; }
trap cleanup EXIT
S=$W/scripts
"$HERE/scripts/package" maintscripts --out "$S" >/dev/null
OLD=9.7.2-1
NEW=$(dpkg-parsechangelog -l "$HERE/dist/deb/changelog" -S Version 2>/dev/null || echo 9.7.2-steady1)

# Stub commands. Each appends "name args" to $R/.calls, where R is the
# scratch root the scripts were pointed at.
B=$W/bin
mkdir -p "$B"
stub() { printf '#!/bin/sh\nR=$STEADY_DEB_TEST_ROOT\necho "%s $*" >> "$R/.calls"\n%s\n' "$1" "$2" > "$B/$1"; chmod +x "$B/$1"; }
stub chown 'exit 0'
stub adduser 'touch "$R/.mysql-user"'
stub getent '[ "$1 $2" = "passwd mysql" ] && [ -e "$R/.mysql-user" ] && echo "mysql:x:100:101::/nonexistent:/usr/sbin/nologin"'
stub update-alternatives 'exit 0'
# systemctl: is-enabled follows the unit's symlinks in the root, as the real
# one does; start fails (with an error log line) when $R/.start-fails exists.
stub systemctl '
wants=$R/etc/systemd/system/multi-user.target.wants/mysql.service
for a in "$@"; do
  case $a in
    is-enabled) if [ -L "$wants" ]; then echo enabled; exit 0; else echo disabled; exit 1; fi ;;
    is-active) [ -e "$R/.active" ]; exit $? ;;
    start|restart)
      if [ -e "$R/.start-fails" ]; then
        echo "2026-12-03T12:00:00.000000Z 0 [ERROR] [MY-000067] [Server] unknown variable '"'"'innodb_bogus=1'"'"'." >> "$R/var/log/mysql/error.log"
        echo "2026-12-03T12:00:00.000001Z 0 [ERROR] [MY-010119] [Server] Aborting" >> "$R/var/log/mysql/error.log"
        exit 1
      fi
      touch "$R/.active"; exit 0 ;;
    stop) rm -f "$R/.active"; exit 0 ;;
  esac
done
exit 0'

# mysqld stub for the package's /usr/sbin/mysqld: --initialize-insecure
# makes a 9.7.2 datadir (as the real one refuses anything but an empty one).
mysqld_stub() {
  cat > "$1" <<'STUB'
#!/bin/sh
R=$STEADY_DEB_TEST_ROOT
echo "mysqld $*" >> "$R/.calls"
D=$R/var/lib/mysql
case " $* " in
  *" --initialize-insecure "*)
    for f in "$D"/*; do
      [ -e "$f" ] || continue
      [ "${f##*/}" = lost+found ] && continue
      echo "[ERROR] [MY-010457] [Server] --initialize specified but the data directory has files in it. Aborting." >> "$R/var/log/mysql/error.log"
      exit 1
    done
    mkdir -p "$D/mysql"
    printf '\0\0\0\0\0\0\0\0\0\1\142\116' > "$D/mysql.ibd"   # 90702 (0x1624e) at offset 8
    echo '{"file_format": "1","upgrade_history": [{"date": "2026-12-03 12:00:00","version": "9.7.2-steady","maturity": "LTS","initialize": true}]}' > "$D/mysql_upgrade_history"
    ;;
esac
exit 0
STUB
  chmod +x "$1"
}

# A scratch root with the package's files unpacked (what dpkg does between
# preinst and postinst).
unpack() {
  local r=$1
  mkdir -p "$r/etc/mysql/conf.d" "$r/etc/mysql/mysql.conf.d" "$r/usr/sbin" "$r/usr/share/mysql" "$r/lib/systemd/system"
  cp "$HERE/dist/deb/steady.cnf" "$r/etc/mysql/steady.cnf"
  cp "$HERE/dist/deb/mysql.service" "$r/lib/systemd/system/mysql.service"
  cp "$HERE/dist/deb/root-auth-socket.sql" "$r/usr/share/mysql/steady-root-auth-socket.sql"
  mysqld_stub "$r/usr/sbin/mysqld"
}
# What dpkg removes on remove: everything but the conffiles.
unpack_undo() {
  rm -rf "$1/usr/sbin/mysqld" "$1/usr/share/mysql" "$1/lib/systemd/system/mysql.service"
}

# run ROOT SCRIPT ARGS...: one maintainer script, with the environment dpkg
# gives it (plus $EXTRA_ENV); its output in $OUT, its exit status in $rc.
EXTRA_ENV=()
run() {
  local r=$1 s=$2; shift 2
  OUT=$W/out.$((++nrun))
  rc=0
  env PATH="$B:$PATH" STEADY_DEB_TEST_ROOT="$r" DPKG_MAINTSCRIPT_PACKAGE=steady-server \
    DPKG_MAINTSCRIPT_NAME="$s" DPKG_MAINTSCRIPT_ARCH="$(dpkg --print-architecture)" \
    ${EXTRA_ENV[@]+"${EXTRA_ENV[@]}"} "$S/$s" "$@" >"$OUT" 2>&1 || rc=$?
  echo "== $s $*: exit $rc" >> "$r/.calls"
}
nrun=0
new_root() {
  R=$W/root.$1
  mkdir -p "$R/var/lib" "$R/var/log"
  [[ ${2:-systemd} == systemd ]] && mkdir -p "$R/run/systemd/system"
  case=$1
}
# dpkg -i on a system without the package: preinst install, unpack, postinst configure.
install_pkg() {
  run "$R" preinst install
  ((rc == 0)) || return 0
  unpack "$R"
  run "$R" postinst configure
}
# dpkg -i over the installed OLD version (its prerm and postrm played by the new scripts).
upgrade_pkg() {
  run "$R" prerm upgrade "$NEW";         ((rc == 0)) || fail "prerm upgrade exit $rc"
  run "$R" preinst upgrade "$OLD";       ((rc == 0)) || fail "preinst upgrade exit $rc"
  unpack "$R"
  run "$R" postrm upgrade "$NEW";        ((rc == 0)) || fail "postrm upgrade exit $rc"
  run "$R" postinst configure "$OLD"
}
remove_pkg() {
  run "$R" prerm remove;  ((rc == 0)) || fail "prerm remove exit $rc"
  unpack_undo "$R"
  run "$R" postrm remove; ((rc == 0)) || fail "postrm remove exit $rc"
}
purge_pkg() {
  run "$R" postrm purge;  ((rc == 0)) || fail "postrm purge exit $rc"
  rm -f "$R/etc/mysql/steady.cnf"
}
called() { grep -q -- "$1" "$R/.calls"; }
said() { grep -q -- "$1" "$OUT"; }
enabled() { [[ -L $R/etc/systemd/system/multi-user.target.wants/mysql.service ]]; }
# A datadir's names, sizes, modes and contents, to prove nothing changed.
snapshot() { (cd "$R/var/lib" && find mysql -printf '%p %s %m %T@\n' | sort && find mysql -type f -exec md5sum {} + | sort); }
# mysql.ibd whose page 0 carries MYSQL_VERSION_ID $1 at offset 8.
ibd_with_version() {
  local id=$1
  { printf '\0\0\0\0\0\0\0\0'; printf "\\$(printf %o $((id >> 24 & 255)))\\$(printf %o $((id >> 16 & 255)))\\$(printf %o $((id >> 8 & 255)))\\$(printf %o $((id & 255)))"
    head -c 16376 /dev/zero; } > "$R/var/lib/mysql/mysql.ibd"
}
history_with_version() {
  printf '{"file_format": "1","upgrade_history": [{"date": "2025-01-01 00:00:00","version": "8.0.40","maturity": "LTS","initialize": true},{"date": "2026-01-01 00:00:00","version": "%s","maturity": "LTS"}]}\n' \
    "$1" > "$R/var/lib/mysql/mysql_upgrade_history"
}
# refused KIND-WORDS: preinst and a later postinst configure both refuse
# with a message matching KIND-WORDS, nothing in the datadir changes, no
# mysqld and no start.
refused() {
  local before
  before=$(snapshot)
  run "$R" preinst install
  ((rc != 0)) || fail "preinst accepted the datadir"
  said "$1" || fail "preinst did not say '$1'"
  said "Nothing.* was changed" || fail "preinst does not say the datadir was left alone"
  unpack "$R"      # as after dpkg --configure -a on a half-installed package
  run "$R" postinst configure
  ((rc != 0)) || fail "postinst configure accepted the datadir"
  said "$1" || fail "postinst did not say '$1'"
  [[ $(snapshot) == "$before" ]] || fail "the datadir changed"
  if called '^mysqld' || called 'systemctl.* start' || called '^chown'; then fail "something ran on a refused datadir: $(grep -v '^==' "$R/.calls" | paste -sd';')"; fi
}

# --- install on no datadir: initialised, enabled, started
new_root fresh
install_pkg
((rc == 0)) || fail "postinst configure exit $rc"
called 'mysqld --defaults-file=.*/etc/mysql/steady.cnf --user=mysql --initialize-insecure --init-file=.*/usr/share/mysql/steady-root-auth-socket.sql' ||
  fail "mysqld --initialize-insecure not run as the postinst should"
[[ -d $R/var/lib/mysql/mysql && -e $R/var/lib/mysql/debian-9.7.flag ]] || fail "datadir not initialised / no debian-9.7.flag"
called 'adduser --system --group .* mysql' || fail "no mysql user created"
called 'chown mysql:mysql .*/var/lib/mysql-files' && [[ -d $R/var/lib/mysql-files ]] || fail "/var/lib/mysql-files not made for mysql"
called 'update-alternatives --install /etc/mysql/my.cnf my.cnf /etc/mysql/steady.cnf 300' || fail "my.cnf alternative not offered"
grep -qx 'user     = root' "$R/etc/mysql/debian.cnf" && grep -qx 'socket   = /run/mysqld/mysqld.sock' "$R/etc/mysql/debian.cnf" ||
  fail "debian.cnf is not root by socket"
[[ $(stat -c %a "$R/etc/mysql/debian.cnf") == 600 ]] || fail "debian.cnf is not 0600"
enabled || fail "unit not enabled on first install"
called 'systemctl --quiet --system start mysql.service' && [[ -e $R/.active ]] || fail "server not started"
# A second configure (dpkg --configure, dpkg-reconfigure) initialises nothing.
: > "$R/.calls"
run "$R" postinst configure "$NEW"
((rc == 0)) || fail "second configure exit $rc"
if called '^mysqld'; then fail "a second configure ran mysqld on the datadir"; fi
fresh=$R

# --- a datadir that is a mount point: only lost+found in it
new_root lost-found
mkdir -p "$R/var/lib/mysql/lost+found"
install_pkg
((rc == 0)) || fail "postinst configure exit $rc"
called 'mysqld .*--initialize-insecure' && [[ -d $R/var/lib/mysql/mysql ]] || fail "a datadir with only lost+found was not initialised"

# --- MariaDB's datadir
new_root mariadb
mkdir -p "$R/var/lib/mysql/mysql" "$R/var/lib/mysql/shop"
echo "10.11.6-MariaDB" > "$R/var/lib/mysql/mysql_upgrade_info"
printf 'aria' > "$R/var/lib/mysql/aria_log_control"
printf 'x' > "$R/var/lib/mysql/mysql/global_priv.MAI"
printf 'row' > "$R/var/lib/mysql/shop/orders.ibd"
refused "MariaDB datadir (10.11.6-MariaDB)"
said "mariadb-dump" || fail "no word of how to migrate (mariadb-dump)"
# MariaDB 11's own marker file alone is enough.
new_root mariadb11
mkdir -p "$R/var/lib/mysql/mysql"
echo "11.4.2-MariaDB" > "$R/var/lib/mysql/mariadb_upgrade_info"
refused "MariaDB datadir"

# --- newer than the package
new_root newer
mkdir -p "$R/var/lib/mysql/mysql"; ibd_with_version 90800; history_with_version 9.8.0
refused "newer than this package"
new_root newer-flag
mkdir -p "$R/var/lib/mysql/mysql"; ibd_with_version 90702; touch "$R/var/lib/mysql/debian-10.0.flag"
refused "newer than this package"

# --- older than 8.4: not upgradable in one step
new_root mysql80
mkdir -p "$R/var/lib/mysql/mysql"; ibd_with_version 80040
refused "datadirs of MySQL 8.4 and later only"

# --- files, but no datadir
new_root foreign
mkdir -p "$R/var/lib/mysql"; echo data > "$R/var/lib/mysql/backup.sql"
before=$(cd "$R/var/lib" && find mysql -printf '%p %s\n' | sort)
run "$R" preinst install
((rc != 0)) && said "no mysql/ directory" || fail "a datadir without mysql/ but with files was accepted"
[[ $(cd "$R/var/lib" && find mysql -printf '%p %s\n' | sort) == "$before" ]] || fail "the datadir changed"

# --- MySQL 8.4: upgraded in place, one way, recorded
for how in history ibd; do
  new_root mysql84-$how
  mkdir -p "$R/var/lib/mysql/mysql" "$R/var/lib/mysql/shop"
  ibd_with_version 80404
  [[ $how == history ]] && history_with_version 8.4.4
  run "$R" preinst install
  ((rc == 0)) || fail "preinst refused a MySQL 8.4 datadir (exit $rc)"
  said "holds the data of MySQL 8.4.4" && said "one way" && said "Back up" ||
    fail "preinst did not say the 8.4.4 datadir is upgraded one way, with a backup hint"
  unpack "$R"
  run "$R" postinst configure
  ((rc == 0)) || fail "postinst configure exit $rc"
  grep -q "found the data of MySQL 8.4.4" "$R/var/lib/mysql/steady-upgrade-from-8.4.4.flag" 2>/dev/null ||
    fail "no flag file recording 8.4.4"
  if called 'mysqld .*--initialize'; then fail "an existing datadir was initialised"; fi
  [[ -e $R/.active ]] || fail "server not started on the 8.4 datadir"
done

# --- the same version's datadir (a reinstall after a remove) is used as it is
new_root same
mkdir -p "$R/var/lib/mysql/mysql"; ibd_with_version 90702; history_with_version 9.7.2-steady
install_pkg
((rc == 0)) && [[ -e $R/.active ]] || fail "a 9.7.2 datadir was not used as it is (exit $rc)"
if said "upgraded\|one way"; then fail "a 9.7.2 datadir was announced as an upgrade"; fi

# --- a start that fails fails the configure step, with the log's tail
new_root start-fails
touch "$R/.start-fails"
install_pkg
((rc != 0)) || fail "postinst configure succeeded although the server did not start"
said "did not start" && said "MY-010119.*Aborting" && said "unknown variable" ||
  fail "postinst did not print the error log's last lines"

# --- upgrade from the previous version: stop before, start after
new_root upgrade
install_pkg; ((rc == 0)) || fail "install exit $rc"
: > "$R/.calls"
upgrade_pkg
((rc == 0)) || fail "postinst configure $OLD exit $rc"
stop_at=$(grep -n 'systemctl.* stop mysql.service' "$R/.calls" | head -1 | cut -d: -f1)
[[ -n $stop_at ]] && ((stop_at < $(grep -n '^== preinst upgrade' "$R/.calls" | cut -d: -f1))) ||
  fail "the server was not stopped before the upgrade"
grep -A99 '^== postrm upgrade' "$R/.calls" | grep -q 'systemctl.* start mysql.service' && [[ -e $R/.active ]] ||
  fail "the server was not started after the upgrade"
enabled || fail "an enabled service is no longer enabled after the upgrade"

# --- a service the admin disabled stays disabled (and stopped) on upgrade
new_root disabled
install_pkg; ((rc == 0)) || fail "install exit $rc"
# systemctl disable mysql: removes the unit's symlinks; the admin stops it too.
rm -f "$R/etc/systemd/system/multi-user.target.wants/mysql.service" "$R/etc/systemd/system/mysqld.service" "$R/.active"
: > "$R/.calls"
upgrade_pkg
((rc == 0)) || fail "postinst configure $OLD exit $rc"
if enabled; then fail "the upgrade enabled a service the admin had disabled"; fi
if called 'systemctl.* start mysql.service'; then fail "the upgrade started a disabled service"; fi

# --- remove, then purge without confirmation: the data stays
R=$fresh case=remove-purge
: > "$R/.calls"
remove_pkg
called 'systemctl.* stop mysql.service' || fail "prerm remove did not stop the server"
called 'update-alternatives --remove my.cnf /etc/mysql/steady.cnf' || fail "my.cnf alternative not withdrawn"
[[ -L $R/etc/systemd/system/mysql.service ]] || fail "postrm remove did not mask the unit (as dh_installsystemd does)"
[[ -d $R/var/lib/mysql/mysql && -d $R/var/log/mysql ]] || fail "remove took the datadir or the logs"
purge_pkg
said "were kept" || fail "postrm purge did not say the data was kept"
[[ -d $R/var/lib/mysql/mysql && -d $R/var/lib/mysql-files && -f $R/etc/mysql/debian.cnf ]] ||
  fail "purge without confirmation removed the datadir, mysql-files or debian.cnf"
[[ ! -e $R/var/log/mysql ]] || fail "purge kept /var/log/mysql (Debian's removes the logs)"
[[ ! -e $R/var/lib/systemd/deb-systemd-helper-enabled/mysql.service.dsh-also && ! -L $R/etc/systemd/system/mysql.service ]] ||
  fail "purge left the unit's state or mask"

# --- purge, confirmed: by the environment, by the flag file
for how in env file; do
  new_root purge-$how
  install_pkg; ((rc == 0)) || fail "install exit $rc"
  remove_pkg
  if [[ $how == env ]]; then
    EXTRA_ENV=(STEADY_PURGE_DATADIR=yes)
    purge_pkg
    EXTRA_ENV=()
  else
    touch "$R/etc/mysql/steady-purge-datadir"
    purge_pkg
  fi
  [[ ! -e $R/var/lib/mysql && ! -e $R/var/lib/mysql-files && ! -e $R/etc/mysql/debian.cnf ]] ||
    fail "a confirmed purge kept the datadir, mysql-files or debian.cnf"
  [[ ! -e $R/etc/mysql/steady-purge-datadir ]] || fail "the confirmation file outlived the purge"
done
# ... but never MariaDB's datadir
new_root purge-mariadb
install_pkg; ((rc == 0)) || fail "install exit $rc"
remove_pkg
echo "10.11.6-MariaDB" > "$R/var/lib/mysql/mysql_upgrade_info"
touch "$R/etc/mysql/steady-purge-datadir"
purge_pkg
[[ -d $R/var/lib/mysql/mysql ]] || fail "a confirmed purge removed a MariaDB datadir"

# --- no systemd running (a container): configured, not started
new_root no-systemd nosystemd
install_pkg
((rc == 0)) || fail "postinst configure exit $rc"
said "systemd is not running here" || fail "no word of how to start without systemd"
if called 'systemctl.* start'; then fail "started through systemctl without systemd"; fi
enabled || fail "unit not enabled for a later boot with systemd"

echo "$name: OK (install, lost+found, MariaDB/newer/8.0/foreign refused untouched, 8.4 upgraded with flag, start failure, upgrade stop/start, disabled kept, remove/purge kept, confirmed purge, no systemd)"
