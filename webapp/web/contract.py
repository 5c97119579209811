"""One contract per API route: ``@operation`` names a route's request models
(its JSON body, its query string) and its answers, reads and validates the
request with the models before the view runs, and shapes the view's answer
with the model of its status. ``apidocs`` builds the OpenAPI document from
the same declarations, so that what is checked and what is documented come
from one place (``schemas``).

A request that does not fit its model gets 400 and one sentence saying what
is wrong, in the request's language; nothing reaches the view."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import abort, current_app, request
from flask_babel import gettext, lazy_gettext
from pydantic import BaseModel, ValidationError
from werkzeug.wrappers import Response

from ..engine import MastermindError
from ..words import error_words


@dataclass(frozen=True)
class Documented:
    """One answer an operation gives: what it means, its body's model (None
    for the shared ``Error``), the headers it carries and the links it offers."""

    description: str
    model: type[BaseModel] | None = None
    headers: tuple[str, ...] = ()
    links: dict | None = None
    media_type: str = "application/json"


@dataclass(frozen=True)
class Operation:
    """What a route takes and gives, as the OpenAPI document describes it.
    ``errors`` are the shared error answers by status (``apidocs.RESPONSES``)."""

    id: str
    tag: str
    summary: str
    description: str = ""
    body: type[BaseModel] | None = None
    body_required: bool = False
    query: type[BaseModel] | None = None
    # Values a query string may leave out and the request carries otherwise
    # (a browser's player token, from its cookie), by field.
    query_defaults: Callable[[], dict] | None = None
    answers: dict[int, Documented] = field(default_factory=dict)
    errors: tuple[int, ...] = ()


def link(operation_id: str, description: str, **parameters: str) -> dict:
    """An OpenAPI link: an id from this answer into the next request."""
    return {"operationId": operation_id, "parameters": parameters, "description": description}


# Headers some answers carry (``apidocs.HEADERS`` describes them), and the links of a game.
LIMITED = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
NO_STORE = ("Cache-Control",)
GAME_LINKS = {
    "GetGame": link("getGame", "The game's state.", game_id="$response.body#/id"),
    "Guess": link("guess", "Play a guess in it.", game_id="$response.body#/id"),
}


def operation(**declared: Any) -> Callable:
    """The decorator of an API view: validates its body (passed as ``body``)
    and query string (passed as ``query``), and shapes its answer."""
    op = Operation(**declared)

    def decorate(view: Callable) -> Callable:
        @functools.wraps(view)
        def run(**kwargs: Any) -> Any:
            if op.query is not None:
                kwargs["query"] = read_query(op.query, op.query_defaults() if op.query_defaults else {})
            if op.body is not None:
                kwargs["body"] = read_body(op.body, op.body_required)
            return shaped(op, view(**kwargs))

        run.operation = op  # type: ignore[attr-defined]
        return run

    return decorate


def operation_of(view: Callable) -> Operation | None:
    """The contract of a view function, if it has one."""
    return getattr(view, "operation", None)


# --- reading requests ----------------------------------------------------------------------------


def read_body(model: type[BaseModel], required: bool) -> BaseModel:
    """The request's JSON object validated by ``model``, or a 400."""
    raw = request.get_data(cache=True)
    if not raw:  # no body at all (white space alone is not JSON: a 400 below)
        if required:
            abort(400, gettext("Send a JSON object in the request body."))
        data: Any = {}
    else:
        try:
            data = json.loads(raw)
        except RecursionError:  # json's decoder gives up on a deeply nested body
            abort(400, gettext("The request body is nested too deeply to be read."))
        except ValueError:
            abort(400, gettext("The request body is not valid JSON."))
    if not isinstance(data, dict):
        abort(400, gettext("The request body must be a JSON object."))
    return validated(model, data)


def read_query(model: type[BaseModel], defaults: dict) -> BaseModel:
    """The query string validated by ``model``, or a 400; each parameter once."""
    data: dict[str, Any] = {k: v for k, v in defaults.items() if v is not None}
    for name, values in request.args.lists():
        if name in model.model_fields:
            if len(values) > 1:
                abort(400, gettext('Give "%(name)s" once: it was given %(num)d times.', name=name, num=len(values)))
            data[name] = values[0]
    return validated(model, data)


def validated(model: type[BaseModel], data: dict) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        abort(400, validation_words(model, exc))


# --- the words of a refusal --------------------------------------------------------------------

