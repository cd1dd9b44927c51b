"""Arenas in the plain mode (docs/plain.md): the arenas the lobby lists, joining and leaving, the
standings and the next game, as lines. Said when they change in a way worth a line (an arena came or
started, you joined, your game was counted, the end), never once a second; ``arena standings`` says
them on demand; ``arena results`` the tournaments you played (your profile's) and the standings of one."""

from __future__ import annotations

from collections.abc import Callable

from ono99_kernel.wire.requests import (
    AskArenaResults,
    AskProfile,
    JoinArena,
    LeaveArena,
    Request,
    Spectate,
)
from ono99_kernel.wire.server import (
    ArenaGame,
    ArenaMessage,
    ArenaResults,
    Arenas,
    Profile,
    ProfileArena,
    ServerMessage,
)

from ..arena_text import (
    arena_line,
    next_game_line,
    place_sentence,
    podium_line,
    results_title,
    standings_lines,
    tournament_line,
)
from ..client.session import own_private_arena
from ..i18n import gettext as _
from .console import plain_text

SHOWN = 10  # the standings' lines said


class ArenaLines:
    """What the plain mode says of arenas, and its command ``arena``."""

    def __init__(self, say: Callable[..., None], send: Callable[[Request], None]) -> None:
        self.say = say
        self.send = send
        self.listed: dict[int, str] = {}  # the arenas last said, by id: their status
        self.arenas: Arenas | None = None
        self.mine: ArenaMessage | None = None
        self.played: list[ProfileArena] | None = None  # my tournaments, once asked (``arena results``)
        self._asked_played = False

    def receive(self, message: ServerMessage) -> None:
        if isinstance(message, Arenas):
            self._arenas(message)
        elif isinstance(message, ArenaMessage):
            self._arena(message)
        elif isinstance(message, ArenaGame):
            self.say(_("Your next game starts in {seconds} s.").format(seconds=f"{message.starts_in:.0f}"))
        elif isinstance(message, Profile) and message.you and self._asked_played:
            self._asked_played = False
            self._played(list(message.arenas))
        elif isinstance(message, ArenaResults):
            self._results(message)

    def _played(self, arenas: list[ProfileArena]) -> None:
        self.played = arenas
        if not arenas:
            self.say(_("You have not played in a tournament yet."))
            return
        self.say(_("Your tournaments, newest first:"))
        for number, arena in enumerate(arenas, start=1):
            self.say(f"{number}. {plain_text(tournament_line(arena))}.")
        self.say(_("Type arena results and a number to hear its standings."))

    def _results(self, message: ArenaResults) -> None:
        self.say(plain_text(results_title(message)) + ".")
        podium = podium_line(message.podium)
        if podium is not None:
            self.say(plain_text(podium) + ".")
        for line in standings_lines(message)[:SHOWN + 2]:
            self.say(plain_text(line) + ".")

    def _arenas(self, message: Arenas) -> None:
        self.arenas = message
        now: dict[int, str] = {a.id: a.status for a in message.arenas}
        for arena in message.arenas:
            if self.listed.get(arena.id) != arena.status:
                self.say(plain_text(arena_line(arena)) + ". " + _("Type arena and Enter to join it."))
        self.listed = now

    def _arena(self, message: ArenaMessage) -> None:
        before, self.mine = self.mine, message
        same = before is not None and before.arena.id == message.arena.id
        if message.joined and not (same and before is not None and before.joined):
            self.say(_("You joined {arena}.").format(arena=plain_text(arena_line(message.arena))))
            if message.code:
                self.say(_("Its invite code is {code}: your friends type arena {code}.").format(code=message.code))
            waiting = next_game_line(message)
            if waiting is not None and message.arena.status == "running":
                self.say(waiting + ".")
        elif not message.joined and same and before is not None and before.joined and message.podium == ():
            self.say(_("You left the arena; your points stay yours."))
        counted = message.you is not None and (not same or before is None or before.you is None
                                                or before.you.games != message.you.games)
        if counted and message.you is not None and message.you.games:
            self.say(place_sentence(message) or "")
        podium = podium_line(message.podium)
        if podium is not None and not (same and before is not None and before.podium):
            self.say(_("The arena is over.") + " " + plain_text(podium) + ".")

    def command(self, rest: str) -> None:
        """``arena``: join the first arena listed; ``arena CODE``: a private one; ``arena new``: open a
        private one (an hour of four-seat 2022 games, you in it); ``arena leave``;
        ``arena standings``; ``arena watch`` (the top game); ``arena results [N]``: my tournaments, or
        the standings of the Nth of them."""
        word = rest.strip()
        if word.lower() == "leave":
            self.send(LeaveArena())
        elif word.lower() == "new":
            self.send(own_private_arena())
        elif word.lower() == "standings":
            self.standings()
        elif word.lower() == "watch":
            self.watch_top()
        elif word.lower().partition(" ")[0] == "results":
            self.results(word.partition(" ")[2].strip())
        elif word:
            self.send(JoinArena(code=word))
        elif self.arenas is not None and self.arenas.arenas:
            self.send(JoinArena(arena=self.arenas.arenas[0].id))
        else:
            self.say(_("No arena is running or coming on this server."))

    def results(self, number: str) -> None:
        """The tournaments of my profile (asked anew each time: a game may have counted since), or
        the kept standings of the one numbered ``number`` in the list last said."""
        if not number:
            self._asked_played = True
            self.send(AskProfile())
            return
        if self.played is None:
            self.say(_("Type arena results first to hear your tournaments."))
        elif not number.isdigit() or not 1 <= int(number) <= len(self.played):
            self.say(_("There is no tournament {n}; arena results lists yours.").format(n=plain_text(number[:8])))
        else:
            self.send(AskArenaResults(arena=self.played[int(number) - 1].arena))

    def watch_top(self) -> None:
        """Watch the game of the best-placed player playing now (you stay in the arena)."""
        arena = self.mine.arena if self.mine is not None else (
            self.arenas.arenas[0] if self.arenas is not None and self.arenas.arenas else None)
        if arena is None or arena.top_table is None:
            self.say(_("Nobody in this arena is playing just now."))
            return
        self.send(Spectate(table=arena.top_table))

    def standings(self) -> None:
        message = self.mine
        if message is None:
            self.say(_("You are in no arena: type arena and Enter to join one."))
            return
        self.say(plain_text(arena_line(message.arena)) + ".")
        for line in standings_lines(message)[:SHOWN + 2]:
            self.say(plain_text(line) + ".")
        waiting = next_game_line(message)
        if waiting is not None:
            self.say(waiting + ".")
