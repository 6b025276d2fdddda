#!/usr/bin/env python3
"""Per-run and per-arm figures of a bench/run result directory over windows
of seconds (warm-up and steady state apart), with the ratios between arms.
Writes a plain-text table to stdout; windows.txt beside it is its output for
this run (windows 11-60 61-250 11-250)."""
import argparse, csv, statistics
from collections import defaultdict

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument('result_dir', help='directory holding per_second.csv')
ap.add_argument('windows', nargs='*', default=['11-60', '61-999', '11-999'],
                help='FROM-TO seconds, inclusive (default 11-60 61-999 11-999)')
args = ap.parse_args()
d = args.result_dir
wins = [tuple(map(int, w.split('-'))) for w in args.windows]
rows = list(csv.DictReader(open(d + '/per_second.csv')))
runs = defaultdict(list)
for r in rows:
    runs[(r['server'], r['run_id'])].append(r)

def f(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None

def stats(rs):
    tps = [f(r['tps']) for r in rs if f(r['tps']) is not None]
    m = statistics.fmean(tps)
    out = dict(mean=m, cv=statistics.pstdev(tps) / m, worst=min(tps) / m,
               b70=sum(1 for t in tps if t < 0.7 * m),
               p99=statistics.median([f(r['p99_ms']) for r in rs if f(r['p99_ms']) is not None]),
               maxl=max(f(r['max_ms']) or 0 for r in rs))
    for col in ('redo_space_waits_ps', 'sync_flush_pages_ps', 'innodb_fsyncs_ps', 'dev_w_iops', 'pages_flushed_ps'):
        v = [f(r.get(col)) for r in rs if f(r.get(col)) is not None]
        out[col] = sum(v) if col in ('redo_space_waits_ps', 'sync_flush_pages_ps') else (statistics.fmean(v) if v else float('nan'))
    out['w_per_trx'] = out['dev_w_iops'] / m
    out['fl_per_trx'] = out['pages_flushed_ps'] / m
    return out

for lo, hi in wins:
    print(f'## seconds {lo}-{hi}')
    per_arm = defaultdict(list)
    print('run | mean | cv | worst | s<70% | p99 med | max ms | redo waits | sync pages | fsyncs/s | dev w/trx | flushed/trx')
    for (srv, rid), rs in sorted(runs.items(), key=lambda k: k[0][1]):
        w = [r for r in rs if lo <= int(r['second']) <= hi]
        if len(w) < 10:
            continue
        s = stats(w)
        per_arm[srv].append(s)
        print(f"{rid} | {s['mean']:.0f} | {s['cv']:.3f} | {s['worst']:.2f} | {s['b70']} | {s['p99']:.1f} | {s['maxl']:.0f} | {s['redo_space_waits_ps']:.0f} | {s['sync_flush_pages_ps']:.0f} | {s['innodb_fsyncs_ps']:.1f} | {s['w_per_trx']:.3f} | {s['fl_per_trx']:.3f}")
    print('arm | n | mean TPS | min-max | CV mean | CV max | s<70% total | p99 med | max latency max | fsyncs/s | dev w/trx')
    for srv, ss in per_arm.items():
        ms = [s['mean'] for s in ss]
        print(f"{srv} | {len(ss)} | {statistics.fmean(ms):.0f} | {min(ms):.0f}-{max(ms):.0f} | {statistics.fmean(s['cv'] for s in ss):.3f} | {max(s['cv'] for s in ss):.3f} | {sum(s['b70'] for s in ss)} | {statistics.median(s['p99'] for s in ss):.1f} | {max(s['maxl'] for s in ss):.0f} | {statistics.fmean(s['innodb_fsyncs_ps'] for s in ss):.1f} | {statistics.fmean(s['w_per_trx'] for s in ss):.3f}")
    arms = list(per_arm)
    for base in ('vanilla', 'steady-off'):
        if base not in per_arm:
            continue
        b = per_arm[base]
        for a in arms:
            if a == base:
                continue
            x = per_arm[a]
            g = lambda k, ss: statistics.fmean(s[k] for s in ss)
            print(f"{a}/{base}: TPS {g('mean', x)/g('mean', b):.3f}x CV {g('cv', x)/g('cv', b):.2f}x p99 {statistics.median(s['p99'] for s in x)/statistics.median(s['p99'] for s in b):.2f}x max {max(s['maxl'] for s in x)/max(s['maxl'] for s in b):.2f}x fsyncs {g('innodb_fsyncs_ps', x)/g('innodb_fsyncs_ps', b):.2f}x dev-w/trx {g('w_per_trx', x)/g('w_per_trx', b):.2f}x")
    print()
