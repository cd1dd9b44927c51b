"""Game records in the ``ono99-record/1`` format (see docs/records.md).

Writing turns a finished ``Game`` into a plain dict. Reading validates a record by replaying it
through the same rules engine, with the recorded deals and reshuffles as the only source of chance,
and raises ``RecordError`` naming the hand, the event and what is wrong.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .actions import DISCARD_FOUR, DRAW, play
from .cards import HAND_SIZE, Card, Edition
from .errors import IllegalActionError, MalformedActionError, OptionError, RecordError
from .events import Drew, Event, MissedDraw, Out, Played, Reshuffled
from .game import Game
from .options import MAX_PLAYERS, MAX_PLAYERS_2022_BOX, MIN_PLAYERS, Scoring, TableOptions

FORMAT = "ono99-record/1"
RECORD_EVENTS = (Played, Drew, Reshuffled, MissedDraw, Out)


@dataclass(frozen=True, slots=True)
class Player:
    name: str
    kind: str  # "human" or "bot:LEVEL"

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class Replay:
    """A record that replayed cleanly: the game as it ended, and who played it."""

    game: Game
    players: tuple[Player, ...]
    seed: int | None
    record: Mapping[str, Any]


# --- writing ----------------------------------------------------------------------------------------
def event_to_json(event: Event) -> dict[str, Any] | None:
    """The record form of an event, or None for events a record does not keep."""
    if isinstance(event, Played):
        return {"e": "play", "seat": event.seat, "cards": [c.code for c in event.cards],
                "total": event.total}
    if isinstance(event, Drew):
        assert event.card is not None, "a record holds unredacted events"
        return {"e": "draw", "seat": event.seat, "card": event.card.code}
    if isinstance(event, Reshuffled):
        assert event.draw_pile is not None, "a record holds unredacted events"
        return {"e": "reshuffle", "draw_pile": [c.code for c in event.draw_pile]}
    if isinstance(event, MissedDraw):
        return {"e": "missed_draw", "seat": event.seat}
    if isinstance(event, Out):
        return {"e": "out", "seat": event.seat}
    return None


def game_to_record(game: Game, players: Sequence[Player], seed: int | None) -> dict[str, Any]:
    """The ``ono99-record/1`` record of ``game`` (``result`` is null while it is not over)."""
    if len(players) != game.seats:
        raise ValueError(f"{len(players)} players given for {game.seats} seats")
    hands = []
    for log in game.hands_log:
        events = [j for j in (event_to_json(e) for e in log.events) if j is not None]
        hands.append({
            "dealer": log.dealer,
            "first": log.first,
            "dealt": [[c.code for c in cards] for cards in log.dealt],
            "draw_pile": [c.code for c in log.draw_pile],
            "events": events,
        })
    outcome = game.outcome
    result = None
    if outcome is not None:
        result = {
            "winner": outcome.winner,
            "tokens": list(outcome.tokens) if outcome.tokens is not None else None,
            "scores": list(outcome.scores) if outcome.scores is not None else None,
        }
    return {
        "format": FORMAT,
        "edition": game.options.edition.value,
        "options": game.options.to_mapping(),
        "seed": seed,
        "players": [p.to_json() for p in players],
        "hands": hands,
        "result": result,
    }


def dumps(record: Mapping[str, Any]) -> str:
    """One JSON Lines line (without the newline)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


