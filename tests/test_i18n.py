"""The pages' languages: complete catalogues, the choice of locale, and the
locale's number grouping."""

import os
import re
import shutil
import subprocess
import sys
from gettext import GNUTranslations
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from webapp import create_app, store
from webapp.engine import GameSize
from webapp.web import i18n

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "webapp" / "translations"


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    """Every message the code and the templates use, extracted afresh."""
    pot = tmp_path_factory.mktemp("i18n") / "messages.pot"
    pybabel = Path(sys.executable).with_name("pybabel")
    subprocess.run(
        [str(pybabel), "-q", "extract", "-F", "babel.cfg", "-k", "lazy_gettext", "-o", str(pot), "."],
        cwd=ROOT,
        check=True,
    )
    with pot.open("rb") as fh:
        return read_po(fh)


@pytest.mark.parametrize("lang", ["de", "es"])
def test_catalogue_is_complete(extracted, lang):
    """No message missing, empty or fuzzy, and every placeholder kept."""
    with (TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as fh:
        catalog = read_po(fh, locale=lang)
    problems = []
    for message in extracted:
        if not message.id:
            continue
        found = catalog.get(message.id)
        if found is None:
            problems.append(f"missing: {message.id!r}")
        elif found.fuzzy:
            problems.append(f"fuzzy: {message.id!r}")
        elif not all(found.string if isinstance(found.string, tuple) else [found.string]):
            problems.append(f"untranslated: {message.id!r}")
    for message, errors in catalog.check():
        problems += [f"{message.id!r}: {error}" for error in errors]
    assert len(extracted) > 100
    assert not problems, "\n".join(problems[:30])


def test_locale_comes_from_the_address_then_the_choice_then_the_browser(client):
    assert '<html lang="en"' in client.get("/").get_data(as_text=True)
    spanish = client.get("/", headers={"Accept-Language": "es-ES,es;q=0.9,en;q=0.5"}).get_data(as_text=True)
    assert '<html lang="es"' in spanish and "Jugar a Mastermind" in spanish
    chosen = client.post("/language", data={"lang": "de", "next": "/?lang=es"})
    assert chosen.status_code == 303 and chosen.headers["Location"] == "/?lang=es"
    german = client.get("/", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert '<html lang="de"' in german and "Mastermind spielen" in german  # the choice beats the browser
    assert '<html lang="es"' in client.get("/?lang=es").get_data(as_text=True)  # the address beats the choice
    client.post("/language", data={"lang": "nonsense", "next": "/"})
    assert '<html lang="en"' in client.get("/").get_data(as_text=True)  # forgotten


def test_the_switcher_comes_back_without_the_address_language(client):
    page = client.get("/solver/compare?pegs=3&colors=4&lang=de").get_data(as_text=True)
    assert 'name="next" value="/solver/compare?pegs=3&amp;colors=4"' in page


@pytest.mark.parametrize("lang, shown", [("en", "1,296"), ("de", "1.296"), ("es", "1.296")])
def test_numbers_use_the_locale_grouping(client, app, lang, shown):
    with app.app_context():
        game = store.games.create_game(GameSize(), 10)
    client.post(f"/games/{game.id}/counter", data={"show": "1"})
    page = client.get(f"/games/{game.id}?lang={lang}").get_data(as_text=True)
    assert f'<strong id="possible-count">{shown}</strong>' in page


def raised_facts() -> set[str]:
    """Every fact the engine, the store and the web layer raise as an engine
    error, read off their source (a fact is a short lowercase key)."""
    facts = set()
    pattern = re.compile(r'(?:Error|TooSlow|GameOver|StaleMove)\(\s*"([a-z][a-z-]+)"')
    for path in (ROOT / "webapp").rglob("*.py"):
        code = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith(">>>"))
        facts |= set(pattern.findall(code))
    # GameSize words its range errors per field: f"{name}-not-number" and the like.
    facts |= {f"{name}-{what}" for name in ("pegs", "colors") for what in ("not-number", "out-of-range")}
    return facts


def test_every_fact_the_engine_states_is_worded():
    from webapp.words import ERRORS

    facts = raised_facts()
    assert len(facts) > 40
    assert not facts - set(ERRORS), sorted(facts - set(ERRORS))


@pytest.mark.parametrize(
    "lang, words",
    [
        ("en", "Pegs must be from 2 to 6, not 9."),
        ("de", "Die Zahl der Stifte muss von 2 bis 6 gehen, nicht 9."),
        ("es", "Las fichas deben ir de 2 a 6, no 9."),
    ],
)
def test_api_errors_follow_accept_language(client, lang, words):
    """The engine's fact, worded in the language the client asks for; the
    field names and the status stay the same."""
    answer = client.post("/api/games", json={"pegs": 9}, headers={"Accept-Language": lang})
    assert answer.status_code == 400 and answer.get_json() == {"error": words}


def test_a_game_refuses_a_bad_guess_in_german(client, app):
    with app.app_context():
        game = store.games.create_game(GameSize(4, 10, distinct=True, distinct_guesses=True), 10)
    german = {"Accept-Language": "de"}
    answer = client.post(f"/api/games/{game.id}/guesses", json={"guess": "1123"}, headers=german)
    assert answer.status_code == 422
    assert answer.get_json()["error"] == (
        "1123 wiederholt die Ziffer 1: In diesem Spiel hat jeder Versuch verschiedene Ziffern."
    )
    answer = client.post(f"/api/games/{game.id}/guesses", json={"guess": "12"}, headers=german)
    assert answer.get_json()["error"] == "Ein Code hat 4 Ziffern; „12“ hat 2."
    english = client.post(f"/api/games/{game.id}/guesses", json={"guess": "1123"})
    assert english.get_json()["error"] == ("1123 repeats the digit 1: in this game every guess has different digits.")


def test_the_api_reference_reads_in_spanish(client):
    page = client.get("/api?lang=es").get_data(as_text=True)
    assert "<h1>La API JSON</h1>" in page and "Empezar una partida" in page
    document = client.get("/api/openapi.json?lang=es").get_json()
    assert document["paths"]["/api/games"]["post"]["summary"] == "Start a game"  # the contract stays English


def fresh_catalogues(tmp_path) -> Path:
    """A copy of the translations as a fresh checkout has them: no ``.mo``."""
    folder = tmp_path / "translations"
    shutil.copytree(TRANSLATIONS, folder, ignore=shutil.ignore_patterns("*.mo", "*.pot"))
    assert not list(folder.rglob("*.mo"))
    return folder


def german(mo: Path, message: str) -> str:
    with mo.open("rb") as fh:
        return GNUTranslations(fh).gettext(message)


def test_an_app_started_without_make_speaks_german(tmp_path, db_config):
    """Plain gunicorn or ``flask run`` never ran ``pybabel compile``: the
    app compiles the catalogues as it starts, and the German page is German."""
    folder = fresh_catalogues(tmp_path)
    app = create_app({**db_config, "TESTING": True, "BABEL_TRANSLATION_DIRECTORIES": str(folder)})
    try:
        assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.mo")) == [
            "de/LC_MESSAGES/messages.mo",
            "es/LC_MESSAGES/messages.mo",
        ]
        page = app.test_client().get("/?lang=de").get_data(as_text=True)
        assert '<html lang="de"' in page and "Mastermind spielen" in page
        assert "Play Mastermind" not in page
    finally:
        app.extensions["jobs"].stop()


