"""The API's OpenAPI description: generated from the routes' contracts and
their pydantic models, valid OpenAPI 3.1, and true of what the app accepts
and answers. Schemathesis fuzzes every operation in process (WSGI, no
server) with every check it has, valid requests and invalid ones, on a
database that holds real games, codemaker games and challenges, so requests
reach them and not only 404s."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import jsonschema_rs
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.definitions import OPENAPI_31_VALIDATOR

from webapp import create_app
from webapp.web import api_document, schemas
from webapp.web.apidocs import document, routed_operations, tidy

ROOT = Path(__file__).resolve().parent.parent
CONFIG = {
    "TESTING": True,
    "CREATE_RATE_LIMIT": "100000 per minute",
    "LIVE_LOOKUP_RATE_LIMIT": "100000 per minute",
    "JOBS_CONSUMER": "none",
    "JOBS_MAX": 100000,
    "DATABASE_URL": None,
    "REDIS_URL": None,
}
# Per operation: examples fuzzed, and the seed that makes every run the same.
MAX_EXAMPLES = 100
SEED = 20240517
# Every check Schemathesis has, with the statuses this API answers valid and
# invalid requests with: the settings `schemathesis run` reads as well.
CHECKS_CONFIG = tomllib.loads((ROOT / "schemathesis.toml").read_text())["checks"]


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
    games = [
        created(client.post("/api/games", json=body))["id"]
        for body in ({}, {"pegs": 3, "colors": 4}, {"pegs": 2, "colors": 3, "max_guesses": 1})
    ]
    client.post(f"/api/games/{games[2]}/guesses", json={"guess": "11"})  # over: lost (or won)
    challenge = created(client.post("/api/challenges", json={"pegs": 3, "colors": 3, "secret": "123"}))
    joined = created(client.post(f"/api/challenges/{challenge['id']}/games", json={"name": "Ada"}))
    created(client.post(f"/api/games/{joined['id']}/guesses", json={"guess": "123"}), 200)  # won
    playing = created(client.post(f"/api/challenges/{challenge['id']}/games", json={"name": "Bo"}))
    games += [joined["id"], playing["id"]]
    makers = [
        created(client.post("/api/codemaker", json=body))["id"]
        for body in ({}, {"pegs": 3, "colors": 3}, {"pegs": 2, "colors": 2})
    ]
    created(client.post(f"/api/codemaker/{makers[1]}/feedback", json={"black": 1, "white": 0}), 200)
    created(client.post(f"/api/codemaker/{makers[2]}/feedback", json={"black": 2, "white": 0}), 200)  # solved
    return {
        "games": games,
        "codemaker": makers,
        "challenges": [challenge["id"]],
        "keys": [challenge["results_url"].rsplit("/", 1)[1]],
        "players": [joined["player"], playing["player"]],
    }


# Values that make a move count (codes of the sizes above, early move
# numbers), so guesses, answers and take-backs are played, not only refused.
PLAYABLE = {"codes": {"values": ["1122", "1234", "123", "112", "11", "12"]}, "moves": {"values": [1, 2, 3]}}


@pytest.fixture(scope="module")
def api_schema(api_app, objects):
    """The app's own /api/openapi.json, with path parameters drawn mostly
    from the real ids (and otherwise made up, for the 404s)."""

    def drawn(dictionary: str) -> dict:
        return {"dictionary": dictionary, "probability": 0.8}

    config = schemathesis.Config.from_dict(
        {
            "seed": SEED,
            "dictionaries": {**{name: {"values": ids} for name, ids in objects.items()}, **PLAYABLE},
            "generation": {"deterministic": True, "database": "none"},
            "checks": CHECKS_CONFIG,
            "operations": [
                {
                    "include-path-regex": "^/api/games/",
                    "parameters": {
                        "path.game_id": drawn("games"),
                        "body.guess": drawn("codes"),
                        "body.move": drawn("moves"),
                    },
                },
                {
                    "include-path-regex": "^/api/codemaker/",
                    "parameters": {"path.game_id": drawn("codemaker"), "body.move": drawn("moves")},
                },
                {
                    "include-path-regex": "^/api/challenges/",
                    "parameters": {
                        "path.challenge_id": drawn("challenges"),
                        "path.key": drawn("keys"),
                        "body.player": drawn("players"),
                    },
                },
            ],
        }
    )
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


def test_document_is_valid_openapi_31(api_app):
    doc = document(api_app)
    assert doc["openapi"].startswith("3.1.")
    OPENAPI_31_VALIDATOR.validate(doc)
    for name, item in doc["components"]["schemas"].items():  # each a valid JSON Schema 2020-12
        assert jsonschema_rs.meta.is_valid(item), name
    for target in set(refs(doc)):
        kind, name = target.removeprefix("#/components/").split("/")
        assert name in doc["components"][kind], target


def test_every_response_is_described_and_waits_are_announced(api_app):
    doc = document(api_app)
    responses = doc["components"]["responses"]
    for route, item in doc["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            assert operation["responses"], (method, route)
            for status, answer in operation["responses"].items():
                answer = responses[answer["$ref"].rsplit("/", 1)[1]] if "$ref" in answer else answer
                # The web server's own page for 414; the live events' stream.
                media = {"414": "text/html"}.get(status, "application/json")
                if route.endswith("/events") and status == "200":
                    media = "text/event-stream"
                assert answer["content"][media]["schema"], (method, route, status)
                if status in ("429", "503"):
                    assert "Retry-After" in answer["headers"], (method, route, status)


def test_document_and_routes_agree(api_app):
    doc = document(api_app)
    documented = {(route, method) for route, item in doc["paths"].items() for method in item if method != "parameters"}
    routed = set()
    for rule in api_app.url_map.iter_rules():
        if rule.rule.startswith("/api/") or rule.rule == "/live/<code>/events":  # the API, and the live events
            route = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
            routed |= {(route, method.lower()) for method in rule.methods - {"HEAD", "OPTIONS"}}
    assert documented - routed == set(), "documented but not routed"
    assert routed - documented == set(), "routed but not documented"


def test_document_is_served_and_cached(api_app):
    response = api_app.test_client().get("/api/openapi.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.get_json() == document(api_app)
    assert response.cache_control.public and response.cache_control.max_age >= 600


def test_reference_page_names_every_route(api_app):
    client = api_app.test_client()
    response = client.get("/api")
    assert response.status_code == 200 and response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    for route in document(api_app)["paths"]:
        assert f"<code>{route}</code>" in html, route
    assert "<h1>The JSON API</h1>" in html and 'href="/api/openapi.json"' in html
    home = client.get("/").get_data(as_text=True)
    footer = home[home.index('<footer class="site">') :]
    assert 'href="/api"' in footer and 'href="/api/openapi.json"' in footer


def test_schemas_are_the_models_own(api_app):
    """Every body and query parameter the document describes is its
    contract's pydantic model, as pydantic writes it: nothing hand-made to
    drift away from what the views check."""
    doc = document(api_app)
    checked = 0
    for path, method, op in routed_operations(api_app):
        operation = doc["paths"][path][method]
        if op.body is not None:
            name = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
            assert name == op.body.__name__
            own = tidy(op.body.model_json_schema(ref_template="#/components/schemas/{model}"))
            assert doc["components"]["schemas"][name] == {k: v for k, v in own.items() if k != "$defs"}
            checked += 1
        if op.query is not None:
            own = tidy(op.query.model_json_schema())
            documented = {p["name"]: p for p in operation["parameters"] if p["in"] == "query"}
            assert set(documented) == set(own["properties"])
            for name, item in own["properties"].items():
                assert documented[name]["schema"] == {
                    k: v for k, v in item.items() if k not in ("description", "examples")
                }
                assert documented[name]["required"] == (name in own.get("required", ()))
            checked += 1
        for status, documented in op.answers.items():
            schema = operation["responses"][str(status)]["content"][documented.media_type]["schema"]
            assert schema["$ref"].rsplit("/", 1)[1] == (documented.model or schemas.Error).__name__
    assert checked == 21  # sixteen bodies, five query strings


# --- the app keeps to it -----------------------------------------------------------------------

OPERATIONS = [
    (route, method) for route, item in api_document()["paths"].items() for method in item if method != "parameters"
]
FUZZING = settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],
)


@pytest.mark.parametrize("route, method", OPERATIONS, ids=[f"{m.upper()} {r}" for r, m in OPERATIONS])
def test_api_keeps_to_its_description(api_schema, route, method):
    """Valid requests and invalid ones: never a 5xx, and every answer is
    one the document describes (status, content type, body, headers)."""
    operation = api_schema[route][method.upper()]
    modes = [GenerationMode.POSITIVE] + ([GenerationMode.NEGATIVE] if operation.query or operation.body else [])

    @FUZZING
    @given(case=st.one_of(*(operation.as_strategy(mode) for mode in modes)))
    def fuzz(case):
        case.call_and_validate()

    fuzz()


@pytest.fixture
def strict_schema(tmp_path):
    """The document bound to an app that allows two new objects a minute and
    no background job at all, for the answers the fuzzer never meets."""
    app = create_app(
        {
            **CONFIG,
            "DATABASE": str(tmp_path / "games.sqlite3"),
            "CREATE_RATE_LIMIT": "2 per minute",
            "JOBS_MAX": 0,
            "JOBS_QUICK_INLINE": False,
        }
    )
    config = schemathesis.Config.from_dict({"checks": CHECKS_CONFIG})
    yield schemathesis.openapi.from_wsgi("/api/openapi.json", app, config=config)
    app.extensions["jobs"].stop()
    app.extensions["store"].close()


def test_refusals_to_wait_keep_to_the_description(strict_schema):
    """429 (too many new games) and 503 (job queue full) as documented,
    with ``Retry-After``, and 413 for a body too large."""
    create = strict_schema["/api/games"]["POST"]
    answers = [create.Case(body=body).call_and_validate() for body in ({"padding": "x" * 20_000}, {}, {})]
    assert [answer.status_code for answer in answers] == [413, 201, 429]  # two a minute, the 413 counted
    assert int(answers[-1].headers["retry-after"][0]) > 0
    compare = strict_schema["/api/solver/compare"]["GET"]
    busy = compare.Case(query={"pegs": 5, "colors": 8}).call_and_validate(
        excluded_checks=[not_a_server_error]
    )  # a 503 is the answer expected here
    assert busy.status_code == 503 and int(busy.headers["retry-after"][0]) > 0


@pytest.fixture
def links_schema(tmp_path):
    """The document bound to a fresh app of its own: scenarios start from
    what they create, not from objects the other tests have played."""
    app = create_app({**CONFIG, "DATABASE": str(tmp_path / "games.sqlite3")})
    yield schemathesis.openapi.from_wsgi(
        "/api/openapi.json", app, config=schemathesis.Config.from_dict({"checks": CHECKS_CONFIG})
    )
    app.extensions["jobs"].stop()
    app.extensions["store"].close()


def test_links_lead_to_the_created_objects(links_schema):
    """The document's links (an id from a creating answer into the next
    request) work: Schemathesis follows them through short scenarios, with
    every check. The server's records outlive each scenario, so a scenario
    replayed later need not unfold the same way: they are generated and
    reported, not replayed to shrink them."""
    machine = links_schema.as_state_machine()
    machine.run(
        settings=settings(
            max_examples=15,
            stateful_step_count=6,
            derandomize=True,
            phases=[Phase.generate],
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
    )
