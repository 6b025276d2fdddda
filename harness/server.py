"""A server under test: find its binaries, write its my.cnf, initialise a
datadir, start it, wait until it answers, stop or kill it; one-shot SQL.

Works for any of Steady, vanilla (both flavour "mysql", from a build or an
install directory) and MariaDB (flavour "mariadb", e.g. Debian's in /usr).
The one place in the project where mysqld is initialised and started.

Run as a script, gives bash callers the same sequence (see --help):
  python3 harness/server.py find  --server steady      # MYSQLD=, CLIENT=, ...
  python3 harness/server.py init  --server steady --datadir D --log-error F -- [mysqld options]
  python3 harness/server.py start --server steady --datadir D --log-error F --socket S -- [...]
  python3 harness/server.py stop  --pid N [--socket S --how sql|term|kill]
"""

import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

if __name__ == "__main__" and __package__ is None:   # run as a script
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "harness"

from . import paths  # noqa: E402
from .proc import in_cgroup, niced, pid_running, run_cmd, spawn, tail  # noqa: E402

FLAVOURS = ("mysql", "mariadb")

# Where each piece lives: build dir first, then install layouts.
# (mysqld, client, plugin dir, message files)
MYSQL_LAYOUTS = [
    ("runtime_output_directory/mysqld", "runtime_output_directory/mysql",
     "plugin_output_directory", "share"),
    ("bin/mysqld", "bin/mysql", "lib/plugin", "share"),
    ("sbin/mysqld", "bin/mysql", "lib/plugin", "share"),
]

BUILD_HINTS = {"steady": "build it: make build (scripts/build)",
               "vanilla": "build it: make vanilla (scripts/build --vanilla)",
               "mariadb": "install it: bench/install-deps"}


class ServerError(Exception):
    """The server cannot be run as asked (missing binary, bad flavour)."""


class ServerDown(Exception):
    """mysqld exited, or did not answer in time, while starting.

    exit_status: the exit status of mysqld (or of the initialisation) when it
    exited, None when it timed out (and was killed)."""

    exit_status = None


def _down(message, exit_status=None):
    e = ServerDown(message)
    e.exit_status = exit_status
    return e


class SqlError(RuntimeError):
    """A statement failed; the message carries the client's error."""


def default_servers():
    """Built-in servers: name -> (flavour, path)."""
    return {"steady": ("mysql", paths.build_dir("steady")),
            "vanilla": ("mysql", paths.build_dir("vanilla")),
            "mariadb": ("mariadb", "/usr")}


def detect(name, path):
    """Binaries of the server at `path` (build dir, install dir or the binary)
    whose flavour is not given: read from its --version (MariaDB's mysqld, also
    when installed as mysqld, names itself).  mysqld is None if none is there."""
    b = Binaries(name, "mysql", path)
    if b.mysqld:
        if "mariadb" in b.version().lower():
            return Binaries(name, "mariadb", b.mysqld)
        return b
    m = Binaries(name, "mariadb", path)
    return m if m.mysqld else b


def from_spec(spec):
    """A server named on a command line: steady, vanilla, mariadb
    (default_servers) or FLAVOUR:PATH."""
    table = default_servers()
    if spec in table:
        return Binaries(spec, *table[spec])
    if ":" in spec and spec.split(":", 1)[0] in FLAVOURS:
        flavour, path = spec.split(":", 1)
        return Binaries(path, flavour, path)
    raise ServerError("unknown server %r: %s, or FLAVOUR:PATH (flavours: %s)" % (
        spec, ", ".join(table), ", ".join(FLAVOURS)))


