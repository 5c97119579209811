"""The anonymous player token a browser keeps, and the cookies the site keeps
(HttpOnly, SameSite=Lax, Secure over HTTPS).

A token is issued by the server only: a random part and its signature with
the installation's key, so a token a client makes up is told apart without
a lookup (the tokens of the releases before signing are kept in a list of
their own). The request's client, for the rules that count per client, is
its address keyed the same way: no address is kept as it is."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from flask import request
from flask_limiter.util import get_remote_address

from .. import store
from ..settings import PLAYER_TOKEN

PLAYER_COOKIE = "player"
PLAYER_COOKIE_DAYS = 365
# A new token: this many random bytes, then this many of their signature
# (22 and 16 characters: 38 in all, within ``PLAYER_TOKEN``).
TOKEN_BYTES, SIGNATURE_BYTES = 16, 12
RANDOM_CHARS = 22


def signature(text: str, purpose: str) -> str:
    """``text`` signed with the installation's key for ``purpose``, as URL-safe characters."""
    key = store.players.server_key("players").encode()
    digest = hmac.new(key, f"{purpose}:{text}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:SIGNATURE_BYTES]).decode().rstrip("=")


def new_player() -> str:
    """A new player token, signed."""
    random_part = secrets.token_urlsafe(TOKEN_BYTES)
    return random_part + signature(random_part, "player")


def issued(token: str) -> bool:
    """Whether the server gave out ``token``: its signature holds, or it is
    one of the tokens kept from before tokens were signed."""
    random_part, signed = token[:RANDOM_CHARS], token[RANDOM_CHARS:]
    if hmac.compare_digest(signed, signature(random_part, "player")):
        return True
    return store.players.issued_earlier(token)


def client_key() -> str:
    """This request's client address, keyed with the installation's key:
    the same for every request from it, and never the address itself."""
    return signature(get_remote_address(), "client")


def player_token(raw: str | None = None) -> tuple[str, bool]:
    """The player token ``raw`` (already checked against ``PLAYER_TOKEN``),
    else a new one; and whether it is new."""
    if not raw:
        return new_player(), True
    return raw, False


def issued_player(raw: str | None) -> tuple[str, bool]:
    """The player token ``raw`` when the server issued it, else a new one
    (a cookie a client made up is replaced); and whether it is new."""
    if raw and issued(raw):
        return raw, False
    return new_player(), True


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
