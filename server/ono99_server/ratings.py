"""Ratings: a multiplayer rating per identity and edition, from each finished game's final ranking.

The model is openskill's Plackett–Luce (``openskill.models.PlackettLuce`` with its defaults: a new
player has mu 25 and sigma 25/3). Every seat of a game is one team of one player, ranked by the
game's final ranking (``Outcome.ranking``: the winner first). Who is rated:

- a human with an identity (a key fingerprint): their own rating, stored;
- the bots of a level: one identity per level, ``bot:LEVEL``, stored, so beating strong bots counts
  for more than beating random ones. When bots of one level fill several seats of a game, each seat
  is rated from the level's rating before the game, and the level's new rating is the mean of its
  seats' new mu and sigma;
- a guest (no key): takes part with a new player's rating, which is not stored.

A game is rated only when at least one human with an identity played in it.

Stand-ins (server/ono99_server/standin.py): a game counts as played for every human seat's player, and the
player is credited with their place only if they were at the table when it ended and made at least
half of their seat's plays themselves (the rule that credits a win). A player who is not credited
shares the last place with any other such player; everyone else keeps their order, above them.

The conservative estimate shown and ordered by is ``mu - 3 * sigma`` (openskill's ``ordinal()``);
a rating is provisional until its owner has played ``PROVISIONAL_GAMES`` rated games of the edition.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import zlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from openskill.models import PlackettLuce

from ono99_kernel.protocol import BOT_LEVEL_NAMES, ProtocolError, clean_text
from ono99_kernel.wire import server as wire
from ono99_kernel.wire.requests import AskArenaResults, AskGameRecord, AskProfile

from .rates import BucketsByKey
from .storage import Database, viewer_keys
from .tournaments import arena_results, played_arenas

if TYPE_CHECKING:
    from .members import Member
    from .name_claims import NameRegistry
    from .routes import Router
    from .storage import Storage
    from .table_room import Table

MODEL = PlackettLuce()
PROVISIONAL_GAMES = 10
BOT_PREFIX = "bot:"
HISTORY_ROWS = 50  # rating history entries a profile shows, the newest
RECENT_GAMES = 15  # recent games a profile lists
LEADERBOARD_ROWS = 20  # players a leaderboard lists, the best
# Records a player may fetch (each is read from the database and may be a large message): a burst, then
# one every so many seconds; a replay or an analysis needs one, a scan of every game id is slowed down.
RECORD_BURST = 10
RECORD_EVERY = 6.0


def bot_identity(level: str) -> str:
    return f"{BOT_PREFIX}{level}"


def conservative(mu: float, sigma: float) -> float:
    """The rating shown: the skill the player is very likely (three sigmas) to have at least."""
    return float(MODEL.rating(mu=mu, sigma=sigma).ordinal())


def is_provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


@dataclass(frozen=True, slots=True)
class Entry:
    """One seat of a finished game, as rated."""

    seat: int
    identity: str | None  # whose rating: a fingerprint, bot:LEVEL, or None for a guest (not stored)
    place: int  # 1 is the best; equal places are ties
    won: bool  # the win is credited (the stats' rule)
    credited: bool  # the place is the player's own (see the module's text)


def entries(players: Sequence[dict[str, Any]], ranking: Sequence[int], winner: int) -> list[Entry]:
    """The rated seats of a game: ``players`` as the table notes them (``name``, ``kind`` "human"
    or "bot:LEVEL", ``identity``, and ``credited`` once ``standin.settle`` ran), ``ranking`` the
    seats best first."""
    credited = [not (p.get("kind") == "human" and p.get("credited") is False) for p in players]
    order = [seat for seat in ranking if credited[seat]]
    last = len(order) + 1
    place = {seat: i + 1 for i, seat in enumerate(order)}
    out = []
    for seat, player in enumerate(players):
        kind = str(player.get("kind", "human"))
        identity = bot_identity(kind[len("bot:"):]) if kind.startswith("bot:") else player.get("identity")
        out.append(Entry(seat, identity, place.get(seat, last), seat == winner and credited[seat], credited[seat]))
    return out


def is_rated(game: Sequence[Entry]) -> bool:
    return any(e.identity is not None and not e.identity.startswith(BOT_PREFIX) for e in game)


def rate(before: Sequence[tuple[float, float]], places: Sequence[int]) -> list[tuple[float, float]]:
    """openskill's Plackett–Luce update: each seat a team of one, ``places`` as its ranks."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    after = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [(team[0].mu, team[0].sigma) for team in after]


