"""The web layer: Flask blueprints, one per feature, over the store, the
jobs and the engine. ``init_app`` wires it into an app: the security headers,
the rate limits, the error answers, what every template may use, and the
list of blueprints.

Imports run one way: views (``play``, ``api``, ``share``, ``challenges``,
``codemaker``, ``apidocs``, ``theme``, ``daily``, ``live``, ``puzzles``,
``ops``, ``solver/*``) →
the helpers, one concern each (``answers``, ``forms``, ``loaders``,
``names``, ``palette``, ``players``, ``positions``, ``refusals``,
``sharing``, ``wording``), ``links``, ``hints`` → ``store``, ``jobs`` →
``engine``. No view imports another."""

from __future__ import annotations

import time
from urllib.parse import urlencode

import click

from .. import health, jobs
from ..settings import BOARDS_BY_KEY
from . import (
    answers,
    api,
    apidocs,
    challenges,
    codemaker,
    daily,
    errors,
    forms,
    i18n,
    limits,
    links,
    live,
    ops,
    palette,
    play,
    puzzles,
    security,
    share,
    sharing,
    theme,
    traffic,
)
from .solver import blueprints as solver
from .solver import classroom, compare, line, tree  # noqa: F401  (their routes join the solver's blueprints)

# The named sizes every solver form offers as links.
SIZE_PRESETS = tuple(BOARDS_BY_KEY[key] for key in ("classic", "super", "bulls-and-cows"))

BLUEPRINTS = (
    play.bp,
    api.bp,
    solver.bp,
    solver.api,
    share.bp,
    challenges.bp,
    challenges.api,
    codemaker.bp,
    codemaker.api,
    apidocs.bp,
    theme.bp,
    daily.bp,
    daily.api,
    i18n.bp,
    live.bp,
    live.api,
    puzzles.bp,
    puzzles.api,
    ops.bp,
)


def api_document() -> dict:
    """The JSON API's OpenAPI document without a configured app: its
    blueprints on a bare Flask app are all it needs (``make messages``, tests)."""
    from flask import Flask

    bare = Flask(__name__)
    for blueprint in BLUEPRINTS:
        bare.register_blueprint(blueprint)
    return apidocs.build(bare)


def extract_api_messages(fileobj, keywords, comment_tags, options):
    """A Babel extractor: the API document's summaries and descriptions, once
    each, as messages (the /api page shows them translated)."""
    for text in dict.fromkeys(apidocs.texts(api_document())):
        yield 0, "gettext", text, ["The JSON API's reference (/api)"]


def init_app(app) -> None:
    traffic.init_app(app)
    security.init_app(app)
    limits.init_app(app)
    errors.init_app(app)
    i18n.init_app(app)
    app.jinja_env.globals.update(
        color=palette.color,
        palette=palette.PALETTE,
        is_htmx=answers.is_htmx,
        theme=theme.current,
        game_title=sharing.game_title,
        size_presets=SIZE_PRESETS,
        size_query=lambda size: urlencode(links.size_args(size)),
        size_fields=links.size_args,
    )
    app.extensions["health"] = health.Readiness(app.config, app.extensions["store"], app.extensions["jobs"])
    app.before_request(forms.forms_only)
    app.after_request(answers.vary_on_htmx)
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)

    @app.cli.command("puzzles-from-games")
    @click.option("--games", default=1000, show_default=True, help="How many of the newest finished games.")
    def puzzles_from_games(games):
        """Add the puzzles found in games played here: each position of the
        newest finished games on a puzzle board, examined exactly."""
        with app.app_context():
            examined, added = puzzles.service.from_games(games)
        print(f"examined {examined} positions of finished games; added {added} puzzles")

    @app.cli.command("expire-games")
    def expire_games():
        """Run the hourly sweep now: games abandoned for GAME_RETENTION_DAYS
        (30 by default; 0 keeps them), idle player tokens and live sessions,
        ended rate-limit counters."""
        gone = jobs.sweep(app.config, app.logger, time.time())
        days, idle = app.config["GAME_RETENTION_DAYS"], app.config["PLAYER_RETENTION_DAYS"]
        print(f"removed {gone['games']} abandoned games" if days else "kept every game: GAME_RETENTION_DAYS is 0")
        if idle:
            print(f"let go of {gone['players']} player tokens idle for {idle} days")
        print(f"removed {gone['live sessions']} idle live sessions and {gone['counters']} ended rate-limit counters")
