"""The JSON API described in OpenAPI 3.1, generated: the operations from
the API's routes and their contracts (``contract.operation``), the bodies'
schemas from their pydantic models (``schemas``), so the document says
exactly what the views check. Served as JSON at ``/api/openapi.json`` and
rendered as a readable reference at ``/api``.

``tests/test_openapi.py`` keeps it honest: Schemathesis fuzzes every
operation against it, valid and invalid requests, with every check."""

from __future__ import annotations

import copy
import re
from typing import Literal

from flask import Blueprint, Flask, current_app, jsonify, render_template
from flask_babel import gettext
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from .contract import LIMITED, Documented, Operation, operation, operation_of
from .schemas import Error, OpenAPIDocument

bp = Blueprint("apidocs", __name__)

OPENAPI = "3.1.0"
DOCUMENT_MAX_AGE = 3600  # seconds a client may keep /api/openapi.json
SCHEMA_REF = "#/components/schemas/{model}"


def ref(kind: str, name: str) -> dict:
    return {"$ref": f"#/components/{kind}/{name}"}


# --- what every operation shares -----------------------------------------------------------

HEADERS = {
    "Retry-After": {
        "description": "Seconds to wait before trying again.",
        "required": True,
        "schema": {"type": "integer", "minimum": 0},
    },
    "X-RateLimit-Limit": {
        "description": "Creations allowed per client address in the current window.",
        "schema": {"type": "integer", "minimum": 0},
    },
    "X-RateLimit-Remaining": {
        "description": "Creations left in the current window.",
        "schema": {"type": "integer", "minimum": 0},
    },
    "X-RateLimit-Reset": {
        "description": "When the window resets, in seconds since the epoch.",
        "schema": {"type": "number"},
    },
    "Cache-Control": {
        "description": "`no-store`: the state changes with every move.",
        "required": True,
        "schema": {"type": "string", "pattern": "no-store"},
    },
}


def error(description: str, *headers: str) -> dict:
    answer: dict = {"description": description, "content": {"application/json": {"schema": ref("schemas", "Error")}}}
    if headers:
        answer["headers"] = {name: ref("headers", name) for name in headers}
    return answer


# The shared error answers, by status: an operation names the ones it gives.
RESPONSES = {
    400: (
        "BadRequest",
        error("The request does not fit this description (a type, a range, a missing field): the sentence says which."),
    ),
    401: ("Unauthorized", error("This needs a token: send Authorization: Bearer … (from an earlier answer).")),
    403: ("CrossSite", error("The request came from a page of another site: refused, nothing was done.")),
    404: ("NotFound", error("There is nothing with this id (or this results key).")),
    409: ("Conflict", error("The request no longer fits the game: it is over, or the move number is stale.")),
    413: (
        "TooLarge",
        error("The request body is larger than the server accepts (16 KB unless configured otherwise)."),
    ),
    # Answered by the web server (gunicorn, nginx) before the app: a short HTML page.
    414: (
        "UriTooLong",
        {
            "description": "The address is longer than the server reads (answered by the web server itself).",
            "content": {"text/html": {"schema": {"type": "string"}}},
        },
    ),
    415: ("UnsupportedMediaType", error("The body is not JSON (send it as application/json).")),
    422: (
        "Unprocessable",
        error(
            "The request fits this description but not the game's rules (a code with a colour this game does "
            "not have, a size a strategy cannot play), or asks for work too large for this server: the "
            "sentence says which."
        ),
    ),
    429: (
        "TooManyRequests",
        error(
            "Too many requests of one kind just now: new games, challenges or live sessions from this "
            "address, puzzle answers or new puzzle players from this address, join codes from this address "
            "that find no session, or joins or proposals in one live session. The sentence says which, and "
            "when to try again.",
            "Retry-After",
            *LIMITED,
        ),
    ),
    503: (
        "Unavailable",
        error(
            "The database cannot be written just now, or the queue of background work "
            "is full: nothing was lost, try again later.",
            "Retry-After",
        ),
    ),
}
# Every operation may meet these; those that read a body, these too.
ALWAYS = (414,)
UNSAFE = (403, 413, 415)
PATH_PARAMETERS = {
    "game_id": "The game's id.",
    "challenge_id": "The challenge's id.",
    "key": "The challenge's private results key (from its results link).",
    "code": "The live session's join code (six characters).",
    "student": "A student's id in the live session (from the teacher's state).",
    "puzzle_id": "The puzzle's id (twelve hexadecimal digits).",
}
# Path parameters that are not plain text.
PATH_SCHEMAS = {"student": {"type": "integer", "minimum": 1}}
TAGS = [
    {"name": "games", "description": "Play against a secret the server draws."},
    {"name": "codemaker", "description": "You keep the secret; a strategy guesses it."},
    {"name": "challenges", "description": "One secret, many players, and a results table."},
    {
        "name": "daily",
        "description": "Daily Mastermind, one secret a day the same for everyone, and a player's statistics.",
    },
    {"name": "solver", "description": "The algorithms at work: comparisons, optimal lines, one position explained."},
    {"name": "live", "description": "A live classroom: the teacher steps through a strategy's game, students vote."},
    {"name": "puzzles", "description": "Best-guess puzzles: a position, the best next guess, rated."},
    {"name": "about", "description": "This description."},
]
INFO = {
    "title": "Mastermind lab",
    "version": "1",
    "summary": "Play Mastermind and watch codebreaking algorithms, over JSON.",
    "description": 'Every answer is JSON. Errors are {"error": "<a sentence>"} with a 4xx '
    "status (503 when the server cannot take the work just now, with Retry-After). The sentence "
    "follows Accept-Language. Request bodies are JSON objects sent as application/json, read "
    "strictly: numbers as numbers, true and false as booleans, and a field that may be left out is "
    "left out rather than null; fields the server does not know are ignored. A request that fits "
    "this description but not the game's rules gets 422. Creating games, codemaker games and "
    "challenges is rate-limited per client address (429 with Retry-After). Requests that change "
    "something are refused (403) when a page of another site sends them.",
    "license": {"name": "MIT", "identifier": "MIT"},
}

