"""Mastermind lab: play Mastermind in the browser and watch codebreaking
algorithms at work. ``create_app`` builds the Flask application."""

from __future__ import annotations

import os

# The checkout (a plain path: pathlib would cost the command line's start-up).
ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def configure(config, overrides=None) -> None:
    """Fill ``config`` (a ``flask.Config``) as every process of a site reads
    it, the web app and the job consumer alike: each setting declared in
    :mod:`webapp.config`, from ``overrides`` (which win), else
    ``MASTERMIND_<SETTING>`` of the environment, else its default, checked
    (:class:`webapp.config.InvalidSetting` names a wrong value); and any
    other key of ``overrides`` or ``MASTERMIND_<KEY>`` (Flask's own, such as
    ``TESTING``) as given, the environment's read as JSON when it parses."""
    from .config import load

    config.from_prefixed_env("MASTERMIND")
    if overrides:
        config.update(overrides)
    config.update(load(overrides).as_config())


def create_app(config=None):
    """Build the app; ``config`` is a mapping applied over the defaults and
    the environment (see :func:`configure`). A setting's wrong value stops
    it: :class:`webapp.config.InvalidSetting`, a sentence naming it."""
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
