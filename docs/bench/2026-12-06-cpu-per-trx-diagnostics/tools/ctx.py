#!/usr/bin/env python3
"""Diagnostic: context switches of one process's threads, grouped by thread
name, between two snapshots.  usage: ctx.py snap PID FILE | ctx.py diff A B"""
import json, os, sys, re
from collections import defaultdict

def snap(pid):
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            comm = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
            st = open(f"/proc/{pid}/task/{tid}/status").read()
            sched = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        v = int(re.search(r"voluntary_ctxt_switches:\s+(\d+)", st).group(1))
        n = int(re.search(r"nonvoluntary_ctxt_switches:\s+(\d+)", st).group(1))
        cpu = int(sched[11]) + int(sched[12])  # utime+stime ticks
        out[tid] = [comm, v, n, cpu]
    return out

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    print(__doc__); sys.exit(0)
if sys.argv[1] == "snap":
    json.dump(snap(sys.argv[2]), open(sys.argv[3], "w"))
else:
    a, b = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
    g = defaultdict(lambda: [0, 0, 0, 0])
    for tid, (comm, v, n, cpu) in b.items():
        va, na, ca = (a[tid][1:] if tid in a else (0, 0, 0))
        name = re.sub(r"[-_]?\d+$", "", comm)
        e = g[name]; e[0] += 1; e[1] += v - va; e[2] += n - na; e[3] += cpu - ca
    tot = [sum(e[i] for e in g.values()) for i in range(4)]
    for name, e in sorted(g.items(), key=lambda kv: -(kv[1][1] + kv[1][2])):
        if e[1] + e[2] + e[3]:
            print(f"{name:24s} threads={e[0]:3d} vol={e[1]:9d} invol={e[2]:9d} cpu_ticks={e[3]:6d}")
    print(f"{'total':24s} threads={tot[0]:3d} vol={tot[1]:9d} invol={tot[2]:9d} cpu_ticks={tot[3]:6d}")
