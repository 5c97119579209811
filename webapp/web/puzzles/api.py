"""The puzzles' JSON API, on the same service as the pages: the next
puzzle for a player, one puzzle, today's, and answers (never a puzzle's
answer before it is answered)."""

from __future__ import annotations

from flask import url_for

from .. import days
from ..contract import Documented, link, operation
from ..errors import error_response
from ..limits import answering
from ..links import external_url
from ..players import browser_player, player_token
from ..schemas import DailyPuzzle, Puzzle, PuzzleAnswer, PuzzleQuery, PuzzleVerdict
from . import service
from .blueprints import api

ANSWER_LINK = {"AnswerPuzzle": link("answerPuzzle", "Answer the puzzle.", puzzle_id="$response.body#/id")}


def puzzle_json(found: service.StoredPuzzle) -> dict:
    return {
        **found.size.params(),
        "id": found.id,
        "history": [{"guess": str(g), "black": r.black, "white": r.white} for g, r in found.history],
        "codes": found.codes,
        "rating": round(found.rating.rating),
        "url": external_url("puzzles.show", puzzle_id=found.id),
        "answer_url": url_for("puzzles_api.answer", puzzle_id=found.id),
    }


def refusal(exc: service.Refused):
    return error_response(exc.status, str(exc))


@api.get("/next")
@operation(
    id="nextPuzzle",
    tag="puzzles",
    summary="The next puzzle",
    description="A position and its question, what is the best next guess? Near the player's rating, one "
    "they have not answered; without a player, near 1500.",
    query=PuzzleQuery,
    query_defaults=lambda: {"player": browser_player()},
    answers={200: Documented("The puzzle.", Puzzle, links=ANSWER_LINK)},
    errors=(400, 503),
)
def next_json(query: PuzzleQuery):
    try:
        return puzzle_json(service.next_for(query.player, difficulty=query.difficulty, theme=query.theme))
    except service.Refused as exc:
        return refusal(exc)


@api.get("/daily")
@operation(
    id="dailyPuzzle",
    tag="puzzles",
    summary="The puzzle of the day",
    description="The same puzzle for everyone, changing at midnight UTC.",
    answers={200: Documented("The puzzle of the day.", DailyPuzzle, links=ANSWER_LINK)},
    errors=(503,),
)
def daily_json():
    try:
        found = service.daily()
    except service.Refused as exc:
        return refusal(exc)
    number = days.today()
    return {**puzzle_json(found), "day": number, "date": days.date_of(number).isoformat()}


@api.get("/<puzzle_id>")
@operation(
    id="getPuzzle",
    tag="puzzles",
    summary="A puzzle",
    answers={200: Documented("The puzzle.", Puzzle, links=ANSWER_LINK)},
    errors=(404,),
)
def puzzle(puzzle_id):
    found = service.puzzle(puzzle_id)
    if found is None:
        return error_response(404, service.no_such_puzzle(puzzle_id))
    return puzzle_json(found)


@api.post("/<puzzle_id>/answers")
@answering
@operation(
    id="answerPuzzle",
    tag="puzzles",
    summary="Answer a puzzle",
    description="The guess is measured exactly: solved when its E (the expected number of guesses from here, "
    "it included) equals V, the least of any guess. A player's first answer to a puzzle moves their rating "
    "and the puzzle's; later ones move neither.",
    body=PuzzleAnswer,
    body_required=True,
    answers={200: Documented("The verdict.", PuzzleVerdict)},
    errors=(400, 404, 422, 429),
)
def answer(puzzle_id, body: PuzzleAnswer):
    found = service.puzzle(puzzle_id)
    if found is None:
        return error_response(404, service.no_such_puzzle(puzzle_id))
    player, _ = player_token(body.player)
    try:
        given = service.answer(found, player, body.guess, "daily" if service.daily().id == found.id else "rated")
    except service.Refused as exc:
        return refusal(exc)
    return {
        "puzzle": found.id,
        "guess": given.guess,
        "solved": given.solved,
        "expected": given.total / found.codes,
        "best_expected": found.total / found.codes,
        "best_guesses": [str(c) for c in found.best],
        "themes": list(found.themes),
        "rated": given.rated,
        "seen": given.seen,
        "rating_before": round(given.rating_before),
        "rating_after": round(given.rating_after),
        "player": player,
        "url": external_url("puzzles.verdict", answer_id=given.id),
    }
