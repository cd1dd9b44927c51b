"""The ``strong`` bot: card counting and Monte Carlo search over the hidden cards.

It decides from its seat's view alone. What it counts is public: the deck of the edition, its own
hand, and the cards lying face up on the discard pile (``view.discard_counts``). Every other card
is unseen: in an opponent's hand, in the draw pile, or out of play with an eliminated player.

On a 2022 table it starts from the greedy choice with a few fixed departures (``_rule``:
answering a Play 2 near 98, -10 rather than a Reverse with two players left); on a 1980 table from
the greedy choice. With three or more players in the hand it searches only when the total leaves
10 or less or no number is due: there, far from the limit, the search's departures from a number
lost more than they won. The search deals the unseen cards into possible opponent hands and a
possible draw pile many times (a *determinization*), builds the table from each deal with the
engine's own rules state (``State.position``), and for each of its distinct legal actions plays a
copy of it (``State.clone``) on with the greedy policy at every seat: to the end of the game on a
2022 table, to the end of the hand on a 1980 one (tokens: did it lose the hand; points: its share,
among the seats still in the match, of what they have left under the target after the hand).
Each action is tried on the same deals (common random numbers), and it leaves the default choice
only for an action that did clearly better on them (``CONFIDENCE`` standard errors of the paired
difference). The deals are not uniform:

- opponents hold more escapes (-10, Reverse, Play 2) and ONO 99 cards than the draw pile does,
  because those are the cards players keep or cannot play, so the deal weights each kind by how
  much more often it is found in a hand than in the unseen pool (``HAND_BIAS``, measured once in
  heuristic games);
- an opponent's plays in the view's recent events rule cards out of what it kept
  (``_inferred_holds``): who played an escape had no number that fitted, who played a 3 had no
  fitting number above 3; which of its cards it has kept since which play is itself inferred
  (``_seat_hypotheses``).

The inference from plays (``_inferred_holds``) knows either edition's limit and escapes, but reads
2022 plays only (``INFER_1980``: on 1980 points tables it measured no clear gain); on 1980 tables
the deals use ``HAND_BIAS`` alone. Under ``manual_draw`` the rollouts have every seat take its draw at once,
as bots do. The search is bounded by a budget of simulated turns, not by a clock, so that a
decision takes about the same time on every call and a seeded game replays identically.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from ..core.actions import PLAYS, Action, ActionKind
from ..core.cards import DECK_COUNTS, Card, Edition
from ..core.events import Drew, Played
from ..core.options import Scoring
from ..core.state import State
from ..core.view import SeatView
from .basic import ESCAPE_ORDER, choose_greedy

KINDS = len(Card)
_MINUS_TEN = int(Card.MINUS_TEN)
_REVERSE = int(Card.REVERSE)
_PLAY2 = int(Card.PLAY2)
_ONO99 = int(Card.ONO99)
LIMIT_2022 = 98

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
INFER_1980 = False  # also on 1980 tables: measured no clear gain on points tables (docs/bots.md)
MAX_PLAYS = 5  # an opponent's latest plays that _inferred_holds reads
CONFIDENCE = 1.5  # standard errors by which an action must beat the default choice
ROLLOUT_TURNS = 400  # a rollout longer than this stops and counts as a share of the win
SEARCH_ROOM = 10  # with 3+ players: search only with this much room or less, or no number due
ANSWER_ROOM = 10  # see _rule
_PLAY_MINUS_TEN = PLAYS[Card.MINUS_TEN]


# --- the rollout ---------------------------------------------------------------------------------
# Greedy's preference among the cards that change the total by nothing or less (``ESCAPE_ORDER``),
# by card kind; 0 for numbers and O'NO 99.
_ESCAPE_RANK = [0] * KINDS
for _rank, _card in enumerate(reversed(ESCAPE_ORDER), start=1):
    _ESCAPE_RANK[_card] = _rank
_CARDS = tuple(Card)
_DOUBLE = Card.DOUBLE
_ONO99_CARD = Card.ONO99


class _NoChance:
    """The chance of a position itself: its clones get their own (``_RolloutChance``)."""

    def choose_dealer(self, seats: int) -> int:
        raise AssertionError("a position does not deal")

    def deal(self, hand: int, deck: list[Card], receivers: Sequence[int]) -> tuple[dict[int, list[Card]], list[Card]]:
        raise AssertionError("a position does not deal")

    def reshuffle(self, cards: list[Card]) -> list[Card]:
        raise AssertionError("a position is cloned before it is played")


_NO_CHANCE = _NoChance()


class _RolloutChance:
    """Reshuffles inside a rollout, from one seeded generator (the same for every candidate of a
    deal: common random numbers)."""

    __slots__ = ("shuffle",)

    def __init__(self, rng: random.Random) -> None:
        self.shuffle = rng.shuffle

    def choose_dealer(self, seats: int) -> int:  # a rollout never deals: it stops at the hand's end
        raise AssertionError("a rollout does not deal")

    def deal(self, hand: int, deck: list[Card], receivers: Sequence[int]) -> tuple[dict[int, list[Card]], list[Card]]:
        raise AssertionError("a rollout does not deal")

    def reshuffle(self, cards: list[Card]) -> list[Card]:
        self.shuffle(cards)
        return cards


def greedy_move(hand: Sequence[Card], room: int, obliged: bool, ono99_playable: bool,
                four_discard: bool) -> Card | None:
    """The greedy bot's choice (``choose_greedy``) from the seat on turn's hand: the card it plays,
    or None for the four-ONO 99 discard. ``room``: how much the total may still grow;
    ``obliged``: the first card of a Play 2 / Double Play is due (a Double Play cannot be it);
    ``ono99_playable``: an O'NO 99 may be played now; ``four_discard``: the 2022 four-card
    discard exists."""
    best = -1
    esc = 0
    onos = 0
    for c in hand:
        if c <= 10:
            if best < c <= room:
                best = c
        elif c is _ONO99_CARD:
            onos += 1
        elif _ESCAPE_RANK[c] > esc and (c is not _DOUBLE or not obliged):
            esc = _ESCAPE_RANK[c]
    if onos >= 4 and four_discard:
        return None
    if onos and ono99_playable:
        return _ONO99_CARD
    if best >= 0:
        return _CARDS[best]
    if esc:
        return ESCAPE_ORDER[len(ESCAPE_ORDER) - esc]
    raise ValueError("no legal play (a settled table has knocked such a seat out)")


def _rollout(state: State, me: int, budget: int, scores: Sequence[int] | None = None) -> tuple[float, int]:
    """Play on with the greedy policy at every seat until the table's end for ``me``: on a 2022
    table until ``me`` is out (``state.watch``) or wins, on a 1980 table until the hand ends (the
    next deal is not known). Returns ``me``'s value and the turns simulated. Value: 2022, 1 won,
    0 out, 1 / players left when the budget ran out; 1980 tokens, 0 if ``me`` lost the hand, else
    1; 1980 points, 1 won the match, 0 out of it, else ``me``'s share of what the seats still in
    have left under the target after the hand (``scores``: the match's scores before it)."""
    steps = 0
    four_discard = state.options.edition is Edition.E2022
    play = state.play
    on_turn = state.on_turn
    while not state.over and steps < budget:
        hand, room, obliged = on_turn()
        steps += 1
        card = greedy_move(hand, room, obliged, _ONO99_CARD in hand and state.ono99_playable(), four_discard)
        if card is None:
            state.discard_four()
        else:
            play(card)
    return _value(state, me, scores), steps


def _value(state: State, me: int, scores: Sequence[int] | None = None) -> float:
    scoring = state.options.scoring
    if scoring is Scoring.ELIMINATION:
        winner = state.winner()
        if winner is not None:
            return 1.0 if winner == me else 0.0
        if not state.is_in(me):
            return 0.0
        return 1.0 / state.players_left()
    if scoring is Scoring.TOKENS:
        if not state.finished:
            return 0.5
        return 0.0 if state.hand_loser == me else 1.0
    winner = state.winner()
    if winner is not None:
        return 1.0 if winner == me else 0.0
    if not state.is_in(me):
        return 0.0
    points = state.hand_points
    if points is None:  # the rollout ran out of turns
        return 0.0
    assert scores is not None
    target = state.options.points_target
    # its share of what is left under the target, among the seats still in the match
    left = [target - scores[s] - points[s] for s in range(len(scores)) if state.is_in(s)]
    return (target - scores[me] - points[me]) / max(sum(left), 1)


def _searchable(view: SeatView) -> bool:
    return view.seat is not None and view.turn == view.seat and view.winner is None


Holds = list[list[tuple[int, frozenset[int]]]]
Hypotheses = tuple[list[float], list[list[tuple[int, frozenset[int]]]]]


# The escapes greedy spends before each one (``ESCAPE_ORDER``): who played it held none of those.
_EARLIER_ESCAPES = {int(card): frozenset(int(e) for e in ESCAPE_ORDER[:i]) for i, card in enumerate(ESCAPE_ORDER)}


def _excluded_by(card: int, after: int, limit: int = LIMIT_2022, floor_at_zero: bool = True) -> frozenset[int]:
    """The kinds a player did not hold when it played ``card`` to make ``after`` (see
    ``_inferred_holds``). ``limit``: the highest legal total; ``floor_at_zero``: a -10 stops at 0
    (2022; in 1980 the total may go negative)."""
    if card <= 10:
        room = limit - (after - card)
        return frozenset(range(card + 1, min(room, 10) + 1))
    if card == _ONO99:
        return frozenset()  # a playable O'NO 99 goes first whatever else is held
    # -10 to 0 was played from 10 or less, where every number fits
    before = after
    if card == _MINUS_TEN:
        before = after + 10 if after > 0 or not floor_at_zero else 0
    excluded = set(range(min(limit - before, 10) + 1))
    excluded.update(_EARLIER_ESCAPES.get(card, ()))
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
    limit = view.options.limit
    floor_at_zero = view.options.edition is Edition.E2022
    # per seat, for each of its plays, oldest first: (card, excluded kinds), and cards drawn after
    plays: list[list[tuple[int, frozenset[int]]]] = [[] for _ in range(seats)]
    drawn: list[list[int]] = [[] for _ in range(seats)]
    for event in view.recent_events:
        if type(event) is Played:
            seat = event.seat
            if len(event.cards) == 1:
                card = int(event.cards[0])
                plays[seat].append((card, _excluded_by(card, event.total, limit, floor_at_zero)))
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


def _deal(view: SeatView, pool: list[Card], holds: Holds, rng: random.Random) -> tuple[list[list[Card]], list[Card]]:
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
    hands: list[list[Card]] = [[] for _ in sizes]
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
    options = view.options
    is_2022 = options.edition is Edition.E2022
    greedy = choose_greedy(view, rng)
    first = (_rule(view, greedy) if is_2022 else None) or greedy
    room = options.limit - view.total
    if (first.card is not None and first.card <= Card.N10 and room > SEARCH_ROOM
            and sum(view.in_hand) >= 3):
        return first  # far from the limit the search's departures from a number lost more than they won
    candidates: list[Action] = list(legal)
    default = candidates.index(first)
    # the module's budget read now, not as bound into search's defaults, so that it can be set
    found = search(view, rng, candidates, default, TURN_BUDGET, MAX_DEALS, MIN_DEALS)
    # Leave the default choice only for an action that is better by a clear margin over
    # the same deals: chasing noise costs more than the search gains.
    best = default
    best_mean = 0.0
    for i in range(len(candidates)):
        mean, error = found.against_reference(i)
        if mean > best_mean and mean > CONFIDENCE * error:
            best, best_mean = i, mean
    return candidates[best]


class SearchResult:
    """What ``search`` found: per candidate action, the sum of its rollouts' values and of their
    differences from the reference action's on the same deals (and of their squares)."""

    __slots__ = ("candidates", "deals", "differences", "squares", "totals")

    def __init__(self, candidates: Sequence[Action]) -> None:
        self.candidates = tuple(candidates)
        self.deals = 0
        self.totals = [0.0] * len(candidates)
        self.differences = [0.0] * len(candidates)
        self.squares = [0.0] * len(candidates)

    def value(self, i: int) -> float:
        """Candidate ``i``'s mean value: its estimated chance of winning (``_value``)."""
        return self.totals[i] / max(self.deals, 1)

    def against_reference(self, i: int) -> tuple[float, float]:
        """How much better candidate ``i`` did than the reference on the same deals: the mean
        difference and its standard error."""
        deals = max(self.deals, 1)
        mean = self.differences[i] / deals
        var = max(self.squares[i] / deals - mean * mean, 1e-9)
        return mean, (var / deals) ** 0.5


def determinizer(view: SeatView) -> Callable[[random.Random], State]:
    """A maker of determinizations of ``view`` (the seat on turn's): each call deals the cards it
    cannot see into possible hands and a draw pile (``_deal``, with the inference about opponents'
    hands) and returns the table they make, on the engine's rules state, to be cloned and played."""
    options = view.options
    is_2022 = options.edition is Edition.E2022
    me = view.seat
    assert me is not None
    deck = DECK_COUNTS[options.edition]
    seen = view.discard_counts
    mine = [0] * KINDS
    for c in view.hand:
        mine[c] += 1
    pool_counts = [deck.get(_CARDS[k], 0) - mine[k] - seen[k] for k in range(KINDS)]
    pool: list[Card] = []
    for k in range(KINDS):
        pool.extend([_CARDS[k]] * pool_counts[k])
    discard: list[Card] = []
    top = view.top_card
    for k in range(KINDS):
        discard.extend([_CARDS[k]] * (seen[k] - (1 if k == top else 0)))
    if top is not None:
        discard.append(top)
    obligation = view.obligation
    plays_left = obligation.plays_left if obligation is not None else 1
    hypotheses = (_inferred_holds(view, pool_counts) if INFER and (is_2022 or INFER_1980)
                  else [([1.0], [[]])] * view.seats)

    def determinize(rng: random.Random) -> State:
        hands, draw_pile = _deal(view, pool, _pick(hypotheses, rng), rng)
        hands[me] = list(view.hand)
        return State.position(
            options, view.seats, hands=hands, draw_pile=draw_pile, discard=discard, total=view.total,
            direction=view.direction, turn=me, plays_left=plays_left,
            second_due=obligation is not None and plays_left == 1,
            obliged=obligation is not None and obligation.can_pass, active=view.active, in_hand=view.in_hand,
            missed=view.missed_draws, draw_open=view.open_draws, tokens=view.tokens, scores=view.scores,
            chance=_NO_CHANCE, auto_draw=True,
        )

    return determinize


def search(view: SeatView, rng: random.Random, candidates: Sequence[Action], reference: int,
           turn_budget: int = TURN_BUDGET, max_deals: int = MAX_DEALS, min_deals: int = MIN_DEALS) -> SearchResult:
    """Try every action of ``candidates`` (legal for the seat on turn, whose view this is) on the
    same deals of the unseen cards, at least ``min_deals`` and at most ``max_deals`` of them, until
    ``turn_budget`` simulated turns are spent; the differences are taken from candidate
    ``reference``."""
    me = view.seat
    assert me is not None
    determinize = determinizer(view)
    result = SearchResult(candidates)
    totals, differences, squares = result.totals, result.differences, result.squares
    values = [0.0] * len(candidates)
    spent = 0
    deals = 0
    while deals < max_deals and (spent < turn_budget or deals < min_deals):
        deals += 1
        base = determinize(rng)
        seed = rng.getrandbits(32)
        for i, action in enumerate(candidates):
            state = base.clone(_RolloutChance(random.Random(seed)))
            state.watch = me
            if action.kind is ActionKind.DISCARD_FOUR:
                state.discard_four()
            else:
                assert action.card is not None
                state.play(action.card)
            value, steps = _rollout(state, me, ROLLOUT_TURNS, view.scores)
            values[i] = value
            spent += steps + 1
        base_value = values[reference]
        for i, value in enumerate(values):
            totals[i] += value
            differences[i] += value - base_value
            squares[i] += (value - base_value) ** 2
    result.deals = deals
    return result
