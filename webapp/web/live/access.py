"""Who a request comes from in a live session: the teacher's or a
student's token, sent as ``Authorization: Bearer …`` (the API) or kept in
a cookie of the session's own (the pages). Cookies last as long as an idle
session does and are renewed while it is used."""

from __future__ import annotations

from flask import abort, current_app, request

from ..errors import error_response
from ..players import keep_cookie
from . import service


def teacher_cookie(code: str) -> str:
    return f"live_teacher_{code}"


def student_cookie(code: str) -> str:
    return f"live_student_{code}"


def bearer() -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def teacher_token(code: str) -> str | None:
    return bearer() or request.cookies.get(teacher_cookie(code))


def student_token(code: str) -> str | None:
    return bearer() or request.cookies.get(student_cookie(code))


def keep(response, name: str, token: str):
    """A teacher's or a student's token, kept as long as an idle session lasts."""
    return keep_cookie(response, name, token, float(current_app.config["LIVE_IDLE_HOURS"]) * 3600)


def renewed(response, code: str):
    """``response`` with the session's cookies this request carried kept
    for another idle period, so a class in progress never loses them."""
    for name in (teacher_cookie(code), student_cookie(code)):
        token = request.cookies.get(name)
        if token and name not in {c.split("=", 1)[0] for c in response.headers.getlist("Set-Cookie")}:
            keep(response, name, token)
    return response


def tokens(code: str) -> tuple[str | None, ...]:
    """Every token the request carries for the session (as the code is typed)."""
    code = "".join(c for c in str(code).upper() if c not in " -")[:32]
    return bearer(), request.cookies.get(teacher_cookie(code)), request.cookies.get(student_cookie(code))


def found(code: str):
    """The session a code names, found with the request's tokens; else its
    refusal as the answer (404, or 429 past the limit of wrong codes), a
    page or JSON as the address asks."""
    try:
        return service.find(code, *tokens(code))
    except service.Refused as exc:
        abort(error_response(exc.status, str(exc)))
