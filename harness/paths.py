#!/usr/bin/env python3
"""Where everything big lives: the one place that knows the cache layout.

Every tool (scripts/server, the crash test, the shell tests, bench/run and
the lab's other tools; bash callers through --shell) asks here, so
STEADY_CACHE and STEADY_BUILD mean the same thing everywhere:

  STEADY_CACHE  root of tarball, trees, build dirs, ccache, bench state
                (default ~/.cache/steady)
  STEADY_BUILD  Steady's build dir (default $STEADY_CACHE/build/steady)

The vanilla twin always lives at $STEADY_CACHE/vanilla/build/steady: the same
relative layout as Steady's, so ccache serves equal objects to both.

Run as a script, prints the layout as shell assignments for bash callers:
  eval "$(python3 harness/paths.py --shell)"
"""

import os
import shlex
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cache_root(env=None):
    """$STEADY_CACHE, or ~/.cache/steady."""
    env = os.environ if env is None else env
    return env.get("STEADY_CACHE") or os.path.expanduser("~/.cache/steady")


def build_dir(flavour="steady", env=None):
    """Build directory of `flavour` ('steady' or 'vanilla')."""
    env = os.environ if env is None else env
    root = cache_root(env)
    if flavour == "steady":
        return env.get("STEADY_BUILD") or os.path.join(root, "build", "steady")
    if flavour == "vanilla":
        return os.path.join(root, "vanilla", "build", "steady")
    raise ValueError("unknown build flavour %r (steady, vanilla)" % flavour)


def tree_dir(flavour="steady", env=None):
    """Source tree that `flavour` is built from (scripts/prepare-tree)."""
    root = cache_root(env)
    if flavour == "steady":
        return os.path.join(root, "tree", "steady")
    if flavour == "vanilla":
        return os.path.join(root, "vanilla", "tree", "steady")
    raise ValueError("unknown build flavour %r (steady, vanilla)" % flavour)


def bench_dir(*parts, env=None):
    """$STEADY_CACHE/bench/...: loop images, mount points, run state."""
    return os.path.join(cache_root(env), "bench", *parts)


def state_dir(env=None):
    """One JSON file per live run: what it made, for --cleanup (harness.resources)."""
    return bench_dir("state", env=env)


def image_dir(env=None):
    """Sparse backing files of the loop devices."""
    return bench_dir("images", env=env)


def mount_dir(env=None):
    """Mount points of the loop filesystems."""
    return bench_dir("mnt", env=env)


def shell_assignments(env=None):
    """The layout as bash assignments (CACHE, BUILD, VANILLA_BUILD, TREE, VANILLA_TREE)."""
    vals = [("CACHE", cache_root(env)), ("BUILD", build_dir("steady", env)),
            ("VANILLA_BUILD", build_dir("vanilla", env)), ("TREE", tree_dir("steady", env)),
            ("VANILLA_TREE", tree_dir("vanilla", env))]
    return "".join("%s=%s\n" % (k, shlex.quote(v)) for k, v in vals)


def main(argv):
    if argv == ["--shell"]:
        sys.stdout.write(shell_assignments())
        return 0
    if argv in (["--help"], ["-h"]):
        print(__doc__.strip())
        return 0
    print("usage: harness/paths.py --shell | --help", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
