"""harness.proc: commands run and fail loudly, processes start in their own
session with their output where asked, pids are known by start time, and
the cgroup / nice wrappers really move and renice what they start.

Run: python3 -m unittest discover -s harness/tests -v
"""

import contextlib
import io
import os
import re
import subprocess
import tempfile
import time
import unittest

import fakes
from harness import proc as P


class RunCmd(unittest.TestCase):
    def test_output_captured_with_stderr(self):
        p = P.run_cmd(["sh", "-c", "echo out; echo err >&2"])
        self.assertEqual(p.returncode, 0)
        self.assertEqual(sorted(p.stdout.split()), ["err", "out"])

    def test_failure_raises_with_output(self):
        with self.assertRaisesRegex(RuntimeError, r"sh -c 'echo broken; exit 3' failed \(exit 3\): broken"):
            P.run_cmd(["sh", "-c", "echo broken; exit 3"])

    def test_no_check_returns_the_failure(self):
        p = P.run_cmd(["sh", "-c", "echo x; exit 4"], check=False)
        self.assertEqual((p.returncode, p.stdout), (4, "x\n"))

    def test_timeout(self):
        with self.assertRaises(subprocess.TimeoutExpired):
            P.run_cmd(["sleep", "5"], timeout=0.2)

    def test_missing_command(self):
        p = P.run_cmd(["steady-no-such-command"], check=False)
        self.assertEqual(p.returncode, 127)
        self.assertIn("not installed", p.stdout)
        with self.assertRaises(RuntimeError):
            P.run_cmd(["steady-no-such-command"])


