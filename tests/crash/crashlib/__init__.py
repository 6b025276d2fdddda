"""crash-test's parts (tests/crash/crash-test is the command line):

  common    constants, the harness's errors and output helpers
  server    the server under test: harness.server with crash-test's options
  workload  the ledger of sent/acknowledged ids and the client threads
  verify    what is checked after every restart
  cycle     one kill/restart cycle, --prealloc's scratch table, the cycle line
  selftest  --self-test: faults the verifier must report

The server is started through the shared harness (harness/server.py), the
one place in the project that initialises and starts mysqld.
"""

import os
import sys

# The repository root: the shared harness is importable as `harness` from here on.
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
if _REPO not in sys.path:
    sys.path.insert(0, _REPO)
