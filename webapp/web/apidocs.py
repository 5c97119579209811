"""The JSON API described in OpenAPI 3.1: one document, built here from the
same constants the code checks against, served as JSON at
``/api/openapi.json`` and rendered as a readable reference at ``/api``.

``tests/test_openapi.py`` keeps it honest: the document lists exactly the
``/api/`` routes the app has, and Schemathesis fuzzes every operation
against it."""

from __future__ import annotations

import copy
from functools import lru_cache

from flask import Blueprint, jsonify, render_template
from flask_babel import gettext

from ..engine import PRESETS
from ..engine.codes import MAX_COLORS, MAX_GUESSES, MAX_PEGS, MIN_COLORS, MIN_GUESSES, MIN_PEGS
from ..engine.lines import ADVERSARIES, BEST_CANDIDATE, GREEDY
from ..engine.review import RATINGS
from ..settings import DEFAULTS, MAX_NAME, NO, YES

bp = Blueprint("apidocs", __name__)

OPENAPI = "3.1.0"
DOCUMENT_MAX_AGE = 3600  # seconds a client may keep /api/openapi.json


def ref(kind: str, name: str) -> dict:
    return {"$ref": f"#/components/{kind}/{name}"}


def schema(name: str) -> dict:
    return ref("schemas", name)


def whole(low: int, high: int, description: str, **extra) -> dict:
    return {"type": "integer", "minimum": low, "maximum": high, "description": description, **extra}


# --- the objects ---------------------------------------------------------------------------

PEGS = whole(MIN_PEGS, MAX_PEGS, "Pegs in a code.", default=DEFAULTS["pegs"])
COLORS = whole(
    MIN_COLORS,
    MAX_COLORS,
    "Colours a peg may take, numbered from 1 (the tenth is written 0).",
    default=DEFAULTS["colors"],
)
MAX_GUESSES_FIELD = whole(
    MIN_GUESSES, MAX_GUESSES, "Guesses allowed before the game is lost.", default=DEFAULTS["max_guesses"]
)
DISTINCT = {
    "type": "boolean",
    "default": DEFAULTS["distinct"],
    "description": "Whether the secret uses different colours (no colour twice).",
}
DISTINCT_GUESSES = {
    "type": "boolean",
    "default": DEFAULTS["distinct_guesses"],
    "description": "Whether every guess must use different colours too (it implies distinct). "
    "Bulls and Cows is 4 pegs, 10 colours, distinct guesses.",
}
HARD = {
    "type": "boolean",
    "default": False,
    "description": "Hard mode: every guess must fit every reply so far (a guess that could not be "
    "the secret is refused with 422).",
}
KEY_PEGS = whole(0, MAX_PEGS, "Key pegs of this colour.")
URL = {"type": "string", "format": "uri-reference"}
CODE_TEXT = {
    "type": "string",
    "examples": ["1122"],
    "description": "A code: one digit per peg, colours numbered from 1 (spaces, commas and "
    "dashes between them are ignored).",
}
MOVE = {
    "type": "integer",
    "minimum": 1,
    "description": "The number of the move this request makes (1 for the first): a request "
    "repeated or sent from a stale page is refused with 409 instead of counted twice.",
}
STRATEGIES = sorted(PRESETS)

GAME_FIELDS = {
    "id": {"type": "string", "description": "The game's id, random and URL-safe."},
    "pegs": PEGS,
    "colors": COLORS,
    "max_guesses": MAX_GUESSES_FIELD,
    "distinct": DISTINCT,
    "distinct_guesses": DISTINCT_GUESSES,
    "hard": HARD,
    "status": {
        "type": "string",
        "enum": ["playing", "won", "lost"],
        "description": "Whether the game goes on, or how it ended.",
    },
    "guesses": {"type": "array", "items": schema("Reply"), "description": "Every guess so far, in order."},
    "url": {**URL, "description": "The game's board, to play it in a browser."},
    "watch_url": {**URL, "description": "A read-only view of the game as it is played."},
    "secret": {**schema("Code"), "description": "The secret: only once the game is over."},
    "replay_url": {**URL, "description": "The replay of the finished game: only once it is over."},
}
GAME_REQUIRED = [
    "id",
    "pegs",
    "colors",
    "max_guesses",
    "distinct",
    "distinct_guesses",
    "hard",
    "status",
    "guesses",
    "url",
    "watch_url",
]
# The secret and the replay appear exactly when the game is over.
ONLY_WHEN_OVER = {
    "if": {"properties": {"status": {"const": "playing"}}},
    "then": {"not": {"anyOf": [{"required": ["secret"]}, {"required": ["replay_url"]}]}},
    "else": {"required": ["secret", "replay_url"]},
}


def game_object(description: str, **extra_fields) -> dict:
    return {
        "type": "object",
        "description": description,
        "properties": {**GAME_FIELDS, **extra_fields},
        "required": GAME_REQUIRED + list(extra_fields),
        "additionalProperties": False,
        **ONLY_WHEN_OVER,
    }


