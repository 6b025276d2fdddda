"""The Steady lab library: what bench/run, bench/aio-depth-probe,
tests/crash/crash-test and scripts/server share, written once.

One module per concern (bench/lab/README.md):
  paths      cache, trees, build dirs: one place, one environment variable
  proc       processes: run, spawn, pid identity, CPU ticks, log tails
  resources  what a run creates, recorded by id, torn down newest first
  device     loop device, ext4, cgroup-v1 blkio throttles, /proc/diskstats
  server     find a server's binaries, write its my.cnf, initialise, start,
             wait, stop; one-shot SQL
  client     sysbench: command lines and output parsing
  collect    per-second sampling (status poller, diskstats, CPU)
  summary    per-second rows -> per-run figures (pure)
  report     runs.csv, per_second.csv, summary.md
  scenarios  scenarios, device classes, workloads (data + validation)
  bulk_load  the bulk_load scenario's loader SQL and its figures (pure)
  loader     the bulk_load scenario's second client (process side)
  phases     one server run as phases: values in, results out

Standard library only.  Import with bench/ on sys.path: `from lab import server`.
"""
