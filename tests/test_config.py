"""The settings (``webapp.config``): declared once, read alike from the
mapping given to ``create_app`` and from the environment, and checked as a
process starts: a wrong value stops the web app and the job consumer with
one sentence naming the setting and what it accepts. The settings table of
docs/operations.md is the one the models draw."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from webapp import config, create_app

ROOT = Path(__file__).resolve().parent.parent

# One wrong value of each kind, and the sentence that refuses it; from the
# environment the value arrives as text, and the sentence says so.
WRONG = {
    "a word not in the choices": (
        "JOBS_CONSUMER",
        "thread",
        "JOBS_CONSUMER must be one of embedded, none, not 'thread'",
    ),
    "a number out of range": (
        "LIVE_MAX_STUDENTS",
        "0",
        "LIVE_MAX_STUDENTS must be a whole number, 1 or more, not '0'",
    ),
    "a URL without its scheme": (
        "PUBLIC_URL",
        "mastermind.example",
        "PUBLIC_URL must be an http:// or https:// URL, not 'mastermind.example'",
    ),
}
# The same, given in the mapping as a program would write them.
GIVEN = {"a number out of range": 0}


@pytest.fixture
def base(db_path, monkeypatch):
    """A configuration on this test's database, in an environment without
    any of the settings the tests give."""
    for name in list(os.environ):
        if name.startswith(config.PREFIX) and name != "MASTERMIND_CACHE":
            monkeypatch.delenv(name)
    for name in ("PUBLIC_URL", "TRUSTED_HOSTS", "DAILY_KEY"):
        monkeypatch.delenv(name, raising=False)
    return {"DATABASE": db_path, "DATABASE_URL": None, "REDIS_URL": None, "WARM_UP": False, "JOBS_PERIODIC": False}


@pytest.mark.parametrize("case", list(WRONG))
def test_a_wrong_value_in_the_mapping_stops_the_app(case, base):
    name, text, _ = WRONG[case]
    given = GIVEN.get(case, text)
    with pytest.raises(config.InvalidSetting) as refused:
        create_app({**base, name: given})
    assert str(refused.value) == WRONG[case][2].replace(repr(text), repr(given))
    assert refused.value.names == [name]


@pytest.mark.parametrize("case", list(WRONG))
def test_a_wrong_value_in_the_environment_stops_the_app(case, base, monkeypatch):
    name, text, sentence = WRONG[case]
    monkeypatch.setenv(config.PREFIX + name, text)
    with pytest.raises(config.InvalidSetting) as refused:
        create_app(base)
    assert str(refused.value) == sentence


def test_a_url_of_another_scheme_is_refused(base):
    with pytest.raises(config.InvalidSetting, match=r"^REDIS_URL must be a redis://, rediss:// or unix:// URL, not"):
        create_app({**base, "REDIS_URL": "http://127.0.0.1:6379"})


def test_every_wrong_setting_is_named_in_one_line(base):
    with pytest.raises(config.InvalidSetting) as refused:
        create_app({**base, "JOBS_CONSUMER": "thread", "LOG_FORMAT": "xml"})
    assert str(refused.value) == (
        "JOBS_CONSUMER must be one of embedded, none, not 'thread'; LOG_FORMAT must be one of text, json, not 'xml'"
    )
    assert refused.value.names == ["JOBS_CONSUMER", "LOG_FORMAT"]


def test_the_job_consumer_refuses_a_wrong_value(tmp_path):
    """``huey_consumer webapp.worker.huey`` stops at once, its last words the sentence."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(config.PREFIX)}
    env.update(MASTERMIND_DATABASE=str(tmp_path / "jobs.sqlite3"), MASTERMIND_JOBS_CONSUMER="thread")
    done = subprocess.run(
        [sys.executable, "-c", "import webapp.worker"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert done.stderr.strip() == "webapp.worker: JOBS_CONSUMER must be one of embedded, none, not 'thread'"


def test_the_environment_and_the_mapping_read_alike(base, monkeypatch):
    given = {
        "JOBS_MAX": "5",
        "WARM_UP": "false",
        "METRICS_ALLOW": "127.0.0.1, 10.0.0.0/24",
        "TRUSTED_HOSTS": '["a.example", "b.example"]',
        "JOBS_PER_CLIENT": "null",
    }
    from_mapping = config.load({**base, **given, "JOBS_PER_CLIENT": None}).as_config()
    for name, text in given.items():
        monkeypatch.setenv(config.PREFIX + name, text)
    from_environment = config.load(base).as_config()
    assert from_environment == from_mapping
    assert [from_mapping[name] for name in given] == [
        5,
        False,
        ["127.0.0.1", "10.0.0.0/24"],
        ["a.example", "b.example"],
        None,
    ]


def test_the_mapping_wins_over_the_environment_and_its_own_names(base, monkeypatch):
    monkeypatch.setenv("MASTERMIND_JOBS_MAX", "5")
    monkeypatch.setenv("PUBLIC_URL", "https://plain.example")
    monkeypatch.setenv("TRUSTED_HOSTS", "a.example, b.example")
    settings = config.load({**base, "JOBS_MAX": 7})
    assert (settings.JOBS_MAX, settings.PUBLIC_URL, settings.TRUSTED_HOSTS) == (
        7,
        "https://plain.example",
        ["a.example", "b.example"],
    )
    monkeypatch.setenv("MASTERMIND_PUBLIC_URL", "https://prefixed.example")
    assert config.load(base).PUBLIC_URL == "https://prefixed.example"


def test_the_app_holds_every_setting_as_checked(base):
    app = create_app({**base, "JOBS_CONSUMER": "none", "TESTING": True, "LIVE_IDLE_HOURS": "12"})
    try:
        expected = config.load({**base, "JOBS_CONSUMER": "none", "LIVE_IDLE_HOURS": 12}).as_config()
        held = {name: app.config[name] for name in expected}
        expected["TRUSTED_HOSTS"] = held["TRUSTED_HOSTS"]  # unset, the web layer names this machine's
        assert held == expected
        assert app.config["TESTING"] is True  # Flask's own keys pass as given
        assert app.config["PUBLIC_URL"] is None and app.config["LIVE_IDLE_HOURS"] == 12
    finally:
        app.extensions["store"].close()


def test_a_url_is_kept_as_written(base):
    assert config.load({"PUBLIC_URL": "https://mastermind.example"}).PUBLIC_URL == "https://mastermind.example"


def test_the_rate_limit_counters_follow_redis_unless_told(base):
    shared = {"REDIS_URL": "redis://127.0.0.1:6379/0"}
    assert config.load({"REDIS_URL": None}).RATELIMIT_STORAGE_URI == "mastermind://"
    assert config.load(shared).RATELIMIT_STORAGE_URI == "redis://127.0.0.1:6379/0"
    told = config.load({**shared, "RATELIMIT_STORAGE_URI": "mastermind://"})
    assert told.RATELIMIT_STORAGE_URI == "mastermind://"


def test_every_setting_says_what_it_does_and_belongs_to_one_area():
    areas = [name for area in config.AREAS for name in area.model_fields]
    assert sorted(areas) == sorted(config.Settings.model_fields)
    assert len(areas) == len(set(areas))
    assert [name for name, field in config.Settings.model_fields.items() if not field.description] == []


def test_the_docs_table_is_the_one_the_models_draw():
    """After a change to a setting: ``python -m webapp.config`` writes it again."""
    document = Path(config.DOC).read_text(encoding="utf-8")
    assert config.with_table(document) == document
    assert "| `JOBS_CONSUMER` | `embedded` | one of embedded, none |" in document
