"""The colour theme: the system's (``prefers-color-scheme``) unless the
visitor chooses light or dark in the header. The choice is a cookie the
server reads, so every page is drawn in the right theme from its first
byte (no flash of the wrong one) and the switch works without JavaScript."""

from __future__ import annotations

from flask import Blueprint, redirect, request

from .players import keep_cookie
from .wording import back_to

bp = Blueprint("theme", __name__)

COOKIE = "theme"
CHOICES = ("auto", "light", "dark")
DAYS = 365


def current() -> str:
    """The visitor's choice: ``auto`` (follow the system), ``light`` or ``dark``."""
    value = request.cookies.get(COOKIE, "auto")
    return value if value in CHOICES else "auto"


@bp.post("/theme")
def choose():
    choice = request.form.get("theme", "auto")
    response = redirect(back_to(request.form.get("next")), 303)
    if choice not in CHOICES or choice == "auto":
        response.delete_cookie(COOKIE, samesite="Lax")
    else:
        keep_cookie(response, COOKIE, choice, DAYS * 86400)
    return response
