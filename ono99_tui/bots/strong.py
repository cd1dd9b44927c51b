"""The ``strong`` bot: card counting and Monte Carlo search over the hidden cards.

It decides from its seat's view alone. What it counts is public: the deck of the edition, its own
hand, and the cards lying face up on the discard pile (``view.discard_counts``). Every other card
is unseen: in an opponent's hand, in the draw pile, or out of play with an eliminated player.

On a 2022 table (drawing automatically) it searches: it deals the unseen cards into possible
opponent hands and a possible draw pile many times (a *determinization*), and for each of its
distinct legal actions plays the game on to the end with the greedy policy at every seat. Each
action is tried on the same deals (common random numbers), and it leaves the greedy choice only
for an action that won clearly more often on them (``CONFIDENCE`` standard errors of the paired
difference). The deals are not uniform:

- opponents hold more escapes (-10, Reverse, Play 2) and ONO 99 cards than the draw pile does,
  because those are the cards players keep or cannot play, so the deal weights each kind by how
  much more often it is found in a hand than in the unseen pool (``HAND_BIAS``, measured once in
  heuristic games);
- an opponent's plays in the view's recent events rule cards out of what it kept
  (``_inferred_holds``): who played an escape had no number that fitted, who played a 3 had no
  fitting number above 3.

The search is bounded by a budget of simulated turns, not by a clock, so that a decision takes
about the same time on every call and a seeded game replays identically. Elsewhere (1980 tables,
``manual_draw``) it plays as the greedy bot does.
"""

from __future__ import annotations

import random

from ..core.actions import Action, ActionKind
from ..core.cards import DECK_COUNTS, Card, Edition
from ..core.events import Drew, Played
from ..core.options import Scoring
from ..core.view import SeatView
from .basic import choose_greedy

KINDS = len(Card)
_MINUS_TEN = int(Card.MINUS_TEN)
_REVERSE = int(Card.REVERSE)
_PLAY2 = int(Card.PLAY2)
_ONO99 = int(Card.ONO99)
_FOUR = -1  # the four-ONO 99 discard, in the rollout's card numbering
LIMIT_2022 = 98
HAND = 4

_DECK_2022 = tuple(DECK_COUNTS[Edition.E2022].get(Card(k), 0) for k in range(KINDS))

# How much more often a kind sits in an opponent's hand than its share of the unseen pool
# suggests (ratio of actual to uniform expectation, 600 four-player greedy games).
HAND_BIAS: tuple[float, ...] = (
    0.91, 0.86, 0.87, 0.81, 0.73, 0.72, 0.64, 0.65, 0.61, 0.55, 0.54,  # 0 .. 10
    1.62, 1.30, 1.11,  # -10, Reverse, Play 2
    1.0, 1.0,  # Double Play, Hold (1980 only)
    1.77,  # ONO 99
)
_INV_BIAS = tuple(1.0 / w for w in HAND_BIAS)

# Work budget per decision, in simulated turns (a few µs each), and the fewest and most deals.
TURN_BUDGET = 6000
MAX_DEALS = 120
MIN_DEALS = 8
INFER = True  # use _inferred_holds (False: only HAND_BIAS)
FULL_ROLLOUTS = True  # False: a rollout stops at the next player out
CONFIDENCE = 1.5  # standard errors by which an action must beat the greedy choice


# --- the rollout ---------------------------------------------------------------------------------
def _rollout(
    hands: list[list[int]],
    draw: list[int],
    discard: list[int],
    total: int,
    direction: int,
    turn: int,
    plays_left: int,
    obliged: bool,
    alive: list[bool],
    me: int,
    rng: random.Random,
    budget: int,
) -> tuple[float, int]:
    """Play on with the greedy policy at every seat until ``me`` wins or is out (or, without
    ``FULL_ROLLOUTS``, until the next player is out), or ``budget`` turns have passed. Returns
    ``me``'s value (1 won, 0 out, 1 / players left when cut short) and the turns simulated."""
    n = len(hands)
    nalive = alive.count(True)
    steps = 0
    while steps < budget:
        steps += 1
        hand = hands[turn]
        room = LIMIT_2022 - total
        best = -1
        esc = 0
        onos = 0
        for c in hand:
            if c <= 10:
                if best < c <= room:
                    best = c
            elif c == _ONO99:
                onos += 1
            elif c > esc:
                esc = c  # 13 Play 2 > 12 Reverse > 11 -10: greedy's order of escapes
        if onos == 4:
            card = _FOUR
        elif best >= 0:
            card = best
        elif esc:
            card = esc
        else:
            # out: no legal play
            if turn == me:
                return 0.0, steps
            if not FULL_ROLLOUTS or nalive == 2:
                return 1.0, steps
            alive[turn] = False
            nalive -= 1
            nxt = (turn + direction) % n
            while not alive[nxt]:
                nxt = (nxt + direction) % n
            turn = nxt
            plays_left = 1
            obliged = False
            continue
        seat = turn
        if card == _FOUR:
            for _ in range(4):
                hand.remove(_ONO99)
            discard.extend((_ONO99,) * 4)
        else:
            hand.remove(card)
            discard.append(card)
            if card <= 10:
                total += card
            elif card == _MINUS_TEN:
                total = total - 10 if total > 10 else 0
            elif card == _REVERSE and nalive > 2:
                direction = -direction
        while len(hand) < HAND:
            if not draw:
                if len(discard) < 2:
                    break
                top = discard.pop()
                draw = discard
                rng.shuffle(draw)
                discard = [top]
            hand.append(draw.pop())
        passes_on = obliged and card in (_REVERSE, _PLAY2)
        if plays_left == 2 and not passes_on:
            plays_left = 1
            obliged = False
        else:
            nxt = (seat + direction) % n
            while not alive[nxt]:
                nxt = (nxt + direction) % n
            turn = nxt
            pending = passes_on or card == _PLAY2
            plays_left = 2 if pending else 1
            obliged = pending
    return 1.0 / nalive, steps


