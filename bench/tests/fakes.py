"""The lab tests' fakes (not a test module itself): the fake mysqld and
client of harness/tests/fakes.py, with bench/ (the `lab` package) and the
repository root (the `harness` package) put on sys.path for every test
module that imports this one."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
REPO = os.path.dirname(BENCH)
for _p in (REPO, BENCH):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from harness.tests.fakes import (  # noqa: E402,F401
    FAKE_CLIENT, FAKE_MYSQLD, client_calls, client_queries, kill_quietly, make_build_dir,
    pid_exists, reap_in_background, set_answers, write_script)

__all__ = ["FakeSql", "HERE", "BENCH", "REPO", "FAKE_CLIENT", "FAKE_MYSQLD", "client_calls", "client_queries",
           "kill_quietly", "make_build_dir", "pid_exists", "reap_in_background", "set_answers",
           "write_script"]


class FakeSql:
    """Answers @@global reads from `variables` and the dirty-page count from
    `dirty` (one value per read); records every statement."""

    def __init__(self, variables, dirty=(), fail_after=None, status=None):
        self.variables = variables
        self.dirty = list(dirty)
        self.statements = []
        self.fail_after = fail_after
        # other SHOW GLOBAL STATUS reads: name -> values, one per read (absent: None)
        self.status = {k: list(v) for k, v in (status or {}).items()}

    def value(self, sql, timeout=60):
        self.statements.append(sql)
        if sql.startswith("SELECT @@global."):
            return self.variables.get(sql[len("SELECT @@global."):])
        if sql == "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'":
            if self.fail_after is not None and len(self.statements) > self.fail_after:
                raise RuntimeError("connection lost")
            return self.dirty.pop(0)
        if sql.startswith("SHOW GLOBAL STATUS LIKE '"):
            values = self.status.get(sql.split("'")[1])
            return values.pop(0) if values else None
        raise AssertionError("unexpected " + sql)

    def query(self, sql, timeout=60, check=True):
        self.statements.append(sql)
        if sql == "SHOW GLOBAL VARIABLES":
            return "".join("%s\t%s\n" % kv for kv in sorted(self.variables.items()))
        return ""

    def sets(self):
        return [s for s in self.statements if s.startswith("SET GLOBAL")]
