-- The data of tpcc_like.lua: the TPC-C tables, their scale, the random
-- values of the specification (NURand, last names, strings) and the
-- loaders its prepare command runs.  Returns them as one table.
local bit = require("bit")

local M = {}

local DISTRICTS = 10       -- per warehouse
local CUSTOMERS = 3000     -- per district, and orders per district at load
local UNDELIVERED = 900    -- the newest orders of a district, in new_order
local ITEMS = 100000       -- items, and stock rows per warehouse

-- NURand's C (clause 2.1.6): fixed here.  The run's C for last names
-- differs from the load's by 66, inside the specification's 65..119.
local C_LAST_LOAD, C_LAST_RUN, C_ID, C_ITEM = 157, 223, 411, 5329

local rand = sysbench.rand.uniform

local function nurand(a, c, x, y)
  return (bit.bor(rand(0, a), rand(x, y)) + c) % (y - x + 1) + x
end

-- Last names from three syllables (clause 4.3.2.3): 0 .. 999.
local SYLLABLES = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI",
                   "CALLY", "ATION", "EING"}

local function last_name(n)
  return SYLLABLES[math.floor(n / 100) + 1] ..
    SYLLABLES[math.floor(n / 10) % 10 + 1] .. SYLLABLES[n % 10 + 1]
end

-- Random strings through sysbench's own generator ('@' a letter, '#' a
-- digit), one template per length.
local templates = {}

local function pattern(ch, n)
  local key = ch .. n
  if templates[key] == nil then
    templates[key] = string.rep(ch, n)
  end
  return templates[key]
end

local function letters(min, max)
  return sysbench.rand.string(pattern("@", max and rand(min, max) or min))
end

local function digits(n)
  return sysbench.rand.string(pattern("#", n))
end

local function zip()
  return digits(4) .. "11111"
end

