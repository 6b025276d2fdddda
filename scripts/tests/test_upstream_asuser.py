"""scripts/upstream-suites --user: mtr run as an ordinary user.  The pure
parts (argv prefix, var root, planned steps, refusals) run anywhere; the
parts that chown and switch users run only as root (as `make test` does
here) against a fake mtr that records who ran it, and skip otherwise."""

import datetime
import io
import os
import pwd
import shutil
import stat
import tempfile
import unittest

from upstream_fixtures import STEADY_LOG, U, VANILLA_LOG

A = U.asuser

WHO_MTR = """\
#!/bin/sh
# Stands in for mysql-test-run.pl: records who runs it and its arguments.
here=$(cd "$(dirname "$0")" && pwd)
{ id -un; printf '%s\\n' "$@"; } > "$here/args"
cat "$here/canned.log"
exit 1
"""


def nobody():
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        return None


class Pure(unittest.TestCase):
    def test_prefix_and_var_dirs(self):
        self.assertEqual(A.prefix(None), [])
        self.assertEqual(A.prefix("mtr"), ["runuser", "-u", "mtr", "--"])
        self.assertEqual(U.var_dir("steady", True, "/c", "mtr"), "/c/upstream-var/as-mtr/steady-debug")
        self.assertEqual(U.var_dir("vanilla", False, "/c"), "/c/upstream-var/vanilla")
        self.assertEqual(U.mtr_command(["main"], [], "/v", "2", [], "mtr")[:5],
                         ["runuser", "-u", "mtr", "--", "./mtr"])

    def test_planned_steps(self):
        self.assertEqual(A.plan_actions(["/b/s", "/b/v"], "/c/upstream-var/as-mtr"), [
            ("group-writable", "/b/s/runtime_output_directory"),
            ("group-writable", "/b/s/plugin_output_directory"),
            ("group-writable", "/b/v/runtime_output_directory"),
            ("group-writable", "/b/v/plugin_output_directory"),
            ("owned-dir", "/c/upstream-var/as-mtr")])

    def test_refusals(self):
        with self.assertRaisesRegex(U.UsageError, "needs root"):
            A.lookup("nobody", 1000)
        with self.assertRaisesRegex(U.UsageError, "no such user.*useradd -m no-such-user-x"):
            A.lookup("no-such-user-x", 0)
        with self.assertRaisesRegex(U.UsageError, "is root"):
            A.lookup("root", 0)


@unittest.skipUnless(os.geteuid() == 0 and nobody(), "needs root and the user nobody (runuser, chown)")
class AsNobody(unittest.TestCase):
    NOW = datetime.datetime(2026, 11, 28, 7, 0, tzinfo=datetime.timezone.utc)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="upstream-suites-asuser-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        os.chmod(self.tmp, 0o755)                   # nobody may traverse it
        self.cache = os.path.join(self.tmp, "cache")
        self.pw = nobody()

    def make_build(self, rel, log):
        b = os.path.join(self.cache, rel)
        d = os.path.join(b, "mysql-test")
        os.makedirs(d)
        for sub in A.BUILD_DIRS_MTR_WRITES:
            os.makedirs(os.path.join(b, sub))
        for p in [self.cache] + [os.path.join(self.cache, *rel.split("/")[:i + 1]) for i in range(len(rel.split("/")))]:
            os.chmod(p, 0o755)
        with open(os.path.join(d, "mtr"), "w") as f:
            f.write(WHO_MTR)
        with open(os.path.join(d, "canned.log"), "w") as f:
            f.write(log.split("upstream-suites: mtr exit")[0])
        os.chmod(os.path.join(d, "mtr"), 0o755)
        os.chmod(d, 0o777)                           # the fake writes its args file here
        return b

    def main(self, argv):
        out, err = io.StringIO(), io.StringIO()
        rc = U.main(argv, env={"STEADY_CACHE": self.cache}, out=out, err=err, now=self.NOW)
        return rc, out.getvalue(), err.getvalue()

    def test_runs_mtr_as_the_user(self):
        sb = self.make_build("build/steady", STEADY_LOG)
        vb = self.make_build("vanilla/build/steady", VANILLA_LOG)
        res = os.path.join(self.tmp, "res")
        rc, out, err = self.main(["--suites", "innodb", "--user", "nobody", "--results", res])
        self.assertEqual(rc, 1, out + err)                      # the canned logs differ
        for b, server in ((sb, "steady"), (vb, "vanilla")):
            with open(os.path.join(b, "mysql-test", "args")) as f:
                args = f.read().splitlines()
            self.assertEqual(args[0], "nobody")                 # not root
            self.assertIn("--vardir=" + os.path.join(self.cache, "upstream-var", "as-nobody", server), args)
            for sub in A.BUILD_DIRS_MTR_WRITES:
                st = os.stat(os.path.join(b, sub))
                self.assertEqual(st.st_gid, self.pw.pw_gid)
                self.assertEqual(stat.S_IMODE(st.st_mode) & 0o070, 0o070)   # group rwx
        self.assertEqual(os.stat(os.path.join(self.cache, "upstream-var", "as-nobody")).st_uid, self.pw.pw_uid)
        with open(os.path.join(res, "steady.log")) as f:
            self.assertIn("runuser -u nobody -- ./mtr --suite=innodb", f.read())
        with open(os.path.join(res, "diff.md")) as f:
            self.assertIn("--user nobody", f.read())

    def test_unreachable_build_runs_nothing(self):
        sb = self.make_build("build/steady", STEADY_LOG)
        os.chmod(os.path.join(self.cache, "build"), 0o700)
        rc, out, err = self.main(["--suites", "innodb", "--servers", "steady", "--user", "nobody",
                                  "--results", os.path.join(self.tmp, "r")])
        self.assertEqual(rc, 2, out + err)
        self.assertIn("--user nobody cannot reach %s/mysql-test/mtr" % sb, err)
        self.assertFalse(os.path.exists(os.path.join(sb, "mysql-test", "args")))
        self.assertFalse(os.path.exists(os.path.join(self.cache, "upstream-var")))

    def test_dry_run_shows_runuser(self):
        self.make_build("build/steady", STEADY_LOG)
        rc, out, err = self.main(["--suites", "main", "--servers", "steady", "--user", "nobody", "--dry-run"])
        self.assertEqual(rc, 0, err)
        self.assertIn("runuser -u nobody -- ./mtr --suite=main --vardir=%s"
                      % os.path.join(self.cache, "upstream-var", "as-nobody", "steady"), out)
        self.assertFalse(os.path.exists(os.path.join(self.cache, "upstream-var")))


if __name__ == "__main__":
    unittest.main()
