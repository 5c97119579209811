"""Colour contrast computed from the stylesheet itself (WCAG 2 relative
luminance): text on every peg at least 4.5:1, the focus ring at least 3:1
against what it is drawn on."""

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


def variable(name: str) -> str:
    return re.search(rf"--{name}:\s*(#[0-9a-fA-F]{{3,6}})", CSS)[1]


PEGS = re.findall(r"\.c(\d) \{ --fill: (#[0-9a-f]{6}); --ink: (#[0-9a-f]{3,6}); \}", CSS)


def test_the_stylesheet_defines_nine_peg_colours():
    assert [n for n, _, _ in PEGS] == [str(i) for i in range(1, 10)]


@pytest.mark.parametrize("number,fill,ink", PEGS)
def test_peg_digits_and_symbols_are_readable(number, fill, ink):
    assert contrast(fill, ink) >= 4.5, f"colour {number}: {contrast(fill, ink):.2f}:1"


def test_symbols_are_not_faded():
    rule = re.search(r"\.peg i \{([^}]*)\}", CSS)[1]
    assert "opacity" not in rule


def test_focus_ring_stands_out():
    page, focus, dark = variable("bg"), variable("focus"), variable("focus-on-dark")
    assert contrast(focus, page) >= 3 and contrast(focus, "#ffffff") >= 3
    assert contrast(dark, variable("header")) >= 3
    assert "outline: 3px solid var(--focus)" in CSS


def test_text_colours_on_the_page():
    page = variable("bg")
    for name in ("ink", "muted", "accent", "danger", "ok"):
        assert contrast(variable(name), page) >= 4.5, name
