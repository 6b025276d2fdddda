"""bench/workloads/tpcc_like.lua without sysbench or a server: the script
runs in LuaJIT (the library sysbench itself links, through ctypes) under a
stand-in for sysbench's Lua API whose connection executes every statement
on an in-memory SQLite database (MySQL's FOR UPDATE, ENGINE and secondary
KEY clauses taken out).  Checked: prepare loads the specification's rows
per warehouse, every transaction of the mix runs and leaves the database
consistent, 1 % of New-Orders roll back, and an ignorable error (sysbench's
restart error, e.g. a deadlock) rolls the transaction back and retries the
same transaction.  MySQL's own syntax and locking are not checked here: a
run against a server does that (bench/README.md, tpcc).

Run: python3 -m unittest discover -s bench/tests -v
"""

import ctypes
import ctypes.util
import os
import re
import sqlite3
import unittest

import fakes

WORKLOAD = os.path.join(fakes.BENCH, "workloads", "tpcc_like.lua")
WAREHOUSES = 2      # run on 2: remote payments and supply warehouses; prepare loads 1, copied
# The columns holding a warehouse number, set to 2 in the copy.
WAREHOUSE_COLUMNS = {"w_id", "d_w_id", "c_w_id", "h_c_w_id", "h_w_id", "o_w_id", "no_w_id", "ol_w_id",
                     "ol_supply_w_id", "s_w_id"}


def find_luajit():
    for name in ("libluajit-5.1.so.2", ctypes.util.find_library("luajit-5.1")):
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            pass
    return None


LJ = find_luajit()
LUA_GLOBALSINDEX = -10002
CFUNC = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)

# sysbench's Lua API as far as the workload uses it; con:query calls
# py_query (Python, below), which returns rows, nothing, or (nil, why).
PRELUDE = r"""
math.randomseed(69)
sysbench = {cmdline = {PARALLEL_COMMAND = true}, opt = {threads = 1}, tid = 0,
            hooks = {}, error = {RESTART_EVENT = 2}}
sysbench.rand = {
  uniform = function(a, b) return math.random(a, b) end,
  string = function(fmt) return fmt end,
}
local con_mt = {}
con_mt.__index = con_mt
function con_mt:query(sql)
  local rows, err = py_query(sql)
  if err == "restart" then
    error({errcode = sysbench.error.RESTART_EVENT, sql_errno = 1213, query = sql})
  elseif err then
    error(err)
  end
  if rows == nil then return nil end
  local i = 0
  return {nrows = #rows, nfields = rows.nfields,
          fetch_row = function() i = i + 1; return rows[i] end}
end
function con_mt:query_row(sql)
  local rs = self:query(sql)
  if rs == nil or rs.nrows == 0 then return nil end
  return unpack(rs:fetch_row(), 1, rs.nfields)
end
function con_mt:bulk_insert_init(q) self.head, self.rows = q, {} end
function con_mt:bulk_flush()
  if #self.rows > 0 then
    self:query(self.head .. " " .. table.concat(self.rows, ","))
    self.rows = {}
  end
end
function con_mt:bulk_insert_next(v)
  self.rows[#self.rows + 1] = v
  if #self.rows >= 400 then self:bulk_flush() end
end
function con_mt:bulk_insert_done() self:bulk_flush() end
function con_mt:disconnect() end
sysbench.sql = {driver = function()
  return {connect = function() return setmetatable({}, con_mt) end}
end}

-- sysbench's thread_run(): an event restarted on the restart error
function run_events(n)
  for _ = 1, n do
    repeat
      local ok, err = pcall(event)
      if not ok and not (type(err) == "table" and
                         err.errcode == sysbench.error.RESTART_EVENT) then
        error(err, 0)
      end
    until ok
  end
end
"""


