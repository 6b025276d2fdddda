"""Shared by the tests of scripts/upstream-suites: the script loaded as a
module (U), and sample mtr logs of a Steady and a vanilla run.

Tests: test_upstream_mtrlog.py (parsing, CSV), test_upstream_cli.py (diff,
diff.md, command line). Run: python3 -m unittest discover -s scripts/tests -v
"""

import importlib.machinery
import importlib.util
import os
import sys
import unittest

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(SCRIPTS, "upstream-suites")


def load_script():
    """The script has no .py suffix: load it by path, without writing a
    .pyc next to it."""
    loader = importlib.machinery.SourceFileLoader("upstream_suites_under_test", SCRIPT)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        loader.exec_module(mod)
    finally:
        sys.dont_write_bytecode = saved
    return mod


U = load_script()

# A Steady run in mtr's own format (lib/mtr_report.pm): combinations, a
# skip before any worker took the test (no worker tag), disabled, fails
# with their diagnostics, a fail then retry-pass, a fail then retry-fail,
# a test run without worker tag (--parallel=1), a timestamped line, the
# shutdown_report pseudo-test and the summary.
STEADY_LOG = """\
Logging: /root/.cache/steady/tree/steady/mysql-test/mysql-test-run.pl  --suite=binlog,innodb,main,sys_vars --vardir=/root/.cache/steady/upstream-var/steady --force --retry=0 --max-test-fail=0 --parallel=2
MySQL Version 9.7.2
Checking supported features
Using suites: binlog,innodb,main,sys_vars
Collecting tests
 - Adding combinations for binlog
Removing old var directory
Creating var directory '/root/.cache/steady/upstream-var/steady'
Installing system database
Using parallel: 2

==============================================================================
                  TEST NAME                   WORKER RESULT  TIME (ms) COMMENT
------------------------------------------------------------------------------
worker[1] mysql-test-run: WARNING: running this script as _root_ will cause some tests to be skipped
[  4%] binlog.binlog_foo 'mix'                  [ skipped ]  Doesn't support --binlog-format = 'mixed'
[  8%] binlog.binlog_foo 'row'                  w1  [ pass ]   2531
[ 12%] binlog.binlog_foo 'stmt'                 w2  [ pass ]   2210
[ 16%] main.x                                   [ disabled ]  Bug#12345 fails when the moon is full
[ 20%] innodb.bar                               w2  [ fail ]
        Test ended at 2026-11-24 11:02:03

CURRENT_TEST: innodb.bar
mysqltest: At line 32: Query 'SELECT * FROM t9' failed.
ERROR 1146 (42S02): Table 'test.t9' doesn't exist
The result from queries just before the failure was:
CREATE TABLE t1 (a INT) ENGINE=InnoDB;
safe_process[12345]: Child process: 12346, exit: 1

 - the logfile can be found in '/root/.cache/steady/upstream-var/steady/log/innodb.bar/bar.log'

[ 24%] innodb.flaky                             w1  [ fail ]
        Test ended at 2026-11-24 11:02:09

CURRENT_TEST: innodb.flaky
--- /root/.cache/steady/tree/steady/mysql-test/suite/innodb/r/flaky.result	2026-11-24 10:00:00
+++ /root/.cache/steady/upstream-var/steady/log/flaky.reject	2026-11-24 11:02:09
@@ -1,2 +1,2 @@
-a
+b
mysqltest: Result content mismatch

[ 24%] innodb.flaky                             w1  [ retry-pass ]   1200
[ 28%] innodb.warn                              w2  [ fail ]  Found warnings/errors in error log file!
        Test ended at 2026-11-24 11:05:00
line
2026-11-24T11:04:59.123456Z 0 [ERROR] [MY-012345] [InnoDB] Something bad happened
^ Found warnings in /root/.cache/steady/upstream-var/steady/log/mysqld.1.err
ok

[ 32%] innodb.slow                              w1  [ fail ]  timeout after 900 seconds
        Test ended at 2026-11-24 11:20:00

Test case timeout after 900 seconds

[ 36%] innodb.retried                           w2  [ fail ]
        Test ended at 2026-11-24 11:21:00

CURRENT_TEST: innodb.retried
mysqltest: At line 1: first try
[ 36%] innodb.retried                           w2  [ retry-fail ]
        Test ended at 2026-11-24 11:21:30

CURRENT_TEST: innodb.retried
mysqltest: At line 2: second try
[ 40%] innodb.big_one                           [ skipped ]  Test needs 'big-test' or 'only-big-test' option.
[ 44%] innodb.only_skipped_on_steady            w1  [ skipped ]  Requires a feature Steady lacks
[ 48%] sys_vars.innodb_adaptive_flushing_io_device_basic w2  [ pass ]      6
[ 52%] main.no_worker                           [ pass ]     33
261124 11:22:01 [ 56%] main.stamped                           w1  [ pass ]      5
[100%] shutdown_report                          w0  [ pass ]       
------------------------------------------------------------------------------
The servers were restarted 9 times
The servers were reinitialized 0 times
Spent 138.218 of 412 seconds executing testcases

Completed: Failed 5/11 tests, 54.55% were successful.

Failing test(s): innodb.bar innodb.flaky innodb.retried innodb.slow innodb.warn

The log files in var/log may give you some hint of what went wrong.

2 tests were skipped, 1 by the test itself.

mysql-test-run: *** ERROR: there were failing test cases
upstream-suites: mtr exit status 1, wall time 415.5 s
"""

