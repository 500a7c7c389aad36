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
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

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

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