SCHEMAS = {
    "Error": {
        "type": "object",
        "description": "Every error answer: one sentence a person can read.",
        "properties": {"error": {"type": "string", "minLength": 1}},
        "required": ["error"],
        "additionalProperties": False,
    },
    "Code": {
        "type": "string",
        "pattern": f"^[0-9]{{{MIN_PEGS},{MAX_PEGS}}}$",
        "examples": ["1122"],
        "description": f"A code: one digit per peg, colours numbered from 1 (with {MAX_COLORS} colours the "
        "tenth is written 0).",
    },
    "Reply": {
        "type": "object",
        "description": "A guess and the key pegs it got.",
        "properties": {
            "guess": schema("Code"),
            "black": {**KEY_PEGS, "description": "Right colour, right place."},
            "white": {**KEY_PEGS, "description": "Right colour, wrong place."},
        },
        "required": ["guess", "black", "white"],
        "additionalProperties": False,
    },
    "Game": game_object("A game against a secret the server keeps."),
    "ChallengeGame": game_object(
        "A challenge player's game: a game, plus who plays it.",
        player={
            "type": "string",
            "description": "The anonymous player token: send it back to join again and get the same game.",
        },
        counted={
            "type": "boolean",
            "description": "Whether the game counts on the results page: "
            "false for a practice game after the player's "
            "counted game has ended.",
        },
    ),
    "DailyGame": game_object(
        "A player's game of today's daily puzzle.",
        player={
            "type": "string",
            "description": "The anonymous player token: send it back to get the same game and your statistics.",
        },
        day={"type": "integer", "minimum": 1, "description": "The puzzle's number (1 is 1 January 2026)."},
        date={"type": "string", "format": "date", "description": "The puzzle's day (UTC)."},
    ),
    "Daily": {
        "type": "object",
        "properties": {
            "pegs": {"type": "integer", "enum": [4, 5], "default": 4, "description": "4 (classic) or 5 (Super)."},
            "colors": {"type": "integer", "enum": [6, 8], "default": 6, "description": "6 (classic) or 8 (Super)."},
            "player": {
                "type": "string",
                "description": "The player token an earlier answer gave you; left out, a new one is made.",
            },
        },
    },
    "Stats": {
        "type": "object",
        "description": "A player's statistics.",
        "properties": {
            "player": {"type": "string"},
            "played": {"type": "integer", "minimum": 0, "description": "Finished games."},
            "won": {"type": "integer", "minimum": 0},
            "win_rate": {"type": ["integer", "null"], "minimum": 0, "maximum": 100, "description": "Per cent."},
            "current_streak": {
                "type": "integer",
                "minimum": 0,
                "description": "Days in a row, up to today or yesterday, with a daily puzzle won.",
            },
            "longest_streak": {"type": "integer", "minimum": 0},
            "daily_played": {"type": "integer", "minimum": 0},
            "guesses": {
                "type": "object",
                "additionalProperties": {"type": "integer", "minimum": 0},
                "description": "Games won, by the guesses they needed.",
            },
            "lost": {"type": "integer", "minimum": 0},
            "average_guesses": {"type": ["number", "null"], "description": "Over the games won."},
            "versus_knuth": {
                "type": "object",
                "description": "Average guesses, yours and Knuth's algorithm's, over the won games where "
                "its game on the same secret is known.",
                "properties": {
                    "games": {"type": "integer", "minimum": 0},
                    "you": {"type": ["number", "null"]},
                    "knuth": {"type": ["number", "null"]},
                },
                "required": ["games", "you", "knuth"],
                "additionalProperties": False,
            },
            "versus_optimal": {
                "type": "object",
                "description": "The same against optimal play, where it is offered.",
                "properties": {
                    "games": {"type": "integer", "minimum": 0},
                    "you": {"type": ["number", "null"]},
                    "optimal": {"type": ["number", "null"]},
                },
                "required": ["games", "you", "optimal"],
                "additionalProperties": False,
            },
            "average_skill": {"type": ["number", "null"], "description": "The reviews' skill, on average."},
            "reviewed": {"type": "integer", "minimum": 0, "description": "Games whose review is ready."},
        },
        "required": [
            "player",
            "played",
            "won",
            "win_rate",
            "current_streak",
            "longest_streak",
            "daily_played",
            "guesses",
            "lost",
            "average_guesses",
            "versus_knuth",
            "versus_optimal",
            "average_skill",
            "reviewed",
        ],
        "additionalProperties": False,
    },
    "Job": {
        "type": "object",
        "description": "Work that runs in the background: ask again (with the same request) until the answer is ready.",
        "properties": {
            "status": {"type": "string", "enum": ["queued", "running", "done", "failed"]},
            "progress": {
                "type": ["number", "null"],
                "minimum": 0,
                "maximum": 1,
                "description": "The fraction done, when known.",
            },
            "eta_seconds": {"type": ["number", "null"], "minimum": 0, "description": "Seconds left, when known."},
            "elapsed_seconds": {"type": "number", "minimum": 0},
        },
        "required": ["status", "progress", "eta_seconds", "elapsed_seconds"],
        "additionalProperties": False,
    },
    "CodemakerState": {
        "type": "object",
        "description": "A game where the player keeps the secret and the computer guesses.",
        "properties": {
            "id": {"type": "string"},
            "pegs": PEGS,
            "colors": COLORS,
            "distinct": DISTINCT,
            "distinct_guesses": DISTINCT_GUESSES,
            "strategy": {"type": "string", "description": "The strategy that guesses."},
            "status": {"type": "string", "enum": ["guessing", "solved"]},
            "history": {
                "type": "array",
                "items": schema("Reply"),
                "description": "The computer's guesses and the player's answers.",
            },
            "remaining": {"type": "integer", "minimum": 0, "description": "Codes that fit every answer so far."},
            "url": {**URL, "description": "The game's page."},
            "guess": {
                **schema("Code"),
                "description": "The computer's next guess, to answer: absent once "
                "solved, after the last guess allowed, and while "
                "it is being worked out.",
            },
            "job": {**schema("Job"), "description": "Present while the next guess is being worked out."},
        },
        "required": [
            "id",
            "pegs",
            "colors",
            "distinct",
            "distinct_guesses",
            "strategy",
            "status",
            "history",
            "remaining",
            "url",
        ],
        "additionalProperties": False,
        "allOf": [  # a guess or its job, never both; neither once solved
            {"not": {"required": ["guess", "job"]}},
            {
                "if": {"properties": {"status": {"const": "solved"}}},
                "then": {"not": {"anyOf": [{"required": ["guess"]}, {"required": ["job"]}]}},
            },
        ],
    },
    "Challenge": {
        "type": "object",
        "description": "A new challenge and its links.",
        "properties": {
            "id": {"type": "string"},
            "url": {**URL, "description": "The link to share: everyone who opens it plays the secret."},
            "results_page": {**URL, "description": "The private results page (the key is in it)."},
            "results_url": {**URL, "description": "The results as JSON (GET)."},
        },
        "required": ["id", "url", "results_page", "results_url"],
        "additionalProperties": False,
    },
    "Review": {
        "type": "object",
        "description": "Each guess of a finished game against optimal play. E (expected) is the "
        "number of guesses to expect from that move on, the guess included, if every later guess is "
        "optimal and every code still possible equally likely; V (best_expected) the least E any code "
        "gives there.",
        "properties": {
            "id": {"type": "string"},
            "exact": {"type": "boolean", "description": "Whether every figure is exact (else some are estimates)."},
            "method": {
                "type": ["string", "null"],
                "description": "How the moves that are not exact were measured (null when all are).",
            },
            "skill": whole(0, 100, "100 less a hundred times the guesses lost per move on average."),
            "luck": {
                "type": ["integer", "null"],
                "minimum": 0,
                "maximum": 100,
                "description": "The average luck of the replies (null when no reply could have differed).",
            },
            "guesses": {"type": "integer", "minimum": 1},
            "won": {"type": "boolean"},
            "expected_guesses": {
                "type": "number",
                "description": "Optimal play's expectation plus everything the player's guesses lost.",
            },
            "optimal_expected_guesses": {"type": "number", "description": "V before the first guess."},
            "knuth": {
                "type": ["array", "null"],
                "items": schema("Code"),
                "description": "Knuth's algorithm's guesses on the same secret (null when too slow here).",
            },
            "moves": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "move": {"type": "integer", "minimum": 1},
                        "guess": schema("Code"),
                        "black": KEY_PEGS,
                        "white": KEY_PEGS,
                        "candidates": {"type": "integer", "minimum": 1, "description": "Codes possible before it."},
                        "expected": {"type": "number", "description": "E of the guess."},
                        "best_expected": {"type": "number", "description": "V of the position."},
                        "best_guess": {
                            **schema("Code"),
                            "description": "A guess with E = V (one that could be the secret when there is one).",
                        },
                        "rating": {
                            "type": "string",
                            "enum": [word for word, _ in RATINGS],
                            "description": "By the guesses lost, E - V: "
                            + ", ".join(f"{w} up to {m}" for w, m in RATINGS[:-1])
                            + ", blunder beyond.",
                        },
                        "luck": {
                            "type": ["integer", "null"],
                            "minimum": 0,
                            "maximum": 100,
                            "description": "Where the reply fell among those the guess could get, by the "
                            "codes each leaves, weighted by their chances (100: none leaves fewer).",
                        },
                        "exact": {"type": "boolean"},
                        "known": {
                            "type": "boolean",
                            "description": "Whether the figures come from the best strategy known (Super "
                            "Mastermind's searched tree) rather than an estimate.",
                        },
                    },
                    "required": [
                        "move",
                        "guess",
                        "black",
                        "white",
                        "candidates",
                        "expected",
                        "best_expected",
                        "best_guess",
                        "rating",
                        "luck",
                        "exact",
                        "known",
                    ],
                    "additionalProperties": False,
                },
            },
        },
        "required": [
            "id",
            "exact",
            "method",
            "skill",
            "luck",
            "guesses",
            "won",
            "expected_guesses",
            "optimal_expected_guesses",
            "knuth",
            "moves",
        ],
        "additionalProperties": False,
    },
    "ChallengeResults": {
        "type": "object",
        "description": "How each player of a challenge did.",
        "properties": {
            "id": {"type": "string"},
            "pegs": PEGS,
            "colors": COLORS,
            "distinct": DISTINCT,
            "distinct_guesses": DISTINCT_GUESSES,
            "max_guesses": MAX_GUESSES_FIELD,
            "players": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": 'As typed, or "anonymous".'},
                        "status": {"type": "string", "enum": ["playing", "won", "lost"]},
                        "guesses": {"type": "integer", "minimum": 0},
                        "replay_url": {
                            "type": ["string", "null"],
                            "format": "uri-reference",
                            "description": "Once the player's game is over.",
                        },
                        "skill": {
                            "type": ["integer", "null"],
                            "minimum": 0,
                            "maximum": 100,
                            "description": "The review's skill score of a finished game (null while it "
                            "is worked out, or while the game is played).",
                        },
                    },
                    "required": ["name", "status", "guesses", "replay_url", "skill"],
                    "additionalProperties": False,
                },
            },
            "benchmarks": {
                "type": "object",
                "description": "Guesses each strategy needs for this secret, by strategy name "
                "(null when too slow to work out here).",
                "additionalProperties": {"type": ["integer", "null"], "minimum": 1},
            },
        },
        "required": ["id", "pegs", "colors", "distinct", "distinct_guesses", "max_guesses", "players", "benchmarks"],
        "additionalProperties": False,
    },
    "Comparison": {
        "type": "object",
        "description": "Every strategy played against every secret of one size.",
        "properties": {
            "pegs": PEGS,
            "colors": COLORS,
            "distinct": DISTINCT,
            "distinct_guesses": DISTINCT_GUESSES,
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "strategy": {"type": "string"},
                        "total": {"type": "integer", "minimum": 0, "description": "Guesses over every secret."},
                        "mean": {"type": "number", "minimum": 0},
                        "stddev": {"type": "number", "minimum": 0},
                        "max": {"type": "integer", "minimum": 0, "description": "The longest game."},
                        "first_guess": schema("Code"),
                        "histogram": {
                            "type": "object",
                            "description": "Secrets found in n guesses, by n.",
                            "propertyNames": {"pattern": "^[1-9][0-9]*$"},
                            "additionalProperties": {"type": "integer", "minimum": 0},
                        },
                    },
                    "required": ["strategy", "total", "mean", "stddev", "max", "first_guess", "histogram"],
                    "additionalProperties": False,
                },
            },
            "skipped": {
                "type": "array",
                "description": "Strategies left out of this size, and why.",
                "items": {
                    "type": "object",
                    "properties": {"strategy": {"type": "string"}, "reason": {"type": "string"}},
                    "required": ["strategy", "reason"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["pegs", "colors", "distinct", "distinct_guesses", "rows", "skipped"],
        "additionalProperties": False,
    },
    "Line": {
        "type": "object",
        "description": "A whole game between a codebreaking strategy and an adversary who never fixed a secret.",
        "properties": {
            "pegs": PEGS,
            "colors": COLORS,
            "distinct": DISTINCT,
            "distinct_guesses": DISTINCT_GUESSES,
            "strategy": {"type": "string"},
            "adversary": {"type": "string", "enum": list(ADVERSARIES)},
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "guess": schema("Code"),
                        "black": KEY_PEGS,
                        "white": KEY_PEGS,
                        "remaining": {
                            "type": "integer",
                            "minimum": 1,
                            "description": "Codes still possible after the reply.",
                        },
                    },
                    "required": ["guess", "black", "white", "remaining"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["pegs", "colors", "distinct", "distinct_guesses", "strategy", "adversary", "rows"],
        "additionalProperties": False,
    },
    "Score": {
        "type": "object",
        "description": "A guess's score by the strategy's criteria, by criterion name: a number, or "
        "a list of class sizes.",
        "additionalProperties": {"anyOf": [{"type": "number"}, {"type": "array", "items": {"type": "number"}}]},
    },
    "Position": {
        "type": "object",
        "description": "One position explained: the codes still possible, the strategy's next guess, "
        "the partition it makes, the best guesses by the strategy's score, and why.",
        "properties": {
            "pegs": PEGS,
            "colors": COLORS,
            "distinct": DISTINCT,
            "distinct_guesses": DISTINCT_GUESSES,
            "strategy": {"type": "string"},
            "history": {"type": "array", "items": schema("Reply")},
            "solved": {"type": "boolean"},
            "candidates": {"type": "integer", "minimum": 0, "description": "Codes that fit the history."},
            "codes": {
                "type": "array",
                "items": schema("Code"),
                "description": "Those codes, when there are only a few.",
            },
            "guess": {**schema("Code"), "description": "The strategy's next guess (absent once solved)."},
            "score": schema("Score"),
            "is_candidate": {"type": "boolean", "description": "Whether the guess could be the secret."},
            "partition": {
                "type": "object",
                "description": 'Codes left after each reply to the guess, by reply ("black,white").',
                "propertyNames": {"pattern": "^[0-9]+,[0-9]+$"},
                "additionalProperties": {"type": "integer", "minimum": 1},
            },
            "top": {
                "type": "array",
                "description": "The best guesses by the strategy's score.",
                "items": {
                    "type": "object",
                    "properties": {
                        "guess": schema("Code"),
                        "score": schema("Score"),
                        "is_candidate": {"type": "boolean"},
                    },
                    "required": ["guess", "score", "is_candidate"],
                    "additionalProperties": False,
                },
            },
            "why": {"type": "string", "description": "Which score and which tie-break chose the guess."},
        },
        "required": [
            "pegs",
            "colors",
            "distinct",
            "distinct_guesses",
            "strategy",
            "history",
            "solved",
            "candidates",
            "top",
            "why",
        ],
        "dependentRequired": {"guess": ["score", "is_candidate", "partition"]},
        "additionalProperties": False,
    },
    # Request bodies. Fields the app does not know are ignored.
    "GameSettings": {
        "type": "object",
        "description": "A new game's size and guess limit: missing fields take the classic game's.",
        "properties": {
            "pegs": PEGS,
            "colors": COLORS,
            "max_guesses": MAX_GUESSES_FIELD,
            "distinct": DISTINCT,
            "distinct_guesses": DISTINCT_GUESSES,
            "hard": HARD,
        },
    },
    "Guess": {
        "type": "object",
        "properties": {"guess": CODE_TEXT, "move": MOVE},
        "required": ["guess"],
    },
    "CodemakerSettings": {
        "type": "object",
        "properties": {
            "pegs": PEGS,
            "colors": COLORS,
            "distinct": DISTINCT,
            "distinct_guesses": DISTINCT_GUESSES,
            "strategy": {
                "type": "string",
                "enum": STRATEGIES,
                "default": "knuth",
                "description": "The strategy that guesses.",
            },
        },
    },
    "Answer": {
        "type": "object",
        "description": "The player's key pegs for the computer's current guess.",
        "properties": {"black": KEY_PEGS, "white": KEY_PEGS, "move": MOVE},
        "required": ["black", "white"],
    },
    "TakeBack": {
        "type": "object",
        "properties": {"move": {**MOVE, "description": "The number of the answer to take back: the last one."}},
        "required": ["move"],
    },
    "ChallengeSettings": {
        "type": "object",
        "properties": {
            "pegs": PEGS,
            "colors": COLORS,
            "max_guesses": MAX_GUESSES_FIELD,
            "distinct": DISTINCT,
            "distinct_guesses": DISTINCT_GUESSES,
            "secret": {**CODE_TEXT, "description": "The secret everyone plays; left out, the server draws one."},
        },
    },
    "Join": {
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "maxLength": MAX_NAME,
                "description": f"The name on the results page (at most {MAX_NAME} characters).",
            },
            "player": {
                "type": "string",
                "description": "The player token an earlier join returned: the player's game in progress comes back.",
            },
        },
    },
}

