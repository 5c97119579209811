"""The JSON API's bodies as pydantic models: what each request may hold and
what each answer holds. The API's views read their bodies and query strings
through these models and shape their answers with them (``contract``), and
the OpenAPI document is generated from them (``apidocs``), so that what the
API accepts and what it says it accepts cannot drift apart.

Requests are read strictly: a number is a JSON number (``1.0`` counts as
the whole number 1, ``"1"`` and ``true`` do not), a flag is ``true`` or
``false``, and a field that may be left out may not be ``null``. Fields the
server does not know are ignored. Whether a code fits a game, or a size is
playable, is the engine's question: a request that fits these models but
not the game's rules gets 422."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, RootModel, model_validator
from pydantic.json_schema import JsonDict

from ..engine import DEFAULT_STRATEGY, PRESETS, MastermindError
from ..engine.codes import MAX_COLORS, MAX_GUESSES, MAX_PEGS, MIN_COLORS, MIN_GUESSES, MIN_PEGS
from ..engine.lines import ADVERSARIES, BEST_CANDIDATE, GREEDY
from ..engine.puzzles import THEMES
from ..engine.review import RATINGS
from ..settings import DEFAULTS, MAX_NAME, NO, PLAYER_TOKEN, YES, small_number

# --- the kinds of value ------------------------------------------------------------------------


def whole_number(value: Any) -> Any:
    """JSON does not tell 1.0 from 1: a whole float is that integer. Text
    and booleans are left for strict validation to refuse."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def query_number(value: Any) -> Any:
    """A number in a query string: ASCII digits only, at most four."""
    number = small_number(value) if isinstance(value, str) else None
    return value if number is None else number


Pegs = Annotated[int, Field(ge=MIN_PEGS, le=MAX_PEGS, description="Pegs in a code."), BeforeValidator(whole_number)]
Colors = Annotated[
    int,
    Field(
        ge=MIN_COLORS,
        le=MAX_COLORS,
        description="Colours a peg may take, numbered from 1 (the tenth is written 0).",
    ),
    BeforeValidator(whole_number),
]
MaxGuesses = Annotated[
    int,
    Field(ge=MIN_GUESSES, le=MAX_GUESSES, description="Guesses allowed before the game is lost."),
    BeforeValidator(whole_number),
]
KeyPegs = Annotated[
    int, Field(ge=0, le=MAX_PEGS, description="Key pegs of this colour."), BeforeValidator(whole_number)
]
Count = Annotated[int, Field(ge=0), BeforeValidator(whole_number)]
Move = Annotated[
    int,
    Field(
        ge=1,
        le=MAX_GUESSES,  # no game has more moves
        description="The number of the move this request makes (1 for the first): a request "
        "repeated or sent from a stale page is refused with 409 instead of counted twice.",
    ),
    BeforeValidator(whole_number),
]
# The same numbers in a query string.
QueryPegs = Annotated[
    int, Field(ge=MIN_PEGS, le=MAX_PEGS, description="Pegs in a code."), BeforeValidator(query_number)
]
QueryColors = Annotated[
    int, Field(ge=MIN_COLORS, le=MAX_COLORS, description="Colours, numbered from 1."), BeforeValidator(query_number)
]
QueryStep = Annotated[int, Field(ge=0, le=999), BeforeValidator(query_number)]
Percent = Annotated[int, Field(ge=0, le=100)]
Seconds = Annotated[float, Field(ge=0)]

DISTINCT = "Whether the secret uses different colours (no colour twice)."
DISTINCT_GUESSES = (
    "Whether every guess must use different colours too (it implies distinct). "
    "Bulls and Cows is 4 pegs, 10 colours, distinct guesses."
)
HARD = "Hard mode: every guess must fit every reply so far (a guess that could not be the secret is refused with 422)."
CODE_TEXT = "A code: one digit per peg, colours numbered from 1 (spaces, commas and dashes between them are ignored)."
CodeText = Annotated[str, Field(max_length=64, description=CODE_TEXT, examples=["1122"])]
PLAYER_PATTERN = f"^{PLAYER_TOKEN.pattern}$"
PlayerToken = Annotated[str, Field(pattern=PLAYER_PATTERN)]
STRATEGIES = tuple(sorted(PRESETS))
Strategy = Literal[STRATEGIES]
CODEBREAKERS = (BEST_CANDIDATE.name, *STRATEGIES)
Codebreaker = Literal[CODEBREAKERS]
Adversary = Literal[tuple(ADVERSARIES)]
Rating = Literal[tuple(word for word, _ in RATINGS)]
# A yes-or-no in a query string: 1, true, on or yes; 0, false, off or no.
Flag = Literal[tuple(sorted(YES) + sorted(NO - {""}))]
Url = Annotated[str, Field(json_schema_extra={"format": "uri-reference"})]


