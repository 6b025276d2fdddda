"""Modules of scripts/upstream-suites: mtrlog (parsing), report (diff and diff.md),
asuser (running mtr as an ordinary user)."""
