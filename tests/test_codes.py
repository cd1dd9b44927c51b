"""Refusals said by a stable key and params, in the player's language: the engine's illegal actions, the
server's errors (docs/protocol.md, section 9a)."""

from __future__ import annotations

import random
import string
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.core.actions import DISCARD_FOUR, DRAW, PLAYS
from ono99_kernel.core.cards import CODES, Card, Edition
from ono99_kernel.core.errors import ILLEGAL_PROBLEMS, RECORD_PROBLEMS, IllegalActionError, RecordError
from ono99_kernel.core.game import Game
from ono99_kernel.core.options import TableOptions
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.wire.requests import Act, Hello
from ono99_kernel.wire.server import Notice
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ServerError
from ono99_tui.i18n import LANGUAGES, gettext, using
from ono99_tui.reasons import ILLEGAL, render, said
from tests.server_helpers import TIMEOUT, create_table, join, running_server, start
from tests.wire import said_of


def fields(template: str) -> set[str]:
    return {name for _text, name, _spec, _conv in string.Formatter().parse(template) if name}


# --- the engine --------------------------------------------------------------------------------------------
def refusals(game: Game, rng: random.Random) -> list[IllegalActionError]:
    """Every refusal of every action by every seat, at each step of a random game."""
    found: list[IllegalActionError] = []
    while not game.is_over:
        for seat in range(game.seats):
            for action in (*PLAYS, DISCARD_FOUR, DRAW):
                try:
                    if action not in game.legal_actions(seat):
                        game.apply(seat, action)
                except IllegalActionError as exc:
                    found.append(exc)
        mover = next(seat for seat in range(game.seats) if game.legal_actions(seat))
        game.apply(mover, rng.choice(game.legal_actions(mover)))
    for action in (PLAYS[Card.N1], DRAW):
        with pytest.raises(IllegalActionError) as info:
            game.apply(0, action)
        found.append(info.value)
    return found


@pytest.mark.parametrize("edition", ["2022", "1980"])
def test_every_illegal_action_carries_a_known_key_params_for_its_text_and_its_english_message(edition: str) -> None:
    seen: set[str] = set()
    for seed in range(6):
        options = TableOptions.from_mapping(edition, {"ono99_on_zero": True} if edition == "1980" and seed % 2 else {})
        for exc in refusals(Game(options, 2 + seed % 3, random.Random(seed)), random.Random(seed)):
            assert exc.why in ILLEGAL_PROBLEMS
            assert fields(exc.template) <= set(exc.params), exc.why
            assert all(isinstance(value, str | int) for value in exc.params.values())
            assert str(exc) == exc.say() and "{" not in str(exc)
            seen.add(exc.why)
    common = {"game_over", "not_your_turn", "no_draw", "not_in_hand", "would_make"}
    assert common | ({"four_needs_four", "ono99_2022"} if edition == "2022" else {"four_1980"}) <= seen


def test_a_card_not_in_hand_is_named_by_its_label_on_the_tables_edition() -> None:
    game = Game(TableOptions.from_mapping("1980", {}), 2, random.Random(3))
    seat = game.turn
    assert seat is not None and Card.ONO99 not in game.hand_of(seat)
    with pytest.raises(IllegalActionError) as info:
        game.apply(seat, PLAYS[Card.ONO99])
    assert (info.value.why, info.value.params) == ("not_in_hand", {"card": "ONO99", "edition": "1980"})
    assert str(info.value) == "O'NO 99 is not in your hand"
    assert Card.ONO99.label(Edition.E1980) == "O'NO 99"