class RequestModel(BaseModel):
    """A request body or query string (the base of every one)."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class AnswerModel(BaseModel):
    """An answer body (the base of every one): exactly these fields."""

    model_config = ConfigDict(extra="forbid")


class Code(RootModel[Annotated[str, Field(pattern=f"^[0-9]{{{MIN_PEGS},{MAX_PEGS}}}$")]]):
    model_config = ConfigDict(
        json_schema_extra={
            "description": "A code: one digit per peg, colours numbered from 1 (with "
            f"{MAX_COLORS} colours the tenth is written 0).",
            "examples": ["1122"],
        }
    )


class Error(AnswerModel):
    """Every error answer: one sentence a person can read."""

    error: Annotated[str, Field(min_length=1)]


# --- requests ----------------------------------------------------------------------------------


class SizeFields(RequestModel):
    pegs: Pegs = DEFAULTS["pegs"]
    colors: Colors = DEFAULTS["colors"]
    distinct: bool = Field(DEFAULTS["distinct"], description=DISTINCT)
    distinct_guesses: bool = Field(DEFAULTS["distinct_guesses"], description=DISTINCT_GUESSES)


class GameSettings(SizeFields):
    """A new game's size and guess limit: missing fields take the classic game's."""

    max_guesses: MaxGuesses = DEFAULTS["max_guesses"]
    hard: bool = Field(False, description=HARD)


class Guess(RequestModel):
    guess: CodeText
    move: Move = None


class CodemakerSettings(SizeFields):
    strategy: Strategy = Field(DEFAULT_STRATEGY, description="The strategy that guesses.")


class Answer(RequestModel):
    """The player's key pegs for the computer's current guess."""

    black: KeyPegs
    white: KeyPegs
    move: Move = None


class TakeBack(RequestModel):
    move: Move = Field(description="The number of the answer to take back: the last one.")


class ChallengeSettings(SizeFields):
    max_guesses: MaxGuesses = DEFAULTS["max_guesses"]
    secret: CodeText = Field(None, description="The secret everyone plays; left out, the server draws one.")


class Join(RequestModel):
    name: Annotated[str, Field(max_length=MAX_NAME)] = Field(
        None, description=f"The name on the results page (at most {MAX_NAME} characters)."
    )
    player: PlayerToken = Field(
        None, description="The player token an earlier join returned: the player's game in progress comes back."
    )


# The daily boards by (pegs, colours); a field left out follows the other.
DAILY_SIZES = ((4, 6), (5, 8))


class Daily(RequestModel):
    """Which daily board: 4 pegs and 6 colours (classic, the default) or 5
    pegs and 8 colours (Super); give either number, or both."""

    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {"properties": {"pegs": {"const": pegs}, "colors": {"const": colors}}} for pegs, colors in DAILY_SIZES
            ]
        }
    )

    pegs: Literal[tuple(p for p, _ in DAILY_SIZES)] = Field(None, description="4 (classic) or 5 (Super).")
    colors: Literal[tuple(c for _, c in DAILY_SIZES)] = Field(None, description="6 (classic) or 8 (Super).")
    player: PlayerToken = Field(
        None, description="The player token an earlier answer gave you; left out, a new one is made."
    )

    @model_validator(mode="after")
    def one_board(self) -> Daily:
        if (self.pegs, self.colors) not in DAILY_SIZES and None not in (self.pegs, self.colors):
            raise MastermindError("daily-size")
        return self

    @property
    def size(self) -> tuple[int, int]:
        """(pegs, colours) of the board asked for."""
        for pegs, colors in DAILY_SIZES:
            if self.pegs in (pegs, None) and self.colors in (colors, None):
                return pegs, colors
        raise AssertionError("one_board admits only the daily sizes")


# --- query strings -------------------------------------------------------------------------------


class SizeQuery(RequestModel):
    pegs: QueryPegs = DEFAULTS["pegs"]
    colors: QueryColors = DEFAULTS["colors"]
    distinct: Flag = Field(
        "0",
        description="Whether the secret uses different colours: 1, true, on or yes; 0, false, off or no.",
    )
    distinct_guesses: Flag = Field(
        "0",
        description="Whether every guess uses different colours too (implies distinct): 1, true, on or yes; "
        "0, false, off or no.",
    )

    def size_args(self) -> dict[str, str]:
        """The size as the plain strings a form or link carries."""
        return {
            "pegs": str(self.pegs),
            "colors": str(self.colors),
            "distinct": "1" if self.distinct in YES else "0",
            "distinct_guesses": "1" if self.distinct_guesses in YES else "0",
        }


class LineQuery(SizeQuery):
    strategy: Codebreaker = Field(BEST_CANDIDATE.name, description="The codebreaker.")
    adversary: Adversary = Field(
        GREEDY, description="; ".join(f"{name}: {what}" for name, what in ADVERSARIES.items()) + "."
    )
    step: QueryStep = Field(
        None,
        description="Accepted for the same links as the page (which row it shows); the whole line "
        "is always answered. Past the end of the line: 422.",
    )


# GUESS:BLACK,WHITE items separated by spaces (ASCII digits only).
HISTORY_ITEM = "[0-9]+:[0-9]+,[0-9]+"
HISTORY_PATTERN = f"^ *({HISTORY_ITEM}( +{HISTORY_ITEM})*)? *$"


class StepQuery(SizeQuery):
    strategy: Strategy = Field(DEFAULT_STRATEGY, description="The strategy that chooses the guess.")
    history: Annotated[str, Field(max_length=16 * (MAX_GUESSES + 1), pattern=HISTORY_PATTERN)] = Field(
        "",
        description="The guesses so far and their replies: GUESS:BLACK,WHITE items separated by spaces.",
        examples=["1122:1,0 3456:0,2"],
    )
    s: Annotated[str, Field(pattern="^[a-z]+$", max_length=16)] = Field(
        None,
        description="The secret, written as in the classroom's links (a few lowercase letters); without "
        "it the history is only checked against itself.",
    )


class StatsQuery(RequestModel):
    player: PlayerToken = Field(
        description="The player token (a browser's own token comes from its cookie when this is left out)."
    )


# --- answers -----------------------------------------------------------------------------------


class Reply(AnswerModel):
    """A guess and the key pegs it got."""

    guess: Code
    black: KeyPegs = Field(description="Right colour, right place.")
    white: KeyPegs = Field(description="Right colour, wrong place.")


class SizeAnswer(AnswerModel):
    pegs: Pegs
    colors: Colors
    distinct: bool = Field(description=DISTINCT)
    distinct_guesses: bool = Field(description=DISTINCT_GUESSES)


# The secret and the replay appear exactly when the game is over.
ONLY_WHEN_OVER: JsonDict = {
    "if": {"properties": {"status": {"const": "playing"}}},
    "then": {"not": {"anyOf": [{"required": ["secret"]}, {"required": ["replay_url"]}]}},
    "else": {"required": ["secret", "replay_url"]},
}


class Game(SizeAnswer):
    """A game against a secret the server keeps."""

    model_config = ConfigDict(json_schema_extra=ONLY_WHEN_OVER)

    id: str = Field(description="The game's id, random and URL-safe.")
    max_guesses: MaxGuesses
    hard: bool = Field(description=HARD)
    status: Literal["playing", "won", "lost"] = Field(description="Whether the game goes on, or how it ended.")
    guesses: list[Reply] = Field(description="Every guess so far, in order.")
    url: Url = Field(description="The game's board, to play it in a browser.")
    watch_url: Url = Field(description="A read-only view of the game as it is played.")
    secret: Code = Field(None, description="The secret: only once the game is over.")
    replay_url: Url = Field(None, description="The replay of the finished game: only once it is over.")

    @model_validator(mode="after")
    def secret_only_when_over(self) -> Game:
        shown = {"secret", "replay_url"} & self.model_fields_set
        if shown != (set() if self.status == "playing" else {"secret", "replay_url"}):
            raise ValueError("the secret and the replay are shown exactly when the game is over")
        return self


class ChallengeGame(Game):
    """A challenge player's game: a game, plus who plays it."""

    player: str = Field(description="The anonymous player token: send it back to join again and get the same game.")
    counted: bool = Field(
        description="Whether the game counts on the results page: false for a practice game after the "
        "player's counted game has ended."
    )


