"""Compare the verdicts of two servers and render diff.md: pure functions,
no processes. See scripts/upstream-suites --help for what counts as
"only on Steady".
"""

from collections import Counter

from .mtrlog import *  # noqa: F401,F403  (VERDICTS, NOT_RUN, SERVERS, ...)


# ---------------------------------------------------------------- diff

def suite_of(test):
    """"innodb.foo 'x'" -> "innodb"."""
    return test.split(".", 1)[0]


def count_by_suite(results):
    """{test: (verdict, reason)} -> {suite: Counter(verdict)}, suites sorted."""
    out = {}
    for test, (verdict, _) in results.items():
        out.setdefault(suite_of(test), Counter())[verdict] += 1
    return dict(sorted(out.items()))


def steady_only(steady_verdict, vanilla_verdict):
    """True when Steady fails or skips a test vanilla does not: see --help.
    A verdict is None when that server has no line for the test."""
    s, v = steady_verdict, vanilla_verdict
    if s == "fail":
        return v != "fail"
    if s in ("skipped", "disabled", None):
        return v == "pass"
    return False


def diff_runs(steady, vanilla):
    """Two {test: (verdict, reason)} -> (differ, only_steady): lists of
    (test, steady verdict, steady reason, vanilla verdict, vanilla reason),
    sorted by test, a verdict None where a server has no line for the test.
    differ holds every test whose verdicts differ, only_steady those that
    fail or skip only on Steady."""
    differ, only = [], []
    for test in sorted(set(steady) | set(vanilla)):
        s, sr = steady.get(test, (None, ""))
        v, vr = vanilla.get(test, (None, ""))
        if s == v:
            continue
        row = (test, s, sr, v, vr)
        differ.append(row)
        if steady_only(s, v):
            only.append(row)
    return differ, only


def exit_status(runs):
    """{server: MtrRun} -> this tool's exit status (see --help)."""
    if "steady" in runs and "vanilla" in runs:
        _, only = diff_runs(runs["steady"].results, runs["vanilla"].results)
        checks = [c for c, (v, _) in runs["steady"].checks.items()
                  if v == "fail" and runs["vanilla"].checks.get(c, (None,))[0] != "fail"]
        bad = only or checks
    else:
        bad = any(v == "fail" for r in runs.values()
                  for v, _ in list(r.results.values()) + list(r.checks.values()))
    empty = any(r.source == "log" and not r.results for r in runs.values())
    return EXIT_STEADY_ONLY if bad or empty else EXIT_OK


# ---------------------------------------------------------------- report

def md_cell(text):
    """Text safe inside a markdown table cell."""
    return one_line(str(text)).replace("\\", "\\\\").replace("|", "\\|").replace("`", "'")


def fmt_seconds(secs):
    if secs is None:
        return "unknown"
    secs = int(round(secs))
    return "%d:%02d:%02d" % (secs // 3600, secs // 60 % 60, secs % 60)


def verdict_cell(v):
    return v if v is not None else NOT_RUN


def diff_table(rows, names):
    out = ["| test | %s | %s reason | %s | %s reason |" % (names[0], names[0], names[1], names[1]),
           "|---|---|---|---|---|"]
    for test, s, sr, v, vr in rows:
        out.append("| %s | %s | %s | %s | %s |" % (md_cell(test), verdict_cell(s), md_cell(sr),
                                                  verdict_cell(v), md_cell(vr)))
    return out


def render_markdown(runs, info):
    """{server: MtrRun} in run order, and info (title facts: suites,
    command, date, builds {server: path}, sources {server: text}) ->
    diff.md text.  Names no dated path: tests/docs/check-links would want
    it in docs/bench/index.md."""
    names = list(runs)
    out = ["# Upstream mtr suites: %s" % " vs ".join(names), ""]
    out.append("- Suites: %s" % info.get("suites", "?"))
    for key, label in (("date", "Run"), ("command", "Command")):
        if info.get(key):
            out.append("- %s: %s" % (label, "`%s`" % info[key] if key == "command" else info[key]))
    out.append("")
    both = "steady" in runs and "vanilla" in runs
    if both:
        differ, only = diff_runs(runs["steady"].results, runs["vanilla"].results)
        if only:
            out.append("**%d test(s) fail or skip only on Steady.**" % len(only))
        else:
            out.append("**No test fails or skips only on Steady.**")
        out.append("")

    out += ["## Runs", "", "| server | build | results | run time | mtr summary | internal checks | doubts |",
            "|---|---|---|---|---|---|---|"]
    for name, run in runs.items():
        checks = ", ".join("%s %s" % (c, v) for c, (v, _) in run.checks.items()) or "-"
        summary = run.summary or ("-" if run.source == "csv" else "none: " + (run.error or "mtr stopped early"))
        doubts = "; ".join(parse_problems(run)) or "-"
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            name, md_cell(info.get("builds", {}).get(name, "-")), info.get("sources", {}).get(name, "-"),
            fmt_seconds(run.wall_seconds), md_cell(summary), md_cell(checks), md_cell(doubts)))
    out.append("")

    out += ["## Counts per suite", "", "| suite | server | pass | fail | skipped | disabled | total |",
            "|---|---|---|---|---|---|---|"]
    counts = {n: count_by_suite(r.results) for n, r in runs.items()}
    for suite in sorted(set().union(*[set(c) for c in counts.values()]) if counts else []):
        for n in names:
            c = counts[n].get(suite, Counter())
            out.append("| %s | %s | %d | %d | %d | %d | %d |" % (
                suite, n, c["pass"], c["fail"], c["skipped"], c["disabled"], sum(c.values())))
    for n in names:
        c = sum(counts[n].values(), Counter())
        out.append("| **all** | %s | %d | %d | %d | %d | %d |" % (
            n, c["pass"], c["fail"], c["skipped"], c["disabled"], sum(c.values())))
    out.append("")

    if both:
        out += ["## Tests that fail or skip only on Steady", ""]
        out += diff_table(only, ["steady", "vanilla"]) if only else ["None."]
        out += ["", "## Every test whose verdict differs", ""]
        out += diff_table(differ, ["steady", "vanilla"]) if differ else ["None."]
        out.append("")
    else:
        for n, run in runs.items():
            fails = [(t, r) for t, (v, r) in sorted(run.results.items()) if v == "fail"]
            out += ["## Failures on %s" % n, ""]
            if fails:
                out += ["| test | reason |", "|---|---|"]
                out += ["| %s | %s |" % (md_cell(t), md_cell(r)) for t, r in fails]
            else:
                out.append("None.")
            out.append("")
        out += ["Only %s ran: no comparison." % ", ".join(names), ""]
    return "\n".join(out)
