# dlqhandler: every target creates .venv and installs what it needs.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_HOME := $(CURDIR)/.dlqhandler-demo
PYTEST_ARGS ?=

.PHONY: all install demo test lint format bench reliability drain-demo clean constants mqi-standin

all: test

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,spark]'
	@# The Spark JVM's class-data archive (docs/performance.md): Spark commands start
	@# faster with it and work without it, so a failure here is said, not fatal.
	$(BIN)/python -m dlqhandler.spark.cds || echo "make install: no Spark class-data archive (Spark starts slower)"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	DLQHANDLER_HOME=$(DEMO_HOME) $(BIN)/python samples/demo.py

test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow and not reliability" $(PYTEST_ARGS)

PY_TREES := dlqhandler tests benchmarks samples ops setup.py

lint: $(STAMP)
	$(BIN)/ruff format --check $(PY_TREES)
	$(BIN)/ruff check $(PY_TREES)
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format $(PY_TREES)

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

reliability: $(STAMP)
	$(BIN)/python -m pytest -q -m reliability tests/reliability $(PYTEST_ARGS)

drain-demo: $(STAMP)
	rm -rf demo-out/drain
	$(BIN)/dlqhandler drain --rules rules/demo.rul --input samples/backlog-small.dmp \
		--output demo-out/drain --catch-all DLQ.CATCHALL
	@echo "outputs in demo-out/drain (manifest.json, one dmpmqmsg file per target, audit/)"

# The MQI stand-in: IBM's ibmmq package on the embedded queue managers under
# $$DLQHANDLER_HOME. Usage: eval "$$(make -s mqi-standin)"
mqi-standin: $(STAMP)
	@$(BIN)/python -m tests.mqi.build

constants: $(STAMP)
	$(BIN)/python -m dlqhandler.mq._generate_constants dlqhandler/mq/data/mq-constants.json

clean:
	rm -rf $(VENV) $(DEMO_HOME) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
