#!/usr/bin/env python3
"""Per run of a bench/run result directory, over seconds 61-240: the mean
TPS, its CV and the seconds below 70 % of the mean; the flush-list pages
flushed a second (mean, CV, least, most); the seconds with sync-mode
flushing; the range of the oldest modification's age as a share of the
async mark.

usage: flushing.py RESULT_DIR..."""
import csv
import glob
import os
import statistics as st
import sys

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0 if len(sys.argv) > 1 else 2)
for d in sys.argv[1:]:
    for f in sorted(glob.glob(os.path.join(d, "runs", "*", "per_second.csv"))):
        rows = [r for r in csv.DictReader(open(f)) if 61 <= int(float(r["second"])) <= 240]
        num = lambda k: [float(r[k] or 0) for r in rows]
        tps, fl = num("tps"), num("pages_flushed_ps")
        sync, age = num("sync_flush_pages_ps"), num("oldest_async_pct")
        m = st.mean(tps)
        print("%-16s TPS %5.0f CV %.3f s<70%% %d | flushed/s mean %4.0f CV %.2f min %4.0f max %4.0f"
              " | sync-mode s %2d | age %.0f-%.0f %%" % (
                  os.path.basename(os.path.dirname(f)), m, st.pstdev(tps) / m,
                  sum(t < 0.7 * m for t in tps), st.mean(fl), st.pstdev(fl) / st.mean(fl),
                  min(fl), max(fl), sum(s > 0 for s in sync), min(age), max(age)))
