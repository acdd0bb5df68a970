# Two commands for a new user: `make demo` and `make test`. Each creates .venv if missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint venv clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

## Run a one-shot edit on a copy of examples/repo against the bundled engine (no key needed).
demo: $(STAMP)
	$(BIN)/python examples/demo.py

## Lint, check the import contracts and the types, run the whole test suite.
test: $(STAMP)
	$(BIN)/ruff check spark_cli tests examples
	$(BIN)/lint-imports
	$(BIN)/mypy
	env -u TERM $(BIN)/python -m pytest </dev/null

lint: $(STAMP)
	$(BIN)/ruff check spark_cli tests examples
	$(BIN)/lint-imports
	$(BIN)/mypy

clean:
	rm -rf $(VENV)