@dataclass(frozen=True, slots=True)
class Change:
    identity: str
    edition: str
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float
    games: int  # rated games of the edition, this one included
    place: int


async def record_game(db: Database, game_id: int, edition: str, at: float, game: Sequence[Entry]) -> list[Change]:
    """Rate a stored game (on the database thread, inside the transaction that saved it): read the
    ratings before it, compute, write the new ratings and one history row per rated identity."""
    if not is_rated(game):
        return []
    current: dict[str, tuple[float, float, int]] = {}
    for entry in game:
        if entry.identity is not None and entry.identity not in current:
            row = await db.row("SELECT mu, sigma, games FROM ratings WHERE identity = ? AND edition = ?",
                               (entry.identity, edition))
            current[entry.identity] = (float(row[0]), float(row[1]), int(row[2])) if row else \
                (MODEL.mu, MODEL.sigma, 0)
    before = [current[e.identity][:2] if e.identity is not None else (MODEL.mu, MODEL.sigma) for e in game]
    after = rate(before, [e.place for e in game])
    seats: dict[str, list[int]] = {}
    for i, entry in enumerate(game):
        if entry.identity is not None:
            seats.setdefault(entry.identity, []).append(i)
    changes = []
    for identity, indexes in seats.items():
        mu = sum(after[i][0] for i in indexes) / len(indexes)
        sigma = sum(after[i][1] for i in indexes) / len(indexes)
        best = min((game[i] for i in indexes), key=lambda e: e.place)
        mu0, sigma0, games = current[identity]
        won = any(game[i].won for i in indexes)
        await db.run("INSERT INTO ratings(identity, edition, mu, sigma, games, wins) VALUES (?, ?, ?, ?, 1, ?) "
                     "ON CONFLICT(identity, edition) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
                     "games = ratings.games + 1, wins = ratings.wins + excluded.wins",
                     (identity, edition, mu, sigma, int(won)))
        await db.run("INSERT INTO rating_history(identity, edition, game_id, place, won, credited, mu_before, "
                     "sigma_before, mu, sigma, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                     "ON CONFLICT(identity, game_id) DO UPDATE SET edition = excluded.edition, "
                     "place = excluded.place, won = excluded.won, credited = excluded.credited, "
                     "mu_before = excluded.mu_before, sigma_before = excluded.sigma_before, mu = excluded.mu, "
                     "sigma = excluded.sigma, at = excluded.at",
                     (identity, edition, game_id, best.place, int(won), int(best.credited), mu0, sigma0, mu, sigma, at))
        changes.append(Change(identity, edition, mu0, sigma0, mu, sigma, games + 1, best.place))
    return changes


def _rating_fields(mu: float, sigma: float, rated: int) -> dict[str, Any]:
    return {"rating": round(conservative(mu, sigma), 2), "mu": round(mu, 3), "sigma": round(sigma, 3),
            "rated": rated, "provisional": is_provisional(rated)}


async def leaderboard(db: Database, edition: wire.Edition | None, limit: int) -> wire.Leaderboard:
    """Players by conservative rating, best first (at most ``limit``), and the bot levels' ratings.
    Without an edition, a player's games and wins are summed over both editions and their rating
    is the best of their editions' ratings."""
    rows = await db.rows(
        "SELECT s.identity, COALESCE(n.name, s.identity), s.edition, s.games, s.wins, r.mu, r.sigma, "
        "COALESCE(r.games, 0) FROM player_stats s LEFT JOIN names n ON n.identity = s.identity "
        "LEFT JOIN ratings r ON r.identity = s.identity AND r.edition = s.edition "
        + ("" if edition is None else "WHERE s.edition = ?"), () if edition is None else (edition,))
    players: dict[str, dict[str, Any]] = {}
    for identity, name, _edition, games, wins, mu, sigma, rated in rows:
        fields = _rating_fields(MODEL.mu if mu is None else mu, MODEL.sigma if sigma is None else sigma, rated)
        row = players.get(identity)
        if row is None:
            players[identity] = {"name": name, "games": int(games), "wins": int(wins), **fields}
            continue
        row["games"] += int(games)
        row["wins"] += int(wins)
        if fields["rating"] > row["rating"]:
            row.update(fields)
    ranked = sorted(players.values(), key=lambda r: (-r["rating"], -r["games"], r["name"]))[:limit]
    bots: dict[str, dict[str, Any]] = {}
    for identity, mu, sigma, games, wins in await db.rows(
            "SELECT identity, mu, sigma, games, wins FROM ratings WHERE identity LIKE 'bot:%'"
            + ("" if edition is None else " AND edition = ?"), () if edition is None else (edition,)):
        level = identity[len(BOT_PREFIX):]
        fields = {"level": level, "games": int(games), "wins": int(wins), **_rating_fields(mu, sigma, games)}
        if level not in bots or fields["rating"] > bots[level]["rating"]:
            bots[level] = fields
    return wire.Leaderboard(edition=edition, rows=tuple(_rating_row(row, "name") for row in ranked),
                            bots=tuple(_rating_row(row, "level")
                                       for row in sorted(bots.values(), key=lambda r: -r["rating"])))


