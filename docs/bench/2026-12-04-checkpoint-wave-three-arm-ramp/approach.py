#!/usr/bin/env python3
"""The first minute (the approach after a cold start) of each run in a
bench/run result directory: its lowest second against the mean of seconds
11-60 and against the run's mean (from second 11), the seconds of 11-60
below 70 % of the run's mean, redo-space waits in 11-60 and in the run,
sync-mode pages, the highest second of page flushing in 11-60 against
the mean of seconds 121-240, the highest oldest-modification age (% of
the async mark, lab metric) and checkpoints a second over 61-240.
approach.txt beside it is its output for this run."""
import argparse, csv, statistics
from collections import defaultdict

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument('result_dir', help='directory holding per_second.csv')
d = ap.parse_args().result_dir
runs = defaultdict(list)
for r in csv.DictReader(open(d + '/per_second.csv')):
    runs[r['run_id']].append(r)


def f(x):
    return float(x) if x not in (None, '') else 0.0


def window(rows, lo, hi):
    return [r for r in rows if lo <= int(r['second']) <= hi]


for rid, rows in sorted(runs.items()):
    w1, ss = window(rows, 11, 60), window(rows, 61, 240)
    t1 = [f(r['tps']) for r in w1]
    m1 = statistics.fmean(t1)
    whole = statistics.fmean(f(r['tps']) for r in window(rows, 11, 10 ** 6))
    fl = [f(r['pages_flushed_ps']) for r in w1]
    fl_settled = statistics.fmean(f(r['pages_flushed_ps']) for r in window(rows, 121, 240))
    print(f"{rid}: first-min min/mean {min(t1) / m1:.2f}, min/run-mean {min(t1) / whole:.2f}, "
          f"s<70%run {sum(1 for t in t1 if t < 0.7 * whole)}, "
          f"rsw 11-60 {sum(f(r['redo_space_waits_ps']) for r in w1):.0f}, "
          f"rsw all {sum(f(r['redo_space_waits_ps']) for r in rows):.0f}, "
          f"sync {sum(f(r['sync_flush_pages_ps']) for r in rows):.0f}, "
          f"peak flushed/settled {max(fl) / fl_settled:.2f}, "
          f"max oldest {max(f(r['oldest_async_pct']) for r in rows):.1f}, "
          f"ckpt/s {statistics.fmean(f(r['checkpoints_ps']) for r in ss):.2f}")
