#!/usr/bin/env bash
# Installs the steady-server .deb on this host for real, in the cases a DBA
# meets, and puts the host back. Needs root, changes system packages, so it
# is not part of `make test` (tests/scripts/package-deb.sh and
# tests/scripts/deb-maintscripts.sh check the same package and scripts
# without installing them); run it by hand:
#   sudo tests/host/deb-install.sh --yes [--deb DIR] [--no-mariadb]
# Builds the packages (scripts/package deb --fast) unless --deb names a
# directory holding them; removes (not purges) the MySQL/MariaDB server and
# client packages they conflict with and moves a non-empty /var/lib/mysql
# aside. Then, each case ending with dpkg --purge of common, client, server
# (/var/lib/mysql must survive it, /etc/mysql/my.cnf must go back to the
# other alternatives, the other /etc/mysql/*.cnf files stay):
#  1. fresh: dpkg -i initialises /var/lib/mysql (root@localhost by
#     auth_socket); mysqld started as the unit starts it (systemd when it is
#     PID 1, else the unit's ExecStart as user mysql with NOTIFY_SOCKET:
#     READY=1 must arrive); `mysql -uroot` as root with no password; the
#     install checks of tests/scripts/lib/installed.sh; LOAD DATA INFILE and
#     SELECT ... INTO OUTFILE in /var/lib/mysql-files, refused (1290)
#     elsewhere; a clean stop;
#  2. upgrade: the same packages installed again over case 1's: the datadir
#     is used as it is (its table still there), the server starts;
#  3. mount point: /var/lib/mysql a freshly made ext4 (lost+found in it):
#     initialised, lost+found kept;
#  4. client alone: apt-get install of steady-common and steady-client:
#     no server package, no mysqld, no /var/lib/mysql; mysql is Steady's,
#     with the package's socket and client plugins; ERROR 2002 with no
#     server;
#  5. MariaDB (unless --no-mariadb, or the registry has no mariadb-server):
#     Debian's mariadb-server installed and its datadir made, then removed
#     without purge as a DBA does before installing another server: dpkg -i
#     must fail with the MariaDB message, nothing in /var/lib/mysql changed;
#  6. a running MariaDB (started by its package; policy-rc.d allows only
#     mariadb meanwhile) with a table: apt-get install ./steady-*.deb
#     removes and stops it and stops at the MariaDB message, steady-server
#     not installed; then install.md's move: MariaDB again (the table as it
#     was), mariadb-dump, the datadir moved to /var/lib/mysql-mariadb,
#     apt-get install ./steady-*.deb, the dump loaded with mysql: the same
#     rows in Steady.
# Case 1 also checks that dpkg -l and @@version give Steady's release.
# Then the host is put back: the test datadirs removed, the old one and
# /etc/mysql/debian.cnf moved back, the packages cases 4-6 added purged,
# policy-rc.d as it was, the removed packages installed again with apt-get.
# Not covered here: a MySQL 8.4 datadir (no 8.4 server in Debian 12's
# registry) and a failed start under dpkg (needs systemd as PID 1): both
# are in tests/scripts/deb-maintscripts.sh, on a scratch root.
set -euo pipefail

if [[ ${1:-} == --help || $# -eq 0 ]]; then sed -n '2,46p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${STEADY_CACHE:-$HOME/.cache/steady}
name=deb-install
fail() { echo "$name: FAILED: $*"; tail -20 /var/log/mysql/error.log 2>/dev/null; exit 1; }
# shellcheck source=../scripts/lib/installed.sh
. "$HERE/tests/scripts/lib/installed.sh"

yes=0 deb= mariadb=1
while (($#)); do
  case $1 in
    --yes) yes=1 ;;
    --no-mariadb) mariadb=0 ;;
    --deb) deb=${2:?--deb needs a directory}; shift ;;
    *) echo "$name: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
