"""The app's settings, declared once: one pydantic-settings model per area
(the store, the jobs, the live events, the rate limits, the web, logs and
metrics), each setting with its type, its default, the values it allows and
a line saying what it does. Every process of a site reads them alike (the
web app and the job consumer, through :func:`webapp.configure`): a key of
the mapping given to ``create_app``, else ``MASTERMIND_<SETTING>`` of the
environment, else the default, all checked by the same model. A wrong value
stops the process with one sentence naming the setting and what it accepts
(:class:`InvalidSetting`).

The settings table of ``docs/operations.md`` is drawn from these models:
``python -m webapp.config`` writes it again after a change here (and
``tests/test_config.py`` fails while it differs). This module imports no
other part of the app but the engine's constants, and no Flask."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import (
    AfterValidator,
    AliasChoices,
    AnyUrl,
    BeforeValidator,
    Field,
    HttpUrl,
    TypeAdapter,
    UrlConstraints,
    ValidationError,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from .engine.lines import DEEPEST_LINE_CODES

# The checkout (webapp.ROOT: the package that imports this module is not imported back).
ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
# Every setting can be given in the environment under this prefix.
PREFIX = "MASTERMIND_"
# The table of docs/operations.md lies between these two lines.
DOC = os.path.join(ROOT, "docs", "operations.md")
TABLE_BEGINS = "<!-- settings table: generated from webapp/config.py by `python -m webapp.config`; do not edit -->"
TABLE_ENDS = "<!-- end of the settings table -->"


class InvalidSetting(ValueError):
    """A setting's value is not one it accepts: the sentence names the
    setting, what it accepts and what it was given."""

    def __init__(self, sentence: str, names: list[str]):
        super().__init__(sentence)
        self.names = names


@dataclass(frozen=True)
class Accepts:
    """What a kind of setting accepts, in words (for its refusal and the
    docs' table), where its type alone does not say it."""

    words: str


def listed(value: Any) -> Any:
    """A list given as text: a JSON list, or comma-separated entries.

    >>> listed("a.example, b"), listed('["c.example"]')
    (['a.example', 'b'], ['c.example'])
    """
    if not isinstance(value, str):
        return value
    if value.lstrip().startswith("["):
        return json.loads(value)
    return [entry.strip() for entry in value.split(",") if entry.strip()]


def unset_when_empty(value: Any) -> Any:
    """An empty text is no value (``DATABASE_URL=`` in an environment file)."""
    return None if value == "" else value


def url(*schemes: str) -> Callable[[str], str]:
    """A check that text is a URL of one of ``schemes`` (any scheme when
    none is named), by pydantic's URL types; the text is kept as written
    (pydantic's own value would gain a ``/``)."""
    kind = Annotated[AnyUrl, UrlConstraints(allowed_schemes=list(schemes) or None)]
    checked = TypeAdapter(HttpUrl if schemes == ("http", "https") else kind)

    def check(text: str) -> str:
        checked.validate_python(text)
        return text

    return check


postgresql_url = url("postgresql", "postgres")


def database_url(text: str) -> str:
    """``postgresql://…`` (or ``postgres://``), ``sqlite:///path``, or a path
    (as ``store.database.engine_url`` reads them)."""
    if text.startswith("sqlite:///") or "://" not in text:
        return text
    return postgresql_url(text)


def rate_limits(text: str) -> str:
    """Flask-Limiter's notation, checked by its ``limits`` package."""
    from limits import parse_many

    parse_many(text)
    return text


def network(text: str) -> str:
    """An IP address or network (``10.0.0.0/24``)."""
    ipaddress.ip_network(text.strip(), strict=False)
    return text.strip()


PublicUrl = Annotated[str, AfterValidator(url("http", "https")), Accepts("an http:// or https:// URL")]
DatabaseUrl = Annotated[str, AfterValidator(database_url), Accepts("a postgresql:// or sqlite:/// URL, or a path")]
RedisUrl = Annotated[
    str, AfterValidator(url("redis", "rediss", "unix")), Accepts("a redis://, rediss:// or unix:// URL")
]
StorageUri = Annotated[
    str, AfterValidator(url()), Accepts("a storage URI such as mastermind://, memory:// or redis://host:6379")
]
RateLimits = Annotated[str, AfterValidator(rate_limits), Accepts("rate limits such as '10 per minute;100 per hour'")]
Network = Annotated[str, AfterValidator(network)]
FileName = Annotated[str, Field(min_length=1), Accepts("a file's path")]
Seconds = Annotated[float, Field(gt=0)]
Unset = BeforeValidator(unset_when_empty)


def also_bare(name: str) -> AliasChoices:
    """A setting read from the environment under its own name too
    (``DATABASE_URL``), after ``MASTERMIND_<name>``."""
    return AliasChoices(PREFIX + name, name)


class Area(BaseSettings):
    """The settings of one area of the app, read from the keyword arguments
    (the mapping given to ``create_app``) over the environment."""

    model_config = SettingsConfigDict(
        env_prefix=PREFIX,
        case_sensitive=True,
        env_ignore_empty=True,
        env_parse_none_str="null",
        extra="ignore",
    )


class StoreSettings(Area):
    """The records: where they are kept, for how long, and what several servers share."""

    DATABASE: FileName = Field(
        os.path.join(ROOT, "instance", "mastermind.sqlite3"),
        description="the SQLite file of the records, when `DATABASE_URL` is unset",
    )
    DATABASE_URL: Annotated[DatabaseUrl | None, Unset] = Field(
        None,
        validation_alias=also_bare("DATABASE_URL"),
        description="the records' database: `postgresql://user:password@host:5432/name`, or `sqlite:///path`",
    )
    DATABASE_POOL_SIZE: int = Field(8, ge=1, description="PostgreSQL connections per process, at most")
    DATABASE_POOL_TIMEOUT: float = Field(
        5.0, gt=0, description="seconds a request waits for a connection before a `503`"
    )
    DATABASE_READ_ONLY: bool = Field(False, description="maintenance mode: pages show, writes answer `503`")
    REDIS_URL: Annotated[RedisUrl | None, Unset] = Field(
        None,
        validation_alias=also_bare("REDIS_URL"),
        description="the Redis every server shares: the job queue, the rate-limit counters, the live events",
    )
    GAME_RETENTION_DAYS: int = Field(
        30,
        ge=0,
        description="games in play with no move this long are deleted (by the hourly sweep and "
        "`flask expire-games`); 0 keeps everything",
    )
    PLAYER_RETENTION_DAYS: int = Field(
        365, ge=0, description="player tokens with no game this long are let go (their games stay); 0 keeps them"
    )


class JobsSettings(Area):
    """The background jobs: who runs them, how many, how they are watched."""

    JOBS_CONSUMER: Literal["embedded", "none"] = Field(
        "embedded",
        description="`embedded`: job threads in each web worker; `none`: a separate "
        "`huey_consumer webapp.worker.huey` runs them",
    )
    JOBS_WORKERS: int = Field(2, ge=1, description="job threads per process, when embedded")
    JOBS_PERIODIC: bool = Field(
        True,
        description="the embedded consumer runs the hourly sweep (minute 17) on the clock; the tests turn it off "
        "and call it",
    )
    JOBS_MAX: int = Field(
        3, ge=0, description="jobs queued or running at once, across every process (`503` beyond; 0: none at all)"
    )
    JOBS_PER_CLIENT: Annotated[int, Field(ge=1)] | None = Field(
        None, description="the job slots one client address may hold; unset, all but one of `JOBS_MAX`"
    )
    JOBS_START_RATE_LIMIT: RateLimits = Field(
        "20 per minute;200 per hour", description="new jobs one client address may start"
    )
    JOBS_HEARTBEAT: Seconds = Field(
        1.0,
        description="seconds between a running job's signs of life, and a running consumer's (in the queue, "
        "for `/readyz`)",
    )
    JOBS_STALE_SECONDS: Seconds = Field(
        20.0,
        description="a running job silent this long is queued again; a consumer silent this long makes "
        "`/readyz` answer `503` where `JOBS_CONSUMER` is `none`",
    )
    JOBS_RETRY_AFTER: int = Field(15, ge=1, description="the `Retry-After` seconds of a `503` when the queue is full")
    JOBS_QUICK_INLINE: bool = Field(
        True, description="small jobs are computed by the request that asks, and stored like any other"
    )
    JOBS_QUICK_PER_REQUEST: int = Field(
        3, ge=0, description="the quick jobs one request computes itself at most; further ones queue"
    )
    JOBS_REDIS_WAIT: Seconds = Field(
        1.0,
        description="seconds an idle job thread waits on Redis before it asks again (and so how long stopping "
        "it may take)",
    )
    JOBS_QUEUE_NAME: str = Field(
        "mastermind",
        min_length=1,
        description="huey's name: the prefix of its keys in Redis (change it when several sites share one Redis)",
    )
    JOBS_QUEUE: Annotated[FileName | None, Unset] = Field(
        None,
        description="huey's SQLite queue file, without Redis; unset, `jobs-queue.sqlite3` beside the SQLite "
        "database (in `instance/` with `DATABASE_URL`)",
    )


class LiveSettings(Area):
    """The live classroom: its sessions, its students and their event streams."""

    LIVE_IDLE_HOURS: int = Field(
        6, ge=1, description="a live session idle this long ends, and the hourly sweep deletes its records"
    )
    LIVE_STREAMS_PER_WORKER: int = Field(
        500,
        ge=0,
        description="live event streams one worker follows at most (under gunicorn, also at most its threads "
        "less `LIVE_FREE_THREADS`)",
    )
    LIVE_STREAMS_PER_ADDRESS: int = Field(
        300,
        ge=0,
        description="live event streams one worker follows from one address at most (`503` beyond; nginx's "
        "`limit_conn` holds all servers to the same): a school's pupils share one address",
    )
    LIVE_STREAMS_PER_SESSION: int = Field(
        300,
        ge=0,
        description="live event streams one session's teacher and students may have open, counted across every "
        "worker and server where the rate limits count (`503` beyond)",
    )
    LIVE_ANONYMOUS_STREAMS: int = Field(
        5,
        ge=0,
        description="live event streams without a token of the session (someone who only knows the code) one "
        "session may have besides, counted alike (`503` beyond): they never take the teacher's or the "
        "students' places",
    )
    LIVE_MAX_STUDENTS: int = Field(
        250,
        ge=1,
        description="students one session admits, removed ones included (`409` and a sentence beyond; the "
        "teacher's room panel shows the count)",
    )
    LIVE_VOTES_SECONDS: float = Field(
        1.0,
        ge=0,
        description="the teacher's screen hears of new votes at most once in this many seconds, however fast they come",
    )
    LIVE_GONE_SECONDS: Seconds = Field(
        1.0,
        description="under gunicorn, how often a waiting stream looks whether its phone has gone, to free its "
        "place at once",
    )
    LIVE_FREE_THREADS: int = Field(8, ge=0, description="threads of a gunicorn worker that streams never take")
    LIVE_POLL_SECONDS: Seconds = Field(
        0.1, description="without Redis, how often a worker reads its sessions' versions from the database"
    )
    LIVE_KEEPALIVE_SECONDS: Seconds = Field(
        15.0, description="how often a stream sends a keepalive comment and reads the session's state itself"
    )
    LIVE_STREAM_SECONDS: Seconds = Field(
        300.0, description="a stream's length before the browser reconnects (with `Last-Event-ID`)"
    )
    LIVE_CHANNEL_PREFIX: str = Field(
        "mastermind:live:", min_length=1, description="with Redis, the prefix of the live sessions' pub/sub channels"
    )


class LimitsSettings(Area):
    """The rate limits, per client address or per live session (Flask-Limiter)."""

    RATELIMIT_ENABLED: bool = Field(True, description="Flask-Limiter's own key: off, no rate limit at all")
    RATELIMIT_STORAGE_URI: Annotated[StorageUri | None, Unset] = Field(
        None,
        description="where the counters live (Flask-Limiter's own key); unset, `mastermind://` (the app's "
        "database), or `REDIS_URL`'s Redis when that is set",
    )
    RATELIMIT_HEADERS_ENABLED: bool = Field(True, description="`X-RateLimit-*` headers on the limited routes")
    CREATE_RATE_LIMIT: RateLimits = Field(
        "30 per minute;300 per hour",
        description="new games (Daily Mastermind and challenge games too, even when the game already exists), "
        "challenges, codemaker games and live sessions per client address; `429` beyond",
    )
    PUZZLE_ANSWER_RATE_LIMIT: RateLimits = Field(
        "600 per minute",
        description="puzzle answers and streaks started per client address (a school's pupils share one); `429` beyond",
    )
    PUZZLE_PLAYER_RATE_LIMIT: RateLimits = Field(
        "100 per hour;500 per day",
        description="new puzzle players (a player token's first answer or streak) per client address; `429` "
        "beyond, while players it has go on",
    )
    LIVE_LOOKUP_RATE_LIMIT: RateLimits = Field(
        "20 per minute;100 per hour",
        description="join codes that find no session, per client address (a code that finds one never counts); "
        "past it every code from the address is refused (`429`, the wait in its sentence and `Retry-After`) until "
        "the window it used up ends, nothing counted meanwhile, but for the sessions the address has met and "
        "requests with a session's token",
    )
    LIVE_JOIN_RATE_LIMIT: RateLimits = Field(
        "300 per minute",
        description="students joining one session, wherever they come from (a school's pupils share one address)",
    )
    LIVE_VOTE_RATE_LIMIT: RateLimits = Field(
        "3000 per minute",
        description="votes in one session, wherever they come from (a school's pupils share one address)",
    )


class WebSettings(Area):
    """The site: its address, the requests it takes, the work one request may do."""

    PUBLIC_URL: Annotated[PublicUrl | None, Unset] = Field(
        None,
        validation_alias=also_bare("PUBLIC_URL"),
        description="the site's public address: the links the app gives out, and the one origin whose forms are obeyed",
    )
    TRUSTED_HOSTS: Annotated[
        list[str] | None,
        NoDecode,
        BeforeValidator(listed),
        Unset,
        Accepts("a list, or comma-separated text, of host names"),
    ] = Field(
        None,
        validation_alias=also_bare("TRUSTED_HOSTS"),
        description="the host names a request may carry in `Host` (others get `400`, a page saying where the "
        "site is); unset, `PUBLIC_URL`'s host, `127.0.0.1`, `localhost`, `::1`",
    )
    PROXIES: int = Field(0, ge=0, description="how many reverse proxies in front set `X-Forwarded-For`; 1 behind nginx")
    MAX_CONTENT_LENGTH: int = Field(16 * 1024, ge=1, description="the largest request body in bytes (`413` beyond)")
    MAX_FORM_MEMORY_SIZE: int = Field(16 * 1024, ge=1, description="the bytes a form's fields may hold in memory")
    REQUEST_BUDGET: int = Field(
        400_000_000,
        ge=1,
        description="the engine work one request may do, in (guess, code) pairs scored: about half a second on "
        "a 2-core machine; more runs as a job",
    )
    SOLVER_TREE_CODES: int = Field(
        DEEPEST_LINE_CODES,
        ge=1,
        description="the largest size (in codes) whose deepest-adversary line is built within a request",
    )
    WARM_UP: Annotated[bool | Literal["background"], Accepts("background, true or false")] = Field(
        "background",
        description="load the compiled kernels in a thread at start-up (true: before serving; false: on the "
        "first large piece of work)",
    )
    DAILY_KEY: Annotated[str | None, Unset] = Field(
        None,
        validation_alias=also_bare("DAILY_KEY"),
        description="the daily puzzle's key (changing it changes every day's secret); unset, a random key kept "
        "in the database",
    )
    PUZZLES_FILE: Annotated[FileName | None, Unset] = Field(
        None,
        description="a puzzle set file loaded into the database as puzzles are first needed; unset, the shipped "
        "set (`webapp/engine/data/puzzles.jsonl.gz`)",
    )


class ObservabilitySettings(Area):
    """What a host reads: the log lines and the metrics."""

    LOG_FORMAT: Literal["text", "json"] = Field(
        "text",
        description="the `mastermind` loggers' lines (one per request, the jobs', the live events'): plain text, "
        "or one JSON object a line",
    )
    LOG_REQUESTS: bool = Field(
        True, description="one line per request: method, route template, status, milliseconds, request id"
    )
    METRICS_ENABLED: bool = Field(
        False, description="serve `/metrics` (Prometheus's text format); off, it answers `404`"
    )
    METRICS_ALLOW: Annotated[
        list[Network],
        NoDecode,
        BeforeValidator(listed),
        Accepts("a list, or comma-separated text, of addresses and networks such as 10.0.0.0/24"),
    ] = Field(
        ["127.0.0.1", "::1"],
        description="the addresses and networks `/metrics` answers (others get `404`); behind nginx "
        "(`PROXIES = 1`) the address is the client's",
    )


# The areas, in the order the docs' table lists them.
AREAS: tuple[type[Area], ...] = (
    StoreSettings,
    JobsSettings,
    LiveSettings,
    LimitsSettings,
    WebSettings,
    ObservabilitySettings,
)


class Settings(StoreSettings, JobsSettings, LiveSettings, LimitsSettings, WebSettings, ObservabilitySettings):
    """Every setting of the app, each area's, checked together."""

    @model_validator(mode="after")
    def shared_counters(self) -> Settings:
        """The rate-limit counters go to Redis when it is there, unless told otherwise."""
        if self.RATELIMIT_STORAGE_URI is None:
            self.RATELIMIT_STORAGE_URI = self.REDIS_URL or "mastermind://"
        return self

    def as_config(self) -> dict[str, Any]:
        """Every setting by name, as Flask's ``app.config`` holds them."""
        return {name: getattr(self, name) for name in type(self).model_fields}


def load(given: Mapping[str, Any] | None = None) -> Settings:
    """Every setting, checked: its key in ``given`` (the mapping given to
    ``create_app``), else ``MASTERMIND_<SETTING>`` of the environment (or,
    for the few marked so, ``<SETTING>``), else its default. Keys of
    ``given`` that are no setting here (Flask's own) are left to the caller.
    :class:`InvalidSetting` when a value is not one its setting accepts."""
    chosen = {name: value for name, value in (given or {}).items() if name in Settings.model_fields}
    try:
        return Settings(**chosen)
    except ValidationError as error:
        raise refusal(error) from None


def refusal(error: ValidationError) -> InvalidSetting:
    """The sentence for a model's refusal: each wrong setting, what it
    accepts, and the value it was given."""
    said: dict[str, str] = {}
    for problem in error.errors():
        name = str(problem["loc"][0]).removeprefix(PREFIX) if problem["loc"] else ""
        if name in Settings.model_fields and name not in said:
            said[name] = f"{name} must be {accepts(Settings.model_fields[name])}, not {problem['input']!r}"
    if not said:  # not a setting's own value (cannot happen with these models): pydantic's words
        return InvalidSetting(str(error), [])
    names = [name for area in AREAS for name in area.model_fields if name in said]  # in the table's order
    return InvalidSetting("; ".join(said[name] for name in names), names)


def accepts(field: FieldInfo) -> str:
    """What a setting accepts, in words.

    >>> accepts(Settings.model_fields["JOBS_CONSUMER"]), accepts(Settings.model_fields["JOBS_MAX"])
    ('one of embedded, none', 'a whole number, 0 or more')
    """
    return " or ".join(_accepts(field.annotation, list(field.metadata)))


def _accepts(kind: Any, metadata: list) -> list[str]:
    """The words for each kind of value ``kind`` allows (None left out)."""
    if get_origin(kind) is Annotated:
        inner, *more = get_args(kind)
        return _accepts(inner, more + metadata)
    marked = [m.words for m in metadata if isinstance(m, Accepts)]
    if marked:
        return marked[:1]
    if get_origin(kind) in (Union, UnionType):
        return [words for option in get_args(kind) if option is not NoneType for words in _accepts(option, metadata)]
    if get_origin(kind) is Literal:
        return ["one of " + ", ".join(str(choice) for choice in get_args(kind))]
    if kind is bool:
        return ["true or false"]
    if kind in (int, float):
        return [("a whole number" if kind is int else "a number") + _bounds(metadata)]
    return ["non-empty text" if _constraints(metadata, annotated_types.MinLen) else "text"]


def _constraints(metadata: list, kind: type) -> list:
    """The constraints of type ``kind`` (``annotated_types.Ge``…) among ``metadata``."""
    found = []
    for item in metadata:
        found += [c for c in (item.metadata if isinstance(item, FieldInfo) else [item]) if isinstance(c, kind)]
    return found


def _bounds(metadata: list) -> str:
    """A number's bounds in words: ", 0 or more", " above 0", " from 1 to 9"."""
    found = {
        name: getattr(constraint, name)
        for name in ("ge", "gt", "le", "lt")
        for constraint in _constraints(metadata, getattr(annotated_types, name.capitalize()))
    }
    low, high = found.get("ge"), found.get("le")
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if low is not None:
        return f", {low} or more"
    if "gt" in found:
        return f" above {found['gt']}"
    if high is not None:
        return f", {high} or less"
    return ""


# --- the docs' table ---------------------------------------------------------------------------------


def shown(value: Any) -> str:
    """A default as the table writes it.

    >>> shown(None), shown(True), shown(400_000_000), shown(0.1), shown(["127.0.0.1", "::1"])
    ('unset', 'on', '400,000,000', '0.1', '`127.0.0.1`, `::1`')
    """
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ", ".join(shown(entry) for entry in value)
    return f"`{str(value).replace(ROOT + os.sep, '')}`"


def table() -> str:
    """The settings as Markdown: a table per area, each setting with its
    default, what it accepts and what it does."""
    parts = []
    for area in AREAS:
        heading = (area.__doc__ or area.__name__).strip()
        rows = ["| setting | default | accepts | what it does |", "|---|---|---|---|"]
        for name, field in area.model_fields.items():
            bare = isinstance(field.validation_alias, AliasChoices) and name in field.validation_alias.choices
            setting = f"`{name}`" + (" (env)" if bare else "")
            rows.append(f"| {setting} | {shown(field.default)} | {accepts(field)} | {field.description} |")
        parts.append(f"**{heading}**\n\n" + "\n".join(rows))
    return "\n\n".join(parts) + "\n"


def with_table(document: str) -> str:
    """``document`` with its settings table drawn again from the models."""
    pattern = re.compile(re.escape(TABLE_BEGINS) + r"\n.*?" + re.escape(TABLE_ENDS), re.DOTALL)
    if not pattern.search(document):
        raise ValueError(f"no settings table between {TABLE_BEGINS!r} and {TABLE_ENDS!r}")
    return pattern.sub(lambda _: f"{TABLE_BEGINS}\n\n{table()}\n{TABLE_ENDS}", document)


def main() -> int:
    """``python -m webapp.config``: write the settings table of
    docs/operations.md again; ``--check`` only says whether it is current."""
    with open(DOC, encoding="utf-8") as f:
        document = f.read()
    current = with_table(document)
    if "--check" in sys.argv[1:]:
        if current != document:
            print(f"{DOC}: the settings table is out of date: run python -m webapp.config", file=sys.stderr)
            return 1
        return 0
    if current != document:
        with open(DOC, "w", encoding="utf-8") as f:
            f.write(current)
        print(f"{DOC}: settings table written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
