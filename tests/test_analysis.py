"""``ono99 analyse`` and its kernel (ono99_tui/analysis.py): positions built by hand whose best move is
known, the analysis reading only what the deciding seat saw, seeded results, the JSON and text forms."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.core.actions import play
from ono99_kernel.core.cards import DECK_COUNTS, Card, Edition
from ono99_kernel.core.game import Game
from ono99_kernel.core.options import TableOptions
from ono99_kernel.core.record import Player, dumps, game_to_record
from ono99_tui.analysis import THRESHOLDS, analyse

ROOT = Path(__file__).resolve().parent.parent
C = Card.from_code
# no turns to spend: the search's fewest deals (MIN_DEALS) a decision, for what holds however many it takes
FEWEST_DEALS = 0


class _ScriptedDeal:
    """Deals the hands and the draw pile given, seat 1 dealing (seat 0 plays first)."""

    def __init__(self, hands: dict[int, list[Card]], pile: list[Card]) -> None:
        self.hands, self.pile = hands, pile

    def choose_dealer(self, seats: int) -> int:
        return seats - 1

    def deal(self, hand: int, deck: list[Card], receivers: Sequence[int]) -> tuple[dict[int, list[Card]], list[Card]]:
        return {s: list(self.hands[s]) for s in receivers}, list(self.pile)

    def reshuffle(self, cards: list[Card]) -> list[Card]:
        raise AssertionError("these positions never reshuffle")


def scripted_record(options: TableOptions, plays: list[tuple[int, str]], final: dict[int, list[str]],
                    rest_seed: int = 0) -> dict[str, Any]:
    """A record of a 2-player game in which ``plays`` (seat, card code) happen in that order and each seat
    then holds ``final``: every seat receives its played cards, then its final hand, dealt 4 and drawn one
    after each play; the deck's other cards lie under them in the pile, in an order of ``rest_seed``."""
    streams = {s: [C(code) for seat, code in plays if seat == s] + [C(c) for c in final[s]] for s in (0, 1)}
    hands = {s: streams[s][:4] for s in (0, 1)}
    taken = {0: 4, 1: 4}
    pile: list[Card] = []
    for seat, _code in plays:
        pile.append(streams[seat][taken[seat]])
        taken[seat] += 1
    used = Counter(c for s in (0, 1) for c in streams[s])
    rest = list((Counter(DECK_COUNTS[options.edition]) - used).elements())
    assert not (used - Counter(DECK_COUNTS[options.edition])), "more cards than the deck holds"
    random.Random(rest_seed).shuffle(rest)
    game = Game(options, 2, chance=_ScriptedDeal(hands, pile + rest))
    for seat, code in plays:
        game.apply(seat, play(C(code)))
    return game_to_record(game, [Player("Ada", "human"), Player("Kim", "bot:greedy")], None)


# 1980, two players: every escape is played (Hold, Reverse, -10, Double Play) but one Hold that Ada
# keeps, the total climbs with numbers, and Ada decides at 95 holding 3, Hold and two O'NO 99 (which
# 1980 never lets anyone play). All the cards she cannot see are numbers 2 to 10 and O'NO 99, so
# whoever must play at 98 cannot: her 3 makes 98 and wins the hand for certain; her Hold leaves 95,
# where Kim may hold a 2 or a 3.
ESCAPES = [(0, "HOLD"), (1, "HOLD"), (0, "HOLD"), (1, "REV"), (0, "REV"), (1, "REV"), (0, "REV"), (1, "REV"),
           (0, "REV"), (1, "-10"), (0, "-10"), (1, "-10"), (0, "-10"),  # total -40
           (1, "DOUBLE"), (0, "10"), (0, "10"), (1, "DOUBLE"), (0, "10"), (0, "10")]  # total 0, Kim to play
CLIMB = [(1, "10"), (0, "10"), (1, "10"), (0, "10"), (1, "10"), (0, "10"),  # 60
         (1, "9"), (0, "9"), (1, "9"), (0, "4"), (1, "4")]  # 95, Ada to play
KNOWN = ESCAPES + CLIMB
ADA_HOLDS = ["3", "HOLD", "ONO99", "ONO99"]


