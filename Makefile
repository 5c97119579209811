# Mastermind lab: `make run` starts the app, `make test` runs every test.
# Both create the virtual environment in .venv and install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run test chromium bench serve clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/flask --app webapp run --host $(HOST) --port $(PORT)

# Production-style: gunicorn with four worker processes sharing one SQLite file.
serve: $(STAMP)
	$(BIN)/gunicorn --workers 4 --bind $(HOST):$(PORT) 'webapp:create_app()'

# Browser tests use Debian's Chromium; install it when it is missing.
chromium:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update && \
		$(SUDO) apt-get install -y --no-install-recommends chromium; }

test: $(STAMP) chromium
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) test-results .pytest_cache
