"""Game records: write, read, replay, and reject corrupt records with the place and the reason."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.core import DRAW, Game, RecordError, TableOptions
from ono99_kernel.core.record import Player, check_lines, dumps, game_to_record, replay

OPTION_SETS: list[tuple[str, dict[str, Any]]] = [
    ("2022", {}),
    ("2022", {"manual_draw": True}),
    ("2022", {"eight_players": True}),
    ("1980", {}),
    ("1980", {"out_at_zero_tokens": True, "ono99_on_zero": True}),
    ("1980", {"bust_over_99": True, "ono99_sets_99": True}),
    ("1980", {"scoring": "points"}),
    ("1980", {"scoring": "points", "points_win": "lowest_score", "points_target": 60, "manual_draw": True}),
    ("1980", {"manual_draw": True}),
]


def random_game(edition: str, options: dict[str, Any], players: int, seed: int, *,
                eager_reshuffle: bool = False, keep_low: float = 0.0) -> Game:
    """A game of random legal actions; under manual_draw the next actor is random too, so draws
    are sometimes lost. ``eager_reshuffle`` reshuffles as soon as the draw pile runs out, as an
    independent writer may. ``keep_low`` is how often a player picks the play that keeps the
    total lowest (long games, so the draw pile runs out)."""
    game = Game(TableOptions.from_mapping(edition, options), players, random.Random(seed))
    choose = random.Random(seed + 1)
    while not game.is_over:
        seat = choose.choice(game.actors())
        legal = game.legal_actions(seat)
        if choose.random() < keep_low:
            action = min(legal, key=lambda a: _effect(a, game.total))
        else:
            action = choose.choice(legal)
        game.apply(seat, action)
        if eager_reshuffle and not game.is_over and not game.draw_pile() and len(game.discard_pile()) > 1:
            pile = list(game.discard_pile()[:-1])
            choose.shuffle(pile)
            game.reshuffle_now(pile)
    return game


def _effect(action: Any, total: int) -> int:
    card = action.card
    if card is None or card.code in ("REV", "PLAY2", "HOLD", "DOUBLE", "ONO99"):
        return 0
    return -10 if card.code == "-10" else int(card.code)


def record_of(game: Game, seed: int | None = 1) -> dict[str, Any]:
    players = [Player(f"P{i}", "bot:random") for i in range(game.seats)]
    return game_to_record(game, players, seed)


@pytest.mark.parametrize(("edition", "options"), OPTION_SETS)
def test_record_round_trip_replays_to_the_same_game(edition: str, options: dict[str, Any]) -> None:
    most = TableOptions.from_mapping(edition, options).max_players
    for seed in range(14):
        players = 2 + seed % (most - 1)
        game = random_game(edition, options, players, seed)
        record = record_of(game, seed)
        text = dumps(record)
        assert "\n" not in text
        replayed = replay(json.loads(text))
        assert replayed.game.outcome == game.outcome
        assert replayed.game.log == game.log
        assert record_of(replayed.game, seed) == record


@pytest.mark.parametrize("options", [{}, {"scoring": "points", "manual_draw": True}])
def test_record_round_trip_through_reshuffles(options: dict[str, Any]) -> None:
    reshuffles = 0
    for seed in range(4):
        game = random_game("1980", options, 8, seed, keep_low=0.5)
        record = record_of(game, seed)
        reshuffles += sum(1 for h in record["hands"] for e in h["events"] if e["e"] == "reshuffle")
        assert record_of(replay(json.loads(dumps(record))).game, seed) == record
    assert reshuffles > 0, "8-player 1980 games must run through the draw pile"


def test_record_has_the_fixed_fields_and_event_kinds() -> None:
    record = record_of(random_game("1980", {"manual_draw": True}, 4, 3))
    assert record["format"] == "ono99-record/1"
    assert record["edition"] == "1980"
    assert set(record) >= {"format", "edition", "options", "seed", "players", "hands", "result"}
    for hand in record["hands"]:
        assert set(hand) == {"dealer", "first", "dealt", "draw_pile", "events"}
        for event in hand["events"]:
            assert event["e"] in {"play", "draw", "reshuffle", "missed_draw", "out"}
    assert set(record["result"]) == {"winner", "tokens", "scores"}


def test_record_reader_accepts_eager_reshuffles() -> None:
    """A writer that reshuffles as soon as the draw pile runs out (not when a draw needs it)."""
    eager_seen = 0
    for seed in range(6):
        game = random_game("1980", {}, 8, seed, eager_reshuffle=True, keep_low=0.5)
        record = record_of(game)
        for hand in record["hands"]:
            events = hand["events"]
            eager_seen += sum(1 for i, e in enumerate(events) if e["e"] == "reshuffle" and events[i - 1]["e"] == "draw"
                              and (i + 1 == len(events) or events[i + 1]["e"] != "draw"))
        assert replay(record).game.outcome == game.outcome
    assert eager_seen > 0, "the test games must contain eager reshuffles"


def test_record_reader_accepts_missed_draws_written_before_the_play() -> None:
    moved = 0
    for seed in range(30):
        game = random_game("1980", {"manual_draw": True}, 3, seed)
        record = record_of(game)
        for hand in record["hands"]:
            events = hand["events"]
            for i in range(1, len(events)):
                if events[i]["e"] == "missed_draw" and events[i - 1]["e"] == "play":
                    events[i - 1], events[i] = events[i], events[i - 1]
                    moved += 1
        assert replay(record).game.outcome == game.outcome
    assert moved > 0


def test_records_check_rejects_a_missed_draw_moved_before_the_seats_own_play() -> None:
    """A seat that has not played since it last drew holds a full hand: a missed draw of that
    seat written before its own play (and the play that really cost it) is refused, not
    reordered into a valid game."""
    mutated = 0
    for seed in range(40):
        record = record_of(random_game("2022", {"manual_draw": True}, 2, seed))
        for h, hand in enumerate(record["hands"]):
            events = hand["events"]
            for k in range(len(events) - 2):
                a, b, c = events[k:k + 3]
                if (a["e"], b["e"], c["e"]) == ("play", "play", "missed_draw") and c["seat"] == a["seat"]:
                    bad = copy.deepcopy(record)
                    bad["hands"][h]["events"][k:k + 3] = [c, a, b]
                    with pytest.raises(RecordError, match=f"seat {a['seat']} cannot lose a draw here") as err:
                        replay(bad)
                    assert (err.value.hand, err.value.event) == (h, k)
                    mutated += 1
                    break
    assert mutated > 5


def _drawing_first_records(options: dict[str, Any], players: int, seeds: int,
                           keep_low: float = 0.0) -> Iterator[tuple[dict[str, Any], list[tuple[int, int]]]]:
    """Records of manual_draw games from a writer whose player always takes their draw at once,
    before the next seat is declared out (``Game.hold_outs``: the engine itself settles an out at
    once, and never takes an open draw once the out ends the hand). Yields each record with the
    places (hand, event) of the draws that came before an out that ended the hand or the game;
    ``keep_low`` makes long hands, so that such draws need a reshuffle first."""
    edition = "1980" if "scoring" in options else "2022"
    for seed in range(seeds):
        game = Game(TableOptions.from_mapping(edition, options), players, random.Random(seed))
        choose = random.Random(seed + 1)
        while not game.is_over:
            seat = game.actors()[-1]  # the seat on turn: open draws stay open until after its play
            if game.has_open_draw(seat):
                game.apply(seat, DRAW)
                continue
            legal = game.legal_actions(seat)
            action = min(legal, key=lambda a: _effect(a, game.total)) if choose.random() < keep_low \
                else choose.choice(legal)
            game.hold_outs()
            game.apply(seat, action)
            if game.has_open_draw(seat):
                game.apply(seat, DRAW)  # drawn before anyone is declared out
            game.settle_now()
            if not game.is_over:
                for other in game.actors()[:-1]:
                    game.apply(other, DRAW)  # everyone else takes their draw at once
        record = record_of(game, seed)
        ending: list[tuple[int, int]] = []
        for h, hand in enumerate(record["hands"]):
            events = hand["events"]
            for i in range(len(events) - 1):
                if events[i]["e"] == "draw" and events[i + 1]["e"] == "out" and (
                        h < len(record["hands"]) - 1 or i + 2 == len(events)) and \
                        not any(e["e"] == "play" for e in events[i + 2:]):
                    ending.append((h, i))
        yield record, ending


@pytest.mark.parametrize(("options", "players", "seeds"), [
    ({"manual_draw": True}, 4, 30),
    ({"manual_draw": True, "scoring": "tokens"}, 8, 10),  # eight hands of four: the 1980 pile runs out
    ({"manual_draw": True, "scoring": "points"}, 8, 30),
    ({"manual_draw": True, "scoring": "points", "points_win": "lowest_score"}, 3, 30),
])
def test_records_check_accepts_a_draw_taken_before_the_next_seat_is_out(options: dict[str, Any], players: int,
                                                                         seeds: int) -> None:
    """Under manual_draw an ``out`` is not a play and ends no open draw: the player who just played
    may draw before the next seat is declared out, also when that out ends the hand or the game, and
    also after a reshuffle that draw needed. Such records are faithful: they replay to their own
    result, the hand's points counting the card drawn (their scores differ from a writer that never
    took that draw)."""
    ending = reshuffled = 0
    for record, places in _drawing_first_records(options, players, seeds):
        replayed = replay(record)
        assert replayed.game.outcome is not None
        assert record["result"]["winner"] == replayed.game.outcome.winner
        ending += len(places)
        for h, i in places:
            reshuffled += record["hands"][h]["events"][i - 1]["e"] == "reshuffle"
    assert ending > 5, ending
    if players == 8:  # with eight hands dealt from 54 cards the pile runs out: a draw needs a reshuffle
        assert reshuffled > 0, reshuffled


def test_records_check_refuses_a_draw_before_an_out_that_the_rules_do_not_give() -> None:
    """Tried on records whose player drew before a hand-ending out: the drawn card changed (not the
    top of the draw pile), the draw given to a seat that owes none, and the out moved to a seat that
    still has a play. Each is refused at that event."""
    tried = 0
    for record, places in _drawing_first_records({"manual_draw": True, "scoring": "points"}, 2, 30):
        others = [(h, i) for h, i in places  # the drawer is not the seat going out (not its own Play 2)
                  if record["hands"][h]["events"][i]["seat"] != record["hands"][h]["events"][i + 1]["seat"]]
        for h, i in others[:1]:
            wrong_card = copy.deepcopy(record)
            early = wrong_card["hands"][h]["events"][i]
            early["card"] = "ONO99" if early["card"] != "ONO99" else "10"
            with pytest.raises(RecordError) as err:
                replay(wrong_card)
            assert (err.value.hand, err.value.event) == (h, i)
            not_owed = copy.deepcopy(record)
            events = not_owed["hands"][h]["events"]
            events[i]["seat"] = events[i + 1]["seat"]  # the seat going out drew: it owes no draw
            with pytest.raises(RecordError):
                replay(not_owed)
            tried += 1
    assert tried > 3


def test_record_reader_ignores_unknown_fields_and_options() -> None:
    record = record_of(random_game("2022", {}, 3, 5))
    record["client"] = "another implementation"
    record["options"]["house_colour"] = "blue"
    record["hands"][0]["note"] = "x"
    record["hands"][0]["events"][0]["ms"] = 1234
    assert replay(record).game.is_over


def test_record_reader_takes_defaults_for_missing_options() -> None:
    record = record_of(random_game("1980", {}, 3, 5))
    record["options"] = {}
    assert replay(record).game.options.scoring is not None


# --- corrupt records -------------------------------------------------------------------------------
def base_record() -> dict[str, Any]:
    return record_of(random_game("2022", {}, 4, 11))


def first_index(events: list[dict[str, Any]], kind: str, after: int = 0) -> int:
    return next(i for i, e in enumerate(events) if e["e"] == kind and i >= after)


def rejected(record: Any) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay(record)
    return info.value


def test_corrupt_total_is_rejected_at_its_event() -> None:
    record = base_record()
    events = record["hands"][0]["events"]
    i = first_index(events, "play", 5)
    events[i]["total"] += 1
    error = rejected(record)
    assert (error.hand, error.event) == (0, i)
    assert "the rules give a play" in error.reason


def test_card_not_in_hand_is_rejected_as_illegal() -> None:
    record = base_record()
    events = record["hands"][0]["events"]
    i = first_index(events, "play")
    seat = events[i]["seat"]
    hand = record["hands"][0]["dealt"][seat]
    missing = next(c for c in ["PLAY2", "REV", "-10", "0", "1", "2"] if c not in hand)
    events[i]["cards"] = [missing]
    error = rejected(record)
    assert error.event == i
    # said of the seat, not to a player: the check reads the game from outside
    assert "illegal" in error.reason and f"is not in seat {seat}'s hand" in error.reason
    assert "your" not in error.reason


def test_play_over_98_is_rejected_with_the_total_it_would_make() -> None:
    # seat 0 holds 10s only; the total is pushed up and a play that would pass 98 is forged.
    for seed in range(200):
        game = random_game("2022", {}, 2, seed)
        record = record_of(game)
        events = record["hands"][0]["events"]
        for i, event in enumerate(events):
            if event["e"] == "play" and event["total"] >= 89 and event["cards"][0] not in ("10",):
                # replace it by a 10 if that seat held one: that play would make total+10 > 98
                before = event["total"] - (int(event["cards"][0]) if event["cards"][0].isdigit() else 0)
                if before + 10 <= 98:
                    continue
                held = _hand_before(record, i, event["seat"])
                if "10" not in held:
                    continue
                event["cards"] = ["10"]
                error = rejected(record)
                assert error.event == i
                assert f"10 would make {before + 10}" in error.reason
                return
    pytest.fail("no position found to forge an over-98 play")


def _hand_before(record: dict[str, Any], index: int, seat: int) -> list[str]:
    hand = list(record["hands"][0]["dealt"][seat])
    for event in record["hands"][0]["events"][:index]:
        if event.get("seat") != seat:
            continue
        if event["e"] == "play":
            for card in event["cards"]:
                hand.remove(card)
        elif event["e"] == "draw":
            hand.append(event["card"])
    return hand


def test_missing_draw_is_rejected() -> None:
    record = base_record()
    events = record["hands"][0]["events"]
    i = first_index(events, "draw")
    del events[i]
    error = rejected(record)
    assert error.event == i
    assert "draw" in error.reason


def test_wrong_drawn_card_is_rejected() -> None:
    record = base_record()
    events = record["hands"][0]["events"]
    i = first_index(events, "draw")
    events[i]["card"] = "ONO99" if events[i]["card"] != "ONO99" else "5"
    assert rejected(record).event == i


def test_deal_that_is_not_the_deck_is_rejected() -> None:
    record = base_record()
    record["hands"][0]["dealt"][0][0] = "ONO99" if record["hands"][0]["dealt"][0][0] != "ONO99" else "7"
    error = rejected(record)
    assert error.hand == 0 and "deck" in error.reason


def test_wrong_first_player_is_rejected() -> None:
    record = base_record()
    record["hands"][0]["first"] = (record["hands"][0]["first"] + 1) % 4
    error = rejected(record)
    assert "must play first" in error.reason


def test_wrong_winner_is_rejected() -> None:
    record = base_record()
    record["result"]["winner"] = (record["result"]["winner"] + 1) % 4
    assert "result" in rejected(record).reason


def test_truncated_record_is_rejected() -> None:
    record = base_record()
    events = record["hands"][0]["events"]
    del events[len(events) // 2:]
    error = rejected(record)
    assert error.event == len(events)
    assert "not over" in error.reason or "require" in error.reason


def test_extra_event_after_the_end_is_rejected() -> None:
    record = base_record()
    record["hands"][0]["events"].append({"e": "play", "seat": 0, "cards": ["0"], "total": 0})
    assert "game is over" in rejected(record).reason


def test_unknown_event_kind_and_card_code_are_rejected() -> None:
    record = base_record()
    i = first_index(record["hands"][0]["events"], "play", 3)
    bad_kind = copy.deepcopy(record)
    bad_kind["hands"][0]["events"][i] = {"e": "pass", "seat": 0}
    assert "pass" in rejected(bad_kind).reason
    bad_card = copy.deepcopy(record)
    bad_card["hands"][0]["events"][i]["cards"] = ["11"]
    assert "unknown card code '11'" in rejected(bad_card).reason


def test_wrong_format_and_shapes_are_rejected() -> None:
    record = base_record()
    for field, value, words in [
        ("format", "ono99-record/2", "format"),
        ("edition", "2023", "edition"),
        ("players", [{"name": "solo", "kind": "human"}], "players"),
        ("hands", [], "hands"),
        ("seed", "seven", "seed"),
        ("options", {"scoring": "points"}, "scoring"),
    ]:
        broken = copy.deepcopy(record)
        broken[field] = value
        assert words in rejected(broken).reason, field
    assert "JSON object" in rejected([1, 2]).reason


def test_every_single_event_deletion_is_caught() -> None:
    """Deleting any one event of a record breaks it: nothing in a record is redundant."""
    record = record_of(random_game("1980", {"scoring": "points", "manual_draw": True}, 3, 2))
    for h, hand in enumerate(record["hands"]):
        for i in range(len(hand["events"])):
            broken = copy.deepcopy(record)
            del broken["hands"][h]["events"][i]
            with pytest.raises(RecordError):
                replay(broken)


# --- files and the checker ----------------------------------------------------------------------------
def test_check_lines_reports_line_numbers() -> None:
    good = dumps(base_record())
    bad = base_record()
    bad["result"]["winner"] = (bad["result"]["winner"] + 1) % 4
    lines = [good, "", "{not json", dumps(bad), good]
    results = list(check_lines(lines))
    assert [r.line for r in results] == [1, 3, 4, 5]
    assert [r.error is None for r in results] == [True, False, False, True]
    assert results[1].error is not None and "not valid JSON" in results[1].error.reason
    assert results[2].error is not None and results[2].error.line == 4


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ono99_tui.cli", *args], capture_output=True, text=True, timeout=300)


def test_records_check_cli_prints_faults_and_a_summary(tmp_path: Path) -> None:
    record = base_record()
    events = record["hands"][0]["events"]
    i = first_index(events, "play", 4)
    corrupt = copy.deepcopy(record)
    corrupt["hands"][0]["events"][i]["total"] += 3
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join([dumps(record), dumps(corrupt), dumps(record), "[]"]) + "\n")
    out = run_cli("records", "check", str(path))
    assert out.returncode == 1
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith(f"{path}: line 2, hand 1, event {i + 1}: ")  # counted from 1, as lines are
    assert lines[1].startswith(f"{path}: line 4: ")
    assert lines[-1] == "4 records checked: 2 valid, 2 faulty"


def test_records_check_cli_passes_a_clean_file(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(dumps(base_record()) + "\n")
    out = run_cli("records", "check", str(path))
    assert out.returncode == 0
    assert out.stdout.strip() == "1 record checked: 1 valid, 0 faulty"


def test_records_check_cli_says_what_to_do_with_a_missing_file(tmp_path: Path) -> None:
    out = run_cli("records", "check", str(tmp_path / "nope.jsonl"))
    assert out.returncode == 2
    assert "cannot read" in out.stderr