def known_position(kims_hand: list[str], rest_seed: int = 0, ada_plays: str | None = None) -> dict[str, Any]:
    plays = KNOWN + ([(0, ada_plays)] if ada_plays else [])
    final = {0: [c for c in ADA_HOLDS if c != ada_plays] if ada_plays else ADA_HOLDS, 1: kims_hand}
    if ada_plays:  # her draw after that play: the next card of her stream
        final[0] = [*final[0], "ONO99"]
    return scripted_record(TableOptions.from_mapping("1980"), plays, final, rest_seed)


def ada_decision(record: dict[str, Any], seed: int = 0) -> Any:
    analysis = analyse(record, seats=[0], seed=seed)
    assert analysis.seats[0].name == "Ada"
    return analysis.seats[0].decisions[-1]


def test_the_card_that_wins_the_hand_for_certain_is_the_best_and_holding_is_a_blunder() -> None:
    """Ada at 95 holds 3 and Hold, and every card she cannot see is a number or an O'NO 99. The 3 wins
    the hand in every deal (100%); Hold is valued far lower, and playing it is marked a blunder."""
    held = ada_decision(known_position(["8", "7", "6", "3"], ada_plays="HOLD"))
    assert (held.total, held.played, held.best) == (95, "HOLD", "3")
    assert held.chances["3"] == 1.0
    assert held.chance_played < 1.0 - THRESHOLDS[0][1]
    assert held.mark == "blunder" and held.loss == 1.0 - held.chance_played


def test_the_best_move_made_is_not_marked() -> None:
    """Ada plays the 3 herself: the move made is the best, lost nothing, and is not marked."""
    made = ada_decision(known_position(["8", "7", "6", "5"], ada_plays="3"))
    assert (made.played, made.best, made.loss, made.mark) == ("3", "3", 0.0, None)


def test_the_analysis_reads_only_what_the_seat_saw() -> None:
    """The same position with Kim holding other numbers and the draw pile in another order (cards Ada
    cannot see) gets the very same values: the search reads her view, not the record's hidden cards."""
    one = analyse(known_position(["8", "7", "6", "5"], rest_seed=1, ada_plays="HOLD"), seats=[0])
    other = analyse(known_position(["5", "4", "2", "2"], rest_seed=2, ada_plays="HOLD"), seats=[0])
    assert one.to_json() == other.to_json()
    assert len(one.seats[0].decisions) >= 3  # not only the last one


def test_the_same_seed_gives_the_same_analysis_and_it_does_not_depend_on_the_seats_asked() -> None:
    """A seeded analysis is repeatable, and a seat's decisions are valued the same whether it is analysed
    alone or with every seat; another seed samples other deals."""
    record = json.loads((ROOT / "tests" / "data" / "sample_2022.jsonl").read_text().splitlines()[0])
    both = analyse(record, seed=3, turn_budget=FEWEST_DEALS)
    again = analyse(record, seed=3, turn_budget=FEWEST_DEALS)
    alone = analyse(record, seats=[1], seed=3, turn_budget=FEWEST_DEALS)
    assert both.to_json() == again.to_json()
    assert both.seats[1].to_json() == alone.seats[0].to_json()
    decisions = both.seats[1].decisions
    assert decisions and all(d.best in d.chances and d.played in d.chances for d in decisions)
    assert analyse(record, seats=[1], seed=4, turn_budget=FEWEST_DEALS).to_json() != alone.to_json()


def test_progress_is_reported_from_zero_to_every_decision() -> None:
    record = json.loads((ROOT / "tests" / "data" / "sample_2022.jsonl").read_text().splitlines()[0])
    seen: list[tuple[int, int]] = []
    analysis = analyse(record, seats=[0], on_progress=lambda done, total: seen.append((done, total)))
    total = len(analysis.seats[0].decisions)
    assert seen == [(i, total) for i in range(total + 1)]


def ono99(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ono99_tui.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, stdin=subprocess.DEVNULL)


