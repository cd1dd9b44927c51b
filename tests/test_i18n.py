"""The game in its players' languages: complete catalogs, the language each player gets, reasons
said from codes, and screens whose texts fit at 80×24 in every language."""

from __future__ import annotations

import gettext
import importlib
import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.scroll_view import ScrollView
from textual.widget import Widget
from textual.widgets import Button, Label, Static

from ono99_kernel.wire.requests import Join
from ono99_tui import i18n
from ono99_tui.i18n import (
    LANGUAGES,
    choose_language,
    current_language,
    language_from_env,
    language_from_ssh_env,
    using,
)
from ono99_tui.local_game import open_local_game
from ono99_tui.reasons import MESSAGES, render
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import TableTop
from ono99_tui.tui.widgets import KeysFooter
from tests.test_tui import wait_until
from tests.wire import said_of

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "ono99_tui" / "locale"
TRANSLATED = [code for code in LANGUAGES if code != "en"]
PLURAL_FORMS = {  # what each language's catalog must say (CLDR's rules)
    "af": "nplurals=2; plural=(n != 1);",
    "de": "nplurals=2; plural=(n != 1);",
    "gl": "nplurals=2; plural=(n != 1);",
    "ne": "nplurals=2; plural=(n != 1);",
    "vi": "nplurals=1; plural=0;",
}
FIELD = re.compile(r"\{[^{}]*\}")


def load(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def template() -> Catalog:
    return load(LOCALE / "ono99.pot")


def fields(text: str) -> list[str]:
    return sorted(set(FIELD.findall(text)))


# --- the catalogs ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_catalog_translates_every_message_with_its_placeholders(lang: str) -> None:
    catalog = load(LOCALE / lang / "LC_MESSAGES" / "ono99.po", lang)
    problems = []
    for message in template():
        if not message.id:
            continue
        mine = catalog.get(message.id, context=message.context)
        if mine is None:
            problems.append(f"missing: {message.id!r}")
            continue
        if mine.fuzzy:
            problems.append(f"fuzzy: {message.id!r}")
        forms = list(mine.string) if isinstance(mine.string, tuple | list) else [mine.string]
        if not all(forms):
            problems.append(f"untranslated: {message.id!r}")
            continue
        wanted = fields(str(message.id[1] if isinstance(message.id, tuple) else message.id))
        problems += [f"placeholders of {message.id!r}: {fields(str(f))} != {wanted}" for f in forms
                     if fields(str(f)) != wanted]
        if isinstance(message.id, tuple) and len(forms) != catalog.num_plurals:
            problems.append(f"{len(forms)} plural forms for {message.id!r}, the language has {catalog.num_plurals}")
    for message, errors in catalog.check():  # Babel's checkers (python-format, plural counts)
        problems += [f"{message.id!r}: {error}" for error in errors]
    problems += [f"obsolete: {message_id!r}" for message_id in catalog.obsolete]
    assert problems == [], f"{lang}: run 'python tools/catalogs.py update' and translate:\n" + "\n".join(problems)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_each_catalog_declares_its_languages_plural_forms(lang: str) -> None:
    text = (LOCALE / lang / "LC_MESSAGES" / "ono99.po").read_text(encoding="utf-8")
    assert f'"Plural-Forms: {PLURAL_FORMS[lang]}\\n"' in text


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_shipped_compiled_catalog_is_the_po_compiled(lang: str) -> None:
    catalog = load(LOCALE / lang / "LC_MESSAGES" / "ono99.po", lang)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    shipped = (LOCALE / lang / "LC_MESSAGES" / "ono99.mo").read_bytes()
    assert shipped == compiled.getvalue(), "run 'python tools/catalogs.py compile'"


def test_the_template_holds_exactly_the_messages_of_the_code(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        catalogs = importlib.import_module("catalogs")  # tools/ is not a package
    finally:
        sys.path.remove(str(ROOT / "tools"))
    fresh = tmp_path / "fresh.pot"
    catalogs.run(*catalogs.extract_args(fresh))
    ids = {m.id for m in load(fresh) if m.id}
    shipped = {m.id for m in template() if m.id}
    assert ids - shipped == set(), "new messages: run 'python tools/catalogs.py update' and translate them"
    assert shipped - ids == set(), "messages gone from the code: run 'python tools/catalogs.py update'"


def test_bot_level_descriptions_are_in_the_catalog_as_the_bots_say_them() -> None:
    from ono99_kernel.bots import BOT_LEVELS

    ids = {message.id for message in template()}
    assert {level.description for level in BOT_LEVELS.values()} <= ids
    with using("de"):
        assert i18n.gettext(BOT_LEVELS["random"].description) != BOT_LEVELS["random"].description


def test_plural_forms_follow_each_language() -> None:
    with using("de"):
        assert i18n.ngettext("{n} card", "{n} cards", 1).format(n=1) == "1 Karte"
        assert i18n.ngettext("{n} card", "{n} cards", 3).format(n=3) == "3 Karten"
    with using("vi"):
        assert i18n.ngettext("{n} card", "{n} cards", 1).format(n=1) == "1 lá"
        assert i18n.ngettext("{n} card", "{n} cards", 5).format(n=5) == "5 lá"
    with using("en"):
        assert i18n.ngettext("{n} card", "{n} cards", 0).format(n=0) == "0 cards"


# --- which language ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("env", "expected"), [
    ({"LANG": "de_DE.UTF-8"}, "de"),
    ({"LANG": "vi_VN.UTF-8"}, "vi"),
    ({"LANG": "ne_NP.UTF-8"}, "ne"),
    ({"LANG": "af_ZA.UTF-8"}, "af"),
    ({"LANG": "gl_ES.UTF-8"}, "gl"),
    ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "gl_ES.UTF-8"}, "gl"),
    ({"LANG": "de_DE.UTF-8", "LC_ALL": "vi_VN"}, "vi"),
    ({"LANGUAGE": "pt_BR:af", "LANG": "de_DE.UTF-8"}, "af"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "pt_BR.UTF-8"}, None),
    ({}, None),
])
def test_the_environment_names_the_language(env: dict[str, str], expected: str | None) -> None:
    assert language_from_env(env) == expected


