"""A player's statistics: games played and won, the daily streaks, the
guesses needed, against Knuth's algorithm and optimal play on the same
secrets, and the average skill of the reviewed games."""

from __future__ import annotations

from collections import Counter

from .. import store
from ..computations import secret_lengths
from ..engine import rules
from . import review as reviews
from .days import day_of, today
from .positions import budget

# The average skill is over this many of the newest games.
REVIEWED_GAMES = 50


def streaks(days_won: set[int], current_day: int) -> tuple[int, int]:
    """(current, longest) run of consecutive days with a daily puzzle won;
    the current run may end yesterday (today's puzzle is still to play).

    >>> streaks({3, 4, 5, 8, 9}, 10)
    (2, 3)
    >>> streaks({3, 4, 5, 8, 9}, 11)
    (0, 3)
    """
    longest = run = 0
    previous = None
    for day in sorted(days_won):
        run = run + 1 if previous == day - 1 else 1
        longest = max(longest, run)
        previous = day
    current = 0
    day = current_day if current_day in days_won else current_day - 1
    while day in days_won:
        current += 1
        day -= 1
    return current, longest


def mean(values: list) -> float | None:
    return round(sum(values) / len(values), 2) if values else None


def player_stats(player: str) -> dict:
    """The statistics of the anonymous ``player`` token."""
    games = store.players.finished_games(player)
    won = [g for g in games if g.status == rules.WON]
    histogram = Counter(len(g.guesses) for g in won)
    top = max([len(g.guesses) for g in won] + [6])
    # A puzzle counts for the streak when it was played on its own day.
    on_the_day = {g.daily for g in won if g.daily is not None and g.daily == day_of(g.created_at)}
    current, longest = streaks(on_the_day, today())
    work = budget()
    compared = []
    for game in won:
        lengths = secret_lengths(game.size, game.secret, work)
        if lengths is not None:
            compared.append((len(game.guesses), lengths["knuth"], lengths["optimal"]))
    optimal_known = [c for c in compared if c[2] is not None]
    skills = [s for s in (reviews.skill(g.size, g.secret, g.guesses) for g in games[-REVIEWED_GAMES:]) if s is not None]
    return {
        "played": len(games),
        "won": len(won),
        "win_rate": round(100 * len(won) / len(games)) if games else None,
        "current_streak": current,
        "longest_streak": longest,
        "daily_played": sum(1 for g in games if g.daily is not None),
        "guesses": {str(k): histogram.get(k, 0) for k in range(1, top + 1)},
        "lost": len(games) - len(won),
        "average_guesses": mean([len(g.guesses) for g in won]),
        "versus_knuth": {
            "games": len(compared),
            "you": mean([c[0] for c in compared]),
            "knuth": mean([c[1] for c in compared]),
        },
        "versus_optimal": {
            "games": len(optimal_known),
            "you": mean([c[0] for c in optimal_known]),
            "optimal": mean([c[2] for c in optimal_known]),
        },
        "average_skill": mean(skills),
        "reviewed": len(skills),
    }
