#!/bin/bash
# Diagnostic only: poor man's profiler, gdb stack snapshots of the server's
case "${1:-}" in -h|--help) sed -n "2,/^set/p" "$0" | grep "^#"; exit 0;; esac
# threads 40 s into a measured run.
set -euo pipefail
out=/root/lab/pmp
srv=${1:-steady}
watch() {
  while [ ! -e "$out/done-$srv" ]; do
    if pgrep -f "sysbench.* run" >/dev/null; then
      pid=$(pgrep -x mysqld || pgrep -x mariadbd)
      sleep 40
      for i in $(seq 1 15); do
        gdb -p "$pid" -batch -ex "set pagination 0" -ex "thread apply all bt 25" > "$out/$srv-stack-$i.txt" 2>/dev/null || true
        sleep 3
      done
      break
    fi
    sleep 2
  done
}
watch &
cd /work/main
bench/run --scenario device_limit --duration 120 --repeat 1 --servers $srv --redo default --table-size 400000 --image-dir /dev/shm/steady-bench --results $out/run-$srv >$out/run-$srv.log 2>&1 || true
touch $out/done-$srv
wait