class Binaries:
    """Where one server's programs and files are.

    path: a build dir, an install dir, or the server binary itself.
    """

    def __init__(self, name, flavour, path):
        if flavour not in FLAVOURS:
            raise ServerError("server %s: unknown flavour %r (valid: %s)" % (name, flavour, ", ".join(FLAVOURS)))
        self.name = name
        self.flavour = flavour
        self.path = os.path.abspath(os.path.expanduser(path))
        self.mysqld = self.client = self.plugin_dir = self.lc_messages_dir = self.install_db = None
        if flavour == "mysql":
            self._find_mysql()
        else:
            self._find_mariadb()
        if not (self.client and os.access(self.client, os.X_OK)):
            # Any MySQL-protocol client will do; prefer the server's own.
            self.client = shutil.which("mariadb") or shutil.which("mysql")

    def _find_mysql(self):
        p = self.path
        if os.path.isfile(p):                      # the mysqld binary itself
            self.mysqld = p
            p = self.path = os.path.dirname(os.path.dirname(p))
        for mysqld, client, plugins, share in MYSQL_LAYOUTS:
            if os.path.isfile(os.path.join(p, mysqld)):
                self.mysqld = os.path.join(p, mysqld)
                self.client = os.path.join(p, client)
                self.plugin_dir = os.path.join(p, plugins)
                self.lc_messages_dir = os.path.join(p, share)
                break
        self.basedir = p
        self.build_tree = os.path.isdir(os.path.join(p, "runtime_output_directory"))

    def _find_mariadb(self):
        p = self.path
        if os.path.isfile(p):
            self.mysqld = p
            p = os.path.dirname(os.path.dirname(p))
        else:
            self.mysqld = next((x for x in (os.path.join(p, "sbin/mariadbd"), os.path.join(p, "bin/mariadbd"))
                                if os.path.isfile(x)), None)
        self.path = self.basedir = p
        self.build_tree = False
        self.client = os.path.join(p, "bin/mariadb")
        self.install_db = os.path.join(p, "bin/mariadb-install-db")
        # Debian ships the message files under share/mysql, upstream share/mariadb.
        self.lc_messages_dir = next((d for d in (os.path.join(p, "share/mariadb"), os.path.join(p, "share/mysql"))
                                     if os.path.isdir(os.path.join(d, "english"))), None)

    def check(self, hint_name=None):
        """Raise ServerError, with what to do, if this server cannot run."""
        if not self.mysqld or not os.access(self.mysqld, os.X_OK):
            hint = BUILD_HINTS.get(hint_name or self.name, "")
            raise ServerError("server %s (%s): no server binary under %s%s" % (
                self.name, self.flavour, self.path, ("; " + hint) if hint else ""))
        if not self.client:
            raise ServerError("server %s: no mysql/mariadb client found (bench/install-deps)" % self.name)
        if self.flavour == "mariadb" and not os.access(self.install_db or "", os.X_OK):
            raise ServerError("server %s: no %s (bench/install-deps)" % (self.name, self.install_db))

    def version(self):
        try:
            return run_cmd([self.mysqld, "--no-defaults", "--version"], check=False, timeout=60).stdout.strip()
        except (OSError, subprocess.TimeoutExpired) as e:
            return "unknown (%s)" % e

    def location_options(self):
        """basedir, message files and plugin dir as (option, value) pairs."""
        o = [("basedir", self.basedir)]
        if self.lc_messages_dir:
            o.append(("lc-messages-dir", self.lc_messages_dir))
        if self.plugin_dir and os.path.isdir(self.plugin_dir):
            o.append(("plugin-dir", self.plugin_dir))
        return o


def merge_options(base, extra):
    """(option, value) pairs; a later option replaces an earlier one of the
    same name (dashes and underscores are the same)."""
    out = list(base)
    for k, v in extra:
        key = k.replace("-", "_")
        out = [x for x in out if x[0].replace("-", "_") != key]
        out.append((k, v))
    return out


def render_cnf(options, writer):
    """my.cnf text: one [mysqld] group; value None writes a bare flag."""
    lines = ["# written by %s" % writer, "[mysqld]"]
    lines += [k if v is None else "%s=%s" % (k, v) for k, v in options]
    return "\n".join(lines) + "\n"


