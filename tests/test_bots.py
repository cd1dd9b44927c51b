"""The bot levels: what a bot is given (a view, nothing more), that every action it picks is legal
in every edition and option set, and that the strong bot is measurably stronger than random play."""

from __future__ import annotations

import copy
import gc
import random
import subprocess
import sys
import types
from collections import Counter
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.bots import BOT_LEVELS, SEARCHING_LEVELS, get_level
from ono99_kernel.bots import strong as strong_module
from ono99_kernel.bots.players import BOT_PLAYERS, get_bot
from ono99_kernel.core import Game, Obligation, TableOptions, TableView
from ono99_kernel.core.actions import DISCARD_FOUR, PLAYS
from ono99_kernel.core.cards import Card
from ono99_kernel.core.game import HandLog
from ono99_kernel.protocol import BOT_LEVEL_NAMES
from ono99_tui.simulate import SimulationPlan, simulate

ROOT = Path(__file__).resolve().parent.parent
LEVELS = ("random", "casual", "greedy", "strong")

# Every rule option of docs/rules.md appears in at least one set.
OPTION_SETS: list[tuple[str, dict[str, Any]]] = [
    ("2022", {}),
    ("2022", {"manual_draw": True}),
    ("2022", {"eight_players": True}),
    ("1980", {}),
    ("1980", {"ono99_on_zero": True}),
    ("1980", {"out_at_zero_tokens": True, "ono99_on_zero": True}),
    ("1980", {"bust_over_99": True}),
    ("1980", {"bust_over_99": True, "ono99_sets_99": True}),
    ("1980", {"scoring": "points"}),
    ("1980", {"scoring": "points", "points_win": "lowest_score", "points_target": 60, "manual_draw": True}),
    ("1980", {"manual_draw": True}),
]


def test_the_four_levels_are_registered_everywhere_with_one_line_descriptions() -> None:
    assert tuple(BOT_LEVELS) == LEVELS
    assert BOT_LEVEL_NAMES == LEVELS  # what the protocol accepts
    assert tuple(BOT_PLAYERS) == LEVELS  # each declared level plays
    for name, level in BOT_LEVELS.items():
        assert level.name == name and get_level(name) is level and get_bot(name).level is level
        assert level.description and "\n" not in level.description and len(level.description) <= 90
    for unknown in (get_level, get_bot):
        with pytest.raises(ValueError, match="unknown bot level"):
            unknown("expert")


def test_the_levels_say_which_of_them_search() -> None:
    """The server runs these off its event loop (server/ono99_server/runner.py reads the declaration)."""
    assert frozenset({"strong"}) == SEARCHING_LEVELS


# --- a bot gets a view, and a view reaches nothing else ------------------------------------------


