#!/usr/bin/env bash
# Installs the steady-server .deb on this host for real, starts the server it
# installs, and puts the host back. Needs root, changes system packages, so
# it is not part of `make test` (tests/scripts/package-deb.sh checks the same
# package without installing it); run it by hand:
#   sudo tests/host/deb-install.sh --yes [--deb DIR]
#  1. builds the packages (scripts/package deb --fast) unless --deb names a
#     directory holding them;
#  2. removes (not purges) the MySQL/MariaDB server and client packages it
#     conflicts with, moves a non-empty /var/lib/mysql aside;
#  3. dpkg -i steady-common, steady-client, steady-server (mysql-common or
#     mariadb-common must be installed): the postinst creates the mysql user and initialises
#     /var/lib/mysql with root@localhost by auth_socket;
#  4. starts /usr/sbin/mysqld as user mysql the way the unit does (systemd
#     itself when it runs as PID 1, else the unit's ExecStart under setpriv
#     with NOTIFY_SOCKET: READY=1 must arrive), `mysql -uroot` as root with
#     no password, the install checks of tests/scripts/lib/installed.sh,
#     then a clean stop;
#  5. dpkg --purge of the three: /var/lib/mysql must survive the purge, /etc/mysql/my.cnf
#     must go back to the other alternatives and their files stay; then the host is
#     put back: test datadir removed, the old one and /etc/mysql/debian.cnf
#     moved back, the removed packages installed again with apt-get.
set -euo pipefail

if [[ ${1:-} == --help || $# -eq 0 ]]; then sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${STEADY_CACHE:-$HOME/.cache/steady}
name=deb-install
fail() { echo "$name: FAILED: $*"; tail -20 /var/log/mysql/error.log 2>/dev/null; exit 1; }
# shellcheck source=../scripts/lib/installed.sh
. "$HERE/tests/scripts/lib/installed.sh"

yes=0 deb=
while (($#)); do
  case $1 in
    --yes) yes=1 ;;
    --deb) deb=${2:?--deb needs a directory}; shift ;;
    *) echo "$name: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
((yes)) || { echo "$name: changes system packages; pass --yes" >&2; exit 2; }
(($(id -u) == 0)) || { echo "$name: needs root" >&2; exit 2; }

W=$(mktemp -d /tmp/$name.XXXXXX)
if [[ -z $deb ]]; then
  deb=$(dirname "$("$HERE/scripts/package" deb --fast --out "$W" | tail -1)")
fi
debs=()
for p in steady-common steady-client steady-server; do
  f=$(ls "$deb"/${p}_*.deb 2>/dev/null | tail -1)
  [[ -n $f ]] || { echo "$name: no ${p}_*.deb in $deb" >&2; exit 2; }
  debs+=("$f")
done

mapfile -t removed < <(dpkg-query -W -f='${Package} ${Status}\n' \
  mariadb-server mariadb-server-core mariadb-client mariadb-client-core \
  mysql-server mysql-server-core mysql-client mysql-client-core 2>/dev/null |
  awk '/install ok installed/ {print $1}')
saved=
pid= lpid=
restore() {
  set +e
  [[ -n $pid ]] && kill -9 "$pid" 2>/dev/null
  pkill -9 -u mysql -x mysqld 2>/dev/null; sleep 0.5
  [[ -n $lpid ]] && kill "$lpid" 2>/dev/null
  for p in steady-server steady-client steady-common; do
    dpkg-query -W "$p" >/dev/null 2>&1 && dpkg --purge "$p" >/dev/null
  done
  if [[ -n $saved ]]; then rm -rf /var/lib/mysql; mv "$saved" /var/lib/mysql; fi
  # The postinst writes its own debian.cnf for the datadir it initialised.
  rm -f /etc/mysql/debian.cnf /etc/mysql/debian.cnf.steady-old
  [[ -f $W/debian.cnf ]] && cp -p "$W/debian.cnf" /etc/mysql/debian.cnf
  if ((${#removed[@]})); then
    echo "$name: installing again: ${removed[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${removed[@]}" >/dev/null
  fi
  rm -rf "$W"
}
trap restore EXIT

if ((${#removed[@]})); then
  echo "$name: removing for the test: ${removed[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "${removed[@]}" >/dev/null
fi
others=$(ls /etc/mysql/*.cnf 2>/dev/null | grep -v -e steady.cnf -e debian.cnf || true)
[[ -f /etc/mysql/debian.cnf ]] && cp -p /etc/mysql/debian.cnf "$W/debian.cnf"
if [[ -n "$(ls -A /var/lib/mysql 2>/dev/null)" ]]; then
  saved=/var/lib/mysql.before-$name.$$
  mv /var/lib/mysql "$saved"
fi

dpkg -i "${debs[@]}" || fail "dpkg -i ${debs[*]}"
getent passwd mysql >/dev/null || fail "no mysql user after install"
[[ $(readlink -f /etc/mysql/my.cnf) == /etc/mysql/steady.cnf ]] || fail "/etc/mysql/my.cnf is not steady.cnf (alternatives)"
[[ -d /var/lib/mysql/mysql ]] || fail "postinst did not initialise /var/lib/mysql"
[[ $(stat -c %U /var/lib/mysql/mysql.ibd) == mysql ]] || fail "datadir files not owned by mysql"

if [[ $(ps -p 1 -o comm=) == systemd ]]; then
  systemctl start mysql.service || fail "systemctl start mysql"
  pid=$(systemctl show -p MainPID --value mysql.service)
else
  install -d -o mysql -g mysql /run/mysqld
  notify_listen "$W/notify" "$W/notify.log"
  lpid=$NOTIFY_PID
  chmod 755 "$W"
  execstart=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/mysql.service)
  # setpriv execs mysqld (runuser would stay its parent): $! is the server.
  setpriv --reuid=mysql --regid=mysql --init-groups -- \
    env NOTIFY_SOCKET="$W/notify" MYSQLD_PARENT_PID=1 $execstart >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 240); do
    grep -q READY=1 "$W/notify.log" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || fail "mysqld exited while starting"
    sleep 0.5
  done
  grep -q READY=1 "$W/notify.log" || fail "no READY=1 within 120 s"
fi
ps -o user= -p "$pid" | grep -qx mysql || fail "mysqld does not run as mysql"
[[ $(mysql -uroot -N -e "SELECT CURRENT_USER()") == root@localhost ]] || fail "root by auth_socket"
check_installed_server /usr/bin/mysql /run/mysqld/mysqld.sock -uroot
if [[ $(ps -p 1 -o comm=) == systemd ]]; then
  systemctl stop mysql.service || fail "systemctl stop"
else
  kill -TERM "$pid"; rc=0; wait "$pid" || rc=$?
  ((rc == 0)) || fail "mysqld exited with $rc after SIGTERM"
fi
pid=
grep -q "Shutdown complete" /var/log/mysql/error.log || fail "no clean shutdown in the error log"
dpkg --purge steady-server steady-client steady-common >/dev/null || fail "dpkg --purge"
[[ -d /var/lib/mysql/mysql ]] || fail "purge deleted the datadir"
[[ $(readlink -f /etc/mysql/my.cnf) != /etc/mysql/steady.cnf ]] || fail "my.cnf still points at the purged steady.cnf"
for f in $others; do [[ -e $f ]] || fail "the package's install or purge removed $f"; done
rm -rf /var/lib/mysql /var/log/mysql
echo "$name: OK: installed $(basename -a "${debs[@]}" | paste -sd' '), server ran as mysql, root by auth_socket, purged with the datadir kept"
