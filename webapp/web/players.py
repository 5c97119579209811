"""The anonymous player token a browser keeps, and the cookies the site keeps
(HttpOnly, SameSite=Lax, Secure over HTTPS)."""

from __future__ import annotations

import secrets

from flask import request

from ..settings import PLAYER_TOKEN

PLAYER_COOKIE = "player"
PLAYER_COOKIE_DAYS = 365


def player_token(raw: str | None = None) -> tuple[str, bool]:
    """The player token ``raw`` (already checked against ``PLAYER_TOKEN``),
    else a new one; and whether it is new."""
    if not raw:
        return secrets.token_urlsafe(16), True
    return raw, False


def browser_player() -> str | None:
    """This browser's player token (from its cookie), or None before its first game."""
    raw = request.cookies.get(PLAYER_COOKIE, "")
    return raw if PLAYER_TOKEN.fullmatch(raw) else None


def cookie_player() -> tuple[str, bool]:
    """This browser's player token (from its cookie), or a new one."""
    return player_token(browser_player())


def keep_cookie(response, name: str, value: str, seconds: float):
    """Keep ``value`` in the cookie ``name`` for ``seconds``, as every cookie
    of the site is kept: HttpOnly, SameSite=Lax, and Secure over HTTPS."""
    response.set_cookie(name, value, max_age=int(seconds), httponly=True, samesite="Lax", secure=request.is_secure)
    return response


def remember_player(response, token: str, cookie: str = PLAYER_COOKIE):
    """Keep the player token in a cookie for a year."""
    return keep_cookie(response, cookie, token, PLAYER_COOKIE_DAYS * 86400)