class DailyGame(Game):
    """A player's game of today's Daily Mastermind."""

    player: str = Field(
        description="The anonymous player token: send it back to get the same game and your statistics."
    )
    day: Annotated[int, Field(ge=1)] = Field(description="The puzzle's number (1 is 1 January 2026).")
    date: Annotated[str, Field(json_schema_extra={"format": "date"})] = Field(description="The puzzle's day (UTC).")


class Versus(AnswerModel):
    games: Count
    you: float | None


class VersusKnuth(Versus):
    """Average guesses, yours and Knuth's algorithm's, over the won games where its game on the same
    secret is known."""

    knuth: float | None


class VersusOptimal(Versus):
    """The same against optimal play, where it is offered."""

    optimal: float | None


class Stats(AnswerModel):
    """A player's statistics."""

    player: str
    played: Count = Field(description="Finished games.")
    won: Count
    win_rate: Percent | None = Field(description="Per cent.")
    current_streak: Count = Field(description="Days in a row, up to today or yesterday, with a Daily Mastermind won.")
    longest_streak: Count
    daily_played: Count
    guesses: dict[str, Count] = Field(description="Games won, by the guesses they needed.")
    lost: Count
    average_guesses: float | None = Field(description="Over the games won.")
    versus_knuth: VersusKnuth
    versus_optimal: VersusOptimal
    average_skill: float | None = Field(description="The reviews' skill, on average.")
    reviewed: Count = Field(description="Games whose review is ready.")


