"""The lean rules state against a straightforward reference, on thousands of whole random games
under every valid option set.

Three things agree after every action of every game:

- the ``Referee`` of test_invariants.py (the rules written down again from docs/rules.md, fed only the
  chance the engine drew) accepts every event the recording ``Game`` emits and sees the same table;
- a non-recording ``State`` started from the same seed (``State.start``: no events, no views, the
  fast paths of ``play``) and driven with the same actions holds exactly the same table, field by
  field, and offers the same legal actions;
- a ``clone()`` taken at a random moment, given a copy of the generator, goes on exactly as the
  game does to its end.

Every game's record replays and checks (``record.replay``).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from ono99_kernel.core import Game, HandEnded, TableOptions
from ono99_kernel.core.record import Player, game_to_record, replay
from ono99_kernel.core.state import RandomChance, State

from .test_invariants import Policy, Referee, max_players

FIELDS = (
    "_hands", "_draw", "_discard", "_discard_counts", "_out_of_play", "_total", "_direction", "_turn",
    "_plays_left", "_second_due", "_obliged", "_active", "_in_hand", "_tokens", "_scores", "_draw_open",
    "_any_draw_open", "_missed", "_dropped", "_drop_penalty", "_elimination_order", "_outcome", "_version",
    "_hand_index", "_turns", "_first",
)


def all_option_sets() -> list[tuple[str, dict[str, Any]]]:
    """Every valid combination of the rule options (points targets: a low and the default)."""
    sets: list[tuple[str, dict[str, Any]]] = []
    for manual, eight in itertools.product((False, True), repeat=2):
        sets.append(("2022", {"manual_draw": manual, "eight_players": eight}))
    for manual, bust, ono99 in itertools.product((False, True), (False, True), ("never", "on_zero", "sets_99")):
        if ono99 == "sets_99" and not bust:
            continue
        base = {"manual_draw": manual, "bust_over_99": bust, "ono99_on_zero": ono99 == "on_zero",
                "ono99_sets_99": ono99 == "sets_99"}
        for zero in (False, True):
            sets.append(("1980", {**base, "scoring": "tokens", "out_at_zero_tokens": zero}))
        for win, target in itertools.product(("last_standing", "lowest_score"), (40, 100)):
            sets.append(("1980", {**base, "scoring": "points", "points_win": win, "points_target": target}))
    return sets


OPTION_SETS = all_option_sets()
GAMES_PER_SET = 32  # 64 option sets: 2,048 games


def same_table(fast: State, game: Game, context: str) -> None:
    for name in FIELDS:
        mine, theirs = getattr(fast, name), getattr(game, name)
        assert mine == theirs, f"{context}: {name} is {mine!r} in the fast state, {theirs!r} in the game"
    if not game.is_over:
        assert fast.moves() == game.legal_actions(), f"{context}: legal actions differ"
    assert fast.finished == game.is_over, context


def copy_of(rng: random.Random) -> random.Random:
    twin = random.Random()
    twin.setstate(rng.getstate())
    return twin


def play_lockstep(edition: str, opts: dict[str, Any], players: int, seed: int) -> Game:
    options = TableOptions.from_mapping(edition, opts)
    game = Game(options, players, random.Random(seed))
    fast = State.start(options, players, RandomChance(random.Random(seed)))
    policy = Policy(seed ^ 0xA5A5, draw_eagerness=(0.0, 0.5, 1.0)[seed % 3])
    referee = Referee(game, options, players)
    clone_at = random.Random(seed).randrange(1, 60)
    clone: State | None = None
    steps = 0
    same_table(fast, game, "after the deal")
    while not game.is_over:
        steps += 1
        assert steps < 20_000, "the game did not end"
        if steps == clone_at:
            assert isinstance(game._chance, RandomChance)
            clone = game.clone(RandomChance(copy_of(game._chance.rng)))
            clone.deal_next = True
        seat, action = policy.choose(game)
        referee.check_action(seat, action)
        game.apply(seat, action)
        referee.consume(seat, action)
        referee.compare()
        context = f"{edition} {opts} {players} players, seed {seed}, action {steps} ({seat}:{action.code})"
        fast.act(seat, action)
        same_table(fast, game, context)
        if clone is not None:
            clone.act(seat, action)
            same_table(clone, game, "clone: " + context)
    referee.check_final()
    return game


@pytest.mark.parametrize(("edition", "opts"), OPTION_SETS, ids=[f"{e}-{i}" for i, (e, _) in enumerate(OPTION_SETS)])
def test_the_fast_state_and_the_reference_agree_on_every_event(edition: str, opts: dict[str, Any]) -> None:
    top = max_players(edition, bool(opts.get("eight_players")))
    for i in range(GAMES_PER_SET):
        players = 2 + i % (top - 1)
        seed = 7_919 * i + len(OPTION_SETS)
        game = play_lockstep(edition, opts, players, seed)
        record = game_to_record(game, [Player(f"P{s}", "bot:random") for s in range(players)], seed)
        replayed = replay(record)
        assert replayed.game.log == game.log


def test_every_valid_option_set_is_covered() -> None:
    seen: set[str] = set()
    for edition, opts in OPTION_SETS:
        TableOptions.from_mapping(edition, opts)  # valid
        seen.update(name for name, value in opts.items() if value and value != "tokens")
    assert seen >= {"manual_draw", "eight_players", "bust_over_99", "ono99_on_zero", "ono99_sets_99",
                    "out_at_zero_tokens", "scoring", "points_win", "points_target"}
    assert len(OPTION_SETS) == len({repr(sorted(o.items())) + e for e, o in OPTION_SETS}) == 64


POSITION_FIELDS = (
    "_hands", "_draw", "_discard", "_discard_counts", "_out_of_play", "_total", "_direction", "_turn",
    "_plays_left", "_second_due", "_obliged", "_active", "_in_hand", "_draw_open", "_any_draw_open", "_missed",
)


@pytest.mark.parametrize(("edition", "opts"), OPTION_SETS[::5], ids=[f"{e}-{i}" for i, (e, _) in
                                                                   enumerate(OPTION_SETS[::5])])
def test_a_position_built_from_a_tables_parts_plays_on_as_the_table(edition: str, opts: dict[str, Any]) -> None:
    """``State.position`` (what the strong bot builds from a deal of the hidden cards) given a
    table's true parts plays on exactly as that table to the end of the hand."""
    options = TableOptions.from_mapping(edition, opts)
    top = max_players(edition, bool(opts.get("eight_players")))
    checked = 0
    for i in range(12):
        players = 2 + i % (top - 1)
        game = Game(options, players, random.Random(i))
        policy = Policy(i, draw_eagerness=0.5)
        start = random.Random(i).randrange(0, 40)
        for _ in range(start):
            if game.is_over:
                break
            game.apply(*policy.choose(game))
        if game.is_over:
            continue
        assert isinstance(game._chance, RandomChance)
        hand = game.hand_index
        position = State.position(
            options, players, hands=game._hands, draw_pile=game.draw_pile(), discard=game.discard_pile(),
            total=game.total, direction=game.direction, turn=game._turn, plays_left=game._plays_left,
            second_due=game._second_due, obliged=game._obliged, active=game._active, in_hand=game._in_hand,
            missed=game._missed, draw_open=game._draw_open, tokens=game._tokens, scores=game._scores,
            out_of_play=game.out_of_play(), dropped=game._dropped, drop_penalty=game._drop_penalty,
            first=game._first, chance=RandomChance(copy_of(game._chance.rng)),
        )
        while True:
            for name in POSITION_FIELDS:
                assert getattr(position, name) == getattr(game, name), (edition, opts, i, name)
            seat, action = policy.choose(game)
            game.apply(seat, action)
            position.act(seat, action)
            checked += 1
            if game.is_over or game.hand_index != hand:
                assert position.finished
                ended = [e for e in game.hands_log[hand].events if isinstance(e, HandEnded)]
                assert position.hand_loser == (ended[0].loser if ended else None)
                if ended and ended[0].hand_points is not None:
                    assert position.hand_points == ended[0].hand_points
                break
            assert not position.finished
    assert checked > 50