# --- the shared answers --------------------------------------------------------------------

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


def error(description: str, **headers) -> dict:
    answer = {"description": description, "content": {"application/json": {"schema": schema("Error")}}}
    if headers:
        answer["headers"] = headers
    return answer


RESPONSES = {
    "BadRequest": error("The request is malformed or its values are out of range: the sentence says which."),
    "NotFound": error("There is nothing with this id (or this results key)."),
    "Conflict": error("The request no longer fits the game: it is over, or the move number is stale."),
    "TooLarge": error("The request body is larger than the server accepts (16 KB unless configured otherwise)."),
    "UnsupportedMediaType": error("The body is not of a type this route reads."),
    "TooSlow": error("The work asked for is too large to do on this server."),
    "TooManyRequests": error(
        "Too many new games, challenges or codemaker games from this address just now.",
        **{
            "Retry-After": ref("headers", "Retry-After"),
            "X-RateLimit-Limit": ref("headers", "X-RateLimit-Limit"),
            "X-RateLimit-Remaining": ref("headers", "X-RateLimit-Remaining"),
            "X-RateLimit-Reset": ref("headers", "X-RateLimit-Reset"),
        },
    ),
    "Unavailable": error(
        "The database cannot be written just now, or the queue of background work "
        "is full: nothing was lost, try again later.",
        **{"Retry-After": ref("headers", "Retry-After")},
    ),
    "Working": {
        "description": "The answer is being worked out in the background: ask again later.",
        "content": {"application/json": {"schema": schema("Job")}},
    },
}
LIMITED = {
    "X-RateLimit-Limit": ref("headers", "X-RateLimit-Limit"),
    "X-RateLimit-Remaining": ref("headers", "X-RateLimit-Remaining"),
    "X-RateLimit-Reset": ref("headers", "X-RateLimit-Reset"),
}
NO_STORE = {"Cache-Control": ref("headers", "Cache-Control")}

