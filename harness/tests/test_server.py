"""harness.server: binaries found in every layout, my.cnf text, one-shot SQL, and
Instance's real process work (initialise, start and wait on the socket,
stop, kill, reap) against the fake mysqld and client of fakes.py.

Run: python3 -m unittest discover -s harness/tests -v
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

import fakes
from harness import server as S
from harness.proc import parse_stat


def nice_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(parse_stat(f.read())[16])


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="steady-test-server-")
        self.addCleanup(shutil.rmtree, self.tmp, True)


class Binaries(Tmp):
    def test_build_dir(self):
        build = fakes.make_build_dir(os.path.join(self.tmp, "build"))
        b = S.Binaries("steady", "mysql", build)
        rod = os.path.join(build, "runtime_output_directory")
        self.assertEqual((b.mysqld, b.client), (os.path.join(rod, "mysqld"), os.path.join(rod, "mysql")))
        self.assertEqual(b.basedir, build)
        self.assertIs(bool(b.build_tree), True)
        self.assertEqual(b.location_options(), [
            ("basedir", build), ("lc-messages-dir", os.path.join(build, "share")),
            ("plugin-dir", os.path.join(build, "plugin_output_directory"))])
        b.check()
        self.assertEqual(b.version(), "mysqld  Ver 9.7.2-fake for Linux on x86_64 (fake)")

    def test_server_binary_itself(self):
        build = fakes.make_build_dir(os.path.join(self.tmp, "build"))
        b = S.Binaries("mine", "mysql", os.path.join(build, "runtime_output_directory", "mysqld"))
        self.assertEqual(b.path, build)
        self.assertEqual(b.basedir, build)
        self.assertIs(bool(b.client.endswith("runtime_output_directory/mysql")), True)

    def test_install_layout(self):
        inst = os.path.join(self.tmp, "opt")
        fakes.write_script(os.path.join(inst, "bin", "mysqld"), fakes.FAKE_MYSQLD)
        fakes.write_script(os.path.join(inst, "bin", "mysql"), fakes.FAKE_CLIENT)
        b = S.Binaries("mine", "mysql", inst)
        self.assertEqual(b.mysqld, os.path.join(inst, "bin", "mysqld"))
        self.assertFalse(b.build_tree)
        # No plugin dir on disk: not passed to mysqld.
        self.assertEqual([k for k, _ in b.location_options()], ["basedir", "lc-messages-dir"])

    def test_missing_server_says_how_to_build_it(self):
        b = S.Binaries("vanilla", "mysql", os.path.join(self.tmp, "nothing"))
        self.assertIsNone(b.mysqld)
        with self.assertRaisesRegex(S.ServerError, r"server vanilla \(mysql\): no server binary under .*nothing; "
                                                   r"build it: make vanilla"):
            b.check()

    def test_missing_client_falls_back_to_any(self):
        inst = os.path.join(self.tmp, "opt")
        fakes.write_script(os.path.join(inst, "sbin", "mysqld"), fakes.FAKE_MYSQLD)
        b = S.Binaries("mine", "mysql", inst)
        self.assertEqual(b.mysqld, os.path.join(inst, "sbin", "mysqld"))
        self.assertEqual(b.client, shutil.which("mariadb") or shutil.which("mysql"))

    def test_unknown_flavour(self):
        with self.assertRaisesRegex(S.ServerError, "server x: unknown flavour 'oracle' \\(valid: mysql, mariadb\\)"):
            S.Binaries("x", "oracle", self.tmp)

    def test_mariadb_layout(self):
        prefix = os.path.join(self.tmp, "usr")
        fakes.write_script(os.path.join(prefix, "sbin", "mariadbd"), fakes.FAKE_MYSQLD)
        fakes.write_script(os.path.join(prefix, "bin", "mariadb"), fakes.FAKE_CLIENT)
        os.makedirs(os.path.join(prefix, "share", "mysql", "english"))
        b = S.Binaries("mariadb", "mariadb", prefix)
        self.assertEqual(b.mysqld, os.path.join(prefix, "sbin", "mariadbd"))
        self.assertEqual(b.client, os.path.join(prefix, "bin", "mariadb"))
        self.assertEqual(b.lc_messages_dir, os.path.join(prefix, "share", "mysql"))
        with self.assertRaisesRegex(S.ServerError, "no .*mariadb-install-db"):
            b.check()
        fakes.write_script(os.path.join(prefix, "bin", "mariadb-install-db"), "#!/bin/sh\n")
        b = S.Binaries("mariadb", "mariadb", prefix)
        b.check()

    def test_default_servers_follow_the_cache(self):
        with mock.patch.dict(os.environ, {"STEADY_CACHE": "/c"}):
            os.environ.pop("STEADY_BUILD", None)
            d = S.default_servers()
        self.assertEqual(d, {"steady": ("mysql", "/c/build/steady"),
                             "vanilla": ("mysql", "/c/vanilla/build/steady"),
                             "mariadb": ("mariadb", "/usr")})


class Options(unittest.TestCase):
    def test_merge_replaces_same_name(self):
        base = [("sync_binlog", "1"), ("log-bin", "binlog"), ("innodb-io-capacity", "200")]
        out = S.merge_options(base, [("sync-binlog", "0"), ("innodb_io_capacity", "900"), ("new", "x")])
        self.assertEqual(out, [("log-bin", "binlog"), ("sync-binlog", "0"), ("innodb_io_capacity", "900"),
                               ("new", "x")])

    def test_render_and_args(self):
        opts = [("datadir", "/d"), ("skip-networking", None)]
        self.assertEqual(S.render_cnf(opts, "me"), "# written by me\n[mysqld]\ndatadir=/d\nskip-networking\n")
        self.assertEqual(S.as_args(opts), ["--datadir=/d", "--skip-networking"])

    def test_root_user(self):
        self.assertEqual(S.root_user_options(), [("user", "root")] if os.geteuid() == 0 else [])


class ServerCase(Tmp):
    """A fake build and a my.cnf for it; helpers to make Instances."""

    def setUp(self):
        super().setUp()
        self.build = fakes.make_build_dir(os.path.join(self.tmp, "build"))
        self.b = S.Binaries("steady", "mysql", self.build)
        self.datadir = os.path.join(self.tmp, "data")
        self.socket = os.path.join(self.tmp, "mysqld.sock")
        self.errlog = os.path.join(self.tmp, "mysqld.err")
        self.outlog = os.path.join(self.tmp, "mysqld.out")
        self.recorded = []

    def instance(self, mode="ok", extra=(), **kw):
        cnf = os.path.join(self.tmp, "my.cnf")
        opts = [("datadir", self.datadir), ("socket", self.socket), ("log-error", self.errlog),
                ("fake_mode", mode)] + list(extra)
        with open(cnf, "w") as f:
            f.write(S.render_cnf(opts, "test"))
        inst = S.Instance(self.b, ["--defaults-file=" + cnf], self.datadir, self.socket, self.errlog,
                          self.outlog, record=lambda pid, what: self.recorded.append((what, pid)), **kw)
        self.addCleanup(self.reap, inst)
        return inst

    def reap(self, inst):
        if inst.proc is not None:
            fakes.kill_quietly(inst.proc)


class Sql(ServerCase):
    def setUp(self):
        super().setUp()
        self.sql = S.Sql(self.b.client, self.socket)

    def test_no_server(self):
        self.assertFalse(self.sql.answers())
        self.assertIsNone(self.sql.value("SELECT 1"))
        self.assertIsNone(self.sql.query("SELECT 1", check=False))
        with self.assertRaisesRegex(S.SqlError, "query 'SELECT 1' failed: ERROR 2002"):
            self.sql.query("SELECT 1")

    def test_answers_over_the_socket(self):
        open(self.socket, "w").close()      # the fake client only looks for the file
        fakes.set_answers(self.build, {"sync_binlog": "1"}, {"Innodb_buffer_pool_pages_dirty": "42"})
        self.assertIs(bool(self.sql.answers()), True)
        self.assertEqual(self.sql.value("SELECT @@global.sync_binlog"), "1")
        self.assertEqual(self.sql.value("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'"), "42")
        self.assertEqual(self.sql.rows("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'"),
                         [["Innodb_buffer_pool_pages_dirty", "42"]])
        self.assertIsNone(self.sql.value("SELECT @@global.no_such"))
        with self.assertRaisesRegex(S.SqlError, "Unknown system variable 'no_such'"):
            self.sql.rows("SELECT @@global.no_such")
        self.assertEqual(fakes.client_calls(self.build)[0],
                         ["--no-defaults", "--user=root", "--socket=" + self.socket, "-N", "-B", "-e", "SELECT 1"])

    def test_hung_server_does_not_answer(self):
        open(self.socket, "w").close()
        open(os.path.join(self.build, "runtime_output_directory", "hang"), "w").close()
        t0 = time.monotonic()
        self.assertFalse(self.sql.answers(timeout=0.5))
        self.assertLess(time.monotonic() - t0, 5)


class Lifecycle(ServerCase):
    def test_socket_path_too_long(self):
        with self.assertRaisesRegex(S.ServerError, "socket path too long"):
            S.Instance(self.b, [], self.datadir, "/tmp/" + "s" * 100, self.errlog, self.outlog)

    def test_initialize(self):
        inst = self.instance()
        secs = inst.initialize(timeout=30)
        self.assertGreater(secs, 0)
        with open(os.path.join(self.datadir, "initialized")) as f:
            self.assertIn("--initialize-insecure", f.read())
        self.assertEqual([w for w, _ in self.recorded], ["initialize"])
        self.assertIsNone(inst.proc)            # initialisation is not the server

    def test_initialize_failure_carries_the_logs(self):
        inst = self.instance("init_fail")
        with self.assertRaises(S.ServerDown) as cm:
            inst.initialize(timeout=30)
        msg = str(cm.exception)
        self.assertIn("datadir initialisation failed (exit 1)", msg)
        self.assertEqual(cm.exception.exit_status, 1)
        self.assertIn("fake: initialisation went wrong", msg)      # its own output (outlog)
        self.assertIn("[ERROR] fake: cannot initialise", msg)      # the error log

    def test_initialize_timeout_kills_it(self):
        inst = self.instance("init_hang")
        t0 = time.monotonic()
        with self.assertRaisesRegex(S.ServerDown, "took over 1 s") as cm:
            inst.initialize(timeout=1)
        self.assertIsNone(cm.exception.exit_status)
        self.assertLess(time.monotonic() - t0, 10)
        pid = self.recorded[0][1]
        self.assertFalse(fakes.pid_exists(pid))

    def test_start_waits_for_the_socket_then_stop(self):
        inst = self.instance(extra=[("fake_delay", "0.4")])
        self.assertFalse(inst.alive())
        secs = inst.start(timeout=30, poll=0.05)
        self.assertGreaterEqual(secs, 0.4)         # not before the socket was there
        self.assertIs(bool(inst.alive()), True)
        self.assertIs(bool(os.path.exists(self.socket)), True)
        self.assertEqual(self.recorded, [("mysqld", inst.pid)])
        with open("/proc/%d/cmdline" % inst.pid) as f:
            self.assertIn("--defaults-file=", f.read())
        pid = inst.pid
        self.assertIs(bool(inst.stop(timeout=10)), True)
        self.assertEqual(inst.proc.returncode, 0)   # stopped by SIGTERM, cleanly
        self.assertFalse(inst.alive())
        self.assertFalse(fakes.pid_exists(pid))     # reaped
        self.assertFalse(os.path.exists(self.socket))
        with open(self.errlog) as f:
            self.assertEqual(f.read().splitlines()[-1], "fake: shutdown complete")
        self.assertIs(bool(inst.stop()), True)                # stopping a stopped server is fine

    def test_exit_while_starting(self):
        inst = self.instance("exit_early")
        with self.assertRaises(S.ServerDown) as cm:
            inst.start(timeout=30, poll=0.05)
        self.assertIn("mysqld exited with status 3 while starting", str(cm.exception))
        self.assertEqual(cm.exception.exit_status, 3)
        self.assertIn("[ERROR] fake: cannot start, exiting", str(cm.exception))

    def test_silent_server_is_killed_after_timeout(self):
        inst = self.instance("silent")
        t0 = time.monotonic()
        with self.assertRaisesRegex(S.ServerDown, "mysqld did not answer within 1 s") as cm:
            inst.start(timeout=1, poll=0.05)
        self.assertIsNone(cm.exception.exit_status)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertFalse(inst.alive())
        self.assertEqual(inst.proc.returncode, -signal.SIGKILL)

    def test_stop_with_discard_skips_the_flush(self):
        inst = self.instance()
        inst.start(timeout=30, poll=0.05)
        self.assertIs(bool(inst.stop(timeout=10, discard=True)), True)
        self.assertIn("SET GLOBAL innodb_fast_shutdown=2", fakes.client_queries(self.build))

    def test_stop_by_sql(self):
        inst = self.instance()
        inst.start(timeout=30, poll=0.05)
        self.assertIs(bool(inst.stop(timeout=10, how="sql")), True)
        self.assertEqual(fakes.client_queries(self.build)[-1], "SHUTDOWN")
        self.assertEqual(inst.proc.returncode, 0)

    def test_stop_kills_a_server_that_ignores_sigterm(self):
        inst = self.instance("ignore_term")
        inst.start(timeout=30, poll=0.05)
        self.assertFalse(inst.stop(timeout=0.5))
        self.assertEqual(inst.proc.returncode, -signal.SIGKILL)

    def test_kill(self):
        inst = self.instance()
        inst.start(timeout=30, poll=0.05)
        pid = inst.pid
        inst.kill()
        self.assertEqual(inst.proc.returncode, -signal.SIGKILL)
        self.assertFalse(fakes.pid_exists(pid))
        inst.kill()                                 # already dead: no error

    def test_cgroup_and_nice_reach_mysqld(self):
        cg = os.path.join(self.tmp, "cg")           # a plain directory stands in for the group
        os.mkdir(cg)
        inst = self.instance(cgroup=cg, nice=3)
        base = os.nice(0)
        inst.start(timeout=30, poll=0.05)
        with open(os.path.join(cg, "cgroup.procs")) as f:
            self.assertEqual(int(f.read()), inst.pid)
        self.assertEqual(nice_of(inst.pid), min(19, base + 3))
        self.assertEqual(self.recorded, [("mysqld", inst.pid)])
        with open("/proc/%d/cmdline" % inst.pid) as f:
            self.assertIn("runtime_output_directory/mysqld", f.read())   # the pid is mysqld's


    def test_env_reaches_mysqld_only(self):
        inst = self.instance(env={"FAKE_LAB_ENV": "preloaded"})
        inst.initialize(timeout=30)
        inst.start(timeout=30, poll=0.05)
        with open(os.path.join(self.datadir, "initialized")) as f:
            self.assertIn("FAKE_LAB_ENV=preloaded", f.read())
        with open(self.errlog) as f:
            self.assertIn("fake: starting, FAKE_LAB_ENV=preloaded", f.read())
        self.assertNotIn("FAKE_LAB_ENV", os.environ)
        self.assertIs(bool(inst.stop(timeout=10)), True)


class StopPid(ServerCase):
    """stop_pid: a server known only by its pid (not waited for by us)."""

    def started(self, mode="ok"):
        inst = self.instance(mode)
        inst.start(timeout=30, poll=0.05)
        return inst

    def test_term(self):
        inst = self.started()
        self.assertIs(bool(S.stop_pid(inst.pid, timeout=10, poll=0.05)), True)
        self.assertEqual(inst.proc.wait(timeout=5), 0)
        with open(self.errlog) as f:
            self.assertIn("fake: shutdown complete", f.read())

    def test_sql(self):
        inst = self.started()
        self.assertIs(bool(S.stop_pid(inst.pid, timeout=10, how="sql", sql=inst.sql, poll=0.05)), True)
        self.assertEqual(fakes.client_queries(self.build)[-1], "SHUTDOWN")
        self.assertEqual(inst.proc.wait(timeout=5), 0)

    def test_kill(self):
        inst = self.started()
        self.assertIs(bool(S.stop_pid(inst.pid, timeout=10, how="kill", poll=0.05)), True)
        self.assertEqual(inst.proc.wait(timeout=5), -signal.SIGKILL)

    def test_left_running_after_timeout(self):
        inst = self.started("ignore_term")
        self.assertFalse(S.stop_pid(inst.pid, timeout=0.3, poll=0.05))
        self.assertIsNone(inst.proc.poll())

    def test_gone_already(self):
        p = subprocess.Popen(["true"])
        p.wait()
        t0 = time.monotonic()
        self.assertIs(bool(S.stop_pid(p.pid, timeout=10)), True)
        self.assertLess(time.monotonic() - t0, 1)


class Detect(Tmp):
    def test_mysql_build(self):
        build = fakes.make_build_dir(os.path.join(self.tmp, "build"))
        b = S.detect("x", build)
        self.assertEqual((b.flavour, b.mysqld), ("mysql", os.path.join(build, "runtime_output_directory", "mysqld")))

    def test_mariadb_named_mysqld(self):
        inst = os.path.join(self.tmp, "opt")
        fakes.write_script(os.path.join(inst, "bin", "mysqld"),
                           "#!/bin/sh\necho 'mysqld  Ver 10.11.6-MariaDB-0+deb12u1 for debian-linux-gnu'\n")
        b = S.detect("x", inst)
        self.assertEqual(b.flavour, "mariadb")
        self.assertEqual(b.mysqld, os.path.join(inst, "bin", "mysqld"))

    def test_mariadbd_layout(self):
        prefix = os.path.join(self.tmp, "usr")
        fakes.write_script(os.path.join(prefix, "sbin", "mariadbd"), fakes.FAKE_MYSQLD)
        b = S.detect("x", prefix)
        self.assertEqual((b.flavour, b.mysqld), ("mariadb", os.path.join(prefix, "sbin", "mariadbd")))

    def test_nothing_there(self):
        b = S.detect("x", os.path.join(self.tmp, "none"))
        self.assertIsNone(b.mysqld)
        self.assertEqual(b.flavour, "mysql")

    def test_from_spec(self):
        with mock.patch.dict(os.environ, {"STEADY_CACHE": "/c"}):
            os.environ.pop("STEADY_BUILD", None)
            b = S.from_spec("vanilla")
        self.assertEqual((b.name, b.flavour, b.path), ("vanilla", "mysql", "/c/vanilla/build/steady"))
        b = S.from_spec("mariadb:" + self.tmp)
        self.assertEqual((b.name, b.flavour, b.path), (self.tmp, "mariadb", self.tmp))
        for bad in ("oracle:/x", "nosuch"):
            with self.assertRaisesRegex(S.ServerError, "unknown server %r: steady, vanilla, mariadb, or "
                                                       "FLAVOUR:PATH" % bad):
                S.from_spec(bad)


class Cli(ServerCase):
    """python3 harness/server.py find/init/start/stop, the bash callers' interface."""

    SCRIPT = os.path.join(fakes.HARNESS, "server.py")

    def cli(self, *args):
        return subprocess.Popen([sys.executable, self.SCRIPT] + list(args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def done(self, p):
        out, err = p.communicate(timeout=60)
        return p.returncode, out, err

    def server_args(self, *extra):
        return ["--server", "mysql:" + self.build, "--datadir", self.datadir, "--log-error", self.errlog] + list(extra)

    def test_init_start_stop(self):
        rc, out, err = self.done(self.cli("init", *self.server_args()))
        self.assertEqual((rc, err), (0, ""))
        with open(os.path.join(self.datadir, "initialized")) as f:
            args = f.read()
        self.assertIn("--no-defaults --basedir=%s" % self.build, args)
        self.assertIn("--initialize-insecure", args)
        rc, out, err = self.done(self.cli("start", *self.server_args("--socket", self.socket, "--env",
                                                                     "FAKE_LAB_ENV=via-cli", "--",
                                                                     "--fake_delay=0.05")))
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"^PID=\d+\n$")
        pid = int(out.strip()[4:])
        self.addCleanup(self.kill_pid, pid)
        self.assertIs(bool(fakes.pid_exists(pid)), True)              # left running after the CLI exited
        self.assertIs(bool(os.path.exists(self.socket)), True)
        with open(self.errlog) as f:
            self.assertIn("FAKE_LAB_ENV=via-cli", f.read())
        rc, out, err = self.done(self.cli("stop", "--pid", str(pid), "--timeout", "10"))
        self.assertEqual((rc, err), (0, ""))
        self.assertFalse(fakes.pid_exists(pid))
        with open(self.errlog) as f:
            self.assertIn("fake: shutdown complete", f.read())

    def kill_pid(self, pid):
        if fakes.pid_exists(pid):
            os.kill(pid, signal.SIGKILL)

    def test_find_and_failures(self):
        # Independent calls, started together.
        calls = {
            "find": self.cli("find", "--server", "mysql:" + self.build),
            "exits": self.cli("start", *self.server_args("--socket", self.socket, "--", "--fake_mode=exit_early")),
            "silent": self.cli("start", "--server", "mysql:" + self.build, "--datadir", self.datadir + "2",
                               "--log-error", self.errlog + "2", "--socket", self.socket + "2", "--timeout", "1",
                               "--", "--fake_mode=silent"),
            "missing": self.cli("init", "--server", "mysql:" + os.path.join(self.tmp, "none"), "--datadir",
                                self.datadir, "--log-error", self.errlog),
            "bad": self.cli("find", "--server", "oracle:/x"),
        }
        res = {k: self.done(p) for k, p in calls.items()}
        rc, out, err = res["find"]
        rod = os.path.join(self.build, "runtime_output_directory")
        self.assertEqual((rc, out), (0, "FLAVOUR=mysql\nMYSQLD=%s/mysqld\nCLIENT=%s/mysql\nBASEDIR=%s\n"
                                        % (rod, rod, self.build)))
        rc, out, err = res["exits"]
        self.assertEqual(rc, 1)
        self.assertIn("mysqld exited with status 3 while starting", err)
        rc, out, err = res["silent"]
        self.assertEqual(rc, 3)
        self.assertIn("mysqld did not answer within 1 s", err)
        rc, out, err = res["missing"]
        self.assertEqual(rc, 77)
        self.assertIn("no server binary under", err)
        rc, out, err = res["bad"]
        self.assertEqual(rc, 2)
        self.assertIn("unknown server 'oracle:/x'", err)


class MariaDB(Tmp):
    def test_initialize_runs_install_db(self):
        prefix = os.path.join(self.tmp, "usr")
        datadir = os.path.join(self.tmp, "data")
        argv_file = os.path.join(self.tmp, "install-db.argv")
        fakes.write_script(os.path.join(prefix, "sbin", "mariadbd"), fakes.FAKE_MYSQLD)
        fakes.write_script(os.path.join(prefix, "bin", "mariadb"), fakes.FAKE_CLIENT)
        # Records its arguments; fails unless the datadir was made for it.
        fakes.write_script(os.path.join(prefix, "bin", "mariadb-install-db"),
                           '#!/bin/sh\n[ -d "%s" ] || exit 9\nprintf "%%s\\n" "$@" > "%s"\n' % (datadir, argv_file))
        b = S.Binaries("mariadb", "mariadb", prefix)
        inst = S.Instance(b, ["--defaults-file=/x/my.cnf", "--other"], datadir, os.path.join(self.tmp, "s"),
                          os.path.join(self.tmp, "err"), os.path.join(self.tmp, "out"))
        inst.initialize(timeout=30)
        with open(argv_file) as f:
            argv = f.read().splitlines()
        self.assertEqual(argv[:5], ["--defaults-file=/x/my.cnf", "--basedir=" + prefix, "--datadir=" + datadir,
                                    "--auth-root-authentication-method=normal", "--skip-test-db"])
        self.assertEqual(argv[5:], ["--user=root"] if os.geteuid() == 0 else [])


if __name__ == "__main__":
    unittest.main()
