# Steady Server for MySQL: the commands a user runs. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help deps fetch build run stop test unittest vanilla debug vanilla-debug install tarball deb

help:
	@echo "make run      build (first time: over an hour on 2 cores) and start the server"
	@echo "make stop     stop the server started by make run"
	@echo "make test     build what is needed and run every test (unit, harness, lab, mysql-test-run, scripts, crash)"
	@echo "make vanilla  build the vanilla MySQL 9.7.2 twin, same flags, for benchmarks"
	@echo "make debug    build the debug flavour (DBUG, DEBUG_SYNC): make test then runs the debug-only tests"
	@echo "make vanilla-debug  the debug flavour of the vanilla twin (upstream suites, --debug)"
	@echo "make unittest run only the googletest unit tests (seconds, no server)"
	@echo "make install PREFIX=DIR   install the built server into DIR (bin, lib/plugin, share, ...)"
	@echo "make tarball  relocatable tarball, named like Oracle's generic Linux tarballs"
	@echo "make deb      Debian packages, built with Debian's install layout (a build of its own: about an hour)"

deps:
	scripts/install-deps

fetch: deps
	scripts/fetch-upstream

build: deps
	scripts/build

run: deps
	scripts/server start

stop:
	scripts/server stop

test: deps
	scripts/run-tests

unittest:
	scripts/run-tests --only unit

vanilla: deps
	scripts/build --vanilla

debug: deps
	scripts/build --debug

vanilla-debug: deps
	scripts/build --vanilla --debug

install:
	@test -n "$(PREFIX)" || { echo "make install PREFIX=DIR" >&2; exit 2; }
	scripts/install --prefix "$(PREFIX)"

tarball: build
	scripts/package tarball

deb: deps
	scripts/build --deb
	scripts/package deb
