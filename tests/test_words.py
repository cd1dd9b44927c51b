"""Card labels, option words and bot levels each live in one place (the core, the bots), which every
layer reads: the screens say them in the player's language, the protocol accepts what the bots are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from textual.widgets import Button, Select, Static, Switch

from ono99_kernel.bots import BOT_LEVELS
from ono99_kernel.core.cards import Card, Edition
from ono99_kernel.core.errors import OptionError
from ono99_kernel.core.options import OPTION_WORDS, PointsWin, TableOptions, parse_option_text
from ono99_kernel.protocol import BOT_LEVEL_NAMES, ProtocolError
from ono99_kernel.wire.requests import CreateTable, decode_request
from ono99_tui import i18n
from ono99_tui.client.labels import card_kind, card_label, card_short, option_problem, rules_summary
from ono99_tui.i18n import LANGUAGES, using
from ono99_tui.local_game import open_local_game
from ono99_tui.tui.app import make_app
from ono99_tui.tui.cardface import card_face
from ono99_tui.tui.new_game import NewGameScreen
from ono99_tui.tui.table import TableScreen
from tests.test_tui import wait_until

ROOT = Path(__file__).resolve().parent.parent


def template_ids() -> set[str]:
    with (ROOT / "ono99_tui" / "locale" / "ono99.pot").open("rb") as f:
        return {m.id for m in read_po(f) if isinstance(m.id, str) and m.id}


# --- cards ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_cards_label_on_screen_is_the_cores_label_in_the_players_language(lang: str) -> None:
    with using(lang):
        for edition in Edition:
            for card in Card:
                assert card_label(card.code, edition.value) == i18n.gettext(card.label(edition))


def test_the_action_cards_names_are_translated_from_the_cores_words() -> None:
    assert {Card.REVERSE.label(), Card.PLAY2.label(), Card.DOUBLE.label(), Card.HOLD.label()} <= template_ids()
    with using("de"):
        assert card_label("DOUBLE", "1980") == "Doppelzug" and card_label("REV") == "Umkehr"
    assert card_label("DOUBLE", "1980") == "Double Play"  # the core's words, not a second English name
    assert card_label("ONO99", "1980") == "O'NO 99" and card_label("ONO99") == "ONO 99"
    assert card_label("-10") == "\u221210"


def test_a_cards_face_and_kind_are_the_cores() -> None:
    for card in Card:
        assert card_short(card.code) == card.short and card_kind(card.code) == card.kind
        assert card_face(card.code, "2022")[0] == card.short
        assert len(card.short) <= 3
    assert card_face("ONO99", "1980")[1] == Card.ONO99.label(Edition.E1980)


def test_german_card_names_keep_their_capital_on_the_card() -> None:
    """German nouns are capitalised: the card says Umkehr and Doppelzug, not umkehr; others lowercase."""
    with using("de"):
        assert [card_face(code, edition)[1] for code, edition in
                (("REV", "2022"), ("PLAY2", "2022"), ("HOLD", "1980"), ("DOUBLE", "1980"))] == [
            "Umkehr", "Spiele 2", "Halten", "Doppelzug"]
    with using("gl"):
        assert card_face("REV", "2022")[1] == card_label("REV", "2022").lower()


# --- options ----------------------------------------------------------------------------------------------------
def test_every_option_has_its_words_in_the_core_and_in_the_catalogs() -> None:
    assert tuple(OPTION_WORDS) == TableOptions.option_names()
    texts = {text for words in OPTION_WORDS.values() for text in (words.title, words.switch, words.summary) if text}
    texts |= {way.words for way in PointsWin}
    assert texts <= template_ids()


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_a_tables_summary_on_screen_is_the_engines_summary_in_the_players_language(lang: str) -> None:
    options = TableOptions.from_mapping("1980", {"scoring": "points", "points_win": "lowest_score",
                                                 "bust_over_99": True, "manual_draw": True})
    with using(lang):
        assert rules_summary(options) == options.summary(i18n.gettext)
        if lang != "en":
            assert rules_summary(options) != options.summary()


def test_an_option_error_names_its_options_in_english_by_name_and_on_screen_by_title() -> None:
    with pytest.raises(OptionError) as caught:
        TableOptions.from_mapping("1980", {"ono99_sets_99": True})
    error = caught.value
    assert str(error) == "option 'ono99_sets_99' requires 'bust_over_99' to be on (a total of 99 must be legal)"
    assert error.template in template_ids()
    with using("en"):
        assert option_problem(error) == ("option \u201cO'NO 99 sets the total to 99\u201d requires "
                                         "\u201cOnly going over 99 loses\u201d to be on (a total of 99 must be legal)")
    with using("de"):
        german = option_problem(error)
    assert german.startswith("die Option \u201c") and "_" not in german


def test_every_option_error_template_is_in_the_catalogs() -> None:
    cases: list[tuple[str, dict[str, Any]]] = [
        ("2022", {"colour": 1}), ("2022", {"manual_draw": "yes"}), ("2022", {"scoring": "tokens"}),
        ("2022", {"bust_over_99": True}), ("1980", {"scoring": "elimination"}), ("1980", {"eight_players": True}),
        ("1980", {"ono99_sets_99": True}), ("1980", {"points_target": 0}), ("1980", {"points_win": "x"}),
        ("1980", {"bust_over_99": True, "ono99_sets_99": True, "ono99_on_zero": True}), ("1970", {}),
    ]
    templates = set()
    for edition, options in cases:
        with pytest.raises(OptionError) as caught:
            TableOptions.from_mapping(edition, options)
        templates.add(caught.value.template)
    for seats in (1, 9):
        for edition in ("2022", "1980"):
            with pytest.raises(OptionError) as caught:
                TableOptions.from_mapping(edition).check_players(seats)
            templates.add(caught.value.template)
    with pytest.raises(OptionError) as caught:
        parse_option_text("manual_draw")
    templates.add(caught.value.template)
    assert len(templates) == 12 and templates <= template_ids()


async def test_the_new_game_dialog_says_an_option_error_in_german() -> None:
    app = make_app(bot_delay=5, local_game=open_local_game)
    with using("de"):
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            await pilot.press("n")
            await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the dialog")
            dialog = app.screen
            dialog.query_one("#edition", Select).value = "1980"
            dialog.query_one("#ono99_sets_99", Switch).value = True
            await pilot.pause()
            dialog.query_one("#start", Button).press()
            await wait_until(pilot, lambda: bool(str(dialog.query_one("#problem", Static).render())), "the problem")
            problem = str(dialog.query_one("#problem", Static).render())
            title = i18n.gettext(OPTION_WORDS["bust_over_99"].title)
            assert isinstance(app.screen, NewGameScreen)  # the game did not start
    assert problem.startswith("die Option \u201c") and f"\u201c{title}\u201d" in problem
    assert "requires" not in problem and "bust_over_99" not in problem


@pytest.mark.parametrize("lang", list(LANGUAGES))
async def test_the_new_game_dialogs_option_errors_fit_80_by_24_in_every_language(lang: str) -> None:
    from tests.test_i18n import cut_texts, settle

    app = make_app(bot_delay=5, local_game=open_local_game)
    seen: dict[str, list[str]] = {}
    with using(lang):
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            await pilot.press("n")
            await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the dialog")
            dialog = app.screen
            # (a seat count the edition does not seat is no longer offered: tests/test_new_game_dialog.py)
            cases = {"requires": ("1980", {"ono99_sets_99": True}, 4),
                     "both": ("1980", {"ono99_sets_99": True, "bust_over_99": True, "ono99_on_zero": True}, 4)}
            for case, (edition, switches, seats) in cases.items():
                dialog.query_one("#edition", Select).value = edition
                dialog.query_one("#seats", Select).value = seats
                for name in ("ono99_sets_99", "bust_over_99", "ono99_on_zero"):
                    dialog.query_one(f"#{name}", Switch).value = switches.get(name, False)
                await pilot.pause()
                dialog.query_one("#start", Button).press()
                await wait_until(pilot, lambda: bool(str(dialog.query_one("#problem", Static).render())), case)
                await settle(pilot)
                assert isinstance(app.screen, NewGameScreen)
                seen[case] = cut_texts(dialog)
                dialog.query_one("#problem", Static).update("")
    assert {case: problems for case, problems in seen.items() if problems} == {}


# --- bot levels ----------------------------------------------------------------------------------------------
def test_the_protocol_accepts_exactly_the_bots_levels() -> None:
    assert tuple(BOT_LEVELS) == BOT_LEVEL_NAMES
    for level in BOT_LEVELS:
        decode_request({"t": "add_bot", "level": level})
        decode_request({"t": "create_table", "bot_level": level})
    with pytest.raises(ProtocolError) as caught:
        decode_request({"t": "add_bot", "level": "genius"})
    assert caught.value.code == "bad_field"


def test_play_now_fills_with_every_level_and_only_those() -> None:
    from ono99_server.matchmaking import FILL_PREFERENCE

    assert sorted(FILL_PREFERENCE) == sorted(BOT_LEVELS)
    assert FILL_PREFERENCE[0] == "greedy"


# --- refused actions ------------------------------------------------------------------------------------------
def test_every_reason_the_engine_gives_for_an_illegal_action_is_translated() -> None:
    from ono99_kernel.core.errors import ILLEGAL_PROBLEMS
    from ono99_tui.reasons import ILLEGAL, MESSAGES

    assert set(ILLEGAL) == set(ILLEGAL_PROBLEMS)
    assert all(MESSAGES[("illegal_action", why)] == ILLEGAL[why] for why in ILLEGAL_PROBLEMS)
    assert set(ILLEGAL.values()) | set(ILLEGAL_PROBLEMS.values()) <= template_ids()


# --- the LAN list ------------------------------------------------------------------------------------------------
def test_a_lan_adverts_english_summary_is_shown_in_the_players_language() -> None:
    from ono99_kernel.lan import Advert, AdvertisedTable, parse_txt, to_txt
    from ono99_tui.client.labels import summary_words
    from ono99_tui.tui.servers import describe_tables

    options = TableOptions.from_mapping("1980", {"scoring": "points", "points_target": 250,
                                                 "points_win": "lowest_score", "manual_draw": True})
    tokens = TableOptions.from_mapping("1980", {"out_at_zero_tokens": True, "bust_over_99": True})
    sent = Advert(name="Pub", protocol=1, ssh_port=None, tables_total=9, tables=(
        AdvertisedTable(id=1, name="Ada's", free=1, seats=4, status="waiting", summary=options.summary()),
        AdvertisedTable(id=2, name="Bo's", free=0, seats=2, status="playing", summary=tokens.summary())))
    advert = parse_txt({key.encode(): value.encode() for key, value in to_txt(sent).items()})
    with using("gl"):
        shown = describe_tables(advert).plain
        assert options.summary(i18n.gettext) in shown and tokens.summary(i18n.gettext) in shown
        assert "manual draw" not in shown and "lobby" not in shown
        assert summary_words("1980 · tokens · warp drive") == "1980 · fichas · warp drive"  # a newer server's word
    with using("en"):
        assert summary_words(options.summary()) == options.summary()


# --- the command line -------------------------------------------------------------------------------------------
def run_ono99(*args: str, tmp_path: Path) -> Any:
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "ono99_tui.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600, env={"PATH": "/usr/bin:/bin", "ONO99_CONFIG_DIR": str(tmp_path),
                                            "COLUMNS": "200"})


def test_simulate_speaks_german_with_lang_de(tmp_path: Path) -> None:
    out = run_ono99("--lang", "de", "simulate", "--games", "20", "--bots", "greedy,random", "--edition", "1980",
                    "--option", "manual_draw=true", "--record", str(tmp_path / "games.jsonl"), tmp_path=tmp_path)
    assert out.returncode == 0, out.stderr
    for german in ("20 Spiele", "2 Spieler", "Seed 0", "wer", "Siege", "Siegquote  [95\N{NO-BREAK SPACE}%-Intervall]",
                   "Bot 1: gierig", "Platz 1", "fairer Anteil 50,0\N{NO-BREAK SPACE}%", "Züge pro Spiel", "Spiele/s",
                   "Aufzeichnungen nach"):
        assert german in out.stdout, german
    with using("de"):
        assert TableOptions.from_mapping("1980", {"manual_draw": True}).summary(i18n.gettext) in out.stdout
    assert "turns per game" not in out.stdout and "seat 0" not in out.stdout
    refused = run_ono99("--lang", "de", "simulate", "--option", "ono99_sets_99=true", "--edition", "1980",
                        tmp_path=tmp_path)
    assert refused.returncode == 2
    assert "die Option 'ono99_sets_99' braucht 'bust_over_99'" in refused.stderr
    assert "'ono99 simulate --help' zeigt die Optionen." in refused.stderr
    unknown = run_ono99("--lang", "de", "simulate", "--bots", "genius", tmp_path=tmp_path)
    assert unknown.returncode == 2 and "unbekannte Bot-Stufe 'genius'" in unknown.stderr


def test_records_check_speaks_german_with_lang_de(tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    made = run_ono99("simulate", "--games", "3", "--record", str(games), tmp_path=tmp_path)
    assert made.returncode == 0, made.stderr
    out = run_ono99("--lang", "de", "records", "check", str(games), tmp_path=tmp_path)
    assert out.returncode == 0 and "3 Aufzeichnungen geprüft: 3 gültig, 0 fehlerhaft" in out.stdout
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    out = run_ono99("--lang", "de", "records", "check", str(empty), tmp_path=tmp_path)
    assert out.returncode == 1 and "enthält keine Aufzeichnungen" in out.stderr


def test_argparses_own_words_speak_german_with_lang_de(tmp_path: Path) -> None:
    helped = run_ono99("--lang", "de", "simulate", "--help", tmp_path=tmp_path)
    assert helped.returncode == 0
    assert helped.stdout.startswith("Aufruf: ono99 simulate") and "Optionen:" in helped.stdout
    assert "diese Hilfe zeigen und beenden" in helped.stdout
    assert all(name in helped.stdout for name in TableOptions.option_names())  # --option's names are the engine's
    assert "usage:" not in helped.stdout and "show this help message" not in helped.stdout
    wrong = run_ono99("--lang", "de", "simulate", "--games", "x", tmp_path=tmp_path)
    assert wrong.returncode == 2 and "Argument --games: ungültiger int-Wert: 'x'" in wrong.stderr
    missing = run_ono99("--lang", "de", "records", "check", tmp_path=tmp_path)
    assert missing.returncode == 2 and "diese Argumente fehlen: FILE.jsonl" in missing.stderr
    english = run_ono99("--lang", "en", "records", "check", tmp_path=tmp_path)
    assert "the following arguments are required: FILE.jsonl" in english.stderr


def test_argparses_words_are_its_own_and_are_given_back() -> None:
    import argparse
    import gettext
    import inspect

    from ono99_tui.argparse_words import ARGPARSE_MESSAGES, expected_arguments, speaking

    source = inspect.getsource(argparse)
    assert all(repr(message) in source or f'"{message}"' in source for message in ARGPARSE_MESSAGES)
    assert set(ARGPARSE_MESSAGES) <= template_ids()
    with using("de"), speaking():
        assert vars(argparse)["_"]("usage: ") == "Aufruf: "
        assert expected_arguments(2) == "2 Argumente erwartet"
    assert vars(argparse)["_"] is gettext.gettext and vars(argparse)["ngettext"] is gettext.ngettext


async def test_the_servers_refusal_of_options_is_said_in_the_players_language(tmp_path: Path) -> None:
    from tests.server_helpers import running_server
    from tests.wire import said_of

    async with running_server(tmp_path) as h:
        ada = await h.connect("Ada")
        requires = await ada.request(CreateTable(edition="1980", options={"ono99_sets_99": True}),
                                     "error")
        seats = await ada.request(CreateTable(edition="2022", seats=8), "error")
        unknown = await ada.request(CreateTable(options={"colour": "red"}), "error")
    assert requires["code"] == seats["code"] == unknown["code"] == "bad_options"
    assert requires["params"] == {"why": "requires", "option": "ono99_sets_99", "other": "bust_over_99"}
    with using("en"):
        for error in (requires, seats, unknown):
            assert said_of(error) == error["reason"]
    with using("de"):
        assert said_of(requires) == ("die Option 'ono99_sets_99' braucht 'bust_over_99' "
                                                   "(eine Summe von 99 muss erlaubt sein)")
        assert said_of(seats).startswith("an einem 2022-Tisch sitzen 2 bis 6 Spieler")
        assert said_of(unknown).startswith("unbekannte Option 'colour'")