# --- the document, generated ---------------------------------------------------------------


def tidy(node):
    """Pydantic's JSON Schema as the document shows it: no generated titles,
    no ``default: null`` for a field that is left out rather than null, and
    descriptions on one line."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "default" and value is None:
                continue
            if key == "description" and isinstance(value, str):
                value = re.sub(r"\s+", " ", value).strip()
            out[key] = value if key in ("examples", "const", "enum") else tidy(value)
        return out
    if isinstance(node, list):
        return [tidy(item) for item in node]
    return node


def routed_operations(app: Flask) -> list[tuple[str, str, Operation]]:
    """(path, method, contract) of every route that has a contract, in the app's order."""
    found = []
    for rule in app.url_map.iter_rules():
        op = operation_of(app.view_functions[rule.endpoint])
        if op is None:
            continue
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            found.append((path, method.lower(), op))
    return found


def query_parameters(model: type[BaseModel]) -> list[dict]:
    """A query model's fields as OpenAPI parameters."""
    schema = tidy(model.model_json_schema(ref_template=SCHEMA_REF))
    required = set(schema.get("required", ()))
    parameters = []
    for name, item in schema["properties"].items():
        item = dict(item)
        description = item.pop("description", "")
        examples = item.pop("examples", None)
        parameter = {"name": name, "in": "query", "required": name in required, "schema": item}
        if description:
            parameter["description"] = description
        if examples:
            parameter["examples"] = {f"example {i}": {"value": v} for i, v in enumerate(examples, start=1)}
        parameters.append(parameter)
    return parameters


def answer(documented: Documented) -> dict:
    model = documented.model or Error
    item: dict = {
        "description": documented.description,
        "content": {documented.media_type: {"schema": ref("schemas", model.__name__)}},
    }
    if documented.headers:
        item["headers"] = {name: ref("headers", name) for name in documented.headers}
    if documented.links:
        item["links"] = documented.links
    return item