# --- the parameters ------------------------------------------------------------------------


def query(name: str, schema_: dict, description: str, **extra) -> dict:
    return {"name": name, "in": "query", "required": False, "schema": schema_, "description": description, **extra}


def path(name: str, description: str) -> dict:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}, "description": description}


PARAMETERS = {
    "game_id": path("game_id", "The game's id."),
    "challenge_id": path("challenge_id", "The challenge's id."),
    "key": path("key", "The challenge's private results key (from its results link)."),
    "pegs": query(
        "pegs",
        {"type": "integer", "minimum": MIN_PEGS, "maximum": MAX_PEGS, "default": DEFAULTS["pegs"]},
        "Pegs in a code.",
    ),
    "colors": query(
        "colors",
        {"type": "integer", "minimum": MIN_COLORS, "maximum": MAX_COLORS, "default": DEFAULTS["colors"]},
        "Colours, numbered from 1.",
    ),
    "distinct": query(
        "distinct",
        {"type": "string", "enum": sorted(YES) + sorted(NO - {""}), "default": "0"},
        "Whether the secret uses different colours: 1, true, on or yes; 0, false, off or no (any case).",
    ),
    "distinct_guesses": query(
        "distinct_guesses",
        {"type": "string", "enum": sorted(YES) + sorted(NO - {""}), "default": "0"},
        "Whether every guess uses different colours too (implies distinct): 1, true, on or yes; "
        "0, false, off or no (any case).",
    ),
    "history": query(
        "history",
        {"type": "string"},
        "The guesses so far and their replies: GUESS:BLACK,WHITE items separated by spaces.",
        examples={"two guesses": {"value": "1122:1,0 3456:0,2"}},
    ),
    "s": query(
        "s",
        {"type": "string", "pattern": "^[a-z]+$"},
        "The secret, written as in the classroom's links (a few lowercase letters); without "
        "it the history is only checked against itself.",
    ),
    "step_strategy": query(
        "strategy", {"type": "string", "enum": STRATEGIES, "default": "knuth"}, "The strategy that chooses the guess."
    ),
    "line_strategy": query(
        "strategy",
        {"type": "string", "enum": [BEST_CANDIDATE.name] + STRATEGIES, "default": BEST_CANDIDATE.name},
        "The codebreaker.",
    ),
    "adversary": query(
        "adversary",
        {"type": "string", "enum": list(ADVERSARIES), "default": GREEDY},
        "; ".join(f"{name}: {what}" for name, what in ADVERSARIES.items()) + ".",
    ),
    "step": query(
        "step",
        {"type": "integer", "minimum": 0, "maximum": 999},
        "Accepted for the same links as the page (which row it shows); the whole line "
        "is always answered. Past the end of the line: 400.",
    ),
}
SIZE = [ref("parameters", name) for name in ("pegs", "colors", "distinct", "distinct_guesses")]

