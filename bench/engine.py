"""Random-bot games per second on one core, with the full engine: validated actions, a view for
every decision, the event log. Run: python bench/engine.py [--games N]"""

from __future__ import annotations

import argparse
import platform
import random
import time

from ono99_tui.bots.basic import choose_random
from ono99_tui.core import Game, TableOptions


def play_games(options: TableOptions, players: int, games: int, seed: int) -> tuple[float, int]:
    decide = random.Random(seed)
    turns = 0
    started = time.perf_counter()
    for i in range(games):
        game = Game(options, players, random.Random(seed + i))
        while not game.is_over:
            seat = game.actors()[0]
            game.apply(seat, choose_random(game.seat_view(seat), decide))
        turns += game.turns
    return time.perf_counter() - started, turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the fastest is reported")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.processor() or 'cpu'}")
    print(f"{'edition':8} {'players':>7} {'games':>6} {'games/s':>9} {'turns/game':>10} {'µs/turn':>8}")
    for edition in ("2022", "1980"):
        options = TableOptions.from_mapping(edition)
        for players in (2, 4, 6):
            games = args.games if edition == "2022" else max(1, args.games // 8)
            seconds, turns = min(play_games(options, players, games, args.seed) for _ in range(args.repeat))
            print(f"{edition:8} {players:7} {games:6} {games / seconds:9.0f} {turns / games:10.1f} "
                  f"{seconds / turns * 1e6:8.2f}")


if __name__ == "__main__":
    main()
