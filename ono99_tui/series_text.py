"""A table's series (docs/rules.md, "Series") as the app and the plain mode offer it to a host and say
it. Players' names are kept as they came: the faces show them as plain text."""

from __future__ import annotations

import re

from ono99_kernel.wire.server import SeriesInfo

from . import text as words
from .i18n import gettext as _

SeriesChoice = tuple[str, int] | None  # (kind, target), or no series
# The series a host is offered, in that order.
SERIES_CHOICES: tuple[tuple[str, int], ...] = (("games", 3), ("games", 5), ("games", 7), ("points", 10),
                                               ("points", 20))


def series_fields(choice: SeriesChoice) -> tuple[int | None, int | None]:
    """The (games, points) a request says ``choice`` with (``create_table``'s series_games and
    series_points, ``series``' games and points)."""
    if choice is None:
        return None, None
    kind, target = choice
    return (target, None) if kind == "games" else (None, target)


def choice_key(choice: SeriesChoice) -> str:
    """A choice as a widget's value or id: "games:5", "points:10", "none"."""
    return "none" if choice is None else f"{choice[0]}:{choice[1]}"


def choice_of_key(key: str) -> SeriesChoice:
    kind, _colon, target = key.partition(":")
    return (kind, int(target)) if kind in ("games", "points") else None


def choice_of_word(word: str) -> tuple[str, int] | None:
    """The plain mode's words for a series: best5 (best of 5 games), first10 (first to 10 points)."""
    asked = re.fullmatch(r"(best|first)(\d{1,3})", word.lower())
    return None if asked is None else ("games" if asked[1] == "best" else "points", int(asked[2]))


def series_kind(kind: str, target: int) -> str:
    """"best of 5 games", "first to 10 points"."""
    if kind == "games":
        return words.count(target, "best of {n} game", "best of {n} games")
    return words.count(target, "first to {n} point", "first to {n} points")


def series_progress(series: SeriesInfo) -> str:
    """Where the series is: "Series: game 3 of 5", "Series: first to 10 points, after game 2"."""
    if series.played == 0:
        return _("Series: {kind}").format(kind=series_kind(series.kind, series.target))
    if series.kind == "games":
        return _("Series: game {n} of {total}").format(n=series.played, total=series.target)
    return _("Series: {kind}, after game {n}").format(kind=series_kind(series.kind, series.target), n=series.played)


def series_standings(series: SeriesInfo) -> str:
    """"alice 7, bob 5, cy 1": best first."""
    return ", ".join(f"{s.name} {s.points}" for s in series.standings)


def series_line(series: SeriesInfo) -> str:
    """"Series: game 3 of 5 · alice 7, bob 5": the progress and the standings on one line."""
    standings = series_standings(series)
    return f"{series_progress(series)} · {standings}" if standings else series_progress(series)


def series_winner(series: SeriesInfo) -> str | None:
    """Who won the series, once it is over."""
    if series.winner is None:
        return None
    points = next((s.points for s in series.standings if s.name == series.winner), 0)
    return _("{name} wins the series with {points}!").format(name=series.winner, points=words.points(points))


def standings_sentence(series: SeriesInfo) -> str:
    """The standings as a sentence to be read out: "Standings: 1, alice, 7 points; 2, bob, 5 points."."""
    places = [f"{place}, {s.name}, {words.points(s.points)}" for place, s in enumerate(series.standings, start=1)]
    return _("Standings: {places}.").format(places="; ".join(places))
