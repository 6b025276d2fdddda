#!/usr/bin/env bash
# Tests scripts/prepare-tree on a tiny fake upstream tree: clean apply,
# incremental no-op, removal of a patch, a patch that needs fuzz, an
# overlay file that collides with an upstream file, and overlay README.md
# files (never copied, never where upstream has a file).
set -euo pipefail

HERE=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() { echo "prepare-tree test FAILED: $*" >&2; exit 1; }

# A fake repo holding a copy of the script, and a fake cache with a pristine tree.
REPO=$W/repo
mkdir -p "$REPO/scripts" "$REPO/patches" "$REPO/upstream" "$REPO/storage/innobase/os"
cp "$HERE/scripts/prepare-tree" "$REPO/scripts/"
export STEADY_CACHE=$W/cache
P=$STEADY_CACHE/src/mysql-9.7.2
mkdir -p "$P/sql"
printf 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n' > "$P/sql/a.cc"
printf 'alpha\n' > "$P/sql/b.cc"
touch "$P/.steady-pristine"
(cd "$P" && find . -type f ! -name .steady-pristine | sed 's@^\./@@' | sort) > "$REPO/upstream/mysql-9.7.2.files"

mkdir -p "$W/mk/a/sql" "$W/mk/b/sql"
cp "$P/sql/a.cc" "$W/mk/a/sql/"; sed 's/^four$/FOUR/' "$P/sql/a.cc" > "$W/mk/b/sql/a.cc"
{ echo "Description: test"; echo "---"; (cd "$W/mk" && diff -u a/sql/a.cc b/sql/a.cc || true); } > "$REPO/patches/0001-four.patch"
echo 0001-four.patch > "$REPO/patches/series"
echo "ours" > "$REPO/storage/innobase/os/os0new.cc"
echo "# what lies where" > "$REPO/storage/README.md"

# 1. Clean apply + overlay, without the overlay's README.md
T=$("$REPO/scripts/prepare-tree" 2>/dev/null)
[[ $T == "$STEADY_CACHE/tree/steady" ]] || fail "unexpected tree path $T"
grep -qx FOUR "$T/sql/a.cc" || fail "patch not applied"
[[ $(cat "$T/storage/innobase/os/os0new.cc") == ours ]] || fail "overlay not laid"
[[ ! -e $T/storage/README.md ]] || fail "overlay README.md copied into the tree"

# 2. Rerun with nothing changed touches nothing (incremental builds stay cheap)
before=$(stat -c %Y.%N "$T/sql/a.cc")
sleep 1
out=$("$REPO/scripts/prepare-tree" 2>&1 >/dev/null)
[[ $out == *"0 file(s) updated"* ]] || fail "no-op rerun updated files: $out"
[[ $(stat -c %Y.%N "$T/sql/a.cc") == "$before" ]] || fail "no-op rerun touched sql/a.cc"

# 3. Dropping the patch and the overlay file restores pristine
: > "$REPO/patches/series"
rm "$REPO/storage/innobase/os/os0new.cc"
"$REPO/scripts/prepare-tree" >/dev/null 2>&1
cmp -s "$T/sql/a.cc" "$P/sql/a.cc" || fail "dropped patch not reverted"
[[ ! -e $T/storage/innobase/os/os0new.cc ]] || fail "dropped overlay file still in tree"

# 4. A patch that needs fuzz stops, names the patch, and leaves the tree alone
sed -i 's/^ three$/ THREE/' "$REPO/patches/0001-four.patch"
echo 0001-four.patch > "$REPO/patches/series"
if out=$("$REPO/scripts/prepare-tree" 2>&1); then fail "fuzzy patch accepted"; fi
[[ $out == *"0001-four.patch"* ]] || fail "error does not name the patch: $out"
cmp -s "$T/sql/a.cc" "$P/sql/a.cc" || fail "failed apply changed the tree"

