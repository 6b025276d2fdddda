"""The Steady lab library: what bench/run, bench/raw-write and
bench/redo-types share, written once.  Lab only: scripts/server, the crash
test and the shell tests use the shared harness (harness/: paths, proc,
resources, device, server), never this package.

One module per concern (bench/lab/README.md):
  client       sysbench: command lines and output parsing
  collect      per-second sampling (status poller, diskstats, CPU)
  causes       stall-cause columns and dip reading (pure)
  summary      per-second rows -> per-run figures (pure)
  report       runs.csv, per_second.csv, summary.md
  set_at       --set-at: SET GLOBAL at a second of the measured run
  scenarios    scenarios, device classes, workloads (data + validation)
  bulk_load    the bulk_load scenario's loader SQL and its figures (pure)
  loader       the bulk_load scenario's second client (process side)
  phases       one server run as phases: values in, results out
  rawwrite     the raw write test: fio command, fio JSON, table (pure)
  redo_reader  InnoDB redo files and blocks (bench/redo-types; pure)
  redo_records InnoDB redo records (pure)

Standard library only.  Import with bench/ and the repository root on
sys.path: `from lab import phases`, `from harness import server`.
"""
