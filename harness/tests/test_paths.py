"""harness.paths: STEADY_CACHE and STEADY_BUILD decide every location, the same
way for Python callers and for bash callers (--shell).

Run: python3 -m unittest discover -s harness/tests -v
"""

import os
import subprocess
import sys
import unittest

import fakes
from harness import paths as P

SCRIPT = os.path.join(fakes.HARNESS, "paths.py")


class Locations(unittest.TestCase):
    def test_cache_root_from_env_or_home(self):
        self.assertEqual(P.cache_root({"STEADY_CACHE": "/c"}), "/c")
        self.assertEqual(P.cache_root({}), os.path.expanduser("~/.cache/steady"))
        self.assertEqual(P.cache_root({"STEADY_CACHE": ""}), os.path.expanduser("~/.cache/steady"))

    def test_build_dirs(self):
        env = {"STEADY_CACHE": "/c"}
        self.assertEqual(P.build_dir("steady", env), "/c/build/steady")
        self.assertEqual(P.build_dir("vanilla", env), "/c/vanilla/build/steady")
        env["STEADY_BUILD"] = "/elsewhere/b"
        self.assertEqual(P.build_dir("steady", env), "/elsewhere/b")
        # STEADY_BUILD is Steady's build only; the vanilla twin stays in the cache.
        self.assertEqual(P.build_dir("vanilla", env), "/c/vanilla/build/steady")
        with self.assertRaisesRegex(ValueError, "unknown build flavour 'mariadb'"):
            P.build_dir("mariadb", env)

    def test_trees_and_bench_dirs(self):
        env = {"STEADY_CACHE": "/c", "STEADY_BUILD": "/b"}
        self.assertEqual(P.tree_dir("steady", env), "/c/tree/steady")
        self.assertEqual(P.tree_dir("vanilla", env), "/c/vanilla/tree/steady")
        with self.assertRaises(ValueError):
            P.tree_dir("other", env)
        self.assertEqual(P.state_dir(env), "/c/bench/state")
        self.assertEqual(P.image_dir(env), "/c/bench/images")
        self.assertEqual(P.mount_dir(env), "/c/bench/mnt")
        self.assertEqual(P.bench_dir("a", "b", env=env), "/c/bench/a/b")

    def test_default_env_is_the_process_environment(self):
        old = os.environ.get("STEADY_CACHE")
        os.environ["STEADY_CACHE"] = "/from/environ"
        try:
            self.assertEqual(P.state_dir(), "/from/environ/bench/state")
            self.assertEqual(P.build_dir(), os.environ.get("STEADY_BUILD") or "/from/environ/build/steady")
        finally:
            if old is None:
                del os.environ["STEADY_CACHE"]
            else:
                os.environ["STEADY_CACHE"] = old

    def test_repo_constants_point_at_this_checkout(self):
        self.assertEqual(P.REPO, fakes.REPO)
        self.assertIs(bool(os.path.isfile(os.path.join(P.REPO, "harness", "paths.py"))), True)


class Shell(unittest.TestCase):
    """eval "$(python3 harness/paths.py --shell)" gives bash the same values."""

    def shell_values(self, env):
        full = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/root")}
        full.update(env)
        out = subprocess.run(
            ["bash", "-c", 'eval "$("$0" "$1" --shell)" && printf "%s\\n" "$CACHE" "$BUILD" '
             '"$VANILLA_BUILD" "$TREE" "$VANILLA_TREE"', sys.executable, SCRIPT],
            env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
        return out.stdout.splitlines(), full

    def expected(self, env):
        return [P.cache_root(env), P.build_dir("steady", env), P.build_dir("vanilla", env),
                P.tree_dir("steady", env), P.tree_dir("vanilla", env)]

    def test_cache_with_awkward_characters(self):
        got, env = self.shell_values({"STEADY_CACHE": "/tmp/a dir/it's $HOME"})
        self.assertEqual(got, self.expected(env))
        self.assertEqual(got[1], "/tmp/a dir/it's $HOME/build/steady")

    def test_steady_build_honoured(self):
        got, env = self.shell_values({"STEADY_CACHE": "/c", "STEADY_BUILD": "/my build"})
        self.assertEqual(got, self.expected(env))
        self.assertEqual(got[1], "/my build")

    def test_default_cache(self):
        got, env = self.shell_values({"HOME": "/home/someone"})
        self.assertEqual(got[0], "/home/someone/.cache/steady")
        self.assertEqual(got[2], "/home/someone/.cache/steady/vanilla/build/steady")

    def test_usage(self):
        p = subprocess.run([sys.executable, SCRIPT, "--bogus"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("usage: harness/paths.py --shell", p.stderr)
        p = subprocess.run([sys.executable, SCRIPT, "--help"], stdout=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0)
        self.assertIn("STEADY_CACHE", p.stdout)


if __name__ == "__main__":
    unittest.main()