def test_the_flag_wins_over_the_setting_and_the_setting_over_the_environment() -> None:
    env = {"LANG": "de_DE.UTF-8"}
    assert choose_language("vi", "gl", env) == "vi"
    assert choose_language(None, "gl", env) == "gl"
    assert choose_language(None, "", env) == "de"
    assert choose_language(None, "", {"LANG": "ja_JP.UTF-8"}) == "en"


def test_an_ssh_session_reads_only_lang_and_lc_variables() -> None:
    assert language_from_ssh_env({"LANG": "de_DE.UTF-8"}) == "de"
    assert language_from_ssh_env({"LC_ALL": "ne_NP.UTF-8", "LANG": "de_DE.UTF-8"}) == "ne"
    assert language_from_ssh_env({"LANGUAGE": "vi", "LANG": "de_DE.UTF-8"}) == "de"  # OpenSSH does not send it
    assert language_from_ssh_env({"TERM": "xterm", "EVIL": "de"}) == "en"


async def test_two_contexts_speak_two_languages_at_once() -> None:
    import asyncio

    async def say(lang: str) -> str:
        i18n.set_language(lang)
        await asyncio.sleep(0)
        return i18n.gettext("Your turn")

    german, vietnamese = await asyncio.gather(say("de"), say("vi"))
    assert (german, vietnamese) == ("Du bist am Zug", "Tới lượt bạn")
    assert current_language() == "en"


