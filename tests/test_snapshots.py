"""Snapshots of the key screens, from recorded games so that every run shows the same cards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ono99_tui.tui.replay import ReplayApp, load_replay, make_replay_app

DATA = Path(__file__).parent / "data"


def still(app: ReplayApp) -> ReplayApp:
    """Each move shown at once: a snapshot is of a move, not of its motion."""
    app.animation_level = "none"
    return app


def test_table_screen_mid_game(snap_compare: Any) -> None:
    app = still(make_replay_app(load_replay(DATA / "sample_2022.jsonl")))
    assert snap_compare(app, press=["right"] * 12, terminal_size=(80, 24))


def test_table_screen_1980_points_at_a_wider_size(snap_compare: Any) -> None:
    app = still(make_replay_app(load_replay(DATA / "sample_1980_points.jsonl")))
    assert snap_compare(app, press=["right"] * 30, terminal_size=(110, 32))


def test_game_over_dialog(snap_compare: Any) -> None:
    app = still(make_replay_app(load_replay(DATA / "sample_2022.jsonl")))
    assert snap_compare(app, press=["end"], terminal_size=(80, 24))


def test_help_screen(snap_compare: Any) -> None:
    app = still(make_replay_app(load_replay(DATA / "sample_2022.jsonl")))
    assert snap_compare(app, press=["question_mark"], terminal_size=(80, 24))
