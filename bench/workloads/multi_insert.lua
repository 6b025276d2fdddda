-- Multi-table insert transactions: the 2012 field case (bench/README.md,
-- "Scenarios"): BEGIN, several single-row INSERTs each into
-- a different table, COMMIT.  With sync_binlog=1 and
-- innodb_flush_log_at_trx_commit=1 every transaction is one durable commit,
-- so commits per second, not rows, is what the device has to absorb.
--
-- Tables are sysbench's sbtest layout (auto-increment id, secondary index on
-- k), created and loaded by oltp_common's prepare, so `prepare`, `cleanup`
-- and every oltp_common option (--tables, --table-size, --auto-inc, ...)
-- work as for the bundled scripts.  Reports p95/p99 every second.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = dir .. "?.lua;" .. package.path
require("steady_common")
require("oltp_common")

sysbench.cmdline.options.inserts_per_trx =
  {"Single-row INSERTs per transaction, each into a different table " ..
   "(at most --tables)", 4}

function prepare_statements()
  -- Plain queries, like sysbench's oltp_insert; oltp_common expects this.
end

function event()
  local n = sysbench.opt.tables
  local k = math.min(sysbench.opt.inserts_per_trx, n)
  -- k consecutive tables from a random start: k distinct tables, and every
  -- table equally loaded over time.
  local first = sysbench.rand.uniform(1, n)
  con:query("BEGIN")
  for i = 0, k - 1 do
    local t = (first + i - 1) % n + 1
    local id
    if sysbench.opt.auto_inc then
      id = 0
    else
      -- as oltp_insert: a unique uint32 mapped onto SQL INT
      id = sysbench.rand.unique() - 2147483648
    end
    con:query(string.format(
      "INSERT INTO sbtest%d (id, k, c, pad) VALUES (%d, %d, '%s', '%s')",
      t, id, sysbench.rand.default(1, sysbench.opt.table_size),
      get_c_value(), get_pad_value()))
  end
  con:query("COMMIT")
end
