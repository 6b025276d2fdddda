"""One mtr run per build at a time.

mtr writes into the build it runs from, not only into its --vardir: at
startup it creates the global keyring manifest
(runtime_output_directory/mysqld.my) and the components' global configs
(plugin_output_directory/component_*.cnf), and at exit it removes them.
A second mtr run on the same build, even with another vardir, therefore
pulls those files from under the first: every keyring test of the first
run that starts after the second one ends fails at its setup
(`--copy_file` of a file that is gone), with no diagnostics in mtr's
output.  Seen on 2026-11-28 in the clone big tests on the debug build
(docs/upstream/2026-11-28-clone-big-debug/README.md).

locked(mysql_test_dir) holds an exclusive flock(2) on
MYSQL_TEST_DIR/.steady-mtr.lock for as long as the run lasts; a second
holder waits, saying so once.  scripts/run-tests takes the same lock with
flock(1), so make test and this tool wait for each other too.
"""

import contextlib
import fcntl
import os

LOCK_NAME = ".steady-mtr.lock"


def lock_path(mysql_test_dir):
    return os.path.join(mysql_test_dir, LOCK_NAME)


@contextlib.contextmanager
def locked(mysql_test_dir, say):
    """Hold the build's mtr lock; say(text) once if another run holds it."""
    path = lock_path(mysql_test_dir)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say("another mtr run holds %s (mtr shares the build's keyring manifest); waiting for it to end" % path)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield path
    finally:
        os.close(fd)
