# The README's two commands: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint format bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/rummy-bot $(ARGS)

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/pytest

# lint-imports: the layer contracts of pyproject.toml [tool.importlinter]
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python -m benchmarks $(ARGS)

# The stateful tests run long (issue 13): FUZZ_STEPS rule steps per configuration (default
# 100000), FUZZ_SECONDS at most per configuration, FUZZ_ONLY=stein,rummikub to choose.
.PHONY: fuzz
fuzz: $(STAMP)
	nice $(BIN)/python -m benchmarks.fuzz $(ARGS)

# Mutation testing of the rules (issue 13, not in CI): mutmut over engine/melds.py, engine/scoring.py
# and the rule checks of engine/tiles.py and engine/cards.py, in a snapshot under mutation/work;
# prints the share of mutants killed per file. ARGS=melds (or scoring, tiles, cards) for one file.
.PHONY: mutation
mutation: $(VENV)/.mutation-installed
	nice -n 10 $(BIN)/python mutation/run.py $(ARGS)

$(VENV)/.mutation-installed: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,mutation]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
