# Shared by the tests of installed servers (package-tarball.sh,
# package-deb.sh). Source it; it defines:
#   as_server_user CMD...  run CMD as the non-root user the server runs as:
#                          "nobody" when the test runs as root, else the
#                          caller; SERVER_USER names it. To start it in the
#                          background with \$! being the server's pid, use
#                          "\${AS_SERVER_USER[@]}" CMD... & (setpriv execs CMD)
#   give_to_server_user DIR  make DIR writable by that user
#   notify_listen SOCK LOG start a systemd-style notification socket at
#                          SOCK (what NOTIFY_SOCKET names) that appends
#                          each message to LOG; sets NOTIFY_PID; waits
#                          until the socket exists
#   no_build_paths DIR     fail if an ELF file under DIR has an RPATH or
#                          RUNPATH into the build tree ($CACHE)
#   check_installed_server CLIENT SOCK [CLIENT_ARGS...]
#                          the checks every install must pass, through the
#                          installed client: the version is Steady's, the X
#                          plugin runs, a plugin and a component load from
#                          the installed plugin dir (semi-sync source,
#                          classic hashing: MD5() works), a Steady variable
#                          exists
# Needs fail() in the caller.

if (($(id -u) == 0)); then
  SERVER_USER=nobody
  AS_SERVER_USER=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
  give_to_server_user() { chown -R nobody:nogroup "$1"; }
else
  SERVER_USER=$(id -un)
  AS_SERVER_USER=(env)
  give_to_server_user() { :; }
fi
as_server_user() { "${AS_SERVER_USER[@]}" "$@"; }

no_build_paths() {
  local dir=$1 f bad=0
  while IFS= read -r f; do
    if readelf -d "$f" 2>/dev/null | grep -E 'R(UN)?PATH' | grep -qF "$CACHE"; then
      echo "build-tree RPATH in $f: $(readelf -d "$f" | grep -E 'R(UN)?PATH')"
      bad=1
    fi
  done < <(find "$dir" -type f \( -perm -u+x -o -name '*.so*' \) -size +1k)
  ((bad == 0)) || fail "binaries under $dir point into the build tree"
}

check_installed_server() {
  local client=$1 sock=$2
  shift 2
  q() { "$client" "$@" -S "$sock" -N -e "$SQL"; }
  local SQL v
  SQL="SELECT @@version"; v=$(q "$@") || fail "cannot connect through $sock"
  # 9.7.2-steady (a build from this tree), 9.7.2-steady1 (a package's).
  [[ $v =~ -steady[0-9.]*$ ]] || fail "version is '$v', not Steady's"
  SQL="SELECT PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME='mysqlx'"
  v=$(q "$@"); [[ $v == ACTIVE ]] || fail "X plugin is '$v', not ACTIVE"
  SQL="INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'; SELECT @@rpl_semi_sync_source_enabled; UNINSTALL PLUGIN rpl_semi_sync_source"
  v=$(q "$@") || fail "semisync_source.so does not load from the installed plugin dir"
  SQL="SELECT MD5('steady')"
  if q "$@" >/dev/null 2>&1; then fail "MD5() exists before the hashing component is installed"; fi
  SQL="INSTALL COMPONENT 'file://component_classic_hashing'; SELECT MD5('steady'); UNINSTALL COMPONENT 'file://component_classic_hashing'"
  v=$(q "$@") || fail "component_classic_hashing does not load from the installed plugin dir"
  [[ $v == "$(printf steady | md5sum | cut -d' ' -f1)" ]] || fail "MD5('steady') gave '$v'"
  SQL="SELECT @@innodb_extent_size_min_free_pct"
  v=$(q "$@"); [[ $v == 5 ]] || fail "innodb_extent_size_min_free_pct is '$v'"
}

notify_listen() {
  python3 - "$1" "$2" <<'PYEOF2' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
with open(sys.argv[2], "a", buffering=1) as log:
    while True:
        log.write(s.recv(4096).decode(errors="replace").replace("\n", " ") + "\n")
PYEOF2
  NOTIFY_PID=$!
  local _
  for _ in $(seq 1 50); do [[ -S $1 ]] && return 0; sleep 0.1; done
  fail "no notification socket at $1"
}