def test_the_cli_help_speaks_the_flags_language() -> None:
    out = subprocess.run([sys.executable, "-m", "ono99_tui.cli", "--lang", "de", "--help"], capture_output=True,
                         text=True, cwd=ROOT, env={"PATH": "/usr/bin:/bin", "ONO99_CONFIG_DIR": str(ROOT / "nowhere")})
    assert "die Sprache des Spiels" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "ono99_tui.cli", "--lang", "xx"], capture_output=True, text=True,
                         cwd=ROOT)
    assert bad.returncode == 2 and "unknown language 'xx'" in bad.stderr
    after = subprocess.run([sys.executable, "-m", "ono99_tui.cli", "replay", str(ROOT / "nothing.jsonl"), "--lang",
                            "de"], capture_output=True, text=True, cwd=ROOT)
    assert after.returncode != 0 and "kann nicht gelesen werden" in after.stderr


# --- reasons from codes ------------------------------------------------------------------------------------
def test_an_error_is_said_in_the_readers_language_from_its_code_and_params() -> None:
    message = {"t": "error", "code": "seat_taken", "reason": "seat 2 is taken", "params": {"seat": 2}}
    with using("de"):
        assert said_of(message) == "Platz 2 ist besetzt"
    with using("gl"):
        assert said_of(message) == "o asento 2 está ocupado"
    with using("en"):
        assert said_of(message) == "seat 2 is taken"


def test_a_guest_refused_a_keyed_players_name_is_told_whose_it_is() -> None:
    from ono99_server.name_claims import name_taken_params, same_name_refusal

    for wanted, existing in (("carol", "carol"), ("Carol", "carol"), ("car0l", "carol")):
        english = same_name_refusal(wanted, existing, "belongs to a player with a key")
        params = name_taken_params(wanted, existing, keyed=True)
        with using("en"):
            assert render("name_taken", params, "") == english
    for wanted, existing in (("carol", "carol"), ("Carol", "carol"), ("car0l", "carol")):
        english = same_name_refusal(wanted, existing)
        with using("en"):
            assert render("name_taken", name_taken_params(wanted, existing), "") == english


def test_an_unknown_code_or_missing_param_shows_the_servers_text() -> None:
    with using("de"):
        assert render("brand_new", {}, "something new") == "something new"
        assert render("seat_taken", {}, "seat 9 is taken") == "seat 9 is taken"
        assert render(None, None, "old server") == "old server"


def test_an_away_line_counts_in_the_readers_language() -> None:
    params = {"name": "Ada", "plays": 2, "cards": "7,ONO99x4", "out": 0}
    with using("de"):
        assert render("stood_in", params, "") == \
            "Während du weg warst, hat ein Bot für Ada gespielt: 2 Karten (7, vier ONO 99)."


