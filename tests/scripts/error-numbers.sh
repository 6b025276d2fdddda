#!/usr/bin/env bash
# scripts/check-error-numbers on the real patch and docs (must pass, and
# against pristine upstream when it is there), then on planted mismatches,
# each of which must fail naming the message: a documented number changed,
# a message inserted before others (renumbering them), an undocumented
# message, a stale documentation row, and an upstream-style name inside
# Steady's block.
set -euo pipefail

if [[ ${1:-} == --help ]]; then sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi

HERE=$(cd "$(dirname "$0")/../.." && pwd)
CHECK=$HERE/scripts/check-error-numbers
PATCH=$HERE/patches/0002-steady-error-messages.patch
DOC=$HERE/docs/error-numbers.md
UP=${STEADY_CACHE:-$HOME/.cache/steady}/src/mysql-9.7.2
name=error-numbers
W=$(mktemp -d /tmp/$name.XXXXXX)
trap 'rm -rf "$W"' EXIT
fail() { echo "$name: FAILED: $*"; exit 1; }

up=()
[[ -f $UP/share/messages_to_clients.txt ]] && up=(--upstream "$UP")
out=$("$CHECK" "${up[@]}") || fail "the real patch and docs disagree: $out"
[[ ${#up[@]} -gt 0 ]] && out+=" (no upstream message in the Steady blocks)"
echo "$out"

# planted CASE PATCH DOC EXPECTED-TEXT
planted() {
  local out rc=0
  out=$("$CHECK" --patch "$2" --doc "$3" 2>&1) || rc=$?
  ((rc == 1)) || fail "$1: exit $rc, expected 1: $out"
  [[ $out == *"$4"* ]] || fail "$1: the message does not say '$4': $out"
  echo "$name: planted $1: caught ($(head -1 <<<"$out" | cut -c1-110))"
}

sed 's/^| 9502 |/| 9512 |/' "$DOC" >"$W/doc-number.md"
planted "documented number changed" "$PATCH" "$W/doc-number.md" "ER_STEADY_PREALLOC_NO_SPACE is 9502 in the build, 9512"

awk '{print} /^\+start-error-number 9500$/ {print "+"; print "+ER_STEADY_INSERTED_FIRST"; print "+  eng \"x\""}' \
  "$PATCH" >"$W/inserted.patch"
planted "message inserted" "$W/inserted.patch" "$DOC" "ER_STEADY_PREALLOC_UNSUPPORTED_SPACE is 9501 in the build, 9500"

sed 's/^| 9506 |.*$//' "$DOC" >"$W/doc-missing.md"
planted "undocumented message" "$PATCH" "$W/doc-missing.md" "ER_STEADY_BINLOG_SYNC_WAIT_PRECEDENCE (9506) is not in docs"

printf '| 9507 | `ER_STEADY_NEVER_DEFINED` | HY000 | error | x |\n' | cat "$DOC" - >"$W/doc-stale.md"
planted "stale documentation row" "$PATCH" "$W/doc-stale.md" "lists ER_STEADY_NEVER_DEFINED (9507), which the patch does not define"

sed 's/^+ER_STEADY_BINLOG_SYNC_WAIT_PRECEDENCE$/+ER_BINLOG_SOMETHING_UPSTREAM/' "$PATCH" >"$W/foreign.patch"
planted "foreign name in the block" "$W/foreign.patch" "$DOC" "ER_BINLOG_SOMETHING_UPSTREAM has 9506, inside Steady's block"
echo "$name: OK"
