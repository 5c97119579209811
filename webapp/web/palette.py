"""The colour palette of pegs: each colour a fill, a symbol and a name, so that
colour is never the only signal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask_babel import lazy_gettext

from ..engine.codes import peg_digit


@dataclass(frozen=True)
class Color:
    """How colour ``number`` is named and marked, so that no peg relies on
    colour alone. Its fill and ink are the stylesheet's ``.c1`` … ``.c10``;
    the tenth is written 0 (``digit``)."""

    number: int
    name: Any  # a lazy string, in the page's language when shown
    symbol: str

    @property
    def digit(self) -> str:
        return peg_digit(self.number)


PALETTE = (
    Color(1, lazy_gettext("red"), "●"),
    Color(2, lazy_gettext("blue"), "■"),
    Color(3, lazy_gettext("green"), "▲"),
    Color(4, lazy_gettext("yellow"), "◆"),
    Color(5, lazy_gettext("purple"), "★"),
    Color(6, lazy_gettext("orange"), "✚"),
    Color(7, lazy_gettext("cyan"), "⬟"),
    Color(8, lazy_gettext("pink"), "♥"),
    Color(9, lazy_gettext("brown"), "✖"),
    Color(10, lazy_gettext("white"), "✿"),
)


def color(number: int) -> Color:
    """The look of colour ``number`` (1-based)."""
    return PALETTE[number - 1]