class Job(AnswerModel):
    """Work that runs in the background: ask again (with the same request) until the answer is ready."""

    status: Literal["queued", "running", "done", "failed"]
    progress: Annotated[float, Field(ge=0, le=1)] | None = Field(description="The fraction done, when known.")
    eta_seconds: Seconds | None = Field(description="Seconds left, when known.")
    elapsed_seconds: Seconds


class CodemakerState(SizeAnswer):
    """A game where the player keeps the secret and the computer guesses."""

    model_config = ConfigDict(
        json_schema_extra={  # a guess or its job, never both; neither once solved
            "allOf": [
                {"not": {"required": ["guess", "job"]}},
                {
                    "if": {"properties": {"status": {"const": "solved"}}},
                    "then": {"not": {"anyOf": [{"required": ["guess"]}, {"required": ["job"]}]}},
                },
            ]
        }
    )

    id: str
    strategy: str = Field(description="The strategy that guesses.")
    status: Literal["guessing", "solved"]
    history: list[Reply] = Field(description="The computer's guesses and the player's answers.")
    remaining: Count = Field(description="Codes that fit every answer so far.")
    url: Url = Field(description="The game's page.")
    guess: Code = Field(
        None,
        description="The computer's next guess, to answer: absent once solved, after the last guess "
        "allowed, and while it is being worked out.",
    )
    job: Job = Field(None, description="Present while the next guess is being worked out.")

    @model_validator(mode="after")
    def guess_or_job(self) -> CodemakerState:
        shown = {"guess", "job"} & self.model_fields_set
        if len(shown) > 1 or (shown and self.status == "solved"):
            raise ValueError("a guess or its job, never both; neither once solved")
        return self


class Challenge(AnswerModel):
    """A new challenge and its links."""

    id: str
    url: Url = Field(description="The link to share: everyone who opens it plays the secret.")
    results_page: Url = Field(description="The private results page (the key is in it).")
    results_url: Url = Field(description="The results as JSON (GET).")


class ReviewedMove(AnswerModel):
    """One guess of a reviewed game."""

    move: Annotated[int, Field(ge=1)]
    guess: Code
    black: KeyPegs
    white: KeyPegs
    candidates: Annotated[int, Field(ge=1)] = Field(description="Codes possible before it.")
    expected: float = Field(description="E of the guess.")
    best_expected: float = Field(description="V of the position.")
    best_guess: Code = Field(description="A guess with E = V (one that could be the secret when there is one).")
    rating: Rating = Field(
        description="By the guesses lost, E - V: "
        + ", ".join(f"{w} up to {m}" for w, m in RATINGS[:-1])
        + ", blunder beyond."
    )
    luck: Percent | None = Field(
        description="Where the reply fell among those the guess could get, by the codes each leaves, "
        "weighted by their chances (100: none leaves fewer)."
    )
    exact: bool
    known: bool = Field(
        description="Whether the figures come from the best strategy known (Super Mastermind's searched "
        "tree) rather than an estimate."
    )