def leaderboard_of(storage: Storage) -> Callable[[wire.Edition | None], Awaitable[wire.Leaderboard]]:
    """What reads the leaderboard of an edition from ``storage`` (on its thread): what Leaderboards shows."""
    return lambda edition: storage.call(lambda db: leaderboard(db, edition, LEADERBOARD_ROWS))


def _rating_row(row: dict[str, Any], key: str) -> wire.RatingRow:
    return wire.RatingRow(name=row[key], games=row["games"], wins=row["wins"], rating=row["rating"], mu=row["mu"],
                          sigma=row["sigma"], rated=row["rated"], provisional=row["provisional"])


async def known_ratings(db: Database, identities: Sequence[str]) -> dict[tuple[str, str], tuple[float, float]]:
    """(mu, sigma) by (identity, edition) for the given identities (the bot levels, at start-up)."""
    out = {}
    for identity in identities:
        for edition, mu, sigma in await db.rows("SELECT edition, mu, sigma FROM ratings WHERE identity = ?",
                                                (identity,)):
            out[(identity, str(edition))] = (float(mu), float(sigma))
    return out


def visible(viewer: Sequence[str]) -> tuple[str, list[str]]:
    """The condition (and its parameters) on a game ``g`` that the asker may see: a public table's,
    or a private one's they played at or hosted (``viewer``: their ``viewer_keys``)."""
    if not viewer:
        return "g.private = 0", []
    marks = ", ".join("?" * len(viewer))
    return (f"(g.private = 0 OR EXISTS (SELECT 1 FROM game_viewers v WHERE v.game_id = g.id "
            f"AND v.viewer IN ({marks})))", list(viewer))


async def profile(db: Database, identity: str, name: str, you: bool, viewer: Sequence[str] = (),
                  now: float | None = None) -> wire.Profile:
    """A player's ratings, win rates per edition, rating history, recent games and arenas; the games of
    private tables only for a ``viewer`` (``storage.viewer_keys`` of the asker) who played them or
    hosted their table. The totals per edition count every game. ``name``: the player's name as it is
    now; ``you``: the asker is that player."""
    seen, seen_by = visible(viewer)
    editions = []
    stats = {str(e): (int(g), int(w)) for e, g, w in await db.rows(
        "SELECT edition, games, wins FROM player_stats WHERE identity = ?", (identity,))}
    ratings = {str(e): (float(mu), float(s), int(g)) for e, mu, s, g in await db.rows(
        "SELECT edition, mu, sigma, games FROM ratings WHERE identity = ?", (identity,))}
    for edition in sorted(set(stats) | set(ratings)):
        games, wins = stats.get(edition, (0, 0))
        mu, sigma, rated = ratings.get(edition, (MODEL.mu, MODEL.sigma, 0))
        editions.append(wire.ProfileEdition(edition=cast(wire.Edition, edition), games=games, wins=wins,
                                            win_rate=round(wins / games, 4) if games else None,
                                            **_rating_fields(mu, sigma, rated)))
    history = [wire.RatingPoint(game=int(g), edition=cast(wire.Edition, str(e)), at=float(at),
                                rating=round(conservative(mu, s), 2),
                                change=round(conservative(mu, s) - conservative(mu0, s0), 2))
               for g, e, at, mu, s, mu0, s0 in reversed(await db.rows(
                   "SELECT h.game_id, h.edition, h.at, h.mu, h.sigma, h.mu_before, h.sigma_before "
                   f"FROM rating_history h JOIN games g ON g.id = h.game_id WHERE h.identity = ? AND {seen} "
                   "ORDER BY h.game_id DESC LIMIT ?", (identity, *seen_by, HISTORY_ROWS)))]
    recent = []
    for game_id, edition, at, place, won, credited, text in await db.rows(
            "SELECT h.game_id, h.edition, h.at, h.place, h.won, h.credited, g.record FROM rating_history h "
            f"JOIN games g ON g.id = h.game_id WHERE h.identity = ? AND {seen} ORDER BY h.game_id DESC LIMIT ?",
            (identity, *seen_by, RECENT_GAMES)):
        record = json.loads(text)
        recent.append(wire.RecentGame(game=int(game_id), edition=cast(wire.Edition, str(edition)), at=float(at),
                                      place=int(place), won=bool(won), credited=bool(credited),
                                      players=tuple(str(p.get("name", "")) for p in record.get("players", []))))
    arenas = await played_arenas(db, identity, name, you, time.time() if now is None else now)
    return wire.Profile(name=name, you=you, editions=tuple(editions), history=tuple(history), recent=tuple(recent),
                        arenas=tuple(arenas))