@pytest.mark.parametrize(("edition", "options", "keys"), [
    ("2022", {}, {"would_make", "ono99_2022"}),
    ("2022", {"manual_draw": True}, {"ono99_2022", "draw_first"}),
    ("1980", {}, {"would_make", "ono99_1980"}),
    ("1980", {"ono99_on_zero": True}, {"would_make", "ono99_on_zero"}),
])
def test_the_reasons_of_a_view_are_the_engines_texts_of_the_same_keys(
        edition: str, options: dict[str, object], keys: set[str]) -> None:
    """Each card a view lists as unplayable, at every turn of random games, is refused with the same key,
    params and English text when played."""
    rng = random.Random(1)
    seen: set[str] = set()
    for _ in range(20):
        game = Game(TableOptions.from_mapping(edition, options), 3, rng)
        while not game.is_over:
            seat = game.turn
            assert seat is not None
            view = game.seat_view(seat)
            assert view.unplayable == game.unplayable_cards(seat)
            for entry in view.unplayable:
                with pytest.raises(IllegalActionError) as info:
                    game.apply(seat, PLAYS[entry.card])
                refusal = (info.value.why, info.value.params, str(info.value))
                assert refusal == (entry.why, dict(entry.params), entry.reason)
                seen.add(entry.why)
            game.apply(seat, rng.choice(game.legal_actions(seat)))
            for other in range(game.seats):  # manual_draw: owed draws are taken, some late
                if not game.is_over and DRAW in game.legal_actions(other) and rng.random() < 0.5:
                    game.apply(other, DRAW)
    assert keys <= seen


def test_every_key_the_engine_can_raise_is_said_in_every_language() -> None:
    assert set(ILLEGAL) == set(ILLEGAL_PROBLEMS)
    for lang in LANGUAGES:
        if lang == "en":
            continue
        with using(lang):
            for why, template in ILLEGAL.items():
                said = gettext(template)
                assert said != template, (lang, why)
                assert fields(said) == fields(template), (lang, why)


# --- the client's words ---------------------------------------------------------------------------------------
def test_each_illegal_action_key_renders_in_german() -> None:
    expected: dict[str, tuple[dict[str, Any], str]] = {
        "game_over": ({}, "das Spiel ist vorbei"),
        "not_your_turn": ({"turn": 1, "seat": 0}, "du bist nicht am Zug"),
        "no_draw": ({"seat": 0}, "du hast keine Karte zu ziehen"),
        "not_in_hand": ({"card": "REV", "edition": "2022"}, "Umkehr ist nicht auf deiner Hand"),
        "would_make": ({"card": 7, "total": 101}, "7 würde 101 ergeben"),
        "draw_pile_not_empty": ({"count": 3}, "der Ziehstapel hat noch 3 Karten; er wird erst neu gemischt, wenn er "
                                              "leer ist"),
    }
    with using("de"):
        for why, (params, german) in expected.items():
            assert render("illegal_action", {"why": why, **params}, "English") == german
        for why in ILLEGAL:
            params = {name: 1 for name in fields(ILLEGAL_PROBLEMS[why]) | fields(ILLEGAL[why])}
            if why == "not_in_hand":
                params = {"card": "7", "edition": "2022"}
            assert render("illegal_action", {"why": why, **params}, "English") != "English", why


def test_an_unknown_key_or_a_missing_param_falls_back_to_the_english_reason() -> None:
    with using("de"):
        assert render("illegal_action", {"why": "brand_new_rule"}, "a newer rule") == "a newer rule"
        assert render("illegal_action", {}, "an older server") == "an older server"
        assert render("illegal_action", {"why": "would_make", "card": 7}, "7 would make 101") == "7 would make 101"
        assert render("access_denied", {"why": "brand_new"}, "a new refusal") == "a new refusal"