def to_sqlite(sql):
    """MySQL's statement as SQLite takes it (same meaning for this check)."""
    sql = sql.replace(" FOR UPDATE", "").replace(" ENGINE=InnoDB", "")
    sql = re.sub(r",\s*KEY \w+ \([^)]*\)", "", sql)
    sql = sql.replace("h_id BIGINT NOT NULL AUTO_INCREMENT", "h_id INTEGER PRIMARY KEY AUTOINCREMENT")
    sql = re.sub(r",\s*PRIMARY KEY \(h_id\)", "", sql)
    if sql.startswith("CREATE TABLE") and "AUTOINCREMENT" not in sql:
        sql += " WITHOUT ROWID"        # one B-tree, as InnoDB's clustered index: a faster load
    return sql


class Lua:
    """A LuaJIT state with the stand-in sysbench, its statements on SQLite."""

    def __init__(self):
        P, I, S = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
        for f, res, args in (("luaL_newstate", P, []), ("luaL_openlibs", None, [P]), ("lua_close", None, [P]),
                             ("luaL_loadstring", I, [P, S]), ("luaL_loadfile", I, [P, S]),
                             ("lua_pcall", I, [P, I, I, I]), ("lua_settop", None, [P, I]),
                             ("lua_tolstring", S, [P, I, P]), ("lua_pushcclosure", None, [P, CFUNC, I]),
                             ("lua_setfield", None, [P, I, S]), ("lua_createtable", None, [P, I, I]),
                             ("lua_pushlstring", None, [P, S, ctypes.c_size_t]), ("lua_pushstring", None, [P, S]),
                             ("lua_pushnil", None, [P]), ("lua_pushinteger", None, [P, ctypes.c_ssize_t]),
                             ("lua_rawseti", None, [P, I, I]), ("lua_rawset", None, [P, I])):
            getattr(LJ, f).restype = res
            getattr(LJ, f).argtypes = args
        self.L = ctypes.c_void_p(LJ.luaL_newstate())
        LJ.luaL_openlibs(self.L)
        self.db = sqlite3.connect(":memory:", isolation_level=None)
        self.db.create_function("NOW", 0, lambda: "2026-01-01 00:00:00")
        self.statements = []
        self.restart_at = None      # fail the statement with this number with the restart error
        self._query = CFUNC(self.query)
        LJ.lua_pushcclosure(self.L, self._query, 0)
        LJ.lua_setfield(self.L, LUA_GLOBALSINDEX, b"py_query")
        self.run(PRELUDE)

    def close(self):
        LJ.lua_close(self.L)
        self.db.close()

    def query(self, L):
        L = ctypes.c_void_p(L)
        sql = LJ.lua_tolstring(L, 1, None).decode()
        self.statements.append(sql)
        if self.restart_at is not None and len(self.statements) == self.restart_at:
            LJ.lua_pushnil(L)
            LJ.lua_pushstring(L, b"restart")
            return 2
        try:
            cur = self.db.execute(to_sqlite(sql))
            rows = cur.fetchall() if cur.description else None
        except sqlite3.Error as e:
            LJ.lua_pushnil(L)
            LJ.lua_pushstring(L, ("%s: %s" % (e, sql)).encode())
            return 2
        if rows is None:
            return 0
        LJ.lua_createtable(L, len(rows), 1)
        for i, r in enumerate(rows, 1):
            LJ.lua_createtable(L, len(r), 0)
            for j, v in enumerate(r, 1):
                if v is None:
                    LJ.lua_pushnil(L)
                else:
                    b = str(v).encode()
                    LJ.lua_pushlstring(L, b, len(b))
                LJ.lua_rawseti(L, -2, j)
            LJ.lua_rawseti(L, -2, i)
        LJ.lua_pushstring(L, b"nfields")
        LJ.lua_pushinteger(L, len(cur.description))
        LJ.lua_rawset(L, -3)
        return 1

    def run(self, code, path=None):
        rc = LJ.luaL_loadfile(self.L, path.encode()) if path else LJ.luaL_loadstring(self.L, code.encode())
        if rc == 0:
            rc = LJ.lua_pcall(self.L, 0, 0, 0)
        if rc != 0:
            msg = LJ.lua_tolstring(self.L, -1, None)
            LJ.lua_settop(self.L, 0)
            raise AssertionError("Lua: %s" % (msg.decode() if msg else rc))

    def copy_warehouse(self, w=1, to=2):
        """Warehouse `w`'s rows again as warehouse `to` (SQLite alone: a
        second load would take seconds)."""
        for table in ("warehouse", "district", "customer", "history", "orders", "new_order", "order_line",
                      "stock"):
            cols = [r[1] for r in self.db.execute("PRAGMA table_info(%s)" % table)]
            key = next(c for c in cols if c in WAREHOUSE_COLUMNS)
            sel = [str(to) if c in WAREHOUSE_COLUMNS else "NULL" if c == "h_id" else c for c in cols]
            self.db.execute("INSERT INTO %s SELECT %s FROM %s WHERE %s = %d" % (table, ", ".join(sel), table, key, w))

    def count(self, table, where="1"):
        return self.db.execute("SELECT COUNT(*) FROM %s WHERE %s" % (table, where)).fetchone()[0]

    def one(self, sql):
        return self.db.execute(sql).fetchone()


