"""Two searches for the ``strong`` bot's decisions side by side on the same seeded games: its flat
Monte Carlo search (the shipped one, ``ono99_kernel/bots/strong.py``) and an information-set Monte Carlo
tree search (single observer), measured and not shipped (docs/bots.md, "Information-set MCTS").

    python bench/search_methods.py --method ismcts --edition 2022 --games 1000 --seed 11
    python bench/search_methods.py --method flat --edition 1980 --scoring points --games 400 --seed 1

One line per run: wins of the searching seat against three ``greedy`` ones (seats rotated), the 95%
interval, and the decision times' median and p99 (every decision of that seat, choices of one legal
action included).

The tree search: every iteration draws a determinization of the unseen cards (``strong.determinizer``:
the same deals, with the same inference) and walks one tree of the searching seat's own decisions,
shared by all determinizations: at each of its turns it picks among the actions legal in this deal by
UCB1 over how often each was available (subset-armed bandits), adds one node per iteration, and plays
the other seats and the rest of the game greedily. So its own later decisions are searched too, where
the flat search assumes it plays them greedily. At the root it keeps ``strong``'s default choice and
gating, and leaves the default only for an action whose mean beats it by ``CONFIDENCE`` standard
errors (unpaired: the iterations do not share deals between actions).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time

from ono99_kernel.bots import players
from ono99_kernel.bots.basic import choose_greedy
from ono99_kernel.bots.strong import (
    _ONO99_CARD,
    _RolloutChance,
    _rule,
    _searchable,
    _value,
    determinizer,
    greedy_move,
)
from ono99_kernel.core.actions import Action, ActionKind
from ono99_kernel.core.cards import Card, Edition
from ono99_kernel.core.options import TableOptions
from ono99_kernel.core.state import State
from ono99_kernel.core.view import SeatView
from ono99_tui.simulate import SimulationPlan, simulate

TURN_BUDGET = 6000
MIN_ITERATIONS = 24
MAX_ITERATIONS = 600
EXPLORATION = 0.7
CONFIDENCE = 1.5
SEARCH_ROOM = 10
ROLLOUT_TURNS = 400


class _Node:
    __slots__ = ("available", "children", "squares", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0
        self.squares = 0.0


def _apply(state: State, action: Action) -> None:
    if action.kind is ActionKind.DISCARD_FOUR:
        state.discard_four()
    else:
        assert action.card is not None
        state.play(action.card)


def _iterate(state: State, me: int, root: _Node, rng: random.Random, scores: tuple[int, ...] | None,
             exploration: float) -> int:
    """One iteration on one determinization: select and expand in the tree of ``me``'s decisions,
    play greedily to the end, back the value up. Returns the turns simulated."""
    node: _Node | None = root
    path: list[_Node] = []
    steps = 0
    four_discard = state.options.edition is Edition.E2022
    while not state.over and steps < ROLLOUT_TURNS:
        steps += 1
        if node is not None and state.seat_on_turn == me:
            moves = [a for a in state.moves() if a.kind is not ActionKind.DRAW]
            if len(moves) > 1:
                children = node.children
                untried = []
                for action in moves:
                    child = children.get(action)
                    if child is None:
                        untried.append(action)
                    else:
                        child.available += 1
                if untried:
                    action = untried[int(rng.random() * len(untried))]
                    child = children[action] = _Node()
                    child.available = 1
                    path.append(child)
                    node = None  # expanded: the rest is a rollout
                else:
                    best_score = -1.0
                    action = moves[0]
                    for candidate in moves:
                        child = children[candidate]
                        score = (child.total / child.visits
                                 + exploration * math.sqrt(math.log(child.available) / child.visits))
                        if score > best_score:
                            best_score, action = score, candidate
                    node = children[action]
                    path.append(node)
                _apply(state, action)
                continue
        hand, room, obliged = state.on_turn()
        card = greedy_move(hand, room, obliged, _ONO99_CARD in hand and state.ono99_playable(), four_discard)
        if card is None:
            state.discard_four()
        else:
            state.play(card)
    value = _value(state, me, scores)
    for visited in path:
        visited.visits += 1
        visited.total += value
        visited.squares += value * value
    return steps


def choose_ismcts(view: SeatView, rng: random.Random, exploration: float = EXPLORATION) -> Action:
    legal = view.legal_actions
    if len(legal) == 1 or not _searchable(view):
        return choose_greedy(view, rng)
    options = view.options
    greedy = choose_greedy(view, rng)
    first = (_rule(view, greedy) if options.edition is Edition.E2022 else None) or greedy
    room = options.limit - view.total
    if (first.card is not None and first.card <= Card.N10 and room > SEARCH_ROOM
            and sum(view.in_hand) >= 3):
        return first
    me = view.seat
    assert me is not None
    determinize = determinizer(view)
    root = _Node()
    spent = iterations = 0
    while iterations < MAX_ITERATIONS and (spent < TURN_BUDGET or iterations < MIN_ITERATIONS):
        iterations += 1
        state = determinize(rng).clone(_RolloutChance(random.Random(rng.getrandbits(32))))
        state.watch = me
        spent += _iterate(state, me, root, rng, view.scores, exploration)
    default = root.children.get(first)
    if default is None or default.visits == 0:
        return first
    base = default.total / default.visits
    base_var = max(default.squares / default.visits - base * base, 1e-9) / default.visits
    best, best_gain = first, 0.0
    for action, child in root.children.items():
        if child is default or child.visits < 2:
            continue
        mean = child.total / child.visits
        var = max(child.squares / child.visits - mean * mean, 1e-9) / child.visits
        gain = mean - base
        if gain > best_gain and gain > CONFIDENCE * math.sqrt(var + base_var):
            best, best_gain = action, gain
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--method", choices=["flat", "ismcts"], default="ismcts")
    parser.add_argument("--edition", choices=["2022", "1980"], default="2022")
    parser.add_argument("--scoring", choices=["tokens", "points"], default="tokens", help="1980 only")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--exploration", type=float, default=EXPLORATION)
    args = parser.parse_args(argv)
    level = players.BOT_PLAYERS["strong"]
    flat = level.choose

    def chooser(view: SeatView, rng: random.Random) -> Action:
        return choose_ismcts(view, rng, args.exploration) if args.method == "ismcts" else flat(view, rng)
    times: list[float] = []

    def timed(view: SeatView, rng: random.Random) -> Action:
        start = time.perf_counter()
        action = chooser(view, rng)
        times.append(time.perf_counter() - start)
        return action

    players.BOT_PLAYERS["strong"] = players.BotPlayer(level.level, timed, None)
    options = (TableOptions() if args.edition == "2022"
               else TableOptions.from_mapping("1980", {"scoring": args.scoring}))
    plan = SimulationPlan(args.games, ("strong", "greedy", "greedy", "greedy"), options, args.seed)
    entry = simulate(plan, 1, None).to_json()["bots"][0]
    times.sort()
    low, high = entry["ci95"]
    print(f"{args.method} {args.edition} {args.scoring if args.edition == '1980' else ''} seed {args.seed}: "
          f"{entry['wins']} of {args.games} won, {entry['rate']:.1%} [{low:.1%}, {high:.1%}]; decisions "
          f"median {times[len(times) // 2] * 1000:.1f} ms, p99 {times[int(0.99 * len(times))] * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
