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

__all__ = ["HERE", "BENCH", "REPO", "FAKE_CLIENT", "FAKE_MYSQLD", "client_calls", "client_queries",
           "kill_quietly", "make_build_dir", "pid_exists", "reap_in_background", "set_answers",
           "write_script"]