@unittest.skipUnless(LJ is not None, "needs LuaJIT's library (sysbench's libluajit-5.1)")
class TpccLike(unittest.TestCase):
    """One prepared database for every test: prepare's warehouse 1, and a
    copy of it as warehouse 2."""

    @classmethod
    def setUpClass(cls):
        cls.lua = Lua()
        cls.lua.run(None, WORKLOAD)
        cls.lua.run("sysbench.opt.warehouses = 1")
        cls.lua.run("cmd_prepare()")
        cls.loaded = {t: cls.lua.count(t) for t in ("warehouse", "district", "customer", "history", "orders",
                                                     "new_order", "order_line", "item", "stock")}
        cls.lua.copy_warehouse()
        cls.orders = cls.lua.count("orders")
        cls.lua.run("sysbench.opt.warehouses = %d" % WAREHOUSES)
        cls.lua.run("thread_init()")

    @classmethod
    def tearDownClass(cls):
        cls.lua.close()

    def test_options_and_commands(self):
        self.lua.run('assert(sysbench.cmdline.options.warehouses[2] == 10)')
        self.lua.run('assert(sysbench.cmdline.commands.prepare[1] == cmd_prepare)')
        self.lua.run('assert(sysbench.cmdline.commands.prepare[2] == sysbench.cmdline.PARALLEL_COMMAND)')
        self.lua.run('assert(type(cleanup) == "function" and type(event) == "function")')
        self.lua.run('assert(type(sysbench.hooks.report_intermediate) == "function")')   # steady_common

    def test_prepare_loads_the_specification_rows(self):
        n = self.loaded
        self.assertEqual((n["warehouse"], n["district"], n["customer"], n["history"], n["orders"],
                          n["new_order"], n["item"], n["stock"]),
                         (1, 10, 30000, 30000, 30000, 9000, 100000, 100000))
        # 5..15 lines an order, 10 on average
        self.assertGreaterEqual(n["order_line"], 9.5 * 30000)
        self.assertLessEqual(n["order_line"], 10.5 * 30000)

    def test_loaded_shape(self):
        db = self.lua
        # every last name in every district; each customer has one order
        self.assertEqual(db.one("SELECT COUNT(DISTINCT c_last) FROM customer WHERE c_w_id = 1 AND c_d_id = 3")[0],
                         1000)
        self.assertEqual(db.one("SELECT COUNT(DISTINCT o_c_id) FROM orders WHERE o_w_id = 1 AND o_d_id = 4")[0],
                         3000)
        # the newest 900 orders of a district are undelivered, as in new_order
        self.assertEqual(db.one("SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = 1 AND no_d_id = 1")[0], 2101)
        self.assertEqual(db.count("orders", "o_carrier_id IS NULL AND o_id < 2101"), 0)
        self.assertEqual(db.count("order_line", "ol_delivery_d IS NULL AND ol_o_id < 2101"), 0)
        self.assertEqual(db.one("SELECT MIN(d_next_o_id), MAX(d_next_o_id) FROM district"), (3001, 3001))
        self.assertEqual(db.one("SELECT SUM(o_ol_cnt) FROM orders WHERE o_w_id = 1")[0], self.loaded["order_line"])
        self.assertEqual(db.one("SELECT MIN(LENGTH(s_dist_05)), MAX(LENGTH(s_dist_05)) FROM stock"), (24, 24))
        original = db.count("item", "i_data LIKE '%ORIGINAL%'")
        self.assertGreater(original, 5000)
        self.assertLess(original, 15000)

    def test_the_mix_keeps_the_database_consistent(self):
        db = self.lua
        history = db.count("history")
        first = len(db.statements)
        db.run("run_events(1000)")
        sql = db.statements[first:]
        begins = sum(1 for s in sql if s == "BEGIN")
        ends = sum(1 for s in sql if s in ("COMMIT", "ROLLBACK"))
        self.assertEqual(begins, 1000)                     # one transaction per event
        self.assertEqual(ends, 1000)
        kinds = {"new_order": "INSERT INTO orders", "payment": "UPDATE warehouse SET w_ytd",
                 "order_status": "ORDER BY o_id DESC LIMIT 1", "delivery": "no_d_id = 1 ORDER BY no_o_id",
                 "stock_level": "COUNT(DISTINCT s_i_id)"}
        seen = {k: sum(1 for s in sql if v in s) for k, v in kinds.items()}
        # New-Order 45 %, Payment 43 %, the others 4 % each (1000 events)
        bounds = {"new_order": (380, 520), "payment": (360, 500), "order_status": (15, 70),
                  "delivery": (15, 70), "stock_level": (15, 70)}
        for k, (lo, hi) in bounds.items():
            self.assertGreaterEqual(seen[k], lo, seen)
            self.assertLessEqual(seen[k], hi, seen)
        rollbacks = sum(1 for s in sql if s == "ROLLBACK")
        self.assertGreaterEqual(rollbacks, 1)   # 1 % of New-Orders
        self.assertLessEqual(rollbacks, 15)
        # both warehouses; customers and stock of the other warehouse
        self.assertIn("WHERE w_id = 2", " | ".join(sql))
        paid = [re.search(r"VALUES \((\d+), (\d+), (\d+), (\d+), (\d+), NOW", s).groups()
                for s in sql if s.startswith("INSERT INTO history")]
        self.assertNotEqual([p for p in paid if p[2] != p[4]], [])   # a customer of another warehouse paid
        self.assertGreater(db.count("stock", "s_remote_cnt > 0"), 0)
        self.assertGreater(db.count("orders", "o_all_local = 0"), 0)
        # committed New-Orders: one order, one new_order row, o_ol_cnt lines each
        self.assertEqual(db.one("SELECT SUM(d_next_o_id - 3001) FROM district")[0],
                         db.count("orders") - self.orders)
        self.assertEqual(db.one("SELECT SUM(o_ol_cnt) FROM orders")[0], db.count("order_line"))
        self.assertEqual(db.count("history") - history,
                         sum(1 for s in sql if s.startswith("INSERT INTO history")))
        # an order is undelivered (no carrier) exactly while new_order holds it
        self.assertEqual(db.count("orders", "o_carrier_id IS NULL"), db.count("new_order"))
        # Payment adds its amount to its warehouse and to its district
        self.assertGreater(db.one("SELECT SUM(w_ytd) FROM warehouse")[0], 300000 * WAREHOUSES)
        self.assertEqual(round(db.one("SELECT SUM(w_ytd) FROM warehouse")[0] - 300000 * WAREHOUSES, 2),
                         round(db.one("SELECT SUM(d_ytd) FROM district")[0] - 30000 * 10 * WAREHOUSES, 2))

    def test_restart_error_rolls_back_and_retries_the_same_transaction(self):
        db = self.lua
        db.restart_at = len(db.statements) + 3               # the third statement of the next event
        first = len(db.statements)
        db.run("run_events(1)")
        db.restart_at = None
        sql = db.statements[first:]
        self.assertEqual(sql[0], "BEGIN")
        self.assertEqual(sql[3], "ROLLBACK")                 # what is left of it rolled back
        self.assertEqual(sql[4:7], sql[:3])                  # then the same statements again
        self.assertIn(sql[-1], ("COMMIT", "ROLLBACK"))
        self.assertEqual(sum(1 for s in sql if s == "BEGIN"), 2)


if __name__ == "__main__":
    unittest.main()
