# The two commands of a fresh machine: `make site` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PROFILE ?= quick

.PHONY: install site build pdf retest test test-slow test-all verify serve clean

install: $(VENV)/.installed

# requirements.lock pins every package (transitively); pyproject.toml pins the direct ones.
$(VENV)/.installed: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $@

# Quick retest on this machine, then the site from all committed and new runs.
site: install
	$(BIN)/reportgen retest --profile $(PROFILE)
	$(BIN)/reportgen build
	$(BIN)/reportgen pdf

# The PDF (site/study.pdf) needs Debian's chromium; without it `reportgen pdf` says so and skips.
build: install
	$(BIN)/reportgen build
	$(BIN)/reportgen pdf

pdf: install
	$(BIN)/reportgen pdf

retest: install
	$(BIN)/reportgen retest --profile $(PROFILE)

verify: install
	$(BIN)/reportgen verify

serve: install
	$(BIN)/reportgen serve

# Tiers: `test` is the fast tier (unit, site from committed results, browser); `test-slow` runs
# the real (quick-profile) experiments and every test that compiles with TVM or builds/trains a
# model; `test-all` is both in one run. CI runs `test` then `test-slow`.
# The fast tier runs one pytest-xdist worker per core (at most 4), a file's tests on one worker
# (module fixtures such as the two-machine site are built once); the slow tier stays in one
# process, since its experiments already use every core.
test: install
	$(BIN)/python -m pytest -q -rs -m "not slow" -n auto --maxprocesses=4 --dist loadfile

test-slow: install
	$(BIN)/python -m pytest -q -rs -m slow

test-all: install
	$(BIN)/python -m pytest -q -rs

clean:
	rm -rf site site.tmp site.old .cache