def test_the_command_prints_the_documented_json_and_the_marks_in_words(tmp_path: Path) -> None:
    """``ono99 analyse --json`` on a file of two records (the second asked for with --line, the seat by its
    player's name) prints the object docs/analysis.md describes; the text form says the marked move in a
    sentence."""
    path = tmp_path / "games.jsonl"
    path.write_text(dumps(known_position(["8", "7", "6", "5"])) + "\n"
                    + dumps(known_position(["8", "7", "6", "5"], ada_plays="HOLD")) + "\n")
    out = ono99("analyse", str(path), "--line", "2", "--seat", "Ada", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["format"] == "ono99-analysis/1" and data["line"] == 2 and data["value"] == "hand"
    assert data["thresholds"] == {"blunder": 0.15, "mistake": 0.08, "inaccuracy": 0.04}
    (seat,) = data["seats"]
    assert (seat["seat"], seat["name"], seat["marks"]["blunder"]) == (0, "Ada", 1)
    last = seat["decisions"][-1]
    assert set(last) == {"move", "step", "hand", "total", "cards", "played", "best", "chance_played",
                         "chance_best", "loss", "error", "mark", "chances"}
    assert (last["played"], last["best"], last["chance_best"], last["mark"]) == ("HOLD", "3", 1.0, "blunder")
    assert last["move"] == len(KNOWN) + 1 and sorted(last["cards"]) == sorted(ADA_HOLDS)

    text = ono99("analyse", str(path), "--line", "2", "--seat", "0")
    assert text.returncode == 0, text.stderr
    chance = round(last["chance_played"] * 100)
    assert f"Move {last['move']}: Ada played Hold; 3 was better: 100% against {chance}% (blunder)." in text.stdout
    assert "Ada (seat 0): " in text.stdout and "1 blunder" in text.stdout


def test_bad_input_is_said_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text(dumps(known_position(["8", "7", "6", "5"])) + "\n")
    past = ono99("analyse", str(path), "--line", "2")
    assert past.returncode == 2 and "--line takes 1 to 1" in past.stderr
    nobody = ono99("analyse", str(path), "--seat", "Zed")
    assert nobody.returncode == 2 and "'Zed'" in nobody.stderr and "0 to 1" in nobody.stderr
    (tmp_path / "bad.jsonl").write_text('{"format": "ono99-record/1"}\n')
    faulty = ono99("analyse", str(tmp_path / "bad.jsonl"))
    assert faulty.returncode == 1 and "ono99 records check" in faulty.stderr


def test_a_record_made_by_hand_follows_the_script() -> None:
    """The position builder itself: Ada's last decision is at 95 with the hand given, in an unfinished
    1980 match."""
    record = known_position(["8", "7", "6", "5"], ada_plays="3")
    assert record["edition"] == Edition.E1980.value and record["result"] is None and len(record["hands"]) == 2
    analysis = analyse(record, seats=[0])
    last = analysis.seats[0].decisions[-1]
    assert (last.total, sorted(last.cards)) == (95, sorted(ADA_HOLDS))


# --- the replay screen's analysis panel ------------------------------------------------------------
def replay_of(tmp_path: Path, record: dict[str, Any]) -> Any:
    from ono99_tui.tui.replay import load_replay, make_replay_app

    path = tmp_path / "game.jsonl"
    path.write_text(dumps(record) + "\n")
    return make_replay_app(load_replay(path), path)


def panel_lines(app: Any) -> list[str]:
    """The analysis panel as the screen shows it, line by line."""
    from ono99_tui.tui.replay import AnalysisPanel
    from tests.test_every_screen import screen_lines, visible_region

    region = visible_region(app.screen.query_one(AnalysisPanel))
    assert region is not None, "the panel is not on the screen"
    lines = screen_lines(app)
    return [lines[y][region.x:region.right] for y in range(region.y, region.bottom)]


async def test_the_replay_plots_the_chances_and_says_the_marked_move_at_80_by_24_in_every_language(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In each of the six languages, at 80×24: a analyses the followed seat (Ada), m goes to her marked
    moves, and at the blunder the panel shows the plot with its X and says, whole and unclipped, that 3
    was better, 100% against what Hold kept. The search runs in the first language; the others' key
    gets the same seat's analysis of the same record again at once (the search says no words)."""
    from ono99_tui.i18n import LANGUAGES, using
    from ono99_tui.tui import replay as replay_module
    from ono99_tui.tui.replay import AnalysisPanel
    from tests.test_every_screen import visible_region
    from tests.test_tui import wait_until

    searched: dict[str, Any] = {}

    def searched_once(record: Any, seats: Any, **kwargs: Any) -> Any:
        key = dumps(record) + repr(seats)
        if key not in searched:
            searched[key] = analyse(record, seats, **kwargs)
        return searched[key]

    monkeypatch.setattr(replay_module, "analyse", searched_once)
    record = known_position(["8", "7", "6", "3"], ada_plays="HOLD")
    for language in LANGUAGES:
        with using(language):
            app = replay_of(tmp_path, record)
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.press("a")
                await wait_until(pilot, lambda app=app: 0 in app.analyses, "the analysis")
                blunder = app.analyses[0].decisions[-1]
                assert blunder.mark == "blunder"
                while app.position != blunder.step:
                    before = app.position
                    await pilot.press("m")
                    assert app.position != before or app.position == blunder.step
                await pilot.pause()
                text = app.screen.query_one("#analysis-text")
                assert visible_region(text) == text.region  # nothing of it cut off
                shown = "\n".join(panel_lines(app))
                assert "X" in shown and any(bar in shown for bar in "▁▂▃▄▅▆▇█"), shown
                flat = " ".join(" ".join(line.strip("│ ") for line in panel_lines(app)).split())
                assert "100" in flat and "Ada" in flat and f"{round(blunder.chance_played * 100)}" in flat, flat
                assert app.screen.query_one(AnalysisPanel).display


async def test_the_analysis_runs_off_the_event_loop_with_a_progress_bar(tmp_path: Path, monkeypatch: Any) -> None:
    """The analysis runs in a worker thread: held after its first decision, the progress bar shows 1 of
    all, and the replay still steps on a key; let go, the plot replaces the bar."""
    import threading

    from textual.widgets import ProgressBar

    from ono99_tui.tui import replay as replay_module
    from tests.test_tui import wait_until

    go_on, halfway = threading.Event(), threading.Event()
    threads: list[threading.Thread] = []
    real = analyse

    def held(record: Any, seats: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread())
        report = kwargs.pop("on_progress")

        def progress(done: int, total: int) -> None:
            report(done, total)
            if done == 1:
                halfway.set()
                assert go_on.wait(60)

        return real(record, seats, on_progress=progress, **kwargs)

    monkeypatch.setattr(replay_module, "analyse", held)
    app = replay_of(tmp_path, known_position(["8", "7", "6", "3"], ada_plays="HOLD"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        await wait_until(pilot, halfway.is_set, "the first decision")
        bar = app.screen.query_one("#analysis-progress", ProgressBar)
        await wait_until(pilot, lambda: bar.progress == 1, "the bar's first step")
        assert bar.display and bar.total is not None and bar.total > 1
        await pilot.press("right")
        assert app.position == 1  # the event loop is free while the search runs
        go_on.set()
        await wait_until(pilot, lambda: 0 in app.analyses, "the analysis")
        await pilot.pause()
        assert not bar.display
        assert threads and threads[0] is not threading.main_thread()


async def test_a_server_game_replayed_in_the_app_is_analysed_the_same_way(tmp_path: Path) -> None:
    """The replay of a server's finished game (the profile's, a screen over the app) holds its record too:
    a analyses the followed seat and m goes to its first marked move, said in words."""
    from ono99_tui.tui.replay import ServerReplayScreen, load_replay
    from tests.test_tui import wait_until

    app = replay_of(tmp_path, known_position(["8", "7", "6", "3"], ada_plays="HOLD"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = ServerReplayScreen(load_replay(tmp_path / "game.jsonl"))
        await app.push_screen(screen)
        await pilot.press("a")
        await wait_until(pilot, lambda: 0 in screen.cursor.analyses, "the analysis")
        first = next(d for d in screen.cursor.analyses[0].decisions if d.mark is not None)
        await pilot.press("m")
        await pilot.pause()
        assert screen.position == first.step
        flat = " ".join(" ".join(line.strip("│ ") for line in panel_lines(app)).split())
        assert f"Move {first.move}: Ada played" in flat and "was better" in flat, flat
