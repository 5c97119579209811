"""A strategy's decision tree, opened node by node: the open path (the
replies from the root) is in the URL, and each request works out at most the
node it opens, so Super Mastermind's tree opens as fast as the classic one."""

from __future__ import annotations

from dataclasses import dataclass

from flask import render_template, request
from flask_babel import gettext

from ...engine import DEFAULT_STRATEGY, PRESETS, Code, Feedback, GameSize, MastermindError, get_strategy
from ...engine.lines import offered
from ...engine.position import Branch, Position, branches, describe
from ...engine.strategies import Suggestion
from ...settings import parse_size
from ...words import error_words, not_offered
from .. import links
from ..answers import is_htmx, render
from ..forms import form_defaults
from ..positions import budget
from ..refusals import ViewError, status_of
from ..wording import reply_words
from .blueprints import bp

MAX_DEPTH = 30


@dataclass
class TreeNode:
    """A node on the open path: the history that leads to it, the guess the
    strategy makes there, and the classes of its replies."""

    history: list
    guess: Code
    remaining: int
    is_candidate: bool
    branches: list[Branch]
    open_reply: Feedback | None = None

    @property
    def depth(self) -> int:
        """The guess number of this node's guess."""
        return len(self.history) + 1


def parse_path(text: str, size: GameSize) -> list[Feedback]:
    """The open path: replies separated by spaces, such as ``"1,0 0,2"``."""
    items = str(text).split()
    if len(items) > MAX_DEPTH:
        raise ViewError(gettext("A path has at most %(num)d replies.", num=MAX_DEPTH))
    return [Feedback.parse(item, size) for item in items]


def chosen(position: Position) -> Suggestion:
    """The guess made at a node; a node is never a solved position (a leaf
    cannot be opened)."""
    if position.suggestion is None:
        raise ViewError(gettext("That branch is solved: there is nothing more to open."))
    return position.suggestion


def open_nodes(strategy, size: GameSize, path: list[Feedback], first: int = 0) -> list[TreeNode]:
    """The nodes along ``path`` from depth ``first``: each one's guess and branches."""
    history: list[tuple[Code, Feedback]] = []
    nodes: list[TreeNode] = []
    max_pairs = budget()
    for depth in range(len(path) + 1):
        if depth >= first:
            position = describe(strategy, size, history, max_pairs=max_pairs, top=0)
            s = chosen(position)
            nodes.append(
                TreeNode(
                    list(history),
                    s.guess,
                    position.remaining,
                    s.is_candidate,
                    branches(size, s.guess, position.candidates),
                )
            )
        if depth == len(path):
            break
        reply = path[depth]
        guess = nodes[-1].guess if depth >= first else None
        if guess is None:  # a node above the first shown: only its guess is needed
            guess = chosen(describe(strategy, size, history, max_pairs=max_pairs, top=0)).guess
        if depth >= first:
            known = {b.reply: b for b in nodes[-1].branches}
            if reply not in known:
                raise ViewError(
                    gettext(
                        "No code still possible gives %(reply)s to %(guess)s: that branch does not exist.",
                        reply=reply_words(reply, size.is_bulls_and_cows),
                        guess=str(guess),
                    )
                )
            if reply.black == size.pegs or known[reply].count == 1:
                raise ViewError(
                    gettext(
                        "The branch %(reply)s after %(guess)s is a leaf: there is nothing more to open.",
                        reply=reply_words(reply, size.is_bulls_and_cows),
                        guess=str(guess),
                    )
                )
            nodes[-1].open_reply = reply
        history.append((guess, reply))
    return nodes


@bp.get("/tree")
def tree():
    form = form_defaults(request.args)
    try:
        size = parse_size(request.args)
        strategy = get_strategy(request.args.get("strategy") or DEFAULT_STRATEGY)
        if not offered(strategy, size):
            raise ViewError(not_offered(strategy, size))
        path = parse_path(request.args.get("open", ""), size)
        # htmx asks for the level that holds the branch just opened: the
        # parent's branches (so its siblings close) and the new node.
        first = max(len(path) - 1, 0) if is_htmx() else 0
        nodes = open_nodes(strategy, size, path, first)
    except MastermindError as exc:
        return render_template(
            "solver/tree.html", error=error_words(exc), form=form, size=None, strategies=[], strategy=None
        ), status_of(exc)
    context = {
        "size": size,
        "strategy": strategy,
        "nodes": nodes,
        "path": path,
        "error": None,
        "form": form,
        "pegs": size.pegs,
        "bulls": size.is_bulls_and_cows,
        "url": lambda p: links.tree_url(size, strategy.name, p),
        "classroom": lambda history: links.classroom_url(size, strategy.name, history),
        "code_from_index": lambda index, size: Code.from_index(int(index), size),
        "strategies": [s for s in PRESETS.values() if offered(s, size)],
    }
    return render("solver/tree.html", "solver/_node.html", node_index=0, **context)
