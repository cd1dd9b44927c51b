"""An arena (docs/rules.md, "Arenas") as the app and the plain mode say it: its line in the lobby, the
standings, when the next game starts and the podium. Players' names are kept as they came: the faces
show them as plain text. Times are the seconds the server gave, less the seconds since it gave them."""

from __future__ import annotations

import time
from collections.abc import Sequence

from ono99_kernel.wire.server import ArenaInfo, ArenaMessage, ArenaResults, ArenaStanding, ProfileArena

from . import text as words
from .i18n import gettext as _


def duration(seconds: float) -> str:
    """"45 s", "4 min", "2 h 5 min": how long, roughly."""
    whole = max(0, int(seconds + 0.5))
    if whole < 60:
        return _("{n} s").format(n=whole)
    minutes = (whole + 30) // 60
    if minutes < 60:
        return _("{n} min").format(n=minutes)
    return _("{h} h {m} min").format(h=minutes // 60, m=minutes % 60)


def arena_line(arena: ArenaInfo, elapsed: float = 0.0) -> str:
    """"Arena 2022 · starts in 4 min · 23 players", "… · 37 min left · …", "… · over"."""
    if arena.status == "upcoming" and arena.starts_in - elapsed > 0:
        when = _("starts in {time}").format(time=duration(arena.starts_in - elapsed))
    elif arena.ends_in - elapsed > 0:
        when = _("{time} left").format(time=duration(arena.ends_in - elapsed))
    else:
        when = _("over")
    return f"{arena.name} · {when} · {words.players(arena.players)}"


def next_game_line(message: ArenaMessage, elapsed: float = 0.0) -> str | None:
    """"Your next game starts in 3 s" (at the latest), or None when no next game is coming."""
    if not message.joined or message.next_in is None:
        return None
    left = message.next_in - elapsed
    if left <= 0:
        return _("Your next game starts as soon as enough players are free")
    return _("Your next game starts in {time}").format(time=duration(left))


def standing_line(line: ArenaStanding) -> str:
    """"3. alice · 12 points · 4 games · on fire": one line of the standings."""
    parts = [f"{line.place}. {line.name}", words.points(line.points),
             words.count(line.games, "{n} game", "{n} games")]
    if line.fire:
        parts.append(_("on fire: points doubled"))
    if line.playing:
        parts.append(_("playing"))
    elif not line.present:
        parts.append(_("left"))
    return " · ".join(parts)


def standings_lines(message: ArenaMessage | ArenaResults) -> list[str]:
    """The standings' first lines, and the reader's own below them when they are further down."""
    lines = [standing_line(line) for line in message.standings]
    you = message.you
    if you is not None and all(line.name != you.name for line in message.standings):
        lines += ["…", standing_line(you)]
    return lines


def podium_line(podium: Sequence[str]) -> str | None:
    """"Podium: 1. alice, 2. bob, 3. cy", once the arena is over."""
    if not podium:
        return None
    return _("Podium: {places}").format(places=", ".join(f"{n}. {name}" for n, name in enumerate(podium, 1)))


def place_sentence(message: ArenaMessage) -> str | None:
    """"You are in place 3 with 12 points.", for the plain mode."""
    you = message.you
    if you is None:
        return None
    return _("You are in place {place} with {points}.").format(place=you.place, points=words.points(you.points))


def when(at: float) -> str:
    """An arena's start as a profile says it: "2026-12-06 18:00" (local time)."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at))


def place_of(place: int, players: int) -> str:
    """"2 of 7": a place in standings of that many players."""
    return _("{place} of {players}").format(place=place, players=players)


def tournament_line(arena: ProfileArena) -> str:
    """"Tea time · 2022 · 2026-12-06 18:00 · place 2 of 7 · 12 points · 4 games": a profile's arena."""
    return " · ".join((arena.name, arena.edition, when(arena.at),
                       _("place {place}").format(place=place_of(arena.place, arena.players)),
                       words.points(arena.points), words.count(arena.games, "{n} game", "{n} games")))


def results_title(results: ArenaResults) -> str:
    """"Tea time · 2022 · 2026-12-06 18:00 · over": a kept arena's standings' heading."""
    state = {"finished": _("over"), "running": _("still running"), "upcoming": _("not started yet")}[results.status]
    return " · ".join((results.name, results.edition, when(results.at), state))
