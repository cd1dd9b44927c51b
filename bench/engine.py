"""The rules engine against its speed ceiling, side by side in one run.

Rows (4-player 2022 games unless ``--players``; the 1980 rows play whole token matches):

- ``bare-random``: the speed ceiling. A self-contained loop of plain ints and lists that plays the
  same game (2022 deck, random legal play among the distinct legal actions, Play 2, Reverse,
  knock-outs, reshuffles) with no engine at all: no checks, views, events or records. It is not
  used by the project; it is what the engine is measured against.
- ``state-random``: the engine's ``State`` alone (``State.start``, ``moves``, ``act``): rules only.
- ``simulate-random``: what ``ono99 simulate --bots random`` does per game (``simulate.play_game``):
  without ``--record``, levels that read only the legal actions play on the rules state, with no
  views or events.
- ``game-views-random``: the same games through a ``Game``: checked actions, a ``TableView`` per
  decision and the full event log (what ``simulate --record``, the ``strong`` level and a server
  table pay).
- ``simulate-command``: the command a user runs, ``ono99 simulate --bots random,… --workers 1``,
  in this process with its progress line drawn as on a terminal (its output thrown away): the same
  games as ``simulate-random``, plus what the command adds per game (progress, the summary).
- ``bare-random-x2``, ``simulate-random-x2`` and ``simulate-command-x2`` (only when named in
  ``--rows``): two bare loops, two ``simulate-random`` loops (two processes sharing the games), and
  the command with ``--workers 2``; games per second of wall time, process starts included.
- ``bare-greedy``: the ceiling loop with the greedy policy.
- ``rollout-greedy``: the strong bot's rollout (``strong._rollout``: the greedy policy on a
  ``State``) from the deal until seat 0 is out or wins, as in a search.

Games differ in length between rows (a rollout stops when its seat is out), so the rows are
compared per play: plays per second, or instructions per play.

Run: python bench/engine.py [--games N] [--rows ...] [--repeat R]
     python bench/engine.py --callgrind [--games N]   # instructions per game under valgrind
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from ono99_kernel.bots.strong import _rollout
from ono99_kernel.core import TableOptions
from ono99_kernel.core.cards import DECK_COUNTS, Edition
from ono99_kernel.core.state import RandomChance, State
from ono99_tui.cli import main as ono99  # imported here: a row times the games, not the import
from ono99_tui.simulate import SimulationPlan, play_game

ONO99 = 16
PLAY2 = 13
REVERSE = 12
MINUS_TEN = 11
FOUR = -1
DECK = tuple(int(card) for card, n in DECK_COUNTS[Edition.E2022].items() for _ in range(n))
ESCAPE_RANK = {PLAY2: 3, REVERSE: 2, MINUS_TEN: 1}


def bare_game(rng: random.Random, players: int, greedy: bool) -> int:
    """One 2022 game on plain ints; returns the plays made."""
    rand = rng.random
    deck = list(DECK)
    keys = [rand() for _ in deck]
    cards = [deck[i] for i in sorted(range(len(deck)), key=keys.__getitem__)]
    dealer = int(rand() * players)
    first = (dealer + 1) % players
    hands: list[list[int]] = [[] for _ in range(players)]
    for _ in range(4):
        for i in range(players):
            hands[(first + i) % players].append(cards.pop())
    draw = cards  # top last
    discard: list[int] = []
    total = 0
    direction = 1
    turn = first
    plays_left = 1
    obliged = False
    alive = [True] * players
    nalive = players
    turns = 0
    while True:
        hand = hands[turn]
        room = 98 - total
        if greedy:
            best = -1
            esc = 0
            onos = 0
            for c in hand:
                if c <= 10:
                    if best < c <= room:
                        best = c
                elif c == ONO99:
                    onos += 1
                elif ESCAPE_RANK[c] > esc:
                    esc = ESCAPE_RANK[c]
            if onos >= 4:
                card = FOUR
            elif best >= 0:
                card = best
            elif esc:
                card = (MINUS_TEN, REVERSE, PLAY2)[esc - 1]
            else:
                card = None
        else:
            legal = [c for c in dict.fromkeys(hand) if (c <= room if c <= 10 else c != ONO99)]
            if hand.count(ONO99) >= 4:
                legal.append(FOUR)
            card = legal[int(rand() * len(legal))] if legal else None
        if card is None:  # no legal play: out
            alive[turn] = False
            hands[turn] = []
            nalive -= 1
            if nalive == 1:
                return turns
            turn = (turn + direction) % players
            while not alive[turn]:
                turn = (turn + direction) % players
            plays_left = 1
            obliged = False
            continue
        turns += 1
        if card == FOUR:
            for _ in range(4):
                hand.remove(ONO99)
            discard.extend((ONO99,) * 4)
        else:
            hand.remove(card)
            discard.append(card)
            if card <= 10:
                total += card
            elif card == MINUS_TEN:
                total = total - 10 if total > 10 else 0
            elif card == REVERSE and nalive > 2:
                direction = -direction
        while len(hand) < 4:
            if not draw:
                if len(discard) < 2:
                    break
                top = discard.pop()
                keys = [rand() for _ in discard]
                draw = [discard[i] for i in sorted(range(len(discard)), key=keys.__getitem__)]
                discard = [top]
            hand.append(draw.pop())
        passes_on = obliged and card in (REVERSE, PLAY2)
        if plays_left == 2 and not passes_on:
            plays_left = 1
            obliged = False
        else:
            turn = (turn + direction) % players
            while not alive[turn]:
                turn = (turn + direction) % players
            pending = passes_on or card == PLAY2
            plays_left = 2 if pending else 1
            obliged = pending


def run_bare(players: int, games: int, seed: int, greedy: bool) -> int:
    turns = 0
    for i in range(games):
        turns += bare_game(random.Random(seed + i), players, greedy)
    return turns


def run_state(options: TableOptions, players: int, games: int, seed: int) -> int:
    decide = random.Random(seed)
    turns = 0
    for i in range(games):
        state = State.start(options, players, RandomChance(random.Random(seed + i)))
        while not state.finished:
            moves = state.moves()
            state.act(state.seat_on_turn, moves[int(decide.random() * len(moves))])
        turns += state._turns
    return turns


def run_simulate(options: TableOptions, players: int, games: int, seed: int, views: bool = False) -> int:
    plan = SimulationPlan(games, ("random",) * players, options, seed=seed)
    return sum(play_game(plan, i, views=views).turns for i in range(games))


def run_bare_pair(options: TableOptions, players: int, games: int, seed: int) -> int:
    """Two bare loops at once, in two processes, sharing ``games`` (what ``--workers 2`` is against)."""
    return _in_two_processes(_bare_random, options, players, games, seed)


def run_simulate_pair(options: TableOptions, players: int, games: int, seed: int) -> int:
    """Two ``simulate-random`` loops at once, in two processes, sharing ``games``."""
    return _in_two_processes(run_simulate, options, players, games, seed)


def _bare_random(options: TableOptions, players: int, games: int, seed: int) -> int:
    return run_bare(players, games, seed, greedy=False)


def _in_two_processes(run: Callable[[TableOptions, int, int, int], int], options: TableOptions, players: int,
                      games: int, seed: int) -> int:
    half = games // 2
    with ProcessPoolExecutor(max_workers=2) as pool:
        parts = [pool.submit(run, options, players, half, seed), pool.submit(run, options, players, games - half,
                                                                            seed + half)]
        return sum(part.result() for part in parts)


def run_command(options: TableOptions, players: int, games: int, seed: int, workers: int = 1) -> int:
    """``ono99 simulate`` itself, as on a terminal (TTY_COMPATIBLE makes Rich draw its progress)."""
    out = io.StringIO()
    saved = os.environ.get("TTY_COMPATIBLE")
    os.environ["TTY_COMPATIBLE"] = "1"
    try:
        with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(out), contextlib.redirect_stderr(devnull):
            code = ono99(["simulate", "--games", str(games), "--players", str(players), "--bots",
                          ",".join(["random"] * players), "--edition", options.edition.value, "--seed", str(seed),
                          "--workers", str(workers), "--json"])
    finally:
        if saved is None:
            del os.environ["TTY_COMPATIBLE"]
        else:
            os.environ["TTY_COMPATIBLE"] = saved
    assert code == 0, code
    data = json.loads(out.getvalue())
    return round(float(data["average_turns"]) * int(data["games"]))


def run_rollout(options: TableOptions, players: int, games: int, seed: int) -> int:
    turns = 0
    for i in range(games):
        rng = random.Random(seed + i)
        state = State.start(options, players, RandomChance(rng))
        state.deal_next = False  # a 1980 row would stop at the end of the first hand, as a rollout does
        state.watch = 0
        _value, steps = _rollout(state, 0, 1 << 30)
        turns += steps
    return turns


ROWS: dict[str, tuple[str, Callable[[TableOptions, int, int, int], int]]] = {
    "bare-random": ("2022", lambda o, p, g, s: run_bare(p, g, s, greedy=False)),
    "state-random": ("2022", run_state),
    "simulate-random": ("2022", run_simulate),
    "game-views-random": ("2022", lambda o, p, g, s: run_simulate(o, p, g, s, views=True)),
    "simulate-command": ("2022", run_command),
    "bare-random-x2": ("2022", run_bare_pair),
    "simulate-random-x2": ("2022", run_simulate_pair),
    "simulate-command-x2": ("2022", lambda o, p, g, s: run_command(o, p, g, s, workers=2)),
    "bare-greedy": ("2022", lambda o, p, g, s: run_bare(p, g, s, greedy=True)),
    "rollout-greedy": ("2022", run_rollout),
    "simulate-random-1980": ("1980", run_simulate),
}
# rows run only when named in --rows
NAMED_ONLY_ROWS = ("bare-random-x2", "simulate-random-x2", "simulate-command-x2", "simulate-random-1980")
RATIOS = (("state-random", "bare-random"), ("simulate-random", "bare-random"), ("game-views-random", "bare-random"),
          ("simulate-command", "bare-random"), ("simulate-command", "simulate-random"),
          ("simulate-random-x2", "bare-random-x2"), ("simulate-command-x2", "bare-random-x2"),
          ("simulate-command-x2", "simulate-random-x2"),
          ("rollout-greedy", "bare-greedy"))


def cpu_seconds() -> float:
    """CPU time of this process and of its waited-for children (the workers of a two-process row)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(row: str, players: int, games: int, seed: int, repeat: int) -> tuple[float, float, int]:
    """The fastest of ``repeat`` runs: wall seconds, CPU seconds (fewest), plays."""
    edition, run = ROWS[row]
    options = TableOptions.from_mapping(edition)
    best = best_cpu = float("inf")
    turns = 0
    for _ in range(repeat):
        started, cpu = time.perf_counter(), cpu_seconds()
        turns = run(options, players, games, seed)
        best = min(best, time.perf_counter() - started)
        best_cpu = min(best_cpu, cpu_seconds() - cpu)
    return best, best_cpu, turns


