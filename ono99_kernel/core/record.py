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
from .cards import CODES, HAND_SIZE, Card, Edition
from .errors import IllegalActionError, MalformedActionError, OptionError, Phrase, RecordError, Said
from .events import Drew, Event, MissedDraw, Out, Played, Reshuffled
from .game import Game
from .options import MAX_PLAYERS, MAX_PLAYERS_2022_BOX, MIN_PLAYERS, TableOptions
from .words import N_

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
            raise RecordError("hands_short", hand=hand - 1, next=hand + 1, count=len(self.hands))  # next: from 1
        spec = self.hands[hand]
        first = _seat(spec.get("first"), "first", self.seats, hand=hand)
        _seat(spec.get("dealer"), "dealer", self.seats, hand=hand)
        if first != receivers[0]:
            because = Phrase(N_("the dealer's left") if hand == 0 else
                             N_("the player who lost or first left the last hand"))
            raise RecordError("first", hand=hand, seat=receivers[0], because=because, first=first)
        dealt_raw = _list(spec.get("dealt"), "dealt", hand=hand)
        if len(dealt_raw) != self.seats:
            raise RecordError("dealt_count", hand=hand, seats=self.seats, count=len(dealt_raw))
        dealt: dict[int, list[Card]] = {}
        for seat, raw in enumerate(dealt_raw):
            cards = _cards(raw, f"dealt[{seat}]", hand=hand)
            if seat in receivers:
                if len(cards) != HAND_SIZE:
                    raise RecordError("dealt_size", hand=hand, seat=seat, size=HAND_SIZE, count=len(cards))
                dealt[seat] = cards
            elif cards:
                raise RecordError("dealt_out", hand=hand, seat=seat)
        pile = _cards(spec.get("draw_pile"), "draw_pile", hand=hand)
        everything = Counter(c for cards in dealt.values() for c in cards)
        everything.update(pile)
        expected = Counter(deck)
        if everything != expected:
            raise RecordError("deck", hand=hand, edition=self.edition.value,
                              difference=_counter_diff(expected, everything))
        return dealt, pile

    def reshuffle(self, cards: list[Card]) -> list[Card]:
        assert self.game is not None
        hand = self.game.hand_index
        index = _record_event_count(self.game.hands_log[hand].events)
        events = self.events[hand]
        if index >= len(events) or events[index].get("e") != "reshuffle":
            found = _describe_raw(events[index]) if index < len(events) else Phrase(N_("the end of the hand"))
            raise RecordError("reshuffle_here", hand=hand, event=index, found=found)
        order = _cards(events[index].get("draw_pile"), "draw_pile", hand=hand, event=index)
        if Counter(order) != Counter(cards):
            raise RecordError("reshuffle_pile", hand=hand, event=index,
                              difference=_counter_diff(Counter(cards), Counter(order)))
        return order