def test_every_reason_template_names_only_params_the_server_sends() -> None:
    # the server's params (docs/protocol.md, section 9a) for each (code, why)
    sent = {
        ("bad_seat", "range"): {"last"}, ("bad_seat", "not_free"): {"seat"}, ("bad_seat", "no_bot"): {"seat"},
        ("bad_seat", "no_player"): {"seat"}, ("seat_taken", None): {"seat"}, ("not_watching", "name"): {"name"},
        ("not_host", None): {"host"}, ("stale_action", None): {"version", "current"},
        ("version_mismatch", None): {"server", "client"}, ("bad_field", "bots"): {"seats", "bots"},
        ("no_table", "code"): {"code"}, ("chat_too_long", None): {"max"},
        ("name_taken", "taken"): {"name", "existing", "keyed"}, ("name_taken", "same"): {"name", "existing", "keyed"},
        ("name_taken", "looks_like"): {"name", "existing", "keyed"}, ("removed", None): {"table"},
        ("name_taken", "taken_keyed"): {"name"}, ("name_taken", "same_keyed"): {"name", "existing"},
        ("name_taken", "looks_like_keyed"): {"name", "existing"},
        ("clock_ran_out", None): {"name", "bot", "card", "edition"}, ("seat_wanted", None): {"names"},
        ("clock_ran_out", "you"): {"name", "bot", "card", "edition"},  # the same notice, said to {name}
        ("bad_name", "length"): {"limit"}, ("bad_name", "table_length"): {"limit"},
        ("no_player", None): {"name"}, ("no_record", None): {"game"},
        ("bad_options", "one_of"): {"option", "allowed", "value"},
        ("bad_options", "whole_number"): {"option", "low", "high", "value"},
        ("bad_options", "elimination_2022"): {"option", "value"}, ("bad_options", "only_1980"): {"option"},
        ("bad_options", "not_elimination_1980"): {"option"}, ("bad_options", "house_rule_2022"): {"option"},
        ("bad_options", "requires"): {"option", "other"}, ("bad_options", "exclusive"): {"option", "other"},
        ("bad_options", "unknown"): {"option", "known"},
        ("bad_options", "seats_eight"): {"edition", "low", "high", "count", "other"},
        ("bad_options", "seats"): {"edition", "low", "high", "count"}, ("bad_options", "name_value"): {"value"},
        ("illegal_action", "not_your_turn"): {"turn", "seat"}, ("illegal_action", "seat_turn"): {"turn"},
        ("illegal_action", "no_draw"): {"seat"}, ("illegal_action", "not_in_hand"): {"card", "edition"},
        ("illegal_action", "would_make"): {"card", "total"}, ("illegal_action", "draw_pile_not_empty"): {"count"},
        ("illegal_action", "deal_seats"): {"expected", "given"},
        ("illegal_action", "deal_size"): {"seat", "count", "size"}, ("illegal_action", "deal_deck"): {"edition"},
        ("access_denied", "no_key"): {"ssh"}, ("access_denied", "fronts_only"): {"ssh"},
        ("access_denied", "locked"): {"seconds"}, ("access_denied", "busy"): {"seconds"},
        ("rate_limited", "new_names"): {"seconds"}, ("rate_limited", "code_locked"): {"seconds"},
        ("rate_limited", "code_busy"): {"seconds"},
        ("access_denied", "key_not_listed"): {"fingerprint", "key"},
        ("access_denied", "key_not_from"): {"fingerprint", "address"},
        ("too_many_connections", "address"): {"address"}, ("too_many_connections", "waiting_address"): {"address"},
        ("bad_field", "missing"): {"message", "field"}, ("bad_field", "type"): {"message", "field"},
        ("bad_field", "value"): {"message", "field"}, ("bad_key", "type"): {"types"},
        ("elsewhere", None): {"host", "port"},  # several nodes (server/ono99_server/cluster.py)
        # running a public host (server/ono99_server/moderation.py; docs/protocol.md section 5b)
        ("banned", "identity"): {"reason"}, ("banned", "address"): {"reason"},
        ("banned", "identity_until"): {"reason", "until"}, ("banned", "address_until"): {"reason", "until"},
        ("kicked", None): {"reason", "seconds"}, ("not_operator", "key"): {"fingerprint"},
        ("bad_name", "denied"): {"name"}, ("muted", "lobby"): {"reason"}, ("muted", "lobby_until"): {"reason", "until"},
        ("no_player", "name"): {"name"}, ("no_player", "identity"): {"name"}, ("no_player", "offline"): {"name"},
        ("bad_target", "guest"): {"name"}, ("bad_target", "guest_rename"): {"name"},
        ("bad_target", "guest_release"): {"name"},
        ("not_banned", None): {"name"}, ("not_muted", None): {"name"}, ("no_report", None): {"id"},
        ("rate_limited", "report"): {"seconds"}, ("rate_limited", "records"): {"seconds"},
        ("motd", None): {"text"}, ("host_notice", None): {"text"},
        ("reported", None): {"name"}, ("operator_kick", None): {"reason"}, ("operator_ban", None): {"reason", "until"},
        ("chat_muted", None): {"reason"}, ("renamed", None): {"name"}, ("table_closed", None): {"reason"},
    }
    for key, template_text in MESSAGES.items():
        used = {f.strip("{}") for f in FIELD.findall(template_text)}
        assert used <= sent.get(key, set()), key