# What a person calls the size fields (the forms' labels); any other field is named by its key.
LABELS = {
    "pegs": lazy_gettext("Pegs"),
    "colors": lazy_gettext("Colours"),
    "max_guesses": lazy_gettext("Guesses allowed"),
}
# Sentences of their own for fields whose every refusal says the same.
FIELD_WORDS: dict[str, Callable[[], str]] = {
    "guess": lambda: gettext('Send the guess as {"guess": "1122"}: a code written as digits.'),
    "secret": lambda: gettext('The secret must be written as digits, such as "1234".'),
    "move": lambda: gettext('"move" must be a whole number from 1 (the guess\'s number).'),
    "player": lambda: gettext('"player" must be the token an earlier answer gave you, or left out.'),
    "history": lambda: gettext(
        'Write the history as GUESS:BLACK,WHITE items separated by spaces, such as "1122:1,0 3456:0,2".'
    ),
    "black": lambda: gettext('"black" must be a whole number of key pegs, from 0.'),
    "white": lambda: gettext('"white" must be a whole number of key pegs, from 0.'),
}


def field_schema(model: type[BaseModel], name: str) -> dict:
    return model.model_json_schema()["properties"].get(name, {})


def validation_words(model: type[BaseModel], exc: ValidationError) -> str:
    """The first thing wrong with a request, in a sentence."""
    error = exc.errors(include_url=False)[0]
    kind, where, context = error["type"], error["loc"], error.get("ctx") or {}
    cause = context.get("error")
    name = str(where[0]) if where else ""
    if name in ("pegs", "colors") and kind == "literal_error":  # a size that has no daily puzzle
        return error_words({"fact": "daily-size", "details": {}})
    if isinstance(cause, MastermindError):  # a rule of the model's own, stated as a fact
        return error_words(cause)
    if not where:
        return gettext("The request body must be a JSON object.")
    if (name, kind) == ("player", "missing"):
        return gettext("Send your player token as ?player=…: the one POST /api/daily gave you.")
    if name in FIELD_WORDS:
        return FIELD_WORDS[name]()
    schema = field_schema(model, name)
    low, high = schema.get("minimum", 0), schema.get("maximum")
    out_of_range = kind in ("greater_than_equal", "less_than_equal") and high is not None
    if name in ("pegs", "colors") and high is not None:  # the engine's own facts about a size
        fact = f"{name}-out-of-range" if out_of_range else f"{name}-not-number"
        return error_words({"fact": fact, "details": {"low": low, "high": high, "given": error["input"]}})
    if name == "max_guesses" and out_of_range:
        return gettext(
            "Guesses allowed must be from %(low)d to %(high)d, not %(given)d.", low=low, high=high, given=error["input"]
        )
    if kind.startswith("int") or out_of_range or kind in ("greater_than_equal", "less_than_equal"):
        label = str(LABELS.get(name, f'"{name}"'))
        if high is not None:
            return gettext(
                "%(field)s must be a whole number from %(low)d to %(high)d.", field=label, low=low, high=high
            )
        return gettext("%(field)s must be a whole number from %(low)d.", field=label, low=low)
    if kind == "bool_type":
        return gettext('"%(name)s" must be true or false.', name=name)
    if kind == "literal_error" and "enum" in schema:
        return gettext(
            '"%(name)s" must be one of: %(options)s.', name=name, options=", ".join(str(v) for v in schema["enum"])
        )
    if kind == "string_too_long":
        return gettext('"%(name)s" has at most %(num)d characters.', name=name, num=context.get("max_length", 0))
    if kind == "string_type":
        return gettext('"%(name)s" must be text.', name=name)
    if kind == "missing":
        return gettext('Send "%(name)s": it is required.', name=name)
    return gettext('"%(name)s" is not in the form the API describes at /api.', name=name)


# --- shaping answers ---------------------------------------------------------------------------


def shaped(op: Operation, result: Any) -> Any:
    """The view's answer, its body checked against and dumped by the model
    documented for its status (a view's error answers pass as they are)."""
    if isinstance(result, Response):
        return result
    body, status, *rest = result if isinstance(result, tuple) else (result, 200)
    documented = op.answers.get(status)
    if documented is None or documented.model is None:
        if current_app.testing:
            raise AssertionError(f"{op.id} answered {status}, which its contract does not document")
        return result
    data = documented.model.model_validate(body).model_dump(mode="json", exclude_unset=True)
    return (data, status, *rest)
