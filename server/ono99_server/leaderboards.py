"""The leaderboard on request, and again after each counted game to the players who follow one."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ono99_kernel.wire import server as wire
from ono99_kernel.wire.requests import AskLeaderboard

from .members import Member

if TYPE_CHECKING:
    from .routes import Router

BoardReader = Callable[[wire.Edition | None], Awaitable[wire.Leaderboard]]


class Leaderboards:
    def __init__(self, read: BoardReader | None) -> None:
        self.read = read  # the leaderboard of an edition from the database (ratings.leaderboard_of); None: no database
        self.followers: set[Member] = set()  # sent the leaderboard after each counted game

    def routes(self, route: Router) -> None:
        route(AskLeaderboard, self.on_leaderboard)

    def on_leaderboard(self, member: Member, request: AskLeaderboard) -> None:
        edition = request.edition
        if request.follow is not None:
            member.follows_leaderboard = request.follow
            member.leaderboard_edition = edition
            if member.follows_leaderboard:
                self.followers.add(member)
            else:
                self.followers.discard(member)
        self.send([member], edition)

    def send(self, members: list[Member], edition: wire.Edition | None) -> None:
        read = self.read
        if read is None:
            for member in members:
                member.send(wire.Leaderboard(edition=edition, rows=(), bots=()))
            return

        async def answer() -> None:
            board = await read(edition)
            for member in members:
                member.send(board)

        asyncio.get_running_loop().create_task(answer())

    def push(self) -> None:
        """A game changed the stats: a new leaderboard to every player who follows one."""
        followers: dict[wire.Edition | None, list[Member]] = {}
        for member in self.followers:
            if member.connection is not None:
                followers.setdefault(member.leaderboard_edition, []).append(member)
        for edition, members in followers.items():
            self.send(members, edition)

    def forget(self, member: Member) -> None:
        self.followers.discard(member)
