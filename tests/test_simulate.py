"""`ono99 simulate`: seeded headless bot games, rotated seats, results, records that validate."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.core import TableOptions
from ono99_kernel.core.record import check_lines
from ono99_tui.simulate import ProgressPacer, SimulationPlan, play_game, simulate, wilson_interval

from .test_records import OPTION_SETS


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ono99_tui.cli", "simulate", *args],
                          capture_output=True, text=True, timeout=600)


def test_simulate_json_summary_and_records(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    out = run_cli("--games", "40", "--players", "4", "--bots", "greedy,random", "--edition", "2022",
                  "--seed", "7", "--record", str(path), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["games"] == 40
    assert [b["level"] for b in data["bots"]] == ["greedy", "random", "random", "random"]
    assert sum(b["wins"] for b in data["bots"]) == 40
    assert sum(s["wins"] for s in data["seats"]) == 40
    for entry in data["bots"]:
        low, high = entry["ci95"]
        assert 0 <= low <= entry["rate"] <= high <= 1
    assert data["average_turns"] > 0 and data["games_per_second"] > 0
    checked = list(check_lines(path.read_text().splitlines()))
    assert len(checked) == 40 and all(c.error is None for c in checked)
    # seats rotate: the greedy bot sits at every seat equally often
    greedy_seats: Counter[int] = Counter()
    for c in checked:
        assert c.replay is not None
        kinds = [p.kind for p in c.replay.players]
        greedy_seats[kinds.index("bot:greedy")] += 1
        assert kinds.count("bot:greedy") == 1
    assert greedy_seats == {0: 10, 1: 10, 2: 10, 3: 10}


def test_simulate_is_deterministic_and_independent_of_workers() -> None:
    one = json.loads(run_cli("--games", "300", "--seed", "3", "--json").stdout)
    two = json.loads(run_cli("--games", "300", "--seed", "3", "--workers", "2", "--json").stdout)
    for key in ("bots", "seats", "average_turns"):
        if key == "bots" or key == "seats":
            assert [e["wins"] for e in one[key]] == [e["wins"] for e in two[key]]
        else:
            assert one[key] == two[key]
    other_seed = json.loads(run_cli("--games", "300", "--seed", "4", "--json").stdout)
    assert [e["wins"] for e in other_seed["seats"]] != [e["wins"] for e in one["seats"]]


def test_simulate_prints_a_results_table() -> None:
    out = run_cli("--games", "20", "--bots", "greedy,random,random")
    assert out.returncode == 0, out.stderr
    for words in ("bot 1: greedy", "bot 3: random", "seat 1", "seat 3", "95% interval", "turns per game",
                  "games/s", "fair share 33.3%"):
        assert words in out.stdout


@pytest.mark.parametrize(("args", "words"), [
    (["--option", "ono99_sets_99=true", "--edition", "1980"], "bust_over_99"),
    (["--option", "colour=red"], "unknown option 'colour'"),
    (["--option", "scoring=points"], "scoring"),
    (["--players", "9"], "seats 2 to 6"),
    (["--bots", "genius"], "unknown bot level 'genius'"),
    (["--games", "0"], "--games"),
])
def test_simulate_refuses_bad_arguments_with_a_clear_message(args: list[str], words: str) -> None:
    out = run_cli(*args)
    assert out.returncode == 2
    assert words in out.stderr
    assert "ono99 simulate --help" in out.stderr


@pytest.mark.parametrize(("edition", "options"), OPTION_SETS)
def test_simulated_records_validate_for_every_option_set(edition: str, options: dict[str, Any]) -> None:
    opts = TableOptions.from_mapping(edition, options)
    plan = SimulationPlan(12, ("greedy", "random", "random"), opts, seed=5, record=True)
    lines: list[str] = []
    summary = simulate(plan, on_result=lambda r: lines.append(r.record_line or ""))
    assert summary.games == 12
    results = list(check_lines(lines))
    assert len(results) == 12
    assert [r.error for r in results] == [None] * 12


def test_simulate_cli_with_an_option_by_name(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    out = run_cli("--games", "10", "--edition", "1980", "--option", "scoring=points", "--option",
                  "manual_draw=true", "--option", "points_target=50", "--record", str(path), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["options"]["scoring"] == "points" and data["options"]["points_target"] == 50
    first = json.loads(path.read_text().splitlines()[0])
    assert first["options"]["manual_draw"] is True


def test_wilson_interval_brackets_the_rate() -> None:
    low, high = wilson_interval(53, 100)
    assert low < 0.53 < high
    assert round(low, 3) == 0.433 and round(high, 3) == 0.625
    assert wilson_interval(0, 0) == (0.0, 0.0)


@pytest.mark.parametrize(("edition", "options"), OPTION_SETS)
def test_simulate_without_views_plays_the_same_games(edition: str, options: dict[str, Any]) -> None:
    """Levels that read only the legal actions are simulated on the rules state without views or
    events: every game has the same winner and length as through ``Game`` and its views."""
    table = TableOptions.from_mapping(edition, options)
    for bots in (("random", "greedy", "casual"), ("greedy", "greedy", "random", "casual")):
        plan = SimulationPlan(12, bots, table, seed=5)
        for i in range(plan.games):
            lean, full = play_game(plan, i), play_game(plan, i, views=True)
            assert (lean.winner_seat, lean.winner_entry, lean.turns) == (
                full.winner_seat, full.winner_entry, full.turns), (edition, options, bots, i)


class _Clock:
    """A clock that moves by ``step`` seconds each time it is read (binary fractions: exact sums)."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        now = self.now
        self.now += self.step
        return now


def test_the_pacer_refreshes_by_time_not_by_games() -> None:
    """Tried: the same 2 s of clock spread over 2,048 games and over 16,384 games: both give the line
    8 refreshes (one per 0.25 s, the last at the last game), the rate being games over the time."""
    for games in (2048, 16384):
        pacer = ProgressPacer(games, 0.25, _Clock(2 / games))
        due = [pacer.done for _ in range(games) if pacer.count()]
        assert due == [games // 8 * k for k in range(1, 9)], games
        assert pacer.rate() == games / 2


def test_the_pacer_shows_the_last_game_and_nothing_before_time_passes() -> None:
    pacer = ProgressPacer(5, 0.25, _Clock(0.0))
    assert [pacer.count() for _ in range(5)] == [False, False, False, False, True]
    assert pacer.rate() is None  # no time has passed: no rate to show


def test_the_progress_line_is_refreshed_a_few_times_a_second_not_per_game(monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """As on a terminal (Rich draws its progress), the command's progress clock made to move 2 s over
    the run: 2,048 games and 8,192 games both update the line 8 times, the last one showing every
    game done. It used to be updated, with Rich's speed estimate summed anew, for every game: half
    the command's time."""
    from rich.progress import Progress

    from ono99_tui import cli

    updates: list[int] = []
    real_update = Progress.update

    def counted(self: Progress, task: Any, **fields: Any) -> None:
        updates.append(fields.get("completed", -1))
        real_update(self, task, **fields)

    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setattr(Progress, "update", counted)
    for games in (2048, 8192):
        updates.clear()
        monkeypatch.setattr(cli, "progress_clock", _Clock(2 / games))
        assert cli.main(["simulate", "--games", str(games), "--bots", "random", "--seed", "3", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["games"] == games
        assert updates == [games // 8 * k for k in range(1, 9)], games