# 4b. A patch whose hunk applies only at an offset is refused too
sed -i 's/^ THREE$/ three/; s/^@@ -[0-9]*,\([0-9]*\) +[0-9]*,\([0-9]*\) @@/@@ -3,\1 +3,\2 @@/' "$REPO/patches/0001-four.patch"
if out=$("$REPO/scripts/prepare-tree" 2>&1); then fail "patch at an offset accepted: $out"; fi
[[ $out == *"0001-four.patch"*"offset"* ]] || fail "offset error unclear: $out"
cmp -s "$T/sql/a.cc" "$P/sql/a.cc" || fail "refused offset patch changed the tree"

# 5. An overlay file that exists upstream is refused
: > "$REPO/patches/series"
mkdir -p "$REPO/sql"; echo x > "$REPO/sql/b.cc"
if out=$("$REPO/scripts/prepare-tree" 2>&1); then fail "overlay over upstream file accepted"; fi
[[ $out == *"sql/b.cc exists upstream"* ]] || fail "error does not name the file: $out"
[[ $(cat "$T/sql/b.cc") == alpha ]] || fail "refused overlay changed the tree"

# 5b. So is an overlay README.md where upstream has a file, though it is never copied
rm "$REPO/sql/b.cc"
printf 'upstream readme\n' > "$P/sql/README.md"; echo sql/README.md >> "$REPO/upstream/mysql-9.7.2.files"
echo "# ours" > "$REPO/sql/README.md"
if out=$("$REPO/scripts/prepare-tree" 2>&1); then fail "overlay README.md over an upstream file accepted"; fi
[[ $out == *"sql/README.md exists upstream"* ]] || fail "error does not name the README: $out"
rm "$REPO/sql/README.md"

# 6. A patch listed in series but missing is an error
echo 0009-missing.patch > "$REPO/patches/series"
if out=$("$REPO/scripts/prepare-tree" 2>&1); then fail "missing patch accepted"; fi
[[ $out == *"0009-missing.patch"* ]] || fail "error does not name the missing patch: $out"

# 7. --series-prefix N: its own tree, the first N patches only
sed 's/^five$/FIVE/' "$P/sql/a.cc" > "$W/mk/b/sql/a.cc"
cp "$W/mk/b/sql/a.cc" "$W/mk/c.cc"
sed -i 's/^four$/FOUR/' "$W/mk/c.cc"
cp "$P/sql/a.cc" "$W/mk/a/sql/a.cc"; sed -i 's/^four$/FOUR/' "$W/mk/a/sql/a.cc"
cp "$W/mk/c.cc" "$W/mk/b/sql/a.cc"
{ echo "Description: five"; echo "---"; (cd "$W/mk" && diff -u a/sql/a.cc b/sql/a.cc || true); } > "$REPO/patches/0002-five.patch"
sed -i 's/^ THREE$/ three/; s/^@@ -3,/@@ -1,/; s/ +3,/ +1,/' "$REPO/patches/0001-four.patch"
printf '0001-four.patch\n0002-five.patch\n' > "$REPO/patches/series"
"$REPO/scripts/prepare-tree" >/dev/null 2>&1 || fail "the two-patch series does not apply"
grep -qx FIVE "$T/sql/a.cc" || fail "second patch not applied to the full tree"
T1=$("$REPO/scripts/prepare-tree" --series-prefix 1 2>/dev/null)
[[ $T1 == "$STEADY_CACHE/prefix/tree/steady" ]] || fail "unexpected prefix tree path $T1"
grep -qx FOUR "$T1/sql/a.cc" || fail "prefix 1: first patch missing"
grep -qx five "$T1/sql/a.cc" || fail "prefix 1: second patch applied"
grep -qx FIVE "$T/sql/a.cc" || fail "the prefix tree changed the full tree"
"$REPO/scripts/prepare-tree" --series-prefix 2 >/dev/null 2>&1
grep -qx FIVE "$T1/sql/a.cc" || fail "prefix 2: second patch missing"

echo "prepare-tree: 9 checks passed"
