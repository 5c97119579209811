"""The page's language: English, German or Spanish, with Flask-Babel's
gettext catalogues (``webapp/translations``).

The locale is, in order: ``?lang=`` in the address (so a link can name its
language), the visitor's choice from the header's switcher (a cookie), then
the browser's ``Accept-Language``; English when none of them names a language
the app speaks. URLs and API field names are the same in every language; the
JSON API's error sentences follow the same rule, so an API client's
``Accept-Language`` chooses them.

The compiled catalogues (``.mo``) are not kept in git: the app compiles any
that is missing or older than its ``.po`` as it starts, so plain ``gunicorn``
or ``flask run`` speaks German and Spanish as ``make run`` does."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Blueprint, redirect, request
from flask_babel import Babel, format_date, format_decimal

from ..words import (
    adversary_choice,
    adversary_name,
    code_checks,
    error_words,
    estimate_words,
    known_words,
    live_names_words,
    live_source_words,
    pool_words,
    rating_name,
    score_name,
    score_words,
    script_words,
    size_label,
    strategy_description,
    strategy_reference,
    strategy_title,
    student_label,
    theme_title,
    why_words,
)
from .players import keep_cookie
from .wording import back_to, current_language, here_without_lang, number, reply_words

bp = Blueprint("language", __name__)

# Each language the app speaks, named in itself (the switcher's labels).
LANGUAGES = {"en": "English", "de": "Deutsch", "es": "Español"}
COOKIE = "lang"
DAYS = 365


def asked() -> str | None:
    """The language the address or the switcher's cookie names, if any."""
    for value in (request.args.get("lang"), request.cookies.get(COOKIE)):
        if value in LANGUAGES:
            return value
    return None


def select_locale() -> str:
    """The request's locale: ``?lang=``, the remembered choice, then ``Accept-Language``."""
    return asked() or request.accept_languages.best_match(list(LANGUAGES)) or "en"


@bp.post("/language")
def choose():
    choice = request.form.get("lang", "")
    response = redirect(back_to(request.form.get("next")), 303)
    if choice not in LANGUAGES:
        response.delete_cookie(COOKIE, samesite="Lax")
    else:
        keep_cookie(response, COOKIE, choice, DAYS * 86400)
    return response


class CataloguesMissing(RuntimeError):
    """A language's compiled catalogue is missing and cannot be written."""


def compile_catalogues(folder: str | os.PathLike) -> list[Path]:
    """Compile each ``messages.po`` under ``folder`` whose ``.mo`` is missing
    or older (what ``make compile-messages`` does), so the app speaks every
    language however it is started; the compiled files written.

    Each is written to a temporary file beside it and renamed into place, so
    processes starting at once (gunicorn's workers) never read half a file.
    A catalogue that cannot be written is kept if stale, and an error if missing.
    """
    written = []
    for po in sorted(Path(folder).glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as fh:
            catalog = read_po(fh, locale=po.parent.parent.name)
        try:
            fd, temporary = tempfile.mkstemp(dir=po.parent, prefix=f".{mo.name}.", suffix=".tmp")
        except OSError as exc:
            if mo.exists():
                continue  # an older catalogue still reads
            raise CataloguesMissing(
                f"{mo} is missing and cannot be written ({exc.strerror}): "
                f"run `pybabel compile -d {folder}` (make compile-messages) as its owner"
            ) from exc
        try:
            with os.fdopen(fd, "wb") as out:
                write_mo(out, catalog)
            os.chmod(temporary, 0o644)
            os.replace(temporary, mo)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        written.append(mo)
    return written


def init_app(app) -> None:
    Babel(app, locale_selector=select_locale, default_translation_directories="translations")
    for folder in app.extensions["babel"].translation_directories:
        for compiled in compile_catalogues(folder):
            app.logger.info("compiled the catalogue %s", compiled)
    app.jinja_env.policies["ext.i18n.trimmed"] = True  # as babel.cfg extracts them
    app.jinja_env.globals.update(
        languages=LANGUAGES,
        language=current_language,
        reply_words=reply_words,
        here_without_lang=here_without_lang,
        why_words=why_words,
        pool_words=pool_words,
        score_name=score_name,
        score_words=score_words,
        rating_name=rating_name,
        adversary_name=adversary_name,
        adversary_choice=adversary_choice,
        estimate_words=estimate_words,
        known_words=known_words,
        size_label=size_label,
        code_checks=code_checks,
        script_words=script_words,
        error_words=error_words,
        strategy_description=strategy_description,
        strategy_reference=strategy_reference,
        strategy_title=strategy_title,
        theme_title=theme_title,
        live_source_words=live_source_words,
        live_names_words=live_names_words,
        student_label=student_label,
        format_decimal=format_decimal,
        format_date=format_date,
    )
    app.jinja_env.filters["number"] = number
