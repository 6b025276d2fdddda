"""Constants shared by the harness's parts, its errors and output helpers."""

import hashlib
import os

from harness import proc

EXIT_PASS, EXIT_FAIL, EXIT_ERROR, EXIT_SKIP = 0, 1, 2, 77

DB = "steady_crash"
# Every workload transaction runs with gtid_next='AUTOMATIC:<GTID_TAG>' so the
# GTIDs of the run's transactions are told apart from setup DDL by their tag.
GTID_TAG = "steadycrash"
# --prealloc's scratch-table statements carry their own tag, so they are
# neither workload transactions nor a change of the setup's GTIDs.
PREALLOC_GTID_TAG = "steadyprealloc"
# --xa's XA transactions (the prepare and the commit or rollback each get a
# GTID) carry theirs, checked against the XA ledger.
XA_GTID_TAG = "steadyxa"

# id = cycle * CYCLE_MUL + thread * THREAD_MUL + seq: unique over the whole run,
# and the cycle and thread can be read back from the id alone.
CYCLE_MUL = 10**12
THREAD_MUL = 10**8


class HarnessError(Exception):
    """The harness could not do its job (not a durability failure)."""


def log(msg):
    print(msg, flush=True)


def payload_of(trx_id, table):
    """Content every row carries, checked again in SQL after recovery."""
    return hashlib.sha256(f"{trx_id}:{table}".encode()).hexdigest()


def tail(path, n=15):
    if not os.access(path, os.R_OK):
        return ""
    return f"--- last lines of {path}:\n" + proc.tail(path, n)
