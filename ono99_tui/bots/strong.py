"""The ``strong`` bot: card counting and Monte Carlo search over the hidden cards.

It decides from its seat's view alone. What it counts is public: the deck of the edition, its own
hand, and the cards lying face up on the discard pile (``view.discard_counts``). Every other card
is unseen: in an opponent's hand, in the draw pile, or out of play with an eliminated player.

On a 2022 table (drawing automatically) it starts from the greedy choice with a few fixed
departures (``_rule``: answering a Play 2 near 98, -10 rather than a Reverse with two players
left), and with three or more players searches only when the total leaves 10 or less or no
number is due: there, far from 98, the search's departures from a number lost more than they won.
The search deals the unseen cards into possible opponent hands and a possible draw pile many
times (a *determinization*), and for each of its distinct legal actions plays the game on to
the end with the greedy policy at every seat. Each action is tried on the same deals (common
random numbers), and it leaves the default choice only for an action that won clearly more
often on them (``CONFIDENCE`` standard errors of the paired difference). The deals are not
uniform:

- opponents hold more escapes (-10, Reverse, Play 2) and ONO 99 cards than the draw pile does,
  because those are the cards players keep or cannot play, so the deal weights each kind by how
  much more often it is found in a hand than in the unseen pool (``HAND_BIAS``, measured once in
  heuristic games);
- an opponent's plays in the view's recent events rule cards out of what it kept
  (``_inferred_holds``): who played an escape had no number that fitted, who played a 3 had no
  fitting number above 3; which of its cards it has kept since which play is itself inferred
  (``_seat_hypotheses``).

The search is bounded by a budget of simulated turns, not by a clock, so that a decision takes
about the same time on every call and a seeded game replays identically. Elsewhere (1980 tables,
``manual_draw``) it plays as the greedy bot does.
"""

from __future__ import annotations

import random

from ..core.actions import PLAYS, Action, ActionKind
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
MAX_PLAYS = 5  # an opponent's latest plays that _inferred_holds reads
FULL_ROLLOUTS = True  # False: a rollout stops at the next player out
CONFIDENCE = 1.5  # standard errors by which an action must beat the default choice
SEARCH_ROOM = 10  # with 3+ players: search only with this much room or less, or no number due
ANSWER_ROOM = 10  # see _rule
_PLAY_MINUS_TEN = PLAYS[Card.MINUS_TEN]


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
    first: int | None = None,
) -> tuple[float, int]:
    """Play on with the greedy policy at every seat until ``me`` wins or is out (or, without
    ``FULL_ROLLOUTS``, until the next player is out), or ``budget`` turns have passed. Returns
    ``me``'s value (1 won, 0 out, 1 / players left when cut short) and the turns simulated.
    ``first``: the card (or ``_FOUR``) the seat on turn plays first instead of greedy's, a turn
    that is not counted."""
    n = len(hands)
    nalive = alive.count(True)
    steps = 0
    while steps < budget:
        hand = hands[turn]
        if first is not None:
            card, first = first, None
        else:
            steps += 1
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
Hypotheses = tuple[list[float], list[list[tuple[int, frozenset[int]]]]]


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


