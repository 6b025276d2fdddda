"""Modules of scripts/upstream-suites: mtrlog (parsing), report (diff and diff.md)."""