def _reachable(root: object) -> Iterator[object]:
    """Every object reachable from ``root`` through references, but classes and modules (an enum
    member is reached but not entered: it is a shared constant of its class)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType)):
            continue
        seen.add(id(obj))
        yield obj
        if not isinstance(obj, Enum):
            stack.extend(gc.get_referents(obj))


def _mid_game(edition: str, options: dict[str, Any], players: int, seed: int, plays: int) -> Game:
    game = Game(TableOptions.from_mapping(edition, options), players, random.Random(seed))
    rng = random.Random(seed)
    for _ in range(plays):
        if game.is_over:
            break
        seat = game.actors()[0]
        game.apply(seat, get_bot("random").choose(game.seat_view(seat), rng))
    return game


@pytest.mark.parametrize(("edition", "options"), OPTION_SETS)
def test_a_view_reaches_no_game_state_and_is_immutable(edition: str, options: dict[str, Any]) -> None:
    game = _mid_game(edition, options, 4, 3, 30)
    view = game.seat_view(game.actors()[0])
    assert type(view) is TableView
    hash(view)  # built of tuples, frozen dataclasses and enums only: nothing in it can change
    hidden = {id(game._draw), id(game._discard), id(game._out_of_play), id(game._log), id(game._public)}
    hidden.update(id(h) for h in game._hands)
    for obj in _reachable(view):
        assert not isinstance(obj, (Game, HandLog, random.Random)), f"a view reaches a {type(obj).__name__}"
        assert not isinstance(obj, (list, dict, set)), f"a view holds a mutable {type(obj).__name__}"
        assert id(obj) not in hidden


def test_bots_decide_from_a_copy_of_the_view_alone() -> None:
    """A deep copy of a view (no tie to any game) gets the same decision as the view itself, and
    the bot modules never name the game engine."""
    for edition, options in OPTION_SETS[:4]:
        for seed in range(6):
            game = _mid_game(edition, options, 3, seed, 10 + 7 * seed)
            if game.is_over:
                continue
            view = game.seat_view(game.actors()[0])
            detached = copy.deepcopy(view)
            del game
            for name in LEVELS:
                choose = get_bot(name).choose
                assert choose(detached, random.Random(seed)) == choose(view, random.Random(seed))
    for path in (ROOT / "ono99_tui" / "bots").glob("*.py"):
        text = path.read_text()
        assert "core.game" not in text and "Game" not in text, f"{path.name} names the engine"


# --- every action is legal -----------------------------------------------------------------------


@pytest.mark.parametrize(("edition", "options"), OPTION_SETS)
def test_every_bot_action_is_legal_in_thousands_of_random_positions(
    edition: str, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A small search budget: the same code paths, at a fraction of the time.
    monkeypatch.setattr(strong_module, "TURN_BUDGET", 150)
    monkeypatch.setattr(strong_module, "MIN_DEALS", 2)
    table = TableOptions.from_mapping(edition, options)
    bots = [get_bot(name).choose for name in LEVELS]
    positions = 0
    seed = 0
    while positions < 2000:
        seed += 1
        players = 2 + seed % (table.max_players - 1)
        game = Game(table, players, random.Random(seed))
        rng = random.Random(seed * 7)
        policy = bots[seed % len(bots)]  # positions reached by every level's play
        while not game.is_over:
            actors = game.actors()
            seat = actors[int(rng.random() * len(actors))]  # under manual_draw, draws race plays
            view = game.seat_view(seat)
            for choose in bots:
                action = choose(view, rng)
                assert action in view.legal_actions, (edition, options, seed, view.hand, action)
            positions += 1
            game.apply(seat, policy(view, rng))
    assert positions >= 2000


# --- the public card count ------------------------------------------------------------------------


@pytest.mark.parametrize(("edition", "options"), [OPTION_SETS[0], OPTION_SETS[1], OPTION_SETS[3], OPTION_SETS[8]])
def test_discard_counts_match_the_discard_pile_through_reshuffles_and_hands(
    edition: str, options: dict[str, Any]
) -> None:
    reshuffles = 0
    for seed in range(12):
        game = Game(TableOptions.from_mapping(edition, options), 2 + seed % 4, random.Random(seed))
        rng = random.Random(seed)
        while not game.is_over:
            seat = game.actors()[0]
            view = game.seat_view(seat)
            counts = Counter(game.discard_pile())
            assert view.discard_counts == tuple(counts.get(card, 0) for card in Card)
            assert sum(view.discard_counts) == view.discard_size
            before = game.draw_pile()
            game.apply(seat, get_bot("greedy").choose(view, rng))
            reshuffles += len(game.draw_pile()) > len(before)
    if edition == "1980":  # a 2022 deck of 112 cards rarely runs out
        assert reshuffles > 0


# --- the strong bot's inference and its answer to a Play 2 ------------------------------------------


def test_which_cards_an_opponent_kept_since_which_play_is_inferred() -> None:
    """A 3 played with room 10 (no 4 to 10 held), then a 9: the 9 was drawn after the 3, so the
    three other cards were all held through both plays; the card drawn last is unconstrained."""
    after_three = strong_module._excluded_by(3, 91)  # room 10 before: no 4 .. 10
    after_nine = strong_module._excluded_by(9, 98)  # room 9 before the 9: nothing above it fits
    assert after_three == frozenset(range(4, 11)) and after_nine == frozenset()
    weight = [1.0] * len(Card)
    cumulative, options = strong_module._seat_hypotheses([(3, after_three, 1), (9, after_nine, 1)], 4, weight)
    assert options == [[(3, strong_module._ALL - after_three)]] and len(cumulative) == 1
    # a 4 then a 3 (room 10 each time): the 3 may be the card drawn after the 4 or an older one
    after_four = strong_module._excluded_by(4, 92)
    cumulative, options = strong_module._seat_hypotheses([(4, after_four, 1), (3, after_three, 1)], 4, weight)
    assert len(options) == 2 and cumulative[0] > 0 and cumulative[1] > cumulative[0]
    assert sorted(sum(n for n, _ in groups) for groups in options) == [3, 3]


def test_what_a_1980_play_rules_out_follows_that_edition() -> None:
    """On a 1980 table the total may go negative and Hold is an escape greedy spends after Reverse:
    a -10 from 95 to 85 (room 3) rules out the numbers up to 3 and Reverse and Hold; the same -10
    to -4 came from 6, where every number fits; a Hold rules out Reverse (and Play 2), not -10;
    with ``bust_over_99`` a 2 played at 97 (room 2) rules out nothing above it; a playable
    O'NO 99 (``ono99_on_zero``) goes first, so it rules out nothing."""
    minus_ten = strong_module._excluded_by(int(Card.MINUS_TEN), 85, 98, floor_at_zero=False)
    assert minus_ten == frozenset({0, 1, 2, 3, int(Card.PLAY2), int(Card.REVERSE), int(Card.HOLD)})
    assert strong_module._excluded_by(int(Card.MINUS_TEN), -4, 98, floor_at_zero=False) == frozenset(
        {*range(11), int(Card.PLAY2), int(Card.REVERSE), int(Card.HOLD)})
    assert strong_module._excluded_by(int(Card.HOLD), 93, 98, floor_at_zero=False) == frozenset(
        {0, 1, 2, 3, 4, 5, int(Card.PLAY2), int(Card.REVERSE)})
    assert strong_module._excluded_by(2, 99, 99, floor_at_zero=False) == frozenset()
    assert strong_module._excluded_by(int(Card.ONO99), 40, 98, floor_at_zero=False) == frozenset()
    # 2022 as before: a -10 to 0 may have come from anywhere up to 10, where every number fits
    assert strong_module._excluded_by(int(Card.MINUS_TEN), 0) == frozenset(
        {*range(11), int(Card.PLAY2), int(Card.REVERSE), int(Card.HOLD)})


