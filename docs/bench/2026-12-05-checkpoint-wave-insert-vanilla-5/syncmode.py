#!/usr/bin/env python3
"""Per run of bench/run result directories: the seconds with sync-mode
flushing (first minute, seconds 61-240), the longest stretch of them, the
sync-mode pages and rounds (INNODB_METRICS buffer_flush_sync_pages and
buffer_flush_sync; rounds blank where the run did not record them), and
upstream's average redo rate (buffer_flush_lsn_avg_rate) at its lowest in
those seconds.

usage: syncmode.py RESULT_DIR..."""
import csv
import glob
import os
import sys

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0 if len(sys.argv) > 1 else 2)


def num(r, k):
    v = r.get(k)
    return float(v) if v not in (None, "") else None


for d in sys.argv[1:]:
    for f in sorted(glob.glob(os.path.join(d, "runs", "*", "per_second.csv"))):
        rows = [r for r in csv.DictReader(open(f))]
        sync = [(int(float(r["second"])), r) for r in rows if (num(r, "sync_flush_pages_ps") or 0) > 0]
        secs = [s for s, _ in sync]
        longest = run = 0
        last = None
        for s in secs:
            run = run + 1 if last is not None and s == last + 1 else 1
            longest = max(longest, run)
            last = s
        pages = sum(num(r, "sync_flush_pages_ps") for _, r in sync)
        rounds = [num(r, "sync_flush_rounds_ps") for _, r in sync]
        rounds = "-" if not rounds or None in rounds else "%.0f" % sum(rounds)
        lsn = [num(r, "af_lsn_avg_rate") for _, r in sync if num(r, "af_lsn_avg_rate") is not None]
        print("%-18s sync-mode s: 1-60 %2d, 61-240 %2d, longest %2d | pages %6.0f rounds %6s | lsn_avg_rate min %s" % (
            os.path.basename(os.path.dirname(f)), sum(s <= 60 for s in secs),
            sum(61 <= s <= 240 for s in secs), longest, pages, rounds,
            "%.0f" % min(lsn) if lsn else "-"))