class Review(AnswerModel):
    """Each guess of a finished game against optimal play. E (expected) is the number of guesses to
    expect from that move on, the guess included, if every later guess is optimal and every code still
    possible equally likely; V (best_expected) the least E any code gives there."""

    id: str
    exact: bool = Field(description="Whether every figure is exact (else some are estimates).")
    method: str | None = Field(description="How the moves that are not exact were measured (null when all are).")
    skill: Percent = Field(description="100 less a hundred times the guesses lost per move on average.")
    luck: Percent | None = Field(
        description="The average luck of the replies (null when no reply could have differed)."
    )
    guesses: Annotated[int, Field(ge=1)]
    won: bool
    expected_guesses: float = Field(description="Optimal play's expectation plus everything the player's guesses lost.")
    optimal_expected_guesses: float = Field(description="V before the first guess.")
    knuth: list[Code] | None = Field(
        description="Knuth's algorithm's guesses on the same secret (null when too slow here)."
    )
    moves: list[ReviewedMove]


class ChallengePlayer(AnswerModel):
    """One player of a challenge."""

    name: str = Field(description='As typed, or "anonymous".')
    status: Literal["playing", "won", "lost"]
    guesses: Count
    replay_url: Url | None = Field(description="Once the player's game is over.")
    skill: Percent | None = Field(
        description="The review's skill score of a finished game (null while it is worked out, or while "
        "the game is played)."
    )


class ChallengeResults(SizeAnswer):
    """How each player of a challenge did."""

    id: str
    max_guesses: MaxGuesses
    players: list[ChallengePlayer]
    benchmarks: dict[str, Annotated[int, Field(ge=1)] | None] = Field(
        description="Guesses each strategy needs for this secret, by strategy name (null when too slow to "
        "work out here)."
    )


class ComparedStrategy(AnswerModel):
    """One strategy's games over every secret."""

    strategy: str
    total: Count = Field(description="Guesses over every secret.")
    mean: Annotated[float, Field(ge=0)]
    stddev: Annotated[float, Field(ge=0)]
    max: Count = Field(description="The longest game.")
    first_guess: Code
    histogram: dict[Annotated[str, Field(pattern="^[1-9][0-9]*$")], Count] = Field(
        description="Secrets found in n guesses, by n."
    )


class Skipped(AnswerModel):
    """A strategy left out, and why."""

    strategy: str
    reason: str


class Comparison(SizeAnswer):
    """Every strategy played against every secret of one size."""

    rows: list[ComparedStrategy]
    skipped: list[Skipped] = Field(description="Strategies left out of this size, and why.")


class LineRow(AnswerModel):
    """One guess of a line and the adversary's reply."""

    guess: Code
    black: KeyPegs
    white: KeyPegs
    remaining: Annotated[int, Field(ge=1)] = Field(description="Codes still possible after the reply.")


class Line(SizeAnswer):
    """A whole game between a codebreaking strategy and an adversary who never fixed a secret."""

    strategy: str
    adversary: Adversary
    rows: list[LineRow]


class Score(RootModel[dict[str, int | float | list[int]]]):
    """A guess's score by the strategy's criteria, by criterion name: a number, or a list of class sizes."""


class RankedGuess(AnswerModel):
    """A guess among the best by the strategy's score."""

    guess: Code
    score: Score
    is_candidate: bool


class Position(SizeAnswer):
    """One position explained: the codes still possible, the strategy's next guess, the partition it
    makes, the best guesses by the strategy's score, and why."""

    model_config = ConfigDict(
        json_schema_extra={"dependentRequired": {"guess": ["score", "is_candidate", "partition"]}}
    )

    strategy: str
    history: list[Reply]
    solved: bool
    candidates: Count = Field(description="Codes that fit the history.")
    codes: list[Code] = Field(None, description="Those codes, when there are only a few.")
    guess: Code = Field(None, description="The strategy's next guess (absent once solved).")
    score: Score = None
    is_candidate: bool = Field(None, description="Whether the guess could be the secret.")
    partition: dict[Annotated[str, Field(pattern="^[0-9]+,[0-9]+$")], Annotated[int, Field(ge=1)]] = Field(
        None, description='Codes left after each reply to the guess, by reply ("black,white").'
    )
    top: list[RankedGuess] = Field(description="The best guesses by the strategy's score.")
    why: str = Field(description="Which score and which tie-break chose the guess.")


