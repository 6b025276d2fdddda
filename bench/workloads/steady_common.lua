-- Shared by every workload in bench/workloads/: per-second p95 AND p99.
--
-- sysbench 1.0 computes one percentile per report interval (--percentile).
-- Right before it calls the report_intermediate hook, it has merged that
-- interval's latency counts into sb_latency_histogram.temp_array (see
-- sb_histogram_get_pct_intermediate() in sysbench 1.0's sb_histogram.c), and
-- only the reporting thread touches that array.  The hook below reads it
-- through the FFI and computes p95, p99 and max with sysbench's own bucket
-- arithmetic, so the figures equal what --percentile=95/99 would print.
--
-- Each report is one machine-readable line on stdout:
--   SB,<second>,<threads_running>,<tps>,<qps>,<p95_ms>,<p99_ms>,<max_ms>,<errors/s>,<reconnects/s>,<queue>
-- <queue> is sysbench's event queue under --rate (events waiting for a free
-- thread: an open-loop run's backlog), 0 in a closed-loop run.
-- If the histogram layout is not the one expected (another sysbench version),
-- p95/max are left blank and p99 is sysbench's own --percentile value.

local ffi = require("ffi")

ffi.cdef[[
typedef struct {
  uint64_t *cumulative_array;
  uint64_t cumulative_nevents;
  uint64_t *temp_array;
  uint64_t **interm_slots;
  size_t array_size;
  double range_min;
  double range_max;
  double range_deduct;
  double range_mult;
} steady_sb_histogram_t;
void *dlsym(void *handle, const char *symbol);
int pthread_setcancelstate(int state, int *oldstate);
]]

local M = {}

local hist = nil
local layout_ok = false

local function find_histogram()
  local ok, p = pcall(function()
    return ffi.C.dlsym(nil, "sb_latency_histogram")
  end)
  if not ok or p == nil then
    return
  end
  hist = ffi.cast("steady_sb_histogram_t *", p)
  -- sysbench 1.0 builds its latency histogram with 1024 buckets over
  -- 0.001..100000 ms; anything else means a layout we do not know.
  layout_ok = tonumber(hist.array_size) == 1024
    and math.abs(hist.range_min - 0.001) < 1e-9
    and math.abs(hist.range_max - 100000) < 1e-6
end

-- Same arithmetic as sysbench: first bucket whose running count reaches
-- floor(n * p / 100 + 0.5).
local function percentiles(pcts)
  local size = tonumber(hist.array_size)
  local counts = {}
  local n = 0
  local top = -1
  for i = 0, size - 1 do
    local c = tonumber(hist.temp_array[i])
    counts[i] = c
    n = n + c
    if c > 0 then top = i end
  end
  if n == 0 then return nil end
  local res = {}
  for j, p in ipairs(pcts) do
    local nmax = math.floor(n * p / 100 + 0.5)
    local cur = 0
    local i = 0
    while i < size do
      cur = cur + counts[i]
      if cur >= nmax then break end
      i = i + 1
    end
    res[j] = math.exp(i / hist.range_mult + hist.range_deduct)
  end
  res[#pcts + 1] = math.exp(top / hist.range_mult + hist.range_deduct)
  return res
end

local function fmt(v)
  if v == nil then return "" end
  return string.format("%.3f", v)
end

local function report(stat)
  if hist == nil then find_histogram() end
  local secs = stat.time_interval
  local p95, p99, pmax
  if layout_ok then
    local r = percentiles({95, 99})
    if r then p95, p99, pmax = r[1], r[2], r[3] end
  else
    p99 = stat.latency_pct * 1000
  end
  local ok, queue = pcall(function() return tonumber(stat.queue_length) end)
  if not ok or queue == nil then queue = 0 end
  io.stdout:write(string.format("SB,%.0f,%u,%.2f,%.2f,%s,%s,%s,%.2f,%.2f,%u\n",
    stat.time_total, stat.threads_running,
    stat.events / secs,
    (stat.reads + stat.writes + stat.other) / secs,
    fmt(p95), fmt(p99), fmt(pmax),
    stat.errors / secs, stat.reconnects / secs, queue))
  io.stdout:flush()
end

-- At the end of a run sysbench cancels the reporting thread
-- (pthread_cancel).  A cancel acted on inside this hook, at the write below,
-- unwinds through LuaJIT frames and sysbench aborts (seen: SIGABRT, the last
-- report and the final statistics lost).  So the hook runs with cancellation
-- disabled; a pending cancel is then acted on back in sysbench's C loop.
local PTHREAD_CANCEL_DISABLE = 1   -- glibc
local old_cancel_state = ffi.new("int[1]")

function M.report(stat)
  ffi.C.pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, old_cancel_state)
  local ok, err = pcall(report, stat)
  ffi.C.pthread_setcancelstate(old_cancel_state[0], nil)
  if not ok then error(err, 0) end
end

sysbench.hooks.report_intermediate = M.report

-- Load one of sysbench's bundled scripts (oltp_insert, ...) into this state.
-- Our wrappers share the bundled names, so the search skips our own folder
-- and the current directory.
function M.builtin(name, own_dir)
  local candidates = {"/usr/share/sysbench/" .. name .. ".lua"}
  for entry in string.gmatch(package.path, "[^;]+") do
    if entry:sub(1, 2) ~= "./" and entry:sub(1, #own_dir) ~= own_dir then
      candidates[#candidates + 1] = entry:gsub("%?", name)
    end
  end
  for _, path in ipairs(candidates) do
    local f = io.open(path, "r")
    if f then
      f:close()
      return dofile(path)
    end
  end
  error("cannot find sysbench's bundled " .. name .. ".lua")
end

return M