def _seat_hypotheses(plays: list[tuple[int, frozenset[int], int]], size: int,
                     weight: list[float]) -> Hypotheses:
    """Which of a player's cards it has held since which of its ``plays`` (card, kinds excluded,
    cards drawn after; oldest first), with each hypothesis' likelihood.

    Its cards fall in cohorts: those held before its oldest play, and those drawn after each play.
    A card of a cohort passed every play since it was drawn, so it is outside what they exclude;
    a played card came from a cohort that could hold it. Every card is a draw from the unseen
    cards (``weight``), so a hypothesis weighs the ways to pick the played cards from their
    cohorts times, for each card still held, the chance that a draw is allowed in its cohort.
    """
    plays = plays[-MAX_PLAYS:]
    m = len(plays)
    total = sum(weight) or 1.0
    leaves: list[tuple[float, list[int]]] = []

    def walk(j: int, counts: list[int], w: float) -> None:
        if j == m:
            leaves.append((w, counts))
            return
        card, _, drawn = plays[j]
        for c in range(j + 1):  # cohort c >= 1 was drawn after play c - 1: it passed plays c .. j - 1
            n = counts[c]
            if n > 0 and not any(card in plays[k][1] for k in range(c, j)):
                nxt = list(counts)
                nxt[c] -= 1
                nxt.append(drawn)
                walk(j + 1, nxt, w * n)

    walk(0, [max(size + m - sum(p[2] for p in plays), 0)], 1.0)
    merged: dict[tuple[tuple[int, frozenset[int]], ...], float] = {}
    for w, counts in leaves:
        groups: list[tuple[int, frozenset[int]]] = []
        for c, n in enumerate(counts):
            excluded: frozenset[int] = frozenset().union(*(plays[k][1] for k in range(c, m)))
            if n > 0 and excluded:
                allowed = _ALL - excluded
                w *= (sum(weight[x] for x in allowed) / total) ** n
                groups.append((n, allowed))
        groups.sort(key=lambda g: len(g[1]))  # the most constrained cohort is dealt first
        key = tuple(groups)
        merged[key] = merged.get(key, 0.0) + w
    if not merged:  # no consistent hypothesis: not a greedy player, assume nothing
        return [1.0], [[]]
    cumulative: list[float] = []
    options: list[list[tuple[int, frozenset[int]]]] = []
    acc = 0.0
    for key, w in merged.items():
        acc += w
        cumulative.append(acc)
        options.append(list(key))
    return cumulative, options


def _inferred_holds(view: SeatView, pool_counts: list[int]) -> list[Hypotheses]:
    """What each opponent's plays, in the view's recent events, say about the cards it kept.

    A player who plays a number had no bigger number that fitted; one who plays an escape had no
    number that fitted, and escapes are spent Play 2 first, then Reverse, then -10 (the common
    way to play, and the greedy bot's). Returns, per seat, hypotheses (``_seat_hypotheses``) of
    groups (how many of its cards, which kinds they may be); the rest of its hand is unconstrained.
    """
    seats = view.seats
    # per seat, for each of its plays, oldest first: (card, excluded kinds), and cards drawn after
    plays: list[list[tuple[int, frozenset[int]]]] = [[] for _ in range(seats)]
    drawn: list[list[int]] = [[] for _ in range(seats)]
    for event in view.recent_events:
        if type(event) is Played:
            seat = event.seat
            if len(event.cards) == 1:
                card = int(event.cards[0])
                plays[seat].append((card, _excluded_by(card, event.total)))
                drawn[seat].append(0)
            else:  # the four-card discard: a new hand, nothing known
                plays[seat].clear()
                drawn[seat].clear()
        elif type(event) is Drew and drawn[event.seat]:
            drawn[event.seat][-1] += 1
    weight = [float(n) for n in pool_counts]
    out: list[Hypotheses] = []
    for seat in range(seats):
        if seat == view.seat or not plays[seat]:
            out.append(([1.0], [[]]))
        else:
            history = [(card, excluded, d) for (card, excluded), d in zip(plays[seat], drawn[seat], strict=True)]
            out.append(_seat_hypotheses(history, view.hand_sizes[seat], weight))
    return out


def _pick(hypotheses: list[Hypotheses], rng: random.Random) -> Holds:
    """One hypothesis per seat, drawn by likelihood."""
    out: Holds = []
    for cumulative, options in hypotheses:
        i = 0
        if len(options) > 1:
            r = rng.random() * cumulative[-1]
            while cumulative[i] < r:
                i += 1
        out.append(options[i])
    return out


_ALL = frozenset(range(KINDS))


