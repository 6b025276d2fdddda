"""The Steady harness: what `make run` (scripts/server), the crash test
(tests/crash), the shell tests (tests/scripts) and the lab (bench/) share,
written once.

One module per concern (harness/README.md):
  paths      cache, trees, build dirs: one place, one environment variable
  proc       processes: run, spawn, pid identity, CPU ticks, log tails
  resources  what a run creates, recorded by id, torn down newest first
  device     loop device, ext4, cgroup-v1 blkio throttles, /proc/diskstats
  server     find a server's binaries, write its my.cnf, initialise, start,
             wait, stop; one-shot SQL

Standard library only; nothing here imports bench/.  Import with the
repository root on sys.path: `from harness import server`.
"""
