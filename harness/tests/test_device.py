"""harness.device: /proc/diskstats parsing and rates (pure), the host checks,
teardown, cgroup files, and the command line (`device.py up/down`) for real
where the host can (root, /dev/loop-control, cgroup-v1 blkio).

Run: python3 -m unittest discover -s harness/tests -v
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import fakes
from harness import device as D  # noqa: E402

SCRIPT = os.path.join(fakes.HARNESS, "device.py")
GiB = 1024 ** 3


class Diskstats(unittest.TestCase):
    LINE = "   7       0 loop0 %d 0 0 0 %d 0 %d %d 0 %d %d 0 0 0 0 0 0"

    def test_parse_and_delta(self):
        a = D.parse_diskstats_line(self.LINE % (10, 100, 1000, 50, 0, 0))
        b = D.parse_diskstats_line(self.LINE % (30, 2100, 1000 + 2048 * 2, 1050, 500, 3000))
        self.assertEqual(a[0], "loop0")
        d = D.diskstats_delta(a[1], b[1], 2.0)
        self.assertEqual(d["dev_r_iops"], 10)
        self.assertEqual(d["dev_w_iops"], 1000)
        self.assertAlmostEqual(d["dev_w_mbps"], 4096 * 512 / 1e6 / 2)
        self.assertEqual(d["dev_util_pct"], 25)
        self.assertEqual(d["dev_avg_queue"], 1.5)
        self.assertEqual(d["dev_w_await_ms"], 0.5)      # 1000 ms writing over 2000 writes

    def test_reads_mb_and_await(self):
        line = "   7       0 loop0 %d 0 %d %d 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
        a = D.parse_diskstats_line(line % (10, 0, 0))[1]
        b = D.parse_diskstats_line(line % (110, 2048 * 8, 400))[1]
        d = D.diskstats_delta(a, b, 2.0)
        self.assertAlmostEqual(d["dev_r_mbps"], 2048 * 8 * 512 / 1e6 / 2)
        self.assertEqual(d["dev_r_await_ms"], 4.0)      # 400 ms reading over 100 reads

    def test_util_capped_and_bad_lines(self):
        a = D.parse_diskstats_line(self.LINE % (0, 0, 0, 0, 0, 0))[1]
        b = D.parse_diskstats_line(self.LINE % (0, 0, 0, 0, 5000, 0))[1]
        self.assertEqual(D.diskstats_delta(a, b, 1.0)["dev_util_pct"], 100.0)
        self.assertEqual(D.diskstats_delta(a, b, 1.0)["dev_w_await_ms"], 0.0)   # no writes: no latency
        self.assertIsNone(D.parse_diskstats_line("7 0 loop0 1 2"))

    def test_flush_counters(self):
        a = D.parse_diskstats_line("7 0 loop0 1 0 8 1 2 0 16 3 0 4 5 0 0 0 0 100 7")[1]
        b = D.parse_diskstats_line("7 0 loop0 1 0 8 1 2 0 16 3 0 4 5 0 0 0 0 500 47")[1]
        self.assertEqual(D.flush_delta(a, b, 2.0), {"flush_ps": 200.0, "flush_ms": 0.1})
        self.assertEqual(D.flush_delta(a, a, 1.0), {"flush_ps": 0.0, "flush_ms": 0.0})
        self.assertIsNone(D.flush_delta(a, b, 0))
        old = D.parse_diskstats_line("7 0 loop0 1 0 8 1 2 0 16 3 0 4 5")[1]   # before kernel 5.5
        self.assertEqual((old["flushes"], old["flush_ms"]), (0, 0))
        self.assertIsNone(D.diskstats_delta(a, b, 0))

    def test_disk_name(self):
        self.assertIsNone(D.disk_name("0:9999"))          # not a block device (a tmpfs file's st_dev)
        root = D.backing_disk("/")
        if not os.path.exists("/sys/dev/block/" + root):
            self.skipTest("/ is not on a block device here")
        self.assertIsNotNone(D.read_diskstats(D.disk_name(root)))   # the name /proc/diskstats uses

    def test_cap_share(self):
        rates = {"dev_r_iops": 1500.0, "dev_w_iops": 600.0}
        self.assertEqual(D.cap_share(rates, {"write_iops": 3000, "read_iops": 3000}), 50.0)
        self.assertEqual(D.cap_share(rates, {"write_iops": 1200}), 50.0)
        self.assertIsNone(D.cap_share(rates, {}))

    def test_read_diskstats_picks_the_named_device(self):
        text = "\n".join([self.LINE.replace("loop0", "loop1") % (1, 2, 3, 4, 5, 6),
                          self.LINE % (10, 20, 30, 35, 40, 50), "garbage"])
        self.assertEqual(D.read_diskstats("loop0", text),
                         {"reads": 10, "writes": 20, "write_ms": 35, "sectors_written": 30, "in_flight": 0,
                          "io_ticks_ms": 40, "queue_ms": 50, "flushes": 0, "flush_ms": 0,
                          "sectors_read": 0, "read_ms": 0})
        self.assertEqual(D.read_diskstats("loop1", text)["writes"], 2)
        self.assertIsNone(D.read_diskstats("loop9", text))

    def test_read_diskstats_reads_the_kernels_file(self):
        with open("/proc/diskstats") as f:
            first = f.readline().split()[2]
        self.assertIsNotNone(D.read_diskstats(first))


def host_can_make_devices():
    return not D.host_problems(need_throttle=True)


class HostProblems(unittest.TestCase):
    def test_missing_tool_named(self):
        problems = D.host_problems(False, tools=("sh", "no-such-tool-steady"))
        self.assertIn("no-such-tool-steady not found", problems)
        self.assertNotIn("sh not found", problems)

    def test_throttle_needed_only_when_asked(self):
        with mock.patch.object(D, "has_blkio_throttle", return_value=False):
            self.assertIn("no cgroup-v1 blkio hierarchy with throttling at %s" % D.CGROUP_ROOT,
                          D.host_problems(True, tools=()))
            self.assertFalse(any("blkio" in p for p in D.host_problems(False, tools=())))

    def test_not_root(self):
        with mock.patch.object(D.os, "geteuid", return_value=1000):
            self.assertIn("needs root (losetup, mkfs, mount, cgroups)", D.host_problems(False, tools=()))

    @unittest.skipUnless(os.geteuid() == 0 and os.path.exists("/dev/loop-control"), "needs root and loop devices")
    def test_this_host_can(self):
        self.assertEqual(D.host_problems(False, tools=("sh",)), [])


class Teardown(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="steady-test-device-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_nothing_to_do(self):
        notes = []
        self.assertEqual(D.teardown(None, None, None, None, notes.append), [])
        self.assertEqual(notes, [])

    def test_removes_unmounted_dir_image_and_empty_group(self):
        # Plain directories and files stand in for the mount point, the
        # image and the cgroup: none is mounted or backs a loop device.
        image = os.path.join(self.tmp, "x.img")
        with open(image, "wb") as f:
            f.truncate(1 << 20)
        mount, cgroup = os.path.join(self.tmp, "mnt"), os.path.join(self.tmp, "cg")
        os.mkdir(mount)
        os.mkdir(cgroup)
        notes = []
        self.assertEqual(D.teardown(image, "/dev/loop-steady-none", mount, cgroup, notes.append), [])
        self.assertFalse(os.path.exists(image) or os.path.exists(mount) or os.path.exists(cgroup))
        self.assertEqual(notes, ["removing %s" % image, "removing cgroup %s" % cgroup])

    def test_keep_image(self):
        image, mount = os.path.join(self.tmp, "x.img"), os.path.join(self.tmp, "mnt")
        open(image, "w").close()
        os.mkdir(mount)
        self.assertEqual(D.teardown(image, None, mount, None, keep_image=True), [])
        self.assertIs(bool(os.path.exists(image)), True)
        self.assertFalse(os.path.exists(mount))

    def test_group_that_stays_is_an_error(self):
        cgroup = os.path.join(self.tmp, "cg")
        os.mkdir(cgroup)
        open(os.path.join(cgroup, "busy"), "w").close()      # rmdir fails, like a group with tasks
        with mock.patch.object(D.time, "sleep"):
            self.assertEqual(D.teardown(None, None, None, cgroup), ["could not remove cgroup %s" % cgroup])
        self.assertIs(bool(os.path.isdir(cgroup)), True)

    def test_still_mounted_keeps_mount_point_and_image(self):
        # The unmount fails (umount made to fail, the directory made to look
        # mounted): neither the mount point nor the image under it may go.
        image, mount = os.path.join(self.tmp, "x.img"), os.path.join(self.tmp, "mnt")
        open(image, "w").close()
        os.mkdir(mount)
        calls = []

        def failing(cmd, **kw):
            calls.append(cmd)
            return subprocess.CompletedProcess(cmd, 32, "target is busy")
        with mock.patch.object(D, "run_cmd", failing), mock.patch.object(D, "is_mounted", return_value=True), \
                mock.patch.object(D.time, "sleep"):
            errors = D.teardown(image, None, mount, None)
        self.assertEqual(errors, ["could not unmount %s" % mount])
        self.assertEqual(calls[0], ["umount", mount])
        self.assertIs(bool(os.path.isdir(mount)), True)
        self.assertIs(bool(os.path.exists(image)), True)

    def test_remove_tree(self):
        d = os.path.join(self.tmp, "a", "b")
        os.makedirs(d)
        D.remove_tree(os.path.join(self.tmp, "a"))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "a")))
        D.remove_tree(os.path.join(self.tmp, "a"))             # gone already: no error


class Probes(unittest.TestCase):
    def test_is_mounted(self):
        self.assertIs(bool(D.is_mounted("/proc")), True)
        self.assertIs(bool(D.is_mounted("/")), True)
        with tempfile.TemporaryDirectory() as d:
            self.assertFalse(D.is_mounted(d))

    def test_loop_backing_of_no_device(self):
        self.assertIsNone(D.loop_backing("/dev/loop-steady-none"))

    def test_backing_disk_is_a_whole_disk(self):
        majmin = D.backing_disk(fakes.HERE)
        self.assertRegex(majmin, r"^\d+:\d+$")
        self.assertFalse(os.path.exists("/sys/dev/block/%s/partition" % majmin))

    def test_journal_thread_of_no_device(self):
        moved, msg = D.adopt_journal_thread("/nonexistent", "/dev/loop-steady-none")
        self.assertFalse(moved)
        self.assertEqual(msg, "no jbd2/loop-steady-none-* thread found: journal writes stay uncapped")


class CgroupFiles(unittest.TestCase):
    """A plain directory with the throttle files stands in for a blkio group."""

    def setUp(self):
        self.cg = tempfile.mkdtemp(prefix="steady-test-cg-")
        self.addCleanup(shutil.rmtree, self.cg, True)

    def read(self, key):
        with open(os.path.join(self.cg, "blkio.throttle." + D.THROTTLE_FILES[key])) as f:
            return f.read()

    def test_set_and_clear_caps(self):
        caps = {"write_iops": 3000, "read_iops": 1500, "write_bps": 131072000, "read_bps": 1000}
        D.set_caps(self.cg, "7:3", caps)
        self.assertEqual([self.read(k) for k in caps], ["7:3 3000\n", "7:3 1500\n", "7:3 131072000\n", "7:3 1000\n"])
        D.set_caps(self.cg, "7:3", caps, on=False)
        self.assertEqual({self.read(k) for k in caps}, {"7:3 0\n"})

    def test_no_group_no_caps(self):
        D.set_caps(None, "7:3", {"write_iops": 1})      # nothing to write to: no error
        self.assertEqual(os.listdir(self.cg), [])

    def test_join(self):
        D.join_cgroup(self.cg, 4242)
        with open(os.path.join(self.cg, "cgroup.procs")) as f:
            self.assertEqual(f.read(), "4242\n")

    def test_no_group_without_throttling(self):
        seen = []
        with mock.patch.object(D, "has_blkio_throttle", return_value=False):
            self.assertIsNone(D.make_cgroup("steady-test-none", lambda k, v: seen.append(k)))
        self.assertEqual(seen, [])


class Cli(unittest.TestCase):
    """harness/device.py up/down, the bash callers' interface."""

    def setUp(self):
        self.cache = tempfile.mkdtemp(prefix="steady-test-cache-")
        self.addCleanup(shutil.rmtree, self.cache, True)
        self.env = dict(os.environ, STEADY_CACHE=self.cache)
        self.id = "labtest-%d" % os.getpid()
        self.state = os.path.join(self.cache, "bench", "state", self.id + ".json")

    def cli(self, *args, env=None):
        return subprocess.run([sys.executable, SCRIPT] + list(args), env=env or self.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)

    def test_down_of_unknown_id(self):
        p = self.cli("down", "--id", "never-made")
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""))

    def test_up_refuses_without_tools(self):
        p = self.cli("up", "--id", self.id, "--size-gb", "1",
                     env=dict(self.env, PATH="/nonexistent"))
        self.assertEqual(p.returncode, 77)
        self.assertIn("cannot make the device here", p.stderr)
        self.assertIn("losetup not found", p.stderr)
        self.assertFalse(os.path.exists(self.state))

    def test_usage(self):
        p = self.cli("up", "--id", "x")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--size-gb", p.stderr)

    def force_cleanup(self, out):
        """Whatever `down` left (only if the test failed half-way)."""
        self.cli("down", "--id", self.id)
        mount, loop, cgroup = out.get("MOUNT"), out.get("LOOP"), out.get("CGROUP")
        if mount and D.is_mounted(mount):
            subprocess.run(["umount", "-l", mount])
        image = os.path.join(self.cache, "bench", "images", self.id + ".img")
        if loop and D.loop_backing(loop) == os.path.realpath(image):
            subprocess.run(["losetup", "-d", loop])
        if cgroup and os.path.isdir(cgroup):
            os.rmdir(cgroup)

    @unittest.skipUnless(os.geteuid() == 0 and host_can_make_devices(),
                         "needs root, /dev/loop-control, losetup/mkfs.ext4 and cgroup-v1 blkio throttling")
    def test_up_and_down_for_real(self):
        out = {}
        self.addCleanup(self.force_cleanup, out)
        p = self.cli("up", "--id", self.id, "--size-gb", "1", "--write-iops", "500")
        self.assertEqual(p.returncode, 0, p.stderr)
        out.update(line.split("=", 1) for line in p.stdout.splitlines())
        self.assertEqual(sorted(out), ["CGROUP", "LOOP", "MAJMIN", "MOUNT"])
        loop, majmin, mount, cgroup = out["LOOP"], out["MAJMIN"], out["MOUNT"], out["CGROUP"]
        image = os.path.join(self.cache, "bench", "images", self.id + ".img")

        self.assertEqual(mount, os.path.join(self.cache, "bench", "mnt", self.id))
        self.assertIs(bool(D.is_mounted(mount)), True)
        with open("/proc/self/mounts") as f:
            self.assertIn((loop, mount, "ext4"), [tuple(line.split()[:3]) for line in f])
        self.assertEqual(D.loop_backing(loop), os.path.realpath(image))
        self.assertEqual(os.path.getsize(image), GiB)
        with open("/sys/block/%s/dev" % os.path.basename(loop)) as f:
            self.assertEqual(f.read().strip(), majmin)
        self.assertEqual(cgroup, os.path.join(D.CGROUP_ROOT, "steady-" + self.id))
        with open(os.path.join(cgroup, "blkio.throttle.write_iops_device")) as f:
            self.assertIn("%s 500" % majmin, f.read().splitlines())
        with open(self.state) as f:
            st = json.load(f)
        self.assertEqual((st["loop"], st["mount"], st["cgroup"], st["owner_pid"]),
                         (loop, mount, cgroup, os.getpid()))
        with open(os.path.join(mount, "probe"), "w") as f:   # a usable filesystem
            f.write("x")

        p = self.cli("down", "--id", self.id)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertFalse(D.is_mounted(mount))
        self.assertFalse(os.path.exists(mount))
        self.assertNotEqual(D.loop_backing(loop), os.path.realpath(image))
        self.assertFalse(os.path.exists(image))
        self.assertFalse(os.path.exists(cgroup))
        self.assertFalse(os.path.exists(self.state))

    @unittest.skipUnless(os.geteuid() == 0 and not D.host_problems(
        need_throttle=False, tools=("losetup", "mkfs.xfs", "mount", "umount")),
                         "needs root, /dev/loop-control, losetup and mkfs.xfs (xfsprogs)")
    def test_up_xfs_for_real(self):
        out = {}
        self.addCleanup(self.force_cleanup, out)
        p = self.cli("up", "--id", self.id, "--size-gb", "0.5", "--fs", "xfs")
        self.assertEqual(p.returncode, 0, p.stderr)
        out.update(line.split("=", 1) for line in p.stdout.splitlines())
        with open("/proc/self/mounts") as f:
            self.assertIn((out["LOOP"], out["MOUNT"], "xfs"), [tuple(line.split()[:3]) for line in f])
        p = self.cli("down", "--id", self.id)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertFalse(D.is_mounted(out["MOUNT"]))

    def test_fs_choice_reaches_mkfs(self):
        self.assertEqual(D.MKFS["ext4"][0], "mkfs.ext4")
        self.assertEqual(D.MKFS["xfs"][0], "mkfs.xfs")
        p = self.cli("up", "--id", self.id, "--size-gb", "1", "--fs", "btrfs")
        self.assertEqual(p.returncode, 2)
        self.assertIn("invalid choice", p.stderr)

    @unittest.skipUnless(os.geteuid() == 0 and not D.host_problems(need_throttle=False),
                         "needs root, /dev/loop-control, losetup and mkfs.ext4")
    def test_failed_up_undoes_what_it_made(self):
        # A zero-size image: the loop device attaches, mkfs.ext4 refuses it.
        before = subprocess.run(["losetup", "-a"], stdout=subprocess.PIPE, text=True).stdout
        p = self.cli("up", "--id", self.id, "--size-gb", "0")
        self.addCleanup(self.force_cleanup, {})
        self.assertEqual(p.returncode, 1)
        self.assertIn("mkfs.ext4", p.stderr)
        self.assertFalse(os.path.exists(self.state))
        self.assertEqual(os.listdir(os.path.join(self.cache, "bench", "images")), [])
        self.assertNotIn(self.cache, subprocess.run(["losetup", "-a"], stdout=subprocess.PIPE,
                                                    text=True).stdout.replace(before, ""))


if __name__ == "__main__":
    unittest.main()
