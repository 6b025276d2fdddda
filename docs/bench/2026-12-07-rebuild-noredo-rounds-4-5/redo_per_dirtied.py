#!/usr/bin/env python3
"""Replay device pacing's pages-made-without-redo rule over bench/run results.

For each results directory given, reads per_second.csv and, run by run,
smooths the redo a second (redo_bytes_ps) and the pages made dirty a
second (the change in dirty_pages plus the flush-list pages written,
list_batch_pages_ps, or pages_flushed_ps where a run has no such column)
with weight 0.5, as buf_flush_pace::Controller does (REDO_PAGE_WEIGHT).
Seconds with at least 64 pages made dirty (DIRTIED_MIN) are "known"; the
rule can hold only where the ratio is under 256 bytes
(NO_REDO_BYTES_PER_PAGE). Prints, per directory, the known seconds, those
under the mark, and the lowest 1st percentile and median over its runs.

Usage: redo_per_dirtied.py [--mark BYTES] RESULTS_DIR...
"""
import argparse
import collections
import csv
import os
import sys

WEIGHT, DIRTIED_MIN = 0.5, 64


def ratios(rows):
    """Smoothed redo per page made dirty, one value per known second."""
    redo_s = dirtied_s = prev = None
    out = []
    for r in rows:
        try:
            dirty = float(r["dirty_pages"])
            flushed = float(r.get("list_batch_pages_ps") or r.get("pages_flushed_ps") or 0)
            redo = float(r.get("redo_bytes_ps") or 0)
        except (KeyError, TypeError, ValueError):
            continue
        if prev is not None:
            made = dirty - prev + flushed
            redo_s = redo if redo_s is None else redo_s + (redo - redo_s) * WEIGHT
            dirtied_s = made if dirtied_s is None else dirtied_s + (made - dirtied_s) * WEIGHT
            if dirtied_s >= DIRTIED_MIN:
                out.append(redo_s / dirtied_s)
        prev = dirty
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mark", type=float, default=256, help="bytes of redo per page (default 256)")
    ap.add_argument("dirs", nargs="+", metavar="RESULTS_DIR")
    a = ap.parse_args()
    for d in a.dirs:
        path = os.path.join(d, "per_second.csv")
        if not os.path.exists(path):
            continue
        runs = collections.defaultdict(list)
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                runs[r["run_id"]].append(r)
        known = under = 0
        p1s, medians = [], []
        for rows in runs.values():
            v = sorted(ratios(rows))
            if not v:
                continue
            known += len(v)
            under += sum(x < a.mark for x in v)
            p1s.append(v[len(v) // 100])
            medians.append(v[len(v) // 2])
        if known:
            print("%-58s known %5d s, under %d: %4d, lowest p1 %6.0f, lowest median %6.0f" % (
                os.path.basename(os.path.normpath(d)), known, a.mark, under, min(p1s), min(medians)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