async def test_the_server_sends_params_with_a_refusal(tmp_path: Path) -> None:
    from tests.server_helpers import create_table, running_server

    async with running_server(tmp_path) as harness:
        ada = await harness.connect("Ada")
        table = await create_table(ada, seats=2)
        bob = await harness.connect("Bob")
        await bob.send(Join(table=table, seat=0))
        error = await bob.error()
        assert error["code"] == "seat_taken" and error["params"] == {"seat": 0}
        with using("vi"):
            assert said_of(error) == "ghế 0 đã có người"


# --- screens at 80×24 ----------------------------------------------------------------------------------------
def cut_texts(screen: Any) -> list[str]:
    """Texts of the screen that do not fit their widget: a footer key left out, a button label or a
    line that does not wrap wider than its widget, a text taller than its widget."""
    problems: list[str] = []
    for widget in screen.query("*"):
        if not isinstance(widget, Widget) or not widget.display or not widget.visible:
            continue
        region = widget.content_region
        if region.width <= 0 or region.height <= 0:
            continue
        if isinstance(widget, KeysFooter):
            entries, _palette = widget._read_bindings()
            widget.render()
            shown = {entry.key for _start, _end, entry in widget._spans}
            left_out = [entry.description for entry in entries if entry.key not in shown]
            if left_out:  # the command palette's key may go: it is not the screen's
                problems.append(f"footer leaves out {left_out}")
            continue
        if isinstance(widget, TableTop):  # the table top says what it could not fit where it drew it
            problems += [f"table top cuts {text!r}" for text in widget.cut]
            continue
        if isinstance(widget, Button):
            label = str(widget.label)
            if cell_len(label) > region.width:
                problems.append(f"button {label!r}: {cell_len(label)} cells in {region.width}")
            continue
        if not isinstance(widget, Static | Label) or isinstance(widget, ScrollView):
            continue
        text = str(widget.render())
        if not text.strip():
            continue
        if widget.styles.text_wrap == "nowrap":
            wide = [line for line in text.splitlines() if cell_len(line) > region.width]
            problems += [f"{widget.id or type(widget).__name__}: {line!r} wider than {region.width}" for line in wide]
        parent = widget.parent
        scrolled = parent is not None and isinstance(parent, Widget) and parent.styles.overflow_y in ("auto", "scroll")
        if not scrolled and widget.styles.overflow_y not in ("auto", "scroll"):
            needed = widget.get_content_height(region.size, screen.size, region.width)
            if needed > region.height:
                problems.append(f"{widget.id or type(widget).__name__}: {needed} lines in {region.height}: {text!r}")
    return problems


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause(0.05)
    await pilot.pause()


@pytest.mark.parametrize("lang", list(LANGUAGES))
async def test_the_lobby_fits_80_by_24_in_every_language(lang: str) -> None:
    from ono99_server import Server, ServerConfig

    server = Server(ServerConfig(host="127.0.0.1", port=0, default_turn_seconds=0))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        with using(lang):
            async with app.run_test(size=(80, 24)) as pilot:
                await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
                await settle(pilot)
                assert cut_texts(app.screen) == []
                if lang != "en":
                    footer = app.screen.query_one(KeysFooter).render().plain
                    assert i18n.gettext("Leaderboard") in footer and "Leaderboard" not in footer
    finally:
        await server.close()


