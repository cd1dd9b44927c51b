"""Arenas in the plain mode (docs/plain.md): the arenas the lobby lists, joining and leaving, the
standings and the next game, as lines. Said when they change in a way worth a line (an arena came or
started, you joined, your game was counted, the end), never once a second; ``arena standings`` says
them on demand."""

from __future__ import annotations

from collections.abc import Callable

from ono99_kernel.wire.requests import JoinArena, LeaveArena, Request, Spectate
from ono99_kernel.wire.server import ArenaGame, ArenaMessage, Arenas, ServerMessage

from ..arena_text import arena_line, next_game_line, place_sentence, podium_line, standings_lines
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

    def receive(self, message: ServerMessage) -> None:
        if isinstance(message, Arenas):
            self._arenas(message)
        elif isinstance(message, ArenaMessage):
            self._arena(message)
        elif isinstance(message, ArenaGame):
            self.say(_("Your next game starts in {seconds} s.").format(seconds=f"{message.starts_in:.0f}"))

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
        """``arena``: join the first arena listed; ``arena CODE``: a private one; ``arena leave``;
        ``arena standings``; ``arena watch`` (the top game)."""
        word = rest.strip()
        if word.lower() == "leave":
            self.send(LeaveArena())
        elif word.lower() == "standings":
            self.standings()
        elif word.lower() == "watch":
            self.watch_top()
        elif word:
            self.send(JoinArena(code=word))
        elif self.arenas is not None and self.arenas.arenas:
            self.send(JoinArena(arena=self.arenas.arenas[0].id))
        else:
            self.say(_("No arena is running or coming on this server."))

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