def test_catalogues_compile_once_when_stale_and_when_workers_start_together(tmp_path):
    folder = fresh_catalogues(tmp_path)
    # Four processes at once, as gunicorn's workers start: each file whole.
    starts = [
        subprocess.Popen(
            [sys.executable, "-c", "import sys; from webapp.web.i18n import compile_catalogues as c; c(sys.argv[1])"]
            + [str(folder)],
            cwd=ROOT,
        )
        for _ in range(4)
    ]
    assert [p.wait(60) for p in starts] == [0] * 4
    mo = folder / "de" / "LC_MESSAGES" / "messages.mo"
    assert german(mo, "Play Mastermind") == "Mastermind spielen"
    assert not [p for p in folder.rglob("*") if p.name.startswith(".")]  # no temporary file left
    assert i18n.compile_catalogues(folder) == []  # up to date: nothing to do
    before = mo.with_suffix(".po").stat().st_mtime - 60
    os.utime(mo, (before, before))  # older than its .po: compiled again
    assert i18n.compile_catalogues(folder) == [mo]


def test_a_catalogue_that_cannot_be_written_is_a_clear_error(tmp_path, monkeypatch):
    folder = fresh_catalogues(tmp_path)

    def read_only(**kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(i18n.tempfile, "mkstemp", read_only)
    with pytest.raises(i18n.CataloguesMissing, match="pybabel compile"):
        i18n.compile_catalogues(folder)


def test_a_hints_time_is_written_the_german_way(client, app):
    """Decimals on the pages follow the language: 0,7 ms in German, 0.7 in English."""
    with app.app_context():
        game = store.games.create_game(GameSize(), 10)
    de = {"Accept-Language": "de"}
    german = client.post(f"/games/{game.id}/suggestion", data={"strategy": "knuth"}, headers=de, follow_redirects=True)
    assert re.search(r"Berechnet in \d+,\d ms\.", german.get_data(as_text=True))
    english = client.get(f"/games/{game.id}").get_data(as_text=True)  # the hint is kept, with its time
    assert re.search(r"Worked out in \d+\.\d ms\.", english)


def test_every_strategy_has_a_name_for_people(app):
    """A strategy named for a person keeps the name in every language; one
    named for what it does is translated; no name is its key."""
    from webapp.engine import PRESETS
    from webapp.engine.lines import BEST_CANDIDATE
    from webapp.words import STRATEGY_TITLES, strategy_title

    assert set(STRATEGY_TITLES) == {*PRESETS, BEST_CANDIDATE.name}
    names = {}
    for lang in ("en", "de", "es"):
        with app.test_request_context(f"/?lang={lang}"):
            names[lang] = {key: strategy_title(key) for key in STRATEGY_TITLES}
    assert names["en"]["most-parts"] == "Most parts" and names["en"]["minimax-lex"] == "Lexicographic minimax"
    assert names["de"]["most-parts"] == "Meiste Teile" and names["es"]["most-parts"] == "Más partes"
    assert names["de"]["knuth"] == names["es"]["knuth"] == "Knuth" and names["es"]["irving"] == "Irving"
    for lang, titles in names.items():
        assert not [key for key, title in titles.items() if title == key], lang
        assert len(set(titles.values())) == len(titles), lang  # no two strategies named alike
