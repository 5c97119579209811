# Mastermind lab: `make run` starts the app, `make test` runs every test.
# Both create the virtual environment in .venv and install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-app
TEST_STAMP := $(VENV)/.installed-test
APP_LOCK := requirements/app.txt
TEST_LOCK := requirements/test.txt
LOCK_TOOLS := $(VENV)/lock-tools
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
HOST ?= 127.0.0.1
PORT ?= 5000

TRANSLATIONS := webapp/translations

.PHONY: run test lint chromium servers bench serve classroom upgrade lock clean messages update-messages compile-messages bytecode

# The app alone for `make run` and `make serve`; the test tools too for `make test`.
# Both install exactly the versions (and files, by hash) in requirements/,
# then the app itself without dependencies; a changed lock file reinstalls.
$(STAMP): pyproject.toml $(APP_LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet --require-hashes -r $(APP_LOCK)
	# An editable install by path (compat mode): the checkout on sys.path, with no
	# import hook for every command to load as it starts.
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet --no-deps -e . --config-settings editable_mode=compat
	$(BIN)/python -m webapp.engine.warm  # compile the engine's kernels once, ahead of any request
	touch $(STAMP)

$(TEST_STAMP): $(STAMP) $(TEST_LOCK)
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet --require-hashes -r $(TEST_LOCK)
	touch $(TEST_STAMP)

# Regenerate the lock files from the ranges in pyproject.toml, after a change
# there; pins that still fit are kept. `make lock UPGRADE=1` moves every pin
# to the newest release the ranges allow. The test lock is resolved first (app
# and test tools together) and the app lock is constrained by it, so the app's
# pins are the same in both. pip-tools lives in a venv of its own.
lock:
	[ -x $(LOCK_TOOLS)/bin/pip-compile ] || { $(PYTHON) -m venv $(LOCK_TOOLS) && \
		$(LOCK_TOOLS)/bin/python -m pip install --quiet --upgrade pip 'pip-tools>=7.4'; }
	mkdir -p requirements
	CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_TOOLS)/bin/pip-compile --quiet --generate-hashes \
		--strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links $(if $(UPGRADE),--upgrade) \
		--extra test -o $(TEST_LOCK) pyproject.toml
	CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_TOOLS)/bin/pip-compile --quiet --generate-hashes \
		--strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links $(if $(UPGRADE),--upgrade) \
		-c $(TEST_LOCK) -o $(APP_LOCK) pyproject.toml

run: $(STAMP) compile-messages bytecode upgrade
	$(BIN)/flask --app webapp run --host $(HOST) --port $(PORT)

# Bring the database (DATABASE_URL, or the SQLite file in instance/) up to
# this release's schema: the Alembic revisions it has not had. Back it up first.
upgrade: $(STAMP)
	$(BIN)/flask --app webapp db upgrade

# Production-style: gunicorn with deploy/gunicorn.conf.py, four worker
# processes of 128 threads each sharing one SQLite file (a live classroom's
# event stream holds a thread while it waits; 8 per worker stay free for
# every other request). Facing the internet, this sits behind nginx
# (deploy/nginx.conf), which reads whole requests first.
serve: $(STAMP) compile-messages bytecode upgrade
	$(BIN)/gunicorn -c deploy/gunicorn.conf.py --bind $(HOST):$(PORT)

# A live class from the teacher's own computer (webapp/classroom.py): gunicorn
# with deploy/gunicorn.conf.py's settings but one worker, on every address of
# this machine; PUBLIC_URL and TRUSTED_HOSTS name its address on the Wi-Fi, so
# the join link and QR code it prints open on the students' phones.
# `make classroom HOST=192.168.1.23` serves that one address.
classroom: $(STAMP) compile-messages bytecode upgrade
	$(BIN)/python -m webapp.classroom --port $(PORT)$(if $(filter command line,$(origin HOST)), --host $(HOST))

# The app's modules compiled to bytecode ahead of use (only the changed ones;
# a few hundredths of a second when nothing changed), so no command compiles
# them as it starts, even where PYTHONDONTWRITEBYTECODE keeps Python from
# saving what it compiles.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q webapp

# Browser tests use Debian's Chromium; install it when it is missing.
chromium:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update && \
		$(SUDO) apt-get install -y --no-install-recommends chromium; }

# The store, API, job and challenge tests also run on real PostgreSQL and
# Redis servers, the benchmarks' smoke run behind nginx, and the metrics
# under a real Prometheus (with promtool for the alert rules), which the
# tests start themselves from Debian's packages.
servers:
	@{ ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && command -v redis-server >/dev/null 2>&1 && \
		{ command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; } && \
		command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; } || \
		{ $(SUDO) apt-get update && \
		$(SUDO) apt-get install -y --no-install-recommends postgresql redis-server nginx prometheus; }

# Lint and format (ruff), types (mypy: strict on the engine), then every test.
test: $(TEST_STAMP) compile-messages bytecode chromium servers lint
	$(BIN)/python -m pytest -n auto --dist loadgroup

lint: $(TEST_STAMP)
	$(BIN)/ruff check webapp tests benchmarks
	$(BIN)/ruff format --check webapp tests benchmarks
	$(BIN)/mypy

bench: $(TEST_STAMP) bytecode servers
	$(BIN)/python -m benchmarks

# The language catalogues (German and Spanish; English is the source):
# `make messages` extracts every message into messages.pot, `make
# update-messages` merges it into each language's .po file (new messages
# arrive empty, for a translator to fill), and `make compile-messages` builds
# the .mo files the app reads (`make run`, `make serve` and `make test` do it
# first); the .mo files are never committed or edited by hand.
messages: $(STAMP)
	$(BIN)/pybabel -q extract -F babel.cfg -k lazy_gettext --sort-by-file --no-wrap \
		--project "Mastermind lab" -o $(TRANSLATIONS)/messages.pot .

update-messages: messages
	$(BIN)/pybabel update --no-fuzzy-matching --ignore-obsolete --no-wrap -i $(TRANSLATIONS)/messages.pot -d $(TRANSLATIONS)

compile-messages: $(STAMP)
	$(BIN)/pybabel -q compile -d $(TRANSLATIONS)

clean:
	rm -rf $(VENV) test-results .pytest_cache