-- i_data and s_data: 26..50 letters, "ORIGINAL" in 10 % of them.
local function item_data()
  local s = letters(26, 50)
  if rand(1, 10) == 1 then
    local at = rand(1, #s - 7)
    s = s:sub(1, at - 1) .. "ORIGINAL" .. s:sub(at + 8)
  end
  return s
end

local function address()
  return string.format("'%s', '%s', '%s', '%s', '%s'", letters(10, 20),
    letters(10, 20), letters(10, 20), letters(2), zip())
end

local function money(cents)
  return string.format("%.2f", cents / 100)
end

local TABLES = {
  {"warehouse", [[
    w_id INT NOT NULL,
    w_name VARCHAR(10) NOT NULL,
    w_street_1 VARCHAR(20) NOT NULL, w_street_2 VARCHAR(20) NOT NULL,
    w_city VARCHAR(20) NOT NULL, w_state CHAR(2) NOT NULL,
    w_zip CHAR(9) NOT NULL,
    w_tax DECIMAL(4,4) NOT NULL,
    w_ytd DECIMAL(12,2) NOT NULL,
    PRIMARY KEY (w_id)]]},
  {"district", [[
    d_w_id INT NOT NULL,
    d_id INT NOT NULL,
    d_name VARCHAR(10) NOT NULL,
    d_street_1 VARCHAR(20) NOT NULL, d_street_2 VARCHAR(20) NOT NULL,
    d_city VARCHAR(20) NOT NULL, d_state CHAR(2) NOT NULL,
    d_zip CHAR(9) NOT NULL,
    d_tax DECIMAL(4,4) NOT NULL,
    d_ytd DECIMAL(12,2) NOT NULL,
    d_next_o_id INT NOT NULL,
    PRIMARY KEY (d_w_id, d_id)]]},
  {"customer", [[
    c_w_id INT NOT NULL,
    c_d_id INT NOT NULL,
    c_id INT NOT NULL,
    c_first VARCHAR(16) NOT NULL,
    c_middle CHAR(2) NOT NULL,
    c_last VARCHAR(16) NOT NULL,
    c_street_1 VARCHAR(20) NOT NULL, c_street_2 VARCHAR(20) NOT NULL,
    c_city VARCHAR(20) NOT NULL, c_state CHAR(2) NOT NULL,
    c_zip CHAR(9) NOT NULL,
    c_phone CHAR(16) NOT NULL,
    c_since DATETIME NOT NULL,
    c_credit CHAR(2) NOT NULL,
    c_credit_lim DECIMAL(12,2) NOT NULL,
    c_discount DECIMAL(4,4) NOT NULL,
    c_balance DECIMAL(12,2) NOT NULL,
    c_ytd_payment DECIMAL(12,2) NOT NULL,
    c_payment_cnt INT NOT NULL,
    c_delivery_cnt INT NOT NULL,
    c_data VARCHAR(500) NOT NULL,
    PRIMARY KEY (c_w_id, c_d_id, c_id),
    KEY customer_last_name (c_w_id, c_d_id, c_last, c_first)]]},
  -- The specification gives history no key; InnoDB would add a hidden one.
  {"history", [[
    h_id BIGINT NOT NULL AUTO_INCREMENT,
    h_c_id INT NOT NULL,
    h_c_d_id INT NOT NULL,
    h_c_w_id INT NOT NULL,
    h_d_id INT NOT NULL,
    h_w_id INT NOT NULL,
    h_date DATETIME NOT NULL,
    h_amount DECIMAL(6,2) NOT NULL,
    h_data VARCHAR(24) NOT NULL,
    PRIMARY KEY (h_id)]]},
  {"orders", [[
    o_w_id INT NOT NULL,
    o_d_id INT NOT NULL,
    o_id INT NOT NULL,
    o_c_id INT NOT NULL,
    o_entry_d DATETIME NOT NULL,
    o_carrier_id INT NULL,
    o_ol_cnt INT NOT NULL,
    o_all_local INT NOT NULL,
    PRIMARY KEY (o_w_id, o_d_id, o_id),
    KEY orders_customer (o_w_id, o_d_id, o_c_id, o_id)]]},
  {"new_order", [[
    no_w_id INT NOT NULL,
    no_d_id INT NOT NULL,
    no_o_id INT NOT NULL,
    PRIMARY KEY (no_w_id, no_d_id, no_o_id)]]},
  {"order_line", [[
    ol_w_id INT NOT NULL,
    ol_d_id INT NOT NULL,
    ol_o_id INT NOT NULL,
    ol_number INT NOT NULL,
    ol_i_id INT NOT NULL,
    ol_supply_w_id INT NOT NULL,
    ol_delivery_d DATETIME NULL,
    ol_quantity INT NOT NULL,
    ol_amount DECIMAL(6,2) NOT NULL,
    ol_dist_info CHAR(24) NOT NULL,
    PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)]]},
  {"item", [[
    i_id INT NOT NULL,
    i_im_id INT NOT NULL,
    i_name VARCHAR(24) NOT NULL,
    i_price DECIMAL(5,2) NOT NULL,
    i_data VARCHAR(50) NOT NULL,
    PRIMARY KEY (i_id)]]},
  {"stock", [[
    s_w_id INT NOT NULL,
    s_i_id INT NOT NULL,
    s_quantity INT NOT NULL,
    s_dist_01 CHAR(24) NOT NULL, s_dist_02 CHAR(24) NOT NULL,
    s_dist_03 CHAR(24) NOT NULL, s_dist_04 CHAR(24) NOT NULL,
    s_dist_05 CHAR(24) NOT NULL, s_dist_06 CHAR(24) NOT NULL,
    s_dist_07 CHAR(24) NOT NULL, s_dist_08 CHAR(24) NOT NULL,
    s_dist_09 CHAR(24) NOT NULL, s_dist_10 CHAR(24) NOT NULL,
    s_ytd INT NOT NULL,
    s_order_cnt INT NOT NULL,
    s_remote_cnt INT NOT NULL,
    s_data VARCHAR(50) NOT NULL,
    PRIMARY KEY (s_w_id, s_i_id)]]},
}

-- ---------------------------------------------------------------------------
-- prepare and cleanup

local function create_tables(con)
  -- Every prepare thread runs this; the first creates, the others find
  -- the tables there.
  for _, t in ipairs(TABLES) do
    con:query(string.format("CREATE TABLE IF NOT EXISTS %s (%s) ENGINE=InnoDB",
                            t[1], t[2]))
  end
end

local function load_items(con)
  print(string.format("Loading %d items", ITEMS))
  con:bulk_insert_init(
    "INSERT INTO item (i_id, i_im_id, i_name, i_price, i_data) VALUES")
  for i = 1, ITEMS do
    con:bulk_insert_next(string.format("(%d, %d, '%s', %s, '%s')", i,
      rand(1, 10000), letters(14, 24), money(rand(100, 10000)), item_data()))
  end
  con:bulk_insert_done()
end

local function load_stock(con, w)
  con:bulk_insert_init(
    "INSERT INTO stock (s_w_id, s_i_id, s_quantity, s_dist_01, s_dist_02, " ..
    "s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, " ..
    "s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data) VALUES")
  for i = 1, ITEMS do
    local dist = {}
    for d = 1, DISTRICTS do
      dist[d] = letters(24)
    end
    con:bulk_insert_next(string.format(
      "(%d, %d, %d, '%s', 0, 0, 0, '%s')", w, i, rand(10, 100),
      table.concat(dist, "', '"), item_data()))
  end
  con:bulk_insert_done()
end

