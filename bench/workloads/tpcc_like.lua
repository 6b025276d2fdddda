-- A TPC-C-like workload: the five transactions of the TPC-C specification
-- (clauses 2.4 to 2.8) on its nine tables, simplified where said below
-- (bench/README.md: the tpcc scenario and "Workloads").
--
-- Scale, per warehouse (clause 4.3.3.1): 10 districts; 30,000 customers
-- (3,000 a district) with one history row each; 30,000 orders with 5 to 15
-- order lines each (about 300,000), the newest 900 of each district not yet
-- delivered (9,000 new_order rows); 100,000 stock rows.  Plus 100,000 items
-- shared by all warehouses.  About 0.1 GB of InnoDB data a warehouse, so
-- --warehouses=10 (the default) is about 1 GB.
--
-- Mix (clause 5.2.3), one sysbench event per transaction: Stock-Level,
-- Delivery and Order-Status 4 % each, Payment 43 %, New-Order the other
-- 45 %.  Every transaction is BEGIN ... COMMIT; a row read and then
-- written is read with SELECT ... FOR UPDATE.  1 % of New-Orders name an
-- item that does not exist on their last line and roll back (clause
-- 2.4.1.4); each still counts as one sysbench event.
--
-- Simplified: no terminals, keying or think times (a closed loop, like the
-- other workloads); each transaction draws its warehouse and district
-- uniformly; Delivery runs at once, as one transaction over the 10
-- districts; the NURand constants are fixed; no foreign keys; every date is
-- the server's NOW(); the totals the client would display are not computed.
--
-- Errors: a deadlock or lock wait timeout (sysbench's --mysql-ignore-errors,
-- 1213,1020,1205 by default) makes sysbench's driver raise its restart
-- error.  event() then rolls back what is left of the transaction and
-- re-raises it: sysbench counts it (errors/s, errors_ps in the lab) and
-- calls event() again, which retries the same transaction with the same
-- inputs.  Any other error ends the run.
--
-- Commands: prepare (in parallel: --threads threads take the warehouses
-- round-robin, the first also loads the items), run, cleanup.  Reports p95
-- and p99 every second (steady_common.lua).
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = dir .. "?.lua;" .. package.path
require("steady_common")

sysbench.cmdline.options = {
  warehouses =
    {"Warehouses (each about 0.1 GB: 10 districts, 30,000 customers, " ..
     "30,000 orders, 100,000 stock rows)", 10},
}

-- Tables, scale, random values and loaders: tpcc_data.lua.
local T = require("tpcc_data")
local DISTRICTS, CUSTOMERS, ITEMS = T.DISTRICTS, T.CUSTOMERS, T.ITEMS
local C_LAST_RUN, C_ID, C_ITEM = T.C_LAST_RUN, T.C_ID, T.C_ITEM
local nurand, last_name, money = T.nurand, T.last_name, T.money
local TABLES, create_tables = T.TABLES, T.create_tables
local load_items, load_warehouse = T.load_items, T.load_warehouse
local rand = sysbench.rand.uniform


function cmd_prepare()
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  create_tables(con)
  if sysbench.tid == 0 then
    load_items(con)
  end
  for w = sysbench.tid % sysbench.opt.threads + 1, sysbench.opt.warehouses,
    sysbench.opt.threads do
    load_warehouse(con, w)
  end
  con:disconnect()
end