# --- reading ----------------------------------------------------------------------------------------
class _RecordedChance:
    """Chance that hands out the recorded deals and reshuffles, checking each against the rules."""

    def __init__(self, hands: list[Mapping[str, Any]], edition: Edition, seats: int) -> None:
        self.hands = hands
        self.edition = edition
        self.seats = seats
        self.events: list[list[Mapping[str, Any]]] = [
            list(_list(h.get("events"), "events", hand=i))
            for i, h in enumerate(hands)
        ]
        self.game: Game | None = None

    def choose_dealer(self, seats: int) -> int:
        return _seat(self.hands[0].get("dealer"), "dealer", seats, hand=0)

    def deal(self, hand: int, deck: list[Card], receivers: Sequence[int]) -> tuple[dict[int, list[Card]], list[Card]]:
        if hand >= len(self.hands):
            raise RecordError(
                f"the match goes on (hand {hand} must be dealt) but the record has only "
                f"{len(self.hands)} hand(s)", hand=hand - 1)
        spec = self.hands[hand]
        first = _seat(spec.get("first"), "first", self.seats, hand=hand)
        _seat(spec.get("dealer"), "dealer", self.seats, hand=hand)
        if first != receivers[0]:
            why = "the dealer's left" if hand == 0 else "the player who lost or first left the last hand"
            raise RecordError(f"seat {receivers[0]} must play first ({why}), the record says {first}",
                              hand=hand)
        dealt_raw = _list(spec.get("dealt"), "dealt", hand=hand)
        if len(dealt_raw) != self.seats:
            raise RecordError(f"'dealt' must list {self.seats} hands, one per seat, not {len(dealt_raw)}",
                              hand=hand)
        dealt: dict[int, list[Card]] = {}
        for seat, raw in enumerate(dealt_raw):
            cards = _cards(raw, f"dealt[{seat}]", hand=hand)
            if seat in receivers:
                if len(cards) != HAND_SIZE:
                    raise RecordError(f"seat {seat} must be dealt {HAND_SIZE} cards, not {len(cards)}",
                                      hand=hand)
                dealt[seat] = cards
            elif cards:
                raise RecordError(f"seat {seat} is out of the match and must be dealt no cards", hand=hand)
        pile = _cards(spec.get("draw_pile"), "draw_pile", hand=hand)
        everything = Counter(c for cards in dealt.values() for c in cards)
        everything.update(pile)
        expected = Counter(deck)
        if everything != expected:
            raise RecordError(
                f"the deal and the draw pile are not the {self.edition.value} deck: "
                f"{_counter_diff(expected, everything)}", hand=hand)
        return dealt, pile

    def reshuffle(self, cards: list[Card]) -> list[Card]:
        assert self.game is not None
        hand = self.game.hand_index
        index = _record_event_count(self.game.hands_log[hand].events)
        events = self.events[hand]
        if index >= len(events) or events[index].get("e") != "reshuffle":
            found = _describe_raw(events[index]) if index < len(events) else "the end of the hand"
            raise RecordError(f"the draw pile is empty and a card must be drawn, so the discard pile is "
                              f"reshuffled here, but the record has {found}", hand=hand, event=index)
        order = _cards(events[index].get("draw_pile"), "draw_pile", hand=hand, event=index)
        if Counter(order) != Counter(cards):
            raise RecordError("the reshuffled draw pile must be the discard pile but its top card: "
                              f"{_counter_diff(Counter(cards), Counter(order))}", hand=hand, event=index)
        return order