local function load_customers(con, w, d)
  con:bulk_insert_init(
    "INSERT INTO customer (c_w_id, c_d_id, c_id, c_first, c_middle, c_last, " ..
    "c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, " ..
    "c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, " ..
    "c_payment_cnt, c_delivery_cnt, c_data) VALUES")
  for c = 1, CUSTOMERS do
    -- the first 1000 customers take every last name once, the others
    -- NURand's (clause 4.3.3.1)
    local last = last_name(c <= 1000 and c - 1 or
                             nurand(255, C_LAST_LOAD, 0, 999))
    con:bulk_insert_next(string.format(
      "(%d, %d, %d, '%s', 'OE', '%s', %s, '%s', NOW(), '%s', 50000.00, " ..
      "%s, -10.00, 10.00, 1, 0, '%s')", w, d, c, letters(8, 16), last,
      address(), digits(16), rand(1, 10) == 1 and "BC" or "GC",
      string.format("%.4f", rand(0, 5000) / 10000), letters(300, 500)))
  end
  con:bulk_insert_done()
  con:bulk_insert_init(
    "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, " ..
    "h_date, h_amount, h_data) VALUES")
  for c = 1, CUSTOMERS do
    con:bulk_insert_next(string.format(
      "(%d, %d, %d, %d, %d, NOW(), 10.00, '%s')", c, d, w, d, w,
      letters(12, 24)))
  end
  con:bulk_insert_done()
end

local function load_orders(con, w, d)
  -- o_c_id: a random permutation of the customers
  local cust, lines = {}, {}
  for o = 1, CUSTOMERS do
    cust[o] = o
    lines[o] = rand(5, 15)
  end
  for o = CUSTOMERS, 2, -1 do
    local j = rand(1, o)
    cust[o], cust[j] = cust[j], cust[o]
  end
  local first_new = CUSTOMERS - UNDELIVERED + 1
  con:bulk_insert_init(
    "INSERT INTO orders (o_w_id, o_d_id, o_id, o_c_id, o_entry_d, " ..
    "o_carrier_id, o_ol_cnt, o_all_local) VALUES")
  for o = 1, CUSTOMERS do
    con:bulk_insert_next(string.format("(%d, %d, %d, %d, NOW(), %s, %d, 1)",
      w, d, o, cust[o], o < first_new and tostring(rand(1, 10)) or "NULL",
      lines[o]))
  end
  con:bulk_insert_done()
  con:bulk_insert_init(
    "INSERT INTO order_line (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, " ..
    "ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) " ..
    "VALUES")
  for o = 1, CUSTOMERS do
    local delivered = o < first_new
    for n = 1, lines[o] do
      con:bulk_insert_next(string.format(
        "(%d, %d, %d, %d, %d, %d, %s, 5, %s, '%s')", w, d, o, n,
        rand(1, ITEMS), w, delivered and "NOW()" or "NULL",
        delivered and "0.00" or money(rand(1, 999999)), letters(24)))
    end
  end
  con:bulk_insert_done()
  con:bulk_insert_init(
    "INSERT INTO new_order (no_w_id, no_d_id, no_o_id) VALUES")
  for o = first_new, CUSTOMERS do
    con:bulk_insert_next(string.format("(%d, %d, %d)", w, d, o))
  end
  con:bulk_insert_done()
end

local function load_warehouse(con, w)
  print(string.format("Loading warehouse %d", w))
  con:query(string.format(
    "INSERT INTO warehouse (w_id, w_name, w_street_1, w_street_2, w_city, " ..
    "w_state, w_zip, w_tax, w_ytd) VALUES (%d, '%s', %s, %.4f, 300000.00)",
    w, letters(6, 10), address(), rand(0, 2000) / 10000))
  load_stock(con, w)
  for d = 1, DISTRICTS do
    con:query(string.format(
      "INSERT INTO district (d_w_id, d_id, d_name, d_street_1, d_street_2, " ..
      "d_city, d_state, d_zip, d_tax, d_ytd, d_next_o_id) VALUES " ..
      "(%d, %d, '%s', %s, %.4f, 30000.00, %d)", w, d, letters(6, 10),
      address(), rand(0, 2000) / 10000, CUSTOMERS + 1))
    load_customers(con, w, d)
    load_orders(con, w, d)
  end
end

M.DISTRICTS, M.CUSTOMERS, M.UNDELIVERED, M.ITEMS =
  DISTRICTS, CUSTOMERS, UNDELIVERED, ITEMS
M.C_LAST_RUN, M.C_ID, M.C_ITEM = C_LAST_RUN, C_ID, C_ITEM
M.nurand, M.last_name, M.money = nurand, last_name, money
M.TABLES, M.create_tables = TABLES, create_tables
M.load_items, M.load_warehouse = load_items, load_warehouse
return M
