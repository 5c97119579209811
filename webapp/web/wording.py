"""Words in the page's language that the views share: numbers, replies, the
addresses to go back to, why hard mode refuses a guess."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from flask import abort, request
from flask_babel import format_decimal, get_locale, gettext, ngettext

from ..engine import Feedback, rules


def current_language() -> str:
    """The request's language code, for ``<html lang>``."""
    return str(get_locale() or "en")


def number(value) -> str:
    """A whole number with the locale's grouping: 1,296 in English, 1.296 in German."""
    return format_decimal(value)


def reply_words(reply: Feedback, bulls: bool = False) -> str:
    """A reply in words, for a screen reader and beside the key pegs:
    "2 black, 1 white", or in Bulls and Cows "2 bulls, 1 cow"."""
    if bulls:
        first = ngettext("%(num)d bull", "%(num)d bulls", reply.black)
        second = ngettext("%(num)d cow", "%(num)d cows", reply.white)
    else:
        first = ngettext("%(num)d black", "%(num)d black", reply.black)
        second = ngettext("%(num)d white", "%(num)d white", reply.white)
    return gettext("%(first)s, %(second)s", first=first, second=second)


def here_without_lang() -> str:
    """This page's address without ``lang``, for the switcher to come back to
    (a ``lang`` in it would outrank the choice just made)."""
    if request.method != "GET":
        return request.path
    args = [(k, v) for k, v in request.args.items(multi=True) if k != "lang"]
    return request.path + ("?" + urlencode(args) if args else "")


def back_to(target: str | None) -> str:
    """Where to return after choosing (a form's ``next``): a path on this
    site, else the home page. A line break in it is a 400: no answer
    carries it into a header. Browsers drop tabs and line breaks from an
    address (``/%09/example.com`` is ``//example.com``), so any space or
    control character makes the target the home page."""
    if not target:
        return "/"
    if "\r" in target or "\n" in target:
        abort(400, gettext("That return address is not a path on this site."))
    parts = urlsplit(target)
    on_this_site = target.startswith("/") and not target.startswith("//") and not (parts.scheme or parts.netloc)
    plain = "\\" not in target and all(c.isprintable() and not c.isspace() for c in target)
    return target if on_this_site and plain else "/"


def inconsistent_sentence(exc: rules.Inconsistent, bulls: bool = False) -> str:
    """Why hard mode refuses a guess, in words."""
    return gettext(
        "%(guess)s cannot be the secret: %(earlier)s got %(reply)s, and %(guess)s would get %(would)s.",
        guess=str(exc.guess),
        earlier=str(exc.earlier),
        reply=reply_words(exc.reply, bulls),
        would=reply_words(exc.would, bulls),
    )
