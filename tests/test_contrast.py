"""Colour contrast computed from the stylesheet itself (WCAG 2 relative
luminance): text on every peg at least 4.5:1, the focus ring at least 3:1
against what it is drawn on, every text colour at least 4.5:1 on the page and
on a panel, in the light theme and in the dark one (each colour is written
``light-dark(light, dark)``)."""

import re
from pathlib import Path

import pytest

CSS = (Path(__file__).resolve().parent.parent / "static" / "style.css").read_text()


def luminance(colour: str) -> float:
    h = colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    channels = [int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


HEX = r"#[0-9a-fA-F]{3,6}"
THEMES = ["light", "dark"]


def variable(name: str, theme: str = "light") -> str:
    """A colour variable's value in ``theme``."""
    both = re.search(rf"--{name}:\s*light-dark\(({HEX}),\s*({HEX})\)", CSS)
    if both:
        return both[1] if theme == "light" else both[2]
    return re.search(rf"--{name}:\s*({HEX})", CSS)[1]


PEGS = re.findall(r"\.c(\d+)(?:, \.c0)? \{ --fill: (#[0-9a-f]{6}); --ink: (#[0-9a-f]{3,6}); \}", CSS)


def test_the_stylesheet_defines_ten_peg_colours():
    assert [n for n, _, _ in PEGS] == [str(i) for i in range(1, 11)]


@pytest.mark.parametrize("number,fill,ink", PEGS)
def test_peg_digits_and_symbols_are_readable(number, fill, ink):
    assert contrast(fill, ink) >= 4.5, f"colour {number}: {contrast(fill, ink):.2f}:1"


def test_symbols_are_not_faded():
    rule = re.search(r"\.peg i \{([^}]*)\}", CSS)[1]
    assert "opacity" not in rule


@pytest.mark.parametrize("theme", THEMES)
def test_focus_ring_stands_out(theme):
    page, panel, focus = variable("bg", theme), variable("panel", theme), variable("focus", theme)
    assert contrast(focus, page) >= 3 and contrast(focus, panel) >= 3
    assert contrast(variable("focus-on-dark", theme), variable("header", theme)) >= 3
    assert "outline: 3px solid var(--focus)" in CSS


@pytest.mark.parametrize("theme", THEMES)
def test_text_colours_on_the_page(theme):
    texts = {ground: ("ink", "muted", "accent", "danger", "ok") for ground in ("bg", "panel", "field", "tint")}
    texts["soft"] = ("ink",)  # the grey buttons
    for ground, names in texts.items():
        for name in names:
            ratio = contrast(variable(name, theme), variable(ground, theme))
            assert ratio >= 4.5, f"{name} on {ground} ({theme}): {ratio:.2f}:1"
    assert contrast(variable("on-accent", theme), variable("accent", theme)) >= 4.5


@pytest.mark.parametrize("theme", THEMES)
def test_key_pegs_are_visible(theme):
    for name in ("key-black", "key-white", "key-none"):
        assert contrast(variable(name, theme), variable("panel", theme)) >= 3, name


def test_both_themes_define_every_colour():
    names = re.findall(r"--([a-z-]+):\s*light-dark\(", CSS)
    assert {"bg", "panel", "ink", "muted", "accent", "on-accent", "line", "header"} <= set(names)


@pytest.mark.parametrize("theme", THEMES)
def test_status_badges_are_readable(theme):
    """The API page's HTTP status badges: their text on each badge's colour."""
    assert re.search(r"\.status \{[^}]*color: var\(--on-status\)", CSS)
    for status, ground in (("2", "ok"), ("4", "danger"), ("5", "muted")):
        assert re.search(rf"\.status-{status} \{{ background: var\(--{ground}\); \}}", CSS)
        ratio = contrast(variable("on-status", theme), variable(ground, theme))
        assert ratio >= 4.5, f"status {status}xx ({theme}): {ratio:.2f}:1"