def _deal(view: SeatView, pool: list[int], holds: Holds, rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """One possible placement of the unseen cards: opponents' hands drawn with ``HAND_BIAS``
    weights (Efraimidis-Spirakis keys) and within what their plays allow, then a uniformly
    shuffled draw pile."""
    rand = rng.random
    inv = _INV_BIAS
    # keys in a comprehension and one C sort: a key function per card costs three times as much
    keys = [rand() ** inv[c] for c in pool]
    keyed = [pool[i] for i in sorted(range(len(pool)), key=keys.__getitem__, reverse=True)]
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
    keys = [rand() for _ in rest]
    order = sorted(range(len(rest)), key=keys.__getitem__)
    return hands, [rest[i] for i in order[:view.draw_pile_size]]


def _rule(view: SeatView, greedy: Action) -> Action | None:
    """Where a fixed departure from the greedy choice measured better with every hand known
    (docs/bots.md):

    - two players left, room 4 or more, greedy would hold with a Reverse: -10 instead;
    - answering a Play 2 (its first card) with three or more players left: -10 when the total
      leaves 10 or less (room for the second card, escapes kept); at 3 or less without one,
      pass the obligation on (Play 2, then Reverse) rather than play a number.
    """
    legal = view.legal_actions
    room = LIMIT_2022 - view.total
    players = sum(view.active)
    if players == 2:
        if greedy.card is Card.REVERSE and room >= 4 and _PLAY_MINUS_TEN in legal:
            return _PLAY_MINUS_TEN
        return None
    obligation = view.obligation
    if obligation is None or obligation.plays_left != 2 or greedy.card is None or greedy.card is Card.MINUS_TEN:
        return None
    if room <= ANSWER_ROOM and _PLAY_MINUS_TEN in legal:
        return _PLAY_MINUS_TEN
    if room <= 3 and greedy.card <= Card.N10:
        for card in (Card.PLAY2, Card.REVERSE):
            if PLAYS[card] in legal:
                return PLAYS[card]
    return None


def choose_strong(view: SeatView, rng: random.Random) -> Action:
    legal = view.legal_actions
    if len(legal) == 1 or not _searchable(view):
        return choose_greedy(view, rng)
    greedy = choose_greedy(view, rng)
    first = _rule(view, greedy) or greedy
    if (first.card is not None and first.card <= Card.N10 and view.total < LIMIT_2022 - SEARCH_ROOM
            and sum(view.active) >= 3):
        return first  # far from 98 the search's departures from a number lost more than they won
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
    my_hand = [int(c) for c in view.hand]
    pool_counts = [_DECK_2022[k] - mine[k] - seen[k] for k in range(KINDS)]
    hypotheses = _inferred_holds(view, pool_counts) if INFER else [([1.0], [[]])] * view.seats

    default = candidates.index(first)
    scores = [0.0] * len(candidates)
    squares = [0.0] * len(candidates)  # of each action's value minus the default action's
    values = [0.0] * len(candidates)
    spent = 0
    deals = 0
    while deals < MAX_DEALS and (spent < TURN_BUDGET or deals < MIN_DEALS):
        deals += 1
        hands0, draw0 = _deal(view, pool, _pick(hypotheses, rng), rng)
        hands0[me] = my_hand
        seed = rng.getrandbits(32)
        for i, action in enumerate(candidates):
            hands = [list(h) for h in hands0]
            draw = list(draw0)
            discard = list(discard_base)
            if action.kind is ActionKind.DISCARD_FOUR:
                card = _FOUR
            else:
                assert action.card is not None
                card = int(action.card)
            value, steps = _rollout(hands, draw, discard, view.total, view.direction, me, plays_left, obliged,
                                    list(alive0), me, random.Random(seed), 400, first=card)
            values[i] = value
            spent += steps
        base = values[default]
        for i, value in enumerate(values):
            scores[i] += value - base
            squares[i] += (value - base) ** 2
    # Leave the default choice only for an action that is better by a clear margin over
    # the same deals: chasing noise costs more than the search gains.
    best = default
    best_mean = 0.0
    for i in range(len(candidates)):
        mean = scores[i] / deals
        var = max(squares[i] / deals - mean * mean, 1e-9)
        if mean > best_mean and mean > CONFIDENCE * (var / deals) ** 0.5:
            best, best_mean = i, mean
    return candidates[best]

