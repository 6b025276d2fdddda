#!/usr/bin/env bash
# tests/scripts/prealloc-enospc.sh on xfs loop file systems instead of ext4:
# the free-space guard's refusal, an allocated (not sparse) growth, and a
# write load until the file system is full. Skips (77) without root, loop
# devices or mkfs.xfs (xfsprogs, installed by scripts/install-deps).
set -euo pipefail
if [[ ${1:-} == --help ]]; then sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
command -v mkfs.xfs >/dev/null || { echo "prealloc-xfs: SKIP: mkfs.xfs not installed (xfsprogs)"; exit 77; }
PREALLOC_FS=xfs exec bash "$(dirname "$0")/prealloc-enospc.sh" "$@"