def operation_object(path: str, method: str, op: Operation) -> dict:
    item: dict = {"operationId": op.id, "tags": [op.tag], "summary": op.summary}
    if op.description:
        item["description"] = op.description
    parameters = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": PATH_SCHEMAS.get(name, {"type": "string"}),
            "description": PATH_PARAMETERS[name],
        }
        for name in re.findall(r"{([a-z_]+)}", path)
    ]
    if op.query is not None:
        parameters += query_parameters(op.query)
    if parameters:
        item["parameters"] = parameters
    if op.body is not None:
        item["requestBody"] = {
            "required": op.body_required,
            "content": {"application/json": {"schema": ref("schemas", op.body.__name__)}},
        }
    statuses = set(op.errors) | set(ALWAYS) | (set(UNSAFE) if method != "get" else set())
    responses = {str(status): answer(documented) for status, documented in sorted(op.answers.items())}
    for status in sorted(statuses - set(op.answers)):
        responses[str(status)] = ref("responses", RESPONSES[status][0])
    item["responses"] = responses
    return item


def build(app: Flask) -> dict:
    """The OpenAPI 3.1 document of ``app``'s API routes."""
    operations = routed_operations(app)
    models: dict[type[BaseModel], Literal["validation", "serialization"]] = {Error: "serialization"}
    for _, _, op in operations:
        if op.body is not None:
            models[op.body] = "validation"
        for documented in op.answers.values():
            if documented.model is not None:
                models.setdefault(documented.model, "serialization")
    _, generated = models_json_schema(list(models.items()), ref_template=SCHEMA_REF)
    schemas = tidy(generated["$defs"])
    paths: dict = {}
    for path, method, op in operations:
        paths.setdefault(path, {})[method] = operation_object(path, method, op)
    return {
        "openapi": OPENAPI,
        "info": INFO,
        "tags": TAGS,
        "paths": paths,
        "components": {
            "schemas": dict(sorted(schemas.items())),
            "responses": {name: item for name, item in RESPONSES.values()},
            "headers": HEADERS,
        },
    }


def _document(app: Flask) -> dict:
    """The document of ``app``, built once."""
    if "openapi" not in app.extensions:
        app.extensions["openapi"] = build(app)
    return app.extensions["openapi"]


def document(app: Flask | None = None) -> dict:
    """The OpenAPI 3.1 document (a copy: callers may change it)."""
    return copy.deepcopy(_document(app or current_app._get_current_object()))  # type: ignore[attr-defined]


@bp.get("/api/openapi.json")
@operation(
    id="openapi",
    tag="about",
    summary="This description, as OpenAPI 3.1",
    answers={200: Documented("The OpenAPI document.", OpenAPIDocument)},
)
def openapi_json():
    response = jsonify(_document(current_app))
    response.cache_control.public = True
    response.cache_control.max_age = DOCUMENT_MAX_AGE
    return response


# --- the reference page --------------------------------------------------------------------

METHODS = ("get", "post", "put", "patch", "delete")


def resolve(doc: dict, item: dict) -> dict:
    """``item`` with its ``$ref`` followed (one level is all the document uses)."""
    if "$ref" not in item:
        return item
    kind, name = item["$ref"].split("/")[-2:]
    return doc["components"][kind][name]


def type_text(item: dict) -> str:
    """A schema in a few words, in the page's language: ``integer, 2–6``,
    ``array of Reply`` (JSON's own type names stay as they are)."""
    if "$ref" in item:
        return str(item["$ref"].split("/")[-1])
    kinds = item.get("type")
    if isinstance(kinds, list):
        text = either(kinds)
    elif kinds == "array":
        text = gettext("array of %(item)s", item=type_text(item.get("items", {})))
    elif kinds == "object" and isinstance(item.get("additionalProperties"), dict):
        text = gettext("object of %(item)s", item=type_text(item["additionalProperties"]))
    elif kinds == "object" and item.get("patternProperties"):
        text = gettext("object of %(item)s", item=type_text(next(iter(item["patternProperties"].values()))))
    elif "anyOf" in item:
        text = either([type_text(option) for option in item["anyOf"]])
    else:
        text = kinds or gettext("any")
    if "enum" in item:
        text += ": " + ", ".join(f"{v}" for v in item["enum"])
    if "minimum" in item and "maximum" in item:
        text += f", {item['minimum']}–{item['maximum']}"
    elif "minimum" in item:
        text += f", ≥ {item['minimum']}"
    if "maxLength" in item:
        text += ", " + gettext("at most %(count)s characters", count=item["maxLength"])
    if "pattern" in item and kinds == "string" and "$ref" not in item:
        text += ", " + gettext("matching %(pattern)s", pattern=item["pattern"])
    return text


