"""The server under test: one harness.server.Instance on one datadir, with
crash-test's durable options, its messages, and the moment of every kill."""

import os
import signal
import subprocess
import time

from harness import paths
from harness import server as srv
from harness.proc import proc_start_time

from .common import HarnessError, log, tail


class ServerDown(Exception):
    """mysqld could not be (re)started on the datadir: recovery failed."""


def find_binaries(spec):
    """--server: steady, vanilla, or a basedir (flavour read from --version:
    MariaDB is supported only for developing the harness itself: it has no
    --initialize-insecure and no gtid_mode, so the GTID check is n/a)."""
    path = {"steady": paths.build_dir("steady"), "vanilla": paths.build_dir("vanilla")}.get(spec, spec)
    return srv.detect(spec, path)


def loose(opt):
    """--name[=value] as --loose-name[=value]: a server that does not know
    the option starts anyway, with a [Warning] naming it."""
    if not opt.startswith("--") or opt.startswith("--loose-"):
        return opt
    return "--loose-" + opt[2:]


class Build:
    """One server build that runs on the datadir: its binaries, a short name
    for messages, and the --mysqld-opt options as it gets them."""

    def __init__(self, label, binaries, version, opts, loosened=False):
        self.label, self.b, self.version = label, binaries, version
        self.opts = [loose(o) for o in opts] if loosened else list(opts)
        self.loosened = loosened and self.opts != list(opts)

    @staticmethod
    def is_steady(version, label):
        """A Steady build says so in its --version; one not built yet is
        taken by its name."""
        return "-steady" in version.lower() or (version == "not built" and label == "steady")


def builds_for(server_b, server_version, recover_b, recover_version, label, recover_label, opts):
    """The server under test and the recovering server (None without
    --recover-with) as Builds. With two different builds, every --mysqld-opt
    goes to a Steady build as given (it knows every stock option, so a typo
    still stops it) and to any other build with the --loose- prefix, so a
    Steady-only option (e.g. --innodb-aio-pending-ios-per-thread) does not
    stop stock MySQL from starting on the datadir. One build: as given, as
    always."""
    two = recover_b is not None and \
        (recover_b.mysqld or recover_b.path) != (server_b.mysqld or server_b.path)
    home = Build(label, server_b, server_version, opts,
                 loosened=two and not Build.is_steady(server_version, label))
    if recover_b is None:
        return home, None
    other = Build(recover_label, recover_b, recover_version, opts,
                  loosened=two and not Build.is_steady(recover_version, recover_label))
    return home, other


class Server:
    """One mysqld on one datadir, started as our child (never daemonised), so
    its pid is the one we SIGKILL. use() puts another build on the same
    datadir, socket and error log (--recover-with)."""

    def __init__(self, binaries, workdir, extra_opts, start_timeout, label=None):
        self.b = binaries
        self.label = label or binaries.name
        self.workdir = workdir
        self.datadir = os.path.join(workdir, "data")
        self.socket = os.path.join(workdir, "mysqld.sock")
        self.errlog = os.path.join(workdir, "error.log")
        self.stdout_log = os.path.join(workdir, "mysqld.out")
        self.extra = list(extra_opts)
        self.start_timeout = start_timeout
        self.killed_at = None
        self.inst = self._instance(self.run_opts())

    def use(self, build):
        """Run `build` (a Build) on this datadir from the next start() on.
        The running server, if any, must have been stopped first."""
        if self.inst.alive():
            raise HarnessError(f"cannot switch to {build.label}: {self.label} is still running")
        self.b, self.label, self.extra = build.b, build.label, list(build.opts)
        self.inst = self._instance(self.run_opts())

    def _instance(self, opts, record=None):
        try:
            return srv.Instance(self.b, opts, self.datadir, self.socket, self.errlog,
                                self.stdout_log, record=record)
        except srv.ServerError as e:
            raise HarnessError(str(e)) from None

    def _common_opts(self):
        # Message files and plugins of a build tree; an install finds its own.
        where = self.b.location_options() if self.b.build_tree else [("basedir", self.b.basedir)]
        return ["--no-defaults"] + srv.as_args(where + srv.side_by_side_options()) + [f"--datadir={self.datadir}"]

    def run_opts(self):
        opts = self._common_opts() + [
            f"--socket={self.socket}", f"--pid-file={os.path.join(self.workdir, 'mysqld.pid')}",
            f"--log-error={self.errlog}", "--skip-networking", "--server-id=1",
            "--log-bin=binlog", "--sync-binlog=1", "--innodb-flush-log-at-trx-commit=1",
        ]
        if self.b.flavour == "mysql":
            opts += ["--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--loose-mysqlx=OFF"]
        return opts + srv.as_args(srv.root_user_options()) + self.extra

    def initialize(self):
        os.makedirs(self.datadir)
        if self.b.flavour != "mysql" and not os.access(self.b.install_db or "", os.X_OK):
            raise HarnessError("MariaDB server without mariadb-install-db")
        started = []
        init = self._instance(self._common_opts() + [f"--log-error={self.errlog}"] +
                              srv.as_args(srv.root_user_options()) + self.extra,
                              record=lambda pid, what: started.append((pid, proc_start_time(pid))))
        try:
            init.initialize()
        except srv.ServerDown as e:
            if e.exit_status is None:
                raise HarnessError(str(e)) from None
            raise HarnessError(f"datadir initialisation failed (exit {e.exit_status}): "
                               f"{' '.join(init.initialize_cmd())}\n"
                               f"{tail(self.errlog)}{tail(self.stdout_log)}") from None
        except BaseException:
            # Interrupted: it runs in its own session, so no Ctrl-C reached
            # it or what it started (mariadb-install-db runs a server).
            for pid, start in started:
                if proc_start_time(pid) == start:
                    os.killpg(pid, signal.SIGKILL)
            raise

    def start(self):
        """Start mysqld and wait until it answers SQL; returns seconds taken.
        A server that cannot come back after a kill is a durability failure,
        so this raises ServerDown rather than HarnessError."""
        try:
            return self.inst.start(timeout=self.start_timeout, poll=0.2)
        except srv.ServerDown as e:
            if e.exit_status is None:
                raise ServerDown(f"mysqld did not answer within {self.start_timeout} s\n"
                                 f"{tail(self.errlog)}") from None
            raise ServerDown(f"mysqld exited with status {e.exit_status} while "
                             f"starting\n{tail(self.errlog)}") from None

    def kill(self):
        if self.inst.alive():
            self.killed_at = time.monotonic()
            self.inst.kill()

    def shutdown(self, timeout=300):
        """SHUTDOWN; True if mysqld stopped by itself (it is killed otherwise)."""
        if not self.inst.alive():
            return True
        try:
            stopped = self.inst.stop(timeout=timeout, how="sql")
        except subprocess.TimeoutExpired:   # the SHUTDOWN statement hung
            stopped = False
        if not stopped:
            log(f"crash-test: mysqld (pid {self.inst.pid}) did not shut down in {timeout} s; killing it")
            self.kill()
        return stopped

    def client_cmd(self):
        return self.inst.sql.base() + ["--batch", "--skip-column-names", "--skip-reconnect"]

    def sql(self, query):
        """Run SQL, return rows as lists of strings. Raises on any error."""
        r = subprocess.run(self.client_cmd() + ["-e", query], capture_output=True, text=True)
        if r.returncode != 0:
            raise HarnessError(f"SQL failed: {query[:200]}\n{r.stderr.strip()}")
        return [line.split("\t") for line in r.stdout.splitlines()]