# --- the operations ------------------------------------------------------------------------


def answers(successes: dict, *statuses: str) -> dict:
    """An operation's responses: its successes, then the shared errors named by status."""
    names = {
        "202": "Working",
        "400": "BadRequest",
        "404": "NotFound",
        "409": "Conflict",
        "413": "TooLarge",
        "415": "UnsupportedMediaType",
        "422": "TooSlow",
        "429": "TooManyRequests",
        "503": "Unavailable",
    }
    return {**successes, **{status: ref("responses", names[status]) for status in statuses}}


def body(name: str, required: bool = True) -> dict:
    return {"required": required, "content": {"application/json": {"schema": schema(name)}}}


def ok(description: str, name: str, headers: dict | None = None, links: dict | None = None) -> dict:
    answer = {"description": description, "content": {"application/json": {"schema": schema(name)}}}
    if headers:
        answer["headers"] = headers
    if links:
        answer["links"] = links
    return answer


def link(operation_id: str, description: str, **parameters: str) -> dict:
    return {"operationId": operation_id, "parameters": parameters, "description": description}


GAME_LINKS = {
    "GetGame": link("getGame", "The game's state.", game_id="$response.body#/id"),
    "Guess": link("guess", "Play a guess in it.", game_id="$response.body#/id"),
}
CODEMAKER_LINKS = {
    "GetCodemakerGame": link("getCodemakerGame", "The game's state.", game_id="$response.body#/id"),
    "Answer": link("answerCodemaker", "Answer the computer's guess.", game_id="$response.body#/id"),
    "TakeBack": link("takeBackAnswer", "Take the last answer back.", game_id="$response.body#/id"),
}