async def game_record(db: Database, game_id: int, viewer: Sequence[str] = ()) -> str | None:
    """The stored record of a finished game, as its JSON text; None when there is none, or when it
    was played at a private table and ``viewer`` neither played it nor hosted the table."""
    seen, seen_by = visible(viewer)
    row = await db.row(f"SELECT g.record FROM games g WHERE g.id = ? AND {seen}", (game_id, *seen_by))
    return None if row is None else str(row[0])


class RatingsHost(Protocol):
    """What the rating book asks of the lobby: its store, who is online by identity, whose names are whose."""

    @property
    def storage(self) -> Storage | None: ...

    @property
    def by_identity(self) -> dict[str, Member]: ...

    @property
    def names(self) -> NameRegistry: ...


class RatingBook:
    """The lobby's side of the ratings: rates each finished game on the database thread, right
    after it is saved; keeps the ratings the matchmaker asks for (bot levels, waiting players);
    answers ``profile`` and ``game_record``."""

    def __init__(self, lobby: RatingsHost) -> None:
        self.lobby = lobby
        self.storage = lobby.storage
        self.known: dict[tuple[str, str], tuple[float, float]] = {}
        self._reading: dict[str, asyncio.Task[None]] = {}  # identities whose ratings are being read
        self._record_allowance = BucketsByKey(RECORD_EVERY, RECORD_BURST)  # by player (key, or a guest's token)
        if self.storage is not None:
            self.known = self.storage.run_now(
                lambda db: known_ratings(db, [bot_identity(b) for b in BOT_LEVEL_NAMES]))

    def mu(self, identity: str | None, edition: str) -> float:
        if identity is None:
            return MODEL.mu
        return self.known.get((identity, edition), (MODEL.mu, MODEL.sigma))[0]

    def learn(self, identity: str, edition: str) -> None:
        """Read a player's ratings into ``known`` (for the matchmaker), in the background."""
        if self.storage is None or (identity, edition) in self.known or identity in self._reading:
            return

        async def read() -> None:
            assert self.storage is not None
            try:
                found = await self.storage.call(lambda db: known_ratings(db, [identity]))
                self.known.update(found)
            finally:
                self._reading.pop(identity, None)

        self._reading[identity] = asyncio.get_running_loop().create_task(read())

    async def ready(self, identities: Sequence[str | None]) -> None:
        """Wait for the ratings of ``identities`` still being read."""
        tasks = [self._reading[i] for i in identities if i is not None and i in self._reading]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    # --- a finished game ----------------------------------------------------------------------------
    def rater(self, table: Table, record: dict[str, Any], at: float) -> Callable[[Database, int], Awaitable[None]]:
        """What ``Storage.save_game`` runs after saving the table's finished game: rate it, then
        tell its players (on this event loop)."""
        game = table.game
        assert game is not None and game.outcome is not None
        # a game played with hints is stored, never rated
        rated = [] if table.hints else entries(table.players, game.outcome.ranking, game.outcome.winner)
        edition = str(record["edition"])
        loop = asyncio.get_running_loop()

        async def then(db: Database, game_id: int) -> None:
            changes = await record_game(db, game_id, edition, at, rated)
            if changes:
                loop.call_soon_threadsafe(self._changed, changes)

        return then

    def _changed(self, changes: list[Change]) -> None:
        for change in changes:
            self.known[(change.identity, change.edition)] = (change.mu, change.sigma)
            member = self.lobby.by_identity.get(change.identity)
            if member is not None:
                member.send(wire.Notice(table=member.table.id if member.table is not None else None,
                                        text=describe_change(change), code="rating", params=change_params(change)))

    # --- requests -------------------------------------------------------------------------------------
    def routes(self, route: Router) -> None:
        """The rating requests, which the book takes."""
        route(AskProfile, self.on_profile)
        route(AskGameRecord, self.on_game_record)
        route(AskArenaResults, self.on_arena_results)

    def _player(self, member: Member, name: str | None) -> tuple[str, str]:
        """(identity, name now) of the player called ``name`` (None: the asker, who needs a key)."""
        if name is not None:
            owner = self.lobby.names.owner(name)
            if owner is None:
                raise ProtocolError("no_player", f"no player with a key is called {clean_text(name)[:32]!r}",
                                    params={"name": clean_text(name)[:32]})
            return owner[1], owner[0]
        if member.identity is None:
            raise ProtocolError("no_identity", "a guest has no profile: connect with a key to be rated")
        return member.identity, member.name

    def on_profile(self, member: Member, request: AskProfile) -> None:
        found, name = self._player(member, request.name)
        viewer = viewer_keys(member.identity, member.token_hash)

        async def read(db: Database) -> wire.ServerMessage:
            return await profile(db, found, name, found == member.identity, viewer)

        self._answer(member, read, "profile")

    def on_arena_results(self, member: Member, request: AskArenaResults) -> None:
        whose = self._player(member, request.name) if request.name is not None or member.identity else None
        arena_id, asker = request.arena, member.identity

        async def read(db: Database) -> wire.ServerMessage:
            return await arena_results(db, arena_id, whose, asker, time.time())

        self._answer(member, read, "arena_results")

    def on_game_record(self, member: Member, request: AskGameRecord) -> None:
        self._take_record(member.identity or member.token_hash or member.name)
        game_id = request.game
        viewer = viewer_keys(member.identity, member.token_hash)

        async def read(db: Database) -> wire.ServerMessage:
            text = await game_record(db, game_id, viewer)
            if text is None:  # a private game is answered as no game at all: its id tells nothing
                return wire.ErrorMessage(code="no_record", reason=f"there is no finished game {game_id}",
                                         ref="game_record", params={"game": game_id})
            return wire.GameRecord(game=game_id, record=zlib.compress(text.encode(), 9))

        self._answer(member, read, "game_record")

    def _take_record(self, player: str) -> None:
        """One record fetched by ``player``: ``RECORD_BURST`` at once, then one per ``RECORD_EVERY`` seconds."""
        left = self._record_allowance.take(player)
        if left is not None:
            wait = max(1, math.ceil(left))
            raise ProtocolError("rate_limited", f"you fetched too many game records; you can fetch another in {wait} s",
                                params={"why": "records", "seconds": wait})

    def _answer(self, member: Member, read: Callable[[Database], Awaitable[wire.ServerMessage]], ref: str) -> None:
        """Send ``member`` what ``read`` builds on the database thread."""
        if self.storage is None:
            raise ProtocolError("no_database", "this server keeps no games or ratings")

        async def answer() -> None:
            assert self.storage is not None
            reply = await self.storage.call(read)
            try:
                member.send(reply)
            except ProtocolError as exc:  # the answer is too large for a frame
                member.send(wire.ErrorMessage.of(exc, ref))

        asyncio.get_running_loop().create_task(answer())


def change_params(change: Change) -> dict[str, str | int]:
    """The rating notice's ``params`` (docs/protocol.md, section 9a): the ratings as text, 2 decimals."""
    before, after = conservative(change.mu_before, change.sigma_before), conservative(change.mu, change.sigma)
    return {"edition": change.edition, "before": f"{before:.2f}", "after": f"{after:.2f}",
            "change": f"{after - before:+.2f}", "provisional": int(is_provisional(change.games)),
            "games": change.games, "limit": PROVISIONAL_GAMES}


def describe_change(change: Change) -> str:
    """A player's new rating in words, for the notice after a game."""
    before, after = conservative(change.mu_before, change.sigma_before), conservative(change.mu, change.sigma)
    text = f"Your {change.edition} rating: {before:.2f} → {after:.2f} ({after - before:+.2f})"
    if is_provisional(change.games):
        text += f", provisional ({change.games} of {PROVISIONAL_GAMES} games)"
    return text