async def test_a_refused_move_from_a_real_server_is_said_in_german_by_its_key(tmp_path: Path) -> None:
    async with running_server(tmp_path) as h:
        alice, bob = await h.connect("alice"), await h.connect("bob")
        table_id = await create_table(alice, seats=2)
        await join(bob, table_id)
        await start(alice)
        views = {c: (await c.expect("state"))["view"] for c in (alice, bob)}
        mover, waiter = (alice, bob) if views[alice]["turn"] == views[alice]["seat"] else (bob, alice)
        version = views[mover]["version"]
        out_of_turn = await waiter.request(Act(action=views[waiter]["hand"][0], version=version),
                                           "error")
        four = await mover.request(Act(action="ONO99x4", version=version), "error")
        unknown = await mover.request(Act(action="11", version=version), "error")
        missing = next(c for c in CODES[:11] if c not in views[mover]["hand"])
        not_held = await mover.request(Act(action=missing, version=version), "error")
        reverse = "REV" if "REV" not in views[mover]["hand"] else None
        no_reverse = (await mover.request(Act(action=reverse, version=version), "error")
                      if reverse else None)
    assert out_of_turn["params"] == {"why": "not_your_turn", "turn": views[alice]["turn"],
                                     "seat": views[waiter]["seat"]}
    assert four["params"] == {"why": "four_needs_four"}
    assert unknown["code"] == "bad_action" and unknown["params"] == {"action": "11"}
    with using("de"):
        # said from the key: whatever English the server wrote
        assert said_of({**out_of_turn, "reason": "some other words"}) == "du bist nicht am Zug"
        assert said_of(four) == "zum Ablegen von vier Karten brauchst du vier ONO-99-Karten auf der Hand"
        assert said_of(unknown) == "der Server kennt diesen Zug nicht; er wurde nicht ausgeführt"
        assert said_of(not_held) == f"{missing} ist nicht auf deiner Hand"  # a card named in German
        if no_reverse is not None:
            assert said_of(no_reverse) == "Umkehr ist nicht auf deiner Hand"
    with using("en"):
        assert said_of(not_held) == not_held["reason"]


# --- the other errors ----------------------------------------------------------------------------------------
async def test_a_refused_password_is_said_in_german_by_its_key(tmp_path: Path) -> None:
    async with running_server(tmp_path, ssh=SshSettings(auth="password", password="open sesame")) as h:
        refused = []
        for offered in (None, "wrong"):
            with pytest.raises(ServerError) as info:
                await Client.connect("127.0.0.1", h.port, "eve", password=offered, timeout=TIMEOUT)
            refused.append(info.value.error)
    assert [m.params for m in refused] == [{"why": "password"}, {"why": "wrong_password"}]
    assert refused[1].reason == "wrong password"
    with using("de"):
        assert [said(m) for m in refused] == [
            "dieser Server verlangt ein Passwort: verbinde dich mit --password", "falsches Passwort"]


async def test_a_malformed_message_is_said_in_german_with_its_message_and_field(tmp_path: Path) -> None:
    async with running_server(tmp_path) as h:
        ada = await h.connect("ada")
        missing = await ada.request({"t": "give_seat", "seat": 1}, "error")
        wrong = await ada.request({"t": "kick", "seat": "one"}, "error")
        out = await ada.request({"t": "kick", "seat": 9}, "error")
    assert missing["params"] == {"why": "missing", "message": "give_seat", "field": "name"}
    assert wrong["params"] == {"why": "type", "message": "kick", "field": "seat"}
    assert out["params"] == {"why": "value", "message": "kick", "field": "seat"}
    with using("de"):
        assert said_of(missing) == "der Nachricht give_seat fehlt ihr Feld name"
        assert said_of(out) == "das Feld seat der Nachricht kick liegt außerhalb des erlaubten Bereichs"


# --- game records -------------------------------------------------------------------------------------------
def test_every_record_fault_is_said_in_every_language() -> None:
    for lang in LANGUAGES:
        if lang == "en":
            continue
        with using(lang):
            for why, template in RECORD_PROBLEMS.items():
                if fields(template) == {template.strip("{}")}:
                    continue  # a nested problem, said in its own words
                said = gettext(template)
                assert said != template and fields(said) == fields(template), (lang, why)