def _searchable(view: SeatView) -> bool:
    options = view.options
    return (options.edition is Edition.E2022 and options.scoring is Scoring.ELIMINATION
            and not options.manual_draw and view.seat is not None and view.turn == view.seat)


Holds = list[list[tuple[int, frozenset[int]]]]


def _excluded_by(card: int, after: int) -> frozenset[int]:
    """The kinds a player did not hold when it played ``card`` to make ``after`` (see
    ``_inferred_holds``)."""
    if card <= 10:
        room = LIMIT_2022 - (after - card)
        return frozenset(range(card + 1, min(room, 10) + 1))
    # -10 to 0 was played from 10 or less, where every number fits
    before = after if card != _MINUS_TEN else after + 10 if after > 0 else 0
    excluded = set(range(min(LIMIT_2022 - before, 10) + 1))
    if card == _REVERSE:
        excluded.add(_PLAY2)
    elif card == _MINUS_TEN:
        excluded.update((_PLAY2, _REVERSE))
    return frozenset(excluded)


def _inferred_holds(view: SeatView) -> Holds:
    """What each opponent's plays, in the view's recent events, say about the cards it kept.

    A player who plays a number had no bigger number that fitted; one who plays an escape had no
    number that fitted, and escapes are spent Play 2 first, then Reverse, then -10 (the common
    way to play, and the greedy bot's). Every card a player held at a play and still holds is
    outside what that play excludes. Returns, per seat, groups (how many of its cards, which kinds
    they may be), most constrained first; the rest of its hand is unconstrained.
    """
    seats = view.seats
    # per seat: [excluded kinds, cards drawn since] for each of its plays in the window, oldest first
    plays: list[list[list[object]]] = [[] for _ in range(seats)]
    for event in view.recent_events:
        if type(event) is Played:
            if len(event.cards) == 1:
                plays[event.seat].append([_excluded_by(int(event.cards[0]), event.total), 0])
            else:
                plays[event.seat].clear()  # the four-card discard: a new hand, nothing known
        elif type(event) is Drew:
            for entry in plays[event.seat]:
                entry[1] += 1  # type: ignore[operator]
    out: Holds = []
    for seat in range(seats):
        groups: list[tuple[int, frozenset[int]]] = []
        if seat != view.seat:
            size = view.hand_sizes[seat]
            excluded: frozenset[int] = frozenset()
            placed = 0
            # newest play first: the cards held since an older play also passed every newer one
            for exc, drawn in reversed(plays[seat]):
                excluded = excluded | exc  # type: ignore[operator]
                held = size - drawn  # type: ignore[operator]
                if held - placed > 0 and excluded:
                    groups.append((held - placed, _ALL - excluded))
                    placed = held
        groups.reverse()  # the oldest play's group is the most constrained: deal it first
        out.append(groups)
    return out


_ALL = frozenset(range(KINDS))


