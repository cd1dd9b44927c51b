"""Table options: valid and invalid option sets, defaults per edition, round trips."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ono99_kernel.core import Edition, Game, OptionError, PointsWin, Scoring, TableOptions

# manual_draw, also a 1980 option, has its own test below
OPTIONS_1980_ONLY = ["bust_over_99", "ono99_on_zero", "ono99_sets_99", "out_at_zero_tokens"]


# --- defaults -----------------------------------------------------------------------------------
def test_defaults_2022() -> None:
    opts = TableOptions.from_mapping("2022")
    assert opts == TableOptions()
    assert opts.edition is Edition.E2022
    assert opts.scoring is Scoring.ELIMINATION
    assert opts.limit == 98
    assert opts.max_players == 6
    assert opts.to_mapping() == {
        "bust_over_99": False,
        "ono99_on_zero": False,
        "ono99_sets_99": False,
        "manual_draw": False,
        "scoring": "elimination",
        "out_at_zero_tokens": False,
        "points_target": 100,
        "points_win": "last_standing",
        "eight_players": False,
    }


def test_defaults_1980() -> None:
    opts = TableOptions.from_mapping("1980", {})
    assert opts.edition is Edition.E1980
    assert opts.scoring is Scoring.TOKENS
    assert opts.limit == 98
    assert opts.max_players == 8
    assert not (opts.bust_over_99 or opts.ono99_on_zero or opts.ono99_sets_99 or opts.manual_draw
                or opts.out_at_zero_tokens)
    assert opts.points_target == 100
    assert opts.points_win is PointsWin.LAST_STANDING
    assert opts.to_mapping()["scoring"] == "tokens"


# --- valid option sets --------------------------------------------------------------------------
VALID: list[tuple[str, dict[str, Any]]] = [
    ("2022", {}),
    ("2022", {"eight_players": True}),
    ("1980", {}),
    ("1980", {"bust_over_99": True}),
    ("1980", {"ono99_on_zero": True}),
    ("1980", {"bust_over_99": True, "ono99_sets_99": True}),
    ("1980", {"manual_draw": True}),
    ("1980", {"scoring": "tokens", "out_at_zero_tokens": True}),
    ("1980", {"scoring": "points", "points_target": 150, "points_win": "lowest_score"}),
    ("1980", {"scoring": "points", "points_target": 1}),
    ("1980", {"scoring": "points", "points_target": 10_000, "points_win": "last_standing"}),
    ("1980", {"scoring": Scoring.POINTS, "points_win": PointsWin.LOWEST_SCORE}),
    ("1980", {"bust_over_99": True, "ono99_on_zero": True, "manual_draw": True,
              "scoring": "points"}),
]


@pytest.mark.parametrize(("edition", "options"), VALID)
def test_valid_option_sets_are_accepted(edition: str, options: dict[str, Any]) -> None:
    opts = TableOptions.from_mapping(edition, options)
    assert opts.edition.value == edition
    mapping = opts.to_mapping()
    for name, value in options.items():
        plain = value.value if isinstance(value, Scoring | PointsWin) else value
        assert mapping[name] == plain


@pytest.mark.parametrize(("edition", "options"), VALID)
def test_to_mapping_from_mapping_round_trip(edition: str, options: dict[str, Any]) -> None:
    opts = TableOptions.from_mapping(edition, options)
    mapping = opts.to_mapping()
    assert all(isinstance(v, bool | int | str) for v in mapping.values())
    again = TableOptions.from_mapping(opts.edition.value, mapping)
    assert again == opts
    assert again.to_mapping() == mapping


def test_bust_over_99_raises_the_limit() -> None:
    assert TableOptions.from_mapping("1980", {"bust_over_99": True}).limit == 99


def test_unknown_option_ignored_when_not_strict() -> None:
    opts = TableOptions.from_mapping("1980", {"future_rule": 3, "manual_draw": True}, strict=False)
    assert opts == TableOptions.from_mapping("1980", {"manual_draw": True})


# --- invalid option sets ------------------------------------------------------------------------
def refused(edition: object, options: dict[str, Any]) -> str:
    with pytest.raises(OptionError) as info:
        TableOptions.from_mapping(edition, options)
    assert isinstance(info.value, ValueError)
    return str(info.value)


def test_unknown_option_name_refused() -> None:
    message = refused("2022", {"bust_over_100": True})
    assert "bust_over_100" in message
    assert "unknown" in message
    for known in TableOptions.option_names():
        assert known in message


@pytest.mark.parametrize("edition", ["1999", "", None, 2022, "E2022"])
def test_unknown_edition_refused(edition: object) -> None:
    message = refused(edition, {})
    assert "edition" in message
    assert "'2022'" in message and "'1980'" in message


@pytest.mark.parametrize(
    ("edition", "name", "value"),
    [
        ("1980", "bust_over_99", "yes"),
        ("1980", "bust_over_99", 1),
        ("1980", "ono99_on_zero", None),
        ("1980", "manual_draw", "true"),
        ("1980", "out_at_zero_tokens", 0),
        ("2022", "eight_players", "on"),
        ("2022", "manual_draw", 1.0),
    ],
)
def test_boolean_option_of_wrong_type_refused(edition: str, name: str, value: object) -> None:
    message = refused(edition, {name: value})
    assert name in message
    assert "true" in message and "false" in message


@pytest.mark.parametrize("value", ["score", "", 1, None, True, "POINTS"])
def test_scoring_of_wrong_value_refused(value: object) -> None:
    message = refused("1980", {"scoring": value})
    assert "scoring" in message
    assert "'tokens'" in message and "'points'" in message


@pytest.mark.parametrize("value", ["highest", "", 2, None, "last standing"])
def test_points_win_of_wrong_value_refused(value: object) -> None:
    message = refused("1980", {"scoring": "points", "points_win": value})
    assert "points_win" in message
    assert "'last_standing'" in message and "'lowest_score'" in message


@pytest.mark.parametrize("value", [0, -5, 10_001, "100", 100.0, True, None])
def test_points_target_of_wrong_value_refused(value: object) -> None:
    message = refused("1980", {"scoring": "points", "points_target": value})
    assert "points_target" in message
    assert "1" in message and "10000" in message


def test_ono99_sets_99_without_bust_over_99_refused() -> None:
    message = refused("1980", {"ono99_sets_99": True})
    assert "ono99_sets_99" in message
    assert "bust_over_99" in message


def test_ono99_on_zero_with_ono99_sets_99_refused() -> None:
    message = refused("1980", {"bust_over_99": True, "ono99_sets_99": True, "ono99_on_zero": True})
    assert "ono99_on_zero" in message
    assert "ono99_sets_99" in message


@pytest.mark.parametrize("scoring", ["points", "tokens"])
def test_tokens_or_points_scoring_on_2022_table_refused(scoring: str) -> None:
    message = refused("2022", {"scoring": scoring})
    assert "scoring" in message
    assert "'elimination'" in message
    assert "2022" in message


def test_elimination_scoring_on_1980_table_refused() -> None:
    message = refused("1980", {"scoring": "elimination"})
    assert "scoring" in message
    assert "'tokens'" in message and "'points'" in message


@pytest.mark.parametrize("name", OPTIONS_1980_ONLY)
def test_1980_only_option_on_2022_table_refused(name: str) -> None:
    options: dict[str, Any] = {name: True}
    if name == "ono99_sets_99":
        options["bust_over_99"] = True
    message = refused("2022", options)
    assert "1980" in message
    # the refusal names an offending 1980 option and that it must be false
    assert any(n in message for n in options)
    assert "false" in message


def test_manual_draw_is_a_house_rule_on_2022_tables() -> None:
    """docs/rules.md describes ``manual_draw`` with the 1980 edition; drawing works the same way in
    both editions, so a 2022 table may choose it as a house rule (README, docs/records.md)."""
    options = TableOptions.from_mapping("2022", {"manual_draw": True})
    assert options.manual_draw is True
    assert options.to_mapping()["manual_draw"] is True


def test_eight_players_on_1980_table_refused() -> None:
    message = refused("1980", {"eight_players": True})
    assert "eight_players" in message
    assert "2 to 8" in message


# --- player counts ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("edition", "options", "seats", "allowed"),
    [
        ("2022", {}, 1, "2 to 6"),
        ("2022", {}, 0, "2 to 6"),
        ("2022", {}, 7, "2 to 6"),
        ("2022", {}, 9, "2 to 6"),
        ("2022", {"eight_players": True}, 9, "2 to 8"),
        ("2022", {"eight_players": True}, 1, "2 to 8"),
        ("1980", {}, 1, "2 to 8"),
        ("1980", {}, 9, "2 to 8"),
    ],
)
def test_player_count_out_of_range_refused(
    edition: str, options: dict[str, Any], seats: int, allowed: str
) -> None:
    opts = TableOptions.from_mapping(edition, options)
    with pytest.raises(OptionError) as info:
        Game(opts, seats, random.Random(0))
    message = str(info.value)
    assert allowed in message
    assert str(seats) in message


def test_seven_players_on_2022_hints_at_eight_players_option() -> None:
    with pytest.raises(OptionError, match="eight_players"):
        Game(TableOptions(), 7, random.Random(0))


@pytest.mark.parametrize("seats", ["3", 3.0, None, True])
def test_player_count_of_wrong_type_refused(seats: object) -> None:
    with pytest.raises(OptionError, match="2 to 6"):
        Game(TableOptions(), seats, random.Random(0))  # type: ignore[arg-type]  # a wrong type on purpose


@pytest.mark.parametrize(
    ("edition", "options", "seats"),
    [("2022", {}, 2), ("2022", {}, 6), ("2022", {"eight_players": True}, 7),
     ("2022", {"eight_players": True}, 8), ("1980", {}, 2), ("1980", {}, 8)],
)
def test_player_count_in_range_accepted(edition: str, options: dict[str, Any], seats: int) -> None:
    game = Game(TableOptions.from_mapping(edition, options), seats, random.Random(0))
    assert game.seats == seats