def replay(record: object, *, allow_unfinished: bool = False,
           on_step: Callable[[Game], None] | None = None) -> Replay:
    """Validate ``record`` by replaying it; return the replayed game or raise ``RecordError``.
    ``on_step(game)`` is called after the deal and after every action the record holds."""
    if not isinstance(record, Mapping):
        raise RecordError("not_object")
    if record.get("format") != FORMAT:
        raise RecordError("format", expected=repr(FORMAT), found=repr(record.get("format"))[:80])
    players = _players(record.get("players"))
    raw_options = record.get("options", {})
    if raw_options is None:
        raw_options = {}
    if not isinstance(raw_options, Mapping):
        raise RecordError("options_object")
    raw_options = dict(raw_options)
    edition = record.get("edition")
    if edition == Edition.E2022.value and len(players) > MAX_PLAYERS_2022_BOX:
        raw_options.setdefault("eight_players", True)  # a 7- or 8-player 2022 game is that house rule
    try:
        options = TableOptions.from_mapping(edition, raw_options, strict=False)
        options.check_players(len(players))
    except OptionError as exc:
        raise RecordError("problem", problem=exc) from None
    seed = record.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise RecordError("seed", found=repr(seed)[:80])
    hands = _list(record.get("hands"), "hands")
    if not hands:
        raise RecordError("no_hands")
    for i, hand in enumerate(hands):
        if not isinstance(hand, Mapping):
            raise RecordError("hand_object", hand=i)
    if options.edition is Edition.E2022 and len(hands) != 1:
        raise RecordError("hands_2022", count=len(hands))

    chance = _RecordedChance(hands, options.edition, len(players))
    try:
        game = Game(options, len(players), chance=chance)
    except IllegalActionError as exc:
        raise RecordError("problem", hand=0, problem=exc) from None
    chance.game = game
    if on_step is not None:
        on_step(game)
    for h in range(len(hands)):
        _replay_hand(game, chance, h, options.manual_draw, on_step)
        last = h == len(hands) - 1
        if not last and game.hand_index == h:
            raise RecordError("hand_not_over", hand=h, event=len(chance.events[h]), state=_whose_turn(game))
    if not game.is_over and not allow_unfinished:
        raise RecordError("game_not_over", hand=len(hands) - 1, event=len(chance.events[-1]),
                          state=_whose_turn(game))
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
    for i, raw in enumerate(events):
        if not isinstance(raw, Mapping):
            raise RecordError("event_object", hand=h, event=i)
        expected = produced[i]
        if expected is None:
            if raw.get("e") == "missed_draw" and _play_first(game, events, i, h):
                raw = events[i]
            if game.is_over or game.hand_index != h:
                ended = Phrase(N_("the game is over") if game.is_over else N_("the hand is over"))
                raise RecordError("goes_on", hand=h, event=i, ended=ended, found=_describe_raw(raw))
            if manual_draw and raw.get("e") == "play" and _draws_then_out(events, i):
                game.hold_outs()
            _drive(game, raw, h, i, manual_draw)
            expected = produced[i]
            if expected is None:
                raise RecordError("changed_nothing", hand=h, event=i, found=_describe_raw(raw))
            if on_step is not None:
                on_step(game)
        _match(_json(expected), raw, h, i)
    missing = produced[len(events)]
    if missing is not None:
        raise RecordError("events_end", hand=h, event=len(events), expected=_describe(_json(missing)))


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
            because = Phrase(N_("its own play cannot cost it a draw") if seat == player
                             else N_("it owes no draw: it has not played since it last drew"))
            raise RecordError("lose_draw", hand=h, event=k, seat=seat, because=because)
    events[i:j + 1] = [events[j], *events[i:j]]
    return True


def _draws_then_out(events: list[Any], i: int) -> bool:
    """Whether the play at ``i`` is followed by draws of its player (with the reshuffles they needed
    and the draws the play cost others) and then an ``out``: the writer's player drew before the
    next seat was declared out, where the engine settles the out at once. An out is not a play and
    ends no open draw, so the reader holds the out until those draws are taken (``Game.hold_outs``)
    and the hand is scored with the cards drawn."""
    player = events[i].get("seat")
    j = i + 1
    drew = False
    while j < len(events) and isinstance(events[j], Mapping):
        kind = events[j].get("e")
        if kind == "draw":
            drew = drew or events[j].get("seat") == player  # another seat's draw there is refused at it
        elif kind not in ("reshuffle", "missed_draw"):
            break
        j += 1
    return drew and j < len(events) and isinstance(events[j], Mapping) and events[j].get("e") == "out"


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
                raise RecordError("cards_play", hand=h, event=i)
            game.apply(seat, action)
        elif kind == "reshuffle":
            order = _cards(raw.get("draw_pile"), "draw_pile", hand=h, event=i)
            game.reshuffle_now(order)
        elif kind == "draw" and manual_draw:
            seat = _seat(raw.get("seat"), "seat", game.seats, hand=h, event=i)
            game.apply(seat, DRAW)
        elif kind == "out" and game.holding_outs:
            game.settle_now()
        elif kind in ("draw", "missed_draw", "out"):
            raise RecordError("cannot_happen", hand=h, event=i, found=_describe_raw(raw), state=_whose_turn(game))
        else:
            raise RecordError("event_kind", hand=h, event=i, kind=repr(kind)[:80])
    except (IllegalActionError, MalformedActionError) as exc:
        who = raw.get("seat")
        problem: Said = (str(exc) if not isinstance(exc, IllegalActionError)
                         else exc.of_seat(who) if isinstance(who, int) else exc)
        raise RecordError("illegal", hand=h, event=i, found=_describe_raw(raw), problem=problem) from None


def _match(expected: dict[str, Any], raw: Mapping[str, Any], h: int, i: int) -> None:
    found = {key: raw.get(key) for key in expected}
    if found != expected:
        raise RecordError("mismatch", hand=h, event=i, expected=_describe(expected), found=_describe_raw(raw))


def _record_event_count(events: Iterable[Event]) -> int:
    return sum(1 for e in events if isinstance(e, RECORD_EVENTS))


