# Mastermind lab: `make run` starts the app, `make test` runs every test.
# Both create the virtual environment in .venv and install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-app
TEST_STAMP := $(VENV)/.installed-test
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run test chromium servers bench serve clean

# The app alone for `make run` and `make serve`; the test tools too for `make test`.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e .
	$(BIN)/python -m webapp.engine.kernels  # compile the engine's kernels once, ahead of any request
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(TEST_STAMP)

run: $(STAMP)
	$(BIN)/flask --app webapp run --host $(HOST) --port $(PORT)

# Production-style: gunicorn, four worker processes of four threads each
# sharing one SQLite file (threads keep a slow client from holding a whole
# worker); put a buffering proxy in front when it faces the internet.
serve: $(STAMP)
	$(BIN)/gunicorn --workers 4 --worker-class gthread --threads 4 --bind $(HOST):$(PORT) 'webapp:create_app()'

# Browser tests use Debian's Chromium; install it when it is missing.
chromium:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update && \
		$(SUDO) apt-get install -y --no-install-recommends chromium; }

# The store, API, job and challenge tests also run on real PostgreSQL and
# Redis servers, which the tests start themselves from Debian's packages.
servers:
	@{ ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && command -v redis-server >/dev/null 2>&1; } || \
		{ $(SUDO) apt-get update && $(SUDO) apt-get install -y --no-install-recommends postgresql redis-server; }

test: $(TEST_STAMP) chromium servers
	$(BIN)/python -m pytest

bench: $(TEST_STAMP) servers
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) test-results .pytest_cache
