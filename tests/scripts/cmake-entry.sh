#!/usr/bin/env bash
# The usual CMake entry point works: `cmake -S . -B B -G Ninja` configures
# the top-level CMakeLists.txt, `cmake --build B` runs the same pipeline as
# `make build` on the same caches (up to date: nothing rebuilt), and
# `cmake --install B --prefix P` installs the complete server with
# upstream's layout: mysqld, clients, plugins and components in lib/plugin,
# messages in share, no mysql-test tree. Skips (77) without the build.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${STEADY_CACHE:-$HOME/.cache/steady}
BUILD=$CACHE/build/steady
name=cmake-entry
skip() { echo "$name: SKIP: $*"; exit 77; }
fail() { echo "$name: FAILED: $*"; exit 1; }

[[ -x $BUILD/runtime_output_directory/mysqld && -f $BUILD/cmake_install.cmake ]] ||
  skip "no build in $BUILD (make build)"
W=$(mktemp -d /tmp/$name.XXXXXX)
trap 'rm -rf "$W"' EXIT

cmake -S "$HERE" -B "$W/b" -G Ninja >"$W/configure.log" 2>&1 || { cat "$W/configure.log"; fail "cmake configure"; }
before=$(stat -c %Y "$BUILD/runtime_output_directory/mysqld")
cmake --build "$W/b" >"$W/build.log" 2>&1 || { tail -30 "$W/build.log"; fail "cmake --build"; }
grep -qF "ninja: Entering directory \`$BUILD'" "$W/build.log" || fail "cmake --build did not run ninja in the shared build dir: $(tail -3 "$W/build.log")"
if grep -E '\] (Building|Linking)' "$W/build.log"; then fail "an up-to-date build compiled or linked something"; fi
[[ $(stat -c %Y "$BUILD/runtime_output_directory/mysqld") == "$before" ]] || fail "an up-to-date build relinked mysqld"
cmake --install "$W/b" --prefix "$W/p" --strip >"$W/install.log" 2>&1 || { tail -30 "$W/install.log"; fail "cmake --install"; }
for f in bin/mysqld bin/mysql bin/mysqldump bin/mysqlbinlog lib/plugin/group_replication.so \
         lib/plugin/semisync_replica.so lib/plugin/mysql_clone.so lib/plugin/component_validate_password.so \
         lib/plugin/authentication_ldap_sasl_client.so share/english/errmsg.sys share/charsets/Index.xml; do
  [[ -e $W/p/$f ]] || fail "cmake --install did not install $f"
done
[[ ! -e $W/p/mysql-test ]] || fail "cmake --install installed the mysql-test tree"
if ls "$W"/p/lib/plugin/component_test_* >/dev/null 2>&1; then fail "test components installed"; fi
"$W/p/bin/mysqld" --no-defaults --version | grep -q -- '-steady' || fail "installed mysqld is not Steady's"
echo "$name: OK (configure, no-op build, install of $(find "$W/p/lib/plugin" -name '*.so' | wc -l) plugins/components)"