def _obliged_view(total: int, hand: tuple[Card, ...], players_left: int = 4) -> TableView:
    game = _mid_game("2022", {}, 4, 5, 6)
    view = game.seat_view(game.actors()[0])
    assert view.seat is not None
    legal = tuple(PLAYS[c] for c in dict.fromkeys(hand) if c > Card.N10 or total + int(c) <= 98)
    others = [i for i in range(4) if i != view.seat][:players_left - 1]
    active = tuple(i == view.seat or i in others for i in range(4))
    return view._replace(total=total, hand=hand, legal_actions=legal, active=active,
                         obligation=Obligation(view.seat, 2, True))


def test_strong_departs_from_greedy_where_measured_answering_play_2_and_holding() -> None:
    answer = strong_module._rule
    greedy = get_bot("greedy").choose
    rng = random.Random(1)
    view = _obliged_view(95, (Card.N2, Card.MINUS_TEN, Card.REVERSE, Card.N9))
    assert answer(view, greedy(view, rng)) == PLAYS[Card.MINUS_TEN]
    view = _obliged_view(96, (Card.N2, Card.REVERSE, Card.N9, Card.N9))
    assert answer(view, greedy(view, rng)) == PLAYS[Card.REVERSE]
    # far from 98, with two players left, or for the second card: the greedy choice stands
    for view in (_obliged_view(80, (Card.N2, Card.MINUS_TEN, Card.REVERSE, Card.N9)),
                 _obliged_view(95, (Card.N2, Card.MINUS_TEN, Card.REVERSE, Card.N9), players_left=2)):
        assert answer(view, greedy(view, rng)) is None
    view = _obliged_view(95, (Card.N2, Card.MINUS_TEN, Card.REVERSE, Card.N9))
    assert view.obligation is not None
    second = view._replace(obligation=Obligation(view.obligation.seat, 1, False))
    assert answer(second, greedy(second, rng)) is None
    # two players left: -10 rather than hold with a Reverse, unless the room is 3 or less
    view = _obliged_view(90, (Card.REVERSE, Card.MINUS_TEN, Card.N9, Card.N9), players_left=2)._replace(obligation=None)
    assert greedy(view, rng) == PLAYS[Card.REVERSE] and answer(view, PLAYS[Card.REVERSE]) == PLAYS[Card.MINUS_TEN]
    view = _obliged_view(96, (Card.REVERSE, Card.MINUS_TEN, Card.N9, Card.N9), players_left=2)._replace(obligation=None)
    assert answer(view, greedy(view, rng)) is None


