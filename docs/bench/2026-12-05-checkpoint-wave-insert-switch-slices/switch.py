#!/usr/bin/env python3
"""Per run of a bench/run result directory whose servers were switched by
--set-at at second S (default 120): before the switch (seconds S-30..S-1)
and after it (S+1..end): sync-mode seconds, sync-mode pages and rounds,
redo-space waits, mean TPS and pages flushed a second; the seconds from the
switch to the last sync-mode second of the first stretch after it (0: none
after the switch), and the sync-mode seconds in S+31..end (steady state
after the switch).

usage: switch.py RESULT_DIR [SECOND]"""
import csv
import glob
import os
import sys

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0 if len(sys.argv) > 1 else 2)
d = sys.argv[1]
S = int(sys.argv[2]) if len(sys.argv) > 2 else 120


def num(r, k):
    v = r.get(k)
    return float(v) if v not in (None, "") else 0.0


def part(rows, lo, hi):
    sel = [r for r in rows if lo <= int(float(r["second"])) <= hi]
    n = len(sel) or 1
    sync = [r for r in sel if num(r, "sync_flush_pages_ps") > 0]
    return {
        "sync_s": len(sync),
        "sync_pages": sum(num(r, "sync_flush_pages_ps") for r in sel),
        "rounds": sum(num(r, "sync_flush_rounds_ps") for r in sel),
        "waits": sum(num(r, "redo_space_waits_ps") for r in sel),
        "tps": sum(num(r, "tps") for r in sel) / n,
        "flushed": sum(num(r, "pages_flushed_ps") for r in sel) / n,
        "age": sum(num(r, "ckpt_age_pct") for r in sel) / n,
    }


print("%-20s %-7s %6s %8s %9s %6s %7s %7s %5s | %s" % (
    "run", "part", "sync_s", "sync_pg", "rounds", "waits", "tps", "flush/s", "age%",
    "left sync after (s), sync s in S+31..end"))
for f in sorted(glob.glob(os.path.join(d, "runs", "*", "per_second.csv"))):
    rows = list(csv.DictReader(open(f)))
    end = max(int(float(r["second"])) for r in rows)
    run = os.path.basename(os.path.dirname(f))
    insync = {int(float(r["second"])) for r in rows if num(r, "sync_flush_pages_ps") > 0}
    left = 0
    s = S + 1
    while s in insync:
        s += 1
    left = s - S - 1
    late = sum(1 for x in insync if x >= S + 31)
    for name, lo, hi in (("before", S - 30, S - 1), ("after", S + 1, end)):
        p = part(rows, lo, hi)
        print("%-20s %-7s %6d %8.0f %9.0f %6.0f %7.0f %7.0f %5.0f | %s" % (
            run, name, p["sync_s"], p["sync_pages"], p["rounds"], p["waits"], p["tps"], p["flushed"],
            p["age"], ("%d, %d" % (left, late)) if name == "after" else ""))