def replay(record: object, *, allow_unfinished: bool = False,
           on_step: Callable[[Game], None] | None = None) -> Replay:
    """Validate ``record`` by replaying it; return the replayed game or raise ``RecordError``.
    ``on_step(game)`` is called after the deal and after every action the record holds."""
    if not isinstance(record, Mapping):
        raise RecordError("a record must be a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(f"'format' must be {FORMAT!r}, not {record.get('format')!r}")
    players = _players(record.get("players"))
    raw_options = record.get("options", {})
    if raw_options is None:
        raw_options = {}
    if not isinstance(raw_options, Mapping):
        raise RecordError("'options' must be an object")
    raw_options = dict(raw_options)
    edition = record.get("edition")
    if edition == Edition.E2022.value and len(players) > MAX_PLAYERS_2022_BOX:
        raw_options.setdefault("eight_players", True)  # a 7- or 8-player 2022 game is that house rule
    try:
        options = TableOptions.from_mapping(edition, raw_options, strict=False)
        options.check_players(len(players))
    except OptionError as exc:
        raise RecordError(str(exc)) from None
    seed = record.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise RecordError(f"'seed' must be a whole number or null, not {seed!r}")
    hands = _list(record.get("hands"), "hands")
    if not hands:
        raise RecordError("'hands' is empty: a record holds at least one hand")
    for i, hand in enumerate(hands):
        if not isinstance(hand, Mapping):
            raise RecordError("a hand must be an object", hand=i)
    if options.edition is Edition.E2022 and len(hands) != 1:
        raise RecordError(f"a 2022 game has exactly one hand, this record has {len(hands)}")

    chance = _RecordedChance(hands, options.edition, len(players))
    try:
        game = Game(options, len(players), chance=chance)
    except IllegalActionError as exc:
        raise RecordError(str(exc), hand=0) from None
    chance.game = game
    if on_step is not None:
        on_step(game)
    for h in range(len(hands)):
        _replay_hand(game, chance, h, options.manual_draw, on_step)
        last = h == len(hands) - 1
        if not last and game.hand_index == h:
            raise RecordError(f"the hand is not over ({_whose_turn(game)}) but the record starts another",
                              hand=h, event=len(chance.events[h]))
    if not game.is_over and not allow_unfinished:
        raise RecordError(f"the record ends but the game is not over ({_whose_turn(game)})",
                          hand=len(hands) - 1, event=len(chance.events[-1]))
    _check_result(game, record.get("result"), allow_unfinished)
    return Replay(game, players, seed, record)


class _Produced:
    """The record-kind events the engine has produced in one hand, read incrementally."""

    def __init__(self, game: Game, hand: int) -> None:
        self.source = game.hands_log[hand].events
        self.scanned = 0
        self.events: list[Event] = []

    def __getitem__(self, index: int) -> Event | None:
        source = self.source
        while len(self.events) <= index and self.scanned < len(source):
            event = source[self.scanned]
            self.scanned += 1
            if isinstance(event, RECORD_EVENTS):
                self.events.append(event)
        return self.events[index] if index < len(self.events) else None


def _replay_hand(game: Game, chance: _RecordedChance, h: int, manual_draw: bool,
                 on_step: Callable[[Game], None] | None = None) -> None:
    events = chance.events[h]
    produced = _Produced(game, h)
    early = _EarlyDraws()
    skipped = 0  # early draws of a hand that ended at the out: in the record, not in the engine
    for i, raw in enumerate(events):
        if not isinstance(raw, Mapping):
            raise RecordError("an event must be an object", hand=h, event=i)
        if i in early.ended:
            early.check_ended(raw, h, i)
            skipped += 1
            continue
        expected = produced[i - skipped]
        if expected is None:
            if raw.get("e") == "missed_draw" and _play_first(game, events, i, h):
                raw = events[i]
            if game.is_over or game.hand_index != h:
                ended = "the game is over" if game.is_over else "the hand is over"
                raise RecordError(f"{ended}, but the record goes on with {_describe_raw(raw)}",
                                  hand=h, event=i)
            if manual_draw and raw.get("e") == "play":
                early.before_play(game)
            _drive(game, raw, h, i, manual_draw)
            expected = produced[i - skipped]
            if expected is None:
                raise RecordError(f"{_describe_raw(raw)} changed nothing", hand=h, event=i)
            if on_step is not None:
                on_step(game)
        elif manual_draw and type(expected) is Out and raw.get("e") == "draw":
            raw = early.out_first(game, events, i, expected, h)
        _match(_json(expected), raw, h, i)
    missing = produced[len(events) - skipped]
    if missing is not None:
        raise RecordError(f"the rules require {_describe(_json(missing))} next, but the hand's events end here",
                          hand=h, event=len(events))


def _play_first(game: Game, events: list[Any], i: int, h: int) -> bool:
    """The engine logs a play and then the draws it cost others; a writer that logs such missed
    draws just before the play says the same, so move that play ahead of them (in place). Only a
    seat that owes a draw now can lose it to that play: a seat that has not played since it last
    drew holds a full hand."""
    j = i
    while j < len(events) and isinstance(events[j], Mapping) and events[j].get("e") == "missed_draw":
        j += 1
    if not (j < len(events) and isinstance(events[j], Mapping) and events[j].get("e") == "play"):
        return False
    player = events[j].get("seat")
    for k in range(i, j):
        seat = events[k].get("seat")
        if type(seat) is int and 0 <= seat < game.seats and (seat == player or not game.has_open_draw(seat)):
            why = ("its own play cannot cost it a draw" if seat == player
                   else "it owes no draw: it has not played since it last drew")
            raise RecordError(f"seat {seat} cannot lose a draw here ({why})", hand=h, event=k)
    events[i:j + 1] = [events[j], *events[i:j]]
    return True


class _EarlyDraws:
    """Under ``manual_draw``, draws a writer logged between a play and the ``out`` of the next
    seat, where the engine logs the ``out`` first. An out is not a play: it ends no open draw,
    so both orders are one game when the hand goes on, and the draws are moved after the out.
    When the out ends the hand (or the game), the engine's open draw is never taken; the
    record's draws must then be the top cards of the draw pile as the play left it, and change
    nothing after (tokens: the next hand is dealt from the whole deck; a finished 2022 game).
    With points they would add to the player's hand points, so there they are refused."""

    def __init__(self) -> None:
        self.pile: tuple[Any, ...] = ()  # the draw pile (top first) just before the latest play
        self.player: int | None = None
        self.ended: dict[int, int] = {}  # event index of each early draw -> its place in the pile

    def before_play(self, game: Game) -> None:
        self.pile = game.draw_pile()
        self.player = game.turn

    def out_first(self, game: Game, events: list[Any], i: int, out: Out, h: int) -> Mapping[str, Any]:
        """Move the out that the engine gave at ``i`` ahead of the draws the record has there;
        return the record's event now at ``i``."""
        first: Mapping[str, Any] = events[i]
        j = i
        while j < len(events) and isinstance(events[j], Mapping) and events[j].get("e") == "draw":
            if events[j].get("seat") != self.player:
                return first  # not the draws of the player who just played: no match below
            j += 1
        if not (j < len(events) and isinstance(events[j], Mapping) and events[j].get("e") == "out"
                and events[j].get("seat") == out.seat):
            return first
        first = events[j]
        events[i:j + 1] = [first, *events[i:j]]
        if game.is_over or game.hand_index != h:
            if game.options.scoring is Scoring.POINTS:
                raise RecordError(
                    f"seat {out.seat} out ends the hand, so the open draw of seat {self.player} is never "
                    f"taken (it would count in the hand's points), but the record has it drawn first",
                    hand=h, event=i)
            for k in range(i + 1, j + 1):
                self.ended[k] = k - i - 1
        return first

    def check_ended(self, raw: Mapping[str, Any], h: int, i: int) -> None:
        place = self.ended[i]
        top = self.pile[place].code if place < len(self.pile) else None
        if raw.get("card") != top:
            raise RecordError(f"{_describe_raw(raw)} must be the card on top of the draw pile, {top}",
                              hand=h, event=i)


def _json(event: Event) -> dict[str, Any]:
    data = event_to_json(event)
    assert data is not None
    return data


def _drive(game: Game, raw: Mapping[str, Any], h: int, i: int, manual_draw: bool) -> None:
    """Apply the action that the record event ``raw`` stands for."""
    kind = raw.get("e")
    try:
        if kind == "play":
            seat = _seat(raw.get("seat"), "seat", game.seats, hand=h, event=i)
            cards = _cards(raw.get("cards"), "cards", hand=h, event=i)
            if len(cards) == 1:
                action = play(cards[0])
            elif len(cards) == 4 and all(c is Card.ONO99 for c in cards):
                action = DISCARD_FOUR
            else:
                raise RecordError("'cards' must hold one card or four ONO99", hand=h, event=i)
            game.apply(seat, action)
        elif kind == "reshuffle":
            order = _cards(raw.get("draw_pile"), "draw_pile", hand=h, event=i)
            game.reshuffle_now(order)
        elif kind == "draw" and manual_draw:
            seat = _seat(raw.get("seat"), "seat", game.seats, hand=h, event=i)
            game.apply(seat, DRAW)
        elif kind in ("draw", "missed_draw", "out"):
            raise RecordError(f"{_describe_raw(raw)} cannot happen here: {_whose_turn(game)}",
                              hand=h, event=i)
        else:
            raise RecordError(f"unknown event kind {kind!r} (known: play, draw, reshuffle, missed_draw, out)",
                              hand=h, event=i)
    except (IllegalActionError, MalformedActionError) as exc:
        raise RecordError(f"{_describe_raw(raw)} is illegal: {exc}", hand=h, event=i) from None


def _match(expected: dict[str, Any], raw: Mapping[str, Any], h: int, i: int) -> None:
    found = {key: raw.get(key) for key in expected}
    if found != expected:
        raise RecordError(f"the rules give {_describe(expected)} here, the record has {_describe_raw(raw)}",
                          hand=h, event=i)


def _record_event_count(events: Iterable[Event]) -> int:
    return sum(1 for e in events if isinstance(e, RECORD_EVENTS))


def _check_result(game: Game, result: object, allow_unfinished: bool) -> None:
    outcome = game.outcome
    if outcome is None:
        if result is not None and not allow_unfinished:
            raise RecordError("'result' is given but the game is not over")
        return
    if not isinstance(result, Mapping):
        raise RecordError(f"'result' must be an object, the game was won by seat {outcome.winner}")
    if result.get("winner") != outcome.winner:
        raise RecordError(f"result: seat {outcome.winner} wins, the record says {result.get('winner')!r}")
    for key, value in (("tokens", outcome.tokens), ("scores", outcome.scores)):
        given = result.get(key)
        if given is not None and given != list(value or ()):
            shown = list(value) if value is not None else None
            raise RecordError(f"result: {key} are {shown}, the record says {given!r}")


# --- small parsers ------------------------------------------------------------------------------------
def _players(raw: object) -> tuple[Player, ...]:
    if not isinstance(raw, list) or not MIN_PLAYERS <= len(raw) <= MAX_PLAYERS:
        raise RecordError(f"'players' must list {MIN_PLAYERS} to {MAX_PLAYERS} players")
    players = []
    for i, p in enumerate(raw):
        if not isinstance(p, Mapping) or not isinstance(p.get("name"), str) or not isinstance(p.get("kind"), str):
            raise RecordError(f"players[{i}] must be an object with a text 'name' and 'kind'")
        players.append(Player(p["name"], p["kind"]))
    return tuple(players)


def _list(raw: object, name: str, *, hand: int | None = None, event: int | None = None) -> list[Any]:
    if not isinstance(raw, list):
        raise RecordError(f"{name!r} must be a list", hand=hand, event=event)
    return raw


def _cards(raw: object, name: str, *, hand: int | None = None, event: int | None = None) -> list[Card]:
    items = _list(raw, name, hand=hand, event=event)
    try:
        return [Card.from_code(c) for c in items]
    except MalformedActionError as exc:
        raise RecordError(f"{name}: {exc}", hand=hand, event=event) from None


def _seat(raw: object, name: str, seats: int, *, hand: int | None = None, event: int | None = None) -> int:
    if type(raw) is not int or not 0 <= raw < seats:
        raise RecordError(f"{name!r} must be a seat from 0 to {seats - 1}, not {raw!r}", hand=hand, event=event)
    return raw


def _counter_diff(expected: Counter[Card], found: Counter[Card]) -> str:
    missing = expected - found
    extra = found - expected
    parts = []
    if missing:
        parts.append("missing " + ", ".join(f"{n}x {c.code}" for c, n in sorted(missing.items())))
    if extra:
        parts.append("extra " + ", ".join(f"{n}x {c.code}" for c, n in sorted(extra.items())))
    return "; ".join(parts)


def _whose_turn(game: Game) -> str:
    if game.is_over:
        return "the game is over"
    owed = [s for s in game.actors() if s != game.turn]
    text = f"seat {game.turn} is to play"
    if owed:
        text += ", seat " + ", seat ".join(map(str, owed)) + " may still draw"
    return text


def _describe(ev: Mapping[str, Any]) -> str:
    kind = ev.get("e")
    seat = ev.get("seat")
    if kind == "play":
        cards = ev.get("cards")
        shown = "+".join(map(str, cards)) if isinstance(cards, list) else repr(cards)
        return f"a play of {shown} by seat {seat} making {ev.get('total')}"
    if kind == "draw":
        return f"a draw of {ev.get('card')} by seat {seat}"
    if kind == "reshuffle":
        return "a reshuffle"
    if kind == "missed_draw":
        return f"a missed draw of seat {seat}"
    if kind == "out":
        return f"seat {seat} out"
    return f"an event {kind!r}"


def _describe_raw(raw: object) -> str:
    return _describe(raw) if isinstance(raw, Mapping) else f"{raw!r} (not an event object)"


# --- files ----------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CheckedLine:
    line: int
    replay: Replay | None
    error: RecordError | None


def check_lines(lines: Iterable[str]) -> Iterator[CheckedLine]:
    """Validate each non-blank line of a JSON Lines text as a record."""
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            yield CheckedLine(number, None, RecordError(f"not valid JSON: {exc}", line=number))
            continue
        try:
            yield CheckedLine(number, replay(data), None)
        except RecordError as exc:
            yield CheckedLine(number, None, exc.at_line(number))
        except RecursionError:
            yield CheckedLine(number, None, RecordError("record nested too deeply", line=number))