def callgrind_instructions(row: str, players: int, games: int, seed: int) -> int:
    """Instructions executed by a process that plays ``games`` games of ``row``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
             "--rows", row, "--games", str(games), "--players", str(players), "--seed", str(seed),
             "--repeat", "1", "--quiet"],
            check=True, capture_output=True,
        )
        with open(out) as f:
            match = re.search(r"^summary:\s+(\d+)", f.read(), re.MULTILINE)
        assert match, "no summary line in the callgrind output"
        return int(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the fastest is reported")
    parser.add_argument("--rows", nargs="*", default=[r for r in ROWS if r not in NAMED_ONLY_ROWS],
                        choices=list(ROWS))
    parser.add_argument("--callgrind", action="store_true",
                        help="count instructions per game: each row under valgrind with --games and with 0 games")
    parser.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quiet:
        for row in args.rows:
            timed(row, args.players, args.games, args.seed, 1)
        return
    print(f"python {platform.python_version()} on {platform.machine()}; {args.players} players, "
          f"{args.games} games per row")
    if args.callgrind:
        per_play: dict[str, float] = {}
        print(f"{'row':22} {'instructions/game':>18} {'plays/game':>10} {'per play':>9}")
        for row in args.rows:
            base = callgrind_instructions(row, args.players, 0, args.seed)
            full = callgrind_instructions(row, args.players, args.games, args.seed)
            _, _, turns = timed(row, args.players, args.games, args.seed, 1)
            per_play[row] = (full - base) / max(turns, 1)
            print(f"{row:22} {(full - base) / args.games / 1e6:17.3f}M {turns / args.games:10.1f} "
                  f"{per_play[row]:9.0f}")
        for row, ceiling in RATIOS:
            if row in per_play and ceiling in per_play:
                print(f"{row} / {ceiling}: {per_play[ceiling] / per_play[row]:.2f}x the ceiling's speed per play")
        return
    speed: dict[str, float] = {}  # plays per second of wall time
    cpu_speed: dict[str, float] = {}  # plays per CPU second (all the row's processes)
    print(f"{'row':22} {'games/s':>9} {'plays/game':>10} {'µs/play':>8} {'CPU µs/play':>12}")
    for row in args.rows:
        seconds, cpu, turns = timed(row, args.players, args.games, args.seed, args.repeat)
        speed[row] = turns / seconds
        cpu_speed[row] = turns / cpu
        print(f"{row:22} {args.games / seconds:9.0f} {turns / args.games:10.1f} {seconds / max(turns, 1) * 1e6:8.2f} "
              f"{cpu / max(turns, 1) * 1e6:12.2f}")
    for row, ceiling in RATIOS:
        if row in speed and ceiling in speed:
            print(f"{row} / {ceiling}: {speed[row] / speed[ceiling]:.2f}x the ceiling's speed per play "
                  f"(by CPU time {cpu_speed[row] / cpu_speed[ceiling]:.2f}x)")


if __name__ == "__main__":
    main()