# --- strength --------------------------------------------------------------------------------------


def test_strong_beats_three_random_bots_in_a_seeded_tournament() -> None:
    """100 seeded 4-player 2022 games, seats rotated: a fair share is 25%. The games and the bots'
    choices are seeded, so the count is exact: strong wins 67. Half of them leaves a margin, and a bot
    no stronger than random would win half fewer than once in ten million tournaments."""
    plan = SimulationPlan(100, ("strong", "random", "random", "random"), TableOptions(), seed=2024)
    summary = simulate(plan)
    assert summary.games == 100
    assert summary.wins_by_entry[0] >= 50, summary.wins_by_entry


def test_simulate_runs_the_strong_bot_from_the_command_line() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ono99_tui.cli", "simulate", "--games", "4", "--bots", "strong,greedy,greedy,greedy",
         "--workers", "1", "--json"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert '"level": "strong"' in out.stdout


# --- the strong bot's rollouts play greedy on the real rules -------------------------------------


@pytest.mark.parametrize(("edition", "options"), OPTION_SETS)
def test_the_rollout_policy_is_the_greedy_bot(edition: str, options: dict[str, Any]) -> None:
    """``strong.greedy_move`` reads the rules state the search plays on; in every position of
    seeded games it picks what ``choose_greedy`` picks from the seat's view."""
    table = TableOptions.from_mapping(edition, options)
    greedy = get_bot("greedy").choose
    positions = 0
    for seed in range(12):
        game = Game(table, 2 + seed % 5, random.Random(seed))
        rng = random.Random(seed)
        while not game.is_over:
            seat = game.actors()[0]
            view = game.seat_view(seat)
            action = greedy(view, rng)
            if seat == game.turn and not game.has_open_draw(seat):
                hand, room, obliged = game.on_turn()
                card = strong_module.greedy_move(hand, room, obliged, game.ono99_playable(), edition == "2022")
                assert (DISCARD_FOUR if card is None else PLAYS[card]) == action, (view.hand, view.total)
                positions += 1
            game.apply(seat, action)
    assert positions > 300


@pytest.mark.parametrize(("edition", "options"), [OPTION_SETS[3], OPTION_SETS[7], OPTION_SETS[9]])
def test_strong_searches_1980_tables(edition: str, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """On 1980 tables (tokens and points) the strong bot's search runs and sometimes departs
    from the greedy choice; every choice is legal."""
    monkeypatch.setattr(strong_module, "TURN_BUDGET", 400)
    table = TableOptions.from_mapping(edition, options)
    strong, greedy = get_bot("strong").choose, get_bot("greedy").choose
    departures = 0
    for seed in range(6):
        game = Game(table, 3, random.Random(seed))
        rng = random.Random(seed)
        while not game.is_over and game.hand_index < 2:
            seat = game.actors()[0]
            view = game.seat_view(seat)
            action = strong(view, random.Random(seed))
            assert action in view.legal_actions
            departures += action != greedy(view, rng)
            game.apply(seat, action)
    assert departures > 0