class PidIdentity(unittest.TestCase):
    def test_parse_stat_survives_parentheses_in_the_name(self):
        fields = P.parse_stat("42 (evil) name) S 1 42 42 0 -1")
        self.assertEqual(fields[:3], ["S", "1", "42"])

    def test_start_time_is_the_kernels(self):
        with open("/proc/self/stat") as f:
            want = int(f.read().rsplit(")", 1)[1].split()[19])
        self.assertEqual(P.proc_start_time(os.getpid()), want)

    def test_gone_process_has_no_start_time_or_ticks(self):
        p = subprocess.Popen(["true"])
        p.wait()
        self.assertIsNone(P.proc_start_time(p.pid))
        self.assertIsNone(P.proc_cpu_ticks(p.pid))

    def test_start_time_tells_processes_apart(self):
        a = subprocess.Popen(["sleep", "30"])
        self.addCleanup(fakes.kill_quietly, a)
        time.sleep(0.05)
        b = subprocess.Popen(["sleep", "30"])
        self.addCleanup(fakes.kill_quietly, b)
        sa, sb = P.proc_start_time(a.pid), P.proc_start_time(b.pid)
        self.assertIsNotNone(sa)
        self.assertGreaterEqual(sb, sa)

    def test_pid_running(self):
        self.assertIs(bool(P.pid_running(os.getpid())), True)
        p = subprocess.Popen(["sleep", "30"])
        self.addCleanup(fakes.kill_quietly, p)
        self.assertIs(bool(P.pid_running(p.pid)), True)
        p.kill()
        deadline = time.monotonic() + 5
        while P.proc_start_time(p.pid) is not None and P.pid_running(p.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        # Dead but not reaped: a zombie, which still has its /proc entry.
        self.assertIsNotNone(P.proc_start_time(p.pid))
        self.assertFalse(P.pid_running(p.pid))
        p.wait()
        self.assertFalse(P.pid_running(p.pid))

    def test_cpu_ticks_grow_with_work(self):
        before = P.proc_cpu_ticks(os.getpid())
        hz = os.sysconf("SC_CLK_TCK")
        t0 = time.process_time()
        while time.process_time() - t0 < 3.0 / hz + 0.05:
            pass
        self.assertGreater(P.proc_cpu_ticks(os.getpid()), before)


class HostCpu(unittest.TestCase):
    STAT = ("cpu  100 5 40 9000 30 2 3 7 11 0\n"
            "cpu0 50 2 20 4500 15 1 1 3 5 0\n"
            "intr 12345\n")

    def test_aggregate_line_by_kind(self):
        # busy = user + nice + system + irq + softirq; guest (11) is already in user
        self.assertEqual(P.parse_host_cpu(self.STAT),
                         {"busy": 150, "idle": 9000, "iowait": 30, "steal": 7})

    def test_no_aggregate_line(self):
        self.assertIsNone(P.parse_host_cpu("cpu0 1 2 3 4 5 6 7 8\n"))

    def test_busy_ticks_grow_with_work(self):
        before = P.host_cpu_ticks()
        hz = os.sysconf("SC_CLK_TCK")
        t0 = time.process_time()
        while time.process_time() - t0 < 3.0 / hz + 0.05:
            pass
        self.assertGreater(P.host_cpu_ticks()["busy"], before["busy"])


class Tail(unittest.TestCase):
    def test_last_lines(self):
        with tempfile.NamedTemporaryFile("w", delete=False) as f:
            f.write("".join("line %d\n" % i for i in range(1, 31)))
        self.addCleanup(os.unlink, f.name)
        self.assertEqual(P.tail(f.name, 2), "line 29\nline 30\n")
        self.assertEqual(P.tail(f.name).count("\n"), 15)

    def test_missing_file_is_empty(self):
        self.assertEqual(P.tail("/nonexistent/steady/log"), "")


class Wrappers(unittest.TestCase):
    def test_in_cgroup_moves_the_command_itself(self):
        self.assertEqual(P.in_cgroup(["a", "b"], None), ["a", "b"])
        with tempfile.TemporaryDirectory() as cg:
            # A plain directory stands in for the cgroup: the wrapper writes
            # its pid to cgroup.procs, then execs the command in that pid.
            out = subprocess.run(P.in_cgroup(["sh", "-c", "echo $$", "x y"], cg),
                                 stdout=subprocess.PIPE, text=True, check=True).stdout
            with open(os.path.join(cg, "cgroup.procs")) as f:
                self.assertEqual(f.read().strip(), out.strip())

    def test_in_cgroup_keeps_arguments_intact(self):
        with tempfile.TemporaryDirectory() as cg:
            out = subprocess.run(P.in_cgroup(["printf", "[%s]", "a b", "$x", ""], cg),
                                 stdout=subprocess.PIPE, text=True, check=True).stdout
        self.assertEqual(out, "[a b][$x][]")

    def test_in_cgroup_does_not_run_when_it_cannot_join(self):
        p = subprocess.run(P.in_cgroup(["echo", "ran"], "/nonexistent/cgroup"),
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertNotIn("ran", p.stdout)

    def test_niced(self):
        self.assertEqual(P.niced(["a"], 0), ["a"])
        base = os.nice(0)
        out = subprocess.run(P.niced(["sh", "-c", "cut -d' ' -f19 /proc/$$/stat"], 5),
                             stdout=subprocess.PIPE, text=True, check=True).stdout
        self.assertEqual(int(out), min(19, base + 5))


class Spawn(unittest.TestCase):
    def test_own_session_null_stdin_log_appended(self):
        with tempfile.TemporaryDirectory() as d:
            logf = os.path.join(d, "out.log")
            with open(logf, "w") as f:
                f.write("before\n")
            p = P.spawn(["sh", "-c", "cat; echo sid=$(cut -d' ' -f6 /proc/$$/stat) pid=$$; echo err >&2"], logf)
            self.addCleanup(fakes.kill_quietly, p)
            self.assertEqual(p.wait(timeout=10), 0)     # cat got EOF at once: stdin is /dev/null
            with open(logf) as f:
                lines = f.read().splitlines()
        self.assertEqual(lines[0], "before")
        m = re.match(r"sid=(\d+) pid=(\d+)", lines[1])
        self.assertEqual(m.group(1), m.group(2))         # session leader: a killpg reaches all
        self.assertEqual(int(m.group(2)), p.pid)
        self.assertEqual(lines[2], "err")

    def test_no_log_discards_output(self):
        p = P.spawn(["sh", "-c", "echo lost"])
        self.assertEqual(p.wait(timeout=10), 0)
        self.assertIsNone(p.stdout)

    def test_text_pipe(self):
        p = P.spawn(["sh", "-c", "echo one; echo two >&2"], text_pipe=True)
        self.addCleanup(fakes.kill_quietly, p)
        self.assertEqual(sorted(p.stdout.read().split()), ["one", "two"])
        p.stdout.close()
        self.assertEqual(p.wait(timeout=10), 0)


class Log(unittest.TestCase):
    def test_stamped_line(self):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            P.log("hello", tag="crash")
        self.assertRegex(buf.getvalue(), r"^\[crash \d\d:\d\d:\d\d\] hello\n$")


if __name__ == "__main__":
    unittest.main()
