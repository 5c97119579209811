"""The API's OpenAPI description: valid OpenAPI 3.1, in step with the app's
routes both ways, and true of what the app answers. Schemathesis fuzzes
every operation in process (WSGI, no server) on a database that holds real
games, codemaker games and challenges, so requests reach them and not only
404s."""

from __future__ import annotations

import jsonschema_rs
import pytest
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance, response_headers_conformance, response_schema_conformance,
    status_code_conformance,
)
from schemathesis.specs.openapi.definitions import OPENAPI_31_VALIDATOR

from webapp import create_app
from webapp.openapi import document

CONFIG = {"TESTING": True, "CREATE_RATE_LIMIT": "100000 per minute", "JOBS_CONSUMER": "none",
          "JOBS_MAX": 100000, "DATABASE_URL": None, "REDIS_URL": None}
# Per operation: examples fuzzed, and the seed that makes every run the same.
MAX_EXAMPLES = 40
SEED = 20240517
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance, response_headers_conformance]


@pytest.fixture(scope="module")
def api_app(tmp_path_factory):
    app = create_app({**CONFIG, "DATABASE": str(tmp_path_factory.mktemp("openapi") / "games.sqlite3")})
    yield app
    app.extensions["jobs"].stop()
    app.extensions["store"].close()


def created(response, status: int = 201) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    return response.get_json()


@pytest.fixture(scope="module")
def objects(api_app) -> dict[str, list[str]]:
    """Real ids in every state the API describes, for the fuzzer to reach."""
    client = api_app.test_client()
    games = [created(client.post("/api/games", json=body))["id"]
             for body in ({}, {"pegs": 3, "colors": 4}, {"pegs": 2, "colors": 3, "max_guesses": 1})]
    client.post(f"/api/games/{games[2]}/guesses", json={"guess": "11"})  # over: lost (or won)
    challenge = created(client.post("/api/challenges", json={"pegs": 3, "colors": 3, "secret": "123"}))
    joined = created(client.post(f"/api/challenges/{challenge['id']}/games", json={"name": "Ada"}))
    created(client.post(f"/api/games/{joined['id']}/guesses", json={"guess": "123"}), 200)  # won
    games.append(joined["id"])
    makers = [created(client.post("/api/codemaker", json=body))["id"]
              for body in ({}, {"pegs": 3, "colors": 3}, {"pegs": 2, "colors": 2})]
    created(client.post(f"/api/codemaker/{makers[1]}/feedback", json={"black": 1, "white": 0}), 200)
    created(client.post(f"/api/codemaker/{makers[2]}/feedback", json={"black": 2, "white": 0}), 200)  # solved
    return {"games": games, "codemaker": makers, "challenges": [challenge["id"]],
            "keys": [challenge["results_url"].rsplit("/", 1)[1]]}


@pytest.fixture(scope="module")
def api_schema(api_app, objects):
    """The app's own /api/openapi.json, with path parameters drawn mostly
    from the real ids (and otherwise made up, for the 404s)."""
    def drawn(dictionary: str) -> dict:
        return {"dictionary": dictionary, "probability": 0.8}

    config = schemathesis.Config.from_dict({
        "seed": SEED,
        "dictionaries": {name: {"values": ids} for name, ids in objects.items()},
        "generation": {"max-examples": MAX_EXAMPLES, "deterministic": True, "database": "none"},
        "phases": {"coverage": {"enabled": False}, "stateful": {"enabled": False}},
        "operations": [
            {"include-path-regex": "^/api/games/", "parameters": {"path.game_id": drawn("games")}},
            {"include-path-regex": "^/api/codemaker/", "parameters": {"path.game_id": drawn("codemaker")}},
            {"include-path-regex": "^/api/challenges/",
             "parameters": {"path.challenge_id": drawn("challenges"), "path.key": drawn("keys")}},
        ],
    })
    return schemathesis.openapi.from_wsgi("/api/openapi.json", api_app, config=config)


# --- the document itself ---------------------------------------------------------------------


def refs(node):
    """Every ``$ref`` in the document."""
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def test_document_is_valid_openapi_31():
    doc = document()
    assert doc["openapi"].startswith("3.1.")
    OPENAPI_31_VALIDATOR.validate(doc)
    for name, item in doc["components"]["schemas"].items():  # each a valid JSON Schema 2020-12
        assert jsonschema_rs.meta.is_valid(item), name
    for target in set(refs(doc)):
        kind, name = target.removeprefix("#/components/").split("/")
        assert name in doc["components"][kind], target


def test_every_response_is_described_and_waits_are_announced():
    doc = document()
    responses = doc["components"]["responses"]
    for route, item in doc["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            assert operation["responses"], (method, route)
            for status, answer in operation["responses"].items():
                answer = responses[answer["$ref"].rsplit("/", 1)[1]] if "$ref" in answer else answer
                assert answer["content"]["application/json"]["schema"], (method, route, status)
                if status in ("429", "503"):
                    assert "Retry-After" in answer["headers"], (method, route, status)


def test_document_and_routes_agree(api_app):
    doc = document()
    documented = {(route, method) for route, item in doc["paths"].items() for method in item
                  if method != "parameters"}
    routed = set()
    for rule in api_app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            route = rule.rule.replace("<", "{").replace(">", "}")
            routed |= {(route, method.lower()) for method in rule.methods - {"HEAD", "OPTIONS"}}
    assert documented - routed == set(), "documented but not routed"
    assert routed - documented == set(), "routed but not documented"


def test_document_is_served_and_cached(api_app):
    response = api_app.test_client().get("/api/openapi.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.get_json() == document()
    assert response.cache_control.public and response.cache_control.max_age >= 600


def test_reference_page_names_every_route(api_app):
    client = api_app.test_client()
    response = client.get("/api")
    assert response.status_code == 200 and response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    for route in document()["paths"]:
        assert f"<code>{route}</code>" in html, route
    assert "<h1>The JSON API</h1>" in html and 'href="/api/openapi.json"' in html
    home = client.get("/").get_data(as_text=True)
    footer = home[home.index('<footer class="site">'):]
    assert 'href="/api"' in footer and 'href="/api/openapi.json"' in footer


# --- the app keeps to it -----------------------------------------------------------------------

schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
def test_api_keeps_to_its_description(case):
    case.call_and_validate(checks=CHECKS)