class OpenAPIDocument(RootModel[dict[str, Any]]):
    """An OpenAPI 3.1 document."""

    model_config = ConfigDict(json_schema_extra={"required": ["openapi", "info", "paths"]})


# --- the live classroom ----------------------------------------------------------------------------

# A live session's join code: six characters from an alphabet without
# look-alikes (no 0 and O, 1, I and L, 2 and Z, 5 and S, 8 and B).
LIVE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
LIVE_CODE_LENGTH = 6
MAX_NICKNAME = 20
LiveSource = Literal["teacher", "random", "adversary"]
LiveNames = Literal["typed", "generated", "hidden"]
# Seconds the class has to propose each guess (0: no countdown).
COUNTDOWNS = (0, 20, 30, 60)
Countdown = Literal[COUNTDOWNS]  # type: ignore[valid-type]


class LiveGameSettings(SizeFields):
    """One game of a live lesson: the game the teacher steps through with the class."""

    strategy: Strategy = Field(DEFAULT_STRATEGY, description="The strategy whose game the class follows.")
    source: LiveSource = Field(
        "random",
        description="Where the secret comes from: typed by the teacher (give it in secret), drawn at random, "
        "or none (adversary: the codemaker answers with the reply that keeps the most codes).",
    )
    secret: CodeText = Field(None, description='The secret, for source "teacher"; refused for the others.')
    countdown: Countdown = Field(
        0,
        description="Seconds the students have to propose each guess from the moment the step is shown "
        "(0: no countdown); a later proposal is refused with 409.",
    )


class LiveSettings(LiveGameSettings):
    """A live session: a room for a lesson, and its first game."""

    scoring: bool = Field(
        True,
        description="Whether proposals score points (from their exact E) and the projector shows a scoreboard.",
    )
    names: LiveNames = Field(
        "typed",
        description="How students are named: as they type (or anonymous), by friendly names the app gives in "
        "their language, or not at all (hidden: the projector shows no names).",
    )


class LiveLock(RequestModel):
    locked: bool = Field(description="True closes the room to new students; false opens it again.")


class LiveStepTo(RequestModel):
    to: Annotated[int, Field(ge=0, le=MAX_GUESSES), BeforeValidator(whole_number)] = Field(
        None,
        description="The step to show (0 before the first guess); left out, the next one. A step "
        "may be any already shown, or the one after the furthest.",
    )


class StudentJoin(RequestModel):
    nickname: Annotated[str, Field(max_length=MAX_NICKNAME)] = Field(
        None, description=f"A nickname the teacher's screen shows (at most {MAX_NICKNAME} characters), or none."
    )


class LiveVote(RequestModel):
    guess: CodeText


LiveCode = Annotated[str, Field(pattern=f"^[{LIVE_ALPHABET}]{{{LIVE_CODE_LENGTH}}}$")]
Token = Annotated[str, Field(min_length=16)]


class LiveCreated(AnswerModel):
    code: LiveCode = Field(description="The join code students type at /join.")
    teacher_token: Token = Field(
        description="The teacher's token: send it as Authorization: Bearer … to step and to see the votes."
    )
    join_url: Url = Field(description="The link students open (or scan) to join.")
    url: Url = Field(description="The session's state.")


class LiveStudent(AnswerModel):
    id: Annotated[int, Field(ge=1)] = Field(description="The student's number in the session (their seat).")
    nickname: str = Field(description='Their nickname ("" for none).')


Bound = Literal["exact", "at_least", "at_most"]
BOUND = 'Whether the figure beside is exact, or a bound ("at_least": the true figure is this or more).'


class YourProposal(AnswerModel):
    game: Annotated[int, Field(ge=1)] = Field(description="The lesson's game, counted from 1.")
    step: Annotated[int, Field(ge=1)] = Field(description="The guess proposed, counted from 1.")
    guess: Code
    expected: float | None = Field(description="E of the proposal (null while worked out).")
    expected_bound: Bound | None = Field(description=BOUND)
    strategy_guess: Code | None = Field(description="The strategy's guess at that step.")
    strategy_expected: float | None = Field(description="E of the strategy's guess.")
    best_expected: float | None = Field(description="V: the least E any guess has there.")
    best_expected_bound: Bound | None = Field(description=BOUND)
    points: Count | None = Field(description="What the proposal scored (null while worked out).")