sysbench.cmdline.commands = {
  prepare = {cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
}

function cleanup()
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  for i = #TABLES, 1, -1 do
    print(string.format("Dropping table '%s'...", TABLES[i][1]))
    con:query("DROP TABLE IF EXISTS " .. TABLES[i][1])
  end
end

-- ---------------------------------------------------------------------------
-- run: the five transactions

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function thread_done()
  con:disconnect()
end

local function exec(fmt, ...)
  return con:query(string.format(fmt, ...))
end

-- The first row's values (strings; nil for NULL), or nothing.
local function row(fmt, ...)
  return con:query_row(string.format(fmt, ...))
end

-- Clause 2.5.2.2: of the customers with this last name, ordered by first
-- name, the one at position ceil(n / 2).
local function customer_by_name(w, d, last)
  local rs = exec("SELECT c_id FROM customer WHERE c_w_id = %d AND " ..
                  "c_d_id = %d AND c_last = '%s' ORDER BY c_first", w, d, last)
  if rs == nil or rs.nrows == 0 then
    return nil
  end
  local r
  for _ = 1, math.ceil(rs.nrows / 2) do
    r = rs:fetch_row()
  end
  return tonumber(r[1])
end

local function new_order(t)
  con:query("BEGIN")
  row("SELECT w_tax FROM warehouse WHERE w_id = %d", t.w)
  local _, o_id = row("SELECT d_tax, d_next_o_id FROM district " ..
                      "WHERE d_w_id = %d AND d_id = %d FOR UPDATE", t.w, t.d)
  exec("UPDATE district SET d_next_o_id = d_next_o_id + 1 " ..
       "WHERE d_w_id = %d AND d_id = %d", t.w, t.d)
  row("SELECT c_discount, c_last, c_credit FROM customer " ..
      "WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d", t.w, t.d, t.c)
  exec("INSERT INTO orders (o_w_id, o_d_id, o_id, o_c_id, o_entry_d, " ..
       "o_carrier_id, o_ol_cnt, o_all_local) VALUES (%d, %d, %d, %d, NOW(), " ..
       "NULL, %d, %d)", t.w, t.d, o_id, t.c, #t.lines, t.all_local)
  exec("INSERT INTO new_order (no_w_id, no_d_id, no_o_id) VALUES (%d, %d, %d)",
       t.w, t.d, o_id)
  for n, l in ipairs(t.lines) do
    local price = row("SELECT i_price, i_name, i_data FROM item " ..
                      "WHERE i_id = %d", l.item)
    if price == nil then
      -- clause 2.4.2.3: an unused item; the whole order is rolled back
      con:query("ROLLBACK")
      return
    end
    local qty, _, dist = row("SELECT s_quantity, s_data, s_dist_%02d " ..
                             "FROM stock WHERE s_w_id = %d AND s_i_id = %d " ..
                             "FOR UPDATE", t.d, l.supply_w, l.item)
    qty = tonumber(qty)
    if qty >= l.qty + 10 then
      qty = qty - l.qty
    else
      qty = qty - l.qty + 91
    end
    exec("UPDATE stock SET s_quantity = %d, s_ytd = s_ytd + %d, " ..
         "s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + %d " ..
         "WHERE s_w_id = %d AND s_i_id = %d", qty, l.qty,
         l.supply_w == t.w and 0 or 1, l.supply_w, l.item)
    exec("INSERT INTO order_line (ol_w_id, ol_d_id, ol_o_id, ol_number, " ..
         "ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, " ..
         "ol_dist_info) VALUES (%d, %d, %d, %d, %d, %d, NULL, %d, %.2f, '%s')",
         t.w, t.d, o_id, n, l.item, l.supply_w, l.qty, l.qty * tonumber(price),
         dist)
  end
  con:query("COMMIT")
end

local function payment(t)
  con:query("BEGIN")
  exec("UPDATE warehouse SET w_ytd = w_ytd + %s WHERE w_id = %d", t.amount, t.w)
  local w_name = row("SELECT w_name, w_street_1, w_street_2, w_city, " ..
                     "w_state, w_zip FROM warehouse WHERE w_id = %d", t.w)
  exec("UPDATE district SET d_ytd = d_ytd + %s WHERE d_w_id = %d AND d_id = %d",
       t.amount, t.w, t.d)
  local d_name = row("SELECT d_name, d_street_1, d_street_2, d_city, " ..
                     "d_state, d_zip FROM district WHERE d_w_id = %d AND " ..
                     "d_id = %d", t.w, t.d)
  local c = t.c or customer_by_name(t.c_w, t.c_d, t.c_last)
  if c == nil then
    con:query("ROLLBACK")
    return
  end
  local credit, data = row("SELECT c_credit, c_data, c_first, c_middle, " ..
    "c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, " ..
    "c_since, c_credit_lim, c_discount, c_balance FROM customer " ..
    "WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d FOR UPDATE",
    t.c_w, t.c_d, c)
  local set_data = ""
  if credit == "BC" then
    -- clause 2.5.2.2: bad credit; the payment goes in front of c_data
    set_data = string.format(", c_data = '%s'", (string.format(
      "%d %d %d %d %d %s | ", c, t.c_d, t.c_w, t.d, t.w, t.amount) ..
      (data or "")):sub(1, 500))
  end
  exec("UPDATE customer SET c_balance = c_balance - %s, " ..
       "c_ytd_payment = c_ytd_payment + %s, " ..
       "c_payment_cnt = c_payment_cnt + 1%s " ..
       "WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d",
       t.amount, t.amount, set_data, t.c_w, t.c_d, c)
  exec("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, " ..
       "h_date, h_amount, h_data) VALUES (%d, %d, %d, %d, %d, NOW(), %s, " ..
       "'%s    %s')", c, t.c_d, t.c_w, t.d, t.w, t.amount, w_name, d_name)
  con:query("COMMIT")
end

local function order_status(t)
  con:query("BEGIN")
  local c = t.c or customer_by_name(t.w, t.d, t.c_last)
  if c ~= nil then
    row("SELECT c_balance, c_first, c_middle, c_last FROM customer " ..
        "WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d", t.w, t.d, c)
    local o_id = row("SELECT o_id, o_carrier_id, o_entry_d FROM orders " ..
                     "WHERE o_w_id = %d AND o_d_id = %d AND o_c_id = %d " ..
                     "ORDER BY o_id DESC LIMIT 1", t.w, t.d, c)
    if o_id ~= nil then
      exec("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, " ..
           "ol_delivery_d FROM order_line WHERE ol_w_id = %d AND " ..
           "ol_d_id = %d AND ol_o_id = %s", t.w, t.d, o_id)
    end
  end
  con:query("COMMIT")
end

local function delivery(t)
  con:query("BEGIN")
  for d = 1, DISTRICTS do
    local o_id = row("SELECT no_o_id FROM new_order WHERE no_w_id = %d " ..
                     "AND no_d_id = %d ORDER BY no_o_id LIMIT 1 FOR UPDATE",
                     t.w, d)
    if o_id ~= nil then
      exec("DELETE FROM new_order WHERE no_w_id = %d AND no_d_id = %d " ..
           "AND no_o_id = %s", t.w, d, o_id)
      local c = row("SELECT o_c_id FROM orders WHERE o_w_id = %d AND " ..
                    "o_d_id = %d AND o_id = %s FOR UPDATE", t.w, d, o_id)
      exec("UPDATE orders SET o_carrier_id = %d WHERE o_w_id = %d AND " ..
           "o_d_id = %d AND o_id = %s", t.carrier, t.w, d, o_id)
      exec("UPDATE order_line SET ol_delivery_d = NOW() WHERE ol_w_id = %d " ..
           "AND ol_d_id = %d AND ol_o_id = %s", t.w, d, o_id)
      local total = row("SELECT SUM(ol_amount) FROM order_line WHERE " ..
                        "ol_w_id = %d AND ol_d_id = %d AND ol_o_id = %s",
                        t.w, d, o_id)
      exec("UPDATE customer SET c_balance = c_balance + %s, " ..
           "c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = %d AND " ..
           "c_d_id = %d AND c_id = %s", total or "0", t.w, d, c)
    end
  end
  con:query("COMMIT")
end

local function stock_level(t)
  con:query("BEGIN")
  local next_o = tonumber(row("SELECT d_next_o_id FROM district " ..
                              "WHERE d_w_id = %d AND d_id = %d", t.w, t.d))
  row("SELECT COUNT(DISTINCT s_i_id) FROM order_line JOIN stock " ..
      "ON s_w_id = ol_w_id AND s_i_id = ol_i_id WHERE ol_w_id = %d AND " ..
      "ol_d_id = %d AND ol_o_id >= %d AND ol_o_id < %d AND s_quantity < %d",
      t.w, t.d, next_o - 20, next_o, t.threshold)
  con:query("COMMIT")
end

-- The inputs of one transaction of the mix (clauses 2.4.1 to 2.8.1).
local function another_warehouse(w)
  local other = rand(1, sysbench.opt.warehouses - 1)
  return other >= w and other + 1 or other
end

local function customer(t)
  -- 60 % by last name, 40 % by number
  if rand(1, 100) <= 60 then
    t.c_last = last_name(nurand(255, C_LAST_RUN, 0, 999))
  else
    t.c = nurand(1023, C_ID, 1, CUSTOMERS)
  end
  return t
end

local function next_transaction()
  local w, d = rand(1, sysbench.opt.warehouses), rand(1, DISTRICTS)
  local many = sysbench.opt.warehouses > 1
  local r = rand(1, 100)
  if r <= 4 then
    return {run = stock_level, w = w, d = d, threshold = rand(10, 20)}
  elseif r <= 8 then
    return {run = delivery, w = w, carrier = rand(1, 10)}
  elseif r <= 12 then
    return customer({run = order_status, w = w, d = d})
  elseif r <= 55 then
    -- 85 % pay at their own warehouse and district, 15 % at another one
    local t = {run = payment, w = w, d = d, c_w = w, c_d = d,
               amount = money(rand(100, 500000))}
    if many and rand(1, 100) > 85 then
      t.c_w, t.c_d = another_warehouse(w), rand(1, DISTRICTS)
    end
    return customer(t)
  end
  local t = {run = new_order, w = w, d = d,
             c = nurand(1023, C_ID, 1, CUSTOMERS), lines = {}, all_local = 1}
  local n = rand(5, 15)
  local rollback = rand(1, 100) == 1
  for i = 1, n do
    -- 1 % of the lines come from another warehouse
    local l = {item = nurand(8191, C_ITEM, 1, ITEMS), supply_w = w,
               qty = rand(1, 10)}
    if many and rand(1, 100) == 1 then
      l.supply_w = another_warehouse(w)
      t.all_local = 0
    end
    if rollback and i == n then
      l.item = ITEMS + 1
    end
    t.lines[i] = l
  end
  return t
end

-- A transaction that failed with an ignorable error is kept here and
-- retried when sysbench calls event() again.
local pending = nil

function event()
  pending = pending or next_transaction()
  local ok, err = pcall(pending.run, pending)
  if not ok then
    pcall(con.query, con, "ROLLBACK")
    error(err, 0)
  end
  pending = nil
end
