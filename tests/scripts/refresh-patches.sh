#!/usr/bin/env bash
# Tests scripts/refresh-patches on a tiny fake upstream tree and series:
# header normalisation, byte-identical regeneration, an edit landing in the
# right patch (the last one touching the file, or --into), later patches
# re-diffed on top, refusals that leave patches/ alone, offsets. Then
# --check on the real series, which needs the pristine MySQL tree (exit 77
# when it is missing).
set -euo pipefail

HERE=$(cd "$(dirname "$0")/../.." && pwd)
REAL_PRISTINE=${STEADY_CACHE:-$HOME/.cache/steady}/src/mysql-9.7.2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() { echo "refresh-patches test FAILED: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); }

# A fake repo holding copies of the scripts, and a fake cache with a pristine tree.
REPO=$W/repo
mkdir -p "$REPO/scripts" "$REPO/patches" "$REPO/upstream" "$REPO/sql"
cp "$HERE/scripts/refresh-patches" "$HERE/scripts/prepare-tree" "$REPO/scripts/"
export STEADY_CACHE=$W/cache
P=$STEADY_CACHE/src/mysql-9.7.2
mkdir -p "$P/sql"
seq -f 'line%g' 1 30 > "$P/sql/a.cc"
printf 'alpha\nbeta\ngamma\n' > "$P/sql/b.cc"
printf 'one\ntwo\nthree\n' > "$P/sql/c.cc"
touch "$P/.steady-pristine"
(cd "$P" && find . -type f ! -name .steady-pristine | sed 's@^\./@@' | sort) > "$REPO/upstream/mysql-9.7.2.files"
echo "ours" > "$REPO/sql/ours.cc"
RP() { "$REPO/scripts/refresh-patches" "$@"; }
PT() { "$REPO/scripts/prepare-tree" 2>/dev/null; }

# Two patches made the old way: diff -u with timestamps, headers incomplete
# and out of order. Both change sql/a.cc.
mk=$W/mk
mkdir -p "$mk/a/sql" "$mk/b/sql"
cp "$P/sql/a.cc" "$P/sql/b.cc" "$mk/a/sql/"
sed 's/^line5$/FIVE/' "$P/sql/a.cc" > "$mk/b/sql/a.cc"
sed 's/^alpha$/ALPHA/' "$P/sql/b.cc" > "$mk/b/sql/b.cc"
{ printf 'Description: make five loud\n Needed by the test.\nForwarded: not-needed\nFeature: foundation\n---\n'
  (cd "$mk" && diff -u a/sql/a.cc b/sql/a.cc; diff -u a/sql/b.cc b/sql/b.cc) || true; } > "$REPO/patches/0001-five.patch"
cp "$mk/b/sql/a.cc" "$mk/a/sql/a.cc"
sed 's/^line20$/TWENTY/' "$mk/a/sql/a.cc" > "$mk/b/sql/a.cc"
{ printf 'Description: make twenty loud\n Also needed.\n .\n A second paragraph.\nFeature: group commit\nLast-Update: 2020-01-01\n'
  (cd "$mk" && diff -u a/sql/a.cc b/sql/a.cc) || true; } > "$REPO/patches/0002-twenty.patch"
printf '0001-five.patch\n0002-twenty.patch\n' > "$REPO/patches/series"
grep -q $'^--- a/sql/a.cc\t' "$REPO/patches/0001-five.patch" || fail "fixture: diff -u wrote no timestamps"
T=$(PT)
cp -a "$T" "$W/tree-before"

# 1. --check refuses the incomplete headers and names the patches
if out=$(RP --check 2>&1); then fail "--check accepted incomplete headers"; fi
[[ $out == *0001-five.patch*0002-twenty.patch* ]] || fail "--check does not name both patches: $out"
ok

# 2. Refresh normalises the headers and drops the timestamps
RP --date 2026-01-02 >/dev/null 2>&1 || fail "refresh failed: $(RP --date 2026-01-02 2>&1)"
expected=$'Description: make five loud\n Needed by the test.\nFeature: foundation\nAuthor: Steady Server developers <dev@steady-server.invalid>\nForwarded: not-needed\nLast-Update: 2026-01-02\n---\n--- a/sql/a.cc\n+++ b/sql/a.cc'
[[ $(head -9 "$REPO/patches/0001-five.patch") == "$expected" ]] ||
  fail "0001 header not normalised:"$'\n'"$(head -9 "$REPO/patches/0001-five.patch")"
expected=$'Description: make twenty loud\n Also needed.\n .\n A second paragraph.\nFeature: group commit\nAuthor: Steady Server developers <dev@steady-server.invalid>\nForwarded: not-needed\nLast-Update: 2026-01-02\n---\n--- a/sql/a.cc\n+++ b/sql/a.cc'
[[ $(head -11 "$REPO/patches/0002-twenty.patch") == "$expected" ]] ||
  fail "0002 header not normalised:"$'\n'"$(head -11 "$REPO/patches/0002-twenty.patch")"
! grep -qE $'^(---|\\+\\+\\+) .*\t' "$REPO/patches/"*.patch || fail "timestamps left on file headers"
grep -qx -- '--- a/sql/b.cc' "$REPO/patches/0001-five.patch" || fail "0001 lost sql/b.cc"
ok

# 3. The regenerated series makes the same tree
T=$(PT)
diff -r "$W/tree-before" "$T" >/dev/null || fail "refreshed series gives another tree"
ok

# 4. Regenerating again is a no-op, byte for byte, whatever the date
cp -a "$REPO/patches" "$W/patches-1"
out=$(RP --date 2030-12-31 2>&1) || fail "second refresh failed: $out"
[[ $out == *"0 of 2 patch(es) rewritten"* ]] || fail "second refresh rewrote patches: $out"
diff -r "$W/patches-1" "$REPO/patches" >/dev/null || fail "second refresh changed bytes"
RP --check >/dev/null 2>&1 || fail "--check fails on a refreshed series: $(RP --check 2>&1)"
ok

# 5. An edit in the tree goes into the last patch that touches the file;
#    the earlier patch stays byte-identical
E=$W/edit
cp -a "$T" "$E"
sed -i 's/^line25$/line25 edited/' "$E/sql/a.cc"
out=$(RP --tree "$E" --date 2026-02-03 2>&1) || fail "refresh --tree failed: $out"
[[ $out == *"sql/a.cc: change goes into 0002-twenty.patch"* ]] || fail "edit not reported in 0002: $out"
cmp -s "$W/patches-1/0001-five.patch" "$REPO/patches/0001-five.patch" || fail "edit changed 0001"
grep -qx -- '-line25' "$REPO/patches/0002-twenty.patch" &&
  grep -qx -- '+line25 edited' "$REPO/patches/0002-twenty.patch" || fail "edit is not a hunk of 0002"
grep -qx 'Last-Update: 2026-02-03' "$REPO/patches/0002-twenty.patch" || fail "0002 Last-Update not bumped"
diff -u "$W/patches-1/0002-twenty.patch" "$REPO/patches/0002-twenty.patch" > "$W/d" || true
[[ $(tail -n +3 "$W/d" | grep -c '^[-+]') -le 12 ]] || fail "patch diff is not small and readable:"$'\n'"$(cat "$W/d")"
T=$(PT)
cmp -s "$E/sql/a.cc" "$T/sql/a.cc" || fail "prepare-tree does not give the edited file"
ok

# 6. --into an earlier patch: the hunk lands there, the later patch is
#    re-diffed on top (its line numbers move), the tree is the edited one
cp -a "$REPO/patches" "$W/patches-2"
sed -i '2i inserted' "$E/sql/a.cc"
out=$(RP --tree "$E" --into 0001-five.patch --date 2026-02-04 2>&1) || fail "refresh --into failed: $out"
grep -qx -- '+inserted' "$REPO/patches/0001-five.patch" || fail "--into: hunk not in 0001"
! grep -q inserted "$REPO/patches/0002-twenty.patch" || fail "--into: hunk also in 0002"
grep -q '^@@ -18,' "$REPO/patches/0002-twenty.patch" && grep -q '^@@ -17,' "$W/patches-2/0002-twenty.patch" ||
  fail "--into: 0002 not re-diffed with the new line numbers"
RP --check >/dev/null 2>&1 || fail "--check fails after --into"
T=$(PT)
cmp -s "$E/sql/a.cc" "$T/sql/a.cc" || fail "--into: prepare-tree does not give the edited file"
ok

# 7. An edit into an earlier patch that overlaps a later patch's hunk is
#    refused, naming the later patch, and patches/ stays as it was
cp -a "$REPO/patches" "$W/patches-3"
sed -i 's/^TWENTY$/TWENTY!/' "$E/sql/a.cc"
if out=$(RP --tree "$E" --into 0001-five.patch 2>&1); then fail "overlapping edit accepted"; fi
[[ $out == *"overlaps the hunks of 0002-twenty.patch"* ]] || fail "overlap error unclear: $out"
diff -r "$W/patches-3" "$REPO/patches" >/dev/null || fail "refused edit changed patches/"
# ... and --check with the same tree reports the patch that would change
if out=$(RP --tree "$E" --check 2>&1); then fail "--check --tree accepted a pending edit"; fi
[[ $out == *"0002-twenty.patch is not as refresh-patches writes it"* ]] || fail "--check --tree unclear: $out"
diff -r "$W/patches-3" "$REPO/patches" >/dev/null || fail "--check changed patches/"
sed -i 's/^TWENTY!$/TWENTY/' "$E/sql/a.cc"
ok

# 8. An upstream file no patch touches needs --into; then it joins that patch
sed -i 's/^two$/TWO/' "$E/sql/c.cc"
if out=$(RP --tree "$E" sql/c.cc 2>&1); then fail "untouched file accepted without --into"; fi
[[ $out == *"sql/c.cc"*"--into"* ]] || fail "untouched-file error unclear: $out"
RP --tree "$E" --into 0001-five.patch sql/c.cc >/dev/null 2>&1 || fail "--into with a new file failed"
grep -qx -- '+++ b/sql/c.cc' "$REPO/patches/0001-five.patch" || fail "sql/c.cc not added to 0001"
T=$(PT)
cmp -s "$E/sql/c.cc" "$T/sql/c.cc" || fail "prepare-tree does not give the edited sql/c.cc"
# our own files are not patched
if out=$(RP --tree "$E" --into 0001-five.patch sql/ours.cc 2>&1); then fail "overlay file accepted as FILE"; fi
[[ $out == *"not an upstream file"* ]] || fail "overlay-file error unclear: $out"
ok

# 8b. A new, header-only patch gets its hunks with --into, after the others
printf 'Description: make gamma loud\n A new patch.\nFeature: IO-aware flushing\n---\n' > "$REPO/patches/0003-gamma.patch"
echo 0003-gamma.patch >> "$REPO/patches/series"
sed -i 's/^gamma$/GAMMA/' "$E/sql/b.cc"
if out=$(RP 2>&1); then fail "header-only patch accepted without hunks"; fi
[[ $out == *"0003-gamma.patch would change nothing"* ]] || fail "empty-patch error unclear: $out"
RP --tree "$E" --into 0003-gamma.patch --date 2026-02-06 >/dev/null 2>&1 || fail "--into a new patch failed"
grep -qx -- '-alpha' "$REPO/patches/0003-gamma.patch" && fail "0003 repeats 0001's change"
grep -qx -- '+GAMMA' "$REPO/patches/0003-gamma.patch" && grep -qx -- ' ALPHA' "$REPO/patches/0003-gamma.patch" ||
  fail "0003 does not start from 0001's state of sql/b.cc"
grep -qx 'Last-Update: 2026-02-06' "$REPO/patches/0003-gamma.patch" || fail "0003 has no Last-Update"
T=$(PT)
cmp -s "$E/sql/b.cc" "$T/sql/b.cc" || fail "prepare-tree does not give the edited sql/b.cc"
ok

# 9. Header errors name the patch and write nothing
cp -a "$REPO/patches" "$W/patches-4"
sed -i 's/^Feature: group commit$/Feature: group commits/' "$REPO/patches/0002-twenty.patch"
if out=$(RP 2>&1); then fail "unknown Feature accepted"; fi
[[ $out == *"0002-twenty.patch"*"Feature: group commits is not one of"* ]] || fail "Feature error unclear: $out"
cp "$W/patches-4/0002-twenty.patch" "$REPO/patches/"
sed -i '2,4d' "$REPO/patches/0002-twenty.patch"
if out=$(RP 2>&1); then fail "Description without a paragraph accepted"; fi
[[ $out == *"0002-twenty.patch"*"no paragraph"* ]] || fail "Description error unclear: $out"
cmp -s "$W/patches-4/0001-five.patch" "$REPO/patches/0001-five.patch" || fail "header error still wrote 0001"
cp "$W/patches-4/0002-twenty.patch" "$REPO/patches/"
ok

# 10. A patch that applies only at an offset fails --check, and refresh fixes it
sed -i 's/^@@ -18,\([0-9]*\) +18,\([0-9]*\) @@$/@@ -16,\1 +16,\2 @@/' "$REPO/patches/0002-twenty.patch"
grep -q '^@@ -16,' "$REPO/patches/0002-twenty.patch" || fail "fixture: no hunk moved"
if out=$(RP --check 2>&1); then fail "--check accepted an offset"; fi
[[ $out == *"0002-twenty.patch applies only at an offset"* ]] || fail "offset not reported: $out"
RP --date 2026-02-05 >/dev/null 2>&1 || fail "refresh of an offset patch failed"
RP --check >/dev/null 2>&1 || fail "offset not fixed by refresh"
grep -q '^@@ -18,' "$REPO/patches/0002-twenty.patch" || fail "offset hunk not moved back"
ok

echo "refresh-patches: $n checks passed on the fake series"

# 11. The real series: every patch applies cleanly and is as the script writes it
if [[ ! -f $REAL_PRISTINE/.steady-pristine ]]; then
  echo "refresh-patches: SKIP the real series: no pristine MySQL tree at $REAL_PRISTINE (run scripts/fetch-upstream)"
  exit 77
fi
STEADY_CACHE=$(dirname "$(dirname "$REAL_PRISTINE")") "$HERE/scripts/refresh-patches" --check ||
  fail "the real series is not as scripts/refresh-patches writes it (see above)"
echo "refresh-patches: real series checked"