def either(options: list[str]) -> str:
    """``a or b`` (or ``a, b or c``) in the page's language."""
    if len(options) == 1:
        return options[0]
    return gettext("%(some)s or %(last)s", some=", ".join(options[:-1]), last=options[-1])


def named(item: dict | None) -> str | None:
    """The name of the object ``item`` refers to (itself or as its items), if any."""
    if not item:
        return None
    target = item.get("items", item) if item.get("type") == "array" else item
    return target["$ref"].split("/")[-1] if "$ref" in target else None


def fields(doc: dict, item: dict) -> list[dict]:
    """The rows of an object's table: name, type, required, what it means."""
    item = resolve(doc, item)
    required = set(item.get("required", ()))
    rows = []
    for name, field in item.get("properties", {}).items():
        rows.append(
            {
                "name": name,
                "type": type_text(field),
                "object": named(field),
                "required": name in required,
                "default": field.get("default"),
                "description": field.get("description") or resolve(doc, field).get("description", ""),
            }
        )
    return rows


def operation_view(doc: dict, route: str, method: str, op: dict, shared: list) -> dict:
    parameters = []
    for item in shared + op.get("parameters", []):
        p = resolve(doc, item)
        parameters.append(
            {
                "name": p["name"],
                "in": p["in"],
                "required": p.get("required", False),
                "type": type_text(p["schema"]),
                "object": None,
                "default": p["schema"].get("default"),
                "description": p.get("description", ""),
            }
        )
    request = None
    if "requestBody" in op:
        content = op["requestBody"]["content"]["application/json"]["schema"]
        request = {
            "required": op["requestBody"].get("required", False),
            "object": named(content),
            "fields": fields(doc, content),
        }
    responses = []
    for status, item in sorted(op["responses"].items()):
        shown = resolve(doc, item)
        content = shown.get("content", {}).get("application/json", {}).get("schema")
        responses.append(
            {
                "status": status,
                "description": shown["description"],
                "object": named(content),
                "schema": type_text(content) if content else None,
                "headers": list(shown.get("headers", {})),
            }
        )
    return {
        "id": op["operationId"],
        "method": method.upper(),
        "path": route,
        "summary": op["summary"],
        "description": op.get("description", ""),
        "parameters": parameters,
        "body": request,
        "responses": responses,
    }


def reference(doc: dict) -> dict:
    """What the /api page shows, grouped by tag, read off the document."""
    groups = {tag["name"]: {**tag, "operations": []} for tag in doc["tags"]}
    for route, item in doc["paths"].items():
        for method in METHODS:
            if method in item:
                op = item[method]
                groups[op["tags"][0]]["operations"].append(
                    operation_view(doc, route, method, op, item.get("parameters", []))
                )
    objects = [
        {"name": name, "description": item.get("description", ""), "type": type_text(item), "fields": fields(doc, item)}
        for name, item in doc["components"]["schemas"].items()
    ]
    return {"openapi": doc["openapi"], "info": doc["info"], "groups": list(groups.values()), "objects": objects}


@bp.app_template_filter("api_words")
def api_words_filter(text: str) -> str:
    return api_words(text)


@bp.get("/api")
def page():
    return render_template("api.html", **reference(_document(current_app)))


# --- the reference in the reader's language ----------------------------------------------------
# The OpenAPI document stays in English (a contract, like the field names);
# the /api page shows its summaries and descriptions through the catalogues.
# `make messages` extracts them with ``webapp.web.extract_api_messages`` (see babel.cfg).

WORDED_KEYS = ("summary", "description")


def texts(node) -> list[str]:
    """Every summary and description in ``node`` (the document or a part)."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in WORDED_KEYS and isinstance(value, str) and value:
                found.append(value)
            else:
                found += texts(value)
    elif isinstance(node, list):
        for item in node:
            found += texts(item)
    return found


def api_words(text: str) -> str:
    """A text of the document in the page's language."""
    return gettext(text) if text else text