class LiveYou(AnswerModel):
    """A student's own results over the steps the class has gone past."""

    id: Annotated[int, Field(ge=1)] = Field(description="The student's number in the session.")
    nickname: str = Field(description="The name the room knows the student by.")
    points: Count = Field(description="Points over the lesson so far.")
    proposals: list[YourProposal]


class StudentRename(RequestModel):
    nickname: Annotated[str, Field(min_length=1, max_length=MAX_NICKNAME)] = Field(
        description="The student's new name (a name another student has gets a number)."
    )


class LiveState(SizeAnswer):
    """What the class sees now; with the teacher's token, the votes too."""

    code: LiveCode
    game: Annotated[int, Field(ge=1)] = Field(description="The lesson's game the class plays now, counted from 1.")
    scoring: bool = Field(description="Whether proposals score points.")
    countdown: Count = Field(description="Seconds to propose each guess from the moment it is shown (0: none).")
    deadline: float = Field(None, description="When proposals for this step close (Unix seconds), with a countdown.")
    strategy: Strategy
    strategy_title: str = Field(description="The strategy as people name it, in the request's language.")
    source: LiveSource
    names: LiveNames
    locked: bool = Field(description="Whether the teacher has closed the room to new students.")
    step: Annotated[int, Field(ge=0)] = Field(description="How many guesses the class sees.")
    steps: Annotated[int, Field(ge=0)] = Field(description="How many guesses have been revealed so far.")
    solved: bool = Field(description="Whether the guesses the class sees end with the secret.")
    history: list[Reply] = Field(description="The guesses the class sees, with their replies.")
    remaining: Annotated[int, Field(ge=1)] = Field(description="How many codes are still possible.")
    candidates: list[Code] = Field(None, description="The codes still possible, when they are few.")
    joined: Count = Field(description="How many students are in the session.")
    version: Count = Field(description="Counts every change; live events carry it as their id.")
    join_url: Url
    events_url: Url = Field(description="The session's live events (text/event-stream).")
    strategy_guess: Code = Field(
        None, description="The strategy's next guess (with the teacher's token, until the game is solved)."
    )
    votes: dict[str, Count] = Field(
        None, description="With the teacher's token: the class's proposals for the next guess, by guess."
    )
    students: list[LiveStudent] = Field(None, description="With the teacher's token: the students in the room.")
    most_students: Count = Field(None, description="With the teacher's token: how many students may join.")
    you: LiveYou = Field(None, description="With a student's token: their own results so far.")


class StudentCreated(AnswerModel):
    student_token: Token = Field(description="Send it as Authorization: Bearer … to vote.")
    id: Annotated[int, Field(ge=1)] = Field(description="The student's number in the session.")
    nickname: str = Field(description="The nickname the teacher's screen shows (given by the app, maybe).")
    url: Url = Field(description="The student's page.")


class VoteAccepted(AnswerModel):
    step: Count = Field(description="The step the vote is for.")
    guess: Code
    replaced: bool = Field(description="Whether it replaced the student's earlier vote at this step.")


class ReportRow(AnswerModel):
    game: Annotated[int, Field(ge=1)] = Field(description="The lesson's game, counted from 1.")
    step: Annotated[int, Field(ge=1)] = Field(description="The guess voted on, counted from 1.")
    student: Annotated[int, Field(ge=1)] = Field(description="The student's id.")
    nickname: str = Field(description='The name the room shows ("Student 3" for one who gave none).')
    removed: bool = Field(description="Whether the teacher took the student out of the room.")
    guess: Code
    expected: float | None = Field(description="E of the student's proposal (null while worked out).")
    expected_bound: Bound | None = Field(description=BOUND)
    strategy_guess: Code | None = Field(description="The strategy's guess at that step.")
    strategy_expected: float | None = Field(description="E of the strategy's guess.")
    strategy_expected_bound: Bound | None = Field(description=BOUND)
    best_expected: float | None = Field(description="V: the least E any guess has there.")
    best_expected_bound: Bound | None = Field(description=BOUND)
    difference: float | None = Field(description="expected less strategy_expected: below 0, better.")
    difference_bound: Bound | None = Field(description=BOUND)
    points: Count | None = Field(description="What the proposal scored, once the class went past the step.")