PATHS = {
    "/api/games": {
        "post": {
            "operationId": "createGame",
            "tags": ["games"],
            "summary": "Start a game",
            "description": "The server draws a secret; guess it with POST /api/games/{game_id}/guesses.",
            "requestBody": body("GameSettings", required=False),
            "responses": answers({"201": ok("The new game.", "Game", LIMITED, GAME_LINKS)}, "400", "413", "429", "503"),
        }
    },
    "/api/games/{game_id}": {
        "parameters": [ref("parameters", "game_id")],
        "get": {
            "operationId": "getGame",
            "tags": ["games"],
            "summary": "A game's state",
            "responses": answers({"200": ok("The game.", "Game", NO_STORE)}, "404", "503"),
        },
    },
    "/api/games/{game_id}/review": {
        "parameters": [ref("parameters", "game_id")],
        "get": {
            "operationId": "getReview",
            "tags": ["games"],
            "summary": "How good each guess was",
            "description": "The review of a finished game: every guess against optimal play, the luck of "
            "each reply, the game's skill and luck. Worked out in the background when it takes a while "
            "(202 with the progress; ask again), then kept.",
            "responses": answers(
                {
                    "200": ok("The review.", "Review", NO_STORE),
                    "409": error("The game is still being played: the review would give the secret away."),
                },
                "202",
                "404",
                "422",
                "503",
            ),
        },
    },
    "/api/games/{game_id}/guesses": {
        "parameters": [ref("parameters", "game_id")],
        "post": {
            "operationId": "guess",
            "tags": ["games"],
            "summary": "Play a guess",
            "requestBody": body("Guess"),
            "responses": answers(
                {
                    "200": ok("The game after the guess.", "Game", links=GAME_LINKS),
                    "422": error(
                        "Hard mode: the guess could not be the secret; the sentence names the earlier "
                        "guess and reply it contradicts. Nothing is stored."
                    ),
                },
                "400",
                "404",
                "409",
                "413",
                "503",
            ),
        },
    },
    "/api/codemaker": {
        "post": {
            "operationId": "createCodemakerGame",
            "tags": ["codemaker"],
            "summary": "Start a game where you make the code",
            "description": "Think of a secret; the computer guesses and you answer with key pegs.",
            "requestBody": body("CodemakerSettings", required=False),
            "responses": answers(
                {"201": ok("The new game and the computer's first guess.", "CodemakerState", LIMITED, CODEMAKER_LINKS)},
                "400",
                "413",
                "429",
                "503",
            ),
        }
    },
    "/api/codemaker/{game_id}": {
        "parameters": [ref("parameters", "game_id")],
        "get": {
            "operationId": "getCodemakerGame",
            "tags": ["codemaker"],
            "summary": "A codemaker game's state",
            "responses": answers({"200": ok("The game.", "CodemakerState", NO_STORE)}, "404", "503"),
        },
    },
    "/api/codemaker/{game_id}/feedback": {
        "parameters": [ref("parameters", "game_id")],
        "post": {
            "operationId": "answerCodemaker",
            "tags": ["codemaker"],
            "summary": "Answer the computer's guess",
            "description": "An answer that no code fits together with the earlier ones is refused with 400, saying so.",
            "requestBody": body("Answer"),
            "responses": answers(
                {"200": ok("The game after the answer.", "CodemakerState", links=CODEMAKER_LINKS)},
                "400",
                "404",
                "409",
                "413",
                "503",
            ),
        },
    },
    "/api/codemaker/{game_id}/undo": {
        "parameters": [ref("parameters", "game_id")],
        "post": {
            "operationId": "takeBackAnswer",
            "tags": ["codemaker"],
            "summary": "Take back the last answer",
            "description": "409 when the move is not the last answer, or there is nothing to take back.",
            "requestBody": body("TakeBack"),
            "responses": answers(
                {"200": ok("The game without that answer.", "CodemakerState", links=CODEMAKER_LINKS)},
                "400",
                "404",
                "409",
                "413",
                "503",
            ),
        },
    },
    "/api/challenges": {
        "post": {
            "operationId": "createChallenge",
            "tags": ["challenges"],
            "summary": "Create a challenge",
            "description": "One secret, many players: share the challenge's url, keep results_page to yourself.",
            "requestBody": body("ChallengeSettings", required=False),
            "responses": answers(
                {
                    "201": ok(
                        "The challenge and its links.",
                        "Challenge",
                        LIMITED,
                        {
                            "Join": link("joinChallenge", "Play it.", challenge_id="$response.body#/id"),
                        },
                    )
                },
                "400",
                "413",
                "429",
                "503",
            ),
        }
    },
    "/api/daily": {
        "post": {
            "operationId": "playDaily",
            "tags": ["daily"],
            "summary": "Today's daily puzzle",
            "description": "One secret a day (UTC) per board, the same for everyone: the player's game of "
            "today's puzzle, made the first time (201), the same game after that (200). Guess in it with "
            "POST /api/games/{game_id}/guesses.",
            "requestBody": body("Daily", required=False),
            "responses": answers(
                {
                    "201": ok("A new game of today's puzzle.", "DailyGame", LIMITED, GAME_LINKS),
                    "200": ok("The player's game of today's puzzle.", "DailyGame", LIMITED, GAME_LINKS),
                },
                "400",
                "413",
                "415",
                "429",
                "503",
            ),
        },
    },
    "/api/me/stats": {
        "get": {
            "operationId": "getStats",
            "tags": ["daily"],
            "summary": "A player's statistics",
            "parameters": [
                query(
                    "player",
                    {"type": "string", "pattern": "^[A-Za-z0-9_-]{16,64}$"},
                    "The player token (a browser sends its cookie instead).",
                )
            ],
            "responses": answers({"200": ok("The statistics.", "Stats", NO_STORE)}, "400", "503"),
        },
    },
    "/api/challenges/{challenge_id}/games": {
        "parameters": [ref("parameters", "challenge_id")],
        "post": {
            "operationId": "joinChallenge",
            "tags": ["challenges"],
            "summary": "Play a challenge",
            "description": "A new game against the challenge's secret (201), or, given the player's "
            "token, the player's game in progress (200). Guess in it with "
            "POST /api/games/{game_id}/guesses.",
            "requestBody": body("Join", required=False),
            "responses": answers(
                {
                    "201": ok("A new game.", "ChallengeGame", LIMITED, GAME_LINKS),
                    "200": ok("The player's game in progress.", "ChallengeGame", LIMITED, GAME_LINKS),
                },
                "400",
                "404",
                "413",
                "429",
                "503",
            ),
        },
    },
    "/api/challenges/{challenge_id}/results/{key}": {
        "parameters": [ref("parameters", "challenge_id"), ref("parameters", "key")],
        "get": {
            "operationId": "getChallengeResults",
            "tags": ["challenges"],
            "summary": "A challenge's results",
            "responses": answers({"200": ok("Every player's result.", "ChallengeResults", NO_STORE)}, "404", "503"),
        },
    },
    "/api/solver/compare": {
        "get": {
            "operationId": "compareStrategies",
            "tags": ["solver"],
            "summary": "Every strategy compared",
            "description": "Each strategy plays every secret of the size. Large sizes are worked out in "
            "the background: 202 with the job's progress until the table is ready.",
            "parameters": SIZE,
            "responses": answers({"200": ok("The comparison.", "Comparison")}, "202", "400", "422", "503"),
        }
    },
    "/api/solver/optimal-game": {
        "get": {
            "operationId": "optimalGame",
            "tags": ["solver"],
            "summary": "The optimal game against an adversary",
            "description": "A codebreaker's whole game against a codemaker who never fixed a secret. "
            "Lines too slow for a request are worked out in the background (202).",
            "parameters": SIZE + [ref("parameters", name) for name in ("line_strategy", "adversary", "step")],
            "responses": answers({"200": ok("The line.", "Line")}, "202", "400", "422", "503"),
        }
    },
    "/api/solver/step": {
        "get": {
            "operationId": "solverStep",
            "tags": ["solver"],
            "summary": "One position explained",
            "description": "What the classroom shows: the codes left after a history, the strategy's "
            "next guess, its partition, the best guesses and why.",
            "parameters": SIZE + [ref("parameters", name) for name in ("step_strategy", "history", "s")],
            "responses": answers({"200": ok("The position.", "Position")}, "400", "422"),
        }
    },
    "/api/openapi.json": {
        "get": {
            "operationId": "openapi",
            "tags": ["about"],
            "summary": "This description, as OpenAPI 3.1",
            "responses": {
                "200": {
                    "description": "The OpenAPI document.",
                    "content": {
                        "application/json": {"schema": {"type": "object", "required": ["openapi", "info", "paths"]}}
                    },
                }
            },
        }
    },
}