# Vanilla on the same suites: innodb.bar passes here (fails only on
# Steady), innodb.only_skipped_on_steady passes (skipped only on Steady),
# innodb.warn fails on both, main.only_vanilla_fails fails only here, and
# Steady's own new sys_vars test does not exist.
VANILLA_LOG = """\
==============================================================================
------------------------------------------------------------------------------
[  4%] binlog.binlog_foo 'mix'                  [ skipped ]  Doesn't support --binlog-format = 'mixed'
[  8%] binlog.binlog_foo 'row'                  w1  [ pass ]   2500
[ 12%] binlog.binlog_foo 'stmt'                 w2  [ pass ]   2200
[ 16%] main.x                                   [ disabled ]  Bug#12345 fails when the moon is full
[ 20%] innodb.bar                               w2  [ pass ]   4100
[ 24%] innodb.flaky                             w1  [ pass ]   1100
[ 28%] innodb.warn                              w2  [ fail ]  Found warnings/errors in error log file!
        Test ended at 2026-11-24 12:05:00
line
2026-11-24T12:04:59.123456Z 0 [ERROR] [MY-012345] [InnoDB] Something bad happened
^ Found warnings in /root/.cache/steady/upstream-var/vanilla/log/mysqld.1.err
ok

[ 32%] innodb.slow                              w1  [ pass ]  80000
[ 36%] innodb.retried                           w2  [ pass ]    900
[ 40%] innodb.big_one                           [ skipped ]  Test needs 'big-test' or 'only-big-test' option.
[ 44%] innodb.only_skipped_on_steady            w1  [ pass ]     77
[ 48%] main.only_vanilla_fails                  w2  [ fail ]
        Test ended at 2026-11-24 12:06:00

CURRENT_TEST: main.only_vanilla_fails
mysqltest: At line 3: vanilla-only trouble
[ 52%] main.no_worker                           [ pass ]     30
[ 56%] main.stamped                             w1  [ pass ]      4
[100%] shutdown_report                          w0  [ pass ]       
------------------------------------------------------------------------------
Completed: Failed 2/12 tests, 83.33% were successful.
upstream-suites: mtr exit status 1, wall time 390.0 s
"""

STEADY_VERDICTS = {
    "binlog.binlog_foo 'mix'": "skipped",
    "binlog.binlog_foo 'row'": "pass",
    "binlog.binlog_foo 'stmt'": "pass",
    "main.x": "disabled",
    "innodb.bar": "fail",
    "innodb.flaky": "pass",
    "innodb.warn": "fail",
    "innodb.slow": "fail",
    "innodb.retried": "fail",
    "innodb.big_one": "skipped",
    "innodb.only_skipped_on_steady": "skipped",
    "sys_vars.innodb_adaptive_flushing_io_device_basic": "pass",
    "main.no_worker": "pass",
    "main.stamped": "pass",
}


def parse(text):
    return U.parse_log(text.splitlines(True))
