#!/bin/bash
# Diagnostic only: flat perf profile of the server's process 60 s into each
case "${1:-}" in -h|--help) sed -n "2,/^set/p" "$0" | grep "^#"; exit 0;; esac
# measured run of bench/run (device_limit, each server's redo default).
set -euo pipefail
out=/root/lab/cpu-prof
watch() {
  local n=0
  while true; do
    if pgrep -f "sysbench.* run" >/dev/null; then
      sleep 90
      pid=$(pgrep -x mysqld || pgrep -x mariadbd || true)
      name=$(ps -o comm= -p "$pid")
      n=$((n+1))
      perf record -F 499 -p "$pid" -o "$out/perf-$n-$name.data" -- sleep 60 >"$out/perf-$n.log" 2>&1
      while pgrep -f "sysbench.* run" >/dev/null; do sleep 2; done
    fi
    sleep 2
    [ -e "$out/done" ] && break
  done
}
watch &
wpid=$!
cd /work/main
bench/run --scenario device_limit --duration 200 --repeat 1 --servers steady,mariadb --redo default --baseline mariadb --image-dir /dev/shm/steady-bench --results $out/run >$out/run.log 2>&1 || true
touch $out/done
wait $wpid || true
