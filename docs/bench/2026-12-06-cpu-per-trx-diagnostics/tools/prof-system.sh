#!/bin/bash
# Diagnostic only: in each measured run, context switches per thread group
case "${1:-}" in -h|--help) sed -n "2,/^set/p" "$0" | grep "^#"; exit 0;; esac
# over seconds ~60-90 (nothing attached), then a system-wide perf profile
# over ~95-125 (per-CPU sampling: no per-thread perf cost at switches).
set -euo pipefail
out=/root/lab/cpu-prof2
watch() {
  local n=0
  while [ ! -e "$out/done" ]; do
    if pgrep -f "sysbench.* run" >/dev/null; then
      n=$((n+1))
      pid=$(pgrep -x mysqld || pgrep -x mariadbd)
      sleep 60
      date +%s.%N > "$out/t-$n-a"; ./ctx.py snap "$pid" "$out/ctx-$n-a.json"
      sleep 30
      date +%s.%N > "$out/t-$n-b"; ./ctx.py snap "$pid" "$out/ctx-$n-b.json"
      sleep 5
      echo "$pid" > "$out/pid-$n"
      perf record -a -g -F 299 -o "$out/perf-$n.data" -- sleep 30 >"$out/perf-$n.log" 2>&1
      while pgrep -f "sysbench.* run" >/dev/null; do sleep 2; done
    fi
    sleep 2
  done
}
cd "$out"
watch &
cd /work/main
bench/run --scenario device_limit --duration 150 --repeat 1 --servers steady,mariadb --redo default --table-size 400000 --baseline mariadb --image-dir /dev/shm/steady-bench --results $out/run >$out/run.log 2>&1 || true
touch $out/done
wait