((yes)) || { echo "$name: changes system packages; pass --yes" >&2; exit 2; }
(($(id -u) == 0)) || { echo "$name: needs root" >&2; exit 2; }
[[ -e /var/lib/mysql-mariadb ]] && { echo "$name: /var/lib/mysql-mariadb exists; case 6 moves a datadir there" >&2; exit 2; }

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
# Every package dpkg knows (installed, or removed with its configuration
# files kept): what case 4 adds, apt-get remove included, is purged again.
known_packages() { dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 != "un" {print $2}' | sort; }
before=$(known_packages)
# The server's other directories: removed at the end unless they were here.
made_dirs=()
for d in /var/lib/mysql-files /var/lib/mysql-keyring; do [[ -e $d ]] || made_dirs+=("$d"); done
saved= pid= lpid= loopdev= policy_set=0 moved_mariadb=0
restore() {
  set +e
  [[ -n $pid ]] && kill -9 "$pid" 2>/dev/null
  pkill -9 -u mysql -x mysqld 2>/dev/null
  pkill -9 -x mariadbd 2>/dev/null; sleep 0.5
  [[ -n $lpid ]] && kill "$lpid" 2>/dev/null
  for p in steady-server steady-client steady-common; do
    dpkg-query -W "$p" >/dev/null 2>&1 && dpkg --purge "$p" >/dev/null
  done
  mountpoint -q /var/lib/mysql && umount /var/lib/mysql
  [[ -n $loopdev ]] && losetup -d "$loopdev"
  added=$(comm -13 <(echo "$before") <(known_packages))
  if [[ -n $added ]]; then
    echo "$name: purging what the test installed: $(echo $added)"
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $added >/dev/null
  fi
  rm -rf /var/lib/mysql /var/log/mysql "${made_dirs[@]}"
  ((moved_mariadb)) && rm -rf /var/lib/mysql-mariadb
  if ((policy_set)); then
    rm -f /usr/sbin/policy-rc.d
    [[ -e $W/policy-rc.d ]] && cp -p "$W/policy-rc.d" /usr/sbin/policy-rc.d
  fi
  rm -f "/var/lib/mysql-files/$name-in.txt" "/var/lib/mysql-files/$name-out.txt"
  if [[ -n $saved ]]; then mv "$saved" /var/lib/mysql; fi
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

install_debs() {
  dpkg -i "${debs[@]}" || fail "dpkg -i ${debs[*]}"
  getent passwd mysql >/dev/null || fail "no mysql user after install"
  [[ $(readlink -f /etc/mysql/my.cnf) == /etc/mysql/steady.cnf ]] || fail "/etc/mysql/my.cnf is not steady.cnf (alternatives)"
  [[ -d /var/lib/mysql/mysql ]] || fail "no initialised datadir in /var/lib/mysql"
  [[ $(stat -c %U /var/lib/mysql/mysql.ibd) == mysql ]] || fail "datadir files not owned by mysql"
}

start_server() {
  if [[ $(ps -p 1 -o comm=) == systemd ]]; then
    systemctl start mysql.service || fail "systemctl start mysql"
    pid=$(systemctl show -p MainPID --value mysql.service)
  else
    install -d -o mysql -g mysql /run/mysqld
    rm -f "$W/notify" "$W/notify.log"
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
}

stop_server() {
  if [[ $(ps -p 1 -o comm=) == systemd ]]; then
    systemctl stop mysql.service || fail "systemctl stop"
  else
    kill -TERM "$pid"; rc=0; wait "$pid" || rc=$?
    ((rc == 0)) || fail "mysqld exited with $rc after SIGTERM"
    kill "$lpid" 2>/dev/null; lpid=
  fi
  pid=
  [[ $(grep -c "Shutdown complete" /var/log/mysql/error.log) -ge ${1:-1} ]] || fail "no clean shutdown in the error log"
}

purge_debs() {
  dpkg --purge steady-server steady-client steady-common >/dev/null || fail "dpkg --purge"
  [[ -d /var/lib/mysql/mysql ]] || fail "purge deleted the datadir"
  [[ $(readlink -f /etc/mysql/my.cnf) != /etc/mysql/steady.cnf ]] || fail "my.cnf still points at the purged steady.cnf"
  for f in $others; do [[ -e $f ]] || fail "the package's install or purge removed $f"; done
}

# What a datadir holds, to prove nothing in it changed: path, size, mtime.
listing() { find /var/lib/mysql -printf '%p %s %T@\n' | sort; }
# Whether dpkg -l lists package $1 as installed at version $2.
dpkg_lists() { dpkg -l "$1" 2>/dev/null | awk -v p="$1" -v v="$2" '$1 == "ii" && $2 == p && $3 == v {ok = 1} END {exit !ok}'; }
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -y --no-install-recommends "$@"; }
mariadb_up() {
  for _ in $(seq 1 60); do mariadb -N -e "SELECT 1" >/dev/null 2>&1 && return 0; sleep 1; done
  return 1
}

echo "$name: case 1, fresh datadir"
install_debs
start_server
check_installed_server /usr/bin/mysql /run/mysqld/mysqld.sock -uroot
printf '1\n2\n3\n' > /var/lib/mysql-files/$name-in.txt
chown mysql:mysql /var/lib/mysql-files/$name-in.txt
mysql -uroot -e "CREATE DATABASE hosttest; CREATE TABLE hosttest.t (a INT PRIMARY KEY);
  LOAD DATA INFILE '/var/lib/mysql-files/$name-in.txt' INTO TABLE hosttest.t;
  SELECT a FROM hosttest.t INTO OUTFILE '/var/lib/mysql-files/$name-out.txt'" ||
  fail "LOAD DATA INFILE / SELECT INTO OUTFILE in /var/lib/mysql-files"
[[ $(mysql -uroot -N -e "SELECT COUNT(*) FROM hosttest.t") == 3 ]] || fail "LOAD DATA did not load 3 rows"
[[ $(wc -l < /var/lib/mysql-files/$name-out.txt) == 3 ]] || fail "INTO OUTFILE did not write 3 lines"
cp /var/lib/mysql-files/$name-in.txt /tmp/$name-in.$$.txt
out=$(mysql -uroot -e "LOAD DATA INFILE '/tmp/$name-in.$$.txt' INTO TABLE hosttest.t" 2>&1) && fail "LOAD DATA outside secure_file_priv worked"
rm -f /tmp/$name-in.$$.txt
[[ $out == *"ERROR 1290"* ]] || fail "LOAD DATA outside secure_file_priv: $out (want ERROR 1290)"
rm -f "/var/lib/mysql-files/$name-in.txt" "/var/lib/mysql-files/$name-out.txt"
# Steady's own release in dpkg's list and in the server's version.
ver=$(dpkg-deb -f "${debs[2]}" Version)
[[ $ver =~ -steady[0-9]+$ ]] || fail "package version $ver does not carry Steady's release"
for p in steady-common steady-client steady-server; do
  dpkg_lists "$p" "$ver" ||
    fail "dpkg -l does not list $p $ver as installed: $(dpkg -l "$p" | tail -1)"
done
[[ $(mysql -uroot -N -e "SELECT @@version") == "$ver" ]] || fail "@@version is not $ver"
stop_server 1
echo "$name: case 1 OK: initialised, started as mysql, root by auth_socket, LOAD DATA and INTO OUTFILE in /var/lib/mysql-files, 1290 elsewhere, dpkg -l and @@version say $ver"

echo "$name: case 2, the same packages again over a datadir in use"
dpkg -i "${debs[@]}" || fail "dpkg -i over the installed packages"
[[ ! -e /var/lib/mysql/steady-upgrade-from-9.7.2.flag ]] || fail "a same-version reinstall was taken for an upgrade"
start_server
[[ $(mysql -uroot -N -e "SELECT COUNT(*) FROM hosttest.t") == 3 ]] || fail "the datadir was not kept on reinstall"
stop_server 2
purge_debs
rm -rf /var/lib/mysql /var/log/mysql
echo "$name: case 2 OK: datadir used as it was, server started, purge kept it"

echo "$name: case 3, /var/lib/mysql a mount point"
truncate -s 512M "$W/datadir.img"
mkfs.ext4 -q -F "$W/datadir.img"
loopdev=$(losetup -f --show "$W/datadir.img")
mkdir -p /var/lib/mysql
mount "$loopdev" /var/lib/mysql
[[ -d /var/lib/mysql/lost+found ]] || fail "no lost+found on the fresh file system"
install_debs
[[ -d /var/lib/mysql/lost+found ]] || fail "lost+found removed"
start_server
stop_server 1
purge_debs
umount /var/lib/mysql; losetup -d "$loopdev"; loopdev=
rm -rf /var/lib/mysql /var/log/mysql
echo "$name: case 3 OK: a mount point with lost+found initialised, lost+found kept"

echo "$name: case 4, the client packages alone"
apt_get install "${debs[0]}" "${debs[1]}" > "$W/apt-client.out" 2>&1 || { cat "$W/apt-client.out"; fail "apt-get install the client alone"; }
dpkg-query -W -f='${db:Status-Abbrev}' steady-server 2>/dev/null | grep -q '^ii' && fail "installing the client installed the server"
pgrep -u mysql -x mysqld >/dev/null && fail "a mysqld runs after installing the client alone"
[[ ! -e /var/lib/mysql ]] || fail "installing the client made /var/lib/mysql"
mysql --version | grep -q -- "$ver" || fail "mysql --version is not $ver: $(mysql --version)"
# The defaults it reads through steady-common: the package's socket and plugins.
mysql --print-defaults | grep -q -- '--socket=/run/mysqld/mysqld.sock' || fail "client default socket: $(mysql --print-defaults)"
mysql --print-defaults | grep -q -- '--plugin[-_]dir=/usr/lib/mysql/plugin' || fail "client plugin dir: $(mysql --print-defaults)"
n=$(dpkg -L steady-client | grep -c '^/usr/lib/mysql/plugin/.*\.so$' || true)
((n > 0)) || fail "steady-client holds no client plugin in /usr/lib/mysql/plugin"
out=$(mysql -uroot -e "SELECT 1" 2>&1) && fail "the client connected to a server that is not there"
[[ $out == *"ERROR 2002"*"/run/mysqld/mysqld.sock"* ]] || fail "no server: $out (want ERROR 2002 on /run/mysqld/mysqld.sock)"
dpkg --purge steady-client steady-common >/dev/null || fail "dpkg --purge steady-client steady-common"
echo "$name: case 4 OK: steady-client and steady-common alone: no server, no datadir, mysql $ver with the package's socket and $n client plugins"

# Read whole: grep -q would close the pipe early and fail it under pipefail.
candidate=$(apt-cache policy mariadb-server 2>/dev/null | sed -n 's/^ *Candidate: //p')
if ((mariadb)) && [[ -n $candidate && $candidate != "(none)" ]]; then
  echo "$name: case 5, MariaDB's datadir"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mariadb-server >/dev/null ||
    fail "apt-get install mariadb-server"
  [[ -e /var/lib/mysql/aria_log_control ]] || fail "mariadb-server made no datadir"
  pkill -x mariadbd 2>/dev/null || true
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq mariadb-server >/dev/null || fail "apt-get remove mariadb-server"
  pkill -9 -x mariadbd 2>/dev/null || true
  listing > "$W/before.txt"
  if dpkg -i "${debs[@]}" > "$W/dpkg.out" 2>&1; then
    cat "$W/dpkg.out"; fail "dpkg -i over MariaDB's datadir succeeded"
  fi
  grep -q "holds a MariaDB datadir" "$W/dpkg.out" || { cat "$W/dpkg.out"; fail "no MariaDB message"; }
  listing > "$W/after.txt"
  cmp -s "$W/before.txt" "$W/after.txt" || { diff "$W/before.txt" "$W/after.txt" | head; fail "the MariaDB datadir changed"; }
  pgrep -u mysql -x mysqld >/dev/null && fail "a mysqld runs on MariaDB's datadir"
  sed -n '/holds a MariaDB datadir/,/not installed/p' "$W/dpkg.out" | sed 's/^/  /'
  echo "$name: case 5 OK: refused with the MariaDB message, $(wc -l < "$W/before.txt") files in /var/lib/mysql unchanged"

  echo "$name: case 6, apt install over a running MariaDB, then the move install.md describes"
  # Debian's MariaDB starts and stops its server through invoke-rc.d; a
  # policy-rc.d here (a container's) forbids that: allow mariadb only.
  [[ -e /usr/sbin/policy-rc.d ]] && cp -p /usr/sbin/policy-rc.d "$W/policy-rc.d"
  policy_set=1
  printf '#!/bin/sh\n[ "$1" = mariadb ] && exit 0\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod 755 /usr/sbin/policy-rc.d
  apt_get install mariadb-server > "$W/apt.out" 2>&1 || { cat "$W/apt.out"; fail "apt-get install mariadb-server"; }
  mariadb_up || fail "MariaDB did not start on its datadir"
  mariadb -e "CREATE DATABASE hosttest; CREATE TABLE hosttest.t (a INT PRIMARY KEY, b VARCHAR(32));
    INSERT INTO hosttest.t SELECT seq, MD5(seq) FROM hosttest.seq_1_to_1000" || fail "MariaDB: make a table"
  sum=$(mariadb -N -e "CHECKSUM TABLE hosttest.t" | cut -f2)
  # A DBA's first try: apt removes the running MariaDB (Conflicts) and stops
  # at steady-server's preinst, which finds MariaDB's files.
  if apt_get install "${debs[@]}" > "$W/apt.out" 2>&1; then
    cat "$W/apt.out"; fail "apt-get install over a running MariaDB installed steady-server"
  fi
  grep -q "holds a MariaDB datadir" "$W/apt.out" || { cat "$W/apt.out"; fail "no MariaDB message from apt-get install"; }
  grep -q "Removing mariadb-server" "$W/apt.out" || { cat "$W/apt.out"; fail "apt did not remove mariadb-server"; }
  pgrep -x mariadbd >/dev/null && fail "MariaDB still runs after apt removed its package"
  pgrep -u mysql -x mysqld >/dev/null && fail "a mysqld runs on MariaDB's datadir"
  dpkg-query -W -f='${db:Status-Abbrev}' steady-server 2>/dev/null | grep -q '^ii' && fail "steady-server installed over MariaDB's datadir"
  sed -n '/holds a MariaDB datadir/,/not installed/p' "$W/apt.out" | sed 's/^/  /'
  # install.md's steps: MariaDB back on its datadir, dump, move it aside,
  # install Steady, load the dump.
  apt_get install mariadb-server > "$W/apt.out" 2>&1 || { cat "$W/apt.out"; fail "apt-get install mariadb-server again"; }
  mariadb_up || fail "MariaDB did not start on its datadir again"
  [[ $(mariadb -N -e "CHECKSUM TABLE hosttest.t" | cut -f2) == "$sum" ]] || fail "MariaDB's table changed"
  mariadb -N -e "SELECT a, b FROM hosttest.t ORDER BY a" > "$W/rows-mariadb.txt" || fail "MariaDB: read the rows"
  mariadb-dump --databases hosttest --routines --events --triggers > "$W/data.sql" || fail "mariadb-dump"
  invoke-rc.d mariadb stop || fail "stop MariaDB"
  mv /var/lib/mysql /var/lib/mysql-mariadb; moved_mariadb=1
  apt_get install "${debs[@]}" > "$W/apt.out" 2>&1 || { cat "$W/apt.out"; fail "apt-get install once MariaDB's datadir was moved aside"; }
  start_server
  # A dump as install.md says to load it. Debian 12's MariaDB begins it with
  # /*M!999999\- enable the sandbox mode */, a comment to MySQL's client
  # (the /*!999999\- form of some earlier MariaDB releases stops it).
  echo "  the dump's first line: $(head -n1 "$W/data.sql")"
  mysql -uroot < "$W/data.sql" || fail "loading MariaDB's dump into Steady (mysql < data.sql)"
  mysql -uroot -N -e "SELECT a, b FROM hosttest.t ORDER BY a" > "$W/rows-steady.txt" || fail "reading the rows loaded"
  [[ $(wc -l < "$W/rows-steady.txt") == 1000 ]] && cmp -s "$W/rows-mariadb.txt" "$W/rows-steady.txt" ||
    fail "the rows loaded are not MariaDB's"
  dpkg_lists steady-server "$ver" || fail "dpkg -l: steady-server $ver not installed"
  stop_server 1
  purge_debs
  rm -rf /var/lib/mysql /var/log/mysql
  [[ -e /var/lib/mysql-mariadb/aria_log_control ]] || fail "MariaDB's datadir moved aside is gone"
  echo "$name: case 6 OK: apt removed the running MariaDB and refused, its datadir kept; after the move, MariaDB's 1000 rows in Steady"
else
  echo "$name: cases 5 and 6 skipped (--no-mariadb, or no mariadb-server in the registry)"
fi
echo "$name: OK: installed $(basename -a "${debs[@]}" | paste -sd' ')"
