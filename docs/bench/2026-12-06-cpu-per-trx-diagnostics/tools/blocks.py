#!/usr/bin/env python3
"""Diagnostic: mean TPS and mysqld CPU ms/trx per block of seconds of one run."""
import csv, sys
if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
    print("usage: blocks.py per_second.csv A-B [A-B ...]"); sys.exit(0)
rows = list(csv.DictReader(open(sys.argv[1])))
for spec in sys.argv[2:]:
    a, b = map(int, spec.split("-"))
    sel = [r for r in rows if a <= int(float(r["second"])) <= b and r["tps"]]
    tps = sum(float(r["tps"]) for r in sel) / len(sel)
    cpu = sum(float(r["mysqld_cpu_pct"]) for r in sel) / len(sel)
    p99 = sorted(float(r.get("p99_ms") or r.get("lat_p99_ms") or 0) for r in sel)[len(sel)//2]
    print(f"{spec:>8} n={len(sel):3d} tps={tps:7.0f} cpu%={cpu:6.1f} ms/trx={cpu*10/tps:.4f} p99med={p99}")
