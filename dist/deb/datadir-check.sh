# Shared by the steady-server preinst and postinst: scripts/package puts this
# file in place of their STEADY_DATADIR_CHECK marker line (as debhelper does
# with #DEBHELPER#) and fills in @MYSQL_VERSION@.
#
# Tests only: STEADY_DEB_TEST_ROOT makes the maintainer scripts work on a
# scratch root (tests/scripts/deb-maintscripts.sh, with stub commands on
# PATH); dpkg never sets it. deb-systemd-helper then works in that root too,
# through its own DPKG_ROOT.
R=${STEADY_DEB_TEST_ROOT:-}
if [ -n "$R" ]; then DPKG_ROOT=$R; export DPKG_ROOT; fi

DATADIR=$R/var/lib/mysql
# The upstream version of this package's mysqld.
PKG_MYSQL_VERSION=@MYSQL_VERSION@
# MySQL upgrades from one LTS series to the next: a datadir older than 8.4
# must go through MySQL 8.4 first (as in Debian's mysql-server preinst).
MIN_UPGRADE_FROM=8.4

# The leading "X.Y.Z" of a version string ("8.4.3-0ubuntu1" -> 8.4.3).
numeric_version() {
  echo "$1" | sed -n 's/^\([0-9][0-9.]*[0-9]\).*/\1/p'
}

# datadir_survey: what /var/lib/mysql holds, before anything touches it.
# Sets DATADIR_KIND and DATADIR_VERSION:
#   empty    no such directory, or only lost+found and dot files in it
#            (what mysqld --initialize accepts): initialise
#   mariadb  made by MariaDB (its Aria log, its upgrade-info files, its
#            system tables); DATADIR_VERSION as MariaDB recorded it
#   mysql    a MySQL datadir; DATADIR_VERSION the version that last ran it
#            (mysql_upgrade_history, else the server version InnoDB stamps
#            on page 0 of mysql.ibd, else mysql_upgrade_info), "" if unknown
#   foreign  files, but no mysql/ directory
# (The scripts run under dash: no "local"; the helpers' variables start with _.)
datadir_is_empty() {
  for _f in "$DATADIR"/*; do
    [ -e "$_f" ] || [ -L "$_f" ] || continue
    [ "${_f##*/}" = lost+found ] && continue
    return 1
  done
  return 0
}

datadir_survey() {
  DATADIR_KIND='' DATADIR_VERSION='' _info=''
  if [ ! -d "$DATADIR" ] || datadir_is_empty; then
    DATADIR_KIND=empty
    return 0
  fi
  for _f in mariadb_upgrade_info mysql_upgrade_info; do
    if [ -f "$DATADIR/$_f" ]; then
      _info=$(head -n1 "$DATADIR/$_f" | tr -d '\r')
      case $_info in
        *MariaDB*) DATADIR_KIND=mariadb; DATADIR_VERSION=$_info; return 0 ;;
      esac
    fi
  done
  if [ -f "$DATADIR/mariadb_upgrade_info" ] || [ -e "$DATADIR/aria_log_control" ] ||
     [ -e "$DATADIR/mysql/global_priv.frm" ] || [ -e "$DATADIR/mysql/global_priv.MAI" ]; then
    DATADIR_KIND=mariadb
    DATADIR_VERSION=$_info
    return 0
  fi
  if [ ! -d "$DATADIR/mysql" ]; then
    DATADIR_KIND=foreign
    return 0
  fi
  DATADIR_KIND=mysql
  # mysqld 8.0.35 and later append {"version": "X.Y.Z..."} on every version
  # change; the last one is the version that ran it last.
  if [ -f "$DATADIR/mysql_upgrade_history" ]; then
    DATADIR_VERSION=$(tr ',{}' '\n' < "$DATADIR/mysql_upgrade_history" |
      sed -n 's/^ *"version" *: *"\([^"]*\)".*/\1/p' | tail -n1)
    DATADIR_VERSION=$(numeric_version "$DATADIR_VERSION")
  fi
  # InnoDB (8.0 and later) stamps MYSQL_VERSION_ID on page 0 of each
  # tablespace (FIL_PAGE_SRV_VERSION, 4 bytes big-endian at offset 8), and
  # a server upgrade rewrites it on mysql.ibd.
  if [ -z "$DATADIR_VERSION" ] && [ -f "$DATADIR/mysql.ibd" ]; then
    _id=$(od -An -tu1 -j8 -N4 "$DATADIR/mysql.ibd" |
      awk 'NF == 4 { print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }')
    if [ -n "$_id" ] && [ "$_id" -ge 80000 ] && [ "$_id" -lt 1000000 ]; then
      DATADIR_VERSION=$((_id / 10000)).$((_id / 100 % 100)).$((_id % 100))
    fi
  fi
  if [ -z "$DATADIR_VERSION" ] && [ -f "$DATADIR/mysql_upgrade_info" ]; then
    DATADIR_VERSION=$(numeric_version "$(head -n1 "$DATADIR/mysql_upgrade_info")")
  fi
  # MySQL 5.7 and older: system tables as .frm files, no mysql.ibd.
  if [ -z "$DATADIR_VERSION" ] && [ ! -f "$DATADIR/mysql.ibd" ] && [ -f "$DATADIR/mysql/user.frm" ]; then
    DATADIR_VERSION=5.7
  fi
  return 0
}