def as_args(options):
    """(option, value) pairs as mysqld command-line arguments."""
    return ["--" + k if v is None else "--%s=%s" % (k, v) for k, v in options]


def side_by_side_options():
    """No X Protocol listener: the lab's servers run side by side, and each X
    plugin would claim port 33060 and /tmp/mysqlx.sock. loose-: MariaDB and
    builds without the X plugin ignore it."""
    return [("loose-mysqlx", "OFF")]


def root_user_options():
    """mysqld refuses to run as root unless told to."""
    return [("user", "root")] if os.geteuid() == 0 else []


class Sql:
    """One-shot SQL through the command-line client, over the socket."""

    def __init__(self, client, socket):
        self.client = client
        self.socket = socket

    def base(self):
        return [self.client, "--no-defaults", "--user=root", "--socket=" + self.socket]

    def query(self, sql, timeout=60, check=True):
        """stdout (tab-separated, no header) of `sql`; None on error if not check."""
        p = subprocess.run(self.base() + ["-N", "-B", "-e", sql], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=timeout)
        if check and p.returncode != 0:
            raise SqlError("query %r failed: %s" % (sql[:300], p.stderr.strip()))
        return p.stdout if p.returncode == 0 else None

    def rows(self, sql, timeout=None):
        """Result rows as lists of strings; raises SqlError."""
        return [line.split("\t") for line in self.query(sql, timeout=timeout).splitlines()]

    def value(self, sql, timeout=60):
        """Last column of the first row, or None (also on error)."""
        out = self.query(sql, timeout=timeout, check=False)
        if out is None:
            return None
        lines = out.strip().splitlines()
        return lines[0].split("\t")[-1] if lines else None

    def answers(self, timeout=30):
        try:
            return self.query("SELECT 1", timeout=timeout, check=False) is not None
        except subprocess.TimeoutExpired:
            return False


class Instance:
    """One mysqld on one datadir, started as our child in its own session
    (never daemonised by mysqld itself), so its pid is the one we signal.

    args: the options mysqld gets, e.g. ["--defaults-file=/x/my.cnf"] or
    ["--no-defaults", "--datadir=...", ...]; datadir and socket are what they
    say (the instance waits on the socket).  record(pid, what), if given, is
    told every process started (harness.resources.Resources.record_pid).
    env: variables set for mysqld (and the initialisation) only, e.g.
    LD_PRELOAD, not for the clients that poll it.
    """

    def __init__(self, binaries, args, datadir, socket, errlog, outlog,
                 cgroup=None, nice=0, record=None, init_log=None, env=None):
        if len(socket) > 100:
            raise ServerError("socket path too long for a unix socket: %s" % socket)
        self.b = binaries
        self.args = list(args)
        self.datadir = datadir
        self.socket = socket
        self.errlog = errlog
        self.outlog = outlog
        self.init_log = init_log or outlog
        self.cgroup = cgroup
        self.nice = nice
        self.record = record or (lambda pid, what: None)
        self.env = env
        self.proc = None
        self.sql = Sql(binaries.client, socket)

    def _spawn(self, cmd, what, logfile):
        p = spawn(in_cgroup(niced(cmd, self.nice), self.cgroup), logfile, env=self.env)
        self.record(p.pid, what)
        return p

    def initialize_cmd(self):
        if self.b.flavour == "mysql":
            return [self.b.mysqld] + self.args + ["--initialize-insecure"]
        defaults = [a for a in self.args[:1] if a.startswith(("--defaults-file=", "--no-defaults"))]
        return [self.b.install_db] + defaults + [
            "--basedir=" + self.b.basedir, "--datadir=" + self.datadir,
            "--auth-root-authentication-method=normal", "--skip-test-db"] + \
            ["--%s=%s" % kv for kv in root_user_options()]

    def initialize(self, timeout=900):
        """Make a fresh datadir; returns seconds taken.  Raises ServerDown."""
        if self.b.flavour == "mariadb":
            os.makedirs(self.datadir, exist_ok=True)
        t0 = time.monotonic()
        p = self._spawn(self.initialize_cmd(), "initialize", self.init_log)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise _down("datadir initialisation took over %d s" % timeout)
        if rc != 0:
            raise _down("datadir initialisation failed (exit %d):\n%s%s" % (
                rc, tail(self.init_log), tail(self.errlog)), rc)
        return time.monotonic() - t0

    def start(self, timeout=600, poll=0.2):
        """Start mysqld and wait until it answers SQL; returns seconds taken.
        Raises ServerDown if it exits or stays silent past `timeout`."""
        t0 = time.monotonic()
        self.proc = self._spawn([self.b.mysqld] + self.args, "mysqld", self.outlog)
        while True:
            if self.proc.poll() is not None:
                raise _down("mysqld exited with status %s while starting:\n%s" % (
                    self.proc.returncode, tail(self.errlog)), self.proc.returncode)
            if os.path.exists(self.socket) and self.sql.answers():
                return time.monotonic() - t0
            if time.monotonic() - t0 > timeout:
                self.kill()
                raise _down("mysqld did not answer within %d s:\n%s" % (timeout, tail(self.errlog)))
            time.sleep(poll)

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        """SIGKILL, and reap."""
        if self.alive():
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self, timeout=300, discard=False, how="term"):
        """Clean shutdown: SIGTERM (how="term") or the SHUTDOWN statement
        (how="sql"); discard=True skips the shutdown flush (the datadir is
        thrown away).  Kills it after `timeout` s.  Returns True if it stopped
        by itself."""
        if not self.alive():
            return True
        if discard:
            self.sql.query("SET GLOBAL innodb_fast_shutdown=2", check=False, timeout=30)
        if how == "sql":
            self.sql.query("SHUTDOWN", check=False, timeout=timeout)
        else:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            self.kill()
            return False


