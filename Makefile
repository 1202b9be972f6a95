# The two set-up commands of the README. Each creates the virtual environment it needs (.venv)
# and installs tablecert into it from this checkout; nothing is installed by hand.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PACKAGES := tablecert oracle vectors harness reports rng fuzz parallel

.PHONY: demo test bench docs clean bytecode

$(BIN)/.tablecert-installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,bench,peers]'
	$(MAKE) bytecode
	touch $@

## bytecode: the package's bytecode beside its sources, as installing a wheel writes it (an editable
## install writes none, and a confined vendor cannot: without it the reference vendor compiled its
## modules at every start, every restart of a live run; benchmarks/bench_cut_cost.py counts them)
bytecode:
	$(BIN)/python -m compileall -q $(PACKAGES)

## demo: the main job on built-in defaults
demo: $(BIN)/.tablecert-installed
	$(BIN)/tablecert demo

## test: the whole test suite (what CI runs)
test: $(BIN)/.tablecert-installed
	bash .ci/system-packages
	@echo "make test: about 17 to 20 minutes on 2 idle cores (1,009 to 1,177 s with the install, 958 to 1,121 s of pytest, four runs on 2026-12-07 at 1.2.0), several times that on a busy machine (docs/internals/benchmarks.md)"
	$(BIN)/python -m pytest

## bench: the benchmarks under benchmarks/
bench: $(BIN)/.tablecert-installed
	$(BIN)/python benchmarks/bench_labels.py

## docs: the documentation site (mkdocs, docs/) into site/; the command reference is generated from the parsers
docs: $(BIN)/.tablecert-installed
	$(BIN)/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) build dist *.egg-info site