def _deal(view: SeatView, pool: list[int], holds: Holds, rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """One possible placement of the unseen cards: opponents' hands drawn with ``HAND_BIAS``
    weights (Efraimidis-Spirakis keys) and within what their plays allow, then a uniformly
    shuffled draw pile."""
    rand = rng.random
    inv = _INV_BIAS
    keyed = sorted(pool, key=lambda c: rand() ** inv[c], reverse=True)
    me = view.seat
    sizes = view.hand_sizes
    hands: list[list[int]] = [[] for _ in sizes]
    used = [False] * len(keyed)
    for seat, groups in enumerate(holds):
        hand = hands[seat]
        for count, allowed in groups:
            want = len(hand) + count
            for i, card in enumerate(keyed):
                if not used[i] and card in allowed:
                    used[i] = True
                    hand.append(card)
                    if len(hand) == want:
                        break
    free = [card for i, card in enumerate(keyed) if not used[i]]
    need = [0 if s == me else sizes[s] for s in range(len(sizes))]
    taken = 0
    seats = [s for s in range(len(sizes)) if need[s] > len(hands[s])]
    while seats:  # round robin, so no opponent is dealt the heavy cards first
        for s in seats:
            hands[s].append(free[taken])
            taken += 1
        seats = [s for s in seats if need[s] > len(hands[s])]
    rest = free[taken:]
    rng.shuffle(rest)
    return hands, rest[:view.draw_pile_size]


def choose_strong(view: SeatView, rng: random.Random) -> Action:
    legal = view.legal_actions
    if len(legal) == 1 or not _searchable(view):
        return choose_greedy(view, rng)
    me = view.seat
    assert me is not None
    candidates: list[Action] = list(legal)
    pool: list[int] = []
    seen = view.discard_counts
    mine = [0] * KINDS
    for c in view.hand:
        mine[c] += 1
    for k in range(KINDS):
        pool.extend([k] * (_DECK_2022[k] - mine[k] - seen[k]))
    discard_base: list[int] = []
    top = view.top_card
    for k in range(KINDS):
        count = seen[k] - (1 if top is not None and k == top else 0)
        discard_base.extend([k] * count)
    if top is not None:
        discard_base.append(int(top))
    obligation = view.obligation
    plays_left = obligation.plays_left if obligation is not None else 1
    obliged = obligation.can_pass if obligation is not None else False
    alive0 = list(view.active)
    nalive = alive0.count(True)
    my_hand = [int(c) for c in view.hand]
    holds: Holds = _inferred_holds(view) if INFER else [[] for _ in range(view.seats)]

    default = candidates.index(choose_greedy(view, rng))
    scores = [0.0] * len(candidates)
    squares = [0.0] * len(candidates)  # of each action's value minus the default action's
    values = [0.0] * len(candidates)
    spent = 0
    deals = 0
    while deals < MAX_DEALS and (spent < TURN_BUDGET or deals < MIN_DEALS):
        deals += 1
        hands0, draw0 = _deal(view, pool, holds, rng)
        hands0[me] = my_hand
        seed = rng.getrandbits(32)
        for i, action in enumerate(candidates):
            hands = [list(h) for h in hands0]
            draw = list(draw0)
            discard = list(discard_base)
            hand = hands[me]
            total = view.total
            direction = view.direction
            if action.kind is ActionKind.DISCARD_FOUR:
                for _ in range(4):
                    hand.remove(_ONO99)
                discard.extend((_ONO99,) * 4)
                card = _FOUR
            else:
                assert action.card is not None
                card = int(action.card)
                hand.remove(card)
                discard.append(card)
                if card <= 10:
                    total += card
                elif card == _MINUS_TEN:
                    total = total - 10 if total > 10 else 0
                elif card == _REVERSE and nalive > 2:
                    direction = -direction
            rr = random.Random(seed)
            while len(hand) < HAND:
                if not draw:
                    if len(discard) < 2:
                        break
                    t = discard.pop()
                    draw = discard
                    rr.shuffle(draw)
                    discard = [t]
                hand.append(draw.pop())
            passes_on = obliged and card in (_REVERSE, _PLAY2)
            if plays_left == 2 and not passes_on:
                turn, pl, ob = me, 1, False
            else:
                nxt = (me + direction) % len(hands)
                while not alive0[nxt]:
                    nxt = (nxt + direction) % len(hands)
                pending = passes_on or card == _PLAY2
                turn, pl, ob = nxt, (2 if pending else 1), pending
            value, steps = _rollout(hands, draw, discard, total, direction, turn, pl, ob, list(alive0),
                                    me, rr, 400)
            values[i] = value
            spent += steps
        base = values[default]
        for i, value in enumerate(values):
            scores[i] += value - base
            squares[i] += (value - base) ** 2
    # Leave the greedy choice only for an action that is better by a clear margin over
    # the same deals: chasing noise costs more than the search gains.
    best = default
    best_mean = 0.0
    for i in range(len(candidates)):
        mean = scores[i] / deals
        var = max(squares[i] / deals - mean * mean, 1e-9)
        if mean > best_mean and mean > CONFIDENCE * (var / deals) ** 0.5:
            best, best_mean = i, mean
    return candidates[best]

