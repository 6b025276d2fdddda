#!/usr/bin/env bash
# tests/docs/check-links keeps manual, evidence and history apart: it passes
# on a small clean fake tree and on this repository, and fails on each
# planted case (diary wording, a commit hash or "current build" in a
# manual page, README over 120 lines, a manual page over 400, a result
# directory missing from docs/bench/index.md, a superseded one without its
# "Superseded by:" line or with its plots kept).  Seconds, no build.
# Exit 0 when every case behaves, 1 otherwise.
set -euo pipefail

if [[ ${1:-} == --help || ${1:-} == -h ]]; then sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
CHECK=$HERE/tests/docs/check-links
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
fails=0

make_tree() {   # a clean fake tree in $1
  local t=$1
  mkdir -p "$t/docs/bench/2026-01-01-a" "$t/docs/bench/2026-01-02-a" "$t/bench" "$t/upstream"
  : > "$t/upstream/mysql-9.7.2.files"
  cat > "$t/README.md" <<'EOF'
# Fake server

`SET SESSION x = 1` fails; each session commits alone. Manual:
[docs/feature.md](docs/feature.md), results [docs/bench/index.md](docs/bench/index.md).
EOF
  cat > "$t/docs/feature.md" <<'EOF'
# Feature

Evidence: [run](bench/2026-01-02-a/notes.md). `SELECT @@session.x` is refused.
```
git show 5f943f4   # a hash inside a code block is fine
```
EOF
  printf '# Bench manual\n' > "$t/bench/README.md"
  cat > "$t/docs/bench/index.md" <<'EOF'
# Results index

| date | result | what |
|---|---|---|
| 2026-01-02 | [a](2026-01-02-a/notes.md) | scenario a |

## Earlier runs, superseded

| date | result | what | superseded by |
|---|---|---|---|
| 2026-01-01 | [a](2026-01-01-a/notes.md) | scenario a | [2026-01-02-a](2026-01-02-a/notes.md) |
EOF
  printf '# Run a, 2026-01-02\n\nRan on 2026-01-02.\n' > "$t/docs/bench/2026-01-02-a/notes.md"
  printf 'x\n' > "$t/docs/bench/2026-01-02-a/tps.png"
  printf '# Run a, 2026-01-01\n\nSuperseded by: [2026-01-02-a](../2026-01-02-a/notes.md)\n' \
    > "$t/docs/bench/2026-01-01-a/notes.md"
  git -C "$t" init -q
}

expect() {   # expect pass|fail WHAT TREE [PATTERN]
  local want=$1 what=$2 tree=$3 pattern=${4:-} out rc
  set +e; out=$(python3 "$CHECK" --root "$tree" 2>&1); rc=$?; set -e
  if [[ $want == pass && $rc -eq 0 ]] ||
     [[ $want == fail && $rc -eq 1 && ( -z $pattern || $out == *"$pattern"* ) ]]; then
    echo "ok: $what"
  else
    echo "FAILED: $what (wanted $want${pattern:+ with '$pattern'}, exit $rc)"
    echo "$out" | sed 's/^/    /'
    fails=$((fails + 1))
  fi
}

plant() {   # plant NAME: a fresh copy of the clean tree, path echoed
  local t=$work/$1
  make_tree "$t"
  echo "$t"
}

t=$(plant clean);            expect pass "clean fake tree" "$t"

t=$(plant diary1);  printf '\nMeasured this session on the new build.\n' >> "$t/docs/feature.md"
expect fail "'this session' in a manual page" "$t" "DIARY"
t=$(plant diary2);  printf '\nRe-run in the twenty-fifth session.\n' >> "$t/docs/bench/2026-01-02-a/notes.md"
expect fail "a numbered session in a result note" "$t" "DIARY"
t=$(plant diary3);  printf '\nIt was stopped for the end of the session.\n' >> "$t/README.md"
expect fail "'the session' in the README" "$t" "DIARY"

t=$(plant hash);    printf '\nThe rule came in with commit c26b1cc.\n' >> "$t/docs/feature.md"
expect fail "a commit hash in a manual page's prose" "$t" "COMMIT IN MANUAL"
t=$(plant current); printf '\nOn the current build it is flat.\n' >> "$t/bench/README.md"
expect fail "'current build' in a manual page" "$t" "CURRENT BUILD IN MANUAL"

t=$(plant readme);  seq 1 130 >> "$t/README.md"
expect fail "README over 120 lines" "$t" "TOO LONG: README.md"
t=$(plant long);    seq 1 420 >> "$t/docs/feature.md"
expect fail "a manual page over 400 lines" "$t" "TOO LONG: docs/feature.md"

t=$(plant noindex); mkdir -p "$t/docs/bench/2026-01-03-b"; printf '# b\n' > "$t/docs/bench/2026-01-03-b/notes.md"
expect fail "a result directory missing from the index" "$t" "NOT IN INDEX: docs/bench/2026-01-03-b"

t=$(plant nosup);   printf '# Run a, 2026-01-01\n' > "$t/docs/bench/2026-01-01-a/notes.md"
expect fail "a superseded run without its line" "$t" "NO SUPERSEDED LINE"
t=$(plant rawkept); printf 'x\n' > "$t/docs/bench/2026-01-01-a/tps.png"
expect fail "a superseded run that kept its plots" "$t" "RAW FILES KEPT"
t=$(plant supidx);  printf '\nSuperseded by: [x](../2026-01-01-a/notes.md)\n' >> "$t/docs/bench/2026-01-02-a/notes.md"
expect fail "a 'Superseded by' line on a run the index does not list as superseded" "$t" "SUPERSEDED NOT IN INDEX"

expect pass "this repository" "$HERE"

if ((fails)); then echo "docs-genres: $fails case(s) FAILED" >&2; exit 1; fi
echo "docs-genres: all cases behave"