def _check_result(game: Game, result: object, allow_unfinished: bool) -> None:
    outcome = game.outcome
    if outcome is None:
        if result is not None and not allow_unfinished:
            raise RecordError("result_given")
        return
    if not isinstance(result, Mapping):
        raise RecordError("result_object", winner=outcome.winner)
    if result.get("winner") != outcome.winner:
        raise RecordError("result_winner", winner=outcome.winner, found=repr(result.get("winner"))[:80])
    for key, value in (("tokens", outcome.tokens), ("scores", outcome.scores)):
        given = result.get(key)
        if given is not None and given != list(value or ()):
            shown = list(value) if value is not None else None
            raise RecordError("result_values", key=key, expected=str(shown), found=repr(given)[:200])


# --- small parsers ------------------------------------------------------------------------------------
def _players(raw: object) -> tuple[Player, ...]:
    if not isinstance(raw, list) or not MIN_PLAYERS <= len(raw) <= MAX_PLAYERS:
        raise RecordError("players", low=MIN_PLAYERS, high=MAX_PLAYERS)
    players = []
    for i, p in enumerate(raw):
        if not isinstance(p, Mapping) or not isinstance(p.get("name"), str) or not isinstance(p.get("kind"), str):
            raise RecordError("player_object", index=i)
        players.append(Player(p["name"], p["kind"]))
    return tuple(players)


def _list(raw: object, name: str, *, hand: int | None = None, event: int | None = None) -> list[Any]:
    if not isinstance(raw, list):
        raise RecordError("list", hand=hand, event=event, name=repr(name))
    return raw


def _cards(raw: object, name: str, *, hand: int | None = None, event: int | None = None) -> list[Card]:
    items = _list(raw, name, hand=hand, event=event)
    try:
        return [Card.from_code(c) for c in items]
    except MalformedActionError:
        code = next(c for c in items if not (isinstance(c, str) and c in CODES))
        raise RecordError("card_codes", hand=hand, event=event, name=name, code=repr(code)[:40],
                          known=", ".join(CODES)) from None


def _seat(raw: object, name: str, seats: int, *, hand: int | None = None, event: int | None = None) -> int:
    if type(raw) is not int or not 0 <= raw < seats:
        raise RecordError("seat_field", hand=hand, event=event, name=repr(name), last=seats - 1,
                          found=repr(raw)[:80])
    return raw


def _counter_diff(expected: Counter[Card], found: Counter[Card]) -> Phrase:
    missing = ", ".join(f"{n}x {c.code}" for c, n in sorted((expected - found).items()))
    extra = ", ".join(f"{n}x {c.code}" for c, n in sorted((found - expected).items()))
    if missing and extra:
        return Phrase(N_("missing {missing}; extra {extra}"), missing=missing, extra=extra)
    if missing:
        return Phrase(N_("missing {missing}"), missing=missing)
    return Phrase(N_("extra {extra}"), extra=extra)


def _whose_turn(game: Game) -> Phrase:
    if game.is_over:
        return Phrase(N_("the game is over"))
    owed = [s for s in game.actors() if s != game.turn]
    if not owed:
        return Phrase(N_("seat {seat} is to play"), seat=str(game.turn))
    return Phrase(N_("seat {seat} is to play, seat {owed} may still draw"), seat=str(game.turn),
                  owed=", seat ".join(map(str, owed)))


def _describe(ev: Mapping[str, Any]) -> Phrase:
    kind = ev.get("e")
    seat = str(ev.get("seat"))
    if kind == "play":
        cards = ev.get("cards")
        shown = "+".join(map(str, cards)) if isinstance(cards, list) else repr(cards)
        return Phrase(N_("a play of {cards} by seat {seat} making {total}"), cards=shown, seat=seat,
                      total=str(ev.get("total")))
    if kind == "draw":
        return Phrase(N_("a draw of {card} by seat {seat}"), card=str(ev.get("card")), seat=seat)
    if kind == "reshuffle":
        return Phrase(N_("a reshuffle"))
    if kind == "missed_draw":
        return Phrase(N_("a missed draw of seat {seat}"), seat=seat)
    if kind == "out":
        return Phrase(N_("seat {seat} out"), seat=seat)
    return Phrase(N_("an event {kind}"), kind=repr(kind)[:80])


def _describe_raw(raw: object) -> Phrase:
    return _describe(raw) if isinstance(raw, Mapping) else Phrase(N_("{value} (not an event object)"),
                                                                  value=repr(raw)[:80])


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
            data = json.loads(text.rstrip("\r\n"))  # a line without its end, as 'ono99 replay' reads it
        except json.JSONDecodeError as exc:
            yield CheckedLine(number, None, RecordError("json", line=number, problem=str(exc)))
            continue
        try:
            yield CheckedLine(number, replay(data), None)
        except RecordError as exc:
            yield CheckedLine(number, None, exc.at_line(number))
        except RecursionError:
            yield CheckedLine(number, None, RecordError("nested", line=number))