# datadir_verdict PREFIX: survey the datadir and decide. Prints why on
# stderr and sets DATADIR_ACTION to init, use, upgrade or refuse. Nothing
# is changed on disk.
datadir_verdict() {
  _me=$1 _dd=/var/lib/mysql
  datadir_survey
  DATADIR_ACTION=refuse
  # Debian's packages leave debian-X.Y.flag in the datadir of each version
  # that ran it (and refuse to run an older one on it); so do we.
  for _f in "$DATADIR"/debian-*.flag; do
    [ -e "$_f" ] || continue
    _v=${_f##*/debian-}; _v=${_v%.flag}
    if [ "$DATADIR_KIND" = mysql ] && dpkg --compare-versions "$_v" gt "${PKG_MYSQL_VERSION%.*}"; then
      DATADIR_VERSION="$_v (debian-$_v.flag)"
    fi
  done
  case $DATADIR_KIND in
    empty)
      DATADIR_ACTION=init
      ;;
    mariadb)
      cat >&2 <<EOF
$_me: $_dd holds a MariaDB datadir${DATADIR_VERSION:+ ($DATADIR_VERSION)}.
  MySQL cannot open MariaDB's files: steady-server neither initialises nor
  starts anything there. Nothing in $_dd was changed. To move the data:
   1. run MariaDB on it again if its packages were removed for this one
      (apt install mariadb-server), and dump it with MariaDB's client:
        mariadb-dump --databases DB1 DB2 ... --routines --events --triggers > data.sql
        mariadb-dump --system=users > users.sql   (review it: MariaDB syntax)
      (not the mysql schema: its tables differ between the two servers);
   2. stop MariaDB and move its datadir aside (keep it until you are done):
        systemctl stop mariadb && mv $_dd $_dd-mariadb
   3. install steady-server again (apt install steady-server, or
      dpkg --configure -a): it initialises a new $_dd;
   4. load the dump: sudo mysql < data.sql
EOF
      ;;
    foreign)
      cat >&2 <<EOF
$_me: $_dd has files but no mysql/ directory: it is not a MySQL datadir, and
  steady-server initialises only an empty one (lost+found may be there).
  Nothing was changed. Move those files elsewhere and configure the package
  again (dpkg --configure -a).
EOF
      ;;
    mysql)
      _v=$(numeric_version "$DATADIR_VERSION")
      if [ -z "$_v" ]; then
        cat >&2 <<EOF
$_me: $_dd has a mysql/ directory, but no server version could be read from it
  (mysql_upgrade_history, mysql.ibd, mysql_upgrade_info): steady-server will
  not start MySQL $PKG_MYSQL_VERSION on it. Nothing was changed. Start it with the
  server that made it, or move it aside to get a new datadir.
EOF
      elif dpkg --compare-versions "$_v" gt "$PKG_MYSQL_VERSION"; then
        cat >&2 <<EOF
$_me: $_dd was last run by MySQL $DATADIR_VERSION, newer than this package's
  $PKG_MYSQL_VERSION. MySQL does not open a datadir of a newer version (a
  downgrade needs a logical dump and reload). Nothing was changed. Install a
  server of version $_v or later, or move $_dd aside to get a new datadir.
EOF
      elif dpkg --compare-versions "$_v" lt "$MIN_UPGRADE_FROM"; then
        cat >&2 <<EOF
$_me: $_dd was last run by MySQL $DATADIR_VERSION. MySQL $PKG_MYSQL_VERSION upgrades
  datadirs of MySQL $MIN_UPGRADE_FROM and later only (one LTS series to the
  next). Nothing was changed. Upgrade it with MySQL $MIN_UPGRADE_FROM first, or dump
  it (mysqldump) and load the dump into a new datadir.
EOF
      elif dpkg --compare-versions "${_v%.*}" lt "${PKG_MYSQL_VERSION%.*}"; then
        DATADIR_ACTION=upgrade
        DATADIR_VERSION=$_v
        cat >&2 <<EOF
$_me: $_dd holds the data of MySQL $_v. MySQL $PKG_MYSQL_VERSION upgrades it in
  place when it first starts: at the end of this install, unless mysql.service
  is disabled (systemctl disable mysql holds the start until you run
  systemctl start mysql). The upgrade is one way: MySQL $_v cannot open the
  datadir afterwards, and going back means a dump and reload. Back up
  $_dd before that first start if you have no backup.
EOF
      else
        DATADIR_ACTION=use
      fi
      ;;
  esac
  return 0
}