def test_a_record_fault_is_said_in_german_with_its_nested_parts() -> None:
    from ono99_kernel.core.record import replay
    from tests.test_records import base_record, first_index

    record = base_record()
    events = record["hands"][0]["events"]
    i = first_index(events, "play")
    seat = events[i]["seat"]
    missing = next(c for c in ["PLAY2", "REV", "-10"] if c not in record["hands"][0]["dealt"][seat])
    events[i]["cards"] = [missing]
    with pytest.raises(RecordError) as info:
        replay(record)
    error = info.value.at_line(3)
    assert error.why == "illegal"
    assert str(error).startswith(f"line 3, hand 1, event {i + 1}: a play of {missing} by seat")
    with using("de"):
        label = gettext(Card.from_code(missing).label())
        german = error.describe(gettext)
    assert german.startswith(f"Zeile 3, Runde 1, Ereignis {i + 1}: ein Ausspielen von {missing} durch Platz {seat}")
    assert german.endswith(f" ist nicht erlaubt: {label} ist nicht auf der Hand von Platz {seat}")


def test_records_check_says_its_faults_in_german(tmp_path: Path) -> None:
    from ono99_kernel.core.record import dumps
    from tests.test_records import base_record, first_index, run_cli

    record = base_record()
    corrupt = base_record()
    i = first_index(corrupt["hands"][0]["events"], "play", 4)
    corrupt["hands"][0]["events"][i]["total"] += 3
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join([dumps(record), dumps(corrupt), "[]"]) + "\n")
    out = run_cli("--lang", "de", "records", "check", str(path))
    assert out.returncode == 1
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith(f"{path}: Zeile 2, Runde 1, Ereignis {i + 1}: "
                               "die Regeln ergeben hier ein Ausspielen von ")
    assert "die Aufzeichnung hat ein Ausspielen von" in lines[0]
    assert lines[1] == f"{path}: Zeile 3: eine Aufzeichnung muss ein JSON-Objekt sein"


async def test_too_many_connections_and_a_bad_key_are_said_in_german_by_their_keys(tmp_path: Path) -> None:
    from ono99_kernel.protocol import PROTOCOL_VERSION
    from tests.server_helpers import until_closed

    async with running_server(tmp_path, max_connections_per_address=2) as h:
        ada = await h.connect("Ada")
        raw = await h.raw()
        for key in ("ssh-dss AAAA", "ssh-ed25519 AAAAnope"):
            await raw.send(Hello(version=PROTOCOL_VERSION, name="Mallory", key=key))
        bad_type, bad_key = await raw.error(), await raw.error()
        refused = [m for m in await until_closed(await h.raw()) if m["t"] == "error"]
        assert ada.welcome["name"] == "Ada"
    assert set(bad_type["params"]) == {"why", "types"} and bad_type["params"]["why"] == "type"
    assert "ssh-ed25519" in bad_type["params"]["types"].split(", ")
    assert bad_key["params"] == {"why": "invalid"}
    assert [m["params"] for m in refused] == [{"why": "address", "address": "127.0.0.1"}]
    with using("de"):
        assert said_of(refused[0]) == "zu viele Verbindungen von 127.0.0.1"
        assert said_of(bad_key) == "der Schlüssel ist kein gültiger öffentlicher Schlüssel"
        assert said_of(bad_type).startswith("der Schlüssel muss ein öffentlicher OpenSSH-Schlüssel "
                                                          "vom Typ ")


def test_a_player_removed_from_a_table_named_after_its_host_reads_the_word_table_once() -> None:
    """A host removed a player from "Ada's table" (a name the server gives): the notice says the table's
    name once, not "removed from table Ada's table", in English and in the reader's language."""
    notice = Notice(table=None, text="", code="removed", params={"table": "Ada's table"})
    with using("en"):
        assert said(notice) == "You were removed from the table: Ada's table."
    with using("de"):
        german_name = gettext("{host}'s table").format(host="Ada")
        assert said(notice) == f"Du wurdest vom Tisch entfernt: {german_name}."
