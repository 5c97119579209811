"""The strategy tree page: opened node by node, the open path in the URL."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from webapp.engine import Code, GameSize, analyse, best_guess
from webapp.engine.codes import parse_history

HX = {"HX-Request": "true"}


def text(resp):
    return resp.get_data(as_text=True)


def leaves(html):
    return {s: int(d) for s, d in re.findall(r'data-secret="(\d+)" data-found-at="(\d+)"', html)}


def open_links(html):
    return [a.replace("&amp;", "&") for a in re.findall(r'<a href="([^"]+)"[^>]*aria-expanded="false"', html)]


@pytest.mark.parametrize(
    "size,name", [(GameSize(3, 4), "knuth"), (GameSize(3, 4), "entropy"), (GameSize(2, 5, True), "simple")]
)
def test_every_leaf_matches_the_whole_game_analysis(client, size, name):
    """Opening every branch by its link reaches every secret, each at the
    depth the whole-game analysis gives it."""
    analysis = analyse(name, size)
    from webapp.engine.codes import secret_indices

    expected = {str(Code.from_index(int(i), size)): int(d) for i, d in zip(secret_indices(size), analysis.depths)}
    base = f"/solver/tree?pegs={size.pegs}&colors={size.colors}&strategy={name}" + (
        "&distinct=1" if size.distinct else ""
    )
    found, todo, seen = {}, [base], set()
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        resp = client.get(url)
        assert resp.status_code == 200
        html = text(resp)
        found.update(leaves(html))
        todo.extend(open_links(html))
    assert found == expected


def test_open_path_is_in_the_url(client):
    html = text(client.get("/solver/tree?pegs=4&colors=6&strategy=knuth&open=1,0 0,2"))
    size = GameSize()
    second = best_guess("knuth", size, parse_history("1122:1,0", size)).guess
    third = best_guess("knuth", size, parse_history(f"1122:1,0 {second}:0,2", size)).guess
    assert "guess 1 is" in html and ">1122<" in html
    assert "Guess 2: " in html and f'<span class="code-text">{second}</span>' in html
    assert f'<span class="code-text">{third}</span>' in html
    assert html.count('aria-expanded="true"') == 2  # two branches open: Close links
    # Classroom links carry the position.
    links = re.findall(r'href="(/solver/classroom\?[^"]+)"', html)
    histories = [parse_qs(urlsplit(link.replace("&amp;", "&")).query).get("history", [""])[0] for link in links]
    assert f"1122:1,0 {second}:0,2" in histories


def test_htmx_opens_one_level(client):
    resp = client.get("/solver/tree?pegs=4&colors=6&strategy=knuth&open=1,0", headers=HX)
    html = text(resp)
    assert resp.status_code == 200 and "<html" not in html
    assert html.lstrip().startswith('<ul class="branches" id="branches-1"')
    assert html.count('class="node"') == 1  # the one node just opened
    deeper = text(client.get("/solver/tree?pegs=4&colors=6&strategy=knuth&open=1,0 0,2", headers=HX))
    assert deeper.lstrip().startswith('<ul class="branches" id="branches-2"')
    assert deeper.count('class="node"') == 1


def test_large_trees_open_lazily(client):
    html = text(client.get("/solver/tree?pegs=5&colors=8&strategy=knuth&open=1,1"))
    assert html.count('class="node"') == 1 and "32,768 codes possible" in html


@pytest.mark.parametrize(
    "query,words",
    [
        ("open=4,0", "is a leaf"),
        ("open=1,3", "does not exist"),
        ("open=9,9", "impossible with 4 pegs"),
        ("open=x", "is not feedback"),
        ("strategy=nope", "Unknown strategy"),
        ("pegs=5&colors=8&strategy=optimal", "not offered"),
    ],
)
def test_bad_tree_parameters(client, query, words):
    resp = client.get(f"/solver/tree?{query}")
    assert resp.status_code == 400 and words in text(resp)