def test_textual_measures_nepali_and_vietnamese_as_the_terminal_draws_them() -> None:
    """Rich gave Devanagari's spacing vowel signs (ि in कि) no cell, the terminal's wcwidth gives them
    one: every Nepali and Vietnamese message now measures the same for both."""
    from ono99_tui.tui.cells import terminal_width

    assert cell_len("कि") == 2 and cell_len("कं") == 1 and cell_len("क्ष") == 2
    assert cell_len("ệ") == 1 and cell_len("e\u0323\u0302") == 1  # precomposed, and e with two combining marks
    for lang in ("ne", "vi"):
        for message in load(LOCALE / lang / "LC_MESSAGES" / "ono99.po", lang):
            for text in message.string if isinstance(message.string, tuple) else [message.string]:
                if message.id and text:
                    for line in str(text).splitlines():
                        assert cell_len(line) == terminal_width(line), (lang, line)


def test_a_fresh_install_ships_the_compiled_catalogs() -> None:
    """The package data lists the catalogs, so ``pip install`` (README) carries them."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"locale/*/LC_MESSAGES/*.mo"' in text
    for lang in TRANSLATED:
        assert gettext.find("ono99", str(LOCALE), [lang]) is not None


# --- SSH: the client's LANG/LC_* -------------------------------------------------------------------------------
async def test_ssh_players_each_get_the_language_their_client_sends(tmp_path: Path) -> None:
    from tests.test_ssh import Player, start_rig

    rig = await start_rig(tmp_path)
    try:
        ada = await Player.connect(rig, "ada", env={"LANG": "de_DE.UTF-8"}, size=(80, 24))
        bob = await Player.connect(rig, "bob", env={"LC_ALL": "vi_VN.UTF-8", "LANG": "de_DE.UTF-8"}, size=(80, 24))
        eve = await Player.connect(rig, "eve", env={"LANGUAGE": "de", "ONO99_LANG": "de"}, size=(80, 24))
        for player in (ada, bob, eve):
            await player.until_screen(LobbyScreen, "the lobby")
        await ada.until_shown(b"Rangliste", "the German lobby")
        await bob.until_shown("Xếp hạng".encode(), "the Vietnamese lobby")
        await eve.until_shown(b"Leaderboard", "an English lobby: only LANG and LC_* are read")
        assert b"Rangliste" not in bob.output and b"Rangliste" not in eve.output
        for player in (ada, bob, eve):
            await player.close()
    finally:
        await rig.close()


async def test_the_language_chosen_in_the_settings_is_spoken_at_once_and_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.widgets import Select

    from ono99_tui.tui.settings import CONFIG_DIR_ENV, Settings
    from ono99_tui.tui.settings_screen import SettingsScreen

    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path))
    app = make_app(local=True, name="Ada", bot_delay=5, settings=Settings(hint_seen=True),
                   local_game=open_local_game)
    with using("en"):
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            await pilot.press("f2")
            await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen), "the settings")
            app.screen.query_one("#language", Select).value = "gl"
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and current_language() == "gl",
                             "the table again, in Galician")
            await settle(pilot)
            footer = app.screen.query_one(KeysFooter).render().plain
            assert "Axuda" in footer and "Help" not in footer
    assert Settings.load().language == "gl"


def test_a_tables_rules_read_in_english_as_the_engine_sums_them_up_and_in_each_language() -> None:
    from itertools import product

    from ono99_kernel.core.options import TableOptions
    from ono99_tui.client.labels import rules_summary

    cases: list[tuple[str, dict[str, Any]]] = [("2022", {}), ("2022", {"eight_players": True, "manual_draw": True})]
    for scoring, win, zero, bust, sets in product(("tokens", "points"), ("last_standing", "lowest_score"),
                                                  (False, True), (False, True), (False, True)):
        cases.append(("1980", {"scoring": scoring, "points_win": win, "out_at_zero_tokens": zero,
                               "bust_over_99": bust or sets, "ono99_sets_99": sets, "ono99_on_zero": not sets}))
    for edition, given in cases:
        options = TableOptions.from_mapping(edition, given)
        with using("en"):
            assert rules_summary(options) == options.summary()
    with using("gl"):
        options = TableOptions.from_mapping("1980", {"manual_draw": True})
        assert rules_summary(options) == "1980 · fichas · saque manual"