TAGS = [
    {"name": "games", "description": "Play against a secret the server draws."},
    {"name": "codemaker", "description": "You keep the secret; a strategy guesses it."},
    {"name": "challenges", "description": "One secret, many players, and a results table."},
    {"name": "daily", "description": "The daily puzzle, the same for everyone, and a player's statistics."},
    {"name": "solver", "description": "The algorithms at work: comparisons, optimal lines, one position explained."},
    {"name": "about", "description": "This description."},
]


@lru_cache(maxsize=1)
def _document() -> dict:
    return {
        "openapi": OPENAPI,
        "info": {
            "title": "Mastermind lab",
            "version": "1",
            "summary": "Play Mastermind and watch codebreaking algorithms, over JSON.",
            "description": 'Every answer is JSON. Errors are {"error": "<a sentence>"} with a 4xx '
            "status (503 when the server cannot take the work just now, with "
            "Retry-After). The sentence follows Accept-Language. Request bodies are JSON objects; "
            "fields the server does not "
            "know are ignored. Creating games, codemaker games and challenges is "
            "rate-limited per client address (429 with Retry-After).",
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "tags": TAGS,
        "paths": PATHS,
        "components": {"schemas": SCHEMAS, "responses": RESPONSES, "parameters": PARAMETERS, "headers": HEADERS},
    }


def document() -> dict:
    """The OpenAPI 3.1 document (a copy: callers may change it)."""
    return copy.deepcopy(_document())


# --- the reference page --------------------------------------------------------------------

METHODS = ("get", "post", "put", "patch", "delete")


def resolve(doc: dict, item: dict) -> dict:
    """``item`` with its ``$ref`` followed (one level is all the document uses)."""
    if "$ref" not in item:
        return item
    kind, name = item["$ref"].split("/")[-2:]
    return doc["components"][kind][name]


def type_text(item: dict) -> str:
    """A schema in a few words: ``integer, 2–6``, ``array of Reply``."""
    if "$ref" in item:
        return item["$ref"].split("/")[-1]
    kinds = item.get("type")
    if isinstance(kinds, list):
        text = " or ".join(kinds)
    elif kinds == "array":
        text = "array of " + type_text(item.get("items", {}))
    elif kinds == "object" and isinstance(item.get("additionalProperties"), dict):
        text = "object of " + type_text(item["additionalProperties"])
    elif "anyOf" in item:
        text = " or ".join(type_text(option) for option in item["anyOf"])
    else:
        text = kinds or "any"
    if "enum" in item:
        text += ": " + ", ".join(f"{v}" for v in item["enum"])
    if "minimum" in item and "maximum" in item:
        text += f", {item['minimum']}–{item['maximum']}"
    elif "minimum" in item:
        text += f", ≥ {item['minimum']}"
    if "maxLength" in item:
        text += f", at most {item['maxLength']} characters"
    if "pattern" in item and kinds == "string" and "$ref" not in item:
        text += f", matching {item['pattern']}"
    return text


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


def operation_view(doc: dict, route: str, method: str, operation: dict, shared: list) -> dict:
    parameters = []
    for item in shared + operation.get("parameters", []):
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
    if "requestBody" in operation:
        content = operation["requestBody"]["content"]["application/json"]["schema"]
        request = {
            "required": operation["requestBody"].get("required", False),
            "object": named(content),
            "fields": fields(doc, content),
        }
    responses = []
    for status, item in sorted(operation["responses"].items()):
        answer = resolve(doc, item)
        content = answer.get("content", {}).get("application/json", {}).get("schema")
        responses.append(
            {
                "status": status,
                "description": answer["description"],
                "object": named(content),
                "schema": type_text(content) if content else None,
                "headers": list(answer.get("headers", {})),
            }
        )
    return {
        "id": operation["operationId"],
        "method": method.upper(),
        "path": route,
        "summary": operation["summary"],
        "description": operation.get("description", ""),
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
                operation = item[method]
                groups[operation["tags"][0]]["operations"].append(
                    operation_view(doc, route, method, operation, item.get("parameters", []))
                )
    objects = [
        {"name": name, "description": item.get("description", ""), "type": type_text(item), "fields": fields(doc, item)}
        for name, item in doc["components"]["schemas"].items()
    ]
    return {"openapi": doc["openapi"], "info": doc["info"], "groups": list(groups.values()), "objects": objects}


@bp.get("/api/openapi.json")
def openapi_json():
    response = jsonify(document())
    response.cache_control.public = True
    response.cache_control.max_age = DOCUMENT_MAX_AGE
    return response


@bp.app_template_filter("api_words")
def api_words_filter(text: str) -> str:
    return api_words(text)


@bp.get("/api")
def page():
    return render_template("api.html", **reference(_document()))


# --- the reference in the reader's language ----------------------------------------------------
# The OpenAPI document stays in English (a contract, like the field names);
# the /api page shows its summaries and descriptions through the catalogues.
# `make messages` extracts them with ``extract_messages`` (see babel.cfg).

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


def extract_messages(fileobj, keywords, comment_tags, options):
    """A Babel extractor: the document's texts, once each, as messages."""
    for text in dict.fromkeys(texts(_document())):
        yield 0, "gettext", text, ["The JSON API's reference (/api)"]


def api_words(text: str) -> str:
    """A text of the document in the page's language."""
    return gettext(text) if text else text
