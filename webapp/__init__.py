"""Mastermind lab: play Mastermind in the browser and watch codebreaking
algorithms at work. ``create_app`` builds the Flask application."""

from __future__ import annotations

import os

# The checkout (a plain path: pathlib would cost the command line's start-up).
ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def defaults() -> dict:
    """Every setting's value before the environment and a mapping change it
    (the job, live-event and rate-limit settings add their own: ``jobs``,
    ``events`` and ``web.limits``)."""
    from .engine.lines import DEEPEST_LINE_CODES

    return dict(
        # Records: the SQLite file DATABASE, unless DATABASE_URL names another
        # database (postgresql://user:password@host/name, or sqlite:///path).
        DATABASE=os.path.join(ROOT, "instance", "mastermind.sqlite3"),
        DATABASE_URL=os.environ.get("DATABASE_URL") or None,
        DATABASE_POOL_SIZE=8,  # PostgreSQL connections per process, at most
        DATABASE_POOL_TIMEOUT=5.0,  # seconds a request waits for one before a 503
        # What several servers must share (the job queue, rate-limit counters)
        # goes to this Redis when set; otherwise it stays on this machine.
        REDIS_URL=os.environ.get("REDIS_URL") or None,
        # Behind a reverse proxy (nginx): how many proxies set X-Forwarded-For,
        # so rate limits count the client's own address. 0 trusts no header.
        PROXIES=0,
        # The site's public address (https://mastermind.example): the links the
        # app gives out and the origin its forms must come from. Unset, the
        # request's own address, for a host in TRUSTED_HOSTS (this machine's
        # names unless configured: a list, or a comma-separated TRUSTED_HOSTS).
        PUBLIC_URL=os.environ.get("PUBLIC_URL") or None,
        TRUSTED_HOSTS=[h.strip() for h in os.environ["TRUSTED_HOSTS"].split(",")]
        if os.environ.get("TRUSTED_HOSTS")
        else None,
        MAX_CONTENT_LENGTH=16 * 1024,
        MAX_FORM_MEMORY_SIZE=16 * 1024,
        # How much engine work one request may do, in (guess, code) pairs
        # scored over all its engine calls (about half a second on a 2-core
        # machine). Work beyond it runs as a background job with its progress
        # shown, or the page leaves that part out and says why.
        REQUEST_BUDGET=400_000_000,
        # The deepest adversary needs a whole decision tree: built within a
        # request for sizes up to this many codes.
        SOLVER_TREE_CODES=DEEPEST_LINE_CODES,
        # The engine's compiled kernels (numba): "background" loads them in a
        # thread as the app starts, so it serves at once (small work runs in
        # numpy meanwhile); True loads them before serving; False on the
        # first piece of work large enough to need them.
        WARM_UP="background",
        # Games still being played but untouched this many days are deleted
        # (the hourly sweep, and `flask expire-games`); 0 keeps everything.
        GAME_RETENTION_DAYS=30,
        # A browser's anonymous player token with no game for this many days
        # is let go (its games stay, tied to nobody); 0 keeps them.
        PLAYER_RETENTION_DAYS=365,
        # The daily puzzle's key; unset, a random key kept in the database.
        DAILY_KEY=os.environ.get("DAILY_KEY") or None,
    )


def configure(config, overrides=None) -> None:
    """Fill ``config`` (a ``flask.Config``) as every process of a site reads
    it, the web app and the job consumer alike: the defaults, then each
    ``MASTERMIND_<SETTING>`` of the environment (a JSON value, else text),
    then ``overrides``, which win."""
    config.from_mapping(defaults())
    config.from_prefixed_env("MASTERMIND")
    if overrides:
        config.update(overrides)


def create_app(config=None):
    """Build the app; ``config`` is a mapping applied over the defaults and
    the environment (see :func:`configure`)."""
    from flask import Flask  # here, so the command line starts without Flask

    app = Flask(
        __name__,
        instance_path=os.path.join(ROOT, "instance"),
        template_folder=os.path.join(ROOT, "templates"),
        static_folder=os.path.join(ROOT, "static"),
    )
    configure(app.config, config)
    if not app.config["DATABASE_URL"]:
        os.makedirs(os.path.dirname(os.path.abspath(app.config["DATABASE"])), exist_ok=True)

    from . import events, jobs, logs, metrics, store, web
    from .engine import warm

    logs.configure(app.config)

    if app.config["WARM_UP"] == "background":
        import threading

        threading.Thread(target=warm.warm_up, name="kernel warm-up", daemon=True).start()
    elif app.config["WARM_UP"]:
        warm.warm_up()

    app.extensions["store"] = store.open_database(app.config)
    app.extensions["metrics"] = metrics.Metrics(app.config)
    bind_store(app)
    jobs.init_app(app)
    events.init_app(app)
    web.init_app(app)
    return app


def bind_store(app) -> None:
    """Every app context (so every request) is a unit of work of the store:
    one connection, opened when first used and handed back at its end. Adds
    ``flask db upgrade`` and ``flask db current`` for operators."""
    import click
    from flask import appcontext_pushed, g
    from flask.cli import AppGroup

    from . import store

    def enter(sender, **_):
        read_only = bool(app.config.get("DATABASE_READ_ONLY"))
        g.setdefault("store_scopes", []).append(store.enter(app.extensions["store"], read_only))

    appcontext_pushed.connect(enter, app, weak=False)

    behind = store.schema.behind(app.extensions["store"])
    if behind is not None:
        app.logger.error(
            "the database is at revision %s, this release needs %s: run `flask --app webapp db upgrade`",
            behind,
            store.schema.head(),
        )

        @app.before_request
        def needs_upgrade():
            from flask import request
            from flask_babel import gettext

            from .web.errors import error_response
            from .web.security import PROBES

            if request.endpoint in PROBES:  # /healthz answers; /readyz says what is behind
                return None

            return error_response(
                503,
                gettext("This server is being upgraded and cannot read its records yet: try again in a few minutes."),
            )

    @app.teardown_appcontext
    def leave(_exc=None):
        for token in reversed(g.pop("store_scopes", [])):
            store.leave(token)

    db = AppGroup("db", help="The database's schema (Alembic revisions).")

    @db.command("upgrade")
    def upgrade():
        """Bring the database's schema up to this release's."""
        database = app.extensions["store"]
        store.upgrade(database)
        click.echo(f"{database.name} database at revision {store.schema.revision(database)}; restart the app")

    @db.command("current")
    def current():
        """Print the revision the database is at and this release's newest."""
        database = app.extensions["store"]
        click.echo(f"database: {store.schema.revision(database)}; this release: {store.schema.head()}")

    app.cli.add_command(db)