class ReportStudent(AnswerModel):
    id: Annotated[int, Field(ge=1)]
    nickname: str
    removed: bool = Field(description="Whether the teacher took the student out of the room.")
    proposals: Count = Field(description="Steps the student proposed a guess at.")
    as_good: Count = Field(
        description="Proposals as good as the strategy's guess, or better, by exact E (a bound never counts)."
    )
    points: Count = Field(description="Points over the lesson.")


class ReportGame(SizeAnswer):
    game: Annotated[int, Field(ge=1)]
    strategy: Strategy
    guesses: Count = Field(description="Guesses the class saw.")
    solved: bool


class LiveReport(AnswerModel):
    """A live lesson's report: every proposal against the strategy's guess, game by game."""

    code: LiveCode
    strategy: Strategy = Field(description="The current game's strategy.")
    games: list[ReportGame]
    complete: bool = Field(description="False while some E is still being worked out: ask again.")
    rows: list[ReportRow]
    students: list[ReportStudent]


class EventStream(RootModel[str]):
    """Server-sent events: an event named "step" (the step's HTML, with the
    session's version as its id) whenever the step changes and, for the
    teacher, "votes" whenever the proposals or the students change (at most
    about once a second); "ended" when the session ends or the stream cannot
    go on; a comment every fifteen seconds. Send Last-Event-ID to resume."""


# --- best-guess puzzles ----------------------------------------------------------------------------

PuzzleTheme = Literal[THEMES]
PuzzleId = Annotated[str, Field(pattern="^[0-9a-f]{12}$")]


PuzzleDifficulty = Literal["easier", "normal", "harder"]


class PuzzleQuery(RequestModel):
    player: PlayerToken = Field(
        None, description="The player token: the puzzle comes near the player's rating, one not answered yet."
    )
    difficulty: PuzzleDifficulty = Field(
        "normal", description="Easier: about 300 below the player's rating; harder: about 300 above."
    )
    theme: PuzzleTheme | None = Field(None, description="Only a puzzle of this theme.")


class PuzzleAnswer(RequestModel):
    guess: CodeText
    player: PlayerToken = Field(
        None,
        description="The player token an earlier answer gave you; left out, a new one is made. A token this "
        "site did not give out is refused (422).",
    )


class Puzzle(SizeAnswer):
    """A position and its question: what is the best next guess? Never its answer."""

    id: PuzzleId
    history: list[Reply] = Field(description="The guesses so far and their replies.")
    codes: Annotated[int, Field(ge=1)] = Field(description="How many codes could still be the secret.")
    rating: int = Field(description="The puzzle's rating (Glicko-like, 1500 to start).")
    url: Url = Field(description="The puzzle's page.")
    answer_url: Url = Field(description="Where to POST an answer.")


class DailyPuzzle(Puzzle):
    """The puzzle of the day (UTC), the same for everyone."""

    day: Annotated[int, Field(ge=1)] = Field(description="The day's number (1 is 1 January 2026).")
    date: Annotated[str, Field(json_schema_extra={"format": "date"})]


class PuzzleVerdict(AnswerModel):
    """How good the answer was, exactly: E of the guess against V, the optimum."""

    puzzle: PuzzleId
    guess: Code
    solved: bool = Field(description="Whether the guess is one of the best (its E equals V).")
    expected: float = Field(description="E of the guess: the expected number of guesses from here, it included.")
    best_expected: float = Field(description="V: the least E of any guess here.")
    best_guesses: list[Code] = Field(description="The best guesses, one for each way of playing them up to symmetry.")
    themes: list[PuzzleTheme] = Field(description="What the puzzle is about (they tell of its best guesses).")
    rated: bool = Field(
        description="Whether this answer moved the player's rating: only a player's first answer to a puzzle, "
        "and not when seen. The puzzle's rating moves too once the player has ten rated answers."
    )
    seen: bool = Field(
        description="Whether this client (its address) was shown the puzzle's best guesses in the hour before, "
        "by another answer or a verdict's link: such an answer is not rated."
    )
    rating_before: int
    rating_after: int
    player: str = Field(description="The player token: send it back to keep your rating.")
    url: Url = Field(description="The verdict's page.")
