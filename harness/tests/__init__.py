"""Unit tests of the harness (python3 -m unittest discover -s harness/tests).
A package so that the lab's tests can share its fakes (harness.tests.fakes)."""
