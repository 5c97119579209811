"""The game and its mathematics: plain Python, numpy and a few compiled
loops. Nothing here imports Flask, so it serves notebooks and the command
line as well as the web app."""

from . import best, optimal  # noqa: F401  (register the optimal presets and best)
from .codes import (
    Code,
    CodeError,
    Feedback,
    FeedbackError,
    GameSize,
    MastermindError,
    SizeError,
    contradiction,
    feedback,
    secret_indices,
)
from .strategies import DEFAULT_STRATEGY, PRESETS, Strategy, StrategyError, Suggestion, best_guess, get_strategy
from .tables import FeedbackTable, candidates, consistent, feedback_table
from .tree import Analysis, analyse

__all__ = [
    "DEFAULT_STRATEGY",
    "Analysis",
    "Code",
    "CodeError",
    "Feedback",
    "FeedbackError",
    "FeedbackTable",
    "GameSize",
    "MastermindError",
    "PRESETS",
    "SizeError",
    "Strategy",
    "StrategyError",
    "Suggestion",
    "analyse",
    "best_guess",
    "candidates",
    "consistent",
    "contradiction",
    "feedback",
    "feedback_table",
    "get_strategy",
    "secret_indices",
]