def stop_pid(pid, timeout=300, how="term", sql=None, poll=0.5):
    """Stop a mysqld that is not our child (known by a pid file or a pid
    printed earlier): SIGTERM (how="term"), the SHUTDOWN statement through
    `sql`, a Sql (how="sql"), or SIGKILL (how="kill"); then wait until it is
    gone.  Returns True if it went within `timeout` s; it is left running
    otherwise (the caller decides)."""
    if not pid_running(pid):
        return True
    try:
        if how == "sql":
            sql.query("SHUTDOWN", check=False, timeout=timeout)
        else:
            os.kill(pid, signal.SIGKILL if how == "kill" else signal.SIGTERM)
    except ProcessLookupError:
        return True
    except subprocess.TimeoutExpired:
        pass
    t0 = time.monotonic()
    while pid_running(pid):
        if time.monotonic() - t0 > timeout:
            return False
        time.sleep(poll)
    return True


# -- command line for bash callers -------------------------------------------

def _cli_parser():
    ap = argparse.ArgumentParser(
        prog="harness/server.py", description=__doc__.split("\n\n")[0],
        epilog="init and start run mysqld with --no-defaults, the server's basedir, message "
               "and plugin dirs, --datadir, --log-error, --socket (start), --user=root as "
               "root, then every option after '--'.  start leaves mysqld running in its own "
               "session and prints PID=N; exit status 0 up, 1 mysqld exited while starting, "
               "3 it did not answer within --timeout (it is killed), 77 no server binary, "
               "2 usage.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    server_help = ("steady, vanilla, mariadb or FLAVOUR:PATH (default steady: %s)"
                   % paths.build_dir("steady"))
    f = sub.add_parser("find", help="print FLAVOUR=, MYSQLD=, CLIENT=, BASEDIR= as shell "
                                    "assignments (MYSQLD: where it should be, if missing)")
    f.add_argument("--server", default="steady", help=server_help)
    for name, what in (("init", "make a fresh datadir"),
                       ("start", "start mysqld and wait until it answers SQL")):
        p = sub.add_parser(name, help=what + "; mysqld options after '--'")
        p.add_argument("--server", default="steady", help=server_help)
        p.add_argument("--datadir", required=True)
        p.add_argument("--log-error", required=True, dest="log_error", help="mysqld's error log")
        p.add_argument("--out", help="mysqld's stdout and stderr (default: mysqld.out next to "
                                     "the error log)")
        p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                       help="environment variable for mysqld only (repeatable), e.g. LD_PRELOAD")
        p.add_argument("--timeout", type=float, default=900 if name == "init" else 600,
                       help="seconds (default %d)" % (900 if name == "init" else 600))
        p.add_argument("--quiet", action="store_true", help="no message on failure (exit status only)")
        if name == "start":
            p.add_argument("--socket", required=True)
    s = sub.add_parser("stop", help="stop a mysqld by its pid and wait until it is gone "
                                    "(killed after --timeout: exit 1)")
    s.add_argument("--pid", type=int, required=True)
    s.add_argument("--how", choices=("term", "sql", "kill"), default="term",
                   help="SIGTERM (default), SHUTDOWN through --socket, or SIGKILL")
    s.add_argument("--socket", help="for --how sql")
    s.add_argument("--server", default="steady", help="whose client runs SHUTDOWN (--how sql)")
    s.add_argument("--timeout", type=float, default=300, help="seconds (default 300)")
    return ap


