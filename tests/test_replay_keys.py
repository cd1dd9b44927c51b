"""ono99 replay: the cards take no key, there is no chat, ? shows the replay's keys, and ] and [ go
to the file's other records (shown in the footer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App
from textual.widgets import Markdown, Static

from ono99_tui.tui.help import HelpScreen
from ono99_tui.tui.replay import load_replay, make_replay_app
from ono99_tui.tui.widgets import CardWidget, KeysFooter
from tests.test_tui import DATA, wait_until


def two_records(tmp_path: Path) -> Path:
    path = tmp_path / "games.jsonl"
    path.write_text((DATA / "sample_2022.jsonl").read_text().strip() + "\n"
                    + (DATA / "sample_1980_points.jsonl").read_text().strip() + "\n")
    return path


def footer_text(app: App[Any]) -> str:
    footer = app.screen.query_one(KeysFooter)
    return "".join(segment.text for segment in footer.render_line(0))


async def test_the_replay_shows_no_card_keys_and_no_chat(tmp_path: Path) -> None:
    path = two_records(tmp_path)
    app = make_replay_app(load_replay(path), path)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("right", "right")
        cards = [str(card.render()) for card in app.screen.query(CardWidget) if card.display]
        assert cards and not any("[1]" in card or "[2]" in card for card in cards)
        assert not app.screen.query_one("#chat-box").display
        assert "chat" not in footer_text(app).lower()


async def test_question_mark_shows_the_replay_keys(tmp_path: Path) -> None:
    path = two_records(tmp_path)
    app = make_replay_app(load_replay(path), path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        text = app.screen.query_one(Markdown).source
        assert text.startswith("## Replay keys")
        assert "| ] / [ | the next / the previous record of the file |" in text and "| q | quit |" in text


async def test_brackets_go_to_the_next_and_previous_record_of_the_file(tmp_path: Path) -> None:
    path = two_records(tmp_path)
    app = make_replay_app(load_replay(path), path)

    def title() -> str:
        return str(app.screen.query_one("#title", Static).render())

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "] Next record" in footer_text(app)
        assert "record 1 of 2" in title() and "2022" in title()
        await pilot.press("right", "right", "right_square_bracket")
        await pilot.pause()
        assert "record 2 of 2" in title() and "1980" in title()
        assert app.position == 0 and app.line == 2
        await pilot.press("right_square_bracket")  # no third: it stays, and says so
        await pilot.pause()
        assert "record 2 of 2" in title()
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert "record 1 of 2" in title()


async def test_a_file_of_one_record_offers_no_other(tmp_path: Path) -> None:
    path = DATA / "sample_2022.jsonl"
    app = make_replay_app(load_replay(path), path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "record" not in footer_text(app).lower()