def _cli(argv):
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = _cli_parser()
    a = ap.parse_args(argv)
    try:
        b = from_spec(a.server)
    except ServerError as e:
        ap.error(str(e))
    if a.cmd == "find":
        mysqld = b.mysqld or os.path.join(b.path, MYSQL_LAYOUTS[0][0] if b.flavour == "mysql"
                                          else "sbin/mariadbd")
        for k, v in (("FLAVOUR", b.flavour), ("MYSQLD", mysqld), ("CLIENT", b.client or ""),
                     ("BASEDIR", b.basedir)):
            print("%s=%s" % (k, shlex.quote(v)))
        return 0
    if a.cmd == "stop":
        if a.how == "sql" and not a.socket:
            ap.error("--how sql needs --socket")
        sql = Sql(b.client, a.socket) if a.how == "sql" else None
        if stop_pid(a.pid, a.timeout, a.how, sql):
            return 0
        stop_pid(a.pid, 60, "kill")
        print("server.py: mysqld (pid %d) did not stop in %g s; killed it" % (a.pid, a.timeout),
              file=sys.stderr)
        return 1
    try:
        b.check()
    except ServerError as e:
        print("server.py: %s" % e, file=sys.stderr)
        return 77
    env = dict(kv.split("=", 1) for kv in a.env if "=" in kv)
    # mysqld reads a relative path against its basedir, not our directory.
    a.datadir, a.log_error = os.path.abspath(a.datadir), os.path.abspath(a.log_error)
    if a.cmd == "start":
        a.socket = os.path.abspath(a.socket)
    opts = [("datadir", a.datadir), ("log-error", a.log_error)]
    if a.cmd == "start":
        opts.append(("socket", a.socket))
    args = ["--no-defaults"] + as_args(b.location_options() + side_by_side_options() + opts
                                       + root_user_options()) + extra
    out = os.path.abspath(a.out) if a.out else os.path.join(os.path.dirname(a.log_error), "mysqld.out")
    try:
        inst = Instance(b, args, a.datadir, a.socket if a.cmd == "start" else "", a.log_error, out,
                        env=env)
        if a.cmd == "init":
            inst.initialize(timeout=a.timeout)
            return 0
        inst.start(timeout=a.timeout)
    except (ServerError, ServerDown) as e:
        if not a.quiet:
            print("server.py: %s" % e, file=sys.stderr)
        return 3 if isinstance(e, ServerDown) and e.exit_status is None and a.cmd == "start" else 1
    print("PID=%d" % inst.pid)
    return 0


if __name__ == "__main__":
    sys.exit(_cli(sys.argv[1:]))
